// SPDX-License-Identifier: MIT
// `handoff-check stream` as a user runs it: one reply on stdin, raw or a provider's SSE; one
// receipt line; an early exit on a doomed reply while stdin is still open.
//
// tests/CMakeLists.txt defines HANDOFF_CHECK_EXE and HANDOFF_CLI_TEMP_DIR whenever it builds
// handoff-check; without it there is nothing to run.
#if defined(HANDOFF_CHECK_EXE) && defined(HANDOFF_CLI_TEMP_DIR)

#include "support/fixtures.hpp"
#include "support/process.hpp"

#include <nlohmann/json.hpp>

#include <chrono>  // steady_clock
#include <string>  // string
#include <utility> // move

namespace test_cli_stream { // this file's own names: see "unity build" in tests/CMakeLists.txt

namespace {

const std::string exe = HANDOFF_CHECK_EXE;
const std::string fixtures = std::string(HANDOFF_FIXTURES_DIR) + "/";
const std::string records_schema = fixtures + "schemas/product_records.schema.json";

struct run_result {
    int exit_status = -1;
    nlohmann::json receipt;
    std::string out;
};

/// Runs `SOURCE | handoff-check stream ARGS` through the shell.
run_result run(const std::string& source, const std::string& args) {
    handoff_test::shell_result ran =
        handoff_test::run_shell(source + " | '" + exe + "' stream " + args + " 2>/dev/null");
    run_result result;
    result.exit_status = ran.exit_status;
    result.out = std::move(ran.out);
    result.receipt = nlohmann::json::parse(result.out, nullptr, false);
    return result;
}

std::string cat(const std::string& relative) { return "cat '" + fixtures + relative + "'"; }

} // namespace

TEST_CASE("handoff-check stream prints the receipt handoff-check prints for the whole text", "[cli][stream]") {
    const std::string file = fixtures + "worked_example/run1_token_cap.json";
    const run_result streamed =
        run(cat("worked_example/run1_token_cap.json"), "--task-schema '" + records_schema + "'");
    const handoff_test::shell_result whole =
        handoff_test::run_shell("'" + exe + "' --task-schema '" + records_schema + "' - < '" + file + "'");
    CHECK(streamed.exit_status == whole.exit_status);
    CHECK(streamed.exit_status == 0);
    CHECK(streamed.out == whole.out);
    CHECK(streamed.receipt.at("route") == "SPLIT");
}

TEST_CASE("handoff-check stream stops at a doomed reply with doomed_at and exits 1", "[cli][stream]") {
    const run_result r = run(cat("streams/openai_chat_doomed.sse"), "--sse openai");
    REQUIRE_FALSE(r.receipt.is_discarded());
    CHECK(r.exit_status == 1);
    CHECK(r.receipt.at("route") == "REPAIR");
    CHECK(r.receipt.at("step") == "envelope_schema");
    CHECK(r.receipt.at("doomed_at") == 16); // the closing quote of "okay" in {"status": "okay"
    CHECK(r.receipt.at("problems").at(0).at("pointer") == "/status");
}

TEST_CASE("handoff-check stream routes a capped reply whose partial result fails, as handoff-check does",
          "[cli][stream]") {
    // A task-schema failure beside "capped" is a downgrade, not REPAIR: the stream reads on, with
    // the status before partial_result or after it.
    for (const char* name : {"stream_capped_bad_record.json", "stream_capped_bad_record_status_last.json"}) {
        INFO(name);
        const std::string file = fixtures + "cli/" + name;
        const run_result streamed = run("cat '" + file + "'", "--task-schema '" + records_schema + "'");
        const handoff_test::shell_result whole =
            handoff_test::run_shell("'" + exe + "' --task-schema '" + records_schema + "' - < '" + file + "'");
        REQUIRE_FALSE(streamed.receipt.is_discarded());
        CHECK(streamed.exit_status == 0);
        CHECK(streamed.out == whole.out);
        CHECK(streamed.receipt.at("route") == "SPLIT");
    }
    // Beside "ok", the same failure decides REPAIR at the record's end.
    const run_result ok = run(cat("cli/stream_ok_bad_record.json"), "--task-schema '" + records_schema + "'");
    REQUIRE_FALSE(ok.receipt.is_discarded());
    CHECK(ok.exit_status == 1);
    CHECK(ok.receipt.at("route") == "REPAIR");
    CHECK(ok.receipt.at("step") == "task_schema");
    CHECK(ok.receipt.contains("doomed_at"));
}

TEST_CASE("handoff-check stream reads the task schema in the dialect --dialect names, as the check does",
          "[cli][stream]") {
    // Without $schema, ref_sibling.schema.json reads as draft-07 (its $ref's maxItems ignored);
    // named 2020-12, its maxItems applies.
    const std::string schema = fixtures + "dialect_cli/ref_sibling.schema.json";
    const std::string reply = fixtures + "dialect_cli/four_codes.json";
    for (const std::string dialect : {"", " --dialect 2020-12"}) {
        INFO(dialect);
        const std::string args = "--task-schema '" + schema + "'" + dialect;
        const run_result streamed = run("cat '" + reply + "'", args);
        const handoff_test::shell_result whole =
            handoff_test::run_shell("'" + exe + "' " + args + " - < '" + reply + "'");
        REQUIRE_FALSE(streamed.receipt.is_discarded());
        CHECK(streamed.receipt.at("route") == (dialect.empty() ? "ACCEPT" : "REPAIR"));
        CHECK(streamed.exit_status == whole.exit_status);
        if (dialect.empty()) {
            CHECK(streamed.out == whole.out);
        } else {
            CHECK(streamed.receipt.at("problems").at(0).at("pointer") == "/partial_result/codes");
        }
    }
    CHECK(run("cat '" + reply + "'", "--dialect draft-99").exit_status == 2);
}

TEST_CASE("handoff-check stream exits on a doomed reply while stdin stays open", "[cli][stream]") {
    // The writer keeps stdin open, writing a space every 0.1 s until the pipe breaks (when
    // handoff-check has exited) or 20 s pass: a check that waited for the end would take 20 s.
    const std::string keep_open = "{ cat '" + fixtures + "streams/openai_chat_doomed.sse'; timeout 20 sh -c " +
                                  "'while sleep 0.1; do printf \" \" || exit 1; done'; }";
    const auto start = std::chrono::steady_clock::now();
    const run_result r = run(keep_open, "--sse openai");
    const auto seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    REQUIRE_FALSE(r.receipt.is_discarded());
    CHECK(r.receipt.at("doomed_at") == 16);
    CHECK(seconds < 10.0);
}

TEST_CASE("handoff-check stream keeps the whole records of a stream cut at the token cap", "[cli][stream]") {
    const run_result r =
        run(cat("streams/anthropic_max_tokens.sse"), "--sse anthropic --task-schema '" + records_schema + "'");
    REQUIRE_FALSE(r.receipt.is_discarded());
    CHECK(r.exit_status == 1);
    CHECK(r.receipt.at("step") == "parse");
    CHECK(r.receipt.at("salvage").at("complete_items") == 2);
    CHECK(r.receipt.at("salvage").at("largest_array") == "/partial_result/records");
    CHECK(r.receipt.at("salvage").at("partial_result").at("records").size() == 2);
    CHECK_FALSE(r.receipt.contains("doomed_at"));
    CHECK(r.receipt.at("stop") == nlohmann::json{{"class", "truncated"}, {"reason", "max_tokens"}});
}

TEST_CASE("handoff-check stream says how the provider ended a reply it reads whole", "[cli][stream]") {
    const run_result stopped = run(cat("streams/openai_chat_stop.sse"), "--sse openai");
    REQUIRE_FALSE(stopped.receipt.is_discarded());
    CHECK(stopped.receipt.at("stop") == nlohmann::json{{"class", "complete"}, {"reason", "stop"}});
    // The same envelope ended by the token cap: routed alike (its JSON is whole), and the
    // receipt says the provider cut it there.
    const run_result capped = run("sed 's/\"finish_reason\":\"stop\"/\"finish_reason\":\"length\"/' '" + fixtures +
                                      "streams/openai_chat_stop.sse'",
                                  "--sse openai");
    REQUIRE_FALSE(capped.receipt.is_discarded());
    CHECK(capped.receipt.at("stop") == nlohmann::json{{"class", "truncated"}, {"reason", "length"}});
    CHECK(capped.receipt.at("route") == stopped.receipt.at("route"));
    CHECK(capped.exit_status == stopped.exit_status);
    // A stop word is the provider's text: capped in the receipt.
    const run_result long_word = run("sed 's/\"finish_reason\":\"stop\"/\"finish_reason\":\"" + std::string(1000, 'x') +
                                         "\"/' '" + fixtures + "streams/openai_chat_stop.sse'",
                                     "--sse openai");
    REQUIRE_FALSE(long_word.receipt.is_discarded());
    CHECK(long_word.receipt.at("stop").at("reason") == std::string(200, 'x'));
    // Raw text has no stop to tell.
    CHECK_FALSE(run(cat("worked_example/run1_token_cap.json"), "").receipt.contains("stop"));
}

TEST_CASE("handoff-check stream reads a raw reply cut short without a salvage", "[cli][stream]") {
    const run_result r = run("head -c 300 '" + fixtures + "worked_example/run1_token_cap.json'",
                             "--task-schema '" + records_schema + "'");
    REQUIRE_FALSE(r.receipt.is_discarded());
    CHECK(r.exit_status == 1);
    CHECK(r.receipt.at("step") == "parse");
    CHECK_FALSE(r.receipt.contains("salvage"));
}

TEST_CASE("handoff-check stream refuses an unknown provider and a bad schema with exit 2", "[cli][stream]") {
    CHECK(run("true", "--sse acme").exit_status == 2);
    CHECK(run("true", "--sse json_schema").exit_status == 2);
    CHECK(run("true", "--task-schema /nonexistent.json").exit_status == 2);
    CHECK(run("true", "--bogus").exit_status == 2);
}

TEST_CASE("handoff-check stream puts what reading the events met in the receipt", "[cli][stream]") {
    // Two choices: the first is read, the receipt routes it, and stream_problem says the other
    // was left out.
    const run_result two = run(cat("streams/openai_chat_two_choices.sse"), "--sse openai");
    REQUIRE_FALSE(two.receipt.is_discarded());
    CHECK(two.receipt.at("stream_problem") == "the stream holds more than one choice (n > 1): only the first is read");
    // A stream with nothing to say has no such member.
    const run_result plain = run(cat("streams/openai_chat_stop.sse"), "--sse openai");
    REQUIRE_FALSE(plain.receipt.is_discarded());
    CHECK_FALSE(plain.receipt.contains("stream_problem"));
    // An error event cuts the reply: the cut receipt says why.
    const run_result failed = run(cat("streams/openai_responses_error.sse"), "--sse openai");
    REQUIRE_FALSE(failed.receipt.is_discarded());
    CHECK(failed.exit_status == 1);
    CHECK(failed.receipt.at("stream_problem") ==
          "the provider sent an error: The server had an error while processing your request.");
}

} // namespace test_cli_stream

#endif // HANDOFF_CHECK_EXE && HANDOFF_CLI_TEMP_DIR
