# SPDX-License-Identifier: MIT
# scripts/syntax-check.cmake with NLOHMANN_PCH=ON and HANDOFF_PCH must still fail a header that
# uses a name without including its header, and must read a PCH only for a header whose own
# includes reach the PCH's header above its code. Throwaway headers, each in a header TU as
# all_verify_interface_header_sets writes them, through the generated scripts:
#   demo/uses_without_include.hpp  names nlohmann::json, includes only <string>: must fail, plain
#   demo/includes_nlohmann.hpp     includes <nlohmann/json.hpp>: must pass, with nlohmann's PCH
#   demo/no_nlohmann.hpp           neither: must pass, plain
#   handoff/core.hpp               the HANDOFF_PCH header: must pass, with handoff's PCH
#   handoff/uses_core.hpp          includes core.hpp: must pass, with handoff's PCH
#   handoff/late_core.hpp          uses core.hpp's name in its code, and reaches core.hpp only
#                                  through its impl/ file, below that code: must fail, plain
#   handoff/masked_core.hpp        the same, with an #include of core.hpp compiled out above its
#                                  code, which makes the script guess it reaches core.hpp: the
#                                  include graph must overrule the guess: must fail, plain
# And a tree whose header has an #include below its code: the script must refuse HANDOFF_PCH.
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

set(_core "#pragma once\n#include <string>\nnamespace handoff {\ninline std::string core_name() { return \"core\"; }\n}\n")
file(WRITE "${WORK_DIR}/include/handoff/core.hpp" "${_core}")
file(WRITE "${WORK_DIR}/include/handoff/uses_core.hpp"
  "#pragma once\n#include <handoff/core.hpp>\nnamespace handoff {\ninline std::size_t core_length() { return core_name().size(); }\n}\n")
file(WRITE "${WORK_DIR}/include/handoff/late_core.hpp"
  "#pragma once\n#include <string>\nnamespace handoff {\ninline std::string late() { return core_name(); }\n}\n#include <handoff/impl/late_core_inl.hpp>\n")
file(WRITE "${WORK_DIR}/include/handoff/impl/late_core_inl.hpp"
  "#pragma once\n#include <handoff/core.hpp>\n#include <handoff/late_core.hpp>\n")
file(WRITE "${WORK_DIR}/include/handoff/masked_core.hpp"
  "#pragma once\n#if 0\n#include <handoff/core.hpp>\n#endif\n#include <string>\nnamespace handoff {\ninline std::string masked() { return core_name(); }\n}\n#include <handoff/impl/masked_core_inl.hpp>\n")
file(WRITE "${WORK_DIR}/include/handoff/impl/masked_core_inl.hpp"
  "#pragma once\n#include <handoff/core.hpp>\n#include <handoff/masked_core.hpp>\n")
list(APPEND _headers core uses_core late_core masked_core)

set(_entries "")
foreach(_header IN LISTS _headers)
  set(_path "demo/${_header}.hpp")
  if(EXISTS "${WORK_DIR}/include/handoff/${_header}.hpp")
    set(_path "handoff/${_header}.hpp")
  endif()
  set(_tu "${WORK_DIR}/verify_interface_header_sets/${_path}.cxx")
  file(WRITE "${_tu}" "#include <${_path}>\n")
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
set(_generate "${CMAKE_COMMAND}" "-DCOMPILE_COMMANDS=${WORK_DIR}/compile_commands.json" "-DOUT=${_out}"
  -DHEADERS_ONLY=ON -DNLOHMANN_PCH=ON -DHANDOFF_PCH=handoff/core.hpp "-DINCLUDE_DIR=${WORK_DIR}/include"
  -P "${SOURCE_DIR}/scripts/syntax-check.cmake")
run_or_fail(${_generate})
run_or_fail(bash "${_out}/prepare.sh")
foreach(_pch IN ITEMS nlohmann handoff)
  if(NOT EXISTS "${_out}/${_pch}.pch")
    message(FATAL_ERROR "prepare.sh wrote no ${_out}/${_pch}.pch")
  endif()
endforeach()

# Each header: whether its check must pass, and which PCH's verdict it must take ("" for none).
set(_expect_uses_without_include "fail;")
set(_expect_includes_nlohmann "pass;nlohmann/json.hpp")
set(_expect_no_nlohmann "pass;")
set(_expect_core "pass;handoff/core.hpp")
set(_expect_uses_core "pass;handoff/core.hpp")
set(_expect_late_core "fail;")
set(_expect_masked_core "fail;")
file(GLOB _scripts "${_out}/tu-*.sh")
list(LENGTH _scripts _count)
list(LENGTH _headers _expected_count)
if(NOT _count EQUAL _expected_count)
  message(FATAL_ERROR "expected a script per header, got ${_count}: ${_scripts}")
endif()
set(_seen "")
foreach(_script IN LISTS _scripts)
  execute_process(COMMAND bash "${_script}" RESULT_VARIABLE _rc OUTPUT_VARIABLE _log ERROR_VARIABLE _log)
  string(REGEX MATCH "(demo|handoff)/([a-z_]+)\\.hpp\\.cxx" _match "${_log}")
  set(_header "${CMAKE_MATCH_2}")
  if(NOT DEFINED _expect_${_header})
    message(FATAL_ERROR "a script for no known header:\n${_log}")
  endif()
  list(APPEND _seen "${_header}")
  list(GET _expect_${_header} 0 _verdict)
  list(GET _expect_${_header} 1 _pch)
  set(_outcome "fail")
  if(_rc EQUAL 0)
    set(_outcome "pass")
  endif()
  string(REGEX MATCH "\\(([^ ]+) precompiled\\)" _read "${_log}")
  set(_read "${CMAKE_MATCH_1}")
  if(NOT _read STREQUAL _pch OR NOT _outcome STREQUAL _verdict)
    message(FATAL_ERROR "${_header}: expected to ${_verdict} with the PCH of '${_pch}', "
                        "got rc ${_rc} with the PCH of '${_read}':\n${_log}")
  endif()
endforeach()
list(SORT _seen)
list(SORT _headers)
if(NOT _seen STREQUAL _headers)
  message(FATAL_ERROR "each header once, expected; got ${_seen}")
endif()

# An #include below a header's code: HANDOFF_PCH is refused, naming the line.
file(APPEND "${WORK_DIR}/include/handoff/uses_core.hpp" "#include <string>\n")
execute_process(COMMAND ${_generate} RESULT_VARIABLE _rc OUTPUT_VARIABLE _log ERROR_VARIABLE _log)
if(_rc EQUAL 0 OR NOT _log MATCHES "uses_core\\.hpp:6:[ \n]+#include below the code")
  message(FATAL_ERROR "an #include below the code was not refused (rc ${_rc}):\n${_log}")
endif()
message(STATUS "syntax-check with both PCHs: a missing include fails, each PCH only where included above code")
