"""Exact XAUC: the share of pairs of rows ordered by score as they are by a continuous label.

XAUC (Kuaishou, Zhan et al. 2022, arXiv 2206.06003) reads a numeric label y, such as watch time,
and a score s. Over the pairs of rows whose labels differ, a pair is *concordant* when the row with
the larger label has the larger score, *discordant* when it has the smaller one, and *tied* when
the scores are equal; tied scores count 1/2 (the expected value over tie orders, as AUC's tied
pairs do), and pairs with equal labels are not pairs. With sample weights a pair weighs
``w_i * w_j``. Grouped: only pairs within a group count, each group gives its own ratio.

For every group the kernel returns ``num = C + S / 2`` and ``den = T``, with T the weight of the
pairs whose labels differ, S those of them whose scores tie and C the concordant ones, so that
XAUC = num / den. It never samples and costs O(n log n):

* T and S come from sums over blocks of equal (group, label) and of equal (group, score, label):
  within a block of weight W whose rows split into label levels of weight W_l, the pairs of
  different labels weigh (W^2 - sum_l W_l^2) / 2;
* the discordant weight D is a weighted inversion count. Rows are placed in (group, label, score)
  order; a pair i < j in that order is discordant exactly when v_i > v_j, v the dense rank of
  (group, score) (equal labels are in score order, so they never invert; a row of an earlier group
  has a smaller v, so pairs never cross groups). The inversions are counted level by level over
  the bits of the position (a merge sort written top-down): at level k, the positions fall in
  blocks of 2^(k+1) rows; the rows of each block, in (v, position) order, give every row of the
  block's right half the weight of the left-half rows with a larger v by one cumulative sum, and a
  stable split of each block into its two halves (cumulative counts) gives the next level's order.
  Each level is a few vectorized passes over the rows; there are ceil(log2 n) levels;
* C = T - D - S.

Without weights every sum is an exact int64 count (the numerator is kept as 4C + 2S until
the final division).
"""

from __future__ import annotations

import numpy as np

__all__ = ["discordant_rows", "discordant_weight", "label_pairs", "xauc_placements", "xauc_sums"]


def _starts(*keys: np.ndarray) -> np.ndarray:
    """Indices of a sorted order where a run of equal ``keys`` (all of them together) starts."""
    n = keys[0].shape[0]
    start = np.zeros(n, dtype=bool)
    if n:
        start[0] = True
        for key in keys:
            start[1:] |= key[1:] != key[:-1]
    return np.flatnonzero(start)


def _per_run(values: np.ndarray, run_of: np.ndarray, n_runs: int) -> np.ndarray:
    """Sums of ``values`` per run (``run_of``: the run of each value, non-decreasing, every run
    present), in ``values``' dtype (exact for int64)."""
    starts = _starts(run_of)
    out = np.zeros(n_runs, dtype=values.dtype)
    if starts.shape[0]:
        out[run_of[starts]] = np.add.reduceat(values, starts)
    return out


def _pairs_apart(g: np.ndarray, block: np.ndarray, level: np.ndarray, w: np.ndarray | None,
                 n_groups: int) -> np.ndarray:
    """Twice the weight of the pairs of rows in one block whose levels differ, per group.

    ``g``: the group of each row of a sorted order; ``block`` and ``level``: the starts of its
    runs of equal (group, block key) and of equal (group, block key, level key). A block of weight
    W whose levels weigh W_l adds W^2 - sum_l W_l^2 to its group (exact int64 without weights).
    """
    ones = np.ones(g.shape[0], dtype=np.int64) if w is None else w
    wb = np.add.reduceat(ones, block)
    wl = np.add.reduceat(ones, level)
    level_block = np.searchsorted(block, level, side="right") - 1  # each level lies in one block
    per_block = wb * wb - _per_run(wl * wl, level_block, block.shape[0])
    return _per_run(per_block, g[block], n_groups)


#: Positions in blocks of this many rows count their inversions by comparing every pair at once
#: (a (blocks, 16, 16) comparison); the levels above them by the merge.
_LEAF = 16


def _leaf_inversions(cur_v: np.ndarray, wt: np.ndarray | None, n: int) -> np.ndarray:
    """Per position, the weight of the earlier rows of its leaf block (:data:`_LEAF` positions)
    with a larger v; ``cur_v`` is v in position order."""
    pad = (-n) % _LEAF
    big = np.iinfo(np.int64).max  # padding rows come last and are never larger than a real row
    vv = np.concatenate([cur_v.astype(np.int64), np.full(pad, big)]).reshape(-1, _LEAF)
    larger = vv[:, :, None] > vv[:, None, :]  # [b, i, j]: row i larger than row j
    larger &= np.tri(_LEAF, k=-1, dtype=bool).T[None]  # i before j
    if wt is None:
        out = larger.sum(axis=1, dtype=np.int64).reshape(-1)
    else:
        ww = np.concatenate([wt, np.zeros(pad)]).reshape(-1, _LEAF)
        out = (np.einsum("bij,bi->bj", larger, ww) * ww).reshape(-1)
    return out[:n]


