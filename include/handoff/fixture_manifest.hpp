// SPDX-License-Identifier: MIT
#pragma once

#include <handoff/config.hpp>
#include <handoff/decision.hpp>
#include <handoff/enums.hpp>
#include <handoff/receipt.hpp>

#include <nlohmann/json.hpp>

#include <cstddef>   // size_t
#include <cstdint>   // uint32_t, uint64_t, UINT32_MAX
#include <optional>  // optional
#include <stdexcept> // runtime_error
#include <string>    // string

namespace handoff {

/// One line of a fixture directory's manifest.jsonl: a file and how the receiver routes it.
/// The expectations are facts checked when the fixture was written, not hopes.
struct manifest_entry {
    std::string file;
    handoff::route route = handoff::route::repair;
    /// The failed contract step, for REPAIR; empty otherwise.
    std::optional<handoff::step> failed_step;
    /// The decision's action, for capped envelopes that passed the contract.
    std::optional<handoff::action> action;
    /// What the envelope says, as written ("ok", "capped"); empty when it does not parse.
    std::optional<std::string> status;
    /// What the envelope says, as written: an unknown code stays as the worker spelt it.
    std::optional<std::string> reason_code;
    /// coverage.fraction as written; empty when there is no readable coverage.
    std::optional<double> coverage;
    /// The band the decision routed in (usable coverage, so 0 after a downgrade).
    std::optional<handoff::band> coverage_band;
    /// Pass it to receive(): a fixture for FAIL is a run that used up its attempts.
    attempt_context context{};
    std::string description;
};

/// A manifest line that cannot be read: a test setup error, never a test failure.
class manifest_error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// The manifest line: `{"file", "route", "step", "action", "status", "reason_code", "coverage",
/// "band", "attempt", "split_depth", "description"}`, null where a field does not apply.
[[nodiscard]] nlohmann::ordered_json to_json(const manifest_entry& e);

/// Reads one manifest line; throws manifest_error naming the field that is wrong.
[[nodiscard]] manifest_entry manifest_entry_from_json(const nlohmann::json& line);

namespace detail {

/// How a receipt routed, apart from its task type: what routing_mismatch compares.
struct routed_as {
    route how = route::repair;
    std::optional<step> failed_step;
    std::optional<action> decision_action;
    /// The receipt's first problem's message; null when it has none.
    const std::string* first_problem = nullptr;
};

/// What differs between `got` and the expected route, failed step and decision action, or
/// empty when nothing does.
[[nodiscard]] std::optional<std::string> routing_mismatch(const routed_as& actual, const std::string& file,
                                                          route expected_route, std::optional<step> expected_step,
                                                          std::optional<action> expected_action);

/// What differs between a receipt and the expected route, failed step and decision action
/// (empty when the receipt has no decision), or empty when nothing does.
template <class Task>
[[nodiscard]] std::optional<std::string> routing_mismatch(const receipt<Task>& r, const std::string& file,
                                                          route expected_route, std::optional<step> expected_step,
                                                          std::optional<action> expected_action) {
    const routed_as got{r.route, r.failed_step, r.decision ? std::optional<action>(r.decision->action) : std::nullopt,
                        r.problems.empty() ? nullptr : &r.problems.front().message};
    return routing_mismatch(got, file, expected_route, expected_step, expected_action);
}

} // namespace detail

/// What differs between a receipt and the manifest's expectations, or empty when it matches:
/// the route, the failed step and, for a routed capped envelope, the decision's action.
template <class Task>
[[nodiscard]] std::optional<std::string> manifest_mismatch(const receipt<Task>& r, const manifest_entry& e) {
    return detail::routing_mismatch(r, e.file, e.route, e.failed_step, e.action);
}

} // namespace handoff

#if !defined(HANDOFF_COMPILED_LIB)
#include <handoff/fixture_manifest-inl.hpp>
#endif
