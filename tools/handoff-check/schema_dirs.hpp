// SPDX-License-Identifier: MIT
#pragma once
// --schema-dir DIR, shared by the commands that read a task schema: the registry its `$ref`s are
// resolved in, built one way for checking, linting and prompting.

#include <handoff/schema_registry.hpp>

#include <string> // string
#include <vector> // vector

namespace handoff_cli {

/// The registry a task schema file is read with: every *.json under each --schema-dir, by file
/// URI and by its own $id. Files beside the schema file are found through its file:// URI
/// (compiled_schema::from_file, schema_registry::file_uri), not through the registry. Throws
/// handoff::schema_error for a folder or a file in it that cannot be read.
inline handoff::schema_registry schema_registry_of(const std::vector<std::string>& schema_dirs) {
    handoff::schema_registry registry;
    for (const std::string& dir : schema_dirs) {
        registry.add_directory(dir);
    }
    return registry;
}

} // namespace handoff_cli
