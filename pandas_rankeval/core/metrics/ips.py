"""Counterfactual (inverse-propensity) metrics of a click log: ``ips_dcg@K``, ``ips_precision@K``,
``ips_hit_rate@K``.

A click on a row that the logging ranker showed at position k weighs 1 / max(propensity(k), clip)
(Joachims et al., WSDM 2017): under the position-based model (a click needs an examination whose
probability depends on the position only, and relevance, which depends on the row only) its
expectation is the row's relevance, whatever the position it was shown at. The metrics of a new
score column are the ordinary ones with these per-row gains, exact under ties (a tied block spreads
its summed gain evenly over the ranks it holds, the rule of DCG); ``ties="optimistic"`` /
``"pessimistic"`` order a tie by the rows' gains, largest first / last (the largest / smallest
value over the tie's orderings), not by label: one more sort of the score column
(:func:`_by_weight`). With ``snips=True`` each group's value is divided by its clicks' summed IPS
weight and its weight multiplied by it, so that the mean is the IPS-weighted mean over the clicks
(self-normalized IPS, a ratio of sums over groups that stays additive over partitions and
bootstrap replicates).

This module holds the check of the IPS options together, the per-row weights and the kernels the
registry binds (:mod:`.definitions`); each option's own check is in :mod:`..inputs.propensity`.
"""

from __future__ import annotations

from collections.abc import Hashable

import numpy as np

from ..inputs.options import Options
from ..inputs.prepare import raw_key
from ..inputs.propensity import (
    PropensityLookup,
    check_clip,
    check_propensity,
    check_snips,
    is_column,
    resolve_propensity,
)
from ..inputs.validation import InputProblem
from ..ranking.numeric import cumulative_discount
from ..ranking.score_sort import score_rank
from ..ranking.tie_blocks import Ranking
from .metric import EvaluationView, KernelInput

__all__ = [
    "PropensityLookup",
    "check_clip",
    "check_snips",
    "check_ips_options",
    "check_propensity",
    "ips_dcg_values",
    "ips_hit_rate_values",
    "ips_precision_values",
    "resolve_propensity",
    "row_gains",
    "snips_factor",
]


def check_ips_options(opts: Options, ips: bool, func: str) -> None:
    """What the IPS options need, before any data is read: a propensity, and a position unless
    the propensity is a column; none of them without an IPS metric."""
    if not ips:
        given = [n for n in ("position", "propensity") if getattr(opts, n) is not None]
        if given or opts.snips:
            raise ValueError(
                f"The {' and '.join(repr(g) for g in given or ['snips'])} parameter of {func} applies to the "
                "counterfactual metrics only ('ips_dcg@K', 'ips_precision@K', 'ips_hit_rate@K')."
            )
        return
    if opts.propensity is None:
        raise ValueError(
            f"{func}: the counterfactual metrics need propensity= (a PropensityTable from "
            "pre.propensities, a Series indexed by position, a column of per-row propensities or a "
            "callable of the positions) and position= (the column of the logged position)."
        )
    if opts.position is None and not is_column(opts.propensity):
        raise ValueError(
            f"{func}: propensity= is looked up by position: pass position= (the column of each row's "
            "logged display position)."
        )


def ips_columns(opts: Options) -> list[Hashable]:
    """The columns the IPS metrics read: the position, and the propensity when it is a column."""
    out: list[Hashable] = []
    if opts.position is not None:
        out.append(opts.position)
    if is_column(opts.propensity):
        out.append(opts.propensity)
    return out


# --------------------------------------------------------------------------- #
# Per-row gains: click / max(propensity, clip)
# --------------------------------------------------------------------------- #
def row_gains(ev: EvaluationView) -> np.ndarray:
    """Every row's IPS gain, in the prepared rows' order (once per evaluation)."""
    return ev.cache.get("ips row gains", lambda: _row_gains(ev))


def _row_gains(ev: EvaluationView) -> np.ndarray:
    opts = ev.options
    extra = ev.prepared.extra
    prop = opts.propensity
    if is_column(prop):
        p = extra[raw_key(prop)].astype(np.float64, copy=False)
        bad = ~np.isfinite(p) | (p <= 0)
        if bad.any():
            raise InputProblem("bad_propensity", prop, int(bad.sum()))
    else:
        pos = extra[raw_key(opts.position)].astype(np.float64, copy=False)
        bad = ~np.isfinite(pos) | (pos <= 0)
        if bad.any():
            raise InputProblem("bad_position", opts.position, int(bad.sum()))
        if not isinstance(prop, PropensityLookup):  # a callable on pandas: once, on the distinct positions
            prop = resolve_propensity(prop, pos, opts.func)
        p, found = prop.lookup(pos)
        if not found.all():
            missing = np.unique(pos[~found])
            raise InputProblem(
                "unknown_position", opts.position, int((~found).sum()),
                examples=[int(v) if float(v).is_integer() else float(v) for v in missing[:3]],
            )
    return np.where(ev.labels.rel, 1.0 / np.maximum(p, opts.clip), 0.0)


def _block_gains(x: KernelInput) -> np.ndarray:
    """Summed IPS gain of every tie block of the score column's ranking, once per column (its
    metrics and the SNIPS factor share it)."""
    return x.se.cache.get(("ips block gains", None if x.part is None else x.part.lo), lambda: _sum_block_gains(x))


