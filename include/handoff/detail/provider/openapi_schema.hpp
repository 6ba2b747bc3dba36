// SPDX-License-Identifier: MIT
#pragma once

// Gemini's older generationConfig.responseSchema takes a Schema object, "a select subset of an
// OpenAPI 3.0 schema object" (https://ai.google.dev/api/caching#Schema): `type` is one name of
// the Type enum (STRING, NUMBER, INTEGER, BOOLEAN, ARRAY, OBJECT), null is `nullable: true`,
// there is no `$ref` and no `$defs`, and a field the Schema message does not have is refused
// ("Unknown name ... Cannot find field", prism-php/prism#974). Property order is
// `propertyOrdering`, not the order of `properties`. This pass turns the rewritten JSON Schema
// (keyword matrix already applied) into that form.

#include <handoff/detail/json/object_of_members.hpp>
#include <handoff/detail/json/pointer.hpp>
#include <handoff/detail/provider/hoist_defs.hpp>
#include <handoff/detail/provider/keep_rules.hpp>
#include <handoff/detail/provider/schema_note_kind.hpp>

#include <nlohmann/json.hpp>

#include <algorithm> // find
#include <cstddef>   // size_t
#include <map>       // map
#include <string>    // string
#include <utility>   // move, pair
#include <vector>    // vector

namespace handoff::detail {

/// A JSON Schema type name as the Type enum spells it.
[[nodiscard]] inline std::string openapi_type_name(const std::string& type) {
    std::string out;
    for (const char c : type) {
        out.push_back(c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c);
    }
    return out;
}

/// Every inlined `$ref` copies its target, so refs that fan out would grow the schema
/// exponentially: past this many, a `$ref` is cut like a recursive one.
inline constexpr std::size_t max_inlined_refs = 4096;

/// Every inlined `$ref` copies its target's JSON text: past this many bytes copied in all, a
/// `$ref` is cut like a recursive one. Without it, a large definition named by many `$ref`s
/// grows the schema by its whole size per `$ref`, without bound, and the schema sent counts
/// against the request's input tokens ("The size of the response schema
/// counts towards the input token limit": Vertex AI, Structured output,
/// https://cloud.google.com/vertex-ai/generative-ai/docs/multimodal/control-generated-output).
inline constexpr std::size_t max_inlined_bytes = std::size_t{4} << 20;

/// Each inlined `$ref` inside another deepens the conversion's recursion: past this many, one is
/// cut like a recursive one.
inline constexpr std::size_t max_inlined_depth = 256;

/// The conversion recurses once per nested schema, through inlined definitions too: past this
/// depth a schema is cut like a recursive one, so no chain of nested definitions reaches the
/// stack's end.
inline constexpr std::size_t max_converted_depth = 1024;

template <class Json, class Note>
class openapi_converter {
public:
    openapi_converter(const Json& root, const definition_origins& origins, const Note& note)
        : note_(note), origin_of_(origins) {
        // By name once: an ordered_json object finds a key by reading from its first member.
        if (const auto defs = root.find("$defs"); defs != root.end() && defs->is_object()) {
            for (auto it = defs->begin(); it != defs->end(); ++it) {
                definitions_.emplace(it.key(), &it.value());
            }
        }
    }

    [[nodiscard]] Json convert(const Json& node) {
        if (!node.is_object()) {
            return node;
        }
        if (depth_ == max_converted_depth) {
            const auto origin = inlining_.empty() ? origin_of_.end() : origin_of_.find(inlining_.back());
            note_(schema_note_kind::not_enforced, origin == origin_of_.end() ? std::string() : origin->second, "$ref",
                  Json(inlining_.empty() ? std::string() : inlining_.back()),
                  "Gemini responseSchema has no $ref: a schema nested " + std::to_string(max_converted_depth) +
                      " levels deep through inlined definitions is cut here, where any value is accepted; the "
                      "receiver still checks it");
            return Json(Json::value_t::object);
        }
        const depth_guard deeper(depth_);
        if (const auto ref = node.find("$ref"); ref != node.end()) {
            return inline_ref(*ref);
        }
        Json out = Json(Json::value_t::object);
        bool nullable = false;
        for (auto it = node.begin(); it != node.end(); ++it) {
            const std::string& key = it.key();
            if (key == "$defs") {
                continue;
            }
            if (key == "type") {
                set_type(out, it.value(), nullable);
            } else if (key == "enum" && it.value().is_array()) {
                out["enum"] = strings_of(it.value(), nullable);
            } else if (key == "anyOf" && it.value().is_array()) {
                out["anyOf"] = branches_of(it.value(), nullable);
            } else if (key == "properties" && it.value().is_object()) {
                std::vector<std::pair<std::string, Json>> properties;
                Json order = Json(Json::value_t::array);
                for (auto p = it.value().begin(); p != it.value().end(); ++p) {
                    properties.emplace_back(p.key(), convert(p.value()));
                    order.push_back(Json(p.key()));
                }
                out["properties"] = object_of_members(std::move(properties));
                out["propertyOrdering"] = std::move(order);
            } else if (key == "items") {
                out["items"] = convert(it.value());
            } else {
                out[key] = it.value();
            }
        }
        if (nullable) {
            out["nullable"] = true;
        }
        if (out.contains("enum") && !out.contains("type")) {
            out["type"] = Json("STRING"); // the Schema's enum is "of Type.STRING" (string_values kept it)
        }
        return lift_single_branch(std::move(out));
    }

private:
    /// Counts one level of convert() for as long as it lives.
    struct depth_guard {
        explicit depth_guard(std::size_t& depth) : depth_(depth) { ++depth_; }
        depth_guard(const depth_guard&) = delete;
        depth_guard& operator=(const depth_guard&) = delete;
        depth_guard(depth_guard&&) = delete;
        depth_guard& operator=(depth_guard&&) = delete;
        ~depth_guard() { --depth_; }
        std::size_t& depth_;
    };

