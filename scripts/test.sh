#!/usr/bin/env bash
# The whole test suite, as CI runs it (.ci/run): the stages below, one after another, each in
# its own build directory under build/. Any failure stops the run with a non-zero status.
#
#   scripts/test.sh            every stage
#   scripts/test.sh STAGE...   the named stages: lint default asan tsan clang20 gcc20 fuzz headers
#
# Between them the stages build every test, example and public header with GCC and Clang, C++17
# and C++20, in both library forms (header-only: handoff::handoff; compiled: handoff::compiled),
# tests and examples with -Werror, and run the suite under AddressSanitizer, UBSan and
# ThreadSanitizer. scripts/test-on-demand.sh holds the checks CI does not run (Catch2 v3, the
# HTML report in a browser).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
jobs="${HANDOFF_JOBS:-2}"
# The flags a program compiled outside CMake needs (tsan, fuzz): Debian's nlohmann, valijson
# and Catch2 v2 are in /usr/include; tests/main.cpp is Catch2's runner alone (RUNNER_ONLY).
direct_flags=(-std=c++17 -g -O1 -Iinclude -Itests -DHANDOFF_TESTS_RUNNER_ONLY "-DHANDOFF_SOURCE_DIR=\"$root\""
  "-DHANDOFF_FIXTURES_DIR=\"$root/tests/fixtures\"" "-DHANDOFF_SCHEMAS_DIR=\"$root/schemas\""
  "-DHANDOFF_CORPORA_DIR=\"$root/tests/corpora\"")

banner() { printf '\n==================== %s ====================\n' "$*"; }

# Waits for the given background jobs; fails when any of them failed.
wait_all() { # pid...
  local pid failed=0
  for pid in "$@"; do wait "$pid" || failed=1; done
  return "$failed"
}

# Configures one CMakePresets.json preset in build/<preset> with the given cache settings on
# top, builds it and runs its CTest tests (those with no label matching the exclude regex).
preset_stage() { # preset ctest-exclude-labels cmake-args...
  local preset="$1" exclude="$2"
  shift 2
  cmake --preset "$preset" "$@"
  cmake --build --preset "$preset" --target all -j"$jobs"
  ctest --preset "$preset" -j"$jobs" ${exclude:+-LE "$exclude"}
}

# clang-format over every C++ file; clang-tidy over the public headers (.clang-tidy).
stage_lint() {
  find include tests examples tools -type f \( -name '*.hpp' -o -name '*.cpp' \) -print0 |
    xargs -0 clang-format --dry-run --Werror
  mkdir -p build/lint
  echo '#include <handoff/handoff.hpp>' >build/lint/all_headers.cpp
  clang-tidy --quiet build/lint/all_headers.cpp -- -std=c++17 -Iinclude -DVALIJSON_USE_EXCEPTIONS=1
  # The regex engine's Unicode property tables are generated, never edited: they must equal a
  # fresh generation from Debian's unicode-data.
  python3 scripts/generate-unicode-tables.py --check
}

# GCC, C++17, Release, the compiled form: unit, compile-time and example tests, and the consumer
# projects (add_subdirectory, FetchContent, find_package and pkg-config, both forms). The
# library, examples and handoff-check are optimised as a user's Release build is; the test code
# itself is compiled at -O0 (at -O3 it costs four times as much and checks nothing more).
stage_default() {
  preset_stage default "" -DCMAKE_CXX_COMPILER=g++ -DHANDOFF_LINK_COMPILED=ON -DHANDOFF_TESTS_COMPILE_OPTIONS=-O0
  # The official JSON Schema Test Suite's counts, one line per dialect, in the log (ctest keeps a
  # passing test quiet): "draft-04 suite: 618 of 618 cases" ... "2020-12 suite: 1299 of 1299 cases".
  build/default/tests/handoff_tests "every required case of the JSON Schema Test Suite is judged as the suite says\\, in every dialect" |
    grep -F " suite: "
}

# clang++, Debug, AddressSanitizer + UBSan (any report fails: the asan preset), the compiled
# form; the unit suite runs as one process (under ASan starting ~500 processes costs more than
# the tests).
stage_asan() {
  preset_stage asan consumer -DHANDOFF_LINK_COMPILED=ON -DHANDOFF_TESTS_ONE_PROCESS=ON
}

