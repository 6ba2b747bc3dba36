// SPDX-License-Identifier: MIT
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef> // size_t
#include <utility> // pair
#include <vector>  // vector

namespace handoff::detail {

/// Nesting past which handoff never copies, converts, compares or writes out a JSON value from
/// outside (a provider's body, a reply, a value to route): nlohmann's copy, dump and == recurse
/// once per level, each level a frame of its own, so the stack they need grows with the depth.
/// This bound keeps them within small thread stacks (musl's default is 128 KiB) in an optimised
/// build. A value nested deeper is refused, or handed back untouched, before any of them.
inline constexpr std::size_t max_recursed_depth = 256;

/// Whether `v` nests objects and arrays more than `limit` deep, found without recursion (so a
/// hostile depth cannot exhaust the stack while it is measured).
/// `Json` is nlohmann::json or nlohmann::ordered_json.
template <class Json = nlohmann::json>
[[nodiscard]] bool nests_deeper_than(const Json& v, std::size_t limit) {
    std::vector<std::pair<const Json*, std::size_t>> pending{{&v, 1}};
    while (!pending.empty()) {
        const auto [node, depth] = pending.back();
        pending.pop_back();
        if (!node->is_structured()) {
            continue;
        }
        if (depth > limit) {
            return true;
        }
        for (const Json& child : *node) {
            pending.emplace_back(&child, depth + 1);
        }
    }
    return false;
}

} // namespace handoff::detail
