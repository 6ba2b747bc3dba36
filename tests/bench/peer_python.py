#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Python contestants of the side-by-side benchmark: jsonschema and fastjsonschema.

Both do the full check that handoff's receive does, in the idiomatic way of each library:
json.loads (NaN and Infinity refused, as JSON requires), the envelope schema, the task schema
on partial_result when the worker claims schema_ok, then the coverage arithmetic. The
envelope and task schemas are compiled once.

  peer_python.py --impl jsonschema|fastjsonschema --envelope-schema F --task-schema F
                 [--stride K] --serve NAME=FILE...
      loads each corpus, then answers "run NAME" lines on stdin with one JSON line (the
      microseconds per envelope of one pass, and the verdicts), and "verdicts NAME" with one
      letter per envelope (verdict_letters), untimed.
  peer_python.py --impl ... --envelope-schema F --task-schema F --stream FILE|-
      a whole process: one JSON line per envelope on stdout.
"""

import argparse
import json
import sys
import time

FRACTION_TOLERANCE = 0.005 + 1e-9


def refuse_constant(name):
    raise ValueError("%s is not JSON" % name)


def make_validators(impl, envelope_schema, task_schema):
    """Returns two functions: document -> list of error messages ([] when valid)."""
    if impl == "jsonschema":
        import jsonschema

        def compile_one(schema):
            validator = jsonschema.Draft7Validator(schema)  # no format checker: formats ignored

            def errors(doc):
                if validator.is_valid(doc):
                    return []
                return [e.message for e in validator.iter_errors(doc)]

            return errors
    elif impl == "fastjsonschema":
        import fastjsonschema

        def compile_one(schema):
            validate = fastjsonschema.compile(schema)  # the draft comes from "$schema"

            def errors(doc):
                try:
                    validate(doc)
                    return []
                except fastjsonschema.JsonSchemaException as e:
                    return [e.message]

            return errors
    else:
        raise SystemExit("unknown --impl %s" % impl)
    return compile_one(envelope_schema), compile_one(task_schema)


def coverage_problems(doc):
    """SPEC section 3 step 4, as handoff's check_coverage does it."""
    c = doc["coverage"]
    expected, completed, fraction = c["items_expected"], c["items_completed"], c["fraction"]
    if completed > expected:
        return ["items_completed exceeds items_expected"]
    out = []
    if expected > 0:
        if abs(fraction - completed / expected) > FRACTION_TOLERANCE:
            out.append("fraction disagrees with items_completed / items_expected")
        if doc["status"] == "ok" and completed != expected:
            out.append("status ok but not every item is completed")
    elif doc["status"] == "ok" and abs(fraction - 1.0) > FRACTION_TOLERANCE:
        out.append("status ok with no counted items must report fraction 1")
    return out


def make_check(envelope_errors, task_errors):
    def check(text):
        """Returns (first failing step or "", problems)."""
        try:
            doc = json.loads(text, parse_constant=refuse_constant)
        except ValueError as e:
            return "parse", [str(e)]
        problems = envelope_errors(doc)
        if problems:
            return "envelope_schema", problems
        step = ""
        if doc["schema_ok"] and doc["partial_result"] is not None:
            problems = task_errors(doc["partial_result"])
            if problems:
                step = "task_schema"
        coverage = coverage_problems(doc)
        if coverage and not step:
            step = "coverage"
        return step, problems + coverage

    return check


def verdict_letters(check, lines):
    """One letter per envelope: the first letter of the step that found a problem, 'v' when none did."""
    out = []
    for text in lines:
        step, found = check(text)
        out.append(step[0] if found else "v")
    return "".join(out)


def serve(check, corpora, stride):
    loaded = {}
    for name, path in corpora.items():
        with open(path, encoding="utf-8") as f:
            loaded[name] = [line.rstrip("\n") for i, line in enumerate(f) if i % stride == 0 and line.strip()]
    print(json.dumps({"ready": True}), flush=True)
    for command in sys.stdin:
        command = command.strip()
        if command == "quit":
            break
        verdicts_asked = command.startswith("verdicts ")
        name = command[4:] if command.startswith("run ") else command[9:] if verdicts_asked else None
        if name not in loaded:
            print(json.dumps({"error": "unknown command"}), flush=True)
            continue
        if verdicts_asked:  # untimed: what run_bench.py compares across contestants
            print(json.dumps({"corpus": name, "verdicts": verdict_letters(check, loaded[name])}), flush=True)
            continue
        lines = loaded[name]
        steps = {}
        problems = 0
        cpu_start = time.process_time()
        start = time.perf_counter()
        for text in lines:
            step, found = check(text)
            steps[step] = steps.get(step, 0) + 1
            problems += len(found)
        elapsed = time.perf_counter() - start
        cpu = time.process_time() - cpu_start
        print(json.dumps({"corpus": name, "envelopes": len(lines),
                          "us_per_envelope": elapsed * 1e6 / len(lines),
                          "cpu_us_per_envelope": cpu * 1e6 / len(lines), "problems": problems,
                          "steps": {(k or "valid"): v for k, v in steps.items()}}), flush=True)


def stream(check, path):
    f = sys.stdin if path == "-" else open(path, encoding="utf-8")
    out = sys.stdout
    any_invalid = False
    for line in f:
        line = line.rstrip("\n")
        if not line:
            continue
        step, problems = check(line)
        any_invalid = any_invalid or bool(problems)
        out.write(json.dumps({"valid": not problems, "step": step, "problems": problems}) + "\n")
    return 1 if any_invalid else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--impl", required=True, choices=["jsonschema", "fastjsonschema"])
    ap.add_argument("--envelope-schema", required=True)
    ap.add_argument("--task-schema", required=True)
    ap.add_argument("--stride", type=int, default=1)
    ap.add_argument("--serve", nargs="*", default=[], metavar="NAME=FILE")
    ap.add_argument("--stream", metavar="FILE")
    args = ap.parse_args()
    with open(args.envelope_schema, encoding="utf-8") as f:
        envelope_schema = json.load(f)
    with open(args.task_schema, encoding="utf-8") as f:
        task_schema = json.load(f)
    check = make_check(*make_validators(args.impl, envelope_schema, task_schema))
    if args.stream:
        sys.exit(stream(check, args.stream))
    serve(check, dict(spec.split("=", 1) for spec in args.serve), max(1, args.stride))


if __name__ == "__main__":
    main()
