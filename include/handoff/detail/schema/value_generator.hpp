// SPDX-License-Identifier: MIT
#pragma once

#include <handoff/detail/json/count.hpp>
#include <handoff/detail/json/pointer.hpp>
#include <handoff/detail/json/writer.hpp>
#include <handoff/detail/regex/ecma_regex.hpp>
#include <handoff/detail/schema/dialect.hpp>
#include <handoff/detail/schema/uri.hpp>
#include <handoff/detail/schema/variant_source.hpp>
#include <handoff/enums.hpp>
#include <handoff/limits.hpp>
#include <handoff/schema.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>     // max, min
#include <cmath>         // ceil, fabs, floor, isfinite
#include <cstddef>       // size_t
#include <cstdint>       // int64_t, uint64_t
#include <limits>        // numeric_limits
#include <map>           // map
#include <optional>      // optional
#include <set>           // set
#include <string>        // string
#include <string_view>   // string_view
#include <unordered_map> // unordered_map
#include <vector>        // vector

namespace handoff::detail {

/// Builds one value that fits a JSON Schema (any dialect compiled_schema reads), for fixtures.
/// Every candidate is checked by the same validator the receiver uses, in the root's dialect, so
/// a value is returned only when it really fits; when nothing fits, `failure()` names the
/// deepest subschema that could not be satisfied.
///
/// Candidates, in order: `const`, `enum` values, `default`, `examples`, then values synthesised
/// from the type and its bounds (a string's `pattern` gives the shortest string it matches;
/// required properties only, then every property, each with the
/// properties `dependentRequired`/`dependencies` ask of it; arrays at their smallest useful
/// length, tuples place by place: "prefixItems" in 2020-12, an array "items" before). `$ref`
/// follows local pointers (merged with its siblings from 2019-09 on), `allOf` is merged into
/// one schema, `anyOf`/`oneOf` try each branch merged with the rest of the schema.
class value_generator {
public:
    /// The strings made while looking for a value, discarded candidates included, may weigh at
    /// most this many times what the receiver reads in a reply (a value of that is refused
    /// anyway): room for a search, never gigabytes.
    static constexpr std::size_t string_budget_factor = 16;

    /// `limits`, the receiver's: building stops, with a failure, once `max_values` values were
    /// made (the receiver reads no more): a value that fits may be small to write yet huge to
    /// build, as where each level's properties refer twice to the level below. A string longer
    /// than `max_string_bytes` is never built.
    explicit value_generator(const nlohmann::json& root, const schema_options& options = {},
                             const parse_limits& limits = {})
        : root_(root), max_values_(limits.max_values), max_string_bytes_(limits.max_string_bytes),
          max_string_total_(string_total_for(limits.max_bytes)), max_members_(limits.max_container_items),
          options_(options) {
        options_.dialect = compiled_schema::dialect_of(root, options); // subschemas read as the root
        if (root.is_object()) {
            for (const char* key : {"definitions", "$defs"}) {
                if (root.contains(key)) {
                    definitions_[key] = root.at(key);
                }
            }
        }
    }

    [[nodiscard]] std::optional<nlohmann::json> generate() { return generate(root_, "", 0); }

    /// An object that fits: the root schema narrowed to type object (an envelope's
    /// partial_result is an object whatever else the task schema allows).
    [[nodiscard]] std::optional<nlohmann::json> generate_object() {
        if (!root_.is_object()) {
            return generate();
        }
        nlohmann::json narrowed = root_;
        merge_keyword(narrowed, "type", "object");
        if (narrowed["type"].empty()) {
            return fail("", "the task schema's \"type\" allows no object, but partial_result is an object");
        }
        return generate(narrowed, "", 0);
    }

    /// Why generate() found nothing: a schema pointer and what could not be satisfied.
    [[nodiscard]] const std::string& failure() const noexcept { return failure_; }

private:
    static constexpr int max_depth = 32; // a recursive $ref ends here instead of looping

    /// A value for `schema` at `depth`, made once for each schema text and depth (what fits
    /// depends on both: the depth bound cuts recursion short) and copied where they recur,
    /// counted as made anew; where nothing fitted, nothing is tried again.
    std::optional<nlohmann::json> generate(const nlohmann::json& schema, const std::string& at, int depth) {
        if (depth > max_depth) {
            return fail(at, "nested deeper than " + std::to_string(max_depth) + " levels (a recursive $ref?)");
        }
        const std::optional<std::string> key = memo_key(schema, depth);
        if (key) {
            if (const auto known = made_for_.find(*key); known != made_for_.end()) {
                return reused(known->second, at);
            }
            if (const auto failed = failed_for_.find(*key); failed != failed_for_.end()) {
                failure_ = failure_.empty() ? failed->second : failure_;
                return std::nullopt;
            }
        }
        std::optional<nlohmann::json> v = make(schema, at, depth);
        if (key && v) {
            made_for_.emplace(*key, *v);
        } else if (key) {
            failed_for_.emplace(*key, failure_);
        }
        return v;
    }

