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
#   HANDOFF_PROFILE_FUNCTIONS=N  also, under each corpus, the N functions whose mispredicts the
#                           chunked stream adds most to receive's, with both sides' instructions
#                           and mispredicts per reply (a function inlined into another counts
#                           as that one)
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

functions="${HANDOFF_PROFILE_FUNCTIONS:-0}"
if [[ ! "$functions" =~ ^[0-9]+$ ]]; then
  echo "profile-stream.sh: HANDOFF_PROFILE_FUNCTIONS must be a count, not '$functions'" >&2
  exit 2
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# Instructions and mispredicted branches (conditional and indirect) of one run, as "IR MISS";
# its per-function counts kept in $work/CONTESTANT.COUNT when functions are asked for.
measure() { # contestant spec count
  local log out=/dev/null
  if ((functions > 0)); then
    out="$work/$1.$3"
  fi
  if ! log="$(valgrind --tool=cachegrind --cache-sim=no --branch-sim=yes --cachegrind-out-file="$out" \
    "$program" --profile "$1" --corpus "$2" --count "$3" --chunk "$chunk" 2>&1 >/dev/null)"; then
    echo "profile-stream.sh: $1 over $2 failed:" >&2
    grep -v '^==' <<<"$log" >&2 # (the program's own words, without Valgrind's)
    return 1
  fi
  awk '/I +refs:/ { gsub(",", "", $4); ir = $4 }
       /Mispredicts:/ { gsub(",", "", $3); miss = $3 }
       END { if (ir == "" || miss == "") exit 1; print ir, miss }' <<<"$log"
}

# Per function, per reply: the instructions and mispredicts of a contestant's `more` run less its
# `fewer` run (cg_diff), divided by the difference of the counts, as "MISS IR NAME" lines.
per_function() { # contestant
  cg_diff "$work/$1.$fewer" "$work/$1.$more" |
    awk -v n=$((more - fewer)) '
      /^events:/ { for (i = 2; i <= NF; ++i) col[$i] = i - 1 }
      /^fn=/ { fn = substr($0, 4) }
      /^[0-9]/ { ir[fn] += $(col["Ir"] + 1); miss[fn] += $(col["Bcm"] + 1) + $(col["Bim"] + 1) }
      END { for (f in ir) printf "%.1f %.0f %s\n", miss[f] / n, ir[f] / n, f }'
}

# The functions the stream adds most mispredicts in, against receive, with both sides' figures
# (a function only one side runs counts 0 on the other).
print_functions() {
  per_function receive >"$work/receive.fn"
  per_function stream >"$work/stream.fn"
  printf '  %-70s %9s %9s %8s %8s\n' "function (${chunk}-B stream | receive)" "instr." "instr." "mispr." "mispr."
  awk '
    { f = substr($0, index($0, $3)) }
    NR == FNR { rm[f] = $1; ri[f] = $2; seen[f] = 1; next }
    { sm[f] = $1; si[f] = $2; seen[f] = 1 }
    END {
      for (f in seen) printf "%.1f\t%d\t%d\t%.1f\t%.1f\t%s\n", sm[f] - rm[f], si[f], ri[f], sm[f], rm[f], f
    }' "$work/receive.fn" "$work/stream.fn" | sort -t$'\t' -k1,1gr |
    # (awk reads to the end where head would stop early: a pipe cut short fails under pipefail)
    awk -F'\t' -v top="$functions" 'NR <= top {
      f = $6; gsub("handoff::detail::", "", f)
      printf "  %-70s %9d %9d %8.1f %8.1f\n", substr(f, 1, 70), $2, $3, $4, $5
    }'
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
  if ((functions > 0)); then
    print_functions
  fi
done
