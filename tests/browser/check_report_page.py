#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks what a real browser made of handoff-check report --html (scripts/test-on-demand.sh browser).

    check_report_page.py PAGE DOM PNG

PAGE is the page as written, DOM the page as Chromium's --dump-dom serialised it after
loading, PNG Chromium's screenshot of it in a phone-sized window. The browser must have kept
every class row and every bar that the page holds (a stray quote from model output that broke
the markup would lose some), run no script and loaded nothing, and drawn a screenshot that is
more than a blank window.
"""

import os
import struct
import sys
from html.parser import HTMLParser


class Census(HTMLParser):
    """Counts the elements the report's tests find by id and data-class."""

    def __init__(self):
        super().__init__()
        self.stack = []  # ids of the open table/svg elements we care about
        self.class_rows = []
        self.rects = []
        self.pointer_rows = 0
        self.legend = 0
        self.scripts = 0
        self.viewport = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag in ("table", "svg", "ul"):
            self.stack.append(a.get("id", ""))
        where = self.stack[-1] if self.stack else ""
        if tag == "tr" and "data-class" in a and where == "classes":
            self.class_rows.append(a["data-class"])
        elif tag == "tr" and "data-class" in a and where == "pointers":
            self.pointer_rows += 1
        elif tag == "li" and where == "legend":
            self.legend += 1
        elif tag == "rect" and where == "by-day":
            self.rects.append((a.get("data-class"), a.get("data-day"), float(a.get("height", "0"))))
        elif tag == "script":
            self.scripts += 1
        elif tag == "meta" and a.get("name") == "viewport":
            self.viewport = "width=device-width" in a.get("content", "")

    def handle_endtag(self, tag):
        if tag in ("table", "svg", "ul") and self.stack:
            self.stack.pop()


def census(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    c = Census()
    c.feed(text)
    c.close()
    return c, text


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    if len(head) < 24 or head[:8] != b"\x89PNG\r\n\x1a\n" or head[12:16] != b"IHDR":
        return None
    return struct.unpack(">II", head[16:24])


def main(page_path, dom_path, png_path):
    page, _ = census(page_path)
    dom, dom_text = census(dom_path)
    failures = []

    def expect(ok, what):
        print(("ok   " if ok else "FAIL ") + what)
        if not ok:
            failures.append(what)

    expect(len(page.class_rows) > 0, f"the page has class rows ({len(page.class_rows)})")
    expect(len(page.rects) > 0, f"the page has bars ({len(page.rects)})")
    expect(dom.class_rows == page.class_rows, f"the browser kept every class row in order ({len(dom.class_rows)})")
    expect(sorted(dom.rects) == sorted(page.rects), f"the browser kept every bar ({len(dom.rects)})")
    expect(all(h > 0 for _, _, h in dom.rects), "every bar has a positive height")
    expect(len(set((c, d) for c, d, _ in dom.rects)) == len(dom.rects), "one bar per class and day")
    expect(dom.legend == len(dom.class_rows), f"the legend names every class ({dom.legend})")
    expect(dom.pointer_rows > 0, f"the pointer table has rows ({dom.pointer_rows})")
    expect(dom.scripts == 0, "no script element")
    expect("http://" not in dom_text and "https://" not in dom_text, "no URL in the DOM")
    expect(dom.viewport, "the viewport meta survives")

    size = png_size(png_path)
    expect(size is not None, f"{png_path} is a PNG")
    if size is not None:
        nbytes = os.path.getsize(png_path)
        expect(size[0] >= 390 and size[1] >= 800, f"the screenshot is phone-sized ({size[0]}x{size[1]})")
        # a blank 390x844 window compresses to well under 5 KB; text, tables and bars do not
        expect(nbytes > 10_000, f"the screenshot is more than a blank window ({nbytes} bytes)")

    if failures:
        print(f"check_report_page: {len(failures)} check(s) failed", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(*sys.argv[1:]))
