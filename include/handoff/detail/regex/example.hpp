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

/// Steps the search takes at most (an instruction a closure passes, a consuming instruction
/// tried on a character, a word of the closure's marks cleared) before it gives up: a pattern
/// with a short example needs a few thousand, and a hostile one (thousands of optional parts,
/// each state a set of thousands of instructions) ends within milliseconds.
inline constexpr std::size_t max_example_steps = std::size_t{1} << 22;

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

class example_search {
public:
    example_search(const program& p, std::size_t min_length, std::size_t max_length)
        : p_(p), min_length_(min_length), max_length_(max_length) {}

    /// See shortest_example.
    [[nodiscard]] std::optional<std::string> run() {
        std::vector<std::size_t> level{0};
        nodes_.push_back(node{{0}, 0, 0});
        for (std::size_t length = 0; length <= max_length_ && !level.empty(); ++length) {
            std::vector<std::size_t> next;
            for (const std::size_t at : level) {
                const auto [consuming, matched] = closure(nodes_[at].seeds, length == 0, true);
                if (over_budget()) {
                    return std::nullopt;
                }
                if (matched && length >= min_length_) {
                    return text_of(at);
                }
                expand(at, length, next);
            }
            level = std::move(next);
        }
        return std::nullopt;
    }

private:
    struct node {
        std::vector<std::uint32_t> seeds; // the instructions it resumes at
        std::size_t parent;
        char32_t c; // the character read from the parent
    };

    [[nodiscard]] bool over_budget() const noexcept { return steps_ > max_example_steps; }

    /// Adds to `next` the node each character offered at node `at` leads to, unless its set of
    /// instructions was reached before (at this length, counted up to min_length).
    void expand(std::size_t at, std::size_t length, std::vector<std::size_t>& next) {
        const std::vector<std::uint32_t> consuming = closure(nodes_[at].seeds, length == 0, false).first;
        std::vector<char32_t> offered;
        for (const std::uint32_t pc : consuming) {
            if (const std::optional<char32_t> c = offered_character(p_, p_.code[pc])) {
                offered.push_back(*c);
            }
        }
        std::sort(offered.begin(), offered.end());
        offered.erase(std::unique(offered.begin(), offered.end()), offered.end());
        for (const char32_t c : offered) {
            std::vector<std::uint32_t> seeds;
            for (const std::uint32_t from : consuming) {
                if (consumes(p_, p_.code[from], c)) {
                    seeds.push_back(from + 1);
                }
            }
            steps_ += consuming.size();
            if (over_budget()) {
                return;
            }
            if (visited_.emplace(seeds, std::min(length + 1, min_length_)).second) {
                nodes_.push_back(node{std::move(seeds), at, c});
                next.push_back(nodes_.size() - 1);
            }
        }
    }

    /// The instructions reached from `seeds` without consuming a character, at a position that
    /// is the subject's start or end as told: the consuming ones (sorted), and whether `match` is.
    std::pair<std::vector<std::uint32_t>, bool> closure(const std::vector<std::uint32_t>& seeds, bool at_start,
                                                        bool at_end) {
        std::vector<std::uint32_t> consuming;
        std::vector<bool> seen(p_.code.size(), false);
        steps_ += p_.code.size() / 64 + 1;
        std::vector<std::uint32_t> todo(seeds.rbegin(), seeds.rend());
        bool matched = false;
        while (!todo.empty() && !over_budget()) {
            const std::uint32_t pc = todo.back();
            todo.pop_back();
            if (pc >= p_.code.size() || seen[pc]) {
                continue;
            }
            seen[pc] = true;
            ++steps_;
            const instruction& in = p_.code[pc];
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

    [[nodiscard]] std::string text_of(std::size_t at) const {
        std::u32string reversed;
        for (; at != 0; at = nodes_[at].parent) {
            reversed.push_back(nodes_[at].c);
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
    std::set<std::pair<std::vector<std::uint32_t>, std::size_t>> visited_;
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
