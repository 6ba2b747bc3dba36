// SPDX-License-Identifier: MIT
#pragma once

// A provider's response body, read into the text the receiver checks and one stop class
// (stop_class.hpp). The shape is recognised from the body itself, so one call reads every
// provider:
//
//   const handoff::provider_reply reply = handoff::read_provider_reply(http_body);
//   if (!reply.recognised()) { log(reply.problem); }
//   else if (handoff::is_refusal(reply.stop)) { /* no repair prompt changes a refusal */ }
//
// Reading never throws: a body that is not JSON, or no known shape, is a value
// (reply_format::unknown, `problem` saying why). provider_model_reply.hpp turns the result into
// the repair loop's model_reply.

#include <handoff/config.hpp>
#include <handoff/stop_class.hpp>

#include <nlohmann/json.hpp>

#include <string_view> // string_view

namespace handoff {

/// Reads a parsed response body of any supported provider; never throws. A body nested more
/// than 256 levels deep is reply_format::unknown, with a problem saying so (its parts would be
/// copied, which recurses once per level). (A separate name: a string converts to
/// nlohmann::json, so an overload would be ambiguous.)
[[nodiscard]] provider_reply read_provider_reply_json(const nlohmann::json& body);

/// Reads a response body as text; a body that is not JSON is reply_format::unknown. Never throws.
[[nodiscard]] provider_reply read_provider_reply(std::string_view body_text);

} // namespace handoff

#if !defined(HANDOFF_COMPILED_LIB)
#include <handoff/provider_reply-inl.hpp>
#endif
