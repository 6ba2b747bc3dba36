// SPDX-License-Identifier: MIT
#pragma once

// One compiled schema object: every keyword already read, checked and turned into the form the
// validator walks (type bits, sorted properties, compiled regexes, exact decimals), and every
// subschema an index into the same vector of nodes, so `$ref`s (recursive ones included) are
// resolved once and cost an index at run time.

#include <handoff/detail/json/number.hpp>
#include <handoff/detail/regex/ecma_regex.hpp>
#include <handoff/detail/schema/format_check.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>     // int32_t, uint8_t, uint64_t
#include <limits>      // numeric_limits
#include <memory>      // shared_ptr
#include <optional>    // optional
#include <string>      // string
#include <string_view> // string_view
#include <vector>      // vector

namespace handoff::detail {

using node_index = std::int32_t;
inline constexpr node_index no_node = -1;

/// JSON Schema's types as bits; a value has one or two (an integral number is both "integer"
/// and "number").
enum type_bit : std::uint8_t {
    type_null = 1U,
    type_boolean = 2U,
    type_integer = 4U,
    type_number = 8U,
    type_string = 16U,
    type_array = 32U,
    type_object = 64U,
    type_any = 127U,
};

[[nodiscard]] inline std::uint8_t type_bits_of(const nlohmann::json& v) {
    switch (v.type()) {
    case nlohmann::json::value_t::null: return type_null;
    case nlohmann::json::value_t::boolean: return type_boolean;
    case nlohmann::json::value_t::number_integer:
    case nlohmann::json::value_t::number_unsigned: return type_integer | type_number;
    case nlohmann::json::value_t::number_float: return is_integral(v) ? type_integer | type_number : type_number;
    case nlohmann::json::value_t::string: return type_string;
    case nlohmann::json::value_t::array: return type_array;
    case nlohmann::json::value_t::object: return type_object;
    default: return 0;
    }
}

/// Whether a value of `v`'s type fits the type bits: a double fits "number" whatever its fraction,
/// so only a double against "integer" alone needs the fraction tested.
[[nodiscard]] inline bool type_allows(std::uint8_t types, const nlohmann::json& v) {
    if ((types & type_number) != 0 && v.is_number()) {
        return true;
    }
    return (types & type_bits_of(v)) != 0;
}

/// As std::string's compare, with the first bytes deciding most comparisons of keys inline.
[[nodiscard]] inline int compare_keys(std::string_view a, std::string_view b) noexcept {
    if (!a.empty() && !b.empty() && a[0] != b[0]) {
        return static_cast<unsigned char>(a[0]) < static_cast<unsigned char>(b[0]) ? -1 : 1;
    }
    return a.compare(b);
}

/// The order enum_strings are sorted in: by size, then compare_keys, so that most steps of a
/// lookup are decided without comparing bytes out of line.
[[nodiscard]] inline bool enum_order(std::string_view a, std::string_view b) noexcept {
    return a.size() != b.size() ? a.size() < b.size() : compare_keys(a, b) < 0;
}

/// The numbers a schema of `type` and numeric bounds alone admits: one interval, each end open
/// or closed.
struct number_interval {
    double low = -std::numeric_limits<double>::infinity();
    double high = std::numeric_limits<double>::infinity();
    bool low_open = false;
    bool high_open = false;
};

struct compiled_pattern {
    std::shared_ptr<const ecma_regex> regex;
    std::string where; // the schema pointer of the pattern, for messages
};

struct property_rule {
    std::string name;
    node_index schema = no_node; // no_node: only required, not in `properties`
    bool required = false;
};

struct pattern_property_rule {
    compiled_pattern pattern;
    node_index schema = no_node;
};

struct dependency_rule {
    std::string name;
    std::vector<std::string> required; // the array form
    node_index schema = no_node;       // the schema form
};

/// Which groups of keywords a node has, so the walk skips whole groups with one test.
enum node_group : std::uint8_t {
    group_values = 1U,       // enum, const
    group_number = 2U,       // bounds, multipleOf
    group_string = 4U,       // lengths, pattern, format
    group_array = 8U,        // items ... contains
    group_object = 16U,      // properties ... propertyNames
    group_logic = 32U,       // allOf, anyOf, oneOf, not, if, $ref beside others, $dynamicRef
    group_unevaluated = 64U, // unevaluatedItems, unevaluatedProperties
};

/// `$dynamicRef` (2020-12) and `$recursiveRef` (2019-09): a target known at compile time that
/// the dynamic scope may replace at run time.
enum class dynamic_kind : std::uint8_t { none, dynamic, recursive };

struct schema_node {
    std::string where;           // schema location, for messages
    std::optional<bool> boolean; // a boolean schema (true or false), nothing else set
    node_index ref = no_node;    // `$ref` up to draft-07: the only keyword that applies
    std::uint8_t groups = 0;
    std::int32_t resource = 0; // the schema resource (base URI) the node belongs to

