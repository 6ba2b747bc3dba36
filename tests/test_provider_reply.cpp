// SPDX-License-Identifier: MIT
// <handoff/provider_reply.hpp>: every provider's documented response body (tests/fixtures/providers)
// reads into the right text and stop class; truncation and refusal are classes of their own for
// every provider; garbage is a value, never an exception; the repair loop gets canonical words.

#include "support/catch.hpp"
#include "support/fixtures.hpp"

#include <handoff/provider_model_reply.hpp>
#include <handoff/provider_reply.hpp>
#include <handoff/stop_class.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>  // count, find_if
#include <filesystem> // recursive_directory_iterator
#include <string>     // string
#include <utility>    // pair
#include <vector>     // vector

namespace test_provider_reply { // this file's own names: see "unity build" in tests/CMakeLists.txt

namespace {

/// A provider reply under tests/fixtures/providers/.
std::string provider_fixture(const std::string& relative) {
    return handoff_test::read_fixture("providers/" + relative);
}

struct expected_reply {
    const char* file;
    handoff::reply_format format;
    handoff::stop_class stop;
    const char* stop_reason;
    const char* text;    // exact text
    const char* refusal; // exact refusal
};

using handoff::reply_format;
using handoff::stop_class;

// One row per fixture file; the test below fails when a file has no row.
const std::vector<expected_reply> expected_replies{
    {"anthropic/end_turn.json", reply_format::anthropic_messages, stop_class::complete, "end_turn",
     "Hi! My name is Claude.", ""},
    {"anthropic/stop_sequence_two_blocks.json", reply_format::anthropic_messages, stop_class::complete, "stop_sequence",
     "Hi! My name is Claude.", ""},
    {"anthropic/max_tokens.json", reply_format::anthropic_messages, stop_class::truncated, "max_tokens",
     R"({"status": "ok", "partial_result": {"label": "bil)", ""},
    {"anthropic/refusal.json", reply_format::anthropic_messages, stop_class::refused, "refusal", "", ""},
    {"anthropic/tool_use.json", reply_format::anthropic_messages, stop_class::tool_call, "tool_use",
     R"({"location":"San Francisco, CA","unit":"celsius"})", ""},
    {"openai_chat/stop.json", reply_format::openai_chat, stop_class::complete, "stop",
     "Hello! How can I assist you today?", ""},
    {"openai_chat/length.json", reply_format::openai_chat, stop_class::truncated, "length",
     R"({"status": "ok", "partial_)", ""},
    {"openai_chat/content_filter.json", reply_format::openai_chat, stop_class::refused, "content_filter", "", ""},
    {"openai_chat/refusal.json", reply_format::openai_chat, stop_class::refused, "stop", "",
     "I'm sorry, I cannot assist with that request."},
    {"openai_chat/tool_calls.json", reply_format::openai_chat, stop_class::tool_call, "tool_calls",
     "{\n\"location\": \"Boston, MA\"\n}", ""},
    {"openai_responses/completed.json", reply_format::openai_responses, stop_class::complete, "completed",
     "In a peaceful grove beneath a silver moon, a unicorn named Lumina discovered a hidden pool that reflected the "
     "stars.",
     ""},
    {"openai_responses/incomplete_max_output_tokens.json", reply_format::openai_responses, stop_class::truncated,
     "max_output_tokens", R"({"status": "capp)", ""},
    {"openai_responses/incomplete_content_filter.json", reply_format::openai_responses, stop_class::refused,
     "content_filter", R"({"status": "capp)", ""},
    {"openai_responses/refusal.json", reply_format::openai_responses, stop_class::refused, "completed", "",
     "I'm sorry, I cannot assist with that request."},
    {"openai_responses/function_call.json", reply_format::openai_responses, stop_class::tool_call, "completed",
     R"({"location":"Paris, France"})", ""},
    {"gemini/stop.json", reply_format::gemini, stop_class::complete, "STOP",
     "Once upon a time, in a land filled with wonder, there was a magic backpack.", ""},
    {"gemini/max_tokens.json", reply_format::gemini, stop_class::truncated, "MAX_TOKENS",
     R"({"status": "ok", "partial_result": {"lab)", ""},
    {"gemini/safety.json", reply_format::gemini, stop_class::refused, "SAFETY", "", ""},
    {"gemini/recitation.json", reply_format::gemini, stop_class::refused, "RECITATION",
     "Once upon a time, in a land filled with wonder, there was a magic backpack.", ""},
    {"gemini/prompt_blocked.json", reply_format::gemini, stop_class::refused, "SAFETY", "", ""},
    {"gemini/function_call.json", reply_format::gemini, stop_class::tool_call, "STOP",
     R"({"brightness":25,"color_temp":"warm"})", ""},
    // The thought summary part is skipped: only the answer is the text.
    {"gemini/thought_parts.json", reply_format::gemini, stop_class::complete, "STOP",
     R"({"status": "ok", "partial_result": {"label": "billing"}})", ""},
    {"gemini/model_armor.json", reply_format::gemini, stop_class::refused, "MODEL_ARMOR", "", ""},
    {"gemini/unexpected_tool_call.json", reply_format::gemini, stop_class::tool_call, "UNEXPECTED_TOOL_CALL", "", ""},
    {"llama_cpp/completion_eos.json", reply_format::llama_cpp_completion, stop_class::complete, "eos",
     R"( {"status": "ok"})", ""},
    {"llama_cpp/completion_word.json", reply_format::llama_cpp_completion, stop_class::complete, "word",
     R"( {"status": "ok"})", ""},
    {"llama_cpp/completion_limit.json", reply_format::llama_cpp_completion, stop_class::truncated, "limit",
     R"( {"status": "ok", "partial_res)", ""},
    {"llama_cpp/completion_legacy_stopped_limit.json", reply_format::llama_cpp_completion, stop_class::truncated,
     "limit", R"( {"status": "ok"})", ""},
    {"llama_cpp/openai_compat_length.json", reply_format::openai_chat, stop_class::truncated, "length",
     R"({"status": "ok", "par)", ""},
};

} // namespace

TEST_CASE("every provider fixture reads into its documented text and stop class", "[provider_reply]") {
    for (const expected_reply& row : expected_replies) {
        INFO(row.file);
        const handoff::provider_reply reply = handoff::read_provider_reply(provider_fixture(row.file));
        CHECK(reply.recognised());
        CHECK(reply.problem.empty());
        CHECK(to_string(reply.format) == to_string(row.format));
        CHECK(to_string(reply.stop) == to_string(row.stop));
        CHECK(reply.stop_reason == row.stop_reason);
        CHECK(reply.text == row.text);
        CHECK(reply.refusal == row.refusal);
    }
}

TEST_CASE("every file in the provider fixture folder has a row in the expectations", "[provider_reply]") {
    const std::string root = handoff_test::fixture_path("providers");
    std::size_t files = 0;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
        if (entry.path().extension() != ".json") {
            continue;
        }
        ++files;
        const std::string relative = std::filesystem::relative(entry.path(), root).generic_string();
        INFO(relative);
        CHECK(std::find_if(expected_replies.begin(), expected_replies.end(),
                           [&](const expected_reply& r) { return relative == r.file; }) != expected_replies.end());
    }
    CHECK(files == expected_replies.size());
}

