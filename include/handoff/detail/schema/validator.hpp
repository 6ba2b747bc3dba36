// SPDX-License-Identifier: MIT
#pragma once

// Walks a value through compiled schema nodes, reporting to a walk_sink (schema_sinks.hpp): the
// yes/no mode and the listing mode run the same code, the same checks in the same order. In-place
// applicators whose failure is one fact (anyOf, oneOf, not, contains, if) are decided with a
// boolean sub-walk and reported as one problem; those that descend (properties, items, allOf,
// then/else, $ref) report what failed inside.

#include <handoff/detail/json/equal.hpp>
#include <handoff/detail/json/writer.hpp>
#include <handoff/detail/schema/node.hpp>
#include <handoff/detail/schema/sinks.hpp>
#include <handoff/detail/text.hpp>

#include <nlohmann/json.hpp>

#include <algorithm> // sort
#include <cstddef>   // size_t
#include <cstdint>   // uint64_t
#include <numeric>   // iota
#include <string>    // string
#include <vector>    // vector

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
[[nodiscard]] inline std::string got(const nlohmann::json& v) {
    if (v.is_object() || v.is_array()) {
        return " (got an " + std::string(v.type_name()) + ")";
    }
    return " (got " +
           (v.is_string() ? quote_untrusted(v.get_ref<const std::string&>()) : quote_untrusted(json_text(v), 40)) + ")";
}

class schema_validator {
public:
    schema_validator(const std::vector<schema_node>& nodes, std::uint64_t pattern_bound)
        : nodes_(nodes), pattern_bound_(pattern_bound) {}

