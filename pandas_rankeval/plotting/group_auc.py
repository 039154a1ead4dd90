"""Per-group AUC against group size: one point per size bin, a quantile band, sparse bins apart."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from pandas_rankeval.core.inputs.validation import check_k, invalid_parameter

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
    they span less than four decades: ticks at 1, 2, 3, 5 times the powers of 10 in range over
    up to a decade and a half, 1, 2, 5 times them up to two and a half, 1 and 3 times them
    beyond (``1,000`` and ``2,000`` would touch)."""
    if not (lo > 0 and hi < 1e4 * lo):
        return
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullFormatter

    span = np.log10(hi / lo)
    steps = (1, 2, 3, 5) if span <= 1.5 else (1, 2, 5) if span <= 2.5 else (1, 3)
    decades = 10.0 ** np.arange(np.floor(np.log10(lo)), np.ceil(np.log10(hi)) + 1)
    ticks = [float(v) for d in decades for v in (m * d for m in steps) if lo / 1.05 <= v <= hi * 1.05]
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
    shares: bool = True,
    **scatter_kw: Any,
) -> Axes:
    """Per-group AUC against group size: how noisy the terms of GAUC are.

    Groups are binned by size on a log scale, on whole sizes (the smallest sizes get a bin each:
    ``2``, ``3``, then ``4-5``, ...); each bin shows the mean AUC of its groups (a line), with
    one score also every group as a point (its area proportional to its GAUC weight, so the
    groups that dominate a count-weighted GAUC are the big points) and a quantile band. Bins
    with fewer than ``min_per_bin`` groups show their mean as a hollow marker. A dashed line
    marks each score's GAUC, a dotted one chance (0.5). Tiny groups spread from 0 to 1: an AUC
    over one positive and one negative is 0, 0.5 or 1, so their points pile up on a few values.

    Under the AUC, a strip says how much each bin matters: its share of the groups (a light
    bar, with the number of groups above it) and its share of the GAUC weight (a dark bar
    inside it). With the default ``weight="count"`` the many 2- and 3-row groups that fill the
    left of the figure are a small part of GAUC.

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
        Number of log-spaced group-size bins (fewer when sizes are small: a bin holds at
        least one whole size).
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
    shares : bool, default=True
        Draw the strip of shares under the AUC (the lower quarter of the axes; the AUC's
        y range is lengthened to make room). Its bars span each bin's sizes; with
        ``weight="uniform"`` the weight's bars (the same as the groups') are left out.
    **scatter_kw :
        Passed to ``Axes.scatter`` for the points (``s``, ``alpha``, ``marker``, ...).

    Returns
    -------
    ax : matplotlib Axes
        With one mean line per score labelled ``"<score>: mean by size"``, one GAUC line per
        score labelled ``"<score>: GAUC (<weight>) <value>"``, the chance line, and (when
        drawn) one scatter collection and one band per score. The strip is its child axes
        labelled ``"shares"`` (``ax.child_axes``), with the bar containers ``"share of groups"``
        and ``"share of GAUC weight"``.

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
    defined = np.zeros(len(table), dtype=bool)
    for s in scores:
        defined |= table[columns[str(s)]["auc"]].notna().to_numpy()
    edges, size_range = _size_edges(n_all[defined], bins, logx)
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
    share_handles = _draw_shares(ax, n_all[defined], w_all[defined], edges, marks) if shares and size_range else []
    _legend(ax, marks, model_handles, sparse_any, share_handles)
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
    check_k(bins, "plot_group_auc", allow_none=False, param="bins")
    if quantiles is not None:
        lo, hi = quantiles
        if not (0 <= lo < hi <= 1):
            raise invalid_parameter("quantiles", "plot_group_auc", "a pair (low, high) with 0 <= low < high <= 1, or "
                                    "None", quantiles)


def _size_edges(sizes_all: np.ndarray, bins: int, logx: bool) -> tuple[np.ndarray, tuple[float, float] | None]:
    """The size bins' edges over the sizes of the groups with an AUC for some model, and the
    range of those sizes (None: no such group). Sizes are whole rows, so the edges are integers:
    bin ``i`` holds the sizes from ``edges[i]`` to ``edges[i + 1] - 1``. They are log-spaced with
    ``logx`` (rounded, duplicates dropped: the smallest sizes get a bin each, ``2``, ``3``, then
    ``4-5`` ..., never a bin that holds no whole size) and evenly spaced otherwise."""
    if not sizes_all.size:
        return np.array([1.0, 2.0]), None
    lo_n, hi_n = float(sizes_all.min()), float(sizes_all.max())
    if hi_n <= lo_n:
        return np.array([lo_n, lo_n + 1]), (lo_n, hi_n)
    spaced = np.geomspace(lo_n, hi_n + 1, bins + 1) if logx else np.linspace(lo_n, hi_n + 1, bins + 1)
    return np.unique(np.round(spaced)), (lo_n, hi_n)


#: Height of the strip of shares under the AUC, as a fraction of the axes.
_STRIP = 0.24


def _bin_shares(n: np.ndarray, w: np.ndarray, edges: np.ndarray) -> pd.DataFrame:
    """Per size bin (integer edges, as _size_edges makes them): its sizes, its groups, their share
    of the groups and their share of the GAUC weight. Bins that hold no group are left out."""
    which = np.clip(np.searchsorted(edges, n, side="right") - 1, 0, len(edges) - 2)
    count = np.bincount(which, minlength=len(edges) - 1)
    weight = np.bincount(which, weights=w, minlength=len(edges) - 1)
    total_w = float(weight.sum())
    keep = count > 0
    return pd.DataFrame({
        "first": edges[:-1][keep], "last": edges[1:][keep] - 1, "groups": count[keep],
        "share_groups": count[keep] / max(int(count.sum()), 1),
        "share_weight": weight[keep] / total_w if total_w > 0 else np.full(int(keep.sum()), np.nan),
    })


def _draw_shares(ax: Axes, n: np.ndarray, w: np.ndarray, edges: np.ndarray, marks: _Marks) -> list[Any]:
    """Under the AUC, in the lower part of the same axes: per size bin, its share of the groups
    (a light bar) and of the GAUC weight (a dark bar inside it), the number of groups above them,
    so that a reviewer sees how many of the plotted groups each bin holds and how much of GAUC
    they make. The AUC's y range is lengthened downwards to make room; its ticks stay on the
    AUC. Returns the legend handles of the two bars."""
    from matplotlib.patches import Patch
    from matplotlib.ticker import FixedLocator, PercentFormatter

    table = _bin_shares(n, w, edges)
    lo, hi = ax.get_ylim()
    ticks = [t for t in ax.get_yticks() if lo - 1e-9 <= t <= hi + 1e-9]
    ax.set_ylim(lo - (hi - lo) * _STRIP / (1 - _STRIP), hi)
    ax.yaxis.set_major_locator(FixedLocator(ticks))
    ax.yaxis.label.set_y(_STRIP + (1 - _STRIP) / 2)  # the AUC's label centred on the AUC
    strip = ax.inset_axes((0.0, 0.0, 1.0, _STRIP * 0.92), sharex=ax, zorder=3)
    strip.set_label("shares")
    strip.tick_params(axis="x", which="both", bottom=False, labelbottom=False)
    for side in ("bottom", "left", "right"):
        strip.spines[side].set_visible(False)
    left, right = table["first"].to_numpy(float) - 0.5, table["last"].to_numpy(float) + 0.5
    if marks.logx:
        mid, half = np.sqrt(left * right), (right / left) ** 0.25
        inner_left, inner_right = mid / half, mid * half
    else:
        mid, half = (left + right) / 2, (right - left) / 4
        inner_left, inner_right = mid - half, mid + half
    light, dark = "#d0d0d0", GREY
    strip.bar(left, table["share_groups"], width=right - left, align="edge", color=light, edgecolor="white",
              linewidth=0.5, label="share of groups")
    handles = [Patch(facecolor=light, label="below: share of the groups,\nand their number")]
    if marks.wname != "uniform":
        strip.bar(inner_left, table["share_weight"], width=inner_right - inner_left, align="edge", color=dark,
                  label="share of GAUC weight")
        handles.append(Patch(facecolor=dark, label=f"below: share of GAUC weight ({marks.wname})"))
    top = float(np.nanmax(table[["share_groups", "share_weight"]].to_numpy())) if len(table) else 1.0
    strip.set_ylim(0, top * 1.45)
    strip.yaxis.set_major_locator(FixedLocator([0.0, top]))
    strip.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    strip.tick_params(axis="y", labelsize="x-small", length=2)
    if len(table) <= 16:  # the number of groups over the taller of the two bars
        tallest = np.fmax(table["share_groups"], table["share_weight"]) if marks.wname != "uniform" else table["share_groups"]
        for x, h, g in zip(mid, tallest, table["groups"]):
            strip.annotate(f"{g:,}", (x, h), xytext=(0, 1), textcoords="offset points", ha="center", va="bottom",
                           fontsize="x-small", color=GREY)
    return handles


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


def _legend(ax: Axes, marks: _Marks, model_handles: list[Any], sparse_any: bool, share_handles: list[Any]) -> None:
    """The legend outside the data: with several models one entry per model, then one per kind of mark."""
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    wname, quantiles = marks.wname, marks.quantiles
    note = "GAUC weights groups by rows:\nbig groups count more" if wname == "count" else f"GAUC weight: {wname}"
    if not marks.several:
        handles, _ = ax.get_legend_handles_labels()
        legend = ax.legend(handles=[*handles, *share_handles], loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0, fontsize="small",
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
    ax.legend(handles=[*model_handles, *keys, *share_handles], loc="upper left", bbox_to_anchor=(1.02, 1.0),
              borderaxespad=0.0, fontsize="small", title=note, title_fontsize="small", alignment="left")
