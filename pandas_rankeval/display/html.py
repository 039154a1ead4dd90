"""HTML and Markdown of a :class:`~.layout.Shown` table, under the one layout rule.

HTML is one ``<table>`` in a sideways-scrolling box: a column group gets a spanning header and a
rule on its left, never a page break. A table of many blocks (a comparison's compact view of three
models or more, every pair of an all-pairs one) is one table per block instead, each with the row
labels, side by side while the page has room and wrapped under each other when it has not. Cells carry their own padding and
alignment in ``style`` attributes, so the table reads the same in Jupyter, on a report page and
in an e-mail (which drops ``<style>`` blocks). ``▲`` is green and ``▼`` red (the shape says the
same, for readers who do not see the colours). The footer: the lines that matter, then the
details in a ``<details>`` element, closed.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence

import pandas as pd

from .formatting import DOWN, UP
from .layout import Shown, index_rows

__all__ = ["footer_html", "to_html", "to_markdown"]

_CELL = "padding:3px 10px;white-space:nowrap;"
_TD = _CELL + "text-align:right;font-variant-numeric:tabular-nums;"
_TH_INDEX = _CELL + "text-align:left;font-weight:bold;vertical-align:top;"
_TH_HEAD = _CELL + "text-align:right;font-weight:bold;border-bottom:1px solid #888;"
_GROUP_RULE = "border-left:1px solid #ccc;"
_UP_COLOR, _DOWN_COLOR = "#1a7f37", "#cf222e"
_FOOT = "font-size:0.9em;color:#444;line-height:1.45;margin:0.35em 0 0 0;"


def _cell_html(text: str) -> str:
    out = html.escape(text)
    out = out.replace(UP, f'<span style="color:{_UP_COLOR}">{UP}</span>')
    return out.replace(DOWN, f'<span style="color:{_DOWN_COLOR}">{DOWN}</span>')


def footer_html(short: Sequence[str], details: Sequence[str]) -> str:
    """The lines that matter, then the details in a closed ``<details>``."""
    parts = []
    if short:
        lines = "<br>".join(html.escape(line) for line in short)
        parts.append(f'<p class="rankeval-footer" style="{_FOOT}">{lines}</p>')
    if details:
        lines = "<br>".join(html.escape(line) for line in details)
        parts.append(
            f'<details class="rankeval-details" style="{_FOOT}"><summary style="cursor:pointer;color:#666">'
            f"details: methods, coverage per metric, choices ({len(details)} lines)</summary>"
            f'<p style="margin:0.2em 0 0 1em">{lines}</p></details>'
        )
    return "".join(parts)


#: Blocks of a stacked table flow side by side while the page has room and wrap under each other
#: when it has not (each block scrolls sideways on its own if it alone is too wide).
_FLOW = "display:flex;flex-wrap:wrap;gap:0.8em 2em;align-items:flex-start"
_BLOCK = "min-width:0;max-width:100%"


def to_html(shown: Shown) -> str:
    """One scrolling table with grouped headers, then its footer; with ``shown.stack``, one
    table per column group (each with the row labels, and the ``repeat`` leading groups, as text
    repeats them), side by side while they fit the page and wrapped under each other when not."""
    lead = [j for g in shown.groups[: shown.repeat] for j in g] if shown.stack else []
    blocks = shown.groups[shown.repeat:] if shown.stack else []
    if len(blocks) > 1:
        tables = []
        for g in blocks:
            cols = [*lead, *g]
            groups = [list(range(len(lead))), list(range(len(lead), len(cols)))] if lead else [list(range(len(g)))]
            part = Shown(shown.frame.iloc[:, cols], groups, gap=shown.gap)
            tables.append(_table_html(part))
        return _wrap_html(f'<div style="{_FLOW}">' + "".join(f'<div style="{_BLOCK}">{t}</div>' for t in tables)
                          + "</div>", shown)
    return _wrap_html(_table_html(shown), shown)


def _wrap_html(tables: str, shown: Shown) -> str:
    parts = ['<div class="rankeval-table" style="max-width:100%">', tables]
    if shown.total is not None:
        parts.append(f'<p style="{_FOOT}">{shown.total[0]:,} rows × {shown.total[1]:,} columns</p>')
    parts.append(footer_html(shown.short, shown.details))
    parts.append("</div>")
    return "".join(parts)


def _table_html(shown: Shown) -> str:
    """The table itself, in a horizontally scrolling box."""
    frame = shown.frame
    two = isinstance(frame.columns, pd.MultiIndex)
    # a rule left of each column group, when columns come in groups (not one rule per column)
    starts = {g[0] for g in shown.groups[1:]} if two or any(len(g) > 1 for g in shown.groups) else set()
    rows = _header_rows_html(shown, starts)
    nidx = frame.index.nlevels
    labels = index_rows(frame.index, sparse=False)
    body: list[str] = []
    values = frame.to_numpy()
    for r in range(frame.shape[0]):
        if shown.gap is not None and r == shown.gap:
            body.append(f'<tr><td colspan="{nidx + frame.shape[1]}" style="{_CELL}text-align:left">…</td></tr>')
        cells = "".join(_index_cell_html(labels, r, level, frame.shape[0], shown.gap) for level in range(nidx))
        for j in range(frame.shape[1]):
            rule = _GROUP_RULE if j in starts else ""
            cells += f'<td style="{_TD}{rule}">{_cell_html(str(values[r, j]))}</td>'
        body.append(f"<tr>{cells}</tr>")
    table = (
        '<table class="rankeval" style="border-collapse:collapse;border:none;margin:0">'
        f"<thead>{''.join(rows)}</thead><tbody>{''.join(body)}</tbody></table>"
    )
    return f'<div style="overflow-x:auto">{table}</div>'


def _header_rows_html(shown: Shown, starts: set[int]) -> list[str]:
    """The header: the column groups' labels (two header rows), then the index and column names."""
    frame = shown.frame
    two = isinstance(frame.columns, pd.MultiIndex)
    nidx = frame.index.nlevels
    names = [("" if n is None else str(n)) for n in frame.index.names]
    rows: list[str] = []
    if two:
        head = f'<th colspan="{nidx}" style="{_CELL}"></th>' if nidx else ""
        for g in shown.groups:
            label = html.escape(str(frame.columns[g[0]][0]))
            rule = _GROUP_RULE if g[0] in starts else ""
            head += (
                f'<th colspan="{len(g)}" style="{_CELL}text-align:center;font-weight:bold;'
                f'border-bottom:1px solid #bbb;{rule}">{label}</th>'
            )
        rows.append(f"<tr>{head}</tr>")
    sub = [str(c[1]) if two else str(c) for c in frame.columns]
    head = "".join(f'<th style="{_TH_HEAD}text-align:left">{html.escape(n)}</th>' for n in names)
    head += "".join(
        f'<th style="{_TH_HEAD}{_GROUP_RULE if j in starts else ""}">{html.escape(s)}</th>' for j, s in enumerate(sub)
    )
    rows.append(f"<tr>{head}</tr>")
    return rows