    node_index applied_ref = no_node; // `$ref` from 2019-09 on: one applicator among the others
    dynamic_kind dynamic = dynamic_kind::none;
    node_index dynamic_target = no_node; // the target when the dynamic scope names none
    std::string dynamic_anchor;          // the `$dynamicAnchor` name searched for
    std::uint8_t types = type_any;

    std::vector<nlohmann::json> enum_values;
    std::vector<std::string> enum_strings; // the strings of enum_values in enum_order: looked up, not scanned
    bool has_enum = false;
    std::optional<nlohmann::json> const_value;

    std::optional<number_bound> minimum, maximum, exclusive_minimum, exclusive_maximum;
    std::optional<nlohmann::json> multiple_of;
    decimal multiple_of_decimal;

    std::uint64_t min_length = 0;
    std::uint64_t max_length = std::numeric_limits<std::uint64_t>::max();
    std::optional<compiled_pattern> pattern;
    format_kind format = format_kind::none;

    node_index items = no_node; // the single-schema form
    std::vector<node_index> tuple_items;
    bool items_is_tuple = false;
    node_index additional_items = no_node;
    std::uint64_t min_items = 0;
    std::uint64_t max_items = std::numeric_limits<std::uint64_t>::max();
    bool unique_items = false;
    node_index contains = no_node;
    std::uint64_t min_contains = 1;
    std::uint64_t max_contains = std::numeric_limits<std::uint64_t>::max();
    bool contains_evaluates = false; // 2020-12: items that fit `contains` count as evaluated

    std::vector<property_rule> properties; // sorted by name, as nlohmann's std::map is
    std::size_t required_count = 0;        // properties with required == true
    std::vector<pattern_property_rule> pattern_properties;
    node_index additional_properties = no_node;
    std::vector<dependency_rule> dependencies;
    node_index property_names = no_node;
    std::uint64_t min_properties = 0;
    std::uint64_t max_properties = std::numeric_limits<std::uint64_t>::max();

    // From 2019-09 on (core 2019-09, section 9.3.2): properties and items that no other keyword
    // of the schema or its in-place subschemas evaluated.
    node_index unevaluated_items = no_node;
    node_index unevaluated_properties = no_node;

    // A property the schema requires to be one string (`required` and a `const` under
    // `properties`, as each branch of a tagged union has): an object whose member is missing or
    // different cannot fit, and a yes/no walk turns it away without walking. Set after compiling.
    bool has_tag = false;
    std::string tag_name;
    std::string tag_value;

    // For a node whose only keywords are `type` and numeric bounds that all hold exact doubles:
    // the interval they leave. A number of its types inside it passes without a walk; any other
    // value is walked, which decides and explains. Set after compiling.
    std::optional<number_interval> interval;

    std::vector<node_index> all_of, any_of, one_of;
    node_index not_schema = no_node;
    node_index if_schema = no_node, then_schema = no_node, else_schema = no_node;
};

} // namespace handoff::detail
