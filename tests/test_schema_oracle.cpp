// SPDX-License-Identifier: MIT
// compiled_schema against valijson, the independent oracle, on schemas valijson reads right
// (no $id games, integers within int64, no 1.0-as-integer, no NUL in strings): generated
// values must get the same verdict from both, and from both of handoff's modes.

#include "support/catch.hpp"
#include "support/valijson.hpp"

#include <handoff/handoff.hpp>

#include <nlohmann/json.hpp>

#include <random>  // mt19937
#include <string>  // string
#include <utility> // pair
#include <vector>  // vector

namespace test_schema_oracle { // this file's own names: see "unity build" in tests/CMakeLists.txt

using nlohmann::json;

namespace {

class valijson_oracle {
public:
    explicit valijson_oracle(const json& schema) {
        valijson::SchemaParser parser(valijson::SchemaParser::kDraft7);
        const valijson::adapters::NlohmannJsonAdapter adapter(schema);
        parser.populateSchema(adapter, schema_);
    }
    bool accepts(const json& value) {
        const valijson::adapters::NlohmannJsonAdapter target(value);
        return validator_.validate(schema_, target, nullptr);
    }

private:
    valijson::Schema schema_;
    valijson::Validator validator_;
};

/// Small values that reach every keyword's edges: few keys, short strings, small numbers,
/// doubles never integral (valijson and draft-07 disagree on 1.0).
json random_value(std::mt19937& rng, int depth) {
    const auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
    static const char* const keys[] = {"a", "b", "c", "z", "id", "aa"};
    static const char* const strings[] = {"", "a", "ab", "abc", "abcd", "2024-02-29", "x1", "AB-12", "aaa"};
    switch (pick(depth >= 3 ? 5 : 7)) {
    case 0: return nullptr;
    case 1: return pick(2) == 0;
    case 2: return pick(13) - 6;
    case 3: return pick(13) - 6 + 0.5;
    case 4: return strings[pick(9)];
    case 5: {
        json a = json::array();
        for (int n = pick(4); n > 0; --n) {
            a.push_back(random_value(rng, depth + 1));
        }
        return a;
    }
    default: {
        json o = json::object();
        for (int n = pick(4); n > 0; --n) {
            o[keys[pick(6)]] = random_value(rng, depth + 1);
        }
        return o;
    }
    }
}

/// A schema and values it accepts that random values seldom are (a JSON array): every schema
/// must see both verdicts, or a validator that refused (or accepted) everything would pass.
struct oracle_case {
    const char* schema;
    const char* members = "[]";
};

const oracle_case cases[] = {
    {R"({"type":["integer","null"],"minimum":-2,"exclusiveMaximum":4})"},
    {R"({"type":"number","exclusiveMinimum":0,"maximum":1.5})"},
    {R"({"type":"string","minLength":2,"maxLength":3,"enum":["ab","abcd","x","abc"]})"},
    {R"({"pattern":"^[a-c]+$","maxLength":3})"},
    {R"({"pattern":"b"})"},
    {R"({"type":"array","minItems":1,"maxItems":2,"items":{"type":"boolean"}})"},
    {R"({"items":[{"type":"integer"},{"type":"string"}],"additionalItems":false})"},
    {R"({"items":[{"type":"integer"}],"additionalItems":{"type":"null"}})"},
    {R"({"uniqueItems":true})"},
    {R"({"contains":{"type":"string","minLength":3}})"},
    {R"({"type":"object","minProperties":1,"maxProperties":2,"required":["a","z"],"properties":{"a":{"type":"string"}},"additionalProperties":{"type":"integer"}})",
     R"([{"a":"","z":0},{"a":"abc","z":-6}])"},
    {R"({"patternProperties":{"^a":{"type":"integer"},"z$":{"type":"string"}},"additionalProperties":false})"},
    {R"({"dependencies":{"a":["b"],"c":{"required":["z"]}}})"},
    {R"({"propertyNames":{"maxLength":1}})"},
    {R"({"propertyNames":{"pattern":"^[a-c]+$"}})"},
    {R"({"anyOf":[{"type":"string"},{"type":"integer","minimum":0}]})"},
    {R"({"oneOf":[{"type":"integer"},{"minimum":2}]})"},
    {R"({"allOf":[{"type":"object"},{"required":["a"]}]})"},
    {R"({"not":{"type":["object","array"]}})"},
    {R"({"if":{"type":"integer"},"then":{"minimum":0},"else":{"type":"string"}})"},
    {R"({"const":{"a":[1,"x"]}})", R"([{"a":[1,"x"]}])"},
    {R"({"enum":[null,1,"a",[1],{"a":1}]})"},
    {R"({"type":"integer","multipleOf":3})"}, // valijson calls 3.5 a multiple of 3: integers only
    {R"({"type":"integer","multipleOf":2,"maximum":4})"},
    {R"({"definitions":{"n":{"type":["integer","array"],"items":{"$ref":"#/definitions/n"}}},"$ref":"#/definitions/n"})"},
    {R"({"properties":{"a":{"$ref":"#"},"b":{"type":"string"}},"additionalProperties":false})"},
    {R"({"properties":{"a":true,"b":false}})"},
    {R"({"type":"object","properties":{"id":{"type":"string","pattern":"^[a-z]+$"}},"required":["id"]})"},
};

} // namespace

TEST_CASE("compiled_schema and valijson give every generated value the same verdict", "[schema][oracle]") {
    std::mt19937 rng(20261130);
    for (const oracle_case& c : cases) {
        const json schema = json::parse(c.schema);
        INFO("schema: " << c.schema);
        const auto handoff_schema = handoff::compiled_schema::from_json(schema);
        valijson_oracle oracle(schema);
        std::vector<json> values = json::parse(c.members).get<std::vector<json>>();
        for (const json& member : values) {
            INFO("member: " << member.dump());
            CHECK(oracle.accepts(member));
        }
        for (int i = 0; i < 400; ++i) {
            values.push_back(random_value(rng, 0));
        }
        int accepted = 0;
        int refused = 0;
        for (const json& value : values) {
            INFO("value: " << value.dump());
            const bool expected = oracle.accepts(value);
            CHECK(handoff_schema.accepts(value) == expected);
            CHECK(handoff_schema.validate(value, "", handoff::step::task_schema).empty() == expected);
            ++(expected ? accepted : refused);
        }
        CHECK(accepted > 0);
        CHECK(refused > 0);
    }
}

TEST_CASE("integers at the edges of 64 bits are compared exactly, never wrapped or rounded", "[schema][numbers]") {
    const auto max_i64 = handoff::compiled_schema::from_json(json::parse(R"({"maximum":9223372036854775807})"));
    CHECK(max_i64.accepts(json(9223372036854775807LL)));
    CHECK_FALSE(max_i64.accepts(json(9223372036854775808ULL)));
    CHECK_FALSE(max_i64.accepts(json(18446744073709551615ULL)));
    const auto min0 = handoff::compiled_schema::from_json(json::parse(R"({"minimum":0})"));
    CHECK(min0.accepts(json(18446744073709551615ULL)));
    CHECK_FALSE(min0.accepts(json(-9223372036854775807LL - 1)));
    const auto exact = handoff::compiled_schema::from_json(json::parse(R"({"maximum":9007199254740992})"));
    CHECK_FALSE(exact.accepts(json(9007199254740993LL))); // 2^53 + 1 rounds to 2^53 as a double
    const auto big_double = handoff::compiled_schema::from_json(json::parse(R"({"exclusiveMaximum":1e19})"));
    CHECK_FALSE(big_double.accepts(json(18446744073709551615ULL)));
    CHECK(big_double.accepts(json(9999999999999999999ULL)));
}

} // namespace test_schema_oracle
