// SPDX-License-Identifier: MIT
#pragma once

// receive_steps' definitions: inline in every file header-only, compiled once in
// <handoff/src.hpp> otherwise (config.hpp).

#include <handoff/coverage.hpp>
#include <handoff/decode.hpp>
#include <handoff/detail/envelope/check.hpp>
#include <handoff/detail/envelope/reader.hpp>
#include <handoff/detail/envelope/receive_steps.hpp>
#include <handoff/detail/json/depth.hpp>
#include <handoff/detail/provider/nulled_optionals.hpp>
#include <handoff/detail/text.hpp>
#include <handoff/ledger.hpp>

#include <algorithm> // min
#include <memory>    // make_shared
#include <string>    // string, to_string
#include <utility>   // move
#include <vector>    // vector

namespace handoff::detail {

// push_back rather than a range insert: the receive path instantiates push_back already.
HANDOFF_INLINE void append_problems(problem_list& to, problem_list&& from) {
    to.reserve(to.size() + from.size());
    for (problem& p : from) {
        to.push_back(std::move(p));
    }
}

HANDOFF_INLINE void add_task_problem(problem_list& problems, const char* code, const char* pointer,
                                     const std::string& message) {
    problems.push_back(problem{step::task_schema, code, pointer, std::string(pointer) + ": " + message});
}

/// Where the provider's schema put nulls that mean "absent" (receiver_options::from), or null
/// when it put none. The task schema is read in the dialect it was compiled in.
[[nodiscard]] HANDOFF_INLINE std::shared_ptr<const nulled_places> nulled_optionals(const receiver_options& options,
                                                                                   const compiled_schema* task_schema) {
    if (!options.from) {
        return nullptr;
    }
    schema_options read_as;
    if (task_schema != nullptr) {
        read_as.dialect = task_schema->dialect();
    }
    auto places = std::make_shared<const nulled_places>(
        nulled_optional_places(*options.from, task_schema != nullptr ? &task_schema->document() : nullptr, read_as));
    return places->empty() ? nullptr : places;
}

HANDOFF_INLINE void contract_failure(receipt<nlohmann::json>& out, step failed, problem_list&& problems) {
    out.route = route::repair;
    out.failed_step = failed;
    out.problems = std::move(problems);
}

/// `options` as a receiver holds them: nesting at most max_recursed_depth, since the steps copy
/// the partial result and a receipt writes it out, each recursing once per level.
[[nodiscard]] HANDOFF_INLINE receiver_options held_options(receiver_options options) {
    options.limits.max_depth = std::min(options.limits.max_depth, max_recursed_depth);
    return options;
}

HANDOFF_INLINE receive_steps::receive_steps(const receiver_options& options)
    : options_(held_options(options)), nulls_(nulled_optionals(options_, nullptr)) {}

HANDOFF_INLINE receive_steps::receive_steps(const nlohmann::json& task_schema, const receiver_options& options)
    : task_schema_(compiled_schema::from_json(task_schema, options.schema)), options_(held_options(options)),
      nulls_(nulled_optionals(options_, &*task_schema_)) {}

HANDOFF_INLINE receive_steps::receive_steps(compiled_schema task_schema, const receiver_options& options)
    : task_schema_(std::move(task_schema)), options_(held_options(options)),
      nulls_(nulled_optionals(options_, &*task_schema_)) {}

HANDOFF_INLINE receive_steps::parsed receive_steps::step_parse(std::string_view text,
                                                               receipt<nlohmann::json>& out) const {
    parsed reply;
    const decode_options decoding{options_.strict, options_.limits};
    decode_result located;
    if (const auto json_text = nulls_ ? std::nullopt : locate_json(text, decoding, located)) {
        reply.checked = read_envelope(*json_text, options_.limits);
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
        remove_nulls_at(*reply.document, *nulls_);
    }
    return reply;
}

HANDOFF_INLINE std::optional<envelope<nlohmann::json>> receive_steps::step_envelope(parsed reply,
                                                                                    receipt<nlohmann::json>& out) {
    if (reply.checked || !reply.document) {
        return std::move(reply.checked);
    }
    problem_list problems;
    auto env = envelope_checker(problems).check(*reply.document);
    if (!env) {
        contract_failure(out, step::envelope_schema, std::move(problems));
    }
    return env;
}

HANDOFF_INLINE bool receive_steps::task_fits(const envelope<nlohmann::json>& env, receipt<nlohmann::json>& out,
                                             bool validated) const {
    if (!env.partial_result) {
        if (env.status == status::ok) {
            add_task_problem(out.problems, codes::task_absent, "/partial_result",
                             "null, but status \"ok\" means partial_result is the whole result");
        } else if (env.coverage.items_completed > 0) {
            add_task_problem(out.problems, codes::task_absent, "/partial_result",
                             "null although coverage reports " + std::to_string(env.coverage.items_completed) +
                                 " completed " + quote_untrusted(env.coverage.unit, 32) +
                                 "; nothing completed is usable, so routing uses coverage 0");
        }
        return false;
    }
    if (!env.schema_ok) {
        add_task_problem(out.problems, codes::task_self_reported_invalid, "/schema_ok",
                         "the worker reported that partial_result does not fit the task schema; "
                         "the partial result is discarded");
        return false;
    }
    if (!task_schema_ || validated) {
        return true;
    }
    problem_list task_problems = task_schema_->validate(*env.partial_result, "/partial_result", step::task_schema);
    const bool fits = task_problems.empty();
    append_problems(out.problems, std::move(task_problems));
    return fits;
}

HANDOFF_INLINE void receive_steps::step_coverage(const envelope<nlohmann::json>& env,
                                                 receipt<nlohmann::json>& out) const {
    problem_list coverage = check_coverage(env.status, env.coverage, options_.fraction_tolerance);
    if (!coverage.empty() && !out.failed_step) {
        out.failed_step = step::coverage;
    }
    append_problems(out.problems, std::move(coverage));
}

HANDOFF_INLINE void receive_steps::step_route(const envelope<nlohmann::json>& env, bool usable,
                                              const attempt_context& context, receipt<nlohmann::json>& out) const {
    if (out.failed_step) {
        out.route = route::repair;
        return;
    }
    if (env.status == status::ok) {
        out.route = route::accept;
        return;
    }
    out.decision = plan(*env.reason_code, env.coverage, env.steps, env.retry_hint, usable, options_.policy, context);
    out.route = to_route(out.decision->action);
    if (out.decision->disagreement && options_.ledger != nullptr) {
        options_.ledger->record(out.decision->reason, out.decision->coverage_band,
                                out.decision->disagreement->table_action, out.decision->disagreement->hint_action);
    }
}

} // namespace handoff::detail
