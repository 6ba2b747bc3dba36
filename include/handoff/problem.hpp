// SPDX-License-Identifier: MIT
#pragma once

#include <handoff/enums.hpp>
#include <handoff/problem_codes.hpp> // codes: the values of problem::code

#include <string> // string
#include <vector> // vector

namespace handoff {

/// One thing wrong with an envelope, specific enough to paste into a repair prompt.
struct problem {
    handoff::step step = handoff::step::parse;
    /// Stable, dotted identifier, one of handoff::codes (e.g. codes::coverage_fraction_mismatch).
    std::string code;
    /// RFC 6901 JSON pointer of the offending value ("" is the whole document).
    std::string pointer;
    /// Starts with the pointer; names the value, what was expected and why.
    std::string message;
};

using problem_list = std::vector<problem>;

} // namespace handoff
