// SPDX-License-Identifier: MIT
// <handoff/ledger.hpp>: the disagreement ledger counts (reason_code, band, table action, hint
// action) so a team can see which cells of its table workers keep contradicting.

#include "support/fixtures.hpp"

#include <handoff/ledger.hpp>
#include <handoff/receiver.hpp>

#include <thread> // thread
#include <vector> // vector

namespace test_ledger { // this file's own names: see "unity build" in tests/CMakeLists.txt

using handoff::action;
using handoff::band;
using handoff::disagreement_ledger;
using handoff::reason_code;
using nlohmann::json;

TEST_CASE("a new ledger is empty", "[ledger]") {
    const disagreement_ledger ledger;
    CHECK(ledger.total() == 0);
    CHECK(ledger.count(reason_code::time_cap, band::mid, action::narrow, action::resume) == 0);
    CHECK(ledger.to_json() == json::array());
}

TEST_CASE("the ledger counts per reason_code, band, table action and hint action", "[ledger]") {
    disagreement_ledger ledger;
    ledger.record(reason_code::time_cap, band::mid, action::narrow, action::resume);
    ledger.record(reason_code::time_cap, band::mid, action::narrow, action::resume);
    ledger.record(reason_code::time_cap, band::mid, action::narrow, action::resume);
    ledger.record(reason_code::context_overflow, band::high, action::narrow, action::resume);
    ledger.record(reason_code::token_cap, band::low, action::split, action::resume);
    ledger.record(reason_code::token_cap, band::low, action::split, action::resume);

    CHECK(ledger.count(reason_code::time_cap, band::mid, action::narrow, action::resume) == 3);
    CHECK(ledger.count(reason_code::context_overflow, band::high, action::narrow, action::resume) == 1);
    CHECK(ledger.count(reason_code::token_cap, band::low, action::split, action::resume) == 2);
    // Each coordinate is its own cell.
    CHECK(ledger.count(reason_code::time_cap, band::high, action::narrow, action::resume) == 0);
    CHECK(ledger.count(reason_code::time_cap, band::mid, action::resume, action::narrow) == 0);
    CHECK(ledger.count(reason_code::tool_call_cap, band::mid, action::narrow, action::resume) == 0);
    CHECK(ledger.total() == 6);
}

TEST_CASE("the ledger dumps its non-zero cells as JSON, most frequent first", "[ledger]") {
    disagreement_ledger ledger;
    ledger.record(reason_code::context_overflow, band::high, action::narrow, action::resume);
    ledger.record(reason_code::token_cap, band::low, action::split, action::resume);
    ledger.record(reason_code::token_cap, band::low, action::split, action::resume);
    ledger.record(reason_code::time_cap, band::mid, action::narrow, action::resume);
    ledger.record(reason_code::time_cap, band::mid, action::narrow, action::resume);
    ledger.record(reason_code::time_cap, band::mid, action::narrow, action::resume);
    ledger.record(reason_code::dependency_failed, band::low, action::escalate, action::fail);

    // Ties keep the enum order (reason_code, then band, then actions).
    const json expected = json::parse(R"([
        {"reason_code": "TIME_CAP", "band": "mid", "table_action": "NARROW", "hint_action": "RESUME", "count": 3},
        {"reason_code": "TOKEN_CAP", "band": "low", "table_action": "SPLIT", "hint_action": "RESUME", "count": 2},
        {"reason_code": "CONTEXT_OVERFLOW", "band": "high", "table_action": "NARROW", "hint_action": "RESUME", "count": 1},
        {"reason_code": "DEPENDENCY_FAILED", "band": "low", "table_action": "ESCALATE", "hint_action": "FAIL", "count": 1}
    ])");
    CHECK(ledger.to_json() == expected);
}

TEST_CASE("a ledger can be reset", "[ledger]") {
    disagreement_ledger ledger;
    ledger.record(reason_code::scope_too_broad, band::low, action::split, action::narrow);
    REQUIRE(ledger.total() == 1);
    ledger.reset();
    CHECK(ledger.total() == 0);
    CHECK(ledger.to_json().empty());
}

TEST_CASE("one ledger may be shared by many threads", "[ledger][concurrency]") {
    disagreement_ledger ledger;
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
        threads.emplace_back([&ledger, t] {
            for (int i = 0; i < 1000; ++i) {
                ledger.record(reason_code::tool_call_cap, t % 2 == 0 ? band::low : band::high, action::split,
                              action::resume);
            }
        });
    }
    for (auto& th : threads) {
        th.join();
    }
    CHECK(ledger.total() == 4000);
    CHECK(ledger.count(reason_code::tool_call_cap, band::low, action::split, action::resume) == 2000);
    CHECK(ledger.count(reason_code::tool_call_cap, band::high, action::split, action::resume) == 2000);
}

TEST_CASE("a receiver counts every hint the table overrules in its ledger", "[ledger][receiver]") {
    disagreement_ledger ledger;
    handoff::receiver_options options;
    options.ledger = &ledger;
    const handoff::receiver<> receiver(handoff_test::sections_schema(), options);

    // TIME_CAP 0.6, hint RESUME -> NARROW (twice); CONTEXT_OVERFLOW 0.9, hint RESUME -> NARROW;
    // seed 000 (TOKEN_CAP 0.7, hint SPLIT -> SPLIT) agrees; TOOL_CALL_CAP 0.85, hint RESUME agrees.
    for (const char* name : {"envelopes/capped_time_cap_mid.json", "envelopes/capped_time_cap_mid.json",
                             "envelopes/capped_context_overflow_high.json", "envelopes/seed_000_example.json",
                             "envelopes/capped_tool_call_cap_high.json"}) {
        const auto r = receiver.receive(handoff_test::read_fixture(name));
        INFO(name);
        REQUIRE(r.decision.has_value());
    }
    CHECK(ledger.total() == 3);
    CHECK(ledger.count(reason_code::time_cap, band::mid, action::narrow, action::resume) == 2);
    CHECK(ledger.count(reason_code::context_overflow, band::high, action::narrow, action::resume) == 1);
    CHECK(ledger.to_json() == json::parse(R"([
        {"reason_code": "TIME_CAP", "band": "mid", "table_action": "NARROW", "hint_action": "RESUME", "count": 2},
        {"reason_code": "CONTEXT_OVERFLOW", "band": "high", "table_action": "NARROW", "hint_action": "RESUME", "count": 1}
    ])"));
}

TEST_CASE("a contract failure is never counted as a disagreement", "[ledger][receiver]") {
    disagreement_ledger ledger;
    handoff::receiver_options options;
    options.ledger = &ledger;
    const handoff::receiver<> receiver(options);
    // The hint says SPLIT, but the fraction is wrong: REPAIR, no decision, nothing counted.
    json doc = handoff_test::read_fixture_json("envelopes/seed_000_example.json");
    doc["retry_hint"]["suggested_action"] = "RESUME";
    doc["coverage"]["fraction"] = 0.9;
    const auto r = receiver.receive(doc.dump());
    CHECK(r.route == handoff::route::repair);
    CHECK(ledger.total() == 0);
}

} // namespace test_ledger
