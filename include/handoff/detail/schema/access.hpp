// SPDX-License-Identifier: MIT
#pragma once

// How lint, the prompts, fixtures and routing tables compile a schema: exactly as the receiver
// does (compiled_schema's own path, with a file's folders and a registry), so they accept the
// same schemas and refuse the others with the same schema_error.

#include <handoff/schema.hpp>

#include <nlohmann/json.hpp>

#include <filesystem> // path
#include <string>     // string
#include <utility>    // move
#include <vector>     // vector

namespace handoff::detail {

struct compiled_schema_access {
    [[nodiscard]] static compiled_schema compile(const nlohmann::json& schema, const std::string& uri,
                                                 const schema_registry* registry,
                                                 std::vector<std::filesystem::path> folders,
                                                 const schema_options& options) {
        return compiled_schema::compile(schema, uri, registry, std::move(folders), options);
    }
};

} // namespace handoff::detail
