// SPDX-License-Identifier: MIT
// <handoff/worker_prompt.hpp> and <handoff/envelope_schema.hpp>: the embedded envelope schema is
// the shipped file, its $id carries the library version, and the worker prompt is generated
// from the schemas, so it cannot say anything they do not.

#include "support/fixtures.hpp"

#include <handoff/envelope_schema.hpp>
#include <handoff/schema.hpp>
#include <handoff/schema_registry.hpp>
#include <handoff/version.hpp>
#include <handoff/worker_prompt.hpp>

#include <nlohmann/json.hpp>

#include <string>  // string, to_string
#include <utility> // make_pair
#include <vector>  // vector

namespace test_worker_prompt { // this file's own names: see "unity build" in tests/CMakeLists.txt

namespace {

/// The text of a prompt from `heading` up to the next "## " heading (or the end).
std::string section(const std::string& prompt, const std::string& heading) {
    const std::size_t start = prompt.find(heading + "\n");
    REQUIRE(start != std::string::npos);
    const std::size_t body = start + heading.size() + 1;
    const std::size_t next = prompt.find("\n## ", body);
    return prompt.substr(body, next == std::string::npos ? std::string::npos : next + 1 - body);
}

std::string task_section(const std::string& prompt) { return section(prompt, "## Task result (partial_result)"); }

std::vector<std::string> strings_in(const nlohmann::json& values) {
    std::vector<std::string> out;
    for (const auto& v : values) {
        if (v.is_string()) {
            out.push_back(v.get<std::string>());
        }
    }
    return out;
}

nlohmann::ordered_json ticket_schema() {
    return nlohmann::ordered_json::parse(handoff_test::read_fixture("../../examples/schemas/ticket.schema.json"));
}

/// The task section of the prompt for a schema file under tests/fixtures/refs/, read as
/// handoff-check prompt reads it: beside the file and, with `shared`, in refs/shared/.
std::string refs_task_section(const std::string& name, bool shared = true) {
    handoff::schema_registry registry;
    if (shared) {
        registry.add_directory(handoff_test::fixture_path("refs/shared"));
    }
    const std::string path = handoff_test::fixture_path("refs/" + name);
    const auto schema = nlohmann::ordered_json::parse(handoff_test::read_file(path));
    return task_section(handoff::worker_prompt(schema, registry, handoff::schema_registry::file_uri(path)));
}

} // namespace

TEST_CASE("the embedded envelope schema is schemas/envelope.schema.json byte for byte", "[worker_prompt]") {
    // On failure: run scripts/embed-envelope-schema.sh after editing the schema.
    const std::string file = handoff_test::read_file(handoff_test::shipped_schema_path("envelope.schema.json"));
    CHECK(std::string(handoff::envelope_schema_text()) == file);
    CHECK(handoff::envelope_schema() == nlohmann::json::parse(file));
}

TEST_CASE("the envelope schema's $id and title carry HANDOFF_VERSION major.minor", "[worker_prompt][version]") {
    const std::string major_minor = std::to_string(HANDOFF_VERSION_MAJOR) + "." + std::to_string(HANDOFF_VERSION_MINOR);
    CHECK(handoff::envelope_schema().at("$id") == "urn:handoff:schema:envelope:" + major_minor);
    CHECK(handoff::envelope_schema().at("title") == "handoff envelope " + major_minor);
    CHECK(std::string(handoff::version_string) == major_minor + "." + std::to_string(HANDOFF_VERSION_PATCH));
}

TEST_CASE("the schema's reason codes and retry hints are exactly the library's enums", "[worker_prompt]") {
    // The prompt lists what the schema says and explains it with worker_guidance: both must
    // know the same codes, in the same order.
    const auto& schema = handoff::envelope_schema();
    std::vector<std::string> codes;
    for (const auto r : handoff::all_reason_codes) {
        codes.emplace_back(handoff::to_string(r));
        CHECK_FALSE(handoff::worker_guidance(r).empty());
    }
    CHECK(strings_in(schema.at(nlohmann::json::json_pointer("/properties/reason_code/enum"))) == codes);
    CHECK(schema.at(nlohmann::json::json_pointer("/properties/reason_code/enum")).back().is_null()); // the ok case

    std::vector<std::string> actions;
    for (const auto a : handoff::all_actions) {
        actions.emplace_back(handoff::to_string(a));
        CHECK_FALSE(handoff::worker_guidance(a).empty());
    }
    CHECK(strings_in(schema.at(
              nlohmann::json::json_pointer("/properties/retry_hint/properties/suggested_action/enum"))) == actions);
    STATIC_REQUIRE(handoff::worker_guidance(handoff::reason_code::dependency_failed) ==
                   "something you need failed or is missing (a tool error, an unavailable service, absent input): "
                   "more budget would not help");
}

TEST_CASE("the prompt lists every envelope field the schema declares, with its bounds", "[worker_prompt]") {
    const std::string prompt = handoff::worker_prompt(ticket_schema());
    const std::string fields = section(prompt, "## Envelope fields");
    for (const auto& item : handoff::envelope_schema().at("properties").items()) {
        INFO(item.key());
        CHECK(fields.find("- " + item.key() +
                          (item.key() == "status" || item.key() == "partial_result" || item.key() == "schema_ok" ||
                                   item.key() == "coverage" || item.key() == "steps"
                               ? " (required): "
                               : ": ")) != std::string::npos);
    }
    CHECK(fields.rfind("- status (required): one of \"ok\", \"capped\". ok: partial_result is the whole result. "
                       "capped: the worker stopped at a cap.\n",
                       0) == 0);
    CHECK(fields.find("  - unit (required): string, 1 to 64 characters\n") != std::string::npos);
    CHECK(fields.find("  - fraction (required): number from 0 to 1\n") != std::string::npos);
    CHECK(fields.find("  - completed (required): array of at most 256 items; each item: string, at most 512 "
                      "characters\n") != std::string::npos);
    CHECK(fields.find("- reason_code: one of \"TOKEN_CAP\", \"TIME_CAP\", \"TOOL_CALL_CAP\", \"CONTEXT_OVERFLOW\", "
                      "\"DEPENDENCY_FAILED\", \"SCOPE_TOO_BROAD\", or null.") != std::string::npos);
    CHECK(prompt.find("Envelope schema: urn:handoff:schema:envelope:0.1\n") != std::string::npos);
}

TEST_CASE("the prompt explains every reason code and retry hint the schema allows", "[worker_prompt]") {
    const std::string prompt = handoff::worker_prompt(ticket_schema());
    CHECK(section(prompt, "## Reason codes (status \"capped\" only; exactly one of these, nothing else)") ==
          "- TOKEN_CAP: you are running out of output tokens before the task is done\n"
          "- TIME_CAP: your time budget ran out before the task was done\n"
          "- TOOL_CALL_CAP: you reached the maximum number of tool calls\n"
          "- CONTEXT_OVERFLOW: the material no longer fits in your context window: going on would mean working "
          "from what you have forgotten\n"
          "- DEPENDENCY_FAILED: something you need failed or is missing (a tool error, an unavailable service, "
          "absent input): more budget would not help\n"
          "- SCOPE_TOO_BROAD: the task is too large or too vague for one worker: it has to be split or narrowed\n"
          "\n");
    CHECK(section(prompt, "## Retry hint (optional, advisory)") ==
          "retry_hint.suggested_action says what you would do next; the orchestrator decides, and it owns the "
          "budget (budget_multiplier is read, never obeyed):\n"
          "- RESUME: continue from where you stopped, with more budget\n"
          "- SPLIT: divide the remaining items among several workers\n"
          "- NARROW: retry only the remaining steps, with the same budget\n"
          "- ESCALATE: a person or another system has to step in; retrying will not help\n"
          "- FAIL: the task cannot be done; stop trying\n"
          "\n");
}

TEST_CASE("the prompt describes seed 004's ticket schema field by field, in the author's order", "[worker_prompt]") {
    CHECK(task_section(handoff::worker_prompt(ticket_schema())) ==
          "Task: ticket\n"
          "- label (required): one of \"billing\", \"outage\", \"how_to\", \"bug\", \"abuse\", \"human\"\n"
          "- severity (required): one of \"p0\", \"p1\", \"p2\", \"p3\"\n"
          "- summary (required): string, 20 to 800 characters\n"
          "- citations (required): array of at most 5 items; each item: string, at most 120 characters\n"
          "No other keys: any other key is an error.\n");
}

TEST_CASE("a label added to the schema is in the prompt, so the prompt cannot drift from it", "[worker_prompt]") {
    auto schema = ticket_schema();
    schema["properties"]["label"]["enum"].push_back("refund");
    const std::string prompt = handoff::worker_prompt(schema);
    CHECK(task_section(prompt).find("- label (required): one of \"billing\", \"outage\", \"how_to\", \"bug\", "
                                    "\"abuse\", \"human\", \"refund\"\n") != std::string::npos);
}

TEST_CASE("with nlohmann::json the required fields come first, in the order required lists them", "[worker_prompt]") {
    const auto schema = nlohmann::json::parse(R"({"type": "object", "additionalProperties": false,
        "required": ["zeta", "alpha"],
        "properties": {"beta": {"type": "boolean"}, "alpha": {"type": "integer", "minimum": 1},
                       "zeta": {"type": "null"}, "aaa": {"type": "number", "exclusiveMaximum": 5}}})");
    CHECK(task_section(handoff::worker_prompt(schema)) == "- zeta (required): null\n"
                                                          "- alpha (required): integer >= 1\n"
                                                          "- aaa: number < 5\n"
                                                          "- beta: true or false\n"
                                                          "No other keys: any other key is an error.\n");
}

