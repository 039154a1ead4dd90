"""One presentation layer for every result table: Jupyter, ``print``, text, Markdown, JSON, CSV.

``report()``, ``compare()`` and ``per_group()`` return a :class:`ResultTable`, a DataFrame
that prints (terminal) and renders (Jupyter) with a footer: how many groups and rows the
numbers cover, what was skipped, and the tie / weight / interval / test choices. Every
output format is built here from the same two parts, so they cannot disagree:

- :func:`table_parts`: the table as display strings (metrics to 4 decimals, or
  ``display.precision`` when the user set it; counts with thousands separators; shares and
  lifts in %; an interval in the same cell as its estimate) and the footer lines;
- :func:`render`: those parts as ``"table"``, ``"markdown"``, ``"html"``, ``"json"`` or
  ``"csv"`` (the CSV footer is ``# `` comment lines: ``pd.read_csv(path, comment="#")``).

The data are never rounded: only the display is formatted. Everything derived from a
ResultTable (a slice, a copy, arithmetic) is a plain DataFrame.
"""

from __future__ import annotations

import html
import json
import math
import re
from collections.abc import Hashable
from typing import Any

import numpy as np
import pandas as pd

from ..core.numfmt import fmt_metric
from ..core.numfmt import is_missing as _missing

__all__ = [
    "ResultTable",
    "table_parts",
    "footer_lines",
    "render",
    "format_table",
    "to_markdown",
    "describe_params",
    "coverage_sentence",
    "fmt_metric",
]

#: Report columns that describe coverage rather than a metric.
COVERAGE_COLUMNS = (
    "n_groups",
    "n_rows",
    "gauc_groups_used",
    "gauc_rows_skipped",
    "groups_no_relevant",
    "rows_dropped",
)
#: Columns that hold counts (thousands separators), in any table.
COUNT_COLUMNS = frozenset({*COVERAGE_COLUMNS, "groups_used", "n", "positives"}) - {"gauc_rows_skipped"}
#: Columns that hold shares (shown in %).
SHARE_COLUMNS = frozenset({"gauc_rows_skipped"})
#: Characters of a notebook output area (about 1,100 px at Jupyter's table font) before a
#: table wraps into parts of columns.
HTML_WIDTH = 150


# ---------------------------------------------------------------------------------------------
# cells


def fmt_interval(value: Any, low: Any, high: Any, signed: bool = False) -> str:
    """An estimate and its interval in one cell: ``0.6900 [0.6160, 0.7440]``.

    >>> fmt_interval(0.69, 0.616, 0.744)
    '0.6900 [0.6160, 0.7440]'
    """
    head = fmt_metric(value, signed)
    if _missing(low) or _missing(high):
        return head
    return f"{head} [{fmt_metric(low, signed)}, {fmt_metric(high, signed)}]"


def _fmt_int(x: Any) -> str:
    if _missing(x):
        return "NaN"
    return f"{int(x):,}"


def _fmt_share(x: Any, signed: bool = False) -> str:
    if _missing(x):
        return "NaN"
    return f"{float(x):{'+' if signed else ''}.1%}"


def _ceil_2sig(x: float) -> float:
    """x rounded up to two significant digits (a bound stays a bound)."""
    if x <= 0:
        return x
    e = math.floor(math.log10(x)) - 1
    return math.ceil(x / 10**e - 1e-9) * 10**e


def fmt_p(x: Any, floor: float | None = None) -> str:
    """A p-value; at the resolution floor of a resampling test (``1 / (n_boot + 1)``)
    the bound ``< ...`` (no replicate was as extreme: the p-value is at most that).

    Below 1e-4 (an analytic p-value, no floor) in scientific notation, below 1e-6 the bound
    ``< 1e-6``.

    >>> fmt_p(0.0312), fmt_p(1 / 1001, floor=1 / 1001), fmt_p(0.00004), fmt_p(1 / 201, floor=1 / 201)
    ('0.0312', '< 0.001', '4.0e-05', '< 0.005')
    >>> fmt_p(3e-9)
    '< 1e-6'
    """
    if _missing(x):
        return "NaN"
    x = float(x)
    if floor is not None and x <= floor * (1 + 1e-9):
        return f"< {_ceil_2sig(floor):g}"
    if x < 1e-6:
        return "< 1e-6"
    return f"{x:.1e}" if x < 0.0001 else f"{x:.4f}"


