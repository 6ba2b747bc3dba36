#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The cost of including handoff: compile time and peak memory of a translation unit that
includes one public header and nothing else, at -O2, and what that header pulls in.

Also translation units that *use* the library, since including a header instantiates
nothing: one that routes (decide + plan), one that reads receipts and one that receives (a
receiver<> built from a schema, receive called); the umbrella header and the receiving unit
again in the compiled form (HANDOFF_COMPILED_LIB, what linking handoff::compiled sets); and, for
comparison in the same run, a file that parses with nlohmann alone and the naive stack's file
(nlohmann parse + valijson validate, when valijson is installed). CPU time (user + sys) is reported rather than wall time, so other
jobs on the machine do not inflate it; each figure is the median of --repeat compilations, taken in rounds (every unit once a round).

  include_cost.py [--cxx c++] [--repeat 3] [--goal] [--out FILE]

--goal leaves out the one-header rows: only the files that use the library, in both forms, and
the baselines they are held to.
"""

import argparse
import glob
import os
import re
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

RECEIVES = """#include <handoff/receiver.hpp>
handoff::receipt<> check(const nlohmann::json& schema, std::string_view text) {
    const handoff::receiver<> receiver(schema);
    return receiver.receive(text);
}
"""

USES = {
    "routes: decide + plan": """#include <handoff/decision.hpp>
static_assert(handoff::decide(handoff::reason_code::time_cap, 0.6) == handoff::action::narrow);
handoff::decision route(const handoff::coverage_info& c, const handoff::steps_info& s) {
    return handoff::plan(handoff::reason_code::token_cap, c, s, std::nullopt, true);
}
""",
    "reads receipts: receipt<> + to_json": """#include <handoff/receipt_json.hpp>
nlohmann::json log_line(const handoff::receipt<>& r) { return handoff::to_json(r); }
""",
    "receives: receiver<> + receive": RECEIVES,
}

# The same files in the compiled form.
COMPILED = {
    "compiled form: `<handoff/handoff.hpp>`": "#include <handoff/handoff.hpp>\n",
    "compiled form: receiver<> + receive": RECEIVES,
    "compiled form: `<handoff/handoff.hpp>` + receive": RECEIVES.replace("receiver.hpp", "handoff.hpp"),
}

# What a receiving file costs without handoff, for comparison.
BASELINES = {
    "baseline: nlohmann::json::parse": """#include <nlohmann/json.hpp>
#include <string_view>
nlohmann::json parse(std::string_view text) { return nlohmann::json::parse(text); }
""",
    "baseline: naive nlohmann parse + valijson validate": """#include <nlohmann/json.hpp>
#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validator.hpp>
#include <string_view>
bool check(const nlohmann::json& schema_document, std::string_view text) {
    valijson::Schema schema;
    valijson::SchemaParser parser(valijson::SchemaParser::kDraft7);
    parser.populateSchema(valijson::adapters::NlohmannJsonAdapter(schema_document), schema);
    const nlohmann::json document = nlohmann::json::parse(text);
    valijson::Validator validator;
    valijson::ValidationResults results;
    return validator.validate(schema, valijson::adapters::NlohmannJsonAdapter(document), &results);
}
""",
}


# The goals: each form's receiving file against the baseline it must not cost more than.
GOALS = [
    ("header-only receive", "receives: receiver<> + receive", "baseline: naive nlohmann parse + valijson validate"),
    ("compiled form: umbrella + receive", "compiled form: `<handoff/handoff.hpp>` + receive", "baseline: nlohmann::json::parse"),
]


def dependencies(cxx, flags, source):
    out = subprocess.run([cxx] + flags + ["-M", source], capture_output=True, text=True, check=True).stdout
    return out.replace("\\\n", " ").split()


def pulled_in(deps):
    """What a unit's dependency list pulls in, of the heavy parts the table names."""
    pulls = []
    if any("/nlohmann/" in d for d in deps):
        pulls.append("nlohmann")
    if any(re.search(r"/valijson/(validator|validation_visitor)\.hpp$", d) for d in deps):
        pulls.append("valijson validator")
    if any(d.endswith("/valijson/schema_parser.hpp") for d in deps):
        pulls.append("valijson parser")
    if any(re.search(r"/c\+\+/[0-9]+/regex$", d) for d in deps):
        pulls.append("<regex>")
    if any(d.endswith("/handoff/detail/schema/validator.hpp") for d in deps):
        pulls.append("handoff's validator")
    return pulls


