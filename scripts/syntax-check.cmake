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
# (-dependency-dot), and the PCH's verdict counts only when that graph leads from the TU to
# nlohmann/json.hpp through none of handoff's impl/ files (scripts/include-graph-reaches.awk;
# an #include of a file the PCH holds is skipped, but is still an edge of the graph; the PCH's
# own includes are not in it), so the PCH brings in nothing the header would not have included
# itself, above its own code. Otherwise, or when it fails, the TU is compiled again without the
# PCH, and that compile decides: a header that does not reach nlohmann, or that names it
# without including it, is judged plainly, and no TU pays a separate preprocessor pass over
# nlohmann to learn what it includes. The one difference is order: nlohmann (and the standard
# headers it includes) is seen from the TU's first line rather than from the #include that
# reaches it, which matters only to a file that uses a name above its own includes.
#
# With -DHANDOFF_PCH=handoff/<header>.hpp as well (header-only checks), a header TU whose
# includes reach that header reads it, and everything it includes, from a second precompiled
# header (${OUT}/handoff.pch), on the same terms. For handoff's own files order is made not to
# matter: scripts/includes-first.awk, run first, fails the check unless every file of
# include/handoff/ has its includes above its code (but a header's own impl/ file, included at
# its end) and the files include each other in no cycle. Then whatever a TU included first,
# each file's includes are read whole before its code, and a header reached through no impl/
# file is read whole before the code of every file that reaches it so. The heavy header TUs
# (the umbrella, the repair loop, the fixtures, the provider replies) parse and instantiate the
# schema machinery once, in the PCH, rather than each on its own (a tenth of the check's time).
#
#   cmake -DCOMPILE_COMMANDS=<build>/compile_commands.json -DOUT=<dir> [-DHEADERS_ONLY=ON]
#     [-DCOMPILED_FORM=ON] [-DNLOHMANN_PCH=ON [-DHANDOFF_PCH=handoff/<header>.hpp
#     [-DINCLUDE_DIR=<the include/ that holds handoff/, by default this tree's>]]]
#     -P scripts/syntax-check.cmake
cmake_minimum_required(VERSION 3.24)

get_filename_component(_root "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE) # handoff's source tree
if(NOT INCLUDE_DIR)
  set(INCLUDE_DIR "${_root}/include")
endif()
if(NOT EXISTS "${COMPILE_COMMANDS}")
  message(FATAL_ERROR "syntax-check: no ${COMPILE_COMMANDS} (configure with CMAKE_EXPORT_COMPILE_COMMANDS=ON)")
endif()
# The command that builds ${OUT}/<name>.pch from `#include <header>`, from a header TU's own
# command (the same compiler, standard, definitions and flags, which a PCH must match), its input
# and output swapped.
function(pch_command out_var command file extra name header)
  if(NOT command MATCHES "clang\\+\\+")
    message(FATAL_ERROR "syntax-check: NLOHMANN_PCH needs clang++ (-fpch-instantiate-templates): ${command}")
  endif()
  file(WRITE "${OUT}/${name}_pch.hpp" "#include <${header}>\n")
  string(REGEX REPLACE " -o [^ ]+ " " -o '${OUT}/${name}.pch' " command "${command}")
  string(REPLACE " -c ${file}" " -fpch-instantiate-templates${extra} -c -x c++-header '${OUT}/${name}_pch.hpp'"
                 command "${command}")
  set(${out_var} "echo \"syntax-check: ${header} precompiled\"\n${command}\n" PARENT_SCOPE)
endfunction()

# ${OUT}/prepare.sh: builds the precompiled headers.
function(write_prepare dir command file extra)
  pch_command(_script "${command}" "${file}" "${extra}" nlohmann nlohmann/json.hpp)
  if(HANDOFF_PCH)
    pch_command(_handoff "${command}" "${file}" "${extra}" handoff "${HANDOFF_PCH}")
    string(APPEND _script "${_handoff}")
  endif()
  file(WRITE "${OUT}/prepare.sh" "set -e\ncd '${dir}'\n${_script}")
endfunction()

# The public headers whose #include lines reach HANDOFF_PCH (itself included), into out_var: a
# guess at which TUs can use handoff.pch, which each TU's own include graph then confirms (a
# wrong guess costs a second compile, never a verdict). Fails when includes-first.awk does.
function(headers_reaching_handoff_pch out_var)
  file(GLOB_RECURSE _files RELATIVE "${INCLUDE_DIR}" "${INCLUDE_DIR}/handoff/*.hpp")
  list(TRANSFORM _files PREPEND "${INCLUDE_DIR}/" OUTPUT_VARIABLE _paths)
  execute_process(COMMAND awk -f "${_root}/scripts/includes-first.awk" ${_paths}
                  RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _out)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "syntax-check: HANDOFF_PCH needs includes above code and no include cycle:\n${_out}")
  endif()
  list(FILTER _files EXCLUDE REGEX "^handoff/impl/") # as the graph test: through no impl/ file
  foreach(_file IN LISTS _files) # each file's handoff includes, read once
    file(STRINGS "${INCLUDE_DIR}/${_file}" _includes_${_file} REGEX "^[ \t]*#[ \t]*include[ \t]*<handoff/")
    list(TRANSFORM _includes_${_file} REPLACE "^[^<]*<([^>]+)>.*$" "\\1")
  endforeach()
  set(_reaching "${HANDOFF_PCH}")
  set(_grown TRUE)
  while(_grown)
    set(_grown FALSE)
    foreach(_file IN LISTS _files)
      if(_file IN_LIST _reaching)
        continue()
      endif()
      foreach(_include IN LISTS _includes_${_file})
        if(_include IN_LIST _reaching)
          list(APPEND _reaching "${_file}")
          set(_grown TRUE)
          break()
        endif()
      endforeach()
    endforeach()
  endwhile()
  set(${out_var} "${_reaching}" PARENT_SCOPE)
