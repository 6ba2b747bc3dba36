// SPDX-License-Identifier: MIT
// Must NOT compile. The table is good_table.cpp's with one cell changed: CONTEXT_OVERFLOW ->
// RESUME in the high band, which SPEC section 4 forbids (fresh context is the point of a retry
// after an overflow). CTest compiles it with WILL_FAIL; good_table.cpp is the positive control.
// Expected diagnostic: "handoff: CONTEXT_OVERFLOW must never RESUME".

#include <handoff/decision_table.hpp>

namespace {

using handoff::action;
using handoff::reason_code;
using handoff::table_row;

constexpr handoff::decision_table team_table{
    {{
        table_row{reason_code::token_cap, action::split, action::split, action::resume},
        table_row{reason_code::tool_call_cap, action::split, action::split, action::resume},
        table_row{reason_code::time_cap, action::split, action::narrow, action::resume},
        table_row{reason_code::context_overflow, action::split, action::split, action::resume}, // broken
        table_row{reason_code::scope_too_broad, action::split, action::narrow, action::narrow},
        table_row{reason_code::dependency_failed, action::escalate, action::escalate, action::fail},
    }},
    handoff::band_edges{0.4, 0.9},
};

HANDOFF_CHECK_TABLE(team_table);

} // namespace

int main() { return 0; }