TEST_CASE("the prompt follows $refs, nests objects and arrays of objects, and lists alternatives", "[worker_prompt]") {
    const auto schema = nlohmann::ordered_json::parse(R"({
        "title": "order", "description": "One order.\nAs printed.",
        "type": "object", "additionalProperties": false, "required": ["kind", "lines"],
        "definitions": {"line": {"type": "object", "additionalProperties": false, "required": ["sku"],
            "properties": {"sku": {"type": "string", "maxLength": 12, "pattern": "^[A-Z0-9]+$"},
                           "qty": {"type": "integer", "minimum": 1, "maximum": 99, "description": "units"}}}},
        "properties": {
            "kind": {"const": "order"},
            "lines": {"type": "array", "minItems": 1, "maxItems": 10, "items": {"$ref": "#/definitions/line"}},
            "ship": {"oneOf": [{"type": "null"}, {"type": "string", "format": "date", "maxLength": 10}]},
            "tags": {"type": ["array", "null"], "maxItems": 3, "items": {"enum": ["a", "b", null]}}
        }})");
    CHECK(task_section(handoff::worker_prompt(schema)) ==
          "Task: order\n"
          "One order. As printed.\n"
          "- kind (required): exactly \"order\"\n"
          "- lines (required): array of 1 to 10 items; each item: object with these fields; no other keys\n"
          "  - sku (required): string, at most 12 characters, matching the regular expression \"^[A-Z0-9]+$\"\n"
          "  - qty: integer from 1 to 99. units\n"
          "- ship: exactly one of these\n"
          "  - option 1: null\n"
          "  - option 2: string, at most 10 characters, format \"date\"\n"
          "- tags: array of at most 3 items; each item: one of \"a\", \"b\", or null, or null\n"
          "No other keys: any other key is an error.\n");
}

TEST_CASE("the prompt puts allOf, distinct items, contains and an object's other keys in words",
          "[worker_prompt][dialects]") {
    // As generators write them: allOf around a lone $ref with a description beside it (read as
    // that $ref), Pydantic's set as uniqueItems, a dict or zod record as additionalProperties.
    const auto schema =
        nlohmann::ordered_json::parse(handoff_test::read_fixture("schemas/prompt_keywords.schema.json"));
    CHECK(task_section(handoff::worker_prompt(schema)) ==
          "Task: keywords the worker prompt puts in words\n"
          "- tags (required): array of at most 5 items; each item: string; no two items equal\n"
          "- address: object with these fields; no other keys. Where it ships\n"
          "  - city (required): string, at most 40 characters\n"
          "- stock: object, 1 to 3 keys; each value: integer >= 0\n"
          "- sizes: object with these fields; any other key's value: number\n"
          "  - unit: one of \"cm\", \"in\"\n"
          "- flags: array; each item: string; at least 1 of the items: exactly \"checked\"\n"
          "- marks: array; 2 to 4 of the items: integer\n"
          "- spare: array\n"
          "- record: all of these\n"
          "  - part 1: object with these fields; no other keys\n"
          "    - city (required): string, at most 40 characters\n"
          "  - part 2: object with these fields\n"
          "    - zip (required): string, at most 10 characters\n"
          "No other keys: any other key is an error.\n");
}

TEST_CASE("a schema recursive through contains is described once, where it starts", "[worker_prompt][dialects]") {
    // contains recursing into its own array: said, not followed again, whatever the depth bound.
    const auto schema =
        nlohmann::ordered_json::parse(handoff_test::read_fixture("schemas/prompt_recursive_contains.schema.json"));
    const std::string once =
        "- t: array of at most 3 items; at least 1 of the items: the same shape as \"t\" above (it nests itself)\n";
    handoff::worker_prompt_options options;
    options.max_depth = 3;
    CHECK(task_section(handoff::worker_prompt(schema, options)) == once);
    CHECK(task_section(handoff::worker_prompt(schema)) == once);
}