    bool walk(const nlohmann::json& v, node_index i, walk_sink& sink, int depth) const {
        const schema_node& n = nodes_[static_cast<std::size_t>(i)];
        if (depth > max_validation_depth) {
            return sink.fail([] {
                return "the value and the schema nest deeper than " + std::to_string(max_validation_depth) +
                       " levels; handoff refuses it rather than risk its stack";
            });
        }
        if (n.boolean) {
            return *n.boolean ||
                   sink.fail([] { return std::string("no value is allowed here (the schema is false)"); });
        }
        if (n.ref != no_node) {
            return walk(v, n.ref, sink, depth + 1);
        }
        bool ok = true;
        const auto keep = [&](bool passed) {
            ok = ok && passed;
            return ok || sink.collecting();
        };
        if (!keep((n.types & type_bits_of(v)) != 0 ||
                  sink.fail([&] { return "must be of type " + type_names(n.types) + got(v); }))) {
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
        if ((n.groups & group_array) != 0 && v.is_array() && !keep(check_array(v, n, sink, depth))) {
            return false;
        }
        if ((n.groups & group_object) != 0 && v.is_object() && !keep(check_object(v, n, sink, depth))) {
            return false;
        }
        if ((n.groups & group_logic) != 0 && !keep(check_logic(v, n, sink, depth))) {
            return false;
        }
        return ok;
    }

private:
    bool check_values(const nlohmann::json& v, const schema_node& n, walk_sink& sink) const {
        if (n.const_value && !json_equal(v, *n.const_value)) {
            return sink.fail([&] { return "must be " + quote_untrusted(json_text(*n.const_value), 80) + got(v); });
        }
        if (n.has_enum) {
            for (const nlohmann::json& e : n.enum_values) {
                // A string against a string enum (the common case) without the general compare.
                if (v.is_string() ? e.is_string() && e.get_ref<const std::string&>() == v.get_ref<const std::string&>()
                                  : json_equal(v, e)) {
                    return true;
                }
            }
            return sink.fail([&] {
                return "must be one of " + escape_untrusted(json_text(nlohmann::json(n.enum_values)), 200) + got(v);
            });
        }
        return true;
    }

    bool check_number(const nlohmann::json& v, const schema_node& n, walk_sink& sink) const {
        bool ok = true;
        const auto bound = [&](const std::optional<nlohmann::json>& b, bool failed, const char* what) {
            if (b && failed) {
                ok = sink.fail([&] { return std::string("must be ") + what + " " + json_text(*b) + got(v); });
            }
            return ok || sink.collecting();
        };
        if (!bound(n.minimum, n.minimum && compare_numbers(v, *n.minimum) < 0, "at least") ||
            !bound(n.maximum, n.maximum && compare_numbers(v, *n.maximum) > 0, "at most") ||
            !bound(n.exclusive_minimum, n.exclusive_minimum && compare_numbers(v, *n.exclusive_minimum) <= 0,
                   "greater than") ||
            !bound(n.exclusive_maximum, n.exclusive_maximum && compare_numbers(v, *n.exclusive_maximum) >= 0,
                   "less than") ||
            !bound(n.multiple_of, n.multiple_of && !is_multiple_of(v, n.multiple_of_decimal), "a multiple of")) {
            return false;
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
                       std::to_string(length) + got(v);
            }))) {
            return false;
        }
        if (n.pattern) {
            const pattern_outcome o = run(*n.pattern, s, length);
            if (!keep(o == pattern_outcome::match || sink.fail([&] {
                    return o == pattern_outcome::no_match
                               ? "does not match the pattern " + quote_untrusted(n.pattern->regex->source(), 120) +
                                     got(v)
                               : unmatched(o, *n.pattern, length, "the string");
                }))) {
                return false;
            }
        }
        return keep(check_format(n.format, s) || sink.fail([&] {
                   return std::string("must be a valid ") +
                          (n.format == format_kind::date   ? "date (YYYY-MM-DD)"
                           : n.format == format_kind::time ? "time (HH:MM:SS with a zone, Z or +HH:MM)"
                                                           : "date-time (YYYY-MM-DDTHH:MM:SS with a zone)") +
                          got(v);
               })) &&
               ok;
    }

    bool check_array(const nlohmann::json& v, const schema_node& n, walk_sink& sink, int depth) const {
        const std::size_t size = v.size();
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
            if (item == no_node) {
                continue;
            }
            const std::size_t mark = sink.enter(k);
            const bool passed = walk(v[k], item, sink, depth + 1);
            sink.leave(mark);
            if (!keep(passed)) {
                return false;
            }
        }
        if (n.unique_items && !keep(check_unique(v, sink))) {
            return false;
        }
        if (n.contains != no_node && !keep(contains(v, n.contains, depth) || sink.fail([&] {
                return std::string("must contain at least one item that fits the "
                                   "schema at ") +
                       message_location(n.contains);
            }))) {
            return false;
        }
        return ok;
    }

    [[nodiscard]] bool contains(const nlohmann::json& v, node_index schema, int depth) const {
        for (const nlohmann::json& item : v) {
            walk_sink b;
            if (walk(item, schema, b, depth + 1)) {
                return true;
            }
        }
        return false;
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

    bool check_object(const nlohmann::json& v, const schema_node& n, walk_sink& sink, int depth) const;

    bool check_member(const std::string& key, const nlohmann::json& value, const schema_node& n,
                      const property_rule* prop, walk_sink& sink, int depth) const;

    bool check_dependencies(const nlohmann::json& v, const schema_node& n, walk_sink& sink, int depth) const;

    bool check_logic(const nlohmann::json& v, const schema_node& n, walk_sink& sink, int depth) const;
    bool check_any_of(const nlohmann::json& v, const schema_node& n, walk_sink& sink, int depth) const;
    bool check_one_of(const nlohmann::json& v, const schema_node& n, walk_sink& sink, int depth) const;
    [[nodiscard]] std::string message_location(node_index i) const {
        return message_pointer(nodes_[static_cast<std::size_t>(i)].where);
    }

    [[nodiscard]] bool passes(const nlohmann::json& v, node_index i, int depth) const {
        walk_sink b;
        return walk(v, i, b, depth + 1);
    }

    const std::vector<schema_node>& nodes_;
    std::uint64_t pattern_bound_;
};

