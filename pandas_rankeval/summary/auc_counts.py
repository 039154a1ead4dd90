"""Global AUC from distinct-score counts: exact pair counts per range of scores, chained in order.

Every engine counts (relevant, non-relevant) rows per distinct score, sorts the distinct scores
(range partitions), and hands each range's counts here; :func:`chain_auc` adds them up in score
order in Python integers (exact at any size, under every tie rule). :func:`chain_offsets` and
:func:`placements_sorted` give every distinct score its global placement for clustered DeLong.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core.inputs.validation import check_option

__all__ = [
    "AucCounts", "auc_counts_blocks", "auc_counts_sorted", "chain_auc", "chain_offsets", "placements_blocks",
    "placements_sorted", "ScoreCounts", "score_counts",
]


# --------------------------------------------------------------------------- #
# Global AUC: exact counts
# --------------------------------------------------------------------------- #
@dataclass(frozen=True)
class AucCounts:
    """Exact Mann-Whitney counts of one score column (Python ints, no overflow).

    ``greater``: (relevant, non-relevant) pairs with the relevant row scored higher;
    ``tied``: pairs with equal scores. With float (sample-weighted) counts the fields
    are floats.
    """

    pos: int
    neg: int
    greater: int
    tied: int

    @property
    def twice_u(self) -> int:
        """2 U under ties='expected' (a tied pair counts 1/2): an integer."""
        return 2 * self.greater + self.tied

    def value(self, ties: str = "expected") -> float:
        """AUC under a tie rule: tied pairs count 1/2 ('expected'), 0 ('pessimistic'), 1 ('optimistic')."""
        check_option(ties, "ties", "AucCounts.value", ("expected", "pessimistic", "optimistic"))
        if not self.pos or not self.neg:
            return math.nan
        if ties == "expected":
            num, den = self.twice_u, 2 * self.pos * self.neg
        elif ties == "pessimistic":
            num, den = self.greater, self.pos * self.neg
        else:
            num, den = self.greater + self.tied, self.pos * self.neg
        return float(num / den)  # int / int: correctly rounded for any size

    def __add__(self, other: AucCounts) -> AucCounts:  # pragma: no cover - use chain_auc
        raise TypeError("AUC counts of score ranges are chained (chain_auc), not added")


_INT64_MAX = 2**63 - 1


def _exact_sum(a: np.ndarray) -> int:
    if a.shape[0] == 0:
        return 0
    if int(a.max()) * a.shape[0] <= _INT64_MAX and int(a.min()) >= 0:
        return int(a.sum())
    return int(sum(int(x) for x in a.tolist()))


def auc_counts_sorted(pos: np.ndarray, neg: np.ndarray) -> tuple[int | float, int | float, int | float, int | float]:
    """Mann-Whitney counts of one range partition of DISTINCT scores, ascending.

    ``pos[i]``, ``neg[i]``: relevant / non-relevant rows (or their summed sample
    weights) at the i-th distinct score. Returns ``(pos_total, neg_total, greater,
    tied)``: exact Python ints for integer counts (int64 arithmetic where the totals
    prove it cannot overflow, Python integers on the distinct-score arrays
    otherwise), floats for float counts. Chain partitions with :func:`chain_auc`.

    Examples
    --------
    >>> import numpy as np
    >>> auc_counts_sorted(np.array([0, 1, 1]), np.array([2, 1, 0]))  # scores 1 < 2 < 3
    (2, 3, 5, 1)
    """
    pos = np.asarray(pos)
    neg = np.asarray(neg)
    if pos.shape != neg.shape or pos.ndim != 1:
        raise ValueError("pos and neg must be 1-d arrays of the same length")
    if pos.dtype.kind == "f" or neg.dtype.kind == "f":
        p = pos.astype(np.float64)
        q = neg.astype(np.float64)
        below = np.cumsum(q) - q
        return float(p.sum()), float(q.sum()), float(np.dot(p, below)), float(np.dot(p, q))
    if pos.dtype.kind not in "iub" or neg.dtype.kind not in "iub":
        raise TypeError("pos and neg must be integer (or float) counts")
    if (pos.size and int(pos.min()) < 0) or (neg.size and int(neg.min()) < 0):
        raise ValueError("counts must be >= 0")
    P = _exact_sum(pos)
    N = _exact_sum(neg)
    if P * N <= _INT64_MAX and N <= _INT64_MAX:
        # every partial sum of pos_i * below_i and of pos_i * neg_i is at most P * N
        p = pos.astype(np.int64)
        q = neg.astype(np.int64)
        below = np.cumsum(q) - q
        return P, N, int(np.dot(p, below)), int(np.dot(p, q))
    return _auc_counts_exact(pos, neg)


def auc_counts_blocks(pos: np.ndarray, neg: np.ndarray, starts: np.ndarray) -> list[tuple[Any, Any, Any, Any]]:
    """:func:`auc_counts_sorted` of many blocks at once (one per segment of a range partition).

    ``pos``, ``neg``: counts at the distinct scores, ascending within each block; the blocks
    begin at ``starts``. Within-block cumulative sums and one ``np.add.reduceat`` per count give
    every block's ``(pos, neg, greater, tied)``; exact in int64 when the totals prove it, else
    block by block in Python integers.
    """
    pos = np.asarray(pos)
    neg = np.asarray(neg)
    starts = np.asarray(starts, dtype=np.int64)
    if not starts.shape[0]:
        return []
    floats = pos.dtype.kind == "f" or neg.dtype.kind == "f"
    exact = not floats and _exact_sum(pos) * _exact_sum(neg) <= _INT64_MAX and _exact_sum(neg) <= _INT64_MAX
    if not exact:  # summed sample weights (each block's own float sums), or counts beyond int64
        ends = np.append(starts[1:], pos.shape[0])
        return [auc_counts_sorted(pos[a:b], neg[a:b]) for a, b in zip(starts, ends)]
    p = pos.astype(np.int64)
    q = neg.astype(np.int64)
    cq = np.cumsum(q)
    offset = np.repeat(np.r_[0, cq[starts[1:] - 1]], np.diff(np.append(starts, p.shape[0])))
    below = cq - q - offset  # non-relevant rows below each score, within its block: exact integers
    sums = [np.add.reduceat(a, starts) for a in (p, q, p * below, p * q)]
    return [(int(a), int(b), int(c), int(d)) for a, b, c, d in zip(*(x.tolist() for x in sums))]


def placements_blocks(
    pos: np.ndarray, neg: np.ndarray, starts: np.ndarray, neg_before: np.ndarray, pos_after: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`placements_sorted` of many blocks at once, each with its own offsets (arrays, one per block)."""
    p = np.asarray(pos, dtype=np.float64)
    q = np.asarray(neg, dtype=np.float64)
    starts = np.asarray(starts, dtype=np.int64)
    sizes = np.diff(np.append(starts, p.shape[0]))
    cq, cp = np.cumsum(q), np.cumsum(p)
    q_off = np.repeat(np.r_[0.0, cq[starts[1:] - 1]], sizes)
    p_off = np.repeat(np.r_[0.0, cp[starts[1:] - 1]], sizes)
    p_tot = np.repeat(np.add.reduceat(p, starts), sizes)
    below = cq - q - q_off + np.repeat(np.asarray(neg_before, dtype=np.float64), sizes)
    above = (p_tot - (cp - p_off)) + np.repeat(np.asarray(pos_after, dtype=np.float64), sizes)
    return below + 0.5 * q, above + 0.5 * p


