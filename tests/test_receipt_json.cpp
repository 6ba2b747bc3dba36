// SPDX-License-Identifier: MIT
// append_json writes a receipt line without building a DOM (handoff-check's output); it must
// be byte for byte what to_json(r).dump() writes, on every route, on untrusted text that is
// not UTF-8, and on control characters in messages.

#include "support/fixtures.hpp"

#include <handoff/detail/json/writer.hpp>
#include <handoff/handoff.hpp>

#include <cmath>   // nan
#include <cstdint> // uint64_t
#include <cstring> // memcpy
#include <limits>  // numeric_limits
#include <random>  // mt19937_64

#include <filesystem> // directory_iterator
#include <string>     // string
#include <vector>     // vector

namespace test_receipt_json { // this file's own names: see "unity build" in tests/CMakeLists.txt

namespace {

namespace fs = std::filesystem;

std::string via_dom(const handoff::receipt<>& r, const char* source) {
    nlohmann::json j = handoff::to_json(r);
    if (source != nullptr) {
        j["source"] = source;
    }
    return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string direct(const handoff::receipt<>& r, const char* source) {
    std::string out = "prefix kept:";
    if (source != nullptr) {
        handoff::append_json(out, r, std::string_view(source));
    } else {
        handoff::append_json(out, r);
    }
    REQUIRE(out.rfind("prefix kept:", 0) == 0);
    return out.substr(12);
}

/// Every reply text the fixtures hold, plus hostile variants of one.
std::vector<std::string> replies() {
    std::vector<std::string> out;
    for (const char* dir : {"envelopes", "worked_example", "replies", "fuzz_regressions"}) {
        for (const auto& entry : fs::directory_iterator(handoff_test::fixture_path(dir))) {
            if (entry.path().filename() != "README.md") {
                out.push_back(handoff_test::read_file(entry.path().string()));
            }
        }
    }
    return out;
}

} // namespace

TEST_CASE("append_json writes what to_json dumps, for every fixture reply", "[receipt_json]") {
    const handoff::receiver<> plain;
    const handoff::receiver<> with_schema(handoff_test::records_schema());
    handoff::receiver_options strict_options;
    strict_options.strict = true;
    const handoff::receiver<> strict(handoff_test::records_schema(), strict_options);
    handoff::attempt_context last;
    last.attempt = 3; // policy FAIL overrides
    std::vector<std::string> texts = replies();
    REQUIRE(texts.size() >= 30);
    texts.push_back(R"({"status":"ok","partial_result":{"a":"\u0001\u001f\"\\/\b\f\n\r\t\u007f"},"schema_ok":true})");
    texts.push_back(std::string("{\"status\":\"ok\",\"x\xff\xfe\":1,\"s\xed\xa0\x80\":2}")); // not UTF-8
    texts.push_back("{\"status\":\"capped\",\"reason_code\":\"DEPENDENCY_FAILED\",\"partial_result\":{\"n\":\"\xc3\"},"
                    "\"schema_ok\":true,\"coverage\":{\"items_expected\":2,\"items_completed\":1,\"unit\":\"u\","
                    "\"fraction\":0.5},\"steps\":{\"completed\":[],\"remaining\":[\"r\\u0000\"]}}");
    std::size_t routes_seen = 0;
    std::vector<bool> seen(8, false);
    for (const std::string& text : texts) {
        for (const handoff::receiver<>* r : {&plain, &with_schema, &strict}) {
            for (const handoff::attempt_context& context : {handoff::attempt_context{}, last}) {
                const handoff::receipt<> receipt = r->receive(text, context);
                INFO(text.substr(0, 200));
                CHECK(direct(receipt, nullptr) == via_dom(receipt, nullptr));
                CHECK(direct(receipt, "file.jsonl:7") == via_dom(receipt, "file.jsonl:7"));
                seen[static_cast<std::size_t>(receipt.route)] = true;
            }
        }
    }
    for (const bool s : seen) {
        routes_seen += s ? 1U : 0U;
    }
    CHECK(routes_seen == 7); // every route: accept, repair, resume, split, narrow, escalate, fail
}

