// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>     // size_t
#include <cstdint>     // uint8_t
#include <optional>    // optional
#include <string_view> // string_view

namespace handoff {

/// The JSON Schema dialects handoff validates, each with its own rules. A schema says which it
/// is written in with `$schema`; schema_options::dialect names the one for a schema that says
/// nothing.
enum class schema_dialect : std::uint8_t { draft04, draft06, draft07, draft2019_09, draft2020_12 };
inline constexpr std::size_t schema_dialect_count = 5;

/// The dialect's short name, as `--dialect` takes it: "draft-04" ... "2020-12".
[[nodiscard]] constexpr std::string_view to_string(schema_dialect d) noexcept {
    switch (d) {
    case schema_dialect::draft04: return "draft-04";
    case schema_dialect::draft06: return "draft-06";
    case schema_dialect::draft07: return "draft-07";
    case schema_dialect::draft2019_09: return "2019-09";
    case schema_dialect::draft2020_12: return "2020-12";
    }
    return "?";
}

/// The dialect a short name (to_string's) stands for, or nothing.
[[nodiscard]] constexpr std::optional<schema_dialect> schema_dialect_from_string(std::string_view name) noexcept {
    for (std::size_t i = 0; i < schema_dialect_count; ++i) {
        const auto d = static_cast<schema_dialect>(i);
        if (to_string(d) == name) {
            return d;
        }
    }
    return std::nullopt;
}

} // namespace handoff
