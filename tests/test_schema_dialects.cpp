// SPDX-License-Identifier: MIT
// Which dialect a schema is read in ($schema, schema_options::dialect, the keywords it uses),
// what each dialect's own rules change, and the built-in metaschemas and vocabularies.

#include "support/fixtures.hpp"

#include <handoff/handoff.hpp>
#include <handoff/schema_registry.hpp>

#include <nlohmann/json.hpp>

#include <cstddef> // size_t
#include <string>  // string

namespace test_schema_dialects { // this file's own names: see "unity build" in tests/CMakeLists.txt

using handoff::compiled_schema;
using handoff::schema_dialect;
using handoff::schema_error;
using nlohmann::json;

namespace {

compiled_schema fixture_schema(const std::string& name, const handoff::schema_options& options = {}) {
    return compiled_schema::from_file(handoff_test::fixture_path("schemas/generators/" + name), options);
}

handoff::schema_options in(schema_dialect d) {
    handoff::schema_options o;
    o.dialect = d;
    return o;
}

} // namespace

TEST_CASE("$schema names the dialect, with or without the empty fragment", "[schema][dialects]") {
    const std::pair<const char*, schema_dialect> official[] = {
        {"http://json-schema.org/draft-04/schema#", schema_dialect::draft04},
        {"http://json-schema.org/draft-04/schema", schema_dialect::draft04},
        {"http://json-schema.org/draft-06/schema#", schema_dialect::draft06},
        {"http://json-schema.org/draft-07/schema", schema_dialect::draft07},
        {"https://json-schema.org/draft/2019-09/schema", schema_dialect::draft2019_09},
        {"https://json-schema.org/draft/2019-09/schema#", schema_dialect::draft2019_09},
        {"https://json-schema.org/draft/2020-12/schema", schema_dialect::draft2020_12},
        {"https://json-schema.org/draft/2020-12/schema#", schema_dialect::draft2020_12},
    };
    for (const auto& [uri, dialect] : official) {
        INFO(uri);
        // A declared $schema wins over the option, which is for schemas that declare none.
        CHECK(compiled_schema::from_json(json{{"$schema", uri}}, in(schema_dialect::draft04)).dialect() == dialect);
    }
}

TEST_CASE("a $schema naming no known metaschema is refused, the URI quoted once", "[schema][dialects]") {
    try {
        (void)compiled_schema::from_json(json{{"$schema", "https://json-schema.org/draft/2030-01/schema"}});
        FAIL("compiled");
    } catch (const schema_error& e) {
        CHECK(e.pointer() == "/$schema");
        CHECK(std::string(e.what()) ==
              "handoff: schema /$schema: \"$schema\" names \"https://json-schema.org/draft/2030-01/schema\", which is "
              "neither the metaschema of a dialect handoff validates (draft-04, draft-06, draft-07, 2019-09, "
              "2020-12) nor a registered metaschema written in one of them");
    }
}

TEST_CASE("without $schema, the option names the dialect, else the keywords the schema uses", "[schema][dialects]") {
    const json prefix = json::parse(R"({"prefixItems": [{"type": "integer"}], "items": false})");
    CHECK(compiled_schema::from_json(prefix).dialect() == schema_dialect::draft2020_12);
    CHECK(compiled_schema::from_json(json::parse(R"({"$defs": {"a": {}}, "anyOf": [{"type": "null"}]})")).dialect() ==
          schema_dialect::draft2020_12);
    CHECK(compiled_schema::from_json(json::parse(R"({"$defs": {}, "items": [{}]})")).dialect() ==
          schema_dialect::draft2019_09);
    CHECK(compiled_schema::from_json(json::parse(R"({"$recursiveAnchor": true})")).dialect() ==
          schema_dialect::draft2019_09);
    CHECK(compiled_schema::from_json(json::parse(R"({"maximum": 3, "exclusiveMaximum": true})")).dialect() ==
          schema_dialect::draft04);
    CHECK(compiled_schema::from_json(json::parse(R"({"type": "string"})")).dialect() == schema_dialect::draft07);
    // Named, the dialect is used as it is: "items" as an array is no 2020-12 schema.
    CHECK_THROWS_AS(compiled_schema::from_json(json::parse(R"({"items": [{}]})"), in(schema_dialect::draft2020_12)),
                    schema_error);
    CHECK(compiled_schema::from_json(json::parse(R"({"type": "string"})"), in(schema_dialect::draft06)).dialect() ==
          schema_dialect::draft06);
}

TEST_CASE("a Pydantic v2 schema is read as 2020-12: tuples, optionals, discriminated unions, recursion",
          "[schema][dialects][generators]") {
    const compiled_schema s = fixture_schema("pydantic_v2_order.schema.json");
    CHECK(s.dialect() == schema_dialect::draft2020_12);
    const json cat = {{"pet_type", "cat"}, {"meows", 3}};
    CHECK(s.accepts({{"id", 1}, {"location", {1.5, 2}}, {"pet", cat}}));
    CHECK(s.accepts({{"id", 1}, {"location", {1.5, 2}}, {"pet", cat}, {"note", nullptr}, {"tags", {"new", "gift"}}}));
    CHECK(s.accepts(
        {{"id", 2}, {"location", {0, 0}}, {"pet", cat}, {"parent", {{"id", 1}, {"location", {1, 1}}, {"pet", cat}}}}));
    // prefixItems: each place its own schema; minItems/maxItems bound the length.
    CHECK_FALSE(s.accepts({{"id", 1}, {"location", {"north", 2}}, {"pet", cat}}));
    CHECK_FALSE(s.accepts({{"id", 1}, {"location", {1, 2, 3}}, {"pet", cat}}));
    // The discriminated union: a dog's fields under pet_type "cat" fit neither.
    CHECK_FALSE(s.accepts({{"id", 1}, {"location", {1, 2}}, {"pet", {{"pet_type", "cat"}, {"barks", 1.5}}}}));
    // The recursive model checks its parent, and Optional is anyOf with null.
    CHECK_FALSE(s.accepts({{"id", 2}, {"location", {0, 0}}, {"pet", cat}, {"parent", {{"id", "one"}}}}));
    CHECK_FALSE(s.accepts({{"id", 1}, {"location", {1, 2}}, {"pet", cat}, {"note", 5}}));
    CHECK_FALSE(s.accepts({{"id", 1}, {"location", {1, 2}}, {"pet", cat}, {"tags", {"old"}}}));
    const auto problems = s.validate({{"id", 1}, {"location", {"north", 2}}, {"pet", cat}}, "/partial_result",
                                     handoff::step::task_schema);
    REQUIRE(problems.size() == 1);
    CHECK(problems[0].pointer == "/partial_result/location/0");
    CHECK(problems[0].message == "/partial_result/location/0: must be of type number (got \"north\")");
}

TEST_CASE("a TypeBox-style draft-07 schema is read as draft-07: array items, additionalItems, dependencies",
          "[schema][dialects][generators]") {
    const compiled_schema s = fixture_schema("typebox_draft07_pair.schema.json");
    CHECK(s.dialect() == schema_dialect::draft07);
    CHECK(s.accepts({{"pair", {"a", 1}}}));
    CHECK_FALSE(s.accepts({{"pair", {"a", 1, 2}}}));
    CHECK_FALSE(s.accepts({{"pair", {1, "a"}}}));
    CHECK(s.accepts({{"pair", {"a", 1}}, {"extra", "x"}, {"extra_note", "y"}}));
    CHECK_FALSE(s.accepts({{"pair", {"a", 1}}, {"extra_note", "y"}})); // dependencies: extra_note needs extra
}

TEST_CASE("zod v4's schemas, 2020-12 by default and draft-07 on request, judge the same values the same way",
          "[schema][dialects][generators]") {
    // Written by zod's z.toJSONSchema (tests/fixtures/generators/zod/write_fixtures.mjs); whether
    // each verdict is right is test_schema_generators.cpp's question, this one is whether the two
    // dialects zod writes are told apart and agree on every instance.
    const json modern = handoff_test::read_fixture_json("generators/zod/draft2020-12.json").at("cases");
    const json older = handoff_test::read_fixture_json("generators/zod/draft-07.json").at("cases");
    REQUIRE(modern.size() == 6);
    REQUIRE(older.size() == modern.size());
    for (std::size_t i = 0; i < modern.size(); ++i) {
        INFO(modern[i].at("description").get<std::string>());
        REQUIRE(older[i].at("description") == modern[i].at("description"));
        const compiled_schema in_2020_12 = compiled_schema::from_json(modern[i].at("schema"));
        const compiled_schema in_draft07 = compiled_schema::from_json(older[i].at("schema"));
        CHECK(in_2020_12.dialect() == schema_dialect::draft2020_12);
        CHECK(in_draft07.dialect() == schema_dialect::draft07);
        for (const json& test : modern[i].at("tests")) {
            INFO(test.at("description").get<std::string>());
            CHECK(in_draft07.accepts(test.at("data")) == in_2020_12.accepts(test.at("data")));
        }
    }
}

TEST_CASE("draft-04 reads exclusiveMaximum as a boolean and id as the base URI", "[schema][dialects]") {
    const compiled_schema s = compiled_schema::from_json(json::parse(
        R"({"$schema": "http://json-schema.org/draft-04/schema#", "maximum": 3, "exclusiveMaximum": true})"));
    CHECK(s.accepts(2.5));
    CHECK_FALSE(s.accepts(3));
    CHECK_THROWS_AS(compiled_schema::from_json(json::parse(R"({"exclusiveMaximum": 3})"), in(schema_dialect::draft04)),
                    schema_error);
    const compiled_schema ids = compiled_schema::from_json(json::parse(R"({
        "$schema": "http://json-schema.org/draft-04/schema#",
        "definitions": {"a": {"id": "http://example.com/a.json", "type": "integer"}},
        "$ref": "http://example.com/a.json"})"));
    CHECK(ids.accepts(1));
    CHECK_FALSE(ids.accepts("1"));
}

TEST_CASE("$ref beside other keywords applies from 2019-09 on and is the only keyword before", "[schema][dialects]") {
    const json schema = json::parse(R"({"$defs": {"n": {"type": "integer"}}, "definitions": {"n": {"type": "integer"}},
                        "properties": {"v": {"$ref": "#/definitions/n", "minimum": 5}}})");
    CHECK(compiled_schema::from_json(schema, in(schema_dialect::draft2020_12)).accepts({{"v", 6}}));
    CHECK_FALSE(compiled_schema::from_json(schema, in(schema_dialect::draft2020_12)).accepts({{"v", 4}}));
    CHECK(compiled_schema::from_json(schema, in(schema_dialect::draft2019_09)).accepts({{"v", 6}}));
    CHECK_FALSE(compiled_schema::from_json(schema, in(schema_dialect::draft2019_09)).accepts({{"v", 4}}));
    // Declared draft-07 (the $defs sibling would choose 2020-12): minimum beside $ref is ignored.
    json draft07 = schema;
    draft07.erase("$defs");
    CHECK(compiled_schema::from_json(draft07).dialect() == schema_dialect::draft07);
    CHECK(compiled_schema::from_json(draft07).accepts({{"v", 4}}));
    CHECK_FALSE(compiled_schema::from_json(draft07).accepts({{"v", "4"}}));
}

TEST_CASE("unevaluatedProperties sees what allOf, anyOf and if evaluated, and nothing else",
          "[schema][dialects][unevaluated]") {
    const compiled_schema s = compiled_schema::from_json(json::parse(R"({
        "allOf": [{"properties": {"a": {"type": "string"}}}],
        "anyOf": [{"properties": {"b": true}, "required": ["b"]}, {"properties": {"c": true}, "required": ["c"]}],
        "unevaluatedProperties": false})"));
    CHECK(s.dialect() == schema_dialect::draft2020_12);
    CHECK(s.accepts({{"a", "x"}, {"b", 1}}));
    CHECK(s.accepts({{"b", 1}, {"c", 1}}));
    CHECK_FALSE(s.accepts({{"b", 1}, {"d", 1}}));
    const auto problems = s.validate({{"b", 1}, {"d", 1}}, "", handoff::step::task_schema);
    REQUIRE(problems.size() == 1);
    CHECK(problems[0].message == "/d: the property \"d\" is not allowed here (unevaluatedProperties is false)");
}

TEST_CASE("format is an annotation unless asked to assert, or a required vocabulary says so",
          "[schema][dialects][format]") {
    const json schema = json::parse(R"({"$schema": "https://json-schema.org/draft/2020-12/schema", "format": "date"})");
    CHECK(compiled_schema::from_json(schema).accepts("2024-02-30"));
    handoff::schema_options asserting;
    asserting.assert_formats = true;
    CHECK_FALSE(compiled_schema::from_json(schema, asserting).accepts("2024-02-30"));
    CHECK(compiled_schema::from_json(schema, asserting).accepts("2024-02-29"));

    handoff::schema_registry registry;
    registry.add("https://example.com/format-assertion", json::parse(R"({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://example.com/format-assertion",
        "$vocabulary": {"https://json-schema.org/draft/2020-12/vocab/core": true,
                        "https://json-schema.org/draft/2020-12/vocab/validation": true,
                        "https://json-schema.org/draft/2020-12/vocab/format-assertion": true}})"));
    const compiled_schema vocab = compiled_schema::from_json(
        json::parse(R"({"$schema": "https://example.com/format-assertion", "format": "date", "type": "string"})"),
        registry);
    CHECK(vocab.dialect() == schema_dialect::draft2020_12);
    CHECK_FALSE(vocab.accepts("2024-02-30"));
    CHECK_FALSE(vocab.accepts(5));
}

TEST_CASE("a metaschema requiring a vocabulary handoff does not know is refused", "[schema][dialects]") {
    handoff::schema_registry registry;
    registry.add("https://example.com/meta", json::parse(R"({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$vocabulary": {"https://json-schema.org/draft/2020-12/vocab/core": true,
                        "https://example.com/vocab/units": true}})"));
    try {
        (void)compiled_schema::from_json(json{{"$schema", "https://example.com/meta"}}, registry);
        FAIL("compiled");
    } catch (const schema_error& e) {
        CHECK(e.pointer() == "/$schema");
        CHECK(e.reason() == "the metaschema \"https://example.com/meta\" requires the vocabulary "
                            "\"https://example.com/vocab/units\", which handoff does not know");
    }
}

TEST_CASE("the official metaschemas are built in: a schema can be checked against its dialect's offline",
          "[schema][dialects][metaschema]") {
    const std::pair<const char*, schema_dialect> metas[] = {
        {"http://json-schema.org/draft-04/schema#", schema_dialect::draft04},
        {"http://json-schema.org/draft-06/schema#", schema_dialect::draft06},
        {"http://json-schema.org/draft-07/schema#", schema_dialect::draft07},
        {"https://json-schema.org/draft/2019-09/schema", schema_dialect::draft2019_09},
        {"https://json-schema.org/draft/2020-12/schema", schema_dialect::draft2020_12},
    };
    for (const auto& [uri, dialect] : metas) {
        INFO(uri);
        const compiled_schema meta = compiled_schema::from_json(json{{"$ref", uri}});
        CHECK(meta.accepts(json::parse(R"({"type": "string", "minLength": 1})")));
        CHECK_FALSE(meta.accepts(json::parse(R"({"type": "string", "minLength": -1})")));
        CHECK(handoff::schema_registry::metaschema(dialect).is_object());
    }
    // 2020-12's metaschema extends itself through $dynamicRef: a nested schema is checked too.
    const compiled_schema meta2020 = compiled_schema::from_json(json{{"$ref", metas[4].first}});
    CHECK_FALSE(meta2020.accepts(json::parse(R"({"properties": {"a": {"prefixItems": 5}}})")));
    CHECK(meta2020.accepts(json::parse(R"({"properties": {"a": {"prefixItems": [true]}}})")));
}

TEST_CASE("the fuzzed 2020-12 task schema judges its keywords together", "[schema][dialects][unevaluated]") {
    const compiled_schema s =
        compiled_schema::from_file(handoff_test::fixture_path("schemas/dialect_2020.schema.json"));
    CHECK(s.dialect() == schema_dialect::draft2020_12);
    CHECK(s.accepts(json::parse(R"({"pair": ["a", 1], "list": ["head", 1, "ab"], "kind": "a", "extra": true,
                                    "child": {"y": null, "z": 2}, "price": 5})")));
    CHECK_FALSE(s.accepts(json::parse(R"({"kind": "b", "extra": true})")));    // then did not apply
    CHECK_FALSE(s.accepts(json::parse(R"({"list": ["head", "abcdef", 1]})"))); // unevaluatedItems
    CHECK_FALSE(s.accepts(json::parse(R"({"list": ["head", 1, 2, 3, 4]})")));  // maxContains
    CHECK_FALSE(s.accepts(json::parse(R"({"x": 1})")));                        // dependentRequired
    CHECK_FALSE(s.accepts(json::parse(R"({"child": {"pair": [1]}})")));        // $dynamicRef to the root
    CHECK_FALSE(s.accepts(json::parse(R"({"price": 100001})")));               // $ref beside maximum
    CHECK_FALSE(s.accepts(json::parse(R"({"z": 1})")));                        // z is evaluated only beside y
    CHECK(s.accepts(json::parse(R"({"y": null, "z": 1})")));
}

TEST_CASE("dependencies applies in 2019-09 and 2020-12 too, as their metaschemas still define it",
          "[schema][dialects]") {
    const json schema = json::parse(R"({"$defs": {}, "dependencies": {"card": ["cvc"]}})");
    const compiled_schema s = compiled_schema::from_json(schema);
    CHECK(s.dialect() == schema_dialect::draft2020_12);
    CHECK_FALSE(s.accepts({{"card", 1}}));
    CHECK(s.accepts({{"card", 1}, {"cvc", 2}}));
    CHECK_FALSE(compiled_schema::from_json(schema, in(schema_dialect::draft2019_09)).accepts({{"card", 1}}));
}

TEST_CASE("a subschema is read in its own resource's dialect, whichever reference reaches it first",
          "[schema][dialects][refs]") {
    // "u" lies in a 2020-12 document; a draft-07 resource refers to it, and so does the 2020-12
    // root. Properties compile in key order, and each file puts another of the three first: the
    // place itself, the draft-07 resource, the 2020-12 reference. Read as draft-07, its
    // dependentRequired would be refused.
    struct row {
        const char* file;
        const char* place;
        const char* draft07;
    };
    for (const row& r : {row{"ref_before_draft07.schema.json", "t", "b"}, row{"draft07_first.schema.json", "t", "a"},
                         row{"place_first.schema.json", "a", "t"}}) {
        CAPTURE(r.file);
        const compiled_schema s =
            compiled_schema::from_json(handoff_test::read_fixture_json(std::string("schemas/dialect_mix/") + r.file));
        CHECK(s.is_valid({{r.place, {{"u", {{"a", 1}, {"b", 2}}}}}}));
        CHECK_FALSE(s.is_valid({{r.place, {{"u", {{"a", 1}}}}}}));
        CHECK_FALSE(s.is_valid({{r.draft07, {{"a", 1}}}})); // through the draft-07 resource's $ref
    }
}

namespace {

/// Cases in the suite's layout, each with an optional "registry" of documents by URI: every
/// test's verdict as the case says.
void check_cases_with_registry(const json& cases) {
    for (const json& c : cases) {
        INFO(c["description"].get<std::string>());
        handoff::schema_registry registry;
        const json documents = c.value("registry", json::object());
        for (const auto& [uri, document] : documents.items()) {
            registry.add(uri, document);
        }
        const compiled_schema s = compiled_schema::from_json(c["schema"], registry);
        for (const json& t : c["tests"]) {
            INFO(t["data"].dump());
            CHECK(s.is_valid(t["data"]) == t["valid"].get<bool>());
        }
    }
}

} // namespace

TEST_CASE("a $ref target no walk reaches reads as its place says, whichever reference is compiled first",
          "[schema][dialects][refs]") {
    // A place under an unknown keyword, `$defs` in a draft-07 resource, a registered document
    // without `$schema`: each case referred to from a draft-07 resource and from 2020-12, in both
    // orders, with the verdicts the place's dialect gives; then a place in a draft-07 document
    // that only 2020-12 names, and a document without `$schema` that only 2020-12 names; then
    // objects with a "$schema" member that are no schema (a properties map, data) on the way.
    const json cases = handoff_test::read_fixture_json("schemas/dialect_mix/unreached_targets.json");
    REQUIRE(cases.size() == 11);
    check_cases_with_registry(cases);
}

TEST_CASE("contentSchema holds a schema: its $id names a resource and sets the base on the way to a $ref",
          "[schema][dialects][refs]") {
    // As the other keywords whose value is a schema, in 2019-09 and 2020-12; the string the
    // keyword describes is still never read as JSON (content is an annotation).
    const json cases = handoff_test::read_fixture_json("schemas/content_schema.json");
    REQUIRE(cases.size() == 4);
    check_cases_with_registry(cases);
}

} // namespace test_schema_dialects
