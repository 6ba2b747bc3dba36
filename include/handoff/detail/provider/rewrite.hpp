// SPDX-License-Identifier: MIT
#pragma once

// The rewrite behind provider_schema(): one walk over the merged schema that applies a
// provider's keyword table (provider_rules.hpp), closes objects and makes optional properties
// nullable where the provider demands it, and records every change. Invariant: a constraint
// leaves the schema only together with a note naming its pointer, keyword and value.
//
// Generic over the JSON type: provider_schema() rewrites nlohmann::ordered_json, which keeps the
// author's property order for the provider. The receiver only needs to know which nulls the
// provider put in (detail/nulled_optionals.hpp): it walks nlohmann::json with the pieces below
// that decide them (rule_of, keeps_keyword, descent_of, accepts_null, lists_name), never
// building a rewrite, so a file that receives instantiates neither ordered_json nor rewriter.

#include <handoff/detail/json/pointer.hpp>
#include <handoff/detail/provider/rules.hpp>
#include <handoff/detail/schema/ids.hpp>
#include <handoff/detail/provider/schema_note_kind.hpp>
#include <handoff/envelope_schema.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>   // find, any_of
#include <cstddef>     // size_t
#include <cstdint>     // uint8_t, uint64_t
#include <string>      // string
#include <string_view> // string_view
#include <type_traits> // is_same_v
#include <utility>     // move
#include <vector>      // vector

