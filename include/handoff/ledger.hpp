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
    /// Every count zero.
    disagreement_ledger() noexcept = default;
    // Counters shared by threads are neither copied nor moved (as std::atomic is not).
    disagreement_ledger(const disagreement_ledger&) = delete;
    disagreement_ledger& operator=(const disagreement_ledger&) = delete;
    ~disagreement_ledger() = default;

    void record(reason_code reason, band coverage_band, action table_action, action hint_action) noexcept;

    [[nodiscard]] std::uint64_t count(reason_code reason, band coverage_band, action table_action,
                                      action hint_action) const noexcept;

    [[nodiscard]] std::uint64_t total() const noexcept;

    /// Non-zero cells, most frequent first:
    /// [{"reason_code":"TIME_CAP","band":"mid","table_action":"NARROW","hint_action":"RESUME","count":3}]
    [[nodiscard]] nlohmann::json to_json() const;

    void reset() noexcept;

private:
    static constexpr std::size_t cell_count = reason_code_count * band_count * action_count * action_count;
    /// Size and alignment of one counter, a std::atomic<std::uint64_t> (the definitions assert it).
    [[nodiscard]] static constexpr std::size_t index(reason_code r, band b, action t, action h) noexcept {
        return ((static_cast<std::size_t>(r) * band_count + static_cast<std::size_t>(b)) * action_count +
                static_cast<std::size_t>(t)) *
                   action_count +
               static_cast<std::size_t>(h);
    }

    /// One relaxed counter per cell: the counts are independent tallies, read for reports, and
    /// order nothing else.
    std::array<std::atomic<std::uint64_t>, cell_count> cells_{};
};

} // namespace handoff

#if !defined(HANDOFF_COMPILED_LIB)
#include <handoff/ledger-inl.hpp>
#endif
