"""The one layout rule, and text that follows it.

A displayed table is a frame of strings whose columns come in *column groups*: one model's
block in a comparison (value, difference and interval, lift, p-value), an estimate with its
interval, a metric. The rule, in every format:

- a column group is never split;
- HTML is one table (the browser scrolls sideways);
- text wraps into parts at group boundaries only, each part repeats the row labels and fits
  the width it is given; the footer wraps at that width too.

:class:`Shown` is what a view hands to a renderer: the strings, the groups and the footer (the
lines that matter first, then the details).
"""

from __future__ import annotations

import textwrap
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field

import pandas as pd

__all__ = ["Shown", "column_groups", "index_rows", "to_text", "wrap_footer"]

SEP = "  "
#: Width of a text table when neither the caller nor the terminal gives one.
DEFAULT_WIDTH = 80
_ELLIPSIS = "…"


@dataclass
class Shown:
    """A table ready to render.

    Attributes
    ----------
    frame : DataFrame of str
        The cells; columns a flat Index, or two levels (group label, column label).
    groups : list of list of int
        Column positions of each column group, left to right, covering every column once.
    short : list of str
        The footer lines that matter at a glance (two or three).
    details : list of str
        The other footer lines: methods, per-metric coverage, choices.
    gap : int or None
        Row position before which rows were left out (a long table's head and tail).
    total : (int, int) or None
        The full table's shape when rows were left out.
    repeat : int
        Leading groups that text repeats in every part next to the row labels (a comparison's
        baseline: never a block of its own), when they fit with the widest other group.
    stack : bool
        HTML shows each column group as its own table under the previous one (an all-pairs
        comparison: one block per pair, the row labels in each), never one table wider than
        the page.
    """

    frame: pd.DataFrame
    groups: list[list[int]]
    short: list[str] = field(default_factory=list)
    details: list[str] = field(default_factory=list)
    gap: int | None = None
    total: tuple[int, int] | None = None
    repeat: int = 0
    stack: bool = False

    @property
    def lines(self) -> list[str]:
        """Every footer line: the short ones first, then the details."""
        return [*self.short, *self.details]


def column_groups(columns: pd.Index, spec: Sequence[Sequence[Hashable]] | None = None) -> list[list[int]]:
    """Column positions grouped: by the first level of two-level columns, by ``spec`` (lists of
    column names), else one group per column. Groups are contiguous and cover every column.

    >>> column_groups(pd.MultiIndex.from_tuples([("a", "x"), ("a", "y"), ("b", "x")]))
    [[0, 1], [2]]
    >>> column_groups(pd.Index(["value", "diff", "ci_low", "p"]), [["diff", "ci_low"]])
    [[0], [1, 2], [3]]
    """
    if isinstance(columns, pd.MultiIndex):
        out: list[list[int]] = []
        for j, key in enumerate(columns.get_level_values(0)):
            if out and columns.get_level_values(0)[out[-1][0]] == key:
                out[-1].append(j)
            else:
                out.append([j])
        return out
    of: dict[Hashable, int] = {}
    for k, names in enumerate(spec or ()):
        for name in names:
            of[name] = k
    out = []
    last: int | None = None
    for j, name in enumerate(columns):
        k = of.get(name)  # type: ignore[assignment]  # stubs narrower than runtime
        if out and k is not None and k == last:
            out[-1].append(j)
        else:
            out.append([j])
        last = k
    return out


def _label(x: object) -> str:
    return "" if x is None else str(x)


def index_rows(index: pd.Index, sparse: bool = True) -> list[list[str]]:
    """Row labels as strings, one list per index level; an outer label repeated from the row
    above is blank (``sparse``), as pandas prints a MultiIndex."""
    if isinstance(index, pd.MultiIndex):
        cols = [[_label(v) for v in index.get_level_values(i)] for i in range(index.nlevels)]
    else:
        cols = [[_label(v) for v in index]]
    if sparse and len(cols) > 1:
        keys = list(zip(*cols))
        for level in range(len(cols) - 1):
            for r in range(len(keys) - 1, 0, -1):
                if keys[r][: level + 1] == keys[r - 1][: level + 1]:
                    cols[level][r] = ""
    return cols


def _index_names(index: pd.Index) -> list[str]:
    return [_label(n) for n in index.names]


def _fit(text: str, width: int) -> str:
    return text if len(text) <= width else text[: max(width - 1, 0)] + _ELLIPSIS


def wrap_footer(lines: Sequence[str], width: int | None) -> list[str]:
    """Footer lines wrapped at ``width`` (continuations indented by two spaces)."""
    if not width:
        return list(lines)
    out: list[str] = []
    for line in lines:
        out += textwrap.wrap(line, width=width, subsequent_indent="  ", break_on_hyphens=False) or [""]
    return out


def _parts(index_width: int, group_widths: list[int], width: int | None) -> list[list[int]]:
    """Group numbers of each part: whole groups next to the row labels, in as few parts as fit
    ``width``, and those parts as even as they can be, so that no part is one narrow group left
    over (``groups_used`` alone in a part of its own at 120 columns; issue 28)."""
    parts = _fill(index_width, group_widths, width)
    if not width or len(parts) < 2:
        return parts
    for cap in range(index_width + len(SEP) + max(group_widths), width):
        even = _fill(index_width, group_widths, cap)
        if len(even) <= len(parts):
            return even
    return parts


