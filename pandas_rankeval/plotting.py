"""Plots: per-group AUC against group size, and a forest plot of model comparisons.

matplotlib is an optional dependency (``pip install 'pandas_rankeval[plot]'``); it is imported
when a plot is drawn, not when this module is imported. Every function returns the matplotlib
``Axes`` it drew on, so a figure can be composed, restyled and saved as usual::

    import matplotlib.pyplot as plt
    from pandas_rankeval import plotting

    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4))
    plotting.plot_group_auc(df, group="user_id", label="click", score="model_b", ax=left)
    plotting.plot_comparison(pandas_rankeval.compare(df, ...), ax=right)
    fig.savefig("eval.png")
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes

__all__ = ["plot_group_auc", "plot_comparison"]

_INSTALL_HINT = (
    "pandas_rankeval.plotting needs matplotlib, which is not installed: "
    "pip install 'pandas_rankeval[plot]' (or pip install matplotlib)"
)


def _axes(ax: Any) -> Any:
    """The given Axes, or a new figure's Axes; a clear ImportError without matplotlib."""
    try:
        import matplotlib  # noqa: F401
    except ImportError as exc:
        raise ImportError(_INSTALL_HINT) from exc
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt

    _, ax = plt.subplots()
    return ax


def _colors(ax: Any, n: int) -> list[Any]:
    cycle = [c["color"] for c in __import__("matplotlib").rcParams["axes.prop_cycle"]]
    return [cycle[i % len(cycle)] for i in range(n)]


