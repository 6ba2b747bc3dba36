// SPDX-License-Identifier: MIT
#pragma once

// worker_prompt's definitions: inline in every file header-only, compiled once in
// <handoff/src.hpp> otherwise (config.hpp). The schema describer is a template on the JSON
// type (detail/prompt/schema_describer.hpp); only the two instantiations worker_prompt_text
// names are ever made.

#include <handoff/detail/json/ordered_parse.hpp>
#include <handoff/worker_prompt.hpp>

#include <handoff/detail/prompt/schema_describer.hpp>
#include <handoff/detail/schema/access.hpp>
#include <handoff/detail/schema/depth_bound.hpp>
#include <handoff/detail/schema/dynamic_refs.hpp>
#include <handoff/detail/schema/refs.hpp>
#include <handoff/detail/text.hpp>
#include <handoff/envelope_schema.hpp>
#include <handoff/schema_registry.hpp>

#include <limits>   // numeric_limits
#include <optional> // optional
#include <string>   // string, to_string

namespace handoff {

namespace detail {

/// The embedded envelope schema in its author's order (fields are listed as written).
[[nodiscard]] HANDOFF_INLINE const nlohmann::ordered_json& ordered_envelope_schema() {
    static const nlohmann::ordered_json document = detail::parse_ordered(envelope_schema_text);
    return document;
}

/// The envelope's part of the worker prompt: the reply format, the envelope's fields, the rules
/// the receiver checks, the reason codes and the retry hints.
[[nodiscard]] HANDOFF_INLINE std::string envelope_instructions(const nlohmann::ordered_json& envelope,
                                                               const worker_prompt_options& options) {
    std::string out;
    out += "Reply with exactly one JSON object, the envelope described below, and nothing else: no code fence, "
           "no text before or after it.\n"
           "Use the same envelope when you finish and when you stop early; \"status\" tells them apart.\n"
           "Write only the fields listed: any other key is an error.\n";
    if (const auto id = envelope.find("$id"); id != envelope.end() && id->is_string()) {
        out += "Envelope schema: " + id->template get<std::string>() + "\n";
    }

    out += "\n## Envelope fields\n";
    typed_ref_follower<nlohmann::ordered_json> refs(envelope, ref_scope{});
    // The envelope is described whole: max_described_schemas and max_quoted_bytes bound the task's part.
    worker_prompt_options whole = options;
    whole.max_described_schemas = std::numeric_limits<std::size_t>::max();
    whole.max_quoted_bytes = std::numeric_limits<std::size_t>::max();
    schema_describer<nlohmann::ordered_json>(refs, whole, std::nullopt, false)
        .fields(envelope, refs.document_uri(), 0, 0, out);

    out += "\n## Rules the receiver checks\n"
           "- status \"ok\": partial_result is the whole result; leave reason_code out (or null).\n"
           "- status \"capped\": you stopped early; reason_code says why (one of the reason codes below) and "
           "partial_result holds what you finished, or null.\n"
           "- coverage: items_completed never exceeds items_expected; fraction is items_completed / "
           "items_expected, two decimals are enough (1 of 8 is 0.12 or 0.13); status \"ok\" means "
           "items_completed equals items_expected. With nothing countable, items_expected and items_completed "
           "are 0 and fraction is your own estimate of progress (1 when status is \"ok\").\n"
           "- schema_ok: true only when partial_result matches the task result described below. A result that "
           "does not match is discarded and counts as no progress, whatever schema_ok says.\n"
           "- steps: completed lists what you did, remaining what is left; a retry starts from remaining.\n";

    out += "\n## Reason codes (status \"capped\" only; exactly one of these, nothing else)\n";
    for (reason_code r : all_reason_codes) {
        out += "- " + std::string(to_string(r)) + ": " + std::string(worker_guidance(r)) + "\n";
    }

    out += "\n## Retry hint (optional, advisory)\n"
           "retry_hint.suggested_action says what you would do next; the orchestrator decides, and it owns the "
           "budget (budget_multiplier is read, never obeyed):\n";
    for (action a : all_actions) {
        out += "- " + std::string(to_string(a)) + ": " + std::string(worker_guidance(a)) + "\n";
    }
    return out;
}

/// The task's part of the worker prompt: its title, $id and description, then its fields (or,
/// for a schema without properties, one phrase for the whole result).
template <class Json>
[[nodiscard]] std::string task_instructions(const Json* task, const ref_scope& scope,
                                            const worker_prompt_options& options) {
    std::string out = "\n## Task result (partial_result)\n";
    if (task == nullptr) {
        out += "No task schema is set: partial_result is a JSON object of your choosing, or null.\n";
        return out;
    }
    // The describer follows `$ref`s; a `$dynamicRef` that can name one schema is that `$ref`.
    Json read = *task;
    const std::optional<schema_dialect> dialect = task_dialect(task, scope.options());
    dynamic_refs_as_refs(read, dialect);
    task = &read;
    typed_ref_follower<Json> refs(*task, scope);
    // Which keywords apply (and whether those beside a `$ref` do) is the root's dialect's rule,
    // taken for every part: the prompt does not follow a part below another `$schema` into its
    // own dialect.
    const schema_describer<Json> describe(refs, options, dialect);
    if (const auto title = task->find("title"); title != task->end() && title->is_string()) {
        out += "Task: " + plain_line(title->template get<std::string>(), options.max_description_bytes) + "\n";
    }
    if (const auto id = task->find("$id"); id != task->end() && id->is_string()) {
        out += "Task schema: " + plain_line(id->template get<std::string>(), 200) + "\n";
    }
    if (const auto d = task->find("description"); d != task->end() && d->is_string()) {
        out += plain_line(d->template get<std::string>(), options.max_description_bytes) + "\n";
    }
    std::string fields;
    if (!describe.beyond_fields(*task, refs.document_uri())) {
        describe.fields(*task, refs.document_uri(), 0, 0, fields);
    }
    if (!fields.empty()) {
        return out + fields +
               (describe.root_closed(*task, refs.document_uri()) ? "No other keys: any other key is an error.\n" : "");
    }
    // The task schema's description was printed above; the phrase repeats only its shape.
    std::string nested;
    const std::string shape = describe.phrase(*task, refs.document_uri(), 2, 0, nested, false);
    return out + "partial_result: " + shape + "\n" + nested;
}

template <class Json>
[[nodiscard]] std::string worker_prompt_from(const nlohmann::ordered_json& envelope, const Json* task,
                                             const ref_scope& scope, const worker_prompt_options& options) {
    return envelope_instructions(envelope, options) + task_instructions(task, scope, options);
}

/// worker_prompt for a task schema of either JSON type: `$ref`s resolve in `registry` (none
/// but the built-in metaschema when null) and beside `base_uri`.
template <class Json>
[[nodiscard]] std::string worker_prompt_in_scope(const Json* task, const schema_registry* registry,
                                                 std::string_view base_uri, const worker_prompt_options& options) {
    const ref_scope scope{registry, std::string(base_uri), options.schema.dialect};
    if (task != nullptr) {
        // Compiled as the receiver compiles it, so a schema it refuses throws the same schema_error;
        // one nested past any schema is refused as compiling refuses it, before it is copied.
        refuse_too_deep_schema(*task);
        static_cast<void>(compiled_schema_access::compile(nlohmann::json(*task), scope.base_uri, scope.registry,
                                                          scope.folders(), options.schema));
    }
    return worker_prompt_from(ordered_envelope_schema(), task, scope, options);
}

HANDOFF_INLINE std::string worker_prompt_text(const nlohmann::json* task, const schema_registry* registry,
                                              std::string_view base_uri, const worker_prompt_options& options) {
    return worker_prompt_in_scope(task, registry, base_uri, options);
}

HANDOFF_INLINE std::string worker_prompt_text(const nlohmann::ordered_json* task, const schema_registry* registry,
                                              std::string_view base_uri, const worker_prompt_options& options) {
    return worker_prompt_in_scope(task, registry, base_uri, options);
}

} // namespace detail

HANDOFF_INLINE std::string worker_prompt_without_task(const worker_prompt_options& options) {
    return detail::worker_prompt_text(static_cast<const nlohmann::ordered_json*>(nullptr), nullptr, {}, options);
}

} // namespace handoff
