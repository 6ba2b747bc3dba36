// SPDX-License-Identifier: MIT
#pragma once

// Layer 2's interface: what a semantic check is (semantic_check<Task>), what it sees
// (check_context), and how a receiver runs its checks (run_semantic_checks). The built-in
// checks are in semantic.hpp.

#include <handoff/config.hpp>
#include <handoff/detail/text.hpp>
#include <handoff/enums.hpp>
#include <handoff/problem.hpp>
#include <handoff/problem_codes.hpp>
#include <handoff/receipt.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>   // any_of
#include <cstddef>     // size_t
#include <exception>   // exception
#include <functional>  // function
#include <string>      // string, to_string
#include <string_view> // string_view
#include <utility>     // move
#include <vector>      // vector

namespace handoff {

/// What a semantic check may look at besides the typed result.
struct check_context {
    /// The partial result as JSON, already valid against the task schema. The built-in checks
    /// read this, so they work for any Task type.
    const nlohmann::json& result;
    /// The text the worker was given (the invoice, the ticket thread). Provenance quotes must
    /// occur in it. Empty when the caller passed none to `receive`.
    std::string_view source_text;
    /// Where `result` sits in the envelope; every pointer a check reports starts with it.
    std::string_view base_pointer = "/partial_result";
    /// ok (the result is the whole answer) or capped (it is partial).
    handoff::status status = handoff::status::ok;
};

/// A user check: returns the problems it found (none when the result makes sense). Problems
/// are normalised by run_semantic_checks (step, pointer, message prefix), so a check may leave
/// `step` alone and write its message without the pointer.
template <class Task = nlohmann::json>
using semantic_check = std::function<problem_list(const Task&, const check_context&)>;

namespace detail {

/// The `semantic.check_threw` problem of check #`number`, which threw `what` (null: something
/// that is no std::exception).
[[nodiscard]] problem check_threw(std::size_t number, const char* what, std::string_view base_pointer);

/// Moves every problem of `found` to the end of `all`, each with step::semantic, a code, a
/// pointer under `base_pointer` (the base itself when empty) and a message that starts with it.
void add_semantic_problems(problem_list& all, problem_list&& found, std::string_view base_pointer);

} // namespace detail

/// Runs every check in order and returns all their problems, each with step::semantic, a
/// pointer under ctx.base_pointer (the base itself when the check left it empty) and a message
/// that starts with that pointer. A check that throws becomes a `semantic.check_threw` problem:
/// a bug in a user check must not turn untrusted input into an exception out of `receive`.
template <class Task>
[[nodiscard]] problem_list run_semantic_checks(const std::vector<semantic_check<Task>>& checks, const Task& task,
                                               const check_context& ctx) {
    problem_list all;
    for (std::size_t i = 0; i < checks.size(); ++i) {
        problem_list found;
        try {
            found = checks[i](task, ctx);
        } catch (const std::exception& e) {
            found.push_back(detail::check_threw(i + 1, e.what(), ctx.base_pointer));
        } catch (...) {
            found.push_back(detail::check_threw(i + 1, nullptr, ctx.base_pointer));
        }
        detail::add_semantic_problems(all, std::move(found), ctx.base_pointer);
    }
    return all;
}

/// True when layer 2 rejected the result: a problem of step::semantic is in the receipt. For an
/// ok envelope the receipt also says failed_step == step::semantic (route REPAIR); for a capped
/// one the result was discarded as unusable while schema_ok stayed true (see receiver.hpp).
template <class Task>
[[nodiscard]] bool semantic_failure(const receipt<Task>& r) noexcept {
    return std::any_of(r.problems.begin(), r.problems.end(), [](const problem& p) { return p.step == step::semantic; });
}

} // namespace handoff

#if !defined(HANDOFF_COMPILED_LIB)
#include <handoff/semantic_check-inl.hpp>
#endif
