#!/usr/bin/env bash
# The whole test suite (what CI runs through .ci/run).
#
#   scripts/test.sh            run the default stages
#   scripts/test.sh STAGE...   run the named stages (default, asan, tsan, fuzz, clang, gcc20,
#                              clang17, lint, catch2v3, browser)
#
# A stage is a function stage_<name>; add one and put it in the queue (`queue` below) to make it
# part of every run. Any failure stops the run with a non-zero status.
# The toolchain matrix, every pair in every run: GCC C++17 builds and runs everything
# (default; clang++ builds its consumer projects); Clang C++17 builds and runs the suite under
# sanitizers (asan); Clang C++20 and GCC C++20 build and run the unit, compile-time and example
# tests (clang, gcc20). clang17 compiles every TU for Clang C++17 with -fsyntax-only, for when
# asan is not run. Each compiler runs the suite in both library forms: header-only in clang and
# gcc20, compiled (handoff::compiled) in default and asan. Every public header compiles on its
# own, header-only in both standards and compiled in C++17, with clang++ (asan, clang): see
# headers_on_their_own.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
jobs="${HANDOFF_JOBS:-2}"
# Where the gcc20, clang17 and lint stages build (default and the presets use build/).
build_root="${HANDOFF_BUILD_ROOT:-build}"
# Every stage builds the unit tests as one unity translation unit (a batch of 0 is all of
# them): the test files share handoff, nlohmann, valijson and Catch2, which the compiler then
# parses, instantiates and generates once rather than once per batch (a third of the tests'
# compile time; about 2 GB of memory at -O1). Each worker runs one compiler at a time, so
# smaller batches would not run side by side anyway.
one_unity_file=-DHANDOFF_TESTS_UNITY_BATCH=0
# The default run: two workers take the steps of one queue (see run_workers), then fuzz_run
# alone. A step is a stage, or half of stage_fuzz (fuzz_build, fuzz_run). Longest first, so the
# workers end close together whichever stage runs slow on the day; lint first: it fails fast.
queue=(lint asan default clang gcc20 fuzz_build tsan)
workers=2
read -r -a default_stages <<<"${queue[*]/fuzz_build/fuzz}"

# CTest labels of the tests that check the build system and handoff's scripts rather than the
# code (the consumer projects, the header-check script): their outcome does not depend on the
# stage's compiler, standard or form, so the default stage runs them and the others skip them.
default_stage_labels='consumer|script'

banner() {
  printf '\n==================== %s ====================\n' "$*"
}

# Release build in build/: unit tests, compile-time tests, examples, consumer projects. The
# tests, examples and handoff-check link the compiled form (HANDOFF_LINK_COMPILED): the library
# is optimised once, as a user's Release build of handoff::compiled is, rather than in each of a
# dozen programs. The unit-test program's own code is compiled unoptimised
# (HANDOFF_TESTS_COMPILE_OPTIONS=-O0) and the consumer projects with no build type's flags
# (HANDOFF_CONSUMER_BUILD_TYPE=None: -O0, no debug information) by clang++
# (HANDOFF_CONSUMER_CXX_COMPILER), the faster front end: what they check depends on none of
# these, and the test code costs four times as much to compile at -O3 (at -O1, two fifths
# more, for five seconds less running). GCC builds the unit tests header-only in
# the gcc20 stage, clang++ in the clang stage; the consumer projects build both forms here.
stage_default() {
  banner "stage default: Release, compiled form, build/"
  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DCMAKE_EXPORT_COMPILE_COMMANDS=ON \
    -DHANDOFF_BUILD_TESTS=ON -DHANDOFF_BUILD_EXAMPLES=ON -DHANDOFF_LINK_COMPILED=ON -DHANDOFF_TESTS_ONE_PROCESS=ON \
    -DHANDOFF_TESTS_COMPILE_OPTIONS=-O0 -DHANDOFF_CONSUMER_BUILD_TYPE=None -DHANDOFF_CONSUMER_CXX_COMPILER=clang++ \
    "$one_unity_file"
  cmake --build build -j"$jobs"
  ctest --test-dir build --output-on-failure --no-tests=error -j"$jobs"
  # The official JSON Schema Test Suite's counts, one line per dialect, in the log (ctest keeps a
  # passing test quiet): "draft-04 suite: 618 of 618 cases" ... "2020-12 suite: 1299 of 1299 cases".
  build/tests/handoff_tests "every required case of the JSON Schema Test Suite is judged as the suite says, in every dialect" |
    grep -F " suite: "
}

