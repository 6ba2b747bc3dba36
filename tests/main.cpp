// SPDX-License-Identifier: MIT
// The test runner's main(). Catch2 v2: generated here. Catch2 v3: it comes from
// Catch2::Catch2WithMain (CMake defines HANDOFF_CATCH2_V3=1), so this file is empty.
#if !(defined(HANDOFF_CATCH2_V3) && HANDOFF_CATCH2_V3)
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
#endif
