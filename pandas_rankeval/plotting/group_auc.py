"""Per-group AUC against group size: one point per size bin, a quantile band, sparse bins apart."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from .style import GREY, MARKERS, model_colors, prepare_axes

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes

__all__ = ["plot_group_auc"]

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


def _integer_ticks(ax: Any, lo: float, hi: float) -> None:
    """Group sizes as plain integers on the log axis (``2, 3, 5, 10, 20``, not ``2x10^0``) when
    they span less than four decades: ticks at 1, 2, 3, 5 times the powers of 10 in range."""
    if not (lo > 0 and hi < 1e4 * lo):
        return
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullFormatter

    decades = 10.0 ** np.arange(np.floor(np.log10(lo)), np.ceil(np.log10(hi)) + 1)
    ticks = [float(v) for d in decades for v in (d, 2 * d, 3 * d, 5 * d) if lo / 1.05 <= v <= hi * 1.05]
    if len(ticks) < 2:
        return
    ax.xaxis.set_major_locator(FixedLocator(ticks))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:,.0f}"))
    ax.xaxis.set_minor_formatter(NullFormatter())


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
    >>> ax = plotting.plot_group_auc(
    ...     df, group="user_id", label="click", score=["model_a", "model_b"]
    ... )
    >>> [t.get_text() for t in ax.get_legend().get_texts()][:2]
    ['model_a (GAUC 0.605)', 'model_b (GAUC 0.734)']
    """
    from pandas_rankeval.api.per_group import per_group  # the one call that computes (imported when drawing)

    _check_bins(bins, quantiles)
    scores = list(score) if isinstance(score, (list, tuple)) else [score]
    table = per_group(
        df, group=group, label=label, scores=scores, metrics=["auc"], weight=weight,
        min_size=min_size, ties=ties, threshold=threshold, nan_policy=nan_policy,  # type: ignore[arg-type]
    )
    several = len(scores) > 1
    marks = _Marks(
        points=(not several) if points is None else bool(points),
        bands=(not several) if bands is None else bool(bands),
        quantiles=quantiles, min_per_bin=min_per_bin, size_by_weight=size_by_weight, logx=logx, several=several,
        wname=weight if isinstance(weight, str) else "custom", scatter_kw=scatter_kw,
    )
    ax = prepare_axes(ax, (9.0, 5.0))
    columns = table.attrs["models"]
    n_all = table["n"].to_numpy(dtype=float)
    w_all = table["weight"].to_numpy(dtype=float)
    edges, size_range = _size_edges(table, [columns[str(s)]["auc"] for s in scores], n_all, bins, logx)
    model_handles, sparse_any = [], False
    for i, (s, color) in enumerate(zip(scores, model_colors(len(scores)))):
        auc = table[columns[str(s)]["auc"]].to_numpy(dtype=float)
        ok = np.isfinite(auc)
        handle, sparse = _draw_model(ax, marks, s, n_all[ok], auc[ok], w_all[ok], edges, color,
                                     MARKERS[i % len(MARKERS)])
        model_handles.append(handle)
        sparse_any = sparse_any or sparse
    ax.axhline(0.5, color="grey", linestyle=":", linewidth=1, label="chance (0.5)")
    if logx:
        ax.set_xscale("log")
        if size_range is not None:
            _integer_ticks(ax, *size_range)
    if marks.points:  # single groups span [0, 1]; means alone get the room they need
        ax.set_ylim(-0.03, 1.03)
    ax.set_xlabel("group size (rows)")
    ax.set_ylabel("per-group AUC")
    ax.set_title(title if title is not None else "Per-group AUC by group size")
    _legend(ax, marks, model_handles, sparse_any)
    return ax


@dataclass
class _Marks:
    """What plot_group_auc draws for each model, and how."""

    points: bool
    bands: bool
    quantiles: tuple[float, float] | None
    min_per_bin: int
    size_by_weight: bool
    logx: bool
    several: bool
    wname: str
    scatter_kw: dict[str, Any]


def _check_bins(bins: Any, quantiles: Any) -> None:
    """bins: an int >= 1; quantiles: None or (low, high) with 0 <= low < high <= 1."""
    if isinstance(bins, bool) or not isinstance(bins, (int, np.integer)) or bins < 1:
        raise ValueError(f"The 'bins' parameter of plot_group_auc must be an int in the range [1, inf). Got {bins!r} instead.")
    if quantiles is not None:
        lo, hi = quantiles
        if not (0 <= lo < hi <= 1):
            raise ValueError(
                "The 'quantiles' parameter of plot_group_auc must be a pair (low, high) with "
                f"0 <= low < high <= 1, or None. Got {quantiles!r} instead."
            )