def _sum_block_gains(x: KernelInput) -> np.ndarray:
    rk = x.rk
    gain = row_gains(x.ev)
    se, groups = x.se, x.ev.prepared.groups
    if se.order is None or se.rank is None or groups is None:  # pragma: no cover - grouped metrics keep them
        raise RuntimeError("IPS metrics need the score order and the group codes")
    rank = np.empty(se.rank.shape[0], dtype=np.int64)
    rank[se.order] = se.rank
    codes = groups.codes.astype(np.int64)
    # blocks are the distinct (group code, rank) pairs, ascending: the ranking's order of blocks
    span = int(rank.max()) + 1 if rank.shape[0] else 1
    if int(groups.n_codes) < (2**62) // span:
        _, block = np.unique(codes * span + rank, return_inverse=True)
    else:
        perm = np.lexsort((rank, codes))
        new = np.ones(perm.shape[0], dtype=bool)
        new[1:] = (codes[perm][1:] != codes[perm][:-1]) | (rank[perm][1:] != rank[perm][:-1])
        block = np.empty(perm.shape[0], dtype=np.int64)
        block[perm] = np.cumsum(new) - 1
    out = np.bincount(block.reshape(-1), weights=gain, minlength=rk.n_blocks)
    if out.shape[0] != rk.n_blocks:  # pragma: no cover - internal invariant
        raise RuntimeError("IPS block gains and the ranking disagree on the blocks")
    return out


def _cut(rk: Ranking, k: int | None) -> np.ndarray:
    return rk.size if k is None else np.clip(k - rk.offset, 0, rk.size)


def _by_weight(x: KernelInput) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Under ``ties="optimistic"`` / ``"pessimistic"``: the rows ordered (group, score desc,
    tie-break asc, IPS weight desc / asc), as ``(group code, 0-based place in the group, weight)``
    per row in that order. Once per score column (its metrics share it).

    The label levels that order a tie for the other metrics do not order it here: the gain of a
    row is its own weight, and a tied block gives its largest sum over the first places (the
    maximum over the tie's orderings) with the largest weights first, its smallest with them
    last. Rows left tied share a weight, so the order among them changes nothing."""
    return x.se.cache.get("ips rows by weight", lambda: _sort_by_weight(x))


def _sort_by_weight(x: KernelInput) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    ev = x.ev
    opts, prep = ev.options, ev.prepared
    groups = prep.groups
    if groups is None:  # pragma: no cover - grouped metrics keep them
        raise RuntimeError("IPS metrics need the group codes")
    gain = row_gains(ev)
    level = np.unique(gain, return_inverse=True)[1].reshape(-1)  # the weight's dense rank, clicks above 0
    tb = prep.extra.get(opts.tiebreak) if opts.tiebreak is not None else None
    order, _ = score_rank(x.score, ties=opts.ties, level=level, tiebreak=tb)  # type: ignore[arg-type]
    best = order[::-1]  # best first; then whole groups, each still best first
    codes = groups.codes[best].astype(np.int64)
    perm = np.argsort(codes, kind="stable")
    rows, codes = best[perm], codes[perm]
    counts = np.bincount(codes, minlength=int(groups.n_codes))
    place = np.arange(rows.shape[0], dtype=np.int64) - (np.cumsum(counts) - counts)[codes]
    return codes, place, gain[rows]


def _by_weight_sum(x: KernelInput, per_row: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """Per group of ``x.rk`` (its group codes, ascending), the sum of a per-row array of :func:`_by_weight`."""
    groups = x.ev.prepared.groups
    n_codes = int(groups.n_codes) if groups is not None else 0
    return np.bincount(codes, weights=per_row, minlength=n_codes)[x.rk.code]


def ips_dcg_values(x: KernelInput) -> np.ndarray:
    """Expected IPS DCG@k: sum over clicks of discount(new rank) / max(propensity, clip)."""
    rk, k = x.rk, x.k
    if x.ev.options.ties != "expected":
        codes, place, gain = _by_weight(x)
        inside = place < (place.shape[0] if k is None else k)
        return _by_weight_sum(x, np.where(inside, gain / np.log2(place + 2.0), 0.0), codes)
    g = _block_gains(x) / rk.size
    longest = int(rk.n.max()) if rk.n_groups else 0
    d = cumulative_discount(longest if k is None else min(longest, k))
    top = d.shape[0] - 1
    lo = np.minimum(rk.offset, top)
    hi = np.minimum(rk.offset + rk.size, top)
    return rk.group_sum(g * (d[hi] - d[lo]))


def _ips_hits(x: KernelInput) -> np.ndarray:
    rk = x.rk
    if x.ev.options.ties != "expected":
        codes, place, gain = _by_weight(x)
        return _by_weight_sum(x, np.where(place < (place.shape[0] if x.k is None else x.k), gain, 0.0), codes)
    return rk.group_sum(_block_gains(x) * (_cut(rk, x.k) / rk.size))


def ips_precision_values(x: KernelInput) -> np.ndarray:
    """Expected IPS-weighted clicks in the new top k, over k."""
    return _ips_hits(x) / float(x.spec.k)  # type: ignore[arg-type]


def ips_hit_rate_values(x: KernelInput) -> np.ndarray:
    """Expected IPS-weighted clicks in the new top k (the hit rate when a group has one click)."""
    return _ips_hits(x)


def snips_factor(x: KernelInput) -> np.ndarray | None:
    """With ``snips=True``: every group's summed IPS weight of its clicks (None otherwise)."""
    if not x.ev.options.snips:
        return None
    return x.rk.group_sum(_block_gains(x))
