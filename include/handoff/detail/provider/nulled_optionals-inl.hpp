// SPDX-License-Identifier: MIT
#pragma once

// nulled_optionals.hpp's definitions: inline in every file header-only, compiled once in
// <handoff/src.hpp> otherwise (config.hpp).

#include <handoff/detail/json/pointer.hpp>
#include <handoff/detail/provider/keep_rules.hpp>
#include <handoff/detail/provider/normalize.hpp>
#include <handoff/detail/provider/nulled_optionals.hpp>
#include <handoff/detail/provider/rewrite.hpp>
#include <handoff/detail/provider/rules.hpp>

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

/// The places under `given` (at `pointer`) that the rewrite for `profile` makes nullable, found
/// without writing the rewrite: its walk (normalized, cell_of, keeps_keyword, descent_of) over
/// the schema as given, and its require_all rule (a property the kept "required" does not list,
/// whose schema as sent does not accept null). A file that receives then instantiates no
/// rewriter, which builds a whole new schema. Definitions are not walked: a place below one is
/// no fixed place in a reply (add_nulled_path), wherever it is hoisted to.
HANDOFF_INLINE void add_nullable_places(const provider_profile& profile, const nlohmann::json& given,
                                        const std::string& pointer, std::vector<instance_path>& paths) {
    if (!given.is_object()) {
        return;
    }
    const auto quiet = [](auto&&...) {};
    nlohmann::json changed;
    if (needs_normalizing(profile, given)) {
        changed = normalized(profile, given, true, pointer, quiet);
    }
    const nlohmann::json& node = changed.is_null() ? given : changed;
    const nlohmann::json* properties = nullptr;
    const nlohmann::json* required = nullptr;
    for (auto item = node.begin(); item != node.end(); ++item) {
        const std::string& keyword = item.key();
        const nlohmann::json& value = item.value();
        if (!keeps_keyword(profile, cell_of(profile, keyword), value, node)) {
            continue;
        }
        properties = keyword == "properties" ? &value : properties;
        required = keyword == "required" ? &value : required;
        const std::string here = origin_pointer(given, pointer, keyword);
        switch (descent_of(keyword, value)) {
        case descent::members:
            for (auto child = value.begin(); child != value.end(); ++child) {
                add_nullable_places(profile, child.value(), pointer_child(here, child.key()), paths);
            }
            break;
        case descent::items:
            for (std::size_t i = 0; i < value.size(); ++i) {
                add_nullable_places(profile, value[i], pointer_item(here, i), paths);
            }
            break;
        case descent::value: add_nullable_places(profile, value, here, paths); break;
        case descent::none: break;
        }
    }
    if (!profile.require_all || properties == nullptr || !properties->is_object()) {
        return;
    }
    for (auto property = properties->begin(); property != properties->end(); ++property) {
        const bool listed = required != nullptr && lists_name(*required, property.key());
        const bool normalizes = !listed && needs_normalizing(profile, property.value());
        const nlohmann::json as_read =
            normalizes ? normalized(profile, property.value(), true, pointer, quiet) : nlohmann::json();
        if (!listed && !accepts_null(normalizes ? as_read : property.value(), &profile)) {
            add_nulled_path(paths, pointer_child(pointer_child(pointer, "properties"), property.key()));
        }
    }
}

HANDOFF_INLINE std::vector<instance_path> nulled_optional_paths(provider target, const nlohmann::json* task_schema) {
    std::vector<instance_path> paths;
    add_nullable_places(profile_of(target), merged_schema(task_schema), "", paths);
    return paths;
}

} // namespace handoff::detail
