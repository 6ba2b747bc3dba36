// SPDX-License-Identifier: MIT
// Regular expressions and the other places where a string a worker wrote could crash, hang or
// slip past task-schema validation. Patterns run on handoff's own linear ECMA-262 engine
// (detail/regex/), under a length bound (schema_options).

#include "support/fixtures.hpp"
#include "support/hang_guard.hpp"

#include <handoff/detail/schema/format_check.hpp>
#include <handoff/detail/schema/value_generator.hpp>
#include <handoff/handoff.hpp>

#include <nlohmann/json.hpp>

#include <algorithm> // any_of
#include <chrono>    // steady_clock
#include <cstdint>   // uint64_t
#include <optional>  // optional
#include <string>    // string
#include <utility>   // move

#if defined(__unix__) || defined(__APPLE__)
#include <pthread.h> // a thread with a small stack
#define HANDOFF_TEST_PTHREADS 1
#endif

namespace test_schema_safety { // this file's own names: see "unity build" in tests/CMakeLists.txt

using handoff::compiled_schema;
using handoff::schema_error;
using handoff::step;
using nlohmann::json;

namespace {

/// The schema_error message for `schema`, or "" when it compiles.
std::string refusal(const json& schema) {
    try {
        (void)compiled_schema::from_json(schema);
        return "";
    } catch (const schema_error& e) {
        return e.what();
    }
}

json string_schema(const char* pattern, json max_length) {
    json s = {{"type", "string"}, {"pattern", pattern}};
    if (!max_length.is_null()) {
        s["maxLength"] = std::move(max_length);
    }
    return {{"type", "object"}, {"properties", {{"a", s}}}};
}

handoff::problem_list validate(const compiled_schema& s, const json& value) {
    return s.validate(value, "/partial_result", step::task_schema);
}

/// A 2020-12 schema of `count` definitions, each an object whose "next" is the next one.
json definition_chain(int count) {
    json defs = json::object();
    for (int i = 0; i < count; ++i) {
        json d = {{"type", "object"}, {"properties", {{"n", {{"type", "integer"}}}}}};
        if (i + 1 < count) {
            d["properties"]["next"] = {{"$ref", "#/$defs/d" + std::to_string(i + 1)}};
        }
        defs["d" + std::to_string(i)] = std::move(d);
    }
    return {{"$schema", "https://json-schema.org/draft/2020-12/schema"}, {"$ref", "#/$defs/d0"}, {"$defs", defs}};
}

const std::string bound_message_tail =
    " characters long, over the 4096 that a pattern is ever run on (schema_options::max_pattern_subject), so it "
    "fails the pattern at ";

} // namespace

TEST_CASE("a pattern without maxLength compiles and a string over the bound fails it unread",
          "[schema-safety][regex]") {
    STATIC_REQUIRE(handoff::schema_options{}.max_pattern_subject == 4096);
    const compiled_schema s = compiled_schema::from_json(string_schema("^a+$", nullptr));
    CHECK(s.is_valid({{"a", std::string(4096, 'a')}}));
    const json over = {{"a", std::string(4097, 'a')}};
    CHECK_FALSE(s.is_valid(over));
    const auto problems = validate(s, over);
    REQUIRE(problems.size() == 1);
    CHECK(problems[0].pointer == "/partial_result/a");
    CHECK(problems[0].message ==
          "/partial_result/a: the string is 4097" + bound_message_tail + "/properties/a/pattern");
    SECTION("the bound is one option, passed when compiling and through receiver_options") {
        handoff::schema_options roomy;
        roomy.max_pattern_subject = 10'000;
        CHECK(compiled_schema::from_json(string_schema("^a+$", nullptr), roomy).is_valid(over));
        handoff::receiver_options o;
        o.schema = roomy;
        const handoff::receiver<> rx(string_schema("^a+$", nullptr), o);
        REQUIRE(rx.task_schema().has_value());
        CHECK(rx.task_schema()->is_valid(over));
    }
    SECTION("the product fixture: a sku pattern without maxLength") {
        const compiled_schema product =
            compiled_schema::from_file(handoff_test::fixture_path("schemas/product_sku.schema.json"));
        CHECK(product.is_valid({{"sku", "AB-1234"}, {"name", "Widget"}}));
        CHECK_FALSE(product.is_valid({{"sku", "ab"}, {"name", "Widget"}}));
        const auto long_sku =
            product.validate({{"sku", std::string(5000, 'A')}, {"name", "Widget"}}, "", step::task_schema);
        REQUIRE(long_sku.size() == 1);
        CHECK_THAT(long_sku[0].message, Catch::Matchers::StartsWith("/sku: the string is 5000 characters long"));
    }
    SECTION("a property named \"pattern\" is not the keyword") {
        CHECK(refusal(json::parse(R"({"properties": {"pattern": {"type": "string"}}})")).empty());
    }
}

TEST_CASE("a regex that is not ECMA-262 is refused when the schema is compiled, not when it validates",
          "[schema-safety][regex]") {
    CHECK_THAT(
        refusal(string_schema("(a", 10)),
        Catch::Matchers::StartsWith("handoff: schema /properties/a/pattern: not an ECMA-262 regular expression"));
    CHECK_THAT(
        refusal(json::parse(R"({"patternProperties": {"[a-": {}}})")),
        Catch::Matchers::StartsWith("handoff: schema /patternProperties/[a-: not an ECMA-262 regular expression"));
    CHECK(refusal(json::parse(R"({"properties": {"a": {"$ref": "#/nowhere"}}})")) ==
          "handoff: schema /properties/a: $ref \"#/nowhere\" points to nothing in this schema");
    CHECK(refusal(json::parse(R"({"maxLength": -1})")) ==
          "handoff: schema /maxLength: \"maxLength\" must be a non-negative integer");
    // Back-references are ECMA-262: they compile, and run under the engine's work budget.
    CHECK(refusal(string_schema("^(a)\\1$", 10)).empty());
    const compiled_schema backref = compiled_schema::from_json(string_schema("^(a+)\\1$", nullptr));
    CHECK(backref.is_valid({{"a", "aaaa"}}));
    CHECK_FALSE(backref.is_valid({{"a", "aaa"}}));
}

TEST_CASE("a megabyte string against a pathological pattern fails the bound, never reaches the regex",
          "[schema-safety][regex]") {
    const compiled_schema s = compiled_schema::from_json(string_schema("(a|b)*c", nullptr));
    const auto started = std::chrono::steady_clock::now();
    const auto problems = validate(s, {{"a", std::string(1024 * 1024, 'a')}});
    CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(5));
    REQUIRE(problems.size() == 1);
    CHECK(problems[0].pointer == "/partial_result/a");
    CHECK(problems[0].message ==
          "/partial_result/a: the string is 1048576" + bound_message_tail + "/properties/a/pattern");
    CHECK_FALSE(s.is_valid({{"a", std::string(1024 * 1024, 'a')}}));
    SECTION("and with the bound raised to a megabyte, the linear engine still finishes fast") {
        handoff::schema_options huge;
        huge.max_pattern_subject = 2 * 1024 * 1024;
        const compiled_schema unbounded = compiled_schema::from_json(string_schema("(a|b)*", nullptr), huge);
        const auto t0 = std::chrono::steady_clock::now();
        CHECK(unbounded.is_valid({{"a", std::string(1024 * 1024, 'a')}}));
        CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(10));
    }
}

TEST_CASE("a megabyte through receive: a contract failure with a problem, not a crash", "[schema-safety][regex]") {
    const handoff::receiver<> rx(handoff_test::read_fixture_json("schemas/patterned_items.schema.json"));
    const std::string big(1024 * 1024 - 512, 'a');
    const std::string text = R"({"status":"ok","partial_result":{"items":[{"sku":"ABC-1234","code":")" + big +
                             R"("}]},"schema_ok":true,"coverage":{"items_expected":1,"items_completed":1,)"
                             R"("unit":"items","fraction":1},"steps":{"completed":[],"remaining":[]}})";
    handoff::parse_limits roomy;
    roomy.max_string_bytes = 1024 * 1024; // let the string through the parser to the schema
    handoff::receiver_options o;
    o.limits = roomy;
    const handoff::receiver<> rx_roomy(handoff_test::read_fixture_json("schemas/patterned_items.schema.json"), o);
    SECTION("the default limits refuse it while parsing") {
        const auto r = rx.receive(text);
        CHECK(r.route == handoff::route::repair);
        CHECK(r.failed_step == step::parse);
        REQUIRE(r.problems.size() == 1);
        CHECK(r.problems[0].code == "parse.limit.string");
    }
    SECTION("with the string limit raised, maxLength and the pattern bound refuse it") {
        const auto r = rx_roomy.receive(text);
        CHECK(r.route == handoff::route::repair);
        CHECK(r.failed_step == step::task_schema);
        REQUIRE(r.problems.size() == 2);
        CHECK(r.problems[0].pointer == "/partial_result/items/0/code");
        CHECK_THAT(r.problems[0].message,
                   Catch::Matchers::StartsWith("/partial_result/items/0/code: must be at most 4096 characters long"));
        CHECK_THAT(r.problems[1].message, Catch::Matchers::Contains("max_pattern_subject"));
    }
}