    /// The memo's key for `schema` at `depth`; none for a schema holding a string that is not
    /// UTF-8 (no text of it tells such strings apart): its value is made every time.
    static std::optional<std::string> memo_key(const nlohmann::json& schema, int depth) {
        try {
            return std::to_string(depth) + " " + schema.dump();
        } catch (const nlohmann::json::type_error&) {
            return std::nullopt;
        }
    }

    std::optional<nlohmann::json> make(const nlohmann::json& schema, const std::string& at, int depth) {
        if (!count_made(1, at)) {
            return std::nullopt;
        }
        if (schema.is_boolean()) {
            return schema.get<bool>() ? std::optional<nlohmann::json>(nullptr) : fail(at, "the schema is false");
        }
        if (!schema.is_object()) {
            return fail(at, "not a schema object");
        }
        if (const auto ref = schema.find("$ref"); ref != schema.end()) {
            const nlohmann::json* target = resolve(*ref);
            if (target == nullptr) {
                return fail(at, "$ref " + json_text(*ref) + " is not a local pointer into this schema");
            }
            if (ref_overrides_siblings(*options_.dialect) || schema.size() == 1) {
                return generate(*target, ref->get<std::string>().substr(1), depth + 1);
            }
            nlohmann::json merged = constraints_of(schema); // from 2019-09 on, the siblings of $ref apply too
            merged.erase("$ref");
            return generate(merge(merged, *target), pointer_child(at, "$ref"), depth + 1);
        }
        if (const auto all = schema.find("allOf"); all != schema.end() && all->is_array()) {
            nlohmann::json merged = constraints_of(schema);
            merged.erase("allOf");
            for (const nlohmann::json& branch : *all) {
                merged = merge(merged, branch);
            }
            return generate(merged, pointer_child(at, "allOf"), depth + 1);
        }
        const std::vector<nlohmann::json> candidates = candidates_for(schema, at, depth);
        return first_fit(schema, candidates, at);
    }

    /// Whether `keyword` holds definitions: they constrain no value (a `$ref` is resolved in the
    /// whole document), and a merge carried down every level would copy them each time.
    static bool holds_definitions(std::string_view keyword) { return keyword == "$defs" || keyword == "definitions"; }

    /// `schema` without the definitions it holds.
    static nlohmann::json constraints_of(const nlohmann::json& schema) {
        if (!schema.is_object()) {
            return schema; // true or false
        }
        nlohmann::json out = nlohmann::json::object();
        for (auto it = schema.begin(); it != schema.end(); ++it) {
            if (!holds_definitions(it.key())) {
                out[it.key()] = it.value();
            }
        }
        return out;
    }

    /// `v` again: its values counted as made.
    std::optional<nlohmann::json> reused(const nlohmann::json& v, const std::string& at) {
        std::size_t string_bytes = 0;
        const std::size_t values = count_values(v, [&string_bytes](const nlohmann::json& x) {
            string_bytes += x.is_string() ? x.get_ref<const std::string&>().size() : 0;
            return true;
        });
        if (!count_made(values, at) || !count_bytes(string_bytes, at)) {
            return std::nullopt;
        }
        failure_.clear(); // as a fit found below clears what failed before it
        return v;
    }

    /// Counts `cost` values as made: false, with the failure, once past max_values_.
    bool count_made(std::size_t cost, const std::string& at) {
        made_ += cost;
        if (made_ <= max_values_) {
            return true;
        }
        fail(at, "gave up after making " + std::to_string(max_values_) +
                     " values (parse_limits::max_values, the most the receiver reads in a reply) without one "
                     "that fits; give the schema a \"default\" or \"examples\" with a smaller one");
        return false;
    }

