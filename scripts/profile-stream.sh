#!/usr/bin/env bash
# What checking a complete reply as it streams costs against receive, taken apart into the two
# things its time is made of: instructions and mispredicted branches, per reply, under
# Valgrind's cachegrind (a simulated branch predictor: figures that move by a few percent at
# most between runs, however loaded the machine). The kit's streaming table (scripts/bench.sh)
# gives the time; a change to the stream that cuts instructions but adds mispredictions can
# still be slower, and this shows which. Prints figures; never fails on them.
#
#   scripts/profile-stream.sh                        every corpus scripts/bench.sh wrote
#   scripts/profile-stream.sh NAME=JSONL:SCHEMA...   these corpora (one JSON envelope a line)
#
#   HANDOFF_BENCH_DIR=DIR   the kit's build directory (default: build/bench); run
#                           scripts/bench.sh --quick once first, which builds it and writes the
#                           corpus
#   HANDOFF_PROFILE_CHUNK=N bytes a push for the chunked stream (default: 32, the kit's)
#
# Each contestant runs over the first 100 and then the first 300 envelopes of a corpus (the
# same 1000 loaded both times); per reply is the difference divided by 200, so that loading
# and compiling the schema cancel out.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dir="${HANDOFF_BENCH_DIR:-$root/build/bench}"
chunk="${HANDOFF_PROFILE_CHUNK:-32}"

if ! command -v valgrind >/dev/null; then
  apt-get update && apt-get install -y valgrind
fi
if [[ ! -f "$dir/CMakeCache.txt" || ! -d "$dir/bench-corpus" ]]; then
  echo "profile-stream.sh: no kit in $dir: run scripts/bench.sh --quick first" >&2
  exit 2
fi
cmake --build "$dir" -j"${HANDOFF_JOBS:-2}" --target handoff_bench_stream >/dev/null
program="$dir/tests/bench/handoff_bench_stream"

specs=("$@")
if ((${#specs[@]} == 0)); then
  corpus="$dir/bench-corpus"
  specs=("small=$corpus/small.jsonl:$corpus/task.schema.json" "large=$corpus/large.jsonl:$corpus/task.schema.json")
  for file in "$corpus"/kit-*.jsonl; do
    name="$(basename "$file" .jsonl)"
    specs+=("$name=$file:$corpus/task.$name.schema.json")
  done
fi

# Instructions and mispredicted branches (conditional and indirect) of one run, as "IR MISS".
measure() { # contestant spec count
  valgrind --tool=cachegrind --cache-sim=no --branch-sim=yes --cachegrind-out-file=/dev/null \
    "$program" --profile "$1" --corpus "$2" --count "$3" --chunk "$chunk" 2>&1 >/dev/null |
    awk '/I +refs:/ { gsub(",", "", $4); ir = $4 }
         /Mispredicts:/ { gsub(",", "", $3); miss = $3 }
         END { if (ir == "" || miss == "") exit 1; print ir, miss }'
}

printf '%-16s %-9s %13s %9s %13s %9s\n' corpus contestant "instructions" ratio "mispredicts" ratio
for spec in "${specs[@]}"; do
  name="${spec%%=*}"
  base_ir=0 base_miss=0
  for contestant in receive one-push stream; do
    fewer="$(measure "$contestant" "$spec" 100)"
    more="$(measure "$contestant" "$spec" 300)"
    read -r ir100 miss100 <<<"$fewer"
    read -r ir300 miss300 <<<"$more"
    ir=$(((ir300 - ir100) / 200))
    miss=$(((miss300 - miss100) / 200))
    if [[ "$contestant" == receive ]]; then
      base_ir=$ir base_miss=$miss
    fi
    label="$contestant"
    [[ "$contestant" == stream ]] && label="${chunk}-B"
    awk -v n="$name" -v c="$label" -v ir="$ir" -v m="$miss" -v bi="$base_ir" -v bm="$base_miss" \
      'BEGIN { printf "%-16s %-9s %13d %8.2fx %13d %8.2fx\n", n, c, ir, ir / bi, m, m / bm }'
  done
done
