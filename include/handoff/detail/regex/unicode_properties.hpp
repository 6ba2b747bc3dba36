// SPDX-License-Identifier: MIT
#pragma once

// The code points a Unicode property escape `\p{...}` names, looked up in unicode_tables.hpp,
// which scripts/generate-unicode-tables.py generates from the Unicode Character Database.

#include <handoff/detail/regex/code_points.hpp>
#include <handoff/detail/regex/unicode_tables.hpp>

#include <algorithm>   // lower_bound
#include <cstddef>     // size_t
#include <cstdint>     // uint32_t
#include <iterator>    // begin, end
#include <string>      // string
#include <string_view> // string_view
#include <utility>     // move

namespace handoff::detail::regex_impl {

/// The code points of a property escape, or why the expression names none.
struct property_lookup {
    range_set code_points;
    std::string error; // empty when the expression names a property
};

/// The entry called `name` in a table sorted by name, or nullptr.
template <std::size_t N>
[[nodiscard]] const unicode_tables::property_entry* find_property(const unicode_tables::property_entry (&table)[N],
                                                                  std::string_view name) noexcept {
    const auto* it =
        std::lower_bound(std::begin(table), std::end(table), name,
                         [](const unicode_tables::property_entry& e, std::string_view n) { return e.name < n; });
    return it != std::end(table) && it->name == name ? it : nullptr;
}

[[nodiscard]] inline range_set property_code_points(const unicode_tables::property_entry& entry) {
    range_set out;
    out.reserve(entry.count);
    for (std::uint32_t k = 0; k < entry.count; ++k) {
        const std::size_t at = 2 * (std::size_t{entry.first} + k);
        out.push_back({unicode_tables::range_bounds[at], unicode_tables::range_bounds[at + 1]});
    }
    return out;
}

[[nodiscard]] inline property_lookup lookup_result(const unicode_tables::property_entry* entry, std::string error) {
    if (entry == nullptr) {
        return {{}, std::move(error)};
    }
    return {property_code_points(*entry), {}};
}

/// The code points of UnicodePropertyValueExpression `expression` (ECMA-262 22.2.2.9
/// CompileToCharSet, with 22.2.2.9.1 UnicodeMatchProperty and 22.2.2.9.2 UnicodeMatchPropertyValue;
/// https://tc39.es/ecma262/#sec-compiletocharset): `name=value` where name is General_Category,
/// Script or Script_Extensions, or an alias (gc, sc, scx; table "Non-binary Unicode property
/// aliases"), and value one of that property's values or aliases; or, alone, a General_Category
/// value or a binary property of the table "Binary Unicode property aliases". Names match exactly:
/// ECMA-262 applies none of Unicode's loose matching (no case folding, no dropped `_` or spaces).
[[nodiscard]] inline property_lookup unicode_property(std::string_view expression) {
    const std::size_t equals = expression.find('=');
    if (equals == std::string_view::npos) {
        if (const auto* gc = find_property(unicode_tables::general_category_values, expression)) {
            return lookup_result(gc, {});
        }
        return lookup_result(find_property(unicode_tables::binary_properties, expression),
                             "unknown Unicode property \"" + std::string(expression) + "\"");
    }
    const std::string_view name = expression.substr(0, equals);
    const std::string_view value = expression.substr(equals + 1);
    const std::string unknown_value =
        "unknown value \"" + std::string(value) + "\" of Unicode property \"" + std::string(name) + "\"";
    if (name == "General_Category" || name == "gc") {
        return lookup_result(find_property(unicode_tables::general_category_values, value), unknown_value);
    }
    if (name == "Script" || name == "sc") {
        return lookup_result(find_property(unicode_tables::script_values, value), unknown_value);
    }
    if (name == "Script_Extensions" || name == "scx") {
        return lookup_result(find_property(unicode_tables::script_extensions_values, value), unknown_value);
    }
    return {{},
            "unknown Unicode property \"" + std::string(name) +
                "\" (only General_Category, Script and "
                "Script_Extensions take a value)"};
}

} // namespace handoff::detail::regex_impl