    /// Counts `bytes` of strings as made (reused copies too): false, with the failure, once
    /// past string_budget_factor times what the receiver reads in a reply. Candidates that do
    /// not fit count as well, so memory stays bounded however a schema multiplies its strings.
    bool count_bytes(std::size_t bytes, const std::string& at) {
        bytes_made_ += bytes;
        if (bytes_made_ <= max_string_total_) {
            return true;
        }
        fail(at, "gave up after making strings of " + std::to_string(max_string_total_) + " bytes (" +
                     std::to_string(string_budget_factor) +
                     " times parse_limits::max_bytes, the most the receiver reads in a reply) without a value that "
                     "fits; give the schema a \"default\" or \"examples\" with a smaller one");
        return false;
    }

    std::vector<nlohmann::json> candidates_for(const nlohmann::json& schema, const std::string& at, int depth) {
        std::vector<nlohmann::json> out;
        if (schema.contains("const")) {
            out.push_back(schema.at("const"));
        }
        if (const auto e = schema.find("enum"); e != schema.end() && e->is_array()) {
            out.insert(out.end(), e->begin(), e->end());
        }
        if (schema.contains("default")) {
            out.push_back(schema.at("default"));
        }
        if (const auto e = schema.find("examples"); e != schema.end() && e->is_array()) {
            out.insert(out.end(), e->begin(), e->end());
        }
        for (const char* key : {"anyOf", "oneOf"}) {
            if (const auto branches = schema.find(key); branches != schema.end() && branches->is_array()) {
                nlohmann::json rest = schema;
                rest.erase(key);
                for (std::size_t i = 0; i < branches->size(); ++i) {
                    const std::string where = pointer_item(pointer_child(at, key), i);
                    if (auto v = generate(merge(rest, branches->at(i)), where, depth + 1)) {
                        out.push_back(std::move(*v));
                    }
                }
                return out; // a value outside every branch cannot fit
            }
        }
        for (const std::string& type : types_of(schema)) {
            synthesise(schema, type, at, depth, out);
        }
        return out;
    }

    void synthesise(const nlohmann::json& schema, const std::string& type, const std::string& at, int depth,
                    std::vector<nlohmann::json>& out) {
        if (type == "null") {
            out.emplace_back(nullptr);
        } else if (type == "boolean") {
            out.emplace_back(true);
            out.emplace_back(false);
        } else if (type == "integer" || type == "number") {
            numbers(schema, type == "integer", out);
        } else if (type == "string") {
            strings(schema, at, out);
        } else if (type == "array") {
            arrays(schema, at, depth, out);
        } else if (type == "object") {
            objects(schema, at, depth, out);
        }
    }

    /// The declared types, or the ones the keywords imply; an unconstrained schema tries each.
    static std::vector<std::string> types_of(const nlohmann::json& schema) {
        if (const auto t = schema.find("type"); t != schema.end()) {
            if (t->is_string()) {
                return {t->get<std::string>()};
            }
            std::vector<std::string> types;
            for (const nlohmann::json& one : *t) {
                if (one.is_string()) {
                    types.push_back(one.get<std::string>());
                }
            }
            return types;
        }
        if (schema.contains("properties") || schema.contains("required")) {
            return {"object"};
        }
        if (schema.contains("items") || schema.contains("prefixItems")) {
            return {"array"};
        }
        if (schema.contains("minLength") || schema.contains("maxLength") || schema.contains("format")) {
            return {"string"};
        }
        if (schema.contains("minimum") || schema.contains("maximum") || schema.contains("multipleOf")) {
            return {"number"};
        }
        return {"string", "integer", "boolean", "object", "array", "null"};
    }

    static std::optional<double> number_at(const nlohmann::json& schema, const char* key) {
        const auto it = schema.find(key);
        return it != schema.end() && it->is_number() ? std::optional<double>(it->get<double>()) : std::nullopt;
    }

    /// A count keyword (minLength, maxItems, ...) as a size, `fallback` when absent; clamped to
    /// [0, 2^53], so that no double is converted outside what a size holds (1e300 would be).
    static std::size_t count_at(const nlohmann::json& schema, const char* key, double fallback) {
        constexpr double largest = 9007199254740992.0;
        return static_cast<std::size_t>(std::min(largest, std::max(0.0, number_at(schema, key).value_or(fallback))));
    }

