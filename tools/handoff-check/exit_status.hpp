// SPDX-License-Identifier: MIT
#pragma once
// Exit statuses shared by every handoff-check command.

namespace handoff_cli {

inline constexpr int exit_ok = 0;
inline constexpr int exit_contract_failure = 1;
inline constexpr int exit_usage = 2;

} // namespace handoff_cli
