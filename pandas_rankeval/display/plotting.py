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


def _require_matplotlib() -> None:
    try:
        import matplotlib  # noqa: F401
        import matplotlib.pyplot  # noqa: F401
    except ImportError as exc:
        raise ImportError(_INSTALL_HINT) from exc


def _axes(ax: Any) -> Any:
    """The given Axes, or a new figure's Axes; a clear ImportError without matplotlib."""
    _require_matplotlib()
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt

    _, ax = plt.subplots()
    return ax


def _colors(ax: Any, n: int) -> list[Any]:
    """n distinct colours: the colour-blind-safe tab10 order (blue, orange, green, ...)."""
    import matplotlib

    cycle = [c["color"] for c in matplotlib.rcParams["axes.prop_cycle"]]
    if len(set(cycle)) < min(n, 10):  # a style with too few colours: fall back to tab10
        cycle = [matplotlib.colormaps["tab10"](i) for i in range(10)]
    return [cycle[i % len(cycle)] for i in range(n)]


_MARKERS = ("o", "s", "^", "D", "v", "P", "X")


def _legend_outside(ax: Any, **kw: Any) -> Any:
    """The legend to the right of the data, never over it."""
    return ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0, fontsize="small", **kw)


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
    size_by_weight: bool = True,
    logx: bool = True,
    min_size: int | None = None,
    ties: str = "expected",
    threshold: float | None = None,
    nan_policy: str = "raise",
    title: str | None = None,
    **scatter_kw: Any,
) -> Axes:
    """Per-group AUC against group size: how noisy the terms of GAUC are.

    Each group with both a positive and a negative row is a point (its AUC over its size),
    its area proportional to the group's GAUC weight, so the groups that dominate a
    count-weighted GAUC are the big points. Groups are binned by size on a log scale; each
    bin shows the mean AUC (a line) and a quantile band, and bins with fewer than
    ``min_per_bin`` groups (typically the few largest groups) their mean as a hollow marker.
    A dashed horizontal line marks the GAUC (the weighted mean of the points) and a dotted
    one chance (0.5). Tiny groups spread from 0 to 1: an AUC over one positive and one
    negative is 0, 0.5 or 1. The legend sits to the right of the data.

    Parameters
    ----------
    df : DataFrame
        One row per shown item.
    group, label :
        As in :func:`pandas_rankeval.gauc`.
    score : column or list of columns
        One score column, or several to overlay (one colour and marker each).
    ax : matplotlib Axes, optional
        Where to draw; default: a new figure.
    bins : int, default=8
        Number of log-spaced group-size bins.
    quantiles : (low, high) or None, default=(0.1, 0.9)
        The band drawn around each bin's mean; None draws no band.
    min_per_bin : int, default=5
        Bins with fewer groups are left out of the mean line and the band (their mean is a
        hollow marker).
    weight : weight option, default="count"
        The GAUC weight of the horizontal line and of the point sizes (see
        :func:`pandas_rankeval.gauc`).
    points : bool, default=True
        Draw the individual groups.
    size_by_weight : bool, default=True
        Point area proportional to the group's weight (from 4 to 160 square points).
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
    from pandas_rankeval.api.metrics import per_group

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

    wname = weight if isinstance(weight, str) else "custom"
    for i, (s, color) in enumerate(zip(scores, colors)):
        t = tables[s]
        ok = t["auc"].notna().to_numpy()
        n = t["n"].to_numpy(dtype=float)[ok]
        a = t["auc"].to_numpy(dtype=float)[ok]
        w = t["weight"].to_numpy(dtype=float)[ok]
        marker = _MARKERS[i % len(_MARKERS)]
        prefix = f"{s}: " if len(scores) > 1 else ""
        if points and n.size:
            sized = size_by_weight and w.size and float(w.max()) > float(w.min())
            area = 4 + 156 * (w / float(w.max())) if sized else 10.0
            what = f"groups ({n.size:,})" + (f", area ∝ weight ({wname})" if sized else "")
            kw = {"s": area, "alpha": 0.3, "linewidths": 0, "color": color, "marker": marker,
                  "label": f"{prefix}{what}"}
            kw.update(scatter_kw)
            ax.scatter(n, a, **kw)
        # binned means and quantile band
        which = np.clip(np.searchsorted(edges, n, side="right") - 1, 0, len(edges) - 2)
        xs, means, lows, highs, sparse_x, sparse_y = [], [], [], [], [], []
        for b in range(len(edges) - 1):
            inside = which == b
            count = int(inside.sum())
            if count == 0:
                continue
            x = float(np.exp(np.mean(np.log(n[inside])))) if logx else float(np.mean(n[inside]))
            if count < min_per_bin:
                sparse_x.append(x)
                sparse_y.append(float(np.mean(a[inside])))
                continue
            xs.append(x)
            means.append(float(np.mean(a[inside])))
            if quantiles is not None:
                lows.append(float(np.quantile(a[inside], quantiles[0])))
                highs.append(float(np.quantile(a[inside], quantiles[1])))
        if xs:
            ax.plot(xs, means, marker=marker, color=color, linewidth=2, label=f"{s}: mean by size")
            if quantiles is not None:
                band = f"{quantiles[0]:.0%}-{quantiles[1]:.0%} of groups by size"
                several = len(scores) > 1  # overlapping fills would blend: light fill, clear edges
                ax.fill_between(
                    xs, lows, highs, facecolor=color, alpha=0.07 if several else 0.15,
                    edgecolor=color, linewidth=1.2 if several else 0.0, linestyle="--" if i % 2 else "-",
                    label=f"{prefix}{band}" if i < 1 or len(scores) > 1 else f"_{band}",
                )
        if sparse_x and (xs or points):
            ax.plot(
                sparse_x, sparse_y, linestyle="none", marker=marker, markersize=8, markerfacecolor="white",
                markeredgecolor=color, markeredgewidth=1.5,
                label=f"{prefix}mean of bins with < {min_per_bin} groups",
            )
        total = float(w.sum())
        if total > 0:
            g = float(np.dot(w, a) / total)
            ax.axhline(g, color=color, linestyle="--", linewidth=1.2, label=f"{s}: GAUC ({wname}) {g:.3f}")

    ax.axhline(0.5, color="grey", linestyle=":", linewidth=1, label="chance (0.5)")
    if logx:
        ax.set_xscale("log")
    ax.set_ylim(-0.03, 1.03)
    ax.set_xlabel("group size (rows)")
    ax.set_ylabel("per-group AUC")
    ax.set_title(title if title is not None else "Per-group AUC by group size")
    legend = _legend_outside(ax)
    for handle in getattr(legend, "legend_handles", getattr(legend, "legendHandles", [])):
        if hasattr(handle, "set_sizes"):
            handle.set_sizes([30])  # legend markers at one size, whatever the weights
    if wname == "count":
        ax.text(
            1.02, 0.0, "GAUC weights groups by rows:\nbig groups count more,\nso it can sit below the\nmeans of the size bins",
            transform=ax.transAxes, fontsize="x-small", color="#555", va="bottom", ha="left",
        )
    return ax


_TABLE_COLUMNS = ("diff", "ci_low", "ci_high")


def _p_text(p: float, holm: bool) -> str:
    name = "p_Holm" if holm else "p"
    return f"{name}<0.001" if p < 0.001 else f"{name}={p:.3f}"


def plot_comparison(
    compare_table: pd.DataFrame,
    ax: Axes | None = None,
    *,
    relative: bool | None = None,
    annotate: bool = True,
    title: str | None = None,
) -> Any:
    """Forest plot of a :func:`pandas_rankeval.compare` table.

    Each row is the difference to the baseline (a point) with its confidence interval (a
    horizontal bar); a vertical line marks zero (no difference). Significant rows (the
    table's ``significant`` column, after Holm's correction) are filled, the others hollow.
    Each model has its own colour and marker.

    Metrics differ in scale (a GAUC difference of 0.1 next to an MRR difference of 0.01),
    so by default (``ax=None``) every metric gets its own panel with its own x axis. On a
    given ``ax`` all rows share one axis; there the differences are relative to the
    baseline's value (``lift``, in %) unless ``relative=False``.

    Parameters
    ----------
    compare_table : DataFrame
        The result of :func:`pandas_rankeval.compare`: indexed by (model, metric) (with
        ``by``: the segments first), with the columns ``diff``, ``ci_low``, ``ci_high`` and
        optionally ``baseline_value``, ``significant``, ``p_holm``, ``p_value``.
    ax : matplotlib Axes, optional
        Draw every row on this Axes; default: a new figure, one panel per metric.
    relative : bool, optional
        x in % of the baseline's value. Default: True on a given ``ax`` (when the table has
        ``baseline_value``), False for the panels.
    annotate : bool, default=True
        Write the p-value at the right of each row: the Holm-adjusted one (``p_Holm=``)
        when the table has ``p_holm``, else ``p_value`` (``p=``).
    title : str, optional
        Default: "Difference to the baseline (<name>)", the name from
        ``compare_table.attrs["baseline"]`` when it is there.

    Returns
    -------
    axes : matplotlib Axes, or a numpy array of Axes
        The given ``ax``; without one, the array of panels (one per metric, top to
        bottom in the table's order). Rows top to bottom in the table's order, y tick
        labels ``"<model>"`` in a panel (``"<segment>: <model>"`` with segments) and
        ``"<model>: <metric>"`` on a shared axis.
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
    t = compare_table
    base_col = "baseline_value" if "baseline_value" in t.columns else None
    if relative and base_col is None:
        raise ValueError("plot_comparison(relative=True) needs the 'baseline_value' column of a compare() table.")
    baseline = t.attrs.get("baseline")
    against = "the baseline" if baseline is None else f"the baseline ({baseline})"
    names = list(t.index.names)
    has_metric = "metric" in names and len(names) > 1
    _require_matplotlib()
    if ax is not None or not has_metric:
        rel = bool(base_col is not None and ax is not None) if relative is None else bool(relative)
        ax = _axes(ax)
        labels = [_row_label(key) for key in t.index]
        _forest(ax, t, labels, rel, annotate, _colors(ax, 1)[0], base_col)
        unit = " (% of the baseline's value)" if rel else ""
        ax.set_xlabel(f"difference to {against}{unit}")
        ax.set_title(title if title is not None else f"Difference to {against}")
        _legend_outside(ax)
        return ax

    import matplotlib.pyplot as plt

    rel = bool(relative)
    metric_level = names.index("metric")
    metrics = list(dict.fromkeys(t.index.get_level_values("metric")))
    models = list(dict.fromkeys(t.index.get_level_values("model"))) if "model" in names else []
    colors = dict(zip(models, _colors(None, max(len(models), 1))))
    rows_per = [int((t.index.get_level_values("metric") == m).sum()) for m in metrics]
    fig, axes = plt.subplots(
        len(metrics), 1, figsize=(8.0, sum(0.32 * r + 0.9 for r in rows_per) + 0.4),
        gridspec_kw={"height_ratios": [r + 1.5 for r in rows_per]}, squeeze=False,
    )
    axes = axes[:, 0]
    for panel, metric in zip(axes, metrics):
        sub = t[t.index.get_level_values("metric") == metric]
        keys = [tuple(k for j, k in enumerate(key) if j != metric_level) for key in sub.index]
        labels = [": ".join(str(k) for k in key) for key in keys]
        model_of = [key[names.index("model") - (names.index("model") > metric_level)] for key in keys] if models else []
        row_colors = [colors[m] for m in model_of] if models else None
        row_markers = [_MARKERS[models.index(m) % len(_MARKERS)] for m in model_of] if models else None
        _forest(panel, sub, labels, rel, annotate, row_colors, base_col, row_markers)
        panel.set_title(str(metric), loc="left", fontsize="medium", fontweight="bold")
    unit = " (% of the baseline's value)" if rel else ""
    axes[-1].set_xlabel(f"difference to {against}{unit}")
    fig.suptitle(title if title is not None else f"Difference to {against}", x=0.01, ha="left", y=0.995)
    from matplotlib.lines import Line2D

    handles = [
        Line2D([], [], linestyle="none", marker=_MARKERS[i % len(_MARKERS)], color=colors[m], label=str(m))
        for i, m in enumerate(models)
    ]
    handles += [
        Line2D([], [], linestyle="none", marker="o", color="grey", label="significant (Holm)"),
        Line2D([], [], linestyle="none", marker="o", markerfacecolor="white", color="grey", label="not significant"),
    ]
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.55 / fig.get_figheight()))
    fig.legend(handles=handles, loc="upper right", ncol=len(handles), fontsize="small", frameon=False,
               bbox_to_anchor=(0.99, 1.0 - 0.3 / fig.get_figheight()))
    return axes