def _fmt_number(x: Any) -> str:
    if _missing(x):
        return "NaN"
    if isinstance(x, (bool, np.bool_)):
        return "yes" if x else "no"
    if isinstance(x, (int, np.integer)):
        return f"{int(x):,}"
    if isinstance(x, (float, np.floating)):
        if float(x).is_integer() and abs(x) < 1e15:
            return f"{int(x):,}"
        return fmt_metric(x)
    return str(x)


def _fmt_column(name: Hashable, col: pd.Series) -> pd.Series:
    if name in COUNT_COLUMNS:
        return col.map(_fmt_int)
    if name in SHARE_COLUMNS:
        return col.map(_fmt_share)
    if name == "weight":  # group weights: counts by default, any amount otherwise
        return col.map(_fmt_number)
    if pd.api.types.is_bool_dtype(col.dtype):
        return col.map(lambda v: "yes" if v else "no")
    if pd.api.types.is_float_dtype(col.dtype):
        return col.map(fmt_metric)
    return col.map(_fmt_number)


# ---------------------------------------------------------------------------------------------
# which table is this


def table_kind(df: pd.DataFrame) -> str:
    """``"view"``, ``"compare"``, ``"per_group"`` or ``"report"``."""
    kind = df.attrs.get("table")
    if kind in ("view", "compare", "per_group", "report"):
        return str(kind)
    cols = set(map(str, df.columns))
    if {"diff", "ci_low", "ci_high"} <= cols and "metric" in (df.index.names or []):
        return "compare"
    return "report"


def _metric_names(df: pd.DataFrame) -> list[Hashable]:
    params = df.attrs.get("params")
    if isinstance(params, dict) and params:
        return [m for m in params if m in df.columns]
    return [
        c for c in df.columns
        if c not in COVERAGE_COLUMNS and not str(c).endswith(("_low", "_high")) and pd.api.types.is_float_dtype(df[c].dtype)
    ]


def _constant(df: pd.DataFrame, col: Hashable) -> bool:
    return bool(df[col].nunique(dropna=False) <= 1)


# ---------------------------------------------------------------------------------------------
# the display frame of each kind of table


def _report_shown(df: pd.DataFrame) -> pd.DataFrame:
    metrics = _metric_names(df)
    coverage = [c for c in COVERAGE_COLUMNS if c in df.columns]
    varying = [c for c in coverage if not _constant(df, c)] if len(df) > 1 else []
    bounds = {f"{m}{s}" for m in metrics for s in ("_low", "_high") if f"{m}{s}" in df.columns}
    rest = [c for c in df.columns if c not in metrics and c not in coverage and c not in bounds]
    shown = pd.DataFrame(index=df.index)
    for m in metrics:
        lo, hi = f"{m}_low", f"{m}_high"
        if lo in df.columns and hi in df.columns:
            shown[m] = [fmt_interval(v, a, b) for v, a, b in zip(df[m], df[lo], df[hi])]
        else:
            shown[m] = _fmt_column(m, df[m])
    for c in [*rest, *varying]:
        shown[c] = _fmt_column(c, df[c])
    return shown


def _p_floor(df: pd.DataFrame) -> float | None:
    n_boot = df.attrs.get("n_boot")
    if isinstance(n_boot, (int, np.integer)) and n_boot > 0:
        return 1.0 / (int(n_boot) + 1)
    return None


def _resampled(df: pd.DataFrame) -> np.ndarray:
    """Rows whose p-value comes from a resampling test (it has a resolution floor)."""
    tests = df.attrs.get("test")
    if not isinstance(tests, dict) or "metric" not in (df.index.names or []):
        return np.ones(len(df), dtype=bool)
    metric = df.index.get_level_values("metric")
    return np.array(
        [any(w in str(tests.get(m, "")) for w in ("bootstrap", "randomization")) for m in metric], dtype=bool
    )


