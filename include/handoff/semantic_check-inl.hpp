// SPDX-License-Identifier: MIT
#pragma once

// semantic_check's definitions: inline in every file header-only, compiled once in
// <handoff/src.hpp> otherwise (config.hpp).

#include <handoff/semantic_check.hpp>

namespace handoff::detail {

HANDOFF_INLINE problem check_threw(std::size_t number, const char* what, std::string_view base_pointer) {
    return problem{step::semantic, codes::semantic_check_threw, std::string(base_pointer),
                   "semantic check #" + std::to_string(number) +
                       (what != nullptr ? " threw: " + quote_untrusted(what, 200)
                                        : std::string(" threw a non-standard exception"))};
}

HANDOFF_INLINE void add_semantic_problems(problem_list& all, problem_list&& found, std::string_view base_pointer) {
    for (problem& p : found) {
        p.step = step::semantic;
        if (p.code.empty()) {
            p.code = codes::semantic_check;
        }
        if (p.pointer.empty()) {
            p.pointer = std::string(base_pointer);
        }
        const std::string prefix = p.pointer + ":";
        if (p.message.compare(0, prefix.size(), prefix) != 0) {
            p.message = prefix + " " + (p.message.empty() ? std::string("failed a semantic check") : p.message);
        }
        all.push_back(std::move(p));
    }
}

} // namespace handoff::detail
