// SPDX-License-Identifier: MIT
#pragma once

#include <handoff/decision.hpp>
#include <handoff/detail/envelope/receive_steps.hpp>
#include <handoff/detail/text.hpp>
#include <handoff/envelope.hpp>
#include <handoff/receipt.hpp>
#include <handoff/receiver_options.hpp>
#include <handoff/schema.hpp>
#include <handoff/semantic_check.hpp>

#include <nlohmann/json.hpp>

#include <exception>   // exception
#include <optional>    // optional, nullopt
#include <string>      // string
#include <string_view> // string_view
#include <type_traits> // is_same_v
#include <utility>     // move
#include <vector>      // vector

namespace handoff {

template <class Task>
class stream_check;

/// Runs the five steps (parse, envelope, task, coverage, route) on untrusted text. Built once per
/// task schema (compiled once); `receive` is const, never throws for any input, and may be
/// called from many threads. Only the conversion to Task and the semantic checks depend on
/// Task: the rest is detail::receive_steps, compiled once when HANDOFF_COMPILED_LIB is set.
template <class Task = nlohmann::json>
class receiver {
public:
    /// No task schema: partial_result only has to be an object (the envelope's own rule).
    receiver() noexcept = default;
    explicit receiver(const receiver_options& options);

    /// Throws schema_error when `task_schema` does not compile.
    explicit receiver(const nlohmann::json& task_schema, const receiver_options& options = {});

    explicit receiver(compiled_schema task_schema, const receiver_options& options = {});

    /// The options in force: those given, with parse_limits::max_depth held at 256 at most (the
    /// steps copy the partial result, which recurses once per level).
    [[nodiscard]] const receiver_options& options() const noexcept { return steps_.options(); }

    /// The compiled task schema, if any (the repair prompt reads its property names).
    [[nodiscard]] const std::optional<compiled_schema>& task_schema() const noexcept { return steps_.task_schema(); }

    /// Layer 2 (semantic.hpp): `check` runs on every result that passed step 3. Attach checks
    /// before sharing the receiver between threads; `receive` only reads them.
    receiver& add_check(semantic_check<Task> check) {
        checks_.push_back(std::move(check));
        return *this;
    }

    /// `source_text` is what the worker was given; semantic checks such as quote_in_source
    /// read it. A semantic failure never touches schema_ok: an ok envelope routes REPAIR with
    /// failed_step == step::semantic; a capped envelope keeps schema_ok true but its partial
    /// result is unusable, like a step-3 downgrade: discarded, and routed at coverage 0.
    [[nodiscard]] receipt<Task> receive(std::string_view text, const attempt_context& context = {},
                                        std::string_view source_text = {}) const;

    /// receive() on a first attempt, with the text the worker was given.
    [[nodiscard]] receipt<Task> receive(std::string_view text, std::string_view source_text) const {
        return receive(text, attempt_context{}, source_text);
    }

private:
    /// finish() hands over the envelope the stream established (steps 1 and 2) to the steps after.
    friend class stream_check<Task>;

    /// Steps 3 to 5 and the semantic checks on an envelope that passed steps 1 and 2, with the
    /// receipt they filled. `validated`: partial_result is known to pass the task schema.
    receipt<Task> after_envelope(envelope<nlohmann::json>&& env, receipt<nlohmann::json>&& out, bool validated,
                                 const attempt_context& context, std::string_view source_text) const;

    /// Step 3: anything but a validated, converted result is treated as absent; schema_ok says which.
    std::optional<Task> step_task(envelope<nlohmann::json>& env, receipt<nlohmann::json>& out, bool validated) const {
        std::optional<Task> task;
        if (steps_.task_fits(env, out, validated)) {
            task = convert(env, out.problems);
        }
        out.schema_ok = task.has_value();
        if (!out.schema_ok && env.status == status::ok) {
            out.failed_step = step::task_schema;
        }
        return task;
    }

    /// The validated result as Task. A DOM is moved, not copied (result_json finds it).
    static std::optional<Task> convert(envelope<nlohmann::json>& env, problem_list& problems) {
        if constexpr (std::is_same_v<Task, nlohmann::json>) {
            static_cast<void>(problems);
            return std::move(*env.partial_result);
        } else {
            try {
                return env.partial_result->template get<Task>();
            } catch (const std::exception& e) {
                // The task schema let through something the user's from_json refuses: report it
                // like a schema failure rather than let the exception escape.
                detail::add_task_problem(problems, codes::task_conversion, "/partial_result",
                                         "does not convert to the task type: " +
                                             detail::quote_untrusted(e.what(), 200));
                return std::nullopt;
            }
        }
    }

