// SPDX-License-Identifier: MIT
// <handoff/lint.hpp>: one fixture schema per finding kind under tests/fixtures/lint/, exact codes
// and pointers; the walk into every place a subschema can hide; waivers; and the schemas the
// project ships, which must lint clean.

#include "support/fixtures.hpp"

#include <handoff/detail/schema/refs.hpp>
#include <handoff/lint.hpp>
#include <handoff/schema_registry.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>  // any_of, sort
#include <filesystem> // recursive_directory_iterator
#include <string>     // string
#include <vector>     // vector

namespace test_lint { // this file's own names: see "unity build" in tests/CMakeLists.txt

using handoff::lint_rule;

namespace {

/// "code pointer" per finding, in the order lint reports them.
std::vector<std::string> summary(const handoff::lint_findings& findings) {
    std::vector<std::string> out;
    for (const auto& f : findings) {
        out.push_back(std::string(f.code()) + " " + f.pointer);
    }
    return out;
}

handoff::lint_findings lint_fixture(const std::string& name, const handoff::lint_options& options = {}) {
    return handoff::lint_schema_text(handoff_test::read_fixture("lint/" + name), options);
}

using strings = std::vector<std::string>;

/// A schema file under tests/fixtures/refs/ linted as handoff-check lint reads it: `$ref`s
/// resolve beside the file and, with `shared`, in refs/shared/ as --schema-dir adds it.
handoff::lint_findings lint_refs_fixture(const std::string& name, bool shared = true) {
    handoff::schema_registry registry;
    if (shared) {
        registry.add_directory(handoff_test::fixture_path("refs/shared"));
    }
    const std::string path = handoff_test::fixture_path("refs/" + name);
    return handoff::lint_schema_text(handoff_test::read_file(path), registry, handoff::schema_registry::file_uri(path));
}

} // namespace

TEST_CASE("an object without additionalProperties false is an open object, whatever else it says", "[lint]") {
    CHECK(summary(lint_fixture("open_object.schema.json")) == strings{
                                                                  "lint.open_object /properties/address",
                                                                  "lint.open_object /properties/extra",
                                                                  "lint.open_object /properties/scores",
                                                              });
    const auto findings = lint_fixture("open_object.schema.json");
    CHECK(findings[0].message == "an object without \"additionalProperties\": false: a worker can add any key (an "
                                 "extra \"note\" is how instructions reach the next prompt)");
    CHECK(findings[1].message == "\"additionalProperties\" is not false: a worker can add keys nobody declared; "
                                 "list them in \"properties\" and close the object");
}

TEST_CASE("a string without maxLength is unbounded unless an enum or a const closes it", "[lint]") {
    CHECK(summary(lint_fixture("unbounded_string.schema.json")) ==
          strings{"lint.unbounded_string /properties/note", "lint.unbounded_string /properties/summary"});
}

TEST_CASE("an array without maxItems is unbounded unless it is a closed tuple", "[lint]") {
    const auto findings = lint_fixture("unbounded_array.schema.json");
    CHECK(summary(findings) == strings{"lint.unbounded_array /properties/citations"});
    CHECK(findings.at(0).message == "an array without \"maxItems\": bound how many items a worker may return");
}

TEST_CASE("a pattern should have a maxLength of at most 4096 beside it, and is reported once", "[lint]") {
    const auto findings = lint_fixture("unbounded_pattern.schema.json");
    // Advice: compiled_schema compiles both (longer strings fail the pattern at run time).
    CHECK(summary(findings) ==
          strings{"lint.unbounded_pattern /properties/sku/pattern", "lint.unbounded_pattern /properties/slug/pattern"});
    CHECK(findings.at(0).message ==
          "a \"pattern\" needs a \"maxLength\" of at most 4096 beside it (found none): a longer string fails the "
          "pattern unread (schema_options::max_pattern_subject), so say the limit to the worker with maxLength");
    CHECK(findings.at(1).message.find("(found maxLength 5000)") != std::string::npos);
}

TEST_CASE("a field that routes must be an enum or a const, through a $ref too", "[lint]") {
    const auto findings = lint_fixture("free_routing_string.schema.json");
    CHECK(summary(findings) ==
          strings{"lint.free_routing_string /properties/label", "lint.free_routing_string /properties/ticketType"});
    CHECK(findings.at(0).message == "\"label\" routes, but a worker can write any string here: give it an \"enum\" "
                                    "(or \"const\") of the values your code handles");
}

TEST_CASE("the routing names are configurable", "[lint]") {
    handoff::lint_options options;
    options.routing_names = {"summary"};
    CHECK(summary(lint_fixture("free_routing_string.schema.json", options)) ==
          strings{"lint.free_routing_string /properties/summary"});
    options.routing_names.clear();
    CHECK(lint_fixture("free_routing_string.schema.json", options).empty());
}

TEST_CASE("money typed number or string must be an integer count of cents", "[lint]") {
    const auto findings = lint_fixture("money_not_cents.schema.json");
    CHECK(summary(findings) == strings{
                                   "lint.money_not_cents /properties/amount_cents",
                                   "lint.money_not_cents /properties/price",
                                   "lint.money_not_cents /properties/unit_price",
                               });
    CHECK(findings.at(0).message == "\"amount_cents\" counts cents but is typed number: use \"type\": \"integer\"");
    CHECK(findings.at(1).message == "\"price\" looks like money typed number: use an integer count of minor units, "
                                    "e.g. \"price_cents\": {\"type\": \"integer\"}");
    CHECK(findings.at(2).message == "\"unit_price\" looks like money typed string: use an integer count of minor "
                                    "units, e.g. \"unit_price_cents\": {\"type\": \"integer\"}");
}

TEST_CASE("money names match camelCase and suffixes, and are configurable", "[lint]") {
    const auto schema = nlohmann::json::parse(R"({"type": "object", "additionalProperties": false, "properties": {
        "unitPrice": {"type": "number"}, "grand-total": {"type": "number"}, "totality": {"type": "number"},
        "wage": {"type": "number"}}})");
    CHECK(summary(handoff::lint_schema(schema)) ==
          strings{"lint.money_not_cents /properties/grand-total", "lint.money_not_cents /properties/unitPrice"});
    handoff::lint_options options;
    options.money_names.push_back("wage");
    CHECK(summary(handoff::lint_schema(schema, options)) == strings{"lint.money_not_cents /properties/grand-total",
                                                                    "lint.money_not_cents /properties/unitPrice",
                                                                    "lint.money_not_cents /properties/wage"});
}