def plot_group_auc(
    df: pd.DataFrame,
    *,
    group: Hashable | Sequence[Hashable],
    label: Hashable,
    score: Hashable | Sequence[Hashable],
    ax: Axes | None = None,
    bins: int = 8,
    quantiles: tuple[float, float] | None = (0.1, 0.9),
    min_per_bin: int = 5,
    weight: Any = "count",
    points: bool = True,
    logx: bool = True,
    min_size: int | None = None,
    ties: str = "expected",
    threshold: float | None = None,
    nan_policy: str = "raise",
    title: str | None = None,
    **scatter_kw: Any,
) -> Axes:
    """Per-group AUC against group size: how noisy the terms of GAUC are.

    Each group with both a positive and a negative row is a point (its AUC over its size);
    groups are binned by size on a log scale, and each bin shows the mean AUC (a line) and a
    quantile band. A horizontal line marks the GAUC (the weighted mean of the points) and a
    dotted one chance (0.5). Tiny groups spread from 0 to 1: an AUC over one positive and one
    negative is 0, 0.5 or 1.

    Parameters
    ----------
    df : DataFrame
        One row per shown item.
    group, label :
        As in :func:`pandas_rankeval.gauc`.
    score : column or list of columns
        One score column, or several to overlay (one colour each).
    ax : matplotlib Axes, optional
        Where to draw; default: a new figure.
    bins : int, default=8
        Number of log-spaced group-size bins.
    quantiles : (low, high) or None, default=(0.1, 0.9)
        The band drawn around each bin's mean; None draws no band.
    min_per_bin : int, default=5
        Bins with fewer groups are left out of the mean line and the band.
    weight : weight option, default="count"
        The GAUC weight of the horizontal line (see :func:`pandas_rankeval.gauc`).
    points : bool, default=True
        Draw the individual groups.
    logx : bool, default=True
        Log scale for the group size.
    min_size, ties, threshold, nan_policy :
        As in :func:`pandas_rankeval.gauc`.
    title : str, optional
        Default: "Per-group AUC by group size".
    **scatter_kw :
        Passed to ``Axes.scatter`` for the points (``s``, ``alpha``, ``marker``, ...).

    Returns
    -------
    ax : matplotlib Axes
        With one scatter collection per score (when ``points``), one mean line per score
        labelled ``"<score>: mean by size"``, one GAUC line per score and the chance line.
    """
    from .metrics import per_group

    if isinstance(bins, bool) or not isinstance(bins, (int, np.integer)) or bins < 1:
        raise ValueError(f"The 'bins' parameter of plot_group_auc must be an int in the range [1, inf). Got {bins!r} instead.")
    if quantiles is not None:
        lo, hi = quantiles
        if not (0 <= lo < hi <= 1):
            raise ValueError(
                "The 'quantiles' parameter of plot_group_auc must be a pair (low, high) with "
                f"0 <= low < high <= 1, or None. Got {quantiles!r} instead."
            )
    scores = list(score) if isinstance(score, (list, tuple)) else [score]
    tables = {
        s: per_group(
            df, group=group, label=label, score=s, metrics=["auc"], weight=weight,
            min_size=min_size, ties=ties, threshold=threshold, nan_policy=nan_policy,  # type: ignore[arg-type]
        )
        for s in scores
    }
    ax = _axes(ax)
    colors = _colors(ax, len(scores))

    sizes_all = np.concatenate([t.loc[t["auc"].notna(), "n"].to_numpy(dtype=float) for t in tables.values()])
    if sizes_all.size:
        lo_n, hi_n = float(sizes_all.min()), float(sizes_all.max())
        if logx:
            edges = np.geomspace(lo_n, hi_n * (1 + 1e-9), bins + 1) if hi_n > lo_n else np.array([lo_n, lo_n + 1])
        else:
            edges = np.linspace(lo_n, hi_n + 1e-9, bins + 1) if hi_n > lo_n else np.array([lo_n, lo_n + 1])
    else:
        edges = np.array([1.0, 2.0])

    for s, color in zip(scores, colors):
        t = tables[s]
        ok = t["auc"].notna().to_numpy()
        n = t["n"].to_numpy(dtype=float)[ok]
        a = t["auc"].to_numpy(dtype=float)[ok]
        w = t["weight"].to_numpy(dtype=float)[ok]
        prefix = f"{s}: " if len(scores) > 1 else ""
        if points and n.size:
            kw = {"s": 8, "alpha": 0.25, "linewidths": 0, "color": color, "label": f"{prefix}groups ({n.size:,})"}
            kw.update(scatter_kw)
            ax.scatter(n, a, **kw)
        # binned means and quantile band
        which = np.clip(np.searchsorted(edges, n, side="right") - 1, 0, len(edges) - 2)
        xs, means, lows, highs = [], [], [], []
        for b in range(len(edges) - 1):
            inside = which == b
            if int(inside.sum()) < min_per_bin:
                continue
            xs.append(float(np.exp(np.mean(np.log(n[inside])))) if logx else float(np.mean(n[inside])))
            means.append(float(np.mean(a[inside])))
            if quantiles is not None:
                lows.append(float(np.quantile(a[inside], quantiles[0])))
                highs.append(float(np.quantile(a[inside], quantiles[1])))
        if xs:
            ax.plot(xs, means, marker="o", color=color, linewidth=2, label=f"{s}: mean by size")
            if quantiles is not None:
                band = f"{quantiles[0]:.0%}-{quantiles[1]:.0%} of groups by size"
                ax.fill_between(
                    xs, lows, highs, color=color, alpha=0.15,
                    label=band if len(scores) == 1 else f"_{s}: {band}",  # "_": not in the legend
                )
        total = float(w.sum())
        if total > 0:
            g = float(np.dot(w, a) / total)
            wname = weight if isinstance(weight, str) else "custom"
            ax.axhline(g, color=color, linestyle="--", linewidth=1, label=f"{s}: GAUC ({wname}) {g:.3f}")

    ax.axhline(0.5, color="grey", linestyle=":", linewidth=1, label="chance (0.5)")
    if logx:
        ax.set_xscale("log")
    ax.set_ylim(-0.03, 1.03)
    ax.set_xlabel("group size (rows)")
    ax.set_ylabel("per-group AUC")
    ax.set_title(title if title is not None else "Per-group AUC by group size")
    ax.legend(loc="lower right", fontsize="x-small", ncol=1 if len(scores) == 1 else 2)
    return ax


_TABLE_COLUMNS = ("diff", "ci_low", "ci_high")


