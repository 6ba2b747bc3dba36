// SPDX-License-Identifier: MIT
#pragma once

// The draft-07 keywords, one compile function each, found through one sorted table. Each
// function checks the keyword's value (a malformed one is a schema_error at its pointer) and
// writes it into the node. Keywords not in the table are annotations, except the later-draft
// keywords below, which fail loudly.

#include <handoff/detail/json/pointer.hpp>
#include <handoff/detail/json/writer.hpp>
#include <handoff/detail/schema/node.hpp>
#include <handoff/detail/text.hpp>
#include <handoff/schema_error.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>   // lower_bound
#include <cmath>       // isfinite
#include <cstdint>     // uint64_t
#include <memory>      // shared_ptr
#include <string>      // string
#include <string_view> // string_view

namespace handoff::detail {

class schema_compiler;

/// What a keyword function needs: the node it fills, the schema object it reads, and how to
/// compile a subschema in place (the base URI and depth inside this schema).
struct keyword_context {
    schema_compiler& compiler;
    node_index self;
    const nlohmann::json& schema;
    std::string base;
    std::string where;
    int depth;

    [[nodiscard]] node_index sub(const nlohmann::json& s, const std::string& location) const;
    [[nodiscard]] schema_node& node() const; // re-fetched after sub(): the vector may grow
    [[nodiscard]] std::shared_ptr<const ecma_regex> regex(const nlohmann::json& v, const std::string& location) const;

