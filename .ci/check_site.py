"""Check the built documentation site (``python .ci/check_site.py SITE_DIR``, after
``mkdocs build``): what a reader sees must render.

- no reST role printed raw (``:func:`report``` or, as Markdown renders it, ``:func:<code>``):
  mkdocstrings does not read Sphinx roles, ``docs/hooks.py`` turns them into links;
- no line of a ``<pre>`` block wider than the content column, ``COLUMN_CHARS`` characters: at
  1280 px (Material, both sidebars shown) a code block's text area is 656 px and a character of its
  13.6 px monospace font 8.18 px, so 80 characters fit; a longer line hides behind a horizontal
  scroll.

Exit status 1 and one line per problem (page, line, the text) when something is wrong.
"""

from __future__ import annotations

import html
import re
import sys
from pathlib import Path

COLUMN_CHARS = 80
RAW_ROLE = re.compile(r":(?:py:)?(?:func|class|meth|mod|attr|data|obj|exc):(?:`|<code>)")
PRE = re.compile(r"<pre\b[^>]*>(.*?)</pre>", re.S)
TAG = re.compile(r"<[^>]+>")


def pre_lines(page: str) -> list[str]:
    """The text lines of every ``<pre>`` block of a page, as the reader sees them."""
    lines = []
    for block in PRE.findall(page):
        # the line-number and anchor spans of pymdownx.highlight carry no text
        lines += html.unescape(TAG.sub("", block)).split("\n")
    return lines


def problems(site: Path) -> list[str]:
    out = []
    for path in sorted(site.rglob("*.html")):
        text = path.read_text(encoding="utf-8")
        name = path.relative_to(site)
        for match in RAW_ROLE.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            out.append(f"{name}:{line}: raw reST role {text[match.start():match.start() + 40]!r}")
        for line in pre_lines(text):
            if len(line.rstrip()) > COLUMN_CHARS:
                out.append(f"{name}: code line of {len(line.rstrip())} > {COLUMN_CHARS} characters: {line.strip()[:60]!r}")
    for path in sorted(site.rglob("search_index.json")):
        text = path.read_text(encoding="utf-8")
        out += [f"{path.relative_to(site)}: raw reST role {text[m.start():m.start() + 40]!r}" for m in RAW_ROLE.finditer(text)]
    return out


def main(argv: list[str]) -> int:
    if len(argv) != 1 or not Path(argv[0]).is_dir():
        print("usage: python .ci/check_site.py SITE_DIR (the directory mkdocs build wrote)", file=sys.stderr)
        return 2
    found = problems(Path(argv[0]))
    for line in found:
        print(line)
    if found:
        print(f"{len(found)} problems in the built site", file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
