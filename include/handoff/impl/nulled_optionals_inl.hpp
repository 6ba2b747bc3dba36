// SPDX-License-Identifier: MIT
#pragma once

// nulled_optionals.hpp's definitions: inline in every file header-only, compiled once in
// <handoff/impl/src.hpp> otherwise (config.hpp).

#include <handoff/detail/json_pointer.hpp>
#include <handoff/detail/nulled_optionals.hpp>
#include <handoff/detail/provider_rewrite.hpp>
#include <handoff/detail/provider_rules.hpp>
#include <handoff/detail/schema_note_kind.hpp>

#include <nlohmann/json.hpp>

#include <cstddef>     // size_t
#include <string>      // string
#include <string_view> // string_view
#include <utility>     // move
#include <vector>      // vector

namespace handoff::detail {

HANDOFF_INLINE void add_nulled_path(std::vector<instance_path>& paths, const std::string& schema_pointer) {
    const std::vector<std::string> tokens = pointer_tokens(schema_pointer);
    instance_path path;
    bool at_property = false;
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        at_property = tokens[i] == "properties" && i + 1 < tokens.size();
        if (at_property) {
            path.push_back(tokens[++i]);
        } else if (tokens[i] == "anyOf" || tokens[i] == "oneOf" || tokens[i] == "allOf") {
            ++i; // the branch index
        } else if (tokens[i] == "items") {
            path.emplace_back("*");
        } else {
            return;
        }
    }
    if (at_property) {
        paths.push_back(std::move(path));
    }
}

HANDOFF_INLINE std::vector<instance_path> nulled_optional_paths(provider target, const nlohmann::json* task_schema) {
    std::vector<instance_path> paths;
    const auto collect = [&paths](schema_note_kind kind, const std::string& pointer, std::string_view,
                                  const nlohmann::json&, const std::string&) {
        if (kind == schema_note_kind::made_nullable) {
            add_nulled_path(paths, pointer);
        }
    };
    const rewriter<nlohmann::json, decltype(collect)> rewrite{profile_of(target), collect};
    (void)rewrite.rewrite(merged_schema(task_schema), "");
    return paths;
}

} // namespace handoff::detail
