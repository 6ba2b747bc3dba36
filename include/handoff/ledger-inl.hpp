// SPDX-License-Identifier: MIT
#pragma once

// disagreement_ledger's definitions: inline in every file header-only, compiled once in
// <handoff/src.hpp> otherwise (config.hpp).

#include <handoff/ledger.hpp>

#include <atomic>  // atomic
#include <cstddef> // size_t
#include <cstdint> // uint64_t
#include <new>     // launder, placement new
#include <string>  // string
#include <utility> // move
#include <vector>  // vector

namespace handoff {

namespace detail {

/// One counter of a disagreement_ledger, living in the ledger's raw cells_.
struct ledger_cell {
    std::atomic<std::uint64_t> value{0};
};

} // namespace detail

HANDOFF_INLINE disagreement_ledger::disagreement_ledger() noexcept {
    // cells_ is sized and aligned for cell_bytes-byte cells: a platform where the atomic counter
    // is larger or more strictly aligned would overrun it.
    static_assert(sizeof(detail::ledger_cell) == cell_bytes && alignof(detail::ledger_cell) <= cell_bytes,
                  "disagreement_ledger::cells_ assumes an 8-byte std::atomic<std::uint64_t>");
    for (std::size_t i = 0; i < cell_count; ++i) {
        ::new (static_cast<void*>(cells_ + i * cell_bytes)) detail::ledger_cell{};
    }
}

HANDOFF_INLINE detail::ledger_cell& disagreement_ledger::cell(std::size_t i) const noexcept {
    return *std::launder(reinterpret_cast<detail::ledger_cell*>(cells_ + i * cell_bytes));
}

HANDOFF_INLINE void disagreement_ledger::record(reason_code reason, band coverage_band, action table_action,
                                                action hint_action) noexcept {
    cell(index(reason, coverage_band, table_action, hint_action)).value.fetch_add(1, std::memory_order_relaxed);
}

HANDOFF_INLINE std::uint64_t disagreement_ledger::count(reason_code reason, band coverage_band, action table_action,
                                                        action hint_action) const noexcept {
    return cell(index(reason, coverage_band, table_action, hint_action)).value.load(std::memory_order_relaxed);
}

HANDOFF_INLINE std::uint64_t disagreement_ledger::total() const noexcept {
    std::uint64_t sum = 0;
    for (std::size_t i = 0; i < cell_count; ++i) {
        sum += cell(i).value.load(std::memory_order_relaxed);
    }
    return sum;
}

HANDOFF_INLINE void disagreement_ledger::reset() noexcept {
    for (std::size_t i = 0; i < cell_count; ++i) {
        cell(i).value.store(0, std::memory_order_relaxed);
    }
}

HANDOFF_INLINE nlohmann::json disagreement_ledger::to_json() const {
    struct row {
        reason_code reason;
        band coverage_band;
        action table_action;
        action hint_action;
        std::uint64_t count;
    };
    std::vector<row> rows;
    for (reason_code r : all_reason_codes) {
        for (band b : {band::low, band::mid, band::high}) {
            for (action t : all_actions) {
                for (action h : all_actions) {
                    if (const auto n = count(r, b, t, h); n > 0) {
                        rows.push_back(row{r, b, t, h, n});
                    }
                }
            }
        }
    }
    // Most frequent first; equal counts keep the order above (an insertion sort: stable, and
    // the rows are few). Sorted by hand and written key by key: std::stable_sort, sorting JSON
    // values and nlohmann's initializer lists would cost every file that includes this header
    // (a receiving one does) far more to compile than these loops.
    for (std::size_t i = 1; i < rows.size(); ++i) {
        const row moving = rows[i];
        std::size_t j = i;
        for (; j > 0 && rows[j - 1].count < moving.count; --j) {
            rows[j] = rows[j - 1];
        }
        rows[j] = moving;
    }
    nlohmann::json out(nlohmann::json::value_t::array);
    for (const row& r : rows) {
        nlohmann::json line(nlohmann::json::value_t::object);
        line[std::string("reason_code")] = std::string(to_string(r.reason));
        line[std::string("band")] = std::string(to_string(r.coverage_band));
        line[std::string("table_action")] = std::string(to_string(r.table_action));
        line[std::string("hint_action")] = std::string(to_string(r.hint_action));
        line[std::string("count")] = r.count;
        out.push_back(std::move(line));
    }
    return out;
}

} // namespace handoff
