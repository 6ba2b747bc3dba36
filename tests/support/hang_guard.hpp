// SPDX-License-Identifier: MIT
#pragma once

#include <algorithm> // min
#include <chrono>    // steady_clock, duration

namespace handoff_test {

/// Seconds `f()` takes on the steady clock.
template <typename F>
double seconds_taken(F&& f) {
    const auto started = std::chrono::steady_clock::now();
    f();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
}

/// The least of three timings of `f()`: a loaded machine only ever adds time to a run.
template <typename F>
double least_seconds_taken(F&& f) {
    double least = seconds_taken(f);
    for (int run = 1; run < 3; ++run) {
        least = std::min(least, seconds_taken(f));
    }
    return least;
}

/// How many times as long as linear work over the same input (building that input, in the
/// same process) a guarded step may take. Measured against work done alongside it, the bound
/// holds on a slow or loaded machine and under the sanitizers, which slow both alike; the
/// linear steps guarded this way take at most about a dozen times their reference, so only
/// work that grows faster than its input comes near the bound.
constexpr double linear_work_factor = 50.0;

/// How many times as long a step may take over an input as over a quarter of it: about four
/// times for linear work (a little more with a logarithm), sixteen for work that grows as the
/// square of its input. Both are timed in the same process, so a slow machine or a sanitizer
/// moves neither the ratio nor the verdict.
constexpr double quadrupled_input_factor = 10.0;

} // namespace handoff_test
