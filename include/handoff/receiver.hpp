// SPDX-License-Identifier: MIT
#pragma once

#include <handoff/coverage.hpp>
#include <handoff/decision.hpp>
#include <handoff/decode.hpp>
#include <handoff/detail/envelope_check.hpp>
#include <handoff/detail/envelope_reader.hpp>
#include <handoff/envelope.hpp>
#include <handoff/ledger.hpp>
#include <handoff/provider.hpp>
#include <handoff/provider_nulls.hpp>
#include <handoff/provider_schema.hpp>
#include <handoff/receipt.hpp>
#include <handoff/schema.hpp>
#include <handoff/semantic.hpp>

#include <nlohmann/json.hpp>

#include <exception>   // exception
#include <iterator>    // make_move_iterator
#include <memory>      // shared_ptr
#include <optional>    // optional
#include <string>      // string
#include <string_view> // string_view
#include <type_traits> // is_same_v
#include <utility>     // move
#include <vector>      // vector

namespace handoff {

struct receiver_options {
    /// Skip the tolerant decode: the reply must be exactly one JSON value.
    bool strict = false;
    parse_limits limits{};
    routing_policy policy{};
    /// How far coverage.fraction may stray from completed/expected.
    double fraction_tolerance = default_fraction_tolerance;
    /// Where hint/table disagreements are counted; not owned, may be shared across receivers.
    disagreement_ledger* ledger = nullptr;
    /// How the task schema given as JSON is compiled (the pattern bound).
    schema_options schema{};
    /// The provider whose constrained decoding produced the replies, if any. Its schema may
    /// make optional properties required and nullable (OpenAI strict mode): a null there is
    /// read as absent, exactly where provider_schema() noted it, before the five steps. Such
    /// replies are read on the diagnosing path, not the one-pass reader.
    std::optional<provider> from{};
};

/// Runs the five steps (parse, envelope, task, coverage, route) on untrusted text. Built once per task schema (compiled
/// once); `receive` is const, never throws for any input, and may be called from many threads.
template <class Task = nlohmann::json>
class receiver {
public:
    /// No task schema: partial_result only has to be an object (the envelope's own rule).
    receiver() = default;
    explicit receiver(receiver_options options) : options_(options), nulls_(nulled_optionals(options_, nullptr)) {}

    /// Throws schema_error when `task_schema` does not compile.
    explicit receiver(const nlohmann::json& task_schema, receiver_options options = {})
        : task_schema_(compiled_schema::from_json(task_schema, options.schema)), options_(options),
          nulls_(nulled_optionals(options_, &task_schema_->document())) {}

    explicit receiver(compiled_schema task_schema, receiver_options options = {})
        : task_schema_(std::move(task_schema)), options_(options),
          nulls_(nulled_optionals(options_, &task_schema_->document())) {}

    [[nodiscard]] const receiver_options& options() const noexcept { return options_; }

    /// The compiled task schema, if any (the repair prompt reads its property names).
    [[nodiscard]] const std::optional<compiled_schema>& task_schema() const noexcept { return task_schema_; }

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
                                        std::string_view source_text = {}) const {
        receipt<Task> out;
        parsed reply = step_parse(text, out);
        std::optional<envelope<nlohmann::json>> env = step_envelope(std::move(reply), out);
        if (!env) {
            return out; // a contract failure of step 1 or 2: out says which, with the problems
        }
        std::optional<Task> task = step_task(*env, out);
        step_coverage(*env, out);
        const bool semantic_ok = check_semantics(*env, task, source_text, out);
        step_route(std::move(*env), std::move(task), semantic_ok, context, out);
        return out;
    }

private:
    /// What step 1 leaves for step 2: the document, or the envelope itself when the fast
    /// reader took the text (steps 1 and 2 in one pass, envelope_reader.hpp). Neither when
    /// the parse failed.
    struct parsed {
        std::optional<envelope<nlohmann::json>> checked;
        std::optional<nlohmann::json> document;
    };

    static void contract_failure(receipt<Task>& out, step failed, problem_list&& problems) {
        out.route = route::repair;
        out.failed_step = failed;
        out.problems = std::move(problems);
    }

