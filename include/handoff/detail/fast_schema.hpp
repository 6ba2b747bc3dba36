// SPDX-License-Identifier: MIT
#pragma once

#include <handoff/detail/text.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>   // all_of, sort
#include <cstddef>     // size_t
#include <cstdint>     // int64_t, uint8_t, uint32_t, uint64_t
#include <limits>      // numeric_limits
#include <optional>    // optional
#include <set>         // set
#include <string>      // string
#include <string_view> // string_view
#include <utility>     // move, pair
#include <vector>      // vector

namespace handoff::detail {

/// The keywords task schemas are made of (type, properties, required, additionalProperties,
/// items, enum of strings, lengths, bounds, item and property counts), compiled into a tree
/// that a DOM walk checks without valijson's per-value adapters, callbacks and contexts.
///
/// It only says "valid". compiled_schema asks it first and, when it does not accept the value,
/// runs valijson, whose answer and messages stand. So it must never accept what valijson
/// refuses; where valijson's rule is odd (it reads integers as int64 before comparing them as
/// doubles) it refuses and lets valijson decide. A schema with any keyword outside the subset
/// ($ref, allOf/anyOf/oneOf/not, if/then/else, pattern, patternProperties, format date/time,
/// const, uniqueItems, multipleOf, dependencies, ...) does not compile here at all: valijson
/// alone checks it. tests/test_fast_path.cpp runs both on the same values.
class fast_schema {
public:
    using json = nlohmann::json;

    /// The subset-compiled schema, or nullopt when `schema` steps outside the subset.
    [[nodiscard]] static std::optional<fast_schema> compile(const json& schema) {
        fast_schema out;
        if (!out.add(schema)) {
            return std::nullopt;
        }
        return out;
    }

    /// True only if valijson (as compiled_schema sets it up) accepts `value` too.
    [[nodiscard]] bool accepts(const json& value) const { return accepts(value, nodes_.front()); }

    /// Where replaced values sit: each valijson context step ("[records]", "[3]") written as
    /// its length, ':' and itself, so that no key can make two different paths read alike.
    using path_set = std::set<std::string>;

    /// For the diagnosing run of valijson on a value this validator refused: a copy of `value`
    /// in which every array item and every `properties` member that this validator accepts is
    /// null, with the path of each such replacement in `replaced`. Within the subset, what
    /// valijson says of a value depends on that value alone, so on the copy it says what it
    /// says of `value`, plus errors inside and wrappers around the replacements, which
    /// drop_replacement_errors removes. A failing item among thousands then costs valijson
    /// one item, not thousands.
    [[nodiscard]] json prune(const json& value, path_set& replaced) const {
        std::string at;
        json out;
        prune(value, nodes_.front(), at, out, replaced);
        return out;
    }

    /// Removes from valijson's errors on a pruned copy those the replacements caused: errors
    /// at or inside a replacement, the wrapper that names one ("Failed to validate item #3 in
    /// array.", "... property name 'price'."), and then wrappers with no error left under
    /// them (every keyword of the subset reports a leaf error when it fails). O(n log n) in
    /// the errors: a hostile result may fail hundreds of thousands of values.
    template <class Error>
    static void drop_replacement_errors(std::vector<Error>& errors, const path_set& replaced) {
        if (replaced.empty()) {
            return;
        }
        static constexpr std::string_view item_head = "Failed to validate item #";
        static constexpr std::string_view item_tail = " in array.";
        static constexpr std::string_view property_head =
            "Failed to validate against schema associated with property name '";
        static constexpr std::string_view property_tail = "'.";
        const auto starts = [](const std::string& s, std::string_view head) { return s.rfind(head, 0) == 0; };
        const auto is_wrapper = [&](const std::string& d) { return starts(d, item_head) || starts(d, property_head); };
        const auto caused_by_replacement = [&](const Error& e) {
            std::string path;
            for (std::size_t k = 1; k < e.context.size(); ++k) { // [0] is "<root>"
                append_step(path, e.context[k]);
                if (replaced.count(path) != 0) {
                    return true;
                }
            }
            const std::string& d = e.description;
            std::size_t head = 0;
            std::size_t tail = 0;
            if (starts(d, item_head) && ends_with(d, item_tail)) {
                head = item_head.size();
                tail = item_tail.size();
            } else if (starts(d, property_head) && ends_with(d, property_tail)) {
                head = property_head.size();
                tail = property_tail.size();
            } else {
                return false;
            }
            append_step(path, "[" + d.substr(head, d.size() - head - tail) + "]");
            return replaced.count(path) != 0;
        };
        std::vector<Error> kept;
        for (Error& e : errors) {
            if (!caused_by_replacement(e)) {
                kept.push_back(std::move(e));
            }
        }
        // Every context with an error that is not a wrapper strictly below it.
        path_set holders;
        for (const Error& e : kept) {
            if (!is_wrapper(e.description)) {
                std::string path;
                for (std::size_t k = 1; k < e.context.size(); ++k) {
                    holders.insert(path); // e.context[0..k-1], a strict prefix
                    append_step(path, e.context[k]);
                }
            }
        }
        errors.clear();
        for (Error& e : kept) {
            if (is_wrapper(e.description)) {
                std::string path;
                for (std::size_t k = 1; k < e.context.size(); ++k) {
                    append_step(path, e.context[k]);
                }
                if (holders.count(path) == 0) {
                    continue; // an orphan: only replacements failed below it
                }
            }
            errors.push_back(std::move(e));
        }
    }

private:
    enum type_bit : std::uint8_t {
        t_null = 1U << 0U,
        t_boolean = 1U << 1U,
        t_integer = 1U << 2U, // a JSON integer: valijson's isInteger
        t_float = 1U << 3U,   // a number with a fraction or exponent
        t_string = 1U << 4U,
        t_array = 1U << 5U,
        t_object = 1U << 6U,
        t_any = 0x7FU,
    };

