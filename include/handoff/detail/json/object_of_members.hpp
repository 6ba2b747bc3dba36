// SPDX-License-Identifier: MIT
#pragma once

#include <iterator>    // make_move_iterator
#include <string>      // string
#include <string_view> // string_view
#include <utility>     // move, pair
#include <vector>      // vector

namespace handoff::detail {

/// A JSON object of `members`, whose keys must differ (they come from one object, or were made
/// unique). Built from the range at once: an nlohmann::ordered_json object looks a key up from
/// its first member when members are added one by one, the square of their count in all.
template <class Json>
[[nodiscard]] Json object_of_members(std::vector<std::pair<std::string, Json>>&& members) {
    Json out = Json(Json::value_t::object);
    out.template get_ref<typename Json::object_t&>() =
        typename Json::object_t(std::make_move_iterator(members.begin()), std::make_move_iterator(members.end()));
    return out;
}

/// `node` with `from` renamed `to` in place (the key keeps its position).
template <class Json>
[[nodiscard]] Json renamed(const Json& node, std::string_view from, std::string_view to) {
    Json out = Json(Json::value_t::object);
    for (auto it = node.begin(); it != node.end(); ++it) {
        out[it.key() == from ? std::string(to) : it.key()] = it.value();
    }
    return out;
}

} // namespace handoff::detail
