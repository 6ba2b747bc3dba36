// SPDX-License-Identifier: MIT
#pragma once

// Where a provider's strict schema put nulls that mean "absent", and their removal from a reply
// (provider_nulls.hpp tells why). The places come from the provider rewrite's own rules
// (rewrite.hpp), walked over the schema as given on nlohmann::json without building the
// rewrite, so the receiver (receiver_options::from) and remove_nulled_optionals() apply the same
// rule and a file that receives never instantiates ordered_json or the rewriter.

#include <handoff/config.hpp>
#include <handoff/provider.hpp>

#include <nlohmann/json.hpp>

#include <cstddef> // size_t
#include <string>  // string
#include <vector>  // vector

namespace handoff::detail {

/// A place in a reply: property names, "*" for every array item.
using instance_path = std::vector<std::string>;

/// Adds the reply place of a made_nullable note's schema pointer to `paths`: the pointer's
/// properties/NAME steps are keys, its items steps "*" (every array item), its anyOf, oneOf and
/// allOf branches the same place. A pointer through any other keyword ($defs, definitions,
/// patternProperties, ...) names no fixed place, and one that does not end at a property names
/// no optional property: those add nothing.
void add_nulled_path(std::vector<instance_path>& paths, const std::string& schema_pointer);

/// The places where `target`'s schema for the envelope (with `task_schema` when given) made an
/// optional property nullable: the made_nullable notes of provider_schema(target, task_schema).
[[nodiscard]] std::vector<instance_path> nulled_optional_paths(provider target, const nlohmann::json* task_schema);

/// Removes the last key of `path` below `node` wherever it is null.
template <class Json>
void remove_null_at(Json& node, const instance_path& path, std::size_t depth) {
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
void remove_nulls_at(Json& reply, const std::vector<instance_path>& paths) {
    for (const instance_path& path : paths) {
        remove_null_at(reply, path, 0);
    }
}

} // namespace handoff::detail

#if !defined(HANDOFF_COMPILED_LIB)
#include <handoff/detail/provider/nulled_optionals-inl.hpp>
#endif