# Every public header compiles on its own, with the build's compiler, standard and flags: the
# TUs of CMake's all_verify_interface_header_sets, from the build's compile_commands.json, through
# the front end (-fsyntax-only). A header TU holds only inline code, so generating it would check
# nothing more and cost the stage minutes at -O3.
# With "compiled", the public headers in the compiled form instead (HANDOFF_COMPILED_LIB).
# Whether a header compiles on its own depends on what it includes, the standard library (both
# compilers use libstdc++ here), the standard and the form, not on the compiler that reads it:
# clang++, the faster front end (GCC takes half as long again over these headers), checks
# C++17 in both forms in the asan stage and C++20 header-only in the clang stage. Every header
# still goes through GCC, with -Werror, in each GCC stage's test programs. nlohmann comes from a
# precompiled header in every header TU whose own includes reach it (syntax-check.cmake says
# why that checks the same): 40% less CPU time. Header-only, so does <handoff/schema.hpp>, the
# schema machinery the heavy headers all include: a tenth less again.
headers_on_their_own() { # build-dir [compiled]
  local dir="$1" form="${2:-header-only}"
  local out="$dir/headers-on-their-own-$form" mode=(-DHEADERS_ONLY=ON -DHANDOFF_PCH=handoff/schema.hpp)
  if [[ "$form" == compiled ]]; then mode=(-DCOMPILED_FORM=ON); fi
  cmake -DCOMPILE_COMMANDS="$dir/compile_commands.json" -DOUT="$out" "${mode[@]}" -DNLOHMANN_PCH=ON \
    -P "$root/scripts/syntax-check.cmake"
  bash "$out/prepare.sh"
  find "$out" -name 'tu-*.sh' -print0 | sort -z | xargs -0 -n1 -P "$jobs" bash
}

# A configure/build/test run of one CMakePresets.json preset in build/<preset>.
run_preset() {
  cmake --preset "$1"
  cmake --build --preset "$1"
  ctest --preset "$1"
}

# Debug + AddressSanitizer + UBSan, every unit test and example; any report fails the run
# (-fno-sanitize-recover=all). Built with clang++, which compiles the suite at -O0 in half
# g++'s time. The programs link the compiled form, instrumented like them: instrumented code
# costs half as much again to compile, and a program that holds the whole library header-only
# pays it a dozen times; the clang stage builds them header-only. Every public header compiles
# on its own in both forms: header-only, and compiled, where it reads declarations only. The
# consumer projects test the build system, not the code: the default stage runs them
# (default_stage_labels).
stage_asan() {
  banner "stage asan: Debug, -fsanitize=address,undefined, compiled form, build/asan"
  # Line tables are all a sanitizer report needs for file:line (the preset keeps -g for debuggers).
  cmake --preset asan -DCMAKE_EXPORT_COMPILE_COMMANDS=ON -DCMAKE_CXX_FLAGS_DEBUG=-gline-tables-only \
    -DHANDOFF_TESTS_ONE_PROCESS=ON -DHANDOFF_LINK_COMPILED=ON -DHANDOFF_PRECOMPILE_HEADERS=ON "$one_unity_file"
  cmake --build --preset asan --target all -j"$jobs"
  headers_on_their_own build/asan
  headers_on_their_own build/asan compiled
  ctest --preset asan -LE "$default_stage_labels" -j"$jobs"
}

# The flags a test or harness compiled outside CMake needs to find handoff, its fixtures and
# the shared corpora (Debian's nlohmann, valijson and Catch2 v2 are in /usr/include).
direct_flags=(-std=c++17 -g -O1 -Iinclude -Itests
  "-DHANDOFF_FIXTURES_DIR=\"$root/tests/fixtures\"" "-DHANDOFF_SCHEMAS_DIR=\"$root/schemas\""
  "-DHANDOFF_CORPORA_DIR=\"$root/tests/corpora\"")

