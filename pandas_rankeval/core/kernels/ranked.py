"""Per-group metrics as reductions over a :class:`~pandas_rankeval.core.ranking.tie_blocks.Ranking`.

Every function takes the one sorted view of a score column and returns one number per group
(AUC, reciprocal rank, DCG, IDCG, AP, hits), in closed form under the expected tie rule.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..ranking.int_sort import sort_values
from ..ranking.numeric import (
    bit_width,
    exclusive_within,
    starts_of_runs,
    cumulative_discount,
    harmonic,
    log_factorial,
)
from ..ranking.tie_blocks import Ranking

__all__ = [
    "Ideal",
    "Part",
    "Selection",
    "add_unranked",
    "ap_per_group",
    "auc_per_group",
    "build_ideal",
    "dcg_per_group",
    "hit_first_block",
    "hit_per_group",
    "hits_per_group",
    "idcg_from_counts",
    "idcg_per_group",
    "rr_first_block",
    "rr_per_group",
    "sum_in_rank_order",
]


@dataclass
class Part:
    """A run of whole kept groups (``lo`` to ``hi`` among the kept ones), ranked on its own."""

    lo: int
    hi: int
    rows: np.ndarray
    row_group: np.ndarray  # 0 .. hi - lo - 1
    level: np.ndarray


@dataclass
class Selection:
    """Per kept group: rows strictly above the best relevant score (``m``), rows at that score
    (``t``) and relevant rows among them (``p``): the first tie block holding a relevant row."""

    m: np.ndarray
    t: np.ndarray
    p: np.ndarray


# --------------------------------------------------------------------------- #
# Ideal orderings for NDCG (independent of the score column)
# --------------------------------------------------------------------------- #
@dataclass
class Ideal:
    """Label levels per group, best first: the cells of the ideal ranking."""

    group: np.ndarray  # group index of each (group, level) cell
    size: np.ndarray  # rows in the cell
    offset: np.ndarray  # rows of the group in better cells
    level: np.ndarray
    first: np.ndarray


def build_ideal(codes: np.ndarray, n_codes: int, level: np.ndarray, n_levels: int) -> Ideal:
    """Count rows per (group, label level), levels in descending order within a group."""
    lbits = bit_width(n_levels - 1)
    key = codes.astype(np.int64) << lbits
    key |= (n_levels - 1) - level.astype(np.int64)
    sort_values(key)
    start = starts_of_runs(key[1:] != key[:-1])
    ck = key[start]
    size = np.diff(np.append(start, key.shape[0]))
    del key
    gk = ck >> lbits
    gchange = np.empty(ck.shape[0], dtype=bool)
    gchange[0] = True
    np.not_equal(gk[1:], gk[:-1], out=gchange[1:])
    first = np.flatnonzero(gchange)
    group = np.cumsum(gchange) - 1
    ncells = np.diff(np.append(first, ck.shape[0]))
    offset = exclusive_within(size, first, ncells)
    lev = (n_levels - 1) - (ck & ((1 << lbits) - 1))
    return Ideal(group=group, size=size, offset=offset, level=lev, first=first)


def add_unranked(
    rk: Ranking, codes: np.ndarray, n_codes: int, outside: np.ndarray, level: np.ndarray, rel_level: int, n_levels: int
) -> None:
    """Give the ranking's group totals the rows outside it (``retrieved=False``; see
    :mod:`~..inputs.retrieved`): they were ranked last at the lowest label level, so the ranked
    terms are those of the retrieved rows alone; here each group's relevant rows (``npos``, the
    denominators of recall and AP, and the empty-group rule) and its rows per label level (NDCG's
    ideal DCG) become those of all its rows, from one count per group of the outside rows' true
    levels (no call per group)."""
    c = codes[outside].astype(np.int64)
    lv = level[outside].astype(np.int64)
    extra = np.bincount(c[lv >= rel_level], minlength=n_codes)[rk.code]
    rk.npos = rk.ranked_npos + extra
    rk.nneg = rk.n - rk.npos
    if rk.level_counts is not None:  # (groups x levels) of the ranked rows: the outside rows were at level 0
        cells = np.bincount(c * n_levels + lv, minlength=n_codes * n_levels).reshape(n_codes, n_levels)[rk.code]
        counts = rk.level_counts.astype(np.int64, copy=True)
        counts[:, 0] -= cells.sum(axis=1)
        counts += cells
        rk.level_counts = counts


# --------------------------------------------------------------------------- #
# Kernels: per-group values from a Ranking
# --------------------------------------------------------------------------- #
def auc_per_group(rk: Ranking) -> tuple[np.ndarray, np.ndarray]:
    """Per-group Mann-Whitney numerator U and denominator P*N (weighted if built so).

    Within a block, a (relevant, non-relevant) pair counts 1/2; rankings built for
    "pessimistic"/"optimistic" have pure blocks, so no pair is tied there.
    Unweighted counts use exact int64 arithmetic:
    U_g = P_g N_g - sum_b p_b (negatives above b in g) - 1/2 sum_b p_b neg_b.
    """
    if rk.wpos is not None and rk.wneg is not None:
        pos, neg = rk.pos, rk.neg
        before = exclusive_within(neg, rk.first, rk.nblocks)
        below = np.repeat(rk.wneg, rk.nblocks) - before - neg
        return rk.group_sum(pos * (below + 0.5 * neg)), rk.wpos * rk.wneg
    if rk.rel is not None:
        # no ties: a relevant row at position j of its group that is the i-th relevant
        # row (both from 0) has j - i negatives above it, so
        # U = P N - (sum of j over relevant rows) + P (P - 1) / 2
        owner, offset, _ = rk.relevant_rows()  # shared with the list metrics of this ranking
        starts = rk.first  # blocks are rows
        where = offset + starts[owner]
        pos_sum = np.bincount(owner, weights=where, minlength=rk.n_groups)
        p = rk.npos.astype(np.float64)
        u = p * rk.nneg - (pos_sum - p * starts) + p * (p - 1.0) / 2.0
        return u, p * rk.nneg
    pos = rk.pos
    above = np.cumsum(rk.neg)
    above -= rk.neg  # negatives above each block, counted from the first group
    pairs_above = rk.group_sum(pos * above) - rk.npos * above[rk.first]
    u2 = 2 * (rk.npos * rk.nneg - pairs_above)  # twice U, to stay in integers
    if not rk.tie_free:
        u2 -= rk.group_sum(pos * rk.neg)
    return u2 / 2.0, (rk.npos * rk.nneg).astype(np.float64)


def _cut(rk: Ranking, k: int | None) -> np.ndarray:
    """Rows of each block that fall within the first k of its group."""
    if k is None:
        return rk.size
    return np.clip(k - rk.offset, 0, rk.size)


def hits_per_group(rk: Ranking, k: int | None) -> np.ndarray:
    """Expected relevant rows in the top k: a block cut by k holds r*p/t of them."""
    if rk.rel is not None:
        group, offset, _ = rk.relevant_rows()
        if k is not None:
            group = group[offset < k]
        return np.bincount(group, minlength=rk.n_groups).astype(np.float64)
    rk = rk.top(k)
    r = _cut(rk, k)
    return rk.group_sum(rk.pos * (r / rk.size))


def hit_per_group(rk: Ranking, k: int | None) -> np.ndarray:
    """Probability that a relevant row is in the top k.

    A block that k cuts after r of its t rows misses all its p relevant rows with
    probability C(t-p, r) / C(t, r); the group misses when every block does.
    """
    if rk.rel is not None:
        return (hits_per_group(rk, k) > 0).astype(np.float64)
    rk = rk.top(k)
    return 1.0 - np.exp(rk.group_sum(_log_miss(_cut(rk, k), rk.size, rk.pos)))


def _log_miss(r: np.ndarray, t: np.ndarray, p: np.ndarray) -> np.ndarray:
    """log of the chance that a block of t rows, p relevant, cut after r rows shows none of them."""
    logq = np.zeros(t.shape[0], dtype=np.float64)
    live = (p > 0) & (r > 0)
    miss_impossible = live & (t - p < r)
    logq[miss_impossible] = -np.inf
    part = np.flatnonzero(live & ~miss_impossible)
    if part.shape[0]:
        # C(t-p, r) / C(t, r) = prod_{i < min(r, p)} (1 - max(r, p) / (t - i)): a short
        # product of terms near 1, summed as log1p for full precision
        rr, pp, tt = r[part], p[part], t[part]
        nterm = np.minimum(rr, pp)
        x = np.maximum(rr, pp).astype(np.float64)
        owner = np.repeat(np.arange(part.shape[0]), nterm)
        i = np.arange(owner.shape[0]) - np.repeat(np.cumsum(nterm) - nterm, nterm)
        terms = np.log1p(-x[owner] / (tt[owner] - i))
        logq[part] = np.bincount(owner, weights=terms, minlength=part.shape[0])
    return logq


def hit_first_block(m: np.ndarray, t: np.ndarray, p: np.ndarray, k: int) -> np.ndarray:
    """:func:`hit_per_group` from each group's first block with a relevant row: ``m`` rows above
    it (none relevant), ``t`` rows in it, ``p`` relevant. Every later block starts at or beyond
    k when the block is cut, and cannot matter when it is not (the hit is then certain)."""
    return 1.0 - np.exp(_log_miss(np.clip(k - m, 0, t), t, p))


def rr_per_group(rk: Ranking, k: int | None) -> np.ndarray:
    """Expected reciprocal rank of the first relevant row (0 when none within k).

    With m rows above the block that holds the first relevant row, t rows in it
    and p relevant, E[RR] = sum_{j=1..t-p+1} C(t-j, p-1) / C(t, p) / (m + j),
    keeping only the terms with m + j <= k.
    """
    out = np.zeros(rk.n_groups, dtype=np.float64)
    if rk.rel is not None:
        group, offset, nth = rk.relevant_rows()
        first = nth == 0
        if k is not None:
            first &= offset < k
        out[group[first]] = 1.0 / (offset[first] + 1.0)
        return out
    rk = rk.top(k)
    has = np.flatnonzero(rk.pos > 0)
    if has.shape[0] == 0:
        return out
    g = rk.group[has]
    keep = np.empty(has.shape[0], dtype=bool)
    keep[0] = True
    np.not_equal(g[1:], g[:-1], out=keep[1:])
    fb = has[keep]
    g = g[keep]
    m = rk.offset[fb].astype(np.int64)
    t = rk.size[fb].astype(np.int64)
    p = rk.pos[fb].astype(np.int64)
    out[g] = rr_first_block(m, t, p, k)
    return out


def rr_first_block(m: np.ndarray, t: np.ndarray, p: np.ndarray, k: int | None) -> np.ndarray:
    """Expected reciprocal rank from each group's first block with a relevant row (``m`` rows
    above it, ``t`` rows in it, ``p`` relevant): see :func:`rr_per_group`."""
    terms = t - p + 1
    if k is not None:
        terms = np.clip(np.minimum(terms, k - m), 0, None)
    simple = (terms == 1) & (p == t)  # a pure block: the first relevant row is at m + 1
    rr = np.zeros(m.shape[0], dtype=np.float64)
    rr[simple] = 1.0 / (m[simple] + 1.0)
    idx = np.flatnonzero(~simple & (terms > 0))
    if idx.shape[0]:
        nterm = terms[idx]
        owner = np.repeat(np.arange(idx.shape[0]), nterm)
        j = np.arange(owner.shape[0]) - np.repeat(np.cumsum(nterm) - nterm, nterm) + 1
        tt, pp, mm = t[idx][owner], p[idx][owner], m[idx][owner]
        logc = (
            log_factorial(tt - j)
            - log_factorial(pp - 1)
            - log_factorial(tt - j - pp + 1)
            - (log_factorial(tt) - log_factorial(pp) - log_factorial(tt - pp))
        )
        vals = np.exp(logc) / (mm + j)
        rr[idx] = np.bincount(owner, weights=vals, minlength=idx.shape[0])
    return rr


def _discount_table(longest: int, k: int | None) -> np.ndarray:
    return cumulative_discount(longest if k is None else min(longest, k))


def dcg_per_group(rk: Ranking, k: int | None) -> np.ndarray:
    """Expected DCG@k: each tied block spreads its mean gain over its positions."""
    if rk.rel is not None and rk.binary_gain is not None:  # tie-free, binary labels
        group, offset, _ = rk.relevant_rows()
        if k is not None:
            keep = offset < k
            group, offset = group[keep], offset[keep]
        disc = np.bincount(group, weights=1.0 / np.log2(offset + 2.0), minlength=rk.n_groups)
        return rk.binary_gain * disc
    if rk.gain is None:  # pragma: no cover - internal invariant
        raise RuntimeError("the ranking was built without gains")
    longest = int(rk.n.max())
    if rk.rel is not None:  # tie-free: only rows with a gain contribute
        rows = np.flatnonzero(rk.gain)
        group, offset = rk.sparse_rows(rows)
        gain = rk.gain[rows]
        if k is not None:
            keep = offset < k
            group, offset, gain = group[keep], offset[keep], gain[keep]
        return np.bincount(group, weights=gain / np.log2(offset + 2.0), minlength=rk.n_groups)
    rk = rk.top(k)
    d = _discount_table(longest, k)
    top = d.shape[0] - 1
    lo = np.minimum(rk.offset, top)
    hi = np.minimum(rk.offset + rk.size, top)
    spread = (rk.gain / rk.size) * (d[hi] - d[lo])
    # a row alone in its block takes the tie-free term, and a group's terms are added in rank order
    # as on the tie-free path: a group with no tied gaining row gets its tie-free value to the last
    # bit, whatever ties the rest of the column holds (see :func:`sum_in_rank_order`)
    one = rk.size == 1
    log = np.log2(rk.offset + 2.0)
    if rk.binary_gain is not None:
        alone = sum_in_rank_order(rk, np.where(one & (rk.pos > 0), 1.0 / log, 0.0))
        return rk.binary_gain * alone + sum_in_rank_order(rk, np.where(one, 0.0, spread))
    return sum_in_rank_order(rk, np.where(one, rk.gain / log, spread))


def idcg_from_counts(counts: np.ndarray, gains: np.ndarray, longest: int, k: int | None) -> np.ndarray:
    """IDCG@k of every group from its rows per label level (groups x levels).

    The ideal ranking lists the levels from the highest down; the rows of one level
    fill the positions after those of the higher levels.
    """
    d = _discount_table(longest, k)
    top = d.shape[0] - 1
    desc = counts[:, ::-1]
    hi = np.cumsum(desc, axis=1)
    lo = hi - desc
    spread = d[np.minimum(hi, top)] - d[np.minimum(lo, top)]
    return spread @ gains[::-1]


def idcg_per_group(ideal: Ideal, gains: np.ndarray, n_groups: int, longest: int, k: int | None) -> np.ndarray:
    """IDCG@k of every group, from its label levels in descending order."""
    d = _discount_table(longest, k)
    top = d.shape[0] - 1
    lo = np.minimum(ideal.offset, top)
    hi = np.minimum(ideal.offset + ideal.size, top)
    vals = gains[ideal.level] * (d[hi] - d[lo])
    out = np.add.reduceat(vals, ideal.first)
    if out.shape[0] != n_groups:  # pragma: no cover - internal invariant
        raise RuntimeError("ideal ranking and ranking disagree on the groups")
    return out


def ap_per_group(rk: Ranking, k: int | None) -> np.ndarray:
    """Expected sum over relevant rows in the top k of precision at their rank.

    A block at offset m with t rows, p relevant and R relevant rows above it
    contributes sum_{s=1..S} (p/t) (R + 1 + (s-1)(p-1)/(t-1)) / (m + s), with S
    the block's rows within k: in closed form with harmonic numbers. Divide by
    the AP denominator to get AP.
    """
    if rk.rel is not None:  # tie-free: precision at each relevant row within k
        group, offset, nth = rk.relevant_rows()
        if k is not None:
            keep = offset < k
            group, offset, nth = group[keep], offset[keep], nth[keep]
        return np.bincount(group, weights=(nth + 1.0) / (offset + 1.0), minlength=rk.n_groups)
    rk = rk.top(k)
    t = rk.size.astype(np.float64)
    p = rk.pos.astype(np.float64)
    m = rk.offset
    s = _cut(rk, k)
    above = exclusive_within(p, rk.first, rk.nblocks)
    h = harmonic(m + s) - harmonic(m)
    a = (p / t) * (above + 1.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        c = np.where(t > 1, (p / t) * (p - 1.0) / (t - 1.0), 0.0)
    vals = a * h + c * (s - (m + 1.0) * h)
    # a relevant row alone in its block: the tie-free term (see :func:`dcg_per_group`)
    alone = np.where(p > 0, (above + 1.0) / (m + 1.0), 0.0)
    return sum_in_rank_order(rk, np.where(rk.size == 1, alone, vals))


def sum_in_rank_order(rk: Ranking, terms: np.ndarray) -> np.ndarray:
    """Per-block terms added per group one after another in rank order (``np.bincount``), as the
    tie-free path adds its rows' terms: terms of 0 between them change no bit, so a group's sum is
    the same whatever rows without a term the ranking holds (all the rows of its groups, or only
    those that can count) and whether or not other groups have ties."""
    return np.bincount(rk.group, weights=terms, minlength=rk.n_groups)
