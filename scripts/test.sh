#!/usr/bin/env bash
# The whole test suite (what CI runs through .ci/run).
#
#   scripts/test.sh            run the default stages
#   scripts/test.sh STAGE...   run the named stages (default, asan, tsan, fuzz, clang, gcc20,
#                              clang17, lint, catch2v3, browser)
#
# A stage is a function stage_<name>; add one and list it in default_stages to
# make it part of every run. Any failure stops the run with a non-zero status.
# The toolchain matrix, every pair in every run: GCC C++17 builds and runs everything
# (default); Clang C++17 builds and runs the suite under sanitizers (asan); Clang C++20 and
# GCC C++20 build and run the unit, compile-time and example tests (clang, gcc20). clang17
# compiles every TU for Clang C++17 with -fsyntax-only, for when asan is not run. Each
# compiler runs the suite in both library forms: header-only in asan and gcc20, compiled
# (handoff::compiled) in default and clang.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
jobs="${HANDOFF_JOBS:-2}"
# Where the gcc20, clang17 and lint stages build (default and the presets use build/).
build_root="${HANDOFF_BUILD_ROOT:-build}"
default_stages=(lint default asan tsan fuzz clang gcc20)

banner() {
  printf '\n==================== %s ====================\n' "$*"
}

# Release build in build/: unit tests, compile-time tests, examples, consumer projects, every
# header on its own. The tests, examples and handoff-check link the compiled form
# (HANDOFF_LINK_COMPILED): the library is optimised once, as a user's Release build of
# handoff::compiled is, rather than in each of a dozen programs. GCC builds them header-only
# in the gcc20 stage, clang++ in asan; the consumer projects build both forms here.
stage_default() {
  banner "stage default: Release, compiled form, build/"
  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DCMAKE_EXPORT_COMPILE_COMMANDS=ON \
    -DHANDOFF_BUILD_TESTS=ON -DHANDOFF_BUILD_EXAMPLES=ON -DHANDOFF_LINK_COMPILED=ON -DHANDOFF_TESTS_ONE_PROCESS=ON
  cmake --build build -j"$jobs"
  headers_on_their_own build
  ctest --test-dir build --output-on-failure --no-tests=error -j"$jobs"
  # The official JSON Schema Test Suite's count, in the log (ctest keeps a passing test quiet).
  build/tests/handoff_tests "every draft-07 case of the JSON Schema Test Suite is judged as the suite says" |
    grep -F "draft-07 suite:"
}

