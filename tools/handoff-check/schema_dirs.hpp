// SPDX-License-Identifier: MIT
#pragma once
// --schema-dir DIR, shared by the commands that read a task schema: the registry its `$ref`s are
// resolved in, built one way for checking, linting and prompting; and the task schema file's
// text, refused with the check's message when the check cannot read or parse it.

#include <handoff/detail/read_file.hpp>
#include <handoff/schema_error.hpp>
#include <handoff/schema_registry.hpp>

#include <cstddef>  // size_t
#include <optional> // optional
#include <string>   // string
#include <vector>   // vector

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

/// The text of the task schema file at `path`, at most `limit` + 1 bytes of it (read_file);
/// nullopt when it cannot be read. Text within `limit` is parsed the check's way too
/// (detail::parse_schema_file_text, what compiled_schema::from_file reads a file with), so a
/// file that is not valid JSON throws the check's own handoff::schema_error, word for word,
/// whichever command reads it. Text over `limit` is the caller's to refuse.
inline std::optional<std::string> read_task_schema_text(const std::string& path,
                                                        std::size_t limit = handoff::detail::unbounded_read) {
    std::optional<std::string> text = handoff::detail::read_file(path, limit);
    if (text && text->size() <= limit) {
        static_cast<void>(handoff::detail::parse_schema_file_text(*text, path));
    }
    return text;
}

} // namespace handoff_cli
