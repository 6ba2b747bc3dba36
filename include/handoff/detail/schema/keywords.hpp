// SPDX-License-Identifier: MIT
#pragma once

// The keywords of the five dialects, one compile function each, found through one keyword list
// that says in which dialects (and, for 2019-09 and 2020-12, in which vocabulary) each applies.
// Each function checks the keyword's value (a malformed one is a schema_error at its pointer) and
// writes it into the node. Keywords not in the list, or not of the schema's dialect, are
// annotations, except a 2019-09/2020-12 keyword in a draft-04/06/07 schema, which fails loudly:
// the author expected it to apply.

#include <handoff/detail/json/pointer.hpp>
#include <handoff/detail/json/writer.hpp>
#include <handoff/detail/schema/dialect.hpp>
#include <handoff/detail/schema/node.hpp>
#include <handoff/detail/text.hpp>
#include <handoff/schema_error.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>   // lower_bound, sort
#include <cmath>       // isfinite
#include <cstdint>     // uint64_t
#include <memory>      // shared_ptr
#include <optional>    // optional
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
    schema_dialect dialect;
    std::uint8_t vocabularies; // vocabulary_bit: the keywords that apply (2019-09 on)
    bool assert_formats;

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
        c.fail("type", "\"type\" must name JSON Schema types (null, boolean, integer, number, string, array, "
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
    schema_node& n = c.node();
    n.enum_values.assign(v.begin(), v.end());
    n.enum_strings.clear();
    for (const nlohmann::json& e : n.enum_values) {
        if (e.is_string()) {
            n.enum_strings.push_back(e.get<std::string>());
        }
    }
    std::sort(n.enum_strings.begin(), n.enum_strings.end(), enum_order);
    n.has_enum = true;
    n.groups |= group_values;
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
    c.node().minimum = bound_of(number(c, "minimum", v));
    c.node().groups |= group_number;
}
inline void maximum(const keyword_context& c, const nlohmann::json& v) {
    c.node().maximum = bound_of(number(c, "maximum", v));
    c.node().groups |= group_number;
}
/// draft-04: a boolean that makes "minimum"/"maximum" exclusive (validation draft-04, 5.1.2-3);
/// applied after every keyword is read (exclusive_bounds_of_draft04). Later: a number.
inline void exclusive_minimum(const keyword_context& c, const nlohmann::json& v) {
    if (c.dialect == schema_dialect::draft04) {
        if (!v.is_boolean()) {
            c.fail("exclusiveMinimum", "\"exclusiveMinimum\" must be a boolean in draft-04");
        }
        return;
    }
    c.node().exclusive_minimum = bound_of(number(c, "exclusiveMinimum", v));
    c.node().groups |= group_number;
}
inline void exclusive_maximum(const keyword_context& c, const nlohmann::json& v) {
    if (c.dialect == schema_dialect::draft04) {
        if (!v.is_boolean()) {
            c.fail("exclusiveMaximum", "\"exclusiveMaximum\" must be a boolean in draft-04");
        }
        return;
    }
    c.node().exclusive_maximum = bound_of(number(c, "exclusiveMaximum", v));
    c.node().groups |= group_number;
}

inline void exclusive_bounds_of_draft04(const keyword_context& c) {
    schema_node& n = c.node();
    const auto flag = [&](const char* k) {
        const auto it = c.schema.find(k);
        return it != c.schema.end() && it->is_boolean() && it->get<bool>();
    };
    if (flag("exclusiveMinimum") && n.minimum) {
        n.exclusive_minimum = std::move(n.minimum);
        n.minimum.reset();
    }
    if (flag("exclusiveMaximum") && n.maximum) {
        n.exclusive_maximum = std::move(n.maximum);
        n.maximum.reset();
    }
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
    if (!c.assert_formats) {
        return; // an annotation (validation 2020-12, section 7.2.1)
    }
    c.node().format = format_of(v.get_ref<const std::string&>());
    if (c.node().format != format_kind::none) {
        c.node().groups |= group_string;
    }
}

