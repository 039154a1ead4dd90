"""The calibration metrics' row sums: log loss, normalized entropy, PCOC and ECE.

These metrics read the scores as probabilities and need no sort. Each is a function of a few
additive sums over rows, so each group contributes its own sums and any partitioning of whole
groups (segments, Dask and Spark partitions, the group bootstrap's replicates) adds them up:

* ``logloss`` = sum w l / sum w, with l = -(y log p + (1 - y) log(1 - p)), p clipped to
  [:data:`EPS`, 1 - :data:`EPS`];
* ``ne`` = logloss / H(b), H(b) = -(b log b + (1 - b) log(1 - b)), b = sum w y / sum w;
* ``pcoc`` = sum w p / sum w y;
* ``ece@B`` = sum_b |sum_b w (p - y)| / sum w over B equal-width bins of p ([0, 1/B], (1/B, 2/B],
  ..., as sklearn's ``calibration_curve`` cuts them).

A metric's summary carries one (numerator, denominator) pair per *component*: logloss one
(sum w l, sum w), ne two (that one and (sum w y, sum w)), pcoc one (sum w p, sum w y), ece@B one
per bin (sum w (p - y), sum w) over the rows of the bin. :func:`row_sums` gives them per group,
with each group's own value (``per_group``); the ``combine`` function of an entry gives the
metric from its components' sums, for the whole table, a segment or a bootstrap replicate alike.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = [
    "EPS",
    "RowInput",
    "RowSums",
    "binary_entropy",
    "check_binary_labels",
    "check_probabilities",
    "ece_bins",
    "ece_combine",
    "ece_rows",
    "logloss_rows",
    "ne_combine",
    "ne_rows",
    "pcoc_rows",
]

#: Probabilities are clipped to [EPS, 1 - EPS] inside the logs (sklearn's ``log_loss`` default before
#: its ``eps="auto"``): a score of exactly 0 or 1 costs -log(1e-15) = 34.5 when it is wrong, not inf.
EPS = 1e-15


@dataclass(frozen=True)
class RowInput:
    """What a calibration metric reads: per row its group's index, p, y and weight w."""

    group: np.ndarray  # int, per row: the index of its group in the per-group arrays
    n_groups: int
    p: np.ndarray  # float64 probabilities in [0, 1]
    y: np.ndarray  # bool: a click (label 1, or >= threshold)
    w: np.ndarray | None  # per-row sample weights, or None (1 for every row)
    param: int | float | None  # the name's parameter (ece: the number of bins)


@dataclass(frozen=True)
class RowSums:
    """Per group: each component's numerator and denominator (parts x groups), the group's own value."""

    num: np.ndarray
    den: np.ndarray
    values: np.ndarray


def _sum(x: RowInput, v: np.ndarray | None) -> np.ndarray:
    """Per group: sum of w * v (v None: sum of w)."""
    if v is None:
        weights = x.w
    else:
        weights = v if x.w is None else v * x.w
    return np.bincount(x.group, weights=weights, minlength=x.n_groups).astype(np.float64)


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    out = np.full(np.broadcast_shapes(np.shape(num), np.shape(den)), np.nan)
    np.divide(num, den, out=out, where=den > 0)
    return out


def row_loss(p: np.ndarray, y: np.ndarray) -> np.ndarray:
    """-log(p) for a click, -log(1 - p) otherwise, p clipped to [EPS, 1 - EPS]."""
    q = np.clip(p, EPS, 1.0 - EPS)
    return -np.where(y, np.log(q), np.log1p(-q))


def binary_entropy(b: np.ndarray) -> np.ndarray:
    """H(b) = -(b log b + (1 - b) log(1 - b)) in nats; NaN unless 0 < b < 1 (no entropy to divide by)."""
    b = np.asarray(b, dtype=np.float64)
    out = np.full(b.shape, np.nan)
    ok = (b > 0) & (b < 1)
    bb = np.where(ok, b, 0.5)
    np.copyto(out, -(bb * np.log(bb) + (1.0 - bb) * np.log1p(-bb)), where=ok)
    return out


def logloss_rows(x: RowInput) -> RowSums:
    """One component: (sum w l, sum w)."""
    num, den = _sum(x, row_loss(x.p, x.y)), _sum(x, None)
    return RowSums(num[None], den[None], _ratio(num, den))


