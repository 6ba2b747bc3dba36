// SPDX-License-Identifier: MIT
#pragma once

// Where a schema is found from a URI: the ids a document declares (a new base URI, or a
// location-independent "#name": draft-04's "id", "$id" later, 2019-09's "$anchor", 2020-12's
// "$dynamicAnchor"), and JSON pointers walked from a document root, each id on the way changing
// the base. Up to draft-07 an id beside a `$ref` is ignored, as every sibling of `$ref` is; from
// 2019-09 on it applies (core 2019-09, section 8.2.4.1). Ids are only looked for where a schema
// can stand (inside `enum` or an unknown keyword, `{"$id": ...}` is data). A dialect of nullopt
// reads a document whose dialect is not known yet (a registered one): "$id", else "id", beside
// `$ref` or not (an extra name for a schema is harmless; a missing one breaks a 2019-09 `$ref`).

#include <handoff/detail/json/pointer.hpp>
#include <handoff/detail/schema/dialect.hpp>
#include <handoff/detail/schema/uri.hpp>
#include <handoff/detail/text.hpp>

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
/// `declaring` is the innermost schema from its document's root to it (itself included) with a
/// `$schema` member, at `declaring_where`: that member says how the schema reads, wherever the
/// reference to it stands (nullptr: its document declares none). Only schemas count: a
/// `properties` map with a property named "$schema", or data under `enum` or an unknown
/// keyword, declares nothing.
struct schema_location {
    const nlohmann::json* schema = nullptr;
    std::string parent_base;
    std::string where;
    const nlohmann::json* declaring = nullptr;
    std::string declaring_where;
};

/// The location of `s`, at `where`, after `declaring` (at `declaring_where`) on the way to it.
[[nodiscard]] inline schema_location located(const nlohmann::json& s, std::string parent_base, std::string where,
                                             const nlohmann::json* declaring, const std::string& declaring_where) {
    const bool declares = s.is_object() && s.contains("$schema");
    schema_location out{&s, std::move(parent_base), std::move(where), declares ? &s : declaring, {}};
    out.declaring_where = declares ? out.where : declaring_where;
    return out;
}

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
    {"contentSchema", subschema_shape::single},
    {"definitions", subschema_shape::map},
    {"dependencies", subschema_shape::map_or_array},
    {"dependentSchemas", subschema_shape::map},
    {"else", subschema_shape::single},
    {"if", subschema_shape::single},
    {"items", subschema_shape::single_or_array},
    {"not", subschema_shape::single},
    {"oneOf", subschema_shape::array},
    {"patternProperties", subschema_shape::map},
    {"prefixItems", subschema_shape::array},
    {"properties", subschema_shape::map},
    {"propertyNames", subschema_shape::single},
    {"then", subschema_shape::single},
    {"unevaluatedItems", subschema_shape::single},
    {"unevaluatedProperties", subschema_shape::single},
    {"$defs", subschema_shape::map},
};

/// Calls `visit(child, pointer)` for every schema `s` holds under a subschema keyword, in the
/// table's order: what a walk over a schema's subschemas visits (not data: `enum`, `const`,
/// unknown keywords).
template <class Visit>
void for_each_subschema(const nlohmann::json& s, const std::string& pointer, Visit&& visit) {
    for (const subschema_keyword& k : subschema_keywords) {
        const auto it = s.find(k.name);
        if (it == s.end()) {
            continue;
        }
        std::string at = pointer;
        append_pointer_token(at, k.name);
        if (it->is_object() && k.shape != subschema_shape::map && k.shape != subschema_shape::map_or_array) {
            visit(*it, at);
            continue;
        }
        if (!it->is_object() && !it->is_array()) {
            continue;
        }
        for (auto m = it->begin(); m != it->end(); ++m) {
            std::string member = at;
            append_pointer_token(member, it->is_object() ? m.key() : std::to_string(&*m - &*it->begin()));
            visit(*m, member);
        }
    }
}

/// How a walk goes below a keyword's value: into each member, each item, the value itself (one
/// subschema), or not at all.
enum class descent : std::uint8_t { none, members, items, value };

