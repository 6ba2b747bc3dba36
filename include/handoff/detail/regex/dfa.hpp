// SPDX-License-Identifier: MIT
#pragma once

// The fast path for the common pattern: no back-reference, no lookaround, no `\b`. Such a
// program is a plain automaton over code points (with `^` and `$` as conditions on the position),
// so its subset construction, built once when the pattern compiles, answers a search with one
// table step per code point and no per-search memory. A program whose automaton would be too big
// (too many distinct character classes or states) gets none and runs on memo_matcher.

#include <handoff/detail/regex/code_points.hpp>
#include <handoff/detail/regex/program.hpp>
#include <handoff/detail/regex/search_state.hpp>
#include <handoff/detail/regex/utf8.hpp>

#include <algorithm>   // sort, unique, upper_bound, lower_bound, all_of
#include <array>       // array
#include <cstddef>     // size_t
#include <cstdint>     // uint8_t, uint16_t, uint32_t
#include <map>         // map
#include <memory>      // shared_ptr, make_shared
#include <string_view> // string_view
#include <utility>     // move
#include <vector>      // vector

namespace handoff::detail::regex_impl {

/// Bounds on an automaton, so that building one stays cheap next to compiling the pattern.
inline constexpr std::size_t max_dfa_classes = 256;
inline constexpr std::size_t max_dfa_states = 1024;
inline constexpr std::size_t max_dfa_cells = std::size_t{1} << 16; // states * classes
inline constexpr std::size_t max_dfa_program = 2000;
inline constexpr std::size_t max_dfa_work = std::size_t{1} << 22; // class steps while building

/// A deterministic automaton equivalent to an unanchored search for the program. The code points
/// fall into classes that no instruction tells apart; state 0 is the position before the first.
struct dfa {
    enum flag : std::uint8_t {
        match_now = 1U, // a match ends here whatever follows: found
        match_end = 2U, // a match ends here if the subject does
        dead = 4U,      // no match from here on, whatever follows: not found
    };
    std::vector<char32_t> bounds; // class k holds [bounds[k-1], bounds[k]); class 0 starts at 0
    std::array<std::uint16_t, 128> ascii_class{};
    std::size_t classes = 0;
    std::vector<std::uint16_t> next; // state * classes + class
    std::vector<std::uint8_t> flags; // per state

    [[nodiscard]] std::size_t class_of(char32_t c) const noexcept {
        return c < 0x80 ? ascii_class[c]
                        : static_cast<std::size_t>(std::upper_bound(bounds.begin(), bounds.end(), c) - bounds.begin());
    }

    /// Whether the pattern matches somewhere in `s` (UTF-8, decoded as the matchers decode it).
    [[nodiscard]] regex_match search(std::string_view s) const noexcept {
        std::size_t state = 0;
        for (std::size_t i = 0;;) {
            const std::uint8_t f = flags[state];
            if ((f & (match_now | dead)) != 0) {
                return (f & match_now) != 0 ? regex_match::found : regex_match::not_found;
            }
            if (i == s.size()) {
                return (f & match_end) != 0 ? regex_match::found : regex_match::not_found;
            }
            const auto byte = static_cast<unsigned char>(s[i]);
            std::size_t k = 0;
            if (byte < 0x80U) {
                k = ascii_class[byte];
                ++i;
            } else {
                k = class_of(decode_utf8(s, i));
            }
            state = next[state * classes + k];
        }
    }
};

/// Builds the automaton by subset construction over the program's instructions.
class dfa_builder {
public:
    explicit dfa_builder(const program& p) : program_(p), seen_(p.code.size(), 0) {}

    /// The automaton, or null when the program has an instruction it cannot take or is too big.
    [[nodiscard]] std::shared_ptr<const dfa> build() {
        if (program_.backrefs || !program_.looks.empty() || program_.code.size() > max_dfa_program ||
            !std::all_of(program_.code.begin(), program_.code.end(),
                         [](const instruction& in) { return in.code <= op::line_end || in.code == op::match; }) ||
            !make_classes()) {
            return nullptr;
        }
        state_of({}, true); // state 0: before the first code point
        for (std::size_t s = 0; s < kernels_.size(); ++s) {
            if (kernels_.size() > max_dfa_states || kernels_.size() * out_.classes > max_dfa_cells || !expand(s)) {
                return nullptr;
            }
        }
        mark_dead();
        return std::make_shared<const dfa>(std::move(out_));
    }

private:
    const program& program_;
    dfa out_;
    std::vector<std::vector<std::uint32_t>> kernels_; // per state: instructions reached by a step
    std::map<std::vector<std::uint32_t>, std::uint16_t> ids_;
    std::vector<std::vector<std::uint32_t>> accepts_; // per consuming instruction: its classes
    std::vector<std::uint32_t> seen_;                 // per instruction: the closure that saw it
    std::uint32_t epoch_ = 0;
    std::size_t work_ = 0;

