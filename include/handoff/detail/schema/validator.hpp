// SPDX-License-Identifier: MIT
#pragma once

// Walks a value through compiled schema nodes, reporting to a walk_sink (sinks.hpp): the
// yes/no mode and the listing mode run the same code, the same checks in the same order. In-place
// applicators whose failure is one fact (anyOf, oneOf, not, contains, if) are decided with a
// boolean sub-walk and reported as one problem; those that descend (properties, items, allOf,
// then/else, $ref) report what failed inside.
//
// Annotations (which properties and items were evaluated) are collected only below a schema
// with unevaluatedProperties/unevaluatedItems, through its in-place subschemas: elsewhere the
// `evaluated*` is null and the walk is the one of a schema without them. The dynamic scope (the
// schema resources entered, outermost first) is kept only when the schema has a `$dynamicRef`
// or `$recursiveRef` that can use it.

#include <handoff/config.hpp>
#include <handoff/detail/json/equal.hpp>
#include <handoff/detail/json/writer.hpp>
#include <handoff/detail/schema/compiler.hpp>
#include <handoff/detail/schema/evaluated.hpp>
#include <handoff/detail/schema/node.hpp>
#include <handoff/detail/schema/sinks.hpp>
#include <handoff/detail/schema/walk_memo.hpp>
#include <handoff/detail/text.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>   // sort, binary_search, any_of
#include <cstddef>     // size_t
#include <cstdint>     // uint64_t
#include <iterator>    // next
#include <limits>      // numeric_limits
#include <memory>      // unique_ptr, make_unique
#include <numeric>     // iota
#include <optional>    // optional, in_place
#include <string>      // string
#include <string_view> // string_view
#include <utility>     // forward, exchange, move
#include <vector>      // vector

namespace handoff::detail {

/// Schema applications nested deeper than this fail instead of growing the stack: a value
/// nested 100,000 deep against a recursive schema is refused, never a crash.
inline constexpr int max_validation_depth = 256;

[[nodiscard]] inline std::string type_names(std::uint8_t bits) {
    static constexpr std::pair<std::uint8_t, const char*> names[] = {
        {type_null, "null"},     {type_boolean, "boolean"}, {type_integer, "integer"}, {type_number, "number"},
        {type_string, "string"}, {type_array, "array"},     {type_object, "object"}};
    std::string out;
    for (const auto& [bit, name] : names) {
        if ((bits & bit) != 0) {
            out += out.empty() ? name : std::string(" or ") + name;
        }
    }
    return out.empty() ? "nothing" : out;
}

/// " (got ...)" for a message: the value, escaped and capped; containers by their kind.
[[nodiscard]] inline std::string actual_value_note(const nlohmann::json& v) {
    if (v.is_object() || v.is_array()) {
        return " (got an " + std::string(v.type_name()) + ")";
    }
    return " (got " +
           (v.is_string() ? quote_untrusted(v.get_ref<const std::string&>()) : quote_untrusted(json_text(v), 40)) + ")";
}

class schema_validator {
public:
    /// `remember_after`: the walks after which each walk is remembered (walk()).
    schema_validator(const compiled_nodes& compiled, std::uint64_t pattern_bound, std::size_t remember_after)
        : nodes_(compiled.nodes), compiled_(compiled), pattern_bound_(pattern_bound), remember_after_(remember_after),
          dynamic_scope_(compiled.uses_dynamic_scope) {}

    /// Walks `v` through node `i`; past `remember_after` walks, answered from memory when the
    /// same walk was made before (compiled_schema::walks_before_memo says why). Not where the
    /// dynamic scope decides what a `$dynamicRef` applies: there the same walk can answer
    /// otherwise by the path that led to it.
    bool walk(const nlohmann::json& v, node_index i, walk_sink& sink, int depth, evaluated* ev = nullptr) const {
        if (++walks_ > remember_after_ && !dynamic_scope_) {
            return walk_remembered(v, i, sink, depth, ev);
        }
        return walk_once(v, i, sink, depth, ev);
    }