def _fill(index_width: int, group_widths: list[int], width: int | None) -> list[list[int]]:
    """Group numbers of each part: as many whole groups as fit next to the row labels."""
    parts: list[list[int]] = [[]]
    used = index_width
    for k, w in enumerate(group_widths):
        if width and parts[-1] and used + len(SEP) + w > width:
            parts.append([])
            used = index_width
        parts[-1].append(k)
        used += len(SEP) + w
    return parts


def to_text(shown: Shown, width: int | None = DEFAULT_WIDTH, footer: str = "short", hint: str | None = None) -> str:
    """The table as terminal text: parts at group boundaries that fit ``width`` (None or 0: one
    part, however wide), then the footer (``"short"``, ``"full"`` or ``"none"``) wrapped at
    ``width``; ``hint`` is added under a short footer when details were left out."""
    frame = shown.frame
    two = isinstance(frame.columns, pd.MultiIndex)
    top = [_label(c[0]) for c in frame.columns] if two else [""] * frame.shape[1]
    sub = [_label(c[1]) if two else _label(c) for c in frame.columns]
    cells = [[str(v) for v in frame.iloc[:, j]] for j in range(frame.shape[1])]
    idx = index_rows(frame.index)
    names = _index_names(frame.index)
    if not any(names) and not isinstance(frame.index, pd.MultiIndex):
        names = [""]
    idx_w = [max([len(n), *(len(v) for v in col)]) for n, col in zip(names, idx)]
    col_w = [max([len(sub[j]), *(len(v) for v in cells[j])]) for j in range(frame.shape[1])]
    groups = shown.groups
    for g in groups:  # a group label wider than its columns widens the group's last column
        span = sum(col_w[j] for j in g) + len(SEP) * (len(g) - 1)
        if two and len(top[g[0]]) > span:
            col_w[g[-1]] += len(top[g[0]]) - span

    def group_width(g: list[int]) -> int:
        return sum(col_w[j] for j in g) + len(SEP) * (len(g) - 1)

    index_width = sum(idx_w) + len(SEP) * (len(idx_w) - 1)
    lead: list[list[int]] = []
    if width and 0 < shown.repeat < len(groups):
        # the leading groups go with the row labels into every part, if the row labels can give
        # way enough for them and the widest other group; else they are groups like the others
        lead_w = sum(len(SEP) + group_width(g) for g in groups[: shown.repeat])
        widest = max(group_width(g) for g in groups[shown.repeat:])
        give = sum(max(w - 6, 0) for w in idx_w)
        if index_width - give + lead_w + len(SEP) + widest <= width:
            lead, groups = groups[: shown.repeat], groups[shown.repeat:]
            while index_width + lead_w + len(SEP) + widest > width:
                k = idx_w.index(max(idx_w))
                idx_w[k] -= 1
                index_width -= 1
    if width:
        widest = max([group_width(g) for g in groups] or [0])
        # row labels give way (ellipsis) before a group is ever split
        while index_width + len(SEP) + widest > width and max(idx_w, default=0) > 6:
            k = idx_w.index(max(idx_w))
            idx_w[k] -= 1
            index_width -= 1
        too_wide = [g for g in groups if index_width + len(SEP) + group_width(g) > width]
        if too_wide:  # one group wider than the screen: its columns go one by one (last resort)
            groups = [part for g in groups for part in ([[j] for j in g] if g in too_wide else [g])]
    lead_width = sum(len(SEP) + group_width(g) for g in lead)
    parts = _parts(index_width + lead_width, [group_width(g) for g in groups], width)

    blocks: list[str] = []
    for part in parts:
        shown_groups = [*lead, *(groups[k] for k in part)]
        cols = [j for g in shown_groups for j in g]
        lines: list[str] = []
        if two:
            head = " " * index_width
            for g in shown_groups:
                head += SEP + _fit(top[g[0]], group_width(g)).center(group_width(g))
            lines.append(head.rstrip())
        label = SEP.join(_fit(n, w).ljust(w) for n, w in zip(names, idx_w))
        lines.append((label + "".join(SEP + _fit(sub[j], col_w[j]).rjust(col_w[j]) for j in cols)).rstrip())
        for r in range(frame.shape[0]):
            if shown.gap is not None and r == shown.gap:
                lines.append(SEP.join("...".ljust(w) for w in idx_w).rstrip())
            row = SEP.join(_fit(col[r], w).ljust(w) for col, w in zip(idx, idx_w))
            lines.append((row + "".join(SEP + cells[j][r].rjust(col_w[j]) for j in cols)).rstrip())
        blocks.append("\n".join(lines))
    text = "\n\n".join(blocks)
    if shown.total is not None:
        text += f"\n\n[{shown.total[0]:,} rows x {shown.total[1]:,} columns]"
    chosen = {"short": shown.short, "full": shown.lines, "none": []}[footer]
    if footer == "short" and shown.details and hint:
        chosen = [*chosen, hint]
    if chosen:
        text += "\n\n" + "\n".join(wrap_footer(chosen, width))
    return text + "\n"
