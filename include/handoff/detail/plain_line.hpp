// SPDX-License-Identifier: MIT
#pragma once

// plain_line lives in detail/text.hpp beside the other clippers (one helper, one cut marker);
// this header stays for the files that include it by this name.
#include <handoff/detail/text.hpp> // plain_line
