#!/usr/bin/env bash
# Installs what building and testing handoff needs, from Debian's packages (Debian 12).
# Idempotent: does nothing, not even `apt-get update`, when everything is installed.
#
#   scripts/install-deps.sh              the packages below
#   scripts/install-deps.sh PACKAGE...   these instead (the benchmark kit's and the profiler's),
#                                        installed the same way when missing
set -euo pipefail

build_and_test=(
  cmake g++ make pkg-config           # toolchain; pkg-config for the pkg-config consumer test
  ninja-build                         # the generator scripts/test.sh uses
  nlohmann-json3-dev libvalijson-dev  # the library (nlohmann) and the tests' oracle (valijson)
  libcli11-dev                        # handoff-check's command line (CMake fetches CLI11 without it)
  unicode-data                        # the Unicode Character Database: generate-unicode-tables.py --check
  catch2                              # tests (Debian ships Catch2 v2)
  libbenchmark-dev                    # the benchmark kit, compiled (not run) by the gcc20 stage
  clang libclang-rt-14-dev            # clang++ stages; clang's sanitizer and libFuzzer runtimes
  clang-format clang-tidy             # scripts/test.sh lint
  llvm-14                             # llvm-symbolizer: sanitizer reports with file:line
  ccache                              # compiler cache: scripts/test.sh compiles through it
)
if (($# > 0)); then
  packages=("$@")
else
  packages=("${build_and_test[@]}")
fi

if ! command -v dpkg-query >/dev/null 2>&1; then
  echo "install-deps: not a Debian system; install the equivalents of: ${packages[*]}" >&2
  exit 1
fi

missing=()
for pkg in "${packages[@]}"; do
  if [[ "$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)" != "install ok installed" ]]; then
    missing+=("$pkg")
  fi
done
# node and npm run the provider SDKs' differential test (tests/providers): a nodejs package that
# brings its own npm (as this machine image's does) serves; otherwise Debian's are added.
if (($# == 0)) && ! command -v npm >/dev/null 2>&1; then
  missing+=(nodejs npm)
fi

if ((${#missing[@]} == 0)); then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
as_root=()
if [[ "$(id -u)" -ne 0 ]]; then
  if command -v sudo >/dev/null 2>&1; then
    as_root=(sudo)
  else
    echo "install-deps: not root and no sudo; as root run:" >&2
    echo "  apt-get update && apt-get install -y --no-install-recommends ${missing[*]}" >&2
    exit 1
  fi
fi

"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive \
  apt-get install -y --no-install-recommends "${missing[@]}"
