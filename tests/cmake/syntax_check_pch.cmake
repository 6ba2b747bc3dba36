# SPDX-License-Identifier: MIT
# scripts/syntax-check.cmake with NLOHMANN_PCH=ON must still fail a header that uses nlohmann
# without including it, and must read nlohmann from the PCH only for a header whose own includes
# reach it. Three throwaway headers, each in a header TU as all_verify_interface_header_sets
# writes them, through the generated scripts:
#   uses_without_include.hpp  names nlohmann::json, includes only <string>: must fail, plain
#   includes_nlohmann.hpp     includes <nlohmann/json.hpp>: must pass, with the PCH
#   no_nlohmann.hpp           neither: must pass, plain
#
#   cmake -DSOURCE_DIR=<handoff> -DWORK_DIR=<scratch> -DCLANGXX=<clang++> -P syntax_check_pch.cmake
cmake_minimum_required(VERSION 3.24)

file(REMOVE_RECURSE "${WORK_DIR}")
set(_headers uses_without_include includes_nlohmann no_nlohmann)
file(WRITE "${WORK_DIR}/include/demo/uses_without_include.hpp"
  "#pragma once\n#include <string>\ninline std::string demo_dump(const nlohmann::json& j) { return j.dump(); }\n")
file(WRITE "${WORK_DIR}/include/demo/includes_nlohmann.hpp"
  "#pragma once\n#include <nlohmann/json.hpp>\ninline int demo_size(const nlohmann::json& j) { return static_cast<int>(j.size()); }\n")
file(WRITE "${WORK_DIR}/include/demo/no_nlohmann.hpp"
  "#pragma once\n#include <string>\ninline std::size_t demo_length(const std::string& s) { return s.size(); }\n")

set(_entries "")
foreach(_header IN LISTS _headers)
  set(_tu "${WORK_DIR}/verify_interface_header_sets/demo/${_header}.hpp.cxx")
  file(WRITE "${_tu}" "#include <demo/${_header}.hpp>\n")
  set(_command "${CLANGXX} -I${WORK_DIR}/include -x c++ -std=c++17 -o ${WORK_DIR}/${_header}.o -c ${_tu}")
  list(APPEND _entries "{\"directory\": \"${WORK_DIR}\", \"command\": \"${_command}\", \"file\": \"${_tu}\"}")
endforeach()
list(JOIN _entries ",\n" _entries)
file(WRITE "${WORK_DIR}/compile_commands.json" "[\n${_entries}\n]\n")

function(run_or_fail)
  execute_process(COMMAND ${ARGV} RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _out)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "failed (${_rc}): ${ARGV}\n${_out}")
  endif()
endfunction()

set(_out "${WORK_DIR}/check")
run_or_fail("${CMAKE_COMMAND}" "-DCOMPILE_COMMANDS=${WORK_DIR}/compile_commands.json" "-DOUT=${_out}"
  -DHEADERS_ONLY=ON -DNLOHMANN_PCH=ON -P "${SOURCE_DIR}/scripts/syntax-check.cmake")
run_or_fail(bash "${_out}/prepare.sh")
if(NOT EXISTS "${_out}/nlohmann.pch")
  message(FATAL_ERROR "prepare.sh wrote no ${_out}/nlohmann.pch")
endif()

file(GLOB _scripts "${_out}/tu-*.sh")
list(LENGTH _scripts _count)
if(NOT _count EQUAL 3)
  message(FATAL_ERROR "expected a script per header, got ${_count}: ${_scripts}")
endif()
set(_seen "")
foreach(_script IN LISTS _scripts)
  execute_process(COMMAND bash "${_script}" RESULT_VARIABLE _rc OUTPUT_VARIABLE _log ERROR_VARIABLE _log)
  string(REGEX MATCH "demo/([a-z_]+)\\.hpp" _match "${_log}")
  set(_header "${CMAKE_MATCH_1}")
  list(APPEND _seen "${_header}")
  string(FIND "${_log}" "nlohmann precompiled" _precompiled)
  if(_header STREQUAL "uses_without_include")
    if(_rc EQUAL 0 OR NOT _precompiled EQUAL -1)
      message(FATAL_ERROR "a header naming nlohmann without including it passed, or read the PCH:\n${_log}")
    endif()
  elseif(_header STREQUAL "includes_nlohmann")
    if(NOT _rc EQUAL 0 OR _precompiled EQUAL -1)
      message(FATAL_ERROR "a header including nlohmann failed, or did not read the PCH:\n${_log}")
    endif()
  elseif(_header STREQUAL "no_nlohmann")
    if(NOT _rc EQUAL 0 OR NOT _precompiled EQUAL -1)
      message(FATAL_ERROR "a header without nlohmann failed, or read the PCH:\n${_log}")
    endif()
  else()
    message(FATAL_ERROR "a script for no known header:\n${_log}")
  endif()
endforeach()
list(SORT _seen)
if(NOT _seen STREQUAL "includes_nlohmann;no_nlohmann;uses_without_include")
  message(FATAL_ERROR "each header once, expected; got ${_seen}")
endif()
message(STATUS "syntax-check with NLOHMANN_PCH: the missing include fails, the PCH only where included")
