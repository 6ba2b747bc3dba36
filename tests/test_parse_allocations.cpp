// SPDX-License-Identifier: MIT
// Issue 4: the parse limits act *while* parsing. Over a limit the parse stops before the
// hostile structure is built, which shows in the bytes allocated: refusing a megabyte array
// allocates less than the megabyte itself, while the same text under loose limits (the
// control) allocates the whole tree.
//
// This file replaces the global operator new with one that counts the bytes the *current
// thread* allocates while a measurement is on (off otherwise, so the rest of the suite only
// pays a thread_local test). It forwards to malloc/free, which sanitizers intercept as usual.

#include "support/catch.hpp"

#include <handoff/decision.hpp>
#include <handoff/decode.hpp>

#include <cstddef>  // size_t
#include <cstdlib>  // malloc, free
#include <new>      // bad_alloc, nothrow_t
#include <optional> // nullopt
#include <string>   // string

namespace {

thread_local bool counting = false;
thread_local std::size_t counted_bytes = 0;
thread_local std::size_t counted_calls = 0;

} // namespace

// Not inlined: GCC would otherwise see free() of a pointer from operator new at each inlined
// delete and warn (-Wmismatched-new-delete), although this pair is consistent.
#if defined(__GNUC__)
#define HANDOFF_TEST_NOINLINE __attribute__((noinline))
#else
#define HANDOFF_TEST_NOINLINE
#endif

namespace {

void* counted_malloc(std::size_t size) noexcept {
    if (counting) {
        counted_bytes += size;
        ++counted_calls;
    }
    return std::malloc(size == 0 ? 1 : size);
}

} // namespace

// Every replaceable form but the aligned ones (which nothing here uses, and which stay the
// runtime's, new and delete alike): a form left out would pair the runtime's new with this
// delete, which AddressSanitizer rightly reports as a mismatch.
HANDOFF_TEST_NOINLINE void* operator new(std::size_t size) {
    if (void* p = counted_malloc(size)) {
        return p;
    }
    throw std::bad_alloc();
}
HANDOFF_TEST_NOINLINE void* operator new[](std::size_t size) {
    if (void* p = counted_malloc(size)) {
        return p;
    }
    throw std::bad_alloc();
}
HANDOFF_TEST_NOINLINE void* operator new(std::size_t size, const std::nothrow_t& /*tag*/) noexcept {
    return counted_malloc(size);
}
HANDOFF_TEST_NOINLINE void* operator new[](std::size_t size, const std::nothrow_t& /*tag*/) noexcept {
    return counted_malloc(size);
}
HANDOFF_TEST_NOINLINE void operator delete(void* p) noexcept { std::free(p); }
HANDOFF_TEST_NOINLINE void operator delete[](void* p) noexcept { std::free(p); }
HANDOFF_TEST_NOINLINE void operator delete(void* p, std::size_t /*size*/) noexcept { std::free(p); }
HANDOFF_TEST_NOINLINE void operator delete[](void* p, std::size_t /*size*/) noexcept { std::free(p); }
HANDOFF_TEST_NOINLINE void operator delete(void* p, const std::nothrow_t& /*tag*/) noexcept { std::free(p); }
HANDOFF_TEST_NOINLINE void operator delete[](void* p, const std::nothrow_t& /*tag*/) noexcept { std::free(p); }

namespace {

/// Bytes allocated on this thread while decoding `text` (the result is destroyed uncounted).
std::size_t bytes_to_decode(const std::string& text, const handoff::decode_options& options,
                            std::string& first_problem_code) {
    counted_bytes = 0;
    counting = true;
    handoff::decode_result r = handoff::decode(text, options);
    counting = false;
    first_problem_code = r.problems.empty() ? std::string() : r.problems.front().code;
    return counted_bytes;
}

handoff::decode_options strict(handoff::parse_limits limits = {}) {
    handoff::decode_options o;
    o.strict = true;
    o.limits = limits;
    return o;
}

handoff::parse_limits loose() {
    handoff::parse_limits l;
    l.max_depth = 1'000'000;
    l.max_container_items = 10'000'000;
    l.max_values = 10'000'000;
    return l;
}

constexpr std::size_t mebibyte = 1024 * 1024;

} // namespace

TEST_CASE("the counting allocator sees the allocations of a decode", "[hostile][allocations]") {
    std::string code;
    const std::size_t small = bytes_to_decode(R"({"a": [1, 2, 3]})", strict(), code);
    CHECK(code.empty());
    CHECK(small > 0);
    CHECK(small < 4096);
}

