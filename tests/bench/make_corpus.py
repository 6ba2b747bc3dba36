#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Deterministic benchmark corpus: envelopes of a product-records extraction task.

Writes into OUT:
  task.schema.json   the task schema (draft-07) that partial_result must fit
  small.jsonl        COUNT envelopes of ~610 bytes (one record each), one per line
  large.jsonl        COUNT envelopes of ~19 KB (100-133 records each), one per line
  kit-NAME.jsonl     COUNT envelopes whose partial_result fits the schema kit NAME (below),
  task.kit-NAME.schema.json    about 10% of them breaking that task schema
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

GENERATOR_VERSION = 3  # 2: the schema variants of the keyword-cost table; 3: the schema kits

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


# --- Schema kits: task schemas as today's generators write them, each with its own corpus ----
# "pydantic": Pydantic v2's model_json_schema() shape (no $schema: 2020-12; $defs and $ref,
# Optional as anyOf with null, a discriminated union as oneOf of models told apart by a const,
# an enum of 40 values, patterns). "tuple": 2020-12 prefixItems with items false.
# "unevaluated": 2020-12 unevaluatedProperties closing a $ref'd base and its extension.
COUNTRIES = ["AT", "BE", "BG", "HR", "CY", "CZ", "DK", "EE", "FI", "FR", "DE", "GR", "HU", "IE",
             "IT", "LV", "LT", "LU", "MT", "NL", "PL", "PT", "RO", "SK", "SI", "ES", "SE", "GB",
             "NO", "CH", "IS", "US", "CA", "MX", "BR", "AR", "JP", "KR", "AU", "NZ"]
assert len(COUNTRIES) == 40


def _nullable(schema, title):
    return {"anyOf": [schema, {"type": "null"}], "default": None, "title": title}


def _payment(method, properties, required):
    properties = dict({"method": {"const": method, "title": "Method", "type": "string"}}, **properties)
    return {"properties": properties, "required": ["method"] + required,
            "title": method.capitalize() + "Payment", "type": "object"}


PYDANTIC_SCHEMA = {
    "$defs": {
        "Country": {"enum": COUNTRIES, "title": "Country", "type": "string"},
        "Address": {
            "properties": {
                "street": {"title": "Street", "type": "string", "maxLength": 200},
                "postcode": {"pattern": "^[0-9A-Z][0-9A-Z -]{2,9}$", "title": "Postcode", "type": "string"},
                "country": {"$ref": "#/$defs/Country"},
            },
            "required": ["street", "postcode", "country"], "title": "Address", "type": "object",
        },
        "Customer": {
            "properties": {
                "name": {"minLength": 1, "maxLength": 120, "title": "Name", "type": "string"},
                "email": _nullable({"pattern": "^[^@\\s]+@[^@\\s]+\\.[a-z]{2,}$", "type": "string"}, "Email"),
                "vat_id": _nullable({"pattern": "^[A-Z]{2}[0-9A-Z]{8,12}$", "type": "string"}, "Vat Id"),
                "address": {"$ref": "#/$defs/Address"},
            },
            "required": ["name", "address"], "title": "Customer", "type": "object",
        },
        "CardPayment": _payment("card", {"last4": {"pattern": "^[0-9]{4}$", "title": "Last4", "type": "string"},
                                         "brand": {"enum": ["visa", "mastercard", "amex"], "title": "Brand",
                                                   "type": "string"}}, ["last4", "brand"]),
        "BankPayment": _payment("bank", {"iban": {"pattern": "^[A-Z]{2}[0-9]{2}[A-Z0-9]{11,30}$", "title": "Iban",
                                                  "type": "string"}}, ["iban"]),
        "InvoicePayment": _payment("invoice", {"due_days": {"maximum": 120, "minimum": 0, "title": "Due Days",
                                                            "type": "integer"}}, ["due_days"]),
        "Order": {
            "properties": {
                "order_id": {"pattern": "^ORD-[0-9]{8}$", "title": "Order Id", "type": "string"},
                "customer": {"$ref": "#/$defs/Customer"},
                "payment": {
                    "discriminator": {"mapping": {"bank": "#/$defs/BankPayment", "card": "#/$defs/CardPayment",
                                                  "invoice": "#/$defs/InvoicePayment"}, "propertyName": "method"},
                    "oneOf": [{"$ref": "#/$defs/CardPayment"}, {"$ref": "#/$defs/BankPayment"},
                              {"$ref": "#/$defs/InvoicePayment"}],
                    "title": "Payment",
                },
                "total": {"minimum": 0, "title": "Total", "type": "number"},
                "notes": _nullable({"maxLength": 500, "type": "string"}, "Notes"),
            },
            "required": ["order_id", "customer", "payment", "total"], "title": "Order", "type": "object",
        },
    },
    "properties": {"orders": {"items": {"$ref": "#/$defs/Order"}, "maxItems": 1000, "title": "Orders",
                              "type": "array"}},
    "required": ["orders"], "title": "OrderBatch", "type": "object",
}

