// SPDX-License-Identifier: MIT
#pragma once

// The matcher for patterns without back-references: linear in the subject.

#include <handoff/detail/regex/program.hpp>
#include <handoff/detail/regex/search_state.hpp>

#include <cstddef> // size_t
#include <cstdint> // uint8_t, uint32_t, uint64_t
#include <vector>  // vector

namespace handoff::detail::regex_impl {

/// Bits of (instruction, position) states one memoized search may mark: 32 MiB, e.g. a 6,000
/// instruction program against a 40,000 code point subject. Beyond it search answers too_costly.
inline constexpr std::uint64_t max_visited_bits = std::uint64_t{1} << 28;

/// Without back-references: a depth-first search over (instruction, position) states that marks
/// each state when first reached. A marked state has already failed (or the search would have
/// stopped), so no state is explored twice: O(program * subject) in time and bits.
class memo_matcher {
public:
    memo_matcher(const program& p, subject s, scratch& sc)
        : program_(p), subject_(s), scratch_(sc), width_(s.size + std::uint64_t{1}) {}

    [[nodiscard]] regex_match search() {
        const std::uint64_t bits = program_.code.size() * width_;
        if (bits > max_visited_bits) {
            return regex_match::too_costly;
        }
        scratch_.visited.assign((bits + 63) / 64, 0);
        scratch_.look_memo.assign(program_.looks.size() * width_, 0);
        scratch_.reached.assign(program_.looks.empty() ? 0 : scratch_.visited.size(), 0);
        scratch_.touched.clear();
        scratch_.path.clear();
        scratch_.stack.clear();
        budget_ = 4 * bits + backtrack_budget;
        for (std::uint32_t start = 0; start <= subject_.size && !over_; ++start) {
            if (run(0, start)) {
                return regex_match::found;
            }
        }
        return over_ ? regex_match::too_costly : regex_match::not_found;
    }

private:
    const program& program_;
    subject subject_;
    scratch& scratch_;
    std::uint64_t width_;
    std::size_t depth_ = 0; // lookaround sub-searches in progress
    // Each state is marked at most once unless marks are cleared (empty loops in a lookaround, see
    // look), so only such programs can spend this budget; they answer too_costly when they do.
    std::uint64_t budget_ = 0;
    bool over_ = false;

    /// Marks the state; false when it was already marked (or the budget is spent).
    bool visit(std::uint32_t pc, std::uint32_t pos) {
        const std::uint64_t bit = pc * width_ + pos;
        std::uint64_t& word = scratch_.visited[bit / 64];
        const std::uint64_t mask = std::uint64_t{1} << (bit % 64);
        if ((word & mask) != 0) {
            return false;
        }
        if (budget_ == 0) {
            over_ = true;
            return false;
        }
        --budget_;
        word |= mask;
        if (depth_ > 0) {
            if (program_.empty_loops) {
                scratch_.touched.push_back(bit);
            }
            scratch_.path.push_back(bit);
        }
        return true;
    }

    [[nodiscard]] static bool test(const std::vector<std::uint64_t>& bits, std::uint64_t bit) noexcept {
        return (bits[bit / 64] & (std::uint64_t{1} << (bit % 64))) != 0;
    }

    /// Whether lookaround `index`'s body matches at `pos`, computed once per position. Whether a
    /// body state (pc, pos) reaches look_match does not depend on where the sub-search began, so
    /// marks are shared by the sub-searches of all positions. After a failure every mark is a
    /// failed state. After a success the states on the successful path go into `reached`; any other
    /// mark is a failed state too (pending alternatives hang off the path: the stack is LIFO),
    /// unless it was cut short by a path state still in progress, which needs a cycle at one
    /// position: an empty loop. Only then are the sub-search's other marks cleared.
    bool lookaround_holds(std::uint32_t index, std::uint32_t pos) {
        std::uint8_t& memo = scratch_.look_memo[index * width_ + pos];
        if (memo == 0) {
            const std::size_t touched_before = scratch_.touched.size();
            ++depth_;
            const bool ok = run(program_.looks[index].start, pos);
            --depth_;
            if (over_) {
                return false;
            }
            if (ok && program_.empty_loops) {
                for (std::size_t k = touched_before; k < scratch_.touched.size(); ++k) {
                    const std::uint64_t bit = scratch_.touched[k];
                    scratch_.visited[bit / 64] &= ~(std::uint64_t{1} << (bit % 64));
                }
            }
            scratch_.touched.resize(touched_before);
            memo = ok ? 2 : 1;
        }
        return (memo == 2) != program_.looks[index].negate;
    }

    /// False when a walk from (pc, pos) would fail on its first instruction: a character test
    /// that the next character fails. Skipping such alternatives keeps `(a|b)*` from stacking one
    /// dead `b` per character.
    [[nodiscard]] bool can_start(std::uint32_t pc, std::uint32_t pos) const noexcept {
        const instruction& in = program_.code[pc];
        if (in.code != op::literal && in.code != op::set) {
            return true;
        }
        return subject_.consume_matching(in, program_, pos);
    }

    /// Walks from (pc, pos), taking the first branch of each split, until the walk fails or matches;
    /// the other branches go on the stack for run to walk later.
    bool walk(std::uint32_t pc, std::uint32_t pos) {
        for (;;) {
            if (depth_ > 0 && !scratch_.reached.empty() && test(scratch_.reached, pc * width_ + pos)) {
                return true;
            }
            if (!visit(pc, pos)) {
                return false;
            }
            const instruction& in = program_.code[pc];
            bool ok = true;
            std::uint32_t next = pc + 1;
            switch (in.code) {
            case op::literal:
            case op::set: ok = subject_.consume_matching(in, program_, pos); break;
            case op::split:
                if (can_start(in.b, pos)) {
                    scratch_.stack.push_back({in.b, pos, static_cast<std::uint32_t>(scratch_.path.size())});
                }
                next = in.a;
                break;
            case op::jump: next = in.a; break;
            case op::line_start:
            case op::line_end:
            case op::word_boundary:
            case op::not_word_boundary: ok = subject_.assertion_holds(in.code, pos); break;
            case op::look:
                ok = lookaround_holds(in.a, pos);
                next = in.b;
                break;
            case op::look_match:
            case op::match: return true;
            default: break; // capture bookkeeping is never emitted in this mode
            }
            if (!ok) {
                return false;
            }
            pc = next;
        }
    }

    bool run(std::uint32_t pc, std::uint32_t pos) {
        const std::size_t base = scratch_.stack.size();
        const std::size_t path_base = scratch_.path.size();
        scratch_.stack.push_back({pc, pos, static_cast<std::uint32_t>(path_base)});
        bool ok = false;
        while (!ok && !over_ && scratch_.stack.size() > base) {
            const scratch::pending next = scratch_.stack.back();
            scratch_.stack.pop_back();
            scratch_.path.resize(next.path);
            ok = walk(next.pc, next.pos);
        }
        scratch_.stack.resize(base);
        if (ok && depth_ > 0) {
            for (std::size_t k = path_base; k < scratch_.path.size(); ++k) {
                scratch_.reached[scratch_.path[k] / 64] |= std::uint64_t{1} << (scratch_.path[k] % 64);
            }
        }
        scratch_.path.resize(path_base);
        return ok;
    }
};

} // namespace handoff::detail::regex_impl