TEST_CASE("a required name that no property defines is reported at its place in the list", "[lint]") {
    const auto findings = lint_fixture("required_undefined.schema.json");
    CHECK(summary(findings) == strings{"lint.required_undefined /required/1"});
    CHECK(findings.at(0).message == "\"nmae\" is required but no \"properties\" entry defines it (a typo, or a "
                                    "field nothing constrains)");
}

TEST_CASE("required names may be declared by patternProperties, branches or the enclosing schema", "[lint]") {
    const auto schema = nlohmann::json::parse(R"({"type": "object", "additionalProperties": false,
        "required": ["x_1", "a"],
        "patternProperties": {"^x_[0-9]$": {"type": "integer"}},
        "properties": {"b": {"type": "integer"}},
        "allOf": [{"properties": {"a": {"type": "integer"}}}, {"required": ["a", "b", "c"]}]})");
    CHECK(summary(handoff::lint_schema(schema)) == strings{"lint.required_undefined /allOf/1/required/2"});
}

TEST_CASE("patternProperties declare required names as the validator matches them: by code point", "[lint]") {
    // "^.$" is one character: "\u00e4" (two UTF-8 bytes) is one, "ab" is two.
    const auto schema = nlohmann::json::parse(R"({"type": "object", "additionalProperties": false,
        "required": ["\u00e4", "ab"], "patternProperties": {"^.$": {"type": "integer", "maximum": 9}}})");
    CHECK(summary(handoff::lint_schema(schema)) == strings{"lint.required_undefined /required/1"});
}

