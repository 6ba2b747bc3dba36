# SPDX-License-Identifier: MIT
# The differential test against the providers' own JSON Schema converters (differential.cjs):
# a CTest test labelled `npm`, registered where node and handoff-check are. It needs the pinned
# SDKs installed beside it (npm ci --prefix tests/providers, as scripts/test.sh does); without
# them it fails and says how to install them, rather than passing without having compared.
find_program(HANDOFF_NODE node)
if(HANDOFF_NODE AND TARGET handoff-check)
  add_test(NAME handoff_provider_differential
    COMMAND "${HANDOFF_NODE}" "${CMAKE_CURRENT_LIST_DIR}/differential.cjs" "$<TARGET_FILE:handoff-check>"
            "${PROJECT_SOURCE_DIR}")
  set_tests_properties(handoff_provider_differential PROPERTIES LABELS npm TIMEOUT 120)
else()
  message(STATUS "handoff: node or handoff-check missing, skipping the provider differential test")
endif()
