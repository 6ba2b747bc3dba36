#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes include/handoff/detail/regex/unicode_tables.hpp, the code point tables behind the regex
engine's Unicode property escapes (\\p{...} and \\P{...}), and
include/handoff/detail/schema/idna_tables.hpp, those behind the `hostname` and `idn-hostname`
formats (IDNA2008), from the Unicode Character Database.

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
IDNA_OUTPUT = REPO / "include/handoff/detail/schema/idna_tables.hpp"
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

# The IDNA2008 header's files.
IDNA_INPUT_FILES = [
    "UnicodeData.txt",
    "extracted/DerivedGeneralCategory.txt",
    "PropList.txt",
    "DerivedCoreProperties.txt",
    "DerivedNormalizationProps.txt",
    "HangulSyllableType.txt",
    "Blocks.txt",
    "Scripts.txt",
    "extracted/DerivedCombiningClass.txt",
    "extracted/DerivedJoiningType.txt",
    "extracted/DerivedBidiClass.txt",
]

# RFC 5892 section 2.6, Exceptions (F): code points whose value the rules below would get wrong.
IDNA_EXCEPTIONS = {
    "PVALID": [0x00DF, 0x03C2, 0x06FD, 0x06FE, 0x0F0B, 0x3007],
    "CONTEXTO": [0x00B7, 0x0375, 0x05F3, 0x05F4, 0x30FB] + list(range(0x0660, 0x066A)) + list(range(0x06F0, 0x06FA)),
    "DISALLOWED": [0x0640, 0x07FA, 0x302E, 0x302F, 0x3031, 0x3032, 0x3033, 0x3034, 0x3035, 0x303B],
}
# RFC 5892 section 2.8, IgnorableBlocks (H).
IDNA_IGNORABLE_BLOCKS = ["Combining Diacritical Marks for Symbols", "Musical Symbols", "Ancient Greek Musical Notation"]
# RFC 5892 section 3's values that may stand in a label; the table leaves the others out.
IDNA_DERIVED_VALUES = ["PVALID", "CONTEXTJ", "CONTEXTO"]
# The scripts RFC 5892 appendix A's contextual rules name.
IDNA_SCRIPTS = ["Greek", "Hebrew", "Hiragana", "Katakana", "Han"]
# The bidirectional classes RFC 5893 section 2's rule names; any other class fails it.
IDNA_BIDI_CLASSES = ["L", "R", "AL", "AN", "EN", "ES", "CS", "ET", "ON", "BN", "NSM"]
# The joining types RFC 5892 appendix A.1 names.
IDNA_JOINING_TYPES = ["L", "D", "R", "T"]

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


def binary_property_ranges(ucd, files):
    """Name -> ranges for every binary property `files` list as "range ; Property_Name" lines."""
    found = {}
    for name in files:
        for fields, _ in data_lines(ucd / name):
            if len(fields) == 2:
                found.setdefault(fields[1], []).append(parse_range(fields[0]))
    return found


def binary_properties(ucd, general_category):
    """Name -> ranges for ECMA-262's binary properties, under every alias PropertyAliases.txt gives."""
    found = binary_property_ranges(ucd, BINARY_PROPERTY_FILES)
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