def _compare_shown(df: pd.DataFrame) -> pd.DataFrame:
    shown = pd.DataFrame(index=df.index)
    floor = _p_floor(df)
    resampled = _resampled(df)
    for c in df.columns:
        col = df[c]
        if c == "p_value":
            shown[c] = [fmt_p(p, floor if r else None) for p, r in zip(col, resampled)]
        elif c in ("p_holm", "p_bh"):
            shown[c] = col.map(fmt_p)
        elif c == "lift":
            shown[c] = col.map(lambda v: _fmt_share(v, signed=True))
        elif c in ("diff", "ci_low", "ci_high"):
            shown[c] = col.map(lambda v: fmt_metric(v, signed=True))
        else:
            shown[c] = _fmt_column(c, col)
    return shown


def _per_group_shown(df: pd.DataFrame) -> pd.DataFrame:
    shown = pd.DataFrame(index=df.index)
    for c in df.columns:
        shown[c] = _fmt_column(c, df[c])
    return shown


def _shown(df: pd.DataFrame) -> pd.DataFrame:
    kind = table_kind(df)
    if kind == "view":
        return df
    if kind == "compare":
        return _compare_shown(df)
    if kind == "per_group":
        return _per_group_shown(df)
    return _report_shown(df)


# ---------------------------------------------------------------------------------------------
# footer


def _count(n: Any, noun: str) -> str:
    n = int(n)
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


def coverage_sentence(cov: dict[str, Any]) -> str:
    """One sentence from a report's coverage columns (a row of the report, or its constants).

    >>> coverage_sentence({"n_rows": 26228, "n_groups": 2000, "gauc_groups_used": 366,
    ...                    "gauc_rows_skipped": 0.163})
    '26,228 rows in 2,000 groups; gauc uses 366 of 2,000 groups (the others hold 16.3% of rows)'
    """
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
        if "gauc_rows_skipped" in cov and not _missing(cov["gauc_rows_skipped"]):
            text += f" (the others hold {float(cov['gauc_rows_skipped']):.1%} of rows)"
        parts.append(text)
    if "groups_no_relevant" in cov and int(cov["groups_no_relevant"]):
        n = int(cov["groups_no_relevant"])
        parts.append(f"{_count(n, 'group')} {'has' if n == 1 else 'have'} no relevant row")
    if "rows_dropped" in cov and int(cov["rows_dropped"]):
        parts.append(f"{_count(cov['rows_dropped'], 'row')} with missing values dropped")
    return "; ".join(parts)


def _metric_coverage_lines(coverage: dict[str, Any], label: str = "coverage") -> list[str]:
    """``attrs["coverage"]`` (metric -> Coverage fields) as one line per distinct coverage."""
    from ..core.result import Coverage

    by_text: dict[str, list[str]] = {}
    for name, fields in coverage.items():
        try:
            text = str(Coverage(**fields)) if isinstance(fields, dict) else str(fields)
        except TypeError:  # fields of another version
            text = str(fields)
        by_text.setdefault(text, []).append(str(name))
    return [f"{label}: {', '.join(names)}: {text}" for text, names in by_text.items()]


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


def _ci_line(attrs: dict[str, Any]) -> str:
    ci = attrs.get("ci")
    if isinstance(ci, dict):  # report(ci=...)
        level = ci.get("level", ci.get("ci"))
        method = ci.get("method", "bootstrap interval")
        bits = [f"{k}={v}" for k, v in ci.items() if k not in ("level", "ci", "method")]
        head = f"{float(level):.0%} " if isinstance(level, (int, float)) else ""
        return f"ci: [low, high] = {head}{method}" + (f"; {', '.join(bits)}" if bits else "")
    if attrs.get("ci_method"):  # compare()
        head = f"{float(ci):.0%} " if isinstance(ci, (int, float)) else ""
        seed = f"; seed={attrs['seed']}" if "seed" in attrs else ""
        return f"ci: ci_low, ci_high = {head}{attrs['ci_method']}{seed}"
    return ""


