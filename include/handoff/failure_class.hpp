// SPDX-License-Identifier: MIT
#pragma once

// Which prompt bug a failed attempt shows: one named class per attempt, read from what a dead
// letter attempt or a handoff-check receipt line records (stop reason, route, failed step,
// problems with their step and code, tolerances, raw text).
//
// Precedence, so that every attempt gets exactly one class however many problems it has:
//  1. The stop reason. A truncation stop reason (max_tokens, length) or a reply.truncated
//     problem is `truncated`; a refusal stop reason (refusal, content_filter) is `refused`.
//     Every parse problem of a cut reply is a symptom of the cut, so the cut wins.
//  2. The decisive problem: the first problem of the attempt's failed step (its `step`). When
//     no step failed (a capped envelope routed by the table) a route of ESCALATE or FAIL is
//     `budget_exhausted`: the worker ran out of budget and the table gave up.
//  3. Otherwise the first problem of the earliest step present decides; with none, `other`.
// The decisive problem's code (and, where one code covers several mistakes, its message) names
// the class. A parse failure without a named syntax hint is blamed on what wrapped the JSON:
// a refusal sentence, then a code fence, then prose; only then is it `not_json`.
//
// Codes: parse.syntax by the decoder's hint (quotes, comments, trailing comma) or the wrapper;
// parse.no_object by the wrapper; parse.limit.* too_long; parse.byte_order_mark, duplicate_key,
// nul_byte, number_range other; reply.truncated truncated; envelope.enum enum_violation;
// envelope.required and task.absent missing_field; envelope.unknown_field and forbidden
// unexpected_field; envelope.max_length and max_items too_long; envelope.type and
// task.conversion wrong_type; envelope.min_length, range and task.self_reported_invalid other;
// task.schema by valijson's sentence (enum or const, required, additionalProperties,
// "no more than", type; else other); coverage.* coverage; semantic.* semantic.

#include <handoff/config.hpp>
#include <handoff/enum_names.hpp>

#include <nlohmann/json.hpp>

#include <array>       // array
#include <cstddef>     // size_t
#include <cstdint>     // uint8_t
#include <optional>    // optional
#include <string>      // string
#include <string_view> // string_view
#include <vector>      // vector

namespace handoff {

/// The stable vocabulary of failure classes; the report's keys are these names.
enum class failure_class : std::uint8_t {
    fenced,           // a markdown fence around (or instead of) the JSON
    prose,            // sentences before or after the JSON
    comments,         // // or /* */ inside the JSON
    single_quotes,    // 'strings' instead of "strings"
    trailing_comma,   // a comma before } or ]
    truncated,        // the reply was cut at the output cap
    refused,          // the model declined instead of answering
    not_json,         // no parsable JSON for any reason above
    enum_violation,   // a value outside a closed enum or const (an invented label)
    missing_field,    // a required field left out
    unexpected_field, // a field the schema does not declare
    too_long,         // a string, array or reply over its bound
    wrong_type,       // a value of the wrong JSON type
    coverage,         // the coverage arithmetic does not add up
    semantic,         // a layer-2 check failed (per check code)
    budget_exhausted, // a capped envelope the table escalated or failed
    other,            // anything the names above do not cover
};
inline constexpr std::size_t failure_class_count = 17;
template <>
struct enum_names<failure_class> {
    static constexpr std::array<std::string_view, failure_class_count> names{
        "fenced",           "prose",    "comments",   "single_quotes",  "trailing_comma",
        "truncated",        "refused",  "not_json",   "enum_violation", "missing_field",
        "unexpected_field", "too_long", "wrong_type", "coverage",       "semantic",
        "budget_exhausted", "other"};
};

/// The inverse of to_string; nullopt for a name outside the vocabulary.
[[nodiscard]] constexpr std::optional<failure_class> failure_class_from_string(std::string_view name) noexcept {
    return from_string<failure_class>(name);
}

/// A value outside an enum or const, where the worker wrote it.
struct invented_value {
    std::string pointer;
    std::string value;
};

/// One attempt's class and the problem that decided it.
struct attempt_class {
    failure_class kind = failure_class::other;
    /// The decisive problem's pointer (with a missing or unexpected property's name appended);
    /// empty when no problem decided.
    std::string pointer;
    /// The decisive problem's code, empty when no problem decided.
    std::string code;
    /// enum_violation only: every value the worker invented in the failed step (the message
    /// quotes it), with its pointer: an attempt counts once, but each invented label shows.
    std::vector<invented_value> values;
};

namespace detail::failure_rules {

/// `object[key]` when it is a string, else empty.
[[nodiscard]] std::string_view string_at(const nlohmann::json& object, const char* key);

/// The raw text as the model wrote it, when the record kept it readable (not base64).
[[nodiscard]] std::string_view raw_text(const nlohmann::json& attempt);

} // namespace detail::failure_rules

/// The class of one failed attempt: a dead letter's `attempts[i]` object, or a receipt line
/// from `handoff-check` (route, step, problems, tolerances). Never throws for odd shapes: a
/// field of the wrong type reads as absent.
[[nodiscard]] attempt_class classify_attempt(const nlohmann::json& attempt);

} // namespace handoff

#if !defined(HANDOFF_COMPILED_LIB)
#include <handoff/failure_class-inl.hpp>
#endif
