// SPDX-License-Identifier: MIT
#pragma once

#include <handoff/config.hpp>
#include <handoff/decision.hpp>
#include <handoff/envelope.hpp>
#include <handoff/ledger.hpp>
#include <handoff/problem.hpp>
#include <handoff/receipt.hpp>

#include <nlohmann/json.hpp>

#include <optional>    // optional
#include <string>      // string
#include <string_view> // string_view
#include <type_traits> // is_same_v
#include <vector>      // vector

namespace handoff {

namespace detail {

/// What an ESCALATE decision carries besides the decision: the partial result, already
/// written as JSON, and the problems.
struct escalation {
    std::string_view partial_result_json;
    const problem_list& problems;
};

/// The members of a receipt<Task> its JSON line writes, none of which depends on Task: the
/// partial result an ESCALATE decision carries is written by the caller, which knows Task.
struct receipt_line {
    handoff::route route = handoff::route::repair;
    std::optional<handoff::step> failed_step;
    bool schema_ok = false;
    const problem_list* problems = nullptr;
    const handoff::decision* decision = nullptr; // null: no decision
    const std::vector<tolerance>* tolerances = nullptr;
    bool has_envelope = false; // status, reason_code and trace are read only when true
    handoff::status status = handoff::status::ok;
    std::optional<handoff::reason_code> reason_code;
    const trace_info* trace = nullptr;
    /// The escalated partial result as JSON text; null unless the decision escalates an envelope.
    const std::string* escalated_partial = nullptr;
};

/// Appends the receipt line (see handoff::append_json) for `line`.
void append_receipt_line(std::string& out, const receipt_line& line, std::optional<std::string_view> source);

/// A problem, a problem list and a decision as JSON text; an escalated decision also carries
/// the partial result and the problems.
void append_json(std::string& out, const problem& p);
void append_json(std::string& out, const problem_list& problems);
void append_json(std::string& out, const decision& d, const escalation* escalated = nullptr);

/// The writer's text read back: the one way every to_json below is made, so that a value and
/// its receipt line can never disagree.
[[nodiscard]] nlohmann::json parse_written(const std::string& text);

/// The partial result of an escalated receipt as JSON text ("null" when there is none).
template <class Task>
[[nodiscard]] std::string partial_result_json(const receipt<Task>& r) {
    if (!r.envelope || !r.envelope->partial_result) {
        return "null";
    }
    if constexpr (std::is_same_v<Task, nlohmann::json>) {
        return r.envelope->partial_result->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    } else {
        return nlohmann::json(*r.envelope->partial_result)
            .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    }
}

} // namespace detail

/// A problem as a JSON object: {code, message, pointer, step}.
[[nodiscard]] nlohmann::json to_json(const problem& p);

[[nodiscard]] nlohmann::json to_json(const problem_list& problems);

/// The decision as handoff-check prints it: `scope` for RESUME and NARROW, `ranges` for SPLIT,
/// `budget_multiplier` from the policy, `hint_disagreement` null or {hint, table}.
[[nodiscard]] nlohmann::json to_json(const decision& d);

/// Appends to `out` the receipt as one line of JSON, written directly without a DOM (handoff-check
/// writes every receipt with it), with a `"source"` member when `source` is given. Members come
/// in nlohmann's order and numbers in its format, so the line is exactly what
/// `to_json(r).dump()` prints; to_json is this line read back. Invalid UTF-8 in untrusted text
/// is replaced, never thrown about.
template <class Task>
void append_json(std::string& out, const receipt<Task>& r, std::optional<std::string_view> source = std::nullopt) {
    detail::receipt_line line;
    line.route = r.route;
    line.failed_step = r.failed_step;
    line.schema_ok = r.schema_ok;
    line.problems = &r.problems;
    line.decision = r.decision ? &*r.decision : nullptr;
    line.tolerances = &r.tolerances;
    if (r.envelope) {
        line.has_envelope = true;
        line.status = r.envelope->status;
        line.reason_code = r.envelope->reason_code;
        line.trace = r.envelope->trace ? &*r.envelope->trace : nullptr;
    }
    std::string partial;
    if (r.decision && r.decision->action == action::escalate && r.envelope) {
        partial = detail::partial_result_json(r);
        line.escalated_partial = &partial;
    }
    detail::append_receipt_line(out, line, source);
}

/// One receipt as a JSON object, as handoff-check prints it: route, step, schema_ok, problems,
/// decision, plus status, reason_code, tolerances and trace. An ESCALATE decision carries the
/// partial result and the problems, so whoever picks it up needs nothing else.
template <class Task>
[[nodiscard]] nlohmann::json to_json(const receipt<Task>& r) {
    std::string text;
    append_json(text, r);
    return detail::parse_written(text);
}

} // namespace handoff

#if !defined(HANDOFF_COMPILED_LIB)
#include <handoff/receipt_json-inl.hpp>
#endif
