#!/usr/bin/env bash
# Builds and runs the worked example (seed 000's three runs).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

bash scripts/install-deps.sh
# Same configuration as scripts/test.sh, so the two share build/.
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release \
  -DHANDOFF_BUILD_TESTS=ON -DHANDOFF_BUILD_EXAMPLES=ON >/dev/null
cmake --build build -j"${HANDOFF_JOBS:-2}" --target worked_example
echo
exec build/examples/worked_example