# ThreadSanitizer over every test tagged [concurrency], whichever file holds it: those files
# and Catch2's runner, built with clang++.
stage_tsan() {
  local out=build/tsan src pids=()
  rm -rf "$out" && mkdir -p "$out"
  for src in tests/main.cpp $(grep -l '\[concurrency\]' tests/test_*.cpp); do
    echo "tsan: compiling $src"
    clang++ "${direct_flags[@]}" -fsanitize=thread -c "$src" -o "$out/$(basename "$src" .cpp).o" &
    pids+=($!)
  done
  wait_all "${pids[@]}"
  clang++ -fsanitize=thread "$out"/*.o -o "$out/concurrency_tests"
  TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" "$out/concurrency_tests" "[concurrency]"
}

# clang++, C++20, unoptimised, header-only: unit tests (a CTest test per case), compile-time and
# example tests.
stage_clang20() {
  preset_stage clang-cxx20 consumer -DCMAKE_BUILD_TYPE=
}

# GCC, C++20, unoptimised, header-only, with the benchmark kit (built, never run, so it cannot
# rot unseen): unit, compile-time and example tests.
stage_gcc20() {
  preset_stage gcc-cxx20 consumer -DHANDOFF_BUILD_BENCHMARKS=ON -DHANDOFF_TESTS_ONE_PROCESS=ON
}

# libFuzzer under ASan and UBSan, HANDOFF_FUZZ_SECONDS (default 60) per harness, all at once:
# fuzz_receive (decode and receive never crash, hang or break a promise) and fuzz_fast_path (the
# fast path never accepts what its oracle refuses) and fuzz_stream (a doomed prefix has no passing
# extension; the stream's receipt is receive's) and fuzz_schema (every reader of task schemas
# agrees with the compiler, and none crashes or hangs), one binary named after each (see
# tests/fuzz/fuzz_harnesses.cpp). Seeded from tests/fixtures/ and the JSONTestSuite files. A
# crash fails the stage and is left in build/fuzz/artifacts/: fix it, then commit the input
# under tests/fixtures/fuzz_regressions/.
stage_fuzz() {
  local out=build/fuzz harness pids=()
  rm -rf "$out" && mkdir -p "$out/artifacts"
  clang++ "${direct_flags[@]}" -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
    tests/fuzz/fuzz_harnesses.cpp -o "$out/fuzz_receive"
  ln -f "$out/fuzz_receive" "$out/fuzz_fast_path"
  ln -f "$out/fuzz_receive" "$out/fuzz_stream"
  ln -f "$out/fuzz_receive" "$out/fuzz_schema"
  ln -f "$out/fuzz_receive" "$out/fuzz_sse"
  for harness in fuzz_receive fuzz_fast_path fuzz_stream fuzz_schema fuzz_sse; do
    fuzz_one "$out" "$harness" &
    pids+=($!)
  done
  wait_all "${pids[@]}"
}

# One harness: its new inputs go to a corpus directory of its own; the seed directories after it
# are only read (libFuzzer writes to the first directory it is given).
fuzz_one() { # out harness
  mkdir -p "$1/corpus-$2"
  "$1/$2" "$1/corpus-$2" tests/fixtures tests/corpora/JSONTestSuite/test_parsing -dict=tests/fuzz/envelope.dict \
    -max_total_time="${HANDOFF_FUZZ_SECONDS:-60}" -timeout=10 -rss_limit_mb=2048 -max_len=16384 \
    -artifact_prefix="$1/artifacts/$2-" -print_final_stats=1 2>&1 | sed -u "s/^/[$2] /"
}

# Every header compiles on its own (clang++, C++17): CMake's all_verify_interface_header_sets,
# one translation unit per header, header-only (the handoff target), and the public headers in
# the compiled form too (handoff_compiled_headers, with HANDOFF_COMPILED_LIB; see CMakeLists.txt).
stage_headers() {
  cmake -S . -B build/headers -DCMAKE_BUILD_TYPE= -DCMAKE_CXX_COMPILER=clang++ -DHANDOFF_BUILD_TESTS=OFF \
    -DHANDOFF_BUILD_EXAMPLES=OFF -DHANDOFF_BUILD_TOOLS=OFF
  cmake --build build/headers -j"$jobs" --target all_verify_interface_header_sets
}

stages=("$@")
if ((${#stages[@]} == 0)); then stages=(lint default asan tsan clang20 gcc20 fuzz headers); fi
for stage in "${stages[@]}"; do
  declare -F "stage_$stage" >/dev/null || { echo "test.sh: unknown stage '$stage'" >&2 && exit 2; }
done

bash scripts/install-deps.sh
# The providers' own SDKs, pinned by tests/providers/package-lock.json, for the differential test
# of the provider schemas (tests/providers/differential.cmake registers it when they are there).
npm ci --prefix tests/providers --no-audit --no-fund
# ccache and Ninja (installed above): a rerun recompiles only what changed, and Ninja keeps both
# cores busy across targets. CMake reads both when a build directory is first configured.
export CMAKE_CXX_COMPILER_LAUNCHER="${CMAKE_CXX_COMPILER_LAUNCHER:-ccache}" CMAKE_GENERATOR="${CMAKE_GENERATOR:-Ninja}"

for stage in "${stages[@]}"; do
  banner "stage $stage"
  started=$SECONDS
  "stage_$stage"
  echo "stage $stage passed in $((SECONDS - started)) s"
done
echo "test.sh: all stages passed (${stages[*]}) in ${SECONDS} s"
