// SPDX-License-Identifier: MIT
#pragma once

// What a note of provider_schema() says, apart from the note itself (schema_note.hpp), so that
// the rewrite can be used without the note's ordered_json value.

#include <cstdint>     // uint8_t
#include <string_view> // string_view

namespace handoff {

/// What a note says about the schema that is sent.
enum class schema_note_kind : std::uint8_t {
    /// A constraint was removed: the provider will not enforce it; the receiver still checks it.
    not_enforced,
    /// The provider's schema is stricter than the original (an object closed).
    tightened,
    /// An optional property became required and nullable (OpenAI strict mode): the model sends
    /// null for "absent", which the receiver refuses where the original schema had no null.
    made_nullable,
    /// The schema is over a documented provider limit: `keyword` names the limit, `value` holds
    /// {"count", "limit"}. The provider would refuse the request.
    limit_exceeded,
    /// A keyword was sent in a weaker form the provider takes (oneOf as anyOf): the provider
    /// enforces less than the keyword says; the receiver still checks all of it.
    weakened,
    /// The schema nears a size the provider refuses without publishing a number (its users'
    /// reports): `keyword` names the warning point, `value` holds {"count", "limit"}. A warning:
    /// the request may still be taken.
    near_limit,
};

[[nodiscard]] constexpr std::string_view to_string(schema_note_kind k) noexcept {
    switch (k) {
    case schema_note_kind::not_enforced: return "not_enforced";
    case schema_note_kind::tightened: return "tightened";
    case schema_note_kind::made_nullable: return "made_nullable";
    case schema_note_kind::limit_exceeded: return "limit_exceeded";
    case schema_note_kind::weakened: return "weakened";
    case schema_note_kind::near_limit: return "near_limit";
    }
    return "?";
}

} // namespace handoff