TEST_CASE("the prompt follows a $dynamicRef or $recursiveRef that can name one schema, as a $ref",
          "[worker_prompt][dialects]") {
    const auto fixture =
        nlohmann::ordered_json::parse(handoff_test::read_fixture("provider_schemas/dynamic_refs.json"));
    handoff::worker_prompt_options options;
    options.max_depth = 2;
    for (const char* name : {"tree_2020_12", "tree_2019_09"}) {
        INFO(name);
        const std::string section = task_section(handoff::worker_prompt(fixture[name], options));
        // The anchor names the result itself: its items are results again.
        CHECK(section.find("- children: array; each item: the same shape as partial_result above (it nests "
                           "itself)\n") != std::string::npos);
        CHECK(section.find("any JSON value") == std::string::npos);
    }
}

TEST_CASE("the prompt describes a 2020-12 tuple place by place", "[worker_prompt][dialects]") {
    const auto schema = nlohmann::json::parse(R"({
        "type": "object", "additionalProperties": false, "required": ["at"],
        "properties": {"at": {"type": "array", "minItems": 2, "maxItems": 3,
                              "prefixItems": [{"type": "number"}, {"type": "number"}], "items": {"type": "string", "maxLength": 5}}}})");
    CHECK(task_section(handoff::worker_prompt(schema)) ==
          "- at (required): array of 2 to 3 items; item 1: number; item 2: number; each item after those: string, at "
          "most 5 characters\n"
          "No other keys: any other key is an error.\n");
}

TEST_CASE("the prompt caps long enums, deep nesting and long descriptions, and keeps one line each",
          "[worker_prompt]") {
    auto schema = nlohmann::ordered_json::parse(R"({"type": "object", "additionalProperties": false,
        "properties": {"code": {"enum": ["a", "b", "c", "d"]},
                       "deep": {"type": "object", "additionalProperties": false,
                                "properties": {"inner": {"type": "object", "additionalProperties": false,
                                               "properties": {"x": {"type": "integer"}}}}},
                       "note": {"type": "string", "maxLength": 5, "description": "line one\nline two\u001b[31m"}}})");
    handoff::worker_prompt_options options;
    options.max_enum_values = 2;
    options.max_depth = 1;
    options.max_description_bytes = 12;
    CHECK(task_section(handoff::worker_prompt(schema, options)) ==
          "- code: one of \"a\", \"b\" ... and 2 more (see the schema)\n"
          "- deep: object with these fields; no other keys\n"
          "  - inner: object (nested too deep to list: see the schema)\n"
          "- note: string, at most 5 characters. line one lin... (22 bytes)\n"
          "No other keys: any other key is an error.\n");
}

TEST_CASE("without a task schema the prompt says partial_result is free", "[worker_prompt]") {
    const std::string prompt = handoff::worker_prompt_without_task();
    CHECK(task_section(prompt) ==
          "No task schema is set: partial_result is a JSON object of your choosing, or null.\n");
    CHECK(prompt.rfind("Reply with exactly one JSON object, the envelope described below, and nothing else: no code "
                       "fence, no text before or after it.\n",
                       0) == 0);
}

TEST_CASE("a task schema that is not an object schema is described as one phrase", "[worker_prompt]") {
    const auto schema = nlohmann::json::parse(R"({"description": "anything", "type": ["object", "null"]})");
    CHECK(task_section(handoff::worker_prompt(schema)) == "anything\npartial_result: object, or null\n");
}

TEST_CASE("the prompt follows $refs into other files as the validator does, in the author's order",
          "[worker_prompt][refs]") {
    // total and unit_price come from the shared file (whose own ref resolves there), lines from
    // a file beside the schema (whose ref to sku/code resolves in it), kind under a $id base.
    CHECK(refs_task_section("task/order.schema.json") ==
          "Task: order\n"
          "- status (required): one of \"open\", \"paid\", \"shipped\"\n"
          "- total (required): object with these fields; no other keys\n"
          "  - amount_cents (required): integer >= 0\n"
          "  - currency (required): one of \"EUR\", \"USD\", \"GBP\"\n"
          "- lines (required): array of at most 50 items; each item: object with these fields; no other keys\n"
          "  - sku (required): string, at most 20 characters, matching the regular expression \"^[A-Z0-9-]+$\"\n"
          "  - quantity (required): integer from 1 to 1000\n"
          "  - unit_price: object with these fields; no other keys\n"
          "    - amount_cents (required): integer >= 0\n"
          "    - currency (required): one of \"EUR\", \"USD\", \"GBP\"\n"
          "- channel: object with these fields; no other keys\n"
          "  - kind (required): one of \"web\", \"phone\"\n"
          "No other keys: any other key is an error.\n");
}

TEST_CASE("a $ref that leads nowhere makes the prompt refuse the schema as the receiver refuses it",
          "[worker_prompt][refs]") {
    // Without refs/shared, status, total and kind name documents nobody registered.
    const std::string path = handoff_test::fixture_path("refs/task/order.schema.json");
    const std::string refused =
        handoff_test::receiver_refusal([&] { return handoff::compiled_schema::from_file(path); });
    CHECK(refused == "handoff: schema " + handoff::schema_registry::file_uri(path) +
                         "#/definitions/channel/properties/kind: $ref \"common.json#/definitions/channel%20kind\" "
                         "names \"https://example.com/schemas/common.json\", a document handoff does not know (nothing "
                         "is ever fetched over a network): register it with schema_registry::add(...) or "
                         "handoff-check --schema-dir DIR");
    CHECK_THROWS_AS(refs_task_section("task/order.schema.json", false), handoff::schema_error);
    CHECK_THROWS_WITH(refs_task_section("task/order.schema.json", false), refused);
}

TEST_CASE("the prompt follows a $ref chain for max_ref_hops hops, no further, and refuses a loop as the receiver does",
          "[worker_prompt][refs]") {
    CHECK(refs_task_section("ref_chain.schema.json") ==
          "- status: string, at most 20 characters or object with these fields; no other keys\n"
          "  - id: integer <= 10\n"
          "- label: any JSON value\n"
          "No other keys: any other key is an error.\n");
    const std::string loop = handoff_test::fixture_path("refs/ref_loop.schema.json");
    const std::string refused =
        handoff_test::receiver_refusal([&] { return handoff::compiled_schema::from_file(loop); });
    CHECK(refused == "handoff: schema " + handoff::schema_registry::file_uri(loop) +
                         "#/definitions/a: the schema refers to itself without reading any input ($ref, allOf, "
                         "anyOf, oneOf, not or if in a loop): it would never finish validating");
    CHECK_THROWS_WITH(refs_task_section("ref_loop.schema.json"), refused);
}

