// SPDX-License-Identifier: MIT
// <handoff/fixtures.hpp> and <handoff/testing.hpp>: fixture envelopes for every route, made from
// a task schema, written to a directory and read back the way a user's own tests read them.

#include "support/fixtures.hpp"
#include "support/hang_guard.hpp"
#include "support/temp_dir.hpp"

#include <handoff/fixtures.hpp>
#include <handoff/testing.hpp>

#include <filesystem> // path, create_directories
#include <fstream>    // ofstream
#include <iterator>   // size
#include <map>        // map
#include <set>        // set
#include <string>     // string
#include <vector>     // vector

namespace test_testing { // this file's own names: see "unity build" in tests/CMakeLists.txt

namespace fs = std::filesystem;

namespace {

using handoff_test::temp_dir;

void write_file(const fs::path& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary);
    out << text;
    REQUIRE(out.good());
}

/// What handoff-check fixtures does: every file, then the manifest.
std::string write_set(const handoff::fixture_set& set, const fs::path& dir) {
    fs::create_directories(dir);
    for (const handoff::fixture_file& f : set.files) {
        write_file(dir / f.entry.file, f.text);
    }
    write_file(dir / "manifest.jsonl", set.manifest_jsonl());
    return dir.string();
}

nlohmann::json read_schema(const std::string& path) { return nlohmann::json::parse(handoff_test::read_file(path)); }

const std::vector<std::string> bundled_schemas = {
    std::string(HANDOFF_SOURCE_DIR) + "/examples/schemas/invoice.schema.json",
    std::string(HANDOFF_SOURCE_DIR) + "/examples/schemas/ticket.schema.json",
    handoff_test::fixture_path("schemas/product_records.schema.json"),
};

handoff::fixture_set fixtures_for(const nlohmann::json& schema, const handoff::fixture_options& options = {}) {
    handoff::fixture_set set = handoff::make_fixtures(schema, options);
    INFO((set.error ? *set.error : std::string("no error")));
    REQUIRE(set.ok());
    return set;
}

/// The coverages a capped fixture is made at, from the table's own edges.
std::set<double> expected_coverages(const handoff::band_edges& edges, std::uint64_t items) {
    const auto at = [&](double edge) {
        const std::uint64_t k = handoff::detail::first_count_at(edge, items);
        return std::vector<double>{static_cast<double>(k - 1) / static_cast<double>(items),
                                   static_cast<double>(k) / static_cast<double>(items)};
    };
    std::set<double> out{0.0, 1.0};
    for (const double edge : {edges.mid, edges.high}) {
        for (const double c : at(edge)) {
            out.insert(c);
        }
    }
    return out;
}

} // namespace

TEST_CASE("Every fixture made for a bundled schema routes as its manifest says when a user's loop reads it back",
          "[testing][fixtures]") {
    const std::string path = GENERATE(from_range(bundled_schemas));
    INFO(path);
    const nlohmann::json schema = read_schema(path);
    const temp_dir dir;
    const std::string out = write_set(fixtures_for(schema), dir.path / "fixtures");

    // The loop a user writes: three lines.
    const handoff::receiver<> receiver(schema);
    const std::vector<handoff::testing::fixture_case> cases = handoff::testing::load_fixtures(out);
    for (const handoff::testing::fixture_case& c : cases) {
        INFO(c.entry.file << ": " << c.entry.description);
        // value_or(""): a failure prints what differs, not "{?}".
        CHECK(handoff::testing::check(receiver.receive(c.text, c.entry.context), c).value_or("") == "");
    }
    CHECK(cases.size() == 1 + handoff::reason_code_count * 6 + 4 + 1 + 1);
}

TEST_CASE("A fixture set covers every route, and every reason code in every band and on every band edge",
          "[testing][fixtures]") {
    const std::string path = GENERATE(from_range(bundled_schemas));
    INFO(path);
    const temp_dir dir;
    const auto cases = handoff::testing::load_fixtures(write_set(fixtures_for(read_schema(path)), dir.path));

    std::set<handoff::route> routes;
    std::map<std::string, std::set<handoff::band>> bands_of;
    std::map<std::string, std::set<double>> coverages_of;
    for (const auto& c : cases) {
        routes.insert(c.entry.route);
        if (c.entry.reason_code && c.entry.coverage_band && !c.entry.failed_step &&
            c.entry.file.rfind("downgrade", 0) != 0 && c.entry.file.rfind("fail", 0) != 0) {
            bands_of[*c.entry.reason_code].insert(*c.entry.coverage_band);
            coverages_of[*c.entry.reason_code].insert(*c.entry.coverage);
        }
    }
    CHECK(routes.size() == handoff::route_count);
    const std::set<double> edges = expected_coverages(handoff::default_table.edges, 1000);
    CHECK(edges == std::set<double>{0.0, 0.499, 0.5, 0.799, 0.8, 1.0});
    for (const handoff::reason_code r : handoff::all_reason_codes) {
        const std::string name(handoff::to_string(r));
        INFO(name);
        CHECK(bands_of[name] == std::set<handoff::band>{handoff::band::low, handoff::band::mid, handoff::band::high});
        CHECK(coverages_of[name] == edges);
    }
}

