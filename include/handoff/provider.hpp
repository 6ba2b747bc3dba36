// SPDX-License-Identifier: MIT
#pragma once

// The model providers handoff can write a constrained-decoding schema for (provider_schema.hpp)
// and read a reply from (provider_reply.hpp). `json_schema` is no provider: it stands for "the
// merged draft-07 schema as it is", for any tool that reads JSON Schema itself. `gemini` is
// Gemini's generationConfig.responseJsonSchema; `gemini_openapi` its older responseSchema, an
// OpenAPI 3.0 subset (https://ai.google.dev/api/caching#Schema).

#include <array>       // array
#include <cstddef>     // size_t
#include <cstdint>     // uint8_t
#include <optional>    // optional
#include <string_view> // string_view

namespace handoff {

enum class provider : std::uint8_t { openai, anthropic, gemini, llama_cpp, json_schema, gemini_openapi };
inline constexpr std::size_t provider_count = 6;

// A switch without `default:` so that -Werror=switch breaks the build until a new provider is
// named here.
[[nodiscard]] constexpr std::string_view to_string(provider p) noexcept {
    switch (p) {
    case provider::openai: return "openai";
    case provider::anthropic: return "anthropic";
    case provider::gemini: return "gemini";
    case provider::llama_cpp: return "llama_cpp";
    case provider::json_schema: return "json_schema";
    case provider::gemini_openapi: return "gemini_openapi";
    }
    return "?";
}

inline constexpr std::array<provider, provider_count> all_providers{provider::openai,      provider::anthropic,
                                                                    provider::gemini,      provider::llama_cpp,
                                                                    provider::json_schema, provider::gemini_openapi};

/// The provider spelled exactly as to_string spells it; "llama.cpp" is accepted too, because
/// that is how the project spells itself. Anything else is nullopt.
[[nodiscard]] constexpr std::optional<provider> provider_from_string(std::string_view name) noexcept {
    for (const provider p : all_providers) {
        if (to_string(p) == name) {
            return p;
        }
    }
    if (name == "llama.cpp") {
        return provider::llama_cpp;
    }
    return std::nullopt;
}

} // namespace handoff
