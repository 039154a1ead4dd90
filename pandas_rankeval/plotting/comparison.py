"""Plots: per-group AUC against group size, a forest plot of model comparisons, and the reliability
diagram of predicted probabilities (:func:`plot_calibration`).

matplotlib is an optional dependency (``pip install 'pandas_rankeval[plot]'``); it is imported
when a plot is drawn, not when this module is imported. Every function returns what it drew on,
so a figure can be composed, restyled and saved as usual::

    import matplotlib.pyplot as plt
    from pandas_rankeval import plotting

    fig, (left, right) = plt.subplots(1, 2, figsize=(14, 5), layout="constrained")
    plotting.plot_group_auc(df, group="user_id", label="click", score="model_b", ax=left)
    plotting.plot_comparison(pandas_rankeval.compare(df, ...), ax=right)
    fig.savefig("eval.png")

Legends never sit on the data: they go outside the axes, and a figure without a layout engine
gets matplotlib's constrained layout so that they have room (a figure the caller laid out
keeps its engine). Each model has one colour and one marker, in every plot.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes

__all__ = ["plot_calibration", "plot_comparison", "plot_group_auc"]

_INSTALL_HINT = (
    "pandas_rankeval.plotting needs matplotlib, which is not installed: "
    "pip install 'pandas_rankeval[plot]' (or pip install matplotlib)"
)
_MARKERS = ("o", "s", "^", "D", "v", "P", "X")
_GREY = "#555555"


def _require_matplotlib() -> None:
    try:
        import matplotlib
        import matplotlib.pyplot  # noqa: F401
    except ImportError as exc:
        raise ImportError(_INSTALL_HINT) from exc


def _axes(ax: Any, figsize: tuple[float, float]) -> Any:
    """The given Axes (its figure gets constrained layout if it has no layout engine), or a
    new figure's Axes with constrained layout."""
    _require_matplotlib()
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=figsize, layout="constrained")
        return ax
    _make_room(ax.figure)
    return ax


def _make_room(fig: Any) -> None:
    if fig.get_layout_engine() is None:
        fig.set_layout_engine("constrained")


def matplotlib_rc(name: str) -> float:
    """A font size from matplotlib's settings, in points (named sizes such as "medium" resolved)."""
    import matplotlib
    from matplotlib.font_manager import FontProperties

    value = matplotlib.rcParams[name]  # type: ignore[index]  # stubs narrower than runtime
    return float(value) if isinstance(value, (int, float)) else float(FontProperties(size=value).get_size_in_points())


def _colors(n: int) -> list[Any]:
    """n distinct colours: the colour-blind-safe tab10 order (blue, orange, green, ...)."""
    import matplotlib

    cycle = [c["color"] for c in matplotlib.rcParams["axes.prop_cycle"]]
    if len(set(cycle)) < min(n, 10):  # a style with too few colours: fall back to tab10
        cycle = [matplotlib.colormaps["tab10"](i) for i in range(10)]
    return [cycle[i % len(cycle)] for i in range(n)]


def _p_text(p: float) -> str:
    from pandas_rankeval.display.formatting import fmt_p

    text = fmt_p(p)
    return f"p {text}" if text.startswith("<") else f"p={text}"


# ---------------------------------------------------------------------------------------------
# per-group AUC by group size


