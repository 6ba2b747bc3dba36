// SPDX-License-Identifier: MIT
// The receiver's fast path (detail/json/fast_reader.hpp, detail/envelope/reader.hpp)
// may give way to the diagnosing path at any doubt, but must never
// accept what that path refuses, nor read a value differently. Each promise is checked here
// against its oracle: decode() for JSON, decode() + envelope_checker + valijson on
// schemas/envelope.schema.json for the envelope (task schemas: test_schema_oracle.cpp). And because a fast
// path that silently stops being taken is a regression too, the common inputs must take it.

#include "support/fixtures.hpp"
#include "support/strict_integers.hpp"

#include <handoff/detail/envelope/check.hpp>
#include <handoff/detail/envelope/reader.hpp>
#include <handoff/detail/json/fast_reader.hpp>
#include <handoff/handoff.hpp>

#include <algorithm>  // sort
#include <cstddef>    // size_t
#include <filesystem> // directory_iterator
#include <functional> // function
#include <optional>   // optional
#include <random>     // mt19937
#include <set>        // set
#include <string>     // string
#include <utility>    // pair
#include <vector>     // vector

namespace test_fast_path { // this file's own names: see "unity build" in tests/CMakeLists.txt

#ifndef HANDOFF_CORPORA_DIR
#error "HANDOFF_CORPORA_DIR must name tests/corpora (tests/CMakeLists.txt defines it)"
#endif

using nlohmann::json;

namespace {

namespace fs = std::filesystem;

/// Equal values of equal nlohmann types all the way down (== calls 1 and 1.0 equal).
bool same(const json& a, const json& b) {
    if (a.type() != b.type()) {
        return false;
    }
    if (a.is_object()) {
        if (a.size() != b.size()) {
            return false;
        }
        for (auto ia = a.begin(), ib = b.begin(); ia != a.end(); ++ia, ++ib) {
            if (ia.key() != ib.key() || !same(ia.value(), ib.value())) {
                return false;
            }
        }
        return true;
    }
    if (a.is_array()) {
        if (a.size() != b.size()) {
            return false;
        }
        for (std::size_t i = 0; i < a.size(); ++i) {
            if (!same(a[i], b[i])) {
                return false;
            }
        }
        return true;
    }
    return a == b && a.dump() == b.dump();
}

/// The fast reader on the whole text, or nullopt where it gave way.
std::optional<json> fast_parse(std::string_view text, const handoff::parse_limits& limits = {}) {
    handoff::detail::fast_json in(text, limits);
    json value;
    if (!in.read_value(value) || !in.finish()) {
        return std::nullopt;
    }
    return value;
}

handoff::decode_result strict_decode(std::string_view text, const handoff::parse_limits& limits = {}) {
    handoff::decode_options options;
    options.strict = true;
    options.limits = limits;
    return handoff::decode(text, options);
}

/// The promise for one text; true when the fast reader took it.
bool fast_json_keeps_its_promise(const std::string& name, std::string_view text,
                                 const handoff::parse_limits& limits = {}) {
    const std::optional<json> fast = fast_parse(text, limits);
    if (!fast) {
        return false;
    }
    const handoff::decode_result slow = strict_decode(text, limits);
    INFO("input: " << name);
    REQUIRE(slow.ok());
    CHECK(same(*fast, *slow.value));
    return true;
}

std::vector<std::pair<std::string, std::string>> json_test_suite() {
    const fs::path dir = fs::path(HANDOFF_CORPORA_DIR) / "JSONTestSuite" / "test_parsing";
    REQUIRE(fs::is_directory(dir));
    std::vector<std::pair<std::string, std::string>> files;
    for (const auto& entry : fs::directory_iterator(dir)) {
        if (entry.is_regular_file() && entry.path().extension() == ".json") {
            files.emplace_back(entry.path().filename().string(), handoff_test::read_file(entry.path().string()));
        }
    }
    std::sort(files.begin(), files.end());
    return files;
}

const handoff::compiled_schema& envelope_schema() {
    static const handoff::compiled_schema schema =
        handoff::compiled_schema::from_file(handoff_test::shipped_schema_path("envelope.schema.json"));
    return schema;
}

void check_same_envelope(const handoff::envelope<json>& a, const handoff::envelope<json>& b) {
    CHECK(a.status == b.status);
    CHECK(a.reason_code == b.reason_code);
    REQUIRE(a.partial_result.has_value() == b.partial_result.has_value());
    if (a.partial_result) {
        CHECK(same(*a.partial_result, *b.partial_result));
    }
    CHECK(a.schema_ok == b.schema_ok);
    CHECK(a.coverage.items_expected == b.coverage.items_expected);
    CHECK(a.coverage.items_completed == b.coverage.items_completed);
    CHECK(a.coverage.unit == b.coverage.unit);
    CHECK(a.coverage.fraction == b.coverage.fraction);
    CHECK(a.steps.completed == b.steps.completed);
    CHECK(a.steps.remaining == b.steps.remaining);
    REQUIRE(a.retry_hint.has_value() == b.retry_hint.has_value());
    if (a.retry_hint) {
        CHECK(a.retry_hint->suggested_action == b.retry_hint->suggested_action);
        CHECK(a.retry_hint->suggested_scope == b.retry_hint->suggested_scope);
        CHECK(a.retry_hint->budget_multiplier == b.retry_hint->budget_multiplier);
        CHECK(a.retry_hint->notes == b.retry_hint->notes);
    }
    REQUIRE(a.trace.has_value() == b.trace.has_value());
    if (a.trace) {
        CHECK(a.trace->trace_id == b.trace->trace_id);
        CHECK(a.trace->span_id == b.trace->span_id);
        CHECK(a.trace->parent_span_id == b.trace->parent_span_id);
    }
    REQUIRE(a.budget.has_value() == b.budget.has_value());
    if (a.budget) {
        CHECK(a.budget->tokens_used == b.budget->tokens_used);
        CHECK(a.budget->token_cap == b.budget->token_cap);
        CHECK(a.budget->elapsed_ms == b.budget->elapsed_ms);
        CHECK(a.budget->time_cap_ms == b.budget->time_cap_ms);
        CHECK(a.budget->tool_calls == b.budget->tool_calls);
        CHECK(a.budget->tool_call_cap == b.budget->tool_call_cap);
    }
}

/// The envelope promise for one text; true when the fast reader took it.
bool envelope_reader_keeps_its_promise(const std::string& text) {
    const auto fast = handoff::detail::read_envelope(text, handoff::parse_limits{});
    if (!fast) {
        return false;
    }
    INFO("envelope: " << text);
    const handoff::decode_result decoded = strict_decode(text);
    REQUIRE(decoded.ok());
    handoff::problem_list problems;
    const auto checked = handoff::detail::envelope_checker(problems).check(*decoded.value);
    REQUIRE(checked.has_value());
    CHECK(problems.empty());
    check_same_envelope(*fast, *checked);
    // The schema file stays the contract: valijson on it agrees. valijson refuses 40.0 as an
    // "integer" (it types numbers as nlohmann stored them) where draft-07, the reader and the
    // check read 40: only that case is compared on the integer form.
    CHECK(envelope_schema().is_valid(handoff_test::with_strict_integers(*decoded.value)));
    return true;
}

/// Whether decode() + envelope_checker accept the text.
bool envelope_check_accepts(const std::string& text) {
    const handoff::decode_result decoded = strict_decode(text);
    if (!decoded.ok()) {
        return false;
    }
    handoff::problem_list problems;
    return handoff::detail::envelope_checker(problems).check(*decoded.value).has_value();
}

json seed() { return handoff_test::read_fixture_json("envelopes/seed_000_example.json"); }

std::string repeat(const std::string& s, std::size_t n) {
    std::string out;
    for (std::size_t i = 0; i < n; ++i) {
        out += s;
    }
    return out;
}

/// The seed envelope with one member set (or removed, when `value` is discarded).
std::string with(const json::json_pointer& at, const json& value) {
    json doc = seed();
    doc["trace"] = {{"trace_id", "t-1"}, {"span_id", "s-1"}, {"parent_span_id", nullptr}};
    doc["budget"] = {{"tokens_used", 10}, {"token_cap", 100}};
    if (value.is_discarded()) {
        doc[at.parent_pointer()].erase(at.back());
    } else {
        doc[at] = value;
    }
    return doc.dump();
}

} // namespace

TEST_CASE("the fast JSON reader accepts no JSONTestSuite file that decode refuses, and reads the rest alike",
          "[fast_path]") {
    std::set<std::string> gave_way;
    for (const auto& [name, text] : json_test_suite()) {
        if (!fast_json_keeps_its_promise(name, text) && name[0] == 'y') {
            gave_way.insert(name);
        }
    }
    // The valid files it leaves to decode: those with a duplicate key, which decode refuses
    // and names (handoff's rule, not JSONTestSuite's).
    CHECK(gave_way == std::set<std::string>{
                          "y_object_duplicated_key.json",
                          "y_object_duplicated_key_and_value.json",
                      });
}

TEST_CASE("the fast JSON reader gives way at every parse limit exactly where decode stops", "[fast_path]") {
    handoff::parse_limits small;
    small.max_depth = 3;
    small.max_container_items = 4;
    small.max_values = 12;
    small.max_string_bytes = 8;
    const std::vector<std::string> texts = {
        "[[[1]]]",                      // depth 3: inside the limit
        "[[[[1]]]]",                    // depth 4: over
        "[1,2,3,4]",                    // 4 items
        "[1,2,3,4,5]",                  // 5 items
        R"({"a":1,"b":2,"c":3,"d":4})", // 4 keys
        R"({"a":1,"b":2,"c":3,"d":4,"e":5})",
        "[[1,2,3],[4,5,6],[7,8]]",          // 11 values
        "[[1,2,3],[4,5,6],[7,8,9]]",        // 12 values
        "[[1,2,3],[4,5,6],[7,8,9],0]",      // 13 values
        R"(["12345678"])",                  // 8 bytes
        R"(["123456789"])",                 // 9 bytes
        R"(["\u00e9\u00e9\u00e9\u00e9"])",  // 8 bytes once unescaped
        R"(["\u00e9\u00e9\u00e9\u00e9x"])", // 9
        R"({"12345678":1})",
        R"({"123456789":1})",
    };
    for (const std::string& text : texts) {
        const bool fast = fast_parse(text, small).has_value();
        const bool slow = strict_decode(text, small).ok();
        INFO(text);
        CHECK(fast == slow); // at a limit, giving way would be allowed; here it is not needed
        fast_json_keeps_its_promise(text, text, small);
    }
}

TEST_CASE("the fast JSON reader stores numbers, strings and escapes as nlohmann does", "[fast_path]") {
    const std::vector<std::string> texts = {
        "0",
        "-0",
        "7",
        "-7",
        "18446744073709551615",
        "9223372036854775807",
        "-9223372036854775808",
        "1999999999999999999",
        "-1999999999999999999",
        "0.1",
        "-0.0",
        "1e2",
        "1E+2",
        "1e-2",
        "2.5e-3",
        "123456789.123456789",
        "4.9e-324",
        "1.7976931348623157e308",
        "1e400",
        "1e-400",
        R"("plain")",
        R"("\"\\\/\b\f\n\r\t")",
        R"("\u0000")",
        R"("\ud83d\ude00")",
        R"("\uD834\uDD1E")",
        R"("\ud800")",
        R"("\udc00")",
        R"("\ud800\u0041")",
        "\"caf\xC3\xA9\"",
        "\"\xE2\x82\xAC\"",
        "\"\xF0\x9F\x98\x80\"",
        "\"\xC3\"",
        "\"\xED\xA0\x80\"",
        "\"\xC0\xAF\"",
        "\"tab\there\"",
        "\"\x7F\"",
        "[1,]",
        "[01]",
        "[1.]",
        "[.5]",
        "[-]",
        "[1e]",
        "[+1]",
        "{\"a\" 1}",
        "{\"a\":1,}",
        "[1] x",
        "[1]\x00",
        " \t\r\n[1] \t\r\n",
        "[true,false,null]",
        "[tru]",
        "nul",
        "{\"a\":{}}",
        R"({"b":1,"a":2})",
        R"({"a":1,"a":2})",
        "\xEF\xBB\xBF[1]",
    };
    for (const std::string& text : texts) {
        fast_json_keeps_its_promise(text, text);
    }
    // The ordinary ones take the fast path.
    for (const char* text : {"-0", "9223372036854775807", "-9223372036854775807", "0.1", "1E+2", "4.9e-324",
                             R"("\u0000")", R"("\ud83d\ude00")", "\"caf\xC3\xA9\""}) {
        INFO(text);
        CHECK(fast_parse(text).has_value());
    }
}