inline bool schema_validator::check_object(const nlohmann::json& v, const schema_node& n, walk_sink& sink,
                                           int depth) const {
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
        while (rule != n.properties.end() && (order = rule->name.compare(key)) < 0) {
            ++rule;
        }
        const property_rule* prop = rule != n.properties.end() && order == 0 ? &*rule++ : nullptr;
        required_seen += prop != nullptr && prop->required ? 1U : 0U;
        if (plain && prop != nullptr && prop->schema != no_node) {
            // The common case: a declared property, no pattern rules: straight into its schema.
            const std::size_t mark = sink.enter(key);
            const bool passed = walk(value, prop->schema, sink, depth + 1);
            sink.leave(mark);
            if (!keep(passed)) {
                return false;
            }
        } else if (!keep(check_member(key, value, n, prop, sink, depth))) {
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
    return keep(check_dependencies(v, n, sink, depth)) && ok;
}

inline bool schema_validator::check_member(const std::string& key, const nlohmann::json& value, const schema_node& n,
                                           const property_rule* prop, walk_sink& sink, int depth) const {
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
            ok = sink.fail([&] { return unmatched(o, p.pattern, length, "the key"); }) && ok;
        } else if (o == pattern_outcome::match) {
            matched = true;
            static_cast<void>(apply(p.schema));
        }
        if (!ok && !sink.collecting()) {
            sink.leave(mark);
            return false;
        }
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
        ok = walk(nlohmann::json(key), n.property_names, sink, depth + 1) && ok;
    }
    sink.leave(mark);
    return ok;
}

inline bool schema_validator::check_dependencies(const nlohmann::json& v, const schema_node& n, walk_sink& sink,
                                                 int depth) const {
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
            ok = walk(v, d.schema, sink, depth + 1) && ok;
            if (!ok && !sink.collecting()) {
                return false;
            }
        }
    }
    return ok;
}

inline bool schema_validator::check_logic(const nlohmann::json& v, const schema_node& n, walk_sink& sink,
                                          int depth) const {
    bool ok = true;
    for (node_index s : n.all_of) {
        ok = walk(v, s, sink, depth + 1) && ok;
        if (!ok && !sink.collecting()) {
            return false;
        }
    }
    if (!n.any_of.empty()) {
        ok = check_any_of(v, n, sink, depth) && ok;
        if (!ok && !sink.collecting()) {
            return false;
        }
    }
    if (!n.one_of.empty()) {
        ok = check_one_of(v, n, sink, depth) && ok;
        if (!ok && !sink.collecting()) {
            return false;
        }
    }
    if (n.not_schema != no_node) {
        ok = (!passes(v, n.not_schema, depth) ||
              sink.fail([&] { return "must not fit the schema at " + message_location(n.not_schema) + " (not)"; })) &&
             ok;
        if (!ok && !sink.collecting()) {
            return false;
        }
    }
    if (n.if_schema != no_node) {
        const node_index branch = passes(v, n.if_schema, depth) ? n.then_schema : n.else_schema;
        if (branch != no_node) {
            ok = walk(v, branch, sink, depth + 1) && ok;
        }
    }
    return ok;
}

inline bool schema_validator::check_any_of(const nlohmann::json& v, const schema_node& n, walk_sink& sink,
                                           int depth) const {
    for (node_index s : n.any_of) {
        if (passes(v, s, depth)) {
            return true;
        }
    }
    return sink.fail([&] {
        return "fits none of the " + std::to_string(n.any_of.size()) + " schemas of anyOf (" +
               message_location(n.any_of.front()) + "...)";
    });
}

inline bool schema_validator::check_one_of(const nlohmann::json& v, const schema_node& n, walk_sink& sink,
                                           int depth) const {
    std::size_t fits = 0;
    for (std::size_t k = 0; k < n.one_of.size() && fits < 2; ++k) {
        fits += passes(v, n.one_of[k], depth) ? 1U : 0U;
    }
    return fits == 1 || sink.fail([&] {
        return std::string(fits == 0 ? "fits none" : "fits more than one") + " of the " +
               std::to_string(n.one_of.size()) + " schemas of oneOf (" + message_location(n.one_of.front()) +
               "...); exactly one must fit";
    });
}

} // namespace handoff::detail
