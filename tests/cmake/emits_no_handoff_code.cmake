# SPDX-License-Identifier: MIT
# Checks that the unit-test program's main.cpp object names nothing in namespace handoff
# (cmake -P). main.cpp includes every header and uses none of them, so header-only it must
# compile to no code of handoff's: no vtable, no virtual function, nothing they reach. A
# virtual function declared in its class without `inline` and defined inline further down is
# its class's key function, and makes every file that includes the header emit the class's
# vtable, its virtual functions and everything they call. Reading the object the build already
# made costs nothing; compiling every header again for this would cost a whole compile.
# Variables (-D):
#   NM          the build's nm
#   OBJECTS     the program's object files, separated by "|"
#   OBJECT      the file name that picks main.cpp's object among them
#   EXPECT_MAIN ON when the object defines main() (Catch2 v2): proves nm read symbols
cmake_minimum_required(VERSION 3.24)

string(REPLACE "|" ";" _objects "${OBJECTS}")
list(FILTER _objects INCLUDE REGEX "/${OBJECT}$")
list(LENGTH _objects _count)
if(NOT _count EQUAL 1)
  message(FATAL_ERROR "expected one object named ${OBJECT} in '${OBJECTS}', found ${_count}")
endif()
execute_process(COMMAND "${NM}" "${_objects}" RESULT_VARIABLE _rc OUTPUT_VARIABLE _symbols
                ERROR_VARIABLE _error)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "${NM} failed (${_rc}) on ${_objects}: ${_error}")
endif()
if(EXPECT_MAIN AND NOT _symbols MATCHES "(^|\n)[0-9a-f]* T main\n")
  message(FATAL_ERROR "${NM} lists no main in ${_objects}: is it the runner's object?\n${_symbols}")
endif()
# Every mangled name in namespace handoff holds "7handoff" (its length, then the name).
string(REGEX MATCHALL "[^\n]*7handoff[^\n]*" _handoff "${_symbols}")
if(_handoff)
  list(LENGTH _handoff _found)
  list(JOIN _handoff "\n" _shown)
  message(FATAL_ERROR "${_objects} names ${_found} symbols of handoff's, which every file that "
                      "includes the headers would hold too (c++filt names them):\n${_shown}")
endif()
message(STATUS "${_objects}: no symbol of handoff's")
