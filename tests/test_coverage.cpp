// SPDX-License-Identifier: MIT
// <handoff/coverage.hpp>: SPEC section 3 step 4, the arithmetic of `coverage`.

#include "support/fixtures.hpp"

#include <handoff/coverage.hpp>

#include <string> // string
#include <vector> // vector

namespace test_coverage { // this file's own names: see "unity build" in tests/CMakeLists.txt

using handoff::check_coverage;
using handoff::coverage_info;
using handoff::status;
using handoff::step;

namespace {

coverage_info cov(std::uint64_t expected, std::uint64_t completed, double fraction, std::string unit = "sections") {
    return coverage_info{expected, completed, std::move(unit), fraction};
}

} // namespace

TEST_CASE("coverage that adds up has no problems", "[coverage]") {
    CHECK(check_coverage(status::capped, cov(40, 28, 0.70)).empty());
    CHECK(check_coverage(status::capped, cov(40, 14, 0.35)).empty());
    CHECK(check_coverage(status::capped, cov(40, 0, 0.0)).empty());
    CHECK(check_coverage(status::ok, cov(8, 8, 1.0)).empty());
    CHECK(check_coverage(status::ok, cov(8, 8, 1)).empty());
}

TEST_CASE("a fraction that disagrees with completed/expected is named with both values", "[coverage]") {
    const auto problems = check_coverage(status::capped, cov(40, 28, 0.9));
    REQUIRE(problems.size() == 1);
    CHECK(problems[0].step == step::coverage);
    CHECK(problems[0].code == "coverage.fraction_mismatch");
    CHECK(problems[0].pointer == "/coverage/fraction");
    CHECK(problems[0].message == "/coverage/fraction: 0.9 disagrees with 28/40 = 0.70");
}

TEST_CASE("the fraction may be rounded to two decimals either way, no further", "[coverage]") {
    // 1/8 = 0.125: 0.12 and 0.13 are both two-decimal roundings of it; 0.2 is not.
    const double fine = GENERATE(0.12, 0.125, 0.13);
    CHECK(check_coverage(status::capped, cov(8, 1, fine)).empty());

    const auto off = check_coverage(status::capped, cov(8, 1, 0.2));
    REQUIRE(off.size() == 1);
    CHECK(off[0].message == "/coverage/fraction: 0.2 disagrees with 1/8 = 0.12");
    CHECK(check_coverage(status::capped, cov(8, 1, 0.11)).size() == 1);
    CHECK(check_coverage(status::capped, cov(8, 1, 0.14)).size() == 1);
}

TEST_CASE("the tolerance admits rounding of thirds but not truncation to one decimal", "[coverage]") {
    CHECK(check_coverage(status::capped, cov(3, 1, 0.33)).empty());
    CHECK(check_coverage(status::capped, cov(3, 2, 0.67)).empty());
    const auto problems = check_coverage(status::capped, cov(3, 2, 0.6));
    REQUIRE(problems.size() == 1);
    CHECK(problems[0].message == "/coverage/fraction: 0.6 disagrees with 2/3 = 0.67");
}

TEST_CASE("a caller may set its own fraction tolerance", "[coverage]") {
    CHECK(check_coverage(status::capped, cov(8, 1, 0.2), 0.1).empty());
    CHECK(check_coverage(status::capped, cov(8, 1, 0.13), 0.0).size() == 1);
    CHECK(check_coverage(status::capped, cov(8, 1, 0.125), 0.0).empty());
}

TEST_CASE("completed never exceeds expected", "[coverage]") {
    const auto problems = check_coverage(status::capped, cov(40, 41, 1.0));
    // The ratio would be meaningless, so it is the only problem reported.
    REQUIRE(problems.size() == 1);
    CHECK(problems[0].step == step::coverage);
    CHECK(problems[0].code == "coverage.completed_exceeds_expected");
    CHECK(problems[0].pointer == "/coverage/items_completed");
    CHECK(problems[0].message == "/coverage/items_completed: 41 completed exceeds the 40 expected");
}

TEST_CASE("ok means every expected item is completed", "[coverage]") {
    SECTION("fraction consistent with the shortfall") {
        const auto problems = check_coverage(status::ok, cov(8, 7, 0.88));
        REQUIRE(problems.size() == 1);
        CHECK(problems[0].code == "coverage.ok_incomplete");
        CHECK(problems[0].pointer == "/coverage/items_completed");
        CHECK(problems[0].message == "/coverage/items_completed: status \"ok\" but only 7 of 8 \"sections\" are "
                                     "completed: report \"capped\" with a reason_code, or finish the work");
    }
    SECTION("fraction claiming 1 as well") {
        const auto problems = check_coverage(status::ok, cov(8, 7, 1.0));
        CHECK(handoff_test::codes(problems) ==
              std::vector<std::string>{"coverage.fraction_mismatch", "coverage.ok_incomplete"});
    }
    SECTION("the same numbers are fine when capped") { CHECK(check_coverage(status::capped, cov(8, 7, 0.88)).empty()); }
}

TEST_CASE("expected 0 means no countable items: completed must be 0", "[coverage][zero]") {
    const auto problems = check_coverage(status::capped, cov(0, 3, 0.5));
    REQUIRE(problems.size() == 1);
    CHECK(problems[0].code == "coverage.completed_exceeds_expected");
    CHECK(problems[0].message == "/coverage/items_completed: 3 completed exceeds the 0 expected");
}

TEST_CASE("expected 0 lets a capped worker estimate its progress in fraction", "[coverage][zero]") {
    const double estimate = GENERATE(0.0, 0.4, 0.85, 1.0);
    CHECK(check_coverage(status::capped, cov(0, 0, estimate)).empty());
}

TEST_CASE("expected 0 with status ok must report fraction 1", "[coverage][zero]") {
    CHECK(check_coverage(status::ok, cov(0, 0, 1.0)).empty());
    CHECK(check_coverage(status::ok, cov(0, 0, 0.996)).empty()); // rounds to 1.00
    const auto problems = check_coverage(status::ok, cov(0, 0, 0.5));
    REQUIRE(problems.size() == 1);
    CHECK(problems[0].code == "coverage.ok_incomplete");
    CHECK(problems[0].pointer == "/coverage/fraction");
    CHECK(problems[0].message == "/coverage/fraction: status \"ok\" with no counted items (items_expected 0) "
                                 "must report fraction 1, got 0.5");
}

TEST_CASE("coverage arithmetic holds at the 64-bit limit", "[coverage]") {
    constexpr std::uint64_t max = 18446744073709551615ULL;
    CHECK(check_coverage(status::ok, cov(max, max, 1.0)).empty());
    CHECK(check_coverage(status::capped, cov(max, max / 2, 0.5)).empty());
    const auto problems = check_coverage(status::capped, cov(max, 1, 0.5));
    REQUIRE(problems.size() == 1);
    CHECK(problems[0].message == "/coverage/fraction: 0.5 disagrees with 1/18446744073709551615 = 0.00");
}

TEST_CASE("the unit is quoted safely in a message", "[coverage]") {
    const auto problems = check_coverage(status::ok, cov(2, 1, 0.5, "rows \"A\"\n"));
    REQUIRE(problems.size() == 1);
    CHECK(problems[0].message == "/coverage/items_completed: status \"ok\" but only 1 of 2 \"rows \\\"A\\\"\\n\" are "
                                 "completed: report \"capped\" with a reason_code, or finish the work");
}

} // namespace test_coverage
