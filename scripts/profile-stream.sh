#!/usr/bin/env bash
# What checking a complete reply as it streams costs against receive, taken apart into the two
# things its time is made of: instructions and mispredicted branches, per reply, under
# Valgrind's cachegrind (a simulated branch predictor: one build gives the same figures run
# after run, however loaded the machine; a rebuild that moves code can shift the mispredicts
# by several percent, receive's too). The kit's streaming table (scripts/bench.sh) gives the
# time; a change to the stream that cuts instructions but adds mispredictions can still be
# slower, and this shows which. Prints figures; never fails on them.
#
#   scripts/profile-stream.sh                        every corpus scripts/bench.sh wrote
#   scripts/profile-stream.sh NAME=JSONL:SCHEMA...   these corpora (one JSON envelope a line,
#                                                    as many as `more` below at least)
#
#   HANDOFF_BENCH_DIR=DIR   the kit's build directory (default: build/bench); run
#                           scripts/bench.sh --quick once first, which builds it and writes the
#                           corpus
#   HANDOFF_PROFILE_CHUNK=N bytes a push for the chunked stream (default: 32, the kit's)
#
# A run that fails stops the script.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dir="${HANDOFF_BENCH_DIR:-$root/build/bench}"
chunk="${HANDOFF_PROFILE_CHUNK:-32}"
# Each contestant runs over the first `fewer` envelopes of a corpus, then over the first `more`
# (at most 1000: handoff_bench_stream --profile loads the first 1000 both times): per reply is
# the difference of the two runs divided by the difference of the counts, so that loading the
# corpus and compiling its schema cancel out.
fewer=100
more=300

bash "$root/scripts/install-deps.sh" valgrind
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
  local log
  if ! log="$(valgrind --tool=cachegrind --cache-sim=no --branch-sim=yes --cachegrind-out-file=/dev/null \
    "$program" --profile "$1" --corpus "$2" --count "$3" --chunk "$chunk" 2>&1 >/dev/null)"; then
    echo "profile-stream.sh: $1 over $2 failed:" >&2
    grep -v '^==' <<<"$log" >&2 # (the program's own words, without Valgrind's)
    return 1
  fi
  awk '/I +refs:/ { gsub(",", "", $4); ir = $4 }
       /Mispredicts:/ { gsub(",", "", $3); miss = $3 }
       END { if (ir == "" || miss == "") exit 1; print ir, miss }' <<<"$log"
}

printf '%-16s %-9s %13s %9s %13s %9s\n' corpus contestant "instructions" ratio "mispredicts" ratio
for spec in "${specs[@]}"; do
  name="${spec%%=*}"
  file="${spec#*=}"
  file="${file%%:*}"
  if [[ ! -f "$file" ]]; then
    echo "profile-stream.sh: no corpus file $file" >&2
    exit 2
  fi
  if (($(grep -c . "$file") < more)); then # (the kit reads the non-empty lines)
    echo "profile-stream.sh: $file holds fewer than $more envelopes" >&2
    exit 2
  fi
  base_ir=0 base_miss=0
  for contestant in receive one-push stream; do
    # (assigned first: a failing run in an assignment stops the script, one in <<< would not)
    on_fewer="$(measure "$contestant" "$spec" "$fewer")"
    on_more="$(measure "$contestant" "$spec" "$more")"
    read -r ir_fewer miss_fewer <<<"$on_fewer"
    read -r ir_more miss_more <<<"$on_more"
    ir=$(((ir_more - ir_fewer) / (more - fewer)))
    miss=$(((miss_more - miss_fewer) / (more - fewer)))
    if [[ "$contestant" == receive ]]; then
      base_ir=$ir base_miss=$miss
    fi
    label="$contestant"
    [[ "$contestant" == stream ]] && label="${chunk}-B"
    awk -v n="$name" -v c="$label" -v ir="$ir" -v m="$miss" -v bi="$base_ir" -v bm="$base_miss" \
      'BEGIN { printf "%-16s %-9s %13d %8.2fx %13d %8.2fx\n", n, c, ir, ir / bi, m, m / bm }'
  done
done
