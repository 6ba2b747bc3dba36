// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>     // size_t
#include <cstdint>     // uint8_t
#include <optional>    // optional
#include <string_view> // string_view

namespace handoff {

/// What the worker says happened: the shape is the same for both, only this field differs.
enum class status : std::uint8_t { ok, capped };
inline constexpr std::size_t status_count = 2;

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

/// What the decision table may ask the orchestrator to do with a capped envelope.
enum class action : std::uint8_t { resume, split, narrow, escalate, fail };
inline constexpr std::size_t action_count = 5;

/// Where a receipt sends an envelope: ACCEPT and REPAIR besides the table's actions.
enum class route : std::uint8_t { accept, repair, resume, split, narrow, escalate, fail };

/// The checks of a receipt, in the order they run. `semantic` is layer 2 (user checks).
enum class step : std::uint8_t { parse, envelope_schema, task_schema, coverage, semantic };

/// Coverage bands of the decision table: low [0, mid), mid [mid, high), high [high, 1].
enum class band : std::uint8_t { low, mid, high };

// to_string is a switch without `default:` so that -Werror=switch breaks the build until a new
// enumerator is handled everywhere.

[[nodiscard]] constexpr std::string_view to_string(status s) noexcept {
    switch (s) {
    case status::ok: return "ok";
    case status::capped: return "capped";
    }
    return "?";
}

[[nodiscard]] constexpr std::string_view to_string(reason_code r) noexcept {
    switch (r) {
    case reason_code::token_cap: return "TOKEN_CAP";
    case reason_code::time_cap: return "TIME_CAP";
    case reason_code::tool_call_cap: return "TOOL_CALL_CAP";
    case reason_code::context_overflow: return "CONTEXT_OVERFLOW";
    case reason_code::dependency_failed: return "DEPENDENCY_FAILED";
    case reason_code::scope_too_broad: return "SCOPE_TOO_BROAD";
    }
    return "?";
}

[[nodiscard]] constexpr std::string_view to_string(action a) noexcept {
    switch (a) {
    case action::resume: return "RESUME";
    case action::split: return "SPLIT";
    case action::narrow: return "NARROW";
    case action::escalate: return "ESCALATE";
    case action::fail: return "FAIL";
    }
    return "?";
}

[[nodiscard]] constexpr std::string_view to_string(route r) noexcept {
    switch (r) {
    case route::accept: return "ACCEPT";
    case route::repair: return "REPAIR";
    case route::resume: return "RESUME";
    case route::split: return "SPLIT";
    case route::narrow: return "NARROW";
    case route::escalate: return "ESCALATE";
    case route::fail: return "FAIL";
    }
    return "?";
}

[[nodiscard]] constexpr std::string_view to_string(step s) noexcept {
    switch (s) {
    case step::parse: return "parse";
    case step::envelope_schema: return "envelope_schema";
    case step::task_schema: return "task_schema";
    case step::coverage: return "coverage";
    case step::semantic: return "semantic";
    }
    return "?";
}

[[nodiscard]] constexpr std::string_view to_string(band b) noexcept {
    switch (b) {
    case band::low: return "low";
    case band::mid: return "mid";
    case band::high: return "high";
    }
    return "?";
}

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

[[nodiscard]] constexpr std::string_view to_string(tolerance t) noexcept {
    switch (t) {
    case tolerance::byte_order_mark: return "byte_order_mark";
    case tolerance::code_fence: return "code_fence";
    case tolerance::leading_prose: return "leading_prose";
    case tolerance::trailing_prose: return "trailing_prose";
    }
    return "?";
}

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

[[nodiscard]] constexpr std::string_view to_string(loop_outcome o) noexcept {
    switch (o) {
    case loop_outcome::succeeded: return "succeeded";
    case loop_outcome::routed: return "routed";
    case loop_outcome::retries_exhausted: return "retries_exhausted";
    case loop_outcome::truncated: return "truncated";
    case loop_outcome::not_retryable: return "not_retryable";
    case loop_outcome::refused: return "refused";
    }
    return "?";
}

inline constexpr status all_statuses[status_count] = {status::ok, status::capped};
inline constexpr reason_code all_reason_codes[reason_code_count] = {
    reason_code::token_cap,        reason_code::time_cap,          reason_code::tool_call_cap,
    reason_code::context_overflow, reason_code::dependency_failed, reason_code::scope_too_broad,
};
inline constexpr action all_actions[action_count] = {
    action::resume, action::split, action::narrow, action::escalate, action::fail,
};

/// Exact, case-sensitive: the wire format is closed, so "OK" is not ok.
[[nodiscard]] constexpr std::optional<status> status_from_string(std::string_view s) noexcept {
    for (status st : all_statuses) {
        if (to_string(st) == s) {
            return st;
        }
    }
    return std::nullopt;
}

/// Exact, case-sensitive: the wire format is closed, so "token_cap" is not TOKEN_CAP.
[[nodiscard]] constexpr std::optional<reason_code> reason_code_from_string(std::string_view s) noexcept {
    for (reason_code r : all_reason_codes) {
        if (to_string(r) == s) {
            return r;
        }
    }
    return std::nullopt;
}

[[nodiscard]] constexpr std::optional<action> action_from_string(std::string_view s) noexcept {
    for (action a : all_actions) {
        if (to_string(a) == s) {
            return a;
        }
    }
    return std::nullopt;
}

} // namespace handoff
