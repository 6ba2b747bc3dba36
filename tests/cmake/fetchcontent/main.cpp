// SPDX-License-Identifier: MIT
// A consumer of handoff: it only has to include, link and evaluate the table.
#include <handoff/handoff.hpp>

static_assert(handoff::decide(handoff::reason_code::context_overflow, 0.95) != handoff::action::resume);

int main() { return 0; }
