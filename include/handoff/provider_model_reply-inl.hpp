// SPDX-License-Identifier: MIT
#pragma once

// The provider-to-repair-loop bridge's definitions: inline in every file header-only, compiled
// once in <handoff/src.hpp> otherwise (config.hpp).

#include <handoff/provider_model_reply.hpp>
#include <handoff/provider_reply.hpp>
#include <handoff/repair_loop.hpp>
#include <handoff/stop_class.hpp>

#include <string>      // string
#include <string_view> // string_view

namespace handoff {

HANDOFF_INLINE std::string canonical_stop_reason(const provider_reply& reply) {
    switch (reply.stop) {
    case stop_class::complete: return "end_turn";
    case stop_class::truncated: return "max_tokens";
    case stop_class::refused: return "refusal";
    case stop_class::tool_call: return "tool_use";
    case stop_class::other: return reply.stop_reason.empty() ? std::string("other") : reply.stop_reason;
    }
    return "other";
}

HANDOFF_INLINE model_reply to_model_reply(const provider_reply& reply) {
    return model_reply{reply.text, canonical_stop_reason(reply), reply.refusal};
}

HANDOFF_INLINE model_reply model_reply_from_body(std::string_view body) {
    return to_model_reply(read_provider_reply(body));
}

} // namespace handoff
