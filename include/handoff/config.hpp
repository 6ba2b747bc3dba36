// SPDX-License-Identifier: MIT
#pragma once

// How handoff's heavy definitions reach a program. Header-only (the default): every header
// carries its definitions, inline. Compiled: HANDOFF_COMPILED_LIB is defined in every
// translation unit of the program (linking the CMake target handoff::compiled does it), the
// headers carry declarations only, and one translation unit, <handoff/src.hpp>, holds
// the definitions once. The choice is the whole program's: a definition seen inline in one
// file and compiled in another would be two definitions of one function.
#if defined(HANDOFF_COMPILED_LIB)
#define HANDOFF_INLINE
#else
#define HANDOFF_INLINE inline
#endif

// A function the compiler is asked to inline where it would not on its own: one called once per
// value from a recursive one, whose call would cost more than its body on most values.
#if defined(__GNUC__) || defined(__clang__)
#define HANDOFF_DETAIL_ALWAYS_INLINE inline __attribute__((always_inline))
#elif defined(_MSC_VER)
#define HANDOFF_DETAIL_ALWAYS_INLINE __forceinline
#else
#define HANDOFF_DETAIL_ALWAYS_INLINE inline
#endif
