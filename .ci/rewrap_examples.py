"""Rewrap the code of the documentation pages to the site's code column (``check_site.py``'s
``COLUMN_CHARS``): ``python .ci/rewrap_examples.py docs/guide/x.md ...``.

Only what is too wide changes. A ```pycon example whose source has a line over the column is
formatted by ruff (``ruff format``, the line length less the 4 characters of ``>>> ``), a trailing
comment that still does not fit going on its own line above its statement; an output line over the
column is broken at its spaces (the page examples run under doctest's NORMALIZE_WHITESPACE, so the
output stays true). A ```python exec block is formatted by ruff when one of its lines is too wide.
In a ``.py`` file, each run of docstring example lines (from a ``>>>`` line to a blank line) is
read at the indentation of its ``>>>``, as the reference shows it, and rewrapped the same way.
"""

from __future__ import annotations

import io
import re
import subprocess
import sys
import tokenize
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from check_site import COLUMN_CHARS  # noqa: E402

FENCE = re.compile(r"^(```(pycon|python exec)\n)(.*?)(^```)", re.M | re.S)


def ruff(code: str, width: int) -> str:
    out = subprocess.run([sys.executable, "-m", "ruff", "format", f"--line-length={width}",
                          "--stdin-filename=example.py", "-"],
                         input=code, capture_output=True, text=True, check=True)
    return out.stdout


def lift_comments(code: str, width: int) -> str:
    """A trailing comment on a line wider than ``width`` goes on its own line above it."""
    lines = code.split("\n")
    comments: dict[int, tuple[int, str]] = {}
    try:
        for tok in tokenize.generate_tokens(io.StringIO(code).readline):
            # a doctest directive stays on its example's line
            if tok.type == tokenize.COMMENT and tok.start[1] > 0 and not tok.string.startswith("# doctest:"):
                row, col = tok.start
                if len(lines[row - 1]) > width and lines[row - 1][:col].strip():
                    comments[row - 1] = (col, tok.string)
    except (tokenize.TokenError, IndentationError):
        return code
    out = []
    for i, line in enumerate(lines):
        if i in comments:
            col, text = comments[i]
            indent = line[: len(line) - len(line.lstrip())]
            out += [indent + text, line[:col].rstrip()]
        else:
            out.append(line)
    return "\n".join(out)


def wrap_output(line: str, width: int) -> list[str]:
    if len(line) <= width:
        return [line]
    indent = line[: len(line) - len(line.lstrip())]
    words = line.strip().split(" ")
    out, current = [], indent
    # a list or tuple continues under its first item
    hanging = indent + (" " if line.lstrip()[:1] in "[({" else "")
    for word in words:
        if current.strip() and len(current) + 1 + len(word) > width:
            out.append(current)
            current = hanging + word
        else:
            current = f"{current} {word}" if current.strip() else indent + word
    out.append(current)
    return out


def rewrap_source(source: list[str], width: int) -> list[str]:
    code = "\n".join(source) + "\n"
    code = lift_comments(code, width)
    lines = ruff(code, width).rstrip("\n").split("\n")
    # ruff drops a trailing semicolon; a notebook needs it (a figure shown once, not twice)
    last = [line for line in code.split("\n") if line.strip() and not line.lstrip().startswith("#")][-1:]
    if last and re.sub(r"\s+#.*$", "", last[0]).rstrip().endswith(";") and not lines[-1].endswith(";"):
        lines[-1] += ";"
    return lines


def rewrap_pycon(body: str) -> str:
    examples: list[tuple[list[str], list[str]]] = []
    for line in body.rstrip("\n").split("\n"):
        if line.startswith(">>>"):
            examples.append(([line[4:]], []))
        elif line.startswith("...") and examples and not examples[-1][1]:
            examples[-1][0].append(line[4:])
        elif examples:
            examples[-1][1].append(line)
        else:
            examples.append(([], [line]))
    out = []
    for source, want in examples:
        if source and any(len(line) + 4 > COLUMN_CHARS for line in source):
            new = rewrap_source(source, COLUMN_CHARS - 4)
            # a comment line first becomes its own example; the statement's lines follow
            first = 0
            while first < len(new) - 1 and new[first].startswith("#"):
                out.append(">>> " + new[first])
                first += 1
            out += [(">>> " if i == first else "... ") + line if line else "..."
                    for i, line in enumerate(new) if i >= first]
        elif source:
            out += [(">>> " if i == 0 else "... ") + line if line or i == 0 else "..."
                    for i, line in enumerate(source)]
        for line in want:
            out += wrap_output(line, COLUMN_CHARS)
    return "\n".join(out) + "\n"


def rewrap_exec(body: str) -> str:
    if all(len(line) <= COLUMN_CHARS for line in body.split("\n")):
        return body
    return "\n".join(rewrap_source(body.rstrip("\n").split("\n"), COLUMN_CHARS)) + "\n"


def rewrap_page(text: str) -> str:
    def one(match: re.Match[str]) -> str:
        body = match.group(3)
        new = rewrap_pycon(body) if match.group(2) == "pycon" else rewrap_exec(body)
        return match.group(1) + new + match.group(4)

    return FENCE.sub(one, text)


def rewrap_docstrings(text: str) -> str:
    lines = text.split("\n")
    out, i = [], 0
    quotes = ('"' * 3, "'" * 3)
    while i < len(lines):
        match = re.match(r"^(\s*)>>>( |$)", lines[i])
        if not match:
            out.append(lines[i])
            i += 1
            continue
        indent = match.group(1)
        j = i
        while (j < len(lines) and lines[j].strip() and lines[j].startswith(indent)
               and not lines[j].strip().startswith(quotes)):
            j += 1
        body = "\n".join(line[len(indent):] for line in lines[i:j]) + "\n"
        if any(len(line) - len(indent) > COLUMN_CHARS for line in lines[i:j]):
            body = rewrap_pycon(body)
        out += [indent + line if line else line for line in body.rstrip("\n").split("\n")]
        i = j
    return "\n".join(out)


if __name__ == "__main__":
    for name in sys.argv[1:]:
        path = Path(name)
        old = path.read_text(encoding="utf-8")
        new = rewrap_docstrings(old) if path.suffix == ".py" else rewrap_page(old)
        if new != old:
            path.write_text(new, encoding="utf-8")
            print(f"rewrapped {name}")