def _auc_counts_exact(pos: np.ndarray, neg: np.ndarray) -> tuple[int, int, int, int]:
    """Python integers on the (distinct-score) arrays: no bound needed."""
    greater = tied = acc = P = 0
    for pi, qi in zip(pos.tolist(), neg.tolist()):
        if pi:
            greater += pi * acc
            tied += pi * qi
            P += pi
        acc += qi
    return P, acc, greater, tied


def chain_auc(parts: Sequence[tuple[Any, Any, Any, Any]]) -> AucCounts:
    """Chain per-partition counts given in ascending score order (partitions disjoint in score).

    ``greater = sum_p greater_p + pos_p * (non-relevant rows of all earlier partitions)``;
    no tie straddles two partitions of distinct scores. Python integers throughout.

    Examples
    --------
    >>> c = chain_auc([(0, 2, 0, 0), (2, 1, 1, 1)])  # the example of auc_counts_sorted, split
    >>> c, c.value()
    (AucCounts(pos=2, neg=3, greater=5, tied=1), 0.9166666666666666)
    """
    P: int | float = 0
    N: int | float = 0
    greater: int | float = 0
    tied: int | float = 0
    for p, n, g, t in parts:
        isint = all(isinstance(x, (int, np.integer)) for x in (p, n, g, t))
        conv = int if isint else float
        p, n, g, t = conv(p), conv(n), conv(g), conv(t)
        greater = greater + g + p * N
        tied = tied + t
        P = P + p
        N = N + n
    return AucCounts(P, N, greater, tied)  # type: ignore[arg-type]  # stubs narrower than runtime


