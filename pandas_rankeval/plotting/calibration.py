"""The reliability diagram of :func:`pandas_rankeval.plotting.plot_calibration` (its own module: the
plotting module keeps the ranking plots)."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ..core.kernels.calibration import (
    check_binary_labels,
    check_probabilities,
    ece_bins,
    label_error,
    probability_error,
)
from ..core.inputs.validation import as_columns, check_bins, check_columns, missing_values_error
from .style import MARKERS, model_colors, make_room, prepare_axes, require_matplotlib

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes

__all__ = ["calibration_table", "plot_calibration"]

_FUNC = "plot_calibration"


def calibration_table(
    df: pd.DataFrame,
    *,
    label: Hashable,
    score: Hashable | Sequence[Hashable],
    by: Hashable | Sequence[Hashable] | None = None,
    bins: int = 10,
    sample_weight: Hashable | None = None,
    threshold: float | None = None,
    nan_policy: str = "raise",
) -> pd.DataFrame:
    """Per (segment, model, bin): the weight of its rows, their mean probability and click rate.

    The bins and the checks are those of :func:`pandas_rankeval.ece`; empty bins are left out.
    Columns: the ``by`` columns, ``model``, ``bin``, ``weight``, ``mean_p``, ``rate``, and ``ece``
    (the model's ECE over its segment, repeated on its bins).
    """
    if not isinstance(df, pd.DataFrame):
        to_pandas = getattr(df, "to_pandas", None)
        if to_pandas is None:
            raise TypeError(f"{_FUNC} expects a pandas or polars DataFrame; got {type(df).__name__}.")
        df = to_pandas()
    bins = check_bins(bins, _FUNC)
    scores = as_columns(score, "score", _FUNC, df)
    by_cols = as_columns(by, "by", _FUNC, df) if by is not None else []
    cols = [label, *scores, *([sample_weight] if sample_weight is not None else []), *by_cols]
    check_columns(df, cols)
    missing = {c: int(df[c].isna().sum()) for c in dict.fromkeys(cols) if df[c].isna().any()}
    if missing:
        if nan_policy != "omit":
            raise missing_values_error(missing)
        df = df.dropna(subset=list(dict.fromkeys(cols)))
    y_raw = df[label].to_numpy(dtype=np.float64)
    if threshold is None:
        bad = check_binary_labels(df[label].to_numpy())
        if bad is not None:
            raise label_error(label, *bad, ["plot_calibration"])
        y = y_raw == 1
    else:
        y = y_raw >= threshold
    w = np.ones(len(df)) if sample_weight is None else df[sample_weight].to_numpy(dtype=np.float64)
    seg_codes = np.zeros(len(df), dtype=np.int64)
    seg_keys: list[tuple] = [()]
    if by_cols:
        frame = df[by_cols].reset_index(drop=True)
        codes = frame.groupby(by_cols, sort=True, observed=True).ngroup().to_numpy()
        seg_codes = codes.astype(np.int64)
        firsts = frame.drop_duplicates().sort_values(by_cols)
        seg_keys = [tuple(r) for r in firsts.itertuples(index=False, name=None)]
    parts = []
    for s in scores:
        p = df[s].to_numpy(dtype=np.float64)
        bad_p = check_probabilities(p)
        if bad_p is not None:
            raise probability_error(s, *bad_p, ["plot_calibration"])
        cell = seg_codes * bins + ece_bins(p, bins)
        size = len(seg_keys) * bins
        wsum = np.bincount(cell, weights=w, minlength=size).reshape(-1, bins)
        psum = np.bincount(cell, weights=w * p, minlength=size).reshape(-1, bins)
        ysum = np.bincount(cell, weights=w * y, minlength=size).reshape(-1, bins)
        with np.errstate(invalid="ignore", divide="ignore"):
            ece = np.abs(psum - ysum).sum(axis=1) / wsum.sum(axis=1)
        seg, b = np.nonzero(wsum > 0)
        part = pd.DataFrame({
            "model": [s] * seg.shape[0], "bin": b, "weight": wsum[seg, b],
            "mean_p": psum[seg, b] / wsum[seg, b], "rate": ysum[seg, b] / wsum[seg, b], "ece": ece[seg],
        })
        for i, c in enumerate(by_cols):
            part.insert(i, c, [seg_keys[j][i] for j in seg])  # type: ignore[arg-type]
        parts.append(part)
    return pd.concat(parts, ignore_index=True)


def plot_calibration(
    df: pd.DataFrame,
    *,
    label: Hashable,
    score: Hashable | Sequence[Hashable],
    by: Hashable | Sequence[Hashable] | None = None,
    bins: int = 10,
    sample_weight: Hashable | None = None,
    threshold: float | None = None,
    nan_policy: str = "raise",
    ax: Axes | None = None,
    title: str | None = None,
) -> Any:
    """Reliability diagram: observed click rate against mean predicted probability, per bin.

    Each model is one line over the equal-width probability bins of :func:`pandas_rankeval.ece`
    (empty bins left out), its marker area proportional to the bin's share of the rows; the
    dotted diagonal is perfect calibration. The legend gives each model's ECE. With ``by``,
    one panel per segment (the models in each, with their ECE in that segment). Legends sit
    outside the data, to the right.

    Parameters
    ----------
    df : DataFrame
        One row per shown item (pandas, or polars: converted).
    label : column
        Clicks, 0/1 or bool (or graded with ``threshold``).
    score : column or list of columns
        Predicted probabilities in [0, 1], one column per model.
    by : column or list of columns, optional
        One panel per segment.
    bins : int, default=10
        Equal-width bins of [0, 1].
    sample_weight : column, optional
        Per-row weights.
    threshold, nan_policy :
        As in :func:`pandas_rankeval.logloss`.
    ax : matplotlib Axes, optional
        Where to draw (without ``by``); default: a new figure.
    title : str, optional
        Default: "Calibration (reliability diagram)".

    Returns
    -------
    ax : matplotlib Axes, or a numpy array of Axes (one per segment) with ``by``
        With one line per model labelled ``"<model> (ECE@<bins> <value>)"``.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np, pandas as pd
    >>> from pandas_rankeval import plotting
    >>> rng = np.random.default_rng(0)
    >>> p = rng.uniform(size=2000)
    >>> df = pd.DataFrame(
    ...     {"click": rng.uniform(size=2000) < p, "model": p, "shifted": p**2}
    ... )
    >>> ax = plotting.plot_calibration(
    ...     df, label="click", score=["model", "shifted"], bins=5
    ... )
    >>> [t.get_text() for t in ax.get_legend().get_texts()]
    ['model (ECE@5 0.0132)', 'shifted (ECE@5 0.1706)', 'perfectly calibrated']
    """

    table = calibration_table(
        df, label=label, score=score, by=by, bins=bins, sample_weight=sample_weight, threshold=threshold,
        nan_policy=nan_policy,
    )
    models = list(dict.fromkeys(table["model"]))
    colors = model_colors(len(models))
    by_cols = [c for c in table.columns if c not in ("model", "bin", "weight", "mean_p", "rate", "ece")]
    head = title if title is not None else "Calibration (reliability diagram)"
    if by_cols:
        require_matplotlib()
        import matplotlib.pyplot as plt

        segs = list(dict.fromkeys(table[by_cols].itertuples(index=False, name=None)))
        n = len(segs)
        ncols = min(n, 3)
        nrows = -(-n // ncols)
        fig, grid = plt.subplots(nrows, ncols, figsize=(4.2 * ncols, 4.6 * nrows), squeeze=False,
                                 layout="constrained", sharex=True, sharey=True)
        axes = grid.reshape(-1)
        for a in axes[n:]:
            a.set_visible(False)
        for a, key in zip(axes, segs):
            key_t = tuple(key)
            mask = np.logical_and.reduce([table[c].to_numpy() == v for c, v in zip(by_cols, key_t)])
            part = table[mask]
            _draw(a, part, models, colors, MARKERS, bins)
            # the models' ECE differ per segment: in the panel's title, not in a legend per panel
            eces = [f"{m} {float(part.loc[part['model'] == m, 'ece'].iloc[0]):.4f}"
                    for m in models if (part["model"] == m).any()]
            a.set_title(", ".join(f"{c}={v}" for c, v in zip(by_cols, key_t)) + f"\nECE@{bins}: " + ", ".join(eces),
                        loc="left", fontsize="medium")
        fig.suptitle(head)
        _shared_legend(fig, models, colors, MARKERS)
        return axes[:n]
    ax = prepare_axes(ax, (6.0, 5.0))
    make_room(ax.figure)
    _draw(ax, table, models, colors, MARKERS, bins)
    ax.set_title(head, loc="left")
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), frameon=False)  # outside the data
    return ax


def _shared_legend(fig: Any, models: list[Hashable], colors: list[Any], markers: Sequence[str]) -> None:
    """One legend for every panel, under them: each model's colour and marker, and the diagonal."""
    from matplotlib.lines import Line2D

    handles = [Line2D([], [], color=colors[i], marker=markers[i % len(markers)], lw=1.5, label=str(m))
               for i, m in enumerate(models)]
    handles.append(Line2D([], [], ls=":", color="#555555", lw=1, label="perfectly calibrated"))
    fig.legend(handles=handles, loc="outside lower center", ncols=len(handles), frameon=False)


def _draw(ax: Any, table: pd.DataFrame, models: list[Hashable], colors: list[Any], markers: Sequence[str],
          bins: int) -> None:
    total = float(table.groupby("model", sort=False)["weight"].sum().max()) if len(table) else 1.0
    for i, m in enumerate(models):
        t = table[table["model"] == m]
        if not len(t):
            continue
        sizes = 16.0 + 180.0 * t["weight"].to_numpy() / max(total, 1e-300)
        label = f"{m} (ECE@{bins} {float(t['ece'].iloc[0]):.4f})"
        ax.plot(t["mean_p"], t["rate"], color=colors[i], lw=1.5, label=label, zorder=3)
        ax.scatter(t["mean_p"], t["rate"], s=sizes, color=colors[i], marker=markers[i % len(markers)], zorder=4,
                   edgecolor="white", linewidth=0.5)
    ax.plot([0, 1], [0, 1], ls=":", color="#555555", lw=1, label="perfectly calibrated", zorder=2)
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_aspect("equal", adjustable="box")
    ax.set_xlabel("mean predicted probability")
    ax.set_ylabel("observed click rate")