/// 2020-12: the schema of every item after those of "prefixItems" (core 2020-12, 10.3.1.2).
/// Earlier: one schema for every item, or an array of schemas (the tuple form).
inline void items(const keyword_context& c, const nlohmann::json& v) {
    if (c.dialect == schema_dialect::draft2020_12) {
        if (v.is_array()) {
            c.fail("items", "\"items\" must be a schema in 2020-12 (the array form is \"prefixItems\")");
        }
        const node_index i = schema_at(c, "items", v);
        c.node().additional_items = i;
        c.node().items_is_tuple = true;
    } else if (v.is_array()) {
        std::vector<node_index> tuple = schema_array(c, "items", v, false);
        c.node().tuple_items = std::move(tuple);
        c.node().items_is_tuple = true;
    } else {
        const node_index i = schema_at(c, "items", v);
        c.node().items = i;
    }
    c.node().groups |= group_array;
}

inline void prefix_items(const keyword_context& c, const nlohmann::json& v) {
    std::vector<node_index> tuple = schema_array(c, "prefixItems", v, true);
    c.node().tuple_items = std::move(tuple);
    c.node().items_is_tuple = true;
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
    c.node().contains_evaluates = c.dialect == schema_dialect::draft2020_12;
    c.node().groups |= group_array;
}