def _size_edges(table: pd.DataFrame, auc_columns: list[Any], n_all: np.ndarray, bins: int,
                logx: bool) -> tuple[np.ndarray, tuple[float, float] | None]:
    """The size bins' edges over the groups with an AUC for some model (log-spaced with
    ``logx``), and the range of their sizes (None: no such group)."""
    defined = np.zeros(len(table), dtype=bool)
    for c in auc_columns:
        defined |= table[c].notna().to_numpy()
    sizes_all = n_all[defined]
    if not sizes_all.size:
        return np.array([1.0, 2.0]), None
    lo_n, hi_n = float(sizes_all.min()), float(sizes_all.max())
    if hi_n <= lo_n:
        return np.array([lo_n, lo_n + 1]), (lo_n, hi_n)
    if logx:
        return np.geomspace(lo_n, hi_n * (1 + 1e-9), bins + 1), (lo_n, hi_n)
    return np.linspace(lo_n, hi_n + 1e-9, bins + 1), (lo_n, hi_n)


def _draw_model(ax: Axes, marks: _Marks, s: Hashable, n: np.ndarray, a: np.ndarray, w: np.ndarray,
                edges: np.ndarray, color: Any, marker: str) -> tuple[Any, bool]:
    """One model's points, mean line, band, sparse bins and GAUC line; its legend handle, and
    whether it drew sparse bins."""
    from matplotlib.lines import Line2D

    prefix = f"{s}: " if marks.several else ""
    if marks.points and n.size:
        sized = marks.size_by_weight and w.size and float(w.max()) > float(w.min())
        area = 4 + 156 * (w / float(w.max())) if sized else 10.0
        what = f"groups ({n.size:,})" + (f", area ∝ weight ({marks.wname})" if sized else "")
        kw = {"s": area, "alpha": 0.3, "linewidths": 0, "color": color, "marker": marker, "label": f"{prefix}{what}"}
        kw.update(marks.scatter_kw)
        ax.scatter(n, a, **kw)
    quantiles = marks.quantiles
    binned = _bins(n, a, edges, marks.logx, marks.min_per_bin, quantiles if marks.bands else None)
    if binned["x"]:
        ax.plot(binned["x"], binned["mean"], marker=marker, color=color, linewidth=2, label=f"{s}: mean by size")
        if marks.bands and quantiles is not None:
            band = f"{quantiles[0]:.0%}-{quantiles[1]:.0%} of groups by size"
            ax.fill_between(
                binned["x"], binned["low"], binned["high"], facecolor=color, alpha=0.08 if marks.several else 0.15,
                edgecolor=color, linewidth=1.0 if marks.several else 0.0, label=f"{prefix}{band}",
            )
    sparse = bool(binned["sparse_x"] and (binned["x"] or marks.points))
    if sparse:
        ax.plot(
            binned["sparse_x"], binned["sparse_y"], linestyle="none", marker=marker, markersize=8,
            markerfacecolor="white", markeredgecolor=color, markeredgewidth=1.5,
            label=f"{prefix}mean of bins with < {marks.min_per_bin} groups",
        )
    total = float(w.sum())
    g = float(np.dot(w, a) / total) if total > 0 else float("nan")
    if total > 0:
        ax.axhline(g, color=color, linestyle="--", linewidth=1.2, label=f"{s}: GAUC ({marks.wname}) {g:.3f}")
    return Line2D([], [], color=color, marker=marker, linewidth=2, label=f"{s} (GAUC {g:.3f})"), sparse


def _legend(ax: Axes, marks: _Marks, model_handles: list[Any], sparse_any: bool) -> None:
    """The legend outside the data: with several models one entry per model, then one per kind of mark."""
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    wname, quantiles = marks.wname, marks.quantiles
    note = "GAUC weights groups by rows:\nbig groups count more" if wname == "count" else f"GAUC weight: {wname}"
    if not marks.several:
        legend = ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0, fontsize="small",
                           title=note, title_fontsize="small", alignment="left")
        for handle in getattr(legend, "legend_handles", []):
            if hasattr(handle, "set_sizes"):
                handle.set_sizes([30])  # legend markers at one size, whatever the weights
        return
    keys = [
        Line2D([], [], color=GREY, marker="o", linewidth=2, label="mean of a size bin"),
        Line2D([], [], color=GREY, linestyle="--", linewidth=1.2, label=f"GAUC ({wname})"),
        Line2D([], [], color="grey", linestyle=":", linewidth=1, label="chance (0.5)"),
    ]
    if sparse_any:
        keys.append(Line2D([], [], linestyle="none", marker="o", markerfacecolor="white", markeredgecolor=GREY,
                           markersize=8, label=f"bins with < {marks.min_per_bin} groups"))
    if marks.bands and quantiles is not None:
        keys.append(Patch(facecolor=GREY, alpha=0.15, label=f"{quantiles[0]:.0%}-{quantiles[1]:.0%} of groups"))  # type: ignore[arg-type]  # stubs narrower than runtime
    if marks.points:
        keys.append(Line2D([], [], linestyle="none", marker="o", color=GREY, alpha=0.4, label="a group"))
    ax.legend(handles=[*model_handles, *keys], loc="upper left", bbox_to_anchor=(1.02, 1.0),
              borderaxespad=0.0, fontsize="small", title=note, title_fontsize="small", alignment="left")