TEST_CASE("Each contract step has its own failing fixture, and a broken capped result is a downgrade routed at "
          "coverage 0",
          "[testing][fixtures]") {
    const handoff::fixture_set set = fixtures_for(read_schema(bundled_schemas[1]));
    std::set<handoff::step> failed_steps;
    for (const handoff::fixture_file& f : set.files) {
        if (f.entry.failed_step) {
            CHECK(f.entry.route == handoff::route::repair);
            failed_steps.insert(*f.entry.failed_step);
        }
        if (f.entry.file.rfind("downgrade", 0) == 0) {
            CHECK(f.entry.coverage_band == handoff::band::low);
            CHECK(f.entry.action == handoff::decide(handoff::reason_code::token_cap, 0.0));
            CHECK(f.entry.coverage >= handoff::default_table.edges.high);
        }
    }
    CHECK(failed_steps == std::set<handoff::step>{handoff::step::parse, handoff::step::envelope_schema,
                                                  handoff::step::task_schema, handoff::step::coverage});
}

TEST_CASE("The generated ticket takes each enum's first value and honours the summary's length bounds",
          "[testing][fixtures]") {
    const handoff::fixture_set set = fixtures_for(read_schema(bundled_schemas[1]));
    REQUIRE(set.files.front().entry.route == handoff::route::accept);
    const nlohmann::json result = nlohmann::json::parse(set.files.front().text).at("partial_result");
    CHECK(result.at("label") == "billing");
    CHECK(result.at("severity") == "p0");
    CHECK(result.at("summary").get<std::string>().size() >= 20);
    CHECK(result.at("citations").size() == 1);
}

TEST_CASE("The generator follows local refs, merges allOf, picks the first anyOf and oneOf branch that fits and "
          "prefers const, default and examples",
          "[testing][fixtures]") {
    const nlohmann::json schema = nlohmann::json::parse(R"({
        "type": "object", "additionalProperties": false,
        "required": ["point", "code", "either", "one", "fixed", "given", "shown", "when", "count", "ratio"],
        "definitions": {"point": {"type": "object", "additionalProperties": false, "required": ["x"],
                                  "properties": {"x": {"type": "integer", "minimum": 3, "multipleOf": 2}}}},
        "properties": {
            "point": {"$ref": "#/definitions/point"},
            "code": {"allOf": [{"type": "string", "maxLength": 30}, {"minLength": 12}]},
            "either": {"anyOf": [{"type": "string", "maxLength": 2, "minLength": 5}, {"type": "boolean"}]},
            "one": {"oneOf": [{"type": "null"}, {"type": "integer"}]},
            "fixed": {"const": "v1"},
            "given": {"type": "string", "default": "from default", "maxLength": 20},
            "shown": {"type": "string", "examples": ["too long for the bound", "ok"], "maxLength": 5},
            "when": {"type": "string", "format": "date", "maxLength": 10},
            "count": {"type": "integer", "exclusiveMinimum": 7, "maximum": 9},
            "ratio": {"type": "number", "exclusiveMinimum": 0, "maximum": 1}
        }})");
    const handoff::fixture_set set = fixtures_for(schema);
    const nlohmann::json result = nlohmann::json::parse(set.files.front().text).at("partial_result");
    CHECK(result.at("point").at("x") == 4);
    CHECK(result.at("code").get<std::string>().size() == 12);
    CHECK(result.at("either") == true);
    CHECK(result.at("one").is_null());
    CHECK(result.at("fixed") == "v1");
    CHECK(result.at("given") == "from default");
    CHECK(result.at("shown") == "ok");
    CHECK(result.at("when") == "2026-01-01");
    CHECK(result.at("count") == 8);
    CHECK(result.at("ratio").get<double>() > 0.0);
}

TEST_CASE("A merge of allOf and $ref siblings leaves the definitions behind: 20,000 of them, 30 levels deep",
          "[testing][fixtures]") {
    // Each level once copied the whole definitions object into its merge (and into the memo's
    // key): gigabytes for a large schema. Definitions constrain no value; refs resolve in the
    // whole document.
    nlohmann::json definitions = nlohmann::json::object();
    for (int i = 0; i < 20'000; ++i) {
        definitions["unused" + std::to_string(i)] = {{"type", "string"}, {"minLength", i}};
    }
    for (int i = 0; i < 29; ++i) {
        definitions["level" + std::to_string(i)] = {
            {"allOf", {{{"$ref", "#/definitions/level" + std::to_string(i + 1)}}}}};
    }
    definitions["level29"] = {
        {"type", "object"}, {"required", {"id"}}, {"properties", {{"id", {{"type", "integer"}, {"minimum", 7}}}}}};
    const nlohmann::json schema = {{"allOf", {{{"$ref", "#/definitions/level0"}}}}, {"definitions", definitions}};
    const handoff::fixture_set set = fixtures_for(schema);
    REQUIRE_FALSE(set.files.empty());
    CHECK(nlohmann::json::parse(set.files.front().text).at("partial_result") == nlohmann::json{{"id", 7}});
}