    /// Why the walk could not decide: a bound reached inside a subschema whose failure would have
    /// let the value pass. The value is then refused, with this reason, whatever walk() returned.
    [[nodiscard]] const std::optional<std::string>& undecided() const noexcept { return undecided_; }

private:
    bool walk_once(const nlohmann::json& v, node_index i, walk_sink& sink, int depth, evaluated* ev) const {
        const schema_node& n = nodes_[static_cast<std::size_t>(i)];
        if (depth > max_validation_depth) {
            return bound_reached(sink, [] {
                return "the value and the schema nest deeper than " + std::to_string(max_validation_depth) +
                       " levels; handoff refuses it rather than risk its stack";
            });
        }
        if (n.boolean) {
            return *n.boolean ||
                   sink.fail([] { return std::string("no value is allowed here (the schema is false)"); });
        }
        if (n.ref != no_node) {
            return walk(v, n.ref, sink, depth + 1, ev);
        }
        const scope_entry entered(*this, n.resource);
        if ((n.groups & group_unevaluated) == 0) {
            return walk_keywords(v, n, sink, depth, ev);
        }
        // What this schema's keywords and in-place subschemas evaluate, then unevaluated*.
        evaluated own;
        if (v.is_object()) {
            own.properties.reserve(2 * v.size()); // a key is mostly recorded once or twice
        }
        bool ok = walk_keywords(v, n, sink, depth, &own);
        if (!ok && !sink.collecting()) {
            return false;
        }
        ok = check_unevaluated(v, n, sink, depth, own) && ok;
        if (ev != nullptr) {
            ev->merge(own);
        }
        return ok;
    }

    /// walk_once answered from memory when the same walk was made before, deep enough below the
    /// depth bound, and reached no bound (then its answer depends on more than the value). A
    /// remembered walk records again what it recorded: its problems, what it evaluated, its depth.
    bool walk_remembered(const nlohmann::json& v, node_index i, walk_sink& sink, int depth, evaluated* ev) const {
        if (!memo_) {
            memo_ = std::make_unique<walk_memo>();
        }
        const walk_key key{i, &v, sink.collecting(), ev != nullptr};
        // Strictly below the bound: a number judged by its node's interval alone (inside_interval)
        // skips a walk one level below the deepest one recorded, which the bound also counts.
        if (const auto it = memo_->find(key); it != memo_->end() && depth + it->second.reach < max_validation_depth) {
            const remembered_walk& past = it->second;
            deepest_ = std::max(deepest_, depth + past.reach);
            sink.replay(past.listed, past.unlisted);
            if (ev != nullptr) {
                ev->merge(past.own);
            }
            return past.passed;
        }
        const int outer_deepest = std::exchange(deepest_, depth);
        const std::size_t bounds_before = bounds_reached_;
        const walk_sink::tally before = sink.count();
        const std::size_t walks_before = walks_;
        remembered_walk now;
        now.passed = walk_once(v, i, sink, depth, ev != nullptr ? &now.own : nullptr);
        now.reach = deepest_ - depth;
        now.cost = walks_ - walks_before;
        deepest_ = std::max(outer_deepest, deepest_);
        if (ev != nullptr) {
            ev->merge(now.own);
        }
        const bool passed = now.passed;
        if (bounds_reached_ == bounds_before) {
            now.listed = sink.listed_since(before);
            now.unlisted = sink.count().unlisted - before.unlisted;
            remember(key, std::move(now));
        }
        return passed;
    }

    /// Keeps `walk` under `key`. A full memory first forgets its cheapest walks, those that made
    /// fewer walks than a bar raised until half of it is free: a walk that repeats itself
    /// exponentially is among the dearest and stays, while the cheap records of a long judgment
    /// that repeats nothing go.
    void remember(const walk_key& key, remembered_walk&& walk) const {
        if (memo_->size() >= max_remembered_walks) {
            for (std::size_t bar = 2; memo_->size() >= max_remembered_walks / 2; bar *= 2) {
                for (auto it = memo_->begin(); it != memo_->end();) {
                    it = it->second.cost < bar ? memo_->erase(it) : std::next(it);
                }
            }
        }
        memo_->insert_or_assign(key, std::move(walk));
    }

    /// Around the walk of a value made for it alone (a key walked by propertyNames), which dies
    /// after it: the walks remembered then are forgotten, so that another value at its address
    /// never finds them.
    class own_memory {
    public:
        explicit own_memory(const schema_validator& v) : v_(v), outer_(std::move(v.memo_)) {}
        own_memory(const own_memory&) = delete;
        own_memory& operator=(const own_memory&) = delete;
        own_memory(own_memory&&) = delete;
        own_memory& operator=(own_memory&&) = delete;
        ~own_memory() { v_.memo_ = std::move(outer_); }

    private:
        const schema_validator& v_;
        std::unique_ptr<walk_memo> outer_;
    };

