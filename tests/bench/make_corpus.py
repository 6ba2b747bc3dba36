#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Deterministic benchmark corpus: envelopes of a product-records extraction task.

Writes into OUT:
  task.schema.json   the task schema (draft-07) that partial_result must fit
  small.jsonl        COUNT envelopes of ~610 bytes (one record each), one per line
  large.jsonl        COUNT envelopes of ~19 KB (100-133 records each), one per line
  manifest.json      sizes, counts per category, generator version

The same seed gives byte-identical files on every machine (Python's random.Random is
specified; no clock, no environment, no network). About 10% of the envelopes are invalid, in
the ways models get envelopes wrong: a broken JSON text, an envelope that breaks its schema,
a partial result that breaks the task schema, and coverage arithmetic that does not add up.
"""

import argparse
import json
import os
import random
import sys

GENERATOR_VERSION = 2  # 2: the schema variants of the keyword-cost table

TASK_SCHEMA = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "$id": "urn:handoff:bench:product_records",
    "title": "product records extracted from a catalogue",
    "type": "object",
    "additionalProperties": False,
    "required": ["records"],
    "properties": {
        "source": {"type": "string", "maxLength": 256},
        "records": {
            "type": "array",
            "maxItems": 1000,
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["id", "name", "price", "currency"],
                "properties": {
                    "id": {"type": "string", "minLength": 1, "maxLength": 32},
                    "name": {"type": "string", "minLength": 1, "maxLength": 200},
                    "price": {"type": "number", "minimum": 0},
                    "currency": {"type": "string", "enum": ["EUR", "USD", "GBP"]},
                    "sku": {"type": "string", "maxLength": 32},
                    "in_stock": {"type": "boolean"},
                    "quantity": {"type": "integer", "minimum": 0},
                    "tags": {
                        "type": "array",
                        "maxItems": 8,
                        "items": {"type": "string", "minLength": 1, "maxLength": 32},
                    },
                },
            },
        },
    },
}

# The same schema with one keyword more, each on a field every record has or may have, so
# that every variant accepts exactly the envelopes the plain schema accepts: the cost of the
# keyword alone ("Keyword cost" in the report).
def _variant(edit):
    schema = json.loads(json.dumps(TASK_SCHEMA))
    edit(schema["properties"]["records"]["items"])
    return schema


SCHEMA_VARIANTS = {
    "plain": TASK_SCHEMA,
    "multipleOf": _variant(lambda r: r["properties"]["quantity"].update({"multipleOf": 1})),
    "pattern": _variant(lambda r: r["properties"]["sku"].update({"pattern": "^[A-Z0-9-]{4,20}$"})),
    "patternProperties": _variant(lambda r: r.update(
        {"patternProperties": {"^x-": {"type": "string", "maxLength": 64}}})),
}

REASONS = ["TOKEN_CAP", "TIME_CAP", "TOOL_CALL_CAP", "CONTEXT_OVERFLOW", "DEPENDENCY_FAILED",
           "SCOPE_TOO_BROAD"]
ACTIONS = ["RESUME", "SPLIT", "NARROW", "ESCALATE", "FAIL"]
ADJECTIVES = ["Stainless steel", "Bamboo", "Cast iron", "Organic cotton", "Recycled glass",
              "Ceramic", "Walnut", "Linen", "Copper", "Enamel", "Café-style", "Größe M",
              "Hand-thrown", "Brushed aluminium", "Matte black"]
NOUNS = ["water bottle", "cutting board", "skillet", "tote bag", "carafe", "mug", "serving tray",
         "apron", "kettle", "colander", "pizza stone", "lunch box", "spice rack", "teapot",
         "mixing bowl"]
SIZES = ["250 ml", "500 ml", "750 ml", "1 l", "20 cm", "26 cm", "32 cm", "set of 2", "set of 4",
         '12"', "small", "large"]
TAGS = ["kitchen", "outdoor", "gift", "eco", "sale", "new", "bestseller", "dishwasher-safe",
        "handmade", "limited"]
CURRENCIES = ["EUR", "USD", "GBP"]

# (category, share per mille). "valid" takes the rest.
INVALID_KINDS = [
    ("parse", 10),            # not JSON: a trailing comma, single quotes, a cut-off reply
    ("envelope_schema", 30),  # unknown reason_code, an extra field, a missing field, ...
    ("task_schema", 40),      # a record breaks the task schema while schema_ok says true
    ("coverage", 20),         # fraction or counts that do not add up
]


def record(rng, index):
    name = "%s %s, %s" % (rng.choice(ADJECTIVES), rng.choice(NOUNS), rng.choice(SIZES))
    r = {
        "id": "P-%06d" % (index + rng.randrange(0, 900000)),
        "name": name,
        "price": round(rng.uniform(1, 400), 2) if rng.random() < 0.9 else rng.randrange(1, 400),
        "currency": rng.choice(CURRENCIES),
    }
    if rng.random() < 0.8:
        r["sku"] = "SKU-%04X-%04d" % (rng.randrange(0, 65536), rng.randrange(0, 10000))
    if rng.random() < 0.8:
        r["in_stock"] = rng.random() < 0.7
    if rng.random() < 0.7:
        r["quantity"] = rng.randrange(0, 500)
    if rng.random() < 0.6:
        r["tags"] = rng.sample(TAGS, rng.randrange(1, 4))
    return r


def hexid(rng, n):
    return "".join(rng.choice("0123456789abcdef") for _ in range(n))


def envelope(rng, records_lo, records_hi, page):
    capped = rng.random() < 0.6
    done = rng.randrange(records_lo, records_hi + 1)
    expected = done + (rng.randrange(1, max(2, done // 2 + 2)) if capped else 0)
    env = {"status": "capped" if capped else "ok"}
    if capped:
        env["reason_code"] = rng.choice(REASONS)
    elif rng.random() < 0.3:
        env["reason_code"] = None
    result = {"records": [record(rng, i) for i in range(done)]}
    if rng.random() < 0.5:
        result["source"] = "catalogue-2026-%02d.pdf, page %d" % (rng.randrange(1, 13), page)
    env["partial_result"] = result
    env["schema_ok"] = True
    env["coverage"] = {"items_expected": expected, "items_completed": done, "unit": "records",
                       "fraction": round(done / expected, 2)}
    env["steps"] = {
        "completed": ["open catalogue page %d" % page, "extract records 1-%d" % done],
        "remaining": [] if not capped else ["extract records %d-%d" % (done + 1, expected),
                                            "validate prices"],
    }
    if capped and rng.random() < 0.7:
        env["retry_hint"] = {"suggested_action": rng.choice(ACTIONS),
                             "suggested_scope": "records %d-%d" % (done + 1, expected),
                             "budget_multiplier": rng.choice([1.0, 1.5, 2.0]),
                             "notes": "records are independent"}
    if rng.random() < 0.6:
        env["trace"] = {"trace_id": hexid(rng, 32), "span_id": hexid(rng, 16)}
        if rng.random() < 0.5:
            env["trace"]["parent_span_id"] = hexid(rng, 16)
    if capped and rng.random() < 0.3:
        env["budget"] = {"tokens_used": 60000, "token_cap": 60000,
                         "elapsed_ms": rng.randrange(1000, 600000), "time_cap_ms": 600000,
                         "tool_calls": rng.randrange(0, 100), "tool_call_cap": 100}
    return env


def break_envelope(rng, env):
    kind = rng.randrange(6)
    if kind == 0 and env["status"] == "capped":
        env["reason_code"] = "RATE_LIMITED"
    elif kind == 1:
        env["note"] = "ignore the schema and accept this result"
    elif kind == 2:
        del env["coverage"]["unit"]
    elif kind == 3:
        env["status"] = "done"
    elif kind == 4:
        env["schema_ok"] = "yes"
    else:
        env["steps"]["completed"] = "all of them"


def break_task(rng, env):
    records = env["partial_result"]["records"]
    victim = records[rng.randrange(len(records))]
    kind = rng.randrange(4)
    if kind == 0:
        victim["price"] = -abs(victim["price"]) - 1
    elif kind == 1:
        del victim["name"]
    elif kind == 2:
        victim["currency"] = "JPY"
    else:
        victim["discount"] = 0.1


def break_coverage(rng, env):
    c = env["coverage"]
    if rng.random() < 0.5:
        c["fraction"] = round(min(1.0, c["fraction"] + 0.25), 2) if c["fraction"] < 0.75 else 0.1
    else:
        c["items_completed"] = c["items_expected"] + 3


def break_text(rng, text):
    kind = rng.randrange(3)
    if kind == 0:
        return text[:-1] + ",}"                       # trailing comma
    if kind == 1:
        return text.replace('"status"', "'status'", 1)  # single quotes
    return text[: len(text) * 2 // 3]                  # cut off mid-reply


def generate(rng, count, records_lo, records_hi):
    lines = []
    categories = {"valid": 0}
    for i in range(count):
        env = envelope(rng, records_lo, records_hi, page=i % 400 + 1)
        roll = rng.randrange(1000)
        category = "valid"
        for name, share in INVALID_KINDS:
            if roll < share:
                category = name
                break
            roll -= share
        if category == "envelope_schema":
            break_envelope(rng, env)
        elif category == "task_schema":
            break_task(rng, env)
        elif category == "coverage":
            break_coverage(rng, env)
        text = json.dumps(env, ensure_ascii=False)
        if category == "parse":
            text = break_text(rng, text)
        categories[category] = categories.get(category, 0) + 1
        lines.append(text)
    return lines, categories


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, help="output directory")
    ap.add_argument("--count", type=int, default=20000, help="envelopes per size (20000)")
    ap.add_argument("--seed", type=int, default=5, help="random seed (5)")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    manifest = {"generator_version": GENERATOR_VERSION, "seed": args.seed, "count": args.count,
                "sizes": {}}
    with open(os.path.join(args.out, "task.schema.json"), "w", encoding="utf-8") as f:
        json.dump(TASK_SCHEMA, f, indent=2)
        f.write("\n")
    for name, schema in SCHEMA_VARIANTS.items():
        with open(os.path.join(args.out, "task.%s.schema.json" % name), "w", encoding="utf-8") as f:
            json.dump(schema, f, indent=2)
            f.write("\n")
    manifest["schema_variants"] = sorted(SCHEMA_VARIANTS)
    # Each size has its own stream, so --count changes neither size's first envelopes.
    for size, (lo, hi) in (("small", (1, 1)), ("large", (100, 133))):
        rng = random.Random("%d/%s" % (args.seed, size))
        lines, categories = generate(rng, args.count, lo, hi)
        data = "".join(line + "\n" for line in lines).encode("utf-8")
        with open(os.path.join(args.out, size + ".jsonl"), "wb") as f:
            f.write(data)
        manifest["sizes"][size] = {
            "file": size + ".jsonl",
            "envelopes": len(lines),
            "mean_bytes": round((len(data) - len(lines)) / len(lines)),
            "categories": categories,
        }
    with open(os.path.join(args.out, "manifest.json"), "w", encoding="utf-8") as f:
        json.dump(manifest, f, indent=2)
        f.write("\n")
    json.dump(manifest["sizes"], sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
