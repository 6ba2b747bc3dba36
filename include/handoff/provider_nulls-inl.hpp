// SPDX-License-Identifier: MIT
#pragma once

// remove_nulled_optionals()' definitions: inline in every file header-only, compiled once in
// <handoff/src.hpp> otherwise (config.hpp).

#include <handoff/detail/json/depth.hpp>
#include <handoff/detail/json/ordered_parse.hpp>
#include <handoff/detail/json/pointer.hpp>
#include <handoff/detail/provider/nulled_optionals.hpp>
#include <handoff/provider_nulls.hpp>
#include <handoff/provider_schema.hpp>

#include <nlohmann/json.hpp>

#include <cstddef>     // size_t
#include <map>         // map
#include <string>      // string
#include <string_view> // string_view
#include <utility>     // pair
#include <vector>      // vector

namespace handoff {
namespace detail {

/// Where below the place `at` the schema pointer `tokens[first..]` names an optional property
/// made nullable: properties/NAME steps are keys, items every item (a tuple's index too),
/// anyOf, oneOf and allOf branches the same place. A pointer through any other keyword names no
/// place of the reply from here.
HANDOFF_INLINE void add_noted_place(nulled_places& places, std::size_t at, const std::vector<std::string>& tokens,
                                    std::size_t first) {
    for (std::size_t i = first; i < tokens.size();) {
        if (tokens[i] == "properties" && i + 2 == tokens.size()) {
            places.add_nulled(at, tokens[i + 1]);
            return;
        }
        if (tokens[i] == "properties" && i + 1 < tokens.size()) {
            at = places.property(at, tokens[i + 1]);
            i += 2;
        } else if ((tokens[i] == "anyOf" || tokens[i] == "oneOf" || tokens[i] == "allOf") && i + 1 < tokens.size()) {
            i += 2;
        } else if (tokens[i] == "items") {
            at = places.items(at);
            i += i + 1 < tokens.size() && pointer_index(tokens[i + 1]) ? 2 : 1;
        } else {
            return;
        }
    }
}

/// The pattern of `sent`: its made_nullable notes, each read from the root and from every
/// definition it lies in (a note points into the schema as given, a definition at its old
/// place), joined by the `$ref`s of the schema sent.
[[nodiscard]] HANDOFF_INLINE nulled_places nulled_places_of(const provider_schema_result& sent) {
    nulled_places places;
    std::map<std::string, std::size_t> definitions;
    std::map<std::string, std::size_t> origins{{"", 0}}; // each base's pointer, the root's ""
    for (const schema_definition& d : sent.definitions) {
        const std::size_t place = places.add_place();
        definitions.emplace(d.name, place);
        // Written as the prefixes below are: a copy's origin is a user's `$ref` text.
        std::string canonical;
        for (const std::string& token : pointer_tokens(d.origin)) {
            append_pointer_token(canonical, token);
        }
        origins.emplace(canonical, place);
    }
    for (const schema_note& note : sent.notes) {
        if (note.kind != schema_note_kind::made_nullable) {
            continue;
        }
        // Each prefix of the note's pointer that is a base's: a lookup a token, not a pass over
        // every definition.
        const std::vector<std::string> tokens = pointer_tokens(note.pointer);
        std::string prefix;
        for (std::size_t length = 0; length <= tokens.size(); ++length) {
            if (const auto base = origins.find(prefix); base != origins.end()) {
                add_noted_place(places, base->second, tokens, length);
            }
            if (length < tokens.size()) {
                append_pointer_token(prefix, tokens[length]);
            }
        }
    }
    const auto follow = [&places, &definitions](const auto& self, const nlohmann::ordered_json& node,
                                                std::size_t at) -> void {
        for (auto item = node.begin(); item != node.end() && node.is_object(); ++item) {
            follow_keyword(
                item.key(), item.value(), at, places, definitions,
                [&self](const nlohmann::ordered_json& child, std::size_t place) { self(self, child, place); });
        }
    };
    follow(follow, sent.schema, 0);
    if (const auto defs = sent.schema.find("$defs"); defs != sent.schema.end() && defs->is_object()) {
        for (auto it = defs->begin(); it != defs->end(); ++it) { // by name: one pass, no lookup from the first
            if (const auto place = definitions.find(it.key()); place != definitions.end()) {
                follow(follow, it.value(), place->second);
            }
        }
    }
    return places;
}

template <class Json>
void remove_nulled_optionals_in(Json& reply, const provider_schema_result& sent) {
    remove_nulls_at(reply, nulled_places_of(sent));
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
    nlohmann::ordered_json reply = detail::parse_ordered(reply_text);
    // Written out again below: a reply nested past max_recursed_depth comes back as it was (a
    // receiver, which holds max_depth at that bound, refuses it at step 1 anyway).
    if (reply.is_discarded() || detail::nests_deeper_than(reply, detail::max_recursed_depth)) {
        return std::string(reply_text);
    }
    remove_nulled_optionals(reply, sent);
    return reply.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

} // namespace handoff
