// SPDX-License-Identifier: MIT
#pragma once

// Syntax tree to program, and the analyses of the program that choose how it runs.

#include <handoff/detail/regex/program.hpp>
#include <handoff/detail/regex/syntax_tree.hpp>

#include <algorithm>     // all_of
#include <cstddef>       // size_t
#include <cstdint>       // uint8_t, uint32_t
#include <optional>      // optional, nullopt
#include <string>        // string, to_string
#include <string_view>   // string_view
#include <unordered_map> // unordered_map
#include <utility>       // pair
#include <vector>        // vector

namespace handoff::detail::regex_impl {

inline constexpr std::size_t max_program = 100000;

/// The literal a pattern is, if it is one: `^`? then ASCII characters that stand for themselves
/// in ECMA-262 (no syntax character, no escape), then `$`?. Such a pattern compiles to a chain
/// of literal instructions, so comparing bytes answers exactly what the matcher would.
[[nodiscard]] inline std::optional<program::literal_text> literal_of(std::string_view pattern) {
    program::literal_text out;
    out.at_start = !pattern.empty() && pattern.front() == '^';
    pattern.remove_prefix(out.at_start ? 1 : 0);
    out.at_end = !pattern.empty() && pattern.back() == '$';
    pattern.remove_suffix(out.at_end ? 1 : 0);
    for (const char c : pattern) {
        const auto u = static_cast<unsigned char>(c);
        if (u < 0x20U || u >= 0x7FU || std::string_view("\\^$.|?*+()[]{}/").find(c) != std::string_view::npos) {
            return std::nullopt;
        }
    }
    out.text = std::string(pattern);
    return out;
}

/// The instructions that may follow `in` (at `pc`) without consuming a character.
inline void epsilon_successors(const instruction& in, std::uint32_t pc, std::vector<std::uint32_t>& out) {
    switch (in.code) {
    case op::split:
        out.push_back(in.a);
        out.push_back(in.b);
        break;
    case op::jump: out.push_back(in.a); break;
    case op::look: out.push_back(in.b); break;
    case op::literal:
    case op::set:
    case op::backref:
    case op::match:
    case op::look_match: break;
    default: out.push_back(pc + 1); break;
    }
}

/// Whether the program has a cycle through instructions that consume nothing, as `(a*)*` has
/// (an iteration of its body can match empty). Iterative three-colour depth-first search.
[[nodiscard]] inline bool has_empty_loop(const std::vector<instruction>& code) {
    enum : std::uint8_t { fresh, open, done };
    std::vector<std::uint8_t> colour(code.size(), fresh);
    std::vector<std::pair<std::uint32_t, std::vector<std::uint32_t>>> stack;
    for (std::uint32_t root = 0; root < code.size(); ++root) {
        if (colour[root] != fresh) {
            continue;
        }
        colour[root] = open;
        stack.emplace_back(root, std::vector<std::uint32_t>{});
        epsilon_successors(code[root], root, stack.back().second);
        while (!stack.empty()) {
            auto& [pc, next] = stack.back();
            if (next.empty()) {
                colour[pc] = done;
                stack.pop_back();
                continue;
            }
            const std::uint32_t to = next.back();
            next.pop_back();
            if (colour[to] == open) {
                return true;
            }
            if (colour[to] == fresh) {
                colour[to] = open;
                stack.emplace_back(to, std::vector<std::uint32_t>{});
                epsilon_successors(code[to], to, stack.back().second);
            }
        }
    }
    return false;
}

/// Tree to program. Capture bookkeeping (open/close/reset/mark/check) is emitted only when the
/// pattern has back-references: without them the answer does not depend on captures.
class compiler {
public:
    compiler(program& p, bool captures) : program_(p), captures_(captures) {}

    void emit_all(const node& root) {
        emit_node(root);
        emit(op::match);
    }

private:
    program& program_;
    bool captures_;
    bool backward_ = false;
    std::unordered_map<const node*, std::uint32_t> set_indexes_; // each set node's entry in program_.sets

    /// A set node repeated by a counter (`\p{L}{1000}`) is emitted many times but stored once.
    std::uint32_t set_index(const node& n) {
        const auto [it, added] = set_indexes_.try_emplace(&n, static_cast<std::uint32_t>(program_.sets.size()));
        if (added) {
            program_.sets.push_back(n.ranges);
        }
        return it->second;
    }

    std::uint32_t emit(op code, std::uint32_t a = 0, std::uint32_t b = 0) {
        if (program_.code.size() >= max_program) {
            throw regex_syntax_error("regular expression too large: more than " + std::to_string(max_program) +
                                     " instructions after expanding counted repetition");
        }
        program_.code.push_back({code, backward_, a, b});
        return static_cast<std::uint32_t>(program_.code.size() - 1);
    }
    [[nodiscard]] std::uint32_t here() const noexcept { return static_cast<std::uint32_t>(program_.code.size()); }

