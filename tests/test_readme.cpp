// SPDX-License-Identifier: MIT
// The README's first-screen example is examples/readme_example.cpp, which CTest compiles and
// runs; this keeps the README's copy of it from drifting. The README's table of problem codes
// and handoff::codes list the same set.

#include "support/catch.hpp"

#include <handoff/problem_codes.hpp>

#include <fstream> // ifstream
#include <set>     // set
#include <sstream> // ostringstream
#include <string>  // string

namespace test_readme { // this file's own names: see "unity build" in tests/CMakeLists.txt

#ifndef HANDOFF_SOURCE_DIR
#error "HANDOFF_SOURCE_DIR must name the source tree"
#endif

namespace {

std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    REQUIRE(in.good());
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

/// The first column of each row of the table under `heading`: "| `code` | ..." up to the
/// first line that is not a table row.
std::set<std::string> table_codes(const std::string& readme, const std::string& heading) {
    std::set<std::string> out;
    std::size_t at = readme.find("\n" + heading + "\n");
    REQUIRE(at != std::string::npos);
    at = readme.find("\n|", at);
    while (at != std::string::npos && readme.compare(at, 2, "\n|") == 0) {
        const std::size_t end = readme.find('\n', at + 1);
        const std::string row = readme.substr(at + 1, end - at - 1);
        if (row.compare(0, 3, "| `") == 0) {
            const std::size_t close = row.find('`', 3);
            out.insert(row.substr(3, close - 3));
        }
        at = end;
    }
    return out;
}

} // namespace

TEST_CASE("the README shows the compiled example's lines verbatim", "[readme]") {
    const std::string example = slurp(HANDOFF_SOURCE_DIR "/examples/readme_example.cpp");
    const std::string readme = slurp(HANDOFF_SOURCE_DIR "/README.md");
    const std::string begin_marker = "// README begin\n";
    const auto begin = example.find(begin_marker);
    const auto end = example.find("    // README end");
    REQUIRE(begin != std::string::npos);
    REQUIRE(end != std::string::npos);
    const std::string block = example.substr(begin + begin_marker.size(), end - begin - begin_marker.size());
    CHECK(block.find("receiver.receive(") != std::string::npos);
    CHECK(readme.find("```cpp\n#include <handoff/handoff.hpp>\n\n" + block + "```") != std::string::npos);
}

TEST_CASE("the README's problem-code table and handoff::codes list the same codes", "[readme]") {
    const std::set<std::string> documented = table_codes(slurp(HANDOFF_SOURCE_DIR "/README.md"), "### Problem codes");
    std::set<std::string> defined;
    for (const char* code : handoff::codes::all) {
        CHECK(defined.insert(code).second); // each code once
    }
    for (const std::string& code : defined) {
        INFO("defined but not in the README: " << code);
        CHECK(documented.count(code) == 1);
    }
    for (const std::string& code : documented) {
        INFO("in the README but not defined: " << code);
        CHECK(defined.count(code) == 1);
    }
    CHECK(documented.size() == handoff::codes::all.size());
}
} // namespace test_readme
