// SPDX-License-Identifier: MIT
// <handoff/envelope.hpp> with a user Task: a struct with an nlohmann from_json is received
// typed, and a from_json that throws becomes a task.conversion problem, never an exception.

#include "support/fixtures.hpp"

#include <handoff/envelope.hpp>
#include <handoff/receiver.hpp>

#include <optional>    // optional
#include <stdexcept>   // runtime_error
#include <string>      // string
#include <type_traits> // is_same_v
#include <vector>      // vector

namespace test_typed_task { // this file's own names: see "unity build" in tests/CMakeLists.txt

using handoff::route;
using handoff_test::read_fixture;
using handoff_test::step_name;
using nlohmann::json;

namespace user {

/// The task of seed 000's example envelope.
struct report {
    std::vector<std::string> sections;
    std::uint64_t claims = 0;
};

inline void from_json(const json& j, report& r) {
    j.at("sections").get_to(r.sections);
    j.at("claims").get_to(r.claims);
}

/// The worked example's product records.
struct product_record {
    std::string id;
    std::string name;
    double price = 0.0;
    std::optional<std::string> currency;
};

struct records_task {
    std::vector<product_record> records;
};

inline void from_json(const json& j, product_record& r) {
    j.at("id").get_to(r.id);
    j.at("name").get_to(r.name);
    j.at("price").get_to(r.price);
    if (const auto it = j.find("currency"); it != j.end()) {
        r.currency = it->get<std::string>();
    }
}

inline void from_json(const json& j, records_task& t) { j.at("records").get_to(t.records); }

/// A task whose conversion enforces a rule the schema does not state.
struct even_claims {
    std::uint64_t claims = 0;
};

inline void from_json(const json& j, even_claims& t) {
    t.claims = j.at("claims").get<std::uint64_t>();
    if (t.claims % 2 != 0) {
        throw std::runtime_error("claims must be even, got " + std::to_string(t.claims));
    }
}

} // namespace user

TEST_CASE("Task defaults to nlohmann::json", "[typed]") {
    STATIC_REQUIRE(std::is_same_v<decltype(handoff::envelope<>::partial_result), std::optional<nlohmann::json>>);
    STATIC_REQUIRE(
        std::is_same_v<decltype(handoff::receipt<>::envelope), std::optional<handoff::envelope<nlohmann::json>>>);
    STATIC_REQUIRE(
        std::is_same_v<decltype(handoff::envelope<user::report>::partial_result), std::optional<user::report>>);
    STATIC_REQUIRE(std::is_same_v<decltype(std::declval<handoff::receiver<user::report>>().receive("")),
                                  handoff::receipt<user::report>>);
}

TEST_CASE("a user struct with from_json is received typed", "[typed]") {
    const handoff::receiver<user::report> receiver(handoff_test::sections_schema());
    const handoff::receipt<user::report> r = receiver.receive(read_fixture("envelopes/seed_000_example.json"));
    CHECK(r.route == route::split);
    CHECK(r.schema_ok);
    REQUIRE(r.envelope.has_value());
    REQUIRE(r.envelope->partial_result.has_value());
    const user::report& result = *r.envelope->partial_result;
    CHECK(result.sections == std::vector<std::string>{"intro", "pricing"});
    CHECK(result.claims == 14);
    // The rest of the envelope is typed the same as with json.
    CHECK(r.envelope->reason_code == handoff::reason_code::token_cap);
    CHECK(r.envelope->coverage.items_completed == 28);
    CHECK(r.envelope->retry_hint->suggested_action == handoff::action::split);
}

TEST_CASE("an accepted typed result is the whole result", "[typed]") {
    const handoff::receiver<user::report> receiver(handoff_test::sections_schema());
    const auto r = receiver.receive(read_fixture("envelopes/ok_complete.json"));
    CHECK(r.route == route::accept);
    REQUIRE(r.envelope->partial_result.has_value());
    CHECK(r.envelope->partial_result->sections.size() == 8);
    CHECK(r.envelope->partial_result->claims == 20);
}

TEST_CASE("the worked example's records are received typed", "[typed]") {
    const handoff::receiver<user::records_task> receiver(handoff_test::records_schema());
    const auto r = receiver.receive(read_fixture("worked_example/run3_dependency_failed.json"));
    CHECK(r.route == route::escalate);
    REQUIRE(r.envelope->partial_result.has_value());
    const auto& records = r.envelope->partial_result->records;
    REQUIRE(records.size() == 3);
    CHECK(records[0].id == "record 1");
    CHECK(records[0].name == "Desk organiser");
    CHECK(records[0].price == 27.0);
    CHECK(records[0].currency == "EUR");
}

TEST_CASE("a from_json that throws on an ok envelope is a task_schema REPAIR, not an exception",
          "[typed][conversion]") {
    const handoff::receiver<user::even_claims> receiver; // no schema: only the conversion judges
    handoff::receipt<user::even_claims> r;
    REQUIRE_NOTHROW(r = receiver.receive(read_fixture("envelopes/ok_invalid_result.json"))); // claims 20: fine
    CHECK(r.route == route::accept);
    CHECK(r.envelope->partial_result->claims == 20);

    json doc = handoff_test::read_fixture_json("envelopes/ok_complete.json");
    doc["partial_result"]["claims"] = 21;
    REQUIRE_NOTHROW(r = receiver.receive(doc.dump()));
    CHECK(r.route == route::repair);
    CHECK(step_name(r.failed_step) == "task_schema");
    CHECK_FALSE(r.schema_ok);
    REQUIRE(r.envelope.has_value());
    CHECK_FALSE(r.envelope->partial_result.has_value());
    REQUIRE(r.problems.size() == 1);
    CHECK(r.problems[0].step == handoff::step::task_schema);
    CHECK(r.problems[0].code == "task.conversion");
    CHECK(r.problems[0].pointer == "/partial_result");
    CHECK(r.problems[0].message ==
          "/partial_result: does not convert to the task type: \"claims must be even, got 21\"");
}

TEST_CASE("a from_json that throws on a capped envelope downgrades it like a schema failure", "[typed][conversion]") {
    // The user's struct needs "claims"; the schema (none here) let a result without it through.
    const handoff::receiver<user::report> receiver;
    json doc = handoff_test::read_fixture_json("envelopes/seed_000_example.json");
    doc["partial_result"].erase("claims");
    handoff::receipt<user::report> r;
    REQUIRE_NOTHROW(r = receiver.receive(doc.dump()));
    CHECK(step_name(r.failed_step) == "null");
    CHECK_FALSE(r.schema_ok);
    REQUIRE(r.problems.size() == 1);
    CHECK(r.problems[0].code == "task.conversion");
    CHECK(r.problems[0].pointer == "/partial_result");
    CHECK_THAT(r.problems[0].message,
               Catch::Matchers::StartsWith("/partial_result: does not convert to the task type: \"") &&
                   Catch::Matchers::ContainsSubstring("key 'claims' not found"));
    // Routed as a discarded result: coverage 0, all 40 sections split.
    CHECK(r.route == route::split);
    REQUIRE(r.decision.has_value());
    CHECK(r.decision->usable_coverage == 0.0);
    CHECK(r.decision->ranges.front() == handoff::item_range{1, 5});
    CHECK(r.decision->ranges.back() == handoff::item_range{36, 40});
}

TEST_CASE("a type mismatch inside from_json is a conversion problem too", "[typed][conversion]") {
    const handoff::receiver<user::report> receiver;
    json doc = handoff_test::read_fixture_json("envelopes/ok_complete.json");
    doc["partial_result"]["claims"] = "twenty";
    handoff::receipt<user::report> r;
    REQUIRE_NOTHROW(r = receiver.receive(doc.dump()));
    CHECK(r.route == route::repair);
    CHECK(handoff_test::codes(r.problems) == std::vector<std::string>{"task.conversion"});
}

TEST_CASE("the task schema runs before the conversion, so its problems come first", "[typed][conversion]") {
    const handoff::receiver<user::report> receiver(handoff_test::sections_schema());
    const auto r = receiver.receive(read_fixture("envelopes/capped_partial_invalid.json"));
    // Schema failures stop step 3: from_json is never asked to convert an invalid result.
    CHECK(handoff_test::codes(r.problems) == std::vector<std::string>{"task.schema", "task.schema"});
    CHECK_FALSE(r.schema_ok);
}

} // namespace test_typed_task
