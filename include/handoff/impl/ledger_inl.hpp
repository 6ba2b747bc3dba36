// SPDX-License-Identifier: MIT
#pragma once

// disagreement_ledger's definitions: inline in every file header-only, compiled once in
// <handoff/impl/src.hpp> otherwise (config.hpp).

#include <handoff/ledger.hpp>

#include <algorithm> // stable_sort
#include <cstdint>   // uint64_t

namespace handoff {

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
