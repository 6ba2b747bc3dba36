// SPDX-License-Identifier: MIT
#pragma once

#include <handoff/detail/json/depth.hpp>
#include <handoff/schema_error.hpp>

#include <cstddef> // size_t
#include <string>  // string, to_string

namespace handoff::detail {

/// Subschemas nest at most this deep below the root, or below a `$ref` target compiled on its
/// own; deeper is a schema_error, never a stack overflow. A chain of `$ref`s does not count.
inline constexpr int max_schema_depth = 512;

/// JSON levels a schema document may nest: a subschema level is at most two of them (a keyword's
/// object or array, then the schema in it). Copying or converting a JSON value recurses once per
/// level, so a document past this is refused (or, where nothing may throw, set aside) before any
/// copy or walk, whatever the stack.
inline constexpr std::size_t max_schema_json_levels = 2 * static_cast<std::size_t>(max_schema_depth);

/// Whether `schema` nests past max_schema_json_levels, found without recursion.
template <class Json>
[[nodiscard]] bool schema_nests_too_deep(const Json& schema) {
    return nests_deeper_than(schema, max_schema_json_levels);
}

/// What a schema past max_schema_json_levels is told.
[[nodiscard]] inline std::string schema_too_deep_message() {
    return "the schema nests deeper than " + std::to_string(max_schema_depth) + " levels (it is more than " +
           std::to_string(max_schema_json_levels) + " JSON levels deep)";
}

/// Throws the schema_error compiling throws for a task schema past max_schema_json_levels: the
/// compiler, and every reader that refuses what it refuses before copying the schema, call this.
template <class Json>
void refuse_too_deep_schema(const Json& schema) {
    if (schema_nests_too_deep(schema)) {
        throw schema_error("", schema_too_deep_message());
    }
}

} // namespace handoff::detail
