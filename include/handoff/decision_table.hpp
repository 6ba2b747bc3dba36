// SPDX-License-Identifier: MIT
#pragma once

#include <handoff/enums.hpp>

#include <array>   // array
#include <cstddef> // size_t

namespace handoff {

/// One reason code's actions per coverage band.
struct table_row {
    reason_code reason;
    action low;
    action mid;
    action high;
};

/// Band edges: coverage < mid is low, coverage < high is mid, the rest is high.
struct band_edges {
    double mid = 0.5;
    double high = 0.8;
};

/// The decision table is data: one row per reason code, in any order, plus the band edges.
struct decision_table {
    std::array<table_row, reason_code_count> rows;
    band_edges edges{};
};

/// The rules every table must honour; `table_rule::ok` when none is broken.
enum class table_rule : std::uint8_t {
    ok,
    every_reason_has_one_row, // a reason code missing or listed twice
    band_edges_ordered,       // 0 <= mid <= high <= 1, no NaN
    context_overflow_never_resumes,
    non_budget_cause_spends_nothing,
};
inline constexpr std::size_t table_rule_count = 5;
/// Each rule's sentence (to_string): the check's message when the rule is broken.
template <>
struct enum_names<table_rule> {
    static constexpr std::array<std::string_view, table_rule_count> names{
        "ok",
        "every reason_code must have exactly one row",
        "band edges must satisfy 0 <= mid <= high <= 1",
        "CONTEXT_OVERFLOW must never RESUME",
        "DEPENDENCY_FAILED (a non-budget cause) may only ESCALATE or FAIL",
    };
};

namespace detail {

[[nodiscard]] constexpr std::size_t rows_for(const decision_table& t, reason_code r) noexcept {
    std::size_t n = 0;
    for (const table_row& row : t.rows) {
        n += row.reason == r ? 1U : 0U;
    }
    return n;
}

[[nodiscard]] constexpr bool spends_budget(action a) noexcept {
    return a == action::resume || a == action::split || a == action::narrow;
}

[[nodiscard]] constexpr bool row_has(const table_row& row, action a) noexcept {
    return row.low == a || row.mid == a || row.high == a;
}

} // namespace detail

/// The first rule a table breaks, or `table_rule::ok`. Usable in `static_assert`.
[[nodiscard]] constexpr table_rule check_table(const decision_table& t) noexcept {
    for (reason_code r : all_reason_codes) {
        if (detail::rows_for(t, r) != 1) {
            return table_rule::every_reason_has_one_row;
        }
    }
    // Written as negated comparisons so that a NaN edge fails too.
    if (!(t.edges.mid >= 0.0) || !(t.edges.mid <= t.edges.high) || !(t.edges.high <= 1.0)) {
        return table_rule::band_edges_ordered;
    }
    for (const table_row& row : t.rows) {
        if (row.reason == reason_code::context_overflow && detail::row_has(row, action::resume)) {
            return table_rule::context_overflow_never_resumes;
        }
        if (row.reason == reason_code::dependency_failed &&
            (detail::spends_budget(row.low) || detail::spends_budget(row.mid) || detail::spends_budget(row.high))) {
            return table_rule::non_budget_cause_spends_nothing;
        }
    }
    return table_rule::ok;
}

[[nodiscard]] constexpr bool is_valid_table(const decision_table& t) noexcept {
    return check_table(t) == table_rule::ok;
}

/// Which band a coverage falls in. NaN and negatives are low: an unknown coverage buys nothing.
[[nodiscard]] constexpr band band_of(double coverage, const band_edges& edges) noexcept {
    if (!(coverage >= edges.mid)) {
        return band::low;
    }
    if (coverage < edges.high) {
        return band::mid;
    }
    return band::high;
}

/// The default table: a budget cause with most of the work done resumes, a fresh context or a
/// smaller scope narrows, anything with little done splits, a failed dependency escalates.
inline constexpr decision_table default_table{{{
    {reason_code::token_cap, action::split, action::split, action::resume},
    {reason_code::tool_call_cap, action::split, action::split, action::resume},
    {reason_code::time_cap, action::split, action::narrow, action::resume},
    {reason_code::context_overflow, action::split, action::split, action::narrow},
    {reason_code::scope_too_broad, action::split, action::split, action::narrow},
    {reason_code::dependency_failed, action::escalate, action::escalate, action::escalate},
}}};

/// The table's action for a reason code at a coverage. A table without a row for `reason`
/// (one that fails check_table) yields FAIL: an unknown case never spends budget.
[[nodiscard]] constexpr action decide(reason_code reason, double coverage,
                                      const decision_table& table = default_table) noexcept {
    for (const table_row& row : table.rows) {
        if (row.reason == reason) {
            switch (band_of(coverage, table.edges)) {
            case band::low: return row.low;
            case band::mid: return row.mid;
            case band::high: return row.high;
            }
        }
    }
    return action::fail;
}

static_assert(check_table(default_table) != table_rule::every_reason_has_one_row,
              "handoff: every reason_code must have exactly one row");
static_assert(check_table(default_table) != table_rule::band_edges_ordered,
              "handoff: band edges must satisfy 0 <= mid <= high <= 1");
static_assert(check_table(default_table) != table_rule::context_overflow_never_resumes,
              "handoff: CONTEXT_OVERFLOW must never RESUME");
static_assert(check_table(default_table) != table_rule::non_budget_cause_spends_nothing,
              "handoff: DEPENDENCY_FAILED must never buy budget");

} // namespace handoff

/// Checks a user's table at compile time with one message per rule:
/// `HANDOFF_CHECK_TABLE(my_table);` at namespace or block scope.
#define HANDOFF_CHECK_TABLE(table)                                                                         \
    static_assert(::handoff::check_table(table) != ::handoff::table_rule::every_reason_has_one_row,        \
                  "handoff: every reason_code must have exactly one row");                                 \
    static_assert(::handoff::check_table(table) != ::handoff::table_rule::band_edges_ordered,              \
                  "handoff: band edges must satisfy 0 <= mid <= high <= 1");                               \
    static_assert(::handoff::check_table(table) != ::handoff::table_rule::context_overflow_never_resumes,  \
                  "handoff: CONTEXT_OVERFLOW must never RESUME");                                          \
    static_assert(::handoff::check_table(table) != ::handoff::table_rule::non_budget_cause_spends_nothing, \
                  "handoff: DEPENDENCY_FAILED must never buy budget")