TEST_CASE("the prompt reads a Pydantic schema without $schema as 2020-12, as the receiver does",
          "[worker_prompt][dialect]") {
    const auto schema =
        nlohmann::ordered_json::parse(handoff_test::read_fixture("dialect_cli/pydantic_place.schema.json"));
    CHECK(handoff::compiled_schema::dialect_of(nlohmann::json(schema)) == handoff::schema_dialect::draft2020_12);
    CHECK(task_section(handoff::worker_prompt(schema)) ==
          "Task: Place\n"
          "- name (required): string, at most 40 characters\n"
          "- kind (required): one of \"city\", \"village\"\n"
          "- where (required): object with these fields; no other keys\n"
          "  - xy (required): array of 2 to 2 items; item 1: number; item 2: number\n"
          "- note: one of these\n"
          "  - option 1: string, at most 200 characters\n"
          "  - option 2: null\n"
          "No other keys: any other key is an error.\n");
}

TEST_CASE("the prompt named draft-07 refuses prefixItems with the receiver's message", "[worker_prompt][dialect]") {
    const auto schema = nlohmann::json::parse(handoff_test::read_fixture("dialect_cli/pydantic_place.schema.json"));
    handoff::worker_prompt_options options;
    options.schema.dialect = handoff::schema_dialect::draft07;
    const std::string refused =
        handoff_test::receiver_refusal([&] { return handoff::compiled_schema::from_json(schema, options.schema); });
    CHECK(refused == "handoff: schema /$defs/Point/properties/xy/prefixItems: \"prefixItems\" is a keyword of JSON "
                     "Schema 2019-09/2020-12 that draft-07 ignores: the schema would accept what it was written to "
                     "refuse (declare \"$schema\": \"https://json-schema.org/draft/2020-12/schema\", or rewrite it in "
                     "draft-07 terms)");
    CHECK_THROWS_WITH(handoff::worker_prompt(schema, options), refused);
    // Named 2020-12, the same schema gets its prompt.
    options.schema.dialect = handoff::schema_dialect::draft2020_12;
    CHECK(task_section(handoff::worker_prompt(schema, options)).find("Task: Place\n") == 0);
}
TEST_CASE("the prompt puts the keywords beside a $ref in words where they apply, and their description first",
          "[worker_prompt][dialects]") {
    const auto fixture = nlohmann::ordered_json::parse(handoff_test::read_fixture("schemas/prompt_ref_siblings.json"));
    // 2020-12: maxLength beside the $ref constrains with it, as the receiver enforces it.
    CHECK(task_section(handoff::worker_prompt(fixture["schema_2020_12"])) ==
          "- name (required): string, at least 1 characters; and also string, at most 5 characters. The buyer's "
          "short name\n"
          "- sku: string, at least 1 characters. A label\n"
          "- marks: array; at least 2 of the items: integer\n");
    const nlohmann::json too_long = {{"name", "Alexandra"}};
    CHECK_FALSE(handoff::compiled_schema::from_json(nlohmann::json(fixture["schema_2020_12"])).accepts(too_long));
    // draft-07 ignores it, and so does the prompt; the description beside the $ref is still the
    // field's own.
    CHECK(task_section(handoff::worker_prompt(fixture["schema_draft_07"])) ==
          "- name (required): string, at least 1 characters. The buyer's short name\n"
          "- sku: string, at least 1 characters. A label\n");
    CHECK(handoff::compiled_schema::from_json(nlohmann::json(fixture["schema_draft_07"])).accepts(too_long));
    // required and const beside a $ref; a $ref to true leaves the keywords beside it alone (a
    // bound with no type, said of the type it holds for, as a schema of its own would be); a
    // description that is no string leaves the target's.
    CHECK(task_section(handoff::worker_prompt(fixture["schema_more_siblings"])) ==
          "- base: object with these fields; and also with the keys \"id\" required\n"
          "  - id: string\n"
          "- color: string; and also exactly \"red\". a colour\n"
          "- any: any JSON value; when it is a string: string, at most 3 characters\n"
          "- d: string. a colour\n"
          "- n: string. a colour\n");
    const auto more = handoff::compiled_schema::from_json(nlohmann::json(fixture["schema_more_siblings"]));
    CHECK(more.accepts({{"any", 1234}}));
    CHECK_FALSE(more.accepts({{"any", "abcd"}}));
    // The root itself a $ref: the target's fields, those beside it, and required from both.
    CHECK(task_section(handoff::worker_prompt(fixture["schema_root_ref"])) == "- id (required): string\n"
                                                                              "- extra (required): integer\n");
}

TEST_CASE("the prompt describes a branch that names no type in the types around it", "[worker_prompt][dialects]") {
    const auto schema =
        nlohmann::ordered_json::parse(handoff_test::read_fixture("schemas/prompt_branch_types.schema.json"));
    // A bound alone holds of the value the enclosing type (or allOf's typed part) describes; with
    // no type anywhere, a part says its bound of the type it holds for, and nothing of the
    // value's kind.
    CHECK(task_section(handoff::worker_prompt(schema)) ==
          "- code: string, and all of these\n"
          "  - part 1: string, at least 2 characters\n"
          "  - part 2: string, matching the regular expression "
          "\"^[A-Z]+$\"\n"
          "- size: integer, and one of these, or null\n"
          "  - option 1: integer >= 1, or null\n"
          "  - option 2: exactly 0\n"
          "- label: all of these\n"
          "  - part 1: string, at least 1 characters\n"
          "  - part 2: string, at most 8 characters\n"
          "- free: all of these\n"
          "  - part 1: any JSON value; when it is a string: string, "
          "at least 1 characters\n"
          "  - part 2: any JSON value; when it is a number: number <= 3\n");
    // The receiver holds each bound to its own type only.
    const auto compiled = handoff::compiled_schema::from_json(nlohmann::json(schema));
    CHECK(compiled.accepts({{"free", true}}));
    CHECK(compiled.accepts({{"free", 2}}));
    CHECK(compiled.accepts({{"free", "ab"}}));
    CHECK_FALSE(compiled.accepts({{"free", 4}}));
    CHECK_FALSE(compiled.accepts({{"free", ""}}));
}

