"""Clustered DeLong inference for global AUC: variances and paired covariances in one pass.

Global AUC is the Mann-Whitney statistic over all rows. Its *placement values*
(DeLong, DeLong & Clarke-Pearson 1988) are, for a relevant row x and a
non-relevant row y,

    V10(x) = (1/N) * sum_y psi(x, y),     V01(y) = (1/P) * sum_x psi(x, y),

with ``psi(x, y) = 1`` when x scores above y, ``1/2`` on a tie (the "expected"
tie rule) and 0 below; AUC = mean V10 = mean V01. They come from the score
sort the AUC already made: in a tie block, ``V10 * N`` is the non-relevant rows
below the block plus half of those in it (the midrank), ``V01 * P`` the relevant
rows above plus half of those in it. Nothing is compared pairwise: O(n) after
the sort.

Rows of one group (a user) are not independent. Obuchowski (1997) treats the
groups as clusters: with, for group i, ``m_i`` relevant rows, ``n_i``
non-relevant rows, ``V10_i`` the sum of its relevant rows' placements and
``V01_i`` the sum of its non-relevant rows' placements, I groups, I10 of them
with a relevant row, I01 with a non-relevant row, M = sum m_i, N = sum n_i,

    S10 = I10 / ((I10 - 1) M) * sum_i (V10_i - m_i A)^2
    S01 = I01 / ((I01 - 1) N) * sum_i (V01_i - n_i A)^2
    S11 = I / (I - 1)         * sum_i (V10_i - m_i A) (V01_i - n_i A)
    var(A) = S10 / M + S01 / N + 2 S11 / (M N)

and for two score columns r, s on the same rows (a paired comparison) the
covariance is the same expression with the products taken across r and s
(``S11`` symmetrized: ``(S11_rs + S11_sr) / (M N)``). With one row per group
this is DeLong's 1988 variance exactly (``S11 = 0``, I10 = M, I01 = N).

Additive moments
----------------
Every sum above expands into sums over groups of products of the per-group
numbers ``u_i = [1, [m_i > 0], [n_i > 0], m_i, n_i, a_i^1..a_i^K, b_i^1..b_i^K]``
for K score columns, where ``a_i^k = N * V10_i`` (the relevant rows' counts of
non-relevant rows below them, ties counting 1/2) and ``b_i^k = P * V01_i``
(the non-relevant rows' counts of relevant rows above them), unnormalized so
that no global total is needed to form them. :func:`delong_moments` returns
the Gram matrix

    G = sum_i u_i u_i^T        shape (5 + 2K, 5 + 2K), float64

Index layout: 0 the constant 1 (so ``G[0, 0] = I``), 1 ``[m_i > 0]``
(``G[0, 1] = I10``), 2 ``[n_i > 0]`` (``G[0, 2] = I01``), 3 ``m_i``
(``G[0, 3] = M``), 4 ``n_i`` (``G[0, 4] = N``), ``5 + k`` ``a_i^k``
(``G[0, 5 + k] = U_k``, the Mann-Whitney count), ``5 + K + k`` ``b_i^k``
(``G[0, 5 + K + k] = U_k`` too). It holds every sum the variance needs
(sum a^2, sum m a, sum m^2, sum b^2, sum n b, sum n^2, sum a b, sum m b, sum n a,
sum m n, and the cross products of two models). G is **additive over any
partition of whole groups**: ``G(all) = G(part 1) + G(part 2)``, so a Dask or
Spark partition adds its groups' ``u_i u_i^T`` and the driver adds the
matrices. :func:`delong_from_moments` turns G into the AUCs and their
covariance matrix.

One caveat for engines: ``a_i`` and ``b_i`` count rows of *all* groups (the
placement of a row is global), so a partition can form them only after the
global (positives, negatives) counts at each distinct score are known, for
example from the range-partitioned pass of the exact global AUC: for a row of
score s, ``a = neg_below(s) + neg_at(s) / 2`` and ``b = pos_above(s) +
pos_at(s) / 2``. Given those, ``u_i`` is per group and G adds up.

Sample weights
--------------
With per-row sample weights w (pairs weigh ``w_x * w_y``, as the weighted AUC
does), the placements count the rows below / above by their weights,
``V10(x) = sum_y w_y psi(x, y) / N`` and ``V01(y) = sum_x w_x psi(x, y) / P``, and
every sum over rows is weighted: ``m_i`` and ``n_i`` are the summed weights of
group i's relevant and non-relevant rows (so M = P and N are the summed weights),
``a_i = sum_x w_x N V10(x)`` and ``b_i = sum_y w_y P V01(y)`` over its rows. Then
``U / (M N)`` is the weighted AUC, and the variance above is the same clustered
(sandwich) variance of that ratio, groups being the independent units; it is
invariant to scaling all weights, and with all weights 1 it is the unweighted one
exactly. ``[m_i > 0]`` counts the groups with a relevant row of positive weight.
:func:`row_placements`, :func:`group_placements` and :func:`segment_moments` take
the weights; an engine multiplies each row's placement by its weight.

Tie rules: only ``ties="expected"`` gives the pair weights psi above. Under
"pessimistic" / "optimistic" ties the callers fall back to the group bootstrap
(see ``report`` and ``compare``).

References
----------
DeLong E. R., DeLong D. M., Clarke-Pearson D. L. (1988). Comparing the areas under
two or more correlated receiver operating characteristic curves: a nonparametric
approach. Biometrics 44, 837-845.
Obuchowski N. A. (1997). Nonparametric analysis of clustered ROC curve data.
Biometrics 53, 567-578.
Sun X., Xu W. (2014). Fast implementation of DeLong's algorithm for comparing the
areas under correlated receiver operating characteristic curves. IEEE Signal
Processing Letters 21, 1389-1393.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np

__all__ = [
    "group_placements",
    "delong_moments",
    "delong_words",
    "delong_from_moments",
    "row_placements",
]

#: Index of the per-group features in the moment matrix (see the module docstring).
ONE, HAS_POS, HAS_NEG, POS, NEG, FIRST_MODEL = 0, 1, 2, 3, 4, 5


def moment_size(n_models: int) -> int:
    """Side of the moment matrix for ``n_models`` score columns."""
    return FIRST_MODEL + 2 * n_models


def row_placements(
    order: np.ndarray,
    rank: np.ndarray,
    rel: np.ndarray,
    segment: np.ndarray | None = None,
    weight: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Unnormalized placement of every row, from the score sort.

    Parameters
    ----------
    order, rank : ndarray
        As returned by :func:`pandas_rankeval._engine.score_rank`: ``order`` sorts the
        rows from the worst to the best score, ``rank`` (non-increasing) is the dense
        rank of row ``order[i]``; rows share a rank exactly when they tie.
    rel : ndarray of bool
        Relevance of every row (indexed by row, not by sort position).
    segment : ndarray of int, optional
        Segment code of every row: placements count only rows of the same segment
        (the AUC of each segment on its own).
    weight : ndarray of float, optional
        Sample weight of every row: the rows below / above are counted by their summed
        weights (the placement of the weighted AUC, whose pairs weigh ``w_i * w_j``).

    Returns
    -------
    rows : ndarray of int64
        The rows, in the order of ``place`` (by segment, then worst to best).
    place : ndarray of float64
        For a relevant row, the non-relevant rows (of its segment) below it plus half
        of those tied with it; for a non-relevant row, the relevant rows above it plus
        half of those tied with it.
    """
    n = order.shape[0]
    if n == 0:
        return order.astype(np.int64), np.zeros(0)
    rows = order
    r = rank
    if segment is not None:
        s_o = segment[order]
        top = int(s_o.max())
        if top < 2**16 and int(s_o.min()) >= 0:  # a stable sort of 8/16-bit keys is a radix sort
            s_o = s_o.astype(np.uint8 if top < 2**8 else np.uint16, copy=False)
        by_seg = np.argsort(s_o, kind="stable")  # keeps the score order inside each segment
        rows, r, s_o = order[by_seg], rank[by_seg], s_o[by_seg]
    rel_o = rel[rows]
    new = r[1:] != r[:-1]
    if segment is not None:
        seg_new = s_o[1:] != s_o[:-1]
        new |= seg_new
    starts = np.flatnonzero(new) + 1
    starts = np.concatenate(([0], starts))
    size = np.diff(np.append(starts, n))
    if weight is None:
        pos = np.add.reduceat(rel_o.astype(np.int64), starts)
        neg = size - pos
    else:  # the summed weights of each block's relevant and other rows
        w_o = np.asarray(weight, dtype=np.float64)[rows]
        pos = np.add.reduceat(np.where(rel_o, w_o, 0.0), starts)
        neg = np.add.reduceat(np.where(rel_o, 0.0, w_o), starts)
    # exclusive / inclusive running counts from the worst block, restarted per segment
    cneg = np.cumsum(neg)
    cpos = np.cumsum(pos)
    if segment is None:
        neg_below = cneg - neg
        pos_above = cpos[-1] - cpos
    else:
        seg_blk = np.concatenate(([0], np.cumsum(seg_new)))[starts]
        first = np.flatnonzero(np.concatenate(([True], seg_blk[1:] != seg_blk[:-1])))
        nblk = np.diff(np.append(first, starts.shape[0]))
        neg_before = np.repeat((cneg - neg)[first], nblk)  # in the segments before
        last = np.append(first[1:], starts.shape[0]) - 1
        neg_below = cneg - neg - neg_before
        pos_above = np.repeat(cpos[last], nblk) - cpos
    a = neg_below + 0.5 * neg  # relevant rows of the block
    b = pos_above + 0.5 * pos  # non-relevant rows of the block
    place = np.where(rel_o, np.repeat(a, size), np.repeat(b, size))
    return rows, place