TEST_CASE("patterns run in linear time: no catastrophic backtracking up to the bound", "[schema-safety][regex]") {
    // ^(a+)+$ against "aaa...ab" takes 2^n steps in a backtracking matcher.
    const compiled_schema s = compiled_schema::from_json(string_schema("^(a+)+$", nullptr));
    const auto started = std::chrono::steady_clock::now();
    CHECK_FALSE(s.is_valid({{"a", std::string(4095, 'a') + "b"}}));
    CHECK(s.is_valid({{"a", std::string(4096, 'a')}}));
    const compiled_schema unanchored = compiled_schema::from_json(string_schema("(a|b)*c", nullptr));
    CHECK_FALSE(unanchored.is_valid({{"a", std::string(4096, 'a')}}));
    CHECK(unanchored.is_valid({{"a", std::string(4095, 'a') + "c"}}));
    CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(5));
}

TEST_CASE("patterns keep ECMAScript search semantics", "[schema-safety][regex]") {
    struct match_case {
        const char* pattern;
        const char* subject;
        bool matches;
    };
    const auto c = GENERATE(values<match_case>({
        {"b", "abc", true},   // a search, not a full match
        {"^b", "abc", false}, // ^ is the start of the string, not of the search
        {"c$", "abc", true},
        {"a$", "abc", false},
        {"^$", "", true},
        {"x|^a", "abc", true}, // a top-level alternation stays whole
        {"^[A-Z]{3}-[0-9]{4}$", "ABC-1234", true},
        {"^[A-Z]{3}-[0-9]{4}$", "ABC-12345", false},
        {"(?:ab)+", "xxabab", true},
        {"\\d", "a\nb", false},
        {".", "\n", false},             // '.' is not a line terminator
        {"caf.$", "caf\xC3\xA9", true}, // '.' is one code point
        {"(?=a)a", "a", true},
    }));
    INFO(c.pattern << " against " << c.subject);
    const compiled_schema s = compiled_schema::from_json(string_schema(c.pattern, 100));
    CHECK(s.is_valid({{"a", c.subject}}) == c.matches);
    CHECK(validate(s, {{"a", c.subject}}).empty() == c.matches);
}

#if HANDOFF_TEST_PTHREADS
namespace {

struct on_small_stack {
    const compiled_schema* schema;
    json value;
    bool valid = true;
};

/// Runs `job(argument)` on a thread of 256 KiB of stack, and waits for it.
void run_on_small_stack(void* (*job)(void*), void* argument) {
    pthread_attr_t attr;
    REQUIRE(pthread_attr_init(&attr) == 0);
    REQUIRE(pthread_attr_setstacksize(&attr, 256 * 1024) == 0);
    pthread_t thread;
    REQUIRE(pthread_create(&thread, &attr, job, argument) == 0);
    REQUIRE(pthread_join(thread, nullptr) == 0);
    pthread_attr_destroy(&attr);
}

void* validate_on_thread(void* arg) {
    auto* job = static_cast<on_small_stack*>(arg);
    job->valid = job->schema->is_valid(job->value);
    return nullptr;
}

} // namespace

TEST_CASE("the longest string a pattern may see is matched on a 256 KiB stack", "[schema-safety][regex]") {
    // A backtracking matcher needs ~3 MB of stack for this; ecma_regex's use depends on the
    // pattern only.
    const compiled_schema s = compiled_schema::from_json(string_schema("^((a|b)|(c|d))*e?$", nullptr));
    on_small_stack job{&s, {{"a", std::string(4096, 'a')}}};
    run_on_small_stack(validate_on_thread, &job);
    CHECK(job.valid);
}

namespace {

struct compile_on_small_stack {
    const json* schema;
    std::optional<compiled_schema> compiled;
};

void* compile_on_thread(void* arg) {
    auto* job = static_cast<compile_on_small_stack*>(arg);
    job->compiled = compiled_schema::from_json(*job->schema);
    return nullptr;
}

} // namespace

TEST_CASE("a chain of 20,000 $refs compiles on a 256 KiB stack: each target is compiled from a list",
          "[schema-safety][refs]") {
    const json schema = definition_chain(20'000);
    compile_on_small_stack job{&schema, std::nullopt};
    run_on_small_stack(compile_on_thread, &job);
    REQUIRE(job.compiled.has_value());
    const compiled_schema& s = *job.compiled;
    CHECK(s.is_valid({{"n", 1}, {"next", {{"n", 2}, {"next", {{"n", 3}}}}}}));
    const auto problems = validate(s, {{"next", {{"next", {{"n", "three"}}}}}});
    REQUIRE(problems.size() == 1);
    CHECK(problems[0].pointer == "/partial_result/next/next/n");
}

#endif

TEST_CASE("a long chain of $refs is judged as far as a value goes, and the walk's bound speaks in place",
          "[schema-safety][refs]") {
    // Refused at compile time ("nests deeper than 512 levels") while refs counted as nesting.
    const compiled_schema chain = compiled_schema::from_json(definition_chain(1000));
    CHECK_FALSE(chain.is_valid({{"next", {{"n", 1.5}}}}));
    CHECK(chain.is_valid({{"next", {{"next", json::object()}}}}));
    // Each definition applies the next to the same value: the walk stops at its depth bound
    // with a problem that says so, never on the thread's stack.
    json defs = json::object();
    for (int i = 0; i < 1000; ++i) {
        defs["d" + std::to_string(i)] =
            i + 1 < 1000 ? json{{"allOf", {{{"$ref", "#/definitions/d" + std::to_string(i + 1)}}}}} : json::object();
    }
    const compiled_schema in_place = compiled_schema::from_json(
        {{"$schema", "http://json-schema.org/draft-07/schema#"}, {"$ref", "#/definitions/d0"}, {"definitions", defs}});
    const auto problems = validate(in_place, json::object());
    REQUIRE(problems.size() == 1);
    CHECK_THAT(problems[0].message, Catch::Matchers::Contains("nest deeper than 256 levels"));
}

TEST_CASE("maxLength and minLength count every character, an escaped NUL too", "[schema-safety][length]") {
    const compiled_schema s =
        compiled_schema::from_json(json::parse(R"({"properties": {"a": {"minLength": 2, "maxLength": 3}}})"));
    // valijson 1.0 counted up to the first NUL: "c" + NUL + a megabyte passed maxLength 3.
    const std::string smuggled = std::string("c") + '\0' + std::string(1024 * 1024, 'x');
    CHECK_FALSE(s.is_valid({{"a", smuggled}}));
    const auto problems = validate(s, {{"a", smuggled}});
    REQUIRE(problems.size() == 1);
    CHECK(problems[0].message == "/partial_result/a: must be at most 3 characters long, not 1048578");
    CHECK(s.is_valid({{"a", std::string("a") + '\0'}}));    // two characters
    CHECK(s.is_valid({{"a", "\xC3\xA9\xC3\xA9\xC3\xA9"}})); // three characters, six bytes
    CHECK_FALSE(s.is_valid({{"a", "\xC3\xA9"}}));
    CHECK(validate(s, {{"a", "x"}})[0].message ==
          "/partial_result/a: must be at least 2 characters long, not 1 (got \"x\")");
    CHECK(s.is_valid({{"a", 12345}})); // length rules constrain strings only
}

TEST_CASE("format date, time and date-time are checked once compiled, on strings only, when formats assert",
          "[schema-safety][format]") {
    handoff::schema_options asserting;
    asserting.assert_formats = true;
    const json schema = json::parse(
        R"({"properties": {"d": {"format": "date"}, "t": {"format": "time"}, "dt": {"format": "date-time"},
                           "e": {"format": "email"}, "h": {"format": "regex"}}})");
    // By default format is an annotation, as every dialect says (validation 2020-12, 7.2.1).
    CHECK(compiled_schema::from_json(schema).is_valid({{"d", "2024-02-30"}}));
    const compiled_schema s = compiled_schema::from_json(schema, asserting);
    CHECK(s.is_valid({{"d", "2024-02-29"}}));
    CHECK_FALSE(s.is_valid({{"d", "2024-02-30"}}));
    CHECK_FALSE(s.is_valid({{"d", "2024-04-31"}}));
    CHECK(s.is_valid({{"d", "2024-12-31"}}));
    CHECK_FALSE(s.is_valid({{"d", "2024-13-01"}}));
    CHECK(s.is_valid({{"t", "16:52:45Z"}}));
    CHECK(s.is_valid({{"t", "16:52:45.123+02:00"}}));
    CHECK_FALSE(s.is_valid({{"t", "25:00:00Z"}}));
    CHECK(s.is_valid({{"dt", "2022-07-18T16:52:45Z"}}));
    CHECK_FALSE(s.is_valid({{"dt", "2022-06-31T16:52:45Z"}}));
    CHECK_FALSE(s.is_valid({{"e", "not an address"}}));
    CHECK(s.is_valid({{"e", "joe.bloggs@example.com"}}));
    CHECK(s.is_valid({{"h", "{not checked"}})); // a format not asserted is an annotation
    CHECK(s.is_valid({{"d", 5}}));              // formats constrain strings only
    CHECK_FALSE(s.is_valid({{"t", "16:52:45|01:00"}}));
    CHECK(validate(s, {{"d", "2024-02-30"}})[0].message ==
          "/partial_result/d: must be a valid date (YYYY-MM-DD) (got \"2024-02-30\")");
    SECTION("RFC 3339: a four-digit year, and 29 February only in a leap year") {
        CHECK(s.is_valid({{"d", "2000-02-29"}}));       // divisible by 400
        CHECK_FALSE(s.is_valid({{"d", "1900-02-29"}})); // by 100, not 400
        CHECK_FALSE(s.is_valid({{"d", "2023-02-29"}}));
        CHECK(s.is_valid({{"d", "0000-01-01"}}));
        CHECK_FALSE(s.is_valid({{"d", "12024-01-01"}}));
        CHECK_FALSE(s.is_valid({{"d", "824-01-01"}}));
        CHECK_FALSE(s.is_valid({{"d", "2024-1-01"}}));
        CHECK_FALSE(s.is_valid({{"dt", "2023-02-29T00:00:00Z"}}));
        CHECK(s.is_valid({{"dt", "2024-02-29t23:59:60z"}}));
    }
    SECTION("nothing over 128 bytes is a timestamp: a megabyte of digits is refused at once") {
        const auto started = std::chrono::steady_clock::now();
        CHECK_FALSE(s.is_valid({{"dt", "2022-07-18T16:52:45." + std::string(1024 * 1024, '1') + "Z"}}));
        CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(1));
        const std::string head = "2022-07-18T16:52:45.";                 // 20 bytes, then the fraction and "Z"
        CHECK(s.is_valid({{"dt", head + std::string(107, '0') + "Z"}})); // 128 bytes
        CHECK_FALSE(s.is_valid({{"dt", head + std::string(108, '0') + "Z"}}));
    }
}

