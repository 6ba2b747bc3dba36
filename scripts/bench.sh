#!/usr/bin/env bash
# The benchmark kit in one command. Installs what it needs (Debian packages, and AJV from npm
# into the build tree), builds Release with the benchmarks, writes the corpus, and runs
# handoff's receive side by side with the naive stack (nlohmann + valijson), Python jsonschema
# and fastjsonschema, and AJV, interleaved, in one run; then handoff against AJV on the schema
# kits (Pydantic-shaped, 2020-12 tuples, unevaluatedProperties); then what checking a reply as
# it streams costs against receive, and saves on replies that go wrong (handoff_bench_stream);
# then measures what including each public header costs to compile. Prints figures; never fails
# on time, but fails when the contestants' verdicts differ (run_bench.py compares them before
# timing anything).
#
#   scripts/bench.sh             20k envelopes per size, 5 rounds in process, 5 whole-process
#                                rounds, then the compile cost of each header
#   scripts/bench.sh --quick     2k envelopes, 3 rounds, 1 whole-process round, no compile cost
#   scripts/bench.sh --steps     also run the per-step Google Benchmark program
#   scripts/bench.sh --kits      only the schema kits, handoff against AJV (with --quick: a smoke run)
#   scripts/bench.sh --docs      also put the report into docs/performance.md, between the
#                                markers <!-- bench:begin --> and <!-- bench:end -->, and its
#                                first table into README.md, between <!-- bench:summary:begin -->
#                                and <!-- bench:summary:end -->
#
#   HANDOFF_BENCH_DIR=DIR        build directory (default: build/bench)
#   HANDOFF_JOBS=N               parallel compile jobs (default: 2)
#
# The report (docs/performance.md's) is written to DIR/bench-report.md and printed.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dir="${HANDOFF_BENCH_DIR:-$root/build/bench}"
jobs="${HANDOFF_JOBS:-2}"
count=20000
rounds=5
process_rounds=5
steps=0
docs=0
kits_only=0
include_cost=1
for arg in "$@"; do
  case "$arg" in
    --quick) count=2000 rounds=3 process_rounds=1 include_cost=0 ;;
    --kits) kits_only=1 include_cost=0 ;;
    --steps) steps=1 ;;
    --docs) docs=1 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 0 ;;
    *) echo "bench.sh: unknown argument $arg" >&2; exit 2 ;;
  esac
done

if ((kits_only && docs)); then
  echo "bench.sh: --docs takes the whole report; run it without --kits" >&2
  exit 2
fi

banner() { printf '\n==================== %s ====================\n' "$*"; }

# --- 1. Debian packages ------------------------------------------------------------------
banner "packages"
# libcli11-dev: the kit builds handoff-check, whose command line is CLI11 (offline, CMake
# could not fetch it).
packages=(cmake g++ make nlohmann-json3-dev libvalijson-dev libbenchmark-dev libcli11-dev
          python3 python3-jsonschema python3-fastjsonschema)
command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 || packages+=(nodejs npm)
bash "$root/scripts/install-deps.sh" "${packages[@]}"

# --- 2. AJV, into the build tree (never committed) ---------------------------------------
banner "ajv"
mkdir -p "$dir/node"
if [[ ! -f "$dir/node/node_modules/ajv/package.json" ]]; then
  npm install --prefix "$dir/node" --no-audit --no-fund --loglevel=error ajv@8
fi
node -e "console.log('ajv ' + require('$dir/node/node_modules/ajv/package.json').version)"

# --- 3. Release build of the contestants --------------------------------------------------
banner "build (Release, $dir)"
cmake -S "$root" -B "$dir" -DCMAKE_BUILD_TYPE=Release \
  -DHANDOFF_BUILD_BENCHMARKS=ON -DHANDOFF_BUILD_EXAMPLES=ON -DHANDOFF_BUILD_TESTS=OFF -DHANDOFF_INSTALL=OFF \
  -DHANDOFF_BENCH_CORPUS_DIR="$dir/bench-corpus" >/dev/null
cmake --build "$dir" -j"$jobs" --target handoff-check handoff_bench_compare handoff_bench_steps handoff_bench_stream

# --- 4. The corpus (deterministic: regenerated only when the count changes) ---------------
banner "corpus"
corpus="$dir/bench-corpus"
if ! python3 - "$corpus/manifest.json" "$count" <<'EOF' 2>/dev/null; then
import json, sys
m = json.load(open(sys.argv[1]))
sys.exit(0 if m["count"] == int(sys.argv[2]) and m["generator_version"] >= 3 else 1)
EOF
  python3 "$root/tests/bench/make_corpus.py" --out "$corpus" --count "$count"
else
  echo "bench.sh: corpus of $count envelopes per size already in $corpus"
fi

# --- 5. The side-by-side run ---------------------------------------------------------------
banner "side by side (load: $(cut -d' ' -f1-3 /proc/loadavg))"
run_bench_args=()
((kits_only)) && run_bench_args+=(--kits-only)
python3 "$root/tests/bench/run_bench.py" --build "$dir" --corpus "$corpus" --ajv-dir "$dir/node" \
  --rounds "$rounds" --process-rounds "$process_rounds" --out "$dir/bench-report.md" "${run_bench_args[@]}"

if ((steps)); then
  banner "each step (Google Benchmark)"
  HANDOFF_BENCH_CORPUS="$corpus" "$dir/tests/bench/handoff_bench_steps" --benchmark_counters_tabular=true
fi
if ((include_cost)); then
  banner "compile cost of each public header"
  python3 "$root/tests/bench/include_cost.py" --out "$dir/include-cost.md"
  { echo; cat "$dir/include-cost.md"; } >> "$dir/bench-report.md"
fi
echo "bench.sh: report written to $dir/bench-report.md"
if ((docs)); then
  python3 - "$root" "$dir/bench-report.md" <<'EOF'
import os, sys
root, report = sys.argv[1], open(sys.argv[2]).read().strip()

def put(name, marker, block):
    path = os.path.join(root, name)
    text = open(path).read()
    begin, end = "<!-- %s:begin -->" % marker, "<!-- %s:end -->" % marker
    if text.count(begin) != 1 or text.count(end) != 1 or text.index(begin) > text.index(end):
        sys.exit("bench.sh: %s needs one %s ... %s pair" % (name, begin, end))
    head, rest = text.split(begin)
    open(path, "w").write(head + begin + "\n" + block + "\n" + end + rest.split(end, 1)[1])

# The README shows the report's first table: its lines up to the first blank line after a row.
summary, in_table = [], False
for line in report.splitlines():
    if in_table and not line.strip():
        break
    in_table = in_table or line.startswith("|")
    summary.append(line)
put("docs/performance.md", "bench", report)
put("README.md", "bench:summary", "\n".join(summary))
EOF
  echo "bench.sh: docs/performance.md's report and README.md's table replaced by this run's"
fi
