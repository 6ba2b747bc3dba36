// SPDX-License-Identifier: MIT
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef> // size_t
#include <utility> // pair
#include <vector>  // vector

namespace handoff::detail {

/// Whether `v` nests objects and arrays more than `limit` deep, found without recursion (so a
/// hostile depth cannot exhaust the stack while it is measured).
[[nodiscard]] inline bool nests_deeper_than(const nlohmann::json& v, std::size_t limit) {
    std::vector<std::pair<const nlohmann::json*, std::size_t>> pending{{&v, 1}};
    while (!pending.empty()) {
        const auto [node, depth] = pending.back();
        pending.pop_back();
        if (!node->is_structured()) {
            continue;
        }
        if (depth > limit) {
            return true;
        }
        for (const nlohmann::json& child : *node) {
            pending.emplace_back(&child, depth + 1);
        }
    }
    return false;
}

} // namespace handoff::detail
