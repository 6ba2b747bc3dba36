#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The side-by-side benchmark; scripts/bench.sh runs it after building.

In one run, on the same corpus (tests/bench/make_corpus.py):

1. In process. Every contestant is a long-lived worker that has loaded the corpus and
   compiled its schemas; the driver asks one worker at a time for one timed pass over one
   corpus size, rotating the order every round, for several rounds, and takes the median of
   each contestant's passes. Interleaving spreads the machine's drift (other jobs, frequency)
   over every contestant alike, so the ratios hold even when the absolute figures move.
   Each pass reports the CPU time the worker used (the ratios are taken on it: on a shared
   machine it is the time the contestant actually ran) and the wall time.
2. Whole processes: handoff-check --jsonl against each peer's own command over the corpus file,
   interleaved the same way; then peak RSS with the corpus streamed once and four times, to
   show memory stays flat.
3. Schema kits: handoff against AJV (Ajv2020) on task schemas as today's generators write them
   (make_corpus.py's kits: Pydantic-shaped, 2020-12 tuples, unevaluatedProperties), each with
   its own corpus, in process and as whole processes.
4. Streaming: handoff_bench_stream on the worked example and on the first envelopes of each
   corpus and kit: a complete reply pushed through stream_check in chunks (and in one push) and
   finished against receive, and on replies that go wrong the bytes read before the verdict
   (the generation an early stop saves).

Before anything is timed, every contestant's verdict on every envelope it checks (the step that
found the first problem, or none) is compared with handoff's: if any differs, the run stops with
the differences and reports no figures, since contestants doing different work measure nothing.
--kits-only runs part 3 alone.

