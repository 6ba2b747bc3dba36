// SPDX-License-Identifier: MIT
// <handoff/provider_nulls.hpp>: a reply decoded under OpenAI's strict schema says null for every
// optional field it leaves out; removing exactly those nulls turns it back into an envelope the
// receiver accepts, and no other null is touched.

#include "support/catch.hpp"

#include <handoff/provider_nulls.hpp>
#include <handoff/provider_schema.hpp>
#include <handoff/receiver.hpp>

#include <nlohmann/json.hpp>

#include <fstream> // ifstream
#include <string>  // string

namespace test_provider_nulls { // this file's own names: see "unity build" in tests/CMakeLists.txt

#ifndef HANDOFF_FIXTURES_DIR
#error "HANDOFF_FIXTURES_DIR must name tests/fixtures"
#endif

namespace {

using ojson = nlohmann::ordered_json;

ojson ticket_schema() {
    std::ifstream in(std::string(HANDOFF_FIXTURES_DIR) + "/../../examples/schemas/ticket.schema.json");
    REQUIRE(in.good());
    return ojson::parse(in);
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
                              {"properties", {{"id", {{"type", "string"}}}, {"note", {{"type", "string"}}}}}}}}}}}};
    const auto sent = handoff::provider_schema(handoff::provider::openai, &task);
    ojson reply = {
        {"status", "ok"},
        {"budget", {{"tokens_used", nullptr}, {"token_cap", 10}}},
        {"partial_result", {{"rows", {{{"id", "a"}, {"note", nullptr}}, {{"id", nullptr}, {"note", "x"}}}}}}};
    handoff::remove_nulled_optionals(reply, sent);
    CHECK(reply["budget"] == ojson{{"token_cap", 10}});
    CHECK(reply["partial_result"]["rows"][0] == ojson{{"id", "a"}});
    CHECK(reply["partial_result"]["rows"][1] == ojson{{"id", nullptr}, {"note", "x"}}); // id is required: kept
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

} // namespace test_provider_nulls
