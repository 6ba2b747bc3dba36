// SPDX-License-Identifier: MIT
#pragma once

// The matcher for patterns with back-references: backtracking under a step budget.

#include <handoff/detail/regex/program.hpp>
#include <handoff/detail/regex/search_state.hpp>

#include <algorithm> // min, max
#include <cstddef>   // size_t
#include <cstdint>   // uint32_t, uint64_t, int64_t
#include <vector>    // vector

namespace handoff::detail::regex_impl {

/// With back-references: ECMA-262's backtracking with captures, under a step budget. Undo
/// records on one stack restore captures when a choice point is resumed.
class capture_matcher {
public:
    capture_matcher(const program& p, subject s, scratch& sc) : program_(p), subject_(s), scratch_(sc) {}

    [[nodiscard]] regex_match search() {
        scratch_.frames.clear();
        std::vector<std::int64_t> slots;
        for (std::uint32_t start = 0; start <= subject_.size; ++start) {
            slots.assign(std::size_t{3} * (program_.groups + 1) + program_.registers, -1);
            if (run(0, start, slots)) {
                return regex_match::found;
            }
            if (over_) {
                return regex_match::too_costly;
            }
        }
        return regex_match::not_found;
    }

private:
    const program& program_;
    subject subject_;
    scratch& scratch_;
    std::uint64_t steps_ = 0;
    bool over_ = false;

    // Slots: group g keeps [3g] = where it opened, [3g+1, 3g+2] = its last completed match; the
    // registers of loops follow the groups.
    [[nodiscard]] std::size_t register_slot(std::uint32_t r) const noexcept {
        return std::size_t{3} * (program_.groups + 1) + r;
    }

    void set(std::vector<std::int64_t>& slots, std::size_t slot, std::int64_t value) {
        scratch_.frames.push_back({static_cast<std::uint32_t>(slot), 0, slots[slot], true});
        slots[slot] = value;
    }

    /// ECMA-262 22.2.2.7.2 BackreferenceMatcher: an undefined capture matches empty.
    bool backref(const instruction& in, std::uint32_t& pos, const std::vector<std::int64_t>& slots) {
        const std::int64_t from = slots[std::size_t{3} * in.a + 1];
        const std::int64_t to = slots[std::size_t{3} * in.a + 2];
        if (from < 0 || to < 0) {
            return true;
        }
        const auto len = static_cast<std::uint32_t>(to - from);
        steps_ += len;
        if (in.backward ? pos < len : subject_.size - pos < len) {
            return false;
        }
        const std::uint32_t at = in.backward ? pos - len : pos;
        for (std::uint32_t k = 0; k < len; ++k) {
            if (subject_.text[at + k] != subject_.text[static_cast<std::size_t>(from) + k]) {
                return false;
            }
        }
        pos = in.backward ? pos - len : pos + len;
        return true;
    }

    /// Lookarounds are atomic (ECMA-262 22.2.2.4): the first way the body matches is kept, with
    /// its captures when positive; a negative one keeps none.
    bool lookaround_holds(const instruction& in, std::uint32_t pos, std::vector<std::int64_t>& slots) {
        const look_info& info = program_.looks[in.a];
        steps_ += slots.size() / 8; // copying and comparing the slots is work too
        std::vector<std::int64_t> inner = slots;
        const bool ok = run(info.start, pos, inner);
        if (over_ || ok == info.negate) {
            return false;
        }
        if (!info.negate) {
            for (std::size_t k = 0; k < slots.size(); ++k) {
                if (inner[k] != slots[k]) {
                    set(slots, k, inner[k]);
                }
            }
        }
        return true;
    }

    /// Executes one instruction: true to go on at pc, false to backtrack.
    bool execute(std::uint32_t& pc, std::uint32_t& pos, std::vector<std::int64_t>& slots) {
        const instruction& in = program_.code[pc];
        bool ok = true;
        std::uint32_t next = pc + 1;
        switch (in.code) {
        case op::literal:
        case op::set: ok = subject_.consume_matching(in, program_, pos); break;
        case op::split:
            scratch_.frames.push_back({in.b, pos, 0, false});
            next = in.a;
            break;
        case op::jump: next = in.a; break;
        case op::line_start:
        case op::line_end:
        case op::word_boundary:
        case op::not_word_boundary: ok = subject_.assertion_holds(in.code, pos); break;
        case op::look:
            ok = lookaround_holds(in, pos, slots);
            next = in.b;
            break;
        case op::open: set(slots, std::size_t{3} * in.a, pos); break;
        case op::close: {
            const std::int64_t opened = slots[std::size_t{3} * in.a];
            set(slots, std::size_t{3} * in.a + 1, std::min<std::int64_t>(opened, pos));
            set(slots, std::size_t{3} * in.a + 2, std::max<std::int64_t>(opened, pos));
            break;
        }
        case op::reset:
            steps_ += in.b - in.a; // the budget bounds the undo records too
            for (std::uint32_t g = in.a; g < in.b; ++g) {
                set(slots, std::size_t{3} * g + 1, -1);
                set(slots, std::size_t{3} * g + 2, -1);
            }
            break;
        case op::mark: set(slots, register_slot(in.a), pos); break;
        case op::check: ok = slots[register_slot(in.a)] != pos; break;
        case op::backref: ok = backref(in, pos, slots); break;
        case op::look_match:
        case op::match: break;
        }
        pc = next;
        return ok;
    }

    /// Pops undo records until a choice point; false when none is left above `base`.
    bool backtrack(std::size_t base, std::uint32_t& pc, std::uint32_t& pos, std::vector<std::int64_t>& slots) {
        while (scratch_.frames.size() > base) {
            const scratch::frame f = scratch_.frames.back();
            scratch_.frames.pop_back();
            if (f.restore) {
                slots[f.a] = f.old;
            } else {
                pc = f.a;
                pos = f.b;
                return true;
            }
        }
        return false;
    }

    bool run(std::uint32_t pc, std::uint32_t pos, std::vector<std::int64_t>& slots) {
        const std::size_t base = scratch_.frames.size();
        for (;;) {
            if (++steps_ > backtrack_budget) {
                over_ = true;
            }
            if (over_) {
                scratch_.frames.resize(base);
                return false;
            }
            const op code = program_.code[pc].code;
            if (code == op::match || code == op::look_match) {
                scratch_.frames.resize(base);
                return true;
            }
            if (!execute(pc, pos, slots) && !backtrack(base, pc, pos, slots)) {
                return false;
            }
        }
    }
};

} // namespace handoff::detail::regex_impl
