// SPDX-License-Identifier: MIT
// handoff-check as a user runs it: a child process, its stdout lines and its exit status.

#include "support/fixtures.hpp"
#include "support/process.hpp"

#include <nlohmann/json.hpp>

#include <cstddef> // size_t
#include <fstream> // ofstream
#include <sstream> // istringstream
#include <string>  // string
#include <utility> // move
#include <vector>  // vector

namespace test_cli { // this file's own names: see "unity build" in tests/CMakeLists.txt

#ifndef HANDOFF_CHECK_EXE
#error "HANDOFF_CHECK_EXE must name the handoff-check binary"
#endif

namespace {

const std::string exe = HANDOFF_CHECK_EXE;
const std::string cli_fixtures = std::string(HANDOFF_FIXTURES_DIR) + "/cli/";
const std::string schemas = std::string(HANDOFF_FIXTURES_DIR) + "/schemas/";

struct run_result {
    int exit_status = -1;
    std::vector<nlohmann::json> receipts;
    std::string out;
};

/// Runs `handoff-check ARGS` through the shell, stdin from `stdin_file` if given.
run_result run(const std::string& args, const std::string& stdin_file = "/dev/null") {
    const std::string command = "'" + exe + "' " + args + " < '" + stdin_file + "' 2>/dev/null";
    handoff_test::shell_result ran = handoff_test::run_shell(command);
    run_result result;
    result.exit_status = ran.exit_status;
    result.out = std::move(ran.out);
    std::istringstream lines(result.out);
    for (std::string line; std::getline(lines, line);) {
        auto parsed = nlohmann::json::parse(line, nullptr, false);
        REQUIRE_FALSE(parsed.is_discarded()); // every line of stdout is one JSON receipt
        result.receipts.push_back(std::move(parsed));
    }
    return result;
}

std::string write_temp(const std::string& name, const std::string& content) {
    const std::string path = std::string(HANDOFF_CLI_TEMP_DIR) + "/" + name;
    std::ofstream(path, std::ios::binary) << content;
    return path;
}

} // namespace

TEST_CASE("handoff-check routes seed 000's envelope to SPLIT and exits 0", "[cli]") {
    const auto r = run("--task-schema " + schemas + "seed_000_sections.schema.json " +
                       HANDOFF_FIXTURES_DIR "/envelopes/seed_000_example.json");
    CHECK(r.exit_status == 0);
    REQUIRE(r.receipts.size() == 1);
    const auto& receipt = r.receipts[0];
    CHECK(receipt["route"] == "SPLIT");
    CHECK(receipt["step"].is_null());
    CHECK(receipt["schema_ok"] == true);
    CHECK(receipt["problems"] == nlohmann::json::array());
    CHECK(receipt["decision"]["ranges"] == nlohmann::json::parse(R"([{"from":29,"to":40}])"));
    CHECK(receipt["decision"]["budget_multiplier"] == 1.0);
    CHECK(receipt["decision"]["hint_disagreement"].is_null());
}

TEST_CASE("handoff-check accepts an ok envelope with no decision", "[cli]") {
    const auto r = run(cli_fixtures + "ok_accept.json");
    CHECK(r.exit_status == 0);
    REQUIRE(r.receipts.size() == 1);
    CHECK(r.receipts[0]["route"] == "ACCEPT");
    CHECK(r.receipts[0]["decision"].is_null());
    CHECK(r.receipts[0]["step"].is_null());
}

TEST_CASE("handoff-check resumes on the policy's budget and records the overruled hint", "[cli]") {
    const auto r = run(cli_fixtures + "token_cap_high.json");
    CHECK(r.exit_status == 0);
    REQUIRE(r.receipts.size() == 1);
    const auto& decision = r.receipts[0]["decision"];
    CHECK(r.receipts[0]["route"] == "RESUME");
    CHECK(decision["scope"] == nlohmann::json::parse(R"(["section 10","final validation"])"));
    CHECK(decision["budget_multiplier"] == 1.5);    // the hint asked for 10.0
    CHECK(decision["hint_disagreement"].is_null()); // hint RESUME agrees with the table
}

TEST_CASE("handoff-check tolerates a fenced reply unless --strict", "[cli]") {
    const std::string file = cli_fixtures + "fenced_with_prose.txt";
    const auto tolerant = run(file);
    CHECK(tolerant.exit_status == 0);
    REQUIRE(tolerant.receipts.size() == 1);
    CHECK(tolerant.receipts[0]["route"] == "SPLIT");
    CHECK(tolerant.receipts[0]["tolerances"] ==
          nlohmann::json::parse(R"(["code_fence","leading_prose","trailing_prose"])"));
    CHECK(
        tolerant.receipts[0]["decision"]["ranges"] ==
        nlohmann::json::parse(
            R"([{"from":1,"to":1},{"from":2,"to":2},{"from":3,"to":3},{"from":4,"to":4},{"from":5,"to":5},{"from":6,"to":6},{"from":7,"to":7},{"from":8,"to":8}])"));

    const auto strict = run("--strict " + file);
    CHECK(strict.exit_status == 1);
    REQUIRE(strict.receipts.size() == 1);
    CHECK(strict.receipts[0]["route"] == "REPAIR");
    CHECK(strict.receipts[0]["step"] == "parse");
    CHECK(strict.receipts[0]["decision"].is_null());
}

TEST_CASE("handoff-check --jsonl reads one envelope per line and skips blank lines", "[cli]") {
    const auto r = run("--jsonl " + cli_fixtures + "stream.jsonl");
    CHECK(r.exit_status == 1); // line 2 is a contract failure
    REQUIRE(r.receipts.size() == 3);
    CHECK(r.receipts[0]["route"] == "ACCEPT");
    CHECK(r.receipts[1]["route"] == "REPAIR");
    CHECK(r.receipts[1]["step"] == "parse");
    CHECK(r.receipts[1]["problems"][0]["message"].get<std::string>().find("JSON strings take double quotes") !=
          std::string::npos);
    CHECK(r.receipts[2]["route"] == "ESCALATE");
    CHECK(r.receipts[2]["decision"]["budget_multiplier"] == 0.0);
    CHECK(r.receipts[2]["decision"]["partial_result"]["claims"] == 1);
    CHECK(r.receipts[2]["source"].get<std::string>().find("stream.jsonl:4") != std::string::npos);
}

TEST_CASE("handoff-check --jsonl refuses a line over the byte limit even when a CR sits at the limit", "[cli]") {
    // An ok envelope padded with spaces to exactly the default limit (1 MiB), then a line end.
    // With "\r\n" the line is the envelope and is accepted; with "\r" followed by more bytes
    // the line is over the limit, even though the byte at the limit is a '\r'.
    std::string envelope = nlohmann::json::parse(handoff_test::read_file(cli_fixtures + "ok_accept.json")).dump();
    const std::size_t limit = std::size_t{1024} * 1024;
    REQUIRE(envelope.size() < limit);
    envelope += std::string(limit - envelope.size(), ' ');
    const std::string fits = write_temp("limit_crlf.jsonl", envelope + "\r\n");
    const std::string over = write_temp("limit_cr_more.jsonl", envelope + "\r{\"more\":1}\n");

    const auto ok = run("--jsonl " + fits);
    REQUIRE(ok.receipts.size() == 1);
    CHECK(ok.receipts[0]["route"] == "ACCEPT");

    const auto refused = run("--jsonl " + over);
    CHECK(refused.exit_status == 1);
    REQUIRE(refused.receipts.size() == 1);
    CHECK(refused.receipts[0]["route"] == "REPAIR");
    REQUIRE(refused.receipts[0]["problems"].size() == 1);
    CHECK(refused.receipts[0]["problems"][0]["code"] == "parse.limit.bytes");
}

TEST_CASE("handoff-check reads stdin with - and with no file at all", "[cli]") {
    const std::string file = cli_fixtures + "ok_accept.json";
    for (const std::string args : {"-", ""}) {
        const auto r = run(args, file);
        CHECK(r.exit_status == 0);
        REQUIRE(r.receipts.size() == 1);
        CHECK(r.receipts[0]["route"] == "ACCEPT");
    }
}

TEST_CASE("handoff-check exits 1 on a task-schema failure of an ok envelope", "[cli]") {
    const std::string bad = write_temp(
        "ok_bad_task.json", R"({"status":"ok","partial_result":{"sections":[""],"claims":-1},"schema_ok":true,)"
                            R"("coverage":{"items_expected":1,"items_completed":1,"unit":"sections","fraction":1},)"
                            R"("steps":{"completed":[],"remaining":[]}})");
    const auto r = run("--task-schema " + schemas + "seed_000_sections.schema.json " + bad);
    CHECK(r.exit_status == 1);
    REQUIRE(r.receipts.size() == 1);
    CHECK(r.receipts[0]["route"] == "REPAIR");
    CHECK(r.receipts[0]["step"] == "task_schema");
    CHECK(r.receipts[0]["schema_ok"] == false);
    std::vector<std::string> pointers;
    for (const auto& p : r.receipts[0]["problems"]) {
        CHECK(p["step"] == "task_schema");
        pointers.push_back(p["pointer"]);
    }
    CHECK(pointers == std::vector<std::string>{"/partial_result/claims", "/partial_result/sections/0"});
}

TEST_CASE("handoff-check never crashes on empty, binary or huge input", "[cli]") {
    const auto empty = run(write_temp("empty.txt", ""));
    CHECK(empty.exit_status == 1);
    REQUIRE(empty.receipts.size() == 1);
    CHECK(empty.receipts[0]["problems"][0]["code"] == "parse.no_object");

    std::string binary;
    for (int i = 0; i < 4096; ++i) {
        binary.push_back(static_cast<char>((i * 131 + 7) % 256));
    }
    const auto garbage = run(write_temp("binary.bin", binary));
    CHECK(garbage.exit_status == 1);
    REQUIRE(garbage.receipts.size() == 1);
    CHECK(garbage.receipts[0]["step"] == "parse");

    const auto huge = run(write_temp("huge.json", "{\"a\":\"" + std::string(3 * 1024 * 1024, 'x') + "\"}"));
    CHECK(huge.exit_status == 1);
    REQUIRE(huge.receipts.size() == 1);
    CHECK(huge.receipts[0]["problems"][0]["code"] == "parse.limit.bytes");
}

TEST_CASE("handoff-check exits 2 on usage errors", "[cli]") {
    CHECK(run("--no-such-flag").exit_status == 2);
    CHECK(run("--task-schema").exit_status == 2);
    CHECK(run("--attempt 0 -").exit_status == 2);
    CHECK(run("--task-schema /nonexistent/schema.json -").exit_status == 2);
    CHECK(run("--task-schema " + cli_fixtures + "not_json.schema.json -").exit_status == 2);
    CHECK(run("--task-schema " + cli_fixtures + "uncompilable.schema.json -").exit_status == 2);
    const auto missing = run(cli_fixtures + "ok_accept.json /nonexistent/envelope.json");
    CHECK(missing.exit_status == 2);
    CHECK(missing.receipts.size() == 1); // the readable file is still checked
}

TEST_CASE("handoff-check turns a split into FAIL when the policy's attempts are spent", "[cli]") {
    const auto r = run("--attempt 3 " + std::string(HANDOFF_FIXTURES_DIR) + "/envelopes/seed_000_example.json");
    CHECK(r.exit_status == 0); // routed, not a contract failure
    REQUIRE(r.receipts.size() == 1);
    CHECK(r.receipts[0]["route"] == "FAIL");
    CHECK(r.receipts[0]["decision"]["table_action"] == "SPLIT");
    CHECK(r.receipts[0]["decision"]["budget_multiplier"] == 0.0);
}

} // namespace test_cli
