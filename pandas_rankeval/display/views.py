"""What each table looks like: the strings, the column groups and the footer of every view.

- a report: one cell per metric (the interval in its estimate's cell); the coverage columns,
  constant within a segment, go to the footer once instead of on every model row;
- a comparison: value block, difference block, test block (``significant`` with its
  direction), ``groups_used`` (``all N`` where the rows are pooled);
- a per-group table: counts and metrics, each model's columns as one group;
- ``compact()`` and ``summary()``: new tables of strings (kind ``"view"``) with their own footer.

A view never rounds the data: it formats a copy for reading.
"""

from __future__ import annotations

import math
from collections.abc import Hashable
from typing import Any

import numpy as np
import pandas as pd

from pandas_rankeval.core.inputs.validation import closest_name, invalid_parameter

from .footer import Footer, adjusted_p, ci_head, footer_for
from .formatting import (
    COVERAGE_COLUMNS,
    direction,
    fmt_column,
    fmt_interval,
    fmt_metric,
    fmt_p,
    fmt_share,
    is_missing,
)
from .layout import Shown, column_groups

__all__ = ["compact_compare", "compact_report", "footer_of", "shown_of", "summary_of", "table_kind", "view_frame"]

KINDS = ("view", "compare", "per_group", "report")


def table_kind(df: pd.DataFrame) -> str:
    """``"view"``, ``"compare"``, ``"per_group"``, ``"report"`` or ``"plain"`` (no attrs)."""
    kind = df.attrs.get("table")
    if kind in KINDS:
        return str(kind)
    cols = set(map(str, df.columns))
    if {"diff", "ci_low", "ci_high"} <= cols and "metric" in (df.index.names or []):
        return "compare"
    return "plain"


def metric_names(df: pd.DataFrame) -> list[Hashable]:
    params = df.attrs.get("params")
    if isinstance(params, dict) and params:
        return [m for m in params if m in df.columns]
    return [
        c for c in df.columns
        if c not in COVERAGE_COLUMNS and not str(c).endswith(("_low", "_high")) and pd.api.types.is_float_dtype(df[c].dtype)
    ]


def _pooled(df: pd.DataFrame) -> set[str]:
    cov = df.attrs.get("coverage")
    if not isinstance(cov, dict):
        return {"auc"}
    return {str(k) for k, v in cov.items() if isinstance(v, dict) and not v.get("grouped", True)}


def _levels(df: pd.DataFrame, name: str) -> np.ndarray | None:
    return np.asarray(df.index.get_level_values(name)) if name in (df.index.names or []) else None


# ---------------------------------------------------------------------------------------------
# the table itself


def _report_frame(df: pd.DataFrame) -> tuple[pd.DataFrame, list[list[Hashable]]]:
    metrics = metric_names(df)
    bounds = {f"{m}{s}" for m in metrics for s in ("_low", "_high")}
    rest = [c for c in df.columns if c not in metrics and c not in COVERAGE_COLUMNS and c not in bounds]
    shown = pd.DataFrame(index=df.index)
    for m in metrics:
        lo, hi = f"{m}_low", f"{m}_high"
        if lo in df.columns and hi in df.columns:
            shown[m] = [fmt_interval(v, a, b) for v, a, b in zip(df[m], df[lo], df[hi])]
        else:
            shown[m] = fmt_column(m, df[m])
    for c in rest:
        shown[c] = fmt_column(c, df[c])
    if shown.shape[1] == 0:  # a selection of coverage columns only: show them
        for c in df.columns:
            shown[c] = fmt_column(c, df[c])
    return shown, []


_COMPARE_GROUPS = [
    ["baseline_value", "value"],
    ["diff", "lift", "lift_low", "lift_high", "ci_low", "ci_high"],
    ["p_value", "p_adj", "p_adjusted", "p_holm", "p_bh", "significant"],
]


