"""Global XAUC over ranges of distinct scores: exact per range, the pairs across ranges from the
ranges' label counts.

The partitioned engines count rows per distinct (score, label) in ranges of ascending score (the
global-AUC pass, :mod:`.ranges`), each range holding every row of its scores. XAUC's pairs then
split in two:

* pairs **within a range**: the range's own exact count (:func:`xauc_range_sums`: the kernel of
  :mod:`pandas_rankeval.core.kernels.xauc` over the range's distinct (score, label) pairs, each
  weighing its rows or its summed sample weights: a pair of cells weighs the product of their
  weights, as the pairs of their rows do);
* pairs **across ranges**: every row of an earlier range has a smaller score, so such a pair is
  concordant when its labels increase with the range and discordant when they decrease; only
  the ranges' label counts matter. :func:`chain_xauc` reads them as a table of (range, label,
  weight) rows with the range as the score: the kernel over it counts the pairs across ranges
  as concordant or discordant and the pairs within a range (of different labels) as tied
  scores, whose half credit is taken back out and replaced by the ranges' own counts.

The client holds one row per distinct (range, label) and a few numbers per range; never a row of
the table. With 0/1 labels this is the global AUC.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..core.inputs.validation import numeric_values
from ..core.kernels.xauc import xauc_sums

__all__ = ["RangeXauc", "XaucCounts", "chain_xauc", "xauc_range_sums"]


@dataclass(frozen=True)
class XaucCounts:
    """Global XAUC's numerator (concordant weight + half the tied) and denominator (the weight of
    the pairs with different labels) of one score column; ``pos`` is the total weight (what the
    summary of a global pass reads as the summed weights), ``neg`` 0."""

    num: float
    den: float
    pos: float = 0.0
    neg: float = 0.0

    def value(self, ties: str = "expected") -> float:
        """num / den; NaN when no pair of rows has different labels (and positive weight)."""
        return float(self.num / self.den) if self.den > 0 else float("nan")


@dataclass
class RangeXauc:
    """What one table of ranges gave: per range ``(range, num, den)``, its label counts, the rows."""

    ranges: list[tuple[int, float, float]]
    labels: pd.DataFrame  # columns range, label, weight: one row per distinct (range, label)
    n_rows: int = 0
    n_pos: int = 0
    weight: float = 0.0


def _score_rank(frame: pd.DataFrame, cols: Any) -> np.ndarray:
    """The dense rank of the score's order key (both parts of it when the engine has two)."""
    key = frame[cols.key].to_numpy()
    if cols.key2 is None:
        return np.unique(key, return_inverse=True)[1].reshape(-1).astype(np.int64)
    key2 = frame[cols.key2].to_numpy()
    order = np.lexsort((key2, key))
    change = np.r_[True, (key[order][1:] != key[order][:-1]) | (key2[order][1:] != key2[order][:-1])]
    rank = np.empty(len(frame), dtype=np.int64)
    rank[order] = np.cumsum(change) - 1
    return rank


def xauc_range_sums(frame: pd.DataFrame, cols: Any, label: Hashable) -> RangeXauc:
    """Per range of one range table (a pandas frame of :class:`~.ranges.RangeColumns`: rows per
    distinct (range, score key, label) of the plan's one score column): the exact XAUC sums of its
    pairs, and its label counts."""
    empty = pd.DataFrame({"range": np.zeros(0, dtype=np.int64), "label": np.zeros(0), "weight": np.zeros(0)})
    if not len(frame):
        return RangeXauc([], empty)
    rng = frame[cols.range].to_numpy().astype(np.int64)
    codes, ranges = pd.factorize(rng)
    y = numeric_values(frame[cols.label], label, "label")
    n = frame[cols.n].to_numpy().astype(np.int64)
    mass = n.astype(np.float64) if cols.w is None else frame[cols.w].to_numpy().astype(np.float64)
    num, den = xauc_sums(y, _score_rank(frame, cols), mass, codes.astype(np.int64), len(ranges))
    counts = pd.DataFrame({"range": rng, "label": y, "weight": mass}).groupby(
        ["range", "label"], sort=False, as_index=False)["weight"].sum()
    out = list(zip(np.asarray(ranges).tolist(), num.tolist(), den.tolist()))
    return RangeXauc(out, counts, n_rows=int(n.sum()), weight=float(mass.sum()))


def chain_xauc(parts: Sequence[RangeXauc]) -> XaucCounts:
    """Global XAUC's sums from every range's (:func:`xauc_range_sums`): the pairs within ranges
    as each range counted them, the pairs across ranges from the label counts (see the module).

    Examples
    --------
    >>> import pandas as pd
    >>> # labels 1, 2 at scores 0.1, 0.2 (range 0) and 3, 3 at 0.3, 0.4 (range 1): in range 0
    >>> # the pair (1, 2) is concordant; across ranges (1,3) (1,3) (2,3) (2,3) are concordant
    >>> a = RangeXauc([(0, 1.0, 1.0)], pd.DataFrame({"range": [0, 0], "label": [1.0, 2.0], "weight": [1.0, 1.0]}))
    >>> b = RangeXauc([(1, 0.0, 0.0)], pd.DataFrame({"range": [1], "label": [3.0], "weight": [2.0]}))
    >>> chain_xauc([a, b])
    XaucCounts(num=5.0, den=5.0, pos=0.0, neg=0.0)
    """
    within_num = sum(num for p in parts for _, num, _ in p.ranges)
    within_den = sum(den for p in parts for _, _, den in p.ranges)
    labels = [p.labels for p in parts if len(p.labels)]
    if not labels:
        return XaucCounts(0.0, 0.0)
    table = pd.concat(labels, ignore_index=True)
    y = table["label"].to_numpy(dtype=np.float64)
    w = table["weight"].to_numpy(dtype=np.float64)
    num, den = xauc_sums(y, table["range"].to_numpy(dtype=np.int64), w)
    # num[0] counts the pairs within a range (different labels: within_den of them) as tied: half each
    total = float(num[0]) - within_den / 2.0 + within_num
    return XaucCounts(total, float(den[0]), pos=float(sum(p.weight for p in parts)))