TEST_CASE("format ipv4, ipv6 and uuid are checked by their RFCs' text forms when formats assert",
          "[schema-safety][format]") {
    handoff::schema_options asserting;
    asserting.assert_formats = true;
    const compiled_schema s = compiled_schema::from_json(
        json::parse(
            R"({"properties": {"v4": {"format": "ipv4"}, "v6": {"format": "ipv6"}, "id": {"format": "uuid"}}})"),
        asserting);
    const auto fits = [&s](const char* key, const char* value) { return s.is_valid({{key, value}}); };
    // RFC 2673 section 3.2: dotted-quad, decimal octets 0-255 (no leading zero: no octal reading).
    for (const char* ok : {"192.0.2.1", "0.0.0.0", "255.255.255.255", "10.0.0.10"}) {
        CAPTURE(ok);
        CHECK(fits("v4", ok));
    }
    for (const char* bad :
         {"256.0.0.1", "1.2.3", "1.2.3.4.5", "01.2.3.4", "1.2.3.4 ", "1..2.3", "a.b.c.d", "1234.1.1.1", ""}) {
        CAPTURE(bad);
        CHECK_FALSE(fits("v4", bad));
    }
    // RFC 4291 section 2.2: eight groups of 1-4 hex digits, one "::", an optional dotted-quad tail.
    for (const char* ok :
         {"::", "::1", "1::", "2001:db8::1", "2001:0DB8:0000:0000:0008:0800:200C:417A",
          "1:2:3:4:5:6:7::", "::2:3:4:5:6:7:8", "::ffff:192.0.2.1", "1:2:3:4:5:6:192.0.2.1", "::192.0.2.1"}) {
        CAPTURE(ok);
        CHECK(fits("v6", ok));
    }
    for (const char* bad : {"1:2:3:4:5:6:7", "1:2:3:4:5:6:7:8:9", "1::2::3", ":1:2:3:4:5:6:7",
                            "1:2:3:4:5:6:7:", "12345::", "1:2:3:4:5:6:7:192.0.2.1", "::ffff:01.2.3.4", "fe80::1%eth0",
                            "g::1", "1:2:3:4:5:6:7:8::", ":::", ""}) {
        CAPTURE(bad);
        CHECK_FALSE(fits("v6", bad));
    }
    // RFC 4122 section 3: 8-4-4-4-12 hex digits, either case.
    CHECK(fits("id", "f81d4fae-7dec-11d0-a765-00a0c91e6bf6"));
    CHECK(fits("id", "F81D4FAE-7DEC-11D0-A765-00A0C91E6BF6"));
    for (const char* bad : {"f81d4fae7dec11d0a76500a0c91e6bf6", "f81d4fae-7dec-11d0-a765-00a0c91e6bf",
                            "{f81d4fae-7dec-11d0-a765-00a0c91e6bf6}", "f81d4fae-7dec-11d0-a765-00a0c91e6bfg",
                            "f81d4fae-7dec-11d0-a765_00a0c91e6bf6"}) {
        CAPTURE(bad);
        CHECK_FALSE(fits("id", bad));
    }
    CHECK(validate(s, {{"v4", "256.1.1.1"}})[0].message ==
          "/partial_result/v4: must be a valid IPv4 address (four decimal octets, 0-255) (got \"256.1.1.1\")");
    CHECK(s.is_valid({{"v6", 6}})); // formats constrain strings only
}

TEST_CASE("format email holds RFC 5321's bounds: 64-byte local parts, 63-byte labels, 254 bytes in all",
          "[schema-safety][format]") {
    const auto email = [](const std::string& s) {
        return handoff::detail::check_format(handoff::detail::format_kind::email, s);
    };
    const std::string local(64, 'a');
    const std::string label(63, 'b');
    const std::string longest = local + "@" + label + "." + std::string(63, 'c') + "." + std::string(61, 'd');
    REQUIRE(longest.size() == 254);
    for (const std::string& good : {local + "@x.y", "a@" + label + ".c", longest, std::string("a@[001.2.3.4]"),
                                    std::string("a@[ipv6:::1]"), std::string("\"a\\\\b\"@x.y")}) {
        CAPTURE(good);
        CHECK(email(good));
    }
    for (const std::string& bad :
         {local + "a@x.y", "a@" + label + "b.c", longest + "d", std::string("a@-b.c"), std::string("a@b-.c"),
          std::string("\"a\\\"@x.y"), std::string("a@[1.2.3.4]x"), std::string("a@[1.2.3.4"),
          std::string("a@[256.2.3.4]"), std::string("a@[IPv7:::1]"), std::string("a@"), std::string("@b.c")}) {
        CAPTURE(bad);
        CHECK_FALSE(email(bad));
    }
}

TEST_CASE("format email reads an IPv6 address literal by RFC 5321's grammar, format ipv6 by RFC 4291's",
          "[schema-safety][format]") {
    handoff::schema_options asserting;
    asserting.assert_formats = true;
    const json cases = handoff_test::read_fixture_json("formats/email_address_literals.json");
    for (const char* format : {"email", "ipv6"}) {
        const compiled_schema s = compiled_schema::from_json(json{{"format", format}}, asserting);
        REQUIRE(cases[format].size() >= 4);
        for (const json& c : cases[format]) {
            INFO(format << ": " << c["data"].get<std::string>());
            CHECK(s.is_valid(c["data"]) == c["valid"].get<bool>());
        }
    }
}