    static constexpr std::uint64_t unbounded = std::numeric_limits<std::uint64_t>::max();
    static constexpr std::uint32_t none = std::numeric_limits<std::uint32_t>::max();

    struct node {
        std::uint8_t types = t_any;
        // strings
        std::uint64_t min_length = 0;
        std::uint64_t max_length = unbounded;
        bool has_enum = false;
        std::vector<std::string> enum_strings;
        // numbers
        std::optional<double> minimum, maximum, exclusive_minimum, exclusive_maximum;
        // arrays
        std::uint64_t min_items = 0;
        std::uint64_t max_items = unbounded;
        std::uint32_t items = none;
        // objects
        std::uint64_t min_properties = 0;
        std::uint64_t max_properties = unbounded;
        std::vector<std::pair<std::string, std::uint32_t>> properties; // sorted like object_t's keys
        std::uint64_t required_mask = 0;         // bits of required names among the first 64 properties
        std::vector<std::string> required_extra; // the other required names
        bool additional_allowed = true;
        std::uint32_t additional = none;
    };

    fast_schema() = default;

    static bool count(const json& v, std::uint64_t& out) {
        if (v.is_number_unsigned()) {
            out = v.get<std::uint64_t>();
            return true;
        }
        return false;
    }

    static bool bound(const json& v, std::optional<double>& out) {
        // valijson reads an integer bound as int64 first: one past INT64_MAX wraps negative
        // there, so such a schema is valijson's alone (number_as_valijson does the same for values).
        if (!v.is_number() ||
            (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX))) {
            return false;
        }
        out = v.get<double>();
        return true;
    }

    /// valijson looks property names up by their C string, so a name with a NUL in it means
    /// something else there: such a schema is valijson's alone.
    static bool plain_name(const std::string& name) noexcept { return name.find('\0') == std::string::npos; }

    static bool type_of(const json& v, std::uint8_t& out) {
        static constexpr std::pair<std::string_view, std::uint8_t> names[] = {
            {"null", t_null},       {"boolean", t_boolean},
            {"integer", t_integer}, {"number", static_cast<std::uint8_t>(t_integer | t_float)},
            {"string", t_string},   {"array", t_array},
            {"object", t_object},
        };
        const auto one = [](const json& name, std::uint8_t& bits) {
            if (!name.is_string()) {
                return false;
            }
            for (const auto& [text, bit] : names) {
                if (name.get_ref<const std::string&>() == text) {
                    bits = static_cast<std::uint8_t>(bits | bit);
                    return true;
                }
            }
            return false;
        };
        out = 0;
        if (v.is_string()) {
            return one(v, out);
        }
        if (!v.is_array() || v.empty()) {
            return false;
        }
        for (const json& name : v) {
            if (!one(name, out)) {
                return false;
            }
        }
        return true;
    }

    /// Compiles `schema` into a new node; false when it is outside the subset.
    bool add(const json& schema) {
        if (!schema.is_object()) {
            return false; // boolean schemas: left to valijson
        }
        const auto index = static_cast<std::uint32_t>(nodes_.size());
        nodes_.emplace_back();
        node n;
        for (const auto& [keyword, v] : schema.items()) {
            if (!add_keyword(keyword, v, n)) {
                return false;
            }
        }
        std::sort(n.properties.begin(), n.properties.end(),
                  [](const auto& a, const auto& b) { return a.first < b.first; });
        if (const auto it = schema.find("required"); it != schema.end()) {
            if (!it->is_array()) {
                return false;
            }
            for (const json& name : *it) {
                if (!name.is_string()) {
                    return false;
                }
                const auto& s = name.get_ref<const std::string&>();
                if (!plain_name(s)) {
                    return false;
                }
                std::size_t i = 0;
                while (i < n.properties.size() && n.properties[i].first != s) {
                    ++i;
                }
                if (i < n.properties.size() && i < 64) {
                    n.required_mask |= std::uint64_t{1} << i;
                } else {
                    n.required_extra.push_back(s);
                }
            }
        }
        nodes_[index] = std::move(n);
        return true;
    }