TEST_CASE("The generator writes 2020-12 tuples place by place and the properties dependentRequired asks for",
          "[testing][fixtures][dialects]") {
    const nlohmann::json schema = nlohmann::json::parse(R"({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object", "additionalProperties": false, "required": ["pair", "card"],
        "$defs": {"money": {"type": "integer", "minimum": 1}},
        "properties": {
            "pair": {"type": "array", "prefixItems": [{"type": "string", "maxLength": 4}, {"const": 7}],
                     "items": false, "minItems": 2},
            "card": {"type": "object", "additionalProperties": false, "required": ["number"],
                     "properties": {"number": {"type": "string", "maxLength": 4}, "cvc": {"type": "string", "maxLength": 4},
                                    "zip": {"type": "string", "maxLength": 4}},
                     "dependentRequired": {"number": ["cvc"], "cvc": ["zip"]}},
            "price": {"$ref": "#/$defs/money", "maximum": 5}
        }})");
    const handoff::fixture_set set = fixtures_for(schema);
    const nlohmann::json result = nlohmann::json::parse(set.files.front().text).at("partial_result");
    REQUIRE(result.at("pair").size() == 2);
    CHECK(result.at("pair").at(0).is_string());
    CHECK(result.at("pair").at(1) == 7);
    CHECK(result.at("card").contains("cvc"));
    CHECK(result.at("card").contains("zip"));
    CHECK(handoff::compiled_schema::from_json(schema).accepts(result));
}

TEST_CASE("The generator meets the dependentSchemas of the properties it writes, and minProperties with other keys",
          "[testing][fixtures][dialects]") {
    const nlohmann::json schema =
        handoff_test::read_fixture_json("schemas/generators/dependent_and_counted.schema.json");
    const handoff::fixture_set set = fixtures_for(schema);
    const nlohmann::json result = nlohmann::json::parse(set.files.front().text).at("partial_result");
    CHECK(result.at("items").size() >= 3); // mode is required: its dependent schema applies
    CHECK(result.at("stock").size() >= 2);
    CHECK(handoff::compiled_schema::from_json(schema).accepts(result));
    // With note required too, note's dependent schema holds as well (stock with three keys).
    nlohmann::json noted = schema;
    noted["required"].push_back("note");
    const nlohmann::json with_note = nlohmann::json::parse(fixtures_for(noted).files.front().text).at("partial_result");
    CHECK(with_note.at("stock").size() >= 3);
    CHECK(with_note.at("items").size() >= 3);
    CHECK(handoff::compiled_schema::from_json(noted).accepts(with_note));
    // A dependent schema's own required names are written at once, before optional properties
    // that have no value (false) could stop the object.
    const nlohmann::json required_by_dependent = nlohmann::json::parse(R"({
        "$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "required": ["a"],
        "properties": {"a": {"type": "string", "maxLength": 9}, "b": {"type": "integer"}, "never": false},
        "dependentSchemas": {"a": {"required": ["b"]}}})");
    const nlohmann::json made =
        nlohmann::json::parse(fixtures_for(required_by_dependent).files.front().text).at("partial_result");
    CHECK(made.contains("b"));
    CHECK(handoff::compiled_schema::from_json(required_by_dependent).accepts(made));
}

TEST_CASE("The generator fills minProperties with keys a pattern admits, and unique items of a pattern",
          "[testing][fixtures][dialects]") {
    const nlohmann::json schema = handoff_test::read_fixture_json("schemas/generators/pattern_keyed.schema.json");
    const handoff::fixture_set set = fixtures_for(schema);
    REQUIRE(set.ok());
    const nlohmann::json result = nlohmann::json::parse(set.files.front().text).at("partial_result");
    CHECK(result.at("meta").size() >= 2);  // patternProperties' keys, additionalProperties false
    CHECK(result.at("codes").size() >= 3); // keys of the propertyNames pattern, varied in its shape
    CHECK(result.at("pairs").size() >= 3); // distinct items of a pattern, made the same way
    CHECK(result.at("both").size() >= 3);  // both patterns apply: keys from propertyNames' alone
    CHECK(handoff::compiled_schema::from_json(schema).accepts(result));
}

