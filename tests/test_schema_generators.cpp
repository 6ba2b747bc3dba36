// SPDX-License-Identifier: MIT
// Task schemas as real generators write them (tests/fixtures/generators/: zod 4's z.toJSONSchema
// in its 2020-12 default and with target "draft-7", Pydantic v2's model_json_schema from its
// documentation), compiled by handoff, each instance judged as the fixture says (by both modes
// of the compiled schema and, for an object, by receive and the streaming check); the verdicts
// there come from the dialect's rules (checked with AJV), never from handoff. Then a receiver
// built from one schema of each generator, end to end.

#include "support/every_judge.hpp"
#include "support/fixtures.hpp"

#include <handoff/handoff.hpp>
#include <handoff/schema_dialect.hpp>

#include <nlohmann/json.hpp>

#include <cstddef>   // size_t
#include <iostream>  // cout
#include <optional>  // optional
#include <stdexcept> // runtime_error
#include <string>    // string

namespace test_schema_generators { // this file's own names: see "unity build" in tests/CMakeLists.txt

using handoff::route;
using handoff::step;
using nlohmann::json;

namespace {

struct verdicts {
    std::size_t checked = 0;
    std::size_t wrong = 0;
    std::string failures; // one line per wrong verdict, shown when the test fails
};

/// Compiles every case of a fixture file and checks every instance's verdict; a schema handoff
/// refuses makes each of its instances wrong. Prints one line for the file.
verdicts check_file(const std::string& relative, const handoff::schema_options& options = {}) {
    const json document = handoff_test::read_fixture_json("generators/" + relative);
    verdicts out;
    for (const json& test_case : document.at("cases")) {
        const std::string name = relative + ": " + test_case.at("description").get<std::string>();
        std::optional<handoff::compiled_schema> schema;
        std::string refused;
        try {
            schema = handoff::compiled_schema::from_json(test_case.at("schema"), options);
        } catch (const handoff::schema_error& e) {
            refused = e.what();
        }
        for (const json& test : test_case.at("tests")) {
            ++out.checked;
            const std::string why =
                schema ? handoff_test::judged_wrongly(*schema, test.at("data"), test.at("valid").get<bool>())
                       : " refused: " + refused;
            if (!why.empty()) {
                ++out.wrong;
                out.failures += name + " / " + test.at("description").get<std::string>() + ":" + why + "\n";
            }
        }
    }
    std::cout << relative << ": " << out.checked - out.wrong << " of " << out.checked << " verdicts right\n";
    return out;
}

/// The schema of the case of `relative` described as `description`.
json schema_of(const std::string& relative, const std::string& description) {
    const json document = handoff_test::read_fixture_json("generators/" + relative);
    for (const json& test_case : document.at("cases")) {
        if (test_case.at("description").get<std::string>() == description) {
            return test_case.at("schema");
        }
    }
    throw std::runtime_error("no case \"" + description + "\" in " + relative);
}

} // namespace

TEST_CASE("every schema zod 4 writes in its 2020-12 default judges each instance as 2020-12 says",
          "[schema][generators]") {
    const verdicts v = check_file("zod/draft2020-12.json");
    CHECK(v.checked == 45);
    INFO(v.failures);
    REQUIRE(v.wrong == 0);
}

TEST_CASE("every schema zod 4 writes for target draft-7 judges each instance as draft-07 says",
          "[schema][generators]") {
    const verdicts v = check_file("zod/draft-07.json");
    CHECK(v.checked == 45);
    INFO(v.failures);
    REQUIRE(v.wrong == 0);
}

TEST_CASE("every Pydantic v2 schema, which declares no $schema, is read as 2020-12 and judges each instance so",
          "[schema][generators]") {
    const verdicts v = check_file("pydantic/draft2020-12.json");
    CHECK(v.checked == 35);
    INFO(v.failures);
    REQUIRE(v.wrong == 0);
}

TEST_CASE("every Pydantic v2 schema judges each instance the same when 2020-12 is named as an option",
          "[schema][generators]") {
    handoff::schema_options options;
    options.dialect = handoff::schema_dialect::draft2020_12;
    const verdicts v = check_file("pydantic/draft2020-12.json", options);
    CHECK(v.checked == 35);
    INFO(v.failures);
    REQUIRE(v.wrong == 0);
}

TEST_CASE("a receiver built from zod's task report accepts a valid envelope and repairs a fractional priority",
          "[schema][generators][receiver]") {
    const std::string description =
        "task report: object with optional, nullable, enum, bounded array, integer range, nested object";
    const handoff::receiver<> receiver(
        handoff::compiled_schema::from_json(schema_of("zod/draft2020-12.json", description)));
    json report = {{"title", "Summarise Q3"},
                   {"status", "partial"},
                   {"tags", {"finance", "q3"}},
                   {"priority", 2},
                   {"assignee", nullptr},
                   {"source", {{"url", "https://example.com/q3"}, {"fetched_at", "2026-11-30T10:00:00Z"}}}};

    const auto accepted = receiver.receive(handoff_test::envelope_around(report));
    CHECK(accepted.route == route::accept);
    CHECK(accepted.problems.empty());

    report["priority"] = 2.5;
    const auto repaired = receiver.receive(handoff_test::envelope_around(report));
    CHECK(repaired.route == route::repair);
    REQUIRE(repaired.problems.size() == 1);
    CHECK(repaired.problems[0].step == step::task_schema);
    CHECK(repaired.problems[0].pointer == "/partial_result/priority");
}

TEST_CASE("a receiver built from Pydantic's NamedTuple model accepts a valid envelope and repairs a string coordinate",
          "[schema][generators][receiver]") {
    const std::string description = "NamedTuple field with a default: prefixItems in $defs, $ref beside default";
    const handoff::receiver<> receiver(
        handoff::compiled_schema::from_json(schema_of("pydantic/draft2020-12.json", description)));

    const auto accepted = receiver.receive(handoff_test::envelope_around({{"coords", {48.85, 2.35}}}));
    CHECK(accepted.route == route::accept);
    CHECK(accepted.problems.empty());

    const auto repaired = receiver.receive(handoff_test::envelope_around({{"coords", {"48.85", 2.35}}}));
    CHECK(repaired.route == route::repair);
    REQUIRE(repaired.problems.size() == 1);
    CHECK(repaired.problems[0].step == step::task_schema);
    CHECK(repaired.problems[0].pointer == "/partial_result/coords/0");
}

} // namespace test_schema_generators
