// SPDX-License-Identifier: MIT
// The README's first-screen example is examples/readme_example.cpp, which CTest compiles and
// runs; this keeps the README's copy of it from drifting.

#include "support/catch.hpp"

#include <fstream> // ifstream
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

} // namespace test_readme
