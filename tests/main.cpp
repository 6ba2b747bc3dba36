// SPDX-License-Identifier: MIT
// The test runner's main(). Catch2 v2: generated here. Catch2 v3: it comes from
// Catch2::Catch2WithMain (CMake defines HANDOFF_CATCH2_V3=1), and this file holds only the
// include below.
#if !(defined(HANDOFF_CATCH2_V3) && HANDOFF_CATCH2_V3)
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
#endif

// Every header, in a second translation unit of the test program (the tests may be one unity
// file): a definition a header gives without `inline` is then defined twice and the link fails,
// as it would in any program whose files include handoff. In the compiled form, a definition
// the headers give and the library compiles too fails the same way. HANDOFF_TESTS_RUNNER_ONLY
// leaves it out, and this file is only Catch2's runner: for a program built outside CMake from
// a few test files (scripts/test.sh's tsan stage).
#ifndef HANDOFF_TESTS_RUNNER_ONLY
#include <handoff/handoff.hpp>
#endif
