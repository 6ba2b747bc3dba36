// SPDX-License-Identifier: MIT
// The fuzz_sse harness (built into fuzz_harnesses.cpp's binary): a provider's streaming body,
// untrusted network input, read by provider_stream. The first byte of an input chooses the
// provider and the size of the reads the rest is cut into; the rest is the body.
//
// It aborts on a broken promise: the text, the stop or the problem depends on how the body was
// cut into reads (the adapter reads bytes, not reads), or the problem grows past its bound.
// tests/test_provider_stream.cpp runs disagreement() itself on every recorded stream.

#pragma once

#include "fuzz/fuzz_common.hpp"

#include <handoff/provider_stream.hpp>

#include <cstddef>     // size_t
#include <cstdint>     // uint8_t
#include <string>      // string
#include <string_view> // string_view

// Each harness is included once, into the binary or a test: internal linkage.
namespace handoff_fuzz::sse {
namespace {

struct reading {
    std::string text;
    handoff::stop_class stop = handoff::stop_class::other;
    std::string stop_reason;
    std::string problem;
};

/// `body` read by `source`'s adapter in reads of `step` bytes.
reading read_in_steps(handoff::provider source, std::string_view body, std::size_t step) {
    handoff::provider_stream events(source);
    reading r;
    for (std::size_t at = 0; at < body.size(); at += step) {
        r.text += events.push(body.substr(at, step));
    }
    r.text += events.finish();
    r.stop = events.stop();
    r.stop_reason = events.stop_reason();
    r.problem = events.problem();
    return r;
}

/// Which promise reading `body` in reads of `step` bytes breaks, or "" when none.
std::string disagreement(handoff::provider source, std::string_view body, std::size_t step) {
    constexpr std::size_t max_problem_bytes = 4096; // provider_stream::set_problem's bound
    const reading whole = read_in_steps(source, body, body.empty() ? 1 : body.size());
    const reading cut = read_in_steps(source, body, step);
    if (cut.text != whole.text) {
        return "the text depends on how the body is cut";
    }
    if (cut.stop != whole.stop || cut.stop_reason != whole.stop_reason) {
        return "the stop depends on how the body is cut";
    }
    if (cut.problem != whole.problem) {
        return "the problem depends on how the body is cut";
    }
    if (whole.problem.size() > max_problem_bytes) {
        return "the problem grew past its bound";
    }
    return {};
}

[[maybe_unused]] int one_input(const std::uint8_t* data, std::size_t size) {
    if (size == 0) {
        return 0;
    }
    constexpr handoff::provider providers[] = {handoff::provider::openai, handoff::provider::anthropic,
                                               handoff::provider::gemini, handoff::provider::llama_cpp};
    const handoff::provider source = providers[data[0] % 4];
    const std::size_t step = 1 + (data[0] >> 2U); // 1 to 64 bytes a read
    const std::string_view body(reinterpret_cast<const char*>(data + 1), size - 1);
    if (const std::string why = disagreement(source, body, step); !why.empty()) {
        broken(why.c_str(), std::string(handoff::to_string(source)) + ", reads of " + std::to_string(step));
    }
    return 0;
}

} // namespace
} // namespace handoff_fuzz::sse
