// SPDX-License-Identifier: MIT
#pragma once

// Layer 3: the bounded feedback loop. The caller supplies the
// model call; handoff does no I/O. The loop checks each reply with one receiver (the schemas
// never change between attempts), feeds the specific problems back with the original prompt
// and the last failed reply only, and stops after a fixed number of repairs. It classifies
// before it retries:
//
// - a reply cut off at the output cap (stop_reason "max_tokens") is never retried on the same
//   budget: the caller's `raise_cap` policy raises the cap and the next prompt says the output
//   was cut off, or the loop stops with outcome `truncated` and the partial text;
// - a capped envelope the table routes to ESCALATE or FAIL (DEPENDENCY_FAILED, an exhausted
//   policy) is something no re-prompt can fix: outcome `not_retryable`, at once;
// - a capped envelope routed RESUME, SPLIT or NARROW is a valid handoff: outcome `routed`, and
//   the receipt's decision says what the orchestrator does next;
// - a contract or semantic failure (route REPAIR) is repaired while the budget lasts.
//
// One budget covers every layer: `max_retries` counts every call after the first, whether it
// repairs a parse error, a schema error, a semantic error or a truncation. The result is a
// value the caller must inspect; expected outcomes never throw. (Exceptions thrown by the
// caller's own model call pass through untouched: handoff does not guess at network errors.)

#include <handoff/config.hpp>
#include <handoff/dead_letter.hpp>
#include <handoff/decode.hpp>
#include <handoff/problem.hpp>
#include <handoff/receipt.hpp>
#include <handoff/receiver.hpp>
#include <handoff/repair_prompt.hpp>
#include <handoff/stop_class.hpp>

#include <nlohmann/json.hpp>

#include <cstddef>     // size_t
#include <cstdint>     // uint8_t, uint32_t
#include <functional>  // function
#include <optional>    // optional
#include <string>      // string
#include <string_view> // string_view
#include <type_traits> // is_invocable_r_v
#include <utility>     // move
#include <vector>      // vector

namespace handoff {

/// What the caller's model call returns: the reply text and the provider's stop reason
/// ("end_turn", "max_tokens", ...).
struct model_reply {
    std::string text;
    std::string stop_reason;
    /// The refusal message a provider sends apart from the text (OpenAI's `refusal`); a reply
    /// with one is a refusal whatever its stop reason. (Initialised, so {text, stop_reason} stays
    /// a complete aggregate initialiser under -Wmissing-field-initializers.)
    std::string refusal{};
};

/// One unit of work for the loop.
struct repair_request {
    /// The first prompt, exactly as the caller sends it (instructions and source). Every repair
    /// prompt repeats it unchanged, then adds the feedback.
    std::string prompt;
    /// The text the worker reads (the invoice, the ticket); semantic checks such as
    /// quote_in_source compare against it. May be empty.
    std::string source_text;
    /// Names the request in dead letters and logs.
    std::string request_id;
    /// The orchestrator's trace ids, copied to dead letters.
    std::string trace_id;
    std::string span_id;
    /// Passed to receive(): where this run stands in the orchestrator's plan.
    attempt_context context{};
};

/// What the caller's raise_cap policy is told about a truncated reply.
struct truncation_event {
    std::uint32_t attempt = 0;
    std::size_t reply_bytes = 0;
    std::string stop_reason;
    /// How many times the cap was raised already for this request.
    std::uint32_t raises_so_far = 0;
};

/// What the fallback hook gets when the repairs are spent.
struct fallback_request {
    /// The repair prompt the loop would have sent next (for a stronger model).
    std::string_view prompt;
    std::uint32_t attempts = 0;
    const problem_list& problems;
    const repair_request& request;
};

namespace detail {

/// The stop reasons of `stop` across every provider (max_tokens, length, MAX_TOKENS, ...).
[[nodiscard]] std::vector<std::string> loop_stop_words(stop_class stop);

} // namespace detail

struct repair_options {
    /// Calls after the first. One repair is the default: a model that fails twice on the same
    /// specific errors rarely succeeds on a third try, and every retry costs a full call.
    std::uint32_t max_retries = 1;
    /// Stop reasons that mean "cut off at the output cap": every provider's word for it
    /// (max_tokens, length, MAX_TOKENS, max_output_tokens, limit, ...).
    std::vector<std::string> truncation_stop_reasons = detail::loop_stop_words(stop_class::truncated);
    /// Stop reasons that mean the model refused or a safety filter stopped it (refusal,
    /// content_filter, SAFETY, ...): the loop ends `refused` without reading or re-prompting.
    std::vector<std::string> refusal_stop_reasons = detail::loop_stop_words(stop_class::refused);
    /// Raise the output cap for the next call (the caller's model call owns it) and return
    /// true; return false to stop. Absent: a truncation ends the loop.
    std::function<bool(const truncation_event&)> raise_cap;
    /// Called once when the repairs are spent: a stronger model, a human queue. A reply it
    /// returns is checked by the same receiver; nullopt leaves the outcome retries_exhausted.
    std::function<std::optional<model_reply>(const fallback_request&)> on_exhausted;
    /// Receives one record per final failure (retries_exhausted, truncated, not_retryable,
    /// refused).
    /// Not owned.
    dead_letter_sink* dead_letters = nullptr;
    prompt_options prompt{};
};

/// One call of the model, as the loop saw it.
template <class Task = nlohmann::json>
struct attempt_record {
    std::uint32_t number = 1;
    /// Exactly what was sent.
    std::string prompt;
    model_reply reply;
    /// Cut off at the output cap: not checked, so `checked` is empty.
    bool truncated = false;
    /// Refused by the model or a safety filter: not checked either.
    bool refused = false;
    /// Came from the on_exhausted hook.
    bool from_fallback = false;
    std::optional<handoff::receipt<Task>> checked;
};

/// The loop's result. `outcome` first; then `last_receipt()` for the route and decision.
template <class Task = nlohmann::json>
struct [[nodiscard]] repair_result {
    loop_outcome outcome = loop_outcome::retries_exhausted;
    /// Model calls made, the fallback's included: 1 means first time right; more means "passed
    /// only after retries", which a team wants to see.
    std::uint32_t attempts = 0;
    std::vector<attempt_record<Task>> history;
    /// What ended the loop: empty for succeeded and routed.
    problem_list problems;
    /// One sentence for logs.
    std::string reason;
    bool fallback_used = false;
    /// A dead letter was due; `dead_letter_written` says whether the sink took it.
    bool dead_letter_due = false;
    bool dead_letter_written = false;

