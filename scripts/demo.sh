#!/usr/bin/env bash
# Builds and runs the worked example (three capped runs of 40 product records).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

bash scripts/install-deps.sh
cmake -S . -B build/demo -DCMAKE_BUILD_TYPE=Release -DHANDOFF_BUILD_TESTS=OFF -DHANDOFF_BUILD_EXAMPLES=ON >/dev/null
cmake --build build/demo -j"${HANDOFF_JOBS:-2}" --target worked_example
echo
exec build/demo/examples/worked_example
