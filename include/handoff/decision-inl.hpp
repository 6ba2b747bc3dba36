// SPDX-License-Identifier: MIT
#pragma once

// The routing decision's definitions: inline in every file header-only, compiled once in
// <handoff/src.hpp> otherwise (config.hpp).

#include <handoff/decision.hpp>

#include <handoff/decision_table.hpp>
#include <handoff/detail/text.hpp>
#include <handoff/enums.hpp>
#include <handoff/envelope_fields.hpp>

#include <algorithm> // max
#include <cstddef>   // size_t
#include <cstdint>   // uint32_t, uint64_t
#include <optional>  // optional
#include <string>    // string, to_string
#include <vector>    // vector

namespace handoff {

HANDOFF_INLINE std::string decision_rationale::str() const {
    std::string s = std::string(to_string(reason)) + " at usable coverage " +
                    detail::format_two_decimals(usable_coverage) + " (" + std::string(to_string(coverage_band)) +
                    " band): the table says " + std::string(to_string(table_action));
    switch (overruled_by) {
    case overrule::none: break;
    case overrule::attempts_exhausted:
        s += "; attempt " + std::to_string(reached) + " of " + std::to_string(limit) + " exhausts the policy, so FAIL";
        break;
    case overrule::split_depth_reached:
        s += "; split depth " + std::to_string(reached) + " reached the policy's limit of " + std::to_string(limit) +
             ", so FAIL";
        break;
    }
    return s;
}

HANDOFF_INLINE std::vector<item_range> plan_split(std::uint64_t first, std::uint64_t last, std::uint64_t capacity,
                                                  const routing_policy& policy, std::uint64_t* chunk_out) {
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
HANDOFF_INLINE void overrule_past_limits(decision& d, const routing_policy& policy, const attempt_context& context) {
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
HANDOFF_INLINE decision plan(reason_code reason, const coverage_info& coverage, const steps_info& steps,
                             const std::optional<retry_hint_info>& hint, bool result_usable,
                             const routing_policy& policy, const attempt_context& context) {
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
