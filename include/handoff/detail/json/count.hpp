// SPDX-License-Identifier: MIT
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef> // size_t
#include <limits>  // numeric_limits
#include <vector>  // vector

namespace handoff::detail {

/// How many of the values in `v` (itself included) `counts` says count, found without recursion
/// (a hostile depth cannot exhaust the stack), the walk stopping once the count passes `limit`.
template <class Counts>
[[nodiscard]] std::size_t count_values(const nlohmann::json& v, Counts counts,
                                       std::size_t limit = std::numeric_limits<std::size_t>::max() - 1) {
    std::size_t n = 0;
    std::vector<const nlohmann::json*> todo{&v};
    while (!todo.empty() && n <= limit) {
        const nlohmann::json* at = todo.back();
        todo.pop_back();
        n += counts(*at) ? 1 : 0;
        if (at->is_structured()) {
            for (const nlohmann::json& child : *at) {
                todo.push_back(&child);
            }
        }
    }
    return n;
}

} // namespace handoff::detail