TEST_CASE("append_json replaces invalid UTF-8 in a source name as dump does", "[receipt_json]") {
    const handoff::receiver<> plain;
    const handoff::receipt<> receipt = plain.receive("not json");
    for (const std::string& source :
         {std::string("ok"), std::string("bad\xff"), std::string("cut\xe2\x82"), std::string("overlong\xc0\xaf"),
          std::string("past\xf4\x90\x80\x80"), std::string("tab\there\x01"), std::string("\xf0\x9f\x98\x80")}) {
        nlohmann::json j = handoff::to_json(receipt);
        j["source"] = source;
        std::string out;
        handoff::append_json(out, receipt, source);
        CHECK(out == j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    }
}

std::string dumped(const nlohmann::json& v) { return v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace); }

TEST_CASE("json_text writes every value of the fixture as dump does", "[receipt_json][json_writer]") {
    const nlohmann::json values = handoff_test::read_fixture_json("json_writer/values.json");
    REQUIRE(values.size() >= 40);
    for (const nlohmann::json& v : values) {
        CHECK(handoff::detail::json_text(v) == dumped(v));
    }
    CHECK(handoff::detail::json_text(values) == dumped(values));
    CHECK(handoff::detail::json_text(nlohmann::json(std::nan(""))) == "null");
    CHECK(handoff::detail::json_text(nlohmann::json(-std::numeric_limits<double>::infinity())) == "null");
    const nlohmann::json bytes = nlohmann::json::binary({0, 7, 255});
    const nlohmann::json typed = nlohmann::json::binary({1}, 42);
    CHECK(handoff::detail::json_text(bytes) == dumped(bytes));
    CHECK(handoff::detail::json_text(typed) == dumped(typed));
}

TEST_CASE("json_text writes doubles as dump does, over many bit patterns", "[receipt_json][json_writer]") {
    std::mt19937_64 bits(20261201); // fixed: a failure names a reproducible value
    for (int i = 0; i < 20000; ++i) {
        const std::uint64_t pattern = bits();
        double d = 0;
        std::memcpy(&d, &pattern, sizeof d);
        const nlohmann::json v(d);
        INFO("bits " << pattern);
        CHECK(handoff::detail::json_text(v) == dumped(v));
    }
}

TEST_CASE("json_text replaces bytes that break UTF-8 as dump does", "[receipt_json][json_writer]") {
    // Every string of up to three bytes over bytes that start, continue, end or break a
    // sequence, each bound of table 3-7 included.
    const unsigned char alphabet[] = {0x00, 0x1F, '"',  '\\', 'a',  0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF,
                                      0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xED, 0xEF, 0xF0, 0xF4, 0xF5, 0xFF};
    std::vector<std::string> strings{""};
    for (std::size_t length = 1; length <= 3; ++length) {
        const std::size_t before = strings.size();
        for (std::size_t i = 0; i < before; ++i) {
            if (strings[i].size() + 1 == length) {
                for (const unsigned char b : alphabet) {
                    strings.push_back(strings[i] + static_cast<char>(b));
                }
            }
        }
    }
    REQUIRE(strings.size() == 1 + 23 + 23 * 23 + 23 * 23 * 23);
    std::size_t mismatches = 0;
    for (const std::string& s : strings) {
        const nlohmann::json v(s);
        mismatches += handoff::detail::json_text(v) == dumped(v) ? 0 : 1;
    }
    CHECK(mismatches == 0);
    // Longer sequences cut or broken at each of their bytes.
    for (const std::string s : {"\xF0\x9F\x98\x80", "\xF0\x9F\x98", "\xF0\x9F\x98x", "\xE2\x82\xAC\x80",
                                "\xF4\x90\x80\x80", "\xED\xA0\x80", "ok\xF0\x9F\x98\x80\xF0\x9F"}) {
        const nlohmann::json v(s);
        CHECK(handoff::detail::json_text(v) == dumped(v));
    }
}

} // namespace test_receipt_json