    /// The keywords of object schema `n` but unevaluated*; `out`, when not null, collects what
    /// they evaluated.
    HANDOFF_DETAIL_ALWAYS_INLINE bool walk_keywords(const nlohmann::json& v, const schema_node& n, walk_sink& sink,
                                                    int depth, evaluated* out) const {
        bool ok = true;
        const auto keep = [&](bool passed) {
            ok = ok && passed;
            return ok || sink.collecting();
        };
        if (!keep(type_allows(n.types, v) ||
                  sink.fail([&] { return "must be of type " + type_names(n.types) + actual_value_note(v); }))) {
            return false;
        }
        if (n.groups == 0) {
            return ok;
        }
        if ((n.groups & group_values) != 0 && !keep(check_values(v, n, sink))) {
            return false;
        }
        if ((n.groups & group_number) != 0 && v.is_number() && !keep(check_number(v, n, sink))) {
            return false;
        }
        if ((n.groups & group_string) != 0 && v.is_string() && !keep(check_string(v, n, sink))) {
            return false;
        }
        if ((n.groups & group_array) != 0 && v.is_array() && !keep(check_array(v, n, sink, depth, out))) {
            return false;
        }
        if ((n.groups & group_object) != 0 && v.is_object() && !keep(check_object(v, n, sink, depth, out))) {
            return false;
        }
        if ((n.groups & group_logic) != 0 && !keep(check_logic(v, n, sink, depth, out))) {
            return false;
        }
        return ok;
    }

    /// Enters the node's schema resource into the dynamic scope for the node's walk.
    class scope_entry {
    public:
        scope_entry(const schema_validator& w, std::int32_t resource) : w_(w) {
            pushed_ = w.dynamic_scope_ && (w.scope_.empty() || w.scope_.back() != resource);
            if (pushed_) {
                w.scope_.push_back(resource);
            }
        }
        scope_entry(const scope_entry&) = delete;
        scope_entry& operator=(const scope_entry&) = delete;
        scope_entry(scope_entry&&) = delete;
        scope_entry& operator=(scope_entry&&) = delete;
        ~scope_entry() {
            if (pushed_) {
                w_.scope_.pop_back();
            }
        }

    private:
        const schema_validator& w_;
        bool pushed_ = false;
    };

    /// The schema a `$dynamicRef` or `$recursiveRef` applies here: for `$dynamicRef`, the
    /// outermost resource of the dynamic scope with a `$dynamicAnchor` of that name (core 2020-12,
    /// section 8.2.3.2); for `$recursiveRef`, the outermost of the resources, innermost first, that
    /// say `"$recursiveAnchor": true` without a gap (core 2019-09, section 8.2.4.2.2).
    [[nodiscard]] node_index dynamic_target_of(const schema_node& n) const {
        if (n.dynamic == dynamic_kind::dynamic) {
            for (const std::int32_t r : scope_) {
                const auto& anchors = compiled_.dynamic_anchors[static_cast<std::size_t>(r)];
                if (const auto it = anchors.find(n.dynamic_anchor); it != anchors.end()) {
                    return it->second;
                }
            }
        } else if (n.dynamic == dynamic_kind::recursive) {
            node_index target = n.dynamic_target;
            for (auto r = scope_.rbegin(); r != scope_.rend(); ++r) {
                const node_index anchor = compiled_.recursive_anchors[static_cast<std::size_t>(*r)];
                if (anchor == no_node) {
                    break;
                }
                target = anchor;
            }
            return target;
        }
        return n.dynamic_target;
    }

    bool check_unevaluated(const nlohmann::json& v, const schema_node& n, walk_sink& sink, int depth,
                           evaluated& own) const {
        bool ok = true;
        if (n.unevaluated_properties != no_node && v.is_object()) {
            const bool closed = nodes_[static_cast<std::size_t>(n.unevaluated_properties)].boolean == false;
            for (auto it = v.begin(); it != v.end() && (ok || sink.collecting()); ++it) {
                if (own.has_property(it.key())) {
                    continue;
                }
                const std::size_t mark = sink.enter(it.key());
                ok = (closed ? sink.fail([&] {
                         return "the property " + quote_untrusted(it.key()) +
                                " is not allowed here (unevaluatedProperties is false)";
                     })
                             : walk(*it, n.unevaluated_properties, sink, depth + 1)) &&
                     ok;
                sink.leave(mark);
            }
            own.all_properties = true;
        }
        if (n.unevaluated_items != no_node && v.is_array()) {
            for (std::size_t k = 0; k < v.size() && (ok || sink.collecting()); ++k) {
                if (own.has_item(k)) {
                    continue;
                }
                const std::size_t mark = sink.enter(k);
                ok = walk(v[k], n.unevaluated_items, sink, depth + 1) && ok;
                sink.leave(mark);
            }
            own.all_items = true;
        }
        return ok;
    }