    bool add_child(const json& schema, std::uint32_t& out) {
        out = static_cast<std::uint32_t>(nodes_.size());
        return add(schema);
    }

    bool add_keyword(const std::string& keyword, const json& v, node& n) {
        // Annotations valijson ignores, and the keywords handled after the loop.
        static constexpr std::string_view ignored[] = {"$schema",     "$id",       "id",       "title",
                                                       "description", "default",   "examples", "$comment",
                                                       "readOnly",    "writeOnly", "required"};
        for (std::string_view name : ignored) {
            if (keyword == name) {
                return true;
            }
        }
        if (keyword == "type") {
            return type_of(v, n.types);
        }
        if (keyword == "enum") {
            if (!v.is_array()) {
                return false;
            }
            n.has_enum = true;
            for (const json& e : v) {
                if (!e.is_string()) {
                    return false; // valijson's equality across types is its own: leave it to valijson
                }
                n.enum_strings.push_back(e.get<std::string>());
            }
            return true;
        }
        if (keyword == "minLength") {
            return count(v, n.min_length);
        }
        if (keyword == "maxLength") {
            return count(v, n.max_length);
        }
        if (keyword == "minimum") {
            return bound(v, n.minimum);
        }
        if (keyword == "maximum") {
            return bound(v, n.maximum);
        }
        if (keyword == "exclusiveMinimum") {
            return bound(v, n.exclusive_minimum);
        }
        if (keyword == "exclusiveMaximum") {
            return bound(v, n.exclusive_maximum);
        }
        if (keyword == "minItems") {
            return count(v, n.min_items);
        }
        if (keyword == "maxItems") {
            return count(v, n.max_items);
        }
        if (keyword == "minProperties") {
            return count(v, n.min_properties);
        }
        if (keyword == "maxProperties") {
            return count(v, n.max_properties);
        }
        if (keyword == "items") {
            return add_child(v, n.items); // one schema for every item; the tuple form is not here
        }
        if (keyword == "properties") {
            if (!v.is_object()) {
                return false;
            }
            for (const auto& [name, sub] : v.items()) {
                std::uint32_t child = none;
                if (!plain_name(name) || !add_child(sub, child)) {
                    return false;
                }
                n.properties.emplace_back(name, child);
            }
            return true;
        }
        if (keyword == "additionalProperties") {
            if (v.is_boolean()) {
                n.additional_allowed = v.get<bool>();
                return true;
            }
            return add_child(v, n.additional);
        }
        if (keyword == "format") {
            // compiled_schema checks only these three formats (schema_guard.hpp); any other is
            // an annotation.
            return v.is_string() && v != "date" && v != "time" && v != "date-time";
        }
        if (keyword.rfind("x-", 0) == 0) {
            return keyword.rfind("x-handoff-", 0) != 0; // extensions are annotations; ours are not
        }
        // Every other keyword valijson knows changes what validates; an unknown word is an
        // annotation to valijson, but a misspelt keyword is better checked by valijson too.
        return false;
    }

