// SPDX-License-Identifier: MIT
#pragma once

// nulled_optionals.hpp's definitions: inline in every file header-only, compiled once in
// <handoff/src.hpp> otherwise (config.hpp).

#include <handoff/detail/provider/hoist_defs.hpp>
#include <handoff/detail/provider/keep_rules.hpp>
#include <handoff/detail/provider/normalize.hpp>
#include <handoff/detail/provider/nulled_optionals.hpp>
#include <handoff/detail/provider/rewrite.hpp>
#include <handoff/detail/provider/rules.hpp>
#include <handoff/detail/schema/access.hpp>

#include <nlohmann/json.hpp>

#include <algorithm> // find
#include <cstddef>   // size_t
#include <map>       // map
#include <string>    // string
#include <vector>    // vector

namespace handoff::detail {

HANDOFF_INLINE std::size_t nulled_places::add_place() {
    places_.emplace_back();
    return places_.size() - 1;
}

HANDOFF_INLINE std::size_t nulled_places::property(std::size_t at, const std::string& key) {
    if (const auto found = places_[at].properties.find(key); found != places_[at].properties.end()) {
        return found->second;
    }
    const std::size_t made = add_place();
    places_[at].properties.emplace(key, made);
    return made;
}

HANDOFF_INLINE std::size_t nulled_places::items(std::size_t at) {
    if (places_[at].items == null_place::none) {
        const std::size_t made = add_place();
        places_[at].items = made;
    }
    return places_[at].items;
}

HANDOFF_INLINE void nulled_places::read_also(std::size_t at, std::size_t definition) {
    std::vector<std::size_t>& same = places_[at].same_value;
    if (definition != at && std::find(same.begin(), same.end(), definition) == same.end()) {
        same.push_back(definition);
    }
}

HANDOFF_INLINE void nulled_places::add_nulled(std::size_t at, const std::string& key) {
    nulled_count_ += places_[at].nulled.insert(key).second ? 1 : 0;
}

HANDOFF_INLINE std::vector<std::size_t> nulled_places::closure(const std::vector<std::size_t>& at) const {
    if (at.size() == 1 && places_[at.front()].same_value.empty()) {
        return at; // most places: no $ref to follow
    }
    std::vector<bool> seen(places_.size(), false);
    std::vector<std::size_t> out;
    for (const std::size_t start : at) {
        if (!seen[start]) {
            seen[start] = true;
            out.push_back(start);
        }
    }
    // A definition that only refers on (a $ref to a $ref, or to itself) ends here: each place
    // enters once.
    for (std::size_t i = 0; i < out.size(); ++i) {
        for (const std::size_t next : places_[out[i]].same_value) {
            if (!seen[next]) {
                seen[next] = true;
                out.push_back(next);
            }
        }
    }
    return out;
}

HANDOFF_INLINE bool nulled_places::nulled(const std::vector<std::size_t>& at, const std::string& key) const {
    return std::any_of(at.begin(), at.end(), [&](std::size_t p) { return places_[p].nulled.count(key) != 0; });
}

HANDOFF_INLINE std::vector<std::size_t> nulled_places::property_places(const std::vector<std::size_t>& at,
                                                                       const std::string& key) const {
    std::vector<std::size_t> out;
    for (const std::size_t p : at) {
        if (const auto found = places_[p].properties.find(key); found != places_[p].properties.end()) {
            out.push_back(found->second);
        }
    }
    return out;
}

HANDOFF_INLINE std::vector<std::size_t> nulled_places::item_places(const std::vector<std::size_t>& at) const {
    std::vector<std::size_t> out;
    for (const std::size_t p : at) {
        if (places_[p].items != null_place::none) {
            out.push_back(places_[p].items);
        }
    }
    return out;
}

/// The receiver's walk: the rewrite's own walk (normalized, cell_of, keeps_keyword) over the
/// merged schema with its definitions hoisted, as provider_schema() walks it, and its
/// require_all rule (a property the kept "required" does not list, whose schema as sent does
/// not accept null), without writing the rewrite. A file that receives then instantiates no
/// rewriter, which builds a whole new schema.
struct nullable_place_walk {
    const provider_profile& profile;
    bool siblings_apply;
    const std::map<std::string, std::size_t>& definitions;
    nulled_places& places;

    void walk(const nlohmann::json& given, std::size_t at) const {
        if (!given.is_object()) {
            return;
        }
        const auto quiet = [](auto&&...) {};
        nlohmann::json changed;
        if (needs_normalizing(profile, given)) {
            changed = normalized(profile, given, siblings_apply, receiver_view{}, "", quiet);
        }
        const nlohmann::json& node = changed.is_null() ? given : changed;
        const nlohmann::json* properties = nullptr;
        const nlohmann::json* required = nullptr;
        for (auto item = node.begin(); item != node.end(); ++item) {
            if (!keeps_keyword(profile, cell_of(profile, item.key()), item.value(), node)) {
                continue;
            }
            properties = item.key() == "properties" ? &item.value() : properties;
            required = item.key() == "required" ? &item.value() : required;
            follow_keyword(item.key(), item.value(), at, places, definitions,
                           [this](const nlohmann::json& child, std::size_t place) { walk(child, place); });
        }
        if (profile.require_all && properties != nullptr && properties->is_object()) {
            add_nulled_properties(*properties, required, at);
        }
    }

    void add_nulled_properties(const nlohmann::json& properties, const nlohmann::json* required, std::size_t at) const {
        const auto quiet = [](auto&&...) {};
        const listed_names names(required);
        for (auto property = properties.begin(); property != properties.end(); ++property) {
            const bool listed = names.lists(property.key());
            const bool normalizes = !listed && needs_normalizing(profile, property.value());
            const nlohmann::json as_read =
                normalizes ? normalized(profile, property.value(), siblings_apply, receiver_view{}, "", quiet)
                           : nlohmann::json();
            if (!listed && !accepts_null(normalizes ? as_read : property.value(), &profile)) {
                places.add_nulled(at, property.key());
            }
        }
    }
};

HANDOFF_INLINE nulled_places nulled_optional_places(provider target, const nlohmann::json* task_schema,
                                                    const schema_options& read_as) {
    const provider_profile& profile = profile_of(target);
    nulled_places places;
    if (!profile.require_all || profile.keep_everything) {
        return places; // only a provider that requires every property puts nulls in
    }
    const std::optional<schema_dialect> dialect = task_dialect(task_schema, read_as);
    nlohmann::json merged = merged_schema(task_schema, dialect);
    const auto quiet = [](auto&&...) {};
    const std::vector<hoisted_definition> hoisted = hoist_definitions(merged, quiet);
    std::map<std::string, std::size_t> definitions;
    for (const hoisted_definition& d : hoisted) {
        definitions.emplace(d.name, places.add_place());
    }
    const nullable_place_walk walk{profile, ref_siblings_apply(dialect), definitions, places};
    walk.walk(merged, 0);
    for (const hoisted_definition& d : hoisted) {
        walk.walk(merged["$defs"][d.name], definitions[d.name]);
    }
    return places;
}

} // namespace handoff::detail