    /// Splits the code points at every edge of a literal or a set range.
    bool make_classes() {
        std::vector<char32_t>& b = out_.bounds;
        for (const instruction& in : program_.code) {
            if (in.code == op::literal) {
                b.push_back(static_cast<char32_t>(in.a));
                b.push_back(static_cast<char32_t>(in.a) + 1);
            } else if (in.code == op::set) {
                for (const code_range& r : program_.sets[in.a]) {
                    b.push_back(r.lo);
                    b.push_back(r.hi + 1);
                }
            }
        }
        std::sort(b.begin(), b.end());
        b.erase(std::unique(b.begin(), b.end()), b.end());
        out_.classes = b.size() + 1;
        if (out_.classes > max_dfa_classes) {
            return false;
        }
        for (char32_t c = 0; c < 0x80; ++c) {
            out_.ascii_class[c] = static_cast<std::uint16_t>(std::upper_bound(b.begin(), b.end(), c) - b.begin());
        }
        accepts_.resize(program_.code.size());
        for (std::size_t pc = 0; pc < program_.code.size(); ++pc) {
            const instruction& in = program_.code[pc];
            if (in.code == op::literal) {
                accepts_[pc].push_back(static_cast<std::uint32_t>(out_.class_of(static_cast<char32_t>(in.a))));
            } else if (in.code == op::set) {
                for (const code_range& r : program_.sets[in.a]) {
                    // The bounds split at r.lo and r.hi + 1, so the range is whole classes.
                    for (std::size_t k = out_.class_of(r.lo); k <= out_.class_of(r.hi); ++k) {
                        accepts_[pc].push_back(static_cast<std::uint32_t>(k));
                    }
                }
            }
        }
        return true;
    }

    /// The id of the state whose kernel is `kernel` (sorted), made when new. The first state is
    /// apart: only it stands at position 0, where `^` holds.
    std::uint16_t state_of(std::vector<std::uint32_t> kernel, bool first = false) {
        if (!first) {
            if (const auto it = ids_.find(kernel); it != ids_.end()) {
                return it->second;
            }
        }
        const auto id = static_cast<std::uint16_t>(kernels_.size());
        if (!first) {
            ids_.emplace(kernel, id);
        }
        kernels_.push_back(std::move(kernel));
        return id;
    }

    /// The instructions reachable without consuming from the state's kernel and from the start
    /// (a search may begin anywhere): the consuming ones into `consumers`; true if `match` is.
    bool close(std::size_t state, bool at_end, std::vector<std::uint32_t>* consumers) {
        ++epoch_;
        std::vector<std::uint32_t> stack = kernels_[state];
        stack.push_back(0);
        bool matched = false;
        while (!stack.empty()) {
            const std::uint32_t pc = stack.back();
            stack.pop_back();
            if (pc >= program_.code.size() || seen_[pc] == epoch_) {
                continue;
            }
            seen_[pc] = epoch_;
            const instruction& in = program_.code[pc];
            switch (in.code) {
            case op::literal:
            case op::set:
                if (consumers != nullptr) {
                    consumers->push_back(pc);
                }
                break;
            case op::split:
                stack.push_back(in.b);
                stack.push_back(in.a);
                break;
            case op::jump: stack.push_back(in.a); break;
            case op::line_start:
                if (state == 0) {
                    stack.push_back(pc + 1);
                }
                break;
            case op::line_end:
                if (at_end) {
                    stack.push_back(pc + 1);
                }
                break;
            default: matched = true; break; // op::match: build() admits nothing else
            }
        }
        return matched;
    }

    /// The state's flags and its step on each class; false when over a bound.
    bool expand(std::size_t state) {
        std::vector<std::uint32_t> consumers;
        const bool now = close(state, false, &consumers);
        const bool at_end = close(state, true, nullptr);
        const unsigned now_bit = now ? static_cast<unsigned>(dfa::match_now) : 0U;
        const unsigned end_bit = at_end ? static_cast<unsigned>(dfa::match_end) : 0U;
        out_.flags.push_back(static_cast<std::uint8_t>(now_bit | end_bit));
        std::vector<std::vector<std::uint32_t>> targets(out_.classes);
        for (const std::uint32_t pc : consumers) {
            work_ += accepts_[pc].size();
            for (const std::uint32_t k : accepts_[pc]) {
                targets[k].push_back(pc + 1);
            }
        }
        if (work_ > max_dfa_work) {
            return false;
        }
        for (std::vector<std::uint32_t>& t : targets) {
            std::sort(t.begin(), t.end());
            t.erase(std::unique(t.begin(), t.end()), t.end());
            out_.next.push_back(state_of(std::move(t)));
        }
        return true;
    }

    /// A state is live when it can reach a matching one; the others are dead. One walk back
    /// from the matching states over the reversed steps.
    void mark_dead() {
        const std::size_t n = out_.flags.size();
        std::vector<std::vector<std::uint32_t>> into(n);
        for (std::size_t cell = 0; cell < out_.next.size(); ++cell) {
            into[out_.next[cell]].push_back(static_cast<std::uint32_t>(cell / out_.classes));
        }
        std::vector<bool> live(n);
        std::vector<std::uint32_t> todo;
        for (std::size_t s = 0; s < n; ++s) {
            if ((out_.flags[s] & (dfa::match_now | dfa::match_end)) != 0) {
                live[s] = true;
                todo.push_back(static_cast<std::uint32_t>(s));
            }
        }
        while (!todo.empty()) {
            const std::uint32_t s = todo.back();
            todo.pop_back();
            for (const std::uint32_t from : into[s]) {
                if (!live[from]) {
                    live[from] = true;
                    todo.push_back(from);
                }
            }
        }
        for (std::size_t s = 0; s < n; ++s) {
            if (!live[s]) {
                out_.flags[s] = static_cast<std::uint8_t>(out_.flags[s] | dfa::dead);
            }
        }
    }
};

} // namespace handoff::detail::regex_impl