TEST_CASE("The generator makes thousands of unique items and distinct keys of every kind of variant",
          "[testing][fixtures]") {
    const nlohmann::json schema = handoff_test::read_fixture_json("schemas/generators/long_unique.schema.json");
    const handoff::fixture_set set = fixtures_for(schema);
    REQUIRE(set.ok());
    const nlohmann::json result = nlohmann::json::parse(set.files.front().text).at("partial_result");
    CHECK(result.at("codes").size() == 6000);  // same-shape variants of a pattern's string
    CHECK(result.at("words").size() == 6000);  // numbered variants
    CHECK(result.at("counts").size() == 6000); // base + k within the maximum
    CHECK(result.at("levels") == nlohmann::json::parse(R"(["trace", "debug", "info", "warn", "error"])"));
    CHECK(result.at("tags").size() == 2000); // names of propertyNames' pattern
    const std::set<nlohmann::json> codes(result.at("codes").begin(), result.at("codes").end());
    CHECK(codes.size() == 6000);
    CHECK(handoff::compiled_schema::from_json(schema).accepts(result));
    // A plain minProperties far past what a cap on looked-for keys allowed.
    const handoff::fixture_set keys =
        handoff::make_fixtures(nlohmann::json::parse(R"({"type": "object", "minProperties": 8000})"));
    REQUIRE(keys.ok());
    CHECK(nlohmann::json::parse(keys.files.front().text).at("partial_result").size() == 8000);
    // Keys of a pattern the numbered names fail, varied from the first name: each variant is
    // looked at once, not again for every key.
    const handoff::fixture_set pattern_keys = handoff::make_fixtures(nlohmann::json::parse(
        R"({"type": "object", "minProperties": 9000, "propertyNames": {"pattern": "^[a-z]{4}$"}})"));
    REQUIRE(pattern_keys.ok());
    CHECK(nlohmann::json::parse(pattern_keys.files.front().text).at("partial_result").size() == 9000);
}

TEST_CASE("minProperties past what the receiver reads, or keys past the string budget, are said, not built",
          "[testing][fixtures][schema-safety]") {
    const handoff::fixture_set many = handoff::make_fixtures(nlohmann::json::parse(
        R"({"type": "object", "required": ["o"], "properties": {"o": {"type": "object", "minProperties": 10001}}})"));
    REQUIRE_FALSE(many.ok());
    CHECK_THAT(*many.error, Catch::Matchers::ContainsSubstring("/properties/o: minProperties 10001 is more than 10000 "
                                                               "members (parse_limits::max_container_items"));
    // 5000 names of 60000 bytes: 300 MB of keys, stopped by the budget for strings made.
    const handoff::fixture_set long_names = handoff::make_fixtures(
        nlohmann::json::parse(R"({"type": "object", "minProperties": 5000, "propertyNames": {"minLength": 60000}})"));
    REQUIRE_FALSE(long_names.ok());
    CHECK_THAT(*long_names.error, Catch::Matchers::ContainsSubstring("gave up after making strings of 16777216 bytes"));
}

TEST_CASE("Unique integers varied near int64's end step back instead of wrapping around", "[testing][fixtures]") {
    const nlohmann::json schema = nlohmann::json::parse(R"({"type": "object", "required": ["xs"], "properties":
        {"xs": {"type": "array", "uniqueItems": true, "minItems": 6, "items": {"type": "integer",
                "examples": [9223372036854775806]}}}})");
    const handoff::fixture_set set = fixtures_for(schema);
    const nlohmann::json xs = nlohmann::json::parse(set.files.front().text).at("partial_result").at("xs");
    CHECK(xs == nlohmann::json::parse("[9223372036854775806, 9223372036854775807, 9223372036854775805, "
                                      "9223372036854775804, 9223372036854775803, 9223372036854775802]"));
}

TEST_CASE("Fixtures refuse a schema the receiver refuses, with its message", "[testing][fixtures][dialects]") {
    const nlohmann::json schema = nlohmann::json::parse(
        R"({"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "unevaluatedProperties": false})");
    std::string receiver_says;
    try {
        (void)handoff::compiled_schema::from_json(schema);
    } catch (const handoff::schema_error& e) {
        receiver_says = e.what();
    }
    REQUIRE_FALSE(receiver_says.empty());
    try {
        (void)handoff::make_fixtures(schema);
        FAIL("made fixtures");
    } catch (const handoff::schema_error& e) {
        CHECK(std::string(e.what()) == receiver_says);
    }
}