    void emit_node(const node& n) {
        switch (n.kind) {
        case node_kind::empty: break;
        case node_kind::literal: emit(op::literal, n.cp); break;
        case node_kind::set: emit(op::set, set_index(n)); break;
        case node_kind::sequence: emit_sequence(n); break;
        case node_kind::alternation: emit_alternation(n); break;
        case node_kind::group: emit_group(n); break;
        case node_kind::repeat: emit_repeat(n); break;
        case node_kind::line_start: emit(op::line_start); break;
        case node_kind::line_end: emit(op::line_end); break;
        case node_kind::word_boundary: emit(op::word_boundary); break;
        case node_kind::not_word_boundary: emit(op::not_word_boundary); break;
        case node_kind::look: emit_look(n); break;
        case node_kind::backref: emit(op::backref, n.index); break;
        }
    }

    /// A lookbehind's body is matched right to left (ECMA-262 22.2.2.3: direction backward), so
    /// its sequences are emitted in reverse.
    void emit_sequence(const node& n) {
        if (backward_) {
            for (auto it = n.children.rbegin(); it != n.children.rend(); ++it) {
                emit_node(*it);
            }
        } else {
            for (const node& child : n.children) {
                emit_node(child);
            }
        }
    }

    void emit_alternation(const node& n) {
        std::vector<std::uint32_t> exits;
        for (std::size_t k = 0; k < n.children.size(); ++k) {
            if (k + 1 < n.children.size()) {
                const std::uint32_t split = emit(op::split);
                program_.code[split].a = here();
                emit_node(n.children[k]);
                exits.push_back(emit(op::jump));
                program_.code[split].b = here();
            } else {
                emit_node(n.children[k]);
            }
        }
        for (std::uint32_t e : exits) {
            program_.code[e].a = here();
        }
    }

    void emit_group(const node& n) {
        const bool capture = captures_ && n.index != 0;
        if (capture) {
            emit(op::open, n.index);
        }
        emit_node(n.children.front());
        if (capture) {
            emit(op::close, n.index);
        }
    }

    void emit_look(const node& n) {
        const auto index = static_cast<std::uint32_t>(program_.looks.size());
        program_.looks.push_back({0, n.negate});
        const std::uint32_t at = emit(op::look, index);
        program_.looks[index].start = here();
        const bool outer = backward_;
        backward_ = n.behind;
        emit_node(n.children.front());
        emit(op::look_match);
        backward_ = outer;
        program_.code[at].b = here();
    }

    /// One iteration: ECMA-262 22.2.2.3.1 RepeatMatcher clears the body's captures first.
    void emit_iteration(const node& n) {
        if (captures_ && n.first_group < n.end_group) {
            emit(op::reset, n.first_group, n.end_group);
        }
        emit_node(n.children.front());
    }

    /// Optional iterations: an iteration that matches empty fails (RepeatMatcher step 2.b), which
    /// is what ends `(a*)*`; the memoized search gets the same answer from its visited set.
    void emit_optional(const node& n, std::uint32_t reg, std::vector<std::uint32_t>& exits) {
        const std::uint32_t split = emit(op::split);
        const std::uint32_t body = here();
        if (captures_) {
            emit(op::mark, reg);
        }
        emit_iteration(n);
        if (captures_) {
            emit(op::check, reg);
        }
        program_.code[split].a = n.greedy ? body : 0;
        program_.code[split].b = n.greedy ? 0 : body;
        exits.push_back(split);
    }

    /// True when emit_node(n) emits no instruction: repeating it any number of times is nothing,
    /// and `(?:){1000000000}` must not loop a billion times at compile time.
    [[nodiscard]] bool emits_nothing(const node& n) const {
        switch (n.kind) {
        case node_kind::empty: return true;
        case node_kind::sequence:
            return std::all_of(n.children.begin(), n.children.end(),
                               [this](const node& c) { return emits_nothing(c); });
        case node_kind::group: return !(captures_ && n.index != 0) && emits_nothing(n.children.front());
        case node_kind::repeat: return n.max == 0 || emits_nothing(n.children.front());
        default: return false;
        }
    }

    void emit_repeat(const node& n) {
        if (emits_nothing(n.children.front())) {
            return;
        }
        const std::uint32_t reg = program_.registers++;
        for (std::uint32_t k = 0; k < n.min; ++k) {
            emit_iteration(n);
        }
        std::vector<std::uint32_t> exits;
        if (n.max == unbounded) {
            const std::uint32_t loop = here();
            emit_optional(n, reg, exits);
            emit(op::jump, loop);
        } else {
            for (std::uint32_t k = n.min; k < n.max; ++k) {
                emit_optional(n, reg, exits);
            }
        }
        for (std::uint32_t e : exits) {
            (n.greedy ? program_.code[e].b : program_.code[e].a) = here();
        }
    }
};

} // namespace handoff::detail::regex_impl
