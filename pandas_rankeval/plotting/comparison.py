"""The forest plot of a comparison table: each model's difference to the baseline, its interval and
p-value, one panel per metric."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from pandas_rankeval.core.inputs.validation import check_option

from .style import MARKERS, model_colors, legend_right_of_texts, matplotlib_rc, p_text, prepare_axes, require_matplotlib

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes

__all__ = ["agreeing_intervals", "plot_comparison"]

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


def _step_alphas(p: np.ndarray, adjust: str, alpha: float, family: np.ndarray) -> np.ndarray:
    """Each row's error level at which its mark was decided: ``alpha`` unadjusted; Holm's step
    level ``alpha / (m - i)`` for the i-th smallest p-value it rejected (0-based), and the level of
    the step where it stopped for the rest; Benjamini-Hochberg's ``alpha * R / m`` (R rejections,
    at least 1) for every row. An interval at level ``1 - a`` excludes 0 exactly when a test that
    agrees with it rejects at ``a``: so each row's interval agrees with its mark.

    >>> p = np.array([0.001, 0.02, 0.04, 0.3])
    >>> _step_alphas(p, "holm", 0.05, np.zeros(4)).round(4).tolist()
    [0.0125, 0.0167, 0.0167, 0.0167]
    >>> _step_alphas(p, "bh", 0.05, np.zeros(4)).round(4).tolist()
    [0.025, 0.025, 0.025, 0.025]
    """
    out = np.full(p.shape[0], float(alpha))
    if adjust not in ("holm", "bh"):
        return out
    for fam in dict.fromkeys(family.tolist()):
        rows = np.flatnonzero((family == fam) & np.isfinite(p))
        m = rows.size
        if m == 0:
            continue
        order = rows[np.argsort(p[rows], kind="stable")]
        if adjust == "holm":
            level = alpha / (m - np.arange(m))
            failed = np.flatnonzero(p[order] >= level)
            stop = failed[0] if failed.size else m
            out[order] = np.where(np.arange(m) < stop, level, alpha / (m - min(stop, m - 1)))
        else:
            ranked = p[order] * m / np.arange(1, m + 1)
            passed = np.flatnonzero(ranked < alpha)
            out[order] = alpha * max(int(passed[-1]) + 1 if passed.size else 0, 1) / m
    return out


def agreeing_intervals(t: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, str]:
    """Intervals that agree with the table's marks by construction, and how they were made.

    A ``compare`` table's marks come from adjusted p-values (Holm by default) of its test (a
    sign-flip test, DeLong's), while its intervals are percentile bootstrap intervals each at the
    table's level: an interval can exclude 0 beside a "not significant" mark. Here each row's
    interval is the one its test implies (Altman and Bland, BMJ 2011: the standard error
    ``|diff| / z_{1 - p/2}`` of a p-value), at the level of its mark's decision ``1 - a``
    (:func:`_step_alphas`): ``diff -/+ z_{1 - a/2} |diff| / z_{1 - p/2}``, which excludes 0
    exactly when ``p < a``, that is when the row is marked significant. Rows without a p-value
    keep the table's interval. Clipped to the range of a difference.
    """
    from scipy.special import ndtri

    from pandas_rankeval.tables.compare import difference_bounds

    attrs = t.attrs
    diff = t["diff"].to_numpy(dtype=float)
    lo, hi = t["ci_low"].to_numpy(dtype=float), t["ci_high"].to_numpy(dtype=float)
    if "p_value" not in t.columns:
        return lo, hi, "intervals: the table's"
    adjust, alpha = str(attrs.get("adjust", "holm")), float(attrs.get("alpha", 0.05))
    metric_of = (np.array([str(m) for m in t.index.get_level_values("metric")], dtype=object)
                 if "metric" in t.index.names else np.zeros(len(t), dtype=object))
    family = metric_of if str(attrs.get("family", "table")) == "metric" else np.zeros(len(t), dtype=object)
    p = t["p_value"].to_numpy(dtype=float)
    a = _step_alphas(p, adjust, alpha, family)
    with np.errstate(divide="ignore", invalid="ignore"):
        # z_{1 - p/2} as -ndtri(p/2): 1 - p/2 rounds to 1 below p = 1e-16 (z infinite, a bar of
        # width 0 on the most significant rows); p = 0 (underflow) keeps the table's interval
        se = np.abs(diff) / -ndtri(p / 2.0)
        half = -ndtri(a / 2.0) * se
    ok = np.isfinite(half) & np.isfinite(diff) & (p > 0)
    low_b, high_b = difference_bounds(metric_of) if "metric" in t.index.names else (-np.inf, np.inf)
    new_lo = np.where(ok, np.clip(diff - np.where(ok, half, 0.0), low_b, high_b), lo)
    new_hi = np.where(ok, np.clip(diff + np.where(ok, half, 0.0), low_b, high_b), hi)
    how = {"holm": "Holm's step level", "bh": "BH's level"}.get(adjust, f"level {1 - alpha:g}")
    return new_lo, new_hi, f"bars: each test's interval at {how}, as the marks (intervals='table': the table's)"


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
    _points(ax, diff, y, sig, cols, marks, "significant" in sub.columns)
    ax.axvline(0.0, color="grey", linestyle="--", linewidth=1)
    size = _row_labels(ax, rows, ys, at)
    if rel:
        ax.xaxis.set_major_formatter(lambda v, _pos: f"{v:+.0f}%")
    pcol, _ = _p_column(sub)
    if annotate and pcol is not None:
        transform = ax.get_yaxis_transform()  # x in axes coordinates, y in data
        for yy, p in zip(y, sub[pcol].to_numpy(dtype=float)):
            if np.isfinite(p):
                ax.text(1.01, yy, p_text(p), transform=transform, va="center", ha="left",
                        fontsize=min(size, float(matplotlib_rc("font.size")) * 0.833))


def _points(ax: Any, diff: np.ndarray, y: np.ndarray, sig: np.ndarray, cols: list[Any], marks: list[str],
            has_sig: bool) -> None:
    """The differences: filled when significant, hollow otherwise (two collections when every
    row has one style, else one point per row)."""
    if len({str(c) for c in cols}) == 1 and len(set(marks)) == 1:
        if sig.any():
            ax.scatter(diff[sig], y[sig], s=40, marker=marks[0], color=cols[0], edgecolors=cols[0], zorder=3,
                       label="significant")
        if (~sig).any():
            ax.scatter(diff[~sig], y[~sig], s=40, marker=marks[0], facecolors="white", edgecolors=cols[0], zorder=3,
                       label="not significant" if has_sig else "difference")
        return
    for k in range(len(diff)):
        ax.scatter([diff[k]], [y[k]], s=45, marker=marks[k], zorder=3, edgecolors=cols[k],
                   facecolors=cols[k] if sig[k] else "white", label="_row")


def _row_labels(ax: Any, rows: list[tuple[str, int | None, str]], ys: np.ndarray, at: np.ndarray) -> float:
    """The rows' labels (segment headers bold, a faint rule under each); their font size."""
    n_rows = len(rows)
    ax.set_yticks(ys)
    # many rows on a short axes: labels shrink to their row's height rather than overprint
    row_pt = ax.figure.get_figheight() * ax.get_position().height * 72 / max(n_rows, 1)
    size = min(float(matplotlib_rc("ytick.labelsize")), max(0.8 * row_pt, 4.0))
    ax.set_yticklabels([label for label, _, _ in rows], fontsize=size)
    for tick, (_, _, kind) in zip(ax.get_yticklabels(), rows):
        if kind == "segment":
            tick.set_fontweight("bold")
    for h in ys[~at]:  # a faint rule under each segment header
        ax.axhline(h - 0.5, color="#dddddd", linewidth=0.8, zorder=0)
    ax.set_ylim(-0.7, n_rows - 0.3)
    return size