TEST_CASE("every provider's truncation signal is truncated and every refusal signal is refused", "[provider_reply]") {
    // Each provider's documented words, one body each: a new word never falls into complete.
    const std::vector<std::pair<std::string, stop_class>> bodies{
        {R"({"type":"message","content":[],"stop_reason":"max_tokens"})", stop_class::truncated},
        {R"({"type":"message","content":[],"stop_reason":"model_context_window_exceeded"})", stop_class::truncated},
        {R"({"type":"message","content":[],"stop_reason":"refusal"})", stop_class::refused},
        {R"({"type":"message","content":[],"stop_reason":"pause_turn"})", stop_class::other},
        {R"({"type":"message","content":[],"stop_reason":"a_word_from_next_year"})", stop_class::other},
        {R"({"choices":[{"message":{"content":"x"},"finish_reason":"length"}]})", stop_class::truncated},
        {R"({"choices":[{"message":{"content":null},"finish_reason":"content_filter"}]})", stop_class::refused},
        {R"({"choices":[{"message":{"content":"x"},"finish_reason":"function_call"}]})", stop_class::tool_call},
        {R"({"object":"response","output":[],"status":"incomplete","incomplete_details":{"reason":"max_output_tokens"}})",
         stop_class::truncated},
        {R"({"object":"response","output":[],"status":"failed"})", stop_class::other},
        {R"({"candidates":[{"finishReason":"MAX_TOKENS"}]})", stop_class::truncated},
        {R"({"candidates":[{"finishReason":"BLOCKLIST"}]})", stop_class::refused},
        {R"({"candidates":[{"finishReason":"PROHIBITED_CONTENT"}]})", stop_class::refused},
        {R"({"candidates":[{"finishReason":"SPII"}]})", stop_class::refused},
        {R"({"candidates":[{"finishReason":"OTHER"}]})", stop_class::other},
        {R"({"candidates":[{"finishReason":"MALFORMED_FUNCTION_CALL"}]})", stop_class::other},
        {R"({"candidates":[{"finishReason":"IMAGE_PROHIBITED_CONTENT"}]})", stop_class::refused},
        {R"({"candidates":[{"finishReason":"IMAGE_RECITATION"}]})", stop_class::refused},
        {R"({"candidates":[{"finishReason":"IMAGE_OTHER"}]})", stop_class::refused},
        {R"({"candidates":[{"finishReason":"NO_IMAGE"}]})", stop_class::refused},
        {R"({"candidates":[{"finishReason":"MODEL_ARMOR"}]})", stop_class::refused},
        {R"({"candidates":[{"finishReason":"UNEXPECTED_TOOL_CALL"}]})", stop_class::tool_call},
        {R"({"candidates":[{"finishReason":"TOO_MANY_TOOL_CALLS"}]})", stop_class::tool_call},
        {R"({"candidates":[{"content":{"parts":[{"text":"I think","thought":true}]},"finishReason":"MAX_TOKENS"}]})",
         stop_class::truncated},
        {R"({"content":"x","stop_type":"none","stop":false})", stop_class::other},
        {R"({"content":"x","stop":true,"stopped_eos":true})", stop_class::complete},
        {R"({"content":"x","stop":true,"stopped_word":true})", stop_class::complete},
    };
    for (const auto& [body, stop] : bodies) {
        INFO(body);
        const auto reply = handoff::read_provider_reply(body);
        CHECK(reply.recognised());
        CHECK(handoff::to_string(reply.stop) == handoff::to_string(stop));
        CHECK(handoff::is_truncation(reply.stop) == (stop == stop_class::truncated));
        CHECK(handoff::is_refusal(reply.stop) == (stop == stop_class::refused));
    }
}

