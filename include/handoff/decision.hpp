// SPDX-License-Identifier: MIT
#pragma once

#include <handoff/decision_table.hpp>
#include <handoff/detail/text.hpp>
#include <handoff/enums.hpp>
#include <handoff/envelope_fields.hpp>

#include <algorithm>   // max, min
#include <cstddef>     // size_t
#include <cstdint>     // uint8_t, uint32_t, uint64_t
#include <iosfwd>      // basic_ostream
#include <optional>    // optional
#include <string>      // string, to_string
#include <string_view> // string_view
#include <vector>      // vector

namespace handoff {

/// Items `from`..`to` (1-based, inclusive) of `coverage.unit`, one SPLIT worker's share.
struct item_range {
    std::uint64_t from = 0;
    std::uint64_t to = 0;

    friend bool operator==(const item_range& a, const item_range& b) noexcept {
        return a.from == b.from && a.to == b.to;
    }
};

/// The worker's hint beside the table's action when they differ.
struct hint_disagreement {
    action table_action = action::fail;
    action hint_action = action::fail;
};

/// The orchestrator's side of routing: the table, who owns budgets, and when to give up.
struct routing_policy {
    decision_table table = default_table;
    /// Budget of a RESUME relative to the capped run's. The worker's own multiplier is ignored.
    double resume_budget_multiplier = 1.5;
    /// Budget of each SPLIT worker relative to the capped run's.
    double split_budget_multiplier = 1.0;
    /// Items per SPLIT worker; 0 derives it from the capacity the worker showed:
    /// max(1, floor(0.75 x items_completed)).
    std::uint64_t split_chunk = 0;
    /// At most this many SPLIT workers: the chunk grows to respect it.
    std::uint32_t max_split_workers = 8;
    /// A run whose attempt number reached this no longer RESUMEs, SPLITs or NARROWs: FAIL.
    std::uint32_t max_attempts = 3;
    /// A run this deep in splits does not SPLIT again: FAIL.
    std::uint32_t max_split_depth = 2;
};

/// Where the envelope's run stands in the orchestrator's plan; supplied by the caller.
struct attempt_context {
    /// 1 for the first run of this piece of work, 2 for its first RESUME/NARROW, ...
    std::uint32_t attempt = 1;
    /// 0 for the original task, 1 for a worker created by a SPLIT, ...
    std::uint32_t split_depth = 0;
};

/// Why a decision is what it is, as one sentence for logs:
/// "TOKEN_CAP at usable coverage 0.35 (low band): the table says SPLIT". It holds the facts,
/// not the sentence, so routing allocates nothing for it; the sentence is written when read:
/// str() or <<.
struct decision_rationale {
    /// What turned the table's action into FAIL, if anything.
    enum class overrule : std::uint8_t { none, attempts_exhausted, split_depth_reached };

    handoff::reason_code reason = handoff::reason_code::token_cap;
    double usable_coverage = 0.0;
    handoff::band coverage_band = handoff::band::low;
    handoff::action table_action = handoff::action::fail;
    overrule overruled_by = overrule::none;
    /// The run's attempt (attempts_exhausted) or split depth (split_depth_reached)...
    std::uint32_t reached = 0;
    /// ... and the policy's limit it reached.
    std::uint32_t limit = 0;

    [[nodiscard]] std::string str() const {
        std::string s = std::string(to_string(reason)) + " at usable coverage " +
                        detail::format_two_decimals(usable_coverage) + " (" + std::string(to_string(coverage_band)) +
                        " band): the table says " + std::string(to_string(table_action));
        switch (overruled_by) {
        case overrule::none: break;
        case overrule::attempts_exhausted:
            s += "; attempt " + std::to_string(reached) + " of " + std::to_string(limit) +
                 " exhausts the policy, so FAIL";
            break;
        case overrule::split_depth_reached:
            s += "; split depth " + std::to_string(reached) + " reached the policy's limit of " +
                 std::to_string(limit) + ", so FAIL";
            break;
        }
        return s;
    }

    friend bool operator==(const decision_rationale& a, const decision_rationale& b) { return a.str() == b.str(); }
    friend bool operator!=(const decision_rationale& a, const decision_rationale& b) { return !(a == b); }

    template <class Char, class Traits>
    friend std::basic_ostream<Char, Traits>& operator<<(std::basic_ostream<Char, Traits>& out,
                                                        const decision_rationale& r) {
        return out << r.str();
    }
};

/// What the orchestrator does next with a capped envelope, and with what.
struct decision {
    handoff::action action = handoff::action::fail;
    /// The table's own action; differs from `action` only when the policy turned it into FAIL.
    handoff::action table_action = handoff::action::fail;
    handoff::reason_code reason = handoff::reason_code::token_cap;
    /// The coverage that routed: 0 when the partial result was discarded.
    double usable_coverage = 0.0;
    handoff::band coverage_band = handoff::band::low;
    /// RESUME and NARROW: the work left (steps.remaining). Also SPLIT without countable items.
    std::vector<std::string> scope;
    /// SPLIT: the items not yet usable, in chunks, over `unit`.
    std::vector<item_range> ranges;
    std::string unit;
    /// Items per SPLIT range (0 when there are no ranges).
    std::uint64_t chunk = 0;
    /// From the policy, never from the worker's hint; 0 for ESCALATE and FAIL (spend nothing).
    double budget_multiplier = 0.0;
    std::optional<hint_disagreement> disagreement;
    /// One sentence for logs: why this action (written when read; see decision_rationale).
    decision_rationale rationale;
};

namespace detail {

[[nodiscard]] constexpr std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) noexcept {
    return a / b + (a % b != 0 ? 1U : 0U);
}

/// floor(0.75 x n) without overflow for any 64-bit n.
[[nodiscard]] constexpr std::uint64_t three_quarters(std::uint64_t n) noexcept { return n / 4 * 3 + n % 4 * 3 / 4; }

} // namespace detail