TEST_CASE("format idn-email takes UTF-8 local parts and U-labels, judged in NFC, and what email takes",
          "[schema-safety][format]") {
    handoff::schema_options asserting;
    asserting.assert_formats = true;
    const compiled_schema s = compiled_schema::from_json(json{{"format", "idn-email"}}, asserting);
    const compiled_schema ascii = compiled_schema::from_json(json{{"format", "email"}}, asserting);
    const json cases = handoff_test::read_fixture_json("formats/idn_email.json").at("idn-email");
    REQUIRE(cases.size() >= 10);
    for (const json& c : cases) {
        INFO(c["data"].get<std::string>() << " (" << c["why"].get<std::string>() << ")");
        CHECK(s.is_valid(c["data"]) == c["valid"].get<bool>());
    }
    // Every address email takes, idn-email takes: its cases here and the literals' fixture.
    const json literals = handoff_test::read_fixture_json("formats/email_address_literals.json").at("email");
    REQUIRE(literals.size() >= 4);
    for (const json& c : literals) {
        INFO(c["data"].get<std::string>());
        CHECK(s.is_valid(c["data"]) == ascii.is_valid(c["data"]));
    }
}

TEST_CASE("format uri and uri-reference follow RFC 3986's grammar in one pass", "[schema-safety][format]") {
    const auto uri = [](const std::string& s) {
        return handoff::detail::check_format(handoff::detail::format_kind::uri, s);
    };
    const auto reference = [](const std::string& s) {
        return handoff::detail::check_format(handoff::detail::format_kind::uri_reference, s);
    };
    for (const std::string& good :
         {std::string("https://user:pw@example.com:8443/a/b;c?q=1&r=%2F#frag/?"), std::string("urn:isbn:0451450523"),
          std::string("http://[v7.fe80::a+b]/"), std::string("http://[::1]:/"), std::string("s+v-1.x:"),
          std::string("file:///etc/hosts")}) {
        CAPTURE(good);
        CHECK(uri(good));
        CHECK(reference(good)); // a URI is a URI reference
    }
    for (const std::string& bad :
         {std::string("http://[v.x]/"), std::string("http://[v1x]/"), std::string("http://[v1.%41]/"),
          std::string("http://[::1/"), std::string("http://a b/"), std::string("http://x/%4"),
          std::string("http://x/#a#b"), std::string("-x:y"), std::string("x:y\n")}) {
        CAPTURE(bad);
        CHECK_FALSE(uri(bad));
    }
    CHECK(reference("a/b:c"));           // a colon after the first segment
    CHECK_FALSE(reference("a:b c"));     // a scheme, then a space
    CHECK_FALSE(reference("//a:b@c@d")); // one "@" in an authority
    SECTION("a megabyte-long URI is read in one pass") {
        const std::string quarter = "https://example.com/" + std::string(256 * 1024, 'a');
        const std::string whole = "https://example.com/" + std::string(1024 * 1024, 'a');
        CHECK_FALSE(uri(whole + "%"));
        const double quarter_seconds = handoff_test::least_seconds_taken([&] { CHECK(uri(quarter)); });
        const double whole_seconds = handoff_test::least_seconds_taken([&] { CHECK(uri(whole)); });
        CHECK(whole_seconds < handoff_test::quadrupled_input_factor * quarter_seconds);
    }
    handoff::schema_options asserting;
    asserting.assert_formats = true;
    const compiled_schema s = compiled_schema::from_json(
        json::parse(R"({"properties": {"link": {"format": "uri"}, "ref": {"format": "uri-reference"}}})"), asserting);
    CHECK(s.is_valid({{"link", "https://example.com/"}, {"ref", "../up"}}));
    CHECK(validate(s, {{"link", "/relative"}})[0].message ==
          "/partial_result/link: must be a valid URI (scheme:hier-part[?query][#fragment], RFC 3986) (got "
          "\"/relative\")");
    CHECK(compiled_schema::from_json(json::parse(R"({"format": "uri"})")).is_valid("not a uri")); // an annotation
}

TEST_CASE("format iri and iri-reference take RFC 3987's non-ASCII code points where a URI takes unreserved ones",
          "[schema-safety][format]") {
    using handoff::detail::format_kind;
    const auto iri = [](const std::string& s) { return handoff::detail::check_format(format_kind::iri, s); };
    const auto reference = [](const std::string& s) {
        return handoff::detail::check_format(format_kind::iri_reference, s);
    };
    // U+00E9, U+4E2D, U+10000 (ucschar); U+E000 and U+F0000 (iprivate); U+FFFE (neither).
    const std::string e_acute = "\xC3\xA9";
    const std::string han = "\xE4\xB8\xAD";
    const std::string linear_b = "\xF0\x90\x80\x80";
    const std::string private_bmp = "\xEE\x80\x80";
    const std::string private_plane = "\xF3\xB0\x80\x80";
    const std::string non_character = "\xEF\xBF\xBE";
    CHECK(iri("https://caf" + e_acute + ".example/" + han + "?q=" + linear_b + "#" + e_acute));
    CHECK(iri("https://us" + e_acute + "r@example.com/"));
    CHECK(iri("http://x/?" + private_bmp + private_plane)); // iprivate: in the query only
    CHECK_FALSE(iri("http://x/" + private_bmp));
    CHECK_FALSE(iri("http://x/#" + private_plane));
    CHECK_FALSE(iri("http://x/" + non_character));
    CHECK_FALSE(iri("http://x/\xE2\x80\xAEtxt")); // U+202E RIGHT-TO-LEFT OVERRIDE: never in an IRI
    CHECK_FALSE(iri("http://x/\xE2\x80\x8F"));    // U+200F RIGHT-TO-LEFT MARK
    CHECK_FALSE(iri("http://x/\xC3"));            // a cut UTF-8 sequence
    CHECK_FALSE(iri("http://x/\xC0\xAF"));        // an overlong one
    CHECK_FALSE(iri("http://[" + han + "]/"));    // an IP literal stays ASCII
    CHECK_FALSE(iri(e_acute + ":x"));             // and so does the scheme
    CHECK_FALSE(iri("/" + han));                  // a relative reference is no IRI
    CHECK(reference("/" + han));
    CHECK(reference(han + "/a:b"));
    CHECK_FALSE(reference(han + ":b")); // a first segment with ":" reads as a scheme
    CHECK_FALSE(
        handoff::detail::check_format(format_kind::uri, "https://caf" + e_acute + ".example/")); // a URI is ASCII
    handoff::schema_options asserting;
    asserting.assert_formats = true;
    const compiled_schema s =
        compiled_schema::from_json(json::parse(R"({"properties": {"at": {"format": "iri"}}})"), asserting);
    CHECK(s.is_valid({{"at", "https://" + han + ".example/"}}));
    CHECK(validate(s, {{"at", "no scheme"}})[0].message ==
          "/partial_result/at: must be a valid IRI (a URI that may hold non-ASCII characters, RFC 3987) (got \"no "
          "scheme\")");
}

TEST_CASE("Punycode decodes and encodes RFC 3492's samples, and refuses what encodes nothing",
          "[schema-safety][format][idna]") {
    namespace punycode = handoff::detail::idna::punycode;
    // RFC 3492 section 7.1, samples (A) Arabic, (L) and (M) Japanese; and "bucher" with u-umlaut.
    const std::pair<std::u32string, std::string> samples[] = {
        {U"\u0644\u064A\u0647\u0645\u0627\u0628\u062A\u0643\u0644\u0645\u0648\u0634\u0639\u0631\u0628\u064A\u061F",
         "egbpdaj6bu4bxfgehfvwxn"},
        {U"3\u5E74B\u7D44\u91D1\u516B\u5148\u751F", "3B-ww4c5e180e575a65lsy2b"},
        {U"\u5B89\u5BA4\u5948\u7F8E\u6075-with-SUPER-MONKEYS", "-with-SUPER-MONKEYS-pc58ag80a8qai00g7n9n"},
        {U"b\u00FCcher", "bcher-kva"},
    };
    for (const auto& [points, code] : samples) {
        CAPTURE(code);
        CHECK(punycode::decode(code) == points);
        CHECK(punycode::encode(points, 100) == code);
    }
    CHECK(punycode::decode("bcher-KVA") == std::u32string(U"b\u00FCcher")); // digits in either case
    const std::u32string last_code_point = std::u32string(100, U'a') + U"\U0010FFFF";
    CHECK(punycode::decode(punycode::encode(last_code_point, 1000).value()) == last_code_point);
    CHECK_FALSE(punycode::encode(samples[0].first, 10).has_value()); // past the limit
    for (const char* bad : {"X", "99999999999", "a\xC3\xA9-kva", "zzzzzzzzzzzzzzzzzzzzzzz"}) {
        CAPTURE(bad);
        CHECK_FALSE(punycode::decode(bad).has_value()); // cut, overflowing, non-basic, beyond U+10FFFF
    }
}

