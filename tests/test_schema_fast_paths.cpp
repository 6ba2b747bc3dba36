// SPDX-License-Identifier: MIT
// The schema walk's compiled fast paths (detail/schema/): a string enum looked up in a sorted
// table, numeric bounds compared as exact doubles, a number passed by its interval without a
// walk, a lone `$ref` forwarded to its target. Each must answer exactly as the general path
// does, on the values at its edges, in both modes (accepts() and validate(), which must agree).

#include "support/catch.hpp"
#include "support/fixtures.hpp"

#include <handoff/detail/schema/validator.hpp>
#include <handoff/schema.hpp>

#include <nlohmann/json.hpp>

#include <cstdint> // int64_t, uint64_t
#include <string>  // string

namespace test_schema_fast_paths { // this file's own names: see "unity build" in tests/CMakeLists.txt

using handoff::compiled_schema;
using nlohmann::json;

namespace {

/// accepts(), after checking that validate() agrees with it.
bool fits(const compiled_schema& s, const json& value) {
    const bool accepted = s.accepts(value);
    INFO("value " << value.dump());
    CHECK(s.validate(value, "", handoff::step::task_schema).empty() == accepted);
    return accepted;
}

} // namespace

TEST_CASE("A string enum is looked up whatever its values' sizes, order and company", "[schema][fast_path]") {
    const compiled_schema s = compiled_schema::from_json(
        json::parse(R"({"enum": ["ab", "b", "", 1, "abc", null, "ba", "\u00e9", "AB", {"k": "ab"}, ["b"]]})"));
    for (const char* yes : {"ab", "b", "", "abc", "ba", "\xC3\xA9", "AB"}) {
        CHECK(fits(s, json(yes)));
    }
    for (const char* no : {"a", "c", "abcd", "Ab", "aB", "bb", "e", "k"}) {
        CHECK_FALSE(fits(s, json(no)));
    }
    CHECK(fits(s, json(1)));
    CHECK(fits(s, json(1.0)));
    CHECK(fits(s, json(nullptr)));
    CHECK(fits(s, json::parse(R"({"k": "ab"})")));
    CHECK(fits(s, json::parse(R"(["b"])")));
    CHECK_FALSE(fits(s, json(2)));
    CHECK_FALSE(fits(s, json::parse(R"(["ab"])")));
    // Forty two-letter codes, the shape of a country enum.
    json countries = json::array();
    for (char a = 'A'; a < 'E'; ++a) {
        for (char b = 'A'; b < 'K'; ++b) {
            countries.push_back(std::string{a, b});
        }
    }
    const compiled_schema c = compiled_schema::from_json(json{{"enum", countries}});
    for (const auto& code : countries) {
        CHECK(fits(c, code));
    }
    for (const char* no : {"AK", "EA", "A", "AAA", "aa", ""}) {
        CHECK_FALSE(fits(c, json(no)));
    }
}

TEST_CASE("Numeric bounds decide exactly where doubles stop holding integers", "[schema][fast_path]") {
    // 2^53 + 1 is no double: as a double it would equal the bound 2^53.
    const compiled_schema above = compiled_schema::from_json(json::parse(R"({"exclusiveMinimum": 9007199254740992})"));
    CHECK(fits(above, json(std::uint64_t{9007199254740993U})));
    CHECK_FALSE(fits(above, json(std::uint64_t{9007199254740992U})));
    CHECK_FALSE(fits(above, json(9007199254740992.0)));
    CHECK(fits(above, json(9007199254740994.0)));
    const compiled_schema below = compiled_schema::from_json(json::parse(R"({"maximum": 9007199254740993})"));
    CHECK(fits(below, json(std::uint64_t{9007199254740993U})));
    CHECK_FALSE(fits(below, json(std::uint64_t{9007199254740994U})));
    CHECK(fits(below, json(9007199254740992.0)));
    CHECK_FALSE(fits(below, json(9007199254740994.0)));
    // The ends of 64-bit integers against double bounds.
    const compiled_schema low = compiled_schema::from_json(json::parse(R"({"minimum": -9.223372036854775808e18})"));
    CHECK(fits(low, json(std::int64_t{-9223372036854775807 - 1})));
    CHECK_FALSE(fits(low, json(-9.3e18)));
    const compiled_schema high =
        compiled_schema::from_json(json::parse(R"({"exclusiveMaximum": 1.8446744073709552e19})"));
    CHECK(fits(high, json(std::uint64_t{18446744073709551615U})));
    CHECK_FALSE(fits(high, json(1.8446744073709552e19)));
    // Fractions against integer bounds, integers against fractional bounds, and -0.
    const compiled_schema range = compiled_schema::from_json(json::parse(R"({"minimum": -80, "maximum": 60.5})"));
    CHECK(fits(range, json(-80.0)));
    CHECK_FALSE(fits(range, json(-80.000001)));
    CHECK(fits(range, json(60)));
    CHECK(fits(range, json(60.5)));
    CHECK_FALSE(fits(range, json(61)));
    CHECK_FALSE(fits(range, json(std::int64_t{-81})));
    const compiled_schema zero = compiled_schema::from_json(json::parse(R"({"exclusiveMinimum": 0})"));
    CHECK_FALSE(fits(zero, json(-0.0)));
    CHECK_FALSE(fits(zero, json(0)));
    CHECK(fits(zero, json(5e-324)));
}

TEST_CASE("A number passes an item or a property by its interval exactly as the walk decides it",
          "[schema][fast_path]") {
    // The interval is taken below a node (items, properties), never at the root: the same value
    // at the root, walked in full, is the reference, and the fixture says the verdict outright.
    for (const json& group : handoff_test::read_fixture_json("schemas/number_intervals.json")) {
        INFO(group.at("description").get<std::string>());
        const json& schema = group.at("schema");
        json in_items = {{"items", schema}};
        json in_properties = {{"properties", {{"n", schema}}}};
        if (schema.contains("$schema")) {
            // The dialect is said at the root; the number's own schema keeps none.
            in_items["$schema"] = schema["$schema"];
            in_properties["$schema"] = schema["$schema"];
            in_items["items"].erase("$schema");
            in_properties["properties"]["n"].erase("$schema");
        }
        const compiled_schema whole = compiled_schema::from_json(schema);
        const compiled_schema items = compiled_schema::from_json(in_items);
        const compiled_schema properties = compiled_schema::from_json(in_properties);
        for (const json& test : group.at("tests")) {
            const json& value = test.at("data");
            const bool valid = test.at("valid").get<bool>();
            CHECK(fits(whole, value) == valid);
            CHECK(fits(items, json::array({1, value, value})) == (valid && fits(whole, json(1))));
            CHECK(fits(items, json::array({value})) == valid);
            CHECK(fits(properties, json{{"n", value}}) == valid);
        }
    }
}

TEST_CASE("A number past the walk's depth bound fails as deep as it is, interval or not", "[schema][fast_path]") {
    const int levels = handoff::detail::max_validation_depth + 1; // the leaf one level past the bound
    json bounded = {{"minimum", 0}};
    json stepped = {{"minimum", 0}, {"multipleOf", 1}}; // the same verdict on 0, walked in full
    json value = 0;
    for (int k = 0; k < levels; ++k) {
        bounded = json{{"items", bounded}};
        stepped = json{{"items", stepped}};
        value = json::array({value});
    }
    const compiled_schema with_interval = compiled_schema::from_json(bounded);
    const compiled_schema walked = compiled_schema::from_json(stepped);
    CHECK(fits(with_interval, value) == fits(walked, value));
    CHECK_FALSE(fits(with_interval, value));
    const compiled_schema one_less = compiled_schema::from_json(bounded["items"]);
    CHECK(fits(one_less, value[0])); // at the bound itself it passes
}

TEST_CASE("A schema that is only a $ref walks as its target, annotations and messages included",
          "[schema][fast_path]") {
    const compiled_schema s = compiled_schema::from_json(json::parse(R"({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$defs": {
            "base": {"properties": {"id": {"type": "string"}}},
            "alias": {"$ref": "#/$defs/base"},
            "code": {"$ref": "#/$defs/letters"},
            "letters": {"type": "string", "pattern": "^[A-Z]{2}$"}
        },
        "properties": {"country": {"$ref": "#/$defs/code"}},
        "allOf": [{"$ref": "#/$defs/alias"}],
        "unevaluatedProperties": false
    })"));
    CHECK(fits(s, json::parse(R"({"id": "x", "country": "NO"})")));
    CHECK_FALSE(fits(s, json::parse(R"({"id": 1})")));
    CHECK_FALSE(fits(s, json::parse(R"({"id": "x", "other": 1})")));
    const auto problems =
        s.validate(json::parse(R"({"id": "x", "country": "no"})"), "/partial_result", handoff::step::task_schema);
    REQUIRE(problems.size() == 1);
    CHECK(problems.front().pointer == "/partial_result/country");
    CHECK(problems.front().message.find("^[A-Z]{2}$") != std::string::npos);
}

TEST_CASE("A tagged branch of oneOf or anyOf turns away an object with another tag as its walk would",
          "[schema][fast_path]") {
    const json schema = json::parse(R"({
        "$defs": {
            "card": {"properties": {"method": {"const": "card"}, "last4": {"type": "string"}},
                     "required": ["method", "last4"]},
            "bank": {"properties": {"method": {"$ref": "#/$defs/bank_tag"}, "iban": {"type": "string"}},
                     "required": ["method"]},
            "bank_tag": {"const": "bank"},
            "loose": {"properties": {"method": {"const": "loose"}}}
        },
        "properties": {
            "one": {"oneOf": [{"$ref": "#/$defs/card"}, {"$ref": "#/$defs/bank"}, {"$ref": "#/$defs/loose"}]},
            "any": {"anyOf": [{"$ref": "#/$defs/card"}, {"$ref": "#/$defs/bank"}]},
            "not_card": {"not": {"$ref": "#/$defs/card"}}
        }
    })");
    for (const char* dialect :
         {"http://json-schema.org/draft-07/schema#", "https://json-schema.org/draft/2020-12/schema"}) {
        json with_dialect = schema;
        with_dialect["$schema"] = dialect;
        const compiled_schema s = compiled_schema::from_json(with_dialect);
        INFO(dialect);
        const auto one = [&](const char* member) { return fits(s, json{{"one", json::parse(member)}}); };
        CHECK(one(R"({"method": "card", "last4": "1234"})"));
        CHECK(one(R"({"method": "bank"})"));
        CHECK_FALSE(one(R"({"method": "card"})")); // card misses last4; loose says "loose"
        CHECK(one(R"({"method": "loose"})"));      // only loose fits
        CHECK(one(R"({"last4": "1234"})"));        // card and bank miss their tag; loose requires none
        CHECK_FALSE(one(R"("card")"));             // not an object: all three fit
        CHECK_FALSE(one(R"({"method": "cash"})"));
        CHECK_FALSE(one(R"({"method": 1})"));
        const auto any = [&](const char* member) { return fits(s, json{{"any", json::parse(member)}}); };
        CHECK(any(R"({"method": "bank", "iban": "x"})"));
        CHECK_FALSE(any(R"({"method": "Bank"})"));
        CHECK_FALSE(any(R"({})"));
        const auto not_card = [&](const char* member) { return fits(s, json{{"not_card", json::parse(member)}}); };
        CHECK(not_card(R"({"method": "bank"})"));
        CHECK_FALSE(not_card(R"({"method": "card", "last4": "1"})"));
    }
}

} // namespace test_schema_fast_paths
