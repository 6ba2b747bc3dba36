// SPDX-License-Identifier: MIT
#pragma once

// One schema object put into the form a provider reads, before the keyword matrix applies
// (rules.hpp: the cells marked `converted`). Each change keeps the schema's meaning or names
// what it loosens:
// - allOf of one member becomes the member, merged in (openai-python _pydantic.py does the same
//   for a one-member allOf), where the provider does not take allOf as written;
// - oneOf is sent as anyOf (Gemini's docs read oneOf like anyOf; anthropic-sdk-python's
//   transform_schema and pydantic-ai do the same), with a note: the provider does not hold the
//   branches exclusive;
// - const becomes a one-value enum where the provider has no const (Gemini);
// - keywords beside a $ref are wrapped, dropped or kept by the profile's ref_siblings.
// The receiver's walk for nulled optionals (nulled_optionals.hpp) applies the same function, so
// both see the schema the provider sees.

#include <handoff/detail/json/object_of_members.hpp>
#include <handoff/detail/json/pointer.hpp>
#include <handoff/detail/provider/keep_rules.hpp>
#include <handoff/detail/provider/rules.hpp>
#include <handoff/detail/provider/schema_note_kind.hpp>
#include <handoff/detail/schema/dialect.hpp>
#include <handoff/schema_dialect.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>   // find
#include <optional>    // optional
#include <string>      // string
#include <string_view> // string_view
#include <utility>     // move

