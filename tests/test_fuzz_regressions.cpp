// SPDX-License-Identifier: MIT
// Issue 4: every input in tests/fixtures/fuzz_regressions/ (crashes found by the fuzzer, and
// inputs that once got past handoff; the folder's README says which is which) is replayed
// through receive, tolerant and strict, with and without a task schema: no exception, a sane
// receipt, messages safe to log, and never an ACCEPT where the task schema applies.

#include "support/fixtures.hpp"

#include "fuzz/fuzz_schema.hpp"

#include <handoff/handoff.hpp>

#include <algorithm>   // sort
#include <cstdint>     // uint8_t
#include <filesystem>  // directory_iterator
#include <string>      // string
#include <string_view> // string_view
#include <vector>      // vector

namespace test_fuzz_regressions { // this file's own names: see "unity build" in tests/CMakeLists.txt

namespace {

namespace fs = std::filesystem;

std::vector<fs::path> regression_inputs(const std::string& folder = "fuzz_regressions") {
    std::vector<fs::path> out;
    for (const auto& entry : fs::directory_iterator(handoff_test::fixture_path(folder))) {
        if (entry.is_regular_file() && entry.path().filename() != "README.md") {
            out.push_back(entry.path());
        }
    }
    std::sort(out.begin(), out.end());
    return out;
}

bool safe_message(const std::string& message) {
    for (std::size_t i = 0; i < message.size();) {
        const std::size_t n = handoff::detail::utf8_sequence_length(std::string_view(message).substr(i));
        if (n == 0) {
            return false;
        }
        const auto b = static_cast<unsigned char>(message[i]);
        if ((n == 1 && (b < 0x20U || b == 0x7FU)) ||
            (n > 1 && handoff::detail::escaped_code_point(std::string_view(message).substr(i, n)) != 0)) {
            return false;
        }
        i += n;
    }
    return message.size() <= 4096;
}

void check_sane(const handoff::receipt<>& r) {
    CHECK_NOTHROW(handoff::to_json(r).dump());
    for (const auto& p : r.problems) {
        INFO(p.code << " at " << p.pointer.size() << "-byte pointer");
        CHECK(safe_message(p.message));
    }
    switch (r.route) {
    case handoff::route::accept:
        CHECK(r.problems.empty());
        REQUIRE(r.envelope.has_value());
        CHECK(r.envelope->partial_result.has_value());
        break;
    case handoff::route::repair:
        CHECK(r.failed_step.has_value());
        CHECK_FALSE(r.problems.empty());
        break;
    case handoff::route::resume:
    case handoff::route::split:
    case handoff::route::narrow:
    case handoff::route::escalate:
    case handoff::route::fail: CHECK(r.decision.has_value()); break;
    }
}

} // namespace

TEST_CASE("every fuzz and hostile-input regression replays to a sane receipt", "[hostile][fuzz]") {
    const auto inputs = regression_inputs();
    REQUIRE(inputs.size() >= 6);
    const nlohmann::json schema = handoff_test::read_fixture_json("schemas/patterned_items.schema.json");
    handoff::receiver_options strict;
    strict.strict = true;
    const handoff::receiver<> with_schema(schema);
    const handoff::receiver<> with_schema_strict(schema, strict);
    const handoff::receiver<> plain;
    const handoff::receiver<> plain_strict(strict);
    for (const fs::path& path : inputs) {
        INFO(path.filename().string());
        const std::string text = handoff_test::read_file(path.string());
        for (const handoff::receiver<>* rx : {&with_schema, &with_schema_strict, &plain, &plain_strict}) {
            handoff::receipt<> r;
            REQUIRE_NOTHROW(r = rx->receive(text));
            check_sane(r);
            if (rx == &with_schema || rx == &with_schema_strict) {
                CHECK(r.route != handoff::route::accept);
            }
        }
    }
}

TEST_CASE("every schema the fuzzer found replays through every reader of schemas", "[hostile][fuzz]") {
    // fuzz_schema's own promises (tests/fuzz/fuzz_schema.hpp), each input as the fuzzer ran it:
    // a broken one aborts with its reason, a hang is this test never ending, a use after free is
    // the asan stage's report.
    const auto inputs = regression_inputs("fuzz_regressions/schemas");
    REQUIRE(inputs.size() >= 2);
    for (const fs::path& path : inputs) {
        INFO(path.filename().string());
        const std::string text = handoff_test::read_file(path.string());
        CHECK(handoff_fuzz::schema::one_input(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()) == 0);
    }
}

} // namespace test_fuzz_regressions
