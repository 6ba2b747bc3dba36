// SPDX-License-Identifier: MIT
#pragma once

// Repair prompts that are safe to send. A repair prompt repeats model
// output to the model, so it is an injection channel: an extra "note" property whose value says
// "ignore previous instructions" must never reach the next prompt. The rules:
//
// - The previous reply is echoed as re-serialised JSON, never as raw text. A key that the
//   schema (envelope or task) does not declare is named, but its value is replaced by
//   `<withheld: unexpected property>`; when the object is closed (additionalProperties false)
//   the key is also listed as a problem to remove.
// - Every echoed string is JSON-quoted and cut at `max_value_bytes` (on a UTF-8 boundary); keys
//   at `max_key_bytes`; the whole echo at `max_echo_bytes`.
// - Problem messages are one line each (control characters escaped) and length-capped; a
//   message that quotes a withheld value is itself withheld.
// - A reply that does not parse is not echoed at all: its parse problem says what to fix.
// - Only the last failed attempt appears; earlier attempts never pile up.

#include <handoff/config.hpp>
#include <handoff/decode.hpp>
#include <handoff/problem.hpp>
#include <handoff/receiver.hpp>
#include <handoff/schema.hpp>
#include <handoff/semantic.hpp>

#include <nlohmann/json.hpp>

#include <cstddef>     // size_t
#include <cstdint>     // uint32_t
#include <string>      // string
#include <string_view> // string_view
#include <utility>     // move
#include <vector>      // vector

namespace handoff {

class schema_registry; // schema_registry.hpp: the documents a task schema's `$ref`s may name

/// Caps on what a repair prompt repeats. Defaults keep a prompt's repair section under ~8 KiB.
struct prompt_options {
    /// Any echoed string value (the rest is replaced by a "cut" marker).
    std::size_t max_value_bytes = 160;
    /// Any echoed key (a key is a channel too).
    std::size_t max_key_bytes = 64;
    /// The whole re-serialised previous reply.
    std::size_t max_echo_bytes = 4096;
    /// Items echoed per array; the rest are counted, not shown.
    std::size_t max_array_items = 40;
    /// Problems listed; the rest are counted.
    std::size_t max_problems = 20;
    /// Each problem line.
    std::size_t max_message_bytes = 400;
    /// Repeat the previous reply at all (some teams send only the problems).
    bool echo_previous_reply = true;
    /// How a task schema given as a document is read, as the receiver's
    /// receiver_options::schema reads it (the dialect of a schema without `$schema`). A builder
    /// made from a receiver or a compiled_schema takes that schema's own options instead.
    schema_options schema{};
};

/// A key found where the schema does not allow it.
struct unexpected_property {
    /// JSON pointer of the key itself, e.g. "/partial_result/note".
    std::string pointer;
    /// The key, quoted and capped for a prompt.
    std::string quoted_key;
    /// The names the schema allows in that object (for "allowed here: ...").
    std::vector<std::string> allowed;
};

/// The previous reply made safe to repeat.
struct sanitized_echo {
    /// Pretty-printed JSON, capped; empty when the reply did not parse.
    std::string text;
    /// Keys in closed objects that the schema does not declare.
    std::vector<unexpected_property> unexpected;
    /// Strings inside withheld values; no line of the prompt may contain one of them.
    std::vector<std::string> withheld_strings;
};

namespace detail {

inline constexpr std::string_view withheld_marker = "<withheld: unexpected property>";

/// Compiles `task_schema` (when not null) as the receiver compiles it: with `registry` (none
/// when null) and, for a file:// `base_uri`, the files beside it. Throws the receiver's
/// schema_error for a schema the receiver refuses.
void compile_task_schema(const nlohmann::json* task_schema, const schema_registry* registry, std::string_view base_uri,
                         const schema_options& options);

} // namespace detail

/// Re-serialises a reply's JSON with undeclared keys' values withheld and every string capped.
/// `task_schema` is the task schema document (null: partial_result is echoed as-is, capped);
/// its `$ref`s resolve inside it (and to the built-in metaschemas) only. Throws the schema_error
/// compiled_schema::from_json(*task_schema, options.schema) throws for a schema the receiver
/// refuses (a `$ref` that leads nowhere, among others).
[[nodiscard]] sanitized_echo sanitize_reply(std::string_view reply, const nlohmann::json* task_schema,
                                            const decode_options& decoding = {}, const prompt_options& options = {});

/// sanitize_reply, with the task schema's `$ref`s followed into other documents as
/// compiled_schema follows them: the documents of `registry`, and, when `base_uri` is the
/// schema's file:// URI (schema_registry::file_uri(path)), the files beside it and in the
/// registry's folders. Throws the schema_error compiled_schema::from_file(path, registry,
/// options.schema) throws for the same schema.
[[nodiscard]] sanitized_echo sanitize_reply(std::string_view reply, const nlohmann::json* task_schema,
                                            const schema_registry& registry, std::string_view base_uri,
                                            const decode_options& decoding = {}, const prompt_options& options = {});

/// The problem lines of a repair prompt: one line per problem, unexpected properties named
/// with their keys only, nothing that repeats a withheld value.
[[nodiscard]] std::vector<std::string> problem_lines(const problem_list& problems, const sanitized_echo& echo,
                                                     const prompt_options& options = {});

/// Builds repair prompts for one receiver's schemas: the schemas never change between attempts,
/// only the feedback does (a schema that changed between attempts would re-pay a provider's
/// grammar compilation).
class repair_prompt_builder {
public:
    /// Throws the receiver's schema_error for a task schema the receiver refuses (compiled
    /// here with options.schema, as sanitize_reply compiles it); `task_schema` must outlive the
    /// builder.
    explicit repair_prompt_builder(const nlohmann::json* task_schema = nullptr, decode_options decoding = {},
                                   prompt_options options = {})
        : task_schema_(task_schema), decoding_(decoding), options_(options) {
        detail::compile_task_schema(task_schema_, nullptr, {}, options_.schema);
    }