namespace handoff::detail {

/// Keywords beside a $ref that say nothing about the value, and so are never reported.
[[nodiscard]] inline bool ref_sibling_is_annotation(std::string_view keyword) {
    return keyword == "description" || keyword == "title" || keyword == "$defs" || keyword == "definitions" ||
           std::find(annotation_keywords.begin(), annotation_keywords.end(), keyword) != annotation_keywords.end();
}

/// allOf [member] as the member itself, when none of the member's keywords is also beside the
/// allOf (then both hold, and a merge would lose one).
template <class Json>
[[nodiscard]] bool merge_single_all_of(Json& node) {
    const auto all = node.find("allOf");
    if (all == node.end() || !all->is_array() || all->size() != 1 || !(*all)[0].is_object()) {
        return false;
    }
    const Json member = (*all)[0];
    for (auto it = member.begin(); it != member.end(); ++it) {
        if (node.contains(it.key()) && it.key() != "description" && it.key() != "title") {
            return false;
        }
    }
    Json out = Json(Json::value_t::object);
    for (auto it = node.begin(); it != node.end(); ++it) {
        if (it.key() != "allOf") {
            out[it.key()] = it.value();
            continue;
        }
        for (auto m = member.begin(); m != member.end(); ++m) {
            if (!node.contains(m.key())) {
                out[m.key()] = m.value();
            }
        }
    }
    node = std::move(out);
    return true;
}

/// The keywords beside a $ref, by the profile's rule. `siblings_apply` is false for a schema
/// whose dialect ignores them (draft-04 to draft-07): they are removed without a report.
template <class Json, class Note>
void place_ref_siblings(const provider_profile& profile, Json& node, bool siblings_apply, const receiver_view& receiver,
                        const std::string& pointer, const Note& note) {
    const auto ref = node.find("$ref");
    if (ref == node.end() || node.size() == 1 || profile.siblings == ref_siblings::kept) {
        return;
    }
    Json alone = Json(Json::value_t::object);
    alone["$ref"] = *ref;
    const bool wrap = siblings_apply && !node.contains("anyOf") &&
                      (profile.siblings == ref_siblings::wrapped || profile.siblings == ref_siblings::inlined);
    if (wrap) {
        Json branches = Json(Json::value_t::array);
        branches.push_back(std::move(alone));
        Json out = Json(Json::value_t::object);
        for (auto it = node.begin(); it != node.end(); ++it) {
            if (it.key() == "$ref") {
                out["anyOf"] = branches;
            } else {
                out[it.key()] = it.value();
            }
        }
        node = std::move(out);
        return;
    }
    for (auto it = node.begin(); it != node.end() && siblings_apply; ++it) {
        if (it.key() != "$ref" && !ref_sibling_is_annotation(it.key())) {
            note(schema_note_kind::not_enforced, pointer, it.key(), it.value(),
                 std::string(profile.display_name) + " reads a $ref alone, not the keywords beside it" +
                     receiver.reading(it.key(), it.value()));
        }
    }
    node = std::move(alone);
}

/// prefixItems [A, B] with items X, for a provider without prefixItems: items {"anyOf": [A, B, X]}
/// (X left out when false), which every element of the tuple meets. Without an items schema the
/// elements after the prefix are free, so nothing is sent for them; either way the order of the
/// prefix is lost, and the note says so. openai-node's toStrictJsonSchema refuses an array
/// without items, so the tuple is never simply dropped.
template <class Json, class Note>
void tuple_as_items(const provider_profile& profile, Json& node, const std::string& pointer, const Note& note) {
    const Json prefix = node["prefixItems"];
    const auto items = node.find("items");
    const bool items_false = items != node.end() && items->is_boolean() && !items->template get<bool>();
    const bool bounded = items_false || (items != node.end() && items->is_object());
    if (!prefix.is_array() || prefix.empty() || !bounded) {
        return; // the provider matrix drops it, with its note
    }
    note(schema_note_kind::weakened, pointer, "prefixItems", prefix,
         std::string(profile.display_name) + " has no prefixItems: each element must match one of the tuple's "
                                             "schemas, in any order; the receiver still checks the order");
    Json branches = prefix;
    if (!items_false) {
        branches.push_back(*items);
    }
    Json any = Json(Json::value_t::object);
    any["anyOf"] = std::move(branches);
    Json out = Json(Json::value_t::object);
    for (auto it = node.begin(); it != node.end(); ++it) {
        if (it.key() == "prefixItems") {
            out["items"] = any;
        } else if (it.key() != "items") {
            out[it.key()] = it.value();
        }
    }
    node = std::move(out);
}

/// Whether the profile converts `keyword` before the matrix applies.
[[nodiscard]] inline bool converts(const provider_profile& profile, const char* keyword) {
    const keyword_cell* c = find_cell(profile, keyword);
    return c != nullptr && c->when == keep_when::converted;
}

/// Whether normalized() would change anything in `node`: most schema objects it leaves alone,
/// and those are not copied.
template <class Json>
[[nodiscard]] bool needs_normalizing(const provider_profile& profile, const Json& node) {
    if (profile.keep_everything || !node.is_object()) {
        return false;
    }
    const keyword_cell* all_of = find_cell(profile, "allOf");
    return (node.contains("allOf") && all_of != nullptr && all_of->when != keep_when::always) ||
           (node.contains("oneOf") && converts(profile, "oneOf")) ||
           (node.contains("const") && converts(profile, "const")) ||
           (node.contains("prefixItems") && converts(profile, "prefixItems")) ||
           (node.contains("$ref") && node.size() > 1 && profile.siblings != ref_siblings::kept);
}

/// `node` as the provider reads it (see the top of this file); `note` is called as
/// note(kind, pointer, keyword, value, text) for what loosens.
template <class Json, class Note>
[[nodiscard]] Json normalized(const provider_profile& profile, const Json& node, bool siblings_apply,
                              const receiver_view& receiver, const std::string& pointer, const Note& note) {
    if (!needs_normalizing(profile, node)) {
        return node;
    }
    Json out = node;
    const auto converts = [&profile](const char* keyword) { return detail::converts(profile, keyword); };
    const keyword_cell* all_of = find_cell(profile, "allOf");
    if (all_of != nullptr && all_of->when != keep_when::always) {
        static_cast<void>(merge_single_all_of(out));
    }
    if (converts("oneOf") && out.contains("oneOf") && !out.contains("anyOf")) {
        note(schema_note_kind::weakened, pointer, "oneOf", out["oneOf"],
             std::string(profile.display_name) + " reads oneOf as anyOf: the schema sent lets more than one branch "
                                                 "match; the receiver still checks that exactly one does");
        out = renamed(out, "oneOf", "anyOf");
    }
    if (converts("const") && out.contains("const") && !out.contains("enum")) {
        Json values = Json(Json::value_t::array);
        values.push_back(out["const"]);
        out = renamed(out, "const", "enum");
        out["enum"] = std::move(values);
    }
    if (converts("prefixItems") && out.contains("prefixItems")) {
        tuple_as_items(profile, out, pointer, note);
    }
    place_ref_siblings(profile, out, siblings_apply, receiver, pointer, note);
    return out;
}

/// The pointer into the schema as given of `keyword` in the normalised `node`: a keyword merged
/// from a one-member allOf lives at allOf/0, an anyOf made from oneOf at oneOf.
template <class Json>
[[nodiscard]] std::string origin_pointer(const Json& given, const std::string& pointer, const std::string& keyword) {
    if (!given.is_object() || given.contains(keyword)) {
        return pointer_child(pointer, keyword);
    }
    if (keyword == "anyOf" && given.contains("oneOf")) {
        return pointer_child(pointer, "oneOf");
    }
    if (keyword == "enum" && given.contains("const")) {
        return pointer_child(pointer, "const");
    }
    if (given.contains("allOf")) {
        return pointer_child(pointer_item(pointer_child(pointer, "allOf"), 0), keyword);
    }
    return pointer_child(pointer, keyword);
}

} // namespace handoff::detail