TEST_CASE("the prompt describes a schema that nests itself once, where it starts", "[worker_prompt][hostile]") {
    const auto schema =
        nlohmann::ordered_json::parse(handoff_test::read_fixture("schemas/prompt_recursive.schema.json"));
    const std::string task = task_section(handoff::worker_prompt(schema));
    // A tree: the items of children are nodes, described once above.
    CHECK(task.find("- node: object with these fields\n"
                    "  - name: string\n"
                    "  - children: array; each item: the same shape as \"node\" above (it nests itself)\n") !=
          std::string::npos);
    // The draft-07 metaschema, built in, refers to itself from most of its keywords: each of them
    // was a whole metaschema again, to the depth bound, many times over.
    CHECK(task.find("  - additionalProperties: the same shape as \"schema\" above (it nests itself)\n") !=
          std::string::npos);
    CHECK(task.find("  - properties: object; each value: the same shape as \"schema\" above (it nests itself)\n") !=
          std::string::npos);
    CHECK(task.size() < 8000);
    // The place named is where the schema started: an array's items, a branch of anyOf.
    const auto nesting = nlohmann::ordered_json::parse(handoff_test::read_fixture("schemas/prompt_nesting.json"));
    CHECK(task_section(handoff::worker_prompt(nesting["array_of_nodes"])) ==
          "- nodes: array; each item: object with these fields\n"
          "  - children: array; each item: the same shape as each item of \"nodes\" above (it nests itself)\n");
    CHECK(task_section(handoff::worker_prompt(nesting["optional_parent"])) ==
          "- node: object with these fields\n"
          "  - parent: one of these\n"
          "    - option 1: the same shape as \"node\" above (it nests itself)\n"
          "    - option 2: null\n");
    // A definition used again beside the `$ref` that names it does not nest: described in full.
    CHECK(task_section(handoff::worker_prompt(nesting["same_definition_beside_root_ref"])) ==
          "- name: string\n"
          "- manager: object with these fields\n"
          "  - name: string\n");
    // The result itself: a `$ref` to the root.
    const auto root = nlohmann::json::parse(R"({"type": "object", "properties": {"next": {"$ref": "#"}}})");
    CHECK(task_section(handoff::worker_prompt(root)) ==
          "- next: the same shape as partial_result above (it nests itself)\n");
}

TEST_CASE("the prompt describes at most max_described_schemas parts", "[worker_prompt][hostile]") {
    // Seven levels of definitions, each used ten times by the one above: 10^7 fields.
    const auto schema = nlohmann::ordered_json::parse(handoff_test::read_fixture("schemas/prompt_fanout.schema.json"));
    const auto described_lines = [](const std::string& task, std::size_t bound) {
        const std::string past = "(more than " + std::to_string(bound) + " parts to list: see the schema)";
        std::size_t described = 0;
        std::size_t cut = 0;
        for (std::size_t at = 0; at < task.size();) {
            const std::size_t end = task.find('\n', at);
            const std::string line = task.substr(at, end - at);
            (line.find(past) != std::string::npos ? cut : described) += line.rfind("Task: ", 0) == 0 ? 0 : 1;
            at = end == std::string::npos ? task.size() : end + 1;
        }
        return std::make_pair(described, cut);
    };
    const std::string task = task_section(handoff::worker_prompt(schema));
    const auto [described, cut] = described_lines(task, handoff::worker_prompt_options{}.max_described_schemas);
    CHECK(described <= handoff::worker_prompt_options{}.max_described_schemas);
    CHECK(described > 1000);
    CHECK(cut > 0);
    CHECK(task.size() < 300000);
    handoff::worker_prompt_options options;
    options.max_described_schemas = 20;
    const std::string small = task_section(handoff::worker_prompt(schema, options));
    const auto [described_20, cut_20] = described_lines(small, 20);
    CHECK(described_20 == 20);
    CHECK(cut_20 > 0);
    CHECK(small.find("- p0: object with these fields\n  - p0: object with these fields\n") != std::string::npos);
    // The bound is the task's: the envelope's fields are described whole whatever it is.
    const auto envelope_part = [](const std::string& prompt) {
        return prompt.substr(0, prompt.find("## Task result (partial_result)"));
    };
    options.max_described_schemas = 0;
    CHECK(envelope_part(handoff::worker_prompt(schema, options)) == envelope_part(handoff::worker_prompt(schema)));
}

TEST_CASE("the prompt quotes at most max_quoted_bytes of the schema's values", "[worker_prompt][hostile]") {
    // A 1000-byte const used by 40 fields, and an enum of 49-byte values used by 10 more.
    const auto schema =
        nlohmann::ordered_json::parse(handoff_test::read_fixture("schemas/prompt_long_values.schema.json"));
    const std::string terms = nlohmann::ordered_json(schema["$defs"]["terms"]["const"]).dump();
    const auto count = [](const std::string& text, const std::string& part) {
        std::size_t n = 0;
        for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + part.size())) {
            ++n;
        }
        return n;
    };
    // Well within the bound, every use quotes the value whole.
    const std::string whole = task_section(handoff::worker_prompt(schema));
    CHECK(count(whole, "- f39: exactly " + terms + "\n") == 1);
    CHECK(count(whole, "exactly " + terms) == 40);
    CHECK(count(whole, "bytes of values quoted") == 0);
    // Past the bound, each part still to describe says so: the const is quoted while the bytes
    // quoted before it are within the bound.
    handoff::worker_prompt_options options;
    options.max_quoted_bytes = 5000;
    const std::string cut = task_section(handoff::worker_prompt(schema, options));
    CHECK(count(cut, "exactly " + terms) == options.max_quoted_bytes / terms.size() + 1);
    CHECK(count(cut, ": (more than 5000 bytes of values quoted: see the schema)\n") ==
          40 + 10 - (options.max_quoted_bytes / terms.size() + 1));
    CHECK(cut.size() < options.max_quoted_bytes + terms.size() + 50 * 80);
    // An enum stops listing its values at the bound.
    nlohmann::ordered_json grade = {{"type", "object"}, {"properties", {{"grade", schema["$defs"]["grade"]}}}};
    options.max_quoted_bytes = 120;
    const std::string listed = task_section(handoff::worker_prompt(grade, options));
    CHECK(listed.find("... and 7 more (see the schema)") != std::string::npos);
    // An enum beside a `$ref` whose target spent the bound lists none of its values, and says
    // so: it does not read as an enum of null alone.
    const auto beside = nlohmann::ordered_json::parse(R"({
        "$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
        "properties": {"a": {"$ref": "#/$defs/word", "enum": ["xx", "yy", null]}},
        "$defs": {"word": {"type": "string", "pattern": "^[a-z]{2,40}$"}}})");
    options.max_quoted_bytes = 5;
    CHECK(task_section(handoff::worker_prompt(beside, options)) ==
          "- a: string, matching the regular expression \"^[a-z]{2,40}$\"; and also one of 2 values (see the "
          "schema), or null\n");
    // The bound is the task's: the envelope is described whole whatever it is.
    options.max_quoted_bytes = 0;
    const auto envelope_part = [](const std::string& prompt) {
        return prompt.substr(0, prompt.find("## Task result (partial_result)"));
    };
    CHECK(envelope_part(handoff::worker_prompt(schema, options)) == envelope_part(handoff::worker_prompt(schema)));
}

