// SPDX-License-Identifier: MIT
#pragma once

// The model providers handoff can write a constrained-decoding schema for (provider_schema.hpp)
// and read a reply from (provider_reply.hpp). `json_schema` is no provider: it stands for "the
// merged draft-07 schema as it is", for any tool that reads JSON Schema itself. `gemini` is
// Gemini's generationConfig.responseJsonSchema; `gemini_openapi` its older responseSchema, an
// OpenAPI 3.0 subset (https://ai.google.dev/api/caching#Schema).

#include <handoff/enum_names.hpp>

#include <array>       // array
#include <cstddef>     // size_t
#include <cstdint>     // uint8_t
#include <optional>    // optional
#include <string_view> // string_view

namespace handoff {

enum class provider : std::uint8_t { openai, anthropic, gemini, llama_cpp, json_schema, gemini_openapi };
inline constexpr std::size_t provider_count = 6;
template <>
struct enum_names<provider> {
    static constexpr std::array<std::string_view, provider_count> names{"openai",    "anthropic",   "gemini",
                                                                        "llama_cpp", "json_schema", "gemini_openapi"};
};

inline constexpr std::array<provider, provider_count> all_providers = all_values<provider>();

/// The provider spelled exactly as to_string spells it; "llama.cpp" is accepted too, because
/// that is how the project spells itself. Anything else is nullopt.
[[nodiscard]] constexpr std::optional<provider> provider_from_string(std::string_view name) noexcept {
    if (const std::optional<provider> p = from_string<provider>(name)) {
        return p;
    }
    if (name == "llama.cpp") {
        return provider::llama_cpp;
    }
    return std::nullopt;
}

} // namespace handoff
