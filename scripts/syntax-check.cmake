# SPDX-License-Identifier: MIT
# Turns a build tree's compile_commands.json into one shell script per translation unit that
# parses and type-checks it without generating code (-fsyntax-only): the test, benchmark and example
# sources (the unity batches of tests/CMakeLists.txt included) and the per-header TUs of
# all_verify_interface_header_sets. scripts/test.sh runs the scripts in parallel: for its
# compile-only stage (clang17), and with -DHEADERS_ONLY=ON to check that every public header
# compiles on its own in each build (a header TU has only inline code: the front end is the check).
#
# With -DCOMPILED_FORM=ON, only the public headers (include/handoff/*.hpp), each with
# HANDOFF_COMPILED_LIB defined: in the compiled form a header reads declarations only, and must
# still compile on its own.
#
#   cmake -DCOMPILE_COMMANDS=<build>/compile_commands.json -DOUT=<dir> [-DHEADERS_ONLY=ON]
#     [-DCOMPILED_FORM=ON] -P scripts/syntax-check.cmake
cmake_minimum_required(VERSION 3.24)

if(NOT EXISTS "${COMPILE_COMMANDS}")
  message(FATAL_ERROR "syntax-check: no ${COMPILE_COMMANDS} (configure with CMAKE_EXPORT_COMPILE_COMMANDS=ON)")
endif()
file(READ "${COMPILE_COMMANDS}" _commands)
string(JSON _count LENGTH "${_commands}")
file(REMOVE_RECURSE "${OUT}")
file(MAKE_DIRECTORY "${OUT}")
set(_written 0)
if(_count GREATER 0)
  math(EXPR _last "${_count} - 1")
  foreach(_i RANGE ${_last})
    string(JSON _file GET "${_commands}" ${_i} file)
    set(_extra "")
    if(COMPILED_FORM)
      if(NOT _file MATCHES "verify_interface_header_sets/handoff/[^/]+\\.hpp\\.cxx$")
        continue()
      endif()
      set(_extra " -DHANDOFF_COMPILED_LIB")
    elseif(_file MATCHES "verify_interface_header_sets")
      # a public header on its own
    elseif(HEADERS_ONLY)
      continue()
    elseif(NOT _file MATCHES "/(tests|tests/bench|examples)/[^/]+\\.cpp$" AND NOT _file MATCHES "/Unity/unity_[0-9]+_cxx\\.cxx$")
      continue() # consumer projects build in the default stage
    endif()
    string(JSON _dir GET "${_commands}" ${_i} directory)
    string(JSON _command GET "${_commands}" ${_i} command)
    file(WRITE "${OUT}/tu-${_i}.sh" "set -e\ncd '${_dir}'\necho \"syntax-check: ${_file}\"\n${_command} -fsyntax-only${_extra}\n")
    math(EXPR _written "${_written} + 1")
  endforeach()
endif()
if(_written EQUAL 0)
  message(FATAL_ERROR "syntax-check: no test, example or header translation unit in ${COMPILE_COMMANDS}")
endif()
message(STATUS "syntax-check: ${_written} translation units")
