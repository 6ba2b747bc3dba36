// SPDX-License-Identifier: MIT
#pragma once

#include <handoff/decision.hpp>
#include <handoff/envelope.hpp>
#include <handoff/ledger.hpp>
#include <handoff/problem.hpp>
#include <handoff/receipt.hpp>

#include <nlohmann/json.hpp>

namespace handoff {

[[nodiscard]] inline nlohmann::json to_json(const problem& p) {
    return {{"step", to_string(p.step)}, {"code", p.code}, {"pointer", p.pointer}, {"message", p.message}};
}

[[nodiscard]] inline nlohmann::json to_json(const problem_list& problems) {
    nlohmann::json out = nlohmann::json::array();
    for (const problem& p : problems) {
        out.push_back(to_json(p));
    }
    return out;
}

/// The decision as handoff-check prints it: `scope` for RESUME and NARROW, `ranges` for SPLIT,
/// `budget_multiplier` from the policy, `hint_disagreement` null or {hint, table}.
[[nodiscard]] inline nlohmann::json to_json(const decision& d) {
    nlohmann::json out = {
        {"action", to_string(d.action)},
        {"table_action", to_string(d.table_action)},
        {"reason_code", to_string(d.reason)},
        {"usable_coverage", d.usable_coverage},
        {"band", to_string(d.coverage_band)},
        {"budget_multiplier", d.budget_multiplier},
        {"hint_disagreement", nullptr},
        {"rationale", d.rationale.str()},
    };
    if (d.action == action::resume || d.action == action::narrow || !d.scope.empty()) {
        out["scope"] = d.scope;
    }
    if (d.action == action::split) {
        nlohmann::json ranges = nlohmann::json::array();
        for (const item_range& r : d.ranges) {
            ranges.push_back({{"from", r.from}, {"to", r.to}});
        }
        out["ranges"] = std::move(ranges);
        out["unit"] = d.unit;
        out["chunk"] = d.chunk;
    }
    if (d.disagreement) {
        out["hint_disagreement"] = {{"hint", to_string(d.disagreement->hint_action)},
                                    {"table", to_string(d.disagreement->table_action)}};
    }
    return out;
}

/// One receipt as a JSON object (SPEC §7): route, step, schema_ok, problems, decision, plus
/// status, reason_code and tolerances. An ESCALATE decision carries the partial result and
/// the problems, so whoever picks it up needs nothing else.
template <class Task>
[[nodiscard]] nlohmann::json to_json(const receipt<Task>& r) {
    nlohmann::json out = {
        {"route", to_string(r.route)},
        {"step", r.failed_step ? nlohmann::json(to_string(*r.failed_step)) : nlohmann::json(nullptr)},
        {"schema_ok", r.schema_ok},
        {"problems", to_json(r.problems)},
        {"decision", nullptr},
    };
    nlohmann::json tolerances = nlohmann::json::array();
    for (tolerance t : r.tolerances) {
        tolerances.push_back(to_string(t));
    }
    out["tolerances"] = std::move(tolerances);
    if (r.envelope) {
        out["status"] = to_string(r.envelope->status);
        out["reason_code"] = r.envelope->reason_code ? nlohmann::json(to_string(*r.envelope->reason_code))
                                                     : nlohmann::json(nullptr);
        if (r.envelope->trace) {
            out["trace"] = {{"trace_id", r.envelope->trace->trace_id}, {"span_id", r.envelope->trace->span_id}};
        }
    }
    if (r.decision) {
        out["decision"] = to_json(*r.decision);
        if (r.decision->action == action::escalate && r.envelope) {
            out["decision"]["partial_result"] = r.envelope->partial_result
                                                    ? nlohmann::json(*r.envelope->partial_result)
                                                    : nlohmann::json(nullptr);
            out["decision"]["problems"] = to_json(r.problems);
        }
    }
    return out;
}

} // namespace handoff
