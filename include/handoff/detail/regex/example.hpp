// SPDX-License-Identifier: MIT
#pragma once

// A subject a compiled pattern matches, found by a breadth-first search over the sets of
// instructions the program can be at after each character (the subset construction, built only
// as far as the search goes): the first set that reaches `match` at a length within the bounds
// gives the shortest such subject. The match starts at the subject's first character and ends at
// its last, so `^` holds exactly at the start and `$` exactly at the end, and an unanchored
// search (JSON Schema's `pattern`) finds it. Each consuming instruction offers one character,
// chosen from its set (a letter or digit when it has one): a path of the automaton is a
// sequence of instructions, each consuming one character of its own set, so whenever some
// subject within the bounds matches, these characters spell one too, unless the search's
// state bound ends it first.
//
// A lookaround, a back-reference or `\b` makes a match depend on more than the instructions
// passed; such patterns get no example (nullopt), as do those the bound cuts short.

#include <handoff/detail/regex/code_points.hpp>
#include <handoff/detail/regex/program.hpp>
#include <handoff/detail/text.hpp>

#include <algorithm> // any_of, min, sort, unique
#include <cstddef>   // size_t
#include <cstdint>   // uint32_t
#include <optional>  // optional
#include <set>       // set
#include <string>    // string, u32string
#include <utility>   // move, pair
#include <vector>    // vector

namespace handoff::detail::regex_impl {

/// States the search visits at most before it gives up: a pattern with a short example reaches
/// it within a few hundred.
inline constexpr std::size_t max_example_states = 4096;

/// The character a consuming instruction offers: its literal, or the first code point of its set
/// in the order ASCII letters and digits, other visible ASCII, other scalar values, control
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
                                               {0x21, 0x7E}, {0xA0, 0xD7FF}, {0xE000, max_code_point},
                                               {0x00, 0x20}, {0x7F, 0x9F}};
    for (const code_range& wanted : preferred) {
        for (const code_range& r : set) {
            if (r.hi >= wanted.lo && r.lo <= wanted.hi) {
                return std::max(r.lo, wanted.lo);
            }
        }
    }
    return std::nullopt;
}

[[nodiscard]] inline bool consumes(const program& p, const instruction& in, char32_t c) {
    return in.code == op::literal ? in.a == c : in_ranges(p.sets[in.a], c);
}

/// The instructions reached from `seeds` without consuming a character, at a position that is
/// the subject's start or end as told: the consuming ones (sorted), and whether `match` is one.
[[nodiscard]] inline std::pair<std::vector<std::uint32_t>, bool>
example_closure(const program& p, const std::vector<std::uint32_t>& seeds, bool at_start, bool at_end) {
    std::vector<std::uint32_t> consuming;
    std::vector<bool> seen(p.code.size(), false);
    std::vector<std::uint32_t> todo(seeds.rbegin(), seeds.rend());
    bool matched = false;
    while (!todo.empty()) {
        const std::uint32_t pc = todo.back();
        todo.pop_back();
        if (pc >= p.code.size() || seen[pc]) {
            continue;
        }
        seen[pc] = true;
        const instruction& in = p.code[pc];
        switch (in.code) {
        case op::literal:
        case op::set: consuming.push_back(pc); break;
        case op::split:
            todo.push_back(in.b);
            todo.push_back(in.a);
            break;
        case op::jump: todo.push_back(in.a); break;
        case op::line_start:
            if (at_start) {
                todo.push_back(pc + 1);
            }
            break;
        case op::line_end:
            if (at_end) {
                todo.push_back(pc + 1);
            }
            break;
        case op::match: matched = true; break;
        default: todo.push_back(pc + 1); break; // open, close, reset, mark, check: no character
        }
    }
    std::sort(consuming.begin(), consuming.end());
    return {std::move(consuming), matched};
}

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
    struct state {
        std::vector<std::uint32_t> seeds;
        std::u32string text;
    };
    std::vector<state> level{state{{0}, {}}};
    std::set<std::pair<std::vector<std::uint32_t>, std::size_t>> visited;
    for (std::size_t length = 0; length <= max_length && !level.empty(); ++length) {
        std::vector<state> next;
        for (const state& s : level) {
            if (length >= min_length && example_closure(p, s.seeds, length == 0, true).second) {
                std::string out;
                for (const char32_t c : s.text) {
                    append_utf8(out, c);
                }
                return out;
            }
            const std::vector<std::uint32_t> consuming = example_closure(p, s.seeds, length == 0, false).first;
            for (const std::uint32_t pc : consuming) {
                const std::optional<char32_t> c = offered_character(p, p.code[pc]);
                if (!c) {
                    continue;
                }
                state moved{{}, s.text + *c};
                for (const std::uint32_t from : consuming) {
                    if (consumes(p, p.code[from], *c)) {
                        moved.seeds.push_back(from + 1);
                    }
                }
                if (visited.emplace(moved.seeds, std::min(length + 1, min_length)).second) {
                    if (visited.size() > max_example_states) {
                        return std::nullopt;
                    }
                    next.push_back(std::move(moved));
                }
            }
        }
        level = std::move(next);
    }
    return std::nullopt;
}

} // namespace handoff::detail::regex_impl
