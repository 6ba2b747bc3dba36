// SPDX-License-Identifier: MIT
#pragma once

#include <handoff/enum_names.hpp>

#include <array>       // array
#include <cstddef>     // size_t
#include <cstdint>     // uint8_t
#include <optional>    // optional
#include <string_view> // string_view

namespace handoff {

/// What the worker says happened: the shape is the same for both, only this field differs.
enum class status : std::uint8_t { ok, capped };
inline constexpr std::size_t status_count = 2;
template <>
struct enum_names<status> {
    static constexpr std::array<std::string_view, status_count> names{"ok", "capped"};
};

/// The closed set of reasons a worker may stop early.
enum class reason_code : std::uint8_t {
    token_cap,
    time_cap,
    tool_call_cap,
    context_overflow,
    dependency_failed,
    scope_too_broad,
};
inline constexpr std::size_t reason_code_count = 6;
template <>
struct enum_names<reason_code> {
    static constexpr std::array<std::string_view, reason_code_count> names{
        "TOKEN_CAP", "TIME_CAP", "TOOL_CALL_CAP", "CONTEXT_OVERFLOW", "DEPENDENCY_FAILED", "SCOPE_TOO_BROAD"};
};

/// What the decision table may ask the orchestrator to do with a capped envelope.
enum class action : std::uint8_t { resume, split, narrow, escalate, fail };
inline constexpr std::size_t action_count = 5;
template <>
struct enum_names<action> {
    static constexpr std::array<std::string_view, action_count> names{"RESUME", "SPLIT", "NARROW", "ESCALATE", "FAIL"};
};

/// Where a receipt sends an envelope: ACCEPT and REPAIR besides the table's actions.
enum class route : std::uint8_t { accept, repair, resume, split, narrow, escalate, fail };
inline constexpr std::size_t route_count = 7;
template <>
struct enum_names<route> {
    static constexpr std::array<std::string_view, route_count> names{"ACCEPT", "REPAIR",   "RESUME", "SPLIT",
                                                                     "NARROW", "ESCALATE", "FAIL"};
};

/// The checks of a receipt, in the order they run. `semantic` is layer 2 (user checks).
enum class step : std::uint8_t { parse, envelope_schema, task_schema, coverage, semantic };
inline constexpr std::size_t step_count = 5;
template <>
struct enum_names<step> {
    static constexpr std::array<std::string_view, step_count> names{"parse", "envelope_schema", "task_schema",
                                                                    "coverage", "semantic"};
};

/// Coverage bands of the decision table: low [0, mid), mid [mid, high), high [high, 1].
enum class band : std::uint8_t { low, mid, high };
inline constexpr std::size_t band_count = 3;
template <>
struct enum_names<band> {
    static constexpr std::array<std::string_view, band_count> names{"low", "mid", "high"};
};

/// Every table action is also a route; the converse is not true (ACCEPT, REPAIR).
[[nodiscard]] constexpr route to_route(action a) noexcept {
    switch (a) {
    case action::resume: return route::resume;
    case action::split: return route::split;
    case action::narrow: return route::narrow;
    case action::escalate: return route::escalate;
    case action::fail: return route::fail;
    }
    return route::fail;
}

/// What the tolerant decode removed to find the JSON object (step 1 of the receipt check). Each is recorded
/// so an orchestrator can count workers that fence or chatter and fix their prompts.
enum class tolerance : std::uint8_t {
    byte_order_mark, // a UTF-8 BOM before the text
    code_fence,      // a markdown ``` fence around the object
    leading_prose,   // non-blank text before the first '{'
    trailing_prose,  // non-blank text after the last '}'
};
inline constexpr std::size_t tolerance_count = 4;
template <>
struct enum_names<tolerance> {
    static constexpr std::array<std::string_view, tolerance_count> names{"byte_order_mark", "code_fence",
                                                                         "leading_prose", "trailing_prose"};
};

/// How the loop ended. Check it before reading anything else.
enum class loop_outcome : std::uint8_t {
    /// A reply passed every check (route ACCEPT); `attempts` says how many calls it took.
    succeeded,
    /// A valid capped envelope routed RESUME, SPLIT or NARROW: act on the receipt's decision.
    routed,
    /// Every repair was spent (and the fallback, if any, did not help).
    retries_exhausted,
    /// The last reply hit the output cap and the cap was not (or could no longer be) raised.
    truncated,
    /// The reply said something no re-prompt can change (ESCALATE or FAIL by the table).
    not_retryable,
    /// The model refused or a provider's safety filter stopped it: never parsed as an envelope
    /// and never re-prompted with the same request.
    refused,
};
inline constexpr std::size_t loop_outcome_count = 6;
template <>
struct enum_names<loop_outcome> {
    static constexpr std::array<std::string_view, loop_outcome_count> names{
        "succeeded", "routed", "retries_exhausted", "truncated", "not_retryable", "refused"};
};

inline constexpr std::array<status, status_count> all_statuses = all_values<status>();
inline constexpr std::array<reason_code, reason_code_count> all_reason_codes = all_values<reason_code>();
inline constexpr std::array<action, action_count> all_actions = all_values<action>();

/// Exact, case-sensitive: the wire format is closed, so "OK" is not ok.
[[nodiscard]] constexpr std::optional<status> status_from_string(std::string_view s) noexcept {
    return from_string<status>(s);
}

/// Exact, case-sensitive: the wire format is closed, so "token_cap" is not TOKEN_CAP.
[[nodiscard]] constexpr std::optional<reason_code> reason_code_from_string(std::string_view s) noexcept {
    return from_string<reason_code>(s);
}

[[nodiscard]] constexpr std::optional<action> action_from_string(std::string_view s) noexcept {
    return from_string<action>(s);
}

} // namespace handoff
