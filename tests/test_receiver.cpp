// SPDX-License-Identifier: MIT
// <handoff/receiver.hpp>: the five steps of SPEC section 3 end to end, from model text to a
// receipt: every contract failure with its step, pointer and message, the schema_ok downgrade
// (detected and reported), usable-coverage routing, and every reason_code in every band and on
// every band edge.

#include "support/fixtures.hpp"

#include <handoff/detail/envelope/reader.hpp>
#include <handoff/receipt_json.hpp>
#include <handoff/receiver.hpp>

#include <cstdint>  // uint64_t
#include <optional> // optional
#include <string>   // string
#include <vector>   // vector

namespace test_receiver { // this file's own names: see "unity build" in tests/CMakeLists.txt

using handoff::action;
using handoff::band;
using handoff::item_range;
using handoff::reason_code;
using handoff::route;
using handoff::step;
using handoff_test::read_fixture;
using handoff_test::step_name;
using nlohmann::json;

namespace {

using ranges = std::vector<item_range>;

const handoff::receiver<>& sections_receiver() {
    static const handoff::receiver<> receiver(handoff_test::sections_schema());
    return receiver;
}

handoff::receipt<> receive_fixture(const std::string& name) {
    return sections_receiver().receive(read_fixture("envelopes/" + name));
}

/// An envelope from a template: `completed` of 100 sections done, the fraction exact.
std::string capped_envelope(const std::string& reason, std::uint64_t completed, const std::string& hint = "") {
    json doc = {
        {"status", "capped"},
        {"reason_code", reason},
        {"partial_result", {{"sections", {"section 1"}}, {"claims", completed}}},
        {"schema_ok", true},
        {"coverage",
         {{"items_expected", 100},
          {"items_completed", completed},
          {"unit", "sections"},
          {"fraction", static_cast<double>(completed) / 100.0}}},
        {"steps", {{"completed", {"sections 1-" + std::to_string(completed)}}, {"remaining", {"the rest", "dedupe"}}}},
    };
    if (!hint.empty()) {
        doc["retry_hint"] = {{"suggested_action", hint}, {"budget_multiplier", 8.0}};
    }
    return doc.dump(2);
}

} // namespace

// --- ACCEPT ---------------------------------------------------------------------------------

TEST_CASE("counts written as 3.0 or 1.2e4 are the integers they equal", "[receiver][accept]") {
    // Draft-07: a number with a zero fractional part is an integer. The fast reader takes this
    // text; the diagnosing path (strict, no tolerance needed here) reads it alike.
    const std::string text = read_fixture("envelopes/ok_integer_valued_floats.json");
    REQUIRE(handoff::detail::read_envelope(text, handoff::parse_limits{}).has_value());
    const auto r = sections_receiver().receive(text);
    CHECK(r.route == route::accept);
    CHECK(r.problems.empty());
    REQUIRE(r.envelope.has_value());
    CHECK(r.envelope->coverage.items_expected == 3U);
    CHECK(r.envelope->coverage.items_completed == 3U);
    REQUIRE(r.envelope->budget.has_value());
    CHECK(r.envelope->budget->tokens_used == std::optional<std::uint64_t>(12000));
    CHECK(r.envelope->budget->token_cap == std::optional<std::uint64_t>(60000));
    CHECK(r.envelope->budget->tool_calls == std::optional<std::uint64_t>(0));
}

TEST_CASE("a count of 3.5 is a contract failure with the usual message", "[receiver][repair]") {
    std::string text = read_fixture("envelopes/ok_integer_valued_floats.json");
    text.replace(text.find("3.0"), 3, "3.5");
    const auto r = sections_receiver().receive(text);
    CHECK(r.route == route::repair);
    REQUIRE(r.problems.size() == 1);
    CHECK(r.problems[0].message == "/coverage/items_expected: expected an integer >= 0, got the number 3.5");
}

TEST_CASE("an ok envelope that passes every check is accepted with its result", "[receiver][accept]") {
    const auto r = receive_fixture("ok_complete.json");
    CHECK(r.route == route::accept);
    CHECK(r.accepted());
    CHECK_FALSE(r.contract_failure());
    CHECK(step_name(r.failed_step) == "null");
    CHECK(r.schema_ok);
    CHECK(r.problems.empty());
    CHECK_FALSE(r.decision.has_value());
    CHECK(r.tolerances.empty());
    REQUIRE(r.envelope.has_value());
    REQUIRE(r.envelope->partial_result.has_value());
    CHECK((*r.envelope->partial_result)["claims"] == 20);
    CHECK(r.envelope->schema_ok);
    REQUIRE(r.envelope->trace.has_value());
    CHECK(r.envelope->trace->trace_id == "4bf92f3577b34da6");
}

TEST_CASE("without a task schema any object is a result", "[receiver][accept]") {
    const handoff::receiver<> receiver;
    const auto r = receiver.receive(read_fixture("envelopes/ok_invalid_result.json"));
    CHECK(r.route == route::accept);
    CHECK(r.schema_ok);
}

// --- Contract failures: REPAIR with the failed step -----------------------------------------

TEST_CASE("a reply that is not JSON is a parse failure", "[receiver][repair]") {
    const auto r = sections_receiver().receive("I'm sorry, I ran out of time before I could answer.");
    CHECK(r.route == route::repair);
    CHECK(r.contract_failure());
    CHECK(step_name(r.failed_step) == "parse");
    CHECK_FALSE(r.schema_ok);
    CHECK_FALSE(r.envelope.has_value());
    CHECK_FALSE(r.decision.has_value());
    REQUIRE(r.problems.size() == 1);
    CHECK(r.problems[0].step == step::parse);
    CHECK(r.problems[0].code == "parse.no_object");
    CHECK(r.problems[0].message == "no JSON object found: the reply has no '{' ... '}' span");
}

TEST_CASE("an ok envelope carrying a reason_code fails step 2", "[receiver][repair]") {
    const auto r = receive_fixture("ok_with_reason_code.json");
    CHECK(r.route == route::repair);
    CHECK(step_name(r.failed_step) == "envelope_schema");
    CHECK_FALSE(r.envelope.has_value());
    REQUIRE(r.problems.size() == 1);
    CHECK(r.problems[0].code == "envelope.forbidden");
    CHECK(r.problems[0].pointer == "/reason_code");
    CHECK(r.problems[0].message == "/reason_code: must be absent or null when status is \"ok\", got \"TOKEN_CAP\"");
}

TEST_CASE("an unknown reason_code fails step 2, not routing", "[receiver][repair]") {
    const auto r = receive_fixture("capped_unknown_reason_code.json");
    CHECK(r.route == route::repair);
    CHECK(step_name(r.failed_step) == "envelope_schema");
    CHECK_FALSE(r.decision.has_value());
    REQUIRE(r.problems.size() == 1);
    CHECK(r.problems[0].step == step::envelope_schema);
    CHECK(r.problems[0].code == "envelope.enum");
    CHECK(r.problems[0].pointer == "/reason_code");
    CHECK(r.problems[0].message == "/reason_code: \"RATE_LIMITED\" is not a reason code: use one of TOKEN_CAP, "
                                   "TIME_CAP, TOOL_CALL_CAP, CONTEXT_OVERFLOW, DEPENDENCY_FAILED, SCOPE_TOO_BROAD");
}

TEST_CASE("an ok envelope whose result fails the task schema is REPAIRed at task_schema", "[receiver][repair][task]") {
    const auto r = receive_fixture("ok_invalid_result.json");
    CHECK(r.route == route::repair);
    CHECK(step_name(r.failed_step) == "task_schema");
    CHECK_FALSE(r.schema_ok);
    CHECK_FALSE(r.decision.has_value());
    // The envelope passed step 2, so it is there, with the result discarded.
    REQUIRE(r.envelope.has_value());
    CHECK_FALSE(r.envelope->partial_result.has_value());
    CHECK_FALSE(r.envelope->schema_ok);
    REQUIRE(r.problems.size() == 1);
    CHECK(r.problems[0].step == step::task_schema);
    CHECK(r.problems[0].code == "task.schema");
    CHECK(r.problems[0].pointer == "/partial_result/summary");
    CHECK(r.problems[0].message ==
          "/partial_result/summary: the property \"summary\" is not allowed here (additionalProperties is false)");
}

TEST_CASE("an ok envelope with a null result is REPAIRed at task_schema", "[receiver][repair][task]") {
    const auto r = receive_fixture("ok_null_result.json");
    CHECK(r.route == route::repair);
    CHECK(step_name(r.failed_step) == "task_schema");
    REQUIRE(r.problems.size() == 1);
    CHECK(r.problems[0].code == "task.absent");
    CHECK(r.problems[0].pointer == "/partial_result");
    CHECK(r.problems[0].message == "/partial_result: null, but status \"ok\" means partial_result is the whole result");
}

TEST_CASE("an ok envelope whose worker says schema_ok false is REPAIRed without validation",
          "[receiver][repair][task]") {
    json doc = handoff_test::read_fixture_json("envelopes/ok_complete.json");
    doc["schema_ok"] = false;
    const auto r = sections_receiver().receive(doc.dump());
    CHECK(r.route == route::repair);
    CHECK(step_name(r.failed_step) == "task_schema");
    REQUIRE(r.problems.size() == 1);
    CHECK(r.problems[0].code == "task.self_reported_invalid");
}

TEST_CASE("coverage arithmetic that does not add up is REPAIRed at coverage", "[receiver][repair][coverage]") {
    const auto r = receive_fixture("coverage_fraction_mismatch.json");
    CHECK(r.route == route::repair);
    CHECK(step_name(r.failed_step) == "coverage");
    CHECK(r.schema_ok); // step 3 passed
    CHECK_FALSE(r.decision.has_value());
    REQUIRE(r.problems.size() == 1);
    CHECK(r.problems[0].step == step::coverage);
    CHECK(r.problems[0].code == "coverage.fraction_mismatch");
    CHECK(r.problems[0].pointer == "/coverage/fraction");
    CHECK(r.problems[0].message == "/coverage/fraction: 0.9 disagrees with 28/40 = 0.70");
}

TEST_CASE("an ok envelope that did not complete every item is REPAIRed at coverage", "[receiver][repair][coverage]") {
    json doc = handoff_test::read_fixture_json("envelopes/ok_complete.json");
    doc["coverage"]["items_completed"] = 7;
    doc["coverage"]["fraction"] = 0.88;
    const auto r = sections_receiver().receive(doc.dump());
    CHECK(r.route == route::repair);
    CHECK(step_name(r.failed_step) == "coverage");
    REQUIRE(r.problems.size() == 1);
    CHECK(r.problems[0].code == "coverage.ok_incomplete");
    CHECK(r.problems[0].pointer == "/coverage/items_completed");
}

TEST_CASE("the first failed step is reported and every problem is kept in step order", "[receiver][repair]") {
    // ok, with a result outside the task schema AND a fraction that disagrees.
    json doc = handoff_test::read_fixture_json("envelopes/ok_invalid_result.json");
    doc["coverage"]["fraction"] = 0.5;
    const auto r = sections_receiver().receive(doc.dump());
    CHECK(r.route == route::repair);
    CHECK(step_name(r.failed_step) == "task_schema");
    REQUIRE(r.problems.size() == 2);
    CHECK(r.problems[0].step == step::task_schema);
    CHECK(r.problems[1].step == step::coverage);
    CHECK(r.problems[1].message == "/coverage/fraction: 0.5 disagrees with 8/8 = 1.00");
}

TEST_CASE("a capped envelope with a coverage failure is REPAIRed, never routed", "[receiver][repair][coverage]") {
    json doc = handoff_test::read_fixture_json("envelopes/capped_time_cap_mid.json");
    doc["coverage"]["items_completed"] = 11;
    const auto r = sections_receiver().receive(doc.dump());
    CHECK(r.route == route::repair);
    CHECK(step_name(r.failed_step) == "coverage");
    CHECK_FALSE(r.decision.has_value());
    REQUIRE(r.problems.size() == 1);
    CHECK(r.problems[0].message == "/coverage/items_completed: 11 completed exceeds the 10 expected");
}

// --- Step 3 downgrade of a capped envelope: reported, routed on usable coverage ------------

TEST_CASE("an invalid partial result is detected: schema_ok false, result absent, routed on coverage 0",
          "[receiver][downgrade]") {
    const auto r = receive_fixture("capped_partial_invalid.json");
    // A downgrade, not a contract failure: the table routes it.
    CHECK(step_name(r.failed_step) == "null");
    CHECK_FALSE(r.contract_failure());
    CHECK_FALSE(r.schema_ok);
    REQUIRE(r.envelope.has_value());
    CHECK_FALSE(r.envelope->schema_ok);
    CHECK_FALSE(r.envelope->partial_result.has_value());
    // The task errors are still reported, each at its pointer inside partial_result.
    CHECK(handoff_test::pointers(r.problems) ==
          std::vector<std::string>{"/partial_result/claims", "/partial_result/sections"});
    CHECK(handoff_test::codes(r.problems) == std::vector<std::string>{"task.schema", "task.schema"});
    for (const auto& p : r.problems) {
        CHECK(p.step == step::task_schema);
    }
    CHECK_THAT(r.problems[0].message, Catch::Matchers::StartsWith("/partial_result/claims: must be at least 0"));
    CHECK_THAT(r.problems[1].message, Catch::Matchers::StartsWith("/partial_result/sections: must be of type array"));
    // 28 of 40 would be the mid band (SPLIT 29..40); with nothing usable all 40 are redone.
    CHECK(r.route == route::split);
    REQUIRE(r.decision.has_value());
    CHECK(r.decision->usable_coverage == 0.0);
    CHECK(r.decision->coverage_band == band::low);
    CHECK(r.decision->ranges == ranges{{1, 5}, {6, 10}, {11, 15}, {16, 20}, {21, 25}, {26, 30}, {31, 35}, {36, 40}});
}

TEST_CASE("schema_ok false from the worker is reported: discarded without validation", "[receiver][downgrade]") {
    const auto r = receive_fixture("capped_self_reported_invalid.json");
    CHECK(step_name(r.failed_step) == "null");
    CHECK_FALSE(r.schema_ok);
    REQUIRE(r.envelope.has_value());
    CHECK_FALSE(r.envelope->partial_result.has_value());
    // Only the worker's own report: its "claims": "several" is never validated.
    REQUIRE(r.problems.size() == 1);
    CHECK(r.problems[0].step == step::task_schema);
    CHECK(r.problems[0].code == "task.self_reported_invalid");
    CHECK(r.problems[0].pointer == "/schema_ok");
    CHECK(r.problems[0].message == "/schema_ok: the worker reported that partial_result does not fit the task "
                                   "schema; the partial result is discarded");
    // 9 of 10 would RESUME; nothing is usable, so the low band SPLITs all ten.
    CHECK(r.route == route::split);
    REQUIRE(r.decision.has_value());
    CHECK(r.decision->usable_coverage == 0.0);
    CHECK(r.decision->ranges == ranges{{1, 2}, {3, 4}, {5, 6}, {7, 8}, {9, 10}});
    REQUIRE(r.decision->disagreement.has_value());
    CHECK(r.decision->disagreement->hint_action == action::resume);
    CHECK(r.decision->disagreement->table_action == action::split);
}

TEST_CASE("a worker's schema_ok false is honoured even without a task schema", "[receiver][downgrade]") {
    const handoff::receiver<> receiver;
    const auto r = receiver.receive(read_fixture("envelopes/capped_self_reported_invalid.json"));
    CHECK_FALSE(r.schema_ok);
    CHECK(handoff_test::codes(r.problems) == std::vector<std::string>{"task.self_reported_invalid"});
    CHECK(r.route == route::split);
}

TEST_CASE("a null partial result with completed items routes on coverage 0 and says why", "[receiver][downgrade]") {
    const auto r = receive_fixture("capped_null_partial.json");
    CHECK(step_name(r.failed_step) == "null");
    CHECK_FALSE(r.schema_ok);
    REQUIRE(r.problems.size() == 1);
    CHECK(r.problems[0].code == "task.absent");
    CHECK(r.problems[0].pointer == "/partial_result");
    CHECK(r.problems[0].message == "/partial_result: null although coverage reports 5 completed \"sections\"; "
                                   "nothing completed is usable, so routing uses coverage 0");
    // TIME_CAP at 0.5 would NARROW; at usable 0 it SPLITs.
    CHECK(r.route == route::split);
    REQUIRE(r.decision.has_value());
    CHECK(r.decision->ranges.front() == item_range{1, 2});
    CHECK(r.decision->ranges.back() == item_range{9, 10});
}

TEST_CASE("a null partial result with nothing completed is no problem", "[receiver][downgrade]") {
    json doc = handoff_test::read_fixture_json("envelopes/capped_null_partial.json");
    doc["coverage"]["items_completed"] = 0;
    doc["coverage"]["fraction"] = 0;
    const auto r = sections_receiver().receive(doc.dump());
    CHECK(r.problems.empty());
    CHECK_FALSE(r.schema_ok); // no result is not a valid result
    CHECK(r.route == route::split);
    REQUIRE(r.decision.has_value());
    CHECK(r.decision->ranges.size() == 5);
}

// --- Routing of valid capped envelopes ------------------------------------------------------

TEST_CASE("the fixture envelopes route as the default table says", "[receiver][route]") {
    struct expectation {
        const char* file;
        route expected;
        band expected_band;
        std::optional<action> disagreeing_hint;
    };
    const auto e = GENERATE(values<expectation>({
        {"seed_000_example.json", route::split, band::mid, std::nullopt},
        {"capped_time_cap_mid.json", route::narrow, band::mid, action::resume},
        {"capped_context_overflow_high.json", route::narrow, band::high, action::resume},
        {"capped_tool_call_cap_high.json", route::resume, band::high, std::nullopt},
        {"capped_scope_too_broad_low.json", route::split, band::low, action::narrow},
        {"capped_dependency_failed.json", route::escalate, band::low, action::resume},
    }));
    INFO(e.file);
    const auto r = receive_fixture(e.file);
    CHECK(step_name(r.failed_step) == "null");
    CHECK(r.problems.empty());
    CHECK(r.schema_ok);
    CHECK(r.route == e.expected);
    REQUIRE(r.decision.has_value());
    CHECK(r.decision->coverage_band == e.expected_band);
    CHECK(r.decision->disagreement.has_value() == e.disagreeing_hint.has_value());
    if (e.disagreeing_hint) {
        CHECK(r.decision->disagreement->hint_action == *e.disagreeing_hint);
        CHECK(handoff::to_route(r.decision->disagreement->table_action) == e.expected);
    }
}

TEST_CASE("seed 000's example splits the twelve sections not yet done", "[receiver][route]") {
    const auto r = receive_fixture("seed_000_example.json");
    CHECK(r.route == route::split);
    REQUIRE(r.decision.has_value());
    CHECK(r.decision->ranges == ranges{{29, 40}}); // chunk floor(0.75 x 28) = 21
    CHECK(r.decision->unit == "sections");
    CHECK(r.decision->budget_multiplier == 1.0);
}

TEST_CASE("CONTEXT_OVERFLOW at 0.9 with a RESUME hint narrows, and the disagreement is recorded", "[receiver][hint]") {
    const auto r = receive_fixture("capped_context_overflow_high.json");
    CHECK(r.route == route::narrow);
    REQUIRE(r.decision.has_value());
    CHECK(r.decision->scope == std::vector<std::string>{"section 10", "final validation"});
    CHECK(r.decision->budget_multiplier == 1.0); // the hint asked for 2.0
    REQUIRE(r.decision->disagreement.has_value());
    CHECK(r.decision->disagreement->table_action == action::narrow);
    CHECK(r.decision->disagreement->hint_action == action::resume);
}

TEST_CASE("a TOOL_CALL_CAP at 0.85 resumes on the policy's multiplier, not the hint's 10x", "[receiver][budget]") {
    handoff::receiver_options options;
    options.policy.resume_budget_multiplier = 1.25;
    const handoff::receiver<> receiver(handoff_test::sections_schema(), options);
    const auto r = receiver.receive(read_fixture("envelopes/capped_tool_call_cap_high.json"));
    CHECK(r.route == route::resume);
    REQUIRE(r.decision.has_value());
    CHECK(r.decision->scope == std::vector<std::string>{"sections 18-20", "dedupe"});
    CHECK(r.decision->budget_multiplier == 1.25);
    REQUIRE(r.envelope->retry_hint.has_value());
    CHECK(r.envelope->retry_hint->budget_multiplier == 10.0); // kept for the record, never used
}

TEST_CASE("DEPENDENCY_FAILED escalates with the partial result and spends nothing", "[receiver][route]") {
    const auto r = receive_fixture("capped_dependency_failed.json");
    CHECK(r.route == route::escalate);
    REQUIRE(r.decision.has_value());
    CHECK(r.decision->budget_multiplier == 0.0);
    CHECK(r.decision->ranges.empty());
    CHECK(r.decision->scope.empty());
    REQUIRE(r.envelope->partial_result.has_value());
    CHECK((*r.envelope->partial_result)["sections"].size() == 3);
}

TEST_CASE("the orchestrator's attempt context turns a spending action into FAIL", "[receiver][fail]") {
    const auto text = read_fixture("envelopes/capped_time_cap_mid.json");
    CHECK(sections_receiver().receive(text, {2, 0}).route == route::narrow);
    const auto r = sections_receiver().receive(text, {3, 0});
    CHECK(r.route == route::fail);
    REQUIRE(r.decision.has_value());
    CHECK(r.decision->table_action == action::narrow);
    CHECK(r.decision->budget_multiplier == 0.0);
    // A SPLIT worker already two levels deep may not split again.
    CHECK(sections_receiver().receive(read_fixture("envelopes/seed_000_example.json"), {1, 2}).route == route::fail);
}

TEST_CASE("every reason_code in every band and on every band edge routes end to end", "[receiver][route][table]") {
    struct band_case {
        std::uint64_t completed; // of 100
        band expected_band;
    };
    const auto code = GENERATE(from_range(
        std::vector<reason_code>(std::begin(handoff::all_reason_codes), std::end(handoff::all_reason_codes))));
    const auto c = GENERATE(values<band_case>({
        {0, band::low},
        {25, band::low},
        {49, band::low}, // just below the 0.5 edge
        {50, band::mid}, // on the 0.5 edge
        {65, band::mid},
        {79, band::mid},  // just below the 0.8 edge
        {80, band::high}, // on the 0.8 edge
        {95, band::high},
        {100, band::high}, // capped although everything is done
    }));
    const std::string reason(handoff::to_string(code));
    INFO(reason << " at " << c.completed << "/100");
    const auto r = sections_receiver().receive(capped_envelope(reason, c.completed, "FAIL"));
    REQUIRE(step_name(r.failed_step) == "null");
    CHECK(r.problems.empty());
    REQUIRE(r.decision.has_value());
    const double coverage = static_cast<double>(c.completed) / 100.0;
    const action expected = handoff::decide(code, coverage);
    CHECK(r.decision->coverage_band == c.expected_band);
    CHECK(r.decision->reason == code);
    CHECK(r.decision->usable_coverage == coverage);
    CHECK(r.decision->action == expected);
    CHECK(r.route == handoff::to_route(expected));
    // Every worker hinted FAIL; the table never says FAIL, so each one is a recorded disagreement.
    REQUIRE(r.decision->disagreement.has_value());
    CHECK(r.decision->disagreement->hint_action == action::fail);
    CHECK(r.decision->disagreement->table_action == expected);
    // What each action carries; the hint's budget_multiplier of 8 never appears.
    switch (expected) {
    case action::resume:
        CHECK(r.decision->scope == std::vector<std::string>{"the rest", "dedupe"});
        CHECK(r.decision->budget_multiplier == 1.5);
        break;
    case action::narrow:
        CHECK(r.decision->scope == std::vector<std::string>{"the rest", "dedupe"});
        CHECK(r.decision->budget_multiplier == 1.0);
        break;
    case action::split: {
        REQUIRE_FALSE(r.decision->ranges.empty());
        CHECK(r.decision->ranges.front().from == c.completed + 1);
        CHECK(r.decision->ranges.back().to == 100);
        CHECK(r.decision->ranges.size() <= 8);
        const std::uint64_t chunk = c.completed == 0 ? 13 : std::max<std::uint64_t>(1, c.completed * 3 / 4);
        CHECK(r.decision->chunk == std::max<std::uint64_t>(chunk, (100 - c.completed + 7) / 8));
        CHECK(r.decision->budget_multiplier == 1.0);
        break;
    }
    case action::escalate:
    case action::fail:
        CHECK(r.decision->budget_multiplier == 0.0);
        CHECK(r.decision->ranges.empty());
        break;
    }
}

TEST_CASE("the exact default-table route of each reason_code on each band edge", "[receiver][route][table]") {
    // Spelled out, so that a change to the default table cannot hide behind decide() above.
    struct edge_case {
        const char* reason;
        std::uint64_t completed;
        route expected;
    };
    const auto e = GENERATE(values<edge_case>({
        {"TOKEN_CAP", 49, route::split},
        {"TOKEN_CAP", 50, route::split},
        {"TOKEN_CAP", 79, route::split},
        {"TOKEN_CAP", 80, route::resume},
        {"TOOL_CALL_CAP", 49, route::split},
        {"TOOL_CALL_CAP", 50, route::split},
        {"TOOL_CALL_CAP", 79, route::split},
        {"TOOL_CALL_CAP", 80, route::resume},
        {"TIME_CAP", 49, route::split},
        {"TIME_CAP", 50, route::narrow},
        {"TIME_CAP", 79, route::narrow},
        {"TIME_CAP", 80, route::resume},
        {"CONTEXT_OVERFLOW", 49, route::split},
        {"CONTEXT_OVERFLOW", 50, route::split},
        {"CONTEXT_OVERFLOW", 79, route::split},
        {"CONTEXT_OVERFLOW", 80, route::narrow},
        {"SCOPE_TOO_BROAD", 49, route::split},
        {"SCOPE_TOO_BROAD", 50, route::split},
        {"SCOPE_TOO_BROAD", 79, route::split},
        {"SCOPE_TOO_BROAD", 80, route::narrow},
        {"DEPENDENCY_FAILED", 49, route::escalate},
        {"DEPENDENCY_FAILED", 50, route::escalate},
        {"DEPENDENCY_FAILED", 79, route::escalate},
        {"DEPENDENCY_FAILED", 80, route::escalate},
    }));
    INFO(e.reason << " at " << e.completed << "/100");
    CHECK(sections_receiver().receive(capped_envelope(e.reason, e.completed)).route == e.expected);
}

TEST_CASE("a receiver routes with the policy's own table", "[receiver][route]") {
    handoff::receiver_options options;
    options.policy.table.edges = handoff::band_edges{0.3, 0.95};
    const handoff::receiver<> receiver(handoff_test::sections_schema(), options);
    CHECK(receiver.receive(capped_envelope("TIME_CAP", 30)).route == route::narrow);
    CHECK(receiver.receive(capped_envelope("TOKEN_CAP", 90)).route == route::split);
    CHECK(receiver.receive(capped_envelope("TOKEN_CAP", 95)).route == route::resume);
}

// --- Step 1 inside the receiver: tolerances recorded, strict mode --------------------------

TEST_CASE("a fenced reply with prose routes, and the receipt records what was removed", "[receiver][tolerant]") {
    const auto r = receive_fixture("fenced_with_prose.md");
    CHECK(r.route == route::narrow);
    CHECK(r.tolerances == std::vector<handoff::tolerance>{handoff::tolerance::code_fence,
                                                          handoff::tolerance::leading_prose,
                                                          handoff::tolerance::trailing_prose});
    CHECK(r.decision->scope == std::vector<std::string>{"section 7", "section 8", "section 9", "section 10"});
}

TEST_CASE("a strict receiver refuses the same reply at parse", "[receiver][strict]") {
    handoff::receiver_options options;
    options.strict = true;
    const handoff::receiver<> receiver(handoff_test::sections_schema(), options);
    const auto r = receiver.receive(read_fixture("envelopes/fenced_with_prose.md"));
    CHECK(r.route == route::repair);
    CHECK(step_name(r.failed_step) == "parse");
    CHECK(r.tolerances.empty());
    REQUIRE(r.problems.size() == 1);
    CHECK(r.problems[0].code == "parse.syntax");
    // ... and accepts the bare envelope.
    CHECK(receiver.receive(read_fixture("envelopes/capped_time_cap_mid.json")).route == route::narrow);
}

TEST_CASE("a receiver's parse limits apply to what it receives", "[receiver][limits]") {
    handoff::receiver_options options;
    options.limits.max_depth = 3;
    const handoff::receiver<> receiver(options);
    const auto r = receiver.receive(read_fixture("envelopes/seed_000_example.json")); // depth 3: fine
    CHECK(r.route == route::split);
    json doc = handoff_test::read_fixture_json("envelopes/seed_000_example.json");
    doc["partial_result"]["sections"] = json::array({json::array({"intro"})});
    const auto deep = receiver.receive(doc.dump());
    CHECK(step_name(deep.failed_step) == "parse");
    REQUIRE(deep.problems.size() == 1);
    CHECK(deep.problems[0].code == "parse.limit.depth");
    CHECK(deep.problems[0].pointer == "/partial_result/sections/0");
}

// --- Robustness: no exception escapes for any input ----------------------------------------

TEST_CASE("every truncation of an envelope is a parse failure, never an exception", "[receiver][robust]") {
    const std::string text = read_fixture("envelopes/seed_000_example.json");
    const std::size_t last_brace = text.rfind('}');
    for (std::size_t n = 0; n < last_brace; ++n) {
        INFO("first " << n << " bytes");
        handoff::receipt<> r;
        REQUIRE_NOTHROW(r = sections_receiver().receive(std::string_view(text).substr(0, n)));
        CHECK(r.route == route::repair);
        CHECK(step_name(r.failed_step) == "parse");
        CHECK(r.problems.size() == 1);
        CHECK_NOTHROW(handoff::to_json(r).dump());
    }
    CHECK(sections_receiver().receive(text.substr(0, last_brace + 1)).route == route::split);
}

TEST_CASE("hostile bytes never throw and always yield a printable receipt", "[receiver][robust]") {
    // A deterministic generator (xorshift): the same inputs on every run.
    std::uint32_t state = 2463534242U;
    const auto next = [&state] {
        state ^= state << 13U;
        state ^= state >> 17U;
        state ^= state << 5U;
        return state;
    };
    static const char chars[] = "{}[]\":,0123456789.eE-+ \n\\u'truefalsnNI`/*\0\xff\xc3\xa9";
    const std::string alphabet(chars, sizeof chars - 1); // with the NUL inside
    for (int i = 0; i < 500; ++i) {
        std::string text;
        const std::uint32_t length = next() % 200;
        for (std::uint32_t k = 0; k < length; ++k) {
            text.push_back(alphabet[next() % alphabet.size()]);
        }
        if (i % 2 == 0) {
            text = "{\"status\": \"capped\", " + text + "}";
        }
        handoff::receipt<> r;
        REQUIRE_NOTHROW(r = sections_receiver().receive(text));
        CHECK(r.route == route::repair);
        CHECK_FALSE(r.problems.empty());
        CHECK_NOTHROW(handoff::to_json(r).dump());
    }
}

TEST_CASE("a task schema that does not compile is a programmer's error and throws schema_error", "[receiver][schema]") {
    CHECK_THROWS_AS(handoff::receiver<>(json::parse(R"({"$ref": "#/definitions/missing"})")), handoff::schema_error);
    CHECK_THROWS_AS(handoff::receiver<>(json::parse(R"({"type": 5})")), handoff::schema_error);
    CHECK_THROWS_AS(handoff::receiver<>(json::array()), handoff::schema_error);
    CHECK_THROWS_AS(handoff::compiled_schema::from_file(handoff_test::fixture_path("schemas/no_such_file.json")),
                    handoff::schema_error);
}

TEST_CASE("a receiver built from a compiled schema receives like one built from JSON", "[receiver][schema]") {
    const auto compiled =
        handoff::compiled_schema::from_file(handoff_test::fixture_path("schemas/seed_000_sections.schema.json"));
    const handoff::receiver<> receiver(compiled);
    const auto r = receiver.receive(read_fixture("envelopes/capped_partial_invalid.json"));
    CHECK_FALSE(r.schema_ok);
    CHECK(handoff_test::pointers(r.problems) ==
          std::vector<std::string>{"/partial_result/claims", "/partial_result/sections"});
}

// --- The receipt as JSON (what handoff-check prints) ---------------------------------------

TEST_CASE("a routed receipt as JSON carries route, step, schema_ok, problems and decision", "[receiver][json]") {
    const json j = handoff::to_json(receive_fixture("capped_context_overflow_high.json"));
    CHECK(j["route"] == "NARROW");
    CHECK(j["step"].is_null());
    CHECK(j["schema_ok"] == true);
    CHECK(j["problems"] == json::array());
    CHECK(j["tolerances"] == json::array());
    CHECK(j["status"] == "capped");
    CHECK(j["reason_code"] == "CONTEXT_OVERFLOW");
    CHECK(j["decision"]["action"] == "NARROW");
    CHECK(j["decision"]["scope"] == json::array({"section 10", "final validation"}));
    CHECK(j["decision"]["budget_multiplier"] == 1.0);
    CHECK(j["decision"]["hint_disagreement"] == json{{"hint", "RESUME"}, {"table", "NARROW"}});
    CHECK_FALSE(j["decision"].contains("ranges"));
}

TEST_CASE("a SPLIT receipt as JSON lists its ranges over the unit", "[receiver][json]") {
    const json j = handoff::to_json(receive_fixture("capped_scope_too_broad_low.json"));
    CHECK(j["route"] == "SPLIT");
    // 1 of 12 done: chunk max(1, floor(0.75)) = 1, eleven items over at most 8 workers -> 2.
    CHECK(j["decision"]["ranges"] == json::parse(R"([{"from":2,"to":3},{"from":4,"to":5},{"from":6,"to":7},
                                                     {"from":8,"to":9},{"from":10,"to":11},{"from":12,"to":12}])"));
    CHECK(j["decision"]["unit"] == "sections");
    CHECK(j["decision"]["chunk"] == 2);
    CHECK(j["decision"]["hint_disagreement"] == json{{"hint", "NARROW"}, {"table", "SPLIT"}});
}

TEST_CASE("an ESCALATE receipt as JSON attaches the partial result and the problems", "[receiver][json]") {
    const json j = handoff::to_json(receive_fixture("capped_dependency_failed.json"));
    CHECK(j["route"] == "ESCALATE");
    CHECK(j["decision"]["budget_multiplier"] == 0.0);
    CHECK(j["decision"]["partial_result"]["sections"] == json::array({"section 1", "section 2", "section 3"}));
    CHECK(j["decision"]["problems"] == json::array());
}

TEST_CASE("a contract failure as JSON names the step and each problem, with no decision", "[receiver][json]") {
    const json j = handoff::to_json(receive_fixture("coverage_fraction_mismatch.json"));
    CHECK(j["route"] == "REPAIR");
    CHECK(j["step"] == "coverage");
    CHECK(j["decision"].is_null());
    CHECK(j["problems"] == json::parse(R"([{"step": "coverage", "code": "coverage.fraction_mismatch",
        "pointer": "/coverage/fraction", "message": "/coverage/fraction: 0.9 disagrees with 28/40 = 0.70"}])"));
}

} // namespace test_receiver