    static void append(problem_list& to, problem_list&& from) {
        to.insert(to.end(), std::make_move_iterator(from.begin()), std::make_move_iterator(from.end()));
    }

    /// Step 1: tolerant decode, then strict JSON. A valid envelope is read in one pass; at the
    /// first doubt decode() runs, and says exactly what is wrong.
    parsed step_parse(std::string_view text, receipt<Task>& out) const {
        parsed reply;
        const decode_options decoding{options_.strict, options_.limits};
        decode_result located;
        if (const auto json_text = nulls_ ? std::nullopt : detail::locate_json(text, decoding, located)) {
            reply.checked = detail::read_envelope(*json_text, options_.limits);
        }
        if (reply.checked) {
            out.tolerances = std::move(located.tolerances);
            return reply;
        }
        decode_result decoded = decode(text, decoding);
        out.tolerances = std::move(decoded.tolerances);
        if (!decoded.ok()) {
            contract_failure(out, step::parse, std::move(decoded.problems));
            return reply;
        }
        reply.document = std::move(decoded.value);
        if (nulls_) {
            remove_nulled_optionals(*reply.document, *nulls_);
        }
        return reply;
    }

    /// Step 2: the envelope contract, unless the fast reader already checked it.
    static std::optional<envelope<nlohmann::json>> step_envelope(parsed reply, receipt<Task>& out) {
        if (reply.checked || !reply.document) {
            return std::move(reply.checked);
        }
        problem_list problems;
        auto env = detail::envelope_checker(problems).check(*reply.document);
        if (!env) {
            contract_failure(out, step::envelope_schema, std::move(problems));
        }
        return env;
    }

    /// Step 3: anything but a validated result is treated as absent; schema_ok says which.
    std::optional<Task> step_task(envelope<nlohmann::json>& env, receipt<Task>& out) const {
        std::optional<Task> task = check_task(env, out.problems);
        out.schema_ok = task.has_value();
        if (!out.schema_ok && env.status == status::ok) {
            out.failed_step = step::task_schema;
        }
        return task;
    }

    /// Step 4: coverage arithmetic (coverage.hpp).
    void step_coverage(const envelope<nlohmann::json>& env, receipt<Task>& out) const {
        problem_list coverage = check_coverage(env.status, env.coverage, options_.fraction_tolerance);
        if (!coverage.empty() && !out.failed_step) {
            out.failed_step = step::coverage;
        }
        append(out.problems, std::move(coverage));
    }

    /// Layer 2: the semantic checks, only on a result that passed step 3. False when one failed.
    bool check_semantics(const envelope<nlohmann::json>& env, const std::optional<Task>& task,
                         std::string_view source_text, receipt<Task>& out) const {
        if (!task || checks_.empty()) {
            return true;
        }
        problem_list semantic = run_semantic_checks(
            checks_, *task, check_context{result_json(env, *task), source_text, "/partial_result", env.status});
        const bool ok = semantic.empty();
        if (!ok && env.status == status::ok && !out.failed_step) {
            out.failed_step = step::semantic;
        }
        append(out.problems, std::move(semantic));
        return ok;
    }

    /// Step 5: ACCEPT an ok envelope that passed every check, REPAIR a failed one, and send a
    /// valid capped one through the decision table.
    void step_route(envelope<nlohmann::json>&& env, std::optional<Task>&& task, bool semantic_ok,
                    const attempt_context& context, receipt<Task>& out) const {
        if (out.failed_step) {
            out.route = route::repair;
        } else if (env.status == status::ok) {
            out.route = route::accept;
        } else {
            out.decision = plan(*env.reason_code, env.coverage, env.steps, env.retry_hint, out.schema_ok && semantic_ok,
                                options_.policy, context);
            out.route = to_route(out.decision->action);
            if (out.decision->disagreement && options_.ledger != nullptr) {
                options_.ledger->record(out.decision->reason, out.decision->coverage_band,
                                        out.decision->disagreement->table_action,
                                        out.decision->disagreement->hint_action);
            }
        }
        const bool discard = !semantic_ok && env.status == status::capped;
        out.envelope = retype(std::move(env), std::move(task));
        if (discard) {
            out.envelope->partial_result.reset(); // schema_ok stays true: the shape was right
        }
    }