def plot_comparison(
    compare_table: pd.DataFrame,
    ax: Axes | None = None,
    *,
    relative: bool | None = None,
    annotate: bool = True,
    title: str | None = None,
    intervals: str = "marks",
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
    intervals : {"marks", "table"}, default="marks"
        ``"marks"``: each bar is the interval its row's test implies at the level of its
        mark's decision (Holm's step level by default; :func:`agreeing_intervals`), so a bar
        excludes 0 exactly where the point is filled. ``"table"``: the table's own intervals
        (each at the table's level, not adjusted unless ``ci_adjust="bonferroni"``; they may
        disagree with the marks). The x label says which.
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
    >>> cmp = pre.compare(
    ...     df,
    ...     group="user_id",
    ...     label="click",
    ...     scores=["model_a", "model_b"],
    ...     baseline="model_a",
    ...     metrics=["auc", "gauc"],
    ...     n_boot=200,
    ... )
    >>> axes = plotting.plot_comparison(cmp)
    >>> [a.get_title(loc="left") for a in axes]
    ['auc', 'gauc']
    """
    _check_table(compare_table)
    t, bars = _bar_intervals(_pairs_as_models(compare_table), intervals)
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
    require_matplotlib()
    style = _row_styles(t)
    unit = " (% of the second model's value)" if all_pairs else " (% of the baseline's value)"
    if ax is not None or "metric" not in names or len(names) == 1:
        rel = bool(base_col is not None and ax is not None) if relative is None else bool(relative)
        ax = prepare_axes(ax, (8.0, 0.28 * len(t) + 2.0))
        one_metric = "metric" in names and t.index.get_level_values("metric").nunique() == 1
        _forest(ax, t, _layout_rows(t, per_metric=one_metric), rel, annotate, style.colors, style.markers, base_col)
        ax.set_xlabel(f"{xlabel}{unit if rel else ''}\n{bars}")
        ax.set_title(title if title is not None else heading)
        if len(style.handles) > 2 or "significant" in t.columns:
            legend_right_of_texts(ax, style.handles if style.n_models > 1 else None)
        return ax
    rel = bool(relative)
    fig, axes = _metric_panels(t, style, rel, annotate, base_col)
    axes[-1].set_xlabel(f"{xlabel}{unit if rel else ''}\n{bars}")
    _legend_above(fig, style.handles, title if title is not None else heading)
    return axes


def _bar_intervals(t: pd.DataFrame, intervals: str) -> tuple[pd.DataFrame, str]:
    """The bars: the intervals that agree with the marks (``"marks"``) or the table's own
    (``"table"``); the x label's word on them."""
    check_option(intervals, "intervals", "plot_comparison", ("marks", "table"))
    if intervals == "marks":
        t = t.copy()
        t["ci_low"], t["ci_high"], bars = agreeing_intervals(t)
        return t, bars
    return t, "bars: the table's intervals" + (", simultaneous (Bonferroni)" if t.attrs.get("ci_adjust") == "bonferroni"
                                               else ", each at its own level (not adjusted like the marks)")


