// SPDX-License-Identifier: MIT
// <handoff/decision_table.hpp>: the constexpr table, its bands and the rules it must honour.
// Most facts here are compile-time facts (STATIC_REQUIRE): if one breaks, the build breaks.

#include "support/fixtures.hpp"

#include <handoff/decision_table.hpp>

#include <limits> // numeric_limits

namespace test_decision_table { // this file's own names: see "unity build" in tests/CMakeLists.txt

using handoff::action;
using handoff::band;
using handoff::band_edges;
using handoff::decision_table;
using handoff::reason_code;
using handoff::table_rule;

namespace {

constexpr double nan_coverage = std::numeric_limits<double>::quiet_NaN();
constexpr double inf_coverage = std::numeric_limits<double>::infinity();
// The largest doubles strictly below the default band edges.
constexpr double just_below_mid = 0.49999999999999994;
constexpr double just_below_high = 0.7999999999999999;

/// The default table with one cell changed (rows are in SPEC order, see default_table).
constexpr decision_table with_cell(std::size_t row, band b, action a) {
    decision_table t = handoff::default_table;
    switch (b) {
    case band::low: t.rows[row].low = a; break;
    case band::mid: t.rows[row].mid = a; break;
    case band::high: t.rows[row].high = a; break;
    }
    return t;
}

constexpr decision_table with_edges(double mid, double high) {
    decision_table t = handoff::default_table;
    t.edges = band_edges{mid, high};
    return t;
}

constexpr std::size_t token_cap_row = 0;
constexpr std::size_t time_cap_row = 2;
constexpr std::size_t context_overflow_row = 3;
constexpr std::size_t scope_too_broad_row = 4;
constexpr std::size_t dependency_failed_row = 5;

} // namespace

TEST_CASE("the default table honours every rule at compile time", "[table][static]") {
    STATIC_REQUIRE(handoff::check_table(handoff::default_table) == table_rule::ok);
    STATIC_REQUIRE(handoff::is_valid_table(handoff::default_table));
    STATIC_REQUIRE(handoff::default_table.edges.mid == 0.5);
    STATIC_REQUIRE(handoff::default_table.edges.high == 0.8);
    // The acceptance line of issue 2, as a consumer writes it.
    STATIC_REQUIRE(handoff::decide(reason_code::context_overflow, 0.95) != action::resume);
}

TEST_CASE("the default table decides SPEC section 4 for every reason code in every band", "[table][static]") {
    // low band: 0, inside, just below the mid edge
    STATIC_REQUIRE(handoff::decide(reason_code::token_cap, 0.0) == action::split);
    STATIC_REQUIRE(handoff::decide(reason_code::token_cap, 0.35) == action::split);
    STATIC_REQUIRE(handoff::decide(reason_code::token_cap, just_below_mid) == action::split);
    STATIC_REQUIRE(handoff::decide(reason_code::tool_call_cap, 0.0) == action::split);
    STATIC_REQUIRE(handoff::decide(reason_code::tool_call_cap, 0.25) == action::split);
    STATIC_REQUIRE(handoff::decide(reason_code::tool_call_cap, just_below_mid) == action::split);
    STATIC_REQUIRE(handoff::decide(reason_code::time_cap, 0.0) == action::split);
    STATIC_REQUIRE(handoff::decide(reason_code::time_cap, 0.25) == action::split);
    STATIC_REQUIRE(handoff::decide(reason_code::time_cap, just_below_mid) == action::split);
    STATIC_REQUIRE(handoff::decide(reason_code::context_overflow, 0.0) == action::split);
    STATIC_REQUIRE(handoff::decide(reason_code::context_overflow, 0.25) == action::split);
    STATIC_REQUIRE(handoff::decide(reason_code::context_overflow, just_below_mid) == action::split);
    STATIC_REQUIRE(handoff::decide(reason_code::scope_too_broad, 0.0) == action::split);
    STATIC_REQUIRE(handoff::decide(reason_code::scope_too_broad, 0.25) == action::split);
    STATIC_REQUIRE(handoff::decide(reason_code::scope_too_broad, just_below_mid) == action::split);
    STATIC_REQUIRE(handoff::decide(reason_code::dependency_failed, 0.0) == action::escalate);
    STATIC_REQUIRE(handoff::decide(reason_code::dependency_failed, 0.25) == action::escalate);
    STATIC_REQUIRE(handoff::decide(reason_code::dependency_failed, just_below_mid) == action::escalate);

    // mid band: exactly on the 0.5 edge, inside, just below the high edge
    STATIC_REQUIRE(handoff::decide(reason_code::token_cap, 0.5) == action::split);
    STATIC_REQUIRE(handoff::decide(reason_code::token_cap, 0.65) == action::split);
    STATIC_REQUIRE(handoff::decide(reason_code::token_cap, just_below_high) == action::split);
    STATIC_REQUIRE(handoff::decide(reason_code::tool_call_cap, 0.5) == action::split);
    STATIC_REQUIRE(handoff::decide(reason_code::tool_call_cap, 0.65) == action::split);
    STATIC_REQUIRE(handoff::decide(reason_code::tool_call_cap, just_below_high) == action::split);
    STATIC_REQUIRE(handoff::decide(reason_code::time_cap, 0.5) == action::narrow);
    STATIC_REQUIRE(handoff::decide(reason_code::time_cap, 0.6) == action::narrow);
    STATIC_REQUIRE(handoff::decide(reason_code::time_cap, just_below_high) == action::narrow);
    STATIC_REQUIRE(handoff::decide(reason_code::context_overflow, 0.5) == action::split);
    STATIC_REQUIRE(handoff::decide(reason_code::context_overflow, 0.65) == action::split);
    STATIC_REQUIRE(handoff::decide(reason_code::context_overflow, just_below_high) == action::split);
    STATIC_REQUIRE(handoff::decide(reason_code::scope_too_broad, 0.5) == action::split);
    STATIC_REQUIRE(handoff::decide(reason_code::scope_too_broad, 0.65) == action::split);
    STATIC_REQUIRE(handoff::decide(reason_code::scope_too_broad, just_below_high) == action::split);
    STATIC_REQUIRE(handoff::decide(reason_code::dependency_failed, 0.5) == action::escalate);
    STATIC_REQUIRE(handoff::decide(reason_code::dependency_failed, 0.65) == action::escalate);
    STATIC_REQUIRE(handoff::decide(reason_code::dependency_failed, just_below_high) == action::escalate);

    // high band: exactly on the 0.8 edge, inside, 1
    STATIC_REQUIRE(handoff::decide(reason_code::token_cap, 0.8) == action::resume);
    STATIC_REQUIRE(handoff::decide(reason_code::token_cap, 0.9) == action::resume);
    STATIC_REQUIRE(handoff::decide(reason_code::token_cap, 1.0) == action::resume);
    STATIC_REQUIRE(handoff::decide(reason_code::tool_call_cap, 0.8) == action::resume);
    STATIC_REQUIRE(handoff::decide(reason_code::tool_call_cap, 0.9) == action::resume);
    STATIC_REQUIRE(handoff::decide(reason_code::tool_call_cap, 1.0) == action::resume);
    STATIC_REQUIRE(handoff::decide(reason_code::time_cap, 0.8) == action::resume);
    STATIC_REQUIRE(handoff::decide(reason_code::time_cap, 0.9) == action::resume);
    STATIC_REQUIRE(handoff::decide(reason_code::time_cap, 1.0) == action::resume);
    STATIC_REQUIRE(handoff::decide(reason_code::context_overflow, 0.8) == action::narrow);
    STATIC_REQUIRE(handoff::decide(reason_code::context_overflow, 0.9) == action::narrow);
    STATIC_REQUIRE(handoff::decide(reason_code::context_overflow, 1.0) == action::narrow);
    STATIC_REQUIRE(handoff::decide(reason_code::scope_too_broad, 0.8) == action::narrow);
    STATIC_REQUIRE(handoff::decide(reason_code::scope_too_broad, 0.9) == action::narrow);
    STATIC_REQUIRE(handoff::decide(reason_code::scope_too_broad, 1.0) == action::narrow);
    STATIC_REQUIRE(handoff::decide(reason_code::dependency_failed, 0.8) == action::escalate);
    STATIC_REQUIRE(handoff::decide(reason_code::dependency_failed, 0.9) == action::escalate);
    STATIC_REQUIRE(handoff::decide(reason_code::dependency_failed, 1.0) == action::escalate);
}

TEST_CASE("band edges belong to the upper band", "[table][static]") {
    constexpr band_edges edges{};
    STATIC_REQUIRE(handoff::band_of(0.0, edges) == band::low);
    STATIC_REQUIRE(handoff::band_of(just_below_mid, edges) == band::low);
    STATIC_REQUIRE(handoff::band_of(0.5, edges) == band::mid);
    STATIC_REQUIRE(handoff::band_of(just_below_high, edges) == band::mid);
    STATIC_REQUIRE(handoff::band_of(0.8, edges) == band::high);
    STATIC_REQUIRE(handoff::band_of(1.0, edges) == band::high);
}

TEST_CASE("an unknown coverage (NaN) or a negative one is low and buys nothing extra", "[table][static]") {
    STATIC_REQUIRE(handoff::band_of(nan_coverage, band_edges{}) == band::low);
    STATIC_REQUIRE(handoff::band_of(-0.1, band_edges{}) == band::low);
    STATIC_REQUIRE(handoff::band_of(-inf_coverage, band_edges{}) == band::low);
    // TIME_CAP is the row where low and mid differ, so it shows NaN is not read as mid.
    STATIC_REQUIRE(handoff::decide(reason_code::time_cap, nan_coverage) == action::split);
    STATIC_REQUIRE(handoff::decide(reason_code::time_cap, -1.0) == action::split);
    // TOKEN_CAP would RESUME (buy budget) in the high band; NaN must never reach it.
    STATIC_REQUIRE(handoff::decide(reason_code::token_cap, nan_coverage) == action::split);
    STATIC_REQUIRE(handoff::decide(reason_code::context_overflow, nan_coverage) == action::split);
    // Above 1 is past the high edge (step 4 stops such envelopes before routing).
    STATIC_REQUIRE(handoff::band_of(inf_coverage, band_edges{}) == band::high);
}

TEST_CASE("table rule names are the messages of the static_asserts", "[table]") {
    CHECK(handoff::to_string(table_rule::ok) == "ok");
    CHECK(handoff::to_string(table_rule::every_reason_has_one_row) == "every reason_code must have exactly one row");
    CHECK(handoff::to_string(table_rule::band_edges_ordered) == "band edges must satisfy 0 <= mid <= high <= 1");
    CHECK(handoff::to_string(table_rule::context_overflow_never_resumes) == "CONTEXT_OVERFLOW must never RESUME");
    CHECK(handoff::to_string(table_rule::non_budget_cause_spends_nothing) ==
          "DEPENDENCY_FAILED (a non-budget cause) may only ESCALATE or FAIL");
}

TEST_CASE("check_table finds a CONTEXT_OVERFLOW row that RESUMEs in any band", "[table][static]") {
    STATIC_REQUIRE(handoff::check_table(with_cell(context_overflow_row, band::low, action::resume)) ==
                   table_rule::context_overflow_never_resumes);
    STATIC_REQUIRE(handoff::check_table(with_cell(context_overflow_row, band::mid, action::resume)) ==
                   table_rule::context_overflow_never_resumes);
    STATIC_REQUIRE(handoff::check_table(with_cell(context_overflow_row, band::high, action::resume)) ==
                   table_rule::context_overflow_never_resumes);
    // Other rows may RESUME, and CONTEXT_OVERFLOW may do anything but RESUME.
    STATIC_REQUIRE(handoff::check_table(with_cell(scope_too_broad_row, band::high, action::resume)) == table_rule::ok);
    STATIC_REQUIRE(handoff::check_table(with_cell(context_overflow_row, band::high, action::escalate)) ==
                   table_rule::ok);
    STATIC_REQUIRE(handoff::check_table(with_cell(context_overflow_row, band::low, action::fail)) == table_rule::ok);
}

TEST_CASE("check_table finds a DEPENDENCY_FAILED row that would buy budget", "[table][static]") {
    STATIC_REQUIRE(handoff::check_table(with_cell(dependency_failed_row, band::low, action::split)) ==
                   table_rule::non_budget_cause_spends_nothing);
    STATIC_REQUIRE(handoff::check_table(with_cell(dependency_failed_row, band::mid, action::narrow)) ==
                   table_rule::non_budget_cause_spends_nothing);
    STATIC_REQUIRE(handoff::check_table(with_cell(dependency_failed_row, band::high, action::resume)) ==
                   table_rule::non_budget_cause_spends_nothing);
    // FAIL spends nothing either, so it is allowed.
    STATIC_REQUIRE(handoff::check_table(with_cell(dependency_failed_row, band::low, action::fail)) == table_rule::ok);
}

TEST_CASE("check_table finds a missing or a duplicated row", "[table][static]") {
    constexpr decision_table duplicate = [] {
        decision_table t = handoff::default_table;
        t.rows[scope_too_broad_row].reason = reason_code::token_cap; // token_cap twice, scope_too_broad never
        return t;
    }();
    STATIC_REQUIRE(handoff::check_table(duplicate) == table_rule::every_reason_has_one_row);
    // A table missing a row never spends budget for the missing reason: decide says FAIL.
    STATIC_REQUIRE(handoff::decide(reason_code::scope_too_broad, 0.9, duplicate) == action::fail);
    STATIC_REQUIRE(handoff::decide(reason_code::scope_too_broad, 0.1, duplicate) == action::fail);
}

TEST_CASE("check_table finds band edges out of order, outside 0..1 or NaN", "[table][static]") {
    STATIC_REQUIRE(handoff::check_table(with_edges(0.8, 0.5)) == table_rule::band_edges_ordered);
    STATIC_REQUIRE(handoff::check_table(with_edges(-0.1, 0.8)) == table_rule::band_edges_ordered);
    STATIC_REQUIRE(handoff::check_table(with_edges(0.5, 1.1)) == table_rule::band_edges_ordered);
    STATIC_REQUIRE(handoff::check_table(with_edges(nan_coverage, 0.8)) == table_rule::band_edges_ordered);
    STATIC_REQUIRE(handoff::check_table(with_edges(0.5, nan_coverage)) == table_rule::band_edges_ordered);
    // The limits themselves are allowed: no low band, no mid band, no high band beyond 1.
    STATIC_REQUIRE(handoff::check_table(with_edges(0.0, 0.8)) == table_rule::ok);
    STATIC_REQUIRE(handoff::check_table(with_edges(0.6, 0.6)) == table_rule::ok);
    STATIC_REQUIRE(handoff::check_table(with_edges(0.5, 1.0)) == table_rule::ok);
}

TEST_CASE("check_table reports the first rule broken, in the order of the enum", "[table][static]") {
    constexpr decision_table many = [] {
        decision_table t = with_cell(context_overflow_row, band::high, action::resume);
        t.rows[dependency_failed_row].low = action::split;
        t.edges = band_edges{0.9, 0.1};
        return t;
    }();
    STATIC_REQUIRE(handoff::check_table(many) == table_rule::band_edges_ordered);
    constexpr decision_table two_rows = [] {
        decision_table t = with_cell(dependency_failed_row, band::low, action::split);
        t.rows[context_overflow_row].mid = action::resume;
        return t;
    }();
    // context_overflow comes before dependency_failed in the default row order.
    STATIC_REQUIRE(handoff::check_table(two_rows) == table_rule::context_overflow_never_resumes);
}

TEST_CASE("a user table with custom band edges decides by those edges", "[table][static]") {
    // A team that RESUMEs only when 90% is done and NARROWs TIME_CAP from 30%.
    constexpr decision_table cautious = with_edges(0.3, 0.9);
    HANDOFF_CHECK_TABLE(cautious);
    STATIC_REQUIRE(handoff::is_valid_table(cautious));
    STATIC_REQUIRE(handoff::decide(reason_code::time_cap, 0.29, cautious) == action::split);
    STATIC_REQUIRE(handoff::decide(reason_code::time_cap, 0.3, cautious) == action::narrow);
    STATIC_REQUIRE(handoff::decide(reason_code::time_cap, 0.89, cautious) == action::narrow);
    STATIC_REQUIRE(handoff::decide(reason_code::time_cap, 0.9, cautious) == action::resume);
    STATIC_REQUIRE(handoff::decide(reason_code::token_cap, 0.85, cautious) == action::split);
    STATIC_REQUIRE(handoff::decide(reason_code::token_cap, 0.85) == action::resume); // default edges differ
    STATIC_REQUIRE(handoff::band_of(0.3, cautious.edges) == band::mid);
    STATIC_REQUIRE(handoff::band_of(0.9, cautious.edges) == band::high);

    // Equal edges: there is no mid band at all.
    constexpr decision_table no_mid = with_edges(0.6, 0.6);
    STATIC_REQUIRE(handoff::decide(reason_code::time_cap, 0.59, no_mid) == action::split);
    STATIC_REQUIRE(handoff::decide(reason_code::time_cap, 0.6, no_mid) == action::resume);
}

TEST_CASE("a user table may list its rows in any order", "[table][static]") {
    using handoff::table_row;
    constexpr decision_table reordered{{{
        table_row{reason_code::dependency_failed, action::fail, action::escalate, action::escalate},
        table_row{reason_code::scope_too_broad, action::narrow, action::narrow, action::narrow},
        table_row{reason_code::context_overflow, action::split, action::split, action::split},
        table_row{reason_code::time_cap, action::split, action::narrow, action::resume},
        table_row{reason_code::tool_call_cap, action::split, action::resume, action::resume},
        table_row{reason_code::token_cap, action::split, action::split, action::resume},
    }}};
    HANDOFF_CHECK_TABLE(reordered);
    STATIC_REQUIRE(handoff::check_table(reordered) == table_rule::ok);
    STATIC_REQUIRE(handoff::decide(reason_code::dependency_failed, 0.1, reordered) == action::fail);
    STATIC_REQUIRE(handoff::decide(reason_code::scope_too_broad, 0.1, reordered) == action::narrow);
    STATIC_REQUIRE(handoff::decide(reason_code::context_overflow, 0.95, reordered) == action::split);
    STATIC_REQUIRE(handoff::decide(reason_code::tool_call_cap, 0.5, reordered) == action::resume);
    STATIC_REQUIRE(handoff::decide(reason_code::token_cap, 0.5, reordered) == action::split);
}

TEST_CASE("decide is usable at run time with a table built at run time", "[table]") {
    decision_table t = handoff::default_table;
    t.edges.high = 0.95;
    t.rows[token_cap_row].high = action::narrow;
    t.rows[time_cap_row].low = action::escalate;
    REQUIRE(handoff::check_table(t) == table_rule::ok);
    CHECK(handoff::decide(reason_code::token_cap, 0.9, t) == action::split);
    CHECK(handoff::decide(reason_code::token_cap, 0.95, t) == action::narrow);
    CHECK(handoff::decide(reason_code::time_cap, 0.2, t) == action::escalate);
    t.rows[context_overflow_row].mid = action::resume;
    CHECK(handoff::check_table(t) == table_rule::context_overflow_never_resumes);
    CHECK_FALSE(handoff::is_valid_table(t));
}

} // namespace test_decision_table