Contestants: handoff's receive; the naive stack (nlohmann::json::parse, then valijson on the
envelope schema file and on the task schema, one Validator reused); Python jsonschema and
fastjsonschema (Debian packages); AJV on Node.js. Each does the full check: parse, envelope
schema, task schema, coverage arithmetic. A program that prints figures: it never fails on time,
only on differing verdicts.
"""

import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SIZES = ["small", "large"]


def log(*args):
    print(*args, file=sys.stderr, flush=True)


class Worker:
    """One contestant in serve mode: 'run NAME' in, one JSON line out."""

    def __init__(self, name, argv, env=None):
        self.name = name
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                     bufsize=1, env=env)
        ready = self.proc.stdout.readline()
        if not ready or not json.loads(ready).get("ready"):
            raise SystemExit("%s did not start: %r" % (name, ready))

    def run(self, size):
        self.proc.stdin.write("run %s\n" % size)
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise SystemExit("%s stopped" % self.name)
        return json.loads(line)

    def verdicts(self, corpus):
        """One letter per envelope the worker loaded: the first letter of the step that found a
        problem, 'v' when none did. Untimed."""
        self.proc.stdin.write("verdicts %s\n" % corpus)
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise SystemExit("%s stopped" % self.name)
        return json.loads(line)["verdicts"]

    def close(self):
        try:
            self.proc.stdin.write("quit\n")
            self.proc.stdin.close()
        except (BrokenPipeError, OSError):
            pass
        self.proc.wait(timeout=60)


def run_process(argv, stdin_files=None, env=None):
    """Runs argv to completion with stdout discarded; returns (wall seconds, CPU seconds, peak
    RSS KiB), CPU being user + system time of the process and all its threads.
    stdin_files: files concatenated into its stdin (the corpus streamed N times)."""
    start = time.perf_counter()
    feeder = None
    if stdin_files:
        proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, env=env)

        def feed():
            try:
                for path in stdin_files:
                    with open(path, "rb") as f:
                        while True:
                            chunk = f.read(1 << 20)
                            if not chunk:
                                break
                            proc.stdin.write(chunk)
                proc.stdin.close()
            except BrokenPipeError:
                pass

        feeder = threading.Thread(target=feed)
        feeder.start()
    else:
        proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - start
    if feeder:
        feeder.join()
    if proc.returncode not in (0, 1):
        raise SystemExit("%s exited with %d" % (argv[0], proc.returncode))
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss


def compare_verdicts(base_name, base, others, corpus):
    """Compares each contestant's verdicts on `corpus` with `base`'s, envelope by envelope.
    others: (name, letters, stride), the contestant having checked every stride-th envelope.
    Returns rows (name, checked, agreeing) and a description of the first disagreements."""
    rows, differences = [], []
    for name, letters, stride in others:
        expected = base[::stride]
        if len(expected) != len(letters):
            differences.append("%s checked %d envelopes of %s, %s %d" % (name, len(letters), corpus, base_name,
                                                                          len(expected)))
            rows.append((name, len(letters), 0))
            continue
        differing = [i for i, (a, b) in enumerate(zip(expected, letters)) if a != b]
        rows.append((name, len(letters), len(letters) - len(differing)))
        for i in differing[:5]:
            differences.append("%s, envelope %d (line %d): %s says %s, %s says %s" % (
                corpus, i * stride, i * stride + 1, base_name, VERDICT_NAMES[expected[i]], name,
                VERDICT_NAMES[letters[i]]))
    return rows, differences


# The verdict letters of the workers' "verdicts" command.
VERDICT_NAMES = {"v": "valid", "p": "parse", "e": "envelope_schema", "t": "task_schema", "c": "coverage",
                 "r": "route"}


def fail_on_differences(differences):
    """The contestants must do the same work: a benchmark of different verdicts measures nothing."""
    if differences:
        log("\nbench: THE CONTESTANTS' VERDICTS DIFFER:")
        for d in differences:
            log("  " + d)
        raise SystemExit("bench: verdicts differ (above); no figures are reported")


def paired_ratio(times, base_times):
    """The median of times[i] / base_times[i]: round i of a contestant against round i of handoff."""
    return statistics.median(t / b for t, b in zip(times, base_times))


def version_of(argv):
    try:
        return subprocess.run(argv, capture_output=True, text=True, timeout=30).stdout.strip().splitlines()[0]
    except (OSError, IndexError, subprocess.SubprocessError):
        return "?"


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "?"


def sample_file(src, dst, stride):
    with open(src, "rb") as f, open(dst, "wb") as out:
        for i, line in enumerate(f):
            if i % stride == 0:
                out.write(line)
    return dst


def fmt_us(x):
    return "%.1f" % x if x >= 10 else "%.2f" % x


def keyword_cost(args, check, ajv, node_env, envelope_schema, corpus_file, manifest):
    """Whole processes over the small corpus with each schema variant of make_corpus.py: the
    same schema with one keyword more, accepting the same envelopes. Returns one row per
    command: CPU us per envelope per variant, and each variant's cost as the median of the
    per-round ratios to the plain schema (interleaved like the other tables)."""
    variants = manifest.get("schema_variants", [])
    if "plain" not in variants:
        return []
    variants = ["plain"] + [v for v in variants if v != "plain"]
    schema = lambda v: os.path.join(args.corpus, "task.%s.schema.json" % v)
    commands = [
        ("handoff-check --jsonl", lambda v: [check, "--jsonl", "--task-schema", schema(v), corpus_file], None),
        ("AJV (Node.js)", lambda v: ajv + ["--envelope-schema", envelope_schema, "--task-schema", schema(v),
                                           "--stream", corpus_file], node_env),
    ]
    n = manifest["sizes"]["small"]["envelopes"]
    cpus = {(name, v): [] for name, _, _ in commands for v in variants}
    for r in range(args.process_rounds):
        for name, argv, env in commands[r % 2:] + commands[:r % 2]:
            for v in (variants if r % 2 == 0 else variants[::-1]):
                _, cpu, _ = run_process(argv(v), env=env)
                cpus[(name, v)].append(cpu * 1e6 / n)
        log("keyword-cost round %d/%d done" % (r + 1, args.process_rounds))
    rows = []
    for name, _, _ in commands:
        row = {"name": name, "variants": {}}
        for v in variants:
            row["variants"][v] = {"cpu_us": statistics.median(cpus[(name, v)]),
                                  "vs_plain": paired_ratio(cpus[(name, v)], cpus[(name, "plain")])}
        rows.append(row)
    handoff_row = rows[0]["variants"]
    for v in variants:
        rows[1]["variants"][v]["vs_handoff"] = paired_ratio(cpus[("AJV (Node.js)", v)],
                                                            cpus[("handoff-check --jsonl", v)])
        handoff_row[v]["vs_handoff"] = 1.0
    return rows


def keyword_cost_lines(rows, rounds):
    if not rows:
        return []
    variants = list(rows[0]["variants"])
    lines = ["", "**Keyword cost** (whole processes over the small corpus, median of %d interleaved runs): the "
             "product-records schema plain, then with one keyword more that accepts the same envelopes. CPU "
             "microseconds per envelope; in brackets the cost against the plain schema (median of per-round "
             "ratios), and for AJV its time against handoff-check's with the same schema:" % rounds, ""]
    lines.append("| command | " + " | ".join("`%s`" % v if v != "plain" else "plain" for v in variants) + " |")
    lines.append("|---|" + "---:|" * len(variants))
    for row in rows:
        cells = []
        for v in variants:
            c = row["variants"][v]
            extra = "" if v == "plain" else " (%.2fx)" % c["vs_plain"]
            if row["name"].startswith("AJV"):
                extra += " [%.2fx handoff]" % c["vs_handoff"]
            cells.append(fmt_us(c["cpu_us"]) + extra)
        lines.append("| %s | %s |" % (row["name"], " | ".join(cells)))
    lines.append("")
    lines.append("Variants: `multipleOf` 1 on `quantity`; `pattern` `^[A-Z0-9-]{4,20}$` on `sku` (no `maxLength` "
                 "beside it but the schema's 32); `patternProperties` `^x-` on each record.")
    return lines


def schema_kits(args, compare, check, ajv, node_env, envelope_schema, manifest):
    """handoff against AJV (Ajv2020 for the 2020-12 task schemas) on each schema kit of
    make_corpus.py, in process (one long-lived worker each, interleaved rounds, verdicts compared
    envelope by envelope first) and as whole processes. One row per kit."""
    rows = []
    for kit, info in sorted(manifest.get("kits", {}).items()):
        corpus = os.path.join(args.corpus, info["file"])
        schemas = ["--envelope-schema", envelope_schema, "--task-schema", os.path.join(args.corpus, info["schema"])]
        ajv_kit = ajv + schemas + ["--task-dialect", info["dialect"]]
        # The third worker is receive without a task schema, the fourth the copy and free of
        # partial_result's DOM alone: timed beside the others, never compared (they judge less),
        # so the report shows what step 3 is added to, and what any receive returning that DOM pays.
        workers = [Worker("handoff receive", [compare, "--contestant", "handoff"] + schemas + ["--serve", "kit=" + corpus]),
                   Worker("AJV (Node.js)", ajv_kit + ["--serve", "kit=" + corpus], node_env),
                   Worker("handoff steps 1-2", [compare, "--contestant", "envelope-only"] + schemas +
                          ["--serve", "kit=" + corpus]),
                   Worker("DOM alone", [compare, "--contestant", "dom-only"] + schemas + ["--serve", "kit=" + corpus])]
        for w in workers:  # warm-up pass, not counted
            w.run("kit")
        _, differences = compare_verdicts(workers[0].name, workers[0].verdicts("kit"),
                                          [(workers[1].name, workers[1].verdicts("kit"), 1)], "kit-" + kit)
        if differences:
            for w in workers:
                w.close()
            fail_on_differences(differences)
        cpu = {w.name: [] for w in workers}
        for r in range(args.rounds):
            for w in workers[r % len(workers):] + workers[:r % len(workers)]:  # each first in turn
                cpu[w.name].append(w.run("kit")["cpu_us_per_envelope"])
        for w in workers:
            w.close()
        handoff_cpu, ajv_cpu, steps12_cpu = cpu["handoff receive"], cpu["AJV (Node.js)"], cpu["handoff steps 1-2"]
        dom_cpu = cpu["DOM alone"]
        row = {"kit": kit, "envelopes": info["envelopes"], "mean_bytes": info["mean_bytes"],
               "handoff": statistics.median(handoff_cpu), "ajv": statistics.median(ajv_cpu),
               "ajv_vs_handoff": paired_ratio(ajv_cpu, handoff_cpu),
               "steps12": statistics.median(steps12_cpu), "ajv_vs_steps12": paired_ratio(ajv_cpu, steps12_cpu),
               "dom": statistics.median(dom_cpu), "ajv_vs_dom": paired_ratio(ajv_cpu, dom_cpu)}
        if not args.skip_process:
            commands = [("handoff-check", [check, "--jsonl", "--task-schema", schemas[3], corpus], None),
                        ("AJV", ajv_kit + ["--stream", corpus], node_env)]
            process_cpu = {name: [] for name, _, _ in commands}
            for r in range(args.process_rounds):
                for name, argv, env in (commands if r % 2 == 0 else commands[::-1]):
                    _, used, _ = run_process(argv, env=env)
                    process_cpu[name].append(used * 1e6 / info["envelopes"])
            row.update(process_handoff=statistics.median(process_cpu["handoff-check"]),
                       process_ajv=statistics.median(process_cpu["AJV"]),
                       process_ajv_vs_handoff=paired_ratio(process_cpu["AJV"], process_cpu["handoff-check"]))
        rows.append(row)
        log("schema kit %s: handoff %s us, AJV %s us in process (verdicts agree on %d envelopes)" % (
            kit, fmt_us(row["handoff"]), fmt_us(row["ajv"]), info["envelopes"]))
    return rows


KIT_DESCRIPTIONS = {
    "pydantic": "Pydantic-shaped (no `$schema`; `$defs` + `$ref`, `anyOf` with null, a `oneOf` of three "
                "payments told apart by `const`, an enum of 40 countries, patterns)",
    "tuple": "2020-12 tuples (`prefixItems` with `items: false`, readings of four positions)",
    "unevaluated": "2020-12 `unevaluatedProperties` (a `$ref`'d base extended by `properties` and "
                   "`patternProperties`, closed)",
}


def schema_kit_lines(rows, rounds, process_rounds):
    if not rows:
        return []
    whole = "process_handoff" in rows[0]
    lines = ["", "**Schemas as today's generators write them**, handoff against AJV's `Ajv2020` (the corpus of each "
             "kit: envelopes around its results, about 10%% breaking its task schema; the two contestants' verdicts "
             "compared envelope by envelope first). CPU microseconds per envelope, medians of %d interleaved passes "
             "in process%s; AJV's time as a multiple of handoff's (median of per-round ratios):"
             % (rounds, " and %d whole-process runs" % process_rounds if whole else ""), "",
             "*Steps 1-2 alone* is receive on the same corpus with no task schema: the envelope read and "
             "checked, partial_result built as the `nlohmann::json` DOM a receipt returns and freed, step 3 "
             "skipped. It is the floor under the full check: step 3 is added to it, and AJV / steps 1-2 is the "
             "most any validator returning that DOM could reach against AJV with the reader it has. *DOM alone* "
             "reads and judges nothing: partial_result's `nlohmann::json`, parsed before the timing, copied and "
             "freed, which allocates and frees exactly its nodes. Whatever reads the text and judges it, a "
             "receive that returns that DOM pays at least this, and AJV / DOM alone bounds its speed against "
             "AJV (AJV's own DOM is JavaScript's, allocated by the garbage collector).", ""]
    header = ("| schema | in process: handoff | AJV | AJV / handoff | steps 1-2 alone | AJV / steps 1-2 "
              "| DOM alone | AJV / DOM alone |")
    rule = "|---|---:|---:|---:|---:|---:|---:|---:|"
    if whole:
        header += " whole process: handoff-check | AJV | AJV / handoff-check |"
        rule += "---:|---:|---:|"
    lines += [header, rule]
    for row in rows:
        cells = [KIT_DESCRIPTIONS.get(row["kit"], row["kit"]) + ", %d B" % row["mean_bytes"], fmt_us(row["handoff"]),
                 fmt_us(row["ajv"]), "%.2fx" % row["ajv_vs_handoff"], fmt_us(row["steps12"]),
                 "%.2fx" % row["ajv_vs_steps12"], fmt_us(row["dom"]), "%.2fx" % row["ajv_vs_dom"]]
        if whole:
            cells += [fmt_us(row["process_handoff"]), fmt_us(row["process_ajv"]), "%.2fx" % row["process_ajv_vs_handoff"]]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def streaming(args, manifest):
    """handoff_bench_stream's figures (JSON) on the worked example, the corpus and the kits."""
    program = os.path.join(args.build, "tests", "bench", "handoff_bench_stream")
    argv = [program, "--json", "--count", str(args.stream_count), "--rounds", str(args.rounds)]
    task_schema = os.path.join(args.corpus, "task.schema.json")
    for size in SIZES:
        argv += ["--corpus", "%s=%s:%s" % (size, os.path.join(args.corpus, size + ".jsonl"), task_schema)]
    for kit, info in sorted(manifest.get("kits", {}).items()):
        argv += ["--corpus", "kit %s=%s:%s" % (kit, os.path.join(args.corpus, info["file"]),
                                               os.path.join(args.corpus, info["schema"]))]
    log("streaming: %s" % " ".join(argv[:6]))
    return json.loads(subprocess.run(argv, check=True, capture_output=True, text=True).stdout)