    const Note& note_;
    std::size_t depth_ = 0;
    const definition_origins& origin_of_;            // a definition's place in the schema as given
    std::map<std::string, const Json*> definitions_; // the root's `$defs`, by name
    std::vector<std::string> inlining_;
    std::size_t inlined_ = 0;
    std::size_t inlined_bytes_ = 0;               // never above max_inlined_bytes
    std::map<std::string, std::size_t> bytes_of_; // a definition's JSON text, measured once

    /// The bytes of definition `name` (`schema`) as JSON text: what inlining it once copies.
    [[nodiscard]] std::size_t definition_bytes(const std::string& name, const Json& schema) {
        const auto known = bytes_of_.find(name);
        if (known != bytes_of_.end()) {
            return known->second;
        }
        const std::size_t bytes = schema.dump(-1, ' ', false, Json::error_handler_t::replace).size();
        bytes_of_.emplace(name, bytes);
        return bytes;
    }

    [[nodiscard]] Json inline_ref(const Json& ref) {
        const std::vector<std::string> tokens =
            ref.is_string() ? pointer_tokens(ref.template get<std::string>().substr(1)) : std::vector<std::string>{};
        const auto target = tokens.size() == 2 ? definitions_.find(tokens[1]) : definitions_.end();
        if (target == definitions_.end()) {
            return Json(Json::value_t::object);
        }
        const std::string& name = tokens[1];
        const std::size_t bytes = definition_bytes(name, *target->second);
        if (std::find(inlining_.begin(), inlining_.end(), name) != inlining_.end() || ++inlined_ > max_inlined_refs ||
            inlining_.size() == max_inlined_depth || bytes > max_inlined_bytes - inlined_bytes_) {
            const auto origin = origin_of_.find(name);
            note_(schema_note_kind::not_enforced, origin == origin_of_.end() ? name : origin->second, "$ref", ref,
                  "Gemini responseSchema has no $ref: a recursive (or too often repeated, too large to copy "
                  "again, or too deeply nested) schema is cut here, where any value is accepted; the receiver "
                  "still checks it");
            return Json(Json::value_t::object);
        }
        inlined_bytes_ += bytes;
        inlining_.push_back(name);
        Json out = convert(*target->second);
        inlining_.pop_back();
        return out;
    }

    /// "type": a name, or a list whose "null" becomes nullable; a list of two or more other
    /// names keeps the first (the Type enum holds one) and the rest are reported.
    void set_type(Json& out, const Json& type, bool& nullable) {
        if (type.is_string()) {
            if (is_string_value(type, "null")) {
                nullable = true;
            } else {
                out["type"] = Json(openapi_type_name(type.template get<std::string>()));
            }
            return;
        }
        if (!type.is_array()) {
            return;
        }
        for (const Json& name : type) {
            if (!name.is_string()) {
                continue;
            }
            if (is_string_value(name, "null")) {
                nullable = true;
            } else if (!out.contains("type")) {
                out["type"] = Json(openapi_type_name(name.template get<std::string>()));
            } else {
                note_(schema_note_kind::not_enforced, "", "type", type,
                      "Gemini responseSchema takes one type per schema: the first is sent; the receiver still checks "
                      "the others");
            }
        }
    }

    [[nodiscard]] static Json strings_of(const Json& values, bool& nullable) {
        Json out = Json(Json::value_t::array);
        for (const Json& v : values) {
            if (v.is_null()) {
                nullable = true;
            } else {
                out.push_back(v);
            }
        }
        return out;
    }

    /// anyOf's branches converted; a {"type": "null"} branch becomes nullable.
    [[nodiscard]] Json branches_of(const Json& branches, bool& nullable) {
        Json out = Json(Json::value_t::array);
        for (const Json& branch : branches) {
            const bool only_null = branch.is_object() && branch.size() == 1 && branch.contains("type") &&
                                   is_string_value(branch["type"], "null");
            if (only_null) {
                nullable = true;
            } else {
                out.push_back(convert(branch));
            }
        }
        return out;
    }

    /// {"anyOf": [one], ...annotations} as the one branch with the annotations beside it.
    [[nodiscard]] static Json lift_single_branch(Json out) {
        const auto any = out.find("anyOf");
        if (any == out.end() || !any->is_array() || any->size() != 1 || !(*any)[0].is_object()) {
            return out;
        }
        Json branch = (*any)[0];
        for (auto it = out.begin(); it != out.end(); ++it) {
            if (it.key() != "anyOf" && branch.contains(it.key()) && it.key() != "nullable") {
                return out; // both say something here: keep them apart
            }
        }
        for (auto it = out.begin(); it != out.end(); ++it) {
            if (it.key() != "anyOf") {
                branch[it.key()] = it.value();
            }
        }
        return branch;
    }
};

/// `schema` (rewritten for gemini_openapi) in the Schema object's form; see the top of this file.
template <class Json, class Note>
[[nodiscard]] Json openapi_schema(const Json& schema, const definition_origins& origins, const Note& note) {
    return openapi_converter<Json, Note>(schema, origins, note).convert(schema);
}

} // namespace handoff::detail