    bool check_values(const nlohmann::json& v, const schema_node& n, walk_sink& sink) const {
        if (n.const_value && !json_equal(v, *n.const_value)) {
            return sink.fail(
                [&] { return "must be " + quote_untrusted(json_text(*n.const_value), 80) + actual_value_note(v); });
        }
        if (n.has_enum) {
            // A string can only equal a string: it is looked up in the sorted strings.
            if (v.is_string() ? std::binary_search(n.enum_strings.begin(), n.enum_strings.end(),
                                                   v.get_ref<const std::string&>(), enum_order)
                              : std::any_of(n.enum_values.begin(), n.enum_values.end(),
                                            [&](const nlohmann::json& e) { return json_equal(v, e); })) {
                return true;
            }
            return sink.fail([&] {
                return "must be one of " + escape_untrusted(json_text(nlohmann::json(n.enum_values)), 200) +
                       actual_value_note(v);
            });
        }
        return true;
    }

    bool check_number(const nlohmann::json& v, const schema_node& n, walk_sink& sink) const {
        bool ok = true;
        double exact = 0.0; // v, when a double holds it exactly
        const bool has_exact = exact_double_of(v, exact);
        const auto compare = [&](const number_bound& b) {
            return has_exact && b.has_exact ? number_detail::three_way(exact, b.exact) : compare_numbers(v, b.value);
        };
        const auto bound = [&](const std::optional<number_bound>& b, bool failed, const char* what) {
            if (b && failed) {
                ok = sink.fail(
                    [&] { return std::string("must be ") + what + " " + json_text(b->value) + actual_value_note(v); });
            }
            return ok || sink.collecting();
        };
        if (!bound(n.minimum, n.minimum && compare(*n.minimum) < 0, "at least") ||
            !bound(n.maximum, n.maximum && compare(*n.maximum) > 0, "at most") ||
            !bound(n.exclusive_minimum, n.exclusive_minimum && compare(*n.exclusive_minimum) <= 0, "greater than") ||
            !bound(n.exclusive_maximum, n.exclusive_maximum && compare(*n.exclusive_maximum) >= 0, "less than")) {
            return false;
        }
        if (n.multiple_of && !is_multiple_of(v, n.multiple_of_decimal)) {
            ok = sink.fail([&] { return "must be a multiple of " + json_text(*n.multiple_of) + actual_value_note(v); });
        }
        return ok;
    }

    enum class pattern_outcome : std::uint8_t { match, no_match, too_long, too_costly };

    [[nodiscard]] pattern_outcome run(const compiled_pattern& p, std::string_view s, std::uint64_t length) const {
        if (length > pattern_bound_) {
            return pattern_outcome::too_long;
        }
        switch (p.regex->search(s)) {
        case regex_match::found: return pattern_outcome::match;
        case regex_match::not_found: return pattern_outcome::no_match;
        case regex_match::too_costly: return pattern_outcome::too_costly;
        }
        return pattern_outcome::too_costly;
    }

    /// The message of a pattern that could not be run on a string or key.
    [[nodiscard]] std::string unmatched(pattern_outcome o, const compiled_pattern& p, std::uint64_t length,
                                        const char* what) const {
        if (o == pattern_outcome::too_long) {
            return std::string(what) + " is " + std::to_string(length) + " characters long, over the " +
                   std::to_string(pattern_bound_) +
                   " that a pattern is ever run on (schema_options::"
                   "max_pattern_subject), so it fails the pattern at " +
                   message_pointer(p.where);
        }
        return std::string(what) + " could not be matched against the pattern at " + message_pointer(p.where) +
               " within handoff's bound on regex work";
    }

    bool check_string(const nlohmann::json& v, const schema_node& n, walk_sink& sink) const {
        const auto& s = v.get_ref<const std::string&>();
        // A string has between bytes/4 and bytes code points: when both bounds hold either way
        // and the pattern bound too, counting them is skipped (the common case: short strings).
        const std::uint64_t bytes = s.size();
        const bool counted = bytes > n.max_length || bytes / 4 < n.min_length || (n.pattern && bytes > pattern_bound_);
        const std::uint64_t length = counted ? count_code_points(s) : bytes;
        bool ok = true;
        const auto keep = [&](bool passed) {
            ok = ok && passed;
            return ok || sink.collecting();
        };
        if (!keep(length <= n.max_length || sink.fail([&] {
                return "must be at most " + std::to_string(n.max_length) + " characters long, not " +
                       std::to_string(length);
            })) ||
            !keep(length >= n.min_length || sink.fail([&] {
                return "must be at least " + std::to_string(n.min_length) + " characters long, not " +
                       std::to_string(length) + actual_value_note(v);
            }))) {
            return false;
        }
        if (n.pattern) {
            const pattern_outcome o = run(*n.pattern, s, length);
            if (o != pattern_outcome::match && o != pattern_outcome::no_match) {
                if (!keep(bound_reached(sink, [&] { return unmatched(o, *n.pattern, length, "the string"); }))) {
                    return false;
                }
            } else if (!keep(o == pattern_outcome::match || sink.fail([&] {
                           return "does not match the pattern " + quote_untrusted(n.pattern->regex->source(), 120) +
                                  actual_value_note(v);
                       }))) {
                return false;
            }
        }
        return keep(check_format(n.format, s) || sink.fail([&] {
                   return "must be a valid " + std::string(format_description(n.format)) + actual_value_note(v);
               })) &&
               ok;
    }