def streaming_lines(figures):
    if not figures:
        return []
    lines = ["", "**Streaming** (`stream_check`, handoff_bench_stream): a complete reply pushed in %d-byte chunks "
             "and finished, against `receive` on the whole text (CPU microseconds per reply, median of %d "
             "interleaved passes; the ratio is the median of the per-pass ratios). The last two columns push "
             "the whole reply at once: the difference is what taking the reply in pieces costs, each push "
             "resuming the reading where the last one stopped:" % (figures["chunk"], figures["rounds"]), ""]
    lines.append("| replies | count | mean bytes | receive | stream + finish | ratio | one push | ratio |")
    lines.append("|---|---:|---:|---:|---:|---:|---:|---:|")
    for row in figures["complete"]:
        lines.append("| %s | %d | %d | %s | %s | %.2fx | %s | %.2fx |" % (
            row["name"], row["replies"], row["mean_bytes"], fmt_us(row["receive_us"]), fmt_us(row["stream_us"]),
            row["ratio"], fmt_us(row["one_push_us"]), row["one_push_ratio"]))
    lines += ["", "Replies that go wrong, pushed until the verdict: the bytes read before it against the whole "
              "reply (means; the output an early stop saves generating), and the CPU time to the verdict against "
              "`receive` on the whole text. The first rows change one thing in a 400-record reply; the corpus rows "
              "are each corpus's envelopes that fail steps 1 to 3 (a coverage failure is not streamed):", ""]
    lines.append("| replies | count | doomed | mean bytes | read before the verdict | saved | to the verdict | receive |")
    lines.append("|---|---:|---:|---:|---:|---:|---:|---:|")
    for row in figures["wrong"]:
        lines.append("| %s | %d | %d | %d | %d | %.1f%% | %s | %s |" % (
            row["name"], row["replies"], row["doomed"], row["mean_bytes"], row["mean_read"], row["saved_percent"],
            fmt_us(row["stream_us"]), fmt_us(row["receive_us"])))
    return lines