def group_placements(
    order: np.ndarray,
    rank: np.ndarray,
    rel: np.ndarray,
    row_group: np.ndarray,
    n_groups: int,
    segment: np.ndarray | None = None,
    weight: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Per-group sums of the unnormalized placements: ``(a, b)``, each of length ``n_groups``.

    ``a[g] = N * V10_g`` sums over the relevant rows of group g, ``b[g] = P * V01_g``
    over its non-relevant rows (N, P: the non-relevant and relevant rows of the
    group's segment, or of all rows). ``row_group`` gives each row's group index.
    With ``weight``, every row's placement is multiplied by its weight (see the module docstring).
    """
    rows, place = row_placements(order, rank, rel, segment, weight)
    g = row_group[rows]
    rel_r = rel[rows]
    if weight is not None:
        place = place * np.asarray(weight, dtype=np.float64)[rows]
    a = np.bincount(g, weights=np.where(rel_r, place, 0.0), minlength=n_groups)
    b = np.bincount(g, weights=np.where(rel_r, 0.0, place), minlength=n_groups)
    return a, b


def delong_moments(
    m: np.ndarray,
    n: np.ndarray,
    a: np.ndarray | Sequence[np.ndarray],
    b: np.ndarray | Sequence[np.ndarray],
) -> np.ndarray:
    """The additive moment matrix ``G = sum_i u_i u_i^T`` of some groups.

    Parameters
    ----------
    m, n : ndarray of shape (groups,)
        Relevant and non-relevant rows of each group.
    a, b : ndarray of shape (groups,) or (groups, K), or a sequence of K such arrays
        The per-group placement sums of :func:`group_placements`, one column per
        score column.

    Returns
    -------
    moments : ndarray of shape (5 + 2K, 5 + 2K)
        See the module docstring for the layout. The moments of a union of
        disjoint sets of whole groups are the sum of their moments.

    Examples
    --------
    >>> import numpy as np
    >>> m, n = np.array([1, 2]), np.array([1, 0])
    >>> a, b = np.array([1.0, 1.5]), np.array([2.0, 0.0])
    >>> G = delong_moments(m, n, a, b)
    >>> G.shape, G[0, [0, 3, 4, 5]].tolist()
    ((7, 7), [2.0, 3.0, 1.0, 2.5])
    >>> bool(np.allclose(G, delong_moments(m[:1], n[:1], a[:1], b[:1])
    ...                     + delong_moments(m[1:], n[1:], a[1:], b[1:])))
    True
    """
    m = np.asarray(m, dtype=np.float64).reshape(-1)
    n = np.asarray(n, dtype=np.float64).reshape(-1)
    a2 = _columns(a, m.shape[0])
    b2 = _columns(b, m.shape[0])
    u = np.column_stack([np.ones_like(m), m > 0, n > 0, m, n, a2, b2])
    return u.T @ u


def delong_moments_by(
    seg_index: np.ndarray, n_seg: int, m: np.ndarray, n: np.ndarray, a: np.ndarray, b: np.ndarray
) -> np.ndarray:
    """:func:`delong_moments` of every segment at once: (n_seg, 5 + 2K, 5 + 2K).

    ``seg_index`` gives each group's segment; every entry of the moment matrices is one
    ``np.bincount`` over the groups (no loop over segments).
    """
    m = np.asarray(m, dtype=np.float64).reshape(-1)
    n = np.asarray(n, dtype=np.float64).reshape(-1)
    u = np.column_stack([np.ones_like(m), m > 0, n > 0, m, n, _columns(a, m.shape[0]), _columns(b, m.shape[0])])
    d = u.shape[1]
    out = np.empty((n_seg, d, d))
    for i in range(d):
        for j in range(i, d):
            out[:, i, j] = out[:, j, i] = np.bincount(seg_index, weights=u[:, i] * u[:, j], minlength=n_seg)
    return out


def _columns(x: np.ndarray | Sequence[np.ndarray], n: int) -> np.ndarray:
    """(groups, K) float64 from one column, a 2-D array, or a sequence of K columns."""
    if not isinstance(x, np.ndarray) and len(x) and np.ndim(x[0]) == 1:
        cols = [np.asarray(c, dtype=np.float64).reshape(n) for c in x]
        return np.column_stack(cols)
    out = np.asarray(x, dtype=np.float64)
    return out.reshape(n, out.shape[1] if out.ndim == 2 else 1)


def delong_from_moments(moments: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """AUCs and their clustered (Obuchowski) covariance matrix from the moment matrix.

    Parameters
    ----------
    moments : ndarray of shape (5 + 2K, 5 + 2K)
        From :func:`delong_moments` (summed over partitions).

    Returns
    -------
    auc : ndarray of shape (K,)
        ``U_k / (M N)``; NaN without a relevant or a non-relevant row.
    cov : ndarray of shape (K, K)
        ``cov[r, s]`` is the covariance of AUC r and AUC s on the same groups
        (``cov[k, k]`` the variance); NaN when fewer than two groups hold a
        relevant row or fewer than two a non-relevant row.

    Examples
    --------
    One row per group is DeLong's unclustered case: three relevant rows scoring
    3, 2, 1 against two non-relevant rows scoring 1.5 and 0 (V10 = 1, 1, 1/2 and
    V01 = 2/3, 1; variance S10 / 3 + S01 / 2 = (1/12) / 3 + (1/18) / 2 = 1/18):

    >>> import numpy as np
    >>> m, n = np.array([1, 1, 1, 0, 0]), np.array([0, 0, 0, 1, 1])
    >>> a = np.array([2.0, 2.0, 1.0, 0.0, 0.0])   # non-relevant rows below
    >>> b = np.array([0.0, 0.0, 0.0, 2.0, 3.0])   # relevant rows above
    >>> auc, cov = delong_from_moments(delong_moments(m, n, a, b))
    >>> round(float(auc[0]), 6), round(float(cov[0, 0]), 6)
    (0.833333, 0.055556)
    """
    G = np.asarray(moments, dtype=np.float64)
    d = G.shape[0]
    K = (d - FIRST_MODEL) // 2
    if G.shape != (d, d) or d != moment_size(K) or K < 1:
        raise ValueError(f"moments must be a square matrix of side 5 + 2K; got shape {G.shape}")
    n_groups, i10, i01 = G[ONE, ONE], G[ONE, HAS_POS], G[ONE, HAS_NEG]
    big_m, big_n = G[ONE, POS], G[ONE, NEG]
    ia = FIRST_MODEL + np.arange(K)
    ib = ia + K
    u = G[ONE, ia]
    if big_m <= 0 or big_n <= 0:
        return np.full(K, np.nan), np.full((K, K), np.nan)
    auc = u / (big_m * big_n)
    # D10_i^k = a_i^k / N - m_i auc_k and D01_i^k = b_i^k / M - n_i auc_k are linear in u_i
    e10 = np.zeros((d, K))
    e10[ia, np.arange(K)] = 1.0 / big_n
    e10[POS] = -auc
    e01 = np.zeros((d, K))
    e01[ib, np.arange(K)] = 1.0 / big_m
    e01[NEG] = -auc
    c10 = e10.T @ G @ e10  # sum_i D10^r D10^s
    c01 = e01.T @ G @ e01
    c11 = e10.T @ G @ e01  # sum_i D10^r D01^s
    with np.errstate(invalid="ignore", divide="ignore"):
        f10 = i10 / ((i10 - 1.0) * big_m * big_m) if i10 > 1 else np.nan
        f01 = i01 / ((i01 - 1.0) * big_n * big_n) if i01 > 1 else np.nan
        f11 = n_groups / ((n_groups - 1.0) * big_m * big_n) if n_groups > 1 else np.nan
    cov = f10 * c10 + f01 * c01 + f11 * (c11 + c11.T)
    return auc, cov


# --------------------------------------------------------------------------- #
# From an evaluation (report / compare) to per-segment AUC covariances
# --------------------------------------------------------------------------- #
METHOD = "clustered DeLong over groups (Obuchowski 1997), normal interval"
TEST = "paired clustered DeLong z-test over groups (Obuchowski 1997)"
#: Added to :data:`METHOD` / :data:`TEST` under ``sample_weight`` (see "Sample weights" above).
WEIGHTED = ", sample-weighted placements"


def delong_words(text: str, sample_weight: Hashable | None) -> str:
    """:data:`METHOD` or :data:`TEST`, saying so when the placements are sample-weighted."""
    return text if sample_weight is None else f"{text}{WEIGHTED} ({sample_weight!r})"


def delong_unavailable(ties: str) -> str | None:
    """Why clustered DeLong cannot serve a call (None when it can)."""
    if ties != "expected":
        return f"clustered DeLong needs ties='expected' (got ties={ties!r})"
    return None


def sample_weights(ev: Any) -> np.ndarray | None:
    """The evaluation's sample weights (float64, one per row), or None without ``sample_weight``."""
    name = ev.options.sample_weight
    if name is None:
        return None
    return np.asarray(ev.prepared.extra[name], dtype=np.float64)


def class_sums(
    row_group: np.ndarray, rel: np.ndarray, weight: np.ndarray | None, n_groups: int
) -> tuple[np.ndarray, np.ndarray]:
    """``(m, n)`` per group: its relevant and non-relevant rows, or their summed sample weights."""
    if weight is None:
        m = np.bincount(row_group, weights=rel, minlength=n_groups)
        return m, np.bincount(row_group, minlength=n_groups) - m
    return (np.bincount(row_group, weights=np.where(rel, weight, 0.0), minlength=n_groups),
            np.bincount(row_group, weights=np.where(rel, 0.0, weight), minlength=n_groups))


def segment_moments(ev: Any, scores: Sequence[Hashable], by_cols: list[Hashable], func: str) -> dict[tuple, np.ndarray]:
    """The moment matrix of ``scores`` for every segment present, keyed by segment key.

    Without segments the one key is ``()``. Needs ``evaluate(..., keep_order=True)``.
    """
    from pandas_rankeval.inference.bootstrap import _group_codes, groups_by_segment, row_groups
    from pandas_rankeval.core.reference import reference_mode
    from pandas_rankeval.core.threads import Workers
    from pandas_rankeval.core.inputs.validation import internal_error

    rg = row_groups(ev)
    n_groups = int(_group_codes(ev).shape[0])
    rel = ev.labels.rel
    sw = sample_weights(ev)
    m, n = class_sums(rg, rel, sw, n_groups)
    segs = ev.prepared.segments if by_cols else None
    if by_cols and segs is None:
        raise internal_error("segments need segment codes")
    seg_rows = segs.codes if segs is not None else None
    sorts = []
    for s in scores:
        se = ev.scores[s]
        if se.order is None or se.rank is None:
            raise internal_error("clustered DeLong needs evaluate(..., keep_order=True)")
        sorts.append((se.order, se.rank))

    def one(sort: tuple[np.ndarray, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        return group_placements(sort[0], sort[1], rel, rg, n_groups, seg_rows, sw)

    if len(sorts) > 1 and rel.shape[0] >= 100_000 and not reference_mode():  # one score per thread: numpy releases the GIL
        with Workers(min(2, len(sorts))) as workers:
            placed = workers.map(one, sorts)
    else:
        placed = [one(sort) for sort in sorts]
    a2, b2 = np.column_stack([p[0] for p in placed]), np.column_stack([p[1] for p in placed])
    if segs is None:
        return {(): delong_moments(m, n, a2, b2)}
    present, members = groups_by_segment(ev, by_cols, func)
    out = {}
    for key, gi in zip(segs.decode(present), members):
        k = key if isinstance(key, tuple) else (key,)
        out[k] = delong_moments(m[gi], n[gi], a2[gi], b2[gi])
    return out


def normal_interval(center: np.ndarray, var: np.ndarray, ci: float, clip: tuple[float, float] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``center -/+ z_{(1+ci)/2} * sqrt(var)``, optionally clipped."""
    from scipy.special import ndtri  # the normal quantile (scipy.stats' norm.ppf, bit for bit)

    z = float(ndtri(0.5 + ci / 2.0))
    with np.errstate(invalid="ignore"):
        half = z * np.sqrt(np.maximum(var, 0.0))
    lo, hi = center - half, center + half
    if clip is not None:
        lo, hi = np.clip(lo, *clip), np.clip(hi, *clip)
    return lo, hi


def z_test(diff: np.ndarray, var: np.ndarray) -> np.ndarray:
    """Two-sided normal p-value of ``diff / sqrt(var)`` (1 when both are 0)."""
    from scipy.special import ndtr  # the normal cdf: norm.sf(x) is ndtr(-x), bit for bit

    diff = np.asarray(diff, dtype=np.float64)
    se = np.sqrt(np.maximum(np.asarray(var, dtype=np.float64), 0.0))
    with np.errstate(invalid="ignore", divide="ignore"):
        p = 2.0 * ndtr(-(np.abs(diff) / se))
    p = np.where((se == 0) & (diff == 0), 1.0, p)
    return np.where(np.isfinite(diff) & np.isfinite(se), p, np.nan)
