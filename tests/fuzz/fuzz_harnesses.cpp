// SPDX-License-Identifier: MIT
// One libFuzzer binary for the harnesses, fuzz_receive (fuzz_receive.hpp), fuzz_fast_path
// (fuzz_fast_path.hpp), fuzz_stream (fuzz_stream.hpp), fuzz_schema (fuzz_schema.hpp) and
// fuzz_sse (fuzz_sse.hpp). Each
// reaches most of the library header-only, whose instrumented compilation is most of a
// harness's build: in one translation unit it is compiled once. The binary runs the harness it
// is named after (scripts/test.sh links it under each name):
//
//   clang++ -std=c++17 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
//     -Iinclude -Itests -DHANDOFF_FIXTURES_DIR="\"$PWD/tests/fixtures\"" \
//     tests/fuzz/fuzz_harnesses.cpp -o fuzz_receive
//   for h in fuzz_fast_path fuzz_stream fuzz_schema fuzz_sse; do ln -f fuzz_receive $h; done
//   ./fuzz_receive CORPUS -dict=tests/fuzz/envelope.dict -max_len=16384

#include "fuzz/fuzz_fast_path.hpp"
#include "fuzz/fuzz_receive.hpp"
#include "fuzz/fuzz_schema.hpp"
#include "fuzz/fuzz_sse.hpp"
#include "fuzz/fuzz_stream.hpp"

#include <cstddef>     // size_t
#include <cstdint>     // uint8_t
#include <cstdio>      // fprintf
#include <cstdlib>     // exit
#include <string_view> // string_view

namespace {

struct harness {
    std::string_view name;
    int (*one_input)(const std::uint8_t*, std::size_t);
};

constexpr harness harnesses[] = {
    {"fuzz_receive", &handoff_fuzz::receive::one_input}, {"fuzz_fast_path", &handoff_fuzz::fast_path::one_input},
    {"fuzz_stream", &handoff_fuzz::stream::one_input},   {"fuzz_schema", &handoff_fuzz::schema::one_input},
    {"fuzz_sse", &handoff_fuzz::sse::one_input},
};

const harness* chosen = nullptr;

} // namespace

/// Picks the harness by the last component of the path the binary was run as.
extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** argv) {
    std::string_view name = (*argv)[0];
    if (const std::size_t slash = name.find_last_of('/'); slash != std::string_view::npos) {
        name.remove_prefix(slash + 1);
    }
    for (const harness& h : harnesses) {
        if (h.name == name) {
            chosen = &h;
            return 0;
        }
    }
    std::fprintf(stderr, "fuzz_harnesses: run as one of the harnesses' names (a link to this binary):");
    for (const harness& h : harnesses) {
        std::fprintf(stderr, " %.*s", static_cast<int>(h.name.size()), h.name.data());
    }
    std::fprintf(stderr, "\n");
    std::exit(2);
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    return chosen->one_input(data, size);
}
