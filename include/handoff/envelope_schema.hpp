// SPDX-License-Identifier: MIT
#pragma once

// schemas/envelope.schema.json, available at run time without finding a file: for the worker
// prompt (worker_prompt.hpp) and for users who hand the schema to a provider's JSON mode.

#include <handoff/detail/envelope_schema_text.hpp>

#include <nlohmann/json.hpp>

#include <string_view> // string_view

namespace handoff {

/// The envelope schema exactly as shipped in schemas/envelope.schema.json (embedded at build
/// time; a test keeps the two identical, byte for byte).
[[nodiscard]] constexpr std::string_view envelope_schema_text() noexcept { return detail::envelope_schema_text; }

/// The envelope schema, parsed once. Its "$id" ("urn:handoff:schema:envelope:MAJOR.MINOR")
/// carries HANDOFF_VERSION_MAJOR and _MINOR.
[[nodiscard]] inline const nlohmann::json& envelope_schema() {
    // The text is a compile-time constant that the tests parse: it cannot be invalid here.
    static const nlohmann::json document = nlohmann::json::parse(detail::envelope_schema_text, nullptr, false);
    return document;
}

} // namespace handoff
