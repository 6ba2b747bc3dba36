// SPDX-License-Identifier: MIT
#pragma once

// The stop words and JSON accessors behind provider_reply.hpp. Each provider's list cites the
// API reference its words come from; a word no list names maps to stop_class::other, so a value
// a provider adds later is never mistaken for a clean finish.

#include <handoff/stop_class.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>   // find
#include <array>       // array
#include <cstddef>     // size_t
#include <string>      // string
#include <string_view> // string_view
#include <vector>      // vector

namespace handoff::detail {

struct stop_word {
    std::string_view word;
    stop_class stop;
};

// https://platform.claude.com/docs/en/api/handling-stop-reasons
inline constexpr std::array<stop_word, 7> anthropic_stop_words{{
    {"end_turn", stop_class::complete},
    {"stop_sequence", stop_class::complete},
    {"max_tokens", stop_class::truncated},
    {"model_context_window_exceeded", stop_class::truncated},
    {"refusal", stop_class::refused},
    {"tool_use", stop_class::tool_call},
    {"pause_turn", stop_class::other},
}};

// https://platform.openai.com/docs/api-reference/chat/object (choices[].finish_reason); llama-server's
// OpenAI-compatible endpoint uses the same words.
inline constexpr std::array<stop_word, 5> openai_finish_reasons{{
    {"stop", stop_class::complete},
    {"length", stop_class::truncated},
    {"content_filter", stop_class::refused},
    {"tool_calls", stop_class::tool_call},
    {"function_call", stop_class::tool_call},
}};

// https://platform.openai.com/docs/api-reference/responses/object (incomplete_details.reason)
inline constexpr std::array<stop_word, 2> openai_incomplete_reasons{{
    {"max_output_tokens", stop_class::truncated},
    {"content_filter", stop_class::refused},
}};

// https://ai.google.dev/api/generate-content#FinishReason; the same enum in googleapis/python-genai
// google/genai/types.py (FinishReason), which adds Vertex AI's MODEL_ARMOR ("The model response
// was blocked by Model Armor", https://cloud.google.com/vertex-ai/docs/reference/rest/v1/Candidate).
// The image stops end a generation on the provider's decision (refused); UNEXPECTED_TOOL_CALL and
// TOO_MANY_TOOL_CALLS end it in a tool call rather than an answer (tool_call).
inline constexpr std::array<stop_word, 19> gemini_finish_reasons{{
    {"STOP", stop_class::complete},
    {"MAX_TOKENS", stop_class::truncated},
    {"SAFETY", stop_class::refused},
    {"RECITATION", stop_class::refused},
    {"BLOCKLIST", stop_class::refused},
    {"PROHIBITED_CONTENT", stop_class::refused},
    {"SPII", stop_class::refused},
    {"IMAGE_SAFETY", stop_class::refused},
    {"IMAGE_PROHIBITED_CONTENT", stop_class::refused},
    {"IMAGE_RECITATION", stop_class::refused},
    {"IMAGE_OTHER", stop_class::refused},
    {"NO_IMAGE", stop_class::refused},
    {"MODEL_ARMOR", stop_class::refused},
    {"UNEXPECTED_TOOL_CALL", stop_class::tool_call},
    {"TOO_MANY_TOOL_CALLS", stop_class::tool_call},
    {"LANGUAGE", stop_class::other},
    {"MALFORMED_FUNCTION_CALL", stop_class::other},
    {"OTHER", stop_class::other},
    {"FINISH_REASON_UNSPECIFIED", stop_class::other},
}};

// https://github.com/ggml-org/llama.cpp/blob/master/tools/server/README.md (POST /completion: stop_type)
inline constexpr std::array<stop_word, 4> llama_cpp_stop_types{{
    {"eos", stop_class::complete},
    {"word", stop_class::complete},
    {"limit", stop_class::truncated},
    {"none", stop_class::other},
}};

template <std::size_t N>
[[nodiscard]] constexpr stop_class classify(const std::array<stop_word, N>& words, std::string_view word) noexcept {
    for (const stop_word& row : words) {
        if (row.word == word) {
            return row.stop;
        }
    }
    return stop_class::other;
}

/// Every provider's words for one stop class, each once: the repair loop's defaults for
/// truncation and refusal, so a reply passed on with the provider's own stop word is classified
/// as the provider meant it.
[[nodiscard]] inline std::vector<std::string> stop_words_of(stop_class stop) {
    std::vector<std::string> out;
    const auto add = [&](const auto& words) {
        for (const stop_word& row : words) {
            if (row.stop == stop && std::find(out.begin(), out.end(), row.word) == out.end()) {
                out.emplace_back(row.word);
            }
        }
    };
    add(anthropic_stop_words);
    add(openai_finish_reasons);
    add(openai_incomplete_reasons);
    add(gemini_finish_reasons);
    add(llama_cpp_stop_types);
    return out;
}

/// The string at `key` of an object, or nullptr (absent, null, not a string, not an object).
[[nodiscard]] inline const std::string* string_at(const nlohmann::json& object, std::string_view key) {
    if (!object.is_object()) {
        return nullptr;
    }
    const auto it = object.find(key);
    return it != object.end() && it->is_string() ? &it->get_ref<const std::string&>() : nullptr;
}

/// The array at `key`, or nullptr.
[[nodiscard]] inline const nlohmann::json* array_at(const nlohmann::json& object, std::string_view key) {
    if (!object.is_object()) {
        return nullptr;
    }
    const auto it = object.find(key);
    return it != object.end() && it->is_array() ? &*it : nullptr;
}

/// A tool's arguments as text: a string is taken as it is (OpenAI sends JSON in a string), an
/// object is serialised (Anthropic's `input`, Gemini's `args`).
[[nodiscard]] inline std::string arguments_text(const nlohmann::json& arguments) {
    return arguments.is_string() ? arguments.get<std::string>() : arguments.dump();
}

} // namespace handoff::detail
