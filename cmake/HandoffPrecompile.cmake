# SPDX-License-Identifier: MIT
# handoff_precompile(<target> <library>): with HANDOFF_PRECOMPILE_HEADERS, the program reads
# <handoff/handoff.hpp> from a precompiled header shared by every program that links the same
# form of the library (<library>: handoff::handoff or handoff::compiled). For handoff's own
# programs only, never for users' targets.
#
# A build that compiles every program from scratch (scripts/test.sh's clang++ stages) otherwise
# parses and instantiates the whole library once per program: the unit tests' two translation
# units, the examples and handoff-check. Clang instantiates the PCH's templates once
# (-fpch-instantiate-templates, which CMake passes); each program still compiles and links its
# own copy of what it uses, so main.cpp's second-definition check still works. The programs of
# one form share compile definitions that matter to the headers (HANDOFF_COMPILED_LIB comes
# with handoff::compiled) and the build's flags. clang++ only: GCC instantiates nothing in a PCH,
# and skips one built at another optimisation level (the unit tests' -O1 in a Release build)
# with a -Winvalid-pch warning, which -Werror makes an error.
include_guard(GLOBAL)

option(HANDOFF_PRECOMPILE_HEADERS "Precompile <handoff/handoff.hpp> once for handoff's own programs (clang++)" OFF)
if(HANDOFF_PRECOMPILE_HEADERS AND NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  message(FATAL_ERROR "handoff: HANDOFF_PRECOMPILE_HEADERS needs clang++, not ${CMAKE_CXX_COMPILER_ID}")
endif()

function(handoff_precompile target library)
  if(NOT HANDOFF_PRECOMPILE_HEADERS)
    return()
  endif()
  string(MAKE_C_IDENTIFIER "HANDOFF_PCH_HOST_${library}" _key)
  get_property(_host GLOBAL PROPERTY "${_key}")
  if(_host)
    target_precompile_headers(${target} REUSE_FROM ${_host})
  else()
    target_precompile_headers(${target} PRIVATE <handoff/handoff.hpp>)
    set_property(GLOBAL PROPERTY "${_key}" ${target})
  endif()
endfunction()
