// SPDX-License-Identifier: MIT
#pragma once

// remove_nulled_optionals()' definitions: inline in every file header-only, compiled once in
// <handoff/impl/src.hpp> otherwise (config.hpp).

#include <handoff/detail/json_pointer.hpp>
#include <handoff/provider_nulls.hpp>
#include <handoff/provider_schema.hpp>

#include <nlohmann/json.hpp>

#include <cstddef>     // size_t
#include <string>      // string
#include <string_view> // string_view
#include <vector>      // vector

namespace handoff {
namespace detail {

/// The instance path a schema pointer stands for: property names, "*" for every array item.
/// anyOf branches are the same instance; a pointer through $defs or definitions names no fixed
/// place in the instance, so it yields nothing.
[[nodiscard]] HANDOFF_INLINE std::vector<std::string> instance_path(const std::string& schema_pointer) {
    const std::vector<std::string> tokens = pointer_tokens(schema_pointer);
    std::vector<std::string> path;
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        if (tokens[i] == "properties" && i + 1 < tokens.size()) {
            path.push_back(tokens[++i]);
        } else if (tokens[i] == "anyOf" || tokens[i] == "oneOf" || tokens[i] == "allOf") {
            ++i; // the branch index
        } else if (tokens[i] == "items") {
            path.emplace_back("*");
        } else {
            return {};
        }
    }
    return path;
}

/// Removes the last key of `path` below `node` wherever it is null.
template <class Json>
void remove_null_at(Json& node, const std::vector<std::string>& path, std::size_t depth) {
    if (depth + 1 == path.size()) {
        const auto it = node.is_object() ? node.find(path[depth]) : node.end();
        if (node.is_object() && it != node.end() && it->is_null()) {
            node.erase(it);
        }
        return;
    }
    if (path[depth] == "*" && node.is_array()) {
        for (auto& item : node) {
            remove_null_at(item, path, depth + 1);
        }
    } else if (node.is_object() && node.contains(path[depth])) {
        remove_null_at(node[path[depth]], path, depth + 1);
    }
}

template <class Json>
void remove_nulled_optionals_in(Json& reply, const provider_schema_result& sent) {
    for (const schema_note& note : sent.notes) {
        if (note.kind != schema_note_kind::made_nullable) {
            continue;
        }
        const std::vector<std::string> path = instance_path(note.pointer);
        if (!path.empty() && path.back() != "*") {
            remove_null_at(reply, path, 0);
        }
    }
}

} // namespace detail

HANDOFF_INLINE void remove_nulled_optionals(nlohmann::ordered_json& reply, const provider_schema_result& sent) {
    detail::remove_nulled_optionals_in(reply, sent);
}

HANDOFF_INLINE void remove_nulled_optionals(nlohmann::json& reply, const provider_schema_result& sent) {
    detail::remove_nulled_optionals_in(reply, sent);
}

HANDOFF_INLINE std::string remove_nulled_optionals(std::string_view reply_text, const provider_schema_result& sent) {
    if (sent.count(schema_note_kind::made_nullable) == 0) {
        return std::string(reply_text);
    }
    nlohmann::ordered_json reply = nlohmann::ordered_json::parse(reply_text, nullptr, false);
    if (reply.is_discarded()) {
        return std::string(reply_text);
    }
    remove_nulled_optionals(reply, sent);
    return reply.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

} // namespace handoff
