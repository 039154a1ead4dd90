"""The one layout rule, and text that follows it.

A displayed table is a frame of strings whose columns come in *column groups*: one model's
block in a comparison (value, difference and interval, lift, p-value), an estimate with its
interval, a metric. The rule, in every format:

- a column group is never split;
- HTML is one table (the browser scrolls sideways), or for a table of many blocks one table per
  block, side by side while they fit the page and wrapped when not;
- text wraps into parts at group boundaries only, each part repeats the row labels and fits
  the width it is given; the footer wraps at that width too;
- a label shortened to fit (a row label, an index name, a group label) stays told apart from
  the others of its kind: :func:`cut_labels` keeps the part that tells it apart (``"lightgbm_…"``
  for ``"lightgbm_v17"`` and ``"lightgbm_v18"`` would be one label: ``"lightg…_v17"`` and
  ``"lightg…_v18"``), and row labels that no cut tells apart are not cut that far: the table
  goes into more parts instead.

:class:`Shown` is what a view hands to a renderer: the strings, the groups and the footer (the
lines that matter first, then the details).
"""

from __future__ import annotations

import textwrap
import unicodedata
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field, replace

import pandas as pd

__all__ = ["Shown", "column_groups", "cut_labels", "index_rows", "to_text", "wrap_footer"]

SEP = "  "
#: Width of a text table when neither the caller nor the terminal gives one.
DEFAULT_WIDTH = 80
_ELLIPSIS = "…"
#: Narrowest a row-label column gets before a group is split instead.
_MIN_LABEL = 6
#: Where a word of a label ends: a kept end of a label starts at one when it can.
_SEPARATORS = frozenset("_-./:@ ")


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
        HTML shows each column group as its own table (an all-pairs comparison: one block per
        pair; a compact comparison of three models or more: one per model, the ``repeat`` groups
        in each), each with the row labels, side by side while they fit the page and wrapped
        under each other when not, never one table wider than the page.
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


def _row_label(x: object) -> str:
    """A row label (a segment value, a model) as printed; a text that would print blank, with edge
    spaces or a line break (``""``, ``"mobile "``, ``"a\tb"``) in quotes, as ``repr`` writes it:
    told apart, and the grid kept. (Column headers keep ``""``: no label over shared columns.)"""
    text = _label(x)
    if isinstance(x, str) and (text != text.strip() or not text or not text.isprintable()):
        return repr(text)
    return text


def _mixed(values: list[object]) -> bool:
    """Texts beside other values in one level (1 and "1"): the texts are then printed quoted."""
    texts = sum(isinstance(v, str) for v in values)
    return 0 < texts < len(values) and any(v is not None for v in values if not isinstance(v, str))


def index_rows(index: pd.Index, sparse: bool = True) -> list[list[str]]:
    """Row labels as strings, one list per index level; an outer label repeated from the row
    above is blank (``sparse``), as pandas prints a MultiIndex."""
    if isinstance(index, pd.MultiIndex):
        raw = [list(index.get_level_values(i)) for i in range(index.nlevels)]
    else:
        raw = [list(index)]
    cols = [[_row_label(v) for v in level] if not _mixed(level) else [repr(v) if isinstance(v, str) else _label(v)
                                                                      for v in level] for level in raw]
    if sparse and len(cols) > 1:
        # repeated by value and type, not by text: 1 and "1" are two segments
        keys = list(zip(*([(type(v), v) for v in level] for level in raw)))
        for level in range(len(cols) - 1):
            for r in range(len(keys) - 1, 0, -1):
                if keys[r][: level + 1] == keys[r - 1][: level + 1]:
                    cols[level][r] = ""
    return cols


def _index_names(index: pd.Index) -> list[str]:
    return [_label(n) for n in index.names]


