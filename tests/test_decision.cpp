// SPDX-License-Identifier: MIT
// <handoff/decision.hpp>: SPEC section 4 routing of a capped envelope. Usable coverage, the
// contents of each decision, the policy-owned budget, the overruled hint, and SPLIT plans.

#include "support/fixtures.hpp"

#include <handoff/decision.hpp>

#include <optional> // optional
#include <string>   // string
#include <vector>   // vector

namespace test_decision { // this file's own names: see "unity build" in tests/CMakeLists.txt

using handoff::action;
using handoff::attempt_context;
using handoff::band;
using handoff::coverage_info;
using handoff::decision;
using handoff::item_range;
using handoff::plan;
using handoff::plan_split;
using handoff::reason_code;
using handoff::retry_hint_info;
using handoff::routing_policy;
using handoff::steps_info;

namespace {

using ranges = std::vector<item_range>;

coverage_info cov(std::uint64_t expected, std::uint64_t completed, double fraction, std::string unit = "records") {
    return coverage_info{expected, completed, std::move(unit), fraction};
}

const steps_info steps{{"records 1-6"}, {"record 7", "record 8", "record 9", "record 10"}};

std::optional<retry_hint_info> hint(action a, std::optional<double> multiplier = std::nullopt) {
    retry_hint_info h;
    h.suggested_action = a;
    h.budget_multiplier = multiplier;
    return h;
}

/// plan_split's invariants: contiguous ranges covering exactly first..last, none larger than
/// the chunk, no more than the worker bound.
void check_partition(const ranges& rs, std::uint64_t first, std::uint64_t last, std::uint64_t chunk,
                     std::uint32_t max_workers) {
    REQUIRE_FALSE(rs.empty());
    CHECK(rs.front().from == first);
    CHECK(rs.back().to == last);
    CHECK(rs.size() <= std::max<std::uint32_t>(1, max_workers));
    for (std::size_t i = 0; i < rs.size(); ++i) {
        CHECK(rs[i].from <= rs[i].to);
        CHECK(rs[i].to - rs[i].from + 1 <= chunk);
        if (i + 1 < rs.size()) {
            CHECK(rs[i].to + 1 == rs[i + 1].from);
            CHECK(rs[i].to - rs[i].from + 1 == chunk); // only the last range may be short
        }
    }
}

} // namespace

// --- plan_split -----------------------------------------------------------------------------

TEST_CASE("a split chunk is three quarters of the capacity the worker showed", "[split]") {
    std::uint64_t chunk = 0;
    // Seed 000 run 1: 14 of 40 done, so 26 left in chunks of floor(0.75 x 14) = 10.
    CHECK(plan_split(15, 40, 14, routing_policy{}, &chunk) == ranges{{15, 24}, {25, 34}, {35, 40}});
    CHECK(chunk == 10);
    CHECK(plan_split(29, 40, 28, routing_policy{}, &chunk) == ranges{{29, 40}});
    CHECK(chunk == 21);
    CHECK(plan_split(5, 20, 4, routing_policy{}, &chunk) ==
          ranges{{5, 7}, {8, 10}, {11, 13}, {14, 16}, {17, 19}, {20, 20}});
    CHECK(chunk == 3);
}

TEST_CASE("a split chunk is at least one item", "[split]") {
    std::uint64_t chunk = 0;
    CHECK(plan_split(2, 4, 1, routing_policy{}, &chunk) == ranges{{2, 2}, {3, 3}, {4, 4}});
    CHECK(chunk == 1);
}

TEST_CASE("the worker bound grows the chunk instead of adding workers", "[split]") {
    std::uint64_t chunk = 0;
    // capacity 1 -> chunk 1 -> 26 workers; at most 8 allowed -> chunk ceil(26 / 8) = 4.
    const ranges rs = plan_split(15, 40, 1, routing_policy{}, &chunk);
    CHECK(chunk == 4);
    CHECK(rs == ranges{{15, 18}, {19, 22}, {23, 26}, {27, 30}, {31, 34}, {35, 38}, {39, 40}});

    routing_policy two_workers;
    two_workers.max_split_workers = 2;
    CHECK(plan_split(15, 40, 14, two_workers, &chunk) == ranges{{15, 27}, {28, 40}});
    CHECK(chunk == 13);

    routing_policy zero_workers; // nonsense policy: still one worker, never a division by zero
    zero_workers.max_split_workers = 0;
    CHECK(plan_split(1, 40, 0, zero_workers, &chunk) == ranges{{1, 40}});
    CHECK(chunk == 40);
}

TEST_CASE("with items_completed 0 the items are spread over the worker bound", "[split]") {
    std::uint64_t chunk = 0;
    CHECK(plan_split(1, 40, 0, routing_policy{}, &chunk) ==
          ranges{{1, 5}, {6, 10}, {11, 15}, {16, 20}, {21, 25}, {26, 30}, {31, 35}, {36, 40}});
    CHECK(chunk == 5);
    CHECK(plan_split(1, 3, 0, routing_policy{}, &chunk) == ranges{{1, 1}, {2, 2}, {3, 3}});
    CHECK(chunk == 1);
    CHECK(plan_split(1, 41, 0, routing_policy{}, &chunk).size() == 7); // chunk ceil(41 / 8) = 6
    CHECK(chunk == 6);
}

TEST_CASE("a policy may fix the chunk", "[split]") {
    routing_policy fixed;
    fixed.split_chunk = 7;
    std::uint64_t chunk = 0;
    CHECK(plan_split(15, 40, 14, fixed, &chunk) == ranges{{15, 21}, {22, 28}, {29, 35}, {36, 40}});
    CHECK(chunk == 7);
    // ... within the worker bound: 1-item chunks over 26 items would need 26 workers.
    fixed.split_chunk = 1;
    CHECK(plan_split(15, 40, 14, fixed, &chunk).size() == 7);
    CHECK(chunk == 4);
}

TEST_CASE("an empty item span gives no ranges", "[split]") {
    std::uint64_t chunk = 99;
    CHECK(plan_split(41, 40, 40, routing_policy{}, &chunk).empty());
    CHECK(chunk == 0);
    CHECK(plan_split(0, 40, 0, routing_policy{}, &chunk).empty()); // items are 1-based
    CHECK(plan_split(1, 0, 0, routing_policy{}).empty());
}

TEST_CASE("split plans cover exactly the span for every size, capacity and bound", "[split]") {
    for (std::uint64_t last : {1U, 2U, 7U, 8U, 9U, 40U, 41U, 100U, 1000U}) {
        for (std::uint64_t done = 0; done < last; done += (last > 20 ? last / 7 : 1)) {
            for (std::uint32_t workers : {1U, 2U, 3U, 8U, 64U}) {
                for (std::uint64_t fixed : {0U, 1U, 5U}) {
                    routing_policy policy;
                    policy.max_split_workers = workers;
                    policy.split_chunk = fixed;
                    std::uint64_t chunk = 0;
                    const ranges rs = plan_split(done + 1, last, done, policy, &chunk);
                    INFO("items " << done + 1 << ".." << last << ", capacity " << done << ", workers " << workers
                                  << ", fixed chunk " << fixed);
                    check_partition(rs, done + 1, last, chunk, workers);
                    const std::uint64_t remaining = last - done;
                    std::uint64_t expected_chunk = fixed != 0 ? fixed
                                                   : done > 0 ? std::max<std::uint64_t>(1, done * 3 / 4)
                                                              : (remaining + workers - 1) / workers;
                    if ((remaining + expected_chunk - 1) / expected_chunk > workers) {
                        expected_chunk = (remaining + workers - 1) / workers;
                    }
                    CHECK(chunk == expected_chunk);
                    // Deterministic: the same inputs give the same plan.
                    CHECK(plan_split(done + 1, last, done, policy) == rs);
                }
            }
        }
    }
}

TEST_CASE("split plans do not overflow at the 64-bit limit", "[split]") {
    constexpr std::uint64_t max = 18446744073709551615ULL;
    std::uint64_t chunk = 0;
    const ranges rs = plan_split(1, max, max - 1, routing_policy{}, &chunk);
    CHECK(chunk == 13835058055282163710ULL); // floor(0.75 x (2^64 - 2))
    check_partition(rs, 1, max, chunk, 8);
    CHECK(rs.size() == 2);
    const ranges spread = plan_split(max - 2, max, 0, routing_policy{}, &chunk);
    CHECK(spread == ranges{{max - 2, max - 2}, {max - 1, max - 1}, {max, max}});
}

// --- plan -----------------------------------------------------------------------------------

TEST_CASE("a TOKEN_CAP at 0.35 splits the items not yet done", "[route]") {
    const decision d = plan(reason_code::token_cap, cov(40, 14, 0.35), steps, std::nullopt, true);
    CHECK(d.action == action::split);
    CHECK(d.table_action == action::split);
    CHECK(d.reason == reason_code::token_cap);
    CHECK(d.usable_coverage == Catch::Approx(0.35));
    CHECK(d.coverage_band == band::low);
    CHECK(d.ranges == ranges{{15, 24}, {25, 34}, {35, 40}});
    CHECK(d.unit == "records");
    CHECK(d.chunk == 10);
    CHECK(d.scope.empty());
    CHECK(d.budget_multiplier == 1.0);
    CHECK_FALSE(d.disagreement.has_value());
    CHECK(d.rationale.str() == "TOKEN_CAP at usable coverage 0.35 (low band): the table says SPLIT");
}

TEST_CASE("a TIME_CAP at 0.6 coverage narrows to the remaining steps", "[route]") {
    const decision d = plan(reason_code::time_cap, cov(10, 6, 0.6), steps, std::nullopt, true);
    CHECK(d.action == action::narrow);
    CHECK(d.coverage_band == band::mid);
    CHECK(d.scope == std::vector<std::string>{"record 7", "record 8", "record 9", "record 10"});
    CHECK(d.ranges.empty());
    CHECK(d.chunk == 0);
    CHECK(d.budget_multiplier == 1.0); // NARROW: same budget
    CHECK(d.rationale.str() == "TIME_CAP at usable coverage 0.60 (mid band): the table says NARROW");
}

TEST_CASE("a RESUME continues the remaining steps on the policy's budget", "[route][budget]") {
    const decision d = plan(reason_code::token_cap, cov(10, 9, 0.9), steps, std::nullopt, true);
    CHECK(d.action == action::resume);
    CHECK(d.coverage_band == band::high);
    CHECK(d.scope == steps.remaining);
    CHECK(d.budget_multiplier == 1.5);

    routing_policy generous;
    generous.resume_budget_multiplier = 2.25;
    CHECK(plan(reason_code::token_cap, cov(10, 9, 0.9), steps, std::nullopt, true, generous).budget_multiplier == 2.25);
}

TEST_CASE("the hint's budget multiplier is ignored: the policy owns budgets", "[route][budget]") {
    routing_policy policy;
    policy.split_budget_multiplier = 0.5;
    // A worker asking for ten times its budget, agreeing with the table each time.
    SECTION("RESUME") {
        const decision d =
            plan(reason_code::tool_call_cap, cov(20, 17, 0.85), steps, hint(action::resume, 10.0), true, policy);
        CHECK(d.action == action::resume);
        CHECK(d.budget_multiplier == 1.5);
    }
    SECTION("SPLIT") {
        const decision d =
            plan(reason_code::token_cap, cov(40, 14, 0.35), steps, hint(action::split, 10.0), true, policy);
        CHECK(d.action == action::split);
        CHECK(d.budget_multiplier == 0.5);
    }
    SECTION("NARROW") {
        const decision d =
            plan(reason_code::time_cap, cov(10, 6, 0.6), steps, hint(action::narrow, 10.0), true, policy);
        CHECK(d.action == action::narrow);
        CHECK(d.budget_multiplier == 1.0);
    }
    SECTION("ESCALATE") {
        const decision d =
            plan(reason_code::dependency_failed, cov(10, 3, 0.3), steps, hint(action::escalate, 10.0), true, policy);
        CHECK(d.action == action::escalate);
        CHECK(d.budget_multiplier == 0.0);
    }
}

TEST_CASE("the table overrules the hint and the disagreement keeps both values", "[route][hint]") {
    const decision d = plan(reason_code::context_overflow, cov(10, 9, 0.9), steps, hint(action::resume, 2.0), true);
    CHECK(d.action == action::narrow);
    REQUIRE(d.disagreement.has_value());
    CHECK(d.disagreement->table_action == action::narrow);
    CHECK(d.disagreement->hint_action == action::resume);
    CHECK(d.budget_multiplier == 1.0);
}

TEST_CASE("a hint that agrees with the table, or no hint, records no disagreement", "[route][hint]") {
    CHECK_FALSE(plan(reason_code::context_overflow, cov(10, 9, 0.9), steps, hint(action::narrow), true).disagreement);
    CHECK_FALSE(plan(reason_code::context_overflow, cov(10, 9, 0.9), steps, std::nullopt, true).disagreement);
}

TEST_CASE("when the partial result was discarded, routing uses coverage 0", "[route][usable]") {
    // 9 of 10 would RESUME; with nothing usable it is the low band and all 10 items are redone.
    const decision d = plan(reason_code::token_cap, cov(10, 9, 0.9), steps, hint(action::resume), false);
    CHECK(d.usable_coverage == 0.0);
    CHECK(d.coverage_band == band::low);
    CHECK(d.action == action::split);
    CHECK(d.ranges == ranges{{1, 2}, {3, 4}, {5, 6}, {7, 8}, {9, 10}}); // capacity 0: over 8 workers
    CHECK(d.chunk == 2);
    REQUIRE(d.disagreement.has_value());
    CHECK(d.disagreement->hint_action == action::resume);
    CHECK(d.disagreement->table_action == action::split);
    CHECK(d.rationale.str() == "TOKEN_CAP at usable coverage 0.00 (low band): the table says SPLIT");
}

TEST_CASE("a kept result splits completed+1..expected, a discarded one 1..expected", "[route][usable]") {
    const decision kept = plan(reason_code::scope_too_broad, cov(12, 4, 0.33), steps, std::nullopt, true);
    CHECK(kept.ranges == ranges{{5, 7}, {8, 10}, {11, 12}});
    const decision discarded = plan(reason_code::scope_too_broad, cov(12, 4, 0.33), steps, std::nullopt, false);
    CHECK(discarded.ranges == ranges{{1, 2}, {3, 4}, {5, 6}, {7, 8}, {9, 10}, {11, 12}});
}

TEST_CASE("items_completed 0 splits every item over the worker bound", "[route][split]") {
    const decision d = plan(reason_code::tool_call_cap, cov(40, 0, 0.0), steps, std::nullopt, true);
    CHECK(d.action == action::split);
    CHECK(d.ranges.size() == 8);
    CHECK(d.ranges.front() == item_range{1, 5});
    CHECK(d.ranges.back() == item_range{36, 40});
}

TEST_CASE("with no countable items (expected 0) the worker's fraction routes and SPLIT splits the steps",
          "[route][zero]") {
    const decision high = plan(reason_code::token_cap, cov(0, 0, 0.9), steps, std::nullopt, true);
    CHECK(high.usable_coverage == 0.9);
    CHECK(high.action == action::resume);
    const decision low = plan(reason_code::token_cap, cov(0, 0, 0.3), steps, std::nullopt, true);
    CHECK(low.action == action::split);
    CHECK(low.ranges.empty());
    CHECK(low.chunk == 0);
    CHECK(low.scope == steps.remaining);
    // ... and a discarded result still routes on 0, whatever the fraction says.
    CHECK(plan(reason_code::token_cap, cov(0, 0, 0.9), steps, std::nullopt, false).action == action::split);
}

TEST_CASE("ESCALATE spends nothing", "[route][budget]") {
    const decision d = plan(reason_code::dependency_failed, cov(10, 9, 0.9), steps, hint(action::resume, 1.0), true);
    CHECK(d.action == action::escalate);
    CHECK(d.budget_multiplier == 0.0);
    CHECK(d.ranges.empty());
    CHECK(d.scope.empty());
    REQUIRE(d.disagreement.has_value());
    CHECK(d.disagreement->hint_action == action::resume);
}

TEST_CASE("FAIL by policy once the attempts are used up", "[route][fail]") {
    const attempt_context third{3, 0};
    const decision d =
        plan(reason_code::token_cap, cov(10, 9, 0.9), steps, std::nullopt, true, routing_policy{}, third);
    CHECK(d.action == action::fail);
    CHECK(d.table_action == action::resume);
    CHECK(d.budget_multiplier == 0.0);
    CHECK(d.scope.empty());
    CHECK(d.rationale.str() == "TOKEN_CAP at usable coverage 0.90 (high band): the table says RESUME; attempt 3 of 3 "
                               "exhausts the policy, so FAIL");
    // One attempt earlier it still resumes.
    CHECK(plan(reason_code::token_cap, cov(10, 9, 0.9), steps, std::nullopt, true, routing_policy{}, {2, 0}).action ==
          action::resume);
    // SPLIT and NARROW fail the same way; ESCALATE spends nothing, so it stays.
    CHECK(plan(reason_code::token_cap, cov(40, 14, 0.35), steps, std::nullopt, true, routing_policy{}, third).action ==
          action::fail);
    CHECK(plan(reason_code::time_cap, cov(10, 6, 0.6), steps, std::nullopt, true, routing_policy{}, third).action ==
          action::fail);
    CHECK(plan(reason_code::dependency_failed, cov(10, 6, 0.6), steps, std::nullopt, true, routing_policy{}, third)
              .action == action::escalate);
}

TEST_CASE("FAIL by policy when a split would go deeper than allowed", "[route][fail]") {
    const attempt_context deep{1, 2};
    const decision d =
        plan(reason_code::token_cap, cov(40, 14, 0.35), steps, hint(action::split), true, routing_policy{}, deep);
    CHECK(d.action == action::fail);
    CHECK(d.table_action == action::split);
    CHECK(d.ranges.empty());
    CHECK(d.budget_multiplier == 0.0);
    CHECK_FALSE(d.disagreement.has_value()); // the hint agreed with the table
    CHECK(d.rationale.str() ==
          "TOKEN_CAP at usable coverage 0.35 (low band): the table says SPLIT; split depth 2 reached "
          "the policy's limit of 2, so FAIL");
    // A split worker that is one level deep may still split; depth does not stop a NARROW.
    CHECK(plan(reason_code::token_cap, cov(40, 14, 0.35), steps, std::nullopt, true, routing_policy{}, {1, 1}).action ==
          action::split);
    CHECK(plan(reason_code::time_cap, cov(10, 6, 0.6), steps, std::nullopt, true, routing_policy{}, deep).action ==
          action::narrow);
}

TEST_CASE("a policy's own table and band edges route", "[route]") {
    routing_policy policy;
    policy.table.edges = handoff::band_edges{0.3, 0.9};
    const decision d = plan(reason_code::time_cap, cov(10, 3, 0.3), steps, std::nullopt, true, policy);
    CHECK(d.coverage_band == band::mid);
    CHECK(d.action == action::narrow);
    CHECK(plan(reason_code::token_cap, cov(10, 8, 0.8), steps, std::nullopt, true, policy).action == action::split);
}

TEST_CASE("plan is deterministic", "[route]") {
    const auto once = [] {
        return plan(reason_code::scope_too_broad, cov(97, 13, 0.13), steps, hint(action::narrow, 3.0), true);
    };
    const decision a = once();
    const decision b = once();
    CHECK(a.action == b.action);
    CHECK(a.ranges == b.ranges);
    CHECK(a.chunk == b.chunk);
    CHECK(a.rationale == b.rationale);
}

} // namespace test_decision