TEST_CASE("the fast JSON reader builds arrays of any sizes at one depth as nlohmann does", "[fast_path]") {
    // The reader sizes an array from the last one read at its depth: rows that grow past that,
    // shrink below it or pass its bound must still come out whole and in order.
    CHECK(fast_json_keeps_its_promise("arrays_at_one_depth.json",
                                      handoff_test::read_fixture("documents/arrays_at_one_depth.json")));
    for (const std::size_t size :
         {std::size_t{1}, std::size_t{1023}, std::size_t{1024}, std::size_t{1025}, std::size_t{3000}}) {
        std::string row = "[";
        for (std::size_t k = 0; k < size; ++k) {
            row += (k == 0 ? "" : ",") + std::to_string(k);
        }
        row += "]";
        const std::string text = "[" + row + ",[7]," + row + ",[]," + row + "]";
        CHECK(fast_json_keeps_its_promise("rows of " + std::to_string(size), text));
    }
}

TEST_CASE("the fast JSON reader reads every short decimal as the same double as nlohmann", "[fast_path]") {
    // Decimals of up to 17 digits with fractions and exponents around the bounds of the exact
    // path (15 digits, 10^22), so both the exact path and the general one are met.
    std::mt19937 random(20261202);
    std::size_t taken = 0;
    for (int n = 0; n < 20000; ++n) {
        std::string text = random() % 2 == 0 ? "-" : "";
        const int digits = 1 + static_cast<int>(random() % 17);
        const int point = static_cast<int>(random() % static_cast<unsigned>(digits + 1));
        for (int k = 0; k < digits; ++k) {
            if (k == point && k > 0) {
                text += '.';
            }
            text += static_cast<char>('0' + (k == 0 && digits > 1 && point != 1 ? 1 + random() % 9 : random() % 10));
        }
        if (random() % 3 == 0) {
            text += (random() % 2 == 0 ? "e-" : "E+") + std::to_string(random() % 30);
        } else if (point == digits || point == 0) {
            text += ".5";
        }
        taken += fast_json_keeps_its_promise(text, text) ? 1U : 0U;
    }
    CHECK(taken == 20000);
}