TEST_CASE("A task schema no value can be generated for yields no fixtures and says where and why",
          "[testing][fixtures]") {
    SECTION("a pattern the generator cannot satisfy names its pointer and asks for a default") {
        // A lookahead: whether it holds depends on more than the path a search takes, so the
        // generator finds no example for it.
        const handoff::fixture_set set = handoff::make_fixtures(nlohmann::json::parse(R"({
            "type": "object", "required": ["code"],
            "properties": {"code": {"$ref": "#/definitions/code"}},
            "definitions": {"code": {"type": "string", "pattern": "^(?!EUR)[A-Z]{3}$", "maxLength": 3}}})"));
        REQUIRE_FALSE(set.ok());
        CHECK(set.files.empty());
        CHECK_THAT(*set.error, Catch::Matchers::ContainsSubstring("/definitions/code"));
        CHECK_THAT(*set.error, Catch::Matchers::ContainsSubstring("\"default\""));
    }
    SECTION("a property with no value is named even when the properties after it have one") {
        const handoff::fixture_set set = handoff::make_fixtures(nlohmann::json::parse(R"({
            "type": "object", "required": ["code", "name"],
            "properties": {"code": {"type": "string", "pattern": "^(?!EUR)[A-Z]{3}$", "maxLength": 3},
                           "name": {"type": "string", "maxLength": 10}}})"));
        REQUIRE_FALSE(set.ok());
        CHECK_THAT(*set.error, Catch::Matchers::ContainsSubstring("/properties/code"));
    }
    SECTION("a minProperties beyond the members the receiver reads is asked for as a default") {
        const handoff::fixture_set set =
            handoff::make_fixtures(nlohmann::json::parse(R"({"type": "object", "minProperties": 1000000})"));
        REQUIRE_FALSE(set.ok());
        CHECK_THAT(*set.error, Catch::Matchers::ContainsSubstring("minProperties 1000000 is more than 10000 members"));
    }
    SECTION("a schema that allows no object says partial_result must be one") {
        const handoff::fixture_set set = handoff::make_fixtures(nlohmann::json{{"type", "string"}});
        REQUIRE_FALSE(set.ok());
        CHECK_THAT(*set.error, Catch::Matchers::ContainsSubstring("allows no object"));
    }
    SECTION("a pattern alone gets a value it matches, within the lengths") {
        const handoff::fixture_set set = handoff::make_fixtures(nlohmann::json::parse(R"({
            "type": "object", "required": ["code", "sku"], "additionalProperties": false,
            "properties": {"code": {"type": "string", "pattern": "^[A-Z]{3}$"},
                           "sku": {"type": "string", "pattern": "^ST-[0-9]+", "minLength": 9, "maxLength": 12}}})"));
        REQUIRE(set.ok());
        const auto accepted = nlohmann::json::parse(set.files.front().text).at("partial_result");
        CHECK(accepted.at("code") == "AAA");
        CHECK(accepted.at("sku") == "ST-000000"); // the shortest the pattern matches whole at minLength 9
    }
    SECTION("with a pattern's default the same schema gets its fixtures") {
        const handoff::fixture_set set = handoff::make_fixtures(nlohmann::json::parse(R"({
            "type": "object", "required": ["code"], "additionalProperties": false,
            "properties": {"code": {"type": "string", "pattern": "^[A-Z]{3}$", "maxLength": 3, "default": "EUR"}}})"));
        CHECK(set.ok());
    }
}

TEST_CASE("An open task schema still gets a task-schema failure, from the worker's own schema_ok false",
          "[testing][fixtures]") {
    const handoff::fixture_set set = fixtures_for(nlohmann::json{{"type", "object"}});
    bool found = false;
    for (const handoff::fixture_file& f : set.files) {
        if (f.entry.failed_step == handoff::step::task_schema) {
            found = true;
            CHECK(nlohmann::json::parse(f.text).at("schema_ok") == false);
        }
    }
    CHECK(found);
}

TEST_CASE("Fixtures follow the policy's table: moved band edges move the edge fixtures with them",
          "[testing][fixtures]") {
    handoff::fixture_options options;
    options.receiving.policy.table.edges = handoff::band_edges{0.3, 0.9};
    const handoff::fixture_set set = fixtures_for(read_schema(bundled_schemas[1]), options);
    std::set<double> coverages;
    for (const handoff::fixture_file& f : set.files) {
        if (f.entry.coverage_band && f.entry.reason_code == "TIME_CAP" && f.entry.context.attempt == 1 &&
            f.entry.file.rfind("downgrade", 0) != 0) {
            coverages.insert(*f.entry.coverage);
        }
    }
    CHECK(coverages == std::set<double>{0.0, 0.299, 0.3, 0.899, 0.9, 1.0});
    CHECK(coverages == expected_coverages(options.receiving.policy.table.edges, 1000));
}

TEST_CASE("check says what differs between a receipt and the fixture it was expected to match", "[testing]") {
    const handoff::fixture_set set = fixtures_for(read_schema(bundled_schemas[1]));
    const handoff::receiver<> receiver(read_schema(bundled_schemas[1]));
    handoff::testing::fixture_case c;
    c.entry.file = "accept_ok.json";
    c.text = set.files.front().text;
    c.entry.route = handoff::route::split;
    c.entry.action = handoff::action::split;
    const auto differs = handoff::testing::check(receiver.receive(c.text), c);
    REQUIRE(differs);
    CHECK_THAT(*differs, Catch::Matchers::ContainsSubstring("accept_ok.json"));
    CHECK_THAT(*differs, Catch::Matchers::ContainsSubstring("route: expected SPLIT, got ACCEPT"));
    CHECK_THAT(*differs, Catch::Matchers::ContainsSubstring("action: expected SPLIT, got null"));
}