# ThreadSanitizer over the [concurrency] tests (one receiver, 8 threads), built with clang++
# from just their two sources, so the stage takes a minute rather than a rebuild of the suite.
# The two compile side by side only with a job to spare: in a worker (one job) a second
# compiler would take its core from the other worker's step. main.cpp is Catch2's runner alone
# here (HANDOFF_TESTS_RUNNER_ONLY: its every-header check is the CMake stages'), unoptimised: it
# runs on the main thread only, and optimising it more than doubled its compile time.
stage_tsan() {
  banner "stage tsan: clang++ -fsanitize=thread, [concurrency] tests, build/tsan"
  local out=build/tsan main_job=""
  local runner=(clang++ "${direct_flags[@]}" -O0 -DHANDOFF_TESTS_RUNNER_ONLY -fsanitize=thread -c tests/main.cpp
    -o "$out/main.o")
  mkdir -p "$out"
  if ((jobs > 1)); then
    "${runner[@]}" &
    main_job=$!
  else
    "${runner[@]}"
  fi
  clang++ "${direct_flags[@]}" -fsanitize=thread -c tests/test_concurrency.cpp -o "$out/test_concurrency.o"
  if [[ -n "$main_job" ]]; then wait "$main_job"; fi
  clang++ -fsanitize=thread "$out/main.o" "$out/test_concurrency.o" -o "$out/concurrency_tests"
  TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" "$out/concurrency_tests" "[concurrency]"
}

# libFuzzer, under ASan and UBSan, for HANDOFF_FUZZ_SECONDS (default 60) per harness:
# fuzz_receive (tests/fuzz/fuzz_receive.hpp: decode and receive never crash, hang or break a
# promise) and fuzz_fast_path (tests/fuzz/fuzz_fast_path.hpp: the fast path never accepts what
# its oracle refuses). Seeded from a fresh copy of tests/fixtures/ (fuzz regressions included)
# and the JSONTestSuite files. A crash fails the stage and is left in build/fuzz/artifacts/: fix
# it, then commit the input under tests/fixtures/fuzz_regressions/.
stage_fuzz() {
  fuzz_build
  fuzz_run
}

fuzz_out=build/fuzz
# The names tests/fuzz/fuzz_harnesses.cpp answers to.
fuzz_harnesses=(fuzz_receive fuzz_fast_path)

# Both harnesses are one binary (tests/fuzz/fuzz_harnesses.cpp), compiled once and linked under
# each harness's name, which picks the harness: most of a harness's build is the instrumented
# library, which they share (one binary 72 s, the two apart 50 s + 71 s).
fuzz_build() {
  banner "fuzz: building the libFuzzer harnesses, $fuzz_out"
  mkdir -p "$fuzz_out"
  clang++ "${direct_flags[@]}" -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
    tests/fuzz/fuzz_harnesses.cpp -o "$fuzz_out/fuzz_harnesses"
  local harness
  for harness in "${fuzz_harnesses[@]}"; do
    ln -f "$fuzz_out/fuzz_harnesses" "$fuzz_out/$harness"
  done
}

# Runs the harnesses fuzz_build built.
fuzz_run() {
  local seconds="${HANDOFF_FUZZ_SECONDS:-60}"
  banner "stage fuzz: libFuzzer, ${seconds}s per harness, $fuzz_out"
  local out="$fuzz_out" pids=() harness
  local artifacts="$out/artifacts"
  rm -rf "$artifacts"
  mkdir -p "$artifacts"
  # The harnesses fuzz at the same time, one per core, each on its own corpus: the stage takes
  # HANDOFF_FUZZ_SECONDS once, and each harness still gets all of it.
  for harness in "${fuzz_harnesses[@]}"; do
    fuzz_one "$out" "$harness" "$seconds" &
    pids+=($!)
  done
  local failed=0 pid
  for pid in "${pids[@]}"; do
    wait "$pid" || failed=1
  done
  if ((failed)); then
    echo "stage fuzz: a harness found a crash or a broken promise; the input is in $artifacts/:" >&2
    ls -l "$artifacts" >&2
    return 1
  fi
}