def plot_comparison(
    compare_table: pd.DataFrame,
    ax: Axes | None = None,
    *,
    annotate: bool = True,
    title: str | None = None,
) -> Axes:
    """Forest plot of a :func:`pandas_rankeval.compare` table: one row per (model, metric).

    Each row is the difference to the baseline (a point) with its confidence interval (a
    horizontal bar); a vertical line marks zero (no difference). Significant rows (the
    table's ``significant`` column, after Holm's correction) are filled, the others hollow.

    Parameters
    ----------
    compare_table : DataFrame
        The result of :func:`pandas_rankeval.compare`: indexed by (model, metric), with the
        columns ``diff``, ``ci_low``, ``ci_high`` and optionally ``significant`` and
        ``p_holm``.
    ax : matplotlib Axes, optional
        Where to draw; default: a new figure.
    annotate : bool, default=True
        Write the adjusted p-value (``p_holm``, else ``p_value``) at the right of each row.
    title : str, optional
        Default: "Difference to the baseline (<name>)", the name from
        ``compare_table.attrs["baseline"]`` when it is there.

    Returns
    -------
    ax : matplotlib Axes
        Rows top to bottom in the table's order, y tick labels ``"<model>: <metric>"``.
    """
    if not isinstance(compare_table, pd.DataFrame):
        raise TypeError(
            "plot_comparison expects the DataFrame returned by pandas_rankeval.compare; "
            f"got {type(compare_table).__name__}."
        )
    missing = [c for c in _TABLE_COLUMNS if c not in compare_table.columns]
    if missing:
        raise ValueError(
            f"plot_comparison expects a compare() table with the columns {list(_TABLE_COLUMNS)}; "
            f"{missing} are missing. Pass the result of pandas_rankeval.compare(..., ci=0.95)."
        )
    if len(compare_table) == 0:
        raise ValueError("plot_comparison got an empty table; there is nothing to plot.")
    ax = _axes(ax)
    t = compare_table
    n = len(t)
    y = np.arange(n)[::-1].astype(float)  # first row at the top
    diff = t["diff"].to_numpy(dtype=float)
    low = t["ci_low"].to_numpy(dtype=float)
    high = t["ci_high"].to_numpy(dtype=float)
    sig = (
        t["significant"].fillna(False).to_numpy(dtype=bool)
        if "significant" in t.columns
        else np.zeros(n, dtype=bool)
    )
    labels = [_row_label(key, t.index.names) for key in t.index]
    color = _colors(ax, 1)[0]

    has_ci = np.isfinite(low) & np.isfinite(high)
    if has_ci.any():
        xerr = np.vstack([diff - low, high - diff])[:, has_ci]
        ax.errorbar(
            diff[has_ci], y[has_ci], xerr=np.clip(xerr, 0, None), fmt="none", ecolor=color,
            elinewidth=1.5, capsize=3, label="confidence interval",
        )
    if sig.any():
        ax.scatter(diff[sig], y[sig], s=40, color=color, edgecolors=color, zorder=3, label="significant")
    if (~sig).any():
        ax.scatter(
            diff[~sig], y[~sig], s=40, facecolors="white", edgecolors=color, zorder=3,
            label="not significant" if "significant" in t.columns else "difference",
        )
    ax.axvline(0.0, color="grey", linestyle="--", linewidth=1)
    ax.set_yticks(y)
    ax.set_yticklabels(labels)
    ax.set_ylim(-0.7, n - 0.3)
    baseline = t.attrs.get("baseline")
    against = "the baseline" if baseline is None else f"the baseline ({baseline})"
    ax.set_xlabel(f"difference to {against}")
    ax.set_title(title if title is not None else f"Difference to {against}")
    pcol = "p_holm" if "p_holm" in t.columns else ("p_value" if "p_value" in t.columns else None)
    if annotate and pcol is not None:
        transform = ax.get_yaxis_transform()  # x in axes coordinates, y in data
        for yy, p in zip(y, t[pcol].to_numpy(dtype=float)):
            if math.isfinite(p):
                text = "p<0.001" if p < 0.001 else f"p={p:.3f}"
                ax.text(1.01, yy, text, transform=transform, va="center", ha="left", fontsize="small")
    ax.legend(loc="best", fontsize="small")
    return ax


def _row_label(key: Any, names: Sequence[Any]) -> str:
    if isinstance(key, tuple):
        return ": ".join(str(k) for k in key)
    return str(key)