    /// The smallest value the bounds allow (0 when they allow it), rounded up to `multipleOf`.
    static void numbers(const nlohmann::json& schema, bool integer, std::vector<nlohmann::json>& out) {
        const auto lo = number_at(schema, "minimum");
        const auto lo_x = number_at(schema, "exclusiveMinimum");
        const auto hi = number_at(schema, "maximum");
        const auto hi_x = number_at(schema, "exclusiveMaximum");
        const auto step = number_at(schema, "multipleOf");
        double v = 0.0;
        if (lo || lo_x) {
            v = std::max(lo.value_or(lo_x.value_or(0.0)), lo_x.value_or(lo.value_or(0.0)));
            if (lo_x && v == *lo_x) {
                v = integer || !(hi || hi_x) ? std::floor(v) + 1.0 : (v + hi.value_or(*hi_x)) / 2.0;
            }
        } else if ((hi && *hi < 0.0) || (hi_x && *hi_x <= 0.0)) {
            v = hi_x && (!hi || *hi_x <= *hi) ? std::ceil(*hi_x) - 1.0 : *hi;
        }
        if (integer) {
            v = std::ceil(v);
        }
        if (step && *step > 0.0) {
            v = std::ceil(v / *step) * *step;
        }
        for (const double candidate : {v, std::floor(v), std::ceil(v)}) {
            if (std::isfinite(candidate) && candidate == std::floor(candidate) && std::fabs(candidate) < 9.0e15) {
                out.emplace_back(static_cast<std::int64_t>(candidate));
            } else if (std::isfinite(candidate) && !integer) {
                out.emplace_back(candidate);
            }
        }
    }

    void strings(const nlohmann::json& schema, const std::string& at, std::vector<nlohmann::json>& out) {
        const std::size_t min = count_at(schema, "minLength", 0.0);
        if (min > max_string_bytes_) {
            fail(at, "minLength " + json_text(schema.at("minLength")) + " is more than " +
                         std::to_string(max_string_bytes_) +
                         " bytes (parse_limits::max_string_bytes, the longest string the receiver reads)");
            return;
        }
        const std::size_t max = count_at(schema, "maxLength", 1.0e6);
        if (const auto f = schema.find("format"); f != schema.end() && f->is_string()) {
            if (auto v = format_example(f->get<std::string>())) {
                out.emplace_back(std::move(*v)); // first: a pattern beside it usually describes the same
            }
        }
        if (const auto p = schema.find("pattern"); p != schema.end() && p->is_string()) {
            // A string longer than max_pattern_subject fails every pattern: none is looked for.
            const std::size_t longest = std::min<std::size_t>(max, options_.max_pattern_subject);
            if (auto v = pattern_example(p->get<std::string>(), min, longest); v && count_bytes(v->size(), at)) {
                out.emplace_back(std::move(*v));
            }
        }
        const std::size_t length = std::min(std::max<std::size_t>(7, min), max);
        if (!count_bytes(length, at)) {
            return;
        }
        std::string text;
        while (text.size() < length) {
            text += text.empty() ? "example" : " example";
        }
        text.resize(length);
        if (!text.empty() && text.back() == ' ') {
            text.back() = 'e'; // no trailing blank: a trimmed comparison would shorten it
        }
        out.emplace_back(text);
        out.emplace_back(std::string(min, 'a'));
    }

    /// A string `pattern` matches, of `min` to `max` code points: the shortest the pattern
    /// matches whole, or a shorter match followed by 'a's (the search still finds the match
    /// where a `$` did not end it; the candidate is checked like any other). Nothing for a
    /// pattern that is not ECMA-262 (the receiver refuses the schema) or has no example.
    static std::optional<std::string> pattern_example(const std::string& pattern, std::size_t min, std::size_t max) {
        std::optional<ecma_regex> regex;
        try {
            regex.emplace(ecma_regex::compile(pattern));
        } catch (const regex_syntax_error&) {
            return std::nullopt;
        }
        if (auto whole = regex->example(min, max)) {
            return whole;
        }
        std::optional<std::string> shorter = regex->example(0, max);
        if (!shorter || min > max) {
            return std::nullopt;
        }
        std::size_t code_points = 0;
        for (const char c : *shorter) {
            code_points += (static_cast<unsigned char>(c) & 0xC0U) != 0x80U ? 1 : 0;
        }
        shorter->append(min > code_points ? min - code_points : 0, 'a');
        return shorter;
    }