def cell_width(text: str) -> int:
    """The columns ``text`` takes in a terminal: 2 for a wide character (CJK, most emoji), 0 for a
    combining mark or a format character, 1 for the others.

    >>> cell_width("gauc"), cell_width("推荐"), cell_width("cafe\u0301")
    (4, 4, 4)
    """
    if text.isascii():
        return len(text)
    return sum(0 if unicodedata.combining(c) or unicodedata.category(c) in ("Me", "Cf")
               else 2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def _prefix(text: str, columns: int) -> str:
    """The longest start of ``text`` within ``columns`` (a combining mark stays with its letter)."""
    if text.isascii():
        return text[: max(columns, 0)]
    used, end = 0, 0
    for i, c in enumerate(text):
        w = cell_width(c)
        if used + w > columns:
            break
        used, end = used + w, i + 1
    return text[:end]


def _pad(text: str, width: int, how: str) -> str:
    """``ljust`` / ``rjust`` / ``center`` by terminal columns (:func:`cell_width`)."""
    extra = max(width - cell_width(text), 0)
    if how == "left":
        return text + " " * extra
    if how == "right":
        return " " * extra + text
    return " " * (extra // 2) + text + " " * (extra - extra // 2)


def _fit(text: str, width: int) -> str:
    return text if cell_width(text) <= width else _prefix(text, width - 1) + _ELLIPSIS


def _cut(text: str, width: int, keep: int) -> str:
    """``text`` in ``width`` columns: its start, the ellipsis, then its last ``keep`` characters."""
    tail = text[len(text) - keep:] if keep else ""
    return _prefix(text, width - 1 - cell_width(tail)) + _ELLIPSIS + tail


def _word_end(text: str, width: int, keep: int) -> int:
    """How many last characters to keep, at least ``keep``: from the start of the last word
    (``"_v17"`` rather than ``"7"``) if it is at most half the width, else half the width; the
    ``keep`` last characters if they start a word."""
    most = (width - 1) // 2
    if text[len(text) - keep] in _SEPARATORS:
        return keep  # it starts a word already
    for start in range(len(text) - keep - 1, max(len(text) - most, 0) - 1, -1):
        if text[start] in _SEPARATORS:
            return len(text) - start
    return max(keep, most)


def cut_labels(labels: Sequence[str], widths: int | Sequence[int]) -> list[str] | None:
    """Each label in at most its width (one for all, or one per label), each shortened label
    told apart from every other label; None when a label cannot be.

    A label that fits stays whole. One that does not is cut at its end (``"organic_searc…"``)
    unless another label starts the same way; then it keeps its start, an ellipsis and the
    fewest last characters that no other label shares with that start, from the start of a
    word when that fits (``"lightgbm_lambdar…_v17"``). A shortened label ``head…tail`` is told
    apart when no other label starts with ``head``, ends with ``tail`` and is longer than both:
    different labels never print the same, and none reads as the other. ``widths`` may give one
    label twice at two widths.

    >>> cut_labels(["lightgbm_ndcg_v17", "lightgbm_ndcg_v18", "email"], 12)
    ['lightgb…_v17', 'lightgb…_v18', 'email']
    >>> cut_labels(["organic_search", "push_notification"], 8)
    ['organic…', 'push_no…']
    >>> cut_labels(["ab_x_cd", "ab_y_cd"], 4) is None  # only the middle tells them apart
    True
    >>> cut_labels(["news…sports_weekly", "news_daily_sports…", "news_daily_xports…"], 12) is None
    True
    """
    ws = [widths] * len(labels) if isinstance(widths, int) else list(widths)
    shown: dict[tuple[str, int], str] = {}
    long: dict[int, list[str]] = {}  # per width: the labels longer than it
    for text, width in dict.fromkeys(zip(labels, ws)):
        if cell_width(text) <= width:
            shown[(text, width)] = text
        else:
            long.setdefault(width, []).append(text)
    texts = list(dict.fromkeys(labels))
    for width, cut in long.items():
        # a cut to ``width`` could read as any label of ``width`` characters or more
        keeps = _fewest_ends(cut, [t for t in texts if cell_width(t) >= width], width)
        if keeps is None:
            return None
        shown.update({(text, width): _cut(text, width, keep) for text, keep in keeps.items()})
    # a label holding the ellipsis itself can still print as another's cut: never two labels alike
    printed: dict[str, str] = {}
    for (text, _), out in shown.items():
        if printed.setdefault(out, text) != text:
            return None
    return [shown[item] for item in zip(labels, ws)]


def _ends(texts: list[str], width: int, keep: int) -> list[tuple[str, str]]:
    """The start and the end each text shows, cut to ``width`` keeping ``keep`` last characters."""
    out = []
    for t in texts:
        tail = t[len(t) - keep:] if keep else ""
        out.append((_prefix(t, width - 1 - cell_width(tail)), tail))  # by columns, as _cut prints it
    return out


def _alone(texts: list[str], rivals: list[str], width: int, keep: int) -> list[bool]:
    """Whether each text cut to ``width`` keeping ``keep`` last characters reads as itself alone
    among ``rivals`` (the texts included): no other starts and ends as it shows."""
    shown = _ends(texts, width, keep)
    wanted = set(shown)
    count: dict[tuple[str, str], int] = {}
    for key in _ends(rivals, width, keep):
        if key in wanted:
            count[key] = count.get(key, 0) + 1
    return [count[key] == 1 for key in shown]


def _fewest_ends(texts: list[str], rivals: list[str], width: int) -> dict[str, int] | None:
    """How many last characters each text keeps when cut to ``width``: the fewest that tell it
    apart from ``rivals``, or, when that also does, from the start of its last word; None when
    a text cannot be told apart."""
    keeps: dict[str, int] = {}
    pending = texts
    for keep in range(max(width, 0)):  # every round counts the rivals once
        alone = _alone(pending, rivals, width, keep)
        keeps.update({t: keep for t, ok in zip(pending, alone) if ok})
        pending = [t for t, ok in zip(pending, alone) if not ok]
        if not pending:
            break
    if pending:
        return None
    nicer: dict[int, list[str]] = {}  # the texts that would rather keep n last characters
    for text, keep in keeps.items():
        if keep and (n := _word_end(text, width, keep)) != keep:
            nicer.setdefault(n, []).append(text)
    for n, group in nicer.items():
        keeps.update({t: n for t, ok in zip(group, _alone(group, rivals, width, n)) if ok})
    return keeps


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
    grid = _measure(shown)
    if width:
        _fit_to_width(grid, shown.repeat, width)
    lead_width = sum(len(SEP) + grid.group_width(g) for g in grid.lead)
    parts = _parts(grid.index_width + lead_width, [grid.group_width(g) for g in grid.groups], width)
    printed = _printed_labels(grid)
    text = "\n\n".join(_part_text(grid, shown, part, printed) for part in parts)
    if shown.total is not None:
        text += f"\n\n[{shown.total[0]:,} rows x {shown.total[1]:,} columns]"
    return text + _footer_text(shown, footer, width, hint) + "\n"


@dataclass
class _Grid:
    """The cells of a shown table as text and the widths of its columns (row labels first)."""

    two: bool  # two header rows (a group label above the column labels)
    top: list[str]
    sub: list[str]
    cells: list[list[str]]
    idx: list[list[str]]
    names: list[str]
    idx_w: list[int]
    col_w: list[int]
    groups: list[list[int]]
    levels: list[list[str]] = field(default_factory=list)  # each index level's distinct labels
    own_w: list[int] = field(default_factory=list)  # each column's width without its group label
    index_width: int = 0
    lead: list[list[int]] = field(default_factory=list)  # groups repeated in every part
    floors: list[int] = field(default_factory=list)  # the narrowest each row-label column gets

    def group_width(self, g: list[int]) -> int:
        return sum(self.col_w[j] for j in g) + len(SEP) * (len(g) - 1)

    def floor(self, k: int) -> int:
        """The narrowest row-label column ``k`` gets: ``_MIN_LABEL``, or wider where its labels
        would read alike (a cut that tells labels apart at a width does at any wider one)."""
        if not self.floors:
            self.floors.extend(_narrowest(level, _MIN_LABEL, w) for level, w in zip(self.levels, self.idx_w))
        return self.floors[k]

    def can_narrow(self, k: int) -> bool:
        """Whether row-label column ``k`` can be one character narrower: its labels and the
        index names still told apart."""
        width = self.idx_w[k] - 1
        widths = [*self.idx_w[:k], width, *self.idx_w[k + 1:]]
        return width >= self.floor(k) and cut_labels(self.names, widths) is not None

    def narrow_index(self) -> bool:
        """The widest row-label column that can give way one character narrower; False when
        none can."""
        for k in sorted(range(len(self.idx_w)), key=lambda k: -self.idx_w[k]):
            if self.can_narrow(k):
                self.idx_w[k] -= 1
                self.index_width -= 1
                return True
        return False

    def narrowest_index(self) -> int:
        """The width of the row labels narrowed as far as they can be."""
        trial = replace(self, idx_w=list(self.idx_w))
        while trial.narrow_index():
            pass
        return trial.index_width


def _narrowest(labels: list[str], low: int, high: int) -> int:
    """The narrowest width from ``low`` to ``high`` (where every label fits) at which
    :func:`cut_labels` tells ``labels`` apart (bisection)."""
    while low < high:
        mid = (low + high) // 2
        if cut_labels(labels, mid) is None:
            low = mid + 1
        else:
            high = mid
    return high


def _measure(shown: Shown) -> _Grid:
    """Every cell as text and each column's width (a group label wider than its columns widens
    the group's last column)."""
    frame = shown.frame
    two = isinstance(frame.columns, pd.MultiIndex)
    sub = [_label(c[1]) if two else _label(c) for c in frame.columns]
    cells = [[str(v) for v in frame.iloc[:, j]] for j in range(frame.shape[1])]
    idx = index_rows(frame.index)
    names = _index_names(frame.index)
    if not any(names) and not isinstance(frame.index, pd.MultiIndex):
        names = [""]
    grid = _Grid(
        two=two,
        top=[_label(c[0]) for c in frame.columns] if two else [""] * frame.shape[1],
        sub=sub,
        cells=cells,
        idx=idx,
        names=names,
        idx_w=[max([cell_width(n), *(cell_width(v) for v in col)]) for n, col in zip(names, idx)],
        col_w=[max([cell_width(sub[j]), *(cell_width(v) for v in cells[j])]) for j in range(frame.shape[1])],
        groups=shown.groups,
        levels=[list(dict.fromkeys(col)) for col in index_rows(frame.index, sparse=False)],
    )
    grid.own_w = list(grid.col_w)
    for g in grid.groups:
        span = grid.group_width(g)
        if two and cell_width(grid.top[g[0]]) > span:
            grid.col_w[g[-1]] += cell_width(grid.top[g[0]]) - span
    grid.index_width = sum(grid.idx_w) + len(SEP) * (len(grid.idx_w) - 1)
    return grid


def _fit_to_width(grid: _Grid, repeat: int, width: int) -> None:
    """Row labels give way (ellipsis, labels told apart) before a group is split; the leading
    ``repeat`` groups go into every part when they fit; a group wider than the screen goes
    column by column."""
    if 0 < repeat < len(grid.groups):
        _place_lead(grid, repeat, width)
    widest = max([grid.group_width(g) for g in grid.groups] or [0])
    # row labels give way (ellipsis) before a group is ever split
    while grid.index_width + len(SEP) + widest > width and grid.narrow_index():
        pass
    _narrow_tops(grid, width)
    too_wide = [g for g in grid.groups if grid.index_width + len(SEP) + grid.group_width(g) > width]
    if too_wide:  # one group wider than the screen: its columns go one by one (last resort)
        grid.groups = [part for g in grid.groups for part in ([[j] for j in g] if g in too_wide else [g])]


def _narrow_tops(grid: _Grid, width: int) -> None:
    """Group labels (a model's name over its block) longer than their columns give way before a
    group is split: each such group narrows to the room beside the row labels, not below its own
    columns, when the labels cut to it are still told apart."""
    room = width - grid.index_width - len(SEP)
    target = [max(_own_width(grid, g), min(grid.group_width(g), room)) for g in grid.groups]
    if all(t == grid.group_width(g) for g, t in zip(grid.groups, target)):
        return
    if cut_labels([grid.top[g[0]] for g in grid.groups], target) is None:
        return
    for g, t in zip(grid.groups, target):
        grid.col_w[g[-1]] -= grid.group_width(g) - t


def _place_lead(grid: _Grid, repeat: int, width: int) -> None:
    """The leading groups go with the row labels into every part if, next to the widest other
    group, they fit: first their labels give way (down to their columns' width, told apart from
    the other group labels), then the row labels. Else they are groups like the others."""
    lead, rest = grid.groups[:repeat], grid.groups[repeat:]
    widest = max(grid.group_width(g) for g in rest)
    spare = width - len(SEP) - widest  # for the row labels and the leading groups
    full = sum(len(SEP) + grid.group_width(g) for g in lead)
    least = sum(len(SEP) + _own_width(grid, g) for g in lead)
    tops = [grid.top[g[0]] for g in grid.groups]
    narrowed = [_own_width(grid, g) if k < repeat else grid.group_width(g) for k, g in enumerate(grid.groups)]
    if cut_labels(tops, narrowed) is None:
        least = full  # their labels cannot give way
    if grid.narrowest_index() + least > spare:
        return
    give = max(full - max(spare - grid.index_width, least), 0)
    for g in lead:  # the leading groups' labels give way first
        cut = min(give, grid.group_width(g) - _own_width(grid, g))
        grid.col_w[g[-1]] -= cut
        give -= cut
    grid.lead, grid.groups = lead, rest
    lead_w = sum(len(SEP) + grid.group_width(g) for g in lead)
    while grid.index_width + lead_w > spare and grid.narrow_index():
        pass


def _own_width(grid: _Grid, g: list[int]) -> int:
    """A group's width without its group label."""
    return sum(grid.own_w[j] for j in g) + len(SEP) * (len(g) - 1)


@dataclass
class _Labels:
    """The labels as printed: each index level's (label -> shown), the index names, each
    group's label (by its columns)."""

    levels: list[dict[str, str]]
    names: list[str]
    tops: dict[tuple[int, ...], str]


def _printed_labels(grid: _Grid) -> _Labels:
    """Every label in its column's width, told apart from the others of its kind."""
    groups = [*grid.lead, *grid.groups]
    tops = _cuts([grid.top[g[0]] for g in groups], [grid.group_width(g) for g in groups])
    return _Labels(
        levels=[dict(zip(level, _cuts(level, w))) for level, w in zip(grid.levels, grid.idx_w)],
        names=_cuts(grid.names, grid.idx_w),
        tops={tuple(g): c for g, c in zip(groups, tops)},
    )


def _part_text(grid: _Grid, shown: Shown, part: list[int], printed: _Labels) -> str:
    """One part of the table: the repeated groups and the part's groups, next to the row labels."""
    shown_groups = [*grid.lead, *(grid.groups[k] for k in part)]
    cols = [j for g in shown_groups for j in g]
    col_w, idx_w = grid.col_w, grid.idx_w
    lines: list[str] = []
    if grid.two:
        head = " " * grid.index_width
        for g in shown_groups:
            head += SEP + _pad(printed.tops[tuple(g)], grid.group_width(g), "center")
        lines.append(head.rstrip())
    label = SEP.join(_pad(n, w, "left") for n, w in zip(printed.names, idx_w))
    lines.append((label + "".join(SEP + _pad(_fit(grid.sub[j], col_w[j]), col_w[j], "right") for j in cols)).rstrip())
    for r in range(shown.frame.shape[0]):
        if shown.gap is not None and r == shown.gap:
            lines.append(SEP.join("...".ljust(w) for w in idx_w).rstrip())
        row = SEP.join(_pad(short.get(col[r], col[r]), w, "left") for col, short, w in zip(grid.idx, printed.levels, idx_w))
        lines.append((row + "".join(SEP + _pad(grid.cells[j][r], col_w[j], "right") for j in cols)).rstrip())
    return "\n".join(lines)


def _cuts(labels: list[str], widths: int | list[int]) -> list[str]:
    """:func:`cut_labels`, or each label cut at its end when no cut tells them apart (a group
    label over one column of a group split column by column, the last resort)."""
    cut = cut_labels(labels, widths)
    if cut is not None:
        return cut
    ws = [widths] * len(labels) if isinstance(widths, int) else widths
    return [_fit(t, w) for t, w in zip(labels, ws)]


def _footer_text(shown: Shown, footer: str, width: int | None, hint: str | None) -> str:
    """The footer's lines (``"short"``, ``"full"`` or ``"none"``), wrapped, after a blank line."""
    chosen = {"short": shown.short, "full": shown.lines, "none": []}[footer]
    if footer == "short" and shown.details and hint:
        chosen = [*chosen, hint]
    return "\n\n" + "\n".join(wrap_footer(chosen, width)) if chosen else ""