TEST_CASE("the prompt adds the keywords beside every $ref of a chain, as the receiver applies them",
          "[worker_prompt][dialects]") {
    const auto fixture = nlohmann::ordered_json::parse(handoff_test::read_fixture("schemas/prompt_ref_siblings.json"));
    const nlohmann::ordered_json& schema = fixture["schema_chain"];
    CHECK(task_section(handoff::worker_prompt(schema)) ==
          "- code (required): string, matching the regular expression \"^x\"; and also string, at least 2 "
          "characters; and also string, at most 5 characters\n"
          "- owner (required): object with these fields; and also object with these fields; and also with the "
          "keys \"email\" required\n"
          "  - email: string\n"
          "  - name (required): string\n");
    // Each bound the prompt states is one the receiver enforces.
    const auto compiled = handoff::compiled_schema::from_json(nlohmann::json(schema));
    const nlohmann::json owner = {{"email", "a@b.c"}, {"name", "Ann"}};
    CHECK(compiled.accepts({{"code", "xy"}, {"owner", owner}}));
    CHECK_FALSE(compiled.accepts({{"code", "x"}, {"owner", owner}}));      // minLength of the middle link
    CHECK_FALSE(compiled.accepts({{"code", "xyzabc"}, {"owner", owner}})); // maxLength of the use
    CHECK_FALSE(compiled.accepts({{"code", "xy"}, {"owner", {{"name", "Ann"}}}}));
    CHECK_FALSE(compiled.accepts({{"code", "xy"}, {"owner", {{"email", "a@b.c"}}}}));
    // The root a chain: the fields of every link, each required where any link requires it.
    CHECK(task_section(handoff::worker_prompt(fixture["schema_root_chain"])) == "- email (required): string\n"
                                                                                "- name (required): string\n");
    // The chain's end requires a field a link before it lists.
    CHECK(task_section(handoff::worker_prompt(fixture["schema_chain_end_required"])) == "- name (required): string\n");
    CHECK_FALSE(handoff::compiled_schema::from_json(nlohmann::json(fixture["schema_chain_end_required"]))
                    .accepts(nlohmann::json::object()));
    const auto root = handoff::compiled_schema::from_json(nlohmann::json(fixture["schema_root_chain"]));
    CHECK(root.accepts(owner));
    CHECK_FALSE(root.accepts({{"name", "Ann"}}));
    CHECK_FALSE(root.accepts({{"email", "a@b.c"}}));
}

TEST_CASE("the prompt resolves a $ref against the $id beside it where the dialect reads it",
          "[worker_prompt][dialects]") {
    const auto fixture = nlohmann::ordered_json::parse(handoff_test::read_fixture("schemas/prompt_ref_siblings.json"));
    const nlohmann::ordered_json& later = fixture["schema_id_beside_ref"];
    CHECK(task_section(handoff::worker_prompt(later)) ==
          "Task schema: https://example.com/root.json\n- a (required): integer >= 7\n");
    const auto compiled_later = handoff::compiled_schema::from_json(nlohmann::json(later));
    CHECK(compiled_later.accepts({{"a", 7}}));
    CHECK_FALSE(compiled_later.accepts({{"a", "ab"}}));
    // The keywords beside the $ref are read in the base its $id sets too.
    const nlohmann::ordered_json& siblings = fixture["schema_siblings_base"];
    CHECK(task_section(handoff::worker_prompt(siblings)) ==
          "Task schema: https://example.com/task.json\n"
          "- item (required): object; and also object with these fields\n"
          "  - n: integer\n");
    const auto compiled_siblings = handoff::compiled_schema::from_json(nlohmann::json(siblings));
    CHECK(compiled_siblings.accepts({{"item", {{"n", 1}}}}));
    CHECK_FALSE(compiled_siblings.accepts({{"item", {{"n", "one"}}}}));
    const nlohmann::ordered_json& draft_07 = fixture["schema_id_beside_ref_draft_07"];
    CHECK(task_section(handoff::worker_prompt(draft_07)) ==
          "Task schema: https://example.com/root.json\n- a (required): string, at most 3 characters\n");
    const auto compiled_07 = handoff::compiled_schema::from_json(nlohmann::json(draft_07));
    CHECK(compiled_07.accepts({{"a", "ab"}}));
    CHECK_FALSE(compiled_07.accepts({{"a", 7}}));
}

TEST_CASE("the prompt says which keys an object admits, and draft-04's exclusive bounds, as the receiver enforces them",
          "[worker_prompt][dialects]") {
    const auto fixture = nlohmann::ordered_json::parse(handoff_test::read_fixture("schemas/prompt_key_rules.json"));
    const nlohmann::ordered_json& later = fixture["schema_2020_12"];
    CHECK(task_section(handoff::worker_prompt(later)) ==
          "- scores (required): object; each key: one of \"a\", \"b\"; each value: integer\n"
          "- headers: object; the value of each key matching the regular expression \"^x-\": string; no other keys\n"
          "- empty: object; no keys at all\n"
          "No other keys: any other key is an error.\n");
    const auto compiled = handoff::compiled_schema::from_json(nlohmann::json(later));
    CHECK(
        compiled.accepts({{"scores", {{"a", 1}}}, {"headers", {{"x-id", "7"}}}, {"empty", nlohmann::json::object()}}));
    CHECK_FALSE(compiled.accepts({{"scores", {{"c", 1}}}}));                             // each key
    CHECK_FALSE(compiled.accepts({{"scores", {{"a", 1}}}, {"headers", {{"x-id", 7}}}})); // the pattern's value
    CHECK_FALSE(compiled.accepts({{"scores", {{"a", 1}}}, {"headers", {{"id", "7"}}}})); // no other keys
    CHECK_FALSE(compiled.accepts({{"scores", {{"a", 1}}}, {"empty", {{"k", 1}}}}));      // no keys at all
    CHECK_FALSE(compiled.accepts({{"scores", {{"a", 1}}}, {"note", "x"}}));              // the root's
    // The task's own object with rules on the whole object is described as one phrase.
    const nlohmann::ordered_json& whole = fixture["schema_root_beyond_fields"];
    CHECK(task_section(handoff::worker_prompt(whole)) ==
          "partial_result: object with these fields, at most 2 keys, and one of these\n"
          "  - a (required): string\n"
          "  - b: integer\n"
          "  - option 1: object with these fields\n"
          "    - a: string, at most 3 characters\n"
          "  - option 2: object with these fields\n"
          "    - b (required): integer >= 1\n"
          "    - a (required): any value the other rules allow\n");
    const auto compiled_whole = handoff::compiled_schema::from_json(nlohmann::json(whole));
    CHECK(compiled_whole.accepts({{"a", "x"}, {"b", 1}}));
    CHECK(compiled_whole.accepts({{"a", "abc"}}));
    CHECK(compiled_whole.accepts({{"a", "abcd"}, {"b", 1}}));                    // option 2
    CHECK_FALSE(compiled_whole.accepts({{"a", "abcd"}}));                        // neither option
    CHECK_FALSE(compiled_whole.accepts({{"a", "x"}, {"b", 1}, {"c", nullptr}})); // at most 2 keys
    const nlohmann::ordered_json& draft_04 = fixture["schema_draft_04"];
    CHECK(task_section(handoff::worker_prompt(draft_04)) == "- ratio: number >= 0, < 1\n"
                                                            "- count: integer > 0\n");
    const auto compiled_04 = handoff::compiled_schema::from_json(nlohmann::json(draft_04));
    CHECK(compiled_04.accepts({{"ratio", 0}, {"count", 1}}));
    CHECK_FALSE(compiled_04.accepts({{"ratio", 1}}));
    CHECK_FALSE(compiled_04.accepts({{"count", 0}}));
}

