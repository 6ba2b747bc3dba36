// SPDX-License-Identifier: MIT
#pragma once

#include <handoff/config.hpp>
#include <handoff/decision_table.hpp>
#include <handoff/enums.hpp>
#include <handoff/envelope_fields.hpp>

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

    [[nodiscard]] std::string str() const;

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
[[nodiscard]] std::vector<item_range> plan_split(std::uint64_t first, std::uint64_t last, std::uint64_t capacity,
                                                 const routing_policy& policy, std::uint64_t* chunk_out = nullptr);

namespace detail {

/// FAIL instead of an action that spends budget once the run used its attempts, or of a SPLIT
/// once it is split as deep as the policy allows; the rationale says which limit was reached.
void overrule_past_limits(decision& d, const routing_policy& policy, const attempt_context& context);

} // namespace detail

/// The route step for a capped envelope that passed steps 1, 2 and 4.
/// `result_usable` is false when step 3 discarded the partial result (or there was none).
[[nodiscard]] decision plan(reason_code reason, const coverage_info& coverage, const steps_info& steps,
                            const std::optional<retry_hint_info>& hint, bool result_usable,
                            const routing_policy& policy = {}, const attempt_context& context = {});

} // namespace handoff

#if !defined(HANDOFF_COMPILED_LIB)
#include <handoff/decision-inl.hpp>
#endif
