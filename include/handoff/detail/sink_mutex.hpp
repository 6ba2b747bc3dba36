// SPDX-License-Identifier: MIT
#pragma once

// The lock of the dead-letter sinks (dead_letter.hpp, dead_letter_file.hpp). The sinks hold it
// through a pointer so that their headers need not include <mutex>: only the definitions
// (impl/dead_letter_inl.hpp, impl/dead_letter_file_inl.hpp) include this one.

#include <mutex> // mutex

namespace handoff::detail {

/// One sink's mutex: every write and every read of the sink's state holds it.
struct sink_mutex {
    std::mutex mutex;
};

} // namespace handoff::detail
