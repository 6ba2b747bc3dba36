// SPDX-License-Identifier: MIT
#pragma once

#include <handoff/enums.hpp>
#include <handoff/envelope_fields.hpp>

#include <nlohmann/json.hpp>

#include <optional> // optional

namespace handoff {

/// The typed envelope. `Task` is the type of partial_result: nlohmann::json by default, or a
/// user struct with an nlohmann `from_json`. `partial_result` is empty when the worker sent
/// null or when the receipt check discarded it (schema_ok false after step 3, the task schema).
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
