#!/usr/bin/env bash
# The whole test suite (what CI runs through .ci/run).
#
#   scripts/test.sh            run the default stages
#   scripts/test.sh STAGE...   run the named stages (default, asan, tsan, fuzz, clang)
#
# A stage is a function stage_<name>; add one and list it in default_stages to
# make it part of every run. Any failure stops the run with a non-zero status.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
jobs="${HANDOFF_JOBS:-2}"
default_stages=(default asan tsan fuzz)

banner() {
  printf '\n==================== %s ====================\n' "$*"
}

# Release build in build/: unit tests, compile-time tests, examples, consumer projects.
stage_default() {
  banner "stage default: Release, build/"
  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release \
    -DHANDOFF_BUILD_TESTS=ON -DHANDOFF_BUILD_EXAMPLES=ON
  cmake --build build -j"$jobs"
  # every public header compiles on its own
  cmake --build build -j"$jobs" --target all_verify_interface_header_sets
  ctest --test-dir build --output-on-failure --no-tests=error -j"$jobs"
}

# A configure/build/test run of one CMakePresets.json preset in build/<preset>.
run_preset() {
  cmake --preset "$1"
  cmake --build --preset "$1"
  ctest --preset "$1"
}

# Debug + AddressSanitizer + UBSan, every unit test and example; any report fails the run
# (-fno-sanitize-recover=all). Built with clang++, which compiles the suite at -O0 in half
# g++'s time. The consumer projects test the build system, not the code: the default stage
# runs them.
stage_asan() {
  banner "stage asan: Debug, -fsanitize=address,undefined, build/asan"
  cmake --preset asan
  cmake --build --preset asan
  ctest --preset asan -LE consumer
}

# The flags a test or harness compiled outside CMake needs to find handoff, its fixtures and
# the shared corpora (Debian's nlohmann, valijson and Catch2 v2 are in /usr/include).
direct_flags=(-std=c++17 -g -O1 -Iinclude -Itests
  "-DHANDOFF_FIXTURES_DIR=\"$root/tests/fixtures\"" "-DHANDOFF_SCHEMAS_DIR=\"$root/schemas\""
  "-DHANDOFF_CORPORA_DIR=\"$root/../shared/corpora\"")

# ThreadSanitizer over the [concurrency] tests (one receiver, 8 threads), built with clang++
# from just their two sources, so the stage takes a minute rather than a rebuild of the suite.
stage_tsan() {
  banner "stage tsan: clang++ -fsanitize=thread, [concurrency] tests, build/tsan"
  local out=build/tsan
  mkdir -p "$out"
  clang++ "${direct_flags[@]}" -fsanitize=thread -c tests/main.cpp -o "$out/main.o" &
  local main_job=$!
  clang++ "${direct_flags[@]}" -fsanitize=thread -c tests/test_concurrency.cpp -o "$out/test_concurrency.o"
  wait "$main_job"
  clang++ -fsanitize=thread "$out/main.o" "$out/test_concurrency.o" -o "$out/concurrency_tests"
  TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" "$out/concurrency_tests" "[concurrency]"
}

# libFuzzer over decode and receive (tests/fuzz/fuzz_receive.cpp) for HANDOFF_FUZZ_SECONDS
# (default 60), under ASan and UBSan, seeded from a fresh copy of tests/fixtures/ (fuzz
# regressions included) and the JSONTestSuite files. A crash fails the stage and is left in
# build/fuzz/artifacts/: fix it, then commit the input under tests/fixtures/fuzz_regressions/.
stage_fuzz() {
  local seconds="${HANDOFF_FUZZ_SECONDS:-60}"
  banner "stage fuzz: libFuzzer, ${seconds}s, build/fuzz"
  local out=build/fuzz
  mkdir -p "$out"
  clang++ "${direct_flags[@]}" -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
    tests/fuzz/fuzz_receive.cpp -o "$out/fuzz_receive"
  local corpus="$out/corpus" artifacts="$out/artifacts"
  rm -rf "$corpus" "$artifacts"
  mkdir -p "$corpus" "$artifacts"
  local seed
  while IFS= read -r -d '' seed; do
    cp "$seed" "$corpus/$(printf '%s' "${seed#tests/fixtures/}" | tr '/' '_')"
  done < <(find tests/fixtures -type f ! -name README.md -print0)
  if [[ -d ../shared/corpora/JSONTestSuite/test_parsing ]]; then
    cp ../shared/corpora/JSONTestSuite/test_parsing/*.json "$corpus/"
  fi
  if ! "$out/fuzz_receive" "$corpus" -dict=tests/fuzz/envelope.dict -max_total_time="$seconds" \
      -timeout=10 -rss_limit_mb=2048 -max_len=16384 -artifact_prefix="$artifacts/" -print_final_stats=1; then
    echo "stage fuzz: a crash or a broken promise; the input is in $artifacts/:" >&2
    ls -l "$artifacts" >&2
    return 1
  fi
  rm -rf "$corpus" # generated: never committed
}

# clang++ in C++20 mode (not part of the default run).
stage_clang() {
  banner "stage clang: clang++ -std=c++20, build/clang-cxx20"
  run_preset clang-cxx20
}

stages=("$@")
if ((${#stages[@]} == 0)); then
  stages=("${default_stages[@]}")
fi
for stage in "${stages[@]}"; do
  if ! declare -F "stage_$stage" >/dev/null; then
    echo "test.sh: unknown stage '$stage'" >&2
    exit 2
  fi
done

banner "dependencies"
bash "$root/scripts/install-deps.sh"

for stage in "${stages[@]}"; do
  "stage_$stage"
done
banner "all stages passed: ${stages[*]}"
