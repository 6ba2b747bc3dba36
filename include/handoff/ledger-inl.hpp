// SPDX-License-Identifier: MIT
#pragma once

// disagreement_ledger's definitions: inline in every file header-only, compiled once in
// <handoff/src.hpp> otherwise (config.hpp).

#include <handoff/ledger.hpp>

#include <algorithm> // stable_sort
#include <atomic>    // memory_order_relaxed
#include <cstddef>   // size_t
#include <cstdint>   // uint64_t
#include <string>    // string
#include <utility>   // move
#include <vector>    // vector

namespace handoff {

HANDOFF_INLINE void disagreement_ledger::record(reason_code reason, band coverage_band, action table_action,
                                                action hint_action) noexcept {
    cells_[index(reason, coverage_band, table_action, hint_action)].fetch_add(1, std::memory_order_relaxed);
}

HANDOFF_INLINE std::uint64_t disagreement_ledger::count(reason_code reason, band coverage_band, action table_action,
                                                        action hint_action) const noexcept {
    return cells_[index(reason, coverage_band, table_action, hint_action)].load(std::memory_order_relaxed);
}

HANDOFF_INLINE std::uint64_t disagreement_ledger::total() const noexcept {
    std::uint64_t sum = 0;
    for (std::size_t i = 0; i < cell_count; ++i) {
        sum += cells_[i].load(std::memory_order_relaxed);
    }
    return sum;
}

HANDOFF_INLINE void disagreement_ledger::reset() noexcept {
    for (std::size_t i = 0; i < cell_count; ++i) {
        cells_[i].store(0, std::memory_order_relaxed);
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
        for (band b : all_values<band>()) {
            for (action t : all_actions) {
                for (action h : all_actions) {
                    if (const auto n = count(r, b, t, h); n > 0) {
                        rows.push_back(row{r, b, t, h, n});
                    }
                }
            }
        }
    }
    // Most frequent first; equal counts keep the order above.
    std::stable_sort(rows.begin(), rows.end(), [](const row& a, const row& b) { return a.count > b.count; });
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
