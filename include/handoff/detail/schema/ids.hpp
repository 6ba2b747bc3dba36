// SPDX-License-Identifier: MIT
#pragma once

// Where draft-07 finds a schema from a URI: the `$id`s a document declares (a new base URI, or
// a location-independent "#name"), and JSON pointers walked from a document root, each `$id`
// on the way changing the base. A `$id` beside a `$ref` is ignored, as draft-07 ignores every
// sibling of `$ref`; `$id`s are only looked for where a schema can stand (inside `enum` or an
// unknown keyword, `{"$id": ...}` is data).

#include <handoff/detail/json/pointer.hpp>
#include <handoff/detail/text.hpp>
#include <handoff/detail/schema/uri.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>   // min
#include <cstdint>     // uint8_t
#include <map>         // map
#include <optional>    // optional
#include <string>      // string
#include <string_view> // string_view
#include <utility>     // move

namespace handoff::detail {

/// A schema found by URI: the JSON, the base URI in force around it (its own `$id` not yet
/// applied: compiling it applies that), and where it is, for messages ("uri#/pointer").
struct schema_location {
    const nlohmann::json* schema = nullptr;
    std::string parent_base;
    std::string where;
};

/// Keywords whose value is a schema, an array of schemas, or an object of schemas.
enum class subschema_shape : std::uint8_t { single, array, map, single_or_array, map_or_array };

struct subschema_keyword {
    std::string_view name;
    subschema_shape shape;
};

inline constexpr subschema_keyword subschema_keywords[] = {
    {"additionalItems", subschema_shape::single},
    {"additionalProperties", subschema_shape::single},
    {"allOf", subschema_shape::array},
    {"anyOf", subschema_shape::array},
    {"contains", subschema_shape::single},
    {"definitions", subschema_shape::map},
    {"dependencies", subschema_shape::map_or_array},
    {"else", subschema_shape::single},
    {"if", subschema_shape::single},
    {"items", subschema_shape::single_or_array},
    {"not", subschema_shape::single},
    {"oneOf", subschema_shape::array},
    {"patternProperties", subschema_shape::map},
    {"properties", subschema_shape::map},
    {"propertyNames", subschema_shape::single},
    {"then", subschema_shape::single},
    {"$defs", subschema_shape::map},
};

/// "uri#" + pointer, or the bare pointer for the document handoff was given without a URI.
[[nodiscard]] inline std::string location_of(std::string_view document_uri, std::string_view pointer) {
    return document_uri.empty() ? std::string(pointer) : std::string(document_uri) + "#" + std::string(pointer);
}

/// The base URI inside `schema` given the one around it.
[[nodiscard]] inline std::string base_inside(const nlohmann::json& schema, const std::string& parent_base) {
    if (!schema.is_object() || schema.contains("$ref")) {
        return parent_base;
    }
    const auto id = schema.find("$id");
    if (id == schema.end() || !id->is_string()) {
        return parent_base;
    }
    return split_fragment(resolve_uri(parent_base, id->get_ref<const std::string&>())).document;
}

/// Every `$id` of the documents scanned, by absolute URI ("doc" or "doc#name").
class id_index {
public:
    void scan(const nlohmann::json& root, const std::string& base, const std::string& document_uri) {
        scan_at(root, base, document_uri, "", 0);
    }

    [[nodiscard]] const schema_location* find(const std::string& uri) const {
        const auto it = ids_.find(uri);
        return it == ids_.end() ? nullptr : &it->second;
    }

private:
    void scan_at(const nlohmann::json& s, const std::string& parent_base, const std::string& doc,
                 const std::string& pointer, int depth) {
        if (!s.is_object() || depth > 1000) {
            return; // deeper than any schema handoff compiles (the compiler reports that)
        }
        const std::string base = base_inside(s, parent_base);
        if (const auto id = s.find("$id"); id != s.end() && id->is_string() && !s.contains("$ref")) {
            const std::string full = resolve_uri(parent_base, id->get_ref<const std::string&>());
            const uri_split parts = split_fragment(full);
            const std::string key = parts.fragment.empty() ? parts.document : full;
            ids_.emplace(key, schema_location{&s, parent_base, location_of(doc, pointer)});
        }
        for (const subschema_keyword& k : subschema_keywords) {
            const auto it = s.find(k.name);
            if (it == s.end()) {
                continue;
            }
            std::string at = pointer;
            append_pointer_token(at, k.name);
            if (it->is_object() && k.shape != subschema_shape::map && k.shape != subschema_shape::map_or_array) {
                scan_at(*it, base, doc, at, depth + 1);
                continue;
            }
            if (!it->is_object() && !it->is_array()) {
                continue;
            }
            for (auto m = it->begin(); m != it->end(); ++m) {
                std::string member = at;
                append_pointer_token(member, it->is_object() ? m.key() : std::to_string(&*m - &*it->begin()));
                scan_at(*m, base, doc, member, depth + 1);
            }
        }
    }

    std::map<std::string, schema_location> ids_;
};

/// Follows the JSON pointer `fragment` (percent-decoded, ~0 and ~1 unescaped, empty tokens
/// allowed) from `root`, applying the `$id` of every schema passed on the way. nullopt when a
/// token leads nowhere.
/// `where` names `root` for messages ("uri#" for a document root, "uri#/pointer" inside one).
[[nodiscard]] inline std::optional<schema_location> walk_pointer(const nlohmann::json& root, std::string base,
                                                                 const std::string& where, std::string_view fragment) {
    const std::string pointer = percent_decode(fragment);
    const nlohmann::json* at = &root;
    std::size_t i = 0;
    while (i < pointer.size()) {
        if (pointer[i] != '/') {
            return std::nullopt;
        }
        const std::size_t end = std::min(pointer.find('/', i + 1), pointer.size());
        const std::string token = unescape_pointer_token(std::string_view(pointer).substr(i + 1, end - i - 1));
        base = base_inside(*at, base);
        if (at->is_object()) {
            const auto it = at->find(token);
            if (it == at->end()) {
                return std::nullopt;
            }
            at = &*it;
        } else if (const auto index = pointer_index(token); at->is_array() && index && *index < at->size()) {
            at = &(*at)[*index];
        } else {
            return std::nullopt;
        }
        i = end;
    }
    return schema_location{at, std::move(base), where + pointer};
}

} // namespace handoff::detail
