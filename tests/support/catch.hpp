// SPDX-License-Identifier: MIT
#pragma once

// The one place that knows which Catch2 we build against: v2 (Debian 12) or v3.
// Tests include "support/catch.hpp" and may use the v3 spellings below with either:
//   Catch::Approx, Catch::Matchers::ContainsSubstring, Catch::Matchers::WithinAbs/WithinRel,
//   GENERATE, STATIC_REQUIRE, REQUIRE_THAT.
#if defined(HANDOFF_CATCH2_V3) && HANDOFF_CATCH2_V3
#include <catch2/catch_all.hpp>
#else
#include <catch2/catch.hpp>

#include <string> // std::string

namespace Catch {
using Detail::Approx; // v3 spells it Catch::Approx
namespace Matchers {
// v3 renamed the string matcher Contains to ContainsSubstring.
inline StdString::ContainsMatcher ContainsSubstring(std::string const& str,
                                                    CaseSensitive::Choice cs = CaseSensitive::Yes) {
    return Contains(str, cs);
}
} // namespace Matchers
} // namespace Catch
#endif