def ne_rows(x: RowInput) -> RowSums:
    """Two components: (sum w l, sum w) and (sum w y, sum w)."""
    loss, w, clicks = _sum(x, row_loss(x.p, x.y)), _sum(x, None), _sum(x, x.y.astype(np.float64))
    num, den = np.stack([loss, clicks]), np.stack([w, w])
    return RowSums(num, den, ne_combine(np.stack([num, den], axis=-1).swapaxes(0, 1)))


def ne_combine(sums: np.ndarray) -> np.ndarray:
    """NE from its components' sums (..., 2, 2): logloss / H(base rate)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        ll = _ratio(sums[..., 0, 0], sums[..., 0, 1])
        b = _ratio(sums[..., 1, 0], sums[..., 1, 1])
        return ll / binary_entropy(b)


def pcoc_rows(x: RowInput) -> RowSums:
    """One component: (sum w p, sum w y)."""
    num, den = _sum(x, x.p), _sum(x, x.y.astype(np.float64))
    return RowSums(num[None], den[None], _ratio(num, den))


def ece_bins(p: np.ndarray, bins: int) -> np.ndarray:
    """The bin of each probability: [0, 1/B], (1/B, 2/B], ..., ((B-1)/B, 1] (an edge belongs to the
    bin below it, 0 to the first), with the edges of ``np.linspace(0, 1, B + 1)``: the bins of
    ``sklearn.calibration.calibration_curve(strategy="uniform")``."""
    edges = np.linspace(0.0, 1.0, bins + 1)
    return np.searchsorted(edges[1:-1], p, side="left")


def ece_rows(x: RowInput) -> RowSums:
    """One component per bin b: (sum w (p - y), sum w) over the rows of the bin."""
    bins = int(x.param)  # type: ignore[arg-type]
    cell = x.group.astype(np.int64) * bins + ece_bins(x.p, bins)
    d = x.p - x.y
    wd = d if x.w is None else d * x.w
    size = x.n_groups * bins
    num = np.bincount(cell, weights=wd, minlength=size).reshape(x.n_groups, bins).T
    den = np.bincount(cell, weights=x.w, minlength=size).astype(np.float64).reshape(x.n_groups, bins).T
    total = den.sum(axis=0)
    return RowSums(num, den, _ratio(np.abs(num).sum(axis=0), total))


def ece_combine(sums: np.ndarray) -> np.ndarray:
    """ECE from its bins' sums (..., B, 2): sum_b |sum w (p - y)| / sum w (empty bins add 0)."""
    return _ratio(np.abs(sums[..., 0]).sum(axis=-1), sums[..., 1].sum(axis=-1))


def check_probabilities(score: np.ndarray) -> tuple[int, float, float] | None:
    """(count outside [0, 1], smallest, largest) of a score column, or None when all are in range."""
    bad = ~((score >= 0) & (score <= 1))
    if not bad.any():
        return None
    return int(bad.sum()), float(np.nanmin(score)), float(np.nanmax(score))


def probability_error(column: object, count: int, lo: float, hi: float, names: list[str]) -> ValueError:
    """Scores outside [0, 1]: the column, the count, the range seen and the fix."""
    s = "s" if count != 1 else ""
    return ValueError(
        f"Column {column!r} (score) has {count:,} value{s} outside [0, 1] (range seen: {lo:.6g} to {hi:.6g}); "
        f"the calibration metrics ({', '.join(names)}) read the scores as probabilities. Pass predicted probabilities (for example "
        "a sigmoid of the model's logits); the ranking metrics take any score."
    )


def check_binary_labels(y: np.ndarray) -> tuple[int, list[float]] | None:
    """(labels other than 0 and 1, a few such values), or None when every label is 0 or 1."""
    if y.dtype == bool:
        return None
    bad = (y != 0) & (y != 1)
    if not bad.any():
        return None
    return int(bad.sum()), [float(v) for v in np.unique(y[bad])[:3]]


def label_error(column: object, count: int, examples: list[float], names: list[str]) -> ValueError:
    """Labels other than 0/1 for a calibration metric: the column, the count and the fix."""
    s = "s" if count != 1 else ""
    return ValueError(
        f"Column {column!r} (label) has {count:,} label{s} other than 0 and 1 (for example "
        f"{', '.join(f'{v:g}' for v in examples)}); the calibration metrics ({', '.join(names)}) need 0/1 labels (a click or not). "
        "Pass threshold= to count a label >= threshold as a click."
    )