def generated_preamble(version, inputs):
    """A generated header's first lines: licences, provenance, the Unicode notice."""
    return [
        "// SPDX-License-Identifier: MIT AND Unicode-DFS-2016",
        "#pragma once",
        "",
        f"// Generated by scripts/generate-unicode-tables.py from the Unicode Character Database {version}:",
    ] + ["// " + line for line in textwrap.wrap(", ".join(inputs) + ".", 96)] + [
        "// Do not edit: run `python3 scripts/generate-unicode-tables.py` to regenerate it.",
        "//",
    ] + [f"// {line}".rstrip() for line in UNICODE_NOTICE.splitlines()] + [""]


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
    head = generated_preamble(version, INPUT_FILES) + [
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


def code_points(ranges):
    return {c for first, last in ranges for c in range(first, last + 1)}


def idna_derived_property(ucd, general_category):
    """Code point -> "PVALID", "CONTEXTJ" or "CONTEXTO" by RFC 5892 section 3's rules, in their
    order; every code point left out is DISALLOWED or UNASSIGNED. BackwardCompatible (G) is empty."""
    binary = binary_property_ranges(ucd, ["PropList.txt", "DerivedCoreProperties.txt", "DerivedNormalizationProps.txt"])
    blocks = {fields[1]: [parse_range(fields[0])] for fields, _ in data_lines(ucd / "Blocks.txt")}
    hangul = ranges_by_value(ucd / "HangulSyllableType.txt")
    exceptions = {c: value for value, cs in IDNA_EXCEPTIONS.items() for c in cs}
    unassigned = code_points(subtract(general_category["Cn"], binary["Noncharacter_Code_Point"]))
    ldh = code_points([(0x2D, 0x2D), (0x30, 0x39), (0x61, 0x7A)])
    join_control = code_points(binary["Join_Control"])
    unstable = code_points(binary["Changes_When_NFKC_Casefolded"])
    ignorable = code_points(binary["Default_Ignorable_Code_Point"] + binary["White_Space"]
                            + binary["Noncharacter_Code_Point"]
                            + [r for b in IDNA_IGNORABLE_BLOCKS for r in blocks[b]])
    old_jamo = code_points(hangul["L"] + hangul["V"] + hangul["T"])
    letter_digits = code_points([r for gc in ("Ll", "Lu", "Lo", "Nd", "Lm", "Mn", "Mc") for r in general_category[gc]])
    out = {}
    for c in range(MAX_CODE_POINT + 1):
        if c in exceptions:
            value = exceptions[c]
        elif c in unassigned:
            value = "UNASSIGNED"
        elif c in ldh:
            value = "PVALID"
        elif c in join_control:
            value = "CONTEXTJ"
        elif c in unstable or c in ignorable or c in old_jamo:
            value = "DISALLOWED"
        elif c in letter_digits:
            value = "PVALID"
        else:
            value = "DISALLOWED"
        if value in ("PVALID", "CONTEXTJ", "CONTEXTO"):
            out[c] = value
    return out


def canonical_decompositions(ucd):
    """(code point, first, second) for each canonical decomposition mapping (second 0 for a
    singleton); Hangul syllables decompose by UAX #15's arithmetic and are left out."""
    out = []
    for fields, _ in data_lines(ucd / "UnicodeData.txt"):
        parts = fields[5].split()
        if parts and not parts[0].startswith("<"):
            second = int(parts[1], 16) if len(parts) == 2 else 0
            out.append((int(fields[0], 16), int(parts[0], 16), second))
    return out


def canonical_compositions(ucd):
    """(first, second, composite) for each primary composite: a canonical decomposition into two
    code points whose composite is not Full_Composition_Exclusion (UAX #15 section 3)."""
    excluded = code_points(
        binary_property_ranges(ucd, ["DerivedNormalizationProps.txt"])["Full_Composition_Exclusion"])
    out = []
    for fields, _ in data_lines(ucd / "UnicodeData.txt"):
        parts = fields[5].split()
        if len(parts) == 2 and not parts[0].startswith("<") and int(fields[0], 16) not in excluded:
            out.append((int(parts[0], 16), int(parts[1], 16), int(fields[0], 16)))
    return sorted(out)


def runs_of(table):
    """(first, last, value) runs of `table` (code point -> value): adjacent code points of one value."""
    runs = []
    for c in sorted(table):
        if runs and runs[-1][1] == c - 1 and runs[-1][2] == table[c]:
            runs[-1] = (runs[-1][0], c, table[c])
        else:
            runs.append((c, c, table[c]))
    return runs


def valued_ranges(table, values):
    """runs_of `table` (code point -> value) for the values in `values`, each as its index there."""
    return runs_of({c: values.index(v) for c, v in table.items() if v in values})


def per_code_point(path, field=1):
    table = {}
    for value, ranges in ranges_by_value(path, field).items():
        for c in code_points(ranges):
            table[c] = value
    return table


def cpp_runs(name, what, runs, value_type):
    lines = [f"/// {what}", f"inline constexpr code_point_run<{value_type}> {name}[] = {{"]
    cells = [f"{{0x{first:X}, 0x{last:X}, {v}}}," for first, last, v in runs]
    lines += ["    " + " ".join(cells[i:i + 6]) for i in range(0, len(cells), 6)]
    return lines + ["};", ""]


def render_idna(ucd):
    version = unicode_version(ucd)
    general_category = general_categories(ucd)
    derived = idna_derived_property(ucd, general_category)
    values = IDNA_DERIVED_VALUES
    combining = {c: int(v) for c, v in per_code_point(ucd / "extracted/DerivedCombiningClass.txt").items() if v != "0"}
    ccc_runs = runs_of(combining)
    marks = {c: "M" for gc in ("Mn", "Mc", "Me") for c in code_points(general_category[gc])}
    script_table = {c: v for c, v in per_code_point(ucd / "Scripts.txt").items() if v in IDNA_SCRIPTS}
    compositions = canonical_compositions(ucd)
    decompositions = canonical_decompositions(ucd)
    body = (cpp_runs("derived_property", "RFC 5892 section 3: 0 PVALID, 1 CONTEXTJ, 2 CONTEXTO; any other code "
                     "point is DISALLOWED or UNASSIGNED.", valued_ranges(derived, values), "std::uint8_t")
            + cpp_runs("general_category_mark", "General_Category M (Mn, Mc, Me): no label begins with one "
                       "(RFC 5891 section 4.2.3.2).", valued_ranges(marks, ["M"]), "std::uint8_t")
            + cpp_runs("canonical_combining_class", "Canonical_Combining_Class, where it is not 0 (9 is Virama).",
                       ccc_runs, "std::uint8_t")
            + cpp_runs("joining_type", "Joining_Type: 0 L, 1 D, 2 R, 3 T (RFC 5892 appendix A.1); others left out.",
                       valued_ranges(per_code_point(ucd / "extracted/DerivedJoiningType.txt"), IDNA_JOINING_TYPES),
                       "std::uint8_t")
            + cpp_runs("bidi_class", "Bidi_Class: 0 " + ", ".join(f"{i} {c}" for i, c in enumerate(IDNA_BIDI_CLASSES))[2:]
                       + " (RFC 5893 section 2); any other class left out.",
                       valued_ranges(per_code_point(ucd / "extracted/DerivedBidiClass.txt"), IDNA_BIDI_CLASSES),
                       "std::uint8_t")
            + cpp_runs("script", "Script: " + ", ".join(f"{i} {c}" for i, c in enumerate(IDNA_SCRIPTS))
                       + " (RFC 5892 appendix A); others left out.", valued_ranges(script_table, IDNA_SCRIPTS),
                       "std::uint8_t")
            + ["/// Canonical decomposition mappings (UnicodeData.txt field 5, no tag), by code point; second",
               "/// 0 for a singleton. Hangul syllables decompose by arithmetic (UAX #15 section 16).",
               "inline constexpr composition canonical_decompositions[] = {"]
            + ["    " + " ".join(f"{{0x{b:X}, 0x{c:X}, 0x{a:X}}}," for a, b, c in decompositions[i:i + 4])
               for i in range(0, len(decompositions), 4)]
            + ["};", ""]
            + ["/// Primary composites (UAX #15 section 3), by first then second code point.",
               "inline constexpr composition canonical_compositions[] = {"]
            + ["    " + " ".join(f"{{0x{a:X}, 0x{b:X}, 0x{c:X}}}," for a, b, c in compositions[i:i + 4])
               for i in range(0, len(compositions), 4)]
            + ["};", ""])
    head = generated_preamble(version, IDNA_INPUT_FILES) + [
        "#include <cstdint> // uint8_t",
        "",
        "namespace handoff::detail::idna_tables {",
        "",
        "/// Code points first to last (inclusive) have `value`; runs sorted, disjoint.",
        "template <class Value>",
        "struct code_point_run {",
        "    char32_t first;",
        "    char32_t last;",
        "    Value value;",
        "};",
        "",
        "/// `first` followed by `second` composes to `composite` (and `composite` decomposes to them).",
        "struct composition {",
        "    char32_t first;",
        "    char32_t second;",
        "    char32_t composite;",
        "};",
        "",
        "// clang-format off",
    ] + idna_value_enums()
    return "\n".join(head + body + ["// clang-format on", "", "} // namespace handoff::detail::idna_tables", ""])


def idna_value_enums():
    """The value names of the IDNA tables, as C++ enumerators in the tables' order."""
    def enum(name, what, names):
        return [f"/// {what}", f"enum {name} : std::uint8_t {{ {', '.join(names)} }};", ""]
    return (enum("derived_value", "derived_property's values.", [v.lower() for v in IDNA_DERIVED_VALUES])
            + enum("joining_value", "joining_type's values.", ["join_" + v.lower() for v in IDNA_JOINING_TYPES])
            + enum("bidi_value", "bidi_class's values.", ["bidi_" + v.lower() for v in IDNA_BIDI_CLASSES])
            + enum("script_value", "script's values.", [v.lower() for v in IDNA_SCRIPTS])
            + ["/// No table holds this value: a code point none of its runs covers.",
               "inline constexpr std::uint8_t absent = 0xFF;", ""])


def write_or_check(path, text, check, ucd):
    if check:
        current = path.read_text(encoding="utf-8") if path.exists() else ""
        if current != text:
            stated = re.search(r"Unicode Character Database (\S+):", current)
            print(f"{path} (Unicode {stated.group(1) if stated else 'unknown'}) is not what "
                  f"scripts/generate-unicode-tables.py generates from {ucd} (Unicode {unicode_version(ucd)}):"
                  " run it and commit the result", file=sys.stderr)
            return 1
        return 0
    path.write_text(text, encoding="utf-8")
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ucd", type=pathlib.Path, default=pathlib.Path("/usr/share/unicode"),
                        help="directory of the Unicode Character Database files (default: %(default)s)")
    parser.add_argument("--output", type=pathlib.Path, default=OUTPUT, help="regex header to write")
    parser.add_argument("--idna-output", type=pathlib.Path, default=IDNA_OUTPUT, help="IDNA header to write")
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 when the header differs from a fresh generation")
    args = parser.parse_args()
    if not (args.ucd / "Scripts.txt").is_file():
        sys.exit(f"{args.ucd} holds no Unicode Character Database (install Debian's unicode-data, or pass --ucd)")
    failed = write_or_check(args.output, render(args.ucd), args.check, args.ucd)
    failed |= write_or_check(args.idna_output, render_idna(args.ucd), args.check, args.ucd)
    return failed


if __name__ == "__main__":
    sys.exit(main())
