// SPDX-License-Identifier: MIT
// compiled_schema reads a schema as draft-07 does: numbers exactly, references across files and
// registered documents, and it refuses loudly what would validate differently from what the
// author meant (later-draft keywords, another $schema, malformed keywords, endless references).

#include "support/fixtures.hpp"

#include <handoff/handoff.hpp>
#include <handoff/schema_registry.hpp>

#include <nlohmann/json.hpp>

#include <chrono>     // steady_clock
#include <filesystem> // path, temp_directory_path
#include <string>     // string

namespace test_schema_draft07 { // this file's own names: see "unity build" in tests/CMakeLists.txt

using handoff::compiled_schema;
using handoff::schema_error;
using nlohmann::json;

namespace {

/// The schema_error of compiling `schema`; fails the test when it compiles.
schema_error refusal_of(const json& schema) {
    try {
        (void)compiled_schema::from_json(schema);
    } catch (const schema_error& e) {
        return e;
    }
    FAIL("the schema compiled: " << schema.dump());
    return schema_error("unreachable");
}

schema_error file_refusal_of(const std::string& path) {
    try {
        (void)compiled_schema::from_file(path);
    } catch (const schema_error& e) {
        return e;
    }
    FAIL("the schema compiled: " << path);
    return schema_error("unreachable");
}

} // namespace

TEST_CASE("numbers are judged exactly: 1.0 is an integer, multipleOf is decided in base 10", "[schema][numbers]") {
    const json groups = handoff_test::read_fixture_json("schemas/number_cases.json");
    for (const json& group : groups) {
        const compiled_schema s = compiled_schema::from_json(group.at("schema"));
        for (const json& test : group.at("tests")) {
            INFO(group.at("description").get<std::string>() << " / " << test.at("description").get<std::string>());
            CHECK(s.accepts(test.at("data")) == test.at("valid").get<bool>());
            CHECK(s.validate(test.at("data"), "", handoff::step::task_schema).empty() == test.at("valid").get<bool>());
        }
    }
}

TEST_CASE("a two-file schema resolves its relative $ref next to the file", "[schema][refs]") {
    const compiled_schema s =
        compiled_schema::from_file(handoff_test::fixture_path("schemas/multi/product.schema.json"));
    CHECK(s.accepts(json::parse(R"({"sku":"AB-1234","price":{"amount_cents":1999,"currency":"EUR"}})")));
    const auto problems = s.validate(json::parse(R"({"sku":"AB-1234","price":{"amount_cents":-1,"currency":"EUR"}})"),
                                     "/partial_result", handoff::step::task_schema);
    REQUIRE(problems.size() == 1);
    CHECK(problems[0].pointer == "/partial_result/price/amount_cents");
    CHECK(problems[0].message == "/partial_result/price/amount_cents: must be at least 0 (got \"-1\")");
}

TEST_CASE("a two-file schema in a folder whose name holds '#', '%' or '?' resolves its $ref there", "[schema][refs]") {
    // Those bytes mean a fragment, an escape and a query in a URI: the file's URI encodes them.
    const std::filesystem::path folder =
        std::filesystem::temp_directory_path() /
        ("handoff a#b%20c?d." + std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()));
    std::filesystem::create_directories(folder);
    for (const char* name : {"product.schema.json", "common.schema.json"}) {
        std::filesystem::copy_file(handoff_test::fixture_path(std::string("schemas/multi/") + name), folder / name,
                                   std::filesystem::copy_options::overwrite_existing);
    }
    const compiled_schema s = compiled_schema::from_file(folder / "product.schema.json");
    std::filesystem::remove_all(folder);
    CHECK(s.accepts(json::parse(R"({"sku":"AB-1234","price":{"amount_cents":1999,"currency":"EUR"}})")));
    const auto problems = s.validate(json::parse(R"({"sku":"AB-1234","price":{"amount_cents":-1,"currency":"EUR"}})"),
                                     "/partial_result", handoff::step::task_schema);
    REQUIRE(problems.size() == 1);
    CHECK(problems[0].pointer == "/partial_result/price/amount_cents");
}

TEST_CASE("a $ref to a file outside the schema's folder is refused, never read", "[schema][refs][security]") {
    const schema_error e = file_refusal_of(handoff_test::fixture_path("schemas/multi/escape.schema.json"));
    CHECK_THAT(e.reason(), Catch::Matchers::Contains("outside the schema's folder and the registry's folders"));
    CHECK_THAT(e.pointer(), Catch::Matchers::EndsWith("escape.schema.json#/properties/x"));
}

