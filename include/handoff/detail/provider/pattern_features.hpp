// SPDX-License-Identifier: MIT
#pragma once

// The regex features providers refuse in a `pattern`, found in one pass over the pattern's text
// (ECMA-262 syntax, as JSON Schema writes patterns). Only what the keyword matrix (rules.hpp)
// asks about is found; the pattern is not compiled here, the receiver compiles it.

#include <algorithm>   // max
#include <cstddef>     // size_t
#include <cstdint>     // uint64_t
#include <string_view> // string_view

namespace handoff::detail {

struct pattern_features {
    bool lookaround = false;         // (?= (?! (?<= (?<!
    bool backreference = false;      // \1 ... \9, \k<name>
    bool word_boundary = false;      // \b \B outside a class
    bool property_escape = false;    // \p{...} \P{...}
    bool anchored = false;           // starts with ^ and ends with an unescaped $
    std::uint64_t largest_bound = 0; // the largest number inside a {n}, {n,} or {n,m} quantifier
};

/// The number at `p[at...]`, its digits skipped; saturates instead of overflowing.
[[nodiscard]] inline std::uint64_t read_bound(std::string_view p, std::size_t& at) {
    std::uint64_t value = 0;
    for (; at < p.size() && p[at] >= '0' && p[at] <= '9'; ++at) {
        value = value > (UINT64_MAX - 9) / 10 ? UINT64_MAX : value * 10 + static_cast<std::uint64_t>(p[at] - '0');
    }
    return value;
}

/// `p[at]` is '{': the quantifier's largest bound, or nothing when the brace is a literal.
inline void read_quantifier(std::string_view p, std::size_t at, pattern_features& found) {
    std::size_t i = at + 1;
    const std::size_t digits = i;
    const std::uint64_t low = read_bound(p, i);
    if (i == digits) {
        return; // "{" not followed by a number is a literal brace
    }
    std::uint64_t high = low;
    if (i < p.size() && p[i] == ',') {
        ++i;
        high = read_bound(p, i);
    }
    if (i < p.size() && p[i] == '}') {
        found.largest_bound = std::max({found.largest_bound, low, high});
    }
}

/// An escape at `p[at]` == '\\' (outside a class unless `in_class`).
inline void read_escape(std::string_view p, std::size_t at, bool in_class, pattern_features& found) {
    if (at + 1 >= p.size()) {
        return;
    }
    const char next = p[at + 1];
    if (next == 'p' || next == 'P') {
        found.property_escape = true;
    } else if (!in_class && ((next >= '1' && next <= '9') || (next == 'k' && at + 2 < p.size() && p[at + 2] == '<'))) {
        found.backreference = true; // \1 ... \9, or a named \k<name>
    } else if (!in_class && (next == 'b' || next == 'B')) {
        found.word_boundary = true; // inside a class \b is a backspace
    }
}

[[nodiscard]] inline pattern_features scan_pattern(std::string_view p) {
    pattern_features found;
    bool in_class = false;
    bool escaped_end = false;
    for (std::size_t i = 0; i < p.size(); ++i) {
        const char c = p[i];
        if (c == '\\') {
            read_escape(p, i, in_class, found);
            escaped_end = i + 2 == p.size();
            ++i;
        } else if (in_class) {
            in_class = c != ']';
        } else if (c == '[') {
            in_class = true;
        } else if (c == '(' && (p.substr(i).rfind("(?=", 0) == 0 || p.substr(i).rfind("(?!", 0) == 0 ||
                                p.substr(i).rfind("(?<=", 0) == 0 || p.substr(i).rfind("(?<!", 0) == 0)) {
            found.lookaround = true;
        } else if (c == '{') {
            read_quantifier(p, i, found);
        }
    }
    found.anchored = p.size() >= 2 && p.front() == '^' && p.back() == '$' && !escaped_end;
    return found;
}

} // namespace handoff::detail