def _bins(n: np.ndarray, a: np.ndarray, edges: np.ndarray, logx: bool, min_per_bin: int,
          quantiles: tuple[float, float] | None) -> dict[str, list[float]]:
    """Per size bin: centre, mean and quantile band (bins with enough groups), and the means of
    the sparse bins. Bins, not groups: a short loop."""
    which = np.clip(np.searchsorted(edges, n, side="right") - 1, 0, len(edges) - 2)
    out: dict[str, list[float]] = {k: [] for k in ("x", "mean", "low", "high", "sparse_x", "sparse_y")}
    for b in range(len(edges) - 1):
        inside = which == b
        count = int(inside.sum())
        if count == 0:
            continue
        x = float(np.exp(np.mean(np.log(n[inside])))) if logx else float(np.mean(n[inside]))
        if count < min_per_bin:
            out["sparse_x"].append(x)
            out["sparse_y"].append(float(np.mean(a[inside])))
            continue
        out["x"].append(x)
        out["mean"].append(float(np.mean(a[inside])))
        if quantiles is not None:
            out["low"].append(float(np.quantile(a[inside], quantiles[0])))
            out["high"].append(float(np.quantile(a[inside], quantiles[1])))
    return out


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
    points: bool | None = None,
    bands: bool | None = None,
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

    Groups are binned by size on a log scale; each bin shows the mean AUC of its groups (a
    line), with one score also every group as a point (its area proportional to its GAUC
    weight, so the groups that dominate a count-weighted GAUC are the big points) and a
    quantile band. Bins with fewer than ``min_per_bin`` groups show their mean as a hollow
    marker. A dashed line marks each score's GAUC, a dotted one chance (0.5). Tiny groups
    spread from 0 to 1: an AUC over one positive and one negative is 0, 0.5 or 1.

    With several scores the models share the axes, one colour and marker each: the points
    and bands (the same group sizes for every model, so the clouds would pile up) are off
    unless asked for, and the legend has one entry per model (with its GAUC) and one per
    kind of mark. The legend sits outside the data, to the right.

    Parameters
    ----------
    df : DataFrame
        One row per shown item.
    group, label :
        As in :func:`pandas_rankeval.gauc`.
    score : column or list of columns
        One score column, or several to overlay.
    ax : matplotlib Axes, optional
        Where to draw; default: a new figure. A figure without a layout engine gets
        constrained layout, so that the legend has room outside the data.
    bins : int, default=8
        Number of log-spaced group-size bins.
    quantiles : (low, high) or None, default=(0.1, 0.9)
        The band around each bin's mean; None draws no band.
    min_per_bin : int, default=5
        Bins with fewer groups are left out of the mean line and the band (their mean is a
        hollow marker).
    weight : weight option, default="count"
        The GAUC weight of the horizontal lines and of the point sizes (see
        :func:`pandas_rankeval.gauc`).
    points : bool, optional
        Draw the individual groups; default: with one score only.
    bands : bool, optional
        Draw the quantile bands; default: with one score only.
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
        With one mean line per score labelled ``"<score>: mean by size"``, one GAUC line per
        score labelled ``"<score>: GAUC (<weight>) <value>"``, the chance line, and (when
        drawn) one scatter collection and one band per score.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import pandas_rankeval as pre
    >>> from pandas_rankeval import plotting
    >>> df = pre.datasets.make_impressions(n_users=300, seed=1)
    >>> ax = plotting.plot_group_auc(df, group="user_id", label="click", score=["model_a", "model_b"])
    >>> [t.get_text() for t in ax.get_legend().get_texts()][:2]
    ['model_a (GAUC 0.605)', 'model_b (GAUC 0.734)']
    """
    from pandas_rankeval.api.per_group import per_group  # the one call that computes (imported when drawing)

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
    table = per_group(
        df, group=group, label=label, scores=scores, metrics=["auc"], weight=weight,
        min_size=min_size, ties=ties, threshold=threshold, nan_policy=nan_policy,  # type: ignore[arg-type]
    )
    several = len(scores) > 1
    points = (not several) if points is None else bool(points)
    bands = (not several) if bands is None else bool(bands)
    ax = _axes(ax, (9.0, 5.0))
    colors = _colors(len(scores))
    columns = table.attrs["models"]
    n_all = table["n"].to_numpy(dtype=float)
    w_all = table["weight"].to_numpy(dtype=float)
    defined = np.zeros(len(table), dtype=bool)
    for s in scores:
        defined |= table[columns[str(s)]["auc"]].notna().to_numpy()
    sizes_all = n_all[defined]
    if sizes_all.size:
        lo_n, hi_n = float(sizes_all.min()), float(sizes_all.max())
        if hi_n <= lo_n:
            edges = np.array([lo_n, lo_n + 1])
        elif logx:
            edges = np.geomspace(lo_n, hi_n * (1 + 1e-9), bins + 1)
        else:
            edges = np.linspace(lo_n, hi_n + 1e-9, bins + 1)
    else:
        edges = np.array([1.0, 2.0])

    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    wname = weight if isinstance(weight, str) else "custom"
    model_handles, sparse_any = [], False
    for i, (s, color) in enumerate(zip(scores, colors)):
        auc = table[columns[str(s)]["auc"]].to_numpy(dtype=float)
        ok = np.isfinite(auc)
        n, a, w = n_all[ok], auc[ok], w_all[ok]
        marker = _MARKERS[i % len(_MARKERS)]
        prefix = f"{s}: " if several else ""
        if points and n.size:
            sized = size_by_weight and w.size and float(w.max()) > float(w.min())
            area = 4 + 156 * (w / float(w.max())) if sized else 10.0
            what = f"groups ({n.size:,})" + (f", area ∝ weight ({wname})" if sized else "")
            kw = {"s": area, "alpha": 0.3, "linewidths": 0, "color": color, "marker": marker, "label": f"{prefix}{what}"}
            kw.update(scatter_kw)
            ax.scatter(n, a, **kw)
        binned = _bins(n, a, edges, logx, min_per_bin, quantiles if bands else None)
        if binned["x"]:
            ax.plot(binned["x"], binned["mean"], marker=marker, color=color, linewidth=2, label=f"{s}: mean by size")
            if bands and quantiles is not None:
                band = f"{quantiles[0]:.0%}-{quantiles[1]:.0%} of groups by size"
                ax.fill_between(
                    binned["x"], binned["low"], binned["high"], facecolor=color, alpha=0.08 if several else 0.15,
                    edgecolor=color, linewidth=1.0 if several else 0.0, label=f"{prefix}{band}",
                )
        if binned["sparse_x"] and (binned["x"] or points):
            sparse_any = True
            ax.plot(
                binned["sparse_x"], binned["sparse_y"], linestyle="none", marker=marker, markersize=8,
                markerfacecolor="white", markeredgecolor=color, markeredgewidth=1.5,
                label=f"{prefix}mean of bins with < {min_per_bin} groups",
            )
        total = float(w.sum())
        g = float(np.dot(w, a) / total) if total > 0 else float("nan")
        if total > 0:
            ax.axhline(g, color=color, linestyle="--", linewidth=1.2, label=f"{s}: GAUC ({wname}) {g:.3f}")
        model_handles.append(Line2D([], [], color=color, marker=marker, linewidth=2, label=f"{s} (GAUC {g:.3f})"))

    ax.axhline(0.5, color="grey", linestyle=":", linewidth=1, label="chance (0.5)")
    if logx:
        ax.set_xscale("log")
    if points:  # single groups span [0, 1]; means alone get the room they need
        ax.set_ylim(-0.03, 1.03)
    ax.set_xlabel("group size (rows)")
    ax.set_ylabel("per-group AUC")
    ax.set_title(title if title is not None else "Per-group AUC by group size")
    note = "GAUC weights groups by rows:\nbig groups count more" if wname == "count" else f"GAUC weight: {wname}"
    if several:  # one entry per model, then one per kind of mark
        keys = [
            Line2D([], [], color=_GREY, marker="o", linewidth=2, label="mean of a size bin"),
            Line2D([], [], color=_GREY, linestyle="--", linewidth=1.2, label=f"GAUC ({wname})"),
            Line2D([], [], color="grey", linestyle=":", linewidth=1, label="chance (0.5)"),
        ]
        if sparse_any:
            keys.append(Line2D([], [], linestyle="none", marker="o", markerfacecolor="white", markeredgecolor=_GREY,
                               markersize=8, label=f"bins with < {min_per_bin} groups"))
        if bands and quantiles is not None:
            keys.append(Patch(facecolor=_GREY, alpha=0.15, label=f"{quantiles[0]:.0%}-{quantiles[1]:.0%} of groups"))  # type: ignore[arg-type]  # stubs narrower than runtime
        if points:
            keys.append(Line2D([], [], linestyle="none", marker="o", color=_GREY, alpha=0.4, label="a group"))
        legend = ax.legend(handles=[*model_handles, *keys], loc="upper left", bbox_to_anchor=(1.02, 1.0),
                           borderaxespad=0.0, fontsize="small", title=note, title_fontsize="small",
                           alignment="left")
    else:
        legend = ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0, fontsize="small",
                           title=note, title_fontsize="small", alignment="left")
        for handle in getattr(legend, "legend_handles", []):
            if hasattr(handle, "set_sizes"):
                handle.set_sizes([30])  # legend markers at one size, whatever the weights
    return ax


# ---------------------------------------------------------------------------------------------
# forest plot of a comparison


_TABLE_COLUMNS = ("diff", "ci_low", "ci_high")


def _pairs_as_models(t: pd.DataFrame) -> pd.DataFrame:
    """An all-pairs table (``compare(baseline=None)``, indexed by model, baseline, metric) with
    each pair as one "model": the label ``"model_c - model_b"`` (the difference's direction),
    so every row names its pair and each pair gets its own colour."""
    names = list(t.index.names)
    if "baseline" not in names or "model" not in names:
        return t
    frame = t.index.to_frame(index=False)
    frame["model"] = [f"{m} - {b}" for m, b in zip(frame["model"], frame["baseline"])]
    frame = frame.drop(columns="baseline")
    out = t.copy()
    out.index = pd.MultiIndex.from_frame(frame) if frame.shape[1] > 1 else pd.Index(frame.iloc[:, 0])
    return out


def _check_table(t: Any) -> None:
    if not isinstance(t, pd.DataFrame):
        raise TypeError(
            "plot_comparison expects the DataFrame returned by pandas_rankeval.compare; "
            f"got {type(t).__name__}."
        )
    missing = [c for c in _TABLE_COLUMNS if c not in t.columns]
    if missing:
        raise ValueError(
            f"plot_comparison expects a compare() table with the columns {list(_TABLE_COLUMNS)}; "
            f"{missing} are missing. Pass the result of pandas_rankeval.compare(..., ci=0.95)."
        )
    if len(t) == 0:
        raise ValueError("plot_comparison got an empty table; there is nothing to plot.")


def _p_column(t: pd.DataFrame) -> tuple[str | None, str]:
    from pandas_rankeval.display.footer import adjusted_p

    col, how = adjusted_p(t)
    return col, ("" if how == "unadjusted" else how)


def _layout_rows(t: pd.DataFrame, per_metric: bool) -> list[tuple[str, int | None, str]]:
    """Rows top to bottom: ``(label, table row or None for a header, kind)``. Segments (and, on
    one axis, metrics within a segment) are headed by a bold row; models are colours."""
    names = list(t.index.names)
    keys = [k if isinstance(k, tuple) else (k,) for k in t.index]
    seg_levels = [i for i, n in enumerate(names) if n not in ("model", "metric", "baseline")]
    if len(names) == 1 and names[0] not in ("model", "metric"):
        seg_levels = []
    m_level = names.index("model") if "model" in names else None
    k_level = names.index("metric") if "metric" in names else None
    rows: list[tuple[str, int | None, str]] = []
    last_head: tuple[Any, ...] | None = None
    for r, key in enumerate(keys):
        head = tuple(key[i] for i in seg_levels)
        if seg_levels and head != last_head:
            rows.append((" ".join(map(str, head)), None, "segment"))
        last_head = head
        metric = key[k_level] if k_level is not None else None
        model = key[m_level] if m_level is not None else None
        if per_metric or k_level is None:
            label = str(model) if model is not None else " ".join(map(str, key))
        elif m_level is None:
            label = str(metric)
        else:
            label = f"{model}: {metric}"
        rows.append((label, r, "row"))
    return rows


def _forest(ax: Any, t: pd.DataFrame, rows: list[tuple[str, int | None, str]], rel: bool, annotate: bool,
            colors: list[Any], markers: list[str], base_col: str | None) -> None:
    """One forest: rows top to bottom (headers bold), interval bars, filled (significant) or
    hollow points, the zero line, the p-values at the right."""
    n_rows = len(rows)
    ys = np.arange(n_rows)[::-1].astype(float)
    which = np.array([r if r is not None else -1 for _, r, _ in rows])
    at = which >= 0
    y = ys[at]
    sub = t.iloc[which[at]]
    scale = 100.0 / sub[base_col].to_numpy(dtype=float) if rel and base_col is not None else np.ones(len(sub))
    diff = sub["diff"].to_numpy(dtype=float) * scale
    low = sub["ci_low"].to_numpy(dtype=float) * scale
    high = sub["ci_high"].to_numpy(dtype=float) * scale
    sig = sub["significant"].fillna(False).to_numpy(dtype=bool) if "significant" in sub.columns else np.zeros(len(sub), bool)
    cols = [colors[r] for r in which[at]]
    marks = [markers[r] for r in which[at]]
    has_ci = np.isfinite(low) & np.isfinite(high)
    for k in np.flatnonzero(has_ci):
        ax.errorbar(
            diff[k], y[k], xerr=[[max(diff[k] - low[k], 0)], [max(high[k] - diff[k], 0)]], fmt="none",
            ecolor=cols[k], elinewidth=1.5, capsize=3, label="_ci",
        )
    one_style = len({str(c) for c in cols}) == 1 and len(set(marks)) == 1
    if one_style:
        if sig.any():
            ax.scatter(diff[sig], y[sig], s=40, marker=marks[0], color=cols[0], edgecolors=cols[0], zorder=3,
                       label="significant")
        if (~sig).any():
            ax.scatter(diff[~sig], y[~sig], s=40, marker=marks[0], facecolors="white", edgecolors=cols[0], zorder=3,
                       label="not significant" if "significant" in sub.columns else "difference")
    else:
        for k in range(len(sub)):  # type: ignore[assignment]  # stubs narrower than runtime
            ax.scatter([diff[k]], [y[k]], s=45, marker=marks[k], zorder=3, edgecolors=cols[k],
                       facecolors=cols[k] if sig[k] else "white", label="_row")
    ax.axvline(0.0, color="grey", linestyle="--", linewidth=1)
    ax.set_yticks(ys)
    # many rows on a short axes: labels shrink to their row's height rather than overprint
    row_pt = ax.figure.get_figheight() * ax.get_position().height * 72 / max(n_rows, 1)
    size = min(float(matplotlib_rc("ytick.labelsize")), max(0.8 * row_pt, 4.0))
    ax.set_yticklabels([label for label, _, _ in rows], fontsize=size)
    for tick, (_, _, kind) in zip(ax.get_yticklabels(), rows):
        if kind == "segment":
            tick.set_fontweight("bold")
    heads = ys[~at]
    for h in heads:  # a faint rule under each segment header
        ax.axhline(h - 0.5, color="#dddddd", linewidth=0.8, zorder=0)
    ax.set_ylim(-0.7, n_rows - 0.3)
    if rel:
        ax.xaxis.set_major_formatter(lambda v, _pos: f"{v:+.0f}%")
    pcol, _ = _p_column(sub)
    if annotate and pcol is not None:
        transform = ax.get_yaxis_transform()  # x in axes coordinates, y in data
        for yy, p in zip(y, sub[pcol].to_numpy(dtype=float)):
            if np.isfinite(p):
                ax.text(1.01, yy, _p_text(p), transform=transform, va="center", ha="left",
                        fontsize=min(size, float(matplotlib_rc("font.size")) * 0.833))


def plot_comparison(
    compare_table: pd.DataFrame,
    ax: Axes | None = None,
    *,
    relative: bool | None = None,
    annotate: bool = True,
    title: str | None = None,
) -> Any:
    """Forest plot of a :func:`pandas_rankeval.compare` table.

    Each row is a model's difference to the baseline (a point) with its confidence interval
    (a bar); a dashed line marks zero. Significant rows (the ``significant`` column, after
    the table's adjustment) are filled, the others hollow; each model has its own colour and
    marker. Rows are grouped under bold segment headers (with ``by``). With ``annotate``,
    each row's adjusted p-value is written at its right (the tables' rule: 3 significant
    digits, ``< 1e-6`` below that).

    Metrics differ in scale (a GAUC difference of 0.1 next to an MRR difference of 0.01), so
    by default (``ax=None``) every metric gets its own panel with its own x axis. On a given
    ``ax`` all rows share one axis; there the differences are relative to the baseline's value
    (``lift``, in %) unless ``relative=False``. The legend (models; filled = significant) sits
    above the panels, or to the right of the p-values on a given ``ax``.

    Parameters
    ----------
    compare_table : DataFrame
        The result of :func:`pandas_rankeval.compare`: indexed by (model, metric) (with
        ``by``: the segments first), with the columns ``diff``, ``ci_low``, ``ci_high`` and
        optionally ``baseline_value``, ``significant``, ``p_holm`` (or ``p_adj``), ``p_value``.
    ax : matplotlib Axes, optional
        Draw every row on this Axes; default: a new figure, one panel per metric.
    relative : bool, optional
        x in % of the baseline's value. Default: True on a given ``ax`` (when the table has
        ``baseline_value``), False for the panels.
    annotate : bool, default=True
        Write the p-value that decides significance at the right of each row.
    title : str, optional
        Default: "Difference to the baseline (<name>)"; for an all-pairs table
        (``compare(baseline=None)``) "Pairwise differences (first model - second)", and each row
        is labelled by its pair, ``"model_c - model_b"``, with a colour of its own.

    Returns
    -------
    axes : matplotlib Axes, or a numpy array of Axes
        The given ``ax``; without one, the array of panels (one per metric, top to bottom in
        the table's order). y tick labels: the model in a panel (segment headers in bold), and
        ``"<metric>: <model>"`` on a shared axis.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import pandas_rankeval as pre
    >>> from pandas_rankeval import plotting
    >>> df = pre.datasets.make_impressions(n_users=300, seed=1)
    >>> cmp = pre.compare(df, group="user_id", label="click", scores=["model_a", "model_b"],
    ...                   baseline="model_a", metrics=["auc", "gauc"], n_boot=200)
    >>> axes = plotting.plot_comparison(cmp)
    >>> [a.get_title(loc="left") for a in axes]
    ['auc', 'gauc']
    """
    _check_table(compare_table)
    t = _pairs_as_models(compare_table)
    base_col = "baseline_value" if "baseline_value" in t.columns else None
    if relative and base_col is None:
        raise ValueError("plot_comparison(relative=True) needs the 'baseline_value' column of a compare() table.")
    all_pairs = "baseline" in compare_table.index.names
    baseline = t.attrs.get("baseline")
    against = "the baseline" if baseline is None else f"the baseline ({baseline})"
    # an all-pairs table: each row is a pair "model_c - model_b", one colour per pair
    heading = "Pairwise differences (first model - second)" if all_pairs else f"Difference to {against}"
    xlabel = "difference (first model - second)" if all_pairs else f"difference to {against}"
    names = list(t.index.names)
    _require_matplotlib()
    from matplotlib.lines import Line2D

    models = list(dict.fromkeys(t.index.get_level_values("model"))) if "model" in names else [None]
    palette = dict(zip(models, _colors(max(len(models), 1))))
    model_of = list(t.index.get_level_values("model")) if "model" in names else [None] * len(t)
    colors = [palette[m] for m in model_of]
    markers = [_MARKERS[models.index(m) % len(_MARKERS)] for m in model_of]
    _, how = _p_column(t)
    handles = [
        Line2D([], [], linestyle="none", marker=_MARKERS[i % len(_MARKERS)], color=palette[m], label=str(m))
        for i, m in enumerate(models) if m is not None
    ]
    if "significant" in t.columns:
        sig_name = f"significant ({how})" if how else "significant"
        handles += [
            Line2D([], [], linestyle="none", marker="o", color="grey", label=sig_name),
            Line2D([], [], linestyle="none", marker="o", markerfacecolor="white", color="grey", label="not significant"),
        ]
    unit = " (% of the second model's value)" if all_pairs else " (% of the baseline's value)"

    if ax is not None or "metric" not in names or len(names) == 1:
        rel = bool(base_col is not None and ax is not None) if relative is None else bool(relative)
        ax = _axes(ax, (8.0, 0.28 * len(t) + 2.0))
        one_metric = "metric" in names and t.index.get_level_values("metric").nunique() == 1
        rows = _layout_rows(t, per_metric=one_metric)
        _forest(ax, t, rows, rel, annotate, colors, markers, base_col)
        ax.set_xlabel(f"{xlabel}{unit if rel else ''}")
        ax.set_title(title if title is not None else heading)
        if len(handles) > 2 or "significant" in t.columns:
            _legend_right_of_texts(ax, handles if len(models) > 1 else None)
        return ax

    import matplotlib.pyplot as plt

    rel = bool(relative)
    metrics = list(dict.fromkeys(t.index.get_level_values("metric")))
    level = t.index.get_level_values("metric")
    panels = [(m, np.flatnonzero(np.asarray(level == m))) for m in metrics]
    heights = [len(_layout_rows(t.iloc[pos], per_metric=True)) for _, pos in panels]
    fig, axes = plt.subplots(
        len(metrics), 1, figsize=(8.0, sum(0.28 * h + 0.8 for h in heights) + 0.8),
        gridspec_kw={"height_ratios": [h + 1.5 for h in heights]}, squeeze=False, layout="constrained",
    )
    axes = axes[:, 0]
    for panel, (metric, pos) in zip(axes, panels):
        sub = t.iloc[pos]
        _forest(panel, sub, _layout_rows(sub, per_metric=True), rel, annotate, [colors[i] for i in pos],
                [markers[i] for i in pos], base_col)
        panel.set_title(_metric_heading(metric), loc="left", fontsize="medium", fontweight="bold")
    axes[-1].set_xlabel(f"{xlabel}{unit if rel else ''}")
    # the title heads the legend: one block above the panels, as many columns as the width holds
    renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]  # stubs narrower than runtime
    for ncol in range(min(len(handles), 6), 0, -1):
        legend = fig.legend(handles=handles, loc="outside upper left", ncol=ncol, fontsize="small", frameon=False,
                            title=title if title is not None else heading,
                            title_fontproperties={"size": "large"}, alignment="left")
        if ncol == 1 or legend.get_window_extent(renderer).width <= 0.97 * fig.bbox.width:
            break
        legend.remove()
    return axes


def _metric_heading(metric: Any) -> str:
    """A metric panel's title: its name, and which way is better when it is not "higher" (from
    the registry: ``"logloss (lower is better)"``, ``"pcoc (closer to 1 is better)"``)."""
    from ..core.metrics.registry import parse_metric

    try:
        direction = parse_metric(str(metric)).info.direction
    except (TypeError, ValueError):  # a hand-made table's own label
        return str(metric)
    return str(metric) if direction == "higher" else f"{metric} ({direction} is better)"


def _legend_right_of_texts(ax: Any, handles: list[Any] | None) -> Any:
    """The legend to the right of the axes, past the p-values written there (an offset in
    inches, so it holds when a layout engine resizes the axes)."""
    from matplotlib.transforms import ScaledTranslation

    fig = ax.figure
    renderer = fig.canvas.get_renderer()
    widest = max([t.get_window_extent(renderer).width for t in ax.texts] or [0.0])
    shift = ScaledTranslation(widest / fig.dpi + 0.15, 0, fig.dpi_scale_trans)
    kw = {"handles": handles} if handles else {}
    return ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), bbox_transform=ax.transAxes + shift,
                     borderaxespad=0.0, fontsize="small", **kw)


from .calibration import plot_calibration  # it uses this module's helpers
