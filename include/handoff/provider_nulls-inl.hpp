// SPDX-License-Identifier: MIT
#pragma once

// remove_nulled_optionals()' definitions: inline in every file header-only, compiled once in
// <handoff/src.hpp> otherwise (config.hpp).

#include <handoff/detail/provider/nulled_optionals.hpp>
#include <handoff/provider_nulls.hpp>
#include <handoff/provider_schema.hpp>

#include <nlohmann/json.hpp>

#include <string>      // string
#include <string_view> // string_view
#include <vector>      // vector

namespace handoff {
namespace detail {

template <class Json>
void remove_nulled_optionals_in(Json& reply, const provider_schema_result& sent) {
    std::vector<instance_path> paths;
    for (const schema_note& note : sent.notes) {
        if (note.kind == schema_note_kind::made_nullable) {
            add_nulled_path(paths, note.pointer);
        }
    }
    remove_nulls_at(reply, paths);
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
    nlohmann::ordered_json reply = nlohmann::ordered_json::parse(reply_text, nullptr, false);
    if (reply.is_discarded()) {
        return std::string(reply_text);
    }
    remove_nulled_optionals(reply, sent);
    return reply.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

} // namespace handoff