TEST_CASE("every valid fixture envelope takes the fast path, with the envelope the checker reads", "[fast_path]") {
    std::size_t valid = 0;
    for (const char* dir : {"envelopes", "worked_example", "replies"}) {
        for (const auto& entry : fs::directory_iterator(handoff_test::fixture_path(dir))) {
            if (entry.path().extension() != ".json") {
                continue;
            }
            const std::string text = handoff_test::read_file(entry.path().string());
            const bool checker = envelope_check_accepts(text);
            const bool fast = envelope_reader_keeps_its_promise(text);
            INFO(entry.path().string());
            CHECK(fast == checker);
            valid += checker ? 1U : 0U;
        }
    }
    CHECK(valid >= 20);
}

TEST_CASE("the fast envelope reader accepts no envelope that the envelope check refuses", "[fast_path]") {
    using ptr = json::json_pointer;
    const json gone = json(json::value_t::discarded);
    const std::string long64 = repeat("\xC3\xA9", 64); // 64 characters, 128 bytes
    const std::vector<std::pair<std::string, json>> edits = {
        {"/status", "ok"},
        {"/status", "OK"},
        {"/status", 1},
        {"/status", nullptr},
        {"/status", gone},
        {"/reason_code", nullptr},
        {"/reason_code", gone},
        {"/reason_code", "token_cap"},
        {"/reason_code", "TIME_CAP"},
        {"/reason_code", 3},
        {"/partial_result", nullptr},
        {"/partial_result", json::array()},
        {"/partial_result", "text"},
        {"/partial_result", json::object()},
        {"/partial_result", gone},
        {"/schema_ok", false},
        {"/schema_ok", "true"},
        {"/schema_ok", gone},
        {"/coverage", nullptr},
        {"/coverage/items_expected", -1},
        {"/coverage/items_expected", 40.0},
        {"/coverage/items_expected", 40.5},
        {"/coverage/items_expected", -1.0},
        {"/coverage/items_expected", -0.0},
        {"/coverage/items_expected", 1e300},
        {"/coverage/items_expected", 18446744073709551616.0},
        {"/coverage/items_completed", 28.0},
        {"/coverage/items_expected", "40"},
        {"/coverage/items_expected", gone},
        {"/coverage/items_completed", 0},
        {"/coverage/unit", ""},
        {"/coverage/unit", long64},
        {"/coverage/unit", long64 + "x"},
        {"/coverage/unit", 5},
        {"/coverage/fraction", 0},
        {"/coverage/fraction", 1},
        {"/coverage/fraction", 1.0000001},
        {"/coverage/fraction", -0.0},
        {"/coverage/fraction", -0.01},
        {"/coverage/fraction", "0.7"},
        {"/coverage/extra", 1},
        {"/steps/completed", json::array()},
        {"/steps/completed", json::array({repeat("x", 512)})},
        {"/steps/completed", json::array({repeat("x", 513)})},
        {"/steps/completed", json(std::vector<std::string>(256, "s"))},
        {"/steps/completed", json(std::vector<std::string>(257, "s"))},
        {"/steps/completed", json::array({1})},
        {"/steps/remaining", "all"},
        {"/steps/remaining", gone},
        {"/steps/other", json::array()},
        {"/retry_hint", nullptr},
        {"/retry_hint", gone},
        {"/retry_hint/suggested_action", "MAYBE"},
        {"/retry_hint/suggested_action", gone},
        {"/retry_hint/suggested_scope", nullptr},
        {"/retry_hint/suggested_scope", repeat("y", 1024)},
        {"/retry_hint/suggested_scope", repeat("y", 1025)},
        {"/retry_hint/budget_multiplier", nullptr},
        {"/retry_hint/budget_multiplier", 0},
        {"/retry_hint/budget_multiplier", -0.5},
        {"/retry_hint/budget_multiplier", "2"},
        {"/retry_hint/notes", nullptr},
        {"/retry_hint/notes", repeat("n", 2049)},
        {"/retry_hint/why", "x"},
        {"/trace", gone},
        {"/trace", nullptr},
        {"/trace/trace_id", ""},
        {"/trace/trace_id", repeat("t", 128)},
        {"/trace/trace_id", repeat("t", 129)},
        {"/trace/span_id", gone},
        {"/trace/parent_span_id", gone},
        {"/trace/parent_span_id", "p"},
        {"/trace/parent_span_id", 7},
        {"/budget", gone},
        {"/budget", json::object()},
        {"/budget/tokens_used", -1},
        {"/budget/tokens_used", 1.5},
        {"/budget/tokens_used", 10.0},
        {"/budget/tokens_used", 1e3},
        {"/budget/tokens_used", nullptr},
        {"/budget/tool_call_cap", 9223372036854775807ULL},
        {"/budget/other", 1},
        {"/note", "ignore the schema"},
    };
    std::size_t taken = 0;
    std::size_t valid = 0;
    for (const auto& [at, value] : edits) {
        const std::string text = with(ptr(at), value);
        const bool checker = envelope_check_accepts(text);
        const bool fast = envelope_reader_keeps_its_promise(text);
        INFO(at << " = " << value.dump());
        CHECK(fast == checker); // every valid variant here is ordinary enough for the fast path
        taken += fast ? 1U : 0U;
        valid += checker ? 1U : 0U;
    }
    CHECK(taken == valid);
    CHECK(valid >= 25);
}

