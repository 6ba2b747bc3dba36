#!/usr/bin/env bash
# Checks CI does not run, each on demand (they download or install large things):
#
#   scripts/test-on-demand.sh catch2v3   the suite against Catch2 v3 (Debian 12 ships v2)
#   scripts/test-on-demand.sh browser    handoff-check report --html in headless Chromium
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
jobs="${HANDOFF_JOBS:-2}"

# Catch2 v3, which Debian 12 does not ship: the suite built (unoptimised) and run against the
# source of Catch2 3.7.1 that Debian 13 packages, fetched from the Debian archive and checked
# against the SHA-256 its Sources index gives. It proves tests/support/catch.hpp's v3 path and
# the FetchContent fallback of tests/CMakeLists.txt. On demand only: it downloads, and builds
# Catch2 and the suite again (about ten minutes on two cores).
stage_catch2v3() {
  local dir="build/catch2-v3" version=3.7.1
  local url="http://deb.debian.org/debian/pool/main/c/catch2/catch2_$version.orig.tar.gz"
  local sha256=c991b247a1a0d7bb9c39aa35faf0fe9e19764213f28ffba3109388e62ee0269c
  echo "== stage catch2v3: the suite against Catch2 $version, $dir"
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
  local dir="build/browser"
  echo "== stage browser: handoff-check report --html in headless Chromium, $dir"
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

(($# > 0)) || { sed -n '2,5p' "$0" >&2 && exit 2; }
for stage in "$@"; do
  declare -F "stage_$stage" >/dev/null || { echo "test-on-demand.sh: unknown check '$stage'" >&2 && exit 2; }
  "stage_$stage"
done
