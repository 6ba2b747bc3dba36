// SPDX-License-Identifier: MIT
#include "support/catch.hpp"
#include "support/fixtures.hpp"

#include <handoff/receiver.hpp>

#include <string>

namespace test_receipt { // this file's own names: see "unity build" in tests/CMakeLists.txt

TEST_CASE("receipt::result is the validated result of an accepted envelope and null otherwise", "[receipt]") {
    const handoff::receiver<> receiver;
    const auto accepted = receiver.receive(handoff_test::read_fixture("envelopes/ok_complete.json"));
    REQUIRE(accepted.route == handoff::route::accept);
    REQUIRE(accepted.result() != nullptr);
    CHECK(*accepted.result() == *accepted.envelope->partial_result);

    const auto capped = receiver.receive(handoff_test::read_fixture("worked_example/run1_token_cap.json"));
    REQUIRE(capped.route == handoff::route::split);
    CHECK(capped.envelope->partial_result.has_value()); // kept for the orchestrator, but not a result
    CHECK(capped.result() == nullptr);

    const auto broken = receiver.receive("{\"status\": \"ok\"");
    CHECK(broken.route == handoff::route::repair);
    CHECK(broken.result() == nullptr);
}

} // namespace test_receipt
