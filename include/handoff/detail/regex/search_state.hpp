// SPDX-License-Identifier: MIT
#pragma once

// What both matchers share: the answer of a search, per-thread scratch buffers, and the subject
// with the instructions whose meaning does not involve captures.

#include <handoff/detail/regex/code_points.hpp>
#include <handoff/detail/regex/program.hpp>

#include <cstddef> // size_t
#include <cstdint> // uint8_t, uint32_t, uint64_t, int64_t
#include <vector>  // vector

namespace handoff::detail {

enum class regex_match : std::uint8_t { found, not_found, too_costly };

namespace regex_impl {

inline constexpr std::uint64_t backtrack_budget = 1000000;
/// Scratch buffers larger than this many bytes are released after the search that grew them.
inline constexpr std::size_t max_kept_scratch = std::size_t{4} << 20;

/// Per-thread buffers reused by every search on the thread (they only grow).
struct scratch {
    std::vector<char32_t> text;
    std::vector<std::uint64_t> visited;
    std::vector<std::uint8_t> look_memo; // per (lookaround, position): 0 unknown, 1 false, 2 true
    std::vector<std::uint64_t> touched;  // visited bits set inside lookaround sub-searches
    std::vector<std::uint64_t> reached;  // states of lookaround bodies known to reach look_match
    std::vector<std::uint64_t> path;     // inside a sub-search: the states from its start to here
    struct pending {
        std::uint32_t pc;
        std::uint32_t pos;
        std::uint32_t path; // path length when the alternative was pushed (< max_visited_bits)
    };
    std::vector<pending> stack;
    struct frame {
        std::uint32_t a;  // pc, or slot
        std::uint32_t b;  // position
        std::int64_t old; // the slot's previous value
        bool restore;
    };
    std::vector<frame> frames;
};

[[nodiscard]] inline scratch& thread_scratch() {
    thread_local scratch s;
    return s;
}

/// Keeps the common case allocation-free without pinning megabytes to a thread after one huge
/// subject.
template <typename T>
void release_if_large(std::vector<T>& v) {
    if (v.capacity() * sizeof(T) > max_kept_scratch) {
        std::vector<T>().swap(v);
    }
}

inline void release_large_scratch(scratch& sc) {
    release_if_large(sc.text);
    release_if_large(sc.visited);
    release_if_large(sc.look_memo);
    release_if_large(sc.touched);
    release_if_large(sc.reached);
    release_if_large(sc.path);
    release_if_large(sc.stack);
    release_if_large(sc.frames);
}

[[nodiscard]] inline bool is_word_char(char32_t c) noexcept { return is_digit(c) || is_ascii_letter(c) || c == '_'; }

/// Shared by both matchers: the instructions whose meaning does not involve captures.
struct subject {
    const char32_t* text;
    std::uint32_t size;

    /// Consumes one code point in the instruction's direction; false at the edge of the text.
    [[nodiscard]] bool next_code_point(const instruction& in, std::uint32_t& pos, char32_t& c) const noexcept {
        if (in.backward) {
            if (pos == 0) {
                return false;
            }
            c = text[--pos];
            return true;
        }
        if (pos >= size) {
            return false;
        }
        c = text[pos++];
        return true;
    }

    /// A literal or set instruction of `p`: consumes the next code point when it fits.
    [[nodiscard]] bool consume_matching(const instruction& in, const program& p, std::uint32_t& pos) const noexcept {
        char32_t c = 0;
        return next_code_point(in, pos, c) && (in.code == op::literal ? c == in.a : in_ranges(p.sets[in.a], c));
    }

    [[nodiscard]] bool word_at(std::uint32_t pos) const noexcept { return pos < size && is_word_char(text[pos]); }
    /// ECMA-262 22.2.2.6 IsWordChar on both sides; `^` and `$` without the m flag.
    [[nodiscard]] bool assertion_holds(op assertion, std::uint32_t pos) const noexcept {
        const bool boundary = (pos > 0 && word_at(pos - 1)) != word_at(pos);
        switch (assertion) {
        case op::line_start: return pos == 0;
        case op::line_end: return pos == size;
        case op::word_boundary: return boundary;
        default: return !boundary;
        }
    }
};

} // namespace regex_impl

} // namespace handoff::detail
