// SPDX-License-Identifier: MIT
#pragma once

// Layer 1, constrained decoding: the envelope schema with the task schema inside it, rewritten
// into what one provider's decoder accepts. The provider enforces what it can while the model
// writes; the receiver still checks everything afterwards, so a constraint the provider cannot
// take is removed from the request, never from the contract, and always reported:
//
//   const auto sent = handoff::provider_schema(handoff::provider::openai, &task_schema);
//   if (!sent.within_limits()) { /* the provider would refuse it: sent.notes says which limit */ }
//   request["response_format"]["json_schema"]["schema"] = sent.schema;
//
// Property order is kept (ordered_json): providers generate properties in schema order, and the
// envelope puts `status` first on purpose.

#include <handoff/config.hpp>
#include <handoff/detail/provider/schema_note.hpp>
#include <handoff/provider.hpp>

#include <nlohmann/json.hpp>

#include <cstddef> // size_t, nullptr_t
#include <vector>  // vector

namespace handoff {

// nlohmann::ordered_json's destructor keeps a stack of children, which may throw bad_alloc; like
// any allocation failure in a destructor, that terminates.
struct [[nodiscard]] provider_schema_result { // NOLINT(bugprone-exception-escape)
    provider target = provider::json_schema;
    /// The schema to send: the envelope, the task at /properties/partial_result/anyOf/0.
    nlohmann::ordered_json schema;
    /// Every change against the merged draft-07 schema, in walk order; limit notes last.
    std::vector<schema_note> notes;

    /// No documented limit of the target is exceeded.
    [[nodiscard]] bool within_limits() const;
    [[nodiscard]] std::size_t count(schema_note_kind kind) const;
};

/// The envelope schema (with `task_schema` at partial_result, when given) as `target` takes it,
/// with a note for every constraint it will not enforce and every limit it is over. Never throws
/// for any task schema value; a task schema that is not an object is placed as it is.
[[nodiscard]] provider_schema_result provider_schema(provider target,
                                                     const nlohmann::ordered_json* task_schema = nullptr);

/// The envelope alone: partial_result stays "an object or null".
[[nodiscard]] provider_schema_result provider_schema(provider target, std::nullptr_t);

/// The same, for a task schema held as nlohmann::json (its keys are sorted: property order is
/// lost; pass ordered_json to keep the author's order).
[[nodiscard]] provider_schema_result provider_schema(provider target, const nlohmann::json* task_schema);

} // namespace handoff

#if !defined(HANDOFF_COMPILED_LIB)
#include <handoff/provider_schema-inl.hpp>
#endif
