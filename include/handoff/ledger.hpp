// SPDX-License-Identifier: MIT
#pragma once

#include <handoff/config.hpp>
#include <handoff/decision_table.hpp>
#include <handoff/enums.hpp>

#include <nlohmann/json.hpp>

#include <cstddef> // size_t
#include <cstdint> // uint64_t

namespace handoff {

namespace detail {
struct ledger_cell; // impl/ledger_inl.hpp: one std::atomic<std::uint64_t> counter
} // namespace detail

/// Counts disagreements between a worker's retry hint and the decision table, per
/// (reason_code, band, table action, hint action): over weeks it shows which cells of a table
/// workers keep contradicting. Lock-free; one ledger may serve many threads.
class disagreement_ledger {
public:
    /// Every count zero.
    disagreement_ledger() noexcept;
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
    static constexpr std::size_t band_count = 3;
    static constexpr std::size_t cell_count = reason_code_count * band_count * action_count * action_count;
    /// Size and alignment of one counter, a std::atomic<std::uint64_t> (the definitions assert it).
    static constexpr std::size_t cell_bytes = 8;

    [[nodiscard]] static constexpr std::size_t index(reason_code r, band b, action t, action h) noexcept {
        return ((static_cast<std::size_t>(r) * band_count + static_cast<std::size_t>(b)) * action_count +
                static_cast<std::size_t>(t)) *
                   action_count +
               static_cast<std::size_t>(h);
    }

    /// The counter of cell `i`, a std::atomic<std::uint64_t> the constructor created in cells_.
    [[nodiscard]] detail::ledger_cell& cell(std::size_t i) const noexcept;

    /// Storage for cell_count lock-free counters (std::atomic<std::uint64_t>, created by the
    /// constructor): raw bytes, so that a file including this header does not parse <atomic>;
    /// only the definitions (impl/ledger_inl.hpp) name the atomic type. Mutable: count() and
    /// total() load through a const ledger, as they did through const atomics.
    alignas(cell_bytes) mutable unsigned char cells_[cell_count * cell_bytes];
};

} // namespace handoff

#if !defined(HANDOFF_COMPILED_LIB)
#include <handoff/ledger-inl.hpp>
#endif
