#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes include/handoff/detail/regex/unicode_tables.hpp, the code point tables behind the regex
engine's Unicode property escapes (\\p{...} and \\P{...}), from the Unicode Character Database.

    python3 scripts/generate-unicode-tables.py            # (re)write the header
    python3 scripts/generate-unicode-tables.py --check    # exit 1 when the committed header differs

The data files come from Debian's `unicode-data` package (/usr/share/unicode, or --ucd DIR holding
the same layout as https://www.unicode.org/Public/<version>/ucd/). Python's standard library only.

The properties are the ones ECMA-262 lets a pattern name (https://tc39.es/ecma262/#sec-compiletocharset,
UnicodeMatchProperty and UnicodeMatchPropertyValue, 22.2.2.9): General_Category and Script and
Script_Extensions with their values (https://tc39.es/ecma262/#table-nonbinary-unicode-properties),
and the binary properties of https://tc39.es/ecma262/#table-binary-unicode-properties; each by every
name and alias that PropertyAliases.txt and PropertyValueAliases.txt give it.
"""

import argparse
import pathlib
import re
import textwrap
import sys

REPO = pathlib.Path(__file__).resolve().parent.parent
OUTPUT = REPO / "include/handoff/detail/regex/unicode_tables.hpp"
MAX_CODE_POINT = 0x10FFFF

# ECMA-262's table "Binary Unicode property aliases and their canonical property names", by
# canonical name. ASCII, Any and Assigned are defined by ECMA-262 itself (UTS #18 section 1.2.1);
# the others are UCD properties, read from whichever data file lists them.
ECMA_BINARY_PROPERTIES = [
    "ASCII", "ASCII_Hex_Digit", "Alphabetic", "Any", "Assigned", "Bidi_Control", "Bidi_Mirrored",
    "Case_Ignorable", "Cased", "Changes_When_Casefolded", "Changes_When_Casemapped",
    "Changes_When_Lowercased", "Changes_When_NFKC_Casefolded", "Changes_When_Titlecased",
    "Changes_When_Uppercased", "Dash", "Default_Ignorable_Code_Point", "Deprecated", "Diacritic",
    "Emoji", "Emoji_Component", "Emoji_Modifier", "Emoji_Modifier_Base", "Emoji_Presentation",
    "Extended_Pictographic", "Extender", "Grapheme_Base", "Grapheme_Extend", "Hex_Digit",
    "IDS_Binary_Operator", "IDS_Trinary_Operator", "ID_Continue", "ID_Start", "Ideographic",
    "Join_Control", "Logical_Order_Exception", "Lowercase", "Math", "Noncharacter_Code_Point",
    "Pattern_Syntax", "Pattern_White_Space", "Quotation_Mark", "Radical", "Regional_Indicator",
    "Sentence_Terminal", "Soft_Dotted", "Terminal_Punctuation", "Unified_Ideograph", "Uppercase",
    "Variation_Selector", "White_Space", "XID_Continue", "XID_Start",
]

# Data files holding binary properties as "range ; Property_Name" lines.
BINARY_PROPERTY_FILES = [
    "PropList.txt",
    "DerivedCoreProperties.txt",
    "DerivedNormalizationProps.txt",
    "extracted/DerivedBinaryProperties.txt",
    "emoji/emoji-data.txt",
]

# Every file read, for the header's provenance line.
INPUT_FILES = [
    "PropertyAliases.txt",
    "PropertyValueAliases.txt",
    "extracted/DerivedGeneralCategory.txt",
    "Scripts.txt",
    "ScriptExtensions.txt",
] + BINARY_PROPERTY_FILES

UNICODE_NOTICE = """\
The tables below are derived from the Unicode Character Database, whose licence (SPDX
Unicode-DFS-2016, https://www.unicode.org/license.txt) follows. This file modifies that data: the
same code points, re-encoded as C++ arrays.

COPYRIGHT AND PERMISSION NOTICE

Copyright (c) 1991-2022 Unicode, Inc. All rights reserved.
Distributed under the Terms of Use in https://www.unicode.org/copyright.html.

Permission is hereby granted, free of charge, to any person obtaining a copy of the Unicode data
files and any associated documentation (the "Data Files") or Unicode software and any associated
documentation (the "Software") to deal in the Data Files or Software without restriction,
including without limitation the rights to use, copy, modify, merge, publish, distribute, and/or
sell copies of the Data Files or Software, and to permit persons to whom the Data Files or
Software are furnished to do so, provided that either (a) this copyright and permission notice
appear with all copies of the Data Files or Software, or (b) this copyright and permission notice
appear in associated Documentation.

THE DATA FILES AND SOFTWARE ARE PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY, FITNESS FOR A PARTICULAR
PURPOSE AND NONINFRINGEMENT OF THIRD PARTY RIGHTS. IN NO EVENT SHALL THE COPYRIGHT HOLDER OR
HOLDERS INCLUDED IN THIS NOTICE BE LIABLE FOR ANY CLAIM, OR ANY SPECIAL INDIRECT OR CONSEQUENTIAL
DAMAGES, OR ANY DAMAGES WHATSOEVER RESULTING FROM LOSS OF USE, DATA OR PROFITS, WHETHER IN AN
ACTION OF CONTRACT, NEGLIGENCE OR OTHER TORTIOUS ACTION, ARISING OUT OF OR IN CONNECTION WITH THE
USE OR PERFORMANCE OF THE DATA FILES OR SOFTWARE.

Except as contained in this notice, the name of a copyright holder shall not be used in
advertising or otherwise to promote the sale, use or other dealings in these Data Files or
Software without prior written authorization of the copyright holder."""


def data_lines(path):
    """(fields, comment) of each data line: fields split on ';' and stripped."""
    for raw in path.read_text(encoding="utf-8").splitlines():
        body, _, comment = raw.partition("#")
        if body.strip():
            yield [f.strip() for f in body.split(";")], comment.strip()


def parse_range(text):
    first, _, last = text.partition("..")
    return int(first, 16), int(last or first, 16)


def normalized(ranges):
    """Sorted, non-overlapping, non-adjacent (first, last) ranges."""
    out = []
    for first, last in sorted(ranges):
        if out and first <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(out[-1][1], last))
        else:
            out.append((first, last))
    return out


def complement(ranges):
    out, next_free = [], 0
    for first, last in normalized(ranges):
        if first > next_free:
            out.append((next_free, first - 1))
        next_free = last + 1
    if next_free <= MAX_CODE_POINT:
        out.append((next_free, MAX_CODE_POINT))
    return out


def subtract(ranges, removed):
    removed = normalized(removed)
    return normalized(intersect(ranges, complement(removed)))


def intersect(a, b):
    out, i, j = [], 0, 0
    a, b = normalized(a), normalized(b)
    while i < len(a) and j < len(b):
        first, last = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if first <= last:
            out.append((first, last))
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return out


def ranges_by_value(path, field=1):
    """Value -> ranges, for a file of "range ; value" lines."""
    table = {}
    for fields, _ in data_lines(path):
        table.setdefault(fields[field], []).append(parse_range(fields[0]))
    return table


def unicode_version(ucd):
    match = re.match(r"# Scripts-(\d+\.\d+\.\d+)\.txt", (ucd / "Scripts.txt").read_text(encoding="utf-8"))
    if not match:
        sys.exit("cannot read the Unicode version from the first line of Scripts.txt")
    version = match.group(1)
    for name in INPUT_FILES:
        first_line = (ucd / name).read_text(encoding="utf-8").splitlines()[0]
        stated = re.search(r"-(\d+\.\d+\.\d+)\.txt", first_line)
        if stated and stated.group(1) != version:
            sys.exit(f"{name} is Unicode {stated.group(1)}, Scripts.txt is {version}: mixed data files")
    return version


def value_aliases(ucd, prop):
    """Each value of `prop` in PropertyValueAliases.txt: (all its names, the comment on its line)."""
    return [(fields[1:], comment) for fields, comment in data_lines(ucd / "PropertyValueAliases.txt")
            if fields[0] == prop]


def general_categories(ucd):
    """Name -> ranges for every General_Category value and alias; a group value (L, LC, ...) is
    the union of the values its line's comment lists ("# Ll | Lm | Lo | Lt | Lu")."""
    leaves = {k: normalized(v) for k, v in ranges_by_value(ucd / "extracted/DerivedGeneralCategory.txt").items()}
    out = {}
    for names, comment in value_aliases(ucd, "gc"):
        if names[0] in leaves:
            ranges = leaves[names[0]]
        else:
            members = [m.strip() for m in comment.split("|")]
            if not all(m in leaves for m in members):
                sys.exit(f"General_Category {names[0]}: cannot read its members from '# {comment}'")
            ranges = normalized([r for m in members for r in leaves[m]])
        for name in names:
            out[name] = ranges
    return out


def scripts(ucd):
    """(Script, Script_Extensions) as name -> ranges. A code point not in Scripts.txt is Unknown
    (Zzzz); one not in ScriptExtensions.txt has its Script as its only extension (UAX #24)."""
    long_ranges = ranges_by_value(ucd / "Scripts.txt")
    long_ranges["Unknown"] = complement([r for v in long_ranges.values() for r in v])
    short_to_long = {}
    script, extensions = {}, {}
    extended = ranges_by_value(ucd / "ScriptExtensions.txt")
    listed = [r for v in extended.values() for r in v]
    for names, _ in value_aliases(ucd, "sc"):
        short, long = names[0], names[1]
        if long not in long_ranges:
            continue  # Katakana_Or_Hiragana: no code point has it, and ECMA-262 does not list it
        short_to_long[short] = long
        own = normalized(long_ranges[long])
        also = [r for value, rs in extended.items() if short in value.split() for r in rs]
        for name in names:
            script[name] = own
            extensions[name] = normalized(subtract(own, listed) + also)
    unknown = {s for value in extended for s in value.split()} - set(short_to_long)
    if unknown:
        sys.exit(f"ScriptExtensions.txt names scripts PropertyValueAliases.txt lacks: {sorted(unknown)}")
    return script, extensions


def binary_properties(ucd, general_category):
    """Name -> ranges for ECMA-262's binary properties, under every alias PropertyAliases.txt gives."""
    found = {}
    for name in BINARY_PROPERTY_FILES:
        for fields, _ in data_lines(ucd / name):
            if len(fields) == 2:
                found.setdefault(fields[1], []).append(parse_range(fields[0]))
    found["ASCII"] = [(0, 0x7F)]
    found["Any"] = [(0, MAX_CODE_POINT)]
    found["Assigned"] = complement(general_category["Cn"])
    aliases = {}
    for fields, _ in data_lines(ucd / "PropertyAliases.txt"):
        for name in fields:
            aliases[name] = fields
    out = {}
    for canonical in ECMA_BINARY_PROPERTIES:
        if canonical not in found:
            sys.exit(f"binary property {canonical} is in none of {BINARY_PROPERTY_FILES}")
        for name in aliases.get(canonical, [canonical]):
            out[name] = normalized(found[canonical])
    return out


class range_pool:
    """All ranges in one array; identical lists are stored once."""

    def __init__(self):
        self.bounds, self.offsets = [], {}

    def add(self, ranges):
        key = tuple(ranges)
        if key not in self.offsets:
            self.offsets[key] = len(self.bounds) // 2
            for first, last in ranges:
                self.bounds += [first, last]
        return self.offsets[key], len(ranges)


def cpp_table(name, what, table, pool):
    lines = [f"/// {what}, sorted by name.", f"inline constexpr property_entry {name}[] = {{"]
    for key in sorted(table):
        first, count = pool.add(table[key])
        lines.append(f'    {{"{key}", {first}, {count}}},')
    return lines + ["};", ""]


def render(ucd):
    version = unicode_version(ucd)
    general_category = general_categories(ucd)
    script, extensions = scripts(ucd)
    binary = binary_properties(ucd, general_category)
    pool = range_pool()
    tables = (cpp_table("general_category_values", "General_Category values and their aliases",
                        general_category, pool)
              + cpp_table("script_values", "Script values and their aliases", script, pool)
              + cpp_table("script_extensions_values", "Script_Extensions values and their aliases",
                          extensions, pool)
              + cpp_table("binary_properties", "ECMA-262's binary properties and their aliases", binary, pool))
    bounds = [f"0x{b:X}," for b in pool.bounds]
    packed = [" ".join(bounds[i:i + 12]) for i in range(0, len(bounds), 12)]
    head = [
        "// SPDX-License-Identifier: MIT AND Unicode-DFS-2016",
        "#pragma once",
        "",
        f"// Generated by scripts/generate-unicode-tables.py from the Unicode Character Database {version}:",
    ] + ["// " + line for line in textwrap.wrap(", ".join(INPUT_FILES) + ".", 96)] + [
        "// Do not edit: run `python3 scripts/generate-unicode-tables.py` to regenerate it.",
        "//",
    ] + [f"// {line}".rstrip() for line in UNICODE_NOTICE.splitlines()] + [
        "",
        "#include <cstdint>     // uint32_t",
        "#include <string_view> // string_view",
        "",
        "namespace handoff::detail::regex_impl::unicode_tables {",
        "",
        f'inline constexpr std::string_view unicode_version = "{version}";',
        "",
        "/// A property value's code points: range_bounds[2 * first + 2 * k] to",
        "/// range_bounds[2 * first + 2 * k + 1] inclusive, for k below count; sorted, disjoint, not adjacent.",
        "struct property_entry {",
        "    std::string_view name;",
        "    std::uint32_t first;",
        "    std::uint32_t count;",
        "};",
        "",
        "// clang-format off",
        f"inline constexpr char32_t range_bounds[{len(pool.bounds)}] = {{",
    ]
    return "\n".join(head + packed + ["};", ""] + tables + [
        "// clang-format on",
        "",
        "} // namespace handoff::detail::regex_impl::unicode_tables",
        "",
    ])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ucd", type=pathlib.Path, default=pathlib.Path("/usr/share/unicode"),
                        help="directory of the Unicode Character Database files (default: %(default)s)")
    parser.add_argument("--output", type=pathlib.Path, default=OUTPUT, help="header to write")
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 when the header differs from a fresh generation")
    args = parser.parse_args()
    if not (args.ucd / "Scripts.txt").is_file():
        sys.exit(f"{args.ucd} holds no Unicode Character Database (install Debian's unicode-data, or pass --ucd)")
    text = render(args.ucd)
    if args.check:
        current = args.output.read_text(encoding="utf-8") if args.output.exists() else ""
        if current != text:
            stated = re.search(r"Unicode Character Database (\S+):", current)
            print(f"{args.output} (Unicode {stated.group(1) if stated else 'unknown'}) is not what "
                  f"scripts/generate-unicode-tables.py generates from {args.ucd} (Unicode {unicode_version(args.ucd)}):"
                  " run it and commit the result", file=sys.stderr)
            return 1
        return 0
    args.output.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
