// SPDX-License-Identifier: MIT
// handoff-check's tool subcommands as a user runs them: `lint` and `prompt` in a child process,
// their stdout, stderr and exit status (test_cli.cpp covers the check mode the same way).

#include "support/catch.hpp"
#include "support/process.hpp"

// tests/CMakeLists.txt defines HANDOFF_CHECK_EXE and HANDOFF_CLI_TEMP_DIR whenever examples/
// builds handoff-check; a build without examples has no binary to run, and then no CLI tests.
#if defined(HANDOFF_CHECK_EXE) && defined(HANDOFF_CLI_TEMP_DIR)

#include <handoff/schema_registry.hpp>
#include <handoff/worker_prompt.hpp>

#include <nlohmann/json.hpp>

#include <cstdio>  // remove
#include <fstream> // ifstream, ofstream
#include <sstream> // istringstream, ostringstream
#include <string>  // string
#include <utility> // move
#include <vector>  // vector

#include <unistd.h> // getpid

namespace test_cli_tools { // this file's own names: see "unity build" in tests/CMakeLists.txt

namespace {

const std::string exe = HANDOFF_CHECK_EXE;
const std::string fixtures = std::string(HANDOFF_FIXTURES_DIR) + "/";
const std::string lint_fixtures = fixtures + "lint/";

struct tool_result {
    int exit_status = -1;
    std::vector<std::string> lines; // stdout
    std::string out;
    std::string err;
};

std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

/// Runs `handoff-check ARGS` through the shell in `dir`; stdin from `stdin_file`.
tool_result run(const std::string& args, const std::string& dir = HANDOFF_FIXTURES_DIR,
                const std::string& stdin_file = "/dev/null") {
    // CTest runs test cases in parallel processes: each run gets its own stderr file.
    static int runs = 0;
    const std::string err_file = std::string(HANDOFF_CLI_TEMP_DIR) + "/tools_stderr." + std::to_string(::getpid()) +
                                 "." + std::to_string(++runs) + ".txt";
    const std::string command =
        "cd '" + dir + "' && '" + exe + "' " + args + " < '" + stdin_file + "' 2>'" + err_file + "'";
    handoff_test::shell_result ran = handoff_test::run_shell(command);
    tool_result result;
    result.exit_status = ran.exit_status;
    result.out = std::move(ran.out);
    result.err = slurp(err_file);
    std::remove(err_file.c_str());
    std::istringstream lines(result.out);
    for (std::string line; std::getline(lines, line);) {
        result.lines.push_back(line);
    }
    return result;
}

using strings = std::vector<std::string>;

} // namespace

TEST_CASE("handoff-check lint prints one FILE:POINTER: code: message line per finding and exits 1", "[cli][lint]") {
    const auto r = run("lint lint/money_not_cents.schema.json lint/required_undefined.schema.json");
    CHECK(r.exit_status == 1);
    CHECK(r.lines == strings{
                         "lint/money_not_cents.schema.json:/properties/amount_cents: lint.money_not_cents: "
                         "\"amount_cents\" counts cents but is typed number: use \"type\": \"integer\"",
                         "lint/money_not_cents.schema.json:/properties/price: lint.money_not_cents: \"price\" looks "
                         "like money typed number: use an integer count of minor units, e.g. \"price_cents\": "
                         "{\"type\": \"integer\"}",
                         "lint/money_not_cents.schema.json:/properties/unit_price: lint.money_not_cents: "
                         "\"unit_price\" looks like money typed string: use an integer count of minor units, e.g. "
                         "\"unit_price_cents\": {\"type\": \"integer\"}",
                         "lint/required_undefined.schema.json:/required/1: lint.required_undefined: \"nmae\" is "
                         "required but no \"properties\" entry defines it (a typo, or a field nothing constrains)",
                     });
    CHECK(r.err == "handoff-check lint: lint/money_not_cents.schema.json: dialect: draft-07 (from its keywords)\n"
                   "handoff-check lint: lint/required_undefined.schema.json: dialect: draft-07 (from its keywords)\n");
}

TEST_CASE("handoff-check lint exits 0 and prints nothing for the shipped schemas", "[cli][lint]") {
    const auto r = run("lint ../../schemas/envelope.schema.json ../../examples/schemas/ticket.schema.json "
                       "../../examples/schemas/invoice.schema.json");
    CHECK(r.exit_status == 0);
    CHECK(r.out.empty());
}

TEST_CASE("handoff-check lint reads a schema from stdin with -", "[cli][lint]") {
    const auto r = run("lint -", HANDOFF_FIXTURES_DIR, lint_fixtures + "unbounded_array.schema.json");
    CHECK(r.exit_status == 1);
    CHECK(r.lines == strings{"-:/properties/citations: lint.unbounded_array: an array without \"maxItems\": bound how "
                             "many items a worker may return"});
}

TEST_CASE("handoff-check lint reports a file that is not JSON as a finding, not a crash", "[cli][lint]") {
    const auto r = run("lint lint/not_json.schema.json lint/does_not_compile.schema.json");
    CHECK(r.exit_status == 1);
    REQUIRE(r.lines.size() == 2);
    CHECK(r.lines[0].rfind("lint/not_json.schema.json:/additionalProperties: lint.not_json: not a strict JSON "
                           "document: invalid JSON, parse error at line 4, column 1",
                           0) == 0);
    CHECK(r.lines[1].rfind("lint/does_not_compile.schema.json:/properties/customer: lint.does_not_compile: the "
                           "schema (read as draft-07) does not compile: ",
                           0) == 0);
}

TEST_CASE("handoff-check lint takes the routing names from the command line", "[cli][lint]") {
    const std::string file = "lint/free_routing_string.schema.json";
    CHECK(run("lint " + file).lines.size() == 2); // label, ticketType
    const auto replaced = run("lint --routing-fields summary,kind " + file);
    CHECK(replaced.exit_status == 1);
    REQUIRE(replaced.lines.size() == 1);
    CHECK(replaced.lines[0].rfind(file + ":/properties/summary: lint.free_routing_string: ", 0) == 0);
    const auto none = run("lint --routing-fields '' " + file);
    CHECK(none.exit_status == 0);
    CHECK(none.out.empty());
    CHECK(run("lint --routing-fields '' --routing-field label " + file).lines.size() == 1);
    CHECK(run("lint --money-fields '' lint/money_not_cents.schema.json").lines.size() == 1); // amount_cents only
}

TEST_CASE("handoff-check lint exits 2 for a usage error or an unreadable file, after linting the rest", "[cli][lint]") {
    CHECK(run("lint").exit_status == 2);
    CHECK(run("lint --no-such-flag lint/waived.schema.json").exit_status == 2);
    CHECK(run("lint --routing-fields").exit_status == 2);
    const auto missing = run("lint lint/no_such_file.json lint/unbounded_array.schema.json");
    CHECK(missing.exit_status == 2);
    CHECK(missing.lines.size() == 1); // the readable file was still linted
    CHECK(missing.err.find("handoff-check lint: cannot read lint/no_such_file.json") != std::string::npos);
    const auto help = run("lint --help");
    CHECK(help.exit_status == 0);
    CHECK(help.out.rfind("usage: handoff-check lint ", 0) == 0);
}

TEST_CASE("handoff-check prompt prints the same text as handoff::worker_prompt", "[cli][prompt]") {
    const std::string schema = "../../examples/schemas/ticket.schema.json";
    const auto r = run("prompt --task-schema " + schema);
    CHECK(r.exit_status == 0);
    CHECK(r.err.empty()); // the ticket schema lints clean: no note
    CHECK(r.out == handoff::worker_prompt(nlohmann::ordered_json::parse(slurp(fixtures + schema))));
    CHECK(r.out.find("- label (required): one of \"billing\", \"outage\", \"how_to\", \"bug\", \"abuse\", "
                     "\"human\"\n") != std::string::npos);
}

TEST_CASE("handoff-check prompt without a task schema describes the envelope alone", "[cli][prompt]") {
    const auto r = run("prompt");
    CHECK(r.exit_status == 0);
    CHECK(r.out == handoff::worker_prompt_without_task());
}

TEST_CASE("handoff-check prompt notes a task schema that lint would flag, on stderr", "[cli][prompt]") {
    const auto r = run("prompt --task-schema schemas/product_records.schema.json");
    CHECK(r.exit_status == 0);
    CHECK(r.err == "handoff-check prompt: note: `handoff-check lint schemas/product_records.schema.json` finds 1 "
                   "problem in the task schema\n");
    CHECK(r.out.find("  - price (required): number >= 0\n") != std::string::npos);
}

TEST_CASE("handoff-check prompt exits 2 for a bad flag or an unreadable, invalid or uncompilable schema",
          "[cli][prompt]") {
    CHECK(run("prompt --task-schema").exit_status == 2);
    CHECK(run("prompt --strict").exit_status == 2);
    CHECK(run("prompt --task-schema lint/no_such_file.json").exit_status == 2);
    const auto not_json = run("prompt --task-schema lint/not_json.schema.json");
    CHECK(not_json.exit_status == 2);
    CHECK(not_json.out.empty());
    // The check's own message, with the place and the parser's words.
    CHECK(not_json.err.rfind("handoff-check prompt: handoff: schema file lint/not_json.schema.json is not valid JSON: ",
                             0) == 0);
    CHECK(not_json.err.find("parse error at line 4, column 1") != std::string::npos);
    const auto refused = run("prompt --task-schema lint/does_not_compile.schema.json");
    CHECK(refused.exit_status == 2);
    CHECK(refused.out.empty());
    CHECK(refused.err.find("does_not_compile.schema.json#/properties/customer: $ref \"#/definitions/customer\" points "
                           "to nothing") != std::string::npos);
    // A pattern without maxLength compiles now (a run-time bound applies): it gets a prompt.
    CHECK(run("prompt --task-schema lint/unbounded_pattern.schema.json").exit_status == 0);
}

TEST_CASE("handoff-check lint reads a two-file schema set as the check does: beside the file and in --schema-dir",
          "[cli][lint][refs]") {
    const auto clean = run("lint --schema-dir refs/shared refs/task/order.schema.json refs/task/line.schema.json");
    CHECK(clean.exit_status == 0);
    CHECK(clean.out.empty());
    CHECK(clean.err == "handoff-check lint: refs/task/order.schema.json: dialect: draft-07 (from $schema)\n"
                       "handoff-check lint: refs/task/line.schema.json: dialect: draft-07 (from $schema)\n");
    const auto flawed = run("lint --schema-dir refs/shared refs/task/flawed.schema.json");
    CHECK(flawed.exit_status == 1);
    CHECK(
        flawed.lines ==
        strings{"refs/task/flawed.schema.json:/properties/fee: lint.money_not_cents: \"fee\" looks like money typed "
                "number: use an integer count of minor units, e.g. \"fee_cents\": {\"type\": \"integer\"}",
                "refs/task/flawed.schema.json:/properties/priority: lint.free_routing_string: \"priority\" routes, but "
                "a worker can write any string here: give it an \"enum\" (or \"const\") of the values your code "
                "handles"});
    const auto without = run("lint refs/task/order.schema.json");
    CHECK(without.exit_status == 1);
    CHECK(without.lines ==
          strings{"refs/task/order.schema.json:/definitions/channel/properties/kind: lint.does_not_compile: the schema "
                  "(read as draft-07) does not compile: $ref \"common.json#/definitions/channel%20kind\" names "
                  "\"https://example.com/schemas/common.json\", a document handoff does not know (nothing is ever "
                  "fetched over a network): register it with schema_registry::add(...) or handoff-check --schema-dir "
                  "DIR"});
    const auto bad_dir = run("lint --schema-dir refs/no_such_dir refs/task/order.schema.json");
    CHECK(bad_dir.exit_status == 2);
    CHECK(bad_dir.err.rfind("handoff-check lint: handoff: ", 0) == 0);
}

TEST_CASE("handoff-check lint follows a $ref chain for max_ref_hops hops and reports a loop", "[cli][lint][refs]") {
    const auto r = run("lint refs/ref_chain.schema.json refs/ref_loop.schema.json");
    CHECK(r.exit_status == 1);
    CHECK(r.lines ==
          strings{
              "refs/ref_chain.schema.json:/properties/status: lint.free_routing_string: \"status\" "
              "routes, but a worker can write any string here: give it an \"enum\" (or \"const\") of "
              "the values your code handles",
              "refs/ref_loop.schema.json:/definitions/a: lint.does_not_compile: the schema (read as draft-07) does not "
              "compile: the schema refers to itself without reading any input ($ref, allOf, anyOf, "
              "oneOf, not or if in a loop): it would never finish validating"});
}

TEST_CASE("handoff-check prompt reads a two-file schema set as the check does", "[cli][prompt][refs]") {
    const std::string schema = "refs/task/order.schema.json";
    const auto r = run("prompt --task-schema " + schema + " --schema-dir refs/shared");
    CHECK(r.exit_status == 0);
    CHECK(r.err.empty()); // the set lints clean: no note
    handoff::schema_registry registry;
    registry.add_directory(fixtures + "refs/shared");
    CHECK(r.out == handoff::worker_prompt(nlohmann::ordered_json::parse(slurp(fixtures + schema)), registry,
                                          handoff::schema_registry::file_uri(fixtures + schema)));
    CHECK(r.out.find("- total (required): object with these fields; no other keys\n"
                     "  - amount_cents (required): integer >= 0\n"
                     "  - currency (required): one of \"EUR\", \"USD\", \"GBP\"\n") != std::string::npos);
    CHECK(r.out.find("  - kind (required): one of \"web\", \"phone\"\n") != std::string::npos);

    const auto without = run("prompt --task-schema " + schema);
    CHECK(without.exit_status == 2);
    CHECK(without.out.empty());
    CHECK(without.err.find("a document handoff does not know") != std::string::npos);
    CHECK(run("prompt --schema-dir refs/shared").exit_status == 2); // nothing to read it with
}

TEST_CASE("handoff-check schema --for and fixtures read a two-file schema set as the check does",
          "[cli][schema][fixtures][refs]") {
    const std::string schema = "refs/task/order.schema.json";
    const auto sent = run("schema --for openai --task-schema " + schema + " --schema-dir refs/shared");
    CHECK(sent.exit_status == 0);
    // The other files' definitions are in the schema sent, and no note says a $ref was dropped.
    CHECK(sent.out.find("\"EUR\",\n") != std::string::npos);
    CHECK(sent.out.find("\"phone\"\n") != std::string::npos);
    CHECK(sent.err.find("$ref") == std::string::npos);
    CHECK(sent.err.find("dialect: draft-07 (from $schema)") != std::string::npos);
    const auto without = run("schema --for openai --task-schema " + schema);
    CHECK(without.exit_status == 2);
    CHECK(without.out.empty());
    CHECK(without.err.find("a document handoff does not know") != std::string::npos);
    CHECK(run("schema --for openai --schema-dir refs/shared").exit_status == 2); // nothing to read it with

    const std::string out_dir = std::string(HANDOFF_CLI_TEMP_DIR) + "/refs_fixtures";
    const auto made = run("fixtures --task-schema " + schema + " --schema-dir refs/shared --out " + out_dir);
    CHECK(made.exit_status == 0);
    CHECK(made.out.find("ACCEPT   " + out_dir + "/") != std::string::npos);
    const auto refused = run("fixtures --task-schema " + schema + " --out " + out_dir + "_without");
    CHECK(refused.exit_status == 2);
    CHECK(refused.err.find("a document handoff does not know") != std::string::npos);
    // A file beside the schema is found without --schema-dir, as the check finds it.
    const auto beside = run("fixtures --task-schema refs/task/quantity_only.schema.json --out " + out_dir + "_q");
    CHECK(beside.exit_status == 0);
    std::ifstream accepted(out_dir + "_q/accept_ok.json");
    const auto quantity = nlohmann::json::parse(accepted).at("partial_result").at("quantity");
    CHECK((quantity.is_number_integer() && quantity >= 1 && quantity <= 1000));
    const auto sent_beside = run("schema --for openai --task-schema refs/task/quantity_only.schema.json");
    CHECK(sent_beside.exit_status == 0);
    CHECK(sent_beside.out.find("\"maximum\": 1000") != std::string::npos);
}

TEST_CASE("an envelope file named like a subcommand is checked as ./lint or after --", "[cli]") {
    const std::string dir = HANDOFF_CLI_TEMP_DIR;
    std::ofstream(dir + "/lint", std::ios::binary) << slurp(fixtures + "cli/ok_accept.json");
    for (const std::string args : {"./lint", "-- lint"}) {
        INFO(args);
        const auto r = run(args, dir);
        CHECK(r.exit_status == 0);
        REQUIRE(r.lines.size() == 1);
        CHECK(nlohmann::json::parse(r.lines[0]).at("route") == "ACCEPT");
    }
}

TEST_CASE("handoff-check refuses an unknown --dialect name as a usage error, naming the five it takes", "[cli]") {
    const std::string five = "draft-04, draft-06, draft-07, 2019-09, 2020-12";
    const auto check = run("--dialect draft-99 envelopes/seed_000_example.json");
    CHECK(check.exit_status == 2);
    CHECK(check.out.empty());
    CHECK(check.err.rfind("handoff-check: --dialect takes " + five + ", not \"draft-99\"\n", 0) == 0);
    const auto prompt = run("prompt --task-schema ../../examples/schemas/ticket.schema.json --dialect 2020");
    CHECK(prompt.exit_status == 2);
    CHECK(prompt.err.rfind("handoff-check prompt: --dialect takes " + five + ", not \"2020\"\n", 0) == 0);
    const auto fixtures_run = run("fixtures --task-schema ../../examples/schemas/ticket.schema.json --dialect draft7 "
                                  "--out " HANDOFF_CLI_TEMP_DIR "/never_written");
    CHECK(fixtures_run.exit_status == 2);
    CHECK(fixtures_run.err.rfind("handoff-check fixtures: --dialect takes " + five + ", not \"draft7\"\n", 0) == 0);
    CHECK(run("prompt --dialect draft-07").exit_status == 2); // a dialect for no schema
}

TEST_CASE("handoff-check takes each --dialect name where it reads a task schema", "[cli]") {
    for (const char* name : {"draft-04", "draft-06", "draft-07", "2019-09", "2020-12"}) {
        INFO(name);
        const auto check =
            run(std::string("--dialect ") + name +
                " --task-schema ../../examples/schemas/ticket.schema.json envelopes/seed_000_example.json");
        CHECK(check.err.find("--dialect") == std::string::npos);
        CHECK(check.exit_status != 2);
    }
}

// --- the dialect, said and used alike by every tool that reads a task schema -----------------

namespace {

const std::string place = "dialect_cli/pydantic_place.schema.json";

/// What the check says refusing the task schema `args` names: its stderr after "handoff-check: ".
std::string check_refusal(const std::string& args) {
    const auto r = run(args + " envelopes/seed_000_example.json");
    REQUIRE(r.exit_status == 2);
    const std::string head = "handoff-check: ";
    REQUIRE(r.err.rfind(head, 0) == 0);
    return r.err.substr(head.size(), r.err.size() - head.size() - 1); // without the newline
}

std::string file_uri(const std::string& relative) { return handoff::schema_registry::file_uri(fixtures + relative); }

const std::string prefix_items_in_draft07 =
    "\"prefixItems\" is a keyword of JSON Schema 2019-09/2020-12 that draft-07 ignores: the schema would accept what "
    "it was written to refuse (declare \"$schema\": \"https://json-schema.org/draft/2020-12/schema\", or rewrite it "
    "in draft-07 terms)";

} // namespace

TEST_CASE("handoff-check lint, prompt and fixtures read a Pydantic schema without $schema as 2020-12",
          "[cli][dialect]") {
    const auto lint = run("lint " + place);
    CHECK(lint.exit_status == 0);
    CHECK(lint.out.empty());
    CHECK(lint.err == "handoff-check lint: " + place + ": dialect: 2020-12 (from its keywords)\n");
    CHECK(run("lint --dialect 2020-12 " + place).err ==
          "handoff-check lint: " + place + ": dialect: 2020-12 (from --dialect)\n");
    CHECK(run("lint --dialect draft-04 ../../examples/schemas/ticket.schema.json").err ==
          "handoff-check lint: ../../examples/schemas/ticket.schema.json: dialect: draft-07 (from $schema)\n");

    const auto prompt = run("prompt --task-schema " + place);
    CHECK(prompt.exit_status == 0);
    CHECK(prompt.err.empty());
    CHECK(prompt.out.find("  - xy (required): array of 2 to 2 items; item 1: number; item 2: number\n") !=
          std::string::npos);

    const std::string dir = std::string(HANDOFF_CLI_TEMP_DIR) + "/place_fixtures." + std::to_string(::getpid());
    const auto made = run("fixtures --task-schema " + place + " --out " + dir);
    CHECK(made.exit_status == 0);
    CHECK(made.err.empty());
    REQUIRE_FALSE(made.lines.empty());
    CHECK(made.lines.back() == "43 fixtures and " + dir + "/manifest.jsonl");
    // The accepted fixture's result is a value of the 2020-12 schema: a pair of numbers at xy.
    const auto ok = nlohmann::json::parse(slurp(dir + "/accept_ok.json"));
    const auto& xy = ok.at("partial_result").at("where").at("xy");
    CHECK(xy.size() == 2);
    CHECK(xy.at(0).is_number());
    CHECK(xy.at(1).is_number());
}

TEST_CASE(
    "handoff-check --dialect draft-07 on prefixItems makes lint, prompt and fixtures fail with the check's message",
    "[cli][dialect]") {
    const std::string refused = check_refusal("--dialect draft-07 --task-schema " + place);
    CHECK(refused ==
          "handoff: schema " + file_uri(place) + "#/$defs/Point/properties/xy/prefixItems: " + prefix_items_in_draft07);

    const auto prompt = run("prompt --dialect draft-07 --task-schema " + place);
    CHECK(prompt.exit_status == 2);
    CHECK(prompt.out.empty());
    CHECK(prompt.err == "handoff-check prompt: " + refused + "\n");

    const auto made =
        run("fixtures --dialect draft-07 --task-schema " + place + " --out " HANDOFF_CLI_TEMP_DIR "/never_written");
    CHECK(made.exit_status == 2);
    CHECK(made.out.empty());
    CHECK(made.err == "handoff-check fixtures: " + refused + "\n");

    const auto routes = run("lint --routes dialect_cli/place_routes.json --dialect draft-07 " + place);
    CHECK(routes.exit_status == 2);
    CHECK(routes.out.empty());
    CHECK(routes.err == "handoff-check lint: " + refused + "\n");
    CHECK(run("lint --routes dialect_cli/place_routes.json " + place).exit_status == 0);

    // lint reports the refusal as its finding, at the same pointer, with the same reason.
    const auto lint = run("lint --dialect draft-07 " + place);
    CHECK(lint.exit_status == 1);
    CHECK(lint.lines == strings{place +
                                ":/$defs/Point/properties/xy/prefixItems: lint.does_not_compile: the schema "
                                "(read as draft-07) does not compile: " +
                                prefix_items_in_draft07});
    CHECK(lint.err == "handoff-check lint: " + place + ": dialect: draft-07 (from --dialect)\n");
}

TEST_CASE("a schema the check refuses fails lint, prompt and fixtures with the check's message", "[cli][dialect]") {
    const std::string schema = "lint/does_not_compile.schema.json";
    const std::string refused = check_refusal("--task-schema " + schema);
    CHECK(refused == "handoff: schema " + file_uri(schema) +
                         "#/properties/customer: $ref \"#/definitions/customer\" "
                         "points to nothing in \"" +
                         file_uri(schema) + "\"");

    const auto prompt = run("prompt --task-schema " + schema);
    CHECK(prompt.exit_status == 2);
    CHECK(prompt.err == "handoff-check prompt: " + refused + "\n");
    const auto made = run("fixtures --task-schema " + schema + " --out " HANDOFF_CLI_TEMP_DIR "/never_written");
    CHECK(made.exit_status == 2);
    CHECK(made.err == "handoff-check fixtures: " + refused + "\n");
    const auto routes = run("lint --routes dialect_cli/place_routes.json " + schema);
    CHECK(routes.exit_status == 2);
    CHECK(routes.err == "handoff-check lint: " + refused + "\n");
    const auto lint = run("lint " + schema);
    CHECK(lint.exit_status == 1);
    CHECK(lint.lines == strings{schema +
                                ":/properties/customer: lint.does_not_compile: the schema (read as draft-07) "
                                "does not compile: $ref \"#/definitions/customer\" points to nothing in \"" +
                                file_uri(schema) + "\""});
}

} // namespace test_cli_tools

namespace test_cli_tools {

TEST_CASE("handoff-check lint --definitions lints files of shared definitions, whose roots need admit no object",
          "[cli][lint]") {
    const std::string file = "lint/root_not_object.schema.json";
    const auto as_task = run("lint " + file);
    CHECK(as_task.exit_status == 1);
    REQUIRE(as_task.lines.size() == 1);
    CHECK(as_task.lines[0].rfind(file + ":(document): lint.root_not_object: ", 0) == 0);
    const auto as_definitions = run("lint --definitions " + file);
    CHECK(as_definitions.exit_status == 0);
    CHECK(as_definitions.out.empty());
    CHECK(run("lint --help").out.find("--definitions") != std::string::npos);
}

} // namespace test_cli_tools

#endif // HANDOFF_CHECK_EXE && HANDOFF_CLI_TEMP_DIR