TEST_CASE("a 1 MiB array of small ints is refused without building it", "[hostile][allocations]") {
    std::string text = "[";
    while (text.size() < mebibyte - 16) {
        text += "7,";
    }
    text += "7]"; // about 524k items
    std::string code;
    const std::size_t refused = bytes_to_decode(text, strict(), code);
    CHECK(code == "parse.limit.items");
    // 10k items of 16 bytes, with the vector's growth: well under the input's own size.
    CHECK(refused < mebibyte);

    const std::size_t built = bytes_to_decode(text, strict(loose()), code);
    CHECK(code.empty());
    CHECK(built > 8 * mebibyte); // the control: the whole array is 524k values of 16 bytes
    INFO("refused: " << refused << " bytes, built: " << built << " bytes");
    CHECK(refused * 20 < built);
}

TEST_CASE("a depth bomb of 100k open brackets is refused without building it", "[hostile][allocations]") {
    const std::string text(100'000, '[');
    std::string code;
    const std::size_t refused = bytes_to_decode(text, strict(), code);
    CHECK(code == "parse.limit.depth");
    CHECK(refused < 64 * 1024);

    // The control: with no depth limit the parser builds 100k nested arrays before it finds
    // that the text ends early.
    const std::size_t built = bytes_to_decode(text, strict(loose()), code);
    CHECK(code == "parse.syntax");
    CHECK(built > 4 * mebibyte);
    INFO("refused: " << refused << " bytes, built: " << built << " bytes");
    CHECK(refused * 50 < built);
}

TEST_CASE("a 1 MiB object of small members is refused without building it", "[hostile][allocations]") {
    std::string text = "{";
    for (int i = 0; text.size() < mebibyte - 32; ++i) {
        text += "\"" + std::to_string(i) + "\":0,";
    }
    text += "\"end\":0}"; // about 110k members
    std::string code;
    const std::size_t refused = bytes_to_decode(text, strict(), code);
    CHECK(code == "parse.limit.items");
    const std::size_t built = bytes_to_decode(text, strict(loose()), code);
    CHECK(code.empty());
    INFO("refused: " << refused << " bytes, built: " << built << " bytes");
    CHECK(refused * 5 < built);
}

TEST_CASE("a string over max_string_bytes costs a small multiple of the reply's size", "[hostile][allocations]") {
    // nlohmann's lexer reads a string whole before the handler sees it, so this limit bounds
    // what is *kept*; what is read is bounded by max_bytes, checked before parsing starts.
    const std::string text = "[\"" + std::string(mebibyte - 8, 'x') + "\"]";
    std::string code;
    const std::size_t refused = bytes_to_decode(text, strict(), code);
    CHECK(code == "parse.limit.string");
    // The lexer keeps the token twice (its value, and its text for error messages), each grown
    // by doubling: a small multiple of max_bytes, and nothing is built from it.
    CHECK(refused < 8 * mebibyte);
}

// Issue 5: "routing a parsed envelope allocates nothing beyond the decision's own scope
// strings". plan() is counted call by call: the only allocations are the scope vector and
// the scope strings too long for the small-string buffer (RESUME, NARROW), the split ranges
// (SPLIT), and the unit when it is too long for that buffer. The rationale is facts, not a
// sentence, so ESCALATE and FAIL allocate nothing at all.
namespace {

/// Allocation calls on this thread while planning (the decision is destroyed uncounted).
std::size_t calls_to_plan(handoff::reason_code reason, const handoff::coverage_info& coverage,
                          const handoff::steps_info& steps, const handoff::attempt_context& context = {}) {
    counted_calls = 0;
    counting = true;
    handoff::decision d = handoff::plan(reason, coverage, steps, std::nullopt, true, {}, context);
    counting = false;
    return counted_calls;
}

} // namespace

TEST_CASE("routing allocates nothing beyond the decision's own scope", "[route][allocations]") {
    using handoff::reason_code;
    const handoff::coverage_info items{40, 14, "items", 0.35};   // a short unit: no allocation
    const handoff::coverage_info steps_only{0, 0, "steps", 0.9}; // nothing countable
    const handoff::coverage_info long_unit{40, 14, std::string(40, 'u'), 0.35};
    const handoff::steps_info short_steps{{"read"}, {"a", "b"}}; // fit the small-string buffer
    const handoff::steps_info long_steps{{}, {std::string(64, 'a'), std::string(64, 'b')}};

    // ESCALATE, and FAIL from an exhausted policy: nothing.
    CHECK(calls_to_plan(reason_code::dependency_failed, items, long_steps) == 0);
    handoff::attempt_context last;
    last.attempt = 3;
    CHECK(calls_to_plan(reason_code::token_cap, items, long_steps, last) == 0);
    // SPLIT over items: one vector of ranges.
    CHECK(calls_to_plan(reason_code::token_cap, items, long_steps) == 1);
    // ... and the unit, when it is too long to be stored inline.
    CHECK(calls_to_plan(reason_code::token_cap, long_unit, short_steps) == 2);
    // RESUME: the scope vector, plus each scope string stored out of line.
    CHECK(calls_to_plan(reason_code::token_cap, steps_only, short_steps) == 1);
    CHECK(calls_to_plan(reason_code::token_cap, steps_only, long_steps) == 3);
}