def footer_lines(df: pd.DataFrame) -> list[str]:
    """The lines under a table, the same in every output format: coverage, baseline,
    interval method, tests, significance, choices."""
    attrs = df.attrs
    kind = table_kind(df)
    if kind == "view":
        return [str(line) for line in attrs.get("footer", [])]
    lines: list[str] = []
    if kind == "report":
        coverage = [c for c in COVERAGE_COLUMNS if c in df.columns]
        varying = [c for c in coverage if not _constant(df, c)] if len(df) > 1 else []
        fixed = {c: df[c].iloc[0] for c in coverage if c not in varying} if len(df) else {}
        if isinstance(attrs.get("coverage"), dict) and attrs["coverage"]:
            # gauc's own line below says more (why groups were skipped, share of positives)
            fixed = {c: v for c, v in fixed.items() if not c.startswith("gauc_")}
        if fixed:
            lines.append("coverage: " + coverage_sentence(fixed))
        if varying:
            lines.append("coverage per row: " + ", ".join(varying))
    cov = attrs.get("coverage")
    if isinstance(cov, dict) and cov:
        wanted = cov if kind != "report" else {k: v for k, v in cov.items() if not _plain(v)}
        levels = [n for n in _segments(df, "metric" if kind == "compare" else "model") if n != "baseline"]
        segmented = kind != "per_group" and len(levels) > (1 if kind == "compare" else 0)
        lines += _metric_coverage_lines(wanted, "coverage (all segments)" if segmented else "coverage")
    if attrs.get("baseline") is not None:
        lines.append(f"baseline: {attrs['baseline']}")
    ci = _ci_line(attrs)
    if ci:
        lines.append(ci)
    tests = attrs.get("test")
    if isinstance(tests, dict) and tests:
        by_test: dict[str, list[str]] = {}
        for metric, test in tests.items():
            by_test.setdefault(str(test), []).append(str(metric))
        lines.append("tests: " + "; ".join(f"{', '.join(m)}: {t}" for t, m in by_test.items()))
    elif isinstance(tests, str) and tests:
        lines.append(f"tests: {tests}")
    if kind == "compare":
        floor = _p_floor(df)
        if floor is not None and "p_value" in df.columns and _resampled(df).any():
            lines.append(
                f"p-values of resampling tests are multiples of 1/(n_boot+1) = {floor:.2g}: "
                f"'< {_ceil_2sig(floor):g}' means no replicate was as extreme"
            )
        if "alpha" in attrs and "significant" in df.columns:
            how = f" ({attrs['multiple_testing']})" if attrs.get("multiple_testing") else ""
            col = attrs.get("p_adjusted", "p_holm") or "p_value"
            lines.append(f"significant: {col} < {attrs['alpha']}{how}")
    params = attrs.get("params")
    if isinstance(params, dict) and params:
        lines.append("choices: " + describe_params(params))
    return lines


def _plain(fields: Any) -> bool:
    """A coverage that a report's coverage columns already state (nothing skipped or
    pooled rows), so its own line would repeat them."""
    return isinstance(fields, dict) and (not fields.get("grouped", True) or fields.get("n_used") == fields.get("n_groups"))


