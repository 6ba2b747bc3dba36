// SPDX-License-Identifier: MIT
#pragma once

// The syntax tree the parser builds and the compiler reads, and the error a bad pattern raises.

#include <handoff/detail/regex/code_points.hpp>

#include <cstddef>   // size_t
#include <cstdint>   // uint8_t, uint32_t
#include <stdexcept> // invalid_argument
#include <string>    // string
#include <vector>    // vector

namespace handoff::detail {

/// Thrown by ecma_regex::compile for a pattern that is not valid ECMA-262 or that handoff cannot
/// run; what() is one line that says why (and the offset in the pattern).
class regex_syntax_error : public std::invalid_argument {
public:
    using std::invalid_argument::invalid_argument;
};

namespace regex_impl {

inline constexpr std::uint32_t unbounded = 0xFFFFFFFF;

enum class node_kind : std::uint8_t {
    empty,
    literal,
    set,
    sequence,
    alternation,
    group,
    repeat,
    line_start,
    line_end,
    word_boundary,
    not_word_boundary,
    look,
    backref,
};

struct node {
    node_kind kind = node_kind::empty;
    char32_t cp = 0;               // literal
    range_set ranges;              // set
    std::vector<node> children;    // sequence, alternation; the one body of group, repeat, look
    std::uint32_t index = 0;       // group: capture number (0 = non-capturing); backref: group number
    std::uint32_t min = 0;         // repeat
    std::uint32_t max = 0;         // repeat; unbounded for * and +
    std::uint32_t first_group = 0; // repeat: captures [first_group, end_group) lie inside the body
    std::uint32_t end_group = 0;
    bool greedy = true;     // repeat
    bool behind = false;    // look
    bool negate = false;    // look
    std::string name;       // backref by name, resolved once every group is known
    std::size_t offset = 0; // code-point offset in the pattern, for errors
};

} // namespace regex_impl

} // namespace handoff::detail
