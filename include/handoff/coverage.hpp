// SPDX-License-Identifier: MIT
#pragma once

#include <handoff/config.hpp>
#include <handoff/envelope_fields.hpp>
#include <handoff/problem.hpp>
#include <handoff/problem_codes.hpp>

#include <cstdint> // uint64_t
#include <string>  // string

namespace handoff {

/// Two-decimal rounding of completed/expected is exact enough: 0.12 and 0.13 both stand for
/// 1/8 (0.125); 0.2 does not. The extra 1e-9 absorbs binary floating point.
inline constexpr double default_fraction_tolerance = 0.005 + 1e-9;

/// Step 4 of the receipt check: the arithmetic of `coverage`.
///
/// - items_completed never exceeds items_expected;
/// - fraction agrees with items_completed / items_expected within `tolerance`;
/// - status ok means items_completed == items_expected;
/// - items_expected == 0 means the task had no countable items: items_completed must be 0,
///   fraction is then the worker's own estimate of progress, and an ok envelope must say 1.
[[nodiscard]] problem_list check_coverage(status s, const coverage_info& c,
                                          double tolerance = default_fraction_tolerance);

} // namespace handoff

#if !defined(HANDOFF_COMPILED_LIB)
#include <handoff/coverage-inl.hpp>
#endif
