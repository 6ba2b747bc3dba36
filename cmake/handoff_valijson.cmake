# SPDX-License-Identifier: MIT
# valijson, for the tests and the benchmark kit only: it is their differential oracle (and a
# contestant in the benchmark). The library itself validates with its own validator (five dialects)
# and links nothing but nlohmann_json. An installed valijson wins; fetching is the fallback.
include_guard(GLOBAL)

set(valijson_BUILD_TESTS OFF)
set(valijson_BUILD_EXAMPLES OFF)
set(valijson_INSTALL_HEADERS OFF)
# Debian's valijson config has no version file: ask without a version.
FetchContent_Declare(valijson
  GIT_REPOSITORY https://github.com/tristanpenman/valijson.git
  GIT_TAG v1.0.2
  GIT_SHALLOW TRUE
  ${_handoff_fetch_system}
  FIND_PACKAGE_ARGS CONFIG)
FetchContent_MakeAvailable(valijson)

# valijson's installed config (Debian, upstream v1.0) exports a plain `valijson` target;
# upstream's source tree also defines ValiJSON::valijson. Link one name either way.
if(NOT TARGET ValiJSON::valijson)
  if(TARGET valijson)
    add_library(ValiJSON::valijson ALIAS valijson)
  else()
    message(FATAL_ERROR "handoff: valijson was found but defines neither ValiJSON::valijson nor valijson")
  endif()
endif()
