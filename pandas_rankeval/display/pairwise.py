"""Views of an all-pairs comparison (``compare(..., baseline=None)``): who beats whom.

The compare table then has one row per (model, baseline, metric) for every pair of models. The
summary is ranx's comparison table with direction: models x metrics, each cell the model's value
followed by ``▲`` and the models it is significantly better than, and ``▼`` and those
significantly better than it.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["pairwise_summary", "pairwise_compact"]


def _parts(df: pd.DataFrame) -> tuple[list[Hashable], list[tuple[Any, ...]]]:
    names = list(df.index.names)
    segs = names[: names.index("model")]
    return segs, [k if isinstance(k, tuple) else (k,) for k in df.index]


def _p_column(df: pd.DataFrame) -> str:
    col = df.attrs.get("p_adjusted")
    return str(col) if isinstance(col, str) and col in df.columns else "p_value"


def pairwise_summary(df: pd.DataFrame, fmt_metric: Any) -> tuple[pd.DataFrame, list[str]]:
    """Models x metrics (per segment), ``value ▲ beaten ▼ beaten-by`` per cell, and the legend.

    >>> import pandas_rankeval as pre
    >>> df = pre.datasets.make_impressions(n_users=300, seed=1)
    >>> df["copy_a"] = df["model_a"]
    >>> res = pre.compare(df, group="user_id", label="click", scores=["model_a", "model_b", "copy_a"],
    ...                   metrics=["gauc", "mrr"], n_boot=200)
    >>> frame, legend = pairwise_summary(res, lambda v: f"{v:.3f}")
    >>> frame.loc["model_b", "gauc"]
    '0.734 ▲ model_a, copy_a'
    >>> frame.loc["copy_a", "gauc"]
    '0.605 ▼ model_b'
    """
    segs, keys = _parts(df)
    pcol = _p_column(df)
    models = list(df.attrs.get("models") or dict.fromkeys(
        [k[len(segs)] for k in keys] + [k[len(segs) + 1] for k in keys]))
    metrics = list(dict.fromkeys(k[-1] for k in keys))
    value: dict[tuple, float] = {}
    above: dict[tuple, list[str]] = {}
    below: dict[tuple, list[str]] = {}
    sig = df["significant"].to_numpy() if "significant" in df.columns else np.zeros(len(df), dtype=bool)
    for i, key in enumerate(keys):
        *seg, m, b, n = key
        r = df.iloc[i]
        value[(*seg, m, n)] = r["value"]
        value[(*seg, b, n)] = r["baseline_value"]
        if sig[i] and np.isfinite(r["diff"]) and r["diff"] != 0:
            win, lose = (m, b) if r["diff"] > 0 else (b, m)
            above.setdefault((*seg, win, n), []).append(str(lose))
            below.setdefault((*seg, lose, n), []).append(str(win))
    seg_keys = list(dict.fromkeys(tuple(k[: len(segs)]) for k in keys))
    rows = []
    index = []
    for seg in seg_keys:
        for m in models:
            cells = {}
            for n in metrics:
                v = value.get((*seg, m, n))
                text = "" if v is None else fmt_metric(v)
                if above.get((*seg, m, n)):
                    text += " ▲ " + ", ".join(above[(*seg, m, n)])
                if below.get((*seg, m, n)):
                    text += " ▼ " + ", ".join(below[(*seg, m, n)])
                cells[str(n)] = text
            rows.append(cells)
            index.append((*seg, m))
    idx = pd.MultiIndex.from_tuples(index, names=[*segs, "model"]) if segs else pd.Index(
        [i[0] for i in index], name="model", tupleize_cols=False)
    alpha = df.attrs.get("alpha", 0.05)
    how = df.attrs.get("multiple_testing", "")
    legend = [
        f"▲ x: significantly better than x; ▼ x: significantly worse than x ({pcol} < {alpha}"
        + (f"; {how}" if how else "") + ")"
    ]
    return pd.DataFrame(rows, index=idx), legend


def pairwise_compact(df: pd.DataFrame, fmt_metric: Any, fmt_interval: Any, fmt_p: Any) -> pd.DataFrame:
    """Metrics as rows, one column group per pair ``model vs baseline``: difference [interval]
    and the adjusted p-value with its direction mark."""
    segs, keys = _parts(df)
    pcol = _p_column(df)
    rows: dict[tuple, dict[tuple[str, str], str]] = {}
    for i, key in enumerate(keys):
        *seg, m, b, n = key
        r = df.iloc[i]
        pair = f"{m} vs {b}"
        cell = rows.setdefault((*seg, n), {})
        cell[(pair, "diff [CI]")] = fmt_interval(r["diff"], r["ci_low"], r["ci_high"], signed=True)
        mark = ""
        if "significant" in df.columns and bool(r["significant"]) and np.isfinite(r["diff"]) and r["diff"] != 0:
            mark = "▲ " if r["diff"] > 0 else "▼ "
        cell[(pair, pcol)] = mark + fmt_p(r[pcol])
    index = list(rows)
    idx = pd.MultiIndex.from_tuples(index, names=[*segs, "metric"]) if segs else pd.Index(
        [i[0] for i in index], name="metric")
    frame = pd.DataFrame([rows[i] for i in index], index=idx).fillna("")
    frame.columns = pd.MultiIndex.from_tuples(list(frame.columns))
    return frame