TEST_CASE("a body that is no known response is a value that says so, never an exception", "[provider_reply]") {
    const std::vector<std::string> garbage{
        "",
        "not json",
        "{",
        "[]",
        "null",
        "42",
        R"("a string")",
        "{}",
        R"({"type":"message"})",
        R"({"type":"message","content":"not an array"})",
        R"({"object":"response","output":{}})",
        R"({"choices":{}})",
        R"({"candidates":"x"})",
        R"({"content":42,"stop_type":"eos"})",
        R"({"content":"x"})",
    };
    for (const std::string& body : garbage) {
        INFO(body);
        handoff::provider_reply reply;
        CHECK_NOTHROW(reply = handoff::read_provider_reply(body));
        CHECK_FALSE(reply.recognised());
        CHECK_FALSE(reply.problem.empty());
        CHECK(reply.stop == stop_class::other);
    }
}

TEST_CASE("a recognised shape with broken insides never throws and never reads as complete", "[provider_reply]") {
    const std::vector<std::string> broken{
        R"({"type":"message","content":[1,null,{"type":"tool_use"},{"type":"text","text":5}],"stop_reason":7})",
        R"({"choices":[]})",
        R"({"choices":[null]})",
        R"({"choices":[{"message":"x","finish_reason":null}]})",
        R"({"choices":[{"message":{"tool_calls":[{"function":"x"}]}}]})",
        R"({"object":"response","output":[1,{"type":"message","content":[{"type":"output_text"}]}],"status":7})",
        R"({"object":"response","output":[],"status":"incomplete","incomplete_details":null})",
        R"({"candidates":[]})",
        R"({"candidates":[{"content":{"parts":[{"functionCall":"x"},{"text":1}]}}]})",
        R"({"promptFeedback":{}})",
    };
    for (const std::string& body : broken) {
        INFO(body);
        handoff::provider_reply reply;
        CHECK_NOTHROW(reply = handoff::read_provider_reply(body));
        CHECK(reply.stop == stop_class::other);
    }
}

