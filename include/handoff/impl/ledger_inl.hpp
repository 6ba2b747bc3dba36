// SPDX-License-Identifier: MIT
#pragma once

// disagreement_ledger's definitions: inline in every file header-only, compiled once in
// <handoff/impl/src.hpp> otherwise (config.hpp).

#include <handoff/ledger.hpp>

#include <algorithm> // stable_sort
#include <atomic>    // atomic
#include <cstddef>   // size_t
#include <cstdint>   // uint64_t
#include <new>       // launder, placement new

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
    nlohmann::json rows = nlohmann::json::array();
    for (reason_code r : all_reason_codes) {
        for (band b : {band::low, band::mid, band::high}) {
            for (action t : all_actions) {
                for (action h : all_actions) {
                    if (const auto n = count(r, b, t, h); n > 0) {
                        rows.push_back({{"reason_code", to_string(r)},
                                        {"band", to_string(b)},
                                        {"table_action", to_string(t)},
                                        {"hint_action", to_string(h)},
                                        {"count", n}});
                    }
                }
            }
        }
    }
    std::stable_sort(rows.begin(), rows.end(), [](const nlohmann::json& a, const nlohmann::json& b) {
        return a["count"].get<std::uint64_t>() > b["count"].get<std::uint64_t>();
    });
    return rows;
}

} // namespace handoff
