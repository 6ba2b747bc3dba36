// SPDX-License-Identifier: MIT
#pragma once

// The note provider_schema() writes for every change it makes to the schema it sends. Apart
// from the rewrite itself (rewrite.hpp), so that provider_schema.hpp can declare its result
// without the provider matrix and the walk.

#include <handoff/detail/provider/schema_note_kind.hpp>

#include <nlohmann/json.hpp>

#include <string> // string

namespace handoff {

struct schema_note {
    schema_note_kind kind = schema_note_kind::not_enforced;
    /// JSON pointer into the merged draft-07 schema (empty: the whole schema).
    std::string pointer;
    std::string keyword;
    nlohmann::ordered_json value;
    std::string note;
};

/// A definition in the root `$defs` of a schema sent: its name there, and the pointer into the
/// merged schema as given of the schema it holds (where notes about it point).
struct schema_definition {
    std::string name;
    std::string origin;
};

} // namespace handoff
