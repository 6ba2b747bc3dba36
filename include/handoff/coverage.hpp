// SPDX-License-Identifier: MIT
#pragma once

#include <handoff/detail/text.hpp>
#include <handoff/envelope_fields.hpp>
#include <handoff/problem.hpp>
#include <handoff/problem_codes.hpp>

#include <cmath>   // fabs
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
[[nodiscard]] inline problem_list check_coverage(status s, const coverage_info& c,
                                                 double tolerance = default_fraction_tolerance) {
    problem_list problems;
    const auto add = [&](const char* code, const char* pointer, const std::string& message) {
        problems.push_back(problem{step::coverage, code, pointer, std::string(pointer) + ": " + message});
    };
    if (c.items_completed > c.items_expected) {
        add(codes::coverage_completed_exceeds_expected, "/coverage/items_completed",
            std::to_string(c.items_completed) + " completed exceeds the " + std::to_string(c.items_expected) +
                " expected");
        return problems; // the ratio below would be meaningless
    }
    if (c.items_expected > 0) {
        const double ratio = static_cast<double>(c.items_completed) / static_cast<double>(c.items_expected);
        if (std::fabs(c.fraction - ratio) > tolerance) {
            add(codes::coverage_fraction_mismatch, "/coverage/fraction",
                detail::format_number(c.fraction) + " disagrees with " + std::to_string(c.items_completed) + "/" +
                    std::to_string(c.items_expected) + " = " + detail::format_two_decimals(ratio));
        }
        if (s == status::ok && c.items_completed != c.items_expected) {
            add(codes::coverage_ok_incomplete, "/coverage/items_completed",
                "status \"ok\" but only " + std::to_string(c.items_completed) + " of " +
                    std::to_string(c.items_expected) + " " + detail::quote_untrusted(c.unit, 32) +
                    " are completed: report \"capped\" with a reason_code, or finish the work");
        }
    } else if (s == status::ok && std::fabs(c.fraction - 1.0) > tolerance) {
        add(codes::coverage_ok_incomplete, "/coverage/fraction",
            "status \"ok\" with no counted items (items_expected 0) must report fraction 1, got " +
                detail::format_number(c.fraction));
    }
    return problems;
}

} // namespace handoff
