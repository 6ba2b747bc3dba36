// SPDX-License-Identifier: MIT
#pragma once

// The instructions a compiled pattern runs, and the fast path for a pattern that is plain text.

#include <handoff/detail/regex/code_points.hpp>

#include <cstdint>     // uint8_t, uint32_t
#include <optional>    // optional
#include <string>      // string
#include <string_view> // string_view
#include <vector>      // vector

namespace handoff::detail::regex_impl {

enum class op : std::uint8_t {
    literal,           // a = code point
    set,               // a = index into program::sets
    split,             // try a, then b
    jump,              // a
    line_start,        //
    line_end,          //
    word_boundary,     //
    not_word_boundary, //
    look,              // a = index into program::looks, b = continuation
    look_match,        // the end of a lookaround body
    match,             //
    open,              // a = group (capture mode only)
    close,             // a = group (capture mode only)
    reset,             // groups [a, b) become undefined (capture mode only)
    mark,              // register a = position (capture mode only)
    check,             // fail when register a == position: an empty iteration (capture mode only)
    backref,           // a = group
};

struct instruction {
    op code;
    bool backward; // consuming instructions of a lookbehind body read leftwards
    std::uint32_t a;
    std::uint32_t b;
};

struct look_info {
    std::uint32_t start; // first instruction of the body
    bool negate;
};

/// Immutable after compile; shared by every copy of an ecma_regex.
struct program {
    std::string source;
    std::vector<instruction> code;
    std::vector<range_set> sets;
    std::vector<look_info> looks;
    std::uint32_t groups = 0;
    std::uint32_t registers = 0;
    bool backrefs = false;
    bool empty_loops = false; // some cycle of instructions consumes nothing (see has_empty_loop)
    /// A pattern that is only ASCII literal characters, optionally anchored (`^x-`, `\.json$`
    /// is not one: it has an escape): it matches an ASCII subject exactly where the bytes do.
    struct literal_text {
        std::string text;
        bool at_start = false; // ^
        bool at_end = false;   // $
    };
    std::optional<literal_text> literal;
};

/// The literal's answer on an ASCII subject (in UTF-8, an ASCII byte is always a whole character).
[[nodiscard]] inline bool literal_matches(const program::literal_text& l, std::string_view subject) noexcept {
    if (l.at_start && l.at_end) {
        return subject == l.text;
    }
    if (l.at_start) {
        return subject.substr(0, l.text.size()) == l.text;
    }
    if (l.at_end) {
        return subject.size() >= l.text.size() && subject.substr(subject.size() - l.text.size()) == l.text;
    }
    return subject.find(l.text) != std::string_view::npos;
}

} // namespace handoff::detail::regex_impl
