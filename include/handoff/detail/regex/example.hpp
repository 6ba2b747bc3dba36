// SPDX-License-Identifier: MIT
#pragma once

// A subject a compiled pattern matches: the shortest path through the program from its first
// instruction to `match` that consumes `min` to `max` characters, found breadth first, one
// character at a time, over single program states (an instruction, the characters read up to
// `min`, whether the subject has begun, whether `$` ended it). Each consuming instruction offers
// one character of its own set (a letter or digit when it has one), so a path spells a subject
// the pattern matches whole: `^` holds only at its start and `$` only at its end, and an
// unanchored search (JSON Schema's `pattern`) finds it. The states are at most the program's
// size times (min + 1) times four, and the search stops past max_example_steps.
//
// A lookaround, a back-reference or `\b` makes a match depend on more than the path taken; such
// patterns get no example (nullopt), as do those the bound cuts short.

#include <handoff/detail/regex/code_points.hpp>
#include <handoff/detail/regex/program.hpp>
#include <handoff/detail/text.hpp>

#include <algorithm> // any_of, max, min
#include <cstddef>   // size_t
#include <cstdint>   // uint32_t
#include <optional>  // optional
#include <set>       // set
#include <string>    // string, u32string
#include <tuple>     // tie
#include <utility>   // move, pair
#include <vector>    // vector

namespace handoff::detail::regex_impl {

/// Steps the search takes at most (each state it reaches, new or not): patterns
/// people write need a few hundred, and a hostile one gives up in well under a second.
inline constexpr std::size_t max_example_steps = std::size_t{1} << 19;

/// The character a consuming instruction offers: its literal, or the first code point of its set
/// in the order ASCII letters and digits, other printable ASCII, other scalar values, control
/// characters; nullopt when it holds only surrogates, which no UTF-8 subject (no JSON string)
/// can hold.
[[nodiscard]] inline std::optional<char32_t> offered_character(const program& p, const instruction& in) {
    const auto scalar = [](char32_t c) { return c < 0xD800 || (c > 0xDFFF && c <= max_code_point); };
    if (in.code == op::literal) {
        const auto c = static_cast<char32_t>(in.a);
        return scalar(c) ? std::optional<char32_t>(c) : std::nullopt;
    }
    const range_set& set = p.sets[in.a];
    static constexpr code_range preferred[] = {{'a', 'z'},   {'A', 'Z'},     {'0', '9'},
                                               {0x20, 0x7E}, {0xA0, 0xD7FF}, {0xE000, max_code_point},
                                               {0x00, 0x1F}, {0x7F, 0x9F}};
    for (const code_range& wanted : preferred) {
        for (const code_range& r : set) {
            if (r.hi >= wanted.lo && r.lo <= wanted.hi) {
                return std::max(r.lo, wanted.lo);
            }
        }
    }
    return std::nullopt;
}

class example_search {
public:
    example_search(const program& p, std::size_t min_length, std::size_t max_length)
        : p_(p), min_length_(min_length), max_length_(max_length) {}

    /// See shortest_example.
    [[nodiscard]] std::optional<std::string> run() {
        std::vector<std::size_t> level;
        reach(state{0, 0, false, false}, 0, std::nullopt, level);
        for (std::size_t length = 0; length <= max_length_ && !level.empty() && steps_ <= max_example_steps; ++length) {
            std::vector<std::size_t> next;
            for (std::size_t i = 0; i < level.size() && steps_ <= max_example_steps; ++i) { // grows: no-character moves
                const std::size_t at = level[i];
                const state s = nodes_[at].where;
                const instruction& in = p_.code[s.pc];
                if (in.code == op::match) {
                    if (s.read == min_length_) {
                        return text_of(at);
                    }
                } else if (in.code == op::literal || in.code == op::set) {
                    if (const auto c = offered_character(p_, in); c && !s.ended && length < max_length_) {
                        reach(state{s.pc + 1, std::min(s.read + 1, min_length_), true, false}, at, *c, next);
                    }
                } else {
                    follow(s, at, level);
                }
            }
            level = std::move(next);
        }
        return std::nullopt;
    }

private:
    /// A place of the search: an instruction, the characters read (counted up to min_length),
    /// whether any was, whether `$` was passed (nothing more may be read).
    struct state {
        std::uint32_t pc;
        std::size_t read;
        bool begun;
        bool ended;
        bool operator<(const state& o) const noexcept {
            return std::tie(pc, read, begun, ended) < std::tie(o.pc, o.read, o.begun, o.ended);
        }
    };
    struct node {
        state where;
        std::size_t parent;
        std::optional<char32_t> c; // read from the parent; none for a move that reads nothing
    };

    /// The moves of an instruction that reads no character, onto this length's list.
    void follow(const state& s, std::size_t at, std::vector<std::size_t>& level) {
        const instruction& in = p_.code[s.pc];
        const auto to = [&](std::uint32_t pc) { reach(state{pc, s.read, s.begun, s.ended}, at, std::nullopt, level); };
        switch (in.code) {
        case op::split:
            to(in.a);
            to(in.b);
            break;
        case op::jump: to(in.a); break;
        case op::line_start:
            if (!s.begun) {
                to(s.pc + 1);
            }
            break;
        case op::line_end: reach(state{s.pc + 1, s.read, s.begun, true}, at, std::nullopt, level); break;
        default: to(s.pc + 1); break; // open, close, reset, mark, check: no character
        }
    }

    void reach(const state& s, std::size_t parent, std::optional<char32_t> c, std::vector<std::size_t>& level) {
        ++steps_;
        if (s.pc >= p_.code.size() || !visited_.insert(s).second) {
            return;
        }
        nodes_.push_back(node{s, parent, c});
        level.push_back(nodes_.size() - 1);
    }

    [[nodiscard]] std::string text_of(std::size_t at) const {
        std::u32string reversed;
        for (; at != 0; at = nodes_[at].parent) {
            if (nodes_[at].c) {
                reversed.push_back(*nodes_[at].c);
            }
        }
        std::string out;
        for (auto it = reversed.rbegin(); it != reversed.rend(); ++it) {
            append_utf8(out, *it);
        }
        return out;
    }

    const program& p_;
    std::size_t min_length_;
    std::size_t max_length_;
    std::size_t steps_ = 0;
    std::vector<node> nodes_;
    std::set<state> visited_;
};

/// Whether the program holds an instruction whose outcome a path alone does not decide.
[[nodiscard]] inline bool needs_context(const program& p) {
    return p.backrefs || !p.looks.empty() || std::any_of(p.code.begin(), p.code.end(), [](const instruction& in) {
               return in.code == op::word_boundary || in.code == op::not_word_boundary || in.code == op::look ||
                      in.code == op::backref;
           });
}

/// The shortest subject (UTF-8) of `min_length` to `max_length` code points that `p` matches
/// whole, or nullopt (see above).
[[nodiscard]] inline std::optional<std::string> shortest_example(const program& p, std::size_t min_length,
                                                                 std::size_t max_length) {
    if (needs_context(p) || min_length > max_length) {
        return std::nullopt;
    }
    return example_search(p, min_length, max_length).run();
}

} // namespace handoff::detail::regex_impl
