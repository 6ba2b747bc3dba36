// SPDX-License-Identifier: MIT
#pragma once

// What a note of provider_schema() says, apart from the note itself (schema_note.hpp), so that
// the rewrite can be used without the note's ordered_json value.

#include <handoff/enum_names.hpp>

#include <array>       // array
#include <cstddef>     // size_t
#include <cstdint>     // uint8_t
#include <string_view> // string_view

namespace handoff {

/// What a note says about the schema that is sent.
enum class schema_note_kind : std::uint8_t {
    /// A keyword was removed: the provider will not enforce it. The note's text ends with what
    /// the receiver does with it: checks it, or not either (a keyword no dialect defines).
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
inline constexpr std::size_t schema_note_kind_count = 6;
template <>
struct enum_names<schema_note_kind> {
    static constexpr std::array<std::string_view, schema_note_kind_count> names{
        "not_enforced", "tightened", "made_nullable", "limit_exceeded", "weakened", "near_limit"};
};

} // namespace handoff