    bool check_array(const nlohmann::json& v, const schema_node& n, walk_sink& sink, int depth, evaluated* out) const {
        const auto& items = v.get_ref<const nlohmann::json::array_t&>();
        const std::size_t size = items.size();
        bool ok = true;
        const auto keep = [&](bool passed) {
            ok = ok && passed;
            return ok || sink.collecting();
        };
        if (!keep(size <= n.max_items || sink.fail([&] {
                return "must have at most " + std::to_string(n.max_items) + " items, not " + std::to_string(size);
            })) ||
            !keep(size >= n.min_items || sink.fail([&] {
                return "must have at least " + std::to_string(n.min_items) + " items, not " + std::to_string(size);
            }))) {
            return false;
        }
        for (std::size_t k = 0; k < size; ++k) {
            const node_index item = !n.items_is_tuple          ? n.items
                                    : k < n.tuple_items.size() ? n.tuple_items[k]
                                                               : n.additional_items;
            if (item == no_node || inside_interval(items[k], item, depth + 1)) {
                continue;
            }
            const std::size_t mark = sink.enter(k);
            const bool passed = walk(items[k], item, sink, depth + 1);
            sink.leave(mark);
            if (!keep(passed)) {
                return false;
            }
        }
        if (out != nullptr) {
            if (!n.items_is_tuple) {
                out->all_items = out->all_items || n.items != no_node;
            } else {
                out->items_prefix = std::max(out->items_prefix, std::min(size, n.tuple_items.size()));
                out->all_items = out->all_items || (n.additional_items != no_node && size > n.tuple_items.size());
            }
        }
        if (n.unique_items && !keep(check_unique(v, sink))) {
            return false;
        }
        return n.contains == no_node ? ok : check_contains(v, n, sink, depth, out) && ok;
    }

    /// How many items fit `contains`, against minContains (1 unless said) and maxContains.
    bool check_contains(const nlohmann::json& v, const schema_node& n, walk_sink& sink, int depth,
                        evaluated* out) const {
        const bool mark = out != nullptr && n.contains_evaluates;
        const bool bounded_above = n.max_contains != std::numeric_limits<std::uint64_t>::max();
        std::uint64_t fits = 0;
        std::optional<negated_scope> negated;
        if (bounded_above) {
            negated.emplace(*this);
        }
        for (std::size_t k = 0; k < v.size(); ++k) {
            if (!passes(v[k], n.contains, depth)) {
                continue;
            }
            ++fits;
            if (mark) {
                out->items.push_back(k);
            } else if (!bounded_above && fits >= n.min_contains) {
                break;
            }
        }
        if (fits < n.min_contains) {
            return sink.fail([&] {
                return "must contain at least " + std::to_string(n.min_contains) + " item" +
                       (n.min_contains == 1 ? "" : "s") + " that fit" + (n.min_contains == 1 ? "s" : "") +
                       " the schema at " + message_location(n.contains) + ", not " + std::to_string(fits);
            });
        }
        return fits <= n.max_contains || sink.fail([&] {
            return "must contain at most " + std::to_string(n.max_contains) + " items that fit the schema at " +
                   message_location(n.contains) + ", not " + std::to_string(fits);
        });
    }

