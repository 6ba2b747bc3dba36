// SPDX-License-Identifier: MIT
#pragma once

// The one version source: CMake reads these three lines (see CMakeLists.txt).
#define HANDOFF_VERSION_MAJOR 0
#define HANDOFF_VERSION_MINOR 1
#define HANDOFF_VERSION_PATCH 0

#define HANDOFF_VERSION_STRING_IMPL(a, b, c) #a "." #b "." #c
#define HANDOFF_VERSION_STRING_EXPAND(a, b, c) HANDOFF_VERSION_STRING_IMPL(a, b, c)
#define HANDOFF_VERSION_STRING \
    HANDOFF_VERSION_STRING_EXPAND(HANDOFF_VERSION_MAJOR, HANDOFF_VERSION_MINOR, HANDOFF_VERSION_PATCH)

namespace handoff {
inline constexpr const char* version_string = HANDOFF_VERSION_STRING;
} // namespace handoff
