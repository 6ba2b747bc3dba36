// SPDX-License-Identifier: MIT
#pragma once

#include <handoff/enum_names.hpp>

#include <array>       // array
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
/// The dialects' short names, as `--dialect` takes them (to_string, from_string).
template <>
struct enum_names<schema_dialect> {
    static constexpr std::array<std::string_view, schema_dialect_count> names{"draft-04", "draft-06", "draft-07",
                                                                              "2019-09", "2020-12"};
};

/// The dialect a short name (to_string's) stands for, or nothing.
[[nodiscard]] constexpr std::optional<schema_dialect> schema_dialect_from_string(std::string_view name) noexcept {
    return from_string<schema_dialect>(name);
}

} // namespace handoff
