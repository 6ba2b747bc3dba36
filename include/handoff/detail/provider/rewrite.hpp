// SPDX-License-Identifier: MIT
#pragma once

// The rewrite behind provider_schema(): one walk over the merged schema (its definitions hoisted,
// hoist_defs.hpp) that puts each schema object in the provider's form (normalize.hpp), applies
// the keyword matrix (rules.hpp, keep_rules.hpp), closes objects and makes optional properties
// nullable where the provider demands it, and records every change. Invariant: a constraint
// leaves the schema only together with a note naming its pointer, keyword and value.
//
// Generic over the JSON type: provider_schema() rewrites nlohmann::ordered_json, which keeps the
// author's property order for the provider. The receiver only needs to know which nulls the
// provider put in (detail/nulled_optionals.hpp): it walks nlohmann::json with the pieces below
// that decide them (normalized, cell_of, keeps_keyword, accepts_null, listed_names), never
// building a rewrite, so a file that receives instantiates neither ordered_json nor rewriter.

#include <handoff/detail/json/object_of_members.hpp>
#include <handoff/detail/json/pointer.hpp>
#include <handoff/detail/provider/hoist_defs.hpp>
#include <handoff/detail/provider/keep_rules.hpp>
#include <handoff/detail/provider/listed_names.hpp>
#include <handoff/detail/provider/normalize.hpp>
#include <handoff/detail/provider/rules.hpp>
#include <handoff/detail/provider/schema_note_kind.hpp>
#include <handoff/detail/schema/dynamic_refs.hpp>
#include <handoff/envelope_schema.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>   // find, any_of
#include <cstddef>     // size_t
#include <cstdint>     // uint8_t, uint64_t
#include <optional>    // optional
#include <string>      // string
#include <string_view> // string_view
#include <type_traits> // is_same_v
#include <utility>     // move, pair
#include <vector>      // vector

namespace handoff::detail {

// This file compares with std::string rather than with a literal through nlohmann's operator==,
// and builds values from a value_t and push_back rather than from initializer lists (which
// Json::object() and Json::array() are too): each of those nlohmann templates would be
// instantiated for this file alone, in every file that receives.

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

/// What the caller asks of the rewrite beyond the provider's rules.
struct rewrite_options {
    /// Write each dropped constraint into the `description` the model reads (as
    /// anthropic-sdk-python's transform_schema and pydantic-ai do): "{minLength: 1, maxLength: 64}".
    bool describe_dropped = false;
    /// Keywords beside a `$ref` apply (2019-09 and later); false for a task in draft-04 to
    /// draft-07, whose dialect ignores them.
    bool ref_siblings_apply = true;
    /// How the receiver reads the task (its dialect: nullopt when unknown), which a note about a
    /// dropped keyword tells.
    receiver_view task_reading;
};

/// The rewrite of one schema for one provider. Every change goes to `sink`, called as
/// sink(kind, pointer, keyword, value, text) with the fields of a schema_note. Pointers are into
/// the schema as given: a hoisted definition is rewritten at its origin (`origins`).
template <class Json, class Sink>
struct rewriter {
    const provider_profile& profile;
    const Sink& sink;
    rewrite_options options{};
    /// Each hoisted definition's origin, by its name under the root `$defs`.
    const definition_origins* origin_by_name = nullptr;

    void note(schema_note_kind kind, const std::string& pointer, std::string_view keyword, const Json& value,
              std::string text) const {
        sink(kind, pointer, keyword, value, std::move(text));
    }

    /// How the receiver reads the node at `pointer`: as the task, or as the envelope's own.
    [[nodiscard]] receiver_view reading_at(const std::string& pointer) const {
        if (pointer.compare(0, task_pointer.size(), task_pointer) == 0) {
            return options.task_reading;
        }
        return receiver_view{std::nullopt, options.task_reading.formats_assert};
    }

    /// Where notes about the member `key` of the keyword at `pointer` point.
    [[nodiscard]] std::string member_pointer(const std::string& pointer, const std::string& key) const {
        if (origin_by_name != nullptr && pointer == "/$defs") {
            if (const auto it = origin_by_name->find(key); it != origin_by_name->end()) {
                return it->second;
            }
        }
        return pointer_child(pointer, key);
    }

