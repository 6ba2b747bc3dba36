// SPDX-License-Identifier: MIT
// <handoff/provider_nulls.hpp>: a reply decoded under OpenAI's strict schema says null for every
// optional field it leaves out; removing exactly those nulls turns it back into an envelope the
// receiver accepts, and no other null is touched.

#include "support/catch.hpp"
#include "support/fixtures.hpp"

#include <handoff/detail/provider/nulled_optionals.hpp>
#include <handoff/provider_nulls.hpp>
#include <handoff/provider_schema.hpp>
#include <handoff/receiver.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>  // sort, count_if, any_of
#include <cstddef>    // size_t
#include <filesystem> // directory_iterator
#include <string>     // string
#include <vector>     // vector

namespace test_provider_nulls { // this file's own names: see "unity build" in tests/CMakeLists.txt

namespace {

using ojson = nlohmann::ordered_json;

ojson read_schema(const std::string& path) { return ojson::parse(handoff_test::read_file(path)); }

ojson ticket_schema() { return read_schema(handoff_test::fixture_path("../../examples/schemas/ticket.schema.json")); }

/// The reply places of the made_nullable notes provider_schema() writes, sorted.
std::vector<handoff::detail::instance_path> noted_places(const handoff::provider_schema_result& sent) {
    std::vector<handoff::detail::instance_path> places;
    for (const handoff::schema_note& note : sent.notes) {
        if (note.kind == handoff::schema_note_kind::made_nullable) {
            handoff::detail::add_nulled_path(places, note.pointer);
        }
    }
    std::sort(places.begin(), places.end());
    return places;
}

// What a model writes under the OpenAI schema for a finished ticket: every optional envelope
// field present and null, reason_code null as the contract allows.
const std::string strict_reply = R"({"status":"ok","reason_code":null,"partial_result":{"label":"billing",)"
                                 R"("severity":"p2","summary":"Customer was charged twice for the March invoice.",)"
                                 R"("citations":["SOURCE-1"]},"schema_ok":true,"coverage":{"items_expected":1,)"
                                 R"("items_completed":1,"unit":"ticket","fraction":1},"steps":{"completed":["triage"],)"
                                 R"("remaining":[]},"retry_hint":null,"trace":null,"budget":null})";

} // namespace

TEST_CASE("an OpenAI strict reply with nulled optionals is refused as sent and accepted once they are removed",
          "[provider_nulls]") {
    const ojson task = ticket_schema();
    const auto sent = handoff::provider_schema(handoff::provider::openai, &task);
    const handoff::receiver<> receiver(nlohmann::json::parse(task.dump()));
    CHECK(receiver.receive(strict_reply).route == handoff::route::repair);
    const std::string cleaned = handoff::remove_nulled_optionals(strict_reply, sent);
    const ojson envelope = ojson::parse(cleaned);
    CHECK_FALSE(envelope.contains("retry_hint"));
    CHECK_FALSE(envelope.contains("trace"));
    CHECK_FALSE(envelope.contains("budget"));
    CHECK(envelope.contains("reason_code")); // its null is the contract's own, not the provider's
    CHECK(envelope.begin().key() == "status");
    CHECK(receiver.receive(cleaned).route == handoff::route::accept);
}

TEST_CASE("only nulls the provider schema introduced are removed, at any depth", "[provider_nulls]") {
    const ojson task = {{"type", "object"},
                        {"additionalProperties", false},
                        {"required", {"rows"}},
                        {"properties",
                         {{"rows",
                           {{"type", "array"},
                            {"items",
                             {{"type", "object"},
                              {"additionalProperties", false},
                              {"required", {"id"}},
                              {"properties", {{"id", {{"type", "string"}}}, {"note", {{"type", "string"}}}}}}}}},
                          // A key may be any string, "*" too: it is a key here, not "every item".
                          {"*", {{"type", "string"}}}}}};
    const auto sent = handoff::provider_schema(handoff::provider::openai, &task);
    ojson reply = {{"status", "ok"},
                   {"budget", {{"tokens_used", nullptr}, {"token_cap", 10}}},
                   {"partial_result",
                    {{"rows", {{{"id", "a"}, {"note", nullptr}}, {{"id", nullptr}, {"note", "x"}}}}, {"*", nullptr}}}};
    handoff::remove_nulled_optionals(reply, sent);
    CHECK(reply["budget"] == ojson{{"token_cap", 10}});
    CHECK(reply["partial_result"]["rows"][0] == ojson{{"id", "a"}});
    CHECK(reply["partial_result"]["rows"][1] == ojson{{"id", nullptr}, {"note", "x"}}); // id is required: kept
    CHECK_FALSE(reply["partial_result"].contains("*"));
}

TEST_CASE("a reply that is not JSON, or a schema with nothing made nullable, comes back unchanged",
          "[provider_nulls]") {
    const ojson task = ticket_schema();
    const auto openai = handoff::provider_schema(handoff::provider::openai, &task);
    CHECK(handoff::remove_nulled_optionals("```json\n{\"budget\": null}\n```", openai) ==
          "```json\n{\"budget\": null}\n```");
    const auto anthropic = handoff::provider_schema(handoff::provider::anthropic, &task);
    CHECK(handoff::remove_nulled_optionals(strict_reply, anthropic) == strict_reply);
}

// The receiver finds the places by walking nlohmann::json with the rewrite's rules, without
// building the rewrite; provider_schema() rewrites ordered_json in the author's order. Both must
// name the same places.
TEST_CASE("the receiver's nulled places are exactly those of provider_schema()'s made_nullable notes",
          "[provider_nulls]") {
    std::vector<std::string> files = {handoff_test::fixture_path("../../examples/schemas/ticket.schema.json"),
                                      handoff_test::fixture_path("../../examples/schemas/invoice.schema.json")};
    for (const auto& entry : std::filesystem::directory_iterator(handoff_test::fixture_path("schemas"))) {
        if (entry.path().extension() == ".json" && entry.path().filename() != "number_cases.json") {
            files.push_back(entry.path().string());
        }
    }
    std::size_t task_places = 0; // places inside partial_result: the tasks' own optionals
    for (const handoff::provider target : handoff::all_providers) {
        CAPTURE(std::string(handoff::to_string(target)));
        auto envelope_only = handoff::detail::nulled_optional_paths(target, nullptr);
        std::sort(envelope_only.begin(), envelope_only.end());
        CHECK(envelope_only == noted_places(handoff::provider_schema(target, nullptr)));
        for (const std::string& file : files) {
            CAPTURE(file);
            const ojson ordered = read_schema(file);
            const nlohmann::json sorted = nlohmann::json::parse(ordered.dump());
            auto places = handoff::detail::nulled_optional_paths(target, &sorted);
            std::sort(places.begin(), places.end());
            CHECK(places == noted_places(handoff::provider_schema(target, &ordered)));
            task_places += static_cast<std::size_t>(std::count_if(
                places.begin(), places.end(), [](const auto& place) { return place.front() == "partial_result"; }));
        }
    }
    CHECK(task_places > 0);
}

TEST_CASE("a receiver told the reply came from OpenAI reads its nulled optionals as absent, fenced or not",
          "[provider_nulls]") {
    const nlohmann::json task = nlohmann::json::parse(ticket_schema().dump());
    handoff::receiver_options options;
    options.from = handoff::provider::openai;
    const handoff::receiver<> from_openai(task, options);
    const auto receipt = from_openai.receive(strict_reply);
    CHECK(receipt.route == handoff::route::accept);
    CHECK(receipt.problems.empty());
    CHECK_FALSE(receipt.envelope->retry_hint.has_value());
    // The tolerant decode still runs first: a fence around the reply is removed and recorded.
    const auto fenced = from_openai.receive("```json\n" + strict_reply + "\n```");
    CHECK(fenced.route == handoff::route::accept);
    CHECK(fenced.tolerances.size() == 1);
    // A null the provider schema did not introduce is still the receiver's to refuse.
    std::string bad = strict_reply;
    bad.replace(bad.find("\"severity\":\"p2\""), 15, "\"severity\":null");
    CHECK(from_openai.receive(bad).route == handoff::route::repair);
    // Told nothing, the same receiver refuses the nulls, as the contract says.
    CHECK(handoff::receiver<>(task).receive(strict_reply).route == handoff::route::repair);
}

// The receiver finds the provider's nulls on the schema as given, without writing it out: a
// schema built in code with a byte that is not UTF-8 builds a receiver with `from` set, and that
// receiver still reads the provider's null for the optional property as absent.
TEST_CASE("a schema with a byte that is not UTF-8 builds a receiver with from set that reads nulled optionals",
          "[provider_nulls]") {
    const nlohmann::json task = {
        {"type", "object"},
        {"additionalProperties", false},
        {"properties", {{"note", {{"type", "string"}, {"description", std::string("caf\xe9 in Latin-1")}}}}}};
    handoff::receiver_options options;
    options.from = handoff::provider::openai;
    const handoff::receiver<> from_openai(task, options);
    const handoff::receiver<> plain(task);
    std::string reply = strict_reply;
    const std::size_t start = reply.find("\"partial_result\":") + std::string("\"partial_result\":").size();
    const std::size_t end = reply.find(",\"schema_ok\"");
    reply.replace(start, end - start, R"({"note":null})");
    const std::string envelope_nulls = R"(,"retry_hint":null,"trace":null,"budget":null)";
    reply.erase(reply.find(envelope_nulls), envelope_nulls.size()); // only the task's null is left
    // OpenAI's null for the absent note is read as absent; told nothing, the receiver refuses it.
    const auto read = from_openai.receive(reply);
    CHECK(read.route == handoff::route::accept);
    CHECK(read.problems.empty());
    const auto refused = plain.receive(reply);
    CHECK(refused.route == handoff::route::repair);
    CHECK(std::any_of(refused.problems.begin(), refused.problems.end(),
                      [](const auto& problem) { return problem.pointer == "/partial_result/note"; }));
}

} // namespace test_provider_nulls