    bool check_unique(const nlohmann::json& v, walk_sink& sink) const {
        if (v.size() < 2) {
            return true;
        }
        std::vector<std::size_t> order(v.size());
        std::iota(order.begin(), order.end(), std::size_t{0});
        std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
            const int c = json_compare(v[a], v[b]);
            return c < 0 || (c == 0 && a < b);
        });
        for (std::size_t k = 1; k < order.size(); ++k) {
            if (json_equal(v[order[k - 1]], v[order[k]])) {
                const std::size_t a = order[k - 1];
                const std::size_t b = order[k];
                return sink.fail([&] {
                    return "must have unique items, but items " + std::to_string(a) + " and " + std::to_string(b) +
                           " are equal";
                });
            }
        }
        return true;
    }

    bool check_object(const nlohmann::json& v, const schema_node& n, walk_sink& sink, int depth, evaluated* out) const;

    bool check_member(const std::string& key, const nlohmann::json& value, const schema_node& n,
                      const property_rule* prop, walk_sink& sink, int depth, evaluated* out) const;

    bool check_dependencies(const nlohmann::json& v, const schema_node& n, walk_sink& sink, int depth,
                            evaluated* out) const;

    bool check_logic(const nlohmann::json& v, const schema_node& n, walk_sink& sink, int depth, evaluated* out) const;
    bool check_refs(const nlohmann::json& v, const schema_node& n, walk_sink& sink, int depth, evaluated* out) const;
    bool check_any_of(const nlohmann::json& v, const schema_node& n, walk_sink& sink, int depth, evaluated* out) const;
    bool check_one_of(const nlohmann::json& v, const schema_node& n, walk_sink& sink, int depth, evaluated* out) const;
    [[nodiscard]] std::string message_location(node_index i) const {
        return message_pointer(nodes_[static_cast<std::size_t>(i)].where);
    }

    /// Whether `v` passes node `i` at `depth` by the node's number interval alone, which is what
    /// its walk would answer; false means "walk it", not "it fails".
    [[nodiscard]] bool inside_interval(const nlohmann::json& v, node_index i, int depth) const {
        const schema_node& n = nodes_[static_cast<std::size_t>(i)];
        double d = 0.0;
        if (!n.interval || depth > max_validation_depth || !exact_double_of(v, d) || !type_allows(n.types, v)) {
            return false;
        }
        const number_interval& r = *n.interval;
        return (r.low_open ? d > r.low : d >= r.low) && (r.high_open ? d < r.high : d <= r.high);
    }

    [[nodiscard]] bool passes(const nlohmann::json& v, node_index i, int depth, evaluated* ev = nullptr) const {
        if (misses_tag(v, nodes_[static_cast<std::size_t>(i)])) {
            return false; // what the walk would answer, without the walk
        }
        walk_sink b;
        return walk(v, i, b, depth + 1, ev);
    }

    /// Whether `v` is an object that cannot fit `n` for its tag: the tagged member is missing or
    /// is not the tag's string.
    [[nodiscard]] static bool misses_tag(const nlohmann::json& v, const schema_node& n) {
        if (!n.has_tag || !v.is_object()) {
            return false;
        }
        const auto& members = v.get_ref<const nlohmann::json::object_t&>();
        const auto it = members.find(n.tag_name);
        return it == members.end() || !it->second.is_string() ||
               it->second.get_ref<const std::string&>() != n.tag_value;
    }

    /// A bound reached (nesting, a pattern's subject or work): a failure where it stands. Inside
    /// a subschema whose failure can let the value pass (see negated_scope) it would pass the
    /// value undecided, so the walk notes it and the value is refused whatever the walk says.
    template <class Message>
    bool bound_reached(walk_sink& sink, Message&& message) const {
        ++bounds_reached_;
        if (negated_ > 0 && !undecided_) {
            undecided_ = message();
        }
        return sink.fail(std::forward<Message>(message));
    }

    /// Entered around the subschemas whose failure does not count against the value: `not`,
    /// the `if` condition, each `oneOf` branch, `contains` under a maxContains.
    class negated_scope {
    public:
        explicit negated_scope(const schema_validator& v) : v_(v) { ++v_.negated_; }
        negated_scope(const negated_scope&) = delete;
        negated_scope& operator=(const negated_scope&) = delete;
        ~negated_scope() { --v_.negated_; }

    private:
        const schema_validator& v_;
    };

    const std::vector<schema_node>& nodes_;
    const compiled_nodes& compiled_;
    std::uint64_t pattern_bound_;
    std::size_t remember_after_;
    mutable int negated_ = 0;
    mutable std::optional<std::string> undecided_;
    bool dynamic_scope_; // whether any $dynamicRef/$recursiveRef reads the scope: else none is kept
    mutable std::vector<std::int32_t> scope_; // the dynamic scope: one validator per walk, one thread
    mutable std::size_t walks_ = 0;
    mutable int deepest_ = 0; // the deepest remembered walk since the one under way began (its own depth first)
    mutable std::size_t bounds_reached_ = 0;  // bound_reached calls: a walk that made one is not remembered
    mutable std::unique_ptr<walk_memo> memo_; // made once walks_ passes remember_after_
};