/// The SPLIT plan: ranges covering exactly first..last, each at most `chunk` items, at most
/// `max_workers` ranges. Deterministic: equal inputs give equal ranges.
///
/// chunk: the policy's if set; else max(1, floor(0.75 x capacity)) where capacity is the
/// number of items the worker completed usably; with no usable capacity the remaining items
/// are spread over `max_workers`. When the ranges would outnumber `max_workers`, the chunk
/// grows to ceil(remaining / max_workers).
[[nodiscard]] inline std::vector<item_range> plan_split(std::uint64_t first, std::uint64_t last, std::uint64_t capacity,
                                                        const routing_policy& policy,
                                                        std::uint64_t* chunk_out = nullptr) {
    std::vector<item_range> ranges;
    if (first == 0 || first > last) {
        if (chunk_out != nullptr) {
            *chunk_out = 0;
        }
        return ranges;
    }
    const std::uint64_t remaining = last - first + 1;
    const std::uint64_t workers = std::max<std::uint64_t>(1, policy.max_split_workers);
    std::uint64_t chunk = policy.split_chunk;
    if (chunk == 0) {
        chunk = capacity > 0 ? std::max<std::uint64_t>(1, detail::three_quarters(capacity))
                             : detail::ceil_div(remaining, workers);
    }
    if (detail::ceil_div(remaining, chunk) > workers) {
        chunk = detail::ceil_div(remaining, workers);
    }
    ranges.reserve(static_cast<std::size_t>(detail::ceil_div(remaining, chunk))); // one allocation
    for (std::uint64_t from = first;; from += chunk) {
        const std::uint64_t to = last - from < chunk ? last : from + chunk - 1;
        ranges.push_back(item_range{from, to});
        if (to == last) {
            break;
        }
    }
    if (chunk_out != nullptr) {
        *chunk_out = chunk;
    }
    return ranges;
}

namespace detail {

/// FAIL instead of an action that spends budget once the run used its attempts, or of a SPLIT
/// once it is split as deep as the policy allows; the rationale says which limit was reached.
inline void overrule_past_limits(decision& d, const routing_policy& policy, const attempt_context& context) {
    const auto overrule = [&](decision_rationale::overrule why, std::uint32_t reached, std::uint32_t limit) {
        d.action = action::fail;
        d.rationale.overruled_by = why;
        d.rationale.reached = reached;
        d.rationale.limit = limit;
    };
    if (spends_budget(d.action) && context.attempt >= policy.max_attempts) {
        overrule(decision_rationale::overrule::attempts_exhausted, context.attempt, policy.max_attempts);
    } else if (d.action == action::split && context.split_depth >= policy.max_split_depth) {
        overrule(decision_rationale::overrule::split_depth_reached, context.split_depth, policy.max_split_depth);
    }
}

} // namespace detail

/// The route step for a capped envelope that passed steps 1, 2 and 4.
/// `result_usable` is false when step 3 discarded the partial result (or there was none).
[[nodiscard]] inline decision plan(reason_code reason, const coverage_info& coverage, const steps_info& steps,
                                   const std::optional<retry_hint_info>& hint, bool result_usable,
                                   const routing_policy& policy = {}, const attempt_context& context = {}) {
    decision d;
    d.reason = reason;
    d.unit = coverage.unit;
    if (result_usable) {
        d.usable_coverage = coverage.items_expected > 0 ? static_cast<double>(coverage.items_completed) /
                                                              static_cast<double>(coverage.items_expected)
                                                        : coverage.fraction;
    }
    d.coverage_band = band_of(d.usable_coverage, policy.table.edges);
    d.table_action = decide(reason, d.usable_coverage, policy.table);
    d.action = d.table_action;
    d.rationale = decision_rationale{reason, d.usable_coverage, d.coverage_band, d.table_action, {}, 0, 0};
    if (hint && hint->suggested_action != d.table_action) {
        d.disagreement = hint_disagreement{d.table_action, hint->suggested_action};
    }

    detail::overrule_past_limits(d, policy, context);
    switch (d.action) {
    case action::resume:
        d.scope = steps.remaining;
        d.budget_multiplier = policy.resume_budget_multiplier;
        break;
    case action::narrow:
        d.scope = steps.remaining;
        d.budget_multiplier = 1.0;
        break;
    case action::split: {
        const std::uint64_t done = result_usable ? coverage.items_completed : 0;
        d.ranges = plan_split(done + 1, coverage.items_expected, done, policy, &d.chunk);
        if (d.ranges.empty()) {
            d.scope = steps.remaining; // nothing countable to split: split the remaining steps
        }
        d.budget_multiplier = policy.split_budget_multiplier;
        break;
    }
    case action::escalate:
    case action::fail: d.budget_multiplier = 0.0; break;
    }
    return d;
}

} // namespace handoff
