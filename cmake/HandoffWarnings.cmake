# SPDX-License-Identifier: MIT
# handoff_warnings(<target>): the project's warning flags, for tests and examples only.
# Never applied to the handoff interface target: users choose their own warnings.
include_guard(GLOBAL)

option(HANDOFF_WARNINGS_AS_ERRORS "Turn warnings into errors in handoff's tests and examples" ON)

function(handoff_warnings target)
  if(CMAKE_CXX_COMPILER_ID MATCHES "^(GNU|Clang|AppleClang)$")
    target_compile_options(${target} PRIVATE
      -Wall -Wextra -Wpedantic -Wshadow -Wconversion
      # A switch over an enum with no default: must name every enumerator (STYLE.md).
      -Werror=switch)
    if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
      # GCC's -Wmaybe-uninitialized misfires on destroying a disengaged std::optional of a
      # type holding a shared_ptr (GCC PR 80635; GCC 12 at -O2 and under -fsanitize): a
      # false positive, and -Werror would make it fatal. -Wuninitialized stays on.
      target_compile_options(${target} PRIVATE -Wno-maybe-uninitialized)
    endif()
    if(HANDOFF_WARNINGS_AS_ERRORS)
      target_compile_options(${target} PRIVATE -Werror)
    endif()
  endif()
endfunction()
