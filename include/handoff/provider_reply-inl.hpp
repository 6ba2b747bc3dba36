// SPDX-License-Identifier: MIT
#pragma once

// read_provider_reply()'s definitions: inline in every file header-only, compiled once in
// <handoff/src.hpp> otherwise (config.hpp).

#include <handoff/detail/json/depth.hpp>
#include <handoff/detail/provider/stop_words.hpp>
#include <handoff/provider_reply.hpp>
#include <handoff/stop_class.hpp>

#include <nlohmann/json.hpp>

#include <string>      // string, to_string
#include <string_view> // string_view
#include <utility>     // move

namespace handoff {

namespace detail {

// Anthropic Messages: content[] blocks; a tool_use block's input is the text (forced-tool
// structured output), otherwise the text blocks joined.
[[nodiscard]] HANDOFF_INLINE provider_reply read_anthropic(const nlohmann::json& body) {
    provider_reply reply;
    reply.format = reply_format::anthropic_messages;
    std::string joined;
    bool tool = false;
    for (const auto& block : *array_at(body, "content")) {
        const std::string* type = string_at(block, "type");
        if (type != nullptr && *type == "tool_use" && !tool && block.contains("input")) {
            reply.text = arguments_text(block["input"]);
            tool = true;
        } else if (const std::string* text = string_at(block, "text"); type != nullptr && *type == "text" && text) {
            joined += *text;
        }
    }
    if (!tool) {
        reply.text = std::move(joined);
    }
    if (const std::string* word = string_at(body, "stop_reason")) {
        reply.stop_reason = *word;
        reply.stop = classify(anthropic_stop_words, *word);
    }
    if (reply.stop == stop_class::refused) {
        reply.refusal = reply.text;
    }
    return reply;
}

// OpenAI Chat Completions (and llama-server's compatible form): choices[0].message.
[[nodiscard]] HANDOFF_INLINE provider_reply read_openai_chat(const nlohmann::json& body) {
    provider_reply reply;
    reply.format = reply_format::openai_chat;
    const nlohmann::json& choices = *array_at(body, "choices");
    if (choices.empty() || !choices[0].is_object()) {
        reply.problem = "choices is empty";
        return reply;
    }
    const nlohmann::json& choice = choices[0];
    const nlohmann::json message = choice.value("message", nlohmann::json::object());
    if (const std::string* content = string_at(message, "content")) {
        reply.text = *content;
    }
    const nlohmann::json* calls = array_at(message, "tool_calls");
    if (reply.text.empty() && calls != nullptr && !calls->empty() && (*calls)[0].is_object()) {
        const nlohmann::json function = (*calls)[0].value("function", nlohmann::json::object());
        if (function.is_object() && function.contains("arguments")) {
            reply.text = arguments_text(function["arguments"]);
        }
    }
    if (const std::string* word = string_at(choice, "finish_reason")) {
        reply.stop_reason = *word;
        reply.stop = classify(openai_finish_reasons, *word);
    }
    if (const std::string* refusal = string_at(message, "refusal")) {
        reply.refusal = *refusal; // a refusal is a refusal whatever finish_reason says ("stop")
        reply.stop = stop_class::refused;
    }
    return reply;
}

/// One output item of the Responses API: a message's output_text and refusal parts, or a
/// function call's arguments.
HANDOFF_INLINE void read_responses_item(const nlohmann::json& item, provider_reply& reply, bool& tool) {
    const std::string* type = string_at(item, "type");
    if (type != nullptr && *type == "function_call" && !tool && item.contains("arguments")) {
        reply.text = arguments_text(item["arguments"]);
        tool = true;
        return;
    }
    const nlohmann::json* parts = array_at(item, "content");
    if (type == nullptr || *type != "message" || parts == nullptr) {
        return; // reasoning items and others carry no answer text
    }
    for (const auto& part : *parts) {
        const std::string* kind = string_at(part, "type");
        if (kind != nullptr && *kind == "output_text" && string_at(part, "text") && !tool) {
            reply.text += *string_at(part, "text");
        } else if (kind != nullptr && *kind == "refusal" && string_at(part, "refusal")) {
            reply.refusal += *string_at(part, "refusal");
        }
    }
}

// OpenAI Responses: output[] items; status "incomplete" with incomplete_details.reason.
[[nodiscard]] HANDOFF_INLINE provider_reply read_openai_responses(const nlohmann::json& body) {
    provider_reply reply;
    reply.format = reply_format::openai_responses;
    bool tool = false;
    for (const auto& item : *array_at(body, "output")) {
        read_responses_item(item, reply, tool);
    }
    const std::string* status = string_at(body, "status");
    reply.stop_reason = status != nullptr ? *status : "";
    if (status != nullptr && *status == "completed") {
        reply.stop = tool ? stop_class::tool_call : stop_class::complete;
    } else if (status != nullptr && *status == "incomplete") {
        const nlohmann::json details = body.value("incomplete_details", nlohmann::json::object());
        const std::string* reason = string_at(details, "reason");
        reply.stop_reason = reason != nullptr ? *reason : *status;
        reply.stop = reason != nullptr ? classify(openai_incomplete_reasons, *reason) : stop_class::other;
    }
    if (!reply.refusal.empty()) {
        reply.stop = stop_class::refused;
    }
    return reply;
}

// Gemini generateContent: candidates[0].content.parts[]; a prompt blocked before any candidate
// is a refusal (promptFeedback.blockReason). A part with "thought": true is the model's thought
// summary, not its answer: skipped, as googleapis/python-genai's GenerateContentResponse.text
// skips it (google/genai/types.py).
[[nodiscard]] HANDOFF_INLINE provider_reply read_gemini(const nlohmann::json& body) {
    provider_reply reply;
    reply.format = reply_format::gemini;
    const nlohmann::json* candidates = array_at(body, "candidates");
    if (candidates == nullptr || candidates->empty() || !(*candidates)[0].is_object()) {
        const nlohmann::json feedback = body.value("promptFeedback", nlohmann::json::object());
        const std::string* block = string_at(feedback, "blockReason");
        reply.stop_reason = block != nullptr ? *block : "";
        reply.stop = block != nullptr ? stop_class::refused : stop_class::other;
        reply.problem = block != nullptr ? "" : "no candidates and no promptFeedback.blockReason";
        return reply;
    }
    const nlohmann::json& candidate = (*candidates)[0];
    const nlohmann::json content = candidate.value("content", nlohmann::json::object());
    bool tool = false;
    if (const nlohmann::json* parts = array_at(content, "parts")) {
        for (const auto& part : *parts) {
            if (part.is_object() && part.contains("thought") && part["thought"] == true) {
                continue;
            }
            const auto call = part.is_object() ? part.find("functionCall") : part.end();
            if (call != part.end() && call->is_object() && !tool) {
                reply.text = arguments_text(call->value("args", nlohmann::json::object()));
                tool = true;
            } else if (const std::string* text = string_at(part, "text"); text != nullptr && !tool) {
                reply.text += *text;
            }
        }
    }
    if (const std::string* word = string_at(candidate, "finishReason")) {
        reply.stop_reason = *word;
        reply.stop = classify(gemini_finish_reasons, *word);
    }
    if (tool && reply.stop == stop_class::complete) {
        reply.stop = stop_class::tool_call;
    }
    return reply;
}

// llama-server POST /completion: content plus stop_type (newer servers) or the stopped_*
// flags (older ones).
[[nodiscard]] HANDOFF_INLINE provider_reply read_llama_cpp(const nlohmann::json& body) {
    provider_reply reply;
    reply.format = reply_format::llama_cpp_completion;
    reply.text = *string_at(body, "content");
    if (const std::string* type = string_at(body, "stop_type")) {
        reply.stop_reason = *type;
        reply.stop = classify(llama_cpp_stop_types, *type);
        return reply;
    }
    const auto flag = [&](const char* key) { return body.contains(key) && body[key] == true; };
    reply.stop_reason = flag("stopped_limit")  ? "limit"
                        : flag("stopped_eos")  ? "eos"
                        : flag("stopped_word") ? "word"
                                               : "";
    reply.stop = classify(llama_cpp_stop_types, reply.stop_reason);
    return reply;
}

} // namespace detail

HANDOFF_INLINE provider_reply read_provider_reply_json(const nlohmann::json& body) {
    using namespace detail;
    if (nests_deeper_than(body, max_recursed_depth)) { // its parts are copied and written out below
        provider_reply unknown;
        unknown.problem = "the response body nests deeper than " + std::to_string(max_recursed_depth) + " levels";
        return unknown;
    }
    const std::string* type = string_at(body, "type");
    const std::string* object = string_at(body, "object");
    if (type != nullptr && *type == "message" && array_at(body, "content") != nullptr) {
        return read_anthropic(body);
    }
    if (object != nullptr && *object == "response" && array_at(body, "output") != nullptr) {
        return read_openai_responses(body);
    }
    if (array_at(body, "choices") != nullptr) {
        return read_openai_chat(body);
    }
    if (array_at(body, "candidates") != nullptr || (body.is_object() && body.contains("promptFeedback"))) {
        return read_gemini(body);
    }
    const bool llama_flags = body.is_object() && (body.contains("stop_type") || body.contains("stopped_limit") ||
                                                  body.contains("stopped_eos") || body.contains("stop"));
    if (string_at(body, "content") != nullptr && llama_flags) {
        return read_llama_cpp(body);
    }
    provider_reply unknown;
    const nlohmann::json* error = body.is_object() && body.contains("error") ? &body["error"] : nullptr;
    const std::string* message = error != nullptr ? string_at(*error, "message") : nullptr;
    unknown.problem = message != nullptr
                          ? "the provider returned an error: " + *message
                          : "not a response body of any known provider (Anthropic Messages, OpenAI Chat "
                            "Completions or Responses, Gemini generateContent, llama-server /completion)";
    return unknown;
}

HANDOFF_INLINE provider_reply read_provider_reply(std::string_view body_text) {
    const nlohmann::json body = nlohmann::json::parse(body_text, nullptr, false);
    if (body.is_discarded()) {
        provider_reply unknown;
        unknown.problem = "the response body is not JSON";
        return unknown;
    }
    return read_provider_reply_json(body);
}

} // namespace handoff
