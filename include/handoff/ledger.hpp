// SPDX-License-Identifier: MIT
#pragma once

#include <handoff/decision_table.hpp>
#include <handoff/enums.hpp>

#include <nlohmann/json.hpp>

#include <algorithm> // stable_sort
#include <array>     // array
#include <atomic>    // atomic
#include <cstddef>   // size_t
#include <cstdint>   // uint64_t

namespace handoff {

/// Counts disagreements between a worker's retry hint and the decision table, per
/// (reason_code, band, table action, hint action): over weeks it shows which cells of a table
/// workers keep contradicting. Lock-free; one ledger may serve many threads.
class disagreement_ledger {
public:
    void record(reason_code reason, band coverage_band, action table_action, action hint_action) noexcept {
        counts_[index(reason, coverage_band, table_action, hint_action)].fetch_add(1, std::memory_order_relaxed);
    }

    [[nodiscard]] std::uint64_t count(reason_code reason, band coverage_band, action table_action,
                                      action hint_action) const noexcept {
        return counts_[index(reason, coverage_band, table_action, hint_action)].load(std::memory_order_relaxed);
    }

    [[nodiscard]] std::uint64_t total() const noexcept {
        std::uint64_t sum = 0;
        for (const auto& c : counts_) {
            sum += c.load(std::memory_order_relaxed);
        }
        return sum;
    }

    /// Non-zero cells, most frequent first:
    /// [{"reason_code":"TIME_CAP","band":"mid","table_action":"NARROW","hint_action":"RESUME","count":3}]
    [[nodiscard]] nlohmann::json to_json() const {
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

    void reset() noexcept {
        for (auto& c : counts_) {
            c.store(0, std::memory_order_relaxed);
        }
    }

private:
    static constexpr std::size_t band_count = 3;

    [[nodiscard]] static constexpr std::size_t index(reason_code r, band b, action t, action h) noexcept {
        return ((static_cast<std::size_t>(r) * band_count + static_cast<std::size_t>(b)) * action_count +
                static_cast<std::size_t>(t)) *
                   action_count +
               static_cast<std::size_t>(h);
    }

    std::array<std::atomic<std::uint64_t>, reason_code_count * band_count * action_count * action_count> counts_{};
};

} // namespace handoff
