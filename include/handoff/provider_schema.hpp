// SPDX-License-Identifier: MIT
#pragma once

// Layer 1, constrained decoding: the envelope schema with the task schema inside it, rewritten
// into what one provider's decoder accepts. The provider enforces what it can while the model
// writes; the receiver still checks everything the task schema constrains afterwards, so a
// constraint the provider cannot take is removed from the request, never from the contract, and
// always reported (a note also says when a dropped keyword is one the receiver ignores too):
//
//   const auto sent = handoff::provider_schema(handoff::provider::openai, &task_schema);
//   if (!sent.within_limits()) { /* the provider would refuse it: sent.notes says which limit */ }
//   request["response_format"]["json_schema"]["schema"] = sent.schema;
//
// The schema sent stands alone: every definition sits in its root `$defs` and every `$ref` in it
// resolves there. Property order is kept (ordered_json), but no provider promises to write in it:
// Anthropic and llama.cpp write required properties first, then optional ones
// (provider_writes_required_first), so nothing downstream may depend on the order of the keys.

#include <handoff/config.hpp>
#include <handoff/detail/provider/schema_note.hpp>
#include <handoff/provider.hpp>
#include <handoff/schema.hpp>

#include <nlohmann/json.hpp>

#include <cstddef>     // size_t, nullptr_t
#include <cstdint>     // uint64_t
#include <string>      // string
#include <string_view> // string_view
#include <vector>      // vector

namespace handoff {

/// What the caller asks of provider_schema() beyond the provider's rules.
struct provider_schema_options {
    /// Write each constraint the provider will not enforce into the `description` the model
    /// reads ("{minLength: 1, maxLength: 64}"), as anthropic-sdk-python's transform_schema and
    /// pydantic-ai do. The model may follow it; the receiver still checks it either way.
    bool describe_dropped = false;
    /// How the task schema is read, as the receiver reads it (receiver_options::schema): a task
    /// schema that declares no `$schema` is read in `schema.dialect` when set. The dialect
    /// decides whether keywords beside a `$ref` apply (2019-09 on) or are ignored (before).
    /// Pass the receiver's own (receiver_options::schema) so both read the task alike.
    schema_options schema{};
};

/// A limit the provider counts over the whole request (every strict tool and the output schema):
/// how much of it the envelope takes, and how much the task schema has left.
struct limit_usage {
    std::string name;
    std::uint64_t limit = 0;
    /// Counted over the whole schema sent.
    std::uint64_t used = 0;
    /// The envelope's own share (its optional fields, its unions, partial_result's "or null").
    std::uint64_t envelope = 0;

    [[nodiscard]] std::uint64_t task() const noexcept { return used - envelope; }
    /// What the task schema (and any other strict tool in the same request) may still use.
    [[nodiscard]] std::uint64_t left_for_task() const noexcept { return envelope >= limit ? 0 : limit - envelope; }
};

// nlohmann::ordered_json's destructor keeps a stack of children, which may throw bad_alloc; like
// any allocation failure in a destructor, that terminates.
struct [[nodiscard]] provider_schema_result { // NOLINT(bugprone-exception-escape)
    provider target = provider::json_schema;
    /// The schema to send: the envelope, the task at /properties/partial_result/anyOf/0 (or, for
    /// gemini_openapi, inlined there), the definitions in the root `$defs`.
    nlohmann::ordered_json schema;
    /// Every change against the merged draft-07 schema, in walk order; limit notes last. A
    /// pointer is into the schema as given (a hoisted definition is named at its old place).
    std::vector<schema_note> notes;
    /// Where each definition in the schema's root `$defs` came from, in the order sent: what
    /// remove_nulled_optionals() follows a reply's `$ref`s through.
    std::vector<schema_definition> definitions;
    /// The target's whole-request limits (Anthropic's 24 optional and 16 union-type parameters).
    std::vector<limit_usage> limits;

    /// No documented limit of the target is exceeded (near_limit warnings aside).
    [[nodiscard]] bool within_limits() const;
    [[nodiscard]] std::size_t count(schema_note_kind kind) const;
};

/// The envelope schema (with `task_schema` at partial_result, when given) as `target` takes it,
/// with a note for every constraint it will not enforce and every limit it is over. Never throws
/// for any task schema value; a task schema that is not an object is placed as it is. A task
/// schema nested past any schema (more than 1024 JSON levels: the receiver refuses it) is not
/// sent: the result is the envelope alone, its first note (not_enforced, at the task's place)
/// saying why.
[[nodiscard]] provider_schema_result provider_schema(provider target,
                                                     const nlohmann::ordered_json* task_schema = nullptr,
                                                     const provider_schema_options& options = {});

/// The envelope alone: partial_result stays "an object or null".
[[nodiscard]] provider_schema_result provider_schema(provider target, std::nullptr_t,
                                                     const provider_schema_options& options = {});

/// The same, for a task schema held as nlohmann::json (its keys are sorted: property order is
/// lost; pass ordered_json to keep the author's order).
[[nodiscard]] provider_schema_result provider_schema(provider target, const nlohmann::json* task_schema,
                                                     const provider_schema_options& options = {});

/// The same for a task schema whose `$ref`s may name other documents, which it follows as
/// compiled_schema::from_file does: the documents of `registry`, and, when `base_uri` is the
/// schema's file:// URI (schema_registry::file_uri(path)), the files beside it and in the
/// registry's folders. Each document a `$ref` leads to is copied into the task schema's
/// definitions first, so the schema sent stands alone; notes about a copied document point into
/// those definitions. A `$ref` that leads nowhere is removed and reported, as in one document.
[[nodiscard]] provider_schema_result provider_schema(provider target, const nlohmann::ordered_json& task_schema,
                                                     const schema_registry& registry, std::string_view base_uri,
                                                     const provider_schema_options& options = {});
[[nodiscard]] provider_schema_result provider_schema(provider target, const nlohmann::json& task_schema,
                                                     const schema_registry& registry, std::string_view base_uri,
                                                     const provider_schema_options& options = {});

/// Whether the provider's decoder writes required properties before optional ones, whatever the
/// schema's order (llama.cpp's json-schema-to-grammar.cpp, _build_object_rule; Anthropic's
/// structured outputs docs).
[[nodiscard]] bool provider_writes_required_first(provider target) noexcept;

} // namespace handoff

#if !defined(HANDOFF_COMPILED_LIB)
#include <handoff/provider_schema-inl.hpp>
#endif