/// Bounds on how many items fit "contains"; without "contains" they do nothing (validation
/// 2020-12, sections 6.4.4-5).
inline void min_contains(const keyword_context& c, const nlohmann::json& v) {
    c.node().min_contains = non_negative(c, "minContains", v);
}
inline void max_contains(const keyword_context& c, const nlohmann::json& v) {
    c.node().max_contains = non_negative(c, "maxContains", v);
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

inline void dependent_required(const keyword_context& c, const nlohmann::json& v) {
    if (!v.is_object()) {
        c.fail("dependentRequired", "\"dependentRequired\" must be an object of string arrays");
    }
    for (auto it = v.begin(); it != v.end(); ++it) {
        std::string at = c.at("dependentRequired");
        append_pointer_token(at, it.key());
        c.node().dependencies.push_back(dependency_rule{it.key(), string_array("dependentRequired", *it, at), no_node});
    }
    c.node().groups |= group_object;
}

inline void dependent_schemas(const keyword_context& c, const nlohmann::json& v) {
    if (!v.is_object()) {
        c.fail("dependentSchemas", "\"dependentSchemas\" must be an object of schemas");
    }
    for (auto it = v.begin(); it != v.end(); ++it) {
        std::string at = c.at("dependentSchemas");
        append_pointer_token(at, it.key());
        const node_index i = c.sub(*it, at);
        c.node().dependencies.push_back(dependency_rule{it.key(), {}, i});
    }
    c.node().groups |= group_object;
}

inline void unevaluated_items(const keyword_context& c, const nlohmann::json& v) {
    const node_index i = schema_at(c, "unevaluatedItems", v);
    c.node().unevaluated_items = i;
    c.node().groups |= group_unevaluated;
}
inline void unevaluated_properties(const keyword_context& c, const nlohmann::json& v) {
    const node_index i = schema_at(c, "unevaluatedProperties", v);
    c.node().unevaluated_properties = i;
    c.node().groups |= group_unevaluated;
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
inline void definitions_named(const keyword_context& c, std::string_view k, const nlohmann::json& v) {
    if (!v.is_object()) {
        c.fail(k, "\"" + std::string(k) + "\" must be an object of schemas");
    }
    for (auto it = v.begin(); it != v.end(); ++it) {
        std::string at = c.at(k);
        append_pointer_token(at, it.key());
        static_cast<void>(c.sub(*it, at));
    }
}
inline void definitions(const keyword_context& c, const nlohmann::json& v) { definitions_named(c, "definitions", v); }
inline void defs(const keyword_context& c, const nlohmann::json& v) { definitions_named(c, "$defs", v); }

inline void string_valued(const keyword_context& c, std::string_view k, const nlohmann::json& v) {
    if (!v.is_string()) {
        c.fail(k, "\"" + std::string(k) + "\" must be a string");
    }
}
inline void id(const keyword_context& c, const nlohmann::json& v) { string_valued(c, "$id", v); }
inline void draft04_id(const keyword_context& c, const nlohmann::json& v) { string_valued(c, "id", v); }
inline void anchor(const keyword_context& c, const nlohmann::json& v) { string_valued(c, "$anchor", v); }
inline void dynamic_anchor(const keyword_context& c, const nlohmann::json& v) { string_valued(c, "$dynamicAnchor", v); }
inline void recursive_anchor(const keyword_context& c, const nlohmann::json& v) {
    if (!v.is_boolean()) {
        c.fail("$recursiveAnchor", "\"$recursiveAnchor\" must be a boolean");
    }
}
inline void vocabulary(const keyword_context& c, const nlohmann::json& v) {
    if (!v.is_object()) {
        c.fail("$vocabulary", "\"$vocabulary\" must be an object");
    }
}
/// `$schema` is read by the compiler before any keyword (compiler.hpp: dialect_of).
inline void declared_schema(const keyword_context& /*c*/, const nlohmann::json& /*v*/) {}
/// `$ref`, `$dynamicRef` and `$recursiveRef` are resolved by the compiler (compile_refs).
inline void reference(const keyword_context& /*c*/, const nlohmann::json& /*v*/) {}

/// A keyword of 2019-09 or 2020-12 in an earlier dialect, which ignores it: validating on would
/// accept what the author meant to refuse.
inline void later_draft(const keyword_context& c, std::string_view keyword) {
    c.fail(keyword, "\"" + std::string(keyword) + "\" is a keyword of JSON Schema 2019-09/2020-12 that " +
                        std::string(to_string(c.dialect)) +
                        " ignores: the schema would accept what it was written to refuse (declare "
                        "\"$schema\": \"https://json-schema.org/draft/2020-12/schema\", or rewrite it in " +
                        std::string(to_string(c.dialect)) + " terms)");
}

} // namespace keywords

using keyword_function = void (*)(const keyword_context&, const nlohmann::json&);

struct keyword_entry {
    std::string_view name;
    keyword_function compile;
    std::uint8_t dialects;    // dialect_bit: where the keyword applies
    std::uint8_t vocabulary;  // vocabulary_bit (2019-09 on)
    std::uint8_t refused = 0; // dialect_bit: where it is a schema_error (a later-draft keyword)
};

inline constexpr std::uint8_t app = vocab_applicator;
inline constexpr std::uint8_t val = vocab_validation;

/// Every keyword that constrains or holds schemas, in the dialects that define it (core and
/// validation specifications of each, https://json-schema.org/specification-links).
inline constexpr keyword_entry keyword_list[] = {
    {"$anchor", keywords::anchor, from_2019_09, vocab_core, up_to_draft07},
    {"$defs", keywords::defs, from_2019_09, vocab_core, 0},
    {"$dynamicAnchor", keywords::dynamic_anchor, in_2020_12, vocab_core, up_to_draft07},
    {"$dynamicRef", keywords::reference, in_2020_12, vocab_core, up_to_draft07},
    {"$id", keywords::id, from_draft06, vocab_core},
    {"$recursiveAnchor", keywords::recursive_anchor, in_2019_09, vocab_core, up_to_draft07},
    {"$recursiveRef", keywords::reference, in_2019_09, vocab_core, up_to_draft07},
    {"$ref", keywords::reference, in_all_dialects, vocab_core},
    {"$schema", keywords::declared_schema, in_all_dialects, vocab_core},
    {"$vocabulary", keywords::vocabulary, from_2019_09, vocab_core},
    {"additionalItems", keywords::additional_items, up_to_2019_09, app},
    {"additionalProperties", keywords::additional_properties, in_all_dialects, app},
    {"allOf", keywords::all_of, in_all_dialects, app},
    {"anyOf", keywords::any_of, in_all_dialects, app},
    {"const", keywords::const_value, from_draft06, val},
    {"contains", keywords::contains, from_draft06, app},
    {"definitions", keywords::definitions, in_all_dialects, vocab_core},
    // Split into dependentRequired/dependentSchemas in 2019-09, but kept by the 2019-09 and 2020-12
    // metaschemas "to prevent incompatible extensions": applied in every dialect, never ignored.
    {"dependencies", keywords::dependencies, in_all_dialects, app},
    {"dependentRequired", keywords::dependent_required, from_2019_09, val, up_to_draft07},
    {"dependentSchemas", keywords::dependent_schemas, from_2019_09, app, up_to_draft07},
    {"else", keywords::else_schema, from_draft07, app},
    {"enum", keywords::enum_values, in_all_dialects, val},
    {"exclusiveMaximum", keywords::exclusive_maximum, in_all_dialects, val},
    {"exclusiveMinimum", keywords::exclusive_minimum, in_all_dialects, val},
    {"format", keywords::format, in_all_dialects, vocab_format_annotation | vocab_format_assertion},
    {"id", keywords::draft04_id, in_draft04, vocab_core},
    {"if", keywords::if_schema, from_draft07, app},
    {"items", keywords::items, in_all_dialects, app},
    {"maxContains", keywords::max_contains, from_2019_09, val, up_to_draft07},
    {"maxItems", keywords::max_items, in_all_dialects, val},
    {"maxLength", keywords::max_length, in_all_dialects, val},
    {"maxProperties", keywords::max_properties, in_all_dialects, val},
    {"maximum", keywords::maximum, in_all_dialects, val},
    {"minContains", keywords::min_contains, from_2019_09, val, up_to_draft07},
    {"minItems", keywords::min_items, in_all_dialects, val},
    {"minLength", keywords::min_length, in_all_dialects, val},
    {"minProperties", keywords::min_properties, in_all_dialects, val},
    {"minimum", keywords::minimum, in_all_dialects, val},
    {"multipleOf", keywords::multiple_of, in_all_dialects, val},
    {"not", keywords::not_schema, in_all_dialects, app},
    {"oneOf", keywords::one_of, in_all_dialects, app},
    {"pattern", keywords::pattern, in_all_dialects, val},
    {"patternProperties", keywords::pattern_properties, in_all_dialects, app},
    {"prefixItems", keywords::prefix_items, in_2020_12, app, up_to_draft07},
    {"properties", keywords::properties, in_all_dialects, app},
    {"propertyNames", keywords::property_names, from_draft06, app},
    {"required", keywords::required, in_all_dialects, val},
    {"then", keywords::then_schema, from_draft07, app},
    {"type", keywords::type, in_all_dialects, val},
    {"unevaluatedItems", keywords::unevaluated_items, from_2019_09, vocab_unevaluated, up_to_draft07},
    {"unevaluatedProperties", keywords::unevaluated_properties, from_2019_09, vocab_unevaluated, up_to_draft07},
    {"uniqueItems", keywords::unique_items, in_all_dialects, val},
};

[[nodiscard]] inline const keyword_entry* find_keyword(std::string_view name) {
    for (const keyword_entry& k : keyword_list) { // 52 entries, short names: a scan is enough
        if (k.name == name) {
            return &k;
        }
    }
    return nullptr;
}

/// Whether `name` is a keyword that constrains or holds schemas in `dialect` (in some dialect
/// when it is unknown); vocabularies aside.
[[nodiscard]] inline bool keyword_in_dialect(std::string_view name, std::optional<schema_dialect> dialect) {
    const keyword_entry* entry = find_keyword(name);
    return entry != nullptr && (!dialect || (entry->dialects & bit_of(*dialect)) != 0);
}

/// Runs the entry in the schema's dialect and vocabularies: a later-draft keyword of an earlier
/// dialect fails; a keyword of another dialect or of a vocabulary not in use is an annotation.
inline void compile_keyword(const keyword_entry& k, const keyword_context& c, const nlohmann::json& v) {
    const std::uint8_t d = bit_of(c.dialect);
    if ((k.refused & d) != 0) {
        keywords::later_draft(c, k.name);
    }
    if ((k.dialects & d) == 0 || ((d & from_2019_09) != 0 && (k.vocabulary & c.vocabularies) == 0)) {
        return;
    }
    k.compile(c, v);
}

} // namespace handoff::detail
