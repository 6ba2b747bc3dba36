// SPDX-License-Identifier: MIT
// The official JSON Schema Test Suite, draft-07: every case of every tests/draft7/*.json file
// (refRemote.json included, its remotes registered from disk) through compiled_schema's two
// modes and through receiver::receive, as partial_result of a valid ok envelope.

#include "support/fixtures.hpp"

#include <handoff/handoff.hpp>
#include <handoff/schema_registry.hpp>

#include <nlohmann/json.hpp>

#include <filesystem> // directory_iterator, exists
#include <iostream>   // cout
#include <set>        // set
#include <string>     // string
#include <vector>     // vector

namespace test_schema_suite { // this file's own names: see "unity build" in tests/CMakeLists.txt

#ifndef HANDOFF_CORPORA_DIR
#error "HANDOFF_CORPORA_DIR must name tests/corpora (tests/CMakeLists.txt defines it)"
#endif

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const fs::path suite_dir = fs::path(HANDOFF_CORPORA_DIR) / "JSON-Schema-Test-Suite";

/// "file: group / case" of the cases handoff knowingly judges differently, with the reason
/// beside each in tests/fixtures/schema_suite_deviations.json (empty: there are none).
std::set<std::string> deviations() {
    const json list = json::parse(handoff_test::read_file(handoff_test::fixture_path("schema_suite_deviations.json")));
    std::set<std::string> out;
    for (const auto& d : list) {
        out.insert(d.at("case").get<std::string>());
    }
    return out;
}

/// An ok envelope whose whole result is `data`: valid in every step but the task schema's.
std::string envelope_around(const json& data) {
    json envelope = json::parse(handoff_test::read_file(handoff_test::fixture_path("envelopes/ok_complete.json")));
    envelope["partial_result"] = data;
    return envelope.dump();
}

} // namespace

TEST_CASE("every draft-07 case of the JSON Schema Test Suite is judged as the suite says", "[schema][suite]") {
    REQUIRE(fs::is_directory(suite_dir / "tests" / "draft7")); // a missing corpus fails, never skips
    handoff::schema_registry registry;
    registry.add_directory(suite_dir / "remotes", "http://localhost:1234/");
    const std::set<std::string> known = deviations();

    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(suite_dir / "tests" / "draft7")) {
        if (entry.path().extension() == ".json") {
            files.push_back(entry.path());
        }
    }
    std::sort(files.begin(), files.end());
    REQUIRE(files.size() == 37);

    std::size_t passed = 0;
    std::size_t failed = 0;
    std::size_t via_receive = 0;
    for (const fs::path& file : files) {
        for (const json& group : json::parse(handoff_test::read_file(file.string()))) {
            const std::string name = file.filename().string() + ": " + group.at("description").get<std::string>();
            std::optional<handoff::compiled_schema> schema;
            std::string refused;
            try {
                schema = handoff::compiled_schema::from_json(group.at("schema"), registry);
            } catch (const handoff::schema_error& e) {
                refused = e.what();
            }
            for (const json& test : group.at("tests")) {
                const std::string id = name + " / " + test.at("description").get<std::string>();
                const json& data = test.at("data");
                const bool expected = test.at("valid").get<bool>();
                bool right = false;
                if (schema) {
                    const bool fast = schema->accepts(data);
                    const auto problems = schema->validate(data, "", handoff::step::task_schema);
                    const bool collected = problems.empty();
                    bool received = fast;
                    if (data.is_object()) {
                        const handoff::receiver<> check(*schema);
                        received = check.receive(envelope_around(data)).accepted();
                        ++via_receive;
                    }
                    right = fast == expected && collected == expected && received == expected;
                }
                if (right || known.count(id) != 0) {
                    ++passed;
                } else {
                    ++failed;
                    UNSCOPED_INFO(id << (schema ? "" : " (refused: " + refused + ")"));
                }
            }
        }
    }
    std::cout << "draft-07 suite: " << passed << " passed, " << failed << " failed (" << via_receive
              << " also through receive)\n";
    CHECK(passed + failed == 927);
    REQUIRE(failed == 0);
}

TEST_CASE("the two modes agree on every value of the suite, whatever the schema", "[schema][suite]") {
    REQUIRE(fs::is_directory(suite_dir / "tests" / "draft7"));
    handoff::schema_registry registry;
    registry.add_directory(suite_dir / "remotes", "http://localhost:1234/");
    std::vector<json> values;
    std::vector<handoff::compiled_schema> schemas;
    for (const auto& entry : fs::directory_iterator(suite_dir / "tests" / "draft7")) {
        for (const json& group : json::parse(handoff_test::read_file(entry.path().string()))) {
            schemas.push_back(handoff::compiled_schema::from_json(group.at("schema"), registry));
            for (const json& test : group.at("tests")) {
                values.push_back(test.at("data"));
            }
        }
    }
    std::size_t disagreements = 0;
    for (const auto& schema : schemas) {
        for (const json& value : values) {
            disagreements += schema.accepts(value) != schema.validate(value, "", handoff::step::task_schema).empty();
        }
    }
    REQUIRE(disagreements == 0);
}

} // namespace test_schema_suite