    [[nodiscard]] std::string at(std::string_view token) const { return pointer_child(where, token); }
    [[noreturn]] void fail(std::string_view keyword, const std::string& reason) const {
        throw schema_error(at(keyword), reason);
    }
};

namespace keywords {

[[nodiscard]] inline std::uint64_t non_negative(const keyword_context& c, std::string_view k, const nlohmann::json& v) {
    if (!v.is_number() || !is_integral(v) ||
        (v.is_number_integer() && !v.is_number_unsigned() && v.get<std::int64_t>() < 0) ||
        (v.is_number_float() && v.get<double>() < 0)) {
        c.fail(k, "\"" + std::string(k) + "\" must be a non-negative integer");
    }
    if (v.is_number_float()) {
        const double d = v.get<double>();
        return d >= 18446744073709551615.0 ? UINT64_MAX : static_cast<std::uint64_t>(d);
    }
    return v.get<std::uint64_t>();
}

[[nodiscard]] inline const nlohmann::json& number(const keyword_context& c, std::string_view k,
                                                  const nlohmann::json& v) {
    if (!v.is_number()) {
        c.fail(k, "\"" + std::string(k) + "\" must be a number");
    }
    return v;
}

[[nodiscard]] inline node_index schema_at(const keyword_context& c, std::string_view k, const nlohmann::json& v) {
    return c.sub(v, c.at(k));
}

/// Subschemas of an array keyword (allOf, anyOf, oneOf, the tuple form of items).
[[nodiscard]] inline std::vector<node_index> schema_array(const keyword_context& c, std::string_view k,
                                                          const nlohmann::json& v, bool non_empty) {
    if (!v.is_array() || (non_empty && v.empty())) {
        c.fail(k, "\"" + std::string(k) + "\" must be " + (non_empty ? "a non-empty" : "an") + " array of schemas");
    }
    std::vector<node_index> out;
    for (std::size_t i = 0; i < v.size(); ++i) {
        out.push_back(c.sub(v[i], pointer_item(c.at(k), i)));
    }
    return out;
}

[[nodiscard]] inline property_rule& property_slot(schema_node& n, const std::string& name) {
    const auto it = std::lower_bound(n.properties.begin(), n.properties.end(), name,
                                     [](const property_rule& p, const std::string& key) { return p.name < key; });
    if (it != n.properties.end() && it->name == name) {
        return *it;
    }
    return *n.properties.insert(it, property_rule{name, no_node, false});
}

[[nodiscard]] inline std::vector<std::string> string_array(std::string_view k, const nlohmann::json& v,
                                                           const std::string& at) {
    if (!v.is_array()) {
        throw schema_error(at, "\"" + std::string(k) + "\" must be an array of strings");
    }
    std::vector<std::string> out;
    for (const auto& name : v) {
        if (!name.is_string()) {
            throw schema_error(at, "\"" + std::string(k) + "\" must be an array of strings");
        }
        out.push_back(name.get<std::string>());
    }
    return out;
}

inline void type(const keyword_context& c, const nlohmann::json& v) {
    static constexpr std::pair<std::string_view, std::uint8_t> names[] = {
        {"null", type_null},     {"boolean", type_boolean}, {"integer", type_integer}, {"number", type_number},
        {"string", type_string}, {"array", type_array},     {"object", type_object}};
    std::uint8_t bits = 0;
    const auto add = [&](const nlohmann::json& name) {
        for (const auto& [n, bit] : names) {
            if (name.is_string() && name.get_ref<const std::string&>() == n) {
                bits |= bit;
                return;
            }
        }
        c.fail("type", "\"type\" must name draft-07 types (null, boolean, integer, number, string, array, "
                       "object), not " +
                           quote_untrusted(json_text(name)));
    };
    if (v.is_array()) {
        for (const auto& name : v) {
            add(name);
        }
    } else {
        add(v);
    }
    c.node().types = bits;
}

inline void enum_values(const keyword_context& c, const nlohmann::json& v) {
    if (!v.is_array()) {
        c.fail("enum", "\"enum\" must be an array");
    }
    c.node().enum_values.assign(v.begin(), v.end());
    c.node().has_enum = true;
    c.node().groups |= group_values;
}

inline void const_value(const keyword_context& c, const nlohmann::json& v) {
    c.node().const_value = v;
    c.node().groups |= group_values;
}

inline void multiple_of(const keyword_context& c, const nlohmann::json& v) {
    if (!number(c, "multipleOf", v).is_number() || compare_numbers(v, nlohmann::json(0)) <= 0) {
        c.fail("multipleOf", "\"multipleOf\" must be a number greater than 0");
    }
    c.node().multiple_of = v;
    c.node().multiple_of_decimal = to_decimal(v);
    c.node().groups |= group_number;
}

inline void minimum(const keyword_context& c, const nlohmann::json& v) {
    c.node().minimum = number(c, "minimum", v);
    c.node().groups |= group_number;
}
inline void maximum(const keyword_context& c, const nlohmann::json& v) {
    c.node().maximum = number(c, "maximum", v);
    c.node().groups |= group_number;
}
inline void exclusive_minimum(const keyword_context& c, const nlohmann::json& v) {
    c.node().exclusive_minimum = number(c, "exclusiveMinimum", v);
    c.node().groups |= group_number;
}
inline void exclusive_maximum(const keyword_context& c, const nlohmann::json& v) {
    c.node().exclusive_maximum = number(c, "exclusiveMaximum", v);
    c.node().groups |= group_number;
}

inline void min_length(const keyword_context& c, const nlohmann::json& v) {
    c.node().min_length = non_negative(c, "minLength", v);
    c.node().groups |= group_string;
}
inline void max_length(const keyword_context& c, const nlohmann::json& v) {
    c.node().max_length = non_negative(c, "maxLength", v);
    c.node().groups |= group_string;
}

inline void pattern(const keyword_context& c, const nlohmann::json& v) {
    auto compiled = c.regex(v, c.at("pattern"));
    c.node().pattern = compiled_pattern{std::move(compiled), c.at("pattern")};
    c.node().groups |= group_string;
}

inline void format(const keyword_context& c, const nlohmann::json& v) {
    if (!v.is_string()) {
        c.fail("format", "\"format\" must be a string");
    }
    c.node().format = format_of(v.get_ref<const std::string&>());
    if (c.node().format != format_kind::none) {
        c.node().groups |= group_string;
    }
}

inline void items(const keyword_context& c, const nlohmann::json& v) {
    if (v.is_array()) {
        std::vector<node_index> tuple = schema_array(c, "items", v, false);
        c.node().tuple_items = std::move(tuple);
        c.node().items_is_tuple = true;
    } else {
        const node_index i = schema_at(c, "items", v);
        c.node().items = i;
    }
    c.node().groups |= group_array;
}

inline void additional_items(const keyword_context& c, const nlohmann::json& v) {
    const node_index i = schema_at(c, "additionalItems", v);
    c.node().additional_items = i;
    c.node().groups |= group_array;
}

inline void min_items(const keyword_context& c, const nlohmann::json& v) {
    c.node().min_items = non_negative(c, "minItems", v);
    c.node().groups |= group_array;
}
inline void max_items(const keyword_context& c, const nlohmann::json& v) {
    c.node().max_items = non_negative(c, "maxItems", v);
    c.node().groups |= group_array;
}

inline void unique_items(const keyword_context& c, const nlohmann::json& v) {
    if (!v.is_boolean()) {
        c.fail("uniqueItems", "\"uniqueItems\" must be a boolean");
    }
    c.node().unique_items = v.get<bool>();
    c.node().groups |= group_array;
}

inline void contains(const keyword_context& c, const nlohmann::json& v) {
    const node_index i = schema_at(c, "contains", v);
    c.node().contains = i;
    c.node().groups |= group_array;
}

inline void min_properties(const keyword_context& c, const nlohmann::json& v) {
    c.node().min_properties = non_negative(c, "minProperties", v);
    c.node().groups |= group_object;
}
inline void max_properties(const keyword_context& c, const nlohmann::json& v) {
    c.node().max_properties = non_negative(c, "maxProperties", v);
    c.node().groups |= group_object;
}

inline void required(const keyword_context& c, const nlohmann::json& v) {
    for (const std::string& name : string_array("required", v, c.at("required"))) {
        property_rule& slot = property_slot(c.node(), name);
        if (!slot.required) {
            slot.required = true;
            ++c.node().required_count;
        }
    }
    c.node().groups |= group_object;
}

inline void properties(const keyword_context& c, const nlohmann::json& v) {
    if (!v.is_object()) {
        c.fail("properties", "\"properties\" must be an object of schemas");
    }
    for (auto it = v.begin(); it != v.end(); ++it) {
        std::string at = c.at("properties");
        append_pointer_token(at, it.key());
        const node_index i = c.sub(*it, at);
        property_slot(c.node(), it.key()).schema = i;
    }
    c.node().groups |= group_object;
}

inline void pattern_properties(const keyword_context& c, const nlohmann::json& v) {
    if (!v.is_object()) {
        c.fail("patternProperties", "\"patternProperties\" must be an object of schemas");
    }
    for (auto it = v.begin(); it != v.end(); ++it) {
        std::string at = c.at("patternProperties");
        append_pointer_token(at, it.key());
        auto regex = c.regex(nlohmann::json(it.key()), at);
        const node_index i = c.sub(*it, at);
        c.node().pattern_properties.push_back(pattern_property_rule{compiled_pattern{std::move(regex), at}, i});
    }
    c.node().groups |= group_object;
}

inline void additional_properties(const keyword_context& c, const nlohmann::json& v) {
    const node_index i = schema_at(c, "additionalProperties", v);
    c.node().additional_properties = i;
    c.node().groups |= group_object;
}

inline void dependencies(const keyword_context& c, const nlohmann::json& v) {
    if (!v.is_object()) {
        c.fail("dependencies", "\"dependencies\" must be an object");
    }
    for (auto it = v.begin(); it != v.end(); ++it) {
        std::string at = c.at("dependencies");
        append_pointer_token(at, it.key());
        dependency_rule rule{it.key(), {}, no_node};
        if (it->is_array()) {
            rule.required = string_array("dependencies", *it, at);
        } else {
            rule.schema = c.sub(*it, at);
        }
        c.node().dependencies.push_back(std::move(rule));
    }
    c.node().groups |= group_object;
}

inline void property_names(const keyword_context& c, const nlohmann::json& v) {
    const node_index i = schema_at(c, "propertyNames", v);
    c.node().property_names = i;
    c.node().groups |= group_object;
}

inline void if_schema(const keyword_context& c, const nlohmann::json& v) {
    const node_index i = schema_at(c, "if", v);
    c.node().if_schema = i;
    c.node().groups |= group_logic;
}
inline void then_schema(const keyword_context& c, const nlohmann::json& v) {
    const node_index i = schema_at(c, "then", v);
    c.node().then_schema = i;
}
inline void else_schema(const keyword_context& c, const nlohmann::json& v) {
    const node_index i = schema_at(c, "else", v);
    c.node().else_schema = i;
}

inline void all_of(const keyword_context& c, const nlohmann::json& v) {
    std::vector<node_index> list = schema_array(c, "allOf", v, true);
    c.node().all_of = std::move(list);
    c.node().groups |= group_logic;
}
inline void any_of(const keyword_context& c, const nlohmann::json& v) {
    std::vector<node_index> list = schema_array(c, "anyOf", v, true);
    c.node().any_of = std::move(list);
    c.node().groups |= group_logic;
}
inline void one_of(const keyword_context& c, const nlohmann::json& v) {
    std::vector<node_index> list = schema_array(c, "oneOf", v, true);
    c.node().one_of = std::move(list);
    c.node().groups |= group_logic;
}
inline void not_schema(const keyword_context& c, const nlohmann::json& v) {
    const node_index i = schema_at(c, "not", v);
    c.node().not_schema = i;
    c.node().groups |= group_logic;
}

/// Compiled for their errors only: a definition is reached through a `$ref`, which compiles
/// it (the memo returns this node).
inline void definitions(const keyword_context& c, const nlohmann::json& v) {
    if (!v.is_object()) {
        c.fail("definitions", "\"definitions\" must be an object of schemas");
    }
    for (auto it = v.begin(); it != v.end(); ++it) {
        std::string at = c.at("definitions");
        append_pointer_token(at, it.key());
        static_cast<void>(c.sub(*it, at));
    }
}

inline void id(const keyword_context& c, const nlohmann::json& v) {
    if (!v.is_string()) {
        c.fail("$id", "\"$id\" must be a string");
    }
}

/// draft-07 is the one dialect handoff validates: any other `$schema` means keywords it reads
/// differently (or not at all).
inline void dialect(const keyword_context& c, const nlohmann::json& v) {
    static constexpr std::string_view accepted[] = {
        "http://json-schema.org/draft-07/schema#", "http://json-schema.org/draft-07/schema",
        "https://json-schema.org/draft-07/schema#", "https://json-schema.org/draft-07/schema"};
    for (std::string_view a : accepted) {
        if (v.is_string() && v.get_ref<const std::string&>() == a) {
            return;
        }
    }
    c.fail("$schema", "handoff validates draft-07 only (\"$schema\": \"http://json-schema.org/draft-07/schema#\"), "
                      "not " +
                          quote_untrusted(json_text(v), 120) +
                          ": keywords of other drafts would be ignored or read differently");
}

/// A keyword of 2019-09 or 2020-12 that draft-07 ignores: validating on would accept what the
/// author meant to refuse.
inline void later_draft(const keyword_context& c, std::string_view keyword) {
    c.fail(keyword, "\"" + std::string(keyword) +
                        "\" is a keyword of JSON Schema 2019-09/2020-12 that draft-07 ignores: the schema would "
                        "accept what it was written to refuse (rewrite it in draft-07 terms)");
}

} // namespace keywords

using keyword_function = void (*)(const keyword_context&, const nlohmann::json&);

struct keyword_entry {
    std::string_view name;
    keyword_function compile; // null: a later-draft keyword, refused
};

/// Every keyword draft-07 defines that constrains or holds schemas, and the later-draft ones.
inline constexpr keyword_entry keyword_table[] = {
    {"$dynamicAnchor", nullptr},
    {"$dynamicRef", nullptr},
    {"$id", keywords::id},
    {"$recursiveAnchor", nullptr},
    {"$recursiveRef", nullptr},
    {"$schema", keywords::dialect},
    {"$anchor", nullptr},
    {"additionalItems", keywords::additional_items},
    {"additionalProperties", keywords::additional_properties},
    {"allOf", keywords::all_of},
    {"anyOf", keywords::any_of},
    {"const", keywords::const_value},
    {"contains", keywords::contains},
    {"definitions", keywords::definitions},
    {"dependencies", keywords::dependencies},
    {"dependentRequired", nullptr},
    {"dependentSchemas", nullptr},
    {"else", keywords::else_schema},
    {"enum", keywords::enum_values},
    {"exclusiveMaximum", keywords::exclusive_maximum},
    {"exclusiveMinimum", keywords::exclusive_minimum},
    {"format", keywords::format},
    {"if", keywords::if_schema},
    {"items", keywords::items},
    {"maxContains", nullptr},
    {"maxItems", keywords::max_items},
    {"maxLength", keywords::max_length},
    {"maxProperties", keywords::max_properties},
    {"maximum", keywords::maximum},
    {"minContains", nullptr},
    {"minItems", keywords::min_items},
    {"minLength", keywords::min_length},
    {"minProperties", keywords::min_properties},
    {"minimum", keywords::minimum},
    {"multipleOf", keywords::multiple_of},
    {"not", keywords::not_schema},
    {"oneOf", keywords::one_of},
    {"pattern", keywords::pattern},
    {"patternProperties", keywords::pattern_properties},
    {"prefixItems", nullptr},
    {"properties", keywords::properties},
    {"propertyNames", keywords::property_names},
    {"required", keywords::required},
    {"then", keywords::then_schema},
    {"type", keywords::type},
    {"unevaluatedItems", nullptr},
    {"unevaluatedProperties", nullptr},
    {"uniqueItems", keywords::unique_items},
};

[[nodiscard]] inline const keyword_entry* find_keyword(std::string_view name) {
    for (const keyword_entry& k : keyword_table) { // 48 entries, short names: a scan is enough
        if (k.name == name) {
            return &k;
        }
    }
    return nullptr;
}

/// Runs the entry: a later-draft keyword fails, any other compiles.
inline void compile_keyword(const keyword_entry& k, const keyword_context& c, const nlohmann::json& v) {
    if (k.compile == nullptr) {
        keywords::later_draft(c, k.name);
    }
    k.compile(c, v);
}

} // namespace handoff::detail
