// SPDX-License-Identifier: MIT
#pragma once

// The benchmark programs' clock: CPU time, not wall time, so a figure taken on a shared machine
// is the time the measured code ran, whatever else competes for the cores.

#include <sys/resource.h> // getrusage (POSIX)

namespace handoff_bench {

/// CPU time this process has used (user and system), in microseconds.
inline double cpu_us() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    const auto us = [](const timeval& t) {
        return static_cast<double>(t.tv_sec) * 1e6 + static_cast<double>(t.tv_usec);
    };
    return us(usage.ru_utime) + us(usage.ru_stime);
}

} // namespace handoff_bench
