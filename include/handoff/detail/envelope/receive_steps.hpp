// SPDX-License-Identifier: MIT
#pragma once

#include <handoff/config.hpp>
#include <handoff/decision.hpp>
#include <handoff/detail/provider/nulled_optionals.hpp>
#include <handoff/envelope.hpp>
#include <handoff/problem.hpp>
#include <handoff/receipt.hpp>
#include <handoff/receiver_options.hpp>
#include <handoff/schema.hpp>

#include <nlohmann/json.hpp>

#include <memory>      // shared_ptr
#include <optional>    // optional
#include <string>      // string
#include <string_view> // string_view
#include <vector>      // vector

namespace handoff::detail {

/// Moves every problem of `from` to the end of `to`, in order.
void append_problems(problem_list& to, problem_list&& from);

/// A step-3 problem at `pointer`, its message starting with the pointer as every message does.
void add_task_problem(problem_list& problems, const char* code, const char* pointer, const std::string& message);

/// The steps of receive() that do not depend on the task type, on a receipt of JSON: parse,
/// envelope, the task schema's half of step 3, coverage, and routing. receiver<Task> adds the
/// conversion to Task and the semantic checks. Immutable once built; every step is const.
class receive_steps {
public:
    receive_steps() = default;
    explicit receive_steps(const receiver_options& options);
    /// Throws schema_error when `task_schema` does not compile.
    receive_steps(const nlohmann::json& task_schema, const receiver_options& options);
    receive_steps(compiled_schema task_schema, const receiver_options& options);

    /// What step 1 leaves for step 2: the envelope itself when the one-pass reader took the
    /// text (steps 1 and 2 at once), else the document. Neither when the parse failed.
    struct parsed {
        std::optional<envelope<nlohmann::json>> checked;
        std::optional<nlohmann::json> document;
    };

    /// Step 1: tolerant decode, then strict JSON. A valid envelope is read in one pass; at the
    /// first doubt the decoder runs, and says exactly what is wrong.
    [[nodiscard]] parsed step_parse(std::string_view text, receipt<nlohmann::json>& out) const;

    /// Step 2: the envelope contract, unless the one-pass reader already checked it.
    [[nodiscard]] static std::optional<envelope<nlohmann::json>> step_envelope(parsed reply,
                                                                               receipt<nlohmann::json>& out);

    /// Step 3 on the JSON: whether partial_result is present, claimed valid by the worker and
    /// valid against the task schema. Each reason it is not is a problem in `out`.
    /// `validated`: partial_result is already known to pass this task schema (the streaming
    /// check judged it as it arrived), so it is not validated again.
    [[nodiscard]] bool task_fits(const envelope<nlohmann::json>& env, receipt<nlohmann::json>& out,
                                 bool validated = false) const;

    /// Step 4: coverage arithmetic (coverage.hpp).
    void step_coverage(const envelope<nlohmann::json>& env, receipt<nlohmann::json>& out) const;

    /// Step 5: ACCEPT an ok envelope that passed every check, REPAIR a failed one, and send a
    /// valid capped one through the decision table. `usable`: the result passed steps 3 and
    /// the semantic checks.
    void step_route(const envelope<nlohmann::json>& env, bool usable, const attempt_context& context,
                    receipt<nlohmann::json>& out) const;

    [[nodiscard]] const receiver_options& options() const noexcept { return options_; }
    [[nodiscard]] const std::optional<compiled_schema>& task_schema() const noexcept { return task_schema_; }

private:
    std::optional<compiled_schema> task_schema_;
    receiver_options options_;
    /// Where the provider's schema put nulls that mean "absent" (receiver_options::from), or null.
    std::shared_ptr<const nulled_places> nulls_;
};

} // namespace handoff::detail

#if !defined(HANDOFF_COMPILED_LIB)
#include <handoff/detail/envelope/receive_steps-inl.hpp>
#endif
