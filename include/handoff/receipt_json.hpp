// SPDX-License-Identifier: MIT
#pragma once

#include <handoff/decision.hpp>
#include <handoff/detail/json_writer.hpp>
#include <handoff/envelope.hpp>
#include <handoff/ledger.hpp>
#include <handoff/problem.hpp>
#include <handoff/receipt.hpp>

#include <nlohmann/json.hpp>

#include <cstddef>          // size_t
#include <initializer_list> // initializer_list
#include <optional>         // optional
#include <string>           // string
#include <string_view>      // string_view
#include <type_traits>      // is_same_v
#include <utility>          // pair
#include <vector>           // vector

namespace handoff {

namespace detail {

/// `{"name":"text",...}`: an object whose members are all strings, in the order given (sorted
/// by name, as nlohmann writes them).
inline void append_string_object(std::string& out,
                                 std::initializer_list<std::pair<std::string_view, std::string_view>> members) {
    out += '{';
    bool first = true;
    for (const auto& [name, text] : members) {
        out += first ? "" : ",";
        first = false;
        json_writer::append_key(out, name);
        json_writer::append_string(out, text);
    }
    out += '}';
}

inline void append_json(std::string& out, const problem& p) {
    append_string_object(
        out, {{"code", p.code}, {"message", p.message}, {"pointer", p.pointer}, {"step", to_string(p.step)}});
}

inline void append_json(std::string& out, const problem_list& problems) {
    out += '[';
    for (std::size_t i = 0; i < problems.size(); ++i) {
        if (i != 0) {
            out += ',';
        }
        append_json(out, problems[i]);
    }
    out += ']';
}

/// What an ESCALATE decision carries besides the decision: the partial result, already
/// written as JSON, and the problems.
struct escalation {
    std::string_view partial_result_json;
    const problem_list& problems;
};

/// The writer's text read back: the one way every to_json below is made, so that a value and
/// its receipt line can never disagree.
[[nodiscard]] inline nlohmann::json parse_written(const std::string& text) {
    return nlohmann::json::parse(text, nullptr, true, false);
}

/// `{"hint":...,"table":...}` when the hint disagreed with the table, else `null`.
inline void append_disagreement(std::string& out, const std::optional<hint_disagreement>& disagreement) {
    namespace w = json_writer;
    if (!disagreement) {
        out += "null";
        return;
    }
    append_string_object(
        out, {{"hint", to_string(disagreement->hint_action)}, {"table", to_string(disagreement->table_action)}});
}

/// `[{"from":...,"to":...},...]`: the ranges a SPLIT hands out.
inline void append_ranges(std::string& out, const std::vector<item_range>& ranges) {
    namespace w = json_writer;
    out += '[';
    for (std::size_t i = 0; i < ranges.size(); ++i) {
        out += i == 0 ? "{" : ",{";
        w::append_key(out, "from");
        w::append_unsigned(out, ranges[i].from);
        out += ',';
        w::append_key(out, "to");
        w::append_unsigned(out, ranges[i].to);
        out += '}';
    }
    out += ']';
}

/// `["...",...]`: each element as the string `to_text` gives for it.
template <class List, class ToText>
void append_string_array(std::string& out, const List& list, ToText to_text) {
    out += '[';
    for (std::size_t i = 0; i < list.size(); ++i) {
        out += i == 0 ? "" : ",";
        json_writer::append_string(out, to_text(list[i]));
    }
    out += ']';
}

/// A string, or `null` when there is none.
inline void append_string_or_null(std::string& out, std::optional<std::string_view> text) {
    if (text) {
        json_writer::append_string(out, *text);
    } else {
        out += "null";
    }
}

/// A decision, its keys in sorted order (the order nlohmann's dump gives the same object).
inline void append_json(std::string& out, const decision& d, const escalation* escalated = nullptr) {
    namespace w = json_writer;
    const auto key = [&](std::string_view name) {
        out += ',';
        w::append_key(out, name);
    };
    const bool split = d.action == action::split;
    out += '{';
    w::append_key(out, "action");
    w::append_string(out, to_string(d.action));
    key("band");
    w::append_string(out, to_string(d.coverage_band));
    key("budget_multiplier");
    w::append_double(out, d.budget_multiplier);
    if (split) {
        key("chunk");
        w::append_unsigned(out, d.chunk);
    }
    key("hint_disagreement");
    append_disagreement(out, d.disagreement);
    if (escalated != nullptr) {
        key("partial_result");
        out += escalated->partial_result_json;
        key("problems");
        append_json(out, escalated->problems);
    }
    if (split) {
        key("ranges");
        append_ranges(out, d.ranges);
    }
    key("rationale");
    w::append_string(out, d.rationale.str());
    key("reason_code");
    w::append_string(out, to_string(d.reason));
    if (d.action == action::resume || d.action == action::narrow || !d.scope.empty()) {
        key("scope");
        append_string_array(out, d.scope, [](const std::string& item) -> std::string_view { return item; });
    }
    key("table_action");
    w::append_string(out, to_string(d.table_action));
    if (split) {
        key("unit");
        w::append_string(out, d.unit);
    }
    key("usable_coverage");
    w::append_double(out, d.usable_coverage);
    out += '}';
}

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

template <class Task>
void append_decision_json(std::string& out, const receipt<Task>& r) {
    if (r.decision->action == action::escalate && r.envelope) {
        const std::string partial = partial_result_json(r);
        const escalation escalated{partial, r.problems};
        append_json(out, *r.decision, &escalated);
    } else {
        append_json(out, *r.decision);
    }
}

} // namespace detail

/// A problem as a JSON object: {code, message, pointer, step}.
[[nodiscard]] inline nlohmann::json to_json(const problem& p) {
    std::string text;
    detail::append_json(text, p);
    return detail::parse_written(text);
}

[[nodiscard]] inline nlohmann::json to_json(const problem_list& problems) {
    std::string text;
    detail::append_json(text, problems);
    return detail::parse_written(text);
}

/// The decision as handoff-check prints it: `scope` for RESUME and NARROW, `ranges` for SPLIT,
/// `budget_multiplier` from the policy, `hint_disagreement` null or {hint, table}.
[[nodiscard]] inline nlohmann::json to_json(const decision& d) {
    std::string text;
    detail::append_json(text, d);
    return detail::parse_written(text);
}

/// Appends to `out` the receipt as one line of JSON, written directly without a DOM (handoff-check
/// writes every receipt with it), with a `"source"` member when `source` is given. Members come
/// in nlohmann's order and numbers in its format, so the line is exactly what
/// `to_json(r).dump()` prints; to_json is this line read back. Invalid UTF-8 in untrusted text
/// is replaced, never thrown about.
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
        detail::append_string_or_null(out, r.envelope->reason_code ? std::optional(to_string(*r.envelope->reason_code))
                                                                   : std::nullopt);
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
    detail::append_string_or_null(out, r.failed_step ? std::optional(to_string(*r.failed_step)) : std::nullopt);
    key("tolerances");
    detail::append_string_array(out, r.tolerances, [](tolerance t) { return to_string(t); });
    if (r.envelope && r.envelope->trace) {
        key("trace");
        detail::append_string_object(
            out, {{"span_id", r.envelope->trace->span_id}, {"trace_id", r.envelope->trace->trace_id}});
    }
    out += '}';
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
