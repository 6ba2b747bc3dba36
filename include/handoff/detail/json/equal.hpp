// SPDX-License-Identifier: MIT
#pragma once

// JSON Schema's equality (enum, const, uniqueItems): numbers by value across int64, uint64 and
// double (1 == 1.0, exactly, never through a rounding double), objects order-free, arrays in
// order. json_compare extends it to a total order, so uniqueItems sorts instead of comparing
// every pair (10,000 items would be 50 million comparisons).

#include <handoff/detail/json/number.hpp>

#include <nlohmann/json.hpp>

#include <string> // string
#include <vector> // vector

namespace handoff::detail {

[[nodiscard]] inline int type_rank(const nlohmann::json& j) noexcept {
    switch (j.type()) {
    case nlohmann::json::value_t::null: return 0;
    case nlohmann::json::value_t::boolean: return 1;
    case nlohmann::json::value_t::number_integer:
    case nlohmann::json::value_t::number_unsigned:
    case nlohmann::json::value_t::number_float: return 2;
    case nlohmann::json::value_t::string: return 3;
    case nlohmann::json::value_t::array: return 4;
    case nlohmann::json::value_t::object: return 5;
    default: return 6;
    }
}

/// Compares two values of the same rank that are not containers.
[[nodiscard]] inline int compare_scalars(const nlohmann::json& a, const nlohmann::json& b, int rank) {
    switch (rank) {
    case 1: return a.get<bool>() == b.get<bool>() ? 0 : (a.get<bool>() ? 1 : -1);
    case 2: return compare_numbers(a, b);
    case 3: {
        const int c = a.get_ref<const std::string&>().compare(b.get_ref<const std::string&>());
        return c < 0 ? -1 : (c > 0 ? 1 : 0);
    }
    default: return 0;
    }
}

/// -1, 0 or 1; 0 exactly when JSON Schema calls the two values equal. Iterative (an explicit
/// stack of container pairs), so a value nested 100,000 deep cannot overflow the call stack.
[[nodiscard]] inline int json_compare(const nlohmann::json& a, const nlohmann::json& b) {
    struct pair_walk {
        nlohmann::json::const_iterator at_a, end_a, at_b;
        bool object;
    };
    std::vector<pair_walk> stack;
    const nlohmann::json* x = &a;
    const nlohmann::json* y = &b;
    for (;;) {
        const int rx = type_rank(*x);
        const int ry = type_rank(*y);
        if (rx != ry) {
            return rx < ry ? -1 : 1;
        }
        if (rx == 4 || rx == 5) {
            if (x->size() != y->size()) {
                return x->size() < y->size() ? -1 : 1;
            }
            // Both walk in order: arrays by index, objects by sorted key (nlohmann's std::map).
            stack.push_back(pair_walk{x->cbegin(), x->cend(), y->cbegin(), rx == 5});
        } else if (const int c = compare_scalars(*x, *y, rx); c != 0) {
            return c;
        }
        while (!stack.empty() && stack.back().at_a == stack.back().end_a) {
            stack.pop_back();
        }
        if (stack.empty()) {
            return 0;
        }
        pair_walk& top = stack.back();
        if (top.object) {
            if (const int c = top.at_a.key().compare(top.at_b.key()); c != 0) {
                return c < 0 ? -1 : 1;
            }
        }
        x = &*top.at_a++;
        y = &*top.at_b++;
    }
}

[[nodiscard]] inline bool json_equal(const nlohmann::json& a, const nlohmann::json& b) {
    return json_compare(a, b) == 0;
}

} // namespace handoff::detail
