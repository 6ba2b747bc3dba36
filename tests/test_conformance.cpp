// SPDX-License-Identifier: MIT
// Issue 4: the public JSONTestSuite conformance files (tests/corpora/JSONTestSuite, MIT).
// Strict mode: every y_ file parses (but the two duplicated-key files, refused on purpose),
// every n_ file is a parse failure. Both modes: no file crashes, hangs or is accepted.
// The corpus missing is a failure, never a skip.

#include "support/fixtures.hpp"

#include <handoff/detail/json/ordered_parse.hpp>
#include <handoff/handoff.hpp>

#include <algorithm>  // sort
#include <chrono>     // steady_clock
#include <filesystem> // directory_iterator
#include <iterator>   // next, prev
#include <stdexcept>  // runtime_error
#include <string>     // string, to_string
#include <vector>     // vector

namespace test_conformance { // this file's own names: see "unity build" in tests/CMakeLists.txt

#ifndef HANDOFF_CORPORA_DIR
#error "HANDOFF_CORPORA_DIR must name tests/corpora (tests/CMakeLists.txt defines it)"
#endif

namespace {

namespace fs = std::filesystem;

struct corpus_file {
    std::string name;
    std::string text;
};

/// Every file of test_parsing/, sorted by name; fails the test when the folder is missing.
const std::vector<corpus_file>& corpus() {
    static const std::vector<corpus_file> files = [] {
        const fs::path dir = fs::path(HANDOFF_CORPORA_DIR) / "JSONTestSuite" / "test_parsing";
        if (!fs::is_directory(dir)) {
            throw std::runtime_error("JSONTestSuite corpus missing: " + dir.string() +
                                     " (see tests/corpora/README.md)");
        }
        std::vector<corpus_file> out;
        for (const auto& entry : fs::directory_iterator(dir)) {
            if (entry.is_regular_file() && entry.path().extension() == ".json") {
                out.push_back({entry.path().filename().string(), handoff_test::read_file(entry.path().string())});
            }
        }
        std::sort(out.begin(), out.end(), [](const corpus_file& a, const corpus_file& b) { return a.name < b.name; });
        return out;
    }();
    return files;
}

std::vector<const corpus_file*> with_prefix(char prefix) {
    std::vector<const corpus_file*> out;
    for (const corpus_file& f : corpus()) {
        if (f.name[0] == prefix) {
            out.push_back(&f);
        }
    }
    return out;
}

bool is_duplicated_key_file(const std::string& name) { return name.rfind("y_object_duplicated_key", 0) == 0; }

handoff::decode_options strict_decode() {
    handoff::decode_options o;
    o.strict = true;
    return o;
}

/// A generous per-file bound: every file here is decoded in well under a millisecond, so
/// only a hang (or a quadratic blow-up) comes near it, even under sanitizers.
constexpr auto per_file_limit = std::chrono::seconds(2);

} // namespace

TEST_CASE("the JSONTestSuite corpus is present and complete", "[conformance]") {
    // 95 y_, 188 n_ and 35 i_ files in the upstream suite.
    CHECK(with_prefix('y').size() == 95);
    CHECK(with_prefix('n').size() == 188);
    CHECK(with_prefix('i').size() == 35);
}

TEST_CASE("strict mode parses every y_ file except the duplicated keys it refuses on purpose", "[conformance]") {
    std::size_t refused_duplicates = 0;
    for (const corpus_file* f : with_prefix('y')) {
        INFO(f->name);
        const auto r = handoff::decode(f->text, strict_decode());
        if (is_duplicated_key_file(f->name)) {
            REQUIRE_FALSE(r.ok());
            CHECK(r.problems.at(0).code == "parse.duplicate_key");
            CHECK(r.problems.at(0).pointer == "/a");
            ++refused_duplicates;
        } else {
            CHECK(r.ok());
            CHECK(r.problems.empty());
            CHECK(r.tolerances.empty());
        }
    }
    CHECK(refused_duplicates == 2);
}

TEST_CASE("parse_ordered reads every corpus file as ordered_json::parse does, and a wide object in linear time",
          "[conformance][json]") {
    for (const corpus_file& f : corpus()) {
        INFO(f.name);
        const nlohmann::ordered_json ours = handoff::detail::parse_ordered(f.text);
        const nlohmann::ordered_json theirs = nlohmann::ordered_json::parse(f.text, nullptr, false);
        REQUIRE(ours.is_discarded() == theirs.is_discarded());
        if (!theirs.is_discarded()) {
            CHECK(ours.dump() == theirs.dump()); // key order, and a repeated key's place and value
        }
    }
    std::string wide = "{";
    for (int i = 0; i < 60'000; ++i) {
        wide += (i == 0 ? "\"k" : ",\"k") + std::to_string(i) + "\":" + std::to_string(i);
    }
    wide += ",\"k7\":\"last\"}";
    const auto started = std::chrono::steady_clock::now();
    const nlohmann::ordered_json read = handoff::detail::parse_ordered(wide);
    CHECK(std::chrono::steady_clock::now() - started < per_file_limit); // parse() takes seconds
    REQUIRE(read.size() == 60'000);
    CHECK(std::next(read.begin(), 7).key() == "k7");
    CHECK(read.at("k7") == "last");
    CHECK(std::prev(read.end()).key() == "k59999");
}

TEST_CASE("strict mode refuses every n_ file with a parse problem", "[conformance]") {
    for (const corpus_file* f : with_prefix('n')) {
        INFO(f->name);
        const auto r = handoff::decode(f->text, strict_decode());
        CHECK_FALSE(r.ok());
        REQUIRE_FALSE(r.problems.empty());
        CHECK(r.problems[0].step == handoff::step::parse);
        CHECK(r.problems[0].code.rfind("parse.", 0) == 0);
    }
}

TEST_CASE("no corpus file crashes, hangs or is accepted by receive, strict or tolerant", "[conformance]") {
    handoff::receiver_options strict_options;
    strict_options.strict = true;
    const handoff::receiver<> strict(strict_options);
    const handoff::receiver<> tolerant;
    for (const corpus_file& f : corpus()) {
        INFO(f.name);
        for (const handoff::receiver<>* rx : {&strict, &tolerant}) {
            const auto started = std::chrono::steady_clock::now();
            const auto r = rx->receive(f.text);
            const auto decoded = handoff::decode(f.text, rx == &strict ? strict_decode() : handoff::decode_options{});
            CHECK(std::chrono::steady_clock::now() - started < per_file_limit);
            // None of these is an envelope: each is a contract failure that says why.
            CHECK(r.route == handoff::route::repair);
            CHECK(r.failed_step.has_value());
            CHECK_FALSE(r.problems.empty());
            CHECK_NOTHROW(handoff::to_json(r).dump());
            // The i_ files may go either way, but a decode never reports success and problems.
            CHECK(decoded.ok() == decoded.problems.empty());
        }
    }
}

TEST_CASE("the i_ files that strict mode refuses are refused as parse problems", "[conformance]") {
    // Implementation-defined in RFC 8259; handoff's choices, pinned so they cannot drift.
    std::vector<std::string> accepted;
    for (const corpus_file* f : with_prefix('i')) {
        const auto r = handoff::decode(f->text, strict_decode());
        if (r.ok()) {
            accepted.push_back(f->name);
        } else {
            INFO(f->name);
            CHECK(r.problems.at(0).step == handoff::step::parse);
        }
    }
    // Underflow to 0 is a value; overflow, bad UTF-8 and lone surrogates are not; a BOM is
    // refused in strict mode; 500 nested arrays exceed max_depth.
    CHECK(accepted == std::vector<std::string>{"i_number_double_huge_neg_exp.json", "i_number_real_underflow.json"});
}

} // namespace test_conformance
