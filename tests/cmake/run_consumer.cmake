# SPDX-License-Identifier: MIT
# Runs one consumer check as a CTest test (cmake -P). Variables (-D):
#   MODE                 cmake | install | pkg-config
#   HANDOFF_SOURCE_DIR   the handoff source tree
#   HANDOFF_BINARY_DIR   (install) the configured handoff build tree to install from
#   PREFIX               the temporary install prefix
#   CONSUMER_SOURCE_DIR  (cmake, pkg-config) the consumer project / its main.cpp
#   CONSUMER_BINARY_DIR  (cmake, pkg-config) scratch build directory, recreated each run
#   CONSUMER_HOW         (cmake) passed to the consumer as HANDOFF_HOW, when set
#   BUILD_TYPE           handoff's configuration ($<CONFIG>; empty in a build with no build type),
#                        installed as it is and the consumers' own CMAKE_BUILD_TYPE
#   CXX_COMPILER GENERATOR MAKE_PROGRAM PKG_CONFIG
cmake_minimum_required(VERSION 3.24)

function(run)
  string(REPLACE ";" " " _shown "${ARGV}")
  message(STATUS "run: ${_shown}")
  execute_process(COMMAND ${ARGV} RESULT_VARIABLE _rc)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "failed (${_rc}): ${_shown}")
  endif()
endfunction()

# install(EXPORT) writes the imported targets' locations in one file per configuration
# (handoffTargets-release.cmake, or -noconfig.cmake in a build with no build type), and
# `cmake --install --config X` installs only X's: so handoff installs in exactly the
# configuration it was built in, or handoff::compiled has no library to import. With no
# configuration, no --config at all.
set(_config)
if(NOT BUILD_TYPE STREQUAL "")
  set(_config --config "${BUILD_TYPE}")
endif()

if(MODE STREQUAL "install")
  file(REMOVE_RECURSE "${PREFIX}")
  run("${CMAKE_COMMAND}" --install "${HANDOFF_BINARY_DIR}" --prefix "${PREFIX}" ${_config})
  foreach(_file IN ITEMS
      include/handoff/handoff.hpp
      include/handoff/version.hpp
      share/cmake/handoff/handoffConfig.cmake
      share/cmake/handoff/handoffConfigVersion.cmake
      share/cmake/handoff/handoffTargets.cmake
      share/pkgconfig/handoff.pc
      include/handoff/src.hpp)
    if(NOT EXISTS "${PREFIX}/${_file}")
      message(FATAL_ERROR "install is missing ${PREFIX}/${_file}")
    endif()
  endforeach()
  # The imported targets' locations, in handoffTargets-<configuration>.cmake.
  file(GLOB _per_config "${PREFIX}/share/cmake/handoff/handoffTargets-*.cmake")
  if(NOT _per_config)
    message(FATAL_ERROR "install has no ${PREFIX}/share/cmake/handoff/handoffTargets-<configuration>.cmake: "
                        "handoff::compiled would have no library to import")
  endif()
  if(EXISTS "${HANDOFF_SOURCE_DIR}/schemas" AND NOT IS_DIRECTORY "${PREFIX}/share/handoff/schemas")
    message(FATAL_ERROR "install is missing ${PREFIX}/share/handoff/schemas")
  endif()
  # The installed handoff-check works from the prefix alone: it checks an envelope against a
  # task schema installed beside it (the envelope schema is built into the binary).
  if(EXISTS "${HANDOFF_BINARY_DIR}/tools/handoff-check")
    set(_check "${PREFIX}/bin/handoff-check")
    if(NOT EXISTS "${_check}")
      message(FATAL_ERROR "install is missing ${_check}")
    endif()
    run("${_check}" --version)
    run("${_check}" --task-schema "${HANDOFF_SOURCE_DIR}/tests/fixtures/schemas/product_records.schema.json"
        "${HANDOFF_SOURCE_DIR}/tests/fixtures/worked_example/run2_time_cap.json")
  endif()
  message(STATUS "installed handoff into ${PREFIX}")

elseif(MODE STREQUAL "cmake")
  file(REMOVE_RECURSE "${CONSUMER_BINARY_DIR}")
  set(_configure "${CMAKE_COMMAND}" -S "${CONSUMER_SOURCE_DIR}" -B "${CONSUMER_BINARY_DIR}"
    -G "${GENERATOR}"
    "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}"
    "-DCMAKE_BUILD_TYPE=${BUILD_TYPE}"
    "-DHANDOFF_SOURCE_DIR=${HANDOFF_SOURCE_DIR}"
    "-DCMAKE_PREFIX_PATH=${PREFIX}")
  if(MAKE_PROGRAM)
    list(APPEND _configure "-DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM}")
  endif()
  if(CONSUMER_HOW)
    list(APPEND _configure "-DHANDOFF_HOW=${CONSUMER_HOW}")
  endif()
  run(${_configure})
  run("${CMAKE_COMMAND}" --build "${CONSUMER_BINARY_DIR}" ${_config})
  foreach(_exe IN ITEMS "${CONSUMER_BINARY_DIR}/handoff_consumer" "${CONSUMER_BINARY_DIR}/${BUILD_TYPE}/handoff_consumer")
    if(EXISTS "${_exe}")
      run("${_exe}")
      return()
    endif()
  endforeach()
  message(FATAL_ERROR "no handoff_consumer executable in ${CONSUMER_BINARY_DIR}")

elseif(MODE STREQUAL "pkg-config")
  file(REMOVE_RECURSE "${CONSUMER_BINARY_DIR}")
  file(MAKE_DIRECTORY "${CONSUMER_BINARY_DIR}")
  set(ENV{PKG_CONFIG_PATH} "${PREFIX}/share/pkgconfig")
  execute_process(COMMAND "${PKG_CONFIG}" --cflags handoff
    OUTPUT_VARIABLE _cflags OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE _rc)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "pkg-config --cflags handoff failed (${_rc}) with PKG_CONFIG_PATH=$ENV{PKG_CONFIG_PATH}")
  endif()
  message(STATUS "pkg-config --cflags handoff: ${_cflags}")
  string(FIND "${_cflags}" "-I${PREFIX}/" _pos)
  if(_pos EQUAL -1)
    message(FATAL_ERROR "handoff.pc does not point into the install prefix ${PREFIX}")
  endif()
  separate_arguments(_cflags UNIX_COMMAND "${_cflags}")
  run("${CXX_COMPILER}" -std=c++17 ${_cflags} "${CONSUMER_SOURCE_DIR}/main.cpp"
    -o "${CONSUMER_BINARY_DIR}/handoff_consumer")
  run("${CONSUMER_BINARY_DIR}/handoff_consumer")

else()
  message(FATAL_ERROR "run_consumer.cmake: unknown MODE '${MODE}'")
endif()
