// SPDX-License-Identifier: MIT
#pragma once

#include <handoff/detail/schema/evaluated.hpp>
#include <handoff/detail/schema/node.hpp> // node_index
#include <handoff/problem.hpp>

#include <nlohmann/json.hpp>

#include <cstddef>       // size_t
#include <functional>    // hash
#include <unordered_map> // unordered_map

namespace handoff::detail {

/// One walk of a schema node over a value, as a walk that must give the same answer each time
/// it is made: the node, the value (by address: the values walked live as long as the walk), and
/// whether the walk lists problems and collects what it evaluated.
struct walk_key {
    node_index node = no_node;
    const nlohmann::json* value = nullptr;
    bool listing = false;
    bool annotating = false;

    bool operator==(const walk_key& o) const noexcept {
        return node == o.node && value == o.value && listing == o.listing && annotating == o.annotating;
    }
};

struct walk_key_hash {
    std::size_t operator()(const walk_key& k) const noexcept {
        const std::size_t flags = (k.listing ? 1U : 0U) | (k.annotating ? 2U : 0U);
        return std::hash<const void*>{}(k.value) ^
               (static_cast<std::size_t>(k.node) * static_cast<std::size_t>(0x9E3779B97F4A7C15ULL)) ^ flags;
    }
};

/// What a walk answered and recorded, so that the same walk made again is answered from here.
struct remembered_walk {
    bool passed = false;
    int reach = 0;            // how many levels deeper than its start the walk went
    std::size_t cost = 0;     // how many walks it made (remembered ones among them)
    problem_list listed;      // the problems it listed (a listing walk)
    std::size_t unlisted = 0; // and those it only counted
    evaluated own;            // what it evaluated (an annotating walk)
};

using walk_memo = std::unordered_map<walk_key, remembered_walk, walk_key_hash>;

/// The most walks kept at once (a full memory forgets its cheapest walks first): a long judgment
/// that repeats nothing would otherwise keep one record per walk it made.
inline constexpr std::size_t max_remembered_walks = std::size_t{1} << 16;

} // namespace handoff::detail