def table_parts(df: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    """The table as display strings, and its footer lines."""
    return _shown(df), footer_lines(df)


# ---------------------------------------------------------------------------------------------
# formats


def to_markdown(df: pd.DataFrame) -> str:
    """A pipe table (GitHub Markdown) without ``tabulate``: index levels first, numbers
    right-aligned.

    >>> print(to_markdown(pd.DataFrame({"auc": ["0.5000"]}, index=pd.Index(["a"], name="model"))))
    | model |    auc |
    | :---- | -----: |
    | a     | 0.5000 |
    """
    if isinstance(df.columns, pd.MultiIndex):
        df = df.set_axis([" ".join(str(x) for x in c if str(x)) for c in df.columns], axis=1)
    flat = df.reset_index() if any(n is not None for n in df.index.names) else df.reset_index(drop=True)
    header = [str(c) for c in flat.columns]
    rows = [[_md_cell(v) for v in row] for row in flat.itertuples(index=False, name=None)]
    num = r"[-+]?[\d,]*\.?\d+(e[-+]?\d+)?%?"
    number = re.compile(rf"^([▲▼] )?(< )?{num}( \[{num}, {num}\])?$|^NaN$|^$")
    right = [bool(rows) and all(number.match(r[i].strip()) for r in rows) for i in range(len(header))]
    widths = [max([3, len(header[i]), *(len(r[i]) for r in rows)]) for i in range(len(header))]

    def line(cells: list[str]) -> str:
        return "| " + " | ".join(
            c.rjust(w) if r else c.ljust(w) for c, w, r in zip(cells, widths, right)
        ) + " |"

    rule = "| " + " | ".join(("-" * (w - 1) + ":") if r else (":" + "-" * (w - 1)) for w, r in zip(widths, right)) + " |"
    return "\n".join([line(header), rule, *(line(r) for r in rows)])


def _md_cell(value: Any) -> str:
    text = _fmt_number(value) if not isinstance(value, str) else value
    return text.replace("|", "\\|").replace("\n", " ")


def _column_chunks(shown: pd.DataFrame, width: int) -> list[list[int]]:
    """Column positions split so that each chunk fits ``width`` characters (index included)."""
    index_width = max(
        [len(str(n)) for n in shown.index.names if n is not None]
        + [len(" ".join(map(str, k))) if isinstance(k, tuple) else len(str(k)) for k in shown.index[:50]]
        + [4]
    )
    chunks: list[list[int]] = [[]]
    used = index_width
    for j, name in enumerate(shown.columns):
        label = " ".join(map(str, name)) if isinstance(name, tuple) else str(name)
        cells = shown.iloc[:50, j].astype(str)
        w = max([len(label), *(len(c) for c in cells)]) + 2
        if chunks[-1] and used + w > width:
            chunks.append([])
            used = index_width
        chunks[-1].append(j)
        used += w
    return chunks


_CSS = (
    "<style>"
    ".rankeval-table td{text-align:right;white-space:nowrap;font-variant-numeric:tabular-nums}"
    ".rankeval-table th{white-space:nowrap}"
    ".rankeval-table thead th[colspan]{text-align:center;border-bottom:1px solid #bbb}"
    ".rankeval-footer{font-size:0.9em;color:#555;margin:0.3em 0 0.6em 0;line-height:1.35}"
    "</style>"
)


def _html(
    shown: pd.DataFrame, lines: list[str], total: tuple[int, int] | None = None, max_rows: int | None = None
) -> str:
    parts = ['<div class="rankeval-table">', _CSS]
    chunks = _column_chunks(shown, HTML_WIDTH)
    for cols in chunks:
        part = shown.iloc[:, cols]
        parts.append(part.to_html(escape=True, border=0, classes="dataframe rankeval", na_rep="NaN", max_rows=max_rows))
    if total is not None:
        parts.append(f"<p>{total[0]:,} rows × {total[1]:,} columns</p>")
    if len(chunks) > 1:
        parts.append(
            '<p class="rankeval-footer">(wide table: shown in '
            f"{len(chunks)} parts of columns)</p>"
        )
    if lines:
        notes = "<br>".join(html.escape(line) for line in lines)
        parts.append(f'<p class="rankeval-footer">{notes}</p>')
    parts.append("</div>")
    return "".join(parts)


def _json_default(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    return str(value)


def to_json(df: pd.DataFrame, **meta: Any) -> str:
    """Records (index levels as fields, NaN as null), the attrs (choices, tests, coverage)
    and the footer lines, unrounded."""
    records = json.loads(pd.DataFrame(df).reset_index().to_json(orient="records", double_precision=15))
    payload: dict[str, Any] = dict(meta)
    for key, value in df.attrs.items():
        payload[key] = value
    payload["footer"] = footer_lines(df)
    payload["results"] = records
    return json.dumps(payload, indent=2, default=_json_default) + "\n"


def render(df: pd.DataFrame, fmt: str = "table", **meta: Any) -> str:
    """A result table in one format: ``"table"`` (terminal text), ``"markdown"``, ``"html"``,
    ``"json"`` (unrounded records, attrs and ``"footer"``) or ``"csv"`` (unrounded, then the
    footer as ``# `` lines). Every format carries the same footer lines."""
    if fmt == "json":
        return to_json(df, **meta)
    lines = footer_lines(df)
    if fmt == "csv":
        body = pd.DataFrame(df).to_csv()
        return body + "".join(f"# {line}\n" for line in lines)
    shown = _shown(df)
    if fmt == "html":
        return _html(shown, lines)
    if fmt == "markdown":
        body = to_markdown(shown)
        return body + ("\n\n" + "\n".join(f"- {line}" for line in lines) if lines else "") + "\n"
    if fmt != "table":
        raise ValueError(f"Unknown format {fmt!r}; valid formats are 'table', 'markdown', 'html', 'json' and 'csv'.")
    body = shown.to_string()
    return body + ("\n\n" + "\n".join(lines) if lines else "") + "\n"


def format_table(df: pd.DataFrame, fmt: str = "table") -> str:
    """A report or comparison as text: ``"table"`` (terminal) or ``"markdown"``, with the
    coverage and the choices (from ``df.attrs``) below it."""
    return render(df, fmt)


# ---------------------------------------------------------------------------------------------
# compact views


def _view(frame: pd.DataFrame, footer: list[str]) -> ResultTable:
    out = ResultTable(frame)
    out.attrs = {"table": "view", "footer": list(footer)}
    return out


def _segments(df: pd.DataFrame, last: str) -> list[Hashable]:
    return [n for n in df.index.names if n != last] if isinstance(df.index, pd.MultiIndex) else []


def report_view(df: pd.DataFrame, baseline: Hashable | None = None) -> ResultTable:
    """A report with metrics as rows and models side by side (within each segment)."""
    metrics = _metric_names(df)
    segs = _segments(df, "model")
    models = list(dict.fromkeys(df.index.get_level_values("model") if segs else df.index))
    if baseline is not None and baseline not in models:
        raise ValueError(f"The 'baseline' of compact() must be one of the models {models!r}. Got {baseline!r} instead.")
    rows: list[dict[Hashable, str]] = []
    index: list[tuple[Any, ...]] = []
    seg_keys = list(dict.fromkeys(k[:-1] for k in df.index)) if segs else [()]
    for key in seg_keys:
        for m in metrics:
            row: dict[Hashable, str] = {}
            for model in models:
                loc = (*key, model) if segs else model
                if loc not in df.index:
                    continue
                v = df.loc[loc, m]
                lo = df.loc[loc, f"{m}_low"] if f"{m}_low" in df.columns else None
                hi = df.loc[loc, f"{m}_high"] if f"{m}_high" in df.columns else None
                row[model] = fmt_interval(v, lo, hi)
            if baseline is not None:
                b = df.loc[(*key, baseline) if segs else baseline, m]
                for model in models:
                    if model == baseline:
                        continue
                    v = df.loc[(*key, model) if segs else model, m]
                    d = float(v) - float(b)
                    lift = d / float(b) if float(b) else math.nan
                    row[f"{model} vs {baseline}"] = f"{fmt_metric(d, signed=True)} ({_fmt_share(lift, signed=True)})"
            rows.append(row)
            index.append((*key, m))
    idx = pd.MultiIndex.from_tuples(index, names=[*segs, "metric"]) if segs else pd.Index([i[0] for i in index], name="metric")
    frame = pd.DataFrame(rows, index=idx).fillna("")
    footer = [line for line in footer_lines(df) if not line.startswith("coverage per row: ")]
    if baseline is not None:
        footer.append(f"'<model> vs {baseline}': difference (relative lift in %), no test; use compare() for intervals and p-values")
    return _view(frame, footer)


def compare_view(df: pd.DataFrame) -> ResultTable:
    """A comparison with metrics as rows and models side by side: the baseline's value, each
    model's value, difference [interval], lift and Holm-adjusted p-value (marked when
    significant)."""
    if df.attrs.get("pairs") == "all":
        from .pairwise import pairwise_compact

        return _view(pairwise_compact(df, fmt_metric, fmt_interval, fmt_p), footer_lines(df))
    segs = _segments(df, "model")
    segs = [s for s in segs if s != "metric"]
    baseline = df.attrs.get("baseline", "baseline")
    models = list(dict.fromkeys(df.index.get_level_values("model")))
    level = df.attrs.get("ci")
    ci_head = f"diff [{float(level):.0%} CI]" if isinstance(level, (int, float)) else "diff [CI]"
    rows: dict[tuple[Any, ...], dict[tuple[str, str], str]] = {}
    bcol = "baseline_value" if "baseline_value" in df.columns else "baseline"
    for key, r in df.iterrows():
        key = key if isinstance(key, tuple) else (key,)
        *seg, model, metric = key
        row = rows.setdefault((*seg, metric), {})
        row[(str(baseline), "value")] = fmt_metric(r[bcol])
        row[(str(model), "value")] = fmt_metric(r["value"])
        row[(str(model), ci_head)] = fmt_interval(r["diff"], r["ci_low"], r["ci_high"], signed=True)
        if "lift" in df.columns:
            row[(str(model), "lift")] = _fmt_share(r["lift"], signed=True)
        pcol = df.attrs.get("p_adjusted", "p_holm")
        if pcol in df.columns:
            mark = _mark(r)
            row[(str(model), f"p ({_ADJ_NAME.get(pcol, pcol)})")] = (f"{mark} " if mark else "") + fmt_p(r[pcol])
    index = list(rows)
    idx = pd.MultiIndex.from_tuples(index, names=[*segs, "metric"]) if segs else pd.Index([i[0] for i in index], name="metric")
    columns = [(str(baseline), "value")] + [c for m in models for c in next(iter(rows.values())) if c[0] == str(m)]
    frame = pd.DataFrame([rows[i] for i in index], index=idx)
    frame = frame[[c for c in dict.fromkeys(columns) if c in frame.columns]]
    frame.columns = pd.MultiIndex.from_tuples(
        [((f"{c[0]} (baseline)" if c[0] == str(baseline) else c[0]), c[1]) for c in frame.columns]
    )
    footer = footer_lines(df) + _mark_legend(df)
    return _view(frame.fillna(""), footer)


def _mark(r: pd.Series) -> str:
    if "significant" not in r.index or not bool(r["significant"]) or _missing(r["diff"]):
        return ""
    return "▲" if float(r["diff"]) > 0 else "▼"


def _mark_legend(df: pd.DataFrame) -> list[str]:
    if "significant" not in df.columns:
        return []
    alpha = df.attrs.get("alpha", 0.05)
    pcol = df.attrs.get("p_adjusted", "p_holm")
    how = f"{_ADJ_NAME[pcol]}-adjusted p" if pcol in _ADJ_NAME else "p"
    return [f"▲ / ▼: significantly above / below the baseline ({df.attrs.get('baseline')}), {how} < {alpha}"]


_ADJ_NAME = {"p_holm": "Holm", "p_bh": "BH"}


def compare_summary(df: pd.DataFrame) -> ResultTable:
    """Models x metrics, the baseline first, a mark where a model differs significantly
    from the baseline (in the spirit of ranx's comparison table). All pairs: who beats whom."""
    if df.attrs.get("pairs") == "all":
        from .pairwise import pairwise_summary

        frame, legend = pairwise_summary(df, fmt_metric)
        return _view(frame, footer_lines(df) + legend)
    segs = [s for s in _segments(df, "model") if s != "metric"]
    baseline = df.attrs.get("baseline", "baseline")
    bcol = "baseline_value" if "baseline_value" in df.columns else "baseline"
    metrics = list(dict.fromkeys(df.index.get_level_values("metric")))
    rows: dict[tuple[Any, ...], dict[str, str]] = {}
    for key, r in df.iterrows():
        key = key if isinstance(key, tuple) else (key,)
        *seg, model, metric = key
        rows.setdefault((*seg, f"{baseline} (baseline)"), {})[str(metric)] = fmt_metric(r[bcol])
        mark = _mark(r)
        rows.setdefault((*seg, str(model)), {})[str(metric)] = (f"{mark} " if mark else "") + fmt_metric(r["value"])
    index = list(rows)
    idx = pd.MultiIndex.from_tuples(index, names=[*segs, "model"]) if segs else pd.Index([i[0] for i in index], name="model")
    frame = pd.DataFrame([rows[i] for i in index], index=idx)[[str(m) for m in metrics]].fillna("")
    return _view(frame, footer_lines(df) + _mark_legend(df))


# ---------------------------------------------------------------------------------------------
# the table type


class ResultTable(pd.DataFrame):
    """A report, comparison or per-group table that shows its coverage and choices.

    It is a DataFrame in every other respect (the numbers are unrounded); ``footer()``
    gives the lines shown under the table, ``to_text()`` / ``to_markdown()`` /
    ``render(fmt)`` the whole display, and ``compact()`` a view with metrics as rows and
    models side by side.
    """

    @property
    def _constructor(self) -> type[pd.DataFrame]:  # derived frames are plain DataFrames
        return pd.DataFrame

    def footer(self) -> list[str]:
        """The lines under the table: coverage, baseline, interval and test methods, choices."""
        return footer_lines(self)

    def to_text(self) -> str:
        """The table with rounded numbers and its footer, as printed in a terminal."""
        return render(self, "table")

    def to_markdown(self) -> str:  # type: ignore[override]
        """The table and its footer as GitHub Markdown (no ``tabulate`` needed)."""
        return render(self, "markdown")

    def render(self, fmt: str = "table") -> str:
        """The table and its footer as ``"table"``, ``"markdown"``, ``"html"``, ``"json"`` or
        ``"csv"``: the same footer lines in each."""
        return render(self, fmt)

    def compact(self, baseline: Hashable | None = None) -> ResultTable:
        """A view for reading: metrics as rows, models side by side (within each segment),
        an interval in the same cell as its estimate (``0.6900 [0.6160, 0.7440]``).

        For a :func:`~pandas_rankeval.report`, ``baseline`` adds each model's difference
        and relative lift to that model. For a :func:`~pandas_rankeval.compare` table, the
        baseline's value, then per model its value, the difference with its interval, the
        lift and the Holm-adjusted p-value (▲ / ▼ where significant). The cells are
        strings; the numbers stay in the table itself.
        """
        kind = table_kind(self)
        if kind == "compare":
            if baseline is not None and baseline != self.attrs.get("baseline") and self.attrs.get("pairs") != "all":
                raise ValueError("compact() of a compare() table uses its own baseline; leave 'baseline' out.")
            return compare_view(self)
        if kind != "report":
            raise ValueError(f"compact() applies to report() and compare() tables, not to a {kind} table.")
        return report_view(self, baseline)

    def summary(self) -> ResultTable:
        """A compare() table as models x metrics, the baseline first, with ▲ / ▼ where a
        model is significantly above / below the baseline (Holm-adjusted)."""
        if table_kind(self) != "compare":
            raise ValueError("summary() applies to compare() tables; for a report, use compact().")
        return compare_summary(self)

    def _truncated(self) -> tuple[pd.DataFrame, int | None, tuple[int, int] | None]:
        """The display strings of the rows shown (head and tail of a long table only)."""
        max_rows = pd.get_option("display.max_rows")
        if max_rows is None or len(self) <= max_rows:
            return _shown(self), None, None
        keep = max(1, (pd.get_option("display.min_rows") or 10) // 2)
        part = pd.concat([self.iloc[: keep + 1], self.iloc[-keep - 1 :]])
        part.attrs = dict(self.attrs)
        return _shown(part), 2 * keep, (len(self), self.shape[1])

    def __repr__(self) -> str:
        shown, max_rows, total = self._truncated()
        width = pd.get_option("display.width") or 120
        body = shown.to_string(line_width=max(int(width), 80), max_rows=max_rows)
        if total is not None:
            body += f"\n\n[{total[0]:,} rows x {total[1]:,} columns]"
        lines = self.footer()
        return body + ("\n\n" + "\n".join(lines) if lines else "")

    def _repr_html_(self) -> str | None:
        shown, max_rows, total = self._truncated()
        return _html(shown, self.footer(), total, max_rows)


def as_result_table(df: pd.DataFrame, kind: str | None = None) -> ResultTable:
    """Wrap a finished table (its attrs included) for display."""
    out = ResultTable(df)
    out.attrs.update(df.attrs)
    if kind is not None:
        out.attrs["table"] = kind
    return out