TEST_CASE("a 2020-12 schema is linted in its own terms: closed prefixItems tuples are bounded", "[lint][dialects]") {
    CHECK(summary(lint_fixture("tuple_2020.schema.json")) ==
          strings{"lint.unbounded_array /properties/open", "lint.open_object /dependentSchemas/ref",
                  "lint.unbounded_string /dependentSchemas/ref/properties/closed", "lint.open_object /$defs/note",
                  "lint.unbounded_string /$defs/note/unevaluatedProperties"});
}

TEST_CASE("unevaluatedProperties false closes an object, and the bases every reference applies in place under it",
          "[lint][dialects]") {
    CHECK(summary(lint_fixture("unevaluated_closed.schema.json")) ==
          strings{"lint.open_object /$defs/loose", "lint.open_object /$defs/mixed", "lint.open_object /$defs/shared"});
    // Not a definition, or one that says additionalProperties: still open where it is applied.
    CHECK(summary(lint_fixture("unevaluated_still_open.schema.json")) ==
          strings{"lint.open_object ", "lint.open_object /properties/x", "lint.open_object /$defs/base"});
}

TEST_CASE("lint refuses what the receiver refuses, with its message and the dialect it read", "[lint][dialects]") {
    const auto declared07 = nlohmann::json::parse(
        R"({"$schema": "http://json-schema.org/draft-07/schema#", "type": "array", "maxItems": 2, "prefixItems": []})");
    std::string refusal;
    try {
        (void)handoff::compiled_schema::from_json(declared07);
    } catch (const handoff::schema_error& e) {
        refusal = e.reason();
    }
    REQUIRE_FALSE(refusal.empty());
    handoff::lint_options no_task; // an array root: no task schema, only the refusal is at stake
    no_task.task_schema = false;
    const auto findings = handoff::lint_schema(declared07, no_task);
    REQUIRE(summary(findings) == strings{"lint.does_not_compile /prefixItems"});
    CHECK(findings[0].message == "the schema (read as draft-07) does not compile: " + refusal);
    // Named by the options, the dialect of a schema without $schema is the one lint reads.
    handoff::lint_options in06;
    in06.schema.dialect = handoff::schema_dialect::draft06;
    in06.task_schema = false;
    const auto bare = nlohmann::json::parse(R"({"enum": [1], "dependentRequired": {"a": ["b"]}})");
    CHECK(handoff::lint_schema(bare, no_task).empty()); // read as 2020-12
    const auto as06 = handoff::lint_schema(bare, in06);
    REQUIRE(summary(as06) == strings{"lint.does_not_compile /dependentRequired"});
    CHECK(as06[0].message.rfind("the schema (read as draft-06) does not compile: \"dependentRequired\" is a keyword",
                                0) == 0);
}

TEST_CASE("a schema that does not compile is reported with the pointer compiled_schema names", "[lint]") {
    const auto findings = lint_fixture("does_not_compile.schema.json");
    CHECK(summary(findings) == strings{"lint.does_not_compile /properties/customer"});
    CHECK(findings.at(0).message.rfind("the schema (read as draft-07) does not compile: $ref ", 0) == 0);
    CHECK(findings.at(0).message.find("points to nothing in this schema") != std::string::npos);

    CHECK(summary(handoff::lint_schema(nlohmann::json::array())) == strings{"lint.does_not_compile "});
    const auto bad_regex = nlohmann::json::parse(R"({"type": "string", "maxLength": 4, "pattern": "(["})");
    // (A string root, but the root rule judges only a schema that compiles.)
    CHECK(summary(handoff::lint_schema(bad_regex)) == strings{"lint.does_not_compile /pattern"});
}

TEST_CASE("a file that is not strict JSON is one not_json finding", "[lint]") {
    const auto findings = lint_fixture("not_json.schema.json");
    CHECK(summary(findings) == strings{"lint.not_json /additionalProperties"});
    CHECK(findings.at(0).message.rfind("not a strict JSON document: invalid JSON, parse error at line 4", 0) == 0);
    // Duplicate keys are refused too: which "maxLength" would a validator read?
    CHECK(summary(handoff::lint_schema_text(R"({"type": "string", "maxLength": 4, "maxLength": 4000})")) ==
          strings{"lint.not_json /maxLength"});
    CHECK(summary(handoff::lint_schema_text("")) == strings{"lint.not_json "});
}

TEST_CASE("a schema nested deeper than the limit is too deep to lint, parsed or not", "[lint]") {
    nlohmann::json deep = {{"type", "string"}, {"maxLength", 1}};
    for (int i = 0; i < 200; ++i) {
        deep = nlohmann::json{{"not", deep}};
    }
    handoff::lint_options options;
    options.limits.max_depth = 100;
    const auto findings = handoff::lint_schema(deep, options);
    CHECK(summary(findings) == strings{"lint.too_deep "});
    CHECK(findings.at(0).message == "the schema nests deeper than 100 levels; no task schema needs that");
    // Parsed from text, the parser stops at the limit and names where.
    std::string where;
    for (int i = 0; i < 100; ++i) {
        where += "/not";
    }
    CHECK(summary(handoff::lint_schema_text(deep.dump(), options)) == strings{"lint.too_deep " + where});
    CHECK(handoff::lint_schema(deep).empty()); // within the default limit of 256
}

TEST_CASE("lint walks every place a subschema can hide, and tests-only places admit nothing", "[lint]") {
    // "not" and "if" only test values: a free string there admits nothing and is not reported.
    // (Its "oneOf" of one string branch leaves the root no object either.)
    CHECK(summary(lint_fixture("walk.schema.json")) ==
          strings{
              "lint.root_not_object ",
              "lint.open_object /properties/dict",
              "lint.unbounded_string /properties/dict/additionalProperties",
              "lint.unbounded_string /properties/list/items",
              "lint.unbounded_string /properties/map/patternProperties/^x$",
              "lint.unbounded_string /properties/tuple/items/0",
              "lint.unbounded_string /definitions/d",
              "lint.unbounded_string /$defs/e",
              "lint.unbounded_string /allOf/0/properties/p",
              "lint.unbounded_string /anyOf/0",
              "lint.unbounded_string /oneOf/0",
              "lint.unbounded_string /then/properties/q",
              "lint.unbounded_string /else/properties/r",
          });
}

TEST_CASE("branches that refine declared properties and tests under if are clean", "[lint]") {
    CHECK(summary(lint_fixture("clean_branches.schema.json")).empty());
}

TEST_CASE("x-lint-allow waives a rule below it, and must name a waivable rule with a reason", "[lint]") {
    CHECK(summary(lint_fixture("waived.schema.json")).empty());
    CHECK(summary(lint_fixture("bad_allow.schema.json")) ==
          strings{
              "lint.bad_allow /properties/a/x-lint-allow",
              "lint.bad_allow /properties/b/x-lint-allow/lint.does_not_compile",
              "lint.bad_allow /properties/b/x-lint-allow/lint.no_such_rule",
              "lint.bad_allow /properties/b/x-lint-allow/lint.unbounded_string",
          });
}

TEST_CASE("a waiver that waives nothing is stale and reported", "[lint]") {
    const auto findings = lint_fixture("unused_allow.schema.json");
    CHECK(summary(findings) == strings{"lint.unused_allow /properties/title/x-lint-allow/lint.unbounded_string"});
    CHECK(findings.at(0).message ==
          "lint.unbounded_string is waived here but nothing below breaks it: remove the waiver");
}

TEST_CASE("a finding prints as FILE:POINTER: code: message", "[lint]") {
    const handoff::lint_finding f{lint_rule::unbounded_array, "/properties/citations", "bound it"};
    CHECK(handoff::format_lint_finding("a.json", f) == "a.json:/properties/citations: lint.unbounded_array: bound it");
    const handoff::lint_finding root{lint_rule::not_json, "", "no"};
    CHECK(handoff::format_lint_finding("b.json", root) == "b.json:(document): lint.not_json: no");
    // A hostile key cannot start a line of its own.
    const handoff::lint_finding key{lint_rule::open_object, "/properties/a\nb", "x"};
    CHECK(handoff::format_lint_finding("c.json", key) == "c.json:/properties/a\\nb: lint.open_object: x");
}

TEST_CASE("every lint rule has a stable code that reads back", "[lint]") {
    for (const lint_rule r : handoff::all_lint_rules) {
        CHECK(handoff::lint_rule_from_string(handoff::to_string(r)) == r);
        CHECK(handoff::to_string(r).rfind("lint.", 0) == 0);
    }
    STATIC_REQUIRE(handoff::waivable(lint_rule::money_not_cents));
    STATIC_REQUIRE(handoff::waivable(lint_rule::unbounded_pattern)); // advice now: a reason may waive it
    STATIC_REQUIRE_FALSE(handoff::waivable(lint_rule::does_not_compile));
}

TEST_CASE("the envelope schema lints clean because partial_result's waiver is used", "[lint]") {
    auto envelope =
        nlohmann::json::parse(handoff_test::read_file(handoff_test::shipped_schema_path("envelope.schema.json")));
    CHECK(handoff::lint_schema(envelope).empty());
    envelope["properties"]["partial_result"].erase("x-lint-allow");
    CHECK(summary(handoff::lint_schema(envelope)) == strings{"lint.open_object /properties/partial_result"});
}

TEST_CASE("every schema the project ships lints clean", "[lint]") {
    namespace fs = std::filesystem;
    std::vector<fs::path> files;
    for (const fs::path& dir :
         {fs::path(HANDOFF_SCHEMAS_DIR), fs::path(HANDOFF_FIXTURES_DIR) / ".." / ".." / "examples"}) {
        for (const auto& entry : fs::recursive_directory_iterator(dir)) {
            if (entry.is_regular_file() && entry.path().extension() == ".json") {
                files.push_back(entry.path());
            }
        }
    }
    std::sort(files.begin(), files.end());
    REQUIRE(files.size() >= 3); // schemas/envelope, examples/schemas/invoice and ticket
    for (const auto& file : files) {
        INFO(file.string());
        const auto findings = handoff::lint_schema_text(handoff_test::read_file(file.string()));
        std::vector<std::string> lines;
        for (const auto& f : findings) {
            lines.push_back(handoff::format_lint_finding(file.filename().string(), f));
        }
        CHECK(lines == strings{});
    }
}

TEST_CASE("lint follows $refs into other files as the validator does: beside the file, by $id, under a $id base",
          "[lint][refs]") {
    CHECK(lint_refs_fixture("task/order.schema.json").empty());
    CHECK(lint_refs_fixture("task/line.schema.json").empty());
    const auto flawed = lint_refs_fixture("task/flawed.schema.json");
    CHECK(summary(flawed) ==
          strings{"lint.money_not_cents /properties/fee", "lint.free_routing_string /properties/priority"});
    CHECK(flawed.at(1).message == "\"priority\" routes, but a worker can write any string here: give it an \"enum\" "
                                  "(or \"const\") of the values your code handles");
}

TEST_CASE("a $ref into a document lint was not given is does_not_compile, at the pointer in the schema",
          "[lint][refs]") {
    const auto findings = lint_refs_fixture("task/order.schema.json", false);
    REQUIRE(summary(findings) == strings{"lint.does_not_compile /definitions/channel/properties/kind"});
    CHECK(findings[0].message ==
          "the schema (read as draft-07) does not compile: $ref \"common.json#/definitions/channel%20kind\" names "
          "\"https://example.com/schemas/common.json\", a document handoff does not know (nothing is ever fetched over "
          "a network): register it with schema_registry::add(...) or handoff-check --schema-dir DIR");
}

TEST_CASE("lint reads registered documents by URI, percent-decoding and unescaping the pointer", "[lint][refs]") {
    handoff::schema_registry registry;
    registry.add("https://example.com/kinds.json",
                 nlohmann::json::parse(R"({"definitions": {"a/b c": {"type": "string", "maxLength": 9}}})"));
    const auto schema = nlohmann::json::parse(R"({
        "type": "object", "additionalProperties": false,
        "properties": {"kind": {"$ref": "https://example.com/kinds.json#/definitions/a~1b%20c"}}})");
    CHECK(summary(handoff::lint_schema(schema, registry, "")) == strings{"lint.free_routing_string /properties/kind"});
    const auto unregistered = handoff::lint_schema(schema);
    REQUIRE(unregistered.size() == 1);
    CHECK(unregistered[0].rule == lint_rule::does_not_compile);
    CHECK(unregistered[0].pointer == "/properties/kind");
}

TEST_CASE("lint follows a $ref chain for max_ref_hops hops, no further, and a loop ends there", "[lint][refs]") {
    STATIC_REQUIRE(handoff::detail::max_ref_hops == 32); // refs/ref_chain.schema.json is built on it
    const auto chain = handoff_test::read_fixture_json("refs/ref_chain.schema.json");
    handoff::detail::ref_follower refs(chain, {});
    const auto& properties = chain.at("properties");
    CHECK(refs.resolve(properties.at("status"), "").schema == &chain.at("definitions").at("target"));
    const auto past_limit = refs.resolve(properties.at("label"), "");
    CHECK(past_limit.schema == nullptr);
    CHECK(past_limit.error == "more than 32 \"$ref\"s in a row (a loop?)");
    // status reaches the free string in 32 hops; label would in 33, so lint cannot see it.
    CHECK(summary(lint_refs_fixture("ref_chain.schema.json")) ==
          strings{"lint.free_routing_string /properties/status"});
    const auto loop = lint_refs_fixture("ref_loop.schema.json");
    REQUIRE(summary(loop) == strings{"lint.does_not_compile /definitions/a"});
    CHECK(loop[0].message ==
          "the schema (read as draft-07) does not compile: the schema refers to itself without reading any input "
          "($ref, allOf, anyOf, oneOf, not or if in a loop): it would never finish validating");
}
TEST_CASE("lint says when a task schema's root admits no object, which partial_result always is", "[lint]") {
    const auto findings = lint_fixture("root_not_object.schema.json");
    REQUIRE(summary(findings) == strings{"lint.root_not_object "});
    CHECK(findings[0].message.rfind("the task schema admits no JSON object, but partial_result is one", 0) == 0);
    // The receiver indeed refuses every partial_result the envelope allows.
    const auto list = handoff::compiled_schema::from_json(
        nlohmann::json::parse(handoff_test::read_fixture("lint/root_not_object.schema.json")));
    CHECK_FALSE(list.accepts(nlohmann::json::object()));
    CHECK_FALSE(list.accepts({{"id", 1}}));
    const auto root_rule = [](const char* text, const handoff::lint_options& options = {}) {
        const handoff::lint_findings found = handoff::lint_schema(nlohmann::json::parse(text), options);
        return std::any_of(found.begin(), found.end(), [](const handoff::lint_finding& f) {
            return f.rule == handoff::lint_rule::root_not_object;
        });
    };
    // Ruled out by the root's own type, const or enum, a $ref, allOf, or every anyOf branch.
    CHECK(root_rule(R"({"type": "string", "maxLength": 3})"));
    CHECK(root_rule("false"));
    CHECK(root_rule(R"({"const": [1]})"));
    CHECK(root_rule(R"({"enum": ["a", 1]})"));
    CHECK(root_rule(R"({"$ref": "#/$defs/s", "$defs": {"s": {"type": "integer"}}})"));
    CHECK(root_rule(R"({"type": "object", "allOf": [{"type": "null"}]})"));
    CHECK(root_rule(R"({"anyOf": [{"type": "string", "maxLength": 3}, {"type": "null"}]})"));
    // Admitted: an object among the types, values or branches; a type beside a $ref that
    // draft-07 ignores; a schema that says nothing of the type.
    CHECK_FALSE(root_rule(R"({"type": ["object", "null"], "additionalProperties": false})"));
    CHECK_FALSE(root_rule(R"({"enum": [{"a": 1}, 2]})"));
    CHECK_FALSE(root_rule(R"({"anyOf": [{"type": "string", "maxLength": 3}, {"type": "object",
                                "additionalProperties": false}]})"));
    CHECK_FALSE(root_rule(R"({"$schema": "http://json-schema.org/draft-07/schema#", "$ref": "#/definitions/o",
                              "type": "string", "definitions": {"o": {"type": "object",
                              "additionalProperties": false}}})"));
    CHECK(root_rule(R"({"$schema": "https://json-schema.org/draft/2020-12/schema", "$ref": "#/$defs/o",
                        "type": "string", "$defs": {"o": {"type": "object", "additionalProperties": false}}})"));
    CHECK_FALSE(root_rule(R"({"description": "anything"})"));
    // A part read in another dialect is left alone: draft-04 has no const, draft-07 ignores a
    // type beside a $ref.
    CHECK_FALSE(root_rule(R"({"$schema": "https://json-schema.org/draft/2020-12/schema", "$ref": "#/$defs/a",
                              "$defs": {"a": {"$schema": "http://json-schema.org/draft-04/schema#",
                              "const": "x"}}})"));
    CHECK_FALSE(root_rule(R"({"$schema": "https://json-schema.org/draft/2020-12/schema", "$ref": "#/$defs/a",
                              "$defs": {"a": {"$schema": "http://json-schema.org/draft-07/schema#",
                              "$ref": "#/$defs/o", "type": "string"}, "o": {"type": "object"}}})"));
    // A file of shared definitions is no task schema: an option, or a waiver at its root, says so.
    handoff::lint_options shared;
    shared.task_schema = false;
    CHECK_FALSE(root_rule(R"({"type": "string", "maxLength": 3})", shared));
    const auto waived = handoff::lint_schema(nlohmann::json::parse(
        R"({"type": "string", "maxLength": 3, "x-lint-allow": {"lint.root_not_object": "shared by task schemas"}})"));
    CHECK(waived.empty());
}

} // namespace test_lint

namespace test_lint {

TEST_CASE("lint asks once whether a schema reached again and again admits only listed values", "[lint][refs]") {
    // Forty links of five allOf branches each referring to the next: asked branch by branch,
    // 5^16 questions before the depth at which lint stops asking.
    const nlohmann::json fixture = handoff_test::read_fixture_json("schemas/repeated_walks.json");
    const handoff::lint_findings findings = handoff::lint_schema(fixture.at("schemas").at("all_of_five"));
    CHECK(summary(findings) ==
          strings{"lint.open_object ", "lint.unbounded_string /$defs/d39/allOf/0",
                  "lint.unbounded_string /$defs/d39/allOf/1", "lint.unbounded_string /$defs/d39/allOf/2",
                  "lint.unbounded_string /$defs/d39/allOf/3", "lint.unbounded_string /$defs/d39/allOf/4"});
}

} // namespace test_lint