def discordant_weight(v: np.ndarray, w: np.ndarray | None, g: np.ndarray, n_groups: int) -> np.ndarray:
    """Per group, the weight of the pairs i < j (positions) with ``v[i] > v[j]`` (pairs weigh
    w_i w_j); ``g`` is the group of each position (an inversion never crosses groups when v
    ranks (group, score) and positions are in group order). Exact int64 without weights.

    Blocks of :data:`_LEAF` positions compare their pairs directly; above them, top-down over the
    bits of the position: ``cur`` holds the positions sorted by (block, v, position) for blocks
    of 2^(k+1) positions, each block at the same indices as its positions, and each row of a
    block's right half adds the weight of the left-half rows after it in that order.
    """
    exact = w is None
    if v.shape[0] < 2:
        return np.zeros(n_groups, dtype=np.int64 if exact else np.float64)
    contrib = discordant_rows(v, w)
    return _per_run(contrib, g, n_groups) if exact else np.bincount(g, weights=contrib, minlength=n_groups)


def discordant_rows(v: np.ndarray, w: np.ndarray | None) -> np.ndarray:
    """Per position j, the weight of the pairs i < j with ``v[i] > v[j]`` that it closes:
    ``w_j * sum w_i`` over those i (an exact int64 count without weights); see
    :func:`discordant_weight`."""
    n = v.shape[0]
    wt = None if w is None else np.asarray(w, dtype=np.float64)
    contrib = _leaf_inversions(v, wt, n)  # per position
    if n < 2:
        return contrib
    itype = np.int32 if n < 2**31 - 1 else np.int64
    if wt is None:
        wpos = np.arange(n + 1, dtype=np.int64)
    else:
        wpos = np.concatenate([np.zeros(1), np.cumsum(wt)])  # prefix weights by position
    cur = np.argsort(v, kind="stable").astype(itype)  # (v, position) order: one block of every position
    idx = np.arange(n, dtype=itype)
    top = (n - 1).bit_length() - 1
    leaf_bits = _LEAF.bit_length() - 1
    for k in range(top, leaf_bits - 1, -1):
        half = 1 << k
        right = ((cur >> k) & 1).astype(bool)  # the row's position is in its block's right half
        bs = (idx >> (k + 1)) << (k + 1)  # the block's first index (= its first position)
        left_end = np.minimum(bs + half, n)
        if wt is None:
            cs = np.concatenate([np.zeros(1, dtype=np.int64), np.cumsum(~right, dtype=np.int64)])
        else:
            cs = np.concatenate([np.zeros(1), np.cumsum(np.where(right, 0.0, wt[cur]))])
        larger = (wpos[left_end] - wpos[bs]) - (cs[idx + 1] - cs[bs])  # left rows after it
        at = cur[right]
        contrib[at] += larger[right] if wt is None else wt[at] * larger[right]
        if k == leaf_bits:
            break
        if wt is None:
            lefts_before = (cs[idx] - cs[bs]).astype(itype)
        else:
            cl = np.concatenate([np.zeros(1, dtype=itype), np.cumsum(~right, dtype=itype)])
            lefts_before = cl[idx] - cl[bs]
        new = np.where(right, left_end + (idx - bs - lefts_before), bs + lefts_before)
        nxt = np.empty_like(cur)
        nxt[new] = cur
        cur = nxt
    return contrib


def _dense(x: np.ndarray) -> tuple[np.ndarray, int]:
    """Dense rank of each value (0-based, exact: integers compare as integers) and the count."""
    uniq, inv = np.unique(x, return_inverse=True)
    return inv.reshape(-1).astype(np.int64), int(uniq.shape[0])


def _order(g: np.ndarray, ng: int, a: np.ndarray, na: int, b: np.ndarray, nb: int) -> np.ndarray:
    """The row order by (g, a, b), dense int keys: one argsort of a combined int64 key when it
    fits, else a lexsort."""
    if ng * na * nb < 2**62:
        return np.argsort((g * na + a) * nb + b, kind="stable")
    return np.lexsort((b, a, g))


