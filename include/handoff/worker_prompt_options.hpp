// SPDX-License-Identifier: MIT
#pragma once

#include <handoff/schema.hpp>

#include <cstddef> // size_t

namespace handoff {

/// How worker_prompt describes a task schema: the bounds on what it writes, and how it reads
/// the schema.
struct worker_prompt_options {
    /// Values listed per enum before "... and N more".
    std::size_t max_enum_values = 64;
    /// Levels of nested objects and arrays described; deeper ones say "(nested too deep to list)".
    std::size_t max_depth = 8;
    /// A schema "description" is quoted up to this many bytes (cut on a UTF-8 boundary).
    std::size_t max_description_bytes = 400;
    /// Schemas described in all (fields, items, branches, each use of a definition counted);
    /// past it, each says "(more than N parts to list: see the schema)". Definitions that refer
    /// to each other many times over would otherwise make a prompt exponential in their depth.
    std::size_t max_described_schemas = 2000;
    /// Bytes of the schema's values quoted in all (each `const`, enum value, pattern, format and
    /// required key name, at each use of a definition); past it, each part still to describe
    /// says "(more than N bytes of values quoted: see the schema)", and an enum lists no more
    /// values. A long `const` in a definition used thousands of times would otherwise make a
    /// prompt of gigabytes.
    std::size_t max_quoted_bytes = std::size_t{1} << 20;
    /// How the task schema is read, as the receiver's receiver_options::schema reads it: the
    /// dialect of a schema without `$schema`. The prompt describes only a schema the receiver
    /// compiles with these options.
    schema_options schema{};
};

} // namespace handoff