/// The subschemas below `keyword`, by the table above: any dialect's subschema keywords.
template <class Json>
[[nodiscard]] descent descent_of(std::string_view keyword, const Json& value) {
    for (const subschema_keyword& k : subschema_keywords) {
        if (k.name != keyword) {
            continue;
        }
        switch (k.shape) {
        case subschema_shape::single: return descent::value;
        case subschema_shape::array: return value.is_array() ? descent::items : descent::none;
        case subschema_shape::map:
        case subschema_shape::map_or_array: return value.is_object() ? descent::members : descent::none;
        case subschema_shape::single_or_array: return value.is_array() ? descent::items : descent::value;
        }
    }
    return descent::none;
}

/// What a member of a JSON value on the way to a `$ref` target holds: a schema, schemas by name
/// or by index (the value of `properties`, `allOf`, ...), or data (`enum`, an unknown keyword).
enum class pointer_place : std::uint8_t { schema, schemas, data };

/// The place of member `value` of a schema object, `keyword` in it: what a walk over the
/// schema's subschemas goes into (a value of the wrong shape is none: the compiler refuses it).
[[nodiscard]] inline pointer_place place_of_keyword(std::string_view keyword, const nlohmann::json& value) {
    switch (descent_of(keyword, value)) {
    case descent::value: return pointer_place::schema;
    case descent::members:
    case descent::items: return pointer_place::schemas;
    case descent::none: break;
    }
    return pointer_place::data;
}

/// "uri#" + pointer, or the bare pointer for the document handoff was given without a URI.
[[nodiscard]] inline std::string location_of(std::string_view document_uri, std::string_view pointer) {
    return document_uri.empty() ? std::string(pointer) : std::string(document_uri) + "#" + std::string(pointer);
}

/// The dialect in force inside `schema`: an official `$schema` it declares, else the one
/// around it.
[[nodiscard]] inline std::optional<schema_dialect> dialect_inside(const nlohmann::json& schema,
                                                                  std::optional<schema_dialect> around) {
    if (schema.is_object()) {
        if (const auto s = schema.find("$schema"); s != schema.end() && s->is_string()) {
            if (const auto d = official_dialect(s->get_ref<const std::string&>())) {
                return d;
            }
        }
    }
    return around;
}

/// The id member of `schema` that sets a base URI in `dialect`, or null.
[[nodiscard]] inline const nlohmann::json* id_member(const nlohmann::json& schema,
                                                     std::optional<schema_dialect> dialect) {
    if (!schema.is_object()) {
        return nullptr;
    }
    if (schema.contains("$ref") && dialect && ref_overrides_siblings(*dialect)) {
        return nullptr;
    }
    const auto dollar = schema.find("$id");
    const auto plain = schema.find("id");
    const nlohmann::json* id = nullptr;
    if (!dialect) {
        id = dollar != schema.end() ? &*dollar : plain != schema.end() ? &*plain : nullptr;
    } else if (*dialect == schema_dialect::draft04) {
        id = plain != schema.end() ? &*plain : nullptr;
    } else {
        id = dollar != schema.end() ? &*dollar : nullptr;
    }
    return id != nullptr && id->is_string() ? id : nullptr;
}

/// The base URI inside `schema` given the one around it.
[[nodiscard]] inline std::string base_inside(const nlohmann::json& schema, const std::string& parent_base,
                                             std::optional<schema_dialect> dialect) {
    const nlohmann::json* id = id_member(schema, dialect_inside(schema, dialect));
    if (id == nullptr) {
        return parent_base;
    }
    return split_fragment(resolve_uri(parent_base, id->get_ref<const std::string&>())).document;
}

/// Every `$id` of the documents scanned, by absolute URI ("doc" or "doc#name").
class id_index {
public:
    void scan(const nlohmann::json& root, const std::string& base, const std::string& document_uri,
              std::optional<schema_dialect> dialect = std::nullopt) {
        scan_at(root, base, document_uri, "", dialect, nullptr, 0);
    }

