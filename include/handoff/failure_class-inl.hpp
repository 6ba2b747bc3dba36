// SPDX-License-Identifier: MIT
#pragma once

// The failure classifier's definitions: inline in every file header-only, compiled once in
// <handoff/src.hpp> otherwise (config.hpp).

#include <handoff/failure_class.hpp>

#include <handoff/detail/json/pointer.hpp>
#include <handoff/problem_codes.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>        // any_of
#include <array>            // array
#include <cstddef>          // size_t
#include <initializer_list> // initializer_list
#include <optional>         // optional
#include <string>           // string
#include <string_view>      // string_view
#include <utility>          // move
#include <vector>           // vector

namespace handoff {

namespace detail::failure_rules {

HANDOFF_INLINE bool contains(std::string_view text, std::string_view part) {
    return text.find(part) != std::string_view::npos;
}

HANDOFF_INLINE std::string_view string_at(const nlohmann::json& object, const char* key) {
    const auto it = object.find(key);
    return it != object.end() && it->is_string() ? std::string_view(it->get_ref<const std::string&>())
                                                 : std::string_view();
}

/// The JSON string literal that starts at or after `from` in `message`, decoded; messages
/// quote untrusted values as JSON strings ("(got \"urgent\")", "\"done\" is not a status").
HANDOFF_INLINE std::optional<std::string> quoted_after(std::string_view message, std::string_view marker) {
    const std::size_t at = message.find(marker);
    if (at == std::string_view::npos) {
        return std::nullopt;
    }
    const std::size_t open = message.find('"', at + marker.size());
    if (open == std::string_view::npos) {
        return std::nullopt;
    }
    for (std::size_t i = open + 1; i < message.size(); ++i) {
        if (message[i] == '\\') {
            ++i;
        } else if (message[i] == '"') {
            const auto decoded = nlohmann::json::parse(message.substr(open, i - open + 1), nullptr, false);
            return decoded.is_string() ? std::optional<std::string>(decoded.get<std::string>()) : std::nullopt;
        }
    }
    return std::nullopt;
}

/// The raw text as the model wrote it, when the record kept it readable (not base64).
HANDOFF_INLINE std::string_view raw_text(const nlohmann::json& attempt) {
    return string_at(attempt, "raw_encoding") == "base64" ? std::string_view() : string_at(attempt, "raw_text");
}

HANDOFF_INLINE bool has_tolerance(const nlohmann::json& attempt, std::string_view name) {
    const auto it = attempt.find("tolerances");
    return it != attempt.end() && it->is_array() && std::any_of(it->begin(), it->end(), [&](const nlohmann::json& t) {
               return t.is_string() && t.get_ref<const std::string&>() == name;
           });
}

HANDOFF_INLINE bool reads_as_refusal(std::string_view text) {
    static constexpr std::array<std::string_view, 9> phrases = {"i can't",     "i cannot",   "i can\xE2\x80\x99t",
                                                                "i'm sorry",   "i am sorry", "i'm unable",
                                                                "i am unable", "i won't",    "as an ai"};
    std::string head(text.substr(0, 400));
    for (char& c : head) {
        c = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
    }
    return std::any_of(phrases.begin(), phrases.end(), [&](std::string_view p) { return contains(head, p); });
}

/// What wrapped JSON that did not parse: a refusal, a fence, prose, or nothing (not_json).
/// Reads the tolerances a receipt records, the raw text a dead letter keeps, and, in strict
/// mode, the first character the parser choked on (its "last read" token).
HANDOFF_INLINE failure_class wrapper_class(const nlohmann::json& attempt, std::string_view message, bool no_object) {
    const std::string_view raw = raw_text(attempt);
    if (no_object && reads_as_refusal(raw)) {
        return failure_class::refused;
    }
    const std::size_t brace = raw.find('{');
    const std::size_t fence = raw.find("```");
    if (has_tolerance(attempt, "code_fence") || (fence != std::string_view::npos && fence < brace) ||
        contains(message, "last read: \"`")) {
        return failure_class::fenced;
    }
    const std::size_t first = raw.find_first_not_of(" \t\r\n");
    const std::size_t last = raw.find_last_not_of(" \t\r\n");
    const bool wrapped = first != std::string_view::npos && (raw[first] != '{' || raw[last] != '}');
    // Strict mode parses the text as it came: a first character that is not JSON is prose.
    const bool strict_prose = contains(message, " at line 1, column 1: ") && !contains(message, "last read: \"{");
    if (has_tolerance(attempt, "leading_prose") || has_tolerance(attempt, "trailing_prose") || wrapped ||
        strict_prose) {
        return failure_class::prose;
    }
    return failure_class::not_json;
}

HANDOFF_INLINE failure_class parse_class(const nlohmann::json& attempt, std::string_view code,
                                         std::string_view message) {
    if (code == codes::parse_syntax) {
        if (contains(message, "(JSON strings take double quotes)")) {
            return failure_class::single_quotes;
        }
        if (contains(message, "(comments are not JSON)")) {
            return failure_class::comments;
        }
        if (contains(message, "(a trailing comma is not JSON)")) {
            return failure_class::trailing_comma;
        }
        return wrapper_class(attempt, message, false);
    }
    if (code == codes::parse_no_object) {
        return wrapper_class(attempt, message, true);
    }
    return code.rfind(codes::parse_limit_family, 0) == 0 ? failure_class::too_long : failure_class::other;
}

/// Envelope codes are one mistake each; task.schema carries one sentence per rule: handoff's
/// own validator's (first in each list), and valijson's, which dead letters written before
/// handoff had its own validator still hold.
HANDOFF_INLINE failure_class schema_class(std::string_view code, std::string_view message) {
    const auto any = [&](std::initializer_list<std::string_view> phrases) {
        return std::any_of(phrases.begin(), phrases.end(), [&](std::string_view p) { return contains(message, p); });
    };
    if (code == codes::envelope_enum ||
        any({": must be one of ", "Failed to match against any enum values", "'const' constraint"})) {
        return failure_class::enum_violation;
    }
    if (code == codes::envelope_required || code == codes::task_absent ||
        any({": misses the required property ", "Missing required property"})) {
        return failure_class::missing_field;
    }
    if (code == codes::envelope_unknown_field || code == codes::envelope_forbidden ||
        any({" is not allowed here (additionalProperties is false)",
             "could not be validated using 'properties' or 'additionalProperties'"})) {
        return failure_class::unexpected_field;
    }
    if (code == codes::envelope_max_length || code == codes::envelope_max_items ||
        any({": must be at most ", ": must have at most ", "should be no more than", "should contain no more than"})) {
        return failure_class::too_long;
    }
    if (code == codes::envelope_type || code == codes::task_conversion ||
        any({": must be of type ", "Value type not permitted"})) {
        return failure_class::wrong_type;
    }
    return failure_class::other;
}

HANDOFF_INLINE failure_class code_class(const nlohmann::json& attempt, std::string_view code,
                                        std::string_view message) {
    if (code == codes::reply_truncated) {
        return failure_class::truncated;
    }
    if (code.rfind(codes::parse_family, 0) == 0) {
        return parse_class(attempt, code, message);
    }
    if (code.rfind(codes::coverage_family, 0) == 0) {
        return failure_class::coverage;
    }
    if (code.rfind(codes::semantic_family, 0) == 0) {
        return failure_class::semantic;
    }
    if (code.rfind(codes::envelope_family, 0) == 0 || code.rfind(codes::task_family, 0) == 0) {
        return schema_class(code, message);
    }
    return failure_class::other;
}

/// The steps in the order they run; a problem of an unknown step sorts last.
HANDOFF_INLINE std::size_t step_rank(std::string_view step) {
    static constexpr std::array<std::string_view, 6> order = {"parse",    "envelope_schema", "task_schema",
                                                              "coverage", "semantic",        "reply"};
    for (std::size_t i = 0; i < order.size(); ++i) {
        if (order[i] == step) {
            return i;
        }
    }
    return order.size();
}

/// The decisive problem (rules 2 and 3 of the precedence), or nullptr.
HANDOFF_INLINE const nlohmann::json* decisive_problem(const nlohmann::json& attempt) {
    const auto problems = attempt.find("problems");
    if (problems == attempt.end() || !problems->is_array()) {
        return nullptr;
    }
    const std::string_view failed = string_at(attempt, "step");
    const nlohmann::json* best = nullptr;
    std::size_t best_rank = 0;
    for (const auto& p : *problems) {
        if (!p.is_object() || string_at(p, "code") == codes::dead_letter_problems_cut) {
            continue;
        }
        const std::string_view step = string_at(p, "step");
        if (!failed.empty() && step == failed) {
            return &p;
        }
        if (best == nullptr || step_rank(step) < best_rank) {
            best = &p;
            best_rank = step_rank(step);
        }
    }
    return best;
}

/// A missing property is named in the message, not the pointer (which is its object's): append
/// the name so that "pointers most often at fault" names the field. valijson named an
/// unexpected property the same way; handoff's validator points at the property itself.
HANDOFF_INLINE std::string fault_pointer(failure_class kind, std::string_view pointer, std::string_view message) {
    struct marker {
        failure_class kind;
        std::string_view head;
        char end;
    };
    static constexpr marker markers[] = {
        {failure_class::missing_field, ": misses the required property \"", '"'},
        {failure_class::missing_field, "Missing required property '", '\''},
        {failure_class::unexpected_field, "'additionalProperties' constraints: '", '\''},
    };
    std::string out(pointer);
    for (const marker& m : markers) {
        const std::size_t at = m.kind == kind ? message.find(m.head) : std::string_view::npos;
        const std::size_t from = at + m.head.size();
        const std::size_t to = at == std::string_view::npos ? at : message.find(m.end, from);
        if (to != std::string_view::npos) {
            return pointer_child(out, message.substr(from, to - from));
        }
    }
    return out;
}

/// The enum and const violations among the problems of `step`, each with the value quoted.
HANDOFF_INLINE std::vector<invented_value> invented_values(const nlohmann::json& attempt, std::string_view step) {
    std::vector<invented_value> out;
    for (const auto& p : attempt.at("problems")) {
        const std::string_view code = string_at(p, "code");
        const std::string_view message = string_at(p, "message");
        if (!p.is_object() || string_at(p, "step") != step ||
            schema_class(code, message) != failure_class::enum_violation) {
            continue;
        }
        if (auto value = quoted_after(message, code == codes::envelope_enum ? ": " : "(got ")) {
            out.push_back({std::string(string_at(p, "pointer")), std::move(*value)});
        }
    }
    return out;
}

} // namespace detail::failure_rules

/// The class of one failed attempt: a dead letter's `attempts[i]` object, or a receipt line
/// from `handoff-check` (route, step, problems, tolerances). Never throws for odd shapes: a
/// field of the wrong type reads as absent.
HANDOFF_INLINE attempt_class classify_attempt(const nlohmann::json& attempt) {
    namespace rules = detail::failure_rules;
    attempt_class out;
    if (!attempt.is_object()) {
        return out;
    }
    const std::string_view stop = rules::string_at(attempt, "stop_reason");
    if (stop == "max_tokens" || stop == "length") {
        out.kind = failure_class::truncated;
        return out;
    }
    if (stop == "refusal" || stop == "content_filter") {
        out.kind = failure_class::refused;
        return out;
    }
    const std::string_view route = rules::string_at(attempt, "route");
    const nlohmann::json* decisive = rules::decisive_problem(attempt);
    const bool step_failed = !rules::string_at(attempt, "step").empty();
    if (!step_failed && (route == "ESCALATE" || route == "FAIL")) {
        out.kind = failure_class::budget_exhausted;
        return out;
    }
    if (decisive == nullptr) {
        return out;
    }
    const std::string_view code = rules::string_at(*decisive, "code");
    const std::string_view message = rules::string_at(*decisive, "message");
    out.kind = rules::code_class(attempt, code, message);
    out.code = std::string(code);
    out.pointer = rules::fault_pointer(out.kind, rules::string_at(*decisive, "pointer"), message);
    if (out.kind == failure_class::enum_violation) {
        out.values = rules::invented_values(attempt, rules::string_at(*decisive, "step"));
    }
    return out;
}

} // namespace handoff
