// SPDX-License-Identifier: MIT
// What both fuzz harnesses share: how a broken promise ends the run, and the task schemas they
// read from tests/fixtures/schemas/.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdio>  // fprintf
#include <cstdlib> // abort
#include <fstream> // ifstream
#include <sstream> // ostringstream
#include <string>  // string

#ifndef HANDOFF_FIXTURES_DIR
#error "HANDOFF_FIXTURES_DIR must name tests/fixtures"
#endif

namespace handoff_fuzz {

/// A broken promise is a finding like a crash: libFuzzer keeps the input that caused it.
[[noreturn]] inline void broken(const char* promise, const std::string& detail) {
    std::fprintf(stderr, "handoff fuzz: broken promise: %s: %s\n", promise, detail.c_str());
    std::abort();
}

inline nlohmann::json fixture_schema(const char* name) {
    std::ifstream in(std::string(HANDOFF_FIXTURES_DIR) + "/schemas/" + name);
    std::ostringstream text;
    text << in.rdbuf();
    return nlohmann::json::parse(text.str());
}

} // namespace handoff_fuzz
