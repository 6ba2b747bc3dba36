// SPDX-License-Identifier: MIT
#pragma once

// The fixture generator's definitions: inline in every file header-only, compiled once in
// <handoff/src.hpp> otherwise (config.hpp).

#include <handoff/fixtures.hpp>

#include <handoff/decision_table.hpp>
#include <handoff/detail/schema/access.hpp>
#include <handoff/detail/schema/bundle.hpp>
#include <handoff/detail/schema/refs.hpp>
#include <handoff/detail/schema/value_generator.hpp>
#include <handoff/detail/text.hpp>
#include <handoff/enums.hpp>
#include <handoff/fixture_manifest.hpp>
#include <handoff/problem_codes.hpp>
#include <handoff/receiver.hpp>
#include <handoff/schema_registry.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>   // max, sort, unique
#include <cctype>      // tolower
#include <cmath>       // ceil
#include <cstdint>     // uint64_t
#include <cstdio>      // snprintf
#include <optional>    // optional
#include <set>         // set
#include <string>      // string
#include <string_view> // string_view
#include <utility>     // move, pair
#include <vector>      // vector

namespace handoff {

HANDOFF_INLINE std::string fixture_set::manifest_jsonl() const {
    std::string out;
    for (const fixture_file& f : files) {
        out += to_json(f.entry).dump() + "\n";
    }
    return out;
}

namespace detail {

/// A coverage to make capped fixtures at: `completed` of the expected items.
struct coverage_point {
    std::uint64_t completed = 0;
    std::string label; // "0", "just below 0.5", "0.5", ...
};

/// The smallest count whose ratio the table puts at or above `edge` (band_of compares `>=`).
HANDOFF_INLINE std::uint64_t first_count_at(double edge, std::uint64_t expected) {
    const auto ratio = [&](std::uint64_t k) { return static_cast<double>(k) / static_cast<double>(expected); };
    auto k = static_cast<std::uint64_t>(std::max(0.0, std::ceil(edge * static_cast<double>(expected))));
    k = std::min(k, expected);
    while (k > 0 && ratio(k - 1) >= edge) {
        --k;
    }
    while (k < expected && ratio(k) < edge) {
        ++k;
    }
    return k;
}

/// 0, just below and at each band edge of `edges`, and 1: every band and every edge, taken
/// from the table itself so a changed edge moves the fixtures with it. Sorted, no repeats.
HANDOFF_INLINE std::vector<coverage_point> coverage_points(const band_edges& edges, std::uint64_t expected) {
    std::vector<coverage_point> points{{0, "0"}, {expected, "1"}};
    for (const double edge : {edges.mid, edges.high}) {
        const std::uint64_t k = first_count_at(edge, expected);
        if (k > 0) {
            points.push_back({k - 1, "just below " + format_number(edge)});
        }
        points.push_back({k, format_number(edge)});
    }
    std::stable_sort(points.begin(), points.end(),
                     [](const coverage_point& a, const coverage_point& b) { return a.completed < b.completed; });
    points.erase(
        std::unique(points.begin(), points.end(),
                    [](const coverage_point& a, const coverage_point& b) { return a.completed == b.completed; }),
        points.end());
    return points;
}

HANDOFF_INLINE std::string lower(std::string_view s) {
    std::string out(s);
    for (char& c : out) {
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    return out;
}

/// The fields of one envelope; `json()` writes it in the order the envelope schema lists them.
struct fixture_envelope {
    std::string status = "capped";
    std::optional<std::string> reason_code;
    nlohmann::json partial_result;
    bool schema_ok = true;
    std::uint64_t expected = 0;
    std::uint64_t completed = 0;
    double fraction = 0.0;
    std::string unit;

    [[nodiscard]] std::string text() const {
        nlohmann::ordered_json j;
        j["status"] = status;
        j["reason_code"] = reason_code ? nlohmann::ordered_json(*reason_code) : nlohmann::ordered_json(nullptr);
        j["partial_result"] = partial_result;
        j["schema_ok"] = schema_ok;
        j["coverage"] = {
            {"items_expected", expected}, {"items_completed", completed}, {"unit", unit}, {"fraction", fraction}};
        nlohmann::ordered_json done = nlohmann::ordered_json::array();
        nlohmann::ordered_json left = nlohmann::ordered_json::array();
        if (completed > 0) {
            done.push_back(unit + " 1-" + std::to_string(completed));
        }
        if (completed < expected) {
            left.push_back(unit + " " + std::to_string(completed + 1) + "-" + std::to_string(expected));
        }
        j["steps"] = {{"completed", done}, {"remaining", left}};
        return j.dump(2) + "\n";
    }
};

/// A result the task schema refuses, made from a valid one: an unexpected property, a missing
/// required one, or a property of the wrong type, whichever the schema refuses first. Each
/// candidate is made only when the ones before it passed: a result of thousands of members has
/// as many candidates, each a copy of it.
HANDOFF_INLINE std::optional<nlohmann::json> broken_result(const nlohmann::json& valid, const compiled_schema& schema) {
    const auto refused = [&schema](const nlohmann::json& candidate) { return !schema.accepts(candidate); };
    nlohmann::json candidate = valid;
    candidate["unexpected_fixture_property"] = "not in the task schema";
    if (refused(candidate)) {
        return candidate;
    }
    for (auto it = valid.begin(); it != valid.end(); ++it) {
        candidate = valid;
        candidate.erase(it.key());
        if (refused(candidate)) {
            return candidate;
        }
        candidate[it.key()] =
            it.value().is_array() ? nlohmann::json("not an array") : nlohmann::json::array({it.value()});
        if (refused(candidate)) {
            return candidate;
        }
    }
    return std::nullopt;
}

/// Collects fixtures, receiving each one as it is added; the first that routes otherwise than
/// its entry says stops the set.
class fixture_builder {
public:
    fixture_builder(const receiver<>& r, const fixture_options& options) : receiver_(r), options_(options) {}

    void add(manifest_entry entry, std::string text) {
        if (set_.error) {
            return;
        }
        if (!names_.insert(entry.file).second) {
            set_.error = "two fixtures are both named " + entry.file + " (a bug in handoff's fixture generator)";
            return;
        }
        const receipt<> r = receiver_.receive(text, entry.context);
        if (const auto mismatch = manifest_mismatch(r, entry)) {
            set_.error = "a fixture does not route as its manifest line says (a bug in handoff's fixture "
                         "generator): " +
                         *mismatch;
            return;
        }
        set_.files.push_back(fixture_file{std::move(entry), std::move(text)});
    }

    [[nodiscard]] const fixture_options& options() const noexcept { return options_; }
    [[nodiscard]] const routing_policy& policy() const noexcept { return options_.receiving.policy; }

    fixture_set finish() && {
        if (set_.error) {
            set_.files.clear();
        }
        return std::move(set_);
    }

private:
    const receiver<>& receiver_;
    const fixture_options& options_;
    fixture_set set_;
    std::set<std::string> names_;
};

HANDOFF_INLINE double ratio(std::uint64_t completed, std::uint64_t expected) {
    return static_cast<double>(completed) / static_cast<double>(expected);
}

/// completed/expected for a file name: as many significant digits as `expected` has, so two
/// counts never share a name ("0.499" of 1000, "0.4999999" of 10000000).
HANDOFF_INLINE std::string ratio_name(std::uint64_t completed, std::uint64_t expected) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.*g", static_cast<int>(std::to_string(expected).size()),
                  ratio(completed, expected));
    return buf;
}

/// A valid capped envelope and its entry: routed by the table at completed/expected.
HANDOFF_INLINE std::pair<manifest_entry, fixture_envelope> capped_fixture(const fixture_builder& b, reason_code reason,
                                                                          const coverage_point& point,
                                                                          const nlohmann::json& result) {
    const std::uint64_t expected = b.options().items_expected;
    fixture_envelope env{"capped",        std::string(to_string(reason)),   result,          true, expected,
                         point.completed, ratio(point.completed, expected), b.options().unit};
    manifest_entry e;
    e.action = decide(reason, env.fraction, b.policy().table);
    e.route = to_route(*e.action);
    e.status = env.status;
    e.reason_code = env.reason_code;
    e.coverage = env.fraction;
    e.coverage_band = band_of(env.fraction, b.policy().table.edges);
    e.file = lower(to_string(e.route)) + "_" + lower(to_string(reason)) + "_" + ratio_name(point.completed, expected) +
             "_" + std::string(to_string(*e.coverage_band)) + ".json";
    e.description = std::string(to_string(reason)) + " at coverage " + point.label + " (" +
                    std::to_string(point.completed) + " of " + std::to_string(expected) + "), " +
                    std::string(to_string(*e.coverage_band)) + " band: the table says " +
                    std::string(to_string(*e.action));
    return {std::move(e), std::move(env)};
}

/// Every reason code at every coverage point: each cell of the table, each band edge.
HANDOFF_INLINE void add_table_grid(fixture_builder& b, const nlohmann::json& result) {
    for (const coverage_point& point : coverage_points(b.policy().table.edges, b.options().items_expected)) {
        for (const reason_code reason : all_reason_codes) {
            auto [entry, env] = capped_fixture(b, reason, point, result);
            b.add(std::move(entry), env.text());
        }
    }
}

/// Status ok, `result`, every item completed.
HANDOFF_INLINE fixture_envelope accepted_envelope(const nlohmann::json& result, const fixture_options& options) {
    const std::uint64_t n = options.items_expected;
    return fixture_envelope{"ok", std::nullopt, result, true, n, n, 1.0, options.unit};
}

/// The ok envelope that is accepted: the generated result, every item completed.
HANDOFF_INLINE void add_accept(fixture_builder& b, const nlohmann::json& result) {
    const fixture_envelope env = accepted_envelope(result, b.options());
    manifest_entry e;
    e.file = "accept_ok.json";
    e.route = route::accept;
    e.status = env.status;
    e.coverage = env.fraction;
    e.description = "status ok, a result that fits the task schema, every item completed: accepted";
    b.add(std::move(e), env.text());
}

/// The parse limit an accepted envelope around `result` exceeds, as the receiver words it, or
/// nullopt: no fixture can carry a result the receiver refuses to read.
HANDOFF_INLINE std::optional<std::string> beyond_limits(const receiver<>& r, const nlohmann::json& result,
                                                        const fixture_options& options) {
    const receipt<> received = r.receive(accepted_envelope(result, options).text());
    for (const problem& p : received.problems) {
        if (p.code.rfind(codes::parse_limit_family, 0) == 0) {
            return p.message;
        }
    }
    return std::nullopt;
}

/// A contract failure: routed REPAIR at `failed`.
HANDOFF_INLINE manifest_entry repair_entry(std::string file, step failed, const fixture_envelope* env,
                                           std::string description) {
    manifest_entry e;
    e.file = std::move(file);
    e.route = route::repair;
    e.failed_step = failed;
    if (env != nullptr) {
        e.status = env->status;
        e.reason_code = env->reason_code;
        e.coverage = env->fraction;
    }
    e.description = std::move(description);
    return e;
}

/// Steps 1, 2 and 4: text that is not JSON, an unknown reason code, a fraction that disagrees.
HANDOFF_INLINE void add_contract_failures(fixture_builder& b, const nlohmann::json& result) {
    const std::uint64_t n = b.options().items_expected;
    const std::string first_reason(to_string(all_reason_codes[0]));
    b.add(repair_entry("repair_parse_not_json.txt", step::parse, nullptr,
                       "prose and an envelope cut off mid-object: not JSON"),
          "Here is the envelope you asked for:\n{\"status\": \"capped\", \"reason_code\": \"" + first_reason +
              "\", \"partial_result\": {\n");
    const fixture_envelope unknown{
        "capped", std::string("RATE_LIMITED"), result, true, n, n / 2, ratio(n / 2, n), b.options().unit};
    b.add(repair_entry("repair_envelope_schema_unknown_reason_code.json", step::envelope_schema, &unknown,
                       "reason_code \"RATE_LIMITED\" is not one of the envelope schema's reason codes"),
          unknown.text());
    // A quarter done but a fraction half a unit away: no rounding explains it.
    const std::uint64_t done = n / 4;
    const double said = ratio(done, n) < 0.5 ? ratio(done, n) + 0.5 : ratio(done, n) - 0.5;
    const fixture_envelope wrong{"capped", first_reason, result, true, n, done, said, b.options().unit};
    b.add(repair_entry("repair_coverage_fraction_disagrees.json", step::coverage, &wrong,
                       "coverage.fraction " + format_number(said) + " disagrees with " + std::to_string(done) + "/" +
                           std::to_string(n)),
          wrong.text());
}

/// Step 3: an ok envelope whose result the task schema refuses (REPAIR), and a capped one whose
/// partial result it refuses (a downgrade: routed by the table at usable coverage 0). When the
/// schema refuses no object, the worker's own `schema_ok: false` stands in for the refusal.
HANDOFF_INLINE void add_task_schema_failures(fixture_builder& b, const nlohmann::json& result,
                                             const compiled_schema& schema) {
    const std::optional<nlohmann::json> broken = broken_result(result, schema);
    const std::string how = broken ? "a result the task schema refuses"
                                   : "schema_ok false (the task schema accepts any object, so the worker's own "
                                     "claim is what fails)";
    const std::uint64_t n = b.options().items_expected;
    const fixture_envelope ok{"ok", std::nullopt, broken.value_or(result), broken.has_value(), n,
                              n,    1.0,          b.options().unit};
    b.add(repair_entry("repair_task_schema_ok_result_breaks_schema.json", step::task_schema, &ok,
                       "status ok with " + how + ": the whole answer is absent"),
          ok.text());
    // The reason code whose action at full coverage differs most visibly from its action at 0.
    reason_code reason = all_reason_codes[0];
    for (const reason_code r : all_reason_codes) {
        if (decide(r, 1.0, b.policy().table) != decide(r, 0.0, b.policy().table)) {
            reason = r;
            break;
        }
    }
    const coverage_point high{first_count_at(b.policy().table.edges.high, n), "high"};
    auto [entry, env] = capped_fixture(b, reason, high, broken.value_or(result));
    env.schema_ok = broken.has_value();
    entry.action = decide(reason, 0.0, b.policy().table);
    entry.route = to_route(*entry.action);
    entry.coverage_band = band_of(0.0, b.policy().table.edges);
    entry.file = "downgrade_" + lower(to_string(entry.route)) + "_" + lower(to_string(reason)) + ".json";
    entry.description = std::string(to_string(reason)) + " at coverage " + format_number(env.fraction) + " with " +
                        how + ": the partial result is discarded and the table routes at usable coverage 0, " +
                        std::string(to_string(*entry.action));
    b.add(std::move(entry), env.text());
}

/// FAIL: a capped run whose table action spends budget, on the policy's last attempt.
/// (With max_attempts 0 every attempt is past the limit; attempt 1 shows it.)
HANDOFF_INLINE void add_attempts_exhausted(fixture_builder& b, const nlohmann::json& result) {
    const routing_policy& policy = b.policy();
    const std::uint64_t n = b.options().items_expected;
    const std::vector<coverage_point> points = coverage_points(policy.table.edges, n);
    // Highest coverage first: giving up on a nearly finished run is the case worth a test.
    for (auto point = points.rbegin(); point != points.rend(); ++point) {
        for (const reason_code reason : all_reason_codes) {
            auto [entry, env] = capped_fixture(b, reason, *point, result);
            if (!spends_budget(*entry.action)) {
                continue;
            }
            entry.context.attempt = std::max<std::uint32_t>(1, policy.max_attempts);
            entry.description = std::string(to_string(reason)) + " at coverage " + format_number(env.fraction) +
                                " on attempt " + std::to_string(entry.context.attempt) + " of " +
                                std::to_string(policy.max_attempts) + ": the table says " +
                                std::string(to_string(*entry.action)) + ", the policy gives up: FAIL";
            entry.action = action::fail;
            entry.route = route::fail;
            entry.file = "fail_" + lower(to_string(reason)) + "_attempts_exhausted.json";
            b.add(std::move(entry), env.text());
            return;
        }
    }
}

/// Every fixture for `receiver`, whose value is generated from `schema`: the task schema with
/// every document its `$ref`s name copied in (the generator reads one document).
HANDOFF_INLINE fixture_set fixtures_for(const receiver<>& receiver, const nlohmann::json& schema,
                                        const fixture_options& checked) {
    value_generator generator(schema, checked.receiving.schema, checked.receiving.limits);
    const std::optional<nlohmann::json> result = generator.generate_object();
    fixture_set failed;
    if (!result) {
        failed.error = "no value that fits the task schema could be generated: " + generator.failure();
        return failed;
    }
    if (!result->is_object()) {
        failed.error = "the task schema accepts no object (generated " + quote_untrusted(result->dump(), 80) +
                       "), but partial_result must be an object";
        return failed;
    }
    if (const std::optional<std::string> over = beyond_limits(receiver, *result, checked)) {
        failed.error = "the value generated for partial_result is more than the receiver reads (" + *over +
                       "); give the task schema a \"default\" or \"examples\" with a smaller one";
        return failed;
    }
    fixture_builder builder(receiver, checked);
    add_accept(builder, *result);
    add_table_grid(builder, *result);
    add_contract_failures(builder, *result);
    add_task_schema_failures(builder, *result, *receiver.task_schema());
    add_attempts_exhausted(builder, *result);
    return std::move(builder).finish();
}

HANDOFF_INLINE fixture_options checked_fixture_options(const fixture_options& options) {
    fixture_options checked = options;
    checked.items_expected = std::max<std::uint64_t>(1, options.items_expected);
    return checked;
}

} // namespace detail

HANDOFF_INLINE fixture_set make_fixtures(const nlohmann::json& task_schema, const fixture_options& options) {
    const fixture_options checked = detail::checked_fixture_options(options);
    return detail::fixtures_for(receiver<>(task_schema, checked.receiving), task_schema, checked);
}

HANDOFF_INLINE fixture_set make_fixtures(const nlohmann::json& task_schema, const schema_registry& registry,
                                         std::string_view base_uri, const fixture_options& options) {
    const fixture_options checked = detail::checked_fixture_options(options);
    const detail::ref_scope scope{&registry, std::string(base_uri), checked.receiving.schema.dialect};
    const receiver<> receiver(detail::compiled_schema_access::compile(task_schema, scope.base_uri, scope.registry,
                                                                      scope.folders(), checked.receiving.schema),
                              checked.receiving);
    return detail::fixtures_for(receiver, detail::bundled_compiled(task_schema, scope, *receiver.task_schema()),
                                checked);
}

} // namespace handoff
