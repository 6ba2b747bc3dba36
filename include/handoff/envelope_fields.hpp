// SPDX-License-Identifier: MIT
#pragma once

// The envelope's fields but partial_result as plain structs, without a JSON library, so that
// routing (<handoff/decision.hpp>) and coverage arithmetic compile without one.
// <handoff/envelope.hpp> puts them together with the partial result; the names, bounds and
// vocabularies of the fields on the wire are the contract's (<handoff/envelope_contract.hpp>).

#include <handoff/enums.hpp>

#include <cstdint>  // uint64_t
#include <optional> // optional
#include <string>   // string
#include <vector>   // vector

namespace handoff {

/// How much of the task the worker claims to have done (`coverage`).
struct coverage_info {
    std::uint64_t items_expected = 0;
    std::uint64_t items_completed = 0;
    std::string unit;
    double fraction = 0.0;
};

/// What the worker did and what is left, in its own words (`steps`).
struct steps_info {
    std::vector<std::string> completed;
    std::vector<std::string> remaining;
};

/// The worker's advice. Advisory only: the decision table overrules it and its
/// budget_multiplier is never used (the orchestrator owns budgets).
struct retry_hint_info {
    action suggested_action = action::fail;
    std::optional<std::string> suggested_scope;
    std::optional<double> budget_multiplier;
    std::optional<std::string> notes;
};

/// Correlates orchestrator and worker logs.
struct trace_info {
    std::string trace_id;
    std::string span_id;
    std::optional<std::string> parent_span_id;
};

/// The budget at the moment the cap fired; each figure is optional.
struct budget_info {
    std::optional<std::uint64_t> tokens_used;
    std::optional<std::uint64_t> token_cap;
    std::optional<std::uint64_t> elapsed_ms;
    std::optional<std::uint64_t> time_cap_ms;
    std::optional<std::uint64_t> tool_calls;
    std::optional<std::uint64_t> tool_call_cap;
};

} // namespace handoff
