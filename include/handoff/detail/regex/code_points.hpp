// SPDX-License-Identifier: MIT
#pragma once

// Code points as the engine sees them: sets of code point ranges, and the ASCII classes the
// syntax and `\b` test.

#include <algorithm> // sort, max, any_of, upper_bound
#include <iterator>  // prev
#include <vector>    // vector

namespace handoff::detail::regex_impl {

inline constexpr char32_t max_code_point = 0x10FFFF;

struct code_range {
    char32_t lo;
    char32_t hi;
};
using range_set = std::vector<code_range>;

/// Sorted, non-overlapping, non-adjacent ranges: the form every class is matched in.
[[nodiscard]] inline range_set normalized(range_set r) {
    std::sort(r.begin(), r.end(), [](const code_range& a, const code_range& b) { return a.lo < b.lo; });
    range_set out;
    for (const code_range& x : r) {
        if (!out.empty() && x.lo <= out.back().hi + 1) {
            out.back().hi = std::max(out.back().hi, x.hi);
        } else {
            out.push_back(x);
        }
    }
    return out;
}

/// The code points 0..max_code_point not in `r` (which must be normalized).
[[nodiscard]] inline range_set complement(const range_set& r) {
    range_set out;
    char32_t next = 0;
    for (const code_range& x : r) {
        if (x.lo > next) {
            out.push_back({next, x.lo - 1});
        }
        next = x.hi + 1;
    }
    if (next <= max_code_point) {
        out.push_back({next, max_code_point});
    }
    return out;
}

[[nodiscard]] inline bool in_ranges(const range_set& r, char32_t c) noexcept {
    if (r.size() <= 8) { // a short scan beats a binary search on the common small class
        return std::any_of(r.begin(), r.end(), [c](const code_range& x) { return c >= x.lo && c <= x.hi; });
    }
    auto it = std::upper_bound(r.begin(), r.end(), c, [](char32_t v, const code_range& x) { return v < x.lo; });
    return it != r.begin() && c <= std::prev(it)->hi;
}

[[nodiscard]] inline bool is_ascii_letter(char32_t c) noexcept { return (c | 0x20) >= 'a' && (c | 0x20) <= 'z'; }
[[nodiscard]] inline bool is_digit(char32_t c) noexcept { return c >= '0' && c <= '9'; }

} // namespace handoff::detail::regex_impl
