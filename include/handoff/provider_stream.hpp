// SPDX-License-Identifier: MIT
#pragma once

// A provider's streaming response (server-sent events) turned into the reply's text, chunk by
// chunk, and the stop class the provider gave at the end (stop_class.hpp):
//
//   handoff::provider_stream events(handoff::provider::anthropic);
//   handoff::stream_check<> check(receiver);
//   while (read(socket, buffer)) {
//       check.push(events.push(buffer));
//       if (check.doomed()) { break; }
//   }
//   check.push(events.finish());
//   if (handoff::is_truncation(events.stop())) { /* check.salvage() */ }
//
// Read: OpenAI Chat Completions chunks (choices[0].delta) and Responses events
// (response.output_text.delta, response.completed / response.incomplete), Anthropic Messages
// (content_block_delta's text_delta and input_json_delta; message_delta's stop_reason), Gemini
// streamGenerateContent with alt=sse (text parts, thought parts skipped; finishReason), and
// llama-server's /completion stream (content; stop_type or the stopped_* flags). llama-server's
// OpenAI-compatible endpoint streams OpenAI chunks: `provider::llama_cpp` reads both.

#include <handoff/config.hpp>
#include <handoff/detail/stream/item_lock.hpp>
#include <handoff/detail/stream/split_surrogates.hpp>
#include <handoff/detail/stream/sse_reader.hpp>
#include <handoff/provider.hpp>
#include <handoff/stop_class.hpp>

#include <nlohmann/json.hpp>

#include <optional>    // optional
#include <string>      // string
#include <string_view> // string_view

namespace handoff {

class provider_stream {
public:
    /// Events of `source`'s streaming API. `provider::json_schema` names no stream: every
    /// event is then a problem.
    explicit provider_stream(provider source);

    /// The next bytes of the response body; returns the reply text the events they completed
    /// carried (often empty: an event may be split across reads). An event whose data nests
    /// more than 256 levels deep carries nothing and is a problem().
    [[nodiscard]] std::string push(std::string_view bytes);

    /// The end of the body: the text of a last event that had no blank line after it.
    [[nodiscard]] std::string finish();

    /// Why the reply stopped, once the provider said so; `other` until then (a stream that
    /// ended without a stop word was cut by the connection, not by the model).
    [[nodiscard]] stop_class stop() const noexcept { return stop_; }
    /// The provider's stop word verbatim ("max_tokens", "length", "MAX_TOKENS", ...).
    [[nodiscard]] const std::string& stop_reason() const noexcept { return stop_reason_; }
    /// What went wrong, each distinct problem once, in order, joined by "; ": an event that could
    /// not be read, an error event's message, other choices or tool calls left out; empty when
    /// none.
    [[nodiscard]] const std::string& problem() const noexcept { return problem_; }

private:
    std::string read(const detail::stream::sse_event& event);
    /// The JSON object `event` carries for the provider's reader, or nullopt for an event that
    /// carries none (empty, cut, not JSON, an error: the last three a problem()). `mended`: its
    /// data with a split surrogate half's stand-in, when only that reads.
    std::optional<nlohmann::json> payload_of(const detail::stream::sse_event& event,
                                             std::optional<std::string>& mended);
    /// The provider's reader for one event's object.
    void read_payload(const nlohmann::json& payload, std::string& text);
    /// A problem(): the provider sent an error, with its message when it has one.
    void provider_error(const std::string* message);
    void read_openai_chat(const nlohmann::json& chunk, std::string& text);
    void read_openai_responses(const nlohmann::json& event, std::string& text);
    void read_anthropic(const nlohmann::json& event, std::string& text);
    void read_gemini(const nlohmann::json& chunk, std::string& text);
    void read_llama_cpp(const nlohmann::json& chunk, std::string& text);
    void set_problem(const std::string& why);
    void note_lost_half();
    /// Whether the tool call named `key` (its block or output index) is the reply's: the first
    /// call read, and its later pieces; `whole`: a call streamed in one piece, never continued.
    /// Another call is left out, with a problem().
    bool first_call(const nlohmann::json& key, bool whole = false);

    provider source_;
    detail::stream::sse_reader lines_;
    detail::stream::surrogate_joiner halves_;
    stop_class stop_ = stop_class::other;
    std::string stop_reason_;
    std::string problem_;
    detail::stream::item_lock choice_;    // OpenAI chat: the choice read
    detail::stream::item_lock tool_call_; // and its tool call
    bool tool_ = false;
    nlohmann::json tool_block_; // the first tool call's key (Anthropic, Responses): first_call()
    bool done_ = false;         // "[DONE]" was read
};

} // namespace handoff

#if !defined(HANDOFF_COMPILED_LIB)
#include <handoff/provider_stream-inl.hpp>
#endif
