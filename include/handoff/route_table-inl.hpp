// SPDX-License-Identifier: MIT
#pragma once

// route_table's non-template definitions: inline in every file header-only, compiled once in
// <handoff/src.hpp> otherwise (config.hpp).

#include <handoff/route_table.hpp>

#include <handoff/detail/json/depth.hpp>
#include <handoff/detail/schema/refs.hpp>
#include <handoff/detail/text.hpp>
#include <handoff/schema_error.hpp>

#include <nlohmann/json.hpp>

#include <optional>    // optional
#include <set>         // set
#include <string>      // string
#include <string_view> // string_view
#include <utility>     // move
#include <vector>      // vector

namespace handoff {

HANDOFF_INLINE route_table_error::route_table_error(std::vector<route_mismatch> mismatches)
    : std::logic_error(describe(mismatches)), mismatches_(std::move(mismatches)) {}

HANDOFF_INLINE std::string route_table_error::describe(const std::vector<route_mismatch>& mismatches) {
    std::string out = "handoff: the routing table does not match the task schema";
    for (const route_mismatch& m : mismatches) {
        out += "\n" + detail::message_pointer(m.pointer) + ": " + std::string(to_string(m.kind)) + ": " + m.message;
    }
    return out;
}

namespace detail::routes {

/// The schema of place `token` (a number) of a tuple: 2020-12's "prefixItems" or an array
/// "items" (draft-04 to 2019-09); null when `schema` is no tuple or has no such place.
HANDOFF_INLINE const nlohmann::json* tuple_place(const nlohmann::json& schema, const std::string& token) {
    if (token.empty() || token.size() > 9 || token.find_first_not_of("0123456789") != std::string::npos) {
        return nullptr;
    }
    const std::size_t i = std::stoul(token);
    for (const char* key : {"prefixItems", "items"}) {
        if (const auto places = schema.find(key); places != schema.end() && places->is_array() && i < places->size()) {
            return &(*places)[i];
        }
    }
    return nullptr;
}

/// The field's schema: `properties` for a name, a tuple's place or `items` for an index or "*", every `$ref` on
/// the way followed as the validator follows it. Null when the pointer leads nowhere.
HANDOFF_INLINE const nlohmann::json* field_schema(const nlohmann::json& root, std::string_view pointer) {
    std::optional<ref_follower> follower;
    try {
        follower.emplace(root, ref_scope{});
    } catch (const schema_error&) {
        return nullptr; // a schema whose ids do not index cannot be walked; it does not compile either
    }
    ref_target at = follower->resolve(root, follower->document_uri());
    const nlohmann::json::json_pointer path{std::string(pointer)};
    std::vector<std::string> tokens;
    for (nlohmann::json::json_pointer p = path; !p.empty(); p.pop_back()) {
        tokens.insert(tokens.begin(), p.back());
    }
    for (const std::string& token : tokens) {
        if (at.schema == nullptr || !at.schema->is_object()) {
            return nullptr;
        }
        const auto properties = at.schema->find("properties");
        const auto items = at.schema->find("items");
        const bool index =
            token == "*" || (!token.empty() && token.find_first_not_of("0123456789") == std::string::npos);
        if (properties != at.schema->end() && properties->is_object() && properties->contains(token)) {
            at = follower->resolve(properties->at(token), at.base);
        } else if (const nlohmann::json* place = tuple_place(*at.schema, token)) {
            at = follower->resolve(*place, at.base);
        } else if (index && items != at.schema->end() && items->is_object()) {
            at = follower->resolve(*items, at.base);
        } else {
            return nullptr;
        }
    }
    return at.schema != nullptr && at.schema->is_object() ? at.schema : nullptr;
}

HANDOFF_INLINE std::optional<std::string> spelling(const nlohmann::json& value) {
    if (value.is_string()) {
        return value.get<std::string>();
    }
    if (nests_deeper_than(value, max_recursed_depth)) {
        return std::nullopt;
    }
    return value.dump();
}

/// The values as a message lists them: each escaped and capped (a table's key, an enum value:
/// untrusted text that may hold newlines or ANSI escapes), the whole list capped too.
HANDOFF_INLINE std::string join(const std::set<std::string>& values) {
    std::string out;
    for (const std::string& v : values) {
        out += (out.empty() ? "" : ", ") + escape_untrusted(v, 64);
    }
    return clip_untrusted(out, 1024, clip_form::as_is); // already escaped: only capped
}

} // namespace detail::routes

/// The values the schema allows at `pointer` (a pointer into the task, "/label"), in their
/// table spelling; nullopt when the pointer leads nowhere or the field has no enum or const.
HANDOFF_INLINE std::optional<std::set<std::string>> allowed_values(const nlohmann::json& schema,
                                                                   std::string_view pointer) {
    const nlohmann::json* field = nullptr;
    try {
        field = detail::routes::field_schema(schema, pointer);
    } catch (const nlohmann::json::exception&) {
        return std::nullopt; // not a JSON pointer
    }
    if (field == nullptr) {
        return std::nullopt;
    }
    std::set<std::string> out;
    if (const auto e = field->find("enum"); e != field->end() && e->is_array()) {
        // A value no key can name (nested past max_recursed_depth) is left out: no table routes
        // it, and no receiver compiles a schema holding it.
        for (const auto& v : *e) {
            if (std::optional<std::string> key = detail::routes::spelling(v)) {
                out.insert(std::move(*key));
            }
        }
        return out;
    }
    if (const auto c = field->find("const"); c != field->end()) {
        if (std::optional<std::string> key = detail::routes::spelling(*c)) {
            out.insert(std::move(*key));
        }
        return out;
    }
    return std::nullopt;
}

/// Every disagreement between the table's keys and the schema at `pointer`: values the table
/// lacks, then values the schema lacks, each sorted; empty when they match exactly.
HANDOFF_INLINE std::vector<route_mismatch> check_routes(const nlohmann::json& schema, std::string_view pointer,
                                                        const std::set<std::string>& table_values) {
    // The messages name the pointer and the values escaped and capped (docs/security.md); the
    // mismatch's pointer and value fields stay exact.
    const std::string at(pointer);
    const std::string shown_at = detail::message_pointer(at);
    const auto allowed = allowed_values(schema, pointer);
    if (!allowed) {
        return {{route_mismatch_kind::field_not_closed, at, "",
                 "the table routes on " + shown_at +
                     " but the schema has no field there with an enum or const to check the table against"}};
    }
    std::vector<route_mismatch> out;
    const std::string table = detail::routes::join(table_values);
    const std::string allowed_list = detail::routes::join(*allowed);
    for (const std::string& v : *allowed) {
        if (table_values.count(v) == 0) {
            std::string message = "the schema allows ";
            message.append(detail::quote_untrusted(v)).append(" at ").append(shown_at);
            message.append(" but the table has no handler for it (table: ").append(table).append(")");
            out.push_back({route_mismatch_kind::missing_handler, at, v, std::move(message)});
        }
    }
    for (const std::string& v : table_values) {
        if (allowed->count(v) == 0) {
            std::string message = "the table routes ";
            message.append(detail::quote_untrusted(v)).append(" at ").append(shown_at);
            message.append(" but the schema does not allow it (schema: ").append(allowed_list).append(")");
            out.push_back({route_mismatch_kind::unknown_value, at, v, std::move(message)});
        }
    }
    return out;
}

} // namespace handoff