TEST_CASE("format hostname and idn-hostname check labels as IDNA2008 does", "[schema-safety][format][idna]") {
    using handoff::detail::format_kind;
    const auto host = [](const std::string& s) { return handoff::detail::check_format(format_kind::hostname, s); };
    const auto idn = [](const std::string& s) { return handoff::detail::check_format(format_kind::idn_hostname, s); };
    CHECK(host("Example-1.COM"));
    CHECK(host("xn--bcher-kva.example"));             // an A-label
    CHECK(host("XN--BCHER-KVA.example"));             // in either case
    CHECK(host("ab--c.example"));                     // two hyphens elsewhere than an A-label's
    for (const char* bad : {"xn--bcher-kvb.example",  // decodes to "bc\u01C8her": U+01C8 is DISALLOWED
                            "xn--bcher-.example",     // decodes to ASCII only
                            "xn---bcher-kva.example", // no U-label encodes to it
                            "b\xC3\xBC"
                            "cher.example",
                            "-a.example", "a-.example", "a_b.example", "a..b", "a.", ""}) {
        CAPTURE(bad);
        CHECK_FALSE(host(bad));
    }
    CHECK(host(std::string(63, 'a') + "." + std::string(63, 'b') + "." + std::string(63, 'c') + "." +
               std::string(61, 'd'))); // 253 octets
    CHECK_FALSE(host(std::string(64, 'a')));
    CHECK_FALSE(host(std::string(63, 'a') + "." + std::string(63, 'b') + "." + std::string(63, 'c') + "." +
                     std::string(62, 'd'))); // 254
    // U-labels, only in an internationalized name; any of four full stops between labels.
    CHECK(idn("b\xC3\xBC"
              "cher.example"));
    CHECK(idn("b\xC3\xBC"
              "cher\xE3\x80\x82"
              "example")); // U+3002
    CHECK_FALSE(idn("B\xC3\xBC"
                    "cher.example"));              // upper case is not PVALID in a U-label
    CHECK(idn("\xC3\xA9t\xC3\xA9"));               // NFC: U+00E9
    CHECK_FALSE(idn("e\xCC\x81t\xC3\xA9"));        // NFD: e, U+0301 composes
    CHECK_FALSE(idn("\xC3\xA9\xCC\xA3"));          // U+00E9 then U+0323: NFC is U+1EB9 U+0301
    CHECK(idn("\xE1\xBA\xB9\xCC\x81"));            // ... that one
    CHECK_FALSE(host("xn--9ca45i"));               // the A-label of U+00E9 U+0323
    CHECK(idn("\xEA\xB0\x80\xEA\xB0\x81"));        // Hangul syllables GA, GAG: NFC
    CHECK(host("ab--cd.example"));                 // "--" in the third and fourth places: RFC 1123 takes it
    CHECK_FALSE(idn("ab--cd.example"));            // ... IDNA2008 keeps such labels for A-labels
    CHECK(idn("q\xCC\xA3\xCC\x81"));               // q, U+0323 (class 220), U+0301 (230): ordered, nothing composes
    CHECK_FALSE(idn("q\xCC\x81\xCC\xA3"));         // the two marks the other way round: not in canonical order
    CHECK(idn("\xD7\x90\xD7\x91.example"));        // Hebrew, then an LTR label: the Bidi rule holds
    CHECK_FALSE(idn("\xD7\x90\xD7\x91.1example")); // ... but not for a label beginning with a digit
    CHECK_FALSE(idn(std::string(60, 'a') + "\xC3\xBC")); // its A-label is longer than 63 octets
    SECTION("a long string is refused before any label is read") {
        const auto started = std::chrono::steady_clock::now();
        CHECK_FALSE(idn(std::string(1024 * 1024, 'a')));
        CHECK_FALSE(idn(std::string(1024 * 1024, '\xC3')));
        CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(1));
    }
    handoff::schema_options asserting;
    asserting.assert_formats = true;
    const compiled_schema s =
        compiled_schema::from_json(json::parse(R"({"properties": {"host": {"format": "hostname"}}})"), asserting);
    CHECK(s.is_valid({{"host", "api.example.com"}}));
    CHECK(validate(s, {{"host", "api_example.com"}})[0].message ==
          "/partial_result/host: must be a valid host name (dot-separated labels of letters, digits and hyphens, RFC "
          "1123) (got \"api_example.com\")");
}

TEST_CASE("format uri-template follows RFC 6570's grammar, levels 1 to 4", "[schema-safety][format]") {
    const auto uri_template = [](const std::string& s) {
        return handoff::detail::check_format(handoff::detail::format_kind::uri_template, s);
    };
    for (const char* good :
         {"", "https://example.com/{id}", "{+path}/here", "{#frag}", "{.a,b}", "{/list*}", "{;x,y:3}", "{?q}{&r}",
          "{=x}", "{!x}", "{@x}", "{|x}", "{a.b_c%41}", "{v:9999}", "caf\xC3\xA9/{x}", "it's/{x}",
          "\xEE\x80\x80/{x}",    // U+E000, private use, anywhere in a literal
          "\xE2\x80\xAE/{x}"}) { // U+202E: the grammar takes it, as IRIs do not
        CAPTURE(good);
        CHECK(uri_template(good));
    }
    for (const char* bad :
         {"{}",     "{x",    "x}",    "{x,}", "{,}", "{.}", "{x.}", "{..x}", "{x:}",  "{x:0}", "{x:10000}",
          "{x*:3}", "{x-y}", "{{x}}", "a b",  "a<b", "a^b", "a|b",  "%zz",   "a\x7F", "\xC3"}) {
        CAPTURE(bad);
        CHECK_FALSE(uri_template(bad));
    }
}

TEST_CASE("format relative-json-pointer is a non-negative integer, then # or a JSON pointer",
          "[schema-safety][format]") {
    const auto relative = [](const std::string& s) {
        return handoff::detail::check_format(handoff::detail::format_kind::relative_json_pointer, s);
    };
    for (const char* good : {"0", "1", "10", "0#", "12#", "0/", "3/a~0b/~1/0", "0//"}) {
        CAPTURE(good);
        CHECK(relative(good));
    }
    for (const char* bad :
         {"", "#", "/a", "00", "01/a", "1##", "1#/a", "1/a~", "1/a~2", "-1", "+1/a", "1 /a", "1#\n"}) {
        CAPTURE(bad);
        CHECK_FALSE(relative(bad));
    }
    handoff::schema_options asserting;
    asserting.assert_formats = true;
    const compiled_schema s = compiled_schema::from_json(
        json::parse(R"({"properties": {"at": {"format": "relative-json-pointer"}}})"), asserting);
    CHECK(s.is_valid({{"at", "2/items/0"}}));
    CHECK(validate(s, {{"at", "/items"}})[0].message ==
          "/partial_result/at: must be a valid relative JSON pointer (a non-negative integer, then # or a JSON "
          "pointer) (got \"/items\")");
}

TEST_CASE("the value generator's example of every asserted format is one", "[schema-safety][format]") {
    handoff::schema_options asserting;
    asserting.assert_formats = true;
    for (const handoff::detail::format_row& row : handoff::detail::asserted_formats) {
        CAPTURE(std::string(row.name));
        const json schema = {{"type", "string"}, {"format", std::string(row.name)}};
        handoff::detail::value_generator generator(schema, asserting);
        const std::optional<json> value = generator.generate();
        REQUIRE(value.has_value());
        CHECK(handoff::detail::check_format(row.kind, value->get<std::string>()));
        CHECK(compiled_schema::from_json(schema, asserting).accepts(*value));
    }
}

