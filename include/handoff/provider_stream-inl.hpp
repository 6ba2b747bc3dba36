// SPDX-License-Identifier: MIT
#pragma once

// provider_stream's definitions: inline in every file header-only, compiled once in
// <handoff/src.hpp> otherwise (config.hpp).

#include <handoff/decode.hpp>
#include <handoff/detail/json/depth.hpp>
#include <handoff/detail/provider/stop_words.hpp>
#include <handoff/detail/text.hpp>
#include <handoff/provider_stream.hpp>

#include <nlohmann/json.hpp>

#include <cstddef>          // size_t
#include <initializer_list> // initializer_list
#include <optional>         // optional
#include <string>           // string, to_string
#include <string_view>      // string_view
#include <utility>          // move
#include <vector>           // vector

namespace handoff {

namespace detail::stream {

/// The string at `path` (object keys), or nullptr.
[[nodiscard]] HANDOFF_INLINE const std::string* string_path(const nlohmann::json& v,
                                                            std::initializer_list<std::string_view> path) {
    const nlohmann::json* at = &v;
    for (const std::string_view step : path) {
        const auto it = at->is_object() ? at->find(step) : at->end();
        if (it == at->end()) {
            return nullptr;
        }
        at = &*it;
    }
    return at->is_string() ? at->get_ptr<const std::string*>() : nullptr;
}

/// The largest SSE line, and event data, kept: an event past it is one no provider sends.
inline constexpr std::size_t max_sse_line = std::size_t{4} * 1024 * 1024;

} // namespace detail::stream

HANDOFF_INLINE provider_stream::provider_stream(provider source)
    : source_(source), lines_(detail::stream::max_sse_line) {}

HANDOFF_INLINE std::string provider_stream::push(std::string_view bytes) {
    std::vector<detail::stream::sse_event> events;
    lines_.push(bytes, events);
    std::string text;
    for (const detail::stream::sse_event& e : events) {
        text += read(e);
    }
    return text;
}

HANDOFF_INLINE std::string provider_stream::finish() {
    std::vector<detail::stream::sse_event> events;
    lines_.finish(events);
    std::string text;
    for (const detail::stream::sse_event& e : events) {
        text += read(e);
    }
    text += halves_.finish();
    note_lost_half();
    return text;
}

HANDOFF_INLINE void provider_stream::note_lost_half() {
    if (halves_.lost_a_half()) {
        set_problem("an event held half of a UTF-16 surrogate pair that the next did not complete: U+FFFD stands "
                    "for it in the reply");
    }
}

HANDOFF_INLINE void provider_stream::set_problem(const std::string& why) {
    // Each message is a fixed sentence or an escaped, capped quote: a few of them at most.
    constexpr std::size_t max_problem_bytes = 4096;
    if (problem_.find(why) != std::string::npos || problem_.size() + why.size() > max_problem_bytes) {
        return;
    }
    problem_ += (problem_.empty() ? "" : "; ") + why;
}

HANDOFF_INLINE void provider_stream::provider_error(const std::string* message) {
    set_problem("the provider sent an error" + // the provider's text, escaped and capped
                (message != nullptr ? ": " + detail::escape_untrusted(*message, 200) : std::string()));
}

HANDOFF_INLINE std::optional<nlohmann::json> provider_stream::payload_of(const detail::stream::sse_event& event,
                                                                         std::optional<std::string>& mended) {
    std::optional<nlohmann::json> payload;
    if (event.name == "error") {
        payload = detail::parse_document(event.data);
        if (!payload) { // an error all the same, whatever its data
            provider_error(event.data.empty() ? nullptr : &event.data);
            return std::nullopt;
        }
    }
    if (event.data.empty()) {
        return std::nullopt; // a bare "data:" line: an event with empty data, which says nothing
    }
    if (event.cut) {
        set_problem("an event's data is longer than " + std::to_string(detail::stream::max_sse_line) +
                    " bytes: it is left out");
        return std::nullopt;
    }
    if (!payload) {
        payload = detail::parse_document(event.data);
        mended = payload ? std::nullopt : detail::stream::with_stand_ins(event.data);
        if (mended) {
            payload = detail::parse_document(*mended); // a character's halves split across events
        }
    }
    if (!payload || !payload->is_object()) {
        set_problem("an event's data is not a JSON object");
        return std::nullopt;
    }
    if (detail::nests_deeper_than(*payload, detail::max_recursed_depth)) { // its parts are copied and written out
        set_problem("an event's data nests deeper than " + std::to_string(detail::max_recursed_depth) + " levels");
        return std::nullopt;
    }
    // An error's message is under "error" (OpenAI Chat, Anthropic, Gemini) or the event's own
    // (an event named "error": OpenAI Responses, llama-server's "error:" line).
    const std::string* message = detail::stream::string_path(*payload, {"error", "message"});
    if (message == nullptr && event.name == "error") {
        message = detail::stream::string_path(*payload, {"message"});
    }
    if (message != nullptr || event.name == "error") {
        provider_error(message);
        return std::nullopt;
    }
    return payload;
}

HANDOFF_INLINE void provider_stream::read_payload(const nlohmann::json& payload, std::string& text) {
    const bool chat = payload.contains("choices");
    switch (source_) {
    case provider::openai:
        if (chat) {
            read_openai_chat(payload, text);
        } else {
            read_openai_responses(payload, text);
        }
        break;
    case provider::anthropic: read_anthropic(payload, text); break;
    case provider::gemini:
    case provider::gemini_openapi: read_gemini(payload, text); break;
    case provider::llama_cpp:
        if (chat) {
            read_openai_chat(payload, text);
        } else {
            read_llama_cpp(payload, text);
        }
        break;
    case provider::json_schema: set_problem("json_schema names no provider stream"); break;
    }
}

HANDOFF_INLINE std::string provider_stream::read(const detail::stream::sse_event& event) {
    std::string text;
    if (done_ || event.data == "[DONE]") {
        done_ = true; // OpenAI Chat Completions' last event: nothing after it is the reply's
        return text;
    }
    std::optional<std::string> mended;
    const std::optional<nlohmann::json> payload = payload_of(event, mended);
    if (!payload) {
        return text;
    }
    const std::string stop_before = mended ? stop_reason_ : std::string();
    read_payload(*payload, text);
    if (mended && stop_reason_ != stop_before) {
        // A stop word is a string of its own: a lone half in it reads as U+FFFD, as in the text.
        detail::stream::surrogate_joiner word;
        stop_reason_ = word.join(stop_reason_, true) + word.finish();
    }
    if (!mended && !halves_.waiting()) {
        return text;
    }
    std::string joined = halves_.join(text, mended.has_value());
    note_lost_half();
    return joined;
}

HANDOFF_INLINE bool provider_stream::first_call(const nlohmann::json& key, bool whole) {
    if (!tool_) {
        tool_ = true;
        tool_block_ = key;
        return true;
    }
    if (!whole && tool_block_ == key) {
        return true; // the same call, continued
    }
    set_problem("the model called more than one tool: only the first call's arguments are read");
    return false;
}

// https://platform.openai.com/docs/api-reference/chat-streaming/streaming (choices[].delta). A
// request with n > 1 streams its choices interleaved, each chunk's choice naming its index, and
// parallel tool calls are told apart by tool_calls[].index: the reply is the first choice read and
// its first call (detail/stream/item_lock.hpp); the others are left out, with a problem().
HANDOFF_INLINE void provider_stream::read_openai_chat(const nlohmann::json& chunk, std::string& text) {
    using detail::stream::string_path;
    bool other_choices = false;
    bool other_calls = false;
    const auto choices = chunk.find("choices");
    const nlohmann::json* choice =
        choices == chunk.end() ? nullptr : detail::stream::locked_item(*choices, choice_, other_choices);
    if (choice != nullptr) {
        if (const std::string* content = string_path(*choice, {"delta", "content"})) {
            text += *content;
        }
        const nlohmann::json* call = nullptr;
        if (const auto delta = choice->find("delta"); delta != choice->end() && delta->is_object()) {
            if (const auto calls = delta->find("tool_calls"); calls != delta->end()) {
                call = detail::stream::locked_item(*calls, tool_call_, other_calls);
            }
        }
        if (const std::string* args = call ? string_path(*call, {"function", "arguments"}) : nullptr) {
            text += *args;
            tool_ = true;
        }
        if (string_path(*choice, {"delta", "refusal"}) != nullptr) {
            stop_ = stop_class::refused;
        }
        if (const std::string* word = string_path(*choice, {"finish_reason"})) {
            stop_reason_ = *word;
            // A refusal is a refusal whatever finish_reason says after it ("stop").
            stop_ = stop_ == stop_class::refused ? stop_ : detail::classify(detail::openai_finish_reasons, *word);
        }
    }
    if (other_choices) {
        set_problem("the stream holds more than one choice (n > 1): only the first is read");
    }
    if (other_calls) {
        set_problem("the model called more than one tool at once: only the first call's arguments are read");
    }
}

// https://platform.openai.com/docs/api-reference/responses-streaming
HANDOFF_INLINE void provider_stream::read_openai_responses(const nlohmann::json& event, std::string& text) {
    using detail::stream::string_path;
    const std::string* type = string_path(event, {"type"});
    const std::string* delta = string_path(event, {"delta"});
    if (type == nullptr) {
        set_problem("an OpenAI event without a type");
        return;
    }
    if (*type == "response.output_text.delta" && delta) {
        if (!tool_) { // text after a function call is left out, as the whole response's reader leaves it
            text += *delta;
        }
    } else if (*type == "response.function_call_arguments.delta" && delta) {
        // The call's output_index, or its item_id where a server sends no index.
        if (first_call(event.value("output_index", event.value("item_id", nlohmann::json())))) {
            text += *delta;
        }
    } else if (*type == "error") {
        // https://platform.openai.com/docs/api-reference/responses-streaming/error: its
        // message is the event's own, not under "error".
        provider_error(string_path(event, {"message"}));
    } else if (*type == "response.refusal.delta") {
        stop_ = stop_class::refused;
        stop_reason_ = "refusal";
    } else if (*type == "response.completed" && stop_ != stop_class::refused) {
        stop_ = tool_ ? stop_class::tool_call : stop_class::complete;
        stop_reason_ = "completed";
    } else if (*type == "response.incomplete") {
        const std::string* reason = string_path(event, {"response", "incomplete_details", "reason"});
        stop_reason_ = reason != nullptr ? *reason : "incomplete";
        stop_ = reason != nullptr ? detail::classify(detail::openai_incomplete_reasons, *reason) : stop_class::other;
    } else if (*type == "response.failed") {
        const std::string* message = string_path(event, {"response", "error", "message"});
        set_problem("the response failed" + (message != nullptr ? ": " + *message : std::string()));
    }
}

// https://docs.anthropic.com/en/docs/build-with-claude/streaming
HANDOFF_INLINE void provider_stream::read_anthropic(const nlohmann::json& event, std::string& text) {
    using detail::stream::string_path;
    const std::string* type = string_path(event, {"type"});
    if (type == nullptr) {
        set_problem("an Anthropic event without a type");
        return;
    }
    const nlohmann::json index = event.value("index", nlohmann::json());
    if (*type == "content_block_start") {
        // A server tool's call (server_tool_use: web search, code execution) is the provider's
        // own work, not the reply; only a tool_use block's input is.
        const std::string* block = string_path(event, {"content_block", "type"});
        if (block != nullptr && *block == "tool_use") {
            static_cast<void>(first_call(index));
        }
    } else if (*type == "content_block_delta") {
        const std::string* kind = string_path(event, {"delta", "type"});
        if (kind != nullptr && *kind == "text_delta" && string_path(event, {"delta", "text"})) {
            if (!tool_) { // text after the tool call is left out, as the whole message's reader leaves it
                text += *string_path(event, {"delta", "text"});
            }
        } else if (kind != nullptr && *kind == "input_json_delta" && string_path(event, {"delta", "partial_json"}) &&
                   tool_ && tool_block_ == index) {
            text += *string_path(event, {"delta", "partial_json"});
        } // thinking_delta and signature_delta carry no reply text
    } else if (*type == "message_delta") {
        if (const std::string* word = string_path(event, {"delta", "stop_reason"})) {
            stop_reason_ = *word;
            stop_ = detail::classify(detail::anthropic_stop_words, *word);
        }
    }
}

// https://ai.google.dev/api/generate-content#method:-models.streamgeneratecontent
HANDOFF_INLINE void provider_stream::read_gemini(const nlohmann::json& chunk, std::string& text) {
    using detail::stream::string_path;
    if (const std::string* block = string_path(chunk, {"promptFeedback", "blockReason"})) {
        stop_reason_ = *block;
        stop_ = stop_class::refused;
        return;
    }
    const auto candidates = chunk.find("candidates");
    if (candidates == chunk.end() || !candidates->is_array() || candidates->empty()) {
        return; // a chunk of usage metadata only
    }
    const nlohmann::json& candidate = (*candidates)[0];
    const nlohmann::json content = candidate.value("content", nlohmann::json::object());
    const auto parts = content.is_object() ? content.find("parts") : content.end();
    if (parts != content.end() && parts->is_array()) {
        for (const nlohmann::json& part : *parts) {
            if (!part.is_object() || (part.contains("thought") && part["thought"] == true)) {
                continue; // a thought summary is not the answer
            }
            if (const auto call = part.find("functionCall"); call != part.end() && call->is_object()) {
                // Gemini streams each call whole, in one part: the first one read is the reply.
                if (first_call(nlohmann::json(), true)) {
                    text += detail::arguments_text(call->value("args", nlohmann::json::object()));
                }
            } else if (const std::string* t = string_path(part, {"text"}); t != nullptr && !tool_) {
                text += *t;
            }
        }
    }
    if (const std::string* word = string_path(candidate, {"finishReason"})) {
        stop_reason_ = *word;
        stop_ = detail::classify(detail::gemini_finish_reasons, *word);
        stop_ = tool_ && stop_ == stop_class::complete ? stop_class::tool_call : stop_;
    }
}

// https://github.com/ggml-org/llama.cpp/blob/master/tools/server/README.md (POST /completion,
// "stream": true: each event a partial result; the last one has "stop": true)
HANDOFF_INLINE void provider_stream::read_llama_cpp(const nlohmann::json& chunk, std::string& text) {
    using detail::stream::string_path;
    if (const std::string* content = string_path(chunk, {"content"})) {
        text += *content;
    }
    if (!(chunk.contains("stop") && chunk["stop"] == true)) {
        return;
    }
    if (const std::string* type = string_path(chunk, {"stop_type"})) {
        stop_reason_ = *type;
    } else {
        const auto flag = [&](const char* key) { return chunk.contains(key) && chunk[key] == true; };
        stop_reason_ = flag("stopped_limit")  ? "limit"
                       : flag("stopped_eos")  ? "eos"
                       : flag("stopped_word") ? "word"
                                              : "";
    }
    stop_ = detail::classify(detail::llama_cpp_stop_types, stop_reason_);
}

} // namespace handoff
