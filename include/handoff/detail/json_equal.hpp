// SPDX-License-Identifier: MIT
#pragma once

// JSON Schema's equality (enum, const, uniqueItems): numbers by value across int64, uint64 and
// double (1 == 1.0, exactly, never through a rounding double), objects order-free, arrays in
// order. json_compare extends it to a total order, so uniqueItems sorts instead of comparing
// every pair (10,000 items would be 50 million comparisons).

#include <handoff/detail/json_number.hpp>

#include <nlohmann/json.hpp>

#include <cstdint> // uint8_t

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

/// -1, 0 or 1; 0 exactly when JSON Schema calls the two values equal.
[[nodiscard]] inline int json_compare(const nlohmann::json& a, const nlohmann::json& b) {
    const int ra = type_rank(a);
    const int rb = type_rank(b);
    if (ra != rb) {
        return ra < rb ? -1 : 1;
    }
    switch (ra) {
    case 1: return a.get<bool>() == b.get<bool>() ? 0 : (a.get<bool>() ? 1 : -1);
    case 2: return compare_numbers(a, b);
    case 3: {
        const int c = a.get_ref<const std::string&>().compare(b.get_ref<const std::string&>());
        return c < 0 ? -1 : (c > 0 ? 1 : 0);
    }
    case 4:
    case 5: {
        if (a.size() != b.size()) {
            return a.size() < b.size() ? -1 : 1;
        }
        // Both walk in order: arrays by index, objects by sorted key (nlohmann's std::map).
        for (auto i = a.begin(), k = b.begin(); i != a.end(); ++i, ++k) {
            if (ra == 5) {
                if (const int c = i.key().compare(k.key()); c != 0) {
                    return c < 0 ? -1 : 1;
                }
            }
            if (const int c = json_compare(*i, *k); c != 0) {
                return c;
            }
        }
        return 0;
    }
    default: return 0;
    }
}

[[nodiscard]] inline bool json_equal(const nlohmann::json& a, const nlohmann::json& b) {
    return json_compare(a, b) == 0;
}

} // namespace handoff::detail
