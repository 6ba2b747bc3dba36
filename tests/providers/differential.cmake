# SPDX-License-Identifier: MIT
# The differential test against the providers' own JSON Schema converters (differential.cjs):
# a CTest test labelled `npm`, registered where node, handoff-check and the pinned SDKs are
# (npm ci --prefix tests/providers, which scripts/test.sh runs before any stage, so CI always
# compares). A plain build without them says so here and leaves the test out; the script itself
# fails, saying how to install them, if it runs without them.
find_program(HANDOFF_NODE node)
if(HANDOFF_NODE AND TARGET handoff-check AND EXISTS "${CMAKE_CURRENT_LIST_DIR}/node_modules/openai/package.json")
  add_test(NAME handoff_provider_differential
    COMMAND "${HANDOFF_NODE}" "${CMAKE_CURRENT_LIST_DIR}/differential.cjs" "$<TARGET_FILE:handoff-check>"
            "${PROJECT_SOURCE_DIR}")
  set_tests_properties(handoff_provider_differential PROPERTIES LABELS npm TIMEOUT 120)
else()
  message(STATUS "handoff: node, handoff-check or tests/providers/node_modules missing (npm ci --prefix tests/providers): skipping the provider differential test")
endif()
