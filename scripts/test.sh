#!/usr/bin/env bash
# The whole test suite (what CI runs through .ci/run).
#
#   scripts/test.sh            run the default stages
#   scripts/test.sh STAGE...   run the named stages (default, asan, clang)
#
# A stage is a function stage_<name>; add one and list it in default_stages to
# make it part of every run. Any failure stops the run with a non-zero status.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
jobs="${HANDOFF_JOBS:-2}"
default_stages=(default)

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

# Debug + AddressSanitizer + UBSan (not part of the default run).
stage_asan() {
  banner "stage asan: Debug, -fsanitize=address,undefined, build/asan"
  run_preset asan
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
