// SPDX-License-Identifier: MIT
#pragma once

// Why a provider's reply ended, in five classes that every provider's stop words map onto
// (provider_reply.hpp reads them), and the reply as read. The class is what the caller acts on:
// `truncated` is never retried on the same budget, `refused` is the provider's decision that no
// repair prompt changes, `tool_call` means the text is a tool's arguments.

#include <handoff/enum_names.hpp>

#include <array>       // array
#include <cstddef>     // size_t
#include <cstdint>     // uint8_t
#include <string>      // string
#include <string_view> // string_view

namespace handoff {

enum class stop_class : std::uint8_t {
    /// The model finished on its own (or at a stop sequence).
    complete,
    /// Cut off at the output limit (or the context window): the text is incomplete.
    truncated,
    /// The provider or the model declined: refusal, content filter, safety, recitation.
    refused,
    /// The model stopped to call a tool; `text` holds the tool's arguments (JSON).
    tool_call,
    /// Anything else, including a stop word no provider's list names and a reply still in progress.
    other,
};
inline constexpr std::size_t stop_class_count = 5;
template <>
struct enum_names<stop_class> {
    static constexpr std::array<std::string_view, stop_class_count> names{"complete", "truncated", "refused",
                                                                          "tool_call", "other"};
};

[[nodiscard]] constexpr bool is_truncation(stop_class s) noexcept { return s == stop_class::truncated; }
[[nodiscard]] constexpr bool is_refusal(stop_class s) noexcept { return s == stop_class::refused; }

/// Which response shape a body was read as.
enum class reply_format : std::uint8_t {
    anthropic_messages,   // POST /v1/messages
    openai_chat,          // POST /v1/chat/completions (also llama-server's OpenAI-compatible form)
    openai_responses,     // POST /v1/responses
    gemini,               // models/*:generateContent
    llama_cpp_completion, // llama-server POST /completion
    unknown,
};
inline constexpr std::size_t reply_format_count = 6;
template <>
struct enum_names<reply_format> {
    static constexpr std::array<std::string_view, reply_format_count> names{
        "anthropic_messages", "openai_chat", "openai_responses", "gemini", "llama_cpp_completion", "unknown"};
};

struct [[nodiscard]] provider_reply {
    reply_format format = reply_format::unknown;
    stop_class stop = stop_class::other;
    /// The model's text (text parts joined in order), or a tool call's arguments as JSON.
    std::string text;
    /// The provider's own stop word, verbatim ("max_tokens", "length", "MAX_TOKENS", ...).
    std::string stop_reason;
    /// The refusal message, when the provider sent one apart from the text.
    std::string refusal;
    /// Why the body could not be read (format unknown), or what was missing from it.
    std::string problem;

    [[nodiscard]] bool recognised() const noexcept { return format != reply_format::unknown; }
};

} // namespace handoff