inline bool schema_validator::check_object(const nlohmann::json& v, const schema_node& n, walk_sink& sink, int depth,
                                           evaluated* out) const {
    const auto& members = v.get_ref<const nlohmann::json::object_t&>();
    bool ok = true;
    const auto keep = [&](bool passed) {
        ok = ok && passed;
        return ok || sink.collecting();
    };
    if (!keep(members.size() <= n.max_properties || sink.fail([&] {
            return "must have at most " + std::to_string(n.max_properties) + " properties, not " +
                   std::to_string(members.size());
        })) ||
        !keep(members.size() >= n.min_properties || sink.fail([&] {
            return "must have at least " + std::to_string(n.min_properties) + " properties, not " +
                   std::to_string(members.size());
        }))) {
        return false;
    }
    // Both sorted by key: one merge pass pairs each member with its `properties` rule.
    auto rule = n.properties.begin();
    std::size_t required_seen = 0;
    const bool plain = n.pattern_properties.empty() && n.property_names == no_node;
    for (const auto& [key, value] : members) {
        int order = 1; // one comparison per step, reused for equality
        while (rule != n.properties.end() && (order = compare_keys(rule->name, key)) < 0) {
            ++rule;
        }
        const property_rule* prop = rule != n.properties.end() && order == 0 ? &*rule++ : nullptr;
        required_seen += prop != nullptr && prop->required ? 1U : 0U;
        if (plain && prop != nullptr && prop->schema != no_node) {
            // The common case: a declared property, no pattern rules: straight into its schema.
            if (out != nullptr) {
                out->properties.emplace_back(key);
            }
            if (inside_interval(value, prop->schema, depth + 1)) {
                continue;
            }
            const std::size_t mark = sink.enter(key);
            const bool passed = walk(value, prop->schema, sink, depth + 1);
            sink.leave(mark);
            if (!keep(passed)) {
                return false;
            }
        } else if (!keep(check_member(key, value, n, prop, sink, depth, out))) {
            return false;
        }
    }
    if (required_seen < n.required_count) {
        for (const property_rule& p : n.properties) {
            if (p.required && members.find(p.name) == members.end() &&
                !keep(sink.fail([&] { return "misses the required property " + quote_untrusted(p.name); }))) {
                return false;
            }
        }
    }
    return keep(check_dependencies(v, n, sink, depth, out)) && ok;
}

inline bool schema_validator::check_member(const std::string& key, const nlohmann::json& value, const schema_node& n,
                                           const property_rule* prop, walk_sink& sink, int depth,
                                           evaluated* out) const {
    bool ok = true;
    bool matched = false;
    const std::size_t mark = sink.enter(key);
    const auto apply = [&](node_index schema) {
        ok = walk(value, schema, sink, depth + 1) && ok;
        return ok || sink.collecting();
    };
    if (prop != nullptr && prop->schema != no_node) {
        matched = true;
        if (!apply(prop->schema)) {
            sink.leave(mark);
            return false;
        }
    }
    const std::uint64_t length = n.pattern_properties.empty() ? 0 : count_code_points(key);
    for (const pattern_property_rule& p : n.pattern_properties) {
        const pattern_outcome o = run(p.pattern, key, length);
        if (o == pattern_outcome::too_long || o == pattern_outcome::too_costly) {
            ok = bound_reached(sink, [&] { return unmatched(o, p.pattern, length, "the key"); }) && ok;
        } else if (o == pattern_outcome::match) {
            matched = true;
            static_cast<void>(apply(p.schema));
        }
        if (!ok && !sink.collecting()) {
            sink.leave(mark);
            return false;
        }
    }
    if (out != nullptr && (matched || n.additional_properties != no_node)) {
        out->properties.emplace_back(key);
    }
    if (!matched && n.additional_properties != no_node) {
        // "additionalProperties": false is the common case: say which rule, not "false schema".
        const bool closed = nodes_[static_cast<std::size_t>(n.additional_properties)].boolean == false;
        const bool passed = closed ? sink.fail([&] {
            return "the property " + quote_untrusted(key) + " is not allowed here (additionalProperties is false)";
        })
                                   : walk(value, n.additional_properties, sink, depth + 1);
        ok = passed && ok;
        if (!ok && !sink.collecting()) {
            sink.leave(mark);
            return false;
        }
    }
    if (n.property_names != no_node) {
        const own_memory forgotten_after(*this);
        ok = walk(nlohmann::json(key), n.property_names, sink, depth + 1) && ok;
    }
    sink.leave(mark);
    return ok;
}