TEST_CASE("an API error body is reported with the provider's message", "[provider_reply]") {
    const auto anthropic =
        handoff::read_provider_reply(R"({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}})");
    CHECK_FALSE(anthropic.recognised());
    CHECK(anthropic.problem == "the provider returned an error: Overloaded");
    const auto openai = handoff::read_provider_reply(
        R"({"error":{"message":"Invalid schema for response_format","type":"invalid_request_error"}})");
    CHECK(openai.problem == "the provider returned an error: Invalid schema for response_format");
}

TEST_CASE("the repair loop gets canonical stop words, so its default truncation word covers every provider",
          "[provider_reply]") {
    for (const char* file :
         {"anthropic/max_tokens.json", "openai_chat/length.json", "openai_responses/incomplete_max_output_tokens.json",
          "gemini/max_tokens.json", "llama_cpp/completion_limit.json", "llama_cpp/openai_compat_length.json"}) {
        INFO(file);
        const handoff::model_reply reply = handoff::model_reply_from_body(provider_fixture(file));
        CHECK(reply.stop_reason == "max_tokens");
        const auto reasons = handoff::repair_options{}.truncation_stop_reasons;
        CHECK(std::count(reasons.begin(), reasons.end(), reply.stop_reason) == 1);
    }
    for (const char* file : {"anthropic/refusal.json", "openai_chat/refusal.json", "openai_chat/content_filter.json",
                             "openai_responses/refusal.json", "gemini/safety.json", "gemini/prompt_blocked.json"}) {
        INFO(file);
        CHECK(handoff::model_reply_from_body(provider_fixture(file)).stop_reason == "refusal");
    }
    const handoff::model_reply done = handoff::model_reply_from_body(provider_fixture("gemini/stop.json"));
    CHECK(done.stop_reason == "end_turn");
    CHECK(done.text == "Once upon a time, in a land filled with wonder, there was a magic backpack.");
    CHECK(handoff::model_reply_from_body(provider_fixture("openai_chat/tool_calls.json")).stop_reason == "tool_use");
    CHECK(handoff::model_reply_from_body("{}").stop_reason == "other");
    CHECK(handoff::model_reply_from_body(R"({"type":"message","content":[],"stop_reason":"pause_turn"})").stop_reason ==
          "pause_turn");
}

TEST_CASE("a parsed body reads the same as its text", "[provider_reply]") {
    const std::string text = provider_fixture("anthropic/tool_use.json");
    const auto from_text = handoff::read_provider_reply(text);
    const auto from_json = handoff::read_provider_reply_json(nlohmann::json::parse(text));
    CHECK(from_text.text == from_json.text);
    CHECK(from_text.stop == from_json.stop);
}

} // namespace test_provider_reply

namespace test_provider_reply {

TEST_CASE("a Gemini reply cut off while the model still thought has no answer text, not its thoughts",
          "[provider_reply]") {
    const auto reply = handoff::read_provider_reply(
        R"({"candidates":[{"content":{"parts":[{"text":"Weighing billing against refund","thought":true}]},)"
        R"("finishReason":"MAX_TOKENS"}]})");
    CHECK(reply.text.empty());
    CHECK(reply.stop == handoff::stop_class::truncated);
    // "thought": false (or absent) is an answer part like any other.
    const auto answer =
        handoff::read_provider_reply(R"({"candidates":[{"content":{"parts":[{"text":"{}","thought":false}]},)"
                                     R"("finishReason":"STOP"}]})");
    CHECK(answer.text == "{}");
}

} // namespace test_provider_reply