    /// valijson reads an integer as int64 and then as a double; one beyond int64 is refused
    /// here so valijson decides.
    static bool number_as_valijson(const json& v, double& out) {
        if (v.is_number_float()) {
            out = v.get<double>();
            return true;
        }
        if (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX)) {
            return false;
        }
        out = static_cast<double>(v.get<std::int64_t>());
        return true;
    }

    static bool ends_with(const std::string& s, std::string_view tail) noexcept {
        return s.size() >= tail.size() && std::string_view(s).substr(s.size() - tail.size()) == tail;
    }

    static void append_step(std::string& path, const std::string& step) {
        path += std::to_string(step.size());
        path += ':';
        path += step;
    }

    void prune(const json& v, const node& n, std::string& at, json& out, path_set& replaced) const {
        const std::size_t mark = at.size();
        if (v.is_array() && n.items != none) {
            const node& item_node = nodes_[n.items];
            out = json(json::value_t::array);
            auto& items = *out.get_ptr<json::array_t*>();
            items.reserve(v.size());
            for (std::size_t i = 0; i < v.size(); ++i) {
                append_step(at, "[" + std::to_string(i) + "]");
                items.emplace_back();
                if (accepts(v[i], item_node)) {
                    replaced.insert(at);
                } else {
                    prune(v[i], item_node, at, items.back(), replaced);
                }
                at.resize(mark);
            }
            return;
        }
        if (v.is_object() && !n.properties.empty()) {
            out = json(json::value_t::object);
            auto& members = *out.get_ptr<json::object_t*>();
            std::size_t i = 0;
            for (const auto& [key, child] : v.get_ref<const json::object_t&>()) {
                while (i < n.properties.size() && n.properties[i].first < key) {
                    ++i;
                }
                json& slot = members[key];
                if (i == n.properties.size() || n.properties[i].first != key) {
                    slot = child; // additionalProperties: kept whole (its wrapper names no member)
                    continue;
                }
                const node& member_node = nodes_[n.properties[i].second];
                append_step(at, "[" + key + "]");
                if (accepts(child, member_node)) {
                    replaced.insert(at);
                } else {
                    prune(child, member_node, at, slot, replaced);
                }
                at.resize(mark);
            }
            return;
        }
        out = v;
    }

    [[nodiscard]] bool accepts_number(const json& v, const node& n) const {
        if (!n.minimum && !n.maximum && !n.exclusive_minimum && !n.exclusive_maximum) {
            return true;
        }
        double x = 0.0;
        if (!number_as_valijson(v, x)) {
            return false;
        }
        return (!n.minimum || x >= *n.minimum) && (!n.maximum || x <= *n.maximum) &&
               (!n.exclusive_minimum || x > *n.exclusive_minimum) && (!n.exclusive_maximum || x < *n.exclusive_maximum);
    }

    [[nodiscard]] bool accepts_string(const std::string& s, const node& n) const {
        if (n.min_length > 0 || n.max_length != unbounded) {
            const std::uint64_t length = count_code_points(s);
            if (length < n.min_length || length > n.max_length) {
                return false;
            }
        }
        return true;
    }

    [[nodiscard]] bool accepts_object(const json::object_t& object, const node& n) const {
        if (object.size() < n.min_properties || object.size() > n.max_properties) {
            return false;
        }
        // object_t is a std::map: its keys come sorted, like n.properties, so one merge pass
        // pairs each key with its subschema.
        std::uint64_t present = 0;
        std::size_t i = 0;
        for (const auto& [key, child] : object) {
            int order = 1;
            while (i < n.properties.size() && (order = n.properties[i].first.compare(key)) < 0) {
                ++i;
            }
            if (i < n.properties.size() && order == 0) {
                if (i < 64) {
                    present |= std::uint64_t{1} << i;
                }
                if (!accepts(child, nodes_[n.properties[i].second])) {
                    return false;
                }
                ++i;
            } else if (!n.additional_allowed || (n.additional != none && !accepts(child, nodes_[n.additional]))) {
                return false;
            }
        }
        if ((present & n.required_mask) != n.required_mask) {
            return false;
        }
        return std::all_of(n.required_extra.begin(), n.required_extra.end(),
                           [&](const std::string& name) { return object.find(name) != object.end(); });
    }

    [[nodiscard]] bool accepts(const json& v, const node& n) const {
        std::uint8_t bit = 0;
        switch (v.type()) {
        case json::value_t::null: bit = t_null; break;
        case json::value_t::boolean: bit = t_boolean; break;
        case json::value_t::number_integer:
        case json::value_t::number_unsigned: bit = t_integer; break;
        case json::value_t::number_float: bit = t_float; break;
        case json::value_t::string: bit = t_string; break;
        case json::value_t::array: bit = t_array; break;
        case json::value_t::object: bit = t_object; break;
        case json::value_t::binary:
        case json::value_t::discarded: return false;
        }
        if ((n.types & bit) == 0) {
            return false;
        }
        if (n.has_enum) {
            if (bit != t_string) {
                return false;
            }
            const auto& s = v.get_ref<const std::string&>();
            bool found = false;
            for (const std::string& e : n.enum_strings) {
                found = found || e == s;
            }
            if (!found) {
                return false;
            }
        }
        switch (bit) {
        case t_string: return accepts_string(v.get_ref<const std::string&>(), n);
        case t_integer:
        case t_float: return accepts_number(v, n);
        case t_array: {
            const auto& items = v.get_ref<const json::array_t&>();
            if (items.size() < n.min_items || items.size() > n.max_items) {
                return false;
            }
            if (n.items != none) {
                for (const json& item : items) {
                    if (!accepts(item, nodes_[n.items])) {
                        return false;
                    }
                }
            }
            return true;
        }
        case t_object: return accepts_object(v.get_ref<const json::object_t&>(), n);
        default: return true;
        }
    }

    std::vector<node> nodes_;
};

} // namespace handoff::detail