endfunction()

# The script that checks one header TU with the precompiled header ${OUT}/<name>.pch, whose
# verdict stands only when the TU's include graph reaches `header` through no impl/ file (a
# header includes its impl/ file at its end, below its code); otherwise (or when it fails) the
# TU is compiled again without it (`check`), and that decides.
function(pch_check out_var check name header)
  string(CONCAT _script "graph=\"$(mktemp)\"\nlog=\"$(mktemp)\"\n"
                "trap 'rm -f \"$graph\" \"$log\"' EXIT\n"
                "if ${check} -include-pch '${OUT}/${name}.pch' -Xclang -dependency-dot -Xclang \"$graph\" >\"$log\" 2>&1 &&\n"
                "  awk -v target='${header}' -v avoid=/handoff/impl/ -f '${_root}/scripts/include-graph-reaches.awk' \"$graph\"\nthen\n"
                "  echo \"syntax-check: (${header} precompiled)\"\n"
                "  cat \"$log\"\nelse\n  ${check}\nfi")
  set(${out_var} "${_script}" PARENT_SCOPE)
endfunction()

set(_reaching_handoff_pch "")
if(HANDOFF_PCH)
  if(NOT NLOHMANN_PCH OR COMPILED_FORM)
    message(FATAL_ERROR "syntax-check: HANDOFF_PCH goes with NLOHMANN_PCH, header-only")
  endif()
  headers_reaching_handoff_pch(_reaching_handoff_pch)
endif()
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
    if(NLOHMANN_PCH AND _file MATCHES "verify_interface_header_sets/(.+)\\.cxx$")
      set(_header "${CMAKE_MATCH_1}")
      if(NOT _pch_written)
        write_prepare("${_dir}" "${_command}" "${_file}" "${_extra}")
        set(_pch_written TRUE)
      endif()
      if(_header IN_LIST _reaching_handoff_pch)
        pch_check(_check "${_check}" handoff "${HANDOFF_PCH}")
      else()
        pch_check(_check "${_check}" nlohmann nlohmann/json.hpp)
      endif()
    endif()
    file(WRITE "${OUT}/tu-${_i}.sh" "set -e\ncd '${_dir}'\necho \"syntax-check: ${_file}\"\n${_check}\n")
    math(EXPR _written "${_written} + 1")
  endforeach()
endif()
if(_written EQUAL 0)
  message(FATAL_ERROR "syntax-check: no test, example or header translation unit in ${COMPILE_COMMANDS}")
endif()
message(STATUS "syntax-check: ${_written} translation units")
