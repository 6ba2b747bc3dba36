// SPDX-License-Identifier: MIT
// append_json writes a receipt line without building a DOM (handoff-check's output); it must
// be byte for byte what to_json(r).dump() writes, on every route, on untrusted text that is
// not UTF-8, and on control characters in messages.

#include "support/fixtures.hpp"

#include <handoff/handoff.hpp>

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

} // namespace test_receipt_json
