// SPDX-License-Identifier: MIT
// The week-later commands as a user runs them, through the built binary: `handoff-check report`
// over dead letters and receipts, `handoff-check fixtures` into a directory, and
// `handoff-check lint --routes`.

#include "support/catch.hpp"
#include "support/process.hpp"

// tests/CMakeLists.txt defines HANDOFF_CHECK_EXE and HANDOFF_CLI_TEMP_DIR whenever it builds
// handoff-check; without the binary there is nothing to run.
#if defined(HANDOFF_CHECK_EXE) && defined(HANDOFF_CLI_TEMP_DIR)

#include <nlohmann/json.hpp>

#include <algorithm>  // transform
#include <cctype>     // tolower
#include <filesystem> // remove_all
#include <fstream>    // ifstream
#include <map>        // map
#include <set>        // set
#include <string>     // string, getline
#include <utility>    // pair

#include <unistd.h> // getpid

namespace test_cli_week_later { // this file's own names: see "unity build" in tests/CMakeLists.txt

namespace {

std::string in_root(const std::string& command) {
    const std::string root = std::string(HANDOFF_FIXTURES_DIR) + "/../..";
    return "cd '" + root + "' && '" + HANDOFF_CHECK_EXE + "' " + command;
}

} // namespace

TEST_CASE("handoff-check report --json names the class of every failed attempt in real dead letters", "[cli]") {
    const auto ran = handoff_test::run_shell(in_root(
        "report --json tests/fixtures/report/invoice_extractor.jsonl tests/fixtures/report/ticket_triage.jsonl"));
    REQUIRE(ran.exit_status == 0);
    const auto report = nlohmann::json::parse(ran.out);
    REQUIRE(report.contains("total"));
    REQUIRE(report.contains("classes"));
    std::size_t sum = 0;
    for (const auto& [name, entry] : report["classes"].items()) {
        CHECK(entry["count"].get<std::size_t>() > 0);
        sum += entry["count"].get<std::size_t>();
    }
    CHECK(sum == report["total"].get<std::size_t>());
    // The ticket story's retry invents a label and shouts its severity; the invoice story
    // states a total that its line items do not sum to and is cut off at the output cap.
    CHECK(report["classes"].contains("enum_violation"));
    CHECK(report["classes"].contains("semantic"));
    CHECK(report["classes"].contains("truncated"));
}

TEST_CASE("handoff-check report counts corrupt and foreign lines and never fails on them", "[cli]") {
    const auto ran = handoff_test::run_shell(in_root("report --json tests/fixtures/report/mixed.jsonl"));
    REQUIRE(ran.exit_status == 0);
    const auto report = nlohmann::json::parse(ran.out);
    CHECK(report["skipped"]["corrupt"].get<int>() + report["skipped"]["foreign"].get<int>() > 0);
    CHECK(handoff_test::run_shell(in_root("report /nonexistent/dead_letters.jsonl 2>/dev/null")).exit_status == 2);
}

TEST_CASE("handoff-check report takes one output: --json and --html together are a usage error", "[cli]") {
    const auto both = handoff_test::run_shell(
        in_root("report --json --html /dev/null tests/fixtures/report/mixed.jsonl 2>&1 >/dev/null"));
    CHECK(both.exit_status == 2);
    CHECK(both.out.find("--json excludes --html") != std::string::npos);
}

namespace {

/// The files `handoff-check fixtures` writes for a task schema, and the route of each, written
/// out here from the default decision table as the README documents it (reason x coverage band),
/// never read from handoff: a capped fixture per reason and coverage point, named after its route.
std::map<std::string, std::string> expected_fixture_routes() {
    struct table_row {
        const char* reason;
        const char* low;
        const char* mid;
        const char* high;
    };
    const table_row default_table[] = {
        {"token_cap", "SPLIT", "SPLIT", "RESUME"},
        {"time_cap", "SPLIT", "NARROW", "RESUME"},
        {"tool_call_cap", "SPLIT", "SPLIT", "RESUME"},
        {"context_overflow", "SPLIT", "SPLIT", "NARROW"},
        {"dependency_failed", "ESCALATE", "ESCALATE", "ESCALATE"},
        {"scope_too_broad", "SPLIT", "SPLIT", "NARROW"},
    };
    // Each band's edges: low [0, 0.5), mid [0.5, 0.8), high [0.8, 1].
    const std::pair<const char*, const char*> points[] = {{"0", "low"},     {"0.499", "low"}, {"0.5", "mid"},
                                                          {"0.799", "mid"}, {"0.8", "high"},  {"1", "high"}};
    std::map<std::string, std::string> expected = {
        {"accept_ok.json", "ACCEPT"},
        {"repair_parse_not_json.txt", "REPAIR"},
        {"repair_envelope_schema_unknown_reason_code.json", "REPAIR"},
        {"repair_coverage_fraction_disagrees.json", "REPAIR"},
        {"repair_task_schema_ok_result_breaks_schema.json", "REPAIR"},
        // A result the task schema refuses is discarded: routed at usable coverage 0 (low).
        {"downgrade_split_token_cap.json", "SPLIT"},
        // The last attempt (--attempt 3 of 3) fails whatever the table says.
        {"fail_token_cap_attempts_exhausted.json", "FAIL"},
    };
    for (const table_row& row : default_table) {
        for (const auto& [ratio, band] : points) {
            const std::string band_name = band;
            const std::string route = band_name == "low" ? row.low : band_name == "mid" ? row.mid : row.high;
            std::string file = route;
            std::transform(file.begin(), file.end(), file.begin(),
                           [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
            file += std::string("_") + row.reason + "_" + ratio + "_" + band + ".json";
            expected.emplace(file, route);
        }
    }
    return expected;
}

} // namespace

TEST_CASE("handoff-check fixtures writes a fixture per route and table cell, each routed as the default table says",
          "[cli]") {
    const std::string dir = std::string(HANDOFF_CLI_TEMP_DIR) + "/fixtures." + std::to_string(::getpid());
    std::filesystem::remove_all(dir);
    const auto made = handoff_test::run_shell(
        in_root("fixtures --task-schema examples/schemas/ticket.schema.json --out '" + dir + "' >/dev/null"));
    REQUIRE(made.exit_status == 0);
    std::ifstream manifest(dir + "/manifest.jsonl");
    REQUIRE(manifest);
    const std::map<std::string, std::string> expected = expected_fixture_routes();
    REQUIRE(expected.size() == 43);
    std::set<std::string> listed;
    std::string line;
    while (std::getline(manifest, line)) {
        const auto entry = nlohmann::json::parse(line);
        const std::string file = entry["file"].get<std::string>();
        INFO("fixture " << file);
        listed.insert(file);
        const auto want = expected.find(file);
        REQUIRE(want != expected.end());
        CHECK(entry["route"] == want->second);
        // The attempt and split depth are the fixture's context (an input), not its outcome.
        const std::string attempt = " --attempt " + std::to_string(entry.value("attempt", 1)) + " --split-depth " +
                                    std::to_string(entry.value("split_depth", 0));
        const auto ran = handoff_test::run_shell(
            in_root("--task-schema examples/schemas/ticket.schema.json" + attempt + " '" + dir + "/" + file + "'"));
        const auto receipt = nlohmann::json::parse(ran.out);
        CHECK(receipt["route"] == want->second);
        CHECK(ran.exit_status == (want->second == "REPAIR" ? 1 : 0));
    }
    CHECK(listed.size() == expected.size());
    std::filesystem::remove_all(dir);
}

TEST_CASE("handoff-check lint --routes exits 1 naming a label the routing table lacks", "[cli]") {
    const std::string table = std::string(HANDOFF_CLI_TEMP_DIR) + "/routes." + std::to_string(::getpid()) + ".json";
    {
        std::ofstream out(table);
        out << R"({"/label": {"billing": "q-billing", "outage": "q-oncall", "how_to": "q-docs", "bug": "q-eng",
                              "abuse": "q-trust"}})";
    }
    const auto ran =
        handoff_test::run_shell(in_root("lint --routes '" + table + "' examples/schemas/ticket.schema.json"));
    CHECK(ran.exit_status == 1);
    CHECK(ran.out.find("human") != std::string::npos);
    std::filesystem::remove(table);
}

} // namespace test_cli_week_later

#endif