# Every public header compiles on its own, with the build's compiler, standard and flags: the
# TUs of CMake's all_verify_interface_header_sets, from the build's compile_commands.json, through
# the front end (-fsyntax-only). A header TU holds only inline code, so generating it would check
# nothing more and cost the stage minutes at -O3.
# With "compiled", the public headers in the compiled form instead (HANDOFF_COMPILED_LIB).
headers_on_their_own() { # build-dir [compiled]
  local dir="$1" form="${2:-header-only}"
  local out="$dir/headers-on-their-own-$form" mode=(-DHEADERS_ONLY=ON)
  if [[ "$form" == compiled ]]; then mode=(-DCOMPILED_FORM=ON); fi
  cmake -DCOMPILE_COMMANDS="$dir/compile_commands.json" -DOUT="$out" "${mode[@]}" \
    -P "$root/scripts/syntax-check.cmake"
  find "$out" -name '*.sh' -print0 | sort -z | xargs -0 -n1 -P "$jobs" bash
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
  # Line tables are all a sanitizer report needs for file:line (the preset keeps -g for debuggers).
  cmake --preset asan -DCMAKE_EXPORT_COMPILE_COMMANDS=ON -DCMAKE_CXX_FLAGS_DEBUG=-gline-tables-only \
    -DHANDOFF_TESTS_ONE_PROCESS=ON
  cmake --build --preset asan --target all
  headers_on_their_own build/asan
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

# libFuzzer, under ASan and UBSan, for HANDOFF_FUZZ_SECONDS (default 60) per harness:
# tests/fuzz/fuzz_receive.cpp (decode and receive never crash, hang or break a promise) and
# tests/fuzz/fuzz_fast_path.cpp (the fast path never accepts what its oracle refuses). Seeded
# from a fresh copy of tests/fixtures/ (fuzz regressions included) and the JSONTestSuite
# files. A crash fails the stage and is left in build/fuzz/artifacts/: fix it, then commit the
# input under tests/fixtures/fuzz_regressions/.
stage_fuzz() {
  local seconds="${HANDOFF_FUZZ_SECONDS:-60}"
  banner "stage fuzz: libFuzzer, ${seconds}s per harness, build/fuzz"
  local out=build/fuzz harnesses=(fuzz_receive fuzz_fast_path) pids=() harness
  mkdir -p "$out"
  for harness in "${harnesses[@]}"; do
    clang++ "${direct_flags[@]}" -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
      "tests/fuzz/$harness.cpp" -o "$out/$harness" &
    pids+=($!)
  done
  for harness in "${pids[@]}"; do
    wait "$harness"
  done
  local artifacts="$out/artifacts"
  rm -rf "$artifacts"
  mkdir -p "$artifacts"
  # The harnesses fuzz at the same time, one per core, each on its own corpus: the stage takes
  # HANDOFF_FUZZ_SECONDS once, and each harness still gets all of it.
  pids=()
  for harness in "${harnesses[@]}"; do
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
  if [[ -d ../shared/corpora/JSONTestSuite/test_parsing ]]; then
    cp ../shared/corpora/JSONTestSuite/test_parsing/*.json "$corpus/"
  fi
  # Its log is prefixed with its name: the two run side by side.
  "$out/$harness" "$corpus" -dict=tests/fuzz/envelope.dict -max_total_time="$seconds" \
    -timeout=10 -rss_limit_mb=2048 -max_len=16384 -artifact_prefix="$artifacts/$harness-" \
    -print_final_stats=1 2>&1 | sed -u "s/^/[$harness] /" || return 1
  rm -rf "$corpus" # generated: never committed
}

# clang++ in C++20 mode (preset clang-cxx20, built unoptimised here to save CI time; clang's
# warnings come from its front end, so -O0 loses none): unit, compile-time and example tests.
# The tests, examples and handoff-check link the compiled form (handoff::compiled), as in the
# default stage; asan and gcc20 build them header-only. Every public header compiles on its own
# in the compiled form, where it reads declarations only. The one stage that runs each unit test
# case as a CTest test of its own (the others run the unit suite in one process,
# HANDOFF_TESTS_ONE_PROCESS), so the per-case registration stays checked. The consumer projects
# run in the default stage.
stage_clang() {
  banner "stage clang: clang++ -std=c++20, unoptimised, compiled form, build/clang-cxx20"
  cmake --preset clang-cxx20 -DCMAKE_BUILD_TYPE= -DHANDOFF_LINK_COMPILED=ON -DCMAKE_EXPORT_COMPILE_COMMANDS=ON
  cmake --build --preset clang-cxx20 --target all
  headers_on_their_own build/clang-cxx20 compiled
  ctest --preset clang-cxx20 -LE consumer
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
# tests, examples and the benchmark kit (never built otherwise, so it would rot unseen) and
# every public header on its own, then runs the unit, compile-time and example tests.
stage_gcc20() {
  local dir="$build_root/gcc-cxx20"
  banner "stage gcc20: g++ -std=c++20, unoptimised, $dir"
  cmake -S . -B "$dir" -DCMAKE_CXX_COMPILER=g++ -DCMAKE_CXX_STANDARD=20 -DCMAKE_CXX_STANDARD_REQUIRED=ON \
    -DCMAKE_CXX_EXTENSIONS=OFF -DCMAKE_BUILD_TYPE= -DHANDOFF_BUILD_TESTS=ON -DHANDOFF_BUILD_EXAMPLES=ON \
    -DHANDOFF_BUILD_BENCHMARKS=ON -DCMAKE_EXPORT_COMPILE_COMMANDS=ON -DHANDOFF_TESTS_ONE_PROCESS=ON
  cmake --build "$dir" -j"$jobs"
  headers_on_their_own "$dir"
  ctest --test-dir "$dir" --output-on-failure --no-tests=error -j"$jobs" -LE consumer
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
  ctest --test-dir "$dir/build" --output-on-failure --no-tests=error -j"$jobs" -LE consumer
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
# First in default_stages: it takes half a minute and fails fast.
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

# CPU seconds (user + system) of every process this script has waited for so far, into $cpu:
# beside the wall time, it says what a stage costs on a machine shared with other work. `times`
# runs in this shell (a subshell would count only its own children), through a file.
times_file="$(mktemp)"
trap 'rm -f "$times_file"' EXIT
cpu_so_far() {
  times >"$times_file"
  cpu=$(awk 'NR == 2 { for (i = 1; i <= 2; i++) { split($i, t, /[ms]/); s += t[1] * 60 + t[2] } }
    END { printf "%d", s }' "$times_file")
}

timings=()
run_started=$SECONDS
for stage in "${stages[@]}"; do
  stage_started=$SECONDS
  cpu_so_far
  stage_cpu=$cpu
  "stage_$stage"
  cpu_so_far
  timings+=("$(printf '%-10s %5d s  (cpu %5d s)' "$stage" $((SECONDS - stage_started)) $((cpu - stage_cpu)))")
done
banner "all stages passed: ${stages[*]}"
printf '%s\n' "${timings[@]}"
cpu_so_far
printf '%-10s %5d s  (cpu %5d s)\n' total $((SECONDS - run_started)) "$cpu"