TEST_CASE("the prompt lists the names required of an object that its properties do not define", "[worker_prompt]") {
    const auto fixture = nlohmann::ordered_json::parse(handoff_test::read_fixture("schemas/prompt_key_rules.json"));
    const nlohmann::ordered_json& schema = fixture["schema_required_unlisted"];
    CHECK(task_section(handoff::worker_prompt(schema)) == "- id (required): string\n"
                                                          "- meta: object with these fields; each value: integer\n"
                                                          "  - k (required): any value the other rules allow\n"
                                                          "- extra (required): any JSON value\n");
    // The receiver refuses an object without them, whatever their value.
    const auto compiled = handoff::compiled_schema::from_json(nlohmann::json(schema));
    CHECK(compiled.accepts({{"id", "a"}, {"extra", nullptr}}));
    CHECK_FALSE(compiled.accepts({{"id", "a"}}));
    CHECK(compiled.accepts({{"id", "a"}, {"extra", 1}, {"meta", {{"k", 2}}}}));
    CHECK_FALSE(compiled.accepts({{"id", "a"}, {"extra", 1}, {"meta", nlohmann::json::object()}}));
    CHECK_FALSE(compiled.accepts({{"id", "a"}, {"extra", 1}, {"meta", {{"k", "2"}}}}));
    // The names count against the bound on what a prompt quotes: past it, one line says so.
    nlohmann::ordered_json many = {{"type", "object"}, {"required", nlohmann::ordered_json::array()}};
    for (int i = 0; i < 100; ++i) {
        many["required"].push_back("name_" + std::to_string(i));
    }
    handoff::worker_prompt_options options;
    options.max_quoted_bytes = 60;
    const std::string cut = task_section(handoff::worker_prompt(many, options));
    CHECK(cut.find("- name_0 (required): any JSON value\n") != std::string::npos);
    CHECK(cut.find("name_99") == std::string::npos);
    CHECK(cut.find("- (more than 60 bytes of values quoted: see the schema)\n") != std::string::npos);
}

TEST_CASE("the prompt says what closes a tuple or an object, conditions, not and dependent keys, where the dialect "
          "reads them",
          "[worker_prompt][dialects]") {
    const auto fixture = nlohmann::ordered_json::parse(handoff_test::read_fixture("schemas/prompt_conditions.json"));
    CHECK(task_section(handoff::worker_prompt(fixture["schema_2020_12"])) ==
          "- pair: array; item 1: string; item 2: integer; no items after those\n"
          "- none: array; no items at all\n"
          "- head: array; item 1: string; no items after those\n"
          "- tail: array; item 1: string; each item after those: integer\n"
          "- shape: object with these fields; and also object with these fields; no keys but the ones described\n"
          "  - kind (required): string\n"
          "  - r: number\n"
          "- tags: object; each value: string\n"
          "- delivery: object with these fields, and on a condition\n"
          "  - method: one of \"post\", \"pickup\"\n"
          "  - address: string\n"
          "  - store: string\n"
          "  - if it is: object with these fields\n"
          "    - method: exactly \"post\"\n"
          "  - then it must also be: object with these fields\n"
          "    - address (required): any value the other rules allow\n"
          "  - otherwise it must be: object with these fields\n"
          "    - store (required): any value the other rules allow\n"
          "- code: string, but not exactly \"\"\n"
          "- card: object with these fields; when \"number\" is present, so must be \"cvv\"\n"
          "  - number: string\n"
          "  - cvv: string\n"
          "- gift: object with these fields; when \"wrapped\" is present, it must also be (see below)\n"
          "  - wrapped: true or false\n"
          "  - when \"wrapped\" is present, it must also be: object with these fields\n"
          "    - paper (required): one of \"red\", \"blue\"\n");
    // Each rule the prompt states is one the receiver enforces.
    const auto later = handoff::compiled_schema::from_json(nlohmann::json(fixture["schema_2020_12"]));
    const auto accepts = [&](const handoff::compiled_schema& schema, const char* key, const nlohmann::json& v) {
        return schema.accepts({{key, v}});
    };
    CHECK(accepts(later, "pair", {"a", 1}));
    CHECK_FALSE(accepts(later, "pair", {"a", 1, 2}));
    CHECK(accepts(later, "none", nlohmann::json::array()));
    CHECK_FALSE(accepts(later, "none", {1}));
    CHECK_FALSE(accepts(later, "head", {"a", "b"}));
    CHECK(accepts(later, "tail", {"a", 1, 2}));
    CHECK_FALSE(accepts(later, "tail", {"a", "b"}));
    CHECK(accepts(later, "shape", {{"kind", "disc"}, {"r", 1}}));
    CHECK_FALSE(accepts(later, "shape", {{"kind", "disc"}, {"colour", "red"}}));
    CHECK_FALSE(accepts(later, "tags", {{"a", 1}}));
    CHECK(accepts(later, "delivery", {{"method", "post"}, {"address", "1 Main St"}}));
    CHECK_FALSE(accepts(later, "delivery", {{"method", "post"}, {"store", "north"}}));
    CHECK(accepts(later, "delivery", {{"method", "pickup"}, {"store", "north"}}));
    CHECK_FALSE(accepts(later, "delivery", {{"method", "pickup"}}));
    CHECK_FALSE(accepts(later, "code", ""));
    CHECK_FALSE(accepts(later, "card", {{"number", "4111"}}));
    CHECK(accepts(later, "card", {{"cvv", "123"}}));
    CHECK_FALSE(accepts(later, "gift", {{"wrapped", true}}));
    CHECK(accepts(later, "gift", {{"wrapped", true}, {"paper", "red"}}));
    // draft-07: additionalItems beside an array items only, dependencies in both forms.
    CHECK(task_section(handoff::worker_prompt(fixture["schema_draft_07"])) ==
          "- pair: array; item 1: string; item 2: integer; no items after those\n"
          "- rest: array; item 1: string; each item after those: integer\n"
          "- loose: array; each item: string\n"
          "- card: object; when \"number\" is present, so must be \"cvv\"; when \"gift\" is present, it must also be "
          "(see below)\n"
          "  - when \"gift\" is present, it must also be: object with these fields\n"
          "    - to (required): any value the other rules allow\n"
          "- kind: string, and on a condition\n"
          "  - if it is: exactly \"a\"\n"
          "  - then it must also be: string, at most 0 characters\n"
          "  - otherwise it must be: string, at least 2 characters\n"
          "- blocked: string, and on a condition\n"
          "  - if it is: exactly \"x\"\n"
          "  - then it is refused\n"
          "- pinned: string, and on a condition\n"
          "  - if it is: exactly \"y\"\n"
          "  - if it is not, it is refused\n");
    const auto draft_07 = handoff::compiled_schema::from_json(nlohmann::json(fixture["schema_draft_07"]));
    // A branch of false refuses the values on its side of the condition.
    CHECK_FALSE(accepts(draft_07, "blocked", "x"));
    CHECK(accepts(draft_07, "blocked", "z"));
    CHECK(accepts(draft_07, "pinned", "y"));
    CHECK_FALSE(accepts(draft_07, "pinned", "z"));
    CHECK_FALSE(accepts(draft_07, "pair", {"a", 1, 2}));
    CHECK_FALSE(accepts(draft_07, "rest", {"a", "b"}));
    CHECK(accepts(draft_07, "loose", {"a", "b"}));
    CHECK_FALSE(accepts(draft_07, "card", {{"number", "4111"}}));
    CHECK_FALSE(accepts(draft_07, "card", {{"gift", true}}));
    CHECK(accepts(draft_07, "card", {{"gift", true}, {"to", "Ann"}}));
    CHECK_FALSE(accepts(draft_07, "kind", "a"));
    CHECK_FALSE(accepts(draft_07, "kind", "b"));
    CHECK(accepts(draft_07, "kind", "bc"));
    // Keywords of a later dialect are ignored where the schema's dialect does not read them.
    CHECK(task_section(handoff::worker_prompt(fixture["schema_draft_06"])) == "- kind: string\n");
    CHECK(accepts(handoff::compiled_schema::from_json(nlohmann::json(fixture["schema_draft_06"])), "kind", "a"));
    CHECK(task_section(handoff::worker_prompt(fixture["schema_2019_09"])) ==
          "- t: array; item 1: string; no items after those\n");
    const auto draft_2019 = handoff::compiled_schema::from_json(nlohmann::json(fixture["schema_2019_09"]));
    CHECK_FALSE(accepts(draft_2019, "t", {"a", "b"}));
    CHECK_FALSE(accepts(draft_2019, "t", {1}));
    // The task's own object closed by unevaluatedProperties beside its $ref.
    CHECK(task_section(handoff::worker_prompt(fixture["schema_root_unevaluated"])) ==
          "- kind (required): string\n"
          "- extra: integer\n"
          "No other keys: any other key is an error.\n");
    const auto root = handoff::compiled_schema::from_json(nlohmann::json(fixture["schema_root_unevaluated"]));
    CHECK(root.accepts({{"kind", "a"}, {"extra", 1}}));
    CHECK_FALSE(root.accepts({{"kind", "a"}, {"other", 1}}));
}

