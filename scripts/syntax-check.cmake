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
# With -DNLOHMANN_PCH=ON (clang++ only), a header TU whose own includes reach
# <nlohmann/json.hpp> reads nlohmann from a precompiled header built once (${OUT}/nlohmann.pch,
# by ${OUT}/prepare.sh, which must run first), its templates instantiated there
# (-fpch-instantiate-templates): nlohmann is most of what a light header TU costs, and parsing
# and instantiating it again in every one checks nothing about handoff. The check stays
# "compiles on its own": the TU compiles with the PCH and writes its include graph
# (-dependency-dot), and the PCH's verdict counts only when that graph shows the TU's own
# includes reaching nlohmann/json.hpp (an #include of a file the PCH holds is skipped, but is
# still an edge of the graph; the PCH's own includes are not in it), so the PCH brings in
# nothing the header would not have included itself. Otherwise, or when it fails, the TU is
# compiled again without the PCH, and that compile decides: a header that does not reach
# nlohmann, or that names it without including it, is judged plainly, and no TU pays a
# separate preprocessor pass over nlohmann to learn what it includes.
# The one difference is order: nlohmann (and the standard headers it includes) is seen from
# the TU's first line rather than from the #include that reaches it, which matters only to a
# header that uses a name above its own includes.
#
#   cmake -DCOMPILE_COMMANDS=<build>/compile_commands.json -DOUT=<dir> [-DHEADERS_ONLY=ON]
#     [-DCOMPILED_FORM=ON] [-DNLOHMANN_PCH=ON] -P scripts/syntax-check.cmake
cmake_minimum_required(VERSION 3.24)

if(NOT EXISTS "${COMPILE_COMMANDS}")
  message(FATAL_ERROR "syntax-check: no ${COMPILE_COMMANDS} (configure with CMAKE_EXPORT_COMPILE_COMMANDS=ON)")
endif()
# ${OUT}/prepare.sh: builds ${OUT}/nlohmann.pch with a header TU's own command (the same
# compiler, standard, definitions and flags, which a PCH must match), its input and output swapped.
function(write_nlohmann_pch dir command file extra)
  if(NOT command MATCHES "clang\\+\\+")
    message(FATAL_ERROR "syntax-check: NLOHMANN_PCH needs clang++ (-fpch-instantiate-templates): ${command}")
  endif()
  file(WRITE "${OUT}/nlohmann_pch.hpp" "#include <nlohmann/json.hpp>\n")
  string(REGEX REPLACE " -o [^ ]+ " " -o '${OUT}/nlohmann.pch' " command "${command}")
  string(REPLACE " -c ${file}" " -fpch-instantiate-templates${extra} -c -x c++-header '${OUT}/nlohmann_pch.hpp'"
                 command "${command}")
  file(WRITE "${OUT}/prepare.sh" "set -e\ncd '${dir}'\necho \"syntax-check: nlohmann/json.hpp precompiled\"\n${command}\n")
endfunction()

file(READ "${COMPILE_COMMANDS}" _commands)
get_filename_component(OUT "${OUT}" ABSOLUTE) # the scripts run in the build directory
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
    set(_check "${_command} -fsyntax-only${_extra}")
    if(NLOHMANN_PCH AND _file MATCHES "verify_interface_header_sets")
      if(NOT _pch_written)
        write_nlohmann_pch("${_dir}" "${_command}" "${_file}" "${_extra}")
        set(_pch_written TRUE)
      endif()
      # The PCH's verdict stands only when the TU's own include graph reaches nlohmann/json.hpp;
      # otherwise (or when it fails) the TU is compiled again without the PCH, and that decides.
      string(CONCAT _check "graph=\"$(mktemp)\"\nlog=\"$(mktemp)\"\n"
                   "trap 'rm -f \"$graph\" \"$log\"' EXIT\n"
                   "if ${_check} -include-pch '${OUT}/nlohmann.pch' -Xclang -dependency-dot -Xclang \"$graph\" >\"$log\" 2>&1 &&\n"
                   "  grep -Eq 'label=\"([^\"]*/)?nlohmann/json\\.hpp\"' \"$graph\"\nthen\n"
                   "  echo \"syntax-check: (nlohmann precompiled)\"\n"
                   "  cat \"$log\"\nelse\n  ${_check}\nfi")
    endif()
    file(WRITE "${OUT}/tu-${_i}.sh" "set -e\ncd '${_dir}'\necho \"syntax-check: ${_file}\"\n${_check}\n")
    math(EXPR _written "${_written} + 1")
  endforeach()
endif()
if(_written EQUAL 0)
  message(FATAL_ERROR "syntax-check: no test, example or header translation unit in ${COMPILE_COMMANDS}")
endif()
message(STATUS "syntax-check: ${_written} translation units")