TEST_CASE("A corrupt manifest is a test setup error that names manifest.jsonl and the line", "[testing]") {
    const temp_dir dir;
    write_file(dir.path / "a.json", "{}");
    const std::string good = R"({"file":"a.json","route":"REPAIR","step":"envelope_schema","action":null})";
    const auto load_with = [&](const std::string& second_line) {
        write_file(dir.path / "manifest.jsonl", good + "\n" + second_line + "\n");
        return handoff::testing::load_fixtures(dir.path.string());
    };
    using Catch::Matchers::ContainsSubstring;
    CHECK(load_with(good).size() == 2);
    CHECK_THROWS_WITH(load_with("{not json"), ContainsSubstring("manifest.jsonl:2: not a JSON object"));
    CHECK_THROWS_WITH(load_with(R"({"file":"a.json","route":"MAYBE"})"),
                      ContainsSubstring("manifest.jsonl:2: \"route\" is \"MAYBE\""));
    CHECK_THROWS_WITH(load_with(R"({"route":"ACCEPT"})"), ContainsSubstring("manifest.jsonl:2: \"file\""));
    CHECK_THROWS_WITH(load_with(R"({"file":"missing.json","route":"ACCEPT"})"),
                      ContainsSubstring("manifest.jsonl:2: cannot read"));
    CHECK_THROWS_WITH(load_with(R"({"file":"../a.json","route":"ACCEPT"})"), ContainsSubstring("manifest.jsonl:2"));
    CHECK_THROWS_WITH(load_with(R"({"file":"a.json","route":"ACCEPT","attempt":-1})"),
                      ContainsSubstring("manifest.jsonl:2: \"attempt\""));
    write_file(dir.path / "manifest.jsonl", "\n");
    CHECK_THROWS_WITH(handoff::testing::load_fixtures(dir.path.string()), ContainsSubstring("lists no fixtures"));
    CHECK_THROWS_AS(handoff::testing::load_fixtures((dir.path / "nowhere").string()), handoff::manifest_error);
}

TEST_CASE("A fixture that would not route as its manifest line says stops the whole set instead of lying",
          "[testing][fixtures]") {
    // A receiver that forgives any fraction cannot see the coverage fixture's contract failure.
    handoff::fixture_options options;
    options.receiving.fraction_tolerance = 1.0;
    const handoff::fixture_set set = handoff::make_fixtures(read_schema(bundled_schemas[1]), options);
    REQUIRE_FALSE(set.ok());
    CHECK(set.files.empty());
    CHECK(set.manifest_jsonl().empty());
    CHECK_THAT(*set.error, Catch::Matchers::ContainsSubstring("repair_coverage_fraction_disagrees.json"));
    CHECK_THAT(*set.error, Catch::Matchers::ContainsSubstring("route: expected REPAIR"));
}

TEST_CASE("The FAIL fixture routes FAIL only on the attempt its case carries", "[testing][fixtures]") {
    const nlohmann::json schema = read_schema(bundled_schemas[1]);
    const handoff::fixture_set set = fixtures_for(schema);
    const handoff::receiver<> receiver(schema);
    const handoff::fixture_file& last = set.files.back();
    REQUIRE(last.entry.route == handoff::route::fail);
    CHECK(last.entry.context.attempt == handoff::routing_policy{}.max_attempts);
    CHECK(handoff::manifest_mismatch(receiver.receive(last.text, last.entry.context), last.entry) == std::nullopt);
    CHECK(handoff::manifest_mismatch(receiver.receive(last.text), last.entry) != std::nullopt);
}

TEST_CASE("Any item count gives distinct file names and consistent coverage arithmetic", "[testing][fixtures]") {
    handoff::fixture_options options;
    options.items_expected = GENERATE(as<std::uint64_t>{}, 1, 3, 7, 10'000'000);
    INFO(options.items_expected);
    const handoff::fixture_set set = fixtures_for(read_schema(bundled_schemas[2]), options);
    std::set<std::string> names;
    for (const handoff::fixture_file& f : set.files) {
        CHECK(names.insert(f.entry.file).second);
    }
}

