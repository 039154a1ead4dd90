"""Display of result tables: the numbers, then their coverage and the choices behind them.

``report()`` and ``compare()`` return a :class:`ResultTable`, a DataFrame that prints
(terminal) and renders (Jupyter) with a footer: how many groups and rows the numbers
cover, what was skipped, and the tie / weight / interval choices. Everything derived from
it (a slice, a copy, arithmetic) is a plain DataFrame.
"""

from __future__ import annotations

import html
import math
import re
from collections.abc import Hashable
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["ResultTable", "format_table", "to_markdown", "describe_params", "coverage_sentence"]

#: Report columns that describe coverage rather than a metric.
COVERAGE_COLUMNS = (
    "n_groups",
    "n_rows",
    "gauc_groups_used",
    "gauc_rows_skipped",
    "groups_no_relevant",
    "rows_dropped",
)


def _missing(x: Any) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x))


def _fmt_float(x: Any, digits: int = 4) -> str:
    if _missing(x):
        return "NaN"
    return f"{float(x):.{digits}f}"


def _fmt_p(x: Any) -> str:
    if _missing(x):
        return "NaN"
    x = float(x)
    return "<0.0001" if 0 < x < 0.0001 else f"{x:.4f}"


def _fmt_int(x: Any) -> str:
    if _missing(x):
        return "NaN"
    return f"{int(x):,}"


def _fmt_share(x: Any) -> str:
    if _missing(x):
        return "NaN"
    return f"{float(x):.1%}"


def _fmt_any(x: Any) -> str:
    if isinstance(x, (bool, np.bool_)):
        return "yes" if x else "no"
    if isinstance(x, (int, np.integer)):
        return _fmt_int(x)
    if isinstance(x, (float, np.floating)):
        return _fmt_float(x)
    return str(x)


def _is_compare(df: pd.DataFrame) -> bool:
    return {"diff", "ci_low", "ci_high"} <= set(map(str, df.columns)) and "metric" in (df.index.names or [])


def _metric_columns(df: pd.DataFrame) -> list[Hashable]:
    params = df.attrs.get("params")
    if isinstance(params, dict) and params:
        names = [m for m in params if m in df.columns]
    else:
        names = [c for c in df.columns if c not in COVERAGE_COLUMNS and not str(c).endswith(("_low", "_high"))]
    out: list[Hashable] = []
    for m in names:
        out.append(m)
        for suffix in ("_low", "_high"):
            if f"{m}{suffix}" in df.columns:
                out.append(f"{m}{suffix}")
    return out


def _constant(df: pd.DataFrame, col: Hashable) -> bool:
    values = df[col]
    return bool(values.nunique(dropna=False) <= 1)