def _forest(
    ax: Any,
    t: pd.DataFrame,
    labels: list[str],
    rel: bool,
    annotate: bool,
    color: Any,
    base_col: str | None,
    markers: list[str] | None = None,
) -> None:
    """One forest: rows top to bottom, interval bars, filled / hollow points, zero line, p-values."""
    n = len(t)
    y = np.arange(n)[::-1].astype(float)  # first row at the top
    scale = 100.0 / t[base_col].to_numpy(dtype=float) if rel and base_col is not None else np.ones(n)
    diff = t["diff"].to_numpy(dtype=float) * scale
    low = t["ci_low"].to_numpy(dtype=float) * scale
    high = t["ci_high"].to_numpy(dtype=float) * scale
    sig = (
        t["significant"].fillna(False).to_numpy(dtype=bool)
        if "significant" in t.columns
        else np.zeros(n, dtype=bool)
    )
    colors = list(color) if isinstance(color, list) else [color] * n
    marks = markers or ["o"] * n
    has_ci = np.isfinite(low) & np.isfinite(high)
    for k in np.flatnonzero(has_ci):
        ax.errorbar(
            diff[k], y[k], xerr=[[max(diff[k] - low[k], 0)], [max(high[k] - diff[k], 0)]], fmt="none",
            ecolor=colors[k], elinewidth=1.5, capsize=3,
            label="confidence interval" if k == np.flatnonzero(has_ci)[0] else "_ci",
        )
    one_style = len({str(c) for c in colors}) == 1 and len(set(marks)) == 1
    if one_style:
        if sig.any():
            ax.scatter(diff[sig], y[sig], s=40, color=colors[0], edgecolors=colors[0], zorder=3, label="significant")
        if (~sig).any():
            ax.scatter(
                diff[~sig], y[~sig], s=40, facecolors="white", edgecolors=colors[0], zorder=3,
                label="not significant" if "significant" in t.columns else "difference",
            )
    else:
        for k in range(n):
            ax.scatter(
                [diff[k]], [y[k]], s=45, marker=marks[k], zorder=3, edgecolors=colors[k],
                facecolors=colors[k] if sig[k] else "white", label="_row",
            )
    ax.axvline(0.0, color="grey", linestyle="--", linewidth=1)
    ax.set_yticks(y)
    ax.set_yticklabels(labels)
    ax.set_ylim(-0.7, n - 0.3)
    if rel:
        ax.xaxis.set_major_formatter(lambda v, _pos: f"{v:+.0f}%")
    pcol = "p_holm" if "p_holm" in t.columns else ("p_value" if "p_value" in t.columns else None)
    if annotate and pcol is not None:
        transform = ax.get_yaxis_transform()  # x in axes coordinates, y in data
        for yy, p in zip(y, t[pcol].to_numpy(dtype=float)):
            if math.isfinite(p):
                ax.text(1.01, yy, _p_text(p, pcol == "p_holm"), transform=transform, va="center", ha="left",
                        fontsize="small")


def _row_label(key: Any) -> str:
    if isinstance(key, tuple):
        return ": ".join(str(k) for k in key)
    return str(key)
