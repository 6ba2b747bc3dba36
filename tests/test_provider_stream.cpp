// SPDX-License-Identifier: MIT
// <handoff/provider_stream.hpp>: each provider's recorded stream (tests/fixtures/streams/) read
// into the reply text and the stop class, however the bytes are split, and checked as it
// arrives by stream_check.

#include "fuzz/fuzz_sse.hpp"
#include "support/fixtures.hpp"

#include <handoff/decode.hpp>
#include <handoff/provider_stream.hpp>
#include <handoff/receiver.hpp>
#include <handoff/stream_check.hpp>

#include <cstddef>    // size_t
#include <filesystem> // directory_iterator
#include <string>     // string
#include <vector>     // vector

namespace test_provider_stream { // this file's own names: see "unity build" in tests/CMakeLists.txt

namespace {

struct read_stream {
    std::string text;
    handoff::stop_class stop;
    std::string stop_reason;
    std::string problem;
};

/// A transcript pushed `step` bytes at a time.
read_stream replay(handoff::provider source, const std::string& transcript, std::size_t step) {
    handoff::provider_stream events(source);
    read_stream out;
    for (std::size_t at = 0; at < transcript.size(); at += step) {
        out.text += events.push(std::string_view(transcript).substr(at, step));
    }
    out.text += events.finish();
    out.stop = events.stop();
    out.stop_reason = events.stop_reason();
    out.problem = events.problem();
    return out;
}

std::string transcript(const std::string& name) { return handoff_test::read_fixture("streams/" + name); }

nlohmann::json run1() { return handoff_test::read_fixture_json("worked_example/run1_token_cap.json"); }

const handoff::receiver<>& records_receiver() {
    static const handoff::receiver<> r(handoff_test::records_schema());
    return r;
}

/// The records a cut reply keeps: the first two of the worked example's run.
nlohmann::json first_two_records() {
    const nlohmann::json records = run1().at("partial_result").at("records");
    return nlohmann::json{{"records", {records[0], records[1]}}};
}

} // namespace

TEST_CASE("every recorded stream reads the same text and stop whatever the read size", "[stream][provider]") {
    struct row {
        const char* file;
        handoff::provider source;
        handoff::stop_class stop;
        const char* stop_reason;
    };
    const row rows[] = {
        {"openai_chat_stop.sse", handoff::provider::openai, handoff::stop_class::complete, "stop"},
        {"openai_chat_length.sse", handoff::provider::openai, handoff::stop_class::truncated, "length"},
        {"openai_chat_split_pair.sse", handoff::provider::openai, handoff::stop_class::complete, "stop"},
        {"openai_responses_incomplete.sse", handoff::provider::openai, handoff::stop_class::truncated,
         "max_output_tokens"},
        {"anthropic_max_tokens.sse", handoff::provider::anthropic, handoff::stop_class::truncated, "max_tokens"},
        {"anthropic_tool_use.sse", handoff::provider::anthropic, handoff::stop_class::tool_call, "tool_use"},
        {"gemini_thought_stop.sse", handoff::provider::gemini, handoff::stop_class::complete, "STOP"},
        {"llama_cpp_limit.sse", handoff::provider::llama_cpp, handoff::stop_class::truncated, "limit"},
    };
    for (const row& r : rows) {
        const std::string sse = transcript(r.file);
        const read_stream whole = replay(r.source, sse, sse.size());
        INFO(r.file);
        CHECK(whole.stop == r.stop);
        CHECK(whole.stop_reason == r.stop_reason);
        CHECK(whole.problem.empty());
        CHECK_FALSE(whole.text.empty());
        for (const std::size_t step : {std::size_t{1}, std::size_t{7}, std::size_t{64}}) {
            const read_stream split = replay(r.source, sse, step);
            CHECK(split.text == whole.text);
            CHECK(split.stop == whole.stop);
        }
        std::string crlf;
        for (const char c : sse) {
            crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
        }
        CHECK(replay(r.source, crlf, 5).text == whole.text);
    }
}

TEST_CASE("an OpenAI stream of several choices or parallel tool calls is read as the first choice's first call",
          "[stream][provider]") {
    // Chunks of other choices (n > 1) and of other tool calls interleave with the reply's own,
    // each naming its index; joining them all wrote a text that was no envelope.
    struct row {
        const char* file;
        handoff::stop_class stop;
        const char* stop_reason;
        const char* problem;
    };
    for (const row& r : {row{"openai_chat_two_choices.sse", handoff::stop_class::complete, "stop",
                             "more than one choice (n > 1): only the first is read"},
                         row{"openai_chat_parallel_tools.sse", handoff::stop_class::tool_call, "tool_calls",
                             "more than one tool at once: only the first call's arguments are read"},
                         row{"openai_chat_tools_same_index.sse", handoff::stop_class::tool_call, "tool_calls",
                             "more than one tool at once: only the first call's arguments are read"},
                         row{"openai_chat_tool_index1.sse", handoff::stop_class::tool_call, "tool_calls", ""}}) {
        INFO(r.file);
        const std::string sse = transcript(r.file);
        for (const std::size_t step : {std::size_t{1}, std::size_t{13}, sse.size()}) {
            const read_stream read = replay(handoff::provider::openai, sse, step);
            CHECK(nlohmann::json::parse(read.text) == run1());
            CHECK(read.stop == r.stop);
            CHECK(read.stop_reason == r.stop_reason);
            CHECK(read.problem.find(r.problem) != std::string::npos);
            CHECK(read.problem.empty() == (*r.problem == '\0')); // one call, however numbered: no problem
        }
    }
    // A problem met later (an error event before [DONE]) is still told beside the first.
    std::string sse = transcript("openai_chat_two_choices.sse");
    sse.insert(sse.rfind("data: [DONE]"), "data: {\"error\": {\"message\": \"overloaded\"}}\n\n");
    const read_stream both = replay(handoff::provider::openai, sse, 64);
    CHECK(both.problem == "the stream holds more than one choice (n > 1): only the first is read; the provider "
                          "sent an error: overloaded");
}

TEST_CASE("a complete stream carries the whole envelope", "[stream][provider]") {
    CHECK(nlohmann::json::parse(replay(handoff::provider::openai, transcript("openai_chat_stop.sse"), 13).text) ==
          run1());
    CHECK(nlohmann::json::parse(replay(handoff::provider::anthropic, transcript("anthropic_tool_use.sse"), 13).text) ==
          run1());
}

TEST_CASE("Gemini's thought parts are skipped, so the brace in a thought never starts the JSON", "[stream][provider]") {
    const read_stream gemini = replay(handoff::provider::gemini, transcript("gemini_thought_stop.sse"), 11);
    CHECK(gemini.text.rfind("```json\n{", 0) == 0);
    const handoff::decode_result decoded = handoff::decode(gemini.text);
    REQUIRE(decoded.ok());
    CHECK(*decoded.value == run1());
}

TEST_CASE("a stream cut at the token cap ends truncated, with the whole records as its salvage", "[stream][provider]") {
    for (const auto& [file, source] : {std::pair{"anthropic_max_tokens.sse", handoff::provider::anthropic},
                                       std::pair{"openai_chat_length.sse", handoff::provider::openai},
                                       std::pair{"openai_responses_incomplete.sse", handoff::provider::openai},
                                       std::pair{"llama_cpp_limit.sse", handoff::provider::llama_cpp}}) {
        INFO(file);
        handoff::provider_stream events(source);
        handoff::stream_check<> check(records_receiver());
        const std::string sse = transcript(file);
        for (std::size_t at = 0; at < sse.size(); at += 100) {
            check.push(events.push(std::string_view(sse).substr(at, 100)));
            CHECK_FALSE(check.doomed());
        }
        check.push(events.finish());
        CHECK(handoff::is_truncation(events.stop()));
        const handoff::receipt<> receipt = check.finish();
        CHECK(receipt.failed_step == handoff::step::parse);
        CHECK(receipt.result() == nullptr);
        const auto salvage = check.salvage();
        REQUIRE(salvage);
        CHECK(salvage->partial_result == first_two_records());
        CHECK(salvage->complete_items == 2);
    }
}

TEST_CASE("a doomed stream is known long before its last event", "[stream][provider]") {
    const std::string sse = transcript("openai_chat_doomed.sse");
    handoff::provider_stream events(handoff::provider::openai);
    handoff::stream_check<> check(records_receiver());
    std::size_t read = 0;
    for (; read < sse.size() && !check.doomed(); read += 64) {
        check.push(events.push(std::string_view(sse).substr(read, 64)));
    }
    REQUIRE(check.doomed());
    CHECK(check.doomed()->what.pointer == "/status");
    CHECK(read < sse.size() / 10);
}

TEST_CASE("a character whose UTF-16 halves arrive in two events is joined, not dropped", "[stream][provider]") {
    // Each of the two events holds a lone surrogate escape, which is not JSON on its own.
    const read_stream r = replay(handoff::provider::openai, transcript("openai_chat_split_pair.sse"), 9);
    CHECK(r.problem.empty());
    CHECK(r.text == "{\"status\": \"ok\", \"reason_code\": null, \"partial_result\": {\"note\": \"sun "
                    "\xF0\x9F\x98\x80 and rain \xE2\x9B\x85\"}, \"schema_ok\": false}");
    CHECK(nlohmann::json::parse(r.text).at("partial_result").at("note") == "sun \U0001F600 and rain \u26C5");

    // A half whose other never comes stands as U+FFFD, and the stream says so.
    const auto event = [](const std::string& content) {
        return "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"" + content + "\"}}]}\n\n";
    };
    handoff::provider_stream lone(handoff::provider::openai);
    std::string text = lone.push(event("a\\ud83d") + event("b") + event("\\ude00c"));
    text += lone.finish();
    CHECK(text == "a\xEF\xBF\xBD"
                  "b\xEF\xBF\xBD"
                  "c");
    CHECK(lone.problem() ==
          "an event held half of a UTF-16 surrogate pair that the next did not complete: U+FFFD stands for it in the "
          "reply");
    // An event with no text between the halves (an empty delta) does not part them.
    handoff::provider_stream apart(handoff::provider::openai);
    std::string joined = apart.push(event("a\\ud83d"));
    joined += apart.push("data: {\"choices\":[{\"index\":0,\"delta\":{}}]}\n\n");
    joined += apart.push(event("\\ude00b"));
    joined += apart.finish();
    CHECK(joined == "a\xF0\x9F\x98\x80"
                    "b");
    CHECK(apart.problem().empty());
    // A lone half in a stop word (which the receipt's "stop" shows) is U+FFFD too, never the
    // stand-in the event was mended with.
    handoff::provider_stream stopped(handoff::provider::openai);
    static_cast<void>(
        stopped.push("data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\\ud800x\\udc00\"}]}\n\n"));
    CHECK(stopped.stop_reason() == "stop\xEF\xBF\xBDx\xEF\xBF\xBD");
    // A character of the stand-ins' own range in the text is never taken for a half: beside a
    // waiting half it stays itself; in an event that would need mending, nothing is mended.
    const std::string own_char = "\xF3\xB0\x80\x80"; // U+F0000, the stand-in of U+D800
    handoff::provider_stream own(handoff::provider::openai);
    std::string own_text = own.push(event("a\\ud83d") + event(own_char + "b"));
    own_text += own.finish();
    CHECK(own_text == "a\xEF\xBF\xBD" + own_char + "b");
    handoff::provider_stream unmended(handoff::provider::openai);
    CHECK(unmended.push(event(own_char + "\\ude00")).empty());
    CHECK(unmended.problem() == "an event's data is not a JSON object");
    // A backslash the model wrote before "ud83d" is text, not an escape: nothing to mend.
    handoff::provider_stream literal(handoff::provider::openai);
    CHECK(literal.push(event("\\\\ud83d")) == "\\ud83d");
    CHECK(literal.problem().empty());
}

TEST_CASE("a byte order mark before the first event is ignored, and nothing after [DONE] is the reply's",
          "[stream][provider]") {
    // https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation:
    // one leading U+FEFF is ignored. OpenAI's SDKs stop reading at "data: [DONE]".
    const std::string sse = transcript("openai_chat_stop.sse");
    const read_stream plain = replay(handoff::provider::openai, sse, sse.size());
    for (const std::size_t step : {std::size_t{1}, std::size_t{2}, std::size_t{7}}) {
        INFO(step);
        const read_stream marked = replay(handoff::provider::openai, "\xEF\xBB\xBF" + sse, step);
        CHECK(marked.text == plain.text);
        CHECK(marked.problem.empty());
        const std::string after = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"}\"}}]}\n\n";
        const read_stream extra = replay(handoff::provider::openai, sse + after, step);
        CHECK(extra.text == plain.text);
    }
    // Bytes that only begin like the mark are the stream's own: they make the first line's field
    // "\xEF\xBBdata", which names nothing, so its event is not read.
    const std::string x = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"x\"}}]}\n\n";
    CHECK(replay(handoff::provider::openai, "\xEF\xBB\xBF" + x, 1).text == "x");
    CHECK(replay(handoff::provider::openai, "\xEF\xBB" + x, 1).text.empty());
    CHECK(replay(handoff::provider::openai, "\xEF\xBB" + x + x, 1).text == "x");
}

TEST_CASE("an event that is not JSON, or an error event, is a problem of the stream", "[stream][provider]") {
    handoff::provider_stream events(handoff::provider::anthropic);
    CHECK(events
              .push("event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\","
                    "\"message\":\"Overloaded\"}}\n\n")
              .empty());
    CHECK(events.problem() == "the provider sent an error: Overloaded");
    // An error event whose data is no JSON, or is empty, is an error all the same.
    handoff::provider_stream bare(handoff::provider::anthropic);
    CHECK(bare.push("event: error\ndata: upstream timed out\n\n").empty());
    CHECK(bare.problem() == "the provider sent an error: upstream timed out");
    handoff::provider_stream empty(handoff::provider::anthropic);
    CHECK(empty.push("event: error\ndata:\n\n").empty());
    CHECK(empty.problem() == "the provider sent an error");
    handoff::provider_stream broken(handoff::provider::openai);
    CHECK(broken.push("data:\n\n").empty()); // an event with empty data says nothing: no problem
    CHECK(broken.problem().empty());
    CHECK(broken.push("data: {not json\n\n").empty());
    CHECK(broken.problem() == "an event's data is not a JSON object");
    CHECK(broken.stop() == handoff::stop_class::other);
}

TEST_CASE("a refusal streamed before finish_reason stop is a refusal", "[stream][provider]") {
    const read_stream r = replay(handoff::provider::openai, transcript("openai_chat_refusal.sse"), 9);
    CHECK(r.stop == handoff::stop_class::refused);
    CHECK(r.stop_reason == "stop");
    CHECK(r.text.empty());
    CHECK(r.problem.empty());
}

TEST_CASE("an error event of the Responses API or llama-server's error line is a problem of the stream",
          "[stream][provider]") {
    const read_stream responses = replay(handoff::provider::openai, transcript("openai_responses_error.sse"), 11);
    CHECK(responses.problem == "the provider sent an error: The server had an error while processing your request.");
    CHECK(responses.text == "{\"status\": \"ok\", ");
    CHECK(responses.stop == handoff::stop_class::other);
    const read_stream llama = replay(handoff::provider::llama_cpp, transcript("llama_cpp_error_line.sse"), 5);
    CHECK(llama.problem == "the provider sent an error: the request exceeds the available context size");
    CHECK(llama.text == "{\"status\": ");
}

TEST_CASE("the reply is the first tool call's arguments: text after it, other calls and server tools are left out",
          "[stream][provider]") {
    const read_stream tools = replay(handoff::provider::anthropic, transcript("anthropic_text_then_tools.sse"), 13);
    // Text before the call stays (the receiver reads prose around the JSON); after it, none.
    CHECK(tools.text == "Submitting it now.{\"a\": 1}");
    CHECK(tools.problem == "the model called more than one tool: only the first call's arguments are read");
    CHECK(tools.stop == handoff::stop_class::tool_call);
    const read_stream web = replay(handoff::provider::anthropic, transcript("anthropic_server_tool.sse"), 13);
    CHECK(web.text == "{\"forecast\": \"sun\"}");
    CHECK(web.problem.empty());
    CHECK(web.stop == handoff::stop_class::complete);
    const read_stream responses = replay(handoff::provider::openai, transcript("openai_responses_tools.sse"), 17);
    CHECK(responses.text == "Calling it.{\"a\": 1}");
    CHECK(responses.problem == "the model called more than one tool: only the first call's arguments are read");
    CHECK(responses.stop == handoff::stop_class::tool_call);
    // A server that numbers no output: the calls are told apart by their item_id.
    handoff::provider_stream unnumbered(handoff::provider::openai);
    const std::string delta = "data: {\"type\":\"response.function_call_arguments.delta\",\"item_id\":\"";
    std::string calls = unnumbered.push(delta + "fc_1\",\"delta\":\"{\\\"a\\\": 1}\"}\n\n");
    calls += unnumbered.push(delta + "fc_2\",\"delta\":\"{\\\"b\\\": 2}\"}\n\n");
    CHECK(calls == "{\"a\": 1}");
    CHECK(unnumbered.problem() == "the model called more than one tool: only the first call's arguments are read");
    handoff::provider_stream gemini(handoff::provider::gemini);
    const std::string two_calls =
        "data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"functionCall\":{\"name\":\"f\","
        "\"args\":{\"a\":1}}},{\"functionCall\":{\"name\":\"f\",\"args\":{\"b\":2}}},{\"text\":\"done\"}]},"
        "\"finishReason\":\"STOP\"}]}\n\n";
    const std::string text = gemini.push(two_calls) + gemini.finish();
    CHECK(text == "{\"a\":1}");
    CHECK(gemini.problem() == "the model called more than one tool: only the first call's arguments are read");
    CHECK(gemini.stop() == handoff::stop_class::tool_call);
}

TEST_CASE("an event's data past 4 MiB is left out with a problem, whatever its lines", "[stream][provider]") {
    handoff::provider_stream events(handoff::provider::openai);
    const std::string line = "data: " + std::string(std::size_t{1} << 20, 'x') + "\n";
    std::string got;
    for (int i = 0; i < 6; ++i) { // 6 MiB of data in one event, a MiB a line
        got += events.push(line);
    }
    got += events.push("\n");
    CHECK(got.empty());
    CHECK(events.problem() == "an event's data is longer than 4194304 bytes: it is left out");
    // A comment line past the bound loses nothing an event carries.
    handoff::provider_stream commented(handoff::provider::openai);
    CHECK(commented.push(": " + std::string(std::size_t{5} << 20, 'c') +
                         "\ndata: {\"choices\":[{\"index\":0,\"delta\":"
                         "{\"content\":\"kept\"},\"finish_reason\":null}]}\n\n") == "kept");
    CHECK(commented.problem().empty());
    // One data line past the bound is cut, and its event left out.
    handoff::provider_stream long_line(handoff::provider::openai);
    CHECK(long_line.push("data: " + std::string(std::size_t{5} << 20, 'x') + "\n\n").empty());
    CHECK(long_line.problem() == "an event's data is longer than 4194304 bytes: it is left out");
    // The next event is read as usual.
    CHECK(events.push(
              "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok\"},\"finish_reason\":null}]}\n\n") == "ok");
}

TEST_CASE("every recorded stream reads alike however its body is cut (fuzz_sse's promise)", "[stream][provider]") {
    std::vector<std::string> files;
    for (const auto& entry : std::filesystem::directory_iterator(std::string(HANDOFF_FIXTURES_DIR) + "/streams")) {
        if (entry.path().extension() == ".sse") {
            files.push_back(entry.path().filename().string());
        }
    }
    REQUIRE(files.size() >= 19);
    for (const std::string& file : files) {
        const std::string body = transcript(file);
        for (const handoff::provider source : {handoff::provider::openai, handoff::provider::anthropic,
                                               handoff::provider::gemini, handoff::provider::llama_cpp}) {
            for (const std::size_t step : {std::size_t{1}, std::size_t{3}, std::size_t{64}}) {
                INFO(file << " as " << handoff::to_string(source) << ", reads of " << step);
                CHECK(handoff_fuzz::sse::disagreement(source, body, step).empty());
            }
        }
    }
}

} // namespace test_provider_stream
