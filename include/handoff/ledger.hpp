// SPDX-License-Identifier: MIT
#pragma once

#include <handoff/config.hpp>
#include <handoff/decision_table.hpp>
#include <handoff/enums.hpp>

#include <nlohmann/json.hpp>

#include <array>   // array
#include <atomic>  // atomic
#include <cstddef> // size_t
#include <cstdint> // uint64_t

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
    [[nodiscard]] nlohmann::json to_json() const;

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

#if !defined(HANDOFF_COMPILED_LIB)
#include <handoff/impl/ledger_inl.hpp>
#endif