    static std::optional<std::string> format_example(std::string_view format) {
        struct example {
            std::string_view format;
            std::string_view value;
        };
        static constexpr example examples[] = {
            {"date-time", "2026-01-01T00:00:00Z"},
            {"date", "2026-01-01"},
            {"time", "00:00:00Z"},
            {"duration", "P1D"},
            {"email", "user@example.com"},
            {"idn-email", "user@example.com"},
            {"hostname", "example.com"},
            {"idn-hostname", "example.com"},
            {"uri-template", "https://example.com/{id}"},
            {"ipv4", "192.0.2.1"},
            {"ipv6", "2001:db8::1"},
            {"uri", "https://example.com/"},
            {"uri-reference", "https://example.com/"},
            {"iri", "https://example.com/"},
            {"iri-reference", "https://example.com/"},
            {"uuid", "00000000-0000-4000-8000-000000000000"},
            {"json-pointer", "/example"},
            {"relative-json-pointer", "0/example"},
        };
        for (const example& e : examples) {
            if (e.format == format) {
                return std::string(e.value);
            }
        }
        return std::nullopt;
    }

    void arrays(const nlohmann::json& schema, const std::string& at, int depth, std::vector<nlohmann::json>& out) {
        const std::size_t min = count_at(schema, "minItems", 0.0);
        const std::size_t max = count_at(schema, "maxItems", 1.0e6);
        // The tuple's places and the schema of every item after them, as the dialect reads them.
        const bool in_2020 = *options_.dialect == schema_dialect::draft2020_12;
        const nlohmann::json items = schema.value("items", nlohmann::json(true));
        const nlohmann::json places = in_2020            ? schema.value("prefixItems", nlohmann::json::array())
                                      : items.is_array() ? items
                                                         : nlohmann::json::array();
        const nlohmann::json rest =
            in_2020 || !items.is_array() ? items : schema.value("additionalItems", nlohmann::json(true));
        const bool unique = schema.contains("uniqueItems") && schema.at("uniqueItems") == true;
        // One element shows the item shape; the minimum length is the fallback.
        const std::size_t shown = std::min(std::max<std::size_t>(1, min), max);
        const std::size_t lengths[] = {shown, min};
        for (std::size_t k = 0; k < (shown == min ? 1 : 2); ++k) {
            const std::size_t length = lengths[k];
            nlohmann::json array = nlohmann::json::array();
            std::set<nlohmann::json> taken;                              // unique: the items so far
            std::map<const nlohmann::json*, variant_source> variants_of; // unique: by item schema
            for (std::size_t i = 0; i < length; ++i) {
                const nlohmann::json& item_schema = i < places.size() ? places.at(i) : rest;
                auto item = generate(item_schema, pointer_child(at, "items"), depth + 1);
                if (item && unique && taken.count(*item) != 0) {
                    item = distinct_value(variants_of, item_schema, *item, taken);
                }
                if (!item) {
                    break;
                }
                if (unique) {
                    taken.insert(*item);
                }
                array.push_back(std::move(*item));
            }
            if (array.size() == length) {
                out.push_back(std::move(array));
            }
        }
    }

    void objects(const nlohmann::json& given, const std::string& at, int depth, std::vector<nlohmann::json>& out) {
        // Required properties only, then every declared property (for minProperties and the like),
        // the first values kept.
        nlohmann::json object = nlohmann::json::object();
        std::size_t first_size = 0;
        for (const bool all : {false, true}) {
            // What a present property's dependentSchemas ask of the object applies with it, its
            // required names too.
            const nlohmann::json schema = with_dependent_schemas(given, all);
            const nlohmann::json properties = schema.value("properties", nlohmann::json::object());
            const nlohmann::json required = schema.value("required", nlohmann::json::array());
            bool complete = true;
            const auto add = [&](const std::string& name) {
                if (!complete || object.contains(name)) {
                    return; // after a property with no value none is made: its failure is the one to tell
                }
                const nlohmann::json sub = properties.contains(name)
                                               ? properties.at(name)
                                               : schema.value("additionalProperties", nlohmann::json(true));
                if (auto v = generate(sub, pointer_child(pointer_child(at, "properties"), name), depth + 1)) {
                    object[name] = std::move(*v);
                } else {
                    complete = false;
                }
            };
            for (const nlohmann::json& name : required) {
                if (name.is_string()) {
                    add(name.get<std::string>());
                }
            }
            for (auto it = properties.begin(); all && it != properties.end(); ++it) {
                add(it.key());
            }
            add_dependents(schema, object, add);
            if (!complete) {
                return; // a property has no value: this object is incomplete, and so would the next be
            }
            fill_min_properties(schema, object, at, depth);
            if (!all || object.size() > first_size) {
                out.push_back(object);
            }
            first_size = object.size();
        }
    }