TEST_CASE("Arrays with uniqueItems get distinct items, enum values through a $ref included", "[testing][fixtures]") {
    const handoff::fixture_set set = fixtures_for(nlohmann::json::parse(R"({
        "type": "object", "required": ["tags", "counts", "codes"],
        "definitions": {"code": {"enum": ["x", "y"]}},
        "properties": {
            "tags": {"type": "array", "minItems": 3, "uniqueItems": true, "items": {"type": "string", "maxLength": 8}},
            "counts": {"type": "array", "minItems": 3, "uniqueItems": true,
                       "items": {"type": "integer", "minimum": 0, "maximum": 10}},
            "codes": {"type": "array", "minItems": 2, "uniqueItems": true, "items": {"$ref": "#/definitions/code"}}
        }})"));
    const nlohmann::json result = nlohmann::json::parse(set.files.front().text).at("partial_result");
    CHECK(result.at("tags").size() == 3);
    CHECK(result.at("counts") == nlohmann::json{0, 1, 2});
    CHECK(result.at("codes") == nlohmann::json{"x", "y"});
}

} // namespace test_testing

namespace test_testing {

namespace {

/// A task schema whose result holds `levels` levels below "root", each level an object whose
/// required "a" and "b" both refer to the level below: small to write, 2^levels strings to build.
nlohmann::json doubling_schema(int levels) {
    nlohmann::json schema = {
        {"type", "object"}, {"required", {"root"}}, {"properties", {{"root", {{"$ref", "#/$defs/d0"}}}}}};
    for (int i = 0; i < levels; ++i) {
        const std::string below = "#/$defs/d" + std::to_string(i + 1);
        schema["$defs"]["d" + std::to_string(i)] = {
            {"type", "object"},
            {"required", {"a", "b"}},
            {"properties", {{"a", {{"$ref", below}}}, {"b", {{"$ref", below}}}}}};
    }
    schema["$defs"]["d" + std::to_string(levels)] = {{"type", "string"}, {"maxLength", 3}};
    return schema;
}

} // namespace

TEST_CASE("A value whose levels refer twice to the level below is built once per schema, up to the receiver's limits",
          "[testing][fixtures][schema-safety]") {
    // 2^10 strings: each schema's value made once and copied where the schema recurs (making it
    // anew at every place took minutes), so four times the strings take about four times as long.
    handoff::fixture_set set;
    const double quarter_seconds =
        handoff_test::seconds_taken([&] { set = handoff::make_fixtures(doubling_schema(8)); });
    REQUIRE(set.ok());
    const double whole_seconds =
        handoff_test::least_seconds_taken([&] { set = handoff::make_fixtures(doubling_schema(10)); });
    REQUIRE(set.ok());
    CHECK(whole_seconds < handoff_test::quadrupled_input_factor * quarter_seconds);
    const nlohmann::json result = nlohmann::json::parse(set.files.front().text).at("partial_result");
    CHECK(
        result.at("root").at("a").at("b").at("a").at("b").at("a").at("b").at("a").at("b").at("a").at("b").is_string());
    CHECK(handoff::compiled_schema::from_json(doubling_schema(10)).accepts(result));

    // 2^15 strings fit the schema but not the receiver's byte limit: said, with the limit.
    const handoff::fixture_set big = handoff::make_fixtures(doubling_schema(15));
    REQUIRE_FALSE(big.ok());
    CHECK_THAT(*big.error, Catch::Matchers::ContainsSubstring("more than the receiver reads"));
    CHECK_THAT(*big.error, Catch::Matchers::ContainsSubstring("1048576 bytes"));

    // A million items to make: building stops at the receiver's max_values, where it is.
    const handoff::fixture_set long_array = handoff::make_fixtures(nlohmann::json::parse(
        R"({"type": "object", "required": ["xs"], "properties": {"xs": {"type": "array", "minItems": 1000000}}})"));
    REQUIRE_FALSE(long_array.ok());
    CHECK_THAT(*long_array.error, Catch::Matchers::ContainsSubstring("/properties/xs/items"));
    CHECK_THAT(*long_array.error, Catch::Matchers::ContainsSubstring("gave up after making 200000 values"));

    // A string longer than the receiver reads is refused before it is built (4e8 bytes were).
    const handoff::fixture_set long_string = handoff::make_fixtures(nlohmann::json::parse(
        R"({"type": "object", "required": ["s"], "properties": {"s": {"type": "string", "minLength": 4e8}}})"));
    REQUIRE_FALSE(long_string.ok());
    CHECK_THAT(*long_string.error, Catch::Matchers::ContainsSubstring("/properties/s: minLength 400000000.0 is more "
                                                                      "than 65536 bytes"));
    // Strings that each fit but together are gigabytes: the generator's own budget stops them.
    const handoff::fixture_set many_strings = handoff::make_fixtures(nlohmann::json::parse(
        R"({"type": "object", "required": ["xs"], "properties": {"xs": {"type": "array", "minItems": 10000,)"
        R"( "items": {"type": "string", "minLength": 65000}}}})"));
    REQUIRE_FALSE(many_strings.ok());
    CHECK_THAT(*many_strings.error,
               Catch::Matchers::ContainsSubstring("gave up after making strings of 16777216 bytes"));
    // Counts far past what a size holds are read as the largest, not converted out of range.
    const handoff::fixture_set huge_counts = handoff::make_fixtures(nlohmann::json::parse(
        R"({"type": "object", "required": ["xs"], "properties": {"xs": {"type": "array", "minItems": 1e300,)"
        R"( "items": {"type": "string", "maxLength": 1e300}}}})"));
    REQUIRE_FALSE(huge_counts.ok());
}

TEST_CASE("A value made once is reused only at the same depth, and the bound counts values, not steps",
          "[testing][fixtures]") {
    SECTION("a recursive type reused deeper would be cut short: b is made at its own depth") {
        const nlohmann::json schema = nlohmann::json::parse(R"({
            "type": "object", "required": ["a", "b"],
            "properties": {"a": {"$ref": "#/$defs/T"}, "b": {"allOf": [{"$ref": "#/$defs/T"}], "not": {"type": "null"}}},
            "$defs": {"T": {"anyOf": [{"type": "object", "required": ["n"], "properties": {"n": {"$ref": "#/$defs/T"}}},
                                      {"type": "null"}]}}})");
        const handoff::fixture_set set = handoff::make_fixtures(schema);
        REQUIRE(set.ok());
        const nlohmann::json result = nlohmann::json::parse(set.files.front().text).at("partial_result");
        CHECK(result.at("b").is_object());
        CHECK(handoff::compiled_schema::from_json(schema).accepts(result));
    }
    SECTION("items reached through three $refs count one value each") {
        handoff::fixture_options options;
        options.receiving.limits.max_values = 30000; // the result holds some 20,000
        const handoff::fixture_set set = handoff::make_fixtures(nlohmann::json::parse(R"({
            "type": "object", "required": ["m"],
            "properties": {"m": {"type": "array", "minItems": 10,
                                 "items": {"type": "array", "minItems": 2000, "items": {"$ref": "#/$defs/x"}}}},
            "$defs": {"x": {"$ref": "#/$defs/y"}, "y": {"$ref": "#/$defs/z"}, "z": {"type": "integer"}}})"),
                                                                options);
        REQUIRE(set.ok());
        CHECK(nlohmann::json::parse(set.files.front().text).at("partial_result").at("m").at(9).size() == 2000);
    }
    SECTION("a schema holding a string that is not UTF-8 is generated for, never thrown on") {
        const nlohmann::json schema = {{"type", "object"},
                                       {"required", {"a"}},
                                       {"properties", {{"a", {{"type", "string"}, {"description", "caf\xe9"}}}}}};
        CHECK(handoff::make_fixtures(schema).ok());
    }
}

} // namespace test_testing