inline bool schema_validator::check_dependencies(const nlohmann::json& v, const schema_node& n, walk_sink& sink,
                                                 int depth, evaluated* out) const {
    bool ok = true;
    for (const dependency_rule& d : n.dependencies) {
        if (!v.contains(d.name)) {
            continue;
        }
        for (const std::string& name : d.required) {
            if (!v.contains(name)) {
                ok = sink.fail([&] {
                    return "misses the property " + quote_untrusted(name) + ", required when " +
                           quote_untrusted(d.name) + " is present";
                }) && ok;
                if (!sink.collecting()) {
                    return false;
                }
            }
        }
        if (d.schema != no_node) {
            ok = walk(v, d.schema, sink, depth + 1, out) && ok;
            if (!ok && !sink.collecting()) {
                return false;
            }
        }
    }
    return ok;
}

inline bool schema_validator::check_refs(const nlohmann::json& v, const schema_node& n, walk_sink& sink, int depth,
                                         evaluated* out) const {
    bool ok = true;
    if (n.applied_ref != no_node) {
        ok = walk(v, n.applied_ref, sink, depth + 1, out);
        if (!ok && !sink.collecting()) {
            return false;
        }
    }
    if (n.dynamic_target != no_node) {
        ok = walk(v, dynamic_target_of(n), sink, depth + 1, out) && ok;
    }
    return ok;
}

inline bool schema_validator::check_logic(const nlohmann::json& v, const schema_node& n, walk_sink& sink, int depth,
                                          evaluated* out) const {
    bool ok = true;
    if (n.applied_ref != no_node || n.dynamic_target != no_node) {
        ok = check_refs(v, n, sink, depth, out);
        if (!ok && !sink.collecting()) {
            return false;
        }
    }
    for (node_index s : n.all_of) {
        ok = walk(v, s, sink, depth + 1, out) && ok;
        if (!ok && !sink.collecting()) {
            return false;
        }
    }
    if (!n.any_of.empty()) {
        ok = check_any_of(v, n, sink, depth, out) && ok;
        if (!ok && !sink.collecting()) {
            return false;
        }
    }
    if (!n.one_of.empty()) {
        ok = check_one_of(v, n, sink, depth, out) && ok;
        if (!ok && !sink.collecting()) {
            return false;
        }
    }
    if (n.not_schema != no_node) {
        const negated_scope negated(*this);
        ok = (!passes(v, n.not_schema, depth) ||
              sink.fail([&] { return "must not fit the schema at " + message_location(n.not_schema) + " (not)"; })) &&
             ok;
        if (!ok && !sink.collecting()) {
            return false;
        }
    }
    if (n.if_schema != no_node) {
        evaluated kept;
        std::optional<negated_scope> negated(std::in_place, *this);
        const bool fits = passes(v, n.if_schema, depth, out != nullptr ? &kept : nullptr);
        negated.reset();
        if (fits && out != nullptr) {
            out->merge(kept);
        }
        const node_index branch = fits ? n.then_schema : n.else_schema;
        if (branch != no_node) {
            ok = walk(v, branch, sink, depth + 1, out) && ok;
        }
    }
    return ok;
}

/// With annotations wanted, every branch is tried: each one that fits adds what it evaluated.
inline bool schema_validator::check_any_of(const nlohmann::json& v, const schema_node& n, walk_sink& sink, int depth,
                                           evaluated* out) const {
    bool any = false;
    for (node_index s : n.any_of) {
        evaluated branch;
        if (passes(v, s, depth, out != nullptr ? &branch : nullptr)) {
            any = true;
            if (out == nullptr) {
                return true;
            }
            out->merge(branch);
        }
    }
    return any || sink.fail([&] {
        return "fits none of the " + std::to_string(n.any_of.size()) + " schemas of anyOf (" +
               message_location(n.any_of.front()) + "...)";
    });
}

inline bool schema_validator::check_one_of(const nlohmann::json& v, const schema_node& n, walk_sink& sink, int depth,
                                           evaluated* out) const {
    std::size_t fits = 0;
    evaluated fitting;
    const negated_scope negated(*this);
    for (std::size_t k = 0; k < n.one_of.size() && fits < 2; ++k) {
        evaluated branch;
        if (passes(v, n.one_of[k], depth, out != nullptr ? &branch : nullptr)) {
            ++fits;
            fitting = std::move(branch);
        }
    }
    if (fits == 1 && out != nullptr) {
        out->merge(fitting);
    }
    return fits == 1 || sink.fail([&] {
        return std::string(fits == 0 ? "fits none" : "fits more than one") + " of the " +
               std::to_string(n.one_of.size()) + " schemas of oneOf (" + message_location(n.one_of.front()) +
               "...); exactly one must fit";
    });
}

} // namespace handoff::detail