TEST_CASE("an unknown remote $ref says how to register the document", "[schema][refs]") {
    const schema_error e = refusal_of(json::parse(R"({"properties":{"a":{"$ref":"http://example.com/a.json"}}})"));
    CHECK(e.pointer() == "/properties/a");
    CHECK(e.reason() == "$ref \"http://example.com/a.json\" names \"http://example.com/a.json\", a document handoff "
                        "does not know (nothing is ever fetched over a network): register it with "
                        "schema_registry::add(...) or handoff-check --schema-dir DIR");
    CHECK(std::string(e.what()) == "handoff: schema /properties/a: " + e.reason());

    handoff::schema_registry registry;
    registry.add("http://example.com/a.json", json::parse(R"({"type":"integer"})"));
    const compiled_schema s = compiled_schema::from_json(
        json::parse(R"({"properties":{"a":{"$ref":"http://example.com/a.json"}}})"), registry);
    CHECK(s.accepts(json::parse(R"({"a":1})")));
    CHECK_FALSE(s.accepts(json::parse(R"({"a":"1"})")));
    CHECK(registry.resolve("a.json", "http://example.com/b.json") != nullptr);
    CHECK(registry.resolve("#/type", "http://example.com/a.json")->get<std::string>() == "integer");
    CHECK(registry.resolve("c.json", "http://example.com/") == nullptr);
}

TEST_CASE("the draft-07 metaschema is built in", "[schema][refs]") {
    const compiled_schema s =
        compiled_schema::from_json(json::parse(R"({"$ref":"http://json-schema.org/draft-07/schema#"})"));
    CHECK(s.accepts(json::parse(R"({"type":"string","minLength":1})")));
    CHECK_FALSE(s.accepts(json::parse(R"({"minLength":-1})")));
    CHECK_FALSE(s.accepts(json::parse(R"({"type":"strnig"})")));
}

TEST_CASE("a reference loop that reads no input is refused when the schema is compiled", "[schema][refs]") {
    CHECK_THAT(refusal_of(json::parse(R"({"$ref":"#"})")).reason(),
               Catch::Matchers::Contains("would never finish validating"));
    CHECK_THAT(
        refusal_of(
            json::parse(
                R"({"definitions":{"a":{"$ref":"#/definitions/b"},"b":{"anyOf":[{"$ref":"#/definitions/a"}]}},"allOf":[{"$ref":"#/definitions/a"}]})"))
            .reason(),
        Catch::Matchers::Contains("would never finish validating"));
    // Recursion through a property reads input: fine.
    const compiled_schema tree = compiled_schema::from_json(
        json::parse(R"({"type":"object","properties":{"child":{"$ref":"#"}},"additionalProperties":false})"));
    CHECK(tree.accepts(json::parse(R"({"child":{"child":{}}})")));
    CHECK_FALSE(tree.accepts(json::parse(R"({"child":{"x":1}})")));
}

TEST_CASE("a draft-07 schema that uses a later keyword, and an unknown $schema, are refused with the reason",
          "[schema][drafts]") {
    const schema_error prefix = refusal_of(json::parse(
        R"({"$schema": "http://json-schema.org/draft-07/schema#", "properties": {"pair": {"prefixItems": []}}})"));
    CHECK(prefix.pointer() == "/properties/pair/prefixItems");
    CHECK_THAT(prefix.reason(), Catch::Matchers::StartsWith("\"prefixItems\" is a keyword of JSON Schema "
                                                            "2019-09/2020-12 that draft-07 ignores"));
    const schema_error dialect = refusal_of(json{{"$schema", "https://example.com/my-dialect"}});
    CHECK(dialect.pointer() == "/$schema");
    CHECK(dialect.reason() == "\"$schema\" names \"https://example.com/my-dialect\", which is neither the "
                              "metaschema of a dialect handoff validates (draft-04, draft-06, draft-07, 2019-09, "
                              "2020-12) nor a registered metaschema written in one of them");
    for (const char* keyword :
         {"unevaluatedProperties", "unevaluatedItems", "dependentRequired", "dependentSchemas", "$anchor",
          "$dynamicRef", "$dynamicAnchor", "$recursiveRef", "$recursiveAnchor", "minContains", "maxContains"}) {
        INFO(keyword);
        const schema_error e =
            refusal_of(json{{"$schema", "http://json-schema.org/draft-07/schema#"}, {"items", {{keyword, 1}}}});
        CHECK(e.pointer() == std::string("/items/") + keyword);
    }
    for (const char* accepted : {"http://json-schema.org/draft-07/schema#", "http://json-schema.org/draft-07/schema",
                                 "https://json-schema.org/draft-07/schema#"}) {
        CHECK(compiled_schema::from_json(json{{"$schema", accepted}}).dialect() == handoff::schema_dialect::draft07);
    }
    // Inside enum, const or an unknown keyword the name is data, not a keyword.
    CHECK_NOTHROW(
        (void)compiled_schema::from_json(json::parse(R"({"enum":[{"prefixItems":1}],"x-note":{"$anchor":1}})")));
}

TEST_CASE("malformed keyword values are schema errors naming their pointer", "[schema]") {
    const auto pointer_of = [](const char* text) { return refusal_of(json::parse(text)).pointer(); };
    CHECK(pointer_of(R"({"properties":{"a":{"minLength":-1}}})") == "/properties/a/minLength");
    CHECK(pointer_of(R"({"type":"strnig"})") == "/type");
    CHECK(pointer_of(R"({"required":"a"})") == "/required");
    CHECK(pointer_of(R"({"pattern":"(a"})") == "/pattern");
    CHECK(pointer_of(R"({"patternProperties":{"[a-":{}}})") == "/patternProperties/[a-");
    CHECK(pointer_of(R"({"multipleOf":0})") == "/multipleOf");
    CHECK(pointer_of(R"({"allOf":[]})") == "/allOf");
    CHECK(pointer_of(R"({"items":[1]})") == "/items/0");
    CHECK(pointer_of("[]").empty());
    CHECK_NOTHROW((void)compiled_schema::from_json(json::parse(R"({"maxLength":2.0,"x-handoff-anything":1})")));
}

} // namespace test_schema_draft07
