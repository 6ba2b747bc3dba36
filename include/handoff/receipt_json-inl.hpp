// SPDX-License-Identifier: MIT
#pragma once

// receipt_json's definitions: inline in every file header-only, compiled once in
// <handoff/src.hpp> otherwise (config.hpp).

#include <handoff/receipt_json.hpp>

#include <handoff/detail/json/writer.hpp>

#include <cstddef>          // size_t
#include <initializer_list> // initializer_list
#include <utility>          // pair

namespace handoff {

namespace detail {

/// `{"name":"text",...}`: an object whose members are all strings, in the order given (sorted
/// by name, as nlohmann writes them).
HANDOFF_INLINE void append_string_object(std::string& out,
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

HANDOFF_INLINE void append_json(std::string& out, const problem& p) {
    append_string_object(
        out, {{"code", p.code}, {"message", p.message}, {"pointer", p.pointer}, {"step", to_string(p.step)}});
}

HANDOFF_INLINE void append_json(std::string& out, const problem_list& problems) {
    out += '[';
    for (std::size_t i = 0; i < problems.size(); ++i) {
        if (i != 0) {
            out += ',';
        }
        append_json(out, problems[i]);
    }
    out += ']';
}

/// The writer's text read back: the one way every to_json below is made, so that a value and
/// its receipt line can never disagree.
[[nodiscard]] HANDOFF_INLINE nlohmann::json parse_written(const std::string& text) {
    return nlohmann::json::parse(text, nullptr, true, false);
}

/// `{"hint":...,"table":...}` when the hint disagreed with the table, else `null`.
HANDOFF_INLINE void append_disagreement(std::string& out, const std::optional<hint_disagreement>& disagreement) {
    if (!disagreement) {
        out += "null";
        return;
    }
    append_string_object(
        out, {{"hint", to_string(disagreement->hint_action)}, {"table", to_string(disagreement->table_action)}});
}

/// `[{"from":...,"to":...},...]`: the ranges a SPLIT hands out.
HANDOFF_INLINE void append_ranges(std::string& out, const std::vector<item_range>& ranges) {
    out += '[';
    for (std::size_t i = 0; i < ranges.size(); ++i) {
        out += i == 0 ? "{" : ",{";
        json_writer::append_key(out, "from");
        json_writer::append_unsigned(out, ranges[i].from);
        out += ',';
        json_writer::append_key(out, "to");
        json_writer::append_unsigned(out, ranges[i].to);
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
HANDOFF_INLINE void append_string_or_null(std::string& out, std::optional<std::string_view> text) {
    if (text) {
        json_writer::append_string(out, *text);
    } else {
        out += "null";
    }
}

/// A decision, its keys in sorted order (the order nlohmann's dump gives the same object).
HANDOFF_INLINE void append_json(std::string& out, const decision& d, const escalation* escalated) {
    const auto key = [&](std::string_view name) {
        out += ',';
        json_writer::append_key(out, name);
    };
    const bool split = d.action == action::split;
    out += '{';
    json_writer::append_key(out, "action");
    json_writer::append_string(out, to_string(d.action));
    key("band");
    json_writer::append_string(out, to_string(d.coverage_band));
    key("budget_multiplier");
    json_writer::append_double(out, d.budget_multiplier);
    if (split) {
        key("chunk");
        json_writer::append_unsigned(out, d.chunk);
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
    json_writer::append_string(out, d.rationale.str());
    key("reason_code");
    json_writer::append_string(out, to_string(d.reason));
    if (d.action == action::resume || d.action == action::narrow || !d.scope.empty()) {
        key("scope");
        append_string_array(out, d.scope, [](const std::string& item) -> std::string_view { return item; });
    }
    key("table_action");
    json_writer::append_string(out, to_string(d.table_action));
    if (split) {
        key("unit");
        json_writer::append_string(out, d.unit);
    }
    key("usable_coverage");
    json_writer::append_double(out, d.usable_coverage);
    out += '}';
}

} // namespace detail

namespace detail {

HANDOFF_INLINE void append_receipt_line(std::string& out, const receipt_line& line,
                                        std::optional<std::string_view> source) {
    const auto key = [&](std::string_view name) {
        out += ',';
        json_writer::append_key(out, name);
    };
    // Members in nlohmann's order (its objects are std::maps: sorted by key).
    out += '{';
    json_writer::append_key(out, "decision");
    if (line.decision == nullptr) {
        out += "null";
    } else if (line.escalated_partial != nullptr) {
        const escalation escalated{*line.escalated_partial, *line.problems};
        append_json(out, *line.decision, &escalated);
    } else {
        append_json(out, *line.decision);
    }
    key("problems");
    append_json(out, *line.problems);
    if (line.has_envelope) {
        key("reason_code");
        append_string_or_null(out, line.reason_code ? std::optional(to_string(*line.reason_code)) : std::nullopt);
    }
    key("route");
    json_writer::append_string(out, to_string(line.route));
    key("schema_ok");
    json_writer::append_bool(out, line.schema_ok);
    if (source) {
        key("source");
        json_writer::append_string(out, *source);
    }
    if (line.has_envelope) {
        key("status");
        json_writer::append_string(out, to_string(line.status));
    }
    key("step");
    append_string_or_null(out, line.failed_step ? std::optional(to_string(*line.failed_step)) : std::nullopt);
    key("tolerances");
    append_string_array(out, *line.tolerances, [](tolerance t) { return to_string(t); });
    if (line.has_envelope && line.trace != nullptr) {
        key("trace");
        append_string_object(out, {{"span_id", line.trace->span_id}, {"trace_id", line.trace->trace_id}});
    }
    out += '}';
}

} // namespace detail

HANDOFF_INLINE nlohmann::json to_json(const problem& p) {
    std::string text;
    detail::append_json(text, p);
    return detail::parse_written(text);
}

HANDOFF_INLINE nlohmann::json to_json(const problem_list& problems) {
    std::string text;
    detail::append_json(text, problems);
    return detail::parse_written(text);
}

HANDOFF_INLINE nlohmann::json to_json(const decision& d) {
    std::string text;
    detail::append_json(text, d);
    return detail::parse_written(text);
}

} // namespace handoff