    [[nodiscard]] bool succeeded() const noexcept { return outcome == loop_outcome::succeeded; }
    [[nodiscard]] bool retried() const noexcept { return attempts > 1; }

    /// The receipt of the last checked reply, or null (every reply was truncated).
    [[nodiscard]] const handoff::receipt<Task>* last_receipt() const noexcept {
        for (auto it = history.rbegin(); it != history.rend(); ++it) {
            if (it->checked) {
                return &*it->checked;
            }
        }
        return nullptr;
    }

    /// The accepted result; null unless outcome is succeeded.
    [[nodiscard]] const Task* value() const noexcept {
        const handoff::receipt<Task>* r = last_receipt();
        return succeeded() && r != nullptr && r->envelope && r->envelope->partial_result ? &*r->envelope->partial_result
                                                                                         : nullptr;
    }

    /// The cut-off reply of a truncated outcome (empty otherwise).
    [[nodiscard]] std::string_view partial_text() const noexcept {
        return outcome == loop_outcome::truncated && !history.empty() ? std::string_view(history.back().reply.text)
                                                                      : std::string_view();
    }
};

namespace detail {

/// What repair_loop<Task> does that does not depend on Task: classifying a reply, the problems
/// and sentences that explain an outcome, the dead letter's Task-free parts, and the calls of
/// the caller's hooks. Immutable once built; every member is const.
class repair_core {
public:
    repair_core(repair_options options, const compiled_schema* task_schema, decode_options decoding);

    [[nodiscard]] const repair_options& options() const noexcept { return options_; }
    [[nodiscard]] const repair_prompt_builder& prompts() const noexcept { return prompts_; }

    /// The most calls the budget allows, the first included.
    [[nodiscard]] std::uint32_t max_calls() const noexcept;
    /// `stop_reason` is one of the truncation_stop_reasons.
    [[nodiscard]] bool is_truncation(std::string_view stop_reason) const;
    /// The reply carries a refusal message or stopped for one of the refusal_stop_reasons.
    [[nodiscard]] bool is_refusal(const model_reply& reply) const;
    /// True when calls are left and the caller's raise_cap raised the cap.
    [[nodiscard]] bool raise_cap(const truncation_event& event, bool calls_left) const;
    /// The fallback hook's reply; nullopt when it took the request itself.
    [[nodiscard]] std::optional<model_reply> ask_fallback(const fallback_request& asked) const;
    /// Hands `letter` to the sink; false when there is none or it refused the letter.
    [[nodiscard]] bool write_dead_letter(const dead_letter& letter) const;

