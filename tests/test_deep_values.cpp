// SPDX-License-Identifier: MIT
// Values nested far past any real reply or schema (100,000 levels), given to every public entry
// point that takes JSON from outside: none may overflow the stack. nlohmann's copy, conversion,
// comparison and dump recurse once per level, so each entry point measures the nesting first
// (without recursion) and refuses, or hands back untouched, what is past its bound.

#include "support/catch.hpp"
#include "support/fixtures.hpp"
#include "support/temp_dir.hpp"

#include <handoff/handoff.hpp>

#include <nlohmann/json.hpp>

#include <cstddef> // size_t
#include <fstream> // ofstream
#include <set>     // set
#include <string>  // string
#include <vector>  // vector

namespace test_deep_values { // this file's own names: see "unity build" in tests/CMakeLists.txt

namespace {

using nlohmann::json;

constexpr std::size_t levels = 100'000;

/// An array nested `levels` deep, as JSON text (parsed without recursion by nlohmann's parser).
std::string deep_array_text() { return std::string(levels, '[') + std::string(levels, ']'); }

json deep_array() { return json::parse(deep_array_text()); }

} // namespace

TEST_CASE("a provider's body or stream event nested past 1024 levels is a problem, never copied",
          "[deep][hostile][provider_reply]") {
    // An Anthropic tool_use whose input nests deep: its arguments were written out as text.
    const std::string body = R"({"type": "message", "role": "assistant", "stop_reason": "tool_use", "content": [)"
                             R"({"type": "tool_use", "id": "t", "name": "reply", "input": {"x": )" +
                             deep_array_text() + "}}]}";
    const handoff::provider_reply reply = handoff::read_provider_reply(body);
    CHECK_FALSE(reply.recognised());
    CHECK(reply.problem == "the response body nests deeper than 1024 levels");
    CHECK(handoff::read_provider_reply_json(json::parse(body)).problem == reply.problem);
    // The same tool call a little shallower is read as ever.
    const std::string shallow = R"({"type": "message", "role": "assistant", "stop_reason": "tool_use", "content": [)"
                                R"({"type": "tool_use", "id": "t", "name": "reply", "input": {"x": [[1]]}}]})";
    CHECK(handoff::read_provider_reply(shallow).text == R"({"x":[[1]]})");

    // A streamed chunk: OpenAI's choice index nested deep was copied to lock the choice.
    handoff::provider_stream openai(handoff::provider::openai);
    const std::string text = openai.push("data: {\"choices\": [{\"index\": " + deep_array_text() +
                                         ", \"delta\": {\"content\": \"hi\"}}]}\n\n");
    CHECK(text.empty());
    CHECK(openai.problem() == "an event's data nests deeper than 1024 levels");
}

TEST_CASE("a Gemini part whose thought flag is not a boolean is text, and no exception", "[provider_reply]") {
    // `"thought": true` marks a thought summary, skipped; any other value is no such mark. The
    // stream read the flag as a boolean and threw nlohmann's type_error for a string.
    const std::string chunk = R"({"candidates": [{"content": {"role": "model", "parts": [)"
                              R"({"text": "hidden", "thought": true}, {"text": "shown", "thought": "yes"}]}}]})";
    handoff::provider_stream gemini(handoff::provider::gemini);
    std::string text;
    REQUIRE_NOTHROW(text = gemini.push("data: " + chunk + "\r\n\r\n"));
    CHECK(text + gemini.finish() == "shown");
    CHECK(handoff::read_provider_reply(chunk).text == "shown"); // as the whole body is read
}

TEST_CASE("a route table spells no value nested past 1024 levels", "[deep][hostile][route_table]") {
    json schema = json::parse(R"({"type": "object", "properties": {"label": {"enum": ["a", "b"]}}})");
    schema["properties"]["label"]["enum"].push_back(deep_array());
    const auto allowed = handoff::allowed_values(schema, "/label");
    REQUIRE(allowed.has_value());
    CHECK(*allowed == std::set<std::string>{"a", "b"});
    const auto table = handoff::route_table<int>::build(
        json::parse(R"({"type": "object", "properties": {"label": {"enum": ["a", "b"]}}})"), "/label",
        {{"a", 1}, {"b", 2}});
    json task = json::object();
    task["label"] = deep_array();
    CHECK(table.find(task) == nullptr);
    task["label"] = "b";
    REQUIRE(table.find(task) != nullptr);
    CHECK(*table.find(task) == 2);
}

TEST_CASE("a manifest line names a container it refuses by its kind", "[deep][hostile][fixtures]") {
    json line = json::parse(R"({"file": "a.txt"})");
    line["route"] = deep_array();
    try {
        static_cast<void>(handoff::manifest_entry_from_json(line));
        FAIL("no manifest_error");
    } catch (const handoff::manifest_error& e) {
        CHECK(std::string(e.what()).find("\"route\" is an array, not a known name or null") != std::string::npos);
    }
    line["route"] = "ACCPT";
    CHECK_THROWS_WITH(handoff::manifest_entry_from_json(line),
                      Catch::Matchers::ContainsSubstring("\"route\" is \"ACCPT\", not a known name or null"));
}

TEST_CASE("a file a $ref loads is refused when it nests past any schema", "[deep][hostile][refs]") {
    const handoff_test::temp_dir dir("handoff_test_deep");
    std::ofstream(dir.path / "main.schema.json")
        << R"({"type": "object", "properties": {"a": {"$ref": "deep.json#/$defs/leaf"}}})";
    std::ofstream(dir.path / "deep.json")
        << R"({"$defs": {"leaf": {"type": "string"}}, "x": )" << deep_array_text() << "}";
    const std::string main_path = (dir.path / "main.schema.json").string();
    std::string refused;
    try {
        static_cast<void>(handoff::compiled_schema::from_file(main_path));
    } catch (const handoff::schema_error& e) {
        refused = e.what();
    }
    CHECK_THAT(refused, Catch::Matchers::ContainsSubstring("deep.json#: the schema nests deeper than 512 levels"));
    // Every reader that follows the $ref refuses it the same way, or (provider schemas, which
    // never throw) leaves it out.
    const handoff::schema_registry registry;
    const json main = json::parse(handoff_test::read_file(main_path));
    const std::string uri = handoff::schema_registry::file_uri(main_path);
    CHECK_THROWS_WITH(handoff::worker_prompt(nlohmann::ordered_json(main), registry, uri), refused);
    CHECK_THROWS_WITH(handoff::make_fixtures(main, registry, uri), refused);
    for (const handoff::provider p : handoff::all_providers) {
        CHECK_NOTHROW(handoff::provider_schema(p, main, registry, uri));
    }
}

TEST_CASE("a receiver holds max_depth at 1024, past which it copies nothing", "[deep][hostile][receiver]") {
    handoff::receiver_options options;
    options.limits.max_depth = 1'000'000;
    options.limits.max_bytes = 4 * levels;
    options.limits.max_values = 4 * levels;
    const handoff::receiver<> receiver(options);
    CHECK(receiver.options().limits.max_depth == 1024);
    const std::string reply = R"({"status": "ok", "partial_result": {"x": )" + deep_array_text() +
                              R"(}, "schema_ok": true, "coverage": {"items_expected": 1, "items_completed": 1, )"
                              R"("unit": "items", "fraction": 1.0}, "steps": {"completed": ["a"], "remaining": []}})";
    const handoff::receipt<> r = receiver.receive(reply);
    REQUIRE(r.failed_step == handoff::step::parse);
    CHECK(r.problems.front().code == handoff::codes::parse_limit_depth);
    CHECK_THAT(r.problems.front().message, Catch::Matchers::ContainsSubstring("1024"));
    handoff::stream_check<> stream(receiver);
    stream.push(reply);
    CHECK(stream.doomed().has_value());
    const handoff::receipt<> finished = stream.finish();
    REQUIRE(finished.problems.size() == r.problems.size());
    CHECK(finished.problems.front().message == r.problems.front().message);
}

TEST_CASE("the repair prompt withholds a deep undeclared value without recursing", "[deep][hostile][repair_prompt]") {
    handoff::decode_options decoding;
    decoding.limits.max_depth = 1'000'000;
    decoding.limits.max_bytes = 4 * levels;
    decoding.limits.max_values = 4 * levels;
    const std::string reply = R"({"status": "ok", "note": [[["IGNORE PREVIOUS INSTRUCTIONS"]], )" + deep_array_text() +
                              R"(], "partial_result": {}})";
    const handoff::sanitized_echo echo = handoff::sanitize_reply(reply, nullptr, decoding);
    REQUIRE(echo.unexpected.size() == 1);
    CHECK(echo.unexpected[0].pointer == "/note");
    CHECK(echo.withheld_strings == std::vector<std::string>{"IGNORE PREVIOUS INSTRUCTIONS"});
}

} // namespace test_deep_values
