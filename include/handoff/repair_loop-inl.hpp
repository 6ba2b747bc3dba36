// SPDX-License-Identifier: MIT
#pragma once

// repair_loop's Task-free definitions (detail::repair_core): inline in every file header-only,
// compiled once in <handoff/src.hpp> otherwise (config.hpp).

#include <handoff/repair_loop.hpp>

#include <handoff/detail/provider/stop_words.hpp>
#include <handoff/detail/text.hpp>
#include <handoff/problem_codes.hpp>

#include <algorithm> // any_of
#include <cstdint>   // UINT32_MAX

namespace handoff::detail {

HANDOFF_INLINE std::vector<std::string> loop_stop_words(stop_class stop) { return stop_words_of(stop); }

HANDOFF_INLINE repair_core::repair_core(repair_options options, const compiled_schema* task_schema,
                                        decode_options decoding)
    : options_(std::move(options)),
      prompts_(task_schema != nullptr ? repair_prompt_builder(*task_schema, decoding, options_.prompt)
                                      : repair_prompt_builder(nullptr, decoding, options_.prompt)) {}

HANDOFF_INLINE std::uint32_t repair_core::max_calls() const noexcept {
    return options_.max_retries < UINT32_MAX ? options_.max_retries + 1 : options_.max_retries;
}

HANDOFF_INLINE bool repair_core::is_truncation(std::string_view stop_reason) const {
    const auto& reasons = options_.truncation_stop_reasons;
    return std::any_of(reasons.begin(), reasons.end(), [&](const std::string& s) { return s == stop_reason; });
}

HANDOFF_INLINE bool repair_core::is_refusal(const model_reply& reply) const {
    const auto& reasons = options_.refusal_stop_reasons;
    return !reply.refusal.empty() ||
           std::any_of(reasons.begin(), reasons.end(), [&](const std::string& s) { return s == reply.stop_reason; });
}

HANDOFF_INLINE bool repair_core::raise_cap(const truncation_event& event, bool calls_left) const {
    return calls_left && options_.raise_cap && options_.raise_cap(event);
}

HANDOFF_INLINE std::optional<model_reply> repair_core::ask_fallback(const fallback_request& asked) const {
    return options_.on_exhausted(asked);
}

HANDOFF_INLINE bool repair_core::write_dead_letter(const dead_letter& letter) const {
    return options_.dead_letters != nullptr && options_.dead_letters->write(letter);
}

HANDOFF_INLINE std::string repair_core::refusal_reason(std::uint32_t number, const model_reply& reply) {
    return "attempt " + std::to_string(number) + " was refused (stop_reason " + quote_untrusted(reply.stop_reason, 32) +
           "); not re-prompted";
}

HANDOFF_INLINE std::string repair_core::truncation_reason(const truncation_event& event, bool calls_left) {
    return "the reply of attempt " + std::to_string(event.attempt) + " was cut off at the output cap (" +
           escape_untrusted(event.stop_reason, 32) + ") and " +
           (calls_left ? std::string("the cap was not raised") : std::string("no retry is left to raise it"));
}

HANDOFF_INLINE std::string repair_core::exhausted_reason(std::uint32_t last_number) const {
    return "still rejected after " + std::to_string(last_number) + " attempt" + (last_number == 1 ? "" : "s") + " (" +
           std::to_string(options_.max_retries) + " repair" + (options_.max_retries == 1 ? "" : "s") + " allowed)";
}

HANDOFF_INLINE std::string repair_core::final_route_reason(loop_outcome outcome, const decision* decided, route routed,
                                                           std::uint32_t attempts) {
    if (outcome == loop_outcome::not_retryable) {
        return "not retryable: " + (decided != nullptr ? decided->rationale.str() : std::string(to_string(routed)));
    }
    if (outcome == loop_outcome::routed && decided != nullptr) {
        return decided->rationale.str();
    }
    return "accepted on attempt " + std::to_string(attempts);
}

HANDOFF_INLINE problem repair_core::refusal_problem(const model_reply& reply) {
    const std::string_view said = reply.refusal.empty() ? std::string_view(reply.text) : reply.refusal;
    return problem{step::parse, codes::reply_refused, "",
                   "the model refused (stop_reason " + quote_untrusted(reply.stop_reason, 32) + "): " +
                       quote_untrusted(said, 200) + "; the same request would be refused again, so it is not retried"};
}

HANDOFF_INLINE problem repair_core::truncation_problem(const model_reply& reply) {
    return problem{step::parse, codes::reply_truncated, "",
                   "the reply stopped at the output cap (stop_reason " + quote_untrusted(reply.stop_reason, 32) +
                       ") after " + std::to_string(reply.text.size()) +
                       " bytes; a retry on the same budget would be cut off at the same place"};
}

HANDOFF_INLINE std::optional<loop_outcome> repair_core::final_outcome(route r) noexcept {
    switch (r) {
    case route::accept: return loop_outcome::succeeded;
    case route::resume:
    case route::split:
    case route::narrow: return loop_outcome::routed;
    case route::escalate:
    case route::fail: return loop_outcome::not_retryable;
    case route::repair: return std::nullopt;
    }
    return std::nullopt;
}

HANDOFF_INLINE bool repair_core::dead_letter_due(loop_outcome outcome) noexcept {
    return outcome == loop_outcome::retries_exhausted || outcome == loop_outcome::truncated ||
           outcome == loop_outcome::not_retryable || outcome == loop_outcome::refused;
}

HANDOFF_INLINE dead_letter_attempt repair_core::attempt_letter(std::uint32_t number, const model_reply& reply,
                                                               bool truncated, bool refused) {
    dead_letter_attempt da;
    da.number = number;
    da.raw_text = reply.text;
    da.stop_reason = reply.stop_reason;
    da.refusal = reply.refusal;
    if (truncated) {
        da.problems = {truncation_problem(reply)};
    }
    if (refused) {
        da.problems = {refusal_problem(reply)};
    }
    return da;
}

HANDOFF_INLINE dead_letter repair_core::letter_head(loop_outcome outcome, const std::string& reason,
                                                    const problem_list& problems, const repair_request& request) {
    dead_letter d;
    d.request_id = request.request_id;
    d.trace_id = request.trace_id;
    d.span_id = request.span_id;
    d.outcome = outcome;
    d.reason = reason;
    d.problems = problems;
    return d;
}

} // namespace handoff::detail
