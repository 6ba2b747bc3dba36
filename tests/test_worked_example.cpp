// SPDX-License-Identifier: MIT
// The acceptance story of SPEC section 4: seed 000's worked example, 40 product records, read
// from tests/fixtures/worked_example/ (the same files examples/worked_example.cpp reads).
//   run 1  TOKEN_CAP at 0.35 (14 of 40)    -> SPLIT 15-24, 25-34, 35-40
//   run 2  TIME_CAP at 0.60 (6 of 10)      -> NARROW to the four remaining records
//   run 3  DEPENDENCY_FAILED               -> ESCALATE with the partial result, spend nothing

#include "support/fixtures.hpp"

#include <handoff/receipt_json.hpp>
#include <handoff/receiver.hpp>

#include <string> // string
#include <vector> // vector

namespace test_worked_example { // this file's own names: see "unity build" in tests/CMakeLists.txt

using handoff::action;
using handoff::band;
using handoff::item_range;
using handoff::route;
using handoff_test::read_fixture;
using handoff_test::step_name;
using nlohmann::json;

namespace {

struct orchestrator {
    handoff::disagreement_ledger ledger;
    handoff::receiver<> receiver;

    orchestrator() : receiver(handoff_test::records_schema(), options(ledger)) {}

    static handoff::receiver_options options(handoff::disagreement_ledger& l) {
        handoff::receiver_options o;
        o.ledger = &l;
        return o;
    }
};

} // namespace

TEST_CASE("seed 000 run 1: a TOKEN_CAP at 0.35 splits the 26 records left over three workers", "[worked-example]") {
    orchestrator o;
    const auto r = o.receiver.receive(read_fixture("worked_example/run1_token_cap.json"));
    CHECK(step_name(r.failed_step) == "null");
    CHECK(r.problems.empty());
    CHECK(r.schema_ok);
    CHECK(r.route == route::split);
    REQUIRE(r.decision.has_value());
    const handoff::decision& d = *r.decision;
    CHECK(d.reason == handoff::reason_code::token_cap);
    CHECK(d.usable_coverage == Catch::Approx(0.35));
    CHECK(d.coverage_band == band::low);
    CHECK(d.ranges == std::vector<item_range>{{15, 24}, {25, 34}, {35, 40}});
    CHECK(d.unit == "records");
    CHECK(d.chunk == 10); // floor(0.75 x 14)
    // The worker asked to RESUME on three times the budget: the table does not buy budget below 0.8.
    CHECK(d.budget_multiplier == 1.0);
    REQUIRE(d.disagreement.has_value());
    CHECK(d.disagreement->hint_action == action::resume);
    CHECK(d.disagreement->table_action == action::split);
    // The 14 records already extracted are kept.
    REQUIRE(r.envelope->partial_result.has_value());
    CHECK((*r.envelope->partial_result)["records"].size() == 14);

    const json j = handoff::to_json(r);
    CHECK(j["decision"]["ranges"] == json::parse(R"([{"from":15,"to":24},{"from":25,"to":34},{"from":35,"to":40}])"));
    CHECK(j["decision"]["hint_disagreement"] == json{{"hint", "RESUME"}, {"table", "SPLIT"}});
}

TEST_CASE("seed 000 run 2: a TIME_CAP at 0.60 narrows to exactly the four remaining records", "[worked-example]") {
    orchestrator o;
    // One of run 1's split workers: attempt 1, one split deep.
    const auto r = o.receiver.receive(read_fixture("worked_example/run2_time_cap.json"), {1, 1});
    CHECK(step_name(r.failed_step) == "null");
    CHECK(r.problems.empty());
    CHECK(r.route == route::narrow);
    REQUIRE(r.decision.has_value());
    CHECK(r.decision->coverage_band == band::mid);
    CHECK(r.decision->usable_coverage == Catch::Approx(0.6));
    CHECK(r.decision->scope == std::vector<std::string>{"record 7", "record 8", "record 9", "record 10"});
    CHECK(r.decision->ranges.empty());
    CHECK(r.decision->budget_multiplier == 1.0); // same budget; the hint asked for 2.0
    REQUIRE(r.decision->disagreement.has_value());
    CHECK(r.decision->disagreement->hint_action == action::resume);
    CHECK(r.decision->disagreement->table_action == action::narrow);
}

TEST_CASE("seed 000 run 3: DEPENDENCY_FAILED escalates with the partial result and spends nothing",
          "[worked-example]") {
    orchestrator o;
    const auto r = o.receiver.receive(read_fixture("worked_example/run3_dependency_failed.json"), {1, 1});
    CHECK(step_name(r.failed_step) == "null");
    CHECK(r.route == route::escalate);
    REQUIRE(r.decision.has_value());
    CHECK(r.decision->budget_multiplier == 0.0);
    CHECK(r.decision->scope.empty());
    CHECK(r.decision->ranges.empty());
    REQUIRE(r.envelope->partial_result.has_value());
    CHECK((*r.envelope->partial_result)["records"].size() == 3);

    const json j = handoff::to_json(r);
    CHECK(j["route"] == "ESCALATE");
    CHECK(j["decision"]["budget_multiplier"] == 0.0);
    CHECK(j["decision"]["partial_result"]["records"][0]["id"] == "record 1");
    CHECK(j["decision"]["partial_result"]["records"].size() == 3);
    CHECK(j["decision"]["problems"] == json::array());
}

TEST_CASE("seed 000: the three runs leave three disagreements in the ledger", "[worked-example][ledger]") {
    orchestrator o;
    (void)o.receiver.receive(read_fixture("worked_example/run1_token_cap.json"));
    (void)o.receiver.receive(read_fixture("worked_example/run2_time_cap.json"), {1, 1});
    (void)o.receiver.receive(read_fixture("worked_example/run3_dependency_failed.json"), {1, 1});
    CHECK(o.ledger.total() == 3);
    CHECK(o.ledger.to_json() == json::parse(R"([
        {"reason_code": "TOKEN_CAP", "band": "low", "table_action": "SPLIT", "hint_action": "RESUME", "count": 1},
        {"reason_code": "TIME_CAP", "band": "mid", "table_action": "NARROW", "hint_action": "RESUME", "count": 1},
        {"reason_code": "DEPENDENCY_FAILED", "band": "mid", "table_action": "ESCALATE", "hint_action": "RESUME", "count": 1}
    ])"));
}

TEST_CASE("seed 000's fixtures are what the story says", "[worked-example]") {
    const json run1 = handoff_test::read_fixture_json("worked_example/run1_token_cap.json");
    CHECK(run1["coverage"] ==
          json{{"items_expected", 40}, {"items_completed", 14}, {"unit", "records"}, {"fraction", 0.35}});
    const json run2 = handoff_test::read_fixture_json("worked_example/run2_time_cap.json");
    CHECK(run2["coverage"] ==
          json{{"items_expected", 10}, {"items_completed", 6}, {"unit", "records"}, {"fraction", 0.6}});
    CHECK(run2["steps"]["remaining"] == json::array({"record 7", "record 8", "record 9", "record 10"}));
    const json run3 = handoff_test::read_fixture_json("worked_example/run3_dependency_failed.json");
    CHECK(run3["reason_code"] == "DEPENDENCY_FAILED");
    CHECK(run3["partial_result"]["records"].size() == 3);
}

} // namespace test_worked_example