TEST_CASE("the fast envelope reader agrees on the text-level forms of an envelope", "[fast_path]") {
    const std::string base = seed().dump();
    const std::vector<std::string> texts = {
        base,
        seed().dump(2),
        " \n" + base + "\n ",
        // escaped keys and values: equal once decoded
        R"({"st\u0061tus":"capped","reason_code":"TOKEN_CAP","partial_result":null,"schema_ok":false,)"
        R"("coverage":{"items_expected":0,"items_completed":0,"unit":"it\u00e9ms","fraction":0},)"
        R"("steps":{"completed":["a\nb"],"remaining":[]}})",
        // a repeated field: refused by decode
        R"({"status":"ok","status":"ok","partial_result":{},"schema_ok":true,)"
        R"("coverage":{"items_expected":0,"items_completed":0,"unit":"u","fraction":1},)"
        R"("steps":{"completed":[],"remaining":[]}})",
        // a repeated member inside coverage
        R"({"status":"ok","partial_result":{},"schema_ok":true,)"
        R"("coverage":{"items_expected":0,"items_expected":0,"items_completed":0,"unit":"u","fraction":1},)"
        R"("steps":{"completed":[],"remaining":[]}})",
        // reason_code before status, and null for an ok envelope
        R"({"reason_code":null,"status":"ok","partial_result":{"a":[1,2.5,"x",null,true]},"schema_ok":true,)"
        R"("coverage":{"fraction":1,"unit":"u","items_completed":0,"items_expected":0},)"
        R"("steps":{"remaining":[],"completed":[]}})",
        // trailing garbage, a trailing comma, a cut-off reply
        base + "x",
        base.substr(0, base.size() - 1) + ",}",
        base.substr(0, base.size() / 2),
        // not an object
        "[" + base + "]",
    };
    for (const std::string& text : texts) {
        const bool checker = envelope_check_accepts(text);
        const bool fast = envelope_reader_keeps_its_promise(text);
        INFO(text);
        CHECK(fast == checker);
    }
}