    /// `schema` with the `dependentSchemas` (and draft-04 to draft-07's schema `dependencies`) of
    /// the properties a generated object will hold merged in: the required ones, or (`all`) every
    /// declared one.
    [[nodiscard]] nlohmann::json with_dependent_schemas(const nlohmann::json& schema, bool all) const {
        nlohmann::json merged = schema;
        const nlohmann::json properties = schema.value("properties", nlohmann::json::object());
        const nlohmann::json required = schema.value("required", nlohmann::json::array());
        for (const char* key : {"dependentSchemas", "dependencies"}) {
            const auto rules = schema.find(key);
            if (rules == schema.end() || !rules->is_object()) {
                continue;
            }
            for (auto rule = rules->begin(); rule != rules->end(); ++rule) {
                const bool present = std::find(required.begin(), required.end(), rule.key()) != required.end() ||
                                     (all && properties.contains(rule.key()));
                if (present && rule->is_object()) {
                    merged = merge(merged, *rule);
                }
            }
        }
        return merged;
    }

    /// Keys added to `object` until it has `minProperties`: first names a `patternProperties`
    /// pattern matches, each with a value of its schema, then names with a value of
    /// `additionalProperties` (unless false); every name is one `propertyNames` takes, varied as
    /// uniqueItems' values are. As many as can be made: a short object fails the schema as any
    /// other candidate does, with its problem. More members than the receiver reads in an object
    /// are not looked for; the names and values made count against the generator's budgets.
    void fill_min_properties(const nlohmann::json& schema, nlohmann::json& object, const std::string& at, int depth) {
        const std::size_t want = count_at(schema, "minProperties", 0.0);
        if (object.size() >= want) {
            return;
        }
        if (want > max_members_) {
            fail(at, "minProperties " + json_text(schema.at("minProperties")) + " is more than " +
                         std::to_string(max_members_) +
                         " members (parse_limits::max_container_items, the most the receiver reads in an object)");
            return;
        }
        const nlohmann::json names = schema.value("propertyNames", nlohmann::json::object());
        if (const auto patterns = schema.find("patternProperties"); patterns != schema.end() && patterns->is_object()) {
            const std::string patterns_at = pointer_child(at, "patternProperties");
            for (auto p = patterns->begin(); p != patterns->end() && object.size() < want; ++p) {
                // Names of the pattern that propertyNames takes too (checked, not merged: a merge
                // keeps one pattern of two).
                const nlohmann::json matching = {{"type", "string"}, {"pattern", p.key()}};
                const std::string pattern_at = pointer_child(patterns_at, p.key());
                add_keys(matching, pattern_at, p.value(), pattern_at, want, object, depth, &names);
            }
        }
        const nlohmann::json others = schema.value("additionalProperties", nlohmann::json(true));
        if (others != false) {
            add_keys(merge(nlohmann::json{{"type", "string"}}, names), pointer_child(at, "propertyNames"), others,
                     pointer_child(at, "additionalProperties"), want, object, depth);
        }
    }

    /// Keys of schema `names` (at `names_at`) that `also` (when given) accepts too, each with a
    /// value of `values` (at `values_at`), added to `object` until it has `want` members or no
    /// further name or value is found.
    void add_keys(const nlohmann::json& names, const std::string& names_at, const nlohmann::json& values,
                  const std::string& values_at, std::size_t want, nlohmann::json& object, int depth,
                  const nlohmann::json* also = nullptr) {
        const std::optional<compiled_schema> also_compiled =
            also != nullptr ? compile_alone(*also) : std::optional<compiled_schema>();
        std::set<nlohmann::json> taken;
        for (auto it = object.begin(); it != object.end(); ++it) {
            taken.insert(it.key());
        }
        std::map<const nlohmann::json*, variant_source> variants_of;
        const std::optional<nlohmann::json> first = generate(names, names_at, depth + 1);
        std::optional<nlohmann::json> name = first;
        while (object.size() < want && name && name->is_string()) {
            if (object.contains(name->get<std::string>())) {
                // Varied from the first name, as unique items from the first item: one source
                // for all of them, so each variant is looked at once.
                name = distinct_value(variants_of, names, *first, taken);
                continue;
            }
            if (!count_bytes(name->get_ref<const std::string&>().size(), names_at)) {
                return;
            }
            if (also_compiled && !also_compiled->accepts(*name)) {
                return; // the next source may make names it takes
            }
            auto value = generate(values, values_at, depth + 1);
            if (!value) {
                return;
            }
            taken.insert(*name);
            object[name->get<std::string>()] = std::move(*value);
        }
    }