    static void add_problem(problem_list& problems, const char* code, const char* pointer, const std::string& message) {
        problems.push_back(problem{step::task_schema, code, pointer, std::string(pointer) + ": " + message});
    }

    /// Returns the typed result only when it is present, claimed valid by the worker, valid
    /// against the task schema, and convertible to Task.
    std::optional<Task> check_task(envelope<nlohmann::json>& env, problem_list& problems) const {
        if (!env.partial_result) {
            if (env.status == status::ok) {
                add_problem(problems, "task.absent", "/partial_result",
                            "null, but status \"ok\" means partial_result is the whole result");
            } else if (env.coverage.items_completed > 0) {
                add_problem(problems, "task.absent", "/partial_result",
                            "null although coverage reports " + std::to_string(env.coverage.items_completed) +
                                " completed " + detail::quote_untrusted(env.coverage.unit, 32) +
                                "; nothing completed is usable, so routing uses coverage 0");
            }
            return std::nullopt;
        }
        if (!env.schema_ok) {
            add_problem(problems, "task.self_reported_invalid", "/schema_ok",
                        "the worker reported that partial_result does not fit the task schema; "
                        "the partial result is discarded");
            return std::nullopt;
        }
        if (task_schema_) {
            problem_list task_problems =
                task_schema_->validate(*env.partial_result, "/partial_result", step::task_schema);
            if (!task_problems.empty()) {
                problems.insert(problems.end(), std::make_move_iterator(task_problems.begin()),
                                std::make_move_iterator(task_problems.end()));
                return std::nullopt;
            }
        }
        if constexpr (std::is_same_v<Task, nlohmann::json>) {
            return std::move(*env.partial_result); // a DOM is costly to copy; result_json finds it
        } else {
            try {
                return env.partial_result->template get<Task>();
            } catch (const std::exception& e) {
                // The task schema let through something the user's from_json refuses: report it
                // like a schema failure rather than let the exception escape.
                add_problem(problems, "task.conversion", "/partial_result",
                            std::string("does not convert to the task type: ") +
                                detail::quote_untrusted(e.what(), 200));
                return std::nullopt;
            }
        }
    }

    /// The validated result as JSON: `task` itself when Task is nlohmann::json (check_task moved
    /// it out of the envelope), else the envelope's partial_result it was converted from.
    static const nlohmann::json& result_json(const envelope<nlohmann::json>& env, const Task& task) {
        if constexpr (std::is_same_v<Task, nlohmann::json>) {
            static_cast<void>(env);
            return task;
        } else {
            return *env.partial_result;
        }
    }

    static envelope<Task> retype(envelope<nlohmann::json>&& env, std::optional<Task>&& task) {
        envelope<Task> typed;
        typed.status = env.status;
        typed.reason_code = env.reason_code;
        // Downgraded by step 3: true only for a kept, validated result.
        typed.schema_ok = task.has_value();
        typed.partial_result = std::move(task);
        typed.coverage = std::move(env.coverage);
        typed.steps = std::move(env.steps);
        typed.retry_hint = std::move(env.retry_hint);
        typed.trace = std::move(env.trace);
        typed.budget = env.budget;
        return typed;
    }

    std::optional<compiled_schema> task_schema_;
    /// The provider schema whose nulls mean "absent" (receiver_options::from), or null.
    static std::shared_ptr<const provider_schema_result> nulled_optionals(const receiver_options& options,
                                                                          const nlohmann::json* task_schema) {
        if (!options.from) {
            return nullptr;
        }
        auto sent = std::make_shared<const provider_schema_result>(provider_schema(*options.from, task_schema));
        return sent->count(schema_note_kind::made_nullable) == 0 ? nullptr : sent;
    }

    receiver_options options_;
    std::shared_ptr<const provider_schema_result> nulls_;
    std::vector<semantic_check<Task>> checks_;
};

} // namespace handoff