TEST_CASE("a receiver gives the same receipt whichever path read the envelope", "[fast_path]") {
    // 1e-400 underflows: the fast reader gives way and decode reads 0.0, so the second text is
    // the first one's envelope read by decode + envelope_checker.
    json doc = handoff_test::read_fixture_json("worked_example/run2_time_cap.json");
    doc["partial_result"] = {{"weight", 0.0}, {"label", "w"}};
    const std::string fast_text = doc.dump();
    std::string slow_text = fast_text;
    const std::string weight = "\"weight\":0.0";
    const auto at = slow_text.find(weight);
    REQUIRE(at != std::string::npos);
    slow_text.replace(at, weight.size(), "\"weight\":1e-400");
    REQUIRE(handoff::detail::read_envelope(fast_text, handoff::parse_limits{}).has_value());
    REQUIRE_FALSE(handoff::detail::read_envelope(slow_text, handoff::parse_limits{}).has_value());

    const handoff::receiver<> receiver;
    const auto fast = receiver.receive(fast_text);
    const auto slow = receiver.receive(slow_text);
    CHECK(handoff::to_json(fast) == handoff::to_json(slow));
    REQUIRE(fast.envelope.has_value());
    REQUIRE(slow.envelope.has_value());
    check_same_envelope(*fast.envelope, *slow.envelope);
}

} // namespace test_fast_path
