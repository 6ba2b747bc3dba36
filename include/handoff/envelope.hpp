// SPDX-License-Identifier: MIT
#pragma once

#include <handoff/enums.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>  // uint64_t
#include <optional> // optional
#include <string>   // string
#include <vector>   // vector

namespace handoff {

/// How much of the task the worker claims to have done (SPEC §2 `coverage`).
struct coverage_info {
    std::uint64_t items_expected = 0;
    std::uint64_t items_completed = 0;
    std::string unit;
    double fraction = 0.0;
};

/// What the worker did and what is left, in its own words (SPEC §2 `steps`).
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

/// The typed envelope. `Task` is the type of partial_result: nlohmann::json by default, or a
/// user struct with an nlohmann `from_json`. `partial_result` is empty when the worker sent
/// null or when the receipt check discarded it (schema_ok false, see SPEC §3 step 3).
template <class Task = nlohmann::json>
struct envelope {
    handoff::status status = handoff::status::ok;
    std::optional<handoff::reason_code> reason_code;
    std::optional<Task> partial_result;
    bool schema_ok = false;
    coverage_info coverage;
    steps_info steps;
    std::optional<retry_hint_info> retry_hint;
    std::optional<trace_info> trace;
    std::optional<budget_info> budget;
};

} // namespace handoff
