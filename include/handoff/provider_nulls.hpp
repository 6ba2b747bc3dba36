// SPDX-License-Identifier: MIT
#pragma once

// OpenAI strict mode has no optional properties: provider_schema() makes each one required and
// nullable, and notes it (schema_note_kind::made_nullable). A reply decoded under that schema
// therefore says `"budget": null` where the envelope means "no budget", and the receiver, which
// checks the real contract, refuses the null. remove_nulled_optionals() undoes exactly that:
// it removes a key whose value is null only where a made_nullable note put the null, so a null
// the contract itself allows (reason_code) or forbids anywhere else is left for the receiver.
// The places are followed through the schema's `$ref`s, so an optional property of a `$defs`
// definition (a nested Pydantic model, in a property, a list or an anyOf, recursive or not) is
// read wherever the reply uses it.
//
// The text is parsed and written again. Use it on replies produced under the provider's
// constrained decoding (which cannot contain duplicate keys or comments); a text that is not
// plain JSON is returned unchanged, for the receiver to report.

#include <handoff/config.hpp>
#include <handoff/detail/provider/nulled_optionals.hpp>
#include <handoff/provider_schema.hpp>

#include <nlohmann/json.hpp>

#include <string>      // string
#include <string_view> // string_view

namespace handoff {

namespace detail {
/// The places of `sent`'s made_nullable notes, reached through the `$ref`s of its schema.
[[nodiscard]] nulled_places nulled_places_of(const provider_schema_result& sent);
} // namespace detail

/// Removes, in place, every null the provider schema introduced for an optional property.
void remove_nulled_optionals(nlohmann::ordered_json& reply, const provider_schema_result& sent);

/// The same on a document read into nlohmann::json (as the receiver reads replies).
void remove_nulled_optionals(nlohmann::json& reply, const provider_schema_result& sent);

/// The same on reply text; a text that does not parse as JSON, or nests more than 256 levels
/// deep (a receiver refuses it), comes back unchanged. Never throws.
[[nodiscard]] std::string remove_nulled_optionals(std::string_view reply_text, const provider_schema_result& sent);

} // namespace handoff

#if !defined(HANDOFF_COMPILED_LIB)
#include <handoff/provider_nulls-inl.hpp>
#endif
