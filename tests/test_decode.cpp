// SPDX-License-Identifier: MIT
// <handoff/decode.hpp>: SPEC section 3 step 1. The tolerant decode removes fences, prose and a
// BOM (and records each), strict mode removes nothing, and neither ever "fixes" broken JSON.

#include "support/fixtures.hpp"

#include <handoff/decode.hpp>
#include <handoff/schema.hpp>
#include <handoff/schema_error.hpp>
#include <handoff/schema_registry.hpp>

#include <string> // string
#include <vector> // vector

namespace test_decode { // this file's own names: see "unity build" in tests/CMakeLists.txt

using handoff::decode;
using handoff::decode_options;
using handoff::parse_limits;
using handoff::step;
using handoff::tolerance;

namespace {

const char* const object_text = R"({"a": 1})";

decode_options strict_mode() {
    decode_options o;
    o.strict = true;
    return o;
}

decode_options with_limits(const parse_limits& limits) {
    decode_options o;
    o.limits = limits;
    return o;
}

/// Decodes text that must fail with exactly one problem, and returns it.
handoff::problem only_problem(const std::string& text, const decode_options& options = {}) {
    handoff::decode_result r = decode(text, options);
    INFO("input: " << text);
    REQUIRE_FALSE(r.ok());
    REQUIRE(r.problems.size() == 1);
    CHECK(r.problems[0].step == step::parse);
    return r.problems[0];
}

} // namespace

TEST_CASE("a plain JSON object decodes with no tolerance applied", "[decode]") {
    const auto r = decode(object_text);
    REQUIRE(r.ok());
    CHECK(*r.value == nlohmann::json{{"a", 1}});
    CHECK(r.tolerances.empty());
    CHECK(r.problems.empty());
}

TEST_CASE("the tolerant decode strips code fences and records it", "[decode][tolerant]") {
    struct fenced {
        const char* label;
        std::string text;
        std::vector<tolerance> tolerances;
    };
    const auto c = GENERATE(values<fenced>({
        {"a ```json fence", "```json\n{\"a\": 1}\n```", {tolerance::code_fence}},
        {"a ```JSON fence", "```JSON\n{\"a\": 1}\n```\n", {tolerance::code_fence}},
        {"a bare ``` fence", "```\n{\"a\": 1}\n```", {tolerance::code_fence}},
        {"an unclosed fence (a truncated reply)", "```json\n{\"a\": 1}\n", {tolerance::code_fence}},
        {"a fence with prose before it",
         "Here is the envelope:\n```json\n{\"a\": 1}\n```",
         {tolerance::code_fence, tolerance::leading_prose}},
        {"a fence with prose after it",
         "```json\n{\"a\": 1}\n```\nLet me know if you need more.",
         {tolerance::code_fence, tolerance::trailing_prose}},
        {"prose inside the fence",
         "```json\nResult:\n{\"a\": 1}\n(end)\n```",
         {tolerance::code_fence, tolerance::leading_prose, tolerance::trailing_prose}},
        {"a second fenced block (only the first is read)",
         "```json\n{\"a\": 1}\n```\n```json\n{\"b\": 2}\n```",
         {tolerance::code_fence, tolerance::trailing_prose}},
    }));
    INFO(c.label);
    const auto r = decode(c.text);
    REQUIRE(r.ok());
    CHECK(*r.value == nlohmann::json{{"a", 1}});
    CHECK(r.tolerances == c.tolerances);
}

TEST_CASE("the tolerant decode drops prose around the object and records which side", "[decode][tolerant]") {
    SECTION("before") {
        const auto r = decode("Sure! Here it is: {\"a\": 1}");
        REQUIRE(r.ok());
        CHECK(r.tolerances == std::vector<tolerance>{tolerance::leading_prose});
    }
    SECTION("after") {
        const auto r = decode("{\"a\": 1}\nHope this helps.");
        REQUIRE(r.ok());
        CHECK(r.tolerances == std::vector<tolerance>{tolerance::trailing_prose});
    }
    SECTION("both") {
        const auto r = decode("Result: {\"a\": 1} -- done");
        REQUIRE(r.ok());
        CHECK(*r.value == nlohmann::json{{"a", 1}});
        CHECK(r.tolerances == std::vector<tolerance>{tolerance::leading_prose, tolerance::trailing_prose});
    }
    SECTION("whitespace alone is not prose") {
        const auto r = decode("\n\n  {\"a\": 1}  \n");
        REQUIRE(r.ok());
        CHECK(r.tolerances.empty());
    }
}

TEST_CASE("the tolerant decode removes a UTF-8 byte order mark and records it", "[decode][tolerant]") {
    SECTION("alone") {
        const auto r = decode("\xEF\xBB\xBF{\"a\": 1}");
        REQUIRE(r.ok());
        CHECK(r.tolerances == std::vector<tolerance>{tolerance::byte_order_mark});
    }
    SECTION("before a fence") {
        const auto r = decode("\xEF\xBB\xBF```json\n{\"a\": 1}\n```");
        REQUIRE(r.ok());
        CHECK(r.tolerances == std::vector<tolerance>{tolerance::byte_order_mark, tolerance::code_fence});
    }
}

TEST_CASE("backticks inside the JSON are not a fence around it", "[decode][tolerant]") {
    // A worker quoting markdown in a string value: the object starts before the backticks.
    const std::string text = "{\n  \"notes\": \"wrap it in ```json fences\",\n  \"n\": {\"x\": 1}\n}";
    const auto r = decode(text);
    REQUIRE(r.ok());
    CHECK((*r.value)["notes"] == "wrap it in ```json fences");
    CHECK(r.tolerances.empty());
}

TEST_CASE("an object in inline backticks is found as prose around it", "[decode][tolerant]") {
    const auto r = decode("```{\"a\": 1}```");
    REQUIRE(r.ok());
    CHECK(*r.value == nlohmann::json{{"a", 1}});
    CHECK(r.tolerances == std::vector<tolerance>{tolerance::leading_prose, tolerance::trailing_prose});
}

TEST_CASE("tolerance names are stable strings", "[decode]") {
    CHECK(handoff::to_string(tolerance::byte_order_mark) == "byte_order_mark");
    CHECK(handoff::to_string(tolerance::code_fence) == "code_fence");
    CHECK(handoff::to_string(tolerance::leading_prose) == "leading_prose");
    CHECK(handoff::to_string(tolerance::trailing_prose) == "trailing_prose");
}

TEST_CASE("strict mode refuses every tolerance the default mode applies", "[decode][strict]") {
    SECTION("a fence") {
        const auto p = only_problem("```json\n{\"a\": 1}\n```", strict_mode());
        CHECK(p.code == "parse.syntax");
        CHECK(p.pointer.empty());
        CHECK(p.message == "(document): invalid JSON, parse error at line 1, column 1: syntax error while "
                           "parsing value - invalid literal; last read: \"`\"");
    }
    SECTION("leading prose") {
        const auto p = only_problem("Here: {\"a\": 1}", strict_mode());
        CHECK(p.code == "parse.syntax");
        CHECK(p.message == "(document): invalid JSON, parse error at line 1, column 1: syntax error while "
                           "parsing value - invalid literal; last read: \"H\"");
    }
    SECTION("trailing prose") {
        const auto p = only_problem("{\"a\": 1} ok", strict_mode());
        CHECK(p.code == "parse.syntax");
        CHECK(p.message == "(document): invalid JSON, parse error at line 1, column 10: syntax error while "
                           "parsing value - invalid literal; expected end of input; last read: \"1} o\"");
    }
    SECTION("a byte order mark") {
        const auto p = only_problem("\xEF\xBB\xBF{\"a\": 1}", strict_mode());
        CHECK(p.code == "parse.byte_order_mark");
        CHECK(p.pointer.empty());
        CHECK(p.message == "the reply starts with a UTF-8 byte order mark; strict mode accepts plain JSON only");
    }
}

TEST_CASE("strict mode accepts JSON's own whitespace and records nothing", "[decode][strict]") {
    const auto r = decode(" \n\t{\"a\": 1}\r\n ", strict_mode());
    REQUIRE(r.ok());
    CHECK(*r.value == nlohmann::json{{"a", 1}});
    CHECK(r.tolerances.empty());
}

TEST_CASE("strict mode parses any JSON value, and step 2 decides whether it is an envelope", "[decode][strict]") {
    const auto r = decode("[1, 2]", strict_mode());
    REQUIRE(r.ok());
    CHECK(r.value->is_array());
}

TEST_CASE("a reply with no object in it says so", "[decode]") {
    SECTION("empty") {
        const auto p = only_problem("");
        CHECK(p.code == "parse.no_object");
        CHECK(p.pointer.empty());
        CHECK(p.message == "the reply is empty: expected one JSON object");
    }
    SECTION("blank") { CHECK(only_problem(" \n\t ").message == "the reply is empty: expected one JSON object"); }
    SECTION("an apology") {
        const auto p = only_problem("I'm sorry, I could not finish the task.");
        CHECK(p.code == "parse.no_object");
        CHECK(p.message == "no JSON object found: the reply has no '{' ... '}' span");
    }
    SECTION("an array") { CHECK(only_problem("[1, 2]").code == "parse.no_object"); }
    SECTION("an object cut off before its closing brace") {
        CHECK(only_problem("{\"a\": [1, 2").code == "parse.no_object");
    }
}

TEST_CASE("single quotes are rejected, never fixed, with a hint", "[decode][reject]") {
    SECTION("as a key") {
        const auto p = only_problem("{'a': 1}");
        CHECK(p.code == "parse.syntax");
        CHECK(p.pointer.empty());
        CHECK(p.message == "(document): invalid JSON, parse error at line 1, column 2: syntax error while "
                           "parsing object key - invalid literal; expected string literal; last read: \"{'\" "
                           "(JSON strings take double quotes)");
    }
    SECTION("as a value") {
        const auto p = only_problem("{\"a\": 'x'}");
        CHECK(p.pointer == "/a");
        CHECK(p.message == "/a: invalid JSON, parse error at line 1, column 7: syntax error while parsing "
                           "value - invalid literal; last read: \"\\\"a\\\": '\" (JSON strings take double quotes)");
    }
    SECTION("as an array item, named by its index") {
        const auto p = only_problem("{\"a\": [1, 'x']}");
        CHECK(p.pointer == "/a/1");
        CHECK_THAT(p.message, Catch::Matchers::ContainsSubstring("(JSON strings take double quotes)"));
    }
}

TEST_CASE("trailing commas are rejected, never fixed, with a hint", "[decode][reject]") {
    SECTION("in an object") {
        const auto p = only_problem("{\"a\": 1,}");
        CHECK(p.code == "parse.syntax");
        CHECK(p.pointer == "/a");
        CHECK(p.message == "/a: invalid JSON, parse error at line 1, column 9: syntax error while parsing "
                           "object key - unexpected '}'; expected string literal; last read: \"1,}\" "
                           "(a trailing comma is not JSON)");
    }
    SECTION("in an array") {
        const auto p = only_problem("{\"a\": [1, 2,]}");
        CHECK(p.pointer == "/a/2");
        CHECK(p.message == "/a/2: invalid JSON, parse error at line 1, column 13: syntax error while parsing "
                           "value - unexpected ']'; expected '[', '{', or a literal; last read: \"2,]\" "
                           "(a trailing comma is not JSON)");
    }
}

TEST_CASE("comments are rejected, never skipped, with a hint", "[decode][reject]") {
    SECTION("a line comment") {
        const auto p = only_problem("{\"a\": 1 // the count\n}");
        CHECK(p.code == "parse.syntax");
        CHECK(p.message == "/a: invalid JSON, parse error at line 1, column 9: syntax error while parsing "
                           "object - invalid literal; expected '}'; last read: \"1 /\" (comments are not JSON)");
    }
    SECTION("a block comment") {
        const auto p = only_problem("{/* envelope */\"a\": 1}");
        CHECK(p.message == "(document): invalid JSON, parse error at line 1, column 2: syntax error while "
                           "parsing object key - invalid literal; expected string literal; last read: \"{/\" "
                           "(comments are not JSON)");
    }
    SECTION("also in strict mode") {
        CHECK_THAT(only_problem("{\"a\": 1 /* x */}", strict_mode()).message,
                   Catch::Matchers::ContainsSubstring("(comments are not JSON)"));
    }
}

TEST_CASE("NaN and Infinity are rejected, never read as numbers, with a hint", "[decode][reject]") {
    SECTION("NaN") {
        const auto p = only_problem("{\"fraction\": NaN}");
        CHECK(p.code == "parse.syntax");
        CHECK(p.pointer == "/fraction");
        CHECK(p.message == "/fraction: invalid JSON, parse error at line 1, column 14: syntax error while "
                           "parsing value - invalid literal; last read: \"\\\"fraction\\\": N\" "
                           "(NaN and Infinity are not JSON numbers)");
    }
    SECTION("Infinity") {
        CHECK_THAT(only_problem("{\"a\": Infinity}").message,
                   Catch::Matchers::ContainsSubstring("(NaN and Infinity are not JSON numbers)"));
    }
    SECTION("-Infinity") {
        const auto p = only_problem("{\"a\": -Infinity}");
        CHECK(p.message == "/a: invalid JSON, parse error at line 1, column 8: syntax error while parsing "
                           "value - invalid number; expected digit after '-'; last read: \"-I\" "
                           "(NaN and Infinity are not JSON numbers)");
    }
}

TEST_CASE("a duplicated key is refused wherever it occurs", "[decode][reject]") {
    SECTION("at the top") {
        const auto p = only_problem(R"({"status": "ok", "status": "capped"})");
        CHECK(p.code == "parse.duplicate_key");
        CHECK(p.pointer == "/status");
        CHECK(p.message == "/status: duplicate key \"status\": each key may appear once, so every reader "
                           "sees the same value");
    }
    SECTION("nested, with pointer escaping") {
        const auto p = only_problem(R"({"a/b": {"m~n": 1, "m~n": 2}})");
        CHECK(p.pointer == "/a~1b/m~0n");
    }
    SECTION("spelled with an escape") { CHECK(only_problem(R"({"a": 1, "\u0061": 2})").code == "parse.duplicate_key"); }
    SECTION("equal keys in different objects are fine") { CHECK(decode(R"({"a": {"x": 1}, "b": {"x": 2}})").ok()); }
}

TEST_CASE("numbers that do not fit are refused, not rounded", "[decode][reject]") {
    SECTION("1e400 overflows a double") {
        const auto p = only_problem(R"({"a": 1e400})");
        CHECK(p.code == "parse.syntax");
        CHECK(p.pointer == "/a");
        CHECK(p.message == "/a: invalid JSON, number overflow parsing; last read: \"1e400\"");
    }
    SECTION("1e400 inside an array names its index") { CHECK(only_problem(R"({"a": [1, 1e400]})").pointer == "/a/1"); }
    SECTION("2^64 does not fit an unsigned 64-bit integer") {
        const auto p = only_problem(R"({"coverage": {"items_expected": 18446744073709551616}})");
        CHECK(p.code == "parse.number_range");
        CHECK(p.pointer == "/coverage/items_expected");
        CHECK(p.message == "/coverage/items_expected: integer \"18446744073709551616\" does not fit in 64 bits");
    }
    SECTION("below -2^63") {
        const auto p = only_problem(R"({"a": [0, -9223372036854775809]})");
        CHECK(p.code == "parse.number_range");
        CHECK(p.pointer == "/a/1");
    }
    SECTION("2^64 - 1 still fits") {
        const auto r = decode(R"({"a": 18446744073709551615})");
        REQUIRE(r.ok());
        CHECK((*r.value)["a"].get<std::uint64_t>() == 18446744073709551615ULL);
    }
}

TEST_CASE("ill-formed UTF-8 is rejected and never echoed raw", "[decode][reject]") {
    const auto p = only_problem("{\"a\": \"\xff\"}");
    CHECK(p.code == "parse.syntax");
    CHECK(p.pointer == "/a");
    CHECK(p.message == "/a: invalid JSON, parse error at line 1, column 8: syntax error while parsing value - "
                       "invalid string: ill-formed UTF-8 byte; last read: \"\\\"\\xff\"");
    // The message is valid UTF-8, so a receipt holding it can be written as JSON.
    CHECK_NOTHROW(nlohmann::json(p.message).dump());
}

TEST_CASE("the byte limit is checked before anything is read", "[decode][limits]") {
    parse_limits limits;
    limits.max_bytes = 8;
    CHECK(decode(object_text, with_limits(limits)).ok()); // exactly 8 bytes
    const auto p = only_problem(R"({"a": 12})", with_limits(limits));
    CHECK(p.code == "parse.limit.bytes");
    CHECK(p.pointer.empty());
    CHECK(p.message == "the reply exceeds the limit of 8 bytes");
}

TEST_CASE("the depth limit names the container that goes one level too deep", "[decode][limits]") {
    parse_limits limits;
    limits.max_depth = 3;
    CHECK(decode(R"({"a": {"b": {"c": 1}}})", with_limits(limits)).ok());
    SECTION("objects") {
        const auto p = only_problem(R"({"a": {"b": {"c": {}}}})", with_limits(limits));
        CHECK(p.code == "parse.limit.depth");
        CHECK(p.pointer == "/a/b/c");
        CHECK(p.message == "/a/b/c: nesting deeper than 3 levels is over the limit");
    }
    SECTION("arrays") {
        CHECK(only_problem(R"({"a": [[[1]]]})", with_limits(limits)).pointer == "/a/0/0");
        CHECK(only_problem(R"({"a": [0, [1, [2]]]})", with_limits(limits)).pointer == "/a/1/1");
    }
}

TEST_CASE("the string limit counts bytes after unescaping and covers keys", "[decode][limits]") {
    parse_limits limits;
    limits.max_string_bytes = 4;
    CHECK(decode(R"({"a": "\u00e9\u00e9"})", with_limits(limits)).ok()); // 4 bytes of UTF-8
    SECTION("a value") {
        const auto p = only_problem(R"({"a": "\u00e9\u00e9\u00e9"})", with_limits(limits));
        CHECK(p.code == "parse.limit.string");
        CHECK(p.pointer == "/a");
        CHECK(p.message == "/a: a string of 6 bytes is over the limit of 4 bytes");
    }
    SECTION("an array item") {
        const auto p = only_problem(R"({"a": ["ok", "too long"]})", with_limits(limits));
        CHECK(p.pointer == "/a/1");
        CHECK(p.message == "/a/1: a string of 8 bytes is over the limit of 4 bytes");
    }
    SECTION("a key, reported at its parent") {
        const auto p = only_problem(R"({"a": {"bcdef": 1}})", with_limits(limits));
        CHECK(p.code == "parse.limit.string");
        CHECK(p.pointer == "/a");
        CHECK(p.message == "/a: a key of 5 bytes is over the limit of 4 bytes");
    }
}

TEST_CASE("the item limit names the first item over it", "[decode][limits]") {
    parse_limits limits;
    limits.max_container_items = 3;
    CHECK(decode(R"({"a": [1, 2, 3], "b": {"w": 1, "x": 2, "y": 3}})", with_limits(limits)).ok());
    SECTION("array items") {
        const auto p = only_problem(R"({"a": [1, 2, 3, 4]})", with_limits(limits));
        CHECK(p.code == "parse.limit.items");
        CHECK(p.pointer == "/a/3");
        CHECK(p.message == "/a/3: an array with more than 3 items is over the limit");
    }
    SECTION("object keys") {
        const auto p = only_problem(R"({"a": {"w": 1, "x": 2, "y": 3, "z": 4}})", with_limits(limits));
        CHECK(p.code == "parse.limit.items");
        CHECK(p.pointer == "/a/z");
        CHECK(p.message == "/a/z: an object with more than 3 keys is over the limit");
    }
}

TEST_CASE("the value limit counts every value, containers included", "[decode][limits]") {
    parse_limits limits;
    limits.max_values = 5;
    CHECK(decode(R"({"a": [1, 2, 3]})", with_limits(limits)).ok()); // object, array, three numbers
    SECTION("in an array") {
        const auto p = only_problem(R"({"a": [1, 2, 3, 4]})", with_limits(limits));
        CHECK(p.code == "parse.limit.values");
        CHECK(p.pointer == "/a/3");
        CHECK(p.message == "/a/3: more than 5 values in one reply is over the limit");
    }
    SECTION("in an object") {
        const auto p = only_problem(R"({"a": {"b": 1, "c": 2, "d": 3, "e": 4}})", with_limits(limits));
        CHECK(p.pointer == "/a/e");
    }
}

TEST_CASE("the default limits admit a realistic envelope and refuse a deeply nested one", "[decode][limits]") {
    CHECK(decode(handoff_test::read_fixture("envelopes/seed_000_example.json")).ok());
    const std::string deep = "{\"a\": " + std::string(100, '[') + std::string(100, ']') + "}";
    const auto p = only_problem(deep);
    CHECK(p.code == "parse.limit.depth");
    CHECK(p.message == "/a" + [] {
        std::string s;
        for (int i = 0; i < 63; ++i) { // the arrays at depths 2..64
            s += "/0";
        }
        return s;
    }() + ": nesting deeper than 64 levels is over the limit");
}

// A schema file or handoff's own schema text is read as nlohmann::json::parse reads it; only a
// reply is held to the reply's limits and refusals.
TEST_CASE("a document is read as nlohmann reads it: last repeated key, wide integers, no limits",
          "[decode][document]") {
    const std::string text = handoff_test::read_fixture("documents/as_nlohmann_reads.schema.json");
    const auto document = handoff::detail::parse_document(text);
    REQUIRE(document.has_value());
    CHECK(*document == nlohmann::json::parse(text));
    CHECK(document->at("title") == "a schema file that a reply could not be");
    CHECK(document->at("properties").at("count").at("maximum") == 10);
    CHECK(only_problem(text, strict_mode()).code == "parse.number_range"); // as a reply: the wide integer
    const nlohmann::json file =
        handoff::schema_registry::read_json_file(handoff_test::fixture_path("documents/as_nlohmann_reads.schema.json"));
    CHECK(file == *document);
    const std::string deep =
        std::string(300, '[') + std::string(70 * 1024, 'x').insert(0, "\"").append("\"") + std::string(300, ']');
    const auto nested = handoff::detail::parse_document(deep);
    REQUIRE(nested.has_value());
    CHECK(*nested == nlohmann::json::parse(deep));
}

TEST_CASE("a document that is not JSON is refused with the reason", "[decode][document]") {
    handoff::problem why;
    CHECK_FALSE(handoff::detail::parse_document(handoff_test::read_fixture("lint/not_json.schema.json"), &why));
    CHECK(why.code == "parse.syntax");
    CHECK(why.message.find("parse error at line 4, column 1") != std::string::npos);
    CHECK_FALSE(handoff::detail::parse_document(std::string("{}\0{}", 5), &why));
    CHECK(why.code == "parse.nul_byte");
    try {
        (void)handoff::schema_registry::read_json_file(handoff_test::fixture_path("lint/not_json.schema.json"));
        FAIL("no schema_error");
    } catch (const handoff::schema_error& e) {
        const std::string what = e.what();
        CHECK(what.find("not_json.schema.json is not valid JSON: ") != std::string::npos);
        CHECK(what.find("parse error at line 4, column 1") != std::string::npos);
    }
}

} // namespace test_decode
