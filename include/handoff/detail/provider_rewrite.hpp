// SPDX-License-Identifier: MIT
#pragma once

// The rewrite behind provider_schema(): one walk over the merged schema that applies a
// provider's keyword table (provider_rules.hpp), closes objects and makes optional properties
// nullable where the provider demands it, and records every change. Invariant: a constraint
// leaves the schema only together with a note naming its pointer, keyword and value.
//
// Generic over the JSON type: provider_schema() rewrites nlohmann::ordered_json, which keeps the
// author's property order for the provider; the receiver rewrites nlohmann::json only to learn
// which nulls the provider put in (detail/nulled_optionals.hpp), so a file that receives never
// instantiates ordered_json.

#include <handoff/detail/json_pointer.hpp>
#include <handoff/detail/provider_rules.hpp>
#include <handoff/detail/schema_note_kind.hpp>
#include <handoff/envelope_schema.hpp>

#include <algorithm>   // find, any_of
#include <cstddef>     // size_t
#include <cstdint>     // uint8_t, uint64_t
#include <string>      // string
#include <string_view> // string_view
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

template <class Json>
[[nodiscard]] bool is_object_schema(const Json& node) {
    if (!node.is_object()) {
        return false;
    }
    if (node.contains("properties")) {
        return true;
    }
    const auto type = node.find("type");
    if (type == node.end()) {
        return false;
    }
    if (type->is_string()) {
        return *type == "object";
    }
    return type->is_array() && std::find(type->begin(), type->end(), "object") != type->end();
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
    case keep_when::integer_only: return node.contains("type") && node["type"] == "integer";
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
        const bool is_map = keyword == "properties" || keyword == "$defs" || keyword == "definitions" ||
                            keyword == "patternProperties" || keyword == "dependencies";
        if (is_map && value.is_object()) {
            Json out = Json::object();
            for (const auto& item : value.items()) {
                out[item.key()] = rewrite(item.value(), pointer_child(pointer, item.key()));
            }
            return out;
        }
        const bool is_list = keyword == "anyOf" || keyword == "allOf" || keyword == "oneOf" ||
                             keyword == "prefixItems" || keyword == "items";
        if (is_list && value.is_array()) {
            Json out = Json::array();
            for (std::size_t i = 0; i < value.size(); ++i) {
                out.push_back(rewrite(value[i], pointer_item(pointer, i)));
            }
            return out;
        }
        const bool is_schema = keyword == "items" || keyword == "additionalProperties" || keyword == "not" ||
                               keyword == "if" || keyword == "then" || keyword == "else" || keyword == "contains" ||
                               keyword == "propertyNames" || keyword == "additionalItems";
        return is_schema ? rewrite(value, pointer) : value;
    }

    [[nodiscard]] Json rewrite(const Json& node, const std::string& pointer) const {
        if (!node.is_object()) {
            return node;
        }
        Json out = Json::object();
        for (const auto& item : node.items()) {
            const std::string& keyword = item.key();
            const std::string here = pointer_child(pointer, keyword);
            const keyword_rule* rule = profile.keep_everything ? nullptr : find_rule(profile, keyword);
            if (profile.keep_everything || (rule != nullptr && rule_keeps(profile, rule->when, item.value(), node))) {
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

/// `schema` also accepts null (OpenAI's form of "optional").
template <class Json>
[[nodiscard]] bool accepts_null(const Json& schema) {
    const auto type = schema.find("type");
    if (type != schema.end()) {
        const bool typed_null =
            type->is_array() ? std::find(type->begin(), type->end(), "null") != type->end() : *type == "null";
        if (!typed_null) {
            return false;
        }
        const auto values = schema.find("enum");
        return values == schema.end() || std::find(values->begin(), values->end(), nullptr) != values->end();
    }
    const auto any = schema.find("anyOf");
    return any != schema.end() &&
           std::any_of(any->begin(), any->end(), [](const auto& s) { return s.is_object() && accepts_null(s); });
}

/// The same schema, also accepting null: a type list grows "null" (and an enum grows null),
/// anything else becomes anyOf [schema, {"type": "null"}].
template <class Json>
[[nodiscard]] Json with_null(Json schema) {
    // Objects and arrays get the anyOf form: a type list next to properties or items is the
    // form providers document least.
    const auto type = schema.find("type");
    const bool scalar = type != schema.end() && (type->is_string() || type->is_array()) && !is_object_schema(schema) &&
                        !schema.contains("items") && *type != "array";
    if (scalar && !schema.contains("anyOf")) {
        Json types = type->is_array() ? *type : Json::array({*type});
        types.push_back("null");
        *type = std::move(types);
        if (const auto values = schema.find("enum"); values != schema.end()) {
            values->push_back(nullptr);
        }
        return schema;
    }
    Json wrapped = Json::object();
    wrapped["anyOf"] = Json::array({std::move(schema), {{"type", "null"}}});
    return wrapped;
}

template <class Json, class Sink>
void rewriter<Json, Sink>::require_all(Json& out, const std::string& pointer) const {
    // A malformed "required" (not an array) is replaced: the rewrite lists every property anyway.
    const auto listed = out.find("required");
    Json required = listed != out.end() && listed->is_array() ? *listed : Json::array();
    for (const auto& item : out["properties"].items()) {
        if (std::find(required.begin(), required.end(), item.key()) != required.end()) {
            continue;
        }
        required.push_back(item.key());
        if (!accepts_null(item.value())) {
            item.value() = with_null(std::move(item.value()));
            note(schema_note_kind::made_nullable, pointer_child(pointer_child(pointer, "properties"), item.key()),
                 "required", item.key(),
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
        for (const auto& item : node.items()) {
            if (item.key() == "$ref" && item.value().is_string()) {
                const std::string ref = item.value().template get<std::string>();
                if (!ref.empty() && ref.front() == '#') {
                    item.value() = "#" + base + ref.substr(1);
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
    Json merged = Json::parse(handoff::envelope_schema_text());
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
    Json replaced = Json::object();
    replaced["description"] = slot["description"];
    replaced["anyOf"] = Json::array({std::move(inner), {{"type", "null"}}});
    slot = std::move(replaced);
    return merged;
}

} // namespace handoff::detail
