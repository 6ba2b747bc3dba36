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
    memo_matcher(const program& p, subject s, scratch& sc) : p_(p), s_(s), sc_(sc), width_(s.size + std::uint64_t{1}) {}

    [[nodiscard]] regex_match search() {
        const std::uint64_t bits = p_.code.size() * width_;
        if (bits > max_visited_bits) {
            return regex_match::too_costly;
        }
        sc_.visited.assign((bits + 63) / 64, 0);
        sc_.look_memo.assign(p_.looks.size() * width_, 0);
        sc_.reached.assign(p_.looks.empty() ? 0 : sc_.visited.size(), 0);
        sc_.touched.clear();
        sc_.path.clear();
        sc_.stack.clear();
        budget_ = 4 * bits + backtrack_budget;
        for (std::uint32_t start = 0; start <= s_.size && !over_; ++start) {
            if (run(0, start)) {
                return regex_match::found;
            }
        }
        return over_ ? regex_match::too_costly : regex_match::not_found;
    }

private:
    const program& p_;
    subject s_;
    scratch& sc_;
    std::uint64_t width_;
    std::size_t depth_ = 0; // lookaround sub-searches in progress
    // Each state is marked at most once unless marks are cleared (empty loops in a lookaround, see
    // look), so only such programs can spend this budget; they answer too_costly when they do.
    std::uint64_t budget_ = 0;
    bool over_ = false;

    /// Marks the state; false when it was already marked (or the budget is spent).
    bool visit(std::uint32_t pc, std::uint32_t pos) {
        const std::uint64_t bit = pc * width_ + pos;
        std::uint64_t& word = sc_.visited[bit / 64];
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
            if (p_.empty_loops) {
                sc_.touched.push_back(bit);
            }
            sc_.path.push_back(bit);
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
    bool look(std::uint32_t index, std::uint32_t pos) {
        std::uint8_t& memo = sc_.look_memo[index * width_ + pos];
        if (memo == 0) {
            const std::size_t touched_before = sc_.touched.size();
            ++depth_;
            const bool ok = run(p_.looks[index].start, pos);
            --depth_;
            if (over_) {
                return false;
            }
            if (ok && p_.empty_loops) {
                for (std::size_t k = touched_before; k < sc_.touched.size(); ++k) {
                    const std::uint64_t bit = sc_.touched[k];
                    sc_.visited[bit / 64] &= ~(std::uint64_t{1} << (bit % 64));
                }
            }
            sc_.touched.resize(touched_before);
            memo = ok ? 2 : 1;
        }
        return (memo == 2) != p_.looks[index].negate;
    }

    /// False when the thread at (pc, pos) would fail on its first instruction: a character test
    /// that the next character fails. Skipping such alternatives keeps `(a|b)*` from stacking one
    /// dead `b` per character.
    [[nodiscard]] bool may_start(std::uint32_t pc, std::uint32_t pos) const noexcept {
        const inst& in = p_.code[pc];
        if (in.code != op::literal && in.code != op::set) {
            return true;
        }
        return s_.step_over(in, p_, pos);
    }

    /// Follows one thread from (pc, pos) until it fails or matches; alternatives go on the stack.
    bool thread(std::uint32_t pc, std::uint32_t pos) {
        for (;;) {
            if (depth_ > 0 && !sc_.reached.empty() && test(sc_.reached, pc * width_ + pos)) {
                return true;
            }
            if (!visit(pc, pos)) {
                return false;
            }
            const inst& in = p_.code[pc];
            bool ok = true;
            std::uint32_t next = pc + 1;
            switch (in.code) {
            case op::literal:
            case op::set: ok = s_.step_over(in, p_, pos); break;
            case op::split:
                if (may_start(in.b, pos)) {
                    sc_.stack.push_back({in.b, pos, static_cast<std::uint32_t>(sc_.path.size())});
                }
                next = in.a;
                break;
            case op::jump: next = in.a; break;
            case op::line_start:
            case op::line_end:
            case op::word_boundary:
            case op::not_word_boundary: ok = s_.holds(in.code, pos); break;
            case op::look:
                ok = look(in.a, pos);
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
        const std::size_t base = sc_.stack.size();
        const std::size_t path_base = sc_.path.size();
        sc_.stack.push_back({pc, pos, static_cast<std::uint32_t>(path_base)});
        bool ok = false;
        while (!ok && !over_ && sc_.stack.size() > base) {
            const scratch::pending next = sc_.stack.back();
            sc_.stack.pop_back();
            sc_.path.resize(next.path);
            ok = thread(next.pc, next.pos);
        }
        sc_.stack.resize(base);
        if (ok && depth_ > 0) {
            for (std::size_t k = path_base; k < sc_.path.size(); ++k) {
                sc_.reached[sc_.path[k] / 64] |= std::uint64_t{1} << (sc_.path[k] % 64);
            }
        }
        sc_.path.resize(path_base);
        return ok;
    }
};

} // namespace handoff::detail::regex_impl