def _report_parts(df: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    """The report as a frame of display strings, and the footer lines (coverage, choices)."""
    metric_cols = _metric_columns(df)
    coverage = [c for c in COVERAGE_COLUMNS if c in df.columns]
    varying = [c for c in coverage if not _constant(df, c)]
    rest = [c for c in df.columns if c not in metric_cols and c not in coverage]
    shown = pd.DataFrame(index=df.index)
    for c in [*metric_cols, *rest, *varying]:
        col = df[c]
        if c == "gauc_rows_skipped":
            shown[c] = col.map(_fmt_share)
        elif c in COVERAGE_COLUMNS:
            shown[c] = col.map(_fmt_int)
        elif pd.api.types.is_float_dtype(col.dtype):
            shown[c] = col.map(_fmt_float)
        else:
            shown[c] = col.map(_fmt_any)
    lines = []
    fixed = {c: df[c].iloc[0] for c in coverage if c not in varying}
    if fixed:
        lines.append("coverage: " + coverage_sentence(fixed))
    params = df.attrs.get("params")
    if isinstance(params, dict) and params:
        lines.append("choices: " + describe_params(params))
    ci = _ci_note(df)
    if ci:
        lines.append(ci)
    return shown, lines


def _count(n: Any, noun: str) -> str:
    n = int(n)
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


def coverage_sentence(cov: dict[str, Any]) -> str:
    """One sentence from a report's coverage columns (a row of the report, or its constants)."""
    parts = []
    if "n_rows" in cov or "n_groups" in cov:
        bits = []
        if "n_rows" in cov:
            bits.append(_count(cov["n_rows"], "row"))
        if "n_groups" in cov:
            bits.append(_count(cov["n_groups"], "group"))
        parts.append(" in ".join(bits))
    if "gauc_groups_used" in cov:
        text = f"gauc uses {int(cov['gauc_groups_used']):,}"
        if "n_groups" in cov:
            text += f" of {int(cov['n_groups']):,}"
        text += " groups"
        if "gauc_rows_skipped" in cov:
            share = float(cov["gauc_rows_skipped"])
            text += f" (skipped groups hold {share:.1%} of rows"
            text += ": more than 10%, check the data and filters)" if share > 0.10 else ")"
        parts.append(text)
    if "groups_no_relevant" in cov and int(cov["groups_no_relevant"]):
        n = int(cov["groups_no_relevant"])
        parts.append(f"{_count(n, 'group')} {'has' if n == 1 else 'have'} no relevant row")
    if "rows_dropped" in cov and int(cov["rows_dropped"]):
        parts.append(f"{_count(cov['rows_dropped'], 'row')} with missing values dropped")
    return "; ".join(parts)


def describe_params(params: dict[str, dict[str, Any]]) -> str:
    """The choices behind a report (``report.attrs["params"]``) as one line.

    Choices shared by every metric come first, then each metric's own ones.

    >>> describe_params({"auc": {"ties": "expected"},
    ...                  "gauc": {"ties": "expected", "weight": "count"},
    ...                  "mrr": {"ties": "expected", "weight": "uniform", "empty": "zero"}})
    'ties=expected; gauc: weight=count; mrr: weight=uniform, empty=zero'
    """
    dicts = [d for d in params.values() if isinstance(d, dict)]
    if not dicts:
        return ""
    common = {k: v for k, v in dicts[0].items() if all(k in d and d[k] == v for d in dicts)}
    out = [", ".join(f"{k}={v}" for k, v in common.items())] if common else []
    groups: dict[tuple[tuple[str, str], ...], list[str]] = {}
    for name, d in params.items():
        if not isinstance(d, dict):
            continue
        own = tuple((k, str(v)) for k, v in d.items() if k not in common)
        if own:
            groups.setdefault(own, []).append(str(name))
    for own, names in groups.items():
        out.append(f"{', '.join(names)}: " + ", ".join(f"{k}={v}" for k, v in own))
    return "; ".join(out)


def _ci_note(df: pd.DataFrame) -> str:
    ci = df.attrs.get("ci")
    if isinstance(ci, dict):
        level = ci.get("level", ci.get("ci"))
        method = ci.get("method", "bootstrap interval")
        bits = [f"{k}={v}" for k, v in ci.items() if k not in ("level", "ci", "method")]
        head = f"{float(level):.0%} " if isinstance(level, (int, float)) else ""
        return f"ci: {head}{method}" + (f" ({', '.join(bits)})" if bits else "")
    return ""


def _compare_parts(df: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    shown = pd.DataFrame(index=df.index)
    for c in df.columns:
        col = df[c]
        if c in ("p_value", "p_holm"):
            shown[c] = col.map(_fmt_p)
        elif pd.api.types.is_bool_dtype(col.dtype):
            shown[c] = col.map(_fmt_any)
        elif pd.api.types.is_float_dtype(col.dtype):
            shown[c] = col.map(_fmt_float)
        else:
            shown[c] = col.map(_fmt_any)
    lines = []
    attrs = df.attrs
    if attrs.get("baseline") is not None:
        lines.append(f"baseline: {attrs['baseline']}")
    if attrs.get("ci_method"):
        level = attrs.get("ci")
        head = f"{float(level):.0%} " if isinstance(level, (int, float)) else ""
        seed = f" (seed={attrs['seed']})" if "seed" in attrs else ""
        lines.append(f"ci: {head}{attrs['ci_method']}{seed}")
    tests = attrs.get("test")
    if isinstance(tests, dict) and tests:
        by_test: dict[str, list[str]] = {}
        for metric, test in tests.items():
            by_test.setdefault(str(test), []).append(str(metric))
        lines.append("tests: " + "; ".join(f"{', '.join(m)}: {t}" for t, m in by_test.items()))
    elif isinstance(tests, str) and tests:
        lines.append(f"tests: {tests}")
    if "alpha" in attrs and "significant" in df.columns:
        how = f" ({attrs['multiple_testing']})" if attrs.get("multiple_testing") else ""
        lines.append(f"significant: p_holm < {attrs['alpha']}{how}")
    params = attrs.get("params")
    if isinstance(params, dict) and params:
        lines.append("choices: " + describe_params(params))
    return shown, lines


def format_table(df: pd.DataFrame, fmt: str = "table") -> str:
    """A report or comparison as text: ``"table"`` (terminal) or ``"markdown"``, with the
    coverage and the choices (from ``df.attrs``) below it."""
    shown, lines = _compare_parts(df) if _is_compare(df) else _report_parts(df)
    if fmt == "markdown":
        body = to_markdown(shown)
        return body + ("\n\n" + "\n".join(f"- {line}" for line in lines) if lines else "") + "\n"
    body = shown.to_string()
    return body + ("\n\n" + "\n".join(lines) if lines else "") + "\n"


def to_markdown(df: pd.DataFrame) -> str:
    """A pipe table (GitHub Markdown) without ``tabulate``: index levels first, numbers
    right-aligned.

    >>> print(to_markdown(pd.DataFrame({"auc": ["0.5000"]}, index=pd.Index(["a"], name="model"))))
    | model |    auc |
    | :---- | -----: |
    | a     | 0.5000 |
    """
    flat = df.reset_index() if any(n is not None for n in df.index.names) else df.reset_index(drop=True)
    header = [str(c) for c in flat.columns]
    rows = [[_md_cell(v) for v in row] for row in flat.itertuples(index=False, name=None)]
    number = re.compile(r"^[-+<]?[\d,]*\.?\d+(e[-+]?\d+)?%?$|^NaN$")
    right = [bool(rows) and all(number.match(r[i]) for r in rows) for i in range(len(header))]
    widths = [max([3, len(header[i]), *(len(r[i]) for r in rows)]) for i in range(len(header))]

    def line(cells: list[str]) -> str:
        return "| " + " | ".join(
            c.rjust(w) if r else c.ljust(w) for c, w, r in zip(cells, widths, right)
        ) + " |"

    rule = "| " + " | ".join(("-" * (w - 1) + ":") if r else (":" + "-" * (w - 1)) for w, r in zip(widths, right)) + " |"
    return "\n".join([line(header), rule, *(line(r) for r in rows)])


def _md_cell(value: Any) -> str:
    text = _fmt_any(value) if not isinstance(value, str) else value
    return text.replace("|", "\\|").replace("\n", " ")


class ResultTable(pd.DataFrame):
    """A report or comparison table that shows its coverage and choices.

    It is a DataFrame in every other respect; ``footer()`` gives the lines shown
    under the table, and ``to_text()`` / ``to_markdown()`` the whole display.
    """

    @property
    def _constructor(self) -> type[pd.DataFrame]:  # derived frames are plain DataFrames
        return pd.DataFrame

    def footer(self) -> list[str]:
        """The lines under the table: coverage, choices, interval and test methods."""
        return (_compare_parts(self) if _is_compare(self) else _report_parts(self))[1]

    def to_text(self) -> str:
        """The table with rounded numbers and its footer, as printed in a terminal."""
        return format_table(pd.DataFrame(self), "table")

    def to_markdown(self) -> str:  # type: ignore[override]
        """The table and its footer as GitHub Markdown (no ``tabulate`` needed)."""
        return format_table(pd.DataFrame(self), "markdown")

    def __repr__(self) -> str:
        lines = self.footer()
        with pd.option_context("display.max_columns", None, "display.width", 120):
            body = super().__repr__()  # every column, wrapped rather than cut to "..."
        return body + ("\n\n" + "\n".join(lines) if lines else "")

    def _repr_html_(self) -> str | None:
        body = super()._repr_html_()  # type: ignore[misc]
        lines = self.footer()
        if body is None or not lines:
            return body
        notes = "<br>".join(html.escape(line) for line in lines)
        return f'{body}<p style="font-size: 0.9em; color: #555">{notes}</p>'


def as_result_table(df: pd.DataFrame) -> ResultTable:
    """Wrap a finished table (its attrs included) for display."""
    out = ResultTable(df)
    out.attrs.update(df.attrs)
    return out
