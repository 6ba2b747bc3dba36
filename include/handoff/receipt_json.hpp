// SPDX-License-Identifier: MIT
#pragma once

#include <handoff/decision.hpp>
#include <handoff/detail/json_writer.hpp>
#include <handoff/envelope.hpp>
#include <handoff/ledger.hpp>
#include <handoff/problem.hpp>
#include <handoff/receipt.hpp>

#include <nlohmann/json.hpp>

#include <optional>    // optional
#include <string>      // string
#include <string_view> // string_view
#include <type_traits> // is_same_v

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
        {"action", to_string(d.action)},      {"table_action", to_string(d.table_action)},
        {"reason_code", to_string(d.reason)}, {"usable_coverage", d.usable_coverage},
        {"band", to_string(d.coverage_band)}, {"budget_multiplier", d.budget_multiplier},
        {"hint_disagreement", nullptr},       {"rationale", d.rationale.str()},
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

/// One receipt as a JSON object, as handoff-check prints it: route, step, schema_ok, problems, decision, plus
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
        out["reason_code"] =
            r.envelope->reason_code ? nlohmann::json(to_string(*r.envelope->reason_code)) : nlohmann::json(nullptr);
        if (r.envelope->trace) {
            out["trace"] = {{"trace_id", r.envelope->trace->trace_id}, {"span_id", r.envelope->trace->span_id}};
        }
    }
    if (r.decision) {
        out["decision"] = to_json(*r.decision);
        if (r.decision->action == action::escalate && r.envelope) {
            out["decision"]["partial_result"] =
                r.envelope->partial_result ? nlohmann::json(*r.envelope->partial_result) : nlohmann::json(nullptr);
            out["decision"]["problems"] = to_json(r.problems);
        }
    }
    return out;
}

namespace detail {

inline void append_json(std::string& out, const problem_list& problems) {
    namespace w = json_writer;
    out += '[';
    for (std::size_t i = 0; i < problems.size(); ++i) {
        const problem& p = problems[i];
        out += i == 0 ? "{" : ",{";
        w::append_key(out, "code");
        w::append_string(out, p.code);
        out += ',';
        w::append_key(out, "message");
        w::append_string(out, p.message);
        out += ',';
        w::append_key(out, "pointer");
        w::append_string(out, p.pointer);
        out += ',';
        w::append_key(out, "step");
        w::append_string(out, to_string(p.step));
        out += '}';
    }
    out += ']';
}

template <class Task>
void append_decision_json(std::string& out, const receipt<Task>& r) {
    namespace w = json_writer;
    const decision& d = *r.decision;
    const bool escalated = d.action == action::escalate && r.envelope;
    const auto key = [&](std::string_view name) {
        out += ',';
        w::append_key(out, name);
    };
    out += '{';
    w::append_key(out, "action");
    w::append_string(out, to_string(d.action));
    key("band");
    w::append_string(out, to_string(d.coverage_band));
    key("budget_multiplier");
    w::append_double(out, d.budget_multiplier);
    if (d.action == action::split) {
        key("chunk");
        w::append_unsigned(out, d.chunk);
    }
    key("hint_disagreement");
    if (d.disagreement) {
        out += '{';
        w::append_key(out, "hint");
        w::append_string(out, to_string(d.disagreement->hint_action));
        key("table");
        w::append_string(out, to_string(d.disagreement->table_action));
        out += '}';
    } else {
        out += "null";
    }
    if (escalated) {
        key("partial_result");
        if (!r.envelope->partial_result) {
            out += "null";
        } else if constexpr (std::is_same_v<Task, nlohmann::json>) {
            out += r.envelope->partial_result->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
        } else {
            out += nlohmann::json(*r.envelope->partial_result)
                       .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
        }
        key("problems");
        append_json(out, r.problems);
    }
    if (d.action == action::split) {
        key("ranges");
        out += '[';
        for (std::size_t i = 0; i < d.ranges.size(); ++i) {
            out += i == 0 ? "{" : ",{";
            w::append_key(out, "from");
            w::append_unsigned(out, d.ranges[i].from);
            key("to");
            w::append_unsigned(out, d.ranges[i].to);
            out += '}';
        }
        out += ']';
    }
    key("rationale");
    w::append_string(out, d.rationale.str());
    key("reason_code");
    w::append_string(out, to_string(d.reason));
    if (d.action == action::resume || d.action == action::narrow || !d.scope.empty()) {
        key("scope");
        out += '[';
        for (std::size_t i = 0; i < d.scope.size(); ++i) {
            out += i == 0 ? "" : ",";
            w::append_string(out, d.scope[i]);
        }
        out += ']';
    }
    key("table_action");
    w::append_string(out, to_string(d.table_action));
    if (d.action == action::split) {
        key("unit");
        w::append_string(out, d.unit);
    }
    key("usable_coverage");
    w::append_double(out, d.usable_coverage);
    out += '}';
}

} // namespace detail

/// Appends to `out` the receipt as one line of JSON, byte for byte
/// `to_json(r).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)` (with a
/// `"source"` member when `source` is given), but written directly: no DOM is built, which
/// makes it several times faster (handoff-check writes every receipt with it). Invalid UTF-8
/// in untrusted text is replaced, never thrown about.
template <class Task>
void append_json(std::string& out, const receipt<Task>& r, std::optional<std::string_view> source = std::nullopt) {
    namespace w = detail::json_writer;
    const auto key = [&](std::string_view name) {
        out += ',';
        w::append_key(out, name);
    };
    // Members in nlohmann's order (its objects are std::maps: sorted by key).
    out += '{';
    w::append_key(out, "decision");
    if (r.decision) {
        detail::append_decision_json(out, r);
    } else {
        out += "null";
    }
    key("problems");
    detail::append_json(out, r.problems);
    if (r.envelope) {
        key("reason_code");
        if (r.envelope->reason_code) {
            w::append_string(out, to_string(*r.envelope->reason_code));
        } else {
            out += "null";
        }
    }
    key("route");
    w::append_string(out, to_string(r.route));
    key("schema_ok");
    w::append_bool(out, r.schema_ok);
    if (source) {
        key("source");
        w::append_string(out, *source);
    }
    if (r.envelope) {
        key("status");
        w::append_string(out, to_string(r.envelope->status));
    }
    key("step");
    if (r.failed_step) {
        w::append_string(out, to_string(*r.failed_step));
    } else {
        out += "null";
    }
    key("tolerances");
    out += '[';
    for (std::size_t i = 0; i < r.tolerances.size(); ++i) {
        out += i == 0 ? "" : ",";
        w::append_string(out, to_string(r.tolerances[i]));
    }
    out += ']';
    if (r.envelope && r.envelope->trace) {
        key("trace");
        out += '{';
        w::append_key(out, "span_id");
        w::append_string(out, r.envelope->trace->span_id);
        key("trace_id");
        w::append_string(out, r.envelope->trace->trace_id);
        out += '}';
    }
    out += '}';
}

} // namespace handoff
