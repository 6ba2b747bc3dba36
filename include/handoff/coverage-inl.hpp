// SPDX-License-Identifier: MIT
#pragma once

// check_coverage's definition: inline in every file header-only, compiled once in
// <handoff/src.hpp> otherwise (config.hpp).

#include <handoff/coverage.hpp>

#include <handoff/detail/text.hpp>
#include <handoff/envelope_fields.hpp>
#include <handoff/problem.hpp>
#include <handoff/problem_codes.hpp>

#include <cmath>  // fabs
#include <string> // string, to_string

namespace handoff {

HANDOFF_INLINE problem_list check_coverage(status s, const coverage_info& c, double tolerance) {
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