TEST_CASE("the prompt says a branch's keys count only where it holds, and reads each keyword in its dialect",
          "[worker_prompt][dialects]") {
    const auto said = [](const char* schema) {
        return task_section(handoff::worker_prompt(nlohmann::ordered_json::parse(schema)));
    };
    const auto accepts = [](const char* schema, const nlohmann::json& v) {
        return handoff::compiled_schema::from_json(nlohmann::json::parse(schema)).accepts(v);
    };
    // Keys a condition's branch describes are evaluated only when that branch holds.
    const char* conditional = R"({"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
        "if": {"properties": {"kind": {"const": "a"}}, "required": ["kind"]},
        "then": {"properties": {"x": {}}}, "else": {"properties": {"y": {}}}, "unevaluatedProperties": false})";
    CHECK(said(conditional) == "partial_result: object; no keys but the ones described, a branch's only where it "
                               "holds, and on a condition\n"
                               "  - if it is: object with these fields\n"
                               "    - kind (required): exactly \"a\"\n"
                               "  - then it must also be: object with these fields\n"
                               "    - x: any JSON value\n"
                               "  - otherwise it must be: object with these fields\n"
                               "    - y: any JSON value\n");
    CHECK(accepts(conditional, {{"kind", "a"}, {"x", 1}}));
    CHECK_FALSE(accepts(conditional, {{"kind", "a"}, {"y", 1}}));
    CHECK_FALSE(accepts(conditional, {{"kind", "b"}}));
    // The schema form of dependencies evaluates the keys it describes.
    const char* dependent = R"({"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
        "properties": {"a": {}}, "dependencies": {"a": {"properties": {"b": {}}}}, "unevaluatedProperties": false})";
    CHECK(said(dependent).find("no keys but the ones described, a branch's only where it holds") != std::string::npos);
    CHECK(accepts(dependent, {{"a", 1}, {"b", 2}}));
    CHECK_FALSE(accepts(dependent, {{"b", 2}}));
    // In 2019-09 contains evaluates no items: unevaluatedItems false leaves none.
    const char* contains_2019 = R"({"$schema": "https://json-schema.org/draft/2019-09/schema", "type": "array",
        "contains": {"type": "integer"}, "unevaluatedItems": false})";
    CHECK(said(contains_2019) == "partial_result: array; no items at all; at least 1 of the items: integer\n");
    CHECK_FALSE(accepts(contains_2019, {1}));
    // An untyped bound under not gets a line of its own; not false refuses nothing.
    const char* negated = R"({"type": "object", "properties": {"n": {"not": {"maxLength": 3}},
        "f": {"type": "string", "not": false}}})";
    CHECK(said(negated) == "- n: anything but (see below)\n"
                           "  - it must not be: any JSON value; when it is a string: string, at most 3 characters\n"
                           "- f: string\n");
    CHECK(accepts(negated, {{"n", "abcd"}, {"f", "x"}}));
    CHECK_FALSE(accepts(negated, {{"n", "ab"}}));
    CHECK_FALSE(accepts(negated, {{"n", 5}}));
    // draft-04 has no const, contains or propertyNames; an empty tuple closed is an empty array.
    const char* draft_04 = R"({"$schema": "http://json-schema.org/draft-04/schema#", "type": "object",
        "properties": {"t": {"type": "string", "const": "x"}, "u": {"type": "array", "contains": {"type": "integer"}},
        "v": {"type": "object", "propertyNames": {"maxLength": 2}}}})";
    CHECK(said(draft_04) == "- t: string\n- u: array\n- v: object\n");
    CHECK(accepts(draft_04, {{"t", "y"}, {"u", {"a"}}, {"v", {{"abcdef", 1}}}}));
    const char* empty_tuple = R"({"$schema": "https://json-schema.org/draft/2019-09/schema", "type": "array",
        "items": [], "additionalItems": false})";
    CHECK(said(empty_tuple) == "partial_result: array; no items at all\n");
    CHECK_FALSE(accepts(empty_tuple, {1}));
}

} // namespace test_worker_prompt