    /// Layer 2: the semantic checks, only on a result that passed step 3. False when one failed.
    bool check_semantics(const envelope<nlohmann::json>& env, const std::optional<Task>& task,
                         std::string_view source_text, receipt<nlohmann::json>& out) const {
        if (!task || checks_.empty()) {
            return true;
        }
        problem_list semantic = run_semantic_checks(
            checks_, *task, check_context{result_json(env, *task), source_text, "/partial_result", env.status});
        const bool ok = semantic.empty();
        if (!ok && env.status == status::ok && !out.failed_step) {
            out.failed_step = step::semantic;
        }
        detail::append_problems(out.problems, std::move(semantic));
        return ok;
    }

    /// The validated result as JSON: `task` itself when Task is nlohmann::json (convert moved
    /// it out of the envelope), else the envelope's partial_result it was converted from.
    static const nlohmann::json& result_json(const envelope<nlohmann::json>& env, const Task& task) {
        if constexpr (std::is_same_v<Task, nlohmann::json>) {
            static_cast<void>(env);
            return task;
        } else {
            return *env.partial_result;
        }
    }

    static envelope<Task> to_task_envelope(envelope<nlohmann::json>&& env, std::optional<Task>&& task) {
        envelope<Task> typed_envelope;
        typed_envelope.status = env.status;
        typed_envelope.reason_code = env.reason_code;
        // Downgraded by step 3: true only for a kept, validated result.
        typed_envelope.schema_ok = task.has_value();
        typed_envelope.partial_result = std::move(task);
        typed_envelope.coverage = std::move(env.coverage);
        typed_envelope.steps = std::move(env.steps);
        typed_envelope.retry_hint = std::move(env.retry_hint);
        typed_envelope.trace = std::move(env.trace);
        typed_envelope.budget = env.budget;
        return typed_envelope;
    }

    /// The receipt of JSON the steps filled, as a receipt of Task holding `checked`.
    static receipt<Task> to_task_receipt(receipt<nlohmann::json>&& out, std::optional<envelope<Task>> checked) {
        if constexpr (std::is_same_v<Task, nlohmann::json>) {
            out.envelope = std::move(checked);
            return std::move(out);
        } else {
            receipt<Task> result;
            result.route = out.route;
            result.failed_step = out.failed_step;
            result.schema_ok = out.schema_ok;
            result.envelope = std::move(checked);
            result.problems = std::move(out.problems);
            result.decision = std::move(out.decision);
            result.tolerances = std::move(out.tolerances);
            return result;
        }
    }

    detail::receive_steps steps_;
    std::vector<semantic_check<Task>> checks_;
};

template <class Task>
receiver<Task>::receiver(const receiver_options& options) : steps_(options) {}
template <class Task>
receiver<Task>::receiver(const nlohmann::json& task_schema, const receiver_options& options)
    : steps_(task_schema, options) {}
template <class Task>
receiver<Task>::receiver(compiled_schema task_schema, const receiver_options& options)
    : steps_(std::move(task_schema), options) {}

// Out of the class body, so not implicitly inline: where the compiled form declares the JSON
// receiver an explicit instantiation (below), a file that receives instantiates none of it.
template <class Task>
receipt<Task> receiver<Task>::receive(std::string_view text, const attempt_context& context,
                                      std::string_view source_text) const {
    receipt<nlohmann::json> out;
    std::optional<envelope<nlohmann::json>> env = steps_.step_envelope(steps_.step_parse(text, out), out);
    if (!env) {
        return to_task_receipt(std::move(out), std::nullopt); // a contract failure of step 1 or 2
    }
    return after_envelope(std::move(*env), std::move(out), false, context, source_text);
}

template <class Task>
receipt<Task> receiver<Task>::after_envelope(envelope<nlohmann::json>&& env, receipt<nlohmann::json>&& out,
                                             bool validated, const attempt_context& context,
                                             std::string_view source_text) const {
    std::optional<Task> task = step_task(env, out, validated);
    steps_.step_coverage(env, out);
    const bool semantic_ok = check_semantics(env, task, source_text, out);
    steps_.step_route(env, out.schema_ok && semantic_ok, context, out);
    const bool discard = !semantic_ok && env.status == status::capped;
    envelope<Task> checked = to_task_envelope(std::move(env), std::move(task));
    if (discard) {
        checked.partial_result.reset(); // schema_ok stays true: the shape was right
    }
    return to_task_receipt(std::move(out), std::move(checked));
}

#if defined(HANDOFF_COMPILED_LIB)
// The JSON receiver is instantiated once, in the compiled library (src.hpp).
extern template class receiver<nlohmann::json>;
#endif

} // namespace handoff