    /// A subschema-bearing value, rewritten below `pointer` (the keyword's own pointer).
    [[nodiscard]] Json descend(const std::string& keyword, const Json& value, const std::string& pointer) const {
        switch (descent_of(keyword, value)) {
        case descent::members: {
            std::vector<std::pair<std::string, Json>> members;
            members.reserve(value.size());
            for (const auto& item : value.items()) {
                members.emplace_back(item.key(), rewrite(item.value(), member_pointer(pointer, item.key())));
            }
            return object_of_members(std::move(members));
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

    [[nodiscard]] Json rewrite(const Json& given, const std::string& pointer) const {
        if (!given.is_object()) {
            return given;
        }
        Json changed;
        if (needs_normalizing(profile, given)) {
            changed = normalized(profile, given, options.ref_siblings_apply, reading_at(pointer), pointer, sink);
        }
        const Json& node = changed.is_null() ? given : changed;
        Json out = Json(Json::value_t::object);
        Json dropped = Json(Json::value_t::object);
        for (const auto& item : node.items()) {
            const std::string& keyword = item.key();
            const std::string here = origin_pointer(given, pointer, keyword);
            const keyword_cell* cell = cell_of(profile, keyword);
            if (keeps_keyword(profile, cell, item.value(), node)) {
                out[keyword] = descend(keyword, item.value(), here);
            } else if (cell != nullptr && cell->when == keep_when::false_only) {
                continue; // close_object() below closes it and says so
            } else if (cell == nullptr || cell->when != keep_when::annotation) {
                note(schema_note_kind::not_enforced, pointer, keyword, item.value(),
                     drop_note(profile, cell) + reading_at(pointer).reading(keyword, item.value()));
                dropped[keyword] = item.value();
            }
        }
        if (profile.close_objects && is_object_schema(node)) {
            close_object(node, out, pointer);
        }
        if (profile.require_all && out.contains("properties") && out["properties"].is_object()) {
            require_all(out, pointer);
        }
        if (options.describe_dropped && !dropped.empty()) {
            describe(out, dropped);
        }
        return out;
    }

    /// Appends the dropped keywords to the description, in anthropic-sdk-python's form.
    void describe(Json& out, const Json& dropped) const {
        std::string text;
        for (const auto& item : dropped.items()) {
            text += (text.empty() ? "{" : ", ") + item.key() + ": " +
                    item.value().dump(-1, ' ', false, Json::error_handler_t::replace);
        }
        text += "}";
        const auto description = out.find("description");
        if (description != out.end() && description->is_string()) {
            *description = Json(description->template get<std::string>() + "\n\n" + text);
        } else {
            out["description"] = Json(text);
        }
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
                             !keeps_keyword(*as_sent, cell_of(*as_sent, keyword), *it, schema);
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
    // Every property is listed, in the order of "properties" (as openai-python's and openai-node's
    // strict transforms write it); a malformed "required" (not an array) lists nothing.
    const auto listed = out.find("required");
    const Json given = listed != out.end() ? *listed : Json();
    const listed_names given_names(&given);
    Json required = Json(Json::value_t::array);
    Json& properties = out["properties"];
    for (auto item = properties.begin(); item != properties.end(); ++item) {
        const std::string& name = item.key();
        required.push_back(Json(name));
        if (given_names.lists(name)) {
            continue;
        }
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
                if (ref == "#" || ref.rfind("#/", 0) == 0) { // "#name" names an $anchor, wherever it is
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

/// The envelope schema with the task schema (read in `dialect`) as the non-null branch of
/// partial_result: the merged draft-07 schema that the json_schema target returns unchanged.
template <class Json>
[[nodiscard]] Json merged_schema(const Json* task, std::optional<schema_dialect> dialect) {
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
    dynamic_refs_as_refs(inner, dialect);
    move_task_refs(inner, std::string(task_pointer));
    auto& slot = merged["properties"]["partial_result"];
    Json replaced = Json(Json::value_t::object);
    replaced["description"] = slot["description"];
    replaced["anyOf"] = or_null(std::move(inner));
    slot = std::move(replaced);
    return merged;
}

} // namespace handoff::detail
