// SPDX-License-Identifier: MIT
#pragma once

// How lint, the prompts, fixtures and routing tables compile a schema: exactly as the receiver
// does (compiled_schema's own path, with a file's folders and a registry), so they accept the
// same schemas and refuse the others with the same schema_error.

#include <handoff/schema.hpp>

#include <nlohmann/json.hpp>

#include <cstddef>     // size_t
#include <cstdint>     // int32_t
#include <filesystem>  // path
#include <optional>    // optional
#include <string>      // string
#include <string_view> // string_view
#include <utility>     // move
#include <vector>      // vector

namespace handoff::detail {

struct compiled_schema_access {
    [[nodiscard]] static compiled_schema compile(const nlohmann::json& schema, const std::string& uri,
                                                 const schema_registry* registry,
                                                 std::vector<std::filesystem::path> folders,
                                                 const schema_options& options) {
        return compiled_schema::compile(schema, uri, registry, std::move(folders), options);
    }

    /// A schema taken from a larger one, at place `where` there (its root node's where_of),
    /// compiled on its own: its messages name its places as the larger schema's do.
    [[nodiscard]] static compiled_schema compile_part(const nlohmann::json& part, const std::string& where,
                                                      const schema_options& options) {
        return compiled_schema::compile(part, "", nullptr, {}, options, where);
    }
    [[nodiscard]] static const std::string& where_of(const compiled_schema& s, std::int32_t node) {
        return s.where_of(node);
    }

    /// A subschema of a compiled schema judged in place (compiled_schema::node_of).
    [[nodiscard]] static std::int32_t node_of(const compiled_schema& s, const nlohmann::json* part) {
        return s.node_of(part);
    }
    [[nodiscard]] static bool one_reading(const compiled_schema& s) noexcept { return s.one_reading(); }
    [[nodiscard]] static std::size_t node_count(const compiled_schema& s) noexcept { return s.node_count(); }
    /// `node` judged at `depth`, the depth of the walk that reaches it (compiled_schema::accepts_at).
    [[nodiscard]] static bool accepts_at(const compiled_schema& s, std::int32_t node, const nlohmann::json& value,
                                         int depth = 0) {
        return s.accepts_at(node, value, depth);
    }
    [[nodiscard]] static problem_list validate_at(const compiled_schema& s, std::int32_t node,
                                                  const nlohmann::json& value, std::string_view base_pointer,
                                                  step step_of_problems, int depth = 0) {
        return s.validate_at(node, value, base_pointer, step_of_problems, codes::task_schema, depth);
    }
    [[nodiscard]] static std::int32_t root_node(const compiled_schema& s) noexcept { return s.root_node(); }

    /// The whole schema's judgment with every walk remembered from the first one on, which must
    /// be the judgment made without memory (compiled_schema::walks_before_memo).
    [[nodiscard]] static bool accepts_remembering(const compiled_schema& s, const nlohmann::json& value) {
        return s.accepts_at(s.root_node(), value, 0, 0);
    }
    [[nodiscard]] static problem_list validate_remembering(const compiled_schema& s, const nlohmann::json& value) {
        return s.validate_at(s.root_node(), value, "", step::task_schema, codes::task_schema, 0, 0);
    }
};

/// The dialect of `task` (a task schema), read exactly as the receiver reads it with `read_as`
/// (compiled_schema::dialect_of: `$schema`, else read_as.dialect, else the keywords the schema
/// uses); nullopt with no task object, or a `$schema` the receiver refuses (compiling the task
/// says so, not the rewrite).
template <class Json>
[[nodiscard]] std::optional<schema_dialect> task_dialect(const Json* task, const schema_options& read_as) {
    if (task == nullptr || !task->is_object()) {
        return std::nullopt;
    }
    try {
        return compiled_schema::dialect_of(nlohmann::json(*task), read_as);
    } catch (const schema_error&) {
        return std::nullopt;
    }
}

} // namespace handoff::detail