def has_valijson(cxx, flags):
    probe = subprocess.run([cxx] + flags + ["-E", "-x", "c++", "-"], input="#include <valijson/validator.hpp>\n",
                           capture_output=True, text=True)
    return probe.returncode == 0


def compile_once(cxx, flags, source):
    """CPU seconds (user + system) and peak MiB of one -O2 compilation of `source`."""
    r = subprocess.run(["/usr/bin/time", "-f", "%U %S %M", cxx] + flags + ["-O2", "-c", source, "-o", os.devnull],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit("compiling %s failed:\n%s" % (source, r.stderr))
    user, system, kib = r.stderr.strip().splitlines()[-1].split()
    return float(user) + float(system), int(kib) / 1024.0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cxx", default=os.environ.get("CXX", "c++"))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--goal", action="store_true", help="only the using files and the baselines")
    ap.add_argument("--out")
    args = ap.parse_args()
    flags = ["-std=c++17", "-I" + os.path.join(ROOT, "include"), "-DVALIJSON_USE_EXCEPTIONS=1"]
    # The public headers: not their -inl.hpp definitions nor src.hpp, which are parts of one.
    headers = sorted(os.path.relpath(p, os.path.join(ROOT, "include"))
                     for p in glob.glob(os.path.join(ROOT, "include", "handoff", "*.hpp"))
                     if not p.endswith("-inl.hpp") and os.path.basename(p) != "src.hpp")
    units = [] if args.goal else [("`<%s>`" % h, "#include <%s>\n" % h, []) for h in headers]
    units += [(name, text, []) for name, text in USES.items()]
    units += [(name, text, ["-DHANDOFF_COMPILED_LIB"]) for name, text in COMPILED.items()]
    units += [(name, text, []) for name, text in BASELINES.items()
              if "valijson" not in text or has_valijson(args.cxx, flags)]
    # Round by round: every unit once per round, so a machine that slows down for a while slows
    # every unit alike rather than the few measured then.
    with tempfile.TemporaryDirectory() as tmp:
        sources, pulled = [], []
        for i, (name, text, extra) in enumerate(units):
            source = os.path.join(tmp, "tu%d.cpp" % i)
            with open(source, "w") as f:
                f.write(text)
            sources.append(source)
            pulled.append(", ".join(pulled_in(dependencies(args.cxx, flags + extra, source))) or "std only")
        samples = [[] for _ in units]
        for round_number in range(args.repeat):
            for i, (name, _, extra) in enumerate(units):
                samples[i].append(compile_once(args.cxx, flags + extra, sources[i]))
                print("round %d: %-45s %6.2f s %7.0f MiB" % ((round_number + 1, name) + samples[i][-1]),
                      file=sys.stderr, flush=True)
    rows = [(name, statistics.median(c for c, _ in samples[i]), statistics.median(m for _, m in samples[i]), pulled[i])
            for i, (name, _, _) in enumerate(units)]
    version = subprocess.run([args.cxx, "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    lines = ["Compile cost of one translation unit at -O2 (%s; CPU seconds and peak memory, median of %d):" %
             (version, args.repeat), "",
             "| translation unit | CPU s | peak MiB | pulls in |", "|---|---:|---:|---|"]
    for name, cpu, rss, pulls in rows:
        lines.append("| %s | %.2f | %.0f | %s |" % (name, cpu, rss, pulls))
    names = [name for name, _, _ in units]
    for form, goal, baseline in GOALS:
        if goal in names and baseline in names:
            g, b = samples[names.index(goal)], samples[names.index(baseline)]
            lines += ["", "%s, against %s (median of the rounds' ratios): CPU %.2fx, memory %.2fx" %
                      (form, baseline.replace("baseline: ", ""), statistics.median(x[0] / y[0] for x, y in zip(g, b)),
                       statistics.median(x[1] / y[1] for x, y in zip(g, b)))]
    report = "\n".join(lines) + "\n"
    if args.out:
        with open(args.out, "w") as f:
            f.write(report)
    print(report)


if __name__ == "__main__":
    main()