def _compare_frame(df: pd.DataFrame) -> tuple[pd.DataFrame, list[list[Hashable]]]:
    shown = pd.DataFrame(index=df.index)
    metric = _levels(df, "metric")
    pooled = np.isin(metric.astype(str), list(_pooled(df))) if metric is not None else np.zeros(len(df), bool)
    for c in df.columns:
        col = df[c]
        if str(c).startswith("p_"):
            shown[c] = col.map(fmt_p)
        elif c in ("lift", "lift_low", "lift_high"):
            shown[c] = col.map(lambda v: fmt_share(v, signed=True))
        elif c in ("diff", "ci_low", "ci_high"):
            shown[c] = col.map(lambda v: fmt_metric(v, signed=True))
        elif c == "significant" and "diff" in df.columns:
            sides = df.attrs.get("direction", {})
            names = [str(m) for m in metric] if metric is not None else [""] * len(df)
            bv = df["baseline_value"] if "baseline_value" in df.columns else [None] * len(df)
            vv = df["value"] if "value" in df.columns else [None] * len(df)
            marks = [direction(d, s, sides.get(n, "higher"), v, b) for d, s, n, v, b in zip(df["diff"], col, names, vv, bv)]
            shown[c] = [
                {"▲": "▲ better", "▼": "▼ worse"}.get(m, "yes" if (not is_missing(s) and bool(s)) else "no")
                for m, s in zip(marks, col)
            ]
        elif c == "groups_used":
            counts = fmt_column(c, col)
            shown[c] = [f"all {v}" if p and v != "NaN" else v for v, p in zip(counts, pooled)]
        else:
            shown[c] = fmt_column(c, col)
    return shown, _COMPARE_GROUPS  # type: ignore[return-value]  # stubs narrower than runtime


def _per_group_frame(df: pd.DataFrame) -> tuple[pd.DataFrame, list[list[Hashable]]]:
    shown = pd.DataFrame({c: fmt_column(c, df[c]) for c in df.columns}, index=df.index)
    models = df.attrs.get("models")
    if not isinstance(models, dict) or not models:
        return shown, []
    owner = {col: (str(model), str(metric)) for model, cols in models.items() for metric, col in cols.items()}
    if not set(owner) <= set(map(str, df.columns)):
        return shown, []
    shown.columns = pd.MultiIndex.from_tuples([owner.get(str(c), ("", str(c))) for c in df.columns])
    return shown, []


def view_frame(df: pd.DataFrame) -> tuple[pd.DataFrame, list[list[int]]]:
    """The display strings of a table and its column groups (positions)."""
    kind = table_kind(df)
    if kind == "view":
        frame = pd.DataFrame(df).astype(str)
        groups = df.attrs.get("groups")
        if isinstance(groups, list) and sorted(j for g in groups for j in g) == list(range(frame.shape[1])):
            return frame, [list(g) for g in groups]
        return frame, column_groups(frame.columns)
    if kind == "compare":
        frame, spec = _compare_frame(df)
    elif kind == "per_group":
        frame, spec = _per_group_frame(df)
    elif kind == "report":
        frame, spec = _report_frame(df)
    elif df.attrs.get("table") == "calibration_by":
        frame, spec = _with_intervals(df), []
    else:
        frame, spec = pd.DataFrame({c: fmt_column(c, df[c]) for c in df.columns}, index=df.index), []
        frame.columns = df.columns
    return frame, column_groups(frame.columns, spec)


def _with_intervals(df: pd.DataFrame) -> pd.DataFrame:
    """Each estimate with its interval in its cell (``0.8085 [0.7821, 0.8318]``), as a report
    shows them; the other columns as they are."""
    shown = pd.DataFrame(index=df.index)
    for c in df.columns:
        name = str(c)
        if name.endswith(("_low", "_high")) and name.rsplit("_", 1)[0] in df.columns:
            continue
        lo, hi = f"{name}_low", f"{name}_high"
        if lo in df.columns and hi in df.columns:
            shown[c] = [fmt_interval(v, a, b) for v, a, b in zip(df[c], df[lo], df[hi])]
        else:
            shown[c] = fmt_column(c, df[c])
    return shown


def _selection_note(df: pd.DataFrame) -> str:
    total = df.attrs.get("n_rows_table")
    if isinstance(total, (int, np.integer)) and total != len(df):
        return f"rows: {len(df):,} of the table's {int(total):,}"
    return ""