    /// The names `dependentRequired` (2019-09 on) and the array form of `dependencies` (draft-04
    /// to draft-07) ask for beside those present, until none is missing.
    template <class Add>
    static void add_dependents(const nlohmann::json& schema, const nlohmann::json& object, const Add& add) {
        for (std::size_t round = 0; round <= object.size(); ++round) {
            const std::size_t before = object.size();
            for (const char* key : {"dependentRequired", "dependencies"}) {
                const auto rules = schema.find(key);
                if (rules == schema.end() || !rules->is_object()) {
                    continue;
                }
                for (auto it = rules->begin(); it != rules->end(); ++it) {
                    if (!object.contains(it.key()) || !it->is_array()) {
                        continue;
                    }
                    for (const nlohmann::json& name : *it) {
                        if (name.is_string()) {
                            add(name.get<std::string>());
                        }
                    }
                }
            }
            if (object.size() == before) {
                return;
            }
        }
    }

    /// `b`'s constraints added to `a`'s: properties meet in an allOf, required lists join, a
    /// lower bound takes the larger and an upper bound the smaller value, `type` lists meet.
    [[nodiscard]] nlohmann::json merge(nlohmann::json a, const nlohmann::json& branch) const {
        const nlohmann::json* b = &branch;
        for (int hops = 0; b->is_object() && b->contains("$ref") && hops < max_depth; ++hops) {
            const nlohmann::json* target = resolve(b->at("$ref"));
            if (target == nullptr) {
                break;
            }
            b = target;
        }
        if (!b->is_object()) {
            return b->is_boolean() && !b->get<bool>() ? nlohmann::json(false) : a;
        }
        for (auto it = b->begin(); it != b->end(); ++it) {
            if (!holds_definitions(it.key())) {
                merge_keyword(a, it.key(), it.value());
            }
        }
        return a;
    }

    static void merge_keyword(nlohmann::json& a, const std::string& key, const nlohmann::json& value) {
        if (!a.contains(key)) {
            a[key] = value;
        } else if (key == "properties" && value.is_object()) {
            for (auto p = value.begin(); p != value.end(); ++p) {
                nlohmann::json& mine = a[key][p.key()];
                if (mine != p.value()) { // X and X is X, never allOf [X, X] nested a level deeper each time
                    mine = mine.is_null() ? p.value() : nlohmann::json{{"allOf", {mine, p.value()}}};
                }
            }
        } else if (key == "required" && value.is_array()) {
            for (const nlohmann::json& name : value) {
                if (std::find(a[key].begin(), a[key].end(), name) == a[key].end()) {
                    a[key].push_back(name);
                }
            }
        } else if (key == "type") {
            nlohmann::json mine = a[key].is_array() ? a[key] : nlohmann::json::array({a[key]});
            nlohmann::json theirs = value.is_array() ? value : nlohmann::json::array({value});
            nlohmann::json both = nlohmann::json::array();
            for (const nlohmann::json& t : mine) {
                if (std::find(theirs.begin(), theirs.end(), t) != theirs.end() ||
                    (t == "integer" && std::find(theirs.begin(), theirs.end(), "number") != theirs.end())) {
                    both.push_back(t);
                }
            }
            a[key] = both;
        } else if (a[key].is_number() && value.is_number()) {
            const bool lower = key.rfind("min", 0) == 0 || key == "exclusiveMinimum";
            const bool upper = key.rfind("max", 0) == 0 || key == "exclusiveMaximum";
            if ((lower && value.get<double>() > a[key].get<double>()) ||
                (upper && value.get<double>() < a[key].get<double>())) {
                a[key] = value;
            }
        } else if (key == "allOf" && value.is_array() && a[key].is_array()) {
            // Each branch once: definitions that each hold the next one twice would otherwise
            // double the list with every link.
            for (const nlohmann::json& branch : value) {
                if (std::find(a[key].begin(), a[key].end(), branch) == a[key].end()) {
                    a[key].push_back(branch);
                }
            }
        }
        // Anything else that both sides set is left as `a` has it: the validator decides.
    }

    /// A local JSON pointer ("#", "#/definitions/x", percent-encoded as a URI fragment is) into
    /// the root schema, or null.
    [[nodiscard]] const nlohmann::json* resolve(const nlohmann::json& ref) const {
        if (!ref.is_string()) {
            return nullptr;
        }
        const std::string text = ref.get<std::string>();
        if (text.empty() || text[0] != '#') {
            return nullptr;
        }
        try {
            const nlohmann::json::json_pointer pointer(percent_decode(std::string_view(text).substr(1)));
            return root_.contains(pointer) ? &root_.at(pointer) : nullptr;
        } catch (const nlohmann::json::exception&) {
            return nullptr;
        }
    }