# One harness of stage_fuzz on a fresh corpus of its own: out-dir harness seconds.
fuzz_one() {
  local out="$1" harness="$2" seconds="$3"
  local corpus="$out/corpus-$harness" artifacts="$out/artifacts" seed
  rm -rf "$corpus"
  mkdir -p "$corpus"
  while IFS= read -r -d '' seed; do
    cp "$seed" "$corpus/$(printf '%s' "${seed#tests/fixtures/}" | tr '/' '_')"
  done < <(find tests/fixtures -type f ! -name README.md -print0)
  if [[ -d tests/corpora/JSONTestSuite/test_parsing ]]; then
    cp tests/corpora/JSONTestSuite/test_parsing/*.json "$corpus/"
  fi
  # Its log is prefixed with its name: the two run side by side.
  "$out/$harness" "$corpus" -dict=tests/fuzz/envelope.dict -max_total_time="$seconds" \
    -timeout=10 -rss_limit_mb=2048 -max_len=16384 -artifact_prefix="$artifacts/$harness-" \
    -print_final_stats=1 2>&1 | sed -u "s/^/[$harness] /" || return 1
  rm -rf "$corpus" # generated: never committed
}

# clang++ in C++20 mode (preset clang-cxx20, built unoptimised here to save CI time; clang's
# warnings come from its front end, so -O0 loses none): unit, compile-time and example tests.
# The tests, examples and handoff-check are header-only; default and asan link the compiled
# form. Every public header compiles on its own, header-only. The one stage that runs each unit
# test case as a CTest test of its own (the others run the unit suite in one process,
# HANDOFF_TESTS_ONE_PROCESS), so the per-case registration stays checked. The consumer projects
# run in the default stage. Both clang++ stages precompile <handoff/handoff.hpp> once for their
# programs (HANDOFF_PRECOMPILE_HEADERS, cmake/HandoffPrecompile.cmake): header-only, the library
# is most of each program's compile time (this stage's build: 141 CPU seconds without, 96 with).
stage_clang() {
  banner "stage clang: clang++ -std=c++20, unoptimised, header-only, build/clang-cxx20"
  cmake --preset clang-cxx20 -DCMAKE_BUILD_TYPE= -DHANDOFF_LINK_COMPILED=OFF -DCMAKE_EXPORT_COMPILE_COMMANDS=ON \
    -DHANDOFF_PRECOMPILE_HEADERS=ON "$one_unity_file"
  cmake --build --preset clang-cxx20 --target all -j"$jobs"
  headers_on_their_own build/clang-cxx20
  ctest --preset clang-cxx20 -LE "$default_stage_labels" -j"$jobs"
}

# Compile-only in another compiler/standard pair: every test, example and benchmark translation
# unit and every public header on its own, parsed and type-checked with the warning flags (-Werror),
# no code generated (a fifth of an optimised build's time).
compile_only() { # compiler standard build-dir
  local cxx="$1" std="$2" dir="$3"
  cmake -S . -B "$dir" -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_CXX_STANDARD="$std" \
    -DCMAKE_CXX_STANDARD_REQUIRED=ON -DCMAKE_CXX_EXTENSIONS=OFF -DCMAKE_BUILD_TYPE= \
    -DCMAKE_EXPORT_COMPILE_COMMANDS=ON -DHANDOFF_BUILD_TESTS=ON -DHANDOFF_BUILD_EXAMPLES=ON \
    -DHANDOFF_BUILD_BENCHMARKS=ON
  cmake -DCOMPILE_COMMANDS="$dir/compile_commands.json" -DOUT="$dir/syntax-check" \
    -P "$root/scripts/syntax-check.cmake"
  find "$dir/syntax-check" -name '*.sh' -print0 | sort -z | xargs -0 -n1 -P "$jobs" bash
}

# GCC in C++20 mode, unoptimised (GCC's warnings come from its front end too): builds the
# tests, examples and the benchmark kit (never built otherwise, so it would rot unseen), then
# runs the unit, compile-time and example tests. The unit tests are header-only; the examples,
# handoff-check and the benchmarks link the compiled form (they check nothing about the form,
# and header-only each would compile the whole library again: the clang stage builds them
# header-only). The unit-test program's main.cpp is Catch2's runner alone
# (HANDOFF_TESTS_MAIN_INCLUDES_HEADERS=OFF): its second include of every header checks linkage,
# which the clang stage checks header-only, and costs GCC in C++20 mode as much as the runner.
stage_gcc20() {
  local dir="$build_root/gcc-cxx20"
  banner "stage gcc20: g++ -std=c++20, unoptimised, $dir"
  cmake -S . -B "$dir" -DCMAKE_CXX_COMPILER=g++ -DCMAKE_CXX_STANDARD=20 -DCMAKE_CXX_STANDARD_REQUIRED=ON \
    -DCMAKE_CXX_EXTENSIONS=OFF -DCMAKE_BUILD_TYPE= -DHANDOFF_BUILD_TESTS=ON -DHANDOFF_BUILD_EXAMPLES=ON \
    -DHANDOFF_BUILD_BENCHMARKS=ON -DCMAKE_EXPORT_COMPILE_COMMANDS=ON -DHANDOFF_TESTS_ONE_PROCESS=ON \
    -DHANDOFF_LINK_COMPILED=ON -DHANDOFF_LINK_COMPILED_TESTS=OFF -DHANDOFF_TESTS_MAIN_INCLUDES_HEADERS=OFF \
    "$one_unity_file"
  cmake --build "$dir" -j"$jobs"
  ctest --test-dir "$dir" --output-on-failure --no-tests=error -j"$jobs" -LE "$default_stage_labels"
}

stage_clang17() {
  banner "stage clang17: clang++ -std=c++17, compile-only, $build_root/clang-cxx17"
  compile_only clang++ 17 "$build_root/clang-cxx17"
}

# Catch2 v3, which Debian 12 does not ship: the suite built (unoptimised) and run against the
# source of Catch2 3.7.1 that Debian 13 packages, fetched from the Debian archive and checked
# against the SHA-256 its Sources index gives. It proves tests/support/catch.hpp's v3 path and
# the FetchContent fallback of tests/CMakeLists.txt. On demand only: it downloads, and builds
# Catch2 and the suite again (about ten minutes on two cores).
stage_catch2v3() {
  local dir="$build_root/catch2-v3" version=3.7.1
  local url="http://deb.debian.org/debian/pool/main/c/catch2/catch2_$version.orig.tar.gz"
  local sha256=c991b247a1a0d7bb9c39aa35faf0fe9e19764213f28ffba3109388e62ee0269c
  banner "stage catch2v3: the suite against Catch2 $version, $dir"
  mkdir -p "$dir"
  if [[ ! -f "$dir/Catch2-$version/CMakeLists.txt" ]]; then
    curl -fsSL -o "$dir/catch2.tar.gz" "$url"
    echo "$sha256  $dir/catch2.tar.gz" | sha256sum -c -
    tar -xzf "$dir/catch2.tar.gz" -C "$dir"
  fi
  local source
  source="$(cd "$dir/Catch2-$version" && pwd)"
  # A FetchContent source directory wins over find_package, so Debian's v2 is not picked up.
  cmake -S . -B "$dir/build" -DCMAKE_BUILD_TYPE= -DHANDOFF_BUILD_TESTS=ON -DHANDOFF_BUILD_EXAMPLES=ON \
    -DFETCHCONTENT_SOURCE_DIR_CATCH2="$source"
  cmake --build "$dir/build" -j"$jobs"
  # The binary says which Catch2 it was built with: it must be this one, not Debian's v2.
  "$dir/build/tests/handoff_tests" --libidentify | tee /dev/stderr | grep -Eq "^version:[[:space:]]+$version\$"
  ctest --test-dir "$dir/build" --output-on-failure --no-tests=error -j"$jobs" -LE "$default_stage_labels"
}

# handoff-check report --html as a real browser sees it: headless Chromium (Debian's, installed
# when missing) loads the page written from tests/fixtures/report/*.jsonl with its network off,
# dumps the DOM and takes a screenshot in a phone-sized window; tests/browser/check_report_page.py
# checks that every class row and bar survived parsing, no script ran, nothing was loaded, and
# the screenshot is more than a blank window. On demand only: Chromium is a large install.
stage_browser() {
  local dir="$build_root/browser"
  banner "stage browser: handoff-check report --html in headless Chromium, $dir"
  if ! command -v chromium >/dev/null 2>&1; then
    local as_root=()
    if [[ "$(id -u)" -ne 0 ]]; then as_root=(sudo); fi
    "${as_root[@]}" apt-get install -y chromium || {
      "${as_root[@]}" apt-get update && "${as_root[@]}" apt-get install -y chromium
    }
  fi
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release -DHANDOFF_BUILD_TOOLS=ON -DHANDOFF_BUILD_TESTS=OFF \
    -DHANDOFF_BUILD_EXAMPLES=OFF
  cmake --build "$dir" -j"$jobs" --target handoff-check
  mkdir -p "$dir"
  local out page profile
  out="$(cd "$dir" && pwd)"
  page="$out/report.html"
  rm -f "$page" "$out/report.dom.html" "$out/report.png"
  "$dir/tools/handoff-check" report --html "$page" tests/fixtures/report/*.jsonl
  # A fresh profile each run: no cached state, and nothing of a user's own.
  profile="$(mktemp -d)"
  local chromium_flags=(--headless --no-sandbox --disable-gpu --disable-background-networking
    --disable-component-update --disable-sync --no-first-run "--user-data-dir=$profile")
  timeout 120 chromium "${chromium_flags[@]}" --dump-dom "file://$page" >"$out/report.dom.html" \
    2>"$out/chromium.log"
  timeout 120 chromium "${chromium_flags[@]}" --screenshot="$out/report.png" --window-size=390,844 \
    "file://$page" 2>>"$out/chromium.log" >/dev/null
  rm -rf "$profile"
  python3 tests/browser/check_report_page.py "$page" "$out/report.dom.html" "$out/report.png"
}

# Style and static checks with the root's .clang-format and .clang-tidy: clang-format over
# include/ tests/ examples/, clang-tidy over the public headers through one translation unit.
# First in the queue: it takes half a minute and fails fast.
stage_lint() {
  banner "stage lint: clang-format --dry-run --Werror, clang-tidy"
  local files=()
  mapfile -t files < <(find include tests examples tools -type f \( -name '*.hpp' -o -name '*.cpp' \) | sort)
  clang-format --dry-run --Werror "${files[@]}"
  echo "clang-format: ${#files[@]} files formatted as .clang-format says"
  local tu="$build_root/lint/all_headers.cpp"
  mkdir -p "$(dirname "$tu")"
  printf '#include <handoff/handoff.hpp>\n' >"$tu"
  clang-tidy --quiet --config-file="$root/.clang-tidy" "$tu" -- \
    -std=c++17 -I"$root/include" -DVALIJSON_USE_EXCEPTIONS=1
  echo "clang-tidy: the public headers pass .clang-tidy"
}

stages=("$@")
for stage in "${stages[@]}"; do
  if ! declare -F "stage_$stage" >/dev/null; then
    echo "test.sh: unknown stage '$stage'" >&2
    exit 2
  fi
done

banner "dependencies"
bash "$root/scripts/install-deps.sh"

# ccache (installed above) caches every compile: a rerun recompiles only what changed.
# CMake reads the launcher from the environment when a build directory is first configured.
if command -v ccache >/dev/null 2>&1; then
  export CMAKE_CXX_COMPILER_LAUNCHER="${CMAKE_CXX_COMPILER_LAUNCHER:-ccache}"
fi

# Ninja (installed above) compiles a program's files while the library it links is still being
# compiled, where Make builds one target after another and leaves a core idle behind the one
# translation unit of handoff::compiled. CMake reads the generator from the environment when a
# build directory is first configured; an existing one keeps its own.
if command -v ninja >/dev/null 2>&1; then
  export CMAKE_GENERATOR="${CMAKE_GENERATOR:-Ninja}"
fi

# CPU seconds (user + system) of every process this shell has waited for so far, into $cpu:
# beside the wall time, it says what a stage costs on a machine shared with other work. `times`
# runs in the calling shell (a subshell would count only its own children), through a file.
times_file="$(mktemp)"
timings_file="$(mktemp)"
queue_next="$(mktemp)" # the index of the default run's next step (see next_step)
trap 'rm -f "$times_file" "$timings_file" "$queue_next"' EXIT
cpu_so_far() {
  times >"$times_file"
  cpu=$(awk 'NR == 2 { for (i = 1; i <= 2; i++) { split($i, t, /[ms]/); s += t[1] * 60 + t[2] } }
    END { printf "%d", s }' "$times_file")
}

# Runs one step (a stage, or fuzz_build / fuzz_run) and appends its wall and CPU time to the file
# $timings_file.
timed_step() { # step
  local step="$1" started=$SECONDS cpu_before
  cpu_so_far
  cpu_before=$cpu
  if declare -F "stage_$step" >/dev/null; then "stage_$step"; else "$step"; fi
  cpu_so_far
  printf '%-10s %5d s  (cpu %5d s)\n' "$step" $((SECONDS - started)) $((cpu - cpu_before)) >>"$timings_file"
}

# The default run: two workers at once, each with its share of HANDOFF_JOBS (one job each on
# two cores), each taking the next step of the queue until none is left: most stages leave a
# core idle for long stretches (configuring, linking, the last translation unit of a build, a
# test program that runs on one core), and the other worker fills it. More jobs than cores would
# not: on this VM four compilers on two cores cost a quarter more CPU time than two. A queue
# rather than two fixed lists: a stage's time drifts by a fifth from run to run here, and
# whichever worker is free takes the next step. fuzz_run comes alone after both, so each harness
# has a core to itself for its HANDOFF_FUZZ_SECONDS, as when the stages ran one by one.
# Each worker writes its log to $build_root/logs/ and it is printed when the worker ends; a
# failing worker stops the other.

# Prints the queue's next step and moves past it; fails when none is left. flock makes taking a
# step atomic between the workers.
next_step() {
  local i
  i=$(flock "$queue_next" bash -c 'i=$(cat "$1"); echo $((${i:-0} + 1)) >"$1"; echo "${i:-0}"' _ "$queue_next")
  ((i < ${#queue[@]})) || return 1
  printf '%s\n' "${queue[$i]}"
}

run_worker() { # log-file
  local log="$1"
  (
    local step
    jobs=$((jobs / workers > 0 ? jobs / workers : 1))
    while step="$(next_step)"; do
      echo "worker: step $step"
      timed_step "$step"
    done
  ) >"$log" 2>&1
}

# Kills a process and everything it started.
kill_tree() { # pid
  local child
  for child in $(pgrep -P "$1" || true); do
    kill_tree "$child"
  done
  kill "$1" 2>/dev/null || true
}

# The log of worker N (1-based).
worker_log() { # n
  printf '%s/logs/worker-%d.log' "$build_root" "$1"
}

run_workers() {
  local pids=() i pid status
  mkdir -p "$build_root/logs"
  echo 0 >"$queue_next"
  for ((i = 1; i <= workers; i++)); do
    banner "worker $i started on the queue: ${queue[*]} (log: $(worker_log "$i"))"
    run_worker "$(worker_log "$i")" &
    pids+=($!)
  done
  while ((${#pids[@]} > 0)); do
    status=0
    wait -n -p pid "${pids[@]}" || status=$?
    for i in "${!pids[@]}"; do
      [[ "${pids[$i]}" == "$pid" ]] || continue
      banner "worker $((i + 1)) ended (status $status): $(grep '^worker: step ' "$(worker_log $((i + 1)))" | cut -d' ' -f3 | tr '\n' ' ')"
      cat "$(worker_log $((i + 1)))"
      unset 'pids[i]'
    done
    if ((status != 0)); then
      for pid in "${pids[@]}"; do
        kill_tree "$pid"
      done
      echo "test.sh: a worker failed; its log is above" >&2
      return 1
    fi
  done
}

run_started=$SECONDS
in_workers=$((${#stages[@]} == 0))
if ((in_workers)); then
  stages=("${default_stages[@]}")
  run_workers
  timed_step fuzz_run
else
  for stage in "${stages[@]}"; do
    timed_step "$stage"
  done
fi
banner "all stages passed: ${stages[*]}"
if ((in_workers)); then
  echo "(the workers overlap: the stages' wall times add up to more than the total)"
fi
cat "$timings_file"
cpu_so_far
printf '%-10s %5d s  (cpu %5d s)\n' total $((SECONDS - run_started)) "$cpu"
