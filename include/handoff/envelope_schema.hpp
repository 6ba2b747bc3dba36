// SPDX-License-Identifier: MIT
#pragma once

// schemas/envelope.schema.json, available at run time without finding a file: for the worker
// prompt (worker_prompt.hpp) and for users who hand the schema to a provider's JSON mode.

#include <handoff/config.hpp>
#include <handoff/detail/envelope/schema_text.hpp>

#include <nlohmann/json.hpp>

#include <string_view> // string_view

namespace handoff {

/// The envelope schema exactly as shipped in schemas/envelope.schema.json (embedded at build
/// time; a test keeps the two identical, byte for byte).
[[nodiscard]] constexpr std::string_view envelope_schema_text() noexcept { return detail::envelope_schema_text; }

/// The envelope schema, parsed once. Its "$id" ("urn:handoff:schema:envelope:MAJOR.MINOR")
/// carries HANDOFF_VERSION_MAJOR and _MINOR.
[[nodiscard]] const nlohmann::json& envelope_schema();

} // namespace handoff

#if !defined(HANDOFF_COMPILED_LIB)
#include <handoff/envelope_schema-inl.hpp>
#endif
