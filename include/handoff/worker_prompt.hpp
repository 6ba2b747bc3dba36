// SPDX-License-Identifier: MIT
#pragma once

// The worker's side of the contract, generated from what the receiver checks: a prompt that
// mentions a label the receiver refuses is a bug. The fields, types, bounds and descriptions are
// read from the envelope schema (embedded, envelope_schema.hpp; a test holds it equal to the
// envelope contract, envelope_contract.hpp) and the task schema at the moment the prompt is
// built; the reason codes and retry actions are the contract's vocabularies (enums.hpp). What
// the schemas cannot say is written here once: when each reason_code applies and what each
// retry hint asks for (worker_guidance, switches without `default:` so a new enumerator breaks
// the build until it is explained), and the coverage arithmetic of step 4 (coverage.hpp).

#include <handoff/config.hpp>
#include <handoff/enums.hpp>
#include <handoff/schema.hpp>
#include <handoff/worker_prompt_options.hpp>

#include <nlohmann/json.hpp>

#include <string>      // string
#include <string_view> // string_view

namespace handoff {

class schema_registry; // schema_registry.hpp: the documents a task schema's `$ref`s may name

/// When a worker should report `r` (one line, for the worker prompt).
[[nodiscard]] constexpr std::string_view worker_guidance(reason_code r) noexcept {
    switch (r) {
    case reason_code::token_cap: return "you are running out of output tokens before the task is done";
    case reason_code::time_cap: return "your time budget ran out before the task was done";
    case reason_code::tool_call_cap: return "you reached the maximum number of tool calls";
    case reason_code::context_overflow:
        return "the material no longer fits in your context window: going on would mean working from what you "
               "have forgotten";
    case reason_code::dependency_failed:
        return "something you need failed or is missing (a tool error, an unavailable service, absent input): "
               "more budget would not help";
    case reason_code::scope_too_broad:
        return "the task is too large or too vague for one worker: it has to be split or narrowed";
    }
    return "";
}

/// What a retry hint's `suggested_action` asks the orchestrator for (one line).
[[nodiscard]] constexpr std::string_view worker_guidance(action a) noexcept {
    switch (a) {
    case action::resume: return "continue from where you stopped, with more budget";
    case action::split: return "divide the remaining items among several workers";
    case action::narrow: return "retry only the remaining steps, with the same budget";
    case action::escalate: return "a person or another system has to step in; retrying will not help";
    case action::fail: return "the task cannot be done; stop trying";
    }
    return "";
}

namespace detail {

/// The worker prompt for `task` (null: no task schema), its `$ref`s resolved in `registry`
/// (none but the built-in metaschema when null) and beside `base_uri`. One overload per JSON
/// type a task schema may be read as.
[[nodiscard]] std::string worker_prompt_text(const nlohmann::json* task, const schema_registry* registry,
                                             std::string_view base_uri, const worker_prompt_options& options);
[[nodiscard]] std::string worker_prompt_text(const nlohmann::ordered_json* task, const schema_registry* registry,
                                             std::string_view base_uri, const worker_prompt_options& options);

} // namespace detail

/// The worker's instructions for the envelope and `task_schema`: fields, types, bounds, enum
/// values, reason codes and retry hints, all read from the schemas the receiver checks.
/// `Json` is nlohmann::json (fields in key order after the required ones) or
/// nlohmann::ordered_json (the schema author's order). Throws the schema_error
/// compiled_schema::from_json(task_schema, options.schema) throws for a schema the receiver
/// refuses: no prompt describes a schema nothing can check.
template <class Json>
[[nodiscard]] std::string worker_prompt(const Json& task_schema, const worker_prompt_options& options = {}) {
    return detail::worker_prompt_text(&task_schema, nullptr, {}, options);
}

/// worker_prompt, with the task schema's `$ref`s followed into other documents as
/// compiled_schema follows them: the documents of `registry`, and, when `base_uri` is the
/// schema's file:// URI (schema_registry::file_uri(path)), the files beside it and in the
/// registry's folders. Throws the schema_error compiled_schema::from_file(path, registry,
/// options.schema) throws for the same schema (a `$ref` that leads nowhere, among others).
template <class Json>
[[nodiscard]] std::string worker_prompt(const Json& task_schema, const schema_registry& registry,
                                        std::string_view base_uri, const worker_prompt_options& options = {}) {
    return detail::worker_prompt_text(&task_schema, &registry, base_uri, options);
}

/// The worker's instructions when the receiver has no task schema.
[[nodiscard]] std::string worker_prompt_without_task(const worker_prompt_options& options = {});

} // namespace handoff

#if !defined(HANDOFF_COMPILED_LIB)
#include <handoff/worker_prompt-inl.hpp>
#endif