namespace handoff::detail {

[[nodiscard]] inline bool pattern_is_simple(std::string_view p) {
    for (const std::string_view bad : {"(?=", "(?!", "(?<=", "(?<!", "\\b", "\\B", "\\k<"}) {
        if (p.find(bad) != std::string_view::npos) {
            return false;
        }
    }
    for (std::size_t i = 0; i + 1 < p.size(); ++i) {
        if (p[i] == '\\' && p[i + 1] >= '1' && p[i + 1] <= '9') {
            return false; // a backreference
        }
        if (p[i] == '\\') {
            ++i; // an escaped character is never the start of anything above
        }
    }
    return true;
}

[[nodiscard]] inline bool pattern_is_anchored(std::string_view p) {
    return p.size() >= 2 && p.front() == '^' && p.back() == '$' && p[p.size() - 2] != '\\';
}

// This file compares with std::string rather than with a literal through nlohmann's operator==,
// and builds values from a value_t and push_back rather than from initializer lists (which
// Json::object() and Json::array() are too): each of those nlohmann templates would be
// instantiated for this file alone, in every file that receives.

/// Whether `value` is the string `name`.
template <class Json>
[[nodiscard]] bool is_string_value(const Json& value, std::string_view name) {
    return value.is_string() && value.template get_ref<const typename Json::string_t&>() == name;
}

/// Whether a "type" value names `name`, alone or in its list.
template <class Json>
[[nodiscard]] bool type_names(const Json& type, std::string_view name) {
    return is_string_value(type, name) ||
           (type.is_array() &&
            std::any_of(type.begin(), type.end(), [name](const Json& t) { return is_string_value(t, name); }));
}

/// [first, {"type": "null"}]: the anyOf that also accepts null.
template <class Json>
[[nodiscard]] Json or_null(Json first) {
    Json null_schema = Json(Json::value_t::object);
    null_schema["type"] = "null";
    Json branches = Json(Json::value_t::array);
    branches.push_back(std::move(first));
    branches.push_back(std::move(null_schema));
    return branches;
}

template <class Json>
[[nodiscard]] bool is_object_schema(const Json& node) {
    if (!node.is_object()) {
        return false;
    }
    if (node.contains("properties")) {
        return true;
    }
    const auto type = node.find("type");
    return type != node.end() && type_names(*type, "object");
}

/// Whether the row lets this keyword, with this value in this schema, through unchanged.
template <class Json>
[[nodiscard]] bool rule_keeps(const provider_profile& profile, keep_when when, const Json& value, const Json& node) {
    switch (when) {
    case keep_when::always: return true;
    case keep_when::never:
    case keep_when::annotation: return false;
    case keep_when::false_only: return value.is_boolean() && !value.template get<bool>();
    case keep_when::min_items_zero_or_one:
        return value.is_number_unsigned() && value.template get<std::uint64_t>() <= 1;
    case keep_when::known_format:
        return value.is_string() && std::find(profile.formats.begin(), profile.formats.end(),
                                              value.template get_ref<const std::string&>()) != profile.formats.end();
    case keep_when::simple_pattern:
        return value.is_string() && pattern_is_simple(value.template get_ref<const std::string&>());
    case keep_when::anchored_pattern:
        return value.is_string() && pattern_is_anchored(value.template get_ref<const std::string&>());
    case keep_when::integer_only: {
        const auto type = node.find("type");
        return type != node.end() && is_string_value(*type, "integer");
    }
    case keep_when::without_properties: return !node.contains("properties");
    }
    return false;
}

[[nodiscard]] inline std::string drop_note(const provider_profile& profile, const keyword_rule* rule) {
    const std::string who(profile.display_name);
    if (rule == nullptr) {
        return who + " does not list this keyword; the receiver still checks it";
    }
    switch (rule->when) {
    case keep_when::min_items_zero_or_one: return who + " takes minItems 0 or 1 only; the receiver still checks it";
    case keep_when::known_format: return who + " does not enforce this format; the receiver still checks it";
    case keep_when::simple_pattern:
        return who + " refuses lookaround, backreferences and word boundaries; the receiver still checks it";
    case keep_when::anchored_pattern:
        return who + " needs a pattern anchored with ^ and $; the receiver still checks it";
    case keep_when::integer_only:
        return who + " enforces numeric bounds on integers only; the receiver still checks it";
    case keep_when::without_properties:
        return who + " cannot mix properties with anyOf/oneOf in one schema; the receiver still checks it";
    default: return who + " does not support this keyword; the receiver still checks it";
    }
}

/// How the rewrite goes below a keyword's value: into each member, each item, the value itself
/// (one subschema), or not at all.
enum class descent : std::uint8_t { none, members, items, value };

/// The subschemas below `keyword`: the draft-07 subschema keywords (schema_ids.hpp), and
/// prefixItems, a list of schemas in the 2020-12 drafts that providers read.
template <class Json>
[[nodiscard]] descent descent_of(std::string_view keyword, const Json& value) {
    if (keyword == "prefixItems") {
        return value.is_array() ? descent::items : descent::none;
    }
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

/// The row of `keyword` in the profile's table (nullptr when unlisted or when the profile
/// keeps everything).
[[nodiscard]] inline const keyword_rule* rule_of(const provider_profile& profile, std::string_view keyword) {
    return profile.keep_everything ? nullptr : find_rule(profile, keyword);
}

/// Whether the provider takes `keyword`, with this value in this schema, as written: what the
/// rewrite keeps.
template <class Json>
[[nodiscard]] bool keeps_keyword(const provider_profile& profile, const keyword_rule* rule, const Json& value,
                                 const Json& node) {
    return profile.keep_everything || (rule != nullptr && rule_keeps(profile, rule->when, value, node));
}

/// The rewrite of one schema for one provider. Every change goes to `sink`, called as
/// sink(kind, pointer, keyword, value, text) with the fields of a schema_note.
template <class Json, class Sink>
struct rewriter {
    const provider_profile& profile;
    const Sink& sink;

    void note(schema_note_kind kind, const std::string& pointer, std::string_view keyword, const Json& value,
              std::string text) const {
        sink(kind, pointer, keyword, value, std::move(text));
    }

    /// A subschema-bearing value, rewritten below `pointer` (the keyword's own pointer).
    [[nodiscard]] Json descend(const std::string& keyword, const Json& value, const std::string& pointer) const {
        switch (descent_of(keyword, value)) {
        case descent::members: {
            Json out = Json(Json::value_t::object);
            for (const auto& item : value.items()) {
                out[item.key()] = rewrite(item.value(), pointer_child(pointer, item.key()));
            }
            return out;
        }
        case descent::items: {
            Json out = Json(Json::value_t::array);
            for (std::size_t i = 0; i < value.size(); ++i) {
                out.push_back(rewrite(value[i], pointer_item(pointer, i)));
            }
            return out;
        }
        case descent::value: return rewrite(value, pointer);
        case descent::none: break;
        }
        return value;
    }

    [[nodiscard]] Json rewrite(const Json& node, const std::string& pointer) const {
        if (!node.is_object()) {
            return node;
        }
        Json out = Json(Json::value_t::object);
        for (const auto& item : node.items()) {
            const std::string& keyword = item.key();
            const std::string here = pointer_child(pointer, keyword);
            const keyword_rule* rule = rule_of(profile, keyword);
            if (keeps_keyword(profile, rule, item.value(), node)) {
                out[keyword] = descend(keyword, item.value(), here);
            } else if (rule != nullptr && rule->when == keep_when::false_only) {
                continue; // close_object() below closes it and says so
            } else if (rule == nullptr || rule->when != keep_when::annotation) {
                note(schema_note_kind::not_enforced, pointer, keyword, item.value(), drop_note(profile, rule));
            }
        }
        if (profile.close_objects && is_object_schema(node)) {
            close_object(node, out, pointer);
        }
        if (profile.require_all && out.contains("properties") && out["properties"].is_object()) {
            require_all(out, pointer);
        }
        return out;
    }

    void close_object(const Json& node, Json& out, const std::string& pointer) const {
        const auto original = node.find("additionalProperties");
        if (original != node.end() && original->is_boolean() && !original->template get<bool>()) {
            return;
        }
        if (original != node.end() && out.contains("additionalProperties")) {
            return; // kept as written (llama.cpp takes additionalProperties: true)
        }
        out["additionalProperties"] = false;
        note(schema_note_kind::tightened, pointer, "additionalProperties", original == node.end() ? Json() : *original,
             std::string(profile.display_name) + " closes this object (additionalProperties: false): properties the "
                                                 "schema allowed here are refused by the provider");
    }

    void require_all(Json& out, const std::string& pointer) const;
};

/// `schema` also accepts null (OpenAI's form of "optional"). With `as_sent`, as that provider
/// receives it: only the keywords the rewrite keeps count, so the schema as given answers as its
/// rewrite would.
template <class Json>
[[nodiscard]] bool accepts_null(const Json& schema, const provider_profile* as_sent = nullptr) {
    const auto kept = [&](const char* keyword) {
        const auto it = schema.find(keyword);
        const bool dropped = as_sent != nullptr && it != schema.end() &&
                             !keeps_keyword(*as_sent, rule_of(*as_sent, keyword), *it, schema);
        return dropped ? schema.end() : it;
    };
    const auto type = kept("type");
    if (type != schema.end()) {
        if (!type_names(*type, "null")) {
            return false;
        }
        const auto values = kept("enum");
        return values == schema.end() ||
               std::any_of(values->begin(), values->end(), [](const Json& v) { return v.is_null(); });
    }
    const auto any = kept("anyOf");
    return any != schema.end() && std::any_of(any->begin(), any->end(), [as_sent](const Json& s) {
               return s.is_object() && accepts_null(s, as_sent);
           });
}

/// Whether a "required" value (an array; anything else lists nothing) lists `name`.
template <class Json>
[[nodiscard]] bool lists_name(const Json& required, const std::string& name) {
    return required.is_array() &&
           std::any_of(required.begin(), required.end(), [&name](const Json& r) { return is_string_value(r, name); });
}

/// The same schema, also accepting null: a type list grows "null" (and an enum grows null),
/// anything else becomes anyOf [schema, {"type": "null"}].
template <class Json>
[[nodiscard]] Json with_null(Json schema) {
    // Objects and arrays get the anyOf form: a type list next to properties or items is the
    // form providers document least.
    const auto type = schema.find("type");
    const bool scalar = type != schema.end() && (type->is_string() || type->is_array()) && !is_object_schema(schema) &&
                        !schema.contains("items") && !is_string_value(*type, "array");
    if (scalar && !schema.contains("anyOf")) {
        Json types = *type;
        if (!types.is_array()) {
            types = Json(Json::value_t::array);
            types.push_back(*type);
        }
        types.push_back(Json("null"));
        *type = std::move(types);
        if (const auto values = schema.find("enum"); values != schema.end()) {
            values->push_back(Json());
        }
        return schema;
    }
    Json wrapped = Json(Json::value_t::object);
    wrapped["anyOf"] = or_null(std::move(schema));
    return wrapped;
}

template <class Json, class Sink>
void rewriter<Json, Sink>::require_all(Json& out, const std::string& pointer) const {
    // A malformed "required" (not an array) is replaced: the rewrite lists every property anyway.
    const auto listed = out.find("required");
    Json required = listed != out.end() && listed->is_array() ? *listed : Json(Json::value_t::array);
    Json& properties = out["properties"];
    for (auto item = properties.begin(); item != properties.end(); ++item) {
        const std::string& name = item.key();
        if (lists_name(required, name)) {
            continue;
        }
        required.push_back(Json(name));
        if (!accepts_null(item.value())) {
            item.value() = with_null(std::move(item.value()));
            note(schema_note_kind::made_nullable, pointer_child(pointer_child(pointer, "properties"), name), "required",
                 Json(name),
                 "OpenAI strict mode requires every property: null now stands for \"absent\", and the receiver "
                 "refuses null here; remove the key when it is null before checking the reply");
        }
    }
    out["required"] = std::move(required);
}

/// `$ref`s of the task are relative to the task's root; below partial_result they must be
/// relative to the envelope's root, so every local reference gets the task's new place.
template <class Json>
void move_task_refs(Json& node, const std::string& base) {
    if (node.is_object()) {
        for (auto item = node.begin(); item != node.end(); ++item) {
            if (item.key() == "$ref" && item.value().is_string()) {
                const std::string ref = item.value().template get<std::string>();
                if (!ref.empty() && ref.front() == '#') {
                    item.value() = Json("#" + base + ref.substr(1));
                }
            } else {
                move_task_refs(item.value(), base);
            }
        }
    } else if (node.is_array()) {
        for (auto& item : node) {
            move_task_refs(item, base);
        }
    }
}

/// The envelope schema with the task schema as the non-null branch of partial_result: the merged
/// draft-07 schema that the json_schema target returns unchanged.
template <class Json>
[[nodiscard]] Json merged_schema(const Json* task) {
    // nlohmann::json's copy is the one parsed already; an ordered_json keeps the file's order.
    Json merged;
    if constexpr (std::is_same_v<Json, nlohmann::json>) {
        merged = handoff::envelope_schema();
    } else {
        merged = Json::parse(handoff::envelope_schema_text());
    }
    if (task == nullptr) {
        return merged;
    }
    Json inner = *task;
    if (inner.is_object()) {
        inner.erase("$schema"); // a subschema's $schema and $id would change how refs resolve
        inner.erase("$id");
    }
    move_task_refs(inner, "/properties/partial_result/anyOf/0");
    auto& slot = merged["properties"]["partial_result"];
    Json replaced = Json(Json::value_t::object);
    replaced["description"] = slot["description"];
    replaced["anyOf"] = or_null(std::move(inner));
    slot = std::move(replaced);
    return merged;
}

} // namespace handoff::detail