TEST_CASE("keys matched against patternProperties and propertyNames patterns share the bound",
          "[schema-safety][regex]") {
    const compiled_schema s =
        compiled_schema::from_json(json::parse(R"({"patternProperties": {"^(a|b)*$": {"type": "integer"}}})"));
    CHECK(s.is_valid({{std::string(4096, 'a'), 1}}));
    const json value = {{"nested", {{std::string(65'536, 'a'), 1}}}};
    CHECK(s.is_valid(value)); // patternProperties applies to the top level only
    const json top = {{std::string(65'536, 'a'), 1}};
    CHECK_FALSE(s.is_valid(top));
    const auto problems = validate(s, top);
    REQUIRE(problems.size() == 1);
    CHECK(problems[0].pointer == "/partial_result/" + std::string(65'536, 'a'));
    CHECK_THAT(problems[0].message,
               Catch::Matchers::EndsWith(": the key is 65536" + bound_message_tail + "/patternProperties/^(a|b)*$"));
    CHECK(problems[0].message.size() < 500);
    const compiled_schema names =
        compiled_schema::from_json(json::parse(R"({"propertyNames": {"pattern": "^[a-z]+$"}})"));
    CHECK(names.is_valid({{std::string(4096, 'a'), 1}}));
    CHECK_FALSE(names.is_valid(top));
}

TEST_CASE("a failed propertyNames says which key, and the receiver refuses it", "[schema-safety]") {
    const json schema = json::parse(R"({"type": "object", "propertyNames": {"pattern": "^[a-z]+$", "maxLength": 8}})");
    const compiled_schema s = compiled_schema::from_json(schema);
    const auto problems = validate(s, {{"BAD KEY", 1}});
    REQUIRE(problems.size() == 1);
    CHECK(problems[0].pointer == "/partial_result/BAD KEY");
    CHECK(problems[0].message == "/partial_result/BAD KEY: does not match the pattern \"^[a-z]+$\" (got \"BAD KEY\")");
    const handoff::receiver<> rx(schema);
    const auto r = rx.receive(R"({"status":"ok","partial_result":{"BAD KEY":1},"schema_ok":true,)"
                              R"("coverage":{"items_expected":1,"items_completed":1,"unit":"x","fraction":1},)"
                              R"("steps":{"completed":[],"remaining":[]}})");
    CHECK(r.route == handoff::route::repair);
    CHECK(r.failed_step == step::task_schema);
}

TEST_CASE("a key in a message is escaped and capped", "[schema-safety][messages]") {
    const compiled_schema s = compiled_schema::from_json(json::parse(R"({"additionalProperties": false})"));
    const std::string key = "x\x1b[31m\nINJECT" + std::string(1000, 'z');
    const auto problems = validate(s, {{key, 1}});
    REQUIRE(problems.size() == 1);
    CHECK(problems[0].pointer == "/partial_result/" + key); // the pointer is exact
    CHECK_THAT(problems[0].message, Catch::Matchers::StartsWith("/partial_result/x\\u001b[31m\\nINJECTzzz"));
    CHECK(problems[0].message.find('\n') == std::string::npos);
    CHECK(problems[0].message.find('\x1b') == std::string::npos);
    CHECK(problems[0].message.size() < 400);
}

TEST_CASE("deep values and deep schemas cannot overflow the stack", "[schema-safety][limits]") {
    const compiled_schema recursive = compiled_schema::from_json(json::parse(R"({"items": {"$ref": "#"}})"));
    json deep = json::array();
    for (int i = 0; i < 100'000; ++i) {
        deep = json::array({std::move(deep)});
    }
    CHECK_FALSE(recursive.is_valid(deep));
    const auto problems = recursive.validate(deep, "", step::task_schema);
    REQUIRE(problems.size() == 1);
    CHECK_THAT(problems[0].message, Catch::Matchers::Contains("nest deeper than 256 levels"));
    SECTION("enum, const and uniqueItems compare deep values without recursion") {
        const auto nested = [] {
            json v = json::array();
            for (int i = 0; i < 100'000; ++i) {
                json outer = json::array();
                outer.push_back(std::move(v));
                v = std::move(outer);
            }
            return v;
        };
        CHECK_FALSE(compiled_schema::from_json(json::parse(R"({"const": [[1]]})")).is_valid(deep));
        CHECK_FALSE(compiled_schema::from_json(json::parse(R"({"enum": [[[]], 1]})")).is_valid(deep));
        json twins = json::array();
        twins.push_back(nested());
        twins.push_back(nested());
        CHECK_FALSE(compiled_schema::from_json(json::parse(R"({"uniqueItems": true})")).is_valid(twins));
    }
    // Built by the parser, which does not recurse: copying a 10,000-level value would.
    std::string text;
    for (int i = 0; i < 10'000; ++i) {
        text += "{\"not\": ";
    }
    text += "{}" + std::string(10'000, '}');
    CHECK_THAT(refusal(json::parse(text)), Catch::Matchers::Contains("the schema nests deeper than 512 levels"));
    // Within the JSON bound but past the schema bound: the compiler's own limit speaks.
    std::string deep_not;
    for (int i = 0; i < 600; ++i) {
        deep_not += "{\"not\": ";
    }
    deep_not += "{}" + std::string(600, '}');
    CHECK_THAT(refusal(json::parse(deep_not)), Catch::Matchers::Contains("the schema nests deeper than 512 levels"));
}

TEST_CASE("a result failing tens of thousands of values lists 100 problems and counts the rest",
          "[schema-safety][limits]") {
    STATIC_REQUIRE(compiled_schema::max_listed_problems == 100);
    const compiled_schema s =
        compiled_schema::from_json(json::parse(R"({"properties": {"a": {"items": {"items": {"type": "string"}}}}})"));
    json inner = json::array();
    for (int i = 0; i < 10'000; ++i) {
        inner.push_back(i);
    }
    const json value = {{"a", {inner, inner, inner}}};
    const auto started = std::chrono::steady_clock::now();
    const auto problems = validate(s, value);
    CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(20));
    REQUIRE(problems.size() == 101);
    CHECK(problems[0].message == "/partial_result/a/0/0: must be of type string (got \"0\")");
    CHECK(problems[100].pointer == "/partial_result");
    CHECK(problems[100].message == "/partial_result: 29900 more problems are not listed (at most 100 are)");
}

// A schema built in code may hold strings that are not UTF-8. Its values are quoted in messages
// with the bytes replaced (U+FFFD), as receipts write them: validating never throws for them.
TEST_CASE("schema values that are not UTF-8 are quoted in messages, never thrown", "[schema-safety]") {
    const json schema = {
        {"type", "object"},
        {"properties",
         {{"label", {{"enum", {std::string("caf\xe9"), "tea"}}}}, {"mark", {{"const", std::string("x\xff")}}}}}};
    const compiled_schema s = compiled_schema::from_json(schema);
    handoff::problem_list problems;
    REQUIRE_NOTHROW(problems = validate(s, json{{"label", "coffee"}, {"mark", 1}}));
    REQUIRE(problems.size() == 2);
    CHECK(problems[0].message ==
          "/partial_result/label: must be one of [\"caf\xEF\xBF\xBD\",\"tea\"] (got \"coffee\")");
    CHECK(problems[1].message.find("x\xEF\xBF\xBD") != std::string::npos);
}

TEST_CASE("$dynamicRef and $recursiveRef loops that read no input are refused when compiled",
          "[schema-safety][dialects]") {
    const std::string never = "would never finish validating";
    CHECK_THAT(refusal(json::parse(R"({"$dynamicAnchor": "a", "$dynamicRef": "#a"})")),
               Catch::Matchers::Contains(never));
    CHECK_THAT(
        refusal(json::parse(R"({"$dynamicAnchor": "a", "anyOf": [{"$dynamicRef": "#a"}, {"$dynamicRef": "#a"}]})")),
        Catch::Matchers::Contains(never));
    CHECK_THAT(refusal(json::parse(R"({"$schema": "https://json-schema.org/draft/2019-09/schema",
                                       "$recursiveAnchor": true, "allOf": [{"$recursiveRef": "#"}]})")),
               Catch::Matchers::Contains(never));
    // Through a property, the same recursion reads input: fine, and bounded by the value's depth.
    const compiled_schema tree = compiled_schema::from_json(json::parse(
        R"({"$dynamicAnchor": "node", "properties": {"kid": {"$dynamicRef": "#node"}}, "type": "object"})"));
    json deep = json::object();
    for (int i = 0; i < 10'000; ++i) {
        deep = json{{"kid", std::move(deep)}};
    }
    CHECK_FALSE(tree.is_valid(deep));
    CHECK_THAT(validate(tree, deep).at(0).message, Catch::Matchers::Contains("nest deeper than 256 levels"));
}

TEST_CASE("unevaluatedProperties over deep nesting fails the depth bound, never the stack",
          "[schema-safety][dialects]") {
    const compiled_schema s = compiled_schema::from_json(json::parse(R"({
        "$defs": {"n": {"anyOf": [{"properties": {"c": {"$ref": "#/$defs/n"}}}, {"type": "null"}],
                        "unevaluatedProperties": false}},
        "$ref": "#/$defs/n"})"));
    CHECK(s.is_valid(json::parse(R"({"c": {"c": null}})")));
    CHECK_FALSE(s.is_valid(json::parse(R"({"c": {"d": 1}})")));
    json deep = nullptr;
    for (int i = 0; i < 10'000; ++i) {
        deep = json{{"c", std::move(deep)}};
    }
    const auto started = std::chrono::steady_clock::now();
    CHECK_FALSE(s.is_valid(deep));
    // The depth failure is inside anyOf, which reports one fact.
    CHECK(validate(s, deep).at(0).message ==
          "/partial_result: fits none of the 2 schemas of anyOf (/$defs/n/anyOf/0...)");
    CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(5));
}

TEST_CASE("a million-entry prefixItems is refused when compiled, with the bound", "[schema-safety][dialects]") {
    json schema = {{"prefixItems", json::array()}};
    for (int i = 0; i < 1'000'000; ++i) {
        schema["prefixItems"].push_back(json::object());
    }
    CHECK_THAT(refusal(schema), Catch::Matchers::EndsWith(
                                    "/prefixItems/99999: the schema has more than 100000 subschemas: handoff refuses "
                                    "it rather than hold them all"));
    // A long tuple within the bound compiles and checks each place.
    json tuple = {{"prefixItems", json::array()}, {"items", false}};
    for (int i = 0; i < 10'000; ++i) {
        tuple["prefixItems"].push_back(json{{"const", i}});
    }
    const compiled_schema s = compiled_schema::from_json(tuple);
    json value = json::array();
    for (int i = 0; i < 10'000; ++i) {
        value.push_back(i);
    }
    CHECK(s.is_valid(value));
    value.push_back(1);
    CHECK_FALSE(s.is_valid(value));
}

TEST_CASE("a value nested past any schema is measured before anything copies it", "[schema-safety][limits]") {
    // 100,000 levels: copying or converting the value, as each reader did first, recursed once
    // per level and overflowed the stack. Built by the parser, which does not recurse.
    std::string text;
    for (int i = 0; i < 100'000; ++i) {
        text += "{\"items\": ";
    }
    text += "{}" + std::string(100'000, '}');
    const json deep = json::parse(text);
    const nlohmann::ordered_json ordered_deep = nlohmann::ordered_json::parse(text);
    const std::string refused = refusal(deep);
    CHECK_THAT(refused, Catch::Matchers::Contains("the schema nests deeper than 512 levels"));
    // The worker prompt refuses it exactly as compiling it does.
    const auto prompt_refusal = [](const auto& schema) -> std::string {
        try {
            static_cast<void>(handoff::worker_prompt(schema));
        } catch (const schema_error& e) {
            return e.what();
        }
        return "(no schema_error)";
    };
    CHECK(prompt_refusal(deep) == refused);
    CHECK(prompt_refusal(ordered_deep) == refused);
    // A provider schema never throws: it is the envelope's alone, with a note saying why.
    const handoff::schema_registry registry;
    for (const handoff::provider p : handoff::all_providers) {
        INFO(handoff::to_string(p));
        const handoff::provider_schema_result alone = handoff::provider_schema(p, nullptr);
        for (const handoff::provider_schema_result& r :
             {handoff::provider_schema(p, &ordered_deep), handoff::provider_schema(p, &deep),
              handoff::provider_schema(p, ordered_deep, registry, ""),
              handoff::provider_schema(p, deep, registry, "")}) {
            CHECK(r.schema == alone.schema);
            REQUIRE(r.notes.size() == alone.notes.size() + 1);
            CHECK(r.notes.front().pointer == "/properties/partial_result/anyOf/0");
            CHECK_THAT(r.notes.front().note, Catch::Matchers::StartsWith("the schema nests deeper than 512 levels"));
        }
    }
    // A registry document too: copied and scanned for ids when added.
    handoff::schema_registry deep_registry;
    try {
        deep_registry.add("urn:deep", deep);
        FAIL("no schema_error");
    } catch (const schema_error& e) {
        CHECK(e.pointer() == "urn:deep#");
        CHECK_THAT(e.reason(), Catch::Matchers::StartsWith("the schema nests deeper than 512 levels"));
    }
    CHECK(deep_registry.find_document("urn:deep") == nullptr);
    // And a reply: remove_nulled_optionals writes the text out again, which recurses; a reply
    // nested past 256 levels comes back as it was (a receiver refuses it at step 1).
    const nlohmann::ordered_json task = nlohmann::ordered_json::parse(
        R"({"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}}, "required": ["a"]})");
    const handoff::provider_schema_result sent = handoff::provider_schema(handoff::provider::openai, &task);
    REQUIRE(sent.count(handoff::schema_note_kind::made_nullable) > 0);
    const std::string reply = R"({"status": "ok", "reason_code": null, "partial_result": {"a": "x", "b": null}})";
    CHECK(handoff::remove_nulled_optionals(reply, sent) ==
          R"({"status":"ok","reason_code":null,"partial_result":{"a":"x"}})");
    const auto reply_nesting = [](std::size_t levels) { // the reply's object counts one
        return R"({"status": "ok", "reason_code": null, "partial_result": {"a": "x", "b": null}, "x": )" +
               std::string(levels - 1, '[') + std::string(levels - 1, ']') + "}";
    };
    CHECK(handoff::remove_nulled_optionals(reply_nesting(256), sent).find(R"("b":null)") == std::string::npos);
    for (const std::size_t levels : {std::size_t{257}, std::size_t{100'000}}) {
        const std::string deep_reply = reply_nesting(levels);
        CHECK(handoff::remove_nulled_optionals(deep_reply, sent) == deep_reply);
    }
}

TEST_CASE("a bound reached where a failure would let the value pass refuses the value, never passes it",
          "[schema-safety][regex]") {
    const json fixture = json::parse(handoff_test::read_fixture("schemas/undecided_bounds.json"));
    handoff::schema_options options;
    options.max_pattern_subject = fixture["max_pattern_subject"].get<std::uint64_t>();
    for (const json& c : fixture["cases"]) {
        INFO(c["name"].get<std::string>());
        const compiled_schema s = compiled_schema::from_json(c["schema"], options);
        CHECK(s.accepts(c["instance"]) == c["accepted"].get<bool>());
        const auto problems = s.validate(c["instance"], "", step::task_schema);
        CHECK(problems.empty() == c["accepted"].get<bool>());
        const bool undecided = std::any_of(problems.begin(), problems.end(), [](const handoff::problem& p) {
            return p.message.find("refused rather than passed undecided") != std::string::npos;
        });
        CHECK(undecided == c["refused_undecided"].get<bool>());
        // With room for the string, the verdict is the rules' own.
        handoff::schema_options roomy;
        roomy.max_pattern_subject = 1'000;
        CHECK(compiled_schema::from_json(c["schema"], roomy).accepts(c["instance"]) == c["valid"].get<bool>());
    }
}

TEST_CASE("nesting past the walk's depth bound inside not refuses the value", "[schema-safety]") {
    const json schema = json::parse(R"({"$schema": "https://json-schema.org/draft/2020-12/schema",
        "not": {"$ref": "#/$defs/r"}, "$defs": {"r": {"type": "array", "items": {"$ref": "#/$defs/r"}}}})");
    const compiled_schema s = compiled_schema::from_json(schema);
    const auto nested = [](int levels) {
        json v = json::array();
        for (int i = 1; i < levels; ++i) {
            v = json::array({std::move(v)});
        }
        return v;
    };
    CHECK_FALSE(s.accepts(nested(10))); // an array of arrays fits r: not refuses it
    CHECK(s.accepts(1));
    const json deep = nested(200); // fits r too, but r's walk reaches the bound first
    CHECK_FALSE(s.accepts(deep));
    const auto problems = s.validate(deep, "", step::task_schema);
    REQUIRE(problems.size() == 1);
    CHECK_THAT(problems[0].message, Catch::Matchers::ContainsSubstring("nest deeper than 256 levels"));
    CHECK_THAT(problems[0].message, Catch::Matchers::ContainsSubstring("refused rather than passed undecided"));
}

} // namespace test_schema_safety

namespace test_schema_safety {

TEST_CASE("a schema that applies the same subschemas to one value again and again is judged in the time of its "
          "distinct walks",
          "[schema-safety][limits]") {
    // Forty links, each applying the next two to five times to the same value: walked without
    // memory, 2^40 walks and more. Each judgment below finishes, with the answer and the
    // problems (and the count of those not listed) that making every walk would give.
    const json fixture = handoff_test::read_fixture_json("schemas/repeated_walks.json");
    REQUIRE(fixture.at("links") == 40);
    const auto started = std::chrono::steady_clock::now();
    const json passing = {{"t", "a"}};
    const json failing = {{"t", 5}};
    for (const auto& [kind, schema_json] : fixture.at("schemas").items()) {
        INFO(kind);
        const compiled_schema schema = compiled_schema::from_json(schema_json);
        CHECK(schema.accepts(passing));
        CHECK(validate(schema, passing).empty());
        CHECK_FALSE(schema.accepts(failing));
        const handoff::problem_list problems = validate(schema, failing);
        REQUIRE_FALSE(problems.empty());
        CHECK(problems.front().pointer.rfind("/partial_result/t", 0) == 0);
        if (kind == "all_of") {
            // Each of the 2^40 ways down the chain ends at the string that 5 is not.
            REQUIRE(problems.size() == 101);
            CHECK(problems.front().message == "/partial_result/t: must be of type string (got \"5\")");
            CHECK(problems.back().message == "/partial_result: " + std::to_string((std::uint64_t{1} << 40) - 100) +
                                                 " more problems are not listed (at most 100 are)");
        }
        if (kind == "all_of_five") {
            // 5^40 ways down: more than 64 bits count, and the count says so, however many
            // failures follow (here a required key missing, after t).
            REQUIRE(problems.size() == 101);
            CHECK(problems.back().message ==
                  "/partial_result: more problems than a count holds are not listed (at most 100 are)");
            json more_required = schema_json;
            more_required["required"] = {"t", "x"};
            const handoff::problem_list then_more = validate(compiled_schema::from_json(more_required), failing);
            REQUIRE(then_more.size() == 101);
            CHECK(then_more.back().message == problems.back().message);
        }
    }
    // A reply that holds the value is received, and streamed, as any other.
    json envelope = handoff_test::read_fixture_json("envelopes/ok_complete.json");
    envelope["partial_result"] = passing;
    const handoff::receiver<> receiver(compiled_schema::from_json(fixture.at("schemas").at("conditions")));
    CHECK(receiver.receive(envelope.dump()).accepted());
    handoff::stream_check<> stream(receiver);
    stream.push(envelope.dump());
    CHECK(stream.finish().accepted());
    // Well above what its distinct walks take, even under the sanitizers; far below 2^40 walks.
    CHECK(std::chrono::steady_clock::now() - started < std::chrono::minutes(2));
}

} // namespace test_schema_safety

namespace test_schema_safety {

TEST_CASE("a walk remembered near the depth bound is made again where the bound would cut it",
          "[schema-safety][limits]") {
    // The same subschema walks the same value twice, the second time a few levels deeper. Where
    // the first walk ends just within the bound and the second would pass it, the memory must
    // not answer the second from the first: with or without it, the judgment is the same.
    // With an innermost number judged by its interval alone, the walk that interval spares is one
    // level deeper than any made, and the bound counts it too.
    using access = handoff::detail::compiled_schema_access;
    const bool innermost_number = GENERATE(false, true);
    const compiled_schema schema = compiled_schema::from_json(json::parse(R"({
        "$defs": {"chain": {"type": "object", "properties": {"c": {"$ref": "#/$defs/chain"},
                                                             "n": {"type": "integer", "maximum": 10}}}},
        "allOf": [{"$ref": "#/$defs/chain"},
                  {"allOf": [{"allOf": [{"allOf": [{"allOf": [{"$ref": "#/$defs/chain"}]}]}]}]}]
    })"));
    std::size_t accepted = 0;
    std::size_t refused = 0;
    for (int levels = 100; levels <= 140; ++levels) {
        json value = innermost_number ? json{{"n", 5}} : json::object();
        for (int i = 0; i < levels; ++i) {
            value = json{{"c", std::move(value)}};
        }
        INFO(levels << (innermost_number ? " with a number inside" : ""));
        const bool once = schema.accepts(value);
        REQUIRE(access::accepts_remembering(schema, value) == once);
        const handoff::problem_list problems = schema.validate(value, "", step::task_schema);
        const handoff::problem_list remembered = access::validate_remembering(schema, value);
        REQUIRE(remembered.size() == problems.size());
        for (std::size_t k = 0; k < problems.size(); ++k) {
            CHECK(remembered[k].message == problems[k].message);
        }
        (once ? accepted : refused) += 1;
    }
    CHECK(accepted > 0); // the range crosses the bound: both answers were compared
    CHECK(refused > 0);
}

} // namespace test_schema_safety

namespace test_schema_safety {

TEST_CASE("a memory of walks that fills forgets its cheapest, and the judgment stays the one made without it",
          "[schema-safety][limits]") {
    // 70,000 items, three walks each: more walks than the memory keeps at once.
    using access = handoff::detail::compiled_schema_access;
    STATIC_REQUIRE(handoff::detail::max_remembered_walks < 3 * 70'000);
    const compiled_schema schema = compiled_schema::from_json(json::parse(R"({
        "$defs": {"count": {"type": "integer", "minimum": 0}},
        "type": "array", "items": {"anyOf": [{"type": "string"}, {"$ref": "#/$defs/count"}]}
    })"));
    json value = json::array();
    for (int i = 0; i < 70'000; ++i) {
        value.push_back(i % 7 == 0 ? json(-i) : i % 2 == 0 ? json(i) : json("s"));
    }
    CHECK_FALSE(access::accepts_remembering(schema, value));
    const handoff::problem_list once = schema.validate(value, "", step::task_schema);
    const handoff::problem_list remembered = access::validate_remembering(schema, value);
    REQUIRE(once.size() == 101);
    REQUIRE(remembered.size() == once.size());
    for (std::size_t k = 0; k < once.size(); ++k) {
        CHECK(remembered[k].message == once[k].message);
    }
    for (json& item : value) { // the negative counts made positive: every item passes
        item = item.is_number_integer() && item.get<long long>() < 0 ? json(1) : item;
    }
    CHECK(schema.accepts(value));
    CHECK(access::accepts_remembering(schema, value));
}

} // namespace test_schema_safety

namespace test_schema_safety {

TEST_CASE("a full memory of walks keeps the dear walks that repeat, whatever cheap ones filled it",
          "[schema-safety][limits]") {
    // Each link applies the next one twice to an object of 40,000 keys and walks every key in
    // between: the keys' cheap walks fill the memory between the two, and only the link's own
    // record, kept through the filling, spares walking the rest of the chain again.
    using access = handoff::detail::compiled_schema_access;
    json defs = json::object();
    const int links = 20;
    for (int i = 0; i < links; ++i) {
        const json next = i + 1 < links ? json{{"$ref", "#/$defs/d" + std::to_string(i + 1)}} : json::object();
        defs["d" + std::to_string(i)] = {{"allOf", {next, {{"additionalProperties", {{"type", "integer"}}}}, next}}};
    }
    const compiled_schema schema = compiled_schema::from_json(json{{"$defs", defs}, {"$ref", "#/$defs/d0"}});
    json value = json::object();
    for (int i = 0; i < 40'000; ++i) {
        value["k" + std::to_string(i)] = i;
    }
    STATIC_REQUIRE(handoff::detail::max_remembered_walks < 2 * 40'000);
    const auto started = std::chrono::steady_clock::now();
    CHECK(access::accepts_remembering(schema, value));
    value["k7"] = "seven";
    CHECK_FALSE(access::accepts_remembering(schema, value));
    CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(60));
}

} // namespace test_schema_safety