    /// Why the loop stopped at a refused attempt `number`.
    [[nodiscard]] static std::string refusal_reason(std::uint32_t number, const model_reply& reply);
    /// Why the loop stopped at a truncated reply the cap was not raised for.
    [[nodiscard]] static std::string truncation_reason(const truncation_event& event, bool calls_left);
    /// Why the loop stopped when the repairs were spent after attempt `last_number`.
    [[nodiscard]] std::string exhausted_reason(std::uint32_t last_number) const;
    /// Why the loop stopped at a final route: `decision` is the receipt's, or null.
    [[nodiscard]] static std::string final_route_reason(loop_outcome outcome, const decision* decided, route routed,
                                                        std::uint32_t attempts);

    [[nodiscard]] static problem refusal_problem(const model_reply& reply);
    [[nodiscard]] static problem truncation_problem(const model_reply& reply);
    /// ACCEPT, RESUME/SPLIT/NARROW and ESCALATE/FAIL end the loop; REPAIR does not.
    [[nodiscard]] static std::optional<loop_outcome> final_outcome(route r) noexcept;
    /// The outcomes that leave a dead letter: every final failure.
    [[nodiscard]] static bool dead_letter_due(loop_outcome outcome) noexcept;
    /// A dead letter's attempt for a reply, with its truncation or refusal problem if any.
    [[nodiscard]] static dead_letter_attempt attempt_letter(std::uint32_t number, const model_reply& reply,
                                                            bool truncated, bool refused);
    /// A dead letter without its attempts.
    [[nodiscard]] static dead_letter letter_head(loop_outcome outcome, const std::string& reason,
                                                 const problem_list& problems, const repair_request& request);

private:
    repair_options options_;
    repair_prompt_builder prompts_;
};

} // namespace detail

/// The bounded feedback loop over one receiver. Keep the receiver alive while the loop is used;
/// `run` is const and may be called from many threads (with a thread-safe model call and sink).
/// Only the typed receipts depend on Task: the rest is detail::repair_core, compiled once when
/// HANDOFF_COMPILED_LIB is set.
template <class Task = nlohmann::json>
class repair_loop {
public:
    explicit repair_loop(const receiver<Task>& checker, repair_options options = {})
        : receiver_(checker), core_(std::move(options), checker.task_schema() ? &*checker.task_schema() : nullptr,
                                    decode_options{checker.options().strict, checker.options().limits}) {}

    [[nodiscard]] const repair_options& options() const noexcept { return core_.options(); }
    [[nodiscard]] const repair_prompt_builder& prompts() const noexcept { return core_.prompts(); }

    /// `model` is called as model(std::string_view prompt) and returns a model_reply.
    template <class Model>
    [[nodiscard]] repair_result<Task> run(const repair_request& request, Model&& model) const {
        static_assert(std::is_invocable_r_v<model_reply, Model&, std::string_view>,
                      "handoff: the model call must be callable as model(std::string_view prompt) "
                      "and return handoff::model_reply{text, stop_reason}");
        repair_result<Task> result;
        const std::uint32_t max_calls = core_.max_calls();
        std::uint32_t raises = 0;
        std::string prompt = request.prompt;
        for (std::uint32_t number = 1;; ++number) {
            attempt_record<Task> record;
            record.number = number;
            record.prompt = prompt;
            record.reply = model(std::string_view(record.prompt));
            result.attempts = number;
            if (core_.is_refusal(record.reply)) {
                return refuse(std::move(result), std::move(record), request);
            }
            if (core_.is_truncation(record.reply.stop_reason)) {
                const truncation_event event{number, record.reply.text.size(), record.reply.stop_reason, raises};
                if (!truncate(result, std::move(record), event, number < max_calls)) {
                    return finish(std::move(result), loop_outcome::truncated, request);
                }
                ++raises;
                prompt = core_.prompts().for_truncation(request.prompt, number, event.reply_bytes, event.stop_reason);
                continue;
            }
            record.checked = receiver_.receive(record.reply.text, request.context, request.source_text);
            result.history.push_back(std::move(record));
            const attempt_record<Task>& last = result.history.back();
            if (const std::optional<loop_outcome> done = detail::repair_core::final_outcome(last.checked->route)) {
                return end_on_final_route(std::move(result), *done, request);
            }
            // Route REPAIR: feed the problems back, or give up when the budget is spent. The
            // next prompt holds the original prompt and this reply only, never older ones.
            if (number < max_calls || core_.options().on_exhausted) {
                prompt = core_.prompts().for_problems(request.prompt, number, last.reply.text, last.checked->problems);
            }
            if (number < max_calls) {
                continue;
            }
            return exhausted(std::move(result), prompt, request);
        }
    }