TUPLE_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "weather station readings: [time, temperature, humidity, flag]",
    "type": "object", "additionalProperties": False, "required": ["station", "readings"],
    "properties": {
        "station": {"type": "array", "minItems": 3, "items": False, "prefixItems": [
            {"type": "string", "pattern": "^ST-[0-9]{4}$"},
            {"type": "number", "minimum": -90, "maximum": 90},
            {"type": "number", "minimum": -180, "maximum": 180}]},
        "readings": {"type": "array", "maxItems": 1000, "items": {
            "type": "array", "minItems": 4, "items": False, "prefixItems": [
                {"type": "integer", "minimum": 0},
                {"type": "number", "minimum": -80, "maximum": 60},
                {"type": "number", "minimum": 0, "maximum": 100},
                {"enum": ["ok", "suspect", "missing"]}]}},
    },
}

# A closed extension of a referenced base, the use unevaluatedProperties exists for: the base's
# properties are evaluated through $ref, the extension's beside it. (A kind-dependent extension,
# if/then/else or oneOf beside unevaluatedProperties, would test more, but AJV 8.17 judges those
# wrongly inside arrays: evaluated properties leak from one item to the next. The kit keeps to a
# shape both contestants judge by the specification, so that their verdicts can be compared.)
UNEVALUATED_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "catalogue items: a base, extended and closed",
    "type": "object", "additionalProperties": False, "required": ["items"],
    "properties": {"items": {"type": "array", "maxItems": 1000, "items": {"$ref": "#/$defs/item"}}},
    "$defs": {
        "base": {"type": "object", "required": ["id", "kind", "title"], "properties": {
            "id": {"type": "string", "pattern": "^I-[0-9]{6}$"},
            "kind": {"enum": ["book", "gadget"]},
            "title": {"type": "string", "minLength": 1, "maxLength": 200},
            "price": {"type": "number", "minimum": 0}}},
        "item": {
            "$ref": "#/$defs/base",
            "properties": {"isbn": {"type": "string", "pattern": "^97[89][0-9]{10}$"},
                           "pages": {"type": "integer", "minimum": 1},
                           "weight_g": {"type": "integer", "minimum": 0},
                           "battery": {"type": "boolean"}},
            "patternProperties": {"^x-": {"type": "string", "maxLength": 64}},
            "unevaluatedProperties": False,
        },
    },
}


def pydantic_order(rng):
    method = rng.choice(["card", "bank", "invoice"])
    payment = {"method": method}
    if method == "card":
        payment.update(last4="%04d" % rng.randrange(10000), brand=rng.choice(["visa", "mastercard", "amex"]))
    elif method == "bank":
        payment["iban"] = "%s%02d%s" % (rng.choice(COUNTRIES), rng.randrange(100),
                                        "".join(rng.choice("0123456789ABCDEFGHJK") for _ in range(rng.randrange(11, 24))))
    else:
        payment["due_days"] = rng.randrange(0, 121)
    customer = {"name": "%s %s" % (rng.choice(ADJECTIVES), rng.choice(NOUNS)),
                "address": {"street": "%d %s street" % (rng.randrange(1, 300), rng.choice(NOUNS)),
                            "postcode": "%05d" % rng.randrange(100000), "country": rng.choice(COUNTRIES)}}
    if rng.random() < 0.7:
        customer["email"] = "buyer%d@shop%d.example" % (rng.randrange(10000), rng.randrange(100)) \
            if rng.random() < 0.8 else None
    if rng.random() < 0.4:
        customer["vat_id"] = "%s%09d" % (rng.choice(COUNTRIES), rng.randrange(10 ** 9))
    order = {"order_id": "ORD-%08d" % rng.randrange(10 ** 8), "customer": customer, "payment": payment,
             "total": round(rng.uniform(1, 2000), 2)}
    if rng.random() < 0.5:
        order["notes"] = None if rng.random() < 0.5 else "leave at the door"
    return order


def break_pydantic(rng, result):
    order = rng.choice(result["orders"])
    kind = rng.randrange(5)
    if kind == 0:
        order["customer"]["address"]["country"] = "XX"       # outside the 40-value enum
    elif kind == 1:
        order["payment"] = {"method": "cash"}                 # no branch of the oneOf
    elif kind == 2:
        order["order_id"] = "ORD-12"                          # pattern
    elif kind == 3:
        order["customer"]["email"] = 42                       # neither string nor null
    else:
        del order["customer"]                                 # required