    /// `schema` compiled with the root's definitions beside it, so local $refs resolve; empty
    /// when it does not compile alone (the whole schema then has the last word).
    [[nodiscard]] std::optional<compiled_schema> compile_alone(const nlohmann::json& schema) const {
        nlohmann::json copy = schema;
        for (auto it = definitions_.begin(); copy.is_object() && it != definitions_.end(); ++it) {
            if (!copy.contains(it.key())) {
                copy[it.key()] = it.value();
            }
        }
        try {
            return compiled_schema::from_json(copy, options_);
        } catch (const schema_error&) {
            return std::nullopt;
        }
    }

    /// For `uniqueItems` and distinct names: a value of `schema` not in `taken`, varied from
    /// `base` (variant_source says in what order). `sources` keeps each schema's variants between
    /// calls while `taken` grows, so that a long array does not try every variant again per item.
    [[nodiscard]] std::optional<nlohmann::json> distinct_value(std::map<const nlohmann::json*, variant_source>& sources,
                                                               const nlohmann::json& schema, const nlohmann::json& base,
                                                               const std::set<nlohmann::json>& taken) const {
        auto found = sources.find(&schema);
        if (found == sources.end() || found->second.base() != base) {
            const nlohmann::json* target = &schema;
            for (int hops = 0; target != nullptr && target->is_object() && target->contains("$ref") && hops < max_depth;
                 ++hops) {
                target = resolve(target->at("$ref"));
            }
            const bool listed = target != nullptr && target->is_object() && target->contains("enum");
            variant_source made(listed ? target->at("enum") : nlohmann::json(), base, compile_alone(schema));
            found = sources.insert_or_assign(&schema, std::move(made)).first;
        }
        return found->second.next(taken);
    }

    /// The first candidate that `schema` (with the root's definitions, so local $refs resolve)
    /// accepts. A subschema that does not compile alone leaves the verdict to the whole schema.
    std::optional<nlohmann::json> first_fit(const nlohmann::json& schema, const std::vector<nlohmann::json>& candidates,
                                            const std::string& at) {
        const std::optional<compiled_schema> compiled = compile_alone(schema);
        std::string first_problem;
        for (const nlohmann::json& candidate : candidates) {
            const problem_list problems =
                compiled ? compiled->validate(candidate, "", step::task_schema) : problem_list{};
            if (problems.empty()) {
                failure_.clear(); // whatever failed below was recovered from by another candidate
                return candidate;
            }
            if (first_problem.empty()) {
                first_problem = problems.front().message;
            }
        }
        if (!failure_.empty()) {
            return std::nullopt; // the deeper failure that caused this one says more
        }
        return fail(at, candidates.empty() ? std::string("no candidate value (give it a \"default\" or \"examples\")")
                                           : "none of " + std::to_string(candidates.size()) +
                                                 " candidate values fits (first: " + first_problem +
                                                 "); give it a \"default\" or \"examples\"");
    }

    /// string_budget_factor times `max_bytes`, the largest size where that is more.
    static constexpr std::size_t string_total_for(std::size_t max_bytes) noexcept {
        constexpr std::size_t largest = std::numeric_limits<std::size_t>::max();
        return max_bytes > largest / string_budget_factor ? largest : max_bytes * string_budget_factor;
    }

    std::optional<nlohmann::json> fail(const std::string& at, const std::string& why) {
        if (failure_.empty()) {
            failure_ = (at.empty() ? std::string("(root)") : at) + ": " + why;
        }
        return std::nullopt;
    }

    const nlohmann::json& root_;
    /// Values made so far (at most max_values_), and the value made for each schema text and
    /// depth (memo_key).
    std::size_t max_values_;
    std::size_t max_string_bytes_;
    std::size_t max_string_total_;
    std::size_t max_members_; // the most members the receiver reads in an object
    std::size_t made_ = 0;
    std::size_t bytes_made_ = 0;
    std::unordered_map<std::string, nlohmann::json> made_for_;
    /// Each schema text and depth found to have no value, and why.
    std::unordered_map<std::string, std::string> failed_for_;
    schema_options options_; // the root's dialect named: a subschema alone is read as in place
    nlohmann::json definitions_ = nlohmann::json::object();
    std::string failure_;
};

} // namespace handoff::detail