def xauc_sums(
    y: np.ndarray,
    s: np.ndarray,
    w: np.ndarray | None = None,
    group: np.ndarray | None = None,
    n_groups: int | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Per group, XAUC's numerator C + S / 2 and denominator T (see the module); XAUC = num / den,
    undefined (den 0) in a group whose labels are all equal (one-row groups included).

    Parameters
    ----------
    y : array of the labels (any ordered numeric dtype), no NaN.
    s : array of the scores, compared exactly as stored (integers as integers), no NaN.
    w : array of non-negative sample weights, or None (every row weighs 1: exact counts).
    group : int array of group codes in [0, n_groups), or None (one group: the whole table).
    n_groups : the number of groups (default: ``group.max() + 1``).

    Returns
    -------
    num, den : float64 arrays of length n_groups.

    Examples
    --------
    >>> num, den = xauc_sums(np.array([1.0, 2.0, 3.0, 3.0]), np.array([0.1, 0.3, 0.2, 0.3]))
    >>> float(num[0]), float(den[0])  # 5 pairs of different labels: 3 concordant, 1 discordant, 1 tied
    (3.5, 5.0)
    """
    n = y.shape[0]
    if group is None:
        group = np.zeros(n, dtype=np.int64)
        n_groups = 1
    elif n_groups is None:
        n_groups = int(group.max()) + 1 if n else 0
    group = np.asarray(group, dtype=np.int64)
    if n == 0:
        return np.zeros(n_groups), np.zeros(n_groups)
    wv = None if w is None else np.asarray(w, dtype=np.float64)
    ry, ny = _dense(y)
    rs, ns = _dense(s)
    # (group, label, score) order: the pairs of different labels, and the positions of the count
    o1 = _order(group, n_groups, ry, ny, rs, ns)
    g1, y1 = group[o1], ry[o1]
    w1 = None if wv is None else wv[o1]
    t2 = _pairs_apart(g1, _starts(g1), _starts(g1, y1), w1, n_groups)
    # (group, score, label) order: the pairs of tied scores and different labels; v ranks (group, score)
    o2 = _order(group, n_groups, rs, ns, ry, ny)
    g2, s2 = group[o2], rs[o2]
    gs = _starts(g2, s2)
    s2x = _pairs_apart(g2, gs, _starts(g2, s2, ry[o2]), None if wv is None else wv[o2], n_groups)
    first = np.zeros(n, dtype=np.int64)
    first[gs] = 1
    v = np.empty(n, dtype=np.int64)
    v[o2] = np.cumsum(first) - 1
    d = discordant_weight(v[o1], w1, g1, n_groups)
    num4 = 2 * t2 - 4 * d - s2x  # 4 C + 2 S = 4 (T - D - S) + 2 S (exact int64 without weights)
    return num4.astype(np.float64) / 4.0, t2.astype(np.float64) / 2.0


def label_pairs(level: np.ndarray, row_group: np.ndarray, n_groups: int,
                w: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """Per group (the labels alone, the same for every score column): whether two of its rows have
    different labels, and whether such pairs weigh more than 0 (always, without sample weights):
    the ``ordered`` eligibility of grouped XAUC."""
    n_levels = int(level.max()) + 1 if level.shape[0] else 1
    order = _order(row_group.astype(np.int64), n_groups, level.astype(np.int64), n_levels,
                   np.zeros(level.shape[0], dtype=np.int64), 1)
    g, lv = row_group[order], level[order]
    starts = _starts(g)
    levels = _starts(g, lv)
    n_levels_of = np.zeros(n_groups, dtype=np.int64)
    if starts.shape[0]:  # the label runs of each group: from its first run to the next group's
        n_levels_of[g[starts]] = np.diff(np.append(np.searchsorted(levels, starts), levels.shape[0]))
    two = n_levels_of >= 2
    if w is None or not starts.shape[0]:
        return two, two
    apart = _pairs_apart(g, starts, levels, np.asarray(w, dtype=np.float64)[order], n_groups)
    return two, two & (apart > 0)


def xauc_placements(y: np.ndarray, s: np.ndarray, w: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Per row i of the whole table, ``w_i A_i`` and ``w_i B_i``: B_i the weight of the rows whose
    label differs from row i's, A_i the credit row i earns with them (1 for a concordant partner,
    1/2 for a tied score, 0 for a discordant one). Summed over the rows they are twice XAUC's
    numerator and denominator; they are XAUC's placement values (DeLong's, for a continuous label),
    each row's discordant partners from two inversion counts in (label, score) order, forward and
    backward.

    Examples
    --------
    >>> wa, wb = xauc_placements(np.array([1.0, 2.0, 3.0, 3.0]), np.array([0.1, 0.3, 0.2, 0.3]))
    >>> wa.tolist(), wb.tolist()  # sums: 7 = 2 * 3.5 and 10 = 2 * 5
    ([3.0, 1.5, 1.0, 1.5], [3.0, 3.0, 2.0, 2.0])
    """
    n = y.shape[0]
    wv = np.ones(n) if w is None else np.asarray(w, dtype=np.float64)
    ry, ny = _dense(y)
    rs, ns = _dense(s)
    order = _order(np.zeros(n, dtype=np.int64), 1, ry, ny, rs, ns)  # (label, score)
    v, wo = rs[order], wv[order]
    # forward: earlier rows (smaller label) with a larger score; backward: later rows (larger label)
    # with a smaller score (equal labels are in score order: never counted)
    wd = np.empty(n)
    wd[order] = discordant_rows(v, wo) + discordant_rows((ns - 1 - v)[::-1], wo[::-1])[::-1]
    cell = np.unique(rs * ny + ry, return_inverse=True)[1].reshape(-1)
    same_label = np.bincount(ry, weights=wv, minlength=ny)[ry]
    tied = np.bincount(rs, weights=wv, minlength=ns)[rs] - np.bincount(cell, weights=wv)[cell]
    wb = wv * (wv.sum() - same_label)
    return wb - wd - wv * tied / 2.0, wb