def main():
    ap = argparse.ArgumentParser(description="handoff's side-by-side benchmark")
    ap.add_argument("--build", required=True, help="the CMake build directory (Release, benchmarks on)")
    ap.add_argument("--corpus", required=True, help="the corpus directory (make_corpus.py --out)")
    ap.add_argument("--ajv-dir", required=True, help="where npm installed ajv")
    ap.add_argument("--out", required=True, help="the markdown report to write")
    ap.add_argument("--rounds", type=int, default=5, help="interleaved rounds in process (5)")
    ap.add_argument("--process-rounds", type=int, default=5, help="interleaved whole-process rounds (5)")
    ap.add_argument("--jsonschema-stride", type=int, default=10,
                    help="jsonschema checks every Nth envelope (it is ~100x slower) (10)")
    ap.add_argument("--python", default="/usr/bin/python3", help="the Python with Debian's packages")
    ap.add_argument("--node", default="node")
    ap.add_argument("--skip-process", action="store_true", help="only the in-process comparison")
    ap.add_argument("--kits-only", action="store_true", help="only the schema kits (handoff against AJV)")
    ap.add_argument("--stream-count", type=int, default=2000,
                    help="envelopes of each corpus the streaming figures read (2000)")
    args = ap.parse_args()

    envelope_schema = os.path.join(ROOT, "schemas", "envelope.schema.json")
    task_schema = os.path.join(args.corpus, "task.schema.json")
    with open(os.path.join(args.corpus, "manifest.json")) as f:
        manifest = json.load(f)
    files = {size: os.path.join(args.corpus, size + ".jsonl") for size in SIZES}
    compare = os.path.join(args.build, "tests", "bench", "handoff_bench_compare")
    check = os.path.join(args.build, "tools", "handoff-check")
    node_env = dict(os.environ, AJV_DIR=args.ajv_dir)
    schemas = ["--envelope-schema", envelope_schema, "--task-schema", task_schema]
    serve = ["--serve"] + ["%s=%s" % (size, files[size]) for size in SIZES]
    py = [args.python, os.path.join(HERE, "peer_python.py")]
    ajv = [args.node, os.path.join(HERE, "peer_ajv.js")]
    stride = str(args.jsonschema_stride)
    if args.kits_only:
        kit_rows = schema_kits(args, compare, check, ajv, node_env, envelope_schema, manifest)
        report = "\n".join(schema_kit_lines(kit_rows, args.rounds, args.process_rounds)).strip() + "\n"
        with open(args.out, "w") as f:
            f.write(report)
        print(report)
        return

    contestants = [
        ("handoff receive", [compare, "--contestant", "handoff"] + schemas + serve, None),
        ("naive (nlohmann + valijson)", [compare, "--contestant", "naive"] + schemas + serve, None),
        ("fastjsonschema (Python)", py + ["--impl", "fastjsonschema"] + schemas + serve, None),
        ("jsonschema (Python)", py + ["--impl", "jsonschema", "--stride", stride] + schemas + serve, None),
        ("AJV (Node.js)", ajv + schemas + serve, node_env),
    ]
    load_before = os.getloadavg()
    started = datetime.datetime.now(datetime.timezone.utc)

    # --- 1. in process, interleaved ---------------------------------------------------------
    log("starting %d workers (each loads the corpus)..." % len(contestants))
    workers = [Worker(name, argv, env) for name, argv, env in contestants]
    results = {w.name: {size: [] for size in SIZES} for w in workers}
    wall_results = {w.name: {size: [] for size in SIZES} for w in workers}
    verdicts = {w.name: {} for w in workers}
    for w in workers:  # warm-up pass (caches, JITs), not counted
        for size in SIZES:
            w.run(size)
    agreement = {}
    differences = []
    strides = {name: (args.jsonschema_stride if name.startswith("jsonschema") else 1) for name, _, _ in contestants}
    for size in SIZES:
        base = workers[0].verdicts(size)
        rows, found = compare_verdicts(workers[0].name, base,
                                       [(w.name, w.verdicts(size), strides[w.name]) for w in workers[1:]], size)
        agreement[size] = dict((name, (checked, agreeing)) for name, checked, agreeing in rows)
        agreement[size][workers[0].name] = (len(base), len(base))
        differences += found
    fail_on_differences(differences)
    log("verdicts: every contestant agrees with %s on every envelope it checked" % workers[0].name)
    for r in range(args.rounds):
        order = workers[r % len(workers):] + workers[:r % len(workers)]
        for w in order:
            for size in (SIZES if r % 2 == 0 else SIZES[::-1]):
                out = w.run(size)
                results[w.name][size].append(out["cpu_us_per_envelope"])
                wall_results[w.name][size].append(out["us_per_envelope"])
                verdicts[w.name][size] = out
        log("round %d/%d (CPU us): %s" % (r + 1, args.rounds, ", ".join(
            "%s %s" % (w.name.split(" ")[0], "/".join(fmt_us(results[w.name][s][-1]) for s in SIZES))
            for w in workers)))
    for w in workers:
        w.close()
    medians = {name: {size: statistics.median(v[size]) for size in SIZES} for name, v in results.items()}
    wall_medians = {name: {size: statistics.median(v[size]) for size in SIZES} for name, v in wall_results.items()}
    # A ratio is the median of per-round ratios: each round runs every contestant back to back,
    # so a machine whose speed drifts during the run (a shared VM does) skews no contestant.
    ratios = {name: {size: paired_ratio(v[size], results["handoff receive"][size]) for size in SIZES}
              for name, v in results.items()}

    # --- 2. whole processes -----------------------------------------------------------------
    process_rows = []
    memory_rows = []
    if not args.skip_process:
        sampled = {size: sample_file(files[size], os.path.join(args.corpus, size + ".sample.jsonl"),
                                     args.jsonschema_stride) for size in SIZES}
        commands = [
            ("handoff-check --jsonl", lambda f: [check, "--jsonl", "--task-schema", task_schema, f], None, False),
            ("naive (nlohmann + valijson)", lambda f: [compare, "--contestant", "naive"] + schemas + ["--stream", f],
             None, False),
            ("fastjsonschema (Python)", lambda f: py + ["--impl", "fastjsonschema"] + schemas + ["--stream", f],
             None, False),
            ("jsonschema (Python)", lambda f: py + ["--impl", "jsonschema"] + schemas + ["--stream", f], None, True),
            ("AJV (Node.js)", lambda f: ajv + schemas + ["--stream", f], node_env, False),
        ]
        counts = {size: manifest["sizes"][size]["envelopes"] for size in SIZES}
        walls = {name: {size: [] for size in SIZES} for name, _, _, _ in commands}
        cpus = {name: {size: [] for size in SIZES} for name, _, _, _ in commands}
        rss = {name: {} for name, _, _, _ in commands}
        for r in range(args.process_rounds):
            order = commands[r % len(commands):] + commands[:r % len(commands)]
            for name, argv, env, sample in order:
                for size in SIZES:
                    path = sampled[size] if sample else files[size]
                    n = (counts[size] + args.jsonschema_stride - 1) // args.jsonschema_stride if sample else counts[size]
                    wall, cpu, peak = run_process(argv(path), env=env)
                    walls[name][size].append(wall * 1e6 / n)
                    cpus[name][size].append(cpu * 1e6 / n)
                    rss[name][size] = peak
            log("process round %d/%d done" % (r + 1, args.process_rounds))
        for name, _, _, sample in commands:
            row = {"name": name, "sample": sample}
            for size in SIZES:
                row[size] = statistics.median(cpus[name][size])
                row[size + "_ratio"] = paired_ratio(cpus[name][size], cpus["handoff-check --jsonl"][size])
                row[size + "_wall"] = statistics.median(walls[name][size])
                row[size + "_wall_ratio"] = paired_ratio(walls[name][size], walls["handoff-check --jsonl"][size])
                row[size + "_rss"] = rss[name][size]
            process_rows.append(row)
        # Peak RSS with the corpus streamed through stdin once and four times.
        for name, argv, env, sample in commands:
            row = {"name": name}
            for size in SIZES:
                path = sampled[size] if sample else files[size]
                _, _, one = run_process(argv("-"), stdin_files=[path], env=env)
                _, _, four = run_process(argv("-"), stdin_files=[path] * 4, env=env)
                row[size] = (one, four)
            memory_rows.append(row)
            log("memory: %s done" % name)
        keyword_rows = keyword_cost(args, check, ajv, node_env, envelope_schema, files["small"], manifest)
    else:
        keyword_rows = []
    kit_rows = schema_kits(args, compare, check, ajv, node_env, envelope_schema, manifest)
    stream_figures = streaming(args, manifest)
    load_after = os.getloadavg()

    # --- report -----------------------------------------------------------------------------
    sizes = manifest["sizes"]

    def invalid_share(size):
        s = sizes[size]
        return 100.0 * (s["envelopes"] - s["categories"].get("valid", 0)) / s["envelopes"]

    lines = []
    lines.append("Measured %s on %s (%d cores), load average %.1f / %.1f / %.1f before and %.1f / %.1f / %.1f "
                 "after. Corpus: %d envelopes per size (seed %d), small ~%d B, large ~%d B, %.0f%% / %.0f%% invalid."
                 % (started.strftime("%Y-%m-%d %H:%M UTC"), cpu_model(), os.cpu_count() or 0, *load_before,
                    *load_after, sizes["small"]["envelopes"], manifest["seed"], sizes["small"]["mean_bytes"],
                    sizes["large"]["mean_bytes"], invalid_share("small"), invalid_share("large")))
    lines.append("")
    lines.append("**In process** (median of %d interleaved passes over the corpus; CPU microseconds per envelope, "
                 "then how many times handoff's time, as the median of the per-pass ratios; wall-clock medians of "
                 "the same passes at the right):" % args.rounds)
    lines.append("")
    lines.append("| contestant | small | large | small vs handoff | large vs handoff | wall small / large |")
    lines.append("|---|---:|---:|---:|---:|---:|")
    for name in results:
        m = medians[name]
        w = wall_medians[name]
        lines.append("| %s%s | %s | %s | %.2fx | %.2fx | %s / %s |" % (
            name, " (every %sth)" % stride if name.startswith("jsonschema") else "", fmt_us(m["small"]),
            fmt_us(m["large"]), ratios[name]["small"], ratios[name]["large"], fmt_us(w["small"]),
            fmt_us(w["large"])))
    lines.append("")
    lines.append("Verdicts, compared envelope by envelope with handoff's before the timing (the step that found "
                 "the first problem, or none; the run stops if any differs), so every contestant did the same work:")
    lines.append("")
    lines.append("| contestant | small: valid / checked | large: valid / checked | same verdict as handoff |")
    lines.append("|---|---:|---:|---:|")
    for name in results:
        v = verdicts[name]
        same = sum(agreement[size][name][1] for size in SIZES)
        checked = sum(agreement[size][name][0] for size in SIZES)
        lines.append("| %s | %d / %d | %d / %d | %d of %d |" % (
            name, v["small"]["steps"].get("valid", 0), v["small"]["envelopes"], v["large"]["steps"].get("valid", 0),
            v["large"]["envelopes"], same, checked))
    if process_rows:
        lines.append("")
        lines.append("**Whole processes** over the corpus file (median of %d interleaved runs; CPU microseconds "
                     "per envelope, start-up, schema compilation and one output line per envelope included; ratios "
                     "are medians of the per-round ratios; wall-clock ratios at the right):" % args.process_rounds)
        lines.append("")
        lines.append("| command | small | large | small vs handoff-check | large vs handoff-check | wall ratios |")
        lines.append("|---|---:|---:|---:|---:|---:|")
        for row in process_rows:
            lines.append("| %s%s | %s | %s | %.2fx | %.2fx | %.2fx / %.2fx |" % (
                row["name"], " (every %sth)" % stride if row["sample"] else "", fmt_us(row["small"]),
                fmt_us(row["large"]), row["small_ratio"], row["large_ratio"], row["small_wall_ratio"],
                row["large_wall_ratio"]))
        lines.append("")
        lines.append("**Peak RSS** (MiB) with the corpus streamed through stdin once and four times:")
        lines.append("")
        lines.append("| command | small 1x | small 4x | large 1x | large 4x |")
        lines.append("|---|---:|---:|---:|---:|")
        for row in memory_rows:
            lines.append("| %s | %.1f | %.1f | %.1f | %.1f |" % (
                row["name"], row["small"][0] / 1024, row["small"][1] / 1024, row["large"][0] / 1024,
                row["large"][1] / 1024))
    lines.extend(keyword_cost_lines(keyword_rows, args.process_rounds))
    lines.extend(schema_kit_lines(kit_rows, args.rounds, args.process_rounds))
    lines.extend(streaming_lines(stream_figures))
    lines.append("")
    lines.append("Versions: %s; Python %s, jsonschema %s, fastjsonschema %s; Node.js %s, ajv %s." % (
        version_of(["c++", "--version"]), version_of([args.python, "-c", "import sys; print(sys.version.split()[0])"]),
        version_of([args.python, "-c", "import importlib.metadata as m; print(m.version('jsonschema'))"]),
        version_of([args.python, "-c", "import fastjsonschema; print(fastjsonschema.VERSION)"]),
        version_of([args.node, "--version"]),
        version_of([args.node, "-e", "console.log(require(require('path').resolve(process.argv[1], "
                    "'node_modules/ajv/package.json')).version)", args.ajv_dir])))
    report = "\n".join(lines) + "\n"
    with open(args.out, "w") as f:
        f.write(report)
    with open(os.path.splitext(args.out)[0] + ".json", "w") as f:
        json.dump({"medians_cpu_us": medians, "ratios_cpu": ratios, "medians_wall_us": wall_medians, "passes_cpu_us": results,
                   "passes_wall_us": wall_results, "process": process_rows, "memory": memory_rows, "keyword_cost": keyword_rows, "schema_kits": kit_rows, "streaming": stream_figures,
                   "load_before": load_before, "load_after": load_after, "manifest": manifest}, f, indent=1)
    print(report)


if __name__ == "__main__":
    main()