def _ranking_note(df: pd.DataFrame) -> str:
    """How :meth:`ResultTable.worst` ordered the rows, and where the whole table's rows went."""
    ranked = df.attrs.get("ranked")
    if ranked is None:
        return ""
    note = f"order: the largest loss on {ranked} first" if ranked else "order: the largest loss first"
    label = df.attrs.get("overall")
    levels = [i for i, n in enumerate(df.index.names) if n not in ("model", "metric", "baseline")]
    if label is not None and isinstance(df.index, pd.MultiIndex) and any(
            (df.index.get_level_values(i) == label).any() for i in levels):
        note += f"; {label}: the whole table, after the ranked segments (not ranked)"
    return note


def footer_of(df: pd.DataFrame) -> Footer:
    """The footer of a table as it is shown (a selection of rows says so first, then how
    :meth:`~.ResultTable.worst` ordered them)."""
    kind = table_kind(df)
    footer = footer_for(df, {"compare": "compare", "per_group": "per_group", "report": "report"}.get(kind, "plain"))
    notes = [n for n in (_selection_note(df), _ranking_note(df)) if n]
    return Footer([*notes, *footer.short], footer.details) if notes else footer


def shown_of(df: pd.DataFrame, max_rows: int | None = None, min_rows: int | None = None) -> Shown:
    """The table as a :class:`Shown`: strings, groups, footer; a long table's head and tail."""
    footer = footer_of(df)
    short = footer.short
    gap = total = None
    part = df
    if max_rows is not None and len(df) > max_rows:
        keep = max(1, (min_rows or 10) // 2)
        part = pd.concat([pd.DataFrame(df).iloc[:keep], pd.DataFrame(df).iloc[-keep:]])
        part.attrs = dict(df.attrs)
        gap, total = keep, (len(df), df.shape[1])
    frame, groups = view_frame(part)
    repeat = df.attrs.get("repeat", 0) if table_kind(df) == "view" else 0
    stack = bool(df.attrs.get("stack", False)) if table_kind(df) == "view" else False
    return Shown(frame, groups, short, footer.details, gap=gap, total=total, repeat=int(repeat or 0), stack=stack)


# ---------------------------------------------------------------------------------------------
# views: new tables of strings


def _view(frame: pd.DataFrame, footer: Footer, groups: list[list[int]] | None = None) -> pd.DataFrame:
    """A table of strings with its footer in ``attrs`` (kind ``"view"``)."""
    out = pd.DataFrame(frame)
    out.attrs = {
        "table": "view",
        "footer": footer.lines,
        "footer_short": footer.short,
        "groups": groups if groups is not None else column_groups(frame.columns),
    }
    return out


def _segments(df: pd.DataFrame, drop: tuple[str, ...]) -> list[Hashable]:
    return [n for n in df.index.names if n not in drop] if isinstance(df.index, pd.MultiIndex) else []


def compact_report(df: pd.DataFrame, baseline: Hashable | None = None) -> pd.DataFrame:
    """A report with metrics as rows and models side by side (within each segment)."""
    metrics = metric_names(df)
    segs = _segments(df, ("model",))
    models = list(dict.fromkeys(df.index.get_level_values("model") if segs else df.index))
    if baseline is not None and baseline not in models:
        close = closest_name(baseline, models, cutoff=0.6)
        raise invalid_parameter("baseline", "compact()", f"one of the models {models!r}", baseline,
                                f"Did you mean {close!r}?" if close is not None else "")
    flat = pd.DataFrame(df)
    seg_keys = list(dict.fromkeys(k[:-1] for k in flat.index)) if segs else [()]
    lookup = {(k if isinstance(k, tuple) else (k,)): i for i, k in enumerate(flat.index)}
    rows: list[dict[Hashable, str]] = []
    index: list[tuple[Any, ...]] = []
    for key in seg_keys:
        for m in metrics:
            row: dict[Hashable, str] = {}
            for model in models:
                i = lookup.get((*key, model))
                if i is None:
                    continue
                lo = flat[f"{m}_low"].iloc[i] if f"{m}_low" in flat.columns else None
                hi = flat[f"{m}_high"].iloc[i] if f"{m}_high" in flat.columns else None
                row[model] = fmt_interval(flat[m].iloc[i], lo, hi)
            b = lookup.get((*key, baseline)) if baseline is not None else None
            if b is not None:
                base = float(flat[m].iloc[b])
                for model in models:
                    i = lookup.get((*key, model))
                    if model == baseline or i is None:
                        continue
                    d = float(flat[m].iloc[i]) - base
                    lift = d / base if base else math.nan
                    row[f"{model} vs {baseline}"] = f"{fmt_metric(d, signed=True)} ({fmt_share(lift, signed=True)})"
            rows.append(row)
            index.append((*key, m))
    idx = pd.MultiIndex.from_tuples(index, names=[*segs, "metric"]) if segs else pd.Index([i[0] for i in index], name="metric")
    frame = pd.DataFrame(rows, index=idx).fillna("")
    probe = pd.DataFrame(df)
    probe.attrs = dict(df.attrs)
    if baseline is not None:
        probe.attrs["_vs"] = (
            f"'<model> vs {baseline}': difference to {baseline} (relative lift in %), no test: "
            "compare() gives intervals and p-values"
        )
    return _view(frame, footer_for(probe, "compact"))


def _pairs(df: pd.DataFrame) -> tuple[list[Hashable], np.ndarray, np.ndarray, np.ndarray]:
    """Segments, and per row its model, its baseline and its metric (all pairs or one baseline)."""
    segs = _segments(df, ("model", "metric", "baseline"))
    model = _levels(df, "model")
    metric = _levels(df, "metric")
    if model is None or metric is None:
        raise ValueError("compact() and summary() need a compare() table indexed by model and metric.")
    base = _levels(df, "baseline")
    if base is None and "baseline" in df.columns:
        base = df["baseline"].to_numpy()
    if base is None:
        base = np.empty(len(df), dtype=object)  # (np.full would spread a tuple name over the rows)
        base[:] = [df.attrs.get("baseline", "baseline")] * len(df)
    return segs, model, base, metric


def _label(model: Any, base: Any, single: bool) -> str:
    return str(model) if single else f"{model} vs {base}"


def fmt_share_interval(value: Any, low: Any, high: Any) -> str:
    """A lift and its interval in one cell, in %.

    >>> fmt_share_interval(0.2, 0.11, 0.29)
    '+20.0% [+11.0%, +29.0%]'
    """
    head = fmt_share(value, signed=True)
    if is_missing(low) or is_missing(high):
        return head
    return f"{head} [{fmt_share(low, signed=True)}, {fmt_share(high, signed=True)}]"


def compact_compare(df: pd.DataFrame) -> pd.DataFrame:
    """Metrics as rows; the baseline's value, then per model its value, the difference with its
    interval, the lift and the adjusted p-value (▲ / ▼ where significant)."""
    segs, model, base, metric = _pairs(df)
    single = len(set(map(str, base))) == 1
    head = ci_head(df)
    lift_level = head[len("diff ["):-len(" CI]")] if head.endswith(" CI]") else ""
    pcol, how = adjusted_p(df)
    short = {"Benjamini-Hochberg": "BH", "Benjamini-Yekutieli": "BY"}.get(how, how)
    p_label = f"p ({short})" if how != "unadjusted" else "p"
    bcol = "baseline_value" if "baseline_value" in df.columns else None
    flat = pd.DataFrame(df)
    seg_vals = [_levels(df, s) for s in segs]  # type: ignore[arg-type]  # stubs narrower than runtime
    rows: dict[tuple[Any, ...], dict[tuple[str, str], str]] = {}
    columns: list[tuple[str, str]] = []
    for i in range(len(flat)):
        key = (*(v[i] for v in seg_vals), metric[i])  # type: ignore[index]  # stubs narrower than runtime
        row = rows.setdefault(key, {})
        r = flat.iloc[i]
        if single and bcol is not None:
            col = (str(base[i]), "baseline")  # short: the baseline's value fits next to the first model
            row[col] = fmt_metric(r[bcol])
            columns.append(col)
        group = _label(model[i], base[i], single)
        cells = {"value": fmt_metric(r["value"]), head: fmt_interval(r["diff"], r.get("ci_low"), r.get("ci_high"), True)}
        if "lift_low" in flat.columns:  # lift="relaimpr": the lift with its interval
            cells[f"lift [{lift_level} CI]"] = fmt_share_interval(r["lift"], r["lift_low"], r["lift_high"])
        elif "lift" in flat.columns:
            cells["lift"] = fmt_share(r["lift"], signed=True)
        if pcol is not None:
            mark = _mark(df, r, metric[i])
            cells[p_label] = (f"{mark} " if mark else "") + fmt_p(r[pcol])
        for sub, text in cells.items():
            row[(group, sub)] = text
            columns.append((group, sub))
    index = list(rows)
    idx = pd.MultiIndex.from_tuples(index, names=[*segs, "metric"]) if segs else pd.Index([k[0] for k in index], name="metric")
    frame = pd.DataFrame([rows[k] for k in index], index=idx)
    frame = frame[list(dict.fromkeys(columns))].fillna("")
    frame.columns = pd.MultiIndex.from_tuples(frame.columns)
    out = _view(frame, footer_for(df, "compact"))
    if single and bcol is not None:
        out.attrs["repeat"] = 1  # text: the baseline's value in every part, never a block of its own
    if not single or len({m for m in map(str, model)}) >= 3:
        # HTML: one block per pair (or per model, from three on: wider than a notebook's 1,100 px),
        # side by side while they fit, wrapped as text wraps into parts
        out.attrs["stack"] = True
    return out


def _mark(df: pd.DataFrame, r: pd.Series, metric: Any) -> str:
    """The ▲ / ▼ of one compare row, by its metric's side (``attrs["direction"]``)."""
    if "significant" not in df.columns:
        return ""
    side = df.attrs.get("direction", {}).get(str(metric), "higher")
    return direction(r["diff"], r["significant"], side, r.get("value"), r.get("baseline_value"))


def _summary_value(r: pd.Series, single: bool, with_lift: bool) -> str:
    """A model's cell in summary(): its value (one baseline) or its difference (every pair), and
    with ``lift="relaimpr"`` the lift beside it."""
    value = fmt_metric(r["value"]) if single else fmt_metric(r["diff"], signed=True)
    if with_lift and not is_missing(r["lift"]):
        value += f" ({fmt_share(r['lift'], signed=True)})"
    return value


def summary_of(df: pd.DataFrame) -> pd.DataFrame:
    """Models x metrics, the baseline first, ▲ / ▼ where a model is significantly better / worse."""
    segs, model, base, metric = _pairs(df)
    single = len(set(map(str, base))) == 1
    bcol = "baseline_value" if "baseline_value" in df.columns else None
    flat = pd.DataFrame(df)
    seg_vals = [_levels(df, s) for s in segs]  # type: ignore[arg-type]  # stubs narrower than runtime
    metrics = [str(m) for m in dict.fromkeys(metric)]
    rows: dict[tuple[Any, ...], dict[str, str]] = {}
    values: dict[tuple[Any, ...], dict[str, str]] = {}  # all pairs: each model's own value
    for i in range(len(flat)):
        seg = tuple(v[i] for v in seg_vals)  # type: ignore[index]  # stubs narrower than runtime
        r = flat.iloc[i]
        if single and bcol is not None:
            rows.setdefault((*seg, f"{base[i]} (baseline)"), {})[str(metric[i])] = fmt_metric(r[bcol])
        mark = _mark(df, r, metric[i])
        value = _summary_value(r, single, "lift_low" in flat.columns)
        if not single:  # every pair: each model's own value first, then the differences
            for who, col in ((base[i], bcol), (model[i], "value")):
                if col is not None:
                    values.setdefault((*seg, str(who)), {})[str(metric[i])] = fmt_metric(r[col])
        rows.setdefault((*seg, _label(model[i], base[i], single)), {})[str(metric[i])] = (f"{mark} " if mark else "") + value
    if values:  # within each segment: the models' values, then the pairs' differences
        merged: dict[tuple[Any, ...], dict[str, str]] = {}
        for key in dict.fromkeys([k[:-1] for k in [*values, *rows]]):
            merged.update({k: v for k, v in values.items() if k[:-1] == key})
            merged.update({k: v for k, v in rows.items() if k[:-1] == key})
        rows = merged
    index = list(rows)
    name = "model" if single else "model, or pair (diff)"
    idx = pd.MultiIndex.from_tuples(index, names=[*segs, name]) if segs else pd.Index([k[0] for k in index], name=name)
    frame = pd.DataFrame([rows[k] for k in index], index=idx)[metrics].fillna("")
    return _view(frame, footer_for(df, "summary"))
