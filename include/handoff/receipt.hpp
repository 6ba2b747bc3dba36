// SPDX-License-Identifier: MIT
#pragma once

#include <handoff/decision.hpp>
#include <handoff/enums.hpp>
#include <handoff/envelope.hpp>
#include <handoff/problem.hpp>

#include <nlohmann/json.hpp>

#include <optional> // optional
#include <vector>   // vector

namespace handoff {

/// The outcome of the five-step receipt check. Inspect `route` before reading anything else:
///
/// - ACCEPT: `envelope->partial_result` is the whole, validated result.
/// - REPAIR: a contract failure; `failed_step` and `problems` say what to feed back.
/// - RESUME, SPLIT, NARROW, ESCALATE, FAIL: a capped envelope; `decision` says what to do.
template <class Task = nlohmann::json>
struct [[nodiscard]] receipt {
    handoff::route route = handoff::route::repair;
    /// The first step that failed (parse, envelope_schema, task_schema of an ok envelope,
    /// coverage, or semantic for an ok envelope that layer 2 refused), or empty. A step-3 or
    /// semantic downgrade of a capped envelope is not a contract failure.
    std::optional<handoff::step> failed_step;
    /// After step 3: true only when a partial result is present and fits the task schema.
    bool schema_ok = false;
    /// Present once steps 1 and 2 passed; its partial_result is empty when discarded.
    std::optional<handoff::envelope<Task>> envelope;
    /// Every problem found, in step order; downgrades and contract failures alike.
    problem_list problems;
    /// Present for capped envelopes that passed the contract (routes RESUME..FAIL).
    std::optional<handoff::decision> decision;
    /// What the tolerant decode removed to find the object.
    std::vector<tolerance> tolerances;

    [[nodiscard]] bool accepted() const noexcept { return route == handoff::route::accept; }

    /// The accepted, validated result; null unless the route is ACCEPT.
    [[nodiscard]] const Task* result() const noexcept {
        return accepted() && envelope && envelope->partial_result ? &*envelope->partial_result : nullptr;
    }
    [[nodiscard]] bool contract_failure() const noexcept { return route == handoff::route::repair; }
};

} // namespace handoff
