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

#include <filesystem> // remove_all, directory_iterator
#include <fstream>    // ifstream
#include <string>     // string, getline

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

TEST_CASE("handoff-check fixtures writes a set that handoff-check itself routes as the manifest says", "[cli]") {
    const std::string dir = std::string(HANDOFF_CLI_TEMP_DIR) + "/fixtures." + std::to_string(::getpid());
    std::filesystem::remove_all(dir);
    const auto made = handoff_test::run_shell(
        in_root("fixtures --task-schema examples/schemas/ticket.schema.json --out '" + dir + "' >/dev/null"));
    REQUIRE(made.exit_status == 0);
    std::ifstream manifest(dir + "/manifest.jsonl");
    REQUIRE(manifest);
    std::string line;
    int checked = 0;
    while (std::getline(manifest, line)) {
        const auto entry = nlohmann::json::parse(line);
        const std::string attempt = " --attempt " + std::to_string(entry.value("attempt", 1)) + " --split-depth " +
                                    std::to_string(entry.value("split_depth", 0));
        const auto ran = handoff_test::run_shell(in_root("--task-schema examples/schemas/ticket.schema.json" + attempt +
                                                         " '" + dir + "/" + entry["file"].get<std::string>() + "'"));
        const auto receipt = nlohmann::json::parse(ran.out);
        CHECK(receipt["route"] == entry["route"]);
        CHECK(ran.exit_status == (entry["route"] == "REPAIR" ? 1 : 0));
        ++checked;
    }
    CHECK(checked == 43);
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
