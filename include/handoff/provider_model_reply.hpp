// SPDX-License-Identifier: MIT
#pragma once

// The bridge from a provider's reply (provider_reply.hpp) to the repair loop's model_reply
// (repair_loop.hpp), kept apart so that reading replies does not pull in the receiver.
//
// The stop reason handed to the loop is the class's canonical word, not the provider's: the
// loop's default truncation_stop_reasons ({"max_tokens"}) then recognises a cut-off reply from
// every provider ("length", "MAX_TOKENS", "max_output_tokens", "limit"), and no provider's
// word for a refusal can be mistaken for a truncation.

#include <handoff/config.hpp>
#include <handoff/provider_reply.hpp>
#include <handoff/repair_loop.hpp>
#include <handoff/stop_class.hpp>

#include <string>      // string
#include <string_view> // string_view

namespace handoff {

/// The word the repair loop sees for a stop class; `other` keeps the provider's own word.
[[nodiscard]] std::string canonical_stop_reason(const provider_reply& reply);

/// {text, canonical stop reason, refusal}. A refusal's own message travels apart from the text,
/// so the repair loop ends `refused` with it in the dead letter and never reads it as an answer.
[[nodiscard]] model_reply to_model_reply(const provider_reply& reply);

/// Reads a response body and converts it in one step; never throws.
[[nodiscard]] model_reply model_reply_from_body(std::string_view body);

} // namespace handoff

#if !defined(HANDOFF_COMPILED_LIB)
#include <handoff/provider_model_reply-inl.hpp>
#endif
