// SPDX-License-Identifier: MIT
// Positive control for bad_table.cpp: the same user table with a legal cell must compile,
// so the WILL_FAIL test cannot pass merely because this command or file is broken.

#include <handoff/decision_table.hpp>

namespace {

using handoff::action;
using handoff::reason_code;
using handoff::table_row;

// A team's own table: custom band edges, CONTEXT_OVERFLOW narrows in the high band.
constexpr handoff::decision_table team_table{
    {{
        table_row{reason_code::token_cap, action::split, action::split, action::resume},
        table_row{reason_code::tool_call_cap, action::split, action::split, action::resume},
        table_row{reason_code::time_cap, action::split, action::narrow, action::resume},
        table_row{reason_code::context_overflow, action::split, action::split, action::narrow},
        table_row{reason_code::scope_too_broad, action::split, action::narrow, action::narrow},
        table_row{reason_code::dependency_failed, action::escalate, action::escalate, action::fail},
    }},
    handoff::band_edges{0.4, 0.9},
};

HANDOFF_CHECK_TABLE(team_table);

static_assert(handoff::decide(reason_code::context_overflow, 0.95, team_table) == action::narrow);

} // namespace

int main() { return 0; }