    [[nodiscard]] const schema_location* find(const std::string& uri) const {
        const auto it = ids_.find(uri);
        return it == ids_.end() ? nullptr : &it->second;
    }

private:
    /// `outer`: the location of the schema holding `s` (nullptr for a document's root).
    void scan_at(const nlohmann::json& s, const std::string& parent_base, const std::string& doc,
                 const std::string& pointer, std::optional<schema_dialect> around, const schema_location* outer,
                 int depth) {
        if (!s.is_object() || depth > 1000) {
            return; // deeper than any schema handoff compiles (the compiler reports that)
        }
        const std::optional<schema_dialect> dialect = dialect_inside(s, around);
        const std::string base = base_inside(s, parent_base, dialect);
        const schema_location here =
            located(s, parent_base, location_of(doc, pointer), outer != nullptr ? outer->declaring : nullptr,
                    outer != nullptr ? outer->declaring_where : std::string());
        if (const nlohmann::json* id = id_member(s, dialect)) {
            const std::string full = resolve_uri(parent_base, id->get_ref<const std::string&>());
            const uri_split parts = split_fragment(full);
            const std::string key = parts.fragment.empty() ? parts.document : full;
            ids_.emplace(key, here);
        }
        if (!dialect || (bit_of(*dialect) & from_2019_09) != 0) {
            for (const char* anchor : {"$anchor", "$dynamicAnchor"}) {
                if (const auto a = s.find(anchor); a != s.end() && a->is_string()) {
                    ids_.emplace(base + "#" + a->get<std::string>(), here);
                }
            }
        }
        for_each_subschema(s, pointer, [&](const nlohmann::json& child, const std::string& at) {
            scan_at(child, base, doc, at, dialect, &here, depth + 1);
        });
    }

    std::map<std::string, schema_location> ids_;
};

/// Follows the JSON pointer `fragment` (percent-decoded, ~0 and ~1 unescaped, empty tokens
/// allowed) from the schema at `start`, applying the `$id` of every schema passed on the way,
/// and noting the last schema that declares `$schema`. nullopt when a token leads nowhere.
[[nodiscard]] inline std::optional<schema_location> walk_pointer(const schema_location& start,
                                                                 std::string_view fragment,
                                                                 std::optional<schema_dialect> dialect = std::nullopt) {
    const std::string pointer = percent_decode(fragment);
    const nlohmann::json* at = start.schema;
    std::string base = start.parent_base;
    const nlohmann::json* declaring = start.declaring;
    std::string declaring_where = start.declaring_where;
    pointer_place place = pointer_place::schema;
    std::size_t i = 0;
    while (i < pointer.size()) {
        if (pointer[i] != '/') {
            return std::nullopt;
        }
        const std::size_t end = std::min(pointer.find('/', i + 1), pointer.size());
        const std::string token = unescape_pointer_token(std::string_view(pointer).substr(i + 1, end - i - 1));
        const pointer_place around = place;
        place = around == pointer_place::schemas ? pointer_place::schema : pointer_place::data;
        if (around == pointer_place::schema) { // an `$id` or `$schema` in data is data
            dialect = dialect_inside(*at, dialect);
            base = base_inside(*at, base, dialect);
        }
        if (at->is_object()) {
            if (around == pointer_place::schema && at != declaring && at->contains("$schema")) {
                declaring = at;
                declaring_where = start.where + pointer.substr(0, i);
            }
            const auto it = at->find(token);
            if (it == at->end()) {
                return std::nullopt;
            }
            place = around == pointer_place::schema ? place_of_keyword(token, *it) : place;
            at = &*it;
        } else if (const auto index = pointer_index(token); at->is_array() && index && *index < at->size()) {
            at = &(*at)[*index];
        } else {
            return std::nullopt;
        }
        i = end;
    }
    return located(*at, std::move(base), start.where + pointer, declaring, declaring_where);
}

/// The same from a document's `root`; `where` names it for messages ("uri#", or "" for a
/// document given without a URI).
[[nodiscard]] inline std::optional<schema_location> walk_pointer(const nlohmann::json& root, std::string base,
                                                                 std::string where, std::string_view fragment,
                                                                 std::optional<schema_dialect> dialect = std::nullopt) {
    return walk_pointer(schema_location{&root, std::move(base), std::move(where), nullptr, {}}, fragment, dialect);
}

} // namespace handoff::detail