    /// The task schema's `$ref`s are followed into `registry` and beside `base_uri` as
    /// sanitize_reply(reply, task_schema, registry, base_uri) follows them; `registry` must
    /// outlive the builder. Throws as the constructor above.
    repair_prompt_builder(const nlohmann::json* task_schema, const schema_registry& registry, std::string base_uri,
                          decode_options decoding = {}, prompt_options options = {})
        : task_schema_(task_schema), registry_(&registry), base_uri_(std::move(base_uri)), decoding_(decoding),
          options_(options) {
        detail::compile_task_schema(task_schema_, registry_, base_uri_, options_.schema);
    }

    /// For a task schema already compiled (the receiver's): read with its options, not compiled
    /// again; `task_schema` must outlive the builder.
    explicit repair_prompt_builder(const compiled_schema& task_schema, decode_options decoding = {},
                                   prompt_options options = {})
        : task_schema_(&task_schema.document()), decoding_(decoding), options_(with_schema(options, &task_schema)) {}

    template <class Task>
    explicit repair_prompt_builder(const receiver<Task>& r, prompt_options options = {})
        : task_schema_(task_schema_of(r)), decoding_(decoding_of(r)), options_(with_schema(options, schema_of(r))) {}

    /// For a receiver whose task schema was compiled with `registry` (compiled_schema::from_file
    /// passes the file's URI as `base_uri`); `registry` must outlive the builder.
    template <class Task>
    repair_prompt_builder(const receiver<Task>& r, const schema_registry& registry, std::string base_uri,
                          prompt_options options = {})
        : task_schema_(task_schema_of(r)), registry_(&registry), base_uri_(std::move(base_uri)),
          decoding_(decoding_of(r)), options_(with_schema(options, schema_of(r))) {}

    [[nodiscard]] const prompt_options& options() const noexcept { return options_; }

    /// The prompt after a rejected reply: the original prompt unchanged, then the problems,
    /// then the sanitised previous reply (attempt `failed_attempt`), then the instruction.
    [[nodiscard]] std::string for_problems(std::string_view original_prompt, std::uint32_t failed_attempt,
                                           std::string_view reply, const problem_list& problems) const;

    /// The prompt after a reply cut off at the output cap, sent only once the caller raised the
    /// cap: the cut-off text is not repeated (it would eat the new budget), only the fact.
    [[nodiscard]] std::string for_truncation(std::string_view original_prompt, std::uint32_t failed_attempt,
                                             std::size_t reply_bytes, std::string_view stop_reason) const;

private:
    template <class Task>
    [[nodiscard]] static const compiled_schema* schema_of(const receiver<Task>& r) {
        return r.task_schema() ? &*r.task_schema() : nullptr;
    }

    template <class Task>
    [[nodiscard]] static const nlohmann::json* task_schema_of(const receiver<Task>& r) {
        return r.task_schema() ? &r.task_schema()->document() : nullptr;
    }

    /// `options`, reading the task schema as `compiled` was read (unchanged when null).
    [[nodiscard]] static prompt_options with_schema(prompt_options options, const compiled_schema* compiled) {
        if (compiled != nullptr) {
            options.schema = compiled->options();
        }
        return options;
    }

    template <class Task>
    [[nodiscard]] static decode_options decoding_of(const receiver<Task>& r) {
        return decode_options{r.options().strict, r.options().limits};
    }

    const nlohmann::json* task_schema_;
    /// Where the task schema's `$ref`s may lead besides itself: the registry's documents (none
    /// when null) and the files beside `base_uri_`.
    const schema_registry* registry_ = nullptr;
    std::string base_uri_;
    decode_options decoding_;
    prompt_options options_;
};

} // namespace handoff

#if !defined(HANDOFF_COMPILED_LIB)
#include <handoff/repair_prompt-inl.hpp>
#endif
