// SPDX-License-Identifier: MIT
#pragma once

// The note provider_schema() writes for every change it makes to the schema it sends. Apart
// from the rewrite itself (provider_rewrite.hpp), so that provider_schema.hpp can declare its
// result without the keyword tables and the walk.

#include <nlohmann/json.hpp>

#include <cstdint>     // uint8_t
#include <string>      // string
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
};

[[nodiscard]] constexpr std::string_view to_string(schema_note_kind k) noexcept {
    switch (k) {
    case schema_note_kind::not_enforced: return "not_enforced";
    case schema_note_kind::tightened: return "tightened";
    case schema_note_kind::made_nullable: return "made_nullable";
    case schema_note_kind::limit_exceeded: return "limit_exceeded";
    }
    return "?";
}

struct schema_note {
    schema_note_kind kind = schema_note_kind::not_enforced;
    /// JSON pointer into the merged draft-07 schema (empty: the whole schema).
    std::string pointer;
    std::string keyword;
    nlohmann::ordered_json value;
    std::string note;
};

} // namespace handoff