def _index_cell_html(labels: list[list[str]], r: int, level: int, n_rows: int, gap: int | None) -> str:
    """Row ``r``'s label at index ``level``: an outer label spans the rows it heads (not across
    the gap), so it is written on its first row only."""
    nidx = len(labels)
    key = tuple(col[r] for col in labels[: level + 1])
    prev = tuple(col[r - 1] for col in labels[: level + 1]) if r else None
    if level < nidx - 1 and key == prev and not (gap is not None and r == gap):
        return ""  # the outer label spans the rows it heads
    span = 1
    if level < nidx - 1:
        while r + span < n_rows and tuple(col[r + span] for col in labels[: level + 1]) == key and not (
            gap is not None and r + span == gap
        ):
            span += 1
    attr = f' rowspan="{span}"' if span > 1 else ""
    return f'<th{attr} style="{_TH_INDEX}">{html.escape(labels[level][r])}</th>'


_NUM = r"[-+]?[\d,]*\.?\d+(e[-+]?\d+)?%?"
_NUMBER = re.compile(rf"^([▲▼] )?(< )?{_NUM}( \[{_NUM}, {_NUM}\])?( \({_NUM}\))?$|^NaN$|^$|^[▲▼] \w+$|^no$|^all [\d,]+$")


def to_markdown(shown: Shown, footer: str = "full") -> str:
    """A GitHub pipe table (no ``tabulate`` needed), numbers right-aligned, then the footer:
    the short lines as a list, the details in a ``<details>`` block (GitHub renders it closed).

    >>> from pandas_rankeval.display.layout import Shown
    >>> frame = pd.DataFrame({"auc": ["0.5000"]}, index=pd.Index(["a"], name="model"))
    >>> print(to_markdown(Shown(frame, [[0]], ["coverage: 4 rows"])))
    | model |    auc |
    | :---- | -----: |
    | a     | 0.5000 |
    <BLANKLINE>
    - coverage: 4 rows
    <BLANKLINE>
    """
    header, body, n_labels = _md_cells(shown.frame)
    right = [bool(body) and all(_NUMBER.match(row[i].strip()) for row in body) for i in range(len(header))]
    right = [r and i >= n_labels for i, r in enumerate(right)]
    widths = [max([3, len(header[i]), *(len(row[i]) for row in body)]) for i in range(len(header))]

    def line(cells: list[str]) -> str:
        return "| " + " | ".join(c.rjust(w) if r else c.ljust(w) for c, w, r in zip(cells, widths, right)) + " |"

    rule = "| " + " | ".join(("-" * (w - 1) + ":") if r else (":" + "-" * (w - 1)) for w, r in zip(widths, right)) + " |"
    out = "\n".join([line(header), rule, *(line(row) for row in body)])
    if shown.total is not None:
        out += f"\n\n{shown.total[0]:,} rows x {shown.total[1]:,} columns"
    return out + _md_footer(shown, footer) + "\n"


def _md_cells(frame: pd.DataFrame) -> tuple[list[str], list[list[str]], int]:
    """The header and the rows of a pipe table as escaped text (the index's labels first, when
    it is named); how many of the columns are labels."""
    if isinstance(frame.columns, pd.MultiIndex):
        header_cols = [" ".join(str(x) for x in c if str(x)) for c in frame.columns]
    else:
        header_cols = [str(c) for c in frame.columns]
    named = any(n is not None for n in frame.index.names)
    labels = index_rows(frame.index, sparse=False) if named else []
    header = [*(str(n) for n in frame.index.names), *header_cols] if named else header_cols
    body = [[*(col[r] for col in labels), *map(str, frame.iloc[r])] for r in range(frame.shape[0])]
    return [_md_escape(c) for c in header], [[_md_escape(c) for c in row] for row in body], len(labels)


def _md_escape(text: str) -> str:
    """A cell's text inside a pipe table (``|`` escaped, on one line)."""
    return str(text).replace("|", "\\|").replace("\n", " ")


def _md_footer(shown: Shown, footer: str) -> str:
    """The short lines as a list, the details in a ``<details>`` block (``"full"`` only)."""
    short = shown.short if footer != "none" else []
    details = shown.details if footer == "full" else []
    out = ""
    if short:
        out += "\n\n" + "\n".join(f"- {line_}" for line_ in short)
    if details:
        out += "\n\n<details><summary>details</summary>\n\n" + "\n".join(f"- {d}" for d in details) + "\n\n</details>"
    return out
