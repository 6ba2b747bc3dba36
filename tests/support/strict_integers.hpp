// SPDX-License-Identifier: MIT
#pragma once

// valijson (1.0) types a JSON number by how nlohmann stored it, so it refuses 40.0 where the
// envelope schema says "integer", though draft-07 calls it the integer 40 and handoff reads it
// so. The differential tests compare handoff with valijson on a copy of the envelope where
// exactly those values, integer-valued numbers at the contract's integer fields, are stored as
// integers: every other disagreement still fails.

#include <handoff/envelope_contract.hpp>

#include <nlohmann/json.hpp>

#include <string> // string

namespace handoff_test {

inline void make_integers_strict(nlohmann::json& object, const handoff::contract::field_list& fields) {
    if (!object.is_object()) {
        return;
    }
    for (const handoff::contract::field& f : fields) {
        const auto it = object.find(std::string(f.name));
        if (it == object.end()) {
            continue;
        }
        if (f.type == handoff::contract::json_type::integer && it->is_number_float()) {
            if (const auto n = handoff::contract::count_from_double(it->get<double>())) {
                *it = *n;
            }
        } else if (f.members.size() > 0) {
            make_integers_strict(*it, f.members);
        }
    }
}

/// `envelope` with its integer-valued counts (40.0) stored as integers (40), for valijson.
inline nlohmann::json with_strict_integers(nlohmann::json envelope) {
    make_integers_strict(envelope, handoff::contract::envelope);
    return envelope;
}

} // namespace handoff_test