    /// The dead letter this result would leave (also for callers that route failures themselves).
    [[nodiscard]] static dead_letter make_dead_letter(const repair_result<Task>& result,
                                                      const repair_request& request) {
        dead_letter d = detail::repair_core::letter_head(result.outcome, result.reason, result.problems, request);
        for (const attempt_record<Task>& a : result.history) {
            dead_letter_attempt da = detail::repair_core::attempt_letter(a.number, a.reply, a.truncated, a.refused);
            if (a.checked) {
                da.route = a.checked->route;
                da.failed_step = a.checked->failed_step;
                da.problems = a.checked->problems;
                if (a.checked->envelope && a.checked->envelope->trace) {
                    da.worker_trace = a.checked->envelope->trace;
                }
            }
            d.attempts.push_back(std::move(da));
        }
        return d;
    }

private:
    /// A refusal ends the loop at once: the same request would be refused again, and the text
    /// around a refusal is no envelope to read.
    repair_result<Task> refuse(repair_result<Task> result, attempt_record<Task> record,
                               const repair_request& request) const {
        record.refused = true;
        result.problems = {detail::repair_core::refusal_problem(record.reply)};
        result.reason = detail::repair_core::refusal_reason(record.number, record.reply);
        result.history.push_back(std::move(record));
        return finish(std::move(result), loop_outcome::refused, request);
    }

    /// Records a truncated reply; true when the caller raised the cap and the loop goes on.
    bool truncate(repair_result<Task>& result, attempt_record<Task> record, const truncation_event& event,
                  bool calls_left) const {
        record.truncated = true;
        result.problems = {detail::repair_core::truncation_problem(record.reply)};
        result.history.push_back(std::move(record));
        if (core_.raise_cap(event, calls_left)) {
            return true;
        }
        result.reason = detail::repair_core::truncation_reason(event, calls_left);
        return false;
    }

    /// The repairs are spent: the fallback hook if there is one, else retries_exhausted.
    repair_result<Task> exhausted(repair_result<Task> result, const std::string& prompt,
                                  const repair_request& request) const {
        const attempt_record<Task>& last = result.history.back();
        result.problems = last.checked->problems;
        result.reason = core_.exhausted_reason(last.number);
        if (core_.options().on_exhausted) {
            return fallback(std::move(result), prompt, request);
        }
        return finish(std::move(result), loop_outcome::retries_exhausted, request);
    }

    repair_result<Task> end_on_final_route(repair_result<Task> result, loop_outcome outcome,
                                           const repair_request& request) const {
        const handoff::receipt<Task>& checked = *result.history.back().checked;
        if (outcome == loop_outcome::not_retryable) {
            result.problems = checked.problems;
        } else {
            result.problems.clear(); // an earlier truncation no longer matters
        }
        result.reason = detail::repair_core::final_route_reason(
            outcome, checked.decision ? &*checked.decision : nullptr, checked.route, result.attempts);
        return finish(std::move(result), outcome, request);
    }

    repair_result<Task> fallback(repair_result<Task> result, const std::string& prompt,
                                 const repair_request& request) const {
        result.fallback_used = true;
        std::optional<model_reply> reply =
            core_.ask_fallback(fallback_request{prompt, result.attempts, result.problems, request});
        if (!reply) {
            result.reason += "; the fallback took the request";
            return finish(std::move(result), loop_outcome::retries_exhausted, request);
        }
        attempt_record<Task> record;
        record.number = result.attempts + 1;
        record.prompt = prompt;
        record.reply = std::move(*reply);
        record.from_fallback = true;
        result.attempts = record.number;
        if (core_.is_truncation(record.reply.stop_reason)) {
            record.truncated = true;
            result.problems = {detail::repair_core::truncation_problem(record.reply)};
            result.history.push_back(std::move(record));
            result.reason += "; the fallback's reply was cut off too";
            return finish(std::move(result), loop_outcome::retries_exhausted, request);
        }
        record.checked = receiver_.receive(record.reply.text, request.context, request.source_text);
        result.history.push_back(std::move(record));
        const handoff::receipt<Task>& checked = *result.history.back().checked;
        if (const std::optional<loop_outcome> done = detail::repair_core::final_outcome(checked.route)) {
            result.problems.clear();
            return end_on_final_route(std::move(result), *done, request);
        }
        result.problems = checked.problems;
        result.reason += "; the fallback's reply was rejected too";
        return finish(std::move(result), loop_outcome::retries_exhausted, request);
    }

    repair_result<Task> finish(repair_result<Task> result, loop_outcome outcome, const repair_request& request) const {
        result.outcome = outcome;
        if (detail::repair_core::dead_letter_due(outcome)) {
            result.dead_letter_due = true;
            if (core_.options().dead_letters != nullptr) {
                result.dead_letter_written = core_.write_dead_letter(make_dead_letter(result, request));
            }
        }
        return result;
    }

    const receiver<Task>& receiver_;
    detail::repair_core core_;
};

} // namespace handoff

#if !defined(HANDOFF_COMPILED_LIB)
#include <handoff/repair_loop-inl.hpp>
#endif