@dataclass
class _RowStyles:
    """Each row's colour and marker (one per model, or per pair), and the legend's handles."""

    colors: list[Any]
    markers: list[str]
    handles: list[Any]
    n_models: int


def _row_styles(t: pd.DataFrame) -> _RowStyles:
    """A colour and a marker per model; the legend: the models, then filled = significant."""
    from matplotlib.lines import Line2D

    names = list(t.index.names)
    models = list(dict.fromkeys(t.index.get_level_values("model"))) if "model" in names else [None]
    palette = dict(zip(models, model_colors(max(len(models), 1))))
    model_of = list(t.index.get_level_values("model")) if "model" in names else [None] * len(t)
    _, how = _p_column(t)
    handles = [
        Line2D([], [], linestyle="none", marker=MARKERS[i % len(MARKERS)], color=palette[m], label=str(m))
        for i, m in enumerate(models) if m is not None
    ]
    if "significant" in t.columns:
        sig_name = f"significant ({how})" if how else "significant"
        handles += [
            Line2D([], [], linestyle="none", marker="o", color="grey", label=sig_name),
            Line2D([], [], linestyle="none", marker="o", markerfacecolor="white", color="grey", label="not significant"),
        ]
    return _RowStyles(
        colors=[palette[m] for m in model_of],
        markers=[MARKERS[models.index(m) % len(MARKERS)] for m in model_of],
        handles=handles,
        n_models=len(models),
    )


def _metric_panels(t: pd.DataFrame, style: _RowStyles, rel: bool, annotate: bool,
                   base_col: str | None) -> tuple[Any, Any]:
    """One panel per metric, top to bottom in the table's order, each its own x axis."""
    import matplotlib.pyplot as plt

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
        _forest(panel, sub, _layout_rows(sub, per_metric=True), rel, annotate, [style.colors[i] for i in pos],
                [style.markers[i] for i in pos], base_col)
        panel.set_title(_metric_heading(metric), loc="left", fontsize="medium", fontweight="bold")
    return fig, axes


def _legend_above(fig: Any, handles: list[Any], title: str) -> None:
    """The title heads the legend: one block above the panels, as many columns as the width holds."""
    renderer = fig.canvas.get_renderer()
    for ncol in range(min(len(handles), 6), 0, -1):
        legend = fig.legend(handles=handles, loc="outside upper left", ncol=ncol, fontsize="small", frameon=False,
                            title=title, title_fontproperties={"size": "large"}, alignment="left")
        if ncol == 1 or legend.get_window_extent(renderer).width <= 0.97 * fig.bbox.width:
            break
        legend.remove()


def _metric_heading(metric: Any) -> str:
    """A metric panel's title: its name, and which way is better when it is not "higher" (from
    the registry: ``"logloss (lower is better)"``, ``"pcoc (closer to 1 is better)"``)."""
    from ..core.metrics.registry import parse_metric

    try:
        direction = parse_metric(str(metric)).info.reading.direction
    except (TypeError, ValueError):  # a hand-made table's own label
        return str(metric)
    return str(metric) if direction == "higher" else f"{metric} ({direction} is better)"

