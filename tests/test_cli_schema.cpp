// SPDX-License-Identifier: MIT
// `handoff-check schema` as a user runs it: the provider schema on stdout, one line per
// constraint the provider will not enforce on stderr, exit 1 over a provider limit, 2 for a
// usage error.

#include "support/catch.hpp"
#include "support/process.hpp"

// tests/CMakeLists.txt defines HANDOFF_CHECK_EXE and HANDOFF_CLI_TEMP_DIR whenever it builds
// handoff-check; without the binary there is nothing to run.
#if defined(HANDOFF_CHECK_EXE) && defined(HANDOFF_CLI_TEMP_DIR)

#include <handoff/provider_schema.hpp>

#include <nlohmann/json.hpp>

#include <cstdio>  // remove
#include <fstream> // ifstream
#include <sstream> // istringstream, ostringstream
#include <string>  // string
#include <utility> // move
#include <vector>  // vector

#include <unistd.h> // getpid

namespace test_cli_schema { // this file's own names: see "unity build" in tests/CMakeLists.txt

namespace {

struct schema_run {
    int exit_status = -1;
    std::string out;
    std::vector<std::string> err_lines;
};

/// Runs `handoff-check schema ARGS` in the repository root (so example paths are short).
schema_run run_schema(const std::string& args) {
    static int runs = 0;
    const std::string err_file = std::string(HANDOFF_CLI_TEMP_DIR) + "/schema_stderr." + std::to_string(::getpid()) +
                                 "." + std::to_string(++runs) + ".txt";
    const std::string root = std::string(HANDOFF_FIXTURES_DIR) + "/../..";
    handoff_test::shell_result ran = handoff_test::run_shell("cd '" + root + "' && '" + HANDOFF_CHECK_EXE +
                                                             "' schema " + args + " </dev/null 2>'" + err_file + "'");
    schema_run result;
    result.exit_status = ran.exit_status;
    result.out = std::move(ran.out);
    std::ifstream err(err_file, std::ios::binary);
    for (std::string line; std::getline(err, line);) {
        result.err_lines.push_back(line);
    }
    std::remove(err_file.c_str());
    return result;
}

bool has_line(const schema_run& r, const std::string& line) {
    for (const auto& l : r.err_lines) {
        if (l == line) {
            return true;
        }
    }
    return false;
}

} // namespace

TEST_CASE("handoff-check schema prints the provider schema and each constraint it will not enforce", "[cli][schema]") {
    const auto r = run_schema("--for anthropic --task-schema examples/schemas/ticket.schema.json");
    CHECK(r.exit_status == 0);
    std::ifstream file(std::string(HANDOFF_FIXTURES_DIR) + "/../../examples/schemas/ticket.schema.json");
    const auto task = nlohmann::ordered_json::parse(file);
    CHECK(nlohmann::ordered_json::parse(r.out) == handoff::provider_schema(handoff::provider::anthropic, &task).schema);
    // Each line says why, and what the receiver does (the note's own words).
    const std::string why = ": Anthropic does not support this keyword; the receiver still checks it";
    CHECK(has_line(r, "/properties/partial_result/anyOf/0/properties/summary: minLength 20 not enforced by anthropic" +
                          why));
    CHECK(has_line(r, "/properties/partial_result/anyOf/0/properties/citations: maxItems 5 not enforced by anthropic" +
                          why));
    CHECK(has_line(r, "(root): else {\"properties\":{\"reason_code\":{\"type\":\"null\"}}} not enforced by anthropic" +
                          why));
}

TEST_CASE("handoff-check schema for json_schema prints the merged schema and only the dialect on stderr",
          "[cli][schema]") {
    const auto r = run_schema("--for json_schema --task-schema examples/schemas/invoice.schema.json");
    CHECK(r.exit_status == 0);
    CHECK(r.err_lines == std::vector<std::string>{"handoff-check schema: examples/schemas/invoice.schema.json: "
                                                  "dialect: draft-07 (from $schema)"});
    CHECK(nlohmann::ordered_json::parse(r.out)["properties"]["partial_result"]["anyOf"][0]["title"] == "invoice");
}

TEST_CASE("handoff-check schema exits 1 and names the limit when the schema is over a provider limit",
          "[cli][schema]") {
    const auto r =
        run_schema("--for anthropic --task-schema tests/fixtures/provider_schemas/too_many_optional.schema.json");
    CHECK(r.exit_status == 1);
    CHECK(has_line(r, "handoff-check schema: over the anthropic limit anthropic.max_optional_parameters: "
                      "{\"count\":25,\"limit\":24}"));
    CHECK(run_schema("--for openai --task-schema tests/fixtures/provider_schemas/too_many_optional.schema.json")
              .exit_status == 0);
}

TEST_CASE("handoff-check schema exits 2 for an unknown provider, a missing flag or an unreadable schema",
          "[cli][schema]") {
    const auto unknown = run_schema("--for gpt");
    CHECK(unknown.exit_status == 2);
    REQUIRE_FALSE(unknown.err_lines.empty());
    CHECK(unknown.err_lines[0] == "handoff-check schema: unknown provider \"gpt\" (openai, anthropic, gemini, "
                                  "llama_cpp, json_schema, gemini_openapi)");
    CHECK(run_schema("").exit_status == 2);
    CHECK(run_schema("--for").exit_status == 2);
    CHECK(run_schema("--for openai --bogus").exit_status == 2);
    const auto missing = run_schema("--for openai --task-schema no_such_file.json");
    CHECK(missing.exit_status == 2);
    CHECK(missing.err_lines == std::vector<std::string>{"handoff-check schema: cannot read no_such_file.json"});
    const auto not_schema = run_schema("--for openai --task-schema README.md");
    CHECK(not_schema.exit_status == 2);
    CHECK(not_schema.out.empty());
    CHECK(run_schema("--help").exit_status == 0);
}

TEST_CASE("handoff-check --from openai accepts a reply decoded under the OpenAI schema, nulled optionals and all",
          "[cli][schema]") {
    const std::string root = std::string(HANDOFF_FIXTURES_DIR) + "/../..";
    const std::string reply_file =
        std::string(HANDOFF_CLI_TEMP_DIR) + "/openai_reply." + std::to_string(::getpid()) + ".json";
    {
        std::ofstream out(reply_file);
        out << R"({"status":"ok","reason_code":null,"partial_result":{"label":"billing","severity":"p2",)"
               R"("summary":"Customer was charged twice for the March invoice.","citations":["SOURCE-1"]},)"
               R"("schema_ok":true,"coverage":{"items_expected":1,"items_completed":1,"unit":"ticket","fraction":1},)"
               R"("steps":{"completed":["triage"],"remaining":[]},"retry_hint":null,"trace":null,"budget":null})";
    }
    const std::string check =
        "cd '" + root + "' && '" + HANDOFF_CHECK_EXE + "' --task-schema examples/schemas/ticket.schema.json ";
    const auto from_openai = handoff_test::run_shell(check + "--from openai '" + reply_file + "'");
    CHECK(from_openai.exit_status == 0);
    CHECK(nlohmann::json::parse(from_openai.out)["route"] == "ACCEPT");
    const auto told_nothing = handoff_test::run_shell(check + "'" + reply_file + "'");
    CHECK(told_nothing.exit_status == 1);
    CHECK(handoff_test::run_shell(check + "--from gpt '" + reply_file + "' 2>/dev/null").exit_status == 2);
    std::remove(reply_file.c_str());
}

TEST_CASE("handoff-check --from openai reads the nulls OpenAI put in inside $defs definitions as absent",
          "[cli][schema]") {
    const std::string root = std::string(HANDOFF_FIXTURES_DIR) + "/../..";
    const std::string check = "cd '" + root + "' && '" + HANDOFF_CHECK_EXE +
                              "' --task-schema tests/fixtures/provider_nulls/person.schema.json ";
    const std::string reply = " tests/fixtures/provider_nulls/person_reply_openai.json";
    const auto from_openai = handoff_test::run_shell(check + "--from openai" + reply);
    CHECK(from_openai.exit_status == 0);
    CHECK(nlohmann::json::parse(from_openai.out)["route"] == "ACCEPT");
    const auto told_nothing = handoff_test::run_shell(check + reply);
    CHECK(told_nothing.exit_status == 1);
    CHECK(nlohmann::json::parse(told_nothing.out)["route"] == "REPAIR");
}

TEST_CASE("handoff-check schema --describe-dropped writes each dropped constraint into the description the model "
          "reads, and still lists it",
          "[cli][schema]") {
    const std::string task = " --task-schema tests/fixtures/cli/describe_dropped.schema.json";
    const auto described = run_schema("--for openai --describe-dropped" + task);
    CHECK(described.exit_status == 0);
    const auto properties =
        nlohmann::ordered_json::parse(described.out)["properties"]["partial_result"]["anyOf"][0]["properties"];
    // OpenAI refuses a lookaround in a pattern: dropped, and appended to the author's description.
    CHECK(properties["code"] == nlohmann::ordered_json::parse(R"({"type": "string",
        "description": "The code.\n\n{pattern: \"^(?!x)[a-z]+$\"}"})"));
    // A pattern OpenAI takes stays, and no description is written for it.
    CHECK(properties["name"] == nlohmann::ordered_json::parse(R"({"type": "string", "pattern": "^[A-Z][a-z]+$"})"));
    CHECK(has_line(described, "/properties/partial_result/anyOf/0/properties/code: pattern \"^(?!x)[a-z]+$\" not "
                              "enforced by openai: OpenAI refuses lookaround and Unicode property escapes (\\p{...}) "
                              "in a pattern; the receiver still checks it"));
    // Without the flag the description is the author's alone.
    const auto plain = run_schema("--for openai" + task);
    CHECK(nlohmann::ordered_json::parse(
              plain.out)["properties"]["partial_result"]["anyOf"][0]["properties"]["code"]["description"] ==
          "The code.");
    // Several dropped keywords of one schema go into one description, in the schema's order.
    const auto ticket =
        run_schema("--for anthropic --describe-dropped --task-schema examples/schemas/ticket.schema.json");
    CHECK(ticket.exit_status == 0);
    const auto summary =
        nlohmann::ordered_json::parse(ticket.out)["properties"]["partial_result"]["anyOf"][0]["properties"]["summary"];
    CHECK(summary ==
          nlohmann::ordered_json::parse(R"({"type": "string", "description": "{minLength: 20, maxLength: 800}"})"));
}

TEST_CASE("handoff-check schema for anthropic says how much of each whole-request limit the envelope takes and "
          "how much the task has left",
          "[cli][schema]") {
    // The envelope's own optional fields: reason_code, retry_hint, trace, budget; retry_hint's
    // suggested_scope, budget_multiplier and notes; trace's parent_span_id; budget's six = 14.
    // Its unions: reason_code, partial_result (the task or null), suggested_scope,
    // budget_multiplier, notes, parent_span_id = 6. The task: note, tag and count are optional;
    // note and tag are unions.
    const auto r = run_schema("--for anthropic --task-schema tests/fixtures/cli/limit_share.schema.json");
    CHECK(r.exit_status == 0);
    std::vector<std::string> limit_lines;
    for (const auto& line : r.err_lines) {
        if (line.rfind("handoff-check schema: anthropic.", 0) == 0) {
            limit_lines.push_back(line);
        }
    }
    CHECK(limit_lines ==
          std::vector<std::string>{"handoff-check schema: anthropic.max_optional_parameters: the envelope uses 14 of "
                                   "24, the task 3; 10 left for the task and any other strict tool in the request",
                                   "handoff-check schema: anthropic.max_union_type_parameters: the envelope uses 6 of "
                                   "16, the task 2; 10 left for the task and any other strict tool in the request"});
    // The envelope alone: its share is the same, the task's nothing.
    const auto alone = run_schema("--for anthropic");
    CHECK(has_line(alone, "handoff-check schema: anthropic.max_optional_parameters: the envelope uses 14 of 24, the "
                          "task 0; 10 left for the task and any other strict tool in the request"));
    // Over the limit the share lines still come, and the task's count says by how much.
    const auto over =
        run_schema("--for anthropic --task-schema tests/fixtures/provider_schemas/too_many_optional.schema.json");
    CHECK(over.exit_status == 1);
    CHECK(has_line(over, "handoff-check schema: anthropic.max_optional_parameters: the envelope uses 14 of 24, the "
                         "task 11; 10 left for the task and any other strict tool in the request"));
    // Other providers count no limit over the whole request.
    for (const char* other : {"openai", "gemini", "llama_cpp"}) {
        CAPTURE(other);
        const auto lines =
            run_schema(std::string("--for ") + other + " --task-schema tests/fixtures/cli/limit_share.schema.json")
                .err_lines;
        for (const auto& line : lines) {
            CHECK(line.find("left for the task") == std::string::npos);
        }
    }
}

// --- schema --for reads the task schema as the check reads it ---------------------------------

namespace {

const std::string place = "tests/fixtures/dialect_cli/pydantic_place.schema.json";

/// What the check says refusing the task schema `args` names (run in the repository root): its
/// stderr after "handoff-check: ", without the newline.
std::string check_refusal(const std::string& args) {
    const std::string root = std::string(HANDOFF_FIXTURES_DIR) + "/../..";
    const auto ran = handoff_test::run_shell("cd '" + root + "' && '" + HANDOFF_CHECK_EXE + "' " + args +
                                             " tests/fixtures/envelopes/seed_000_example.json 2>&1 >/dev/null");
    REQUIRE(ran.exit_status == 2);
    const std::string head = "handoff-check: ";
    REQUIRE(ran.out.rfind(head, 0) == 0);
    return ran.out.substr(head.size(), ran.out.size() - head.size() - 1);
}

} // namespace

TEST_CASE("handoff-check schema --for reads a Pydantic schema without $schema as 2020-12 and says so",
          "[cli][schema][dialect]") {
    const auto r = run_schema("--for gemini --task-schema " + place);
    CHECK(r.exit_status == 0);
    REQUIRE_FALSE(r.err_lines.empty());
    CHECK(r.err_lines[0] == "handoff-check schema: " + place + ": dialect: 2020-12 (from its keywords)");
    CHECK(run_schema("--for gemini --dialect 2020-12 --task-schema " + place).err_lines.at(0) ==
          "handoff-check schema: " + place + ": dialect: 2020-12 (from --dialect)");
    CHECK(run_schema("--for openai --task-schema examples/schemas/ticket.schema.json").err_lines.at(0) ==
          "handoff-check schema: examples/schemas/ticket.schema.json: dialect: draft-07 (from $schema)");
}

TEST_CASE("handoff-check schema --for rewrites the task in the dialect --dialect names", "[cli][schema][dialect]") {
    const std::string sibling = "tests/fixtures/dialect_cli/ref_sibling.schema.json";
    const auto codes = [](const schema_run& r) {
        return nlohmann::json::parse(r.out)["properties"]["partial_result"]["anyOf"][0]["properties"]["codes"];
    };
    // By its keywords draft-07: the $ref stands alone, its sibling ignored as the check ignores it.
    const auto by_keywords = run_schema("--for openai --task-schema " + sibling);
    REQUIRE(by_keywords.exit_status == 0);
    CHECK(by_keywords.err_lines.at(0) ==
          "handoff-check schema: " + sibling + ": dialect: draft-07 (from its keywords)");
    CHECK(codes(by_keywords) == nlohmann::json{{"$ref", "#/$defs/codes"}});
    // Named 2020-12: maxItems applies beside the $ref, and is sent.
    const auto named = run_schema("--for openai --dialect 2020-12 --task-schema " + sibling);
    REQUIRE(named.exit_status == 0);
    CHECK(named.err_lines.at(0) == "handoff-check schema: " + sibling + ": dialect: 2020-12 (from --dialect)");
    CHECK(codes(named) == nlohmann::json{{"anyOf", {{{"$ref", "#/$defs/codes"}}}}, {"maxItems", 3}});
}

TEST_CASE("handoff-check schema --for refuses what the check refuses, with the check's message and exit 2",
          "[cli][schema][dialect]") {
    // prefixItems named draft-07: the check refuses the schema, so no provider schema is written.
    const std::string prefix_items = check_refusal("--dialect draft-07 --task-schema " + place);
    CHECK(prefix_items.find("#/$defs/Point/properties/xy/prefixItems: \"prefixItems\" is a keyword of JSON Schema "
                            "2019-09/2020-12 that draft-07 ignores") != std::string::npos);
    const auto draft07 = run_schema("--for openai --dialect draft-07 --task-schema " + place);
    CHECK(draft07.exit_status == 2);
    CHECK(draft07.out.empty());
    CHECK(draft07.err_lines == std::vector<std::string>{"handoff-check schema: " + prefix_items});

    // A $ref that leads nowhere.
    const std::string nowhere = "tests/fixtures/lint/does_not_compile.schema.json";
    const std::string dangling = check_refusal("--task-schema " + nowhere);
    CHECK(dangling.find("#/properties/customer: $ref \"#/definitions/customer\" points to nothing in ") !=
          std::string::npos);
    const auto refused = run_schema("--for openai --task-schema " + nowhere);
    CHECK(refused.exit_status == 2);
    CHECK(refused.out.empty());
    CHECK(refused.err_lines == std::vector<std::string>{"handoff-check schema: " + dangling});

    const auto no_task = run_schema("--for openai --dialect 2020-12");
    CHECK(no_task.exit_status == 2);
    REQUIRE_FALSE(no_task.err_lines.empty());
    CHECK(no_task.err_lines[0] == "handoff-check schema: --dialect needs --task-schema");
}

TEST_CASE("handoff-check schema escapes and caps the schema's keys in its notes as lint does",
          "[cli][schema][escaping]") {
    // Keys "a\e[31mRED\ab", "x" U+202E "y" NUL and 5000 bytes of "k", each made nullable for OpenAI
    // (tests/fixtures/escaping/hostile_keys.schema.json).
    const auto r = run_schema("--for openai --task-schema tests/fixtures/escaping/hostile_keys.schema.json");
    CHECK(r.exit_status == 0);
    REQUIRE(r.err_lines.size() >= 3);
    std::size_t nullable = 0;
    for (const std::string& line : r.err_lines) {
        INFO(line.substr(0, 300));
        for (const char raw : {'\x1b', '\x07', '\0', '\r'}) {
            CHECK(line.find(raw) == std::string::npos);
        }
        CHECK(line.find("\xE2\x80\xAE") == std::string::npos); // U+202E
        CHECK(line.size() < 600);
        const bool task_key = line.rfind("/properties/partial_result/anyOf/0/properties/", 0) == 0;
        nullable += task_key && line.find(": made nullable for openai: ") != std::string::npos ? 1 : 0;
    }
    CHECK(nullable == 3);
    const std::string at = "/properties/partial_result/anyOf/0/properties/";
    bool escaped = false;
    bool bidi = false;
    for (const std::string& line : r.err_lines) {
        escaped = escaped || line.rfind(at + "a\\u001b[31mRED\\u0007b: made nullable for openai: ", 0) == 0;
        bidi = bidi || line.rfind(at + "x\\u202ey\\u0000: made nullable for openai: ", 0) == 0;
    }
    CHECK(escaped);
    CHECK(bidi);
}

} // namespace test_cli_schema

#endif