def chain_offsets(parts: Sequence[tuple[Any, Any, Any, Any]]) -> list[tuple[Any, Any]]:
    """Per range partition (ascending score order): (non-relevant rows in the partitions
    before it, relevant rows in the partitions after it), Python ints; with sample weights
    (float counts), their summed weights as floats. With :func:`placements_sorted` they give
    every row its global DeLong placement.

    Examples
    --------
    >>> chain_offsets([(0, 2, 0, 0), (2, 1, 1, 1)])
    [(0, 2), (2, 0)]
    >>> chain_offsets([(0.0, 2.5, 0.0, 0.0), (1.5, 0.25, 0.25, 0.375)])
    [(0, 1.5), (2.5, 0.0)]
    """
    isint = all(isinstance(x, (int, np.integer)) for p in parts for x in p[:2])
    conv = int if isint else float  # weighted sums are not truncated to whole rows
    negs = [conv(p[1]) for p in parts]
    poss = [conv(p[0]) for p in parts]
    out = []
    before: int | float = 0
    after: int | float = sum(poss)
    for p, n in zip(poss, negs):
        after -= p
        out.append((before, after))
        before += n
    return out


def placements_sorted(
    pos: np.ndarray, neg: np.ndarray, neg_before: int = 0, pos_after: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """Unnormalized DeLong placements at each DISTINCT score of one range partition (ascending).

    A relevant row at score i is placed above ``neg_before + (non-relevant rows below i
    in this partition) + neg[i] / 2`` non-relevant rows; a non-relevant row below
    ``pos_after + (relevant rows above i in this partition) + pos[i] / 2`` relevant rows
    (ties count 1/2, ``ties="expected"``). Returns ``(for relevant rows, for
    non-relevant rows)`` as float64: give every row the value of its score and class in
    a placement column of the plan (``make_plan(placement_columns=...)``).

    Examples
    --------
    >>> a, b = placements_sorted(np.array([0, 1, 1]), np.array([2, 1, 0]))
    >>> a.tolist(), b.tolist()
    ([1.0, 2.5, 3.0], [2.0, 1.5, 0.5])
    """
    p = np.asarray(pos, dtype=np.float64)
    q = np.asarray(neg, dtype=np.float64)
    below = np.cumsum(q) - q + float(neg_before)
    above = (p.sum() - np.cumsum(p)) + float(pos_after)
    return below + 0.5 * q, above + 0.5 * p


def _auc_value(v: Any, ties: str) -> float:
    if isinstance(v, AucCounts):
        return v.value(ties)
    return float(v)


# --------------------------------------------------------------------------- #
# Per-distinct-score counts of a chunk: mergeable exactly (Evaluator)
# --------------------------------------------------------------------------- #
class ScoreCounts:
    """Per (segment key, score column): the (relevant, non-relevant) rows, or their summed sample
    weights, at every distinct score. Counts of disjoint sets of rows add up score by score, so
    chunks merge exactly, and :meth:`auc` gives the exact global AUC of all of them (any tie rule).

    Memory: three arrays per (segment, score) as long as the distinct scores seen (about 24 bytes
    a distinct score): scores rounded to a few digits keep it small; continuous scores hold one
    entry per row.

    Examples
    --------
    >>> import numpy as np
    >>> a = ScoreCounts({((), "s"): (np.array([1.0, 2.0]), np.array([0, 1]), np.array([2, 0]))})
    >>> b = ScoreCounts({((), "s"): (np.array([2.0, 3.0]), np.array([0, 1]), np.array([1, 0]))})
    >>> (a + b).auc()[((), "s")]
    AucCounts(pos=2, neg=3, greater=5, tied=1)
    """

    def __init__(self, tables: dict[tuple, tuple[np.ndarray, np.ndarray, np.ndarray]] | None = None) -> None:
        self.tables = dict(tables or {})

    def __add__(self, other: ScoreCounts) -> ScoreCounts:
        out = dict(self.tables)
        for key, (v, p, n) in other.tables.items():
            if key not in out:
                out[key] = (v, p, n)
                continue
            v0, p0, n0 = out[key]
            out[key] = _sum_by_value(np.concatenate([v0, v]), np.concatenate([p0, p]), np.concatenate([n0, n]))
        return ScoreCounts(out)

    def auc(self) -> dict[tuple, AucCounts]:
        """``{(segment key, score): AucCounts}``: the exact Mann-Whitney counts of every table."""
        return {key: chain_auc([auc_counts_sorted(p, n)]) for key, (_, p, n) in self.tables.items()}


def _sum_by_value(values: np.ndarray, pos: np.ndarray, neg: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The counts summed per distinct value, ascending (-0.0 counts as 0.0)."""
    if values.dtype.kind == "f":
        values = values + 0.0  # -0.0 + 0.0 is 0.0: one key for both zeros
    uniq, inv = np.unique(values, return_inverse=True)
    inv = inv.reshape(-1)
    if pos.dtype.kind == "f" or neg.dtype.kind == "f":
        return (uniq, np.bincount(inv, weights=pos.astype(np.float64), minlength=uniq.shape[0]),
                np.bincount(inv, weights=neg.astype(np.float64), minlength=uniq.shape[0]))
    p = np.zeros(uniq.shape[0], dtype=np.int64)
    q = np.zeros(uniq.shape[0], dtype=np.int64)
    np.add.at(p, inv, pos.astype(np.int64))
    np.add.at(q, inv, neg.astype(np.int64))
    return uniq, p, q


def score_counts(pdf: Any, plan: Any) -> ScoreCounts:
    """The :class:`ScoreCounts` of the rows of a pandas frame that the plan's evaluation keeps:
    rows with a missing value in a column of the plan are left out (the evaluation raised already
    under ``nan_policy="raise"``); relevance and sample weights as the evaluation reads them."""
    from ..core.inputs.prepare import label_levels
    from ..core.inputs.validation import missing_mask, numeric_values
    from .summary import _plain

    keep = np.ones(len(pdf), dtype=bool)
    for c in plan.columns:
        keep &= ~np.asarray(missing_mask(pdf[c]), dtype=bool)
    pdf = pdf.loc[keep]
    y = numeric_values(pdf[plan.label], plan.label, "label", keep_int=True)
    rel = np.asarray(label_levels(y, plan.options.threshold, graded=False).rel, dtype=bool)
    sw_col = plan.options.sample_weight
    if sw_col is None:
        pos_w, neg_w = rel.astype(np.int64), (~rel).astype(np.int64)
    else:
        w = np.asarray(pdf[sw_col], dtype=np.float64)
        pos_w, neg_w = np.where(rel, w, 0.0), np.where(rel, 0.0, w)
    if plan.by:
        seg = pdf[list(plan.by)].reset_index(drop=True)
        codes = seg.groupby(list(plan.by), sort=False, dropna=False, observed=True).ngroup().to_numpy()
        firsts = np.unique(codes, return_index=True)[1]
        seg_keys = [tuple(_plain(v) for v in seg.iloc[i].tolist()) for i in firsts]
    else:
        codes, seg_keys = np.zeros(len(pdf), dtype=np.int64), [()]
    out: dict[tuple, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
    for s in plan.scores:
        v = numeric_values(pdf[s], s, "score", keep_int64=True)
        for code, key in enumerate(seg_keys):
            rows = codes == code
            out[(key, s)] = _sum_by_value(v[rows], pos_w[rows], neg_w[rows])
    return ScoreCounts(out)