namespace test_testing {

TEST_CASE("The generator merges a branch met twice once: links that each hold the next twice make a value",
          "[testing][fixtures]") {
    // Each link's allOf merged with itself doubled the merge, so 2^links copies were built before
    // any value was. X and X is X.
    const auto chain = [](int links) {
        nlohmann::json defs = nlohmann::json::object();
        for (int i = 0; i < links; ++i) {
            const nlohmann::json next = i + 1 < links ? nlohmann::json{{"$ref", "#/$defs/d" + std::to_string(i + 1)}}
                                                      : nlohmann::json{{"type", "string"}, {"minLength", 3}};
            defs["d" + std::to_string(i)] = {{"allOf", {next, next}}};
        }
        return nlohmann::json{{"$defs", defs},
                              {"type", "object"},
                              {"required", {"t"}},
                              {"properties", {{"t", {{"$ref", "#/$defs/d0"}}}}}};
    };
    const handoff::fixture_set set = fixtures_for(chain(24));
    REQUIRE(set.ok());
    CHECK(nlohmann::json::parse(set.files.front().text).at("partial_result") == nlohmann::json{{"t", "example"}});
    // The fixture's forty links: a value through the conditions; through allOf, past the
    // generator's 32 levels, said at once; through anyOf, the branches it tries said to fail.
    const nlohmann::json fixture = handoff_test::read_fixture_json("schemas/repeated_walks.json");
    const handoff::fixture_set conditions = handoff::make_fixtures(fixture.at("schemas").at("conditions"));
    REQUIRE(conditions.ok());
    CHECK(nlohmann::json::parse(conditions.files.front().text).at("partial_result").at("t").is_string());
    const handoff::fixture_set all_of = handoff::make_fixtures(fixture.at("schemas").at("all_of"));
    REQUIRE(all_of.error);
    CHECK(all_of.error->find("nested deeper than 32 levels") != std::string::npos);
    const handoff::fixture_set one_of = handoff::make_fixtures(fixture.at("schemas").at("one_of"));
    REQUIRE(one_of.error);
    CHECK(one_of.error->find("none of 1 candidate values fits") != std::string::npos);
}

} // namespace test_testing