def tuple_result(rng):
    readings = [[1_700_000_000 + 600 * i, round(rng.uniform(-20, 40), 1), round(rng.uniform(10, 100), 1),
                 rng.choice(["ok", "ok", "ok", "suspect", "missing"])] for i in range(rng.randrange(20, 61))]
    return {"station": ["ST-%04d" % rng.randrange(10000), round(rng.uniform(-90, 90), 4),
                        round(rng.uniform(-180, 180), 4)], "readings": readings}


def break_tuple(rng, result):
    reading = rng.choice(result["readings"])
    kind = rng.randrange(4)
    if kind == 0:
        reading.append("extra")                               # items: false after the prefix
    elif kind == 1:
        reading[0] = str(reading[0])                          # a string time
    elif kind == 2:
        reading[2] = 120.0                                    # humidity above 100
    else:
        result["station"].pop()                               # minItems 3


def unevaluated_result(rng):
    items = []
    for _ in range(rng.randrange(5, 16)):
        item = {"id": "I-%06d" % rng.randrange(10 ** 6), "title": "%s %s" % (rng.choice(ADJECTIVES), rng.choice(NOUNS))}
        if rng.random() < 0.8:
            item["price"] = round(rng.uniform(1, 300), 2)
        if rng.random() < 0.5:
            item["kind"] = "book"
            item["isbn"] = "97%d%010d" % (rng.choice([8, 9]), rng.randrange(10 ** 10))
            if rng.random() < 0.7:
                item["pages"] = rng.randrange(20, 900)
        else:
            item["kind"] = "gadget"
            if rng.random() < 0.7:
                item["weight_g"] = rng.randrange(10, 5000)
            if rng.random() < 0.5:
                item["battery"] = rng.random() < 0.5
        if rng.random() < 0.2:
            item["x-source"] = "page %d" % rng.randrange(1, 400)
        items.append(item)
    return {"items": items}


def break_unevaluated(rng, result):
    item = rng.choice(result["items"])
    kind = rng.randrange(4)
    if kind == 0:
        item["colour"] = "teal"                               # evaluated by no subschema
    elif kind == 1:
        item["x-source"] = 17                                 # patternProperties wants a string
    elif kind == 2:
        item["wieght_g"] = 100                                # a misspelt field
    else:
        del item["title"]                                     # required by the base


SCHEMA_KITS = {
    "pydantic": (PYDANTIC_SCHEMA, lambda rng: {"orders": [pydantic_order(rng) for _ in range(rng.randrange(3, 9))]},
                 break_pydantic),
    "tuple": (TUPLE_SCHEMA, tuple_result, break_tuple),
    "unevaluated": (UNEVALUATED_SCHEMA, unevaluated_result, break_unevaluated),
}
KIT_INVALID_PER_MILLE = 100  # envelopes whose partial_result breaks the kit's task schema


def generate_kit(rng, count, make_result, break_result):
    """Envelopes around a kit's results: valid but for the task schema in about 10% of them."""
    lines = []
    categories = {"valid": 0}
    for i in range(count):
        env = envelope(rng, 1, 1, page=i % 400 + 1)
        env["partial_result"] = make_result(rng)
        category = "task_schema" if rng.randrange(1000) < KIT_INVALID_PER_MILLE else "valid"
        if category == "task_schema":
            break_result(rng, env["partial_result"])
        categories[category] = categories.get(category, 0) + 1
        lines.append(json.dumps(env, ensure_ascii=False))
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
    manifest["kits"] = {}
    for name, (schema, make_result, break_result) in SCHEMA_KITS.items():
        with open(os.path.join(args.out, "task.kit-%s.schema.json" % name), "w", encoding="utf-8") as f:
            json.dump(schema, f, indent=2)
            f.write("\n")
        rng = random.Random("%d/kit-%s" % (args.seed, name))
        lines, categories = generate_kit(rng, args.count, make_result, break_result)
        data = "".join(line + "\n" for line in lines).encode("utf-8")
        with open(os.path.join(args.out, "kit-%s.jsonl" % name), "wb") as f:
            f.write(data)
        manifest["kits"][name] = {
            "file": "kit-%s.jsonl" % name,
            "schema": "task.kit-%s.schema.json" % name,
            "dialect": "2020-12",
            "envelopes": len(lines),
            "mean_bytes": round((len(data) - len(lines)) / len(lines)),
            "categories": categories,
        }
    with open(os.path.join(args.out, "manifest.json"), "w", encoding="utf-8") as f:
        json.dump(manifest, f, indent=2)
        f.write("\n")
    json.dump({"sizes": manifest["sizes"], "kits": manifest["kits"]}, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
