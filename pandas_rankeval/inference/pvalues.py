"""Paired sign-flip p-values from additive sums, and multiple-testing adjustment.

The paired difference of a group metric is ``D = sum_g w_g d_g / sum_g w_g``, with
``d_g = v_g(model) - v_g(baseline)`` and weights that depend on the labels only. Under the
null hypothesis that the two models are exchangeable within each group, the signs of the
terms ``a_g = w_g d_g`` are independent fair coin flips given their sizes ``|a_g|``: the
randomization (sign-flip) distribution of ``T = sum_g a_g`` is known exactly, and the test
needs no resampling. Two regimes, both from sums that add over partitions:

- **exact** (at most :data:`EXACT_MAX` groups with a nonzero difference): every one of the
  ``2^G`` sign patterns is counted, by meet in the middle (two halves of ``2^(G/2)`` sums,
  one sorted, counted with ``searchsorted``), ties of ``|T*|`` with ``|T|`` included. The
  summary keeps the :data:`TOP_K` largest ``|a_g|`` of every row, so with few groups it
  holds all of them.
- **tail approximation** (more groups): the :data:`MIX_K` largest terms are enumerated
  exactly and the rest ``R`` is approximated by a normal law with its exact variance
  ``S2 - sum(top^2)``, an Edgeworth correction from its exact fourth cumulant
  ``-2 (S4 - sum(top^4))`` (in exponential form, so it stays positive far in the tail), and
  a continuity correction of half the gap between the attainable sums when the terms lie on a
  lattice (hit rate's ``d_g in {-1, 0, 1}``: the common unit of the kept terms). Enumerating the largest terms keeps the approximation accurate
  when a few heavy groups dominate, where a plain normal (or Student t) reference is far off
  in the tail; ``benchmarks/sim_compare.py`` measures it against the exact distribution.
- **exact on a lattice** (more groups, a discrete metric): when the summary's histogram of
  ``|a_g|`` (at most :data:`~pandas_rankeval.inference.signflip_lattice.HIST_K` distinct values,
  merged exactly over partitions) has all its values on a common lattice ``q Z``, the
  distribution of ``T`` is a convolution of a few scaled binomials, computed exactly
  (:mod:`pandas_rankeval.inference.signflip_lattice`); with more distinct values, no lattice or
  too fine a one, the tail approximation above. ``benchmarks/sim_signflip_tail.py`` measures both
  against a Monte Carlo sign-flip test.

p-values are never bounded by a number of replicates; the only floor is ``2^(1-G)``, the
probability of the observed pattern and its mirror. A difference ``|d_g|`` within
:data:`ZERO_TOL` of zero (relative to the metric's scale) counts as exactly zero: such a group
carries no sign, and when every group is zero ``p = 1``.

:func:`adjust_pvalues` controls the family-wise error (Holm) or the false discovery rate
(Benjamini-Hochberg) over a family: the whole table, or each metric.

Pure numpy (and :mod:`scipy.special`); imports nothing from the package.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from scipy import special

from pandas_rankeval.core.inputs.validation import check_option

from .signflip_lattice import (
    HIST_K,
    LATTICE_MAX,
    lattice_multiples,
    lattice_tail,
    lattice_tail_windowed,
    rational_lattice,
    signflip_hist,
)

__all__ = [
    "ADJUSTMENTS",
    "EXACT_MAX",
    "FAMILIES",
    "HIST_K",
    "MIX_K",
    "TOP_K",
    "ZERO_TOL",
    "adjust_pvalues",
    "benjamini_hochberg",
    "exact_signflip_pvalue",
    "holm",
    "merge_top",
    "signflip_pvalues",
    "signflip_stats",
    "signflip_sums",
    "signflip_terms",
    "zero_difference",
]

#: At most this many groups with a nonzero difference: the exact distribution (2^G patterns).
EXACT_MAX = 30
#: Largest |a_g| kept per (segment, pair) in a summary (>= EXACT_MAX: the exact case has all).
TOP_K = 30
#: Largest terms enumerated exactly inside the tail approximation (2^(MIX_K-1) patterns).
MIX_K = 12
#: |d_g| <= ZERO_TOL * max(1, |v_model|, |v_baseline|) is a zero difference (float rounding).
ZERO_TOL = 1e-12
#: |T*| >= |T| - TIE_TOL * sum|a_g| counts as a tie (sums of the same terms in another order).
TIE_TOL = 1e-9
#: Rows with at most this many nonzero terms enumerate their 2^k sign patterns together.
SMALL_EXACT = 10

ADJUSTMENTS = ("holm", "bh", "none")
FAMILIES = ("table", "metric")


# --------------------------------------------------------------------------- #
# The sums a partition contributes
# --------------------------------------------------------------------------- #
def signflip_terms(w: np.ndarray, v_model: np.ndarray, v_base: np.ndarray, used: np.ndarray) -> np.ndarray:
    """Per group ``a_g = w_g d_g`` for the groups both models use, 0 elsewhere; a difference
    within :data:`ZERO_TOL` of zero (relative to the values' scale) is exactly 0.

    >>> signflip_terms(np.array([2.0, 1.0, 1.0]), np.array([0.5, 0.3, 1.0]),
    ...                np.array([0.25, 0.3 + 1e-16, 0.0]), np.array([True, True, False])).tolist()
    [0.5, 0.0, 0.0]
    """
    with np.errstate(invalid="ignore"):
        d = np.asarray(v_model, dtype=np.float64) - np.asarray(v_base, dtype=np.float64)
        zero = zero_difference(d, v_model, v_base)
        return np.where(np.asarray(used, dtype=bool) & ~zero, np.asarray(w, dtype=np.float64) * d, 0.0)


def zero_difference(d: Any, v_model: Any = 0.0, v_base: Any = 0.0) -> np.ndarray:
    """Whether a difference ``d = v_model - v_base`` is zero up to float rounding: ``|d| <=``
    :data:`ZERO_TOL` ``* max(1, |v_model|, |v_base|)`` (NaN counts as zero).

    The one rule of every paired test: a group's difference in the sign-flip test (such a
    group carries no sign) and the whole difference in the bootstrap test (``p = 1``), so
    that a metric computed in another order of summation (another engine, other partitions)
    gives the same p-value.

    >>> zero_difference(np.array([2e-16, 1e-3, np.nan]), np.array([1.0, 0.5, 0.2]),
    ...                 np.array([1.0 - 2e-16, 0.499, 0.1])).tolist()
    [True, False, True]
    """
    with np.errstate(invalid="ignore"):
        d = np.asarray(d, dtype=np.float64)
        scale = np.maximum(1.0, np.maximum(np.abs(np.asarray(v_model, dtype=np.float64)),
                                           np.abs(np.asarray(v_base, dtype=np.float64))))
        return np.asarray(~(np.abs(d) > ZERO_TOL * scale))


def signflip_sums(
    a: np.ndarray, seg_index: np.ndarray | None = None, n_seg: int = 1, k: int = TOP_K
) -> dict[str, np.ndarray]:
    """The additive sign-flip sums of per-group terms ``a`` (columns: tests), per segment.

    Parameters
    ----------
    a : ndarray, shape (groups,) or (groups, tests)
        ``a_g = w_g d_g`` per group (0 for a group without a difference, see
        :func:`signflip_terms`).
    seg_index : ndarray of int, optional
        The segment (0 .. n_seg-1) of every group; all in segment 0 when omitted.
    n_seg : int
        Number of segments.
    k : int
        Largest ``|a_g|`` kept per (segment, test).

    Returns
    -------
    dict with ``n`` (int64, groups with a nonzero term), ``s`` (float, last axis
    ``[sum a, sum a^2, sum a^4]``), ``top`` (the ``k`` largest ``|a|`` in decreasing order,
    zero-padded), ``amin`` (smallest nonzero ``|a|``, ``inf`` without one) and ``hist`` (the
    distinct nonzero ``|a|`` and their counts, last axes (2, HIST_K), see
    :func:`~pandas_rankeval.inference.signflip_lattice.signflip_hist`); leading axes
    (segments, tests). ``n`` and ``s`` add over partitions, ``top`` merges with
    :func:`merge_top`, ``amin`` with ``min`` and ``hist`` with
    :func:`~pandas_rankeval.inference.signflip_lattice.merge_hist`.

    Examples
    --------
    >>> s = signflip_sums(np.array([0.5, -0.25, 0.0, 1.0]))
    >>> int(s["n"][0, 0]), s["s"][0, 0].tolist(), s["top"][0, 0, :4].tolist(), float(s["amin"][0, 0])
    (3, [1.25, 1.3125, 1.06640625], [1.0, 0.5, 0.25, 0.0], 0.25)
    """
    a = np.asarray(a, dtype=np.float64)
    if a.ndim == 1:
        a = a[:, None]
    n_groups, n_tests = a.shape
    seg = np.zeros(n_groups, dtype=np.int64) if seg_index is None else np.asarray(seg_index, dtype=np.int64)
    absa = np.abs(a)
    nz = absa > 0
    a2 = a * a
    out_s = np.empty((n_seg, n_tests, 3))
    n = np.empty((n_seg, n_tests), dtype=np.int64)
    for j in range(n_tests):  # tests (model x metric pairs), never groups
        if n_seg == 1:
            n[0, j] = np.count_nonzero(nz[:, j])
            out_s[0, j] = (a[:, j].sum(), a2[:, j].sum(), a2[:, j] @ a2[:, j])
            continue
        n[:, j] = np.bincount(seg[nz[:, j]], minlength=n_seg)
        out_s[:, j, 0] = np.bincount(seg, weights=a[:, j], minlength=n_seg)
        out_s[:, j, 1] = np.bincount(seg, weights=a2[:, j], minlength=n_seg)
        out_s[:, j, 2] = np.bincount(seg, weights=a2[:, j] * a2[:, j], minlength=n_seg)
    top = np.zeros((n_seg, n_tests, k))
    amin = np.full((n_seg, n_tests), np.inf)
    hist = np.zeros((n_seg, n_tests, 2, HIST_K))
    for j in range(n_tests):  # tests, never groups
        hist[:, j] = signflip_hist(absa[:, j], seg, n_seg)
    if n_groups and k:
        # per segment and test, the k largest |a|: sort by (segment, -|a|) and keep the first k
        for j in range(n_tests):
            col = absa[:, j]
            pos = np.where(nz[:, j], col, np.inf)
            if n_seg == 1:  # one segment: a partial sort is enough
                m = min(k, n_groups)
                part = -np.partition(-col, m - 1)[:m] if m < n_groups else col
                top[0, j, :m] = -np.sort(-part)[:m]
                amin[0, j] = pos.min()
                continue
            order = np.lexsort((-col, seg))
            s_sorted = seg[order]
            start = np.searchsorted(s_sorted, np.arange(n_seg))
            rank = np.arange(n_groups) - start[s_sorted]
            keep = rank < k
            top[s_sorted[keep], j, rank[keep]] = col[order[keep]]
            np.minimum.at(amin[:, j], seg, pos)
    return {"n": n, "s": out_s, "top": top, "amin": amin, "hist": hist}


def merge_top(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The largest ``|a_g|`` of two summaries, merged (decreasing, same length as ``a``).

    >>> merge_top(np.array([3.0, 1.0, 0.0]), np.array([2.0, 2.0, 0.5])).tolist()
    [3.0, 2.0, 2.0]
    """
    k = a.shape[-1]
    both = np.concatenate([a, b], axis=-1)
    return -np.sort(-both, axis=-1)[..., :k]


def signflip_stats(a: np.ndarray, k: int = TOP_K) -> tuple[Any, ...]:
    """``(n, s1, s2, s4, top, amin)`` of one vector of per-group terms (tests and small cases).

    >>> n, s1, s2, s4, top, amin = signflip_stats(np.array([1.0, -2.0, 0.0]))
    >>> int(n), float(s1), float(s2), top[:3].tolist(), float(amin)
    (2, -1.0, 5.0, [2.0, 1.0, 0.0], 1.0)
    """
    s = signflip_sums(np.asarray(a, dtype=np.float64), k=k)
    return (s["n"][0, 0], s["s"][0, 0, 0], s["s"][0, 0, 1], s["s"][0, 0, 2], s["top"][0, 0], s["amin"][0, 0])


# --------------------------------------------------------------------------- #
# p-values
# --------------------------------------------------------------------------- #
def _pattern_sums(a: np.ndarray) -> np.ndarray:
    """All ``2^len(a)`` sums ``sum_i +-a_i`` (doubling: one vectorized step per term, <= 16 steps)."""
    s = np.zeros(1)
    for x in a:
        s = np.concatenate([s + x, s - x])
    return s


def exact_signflip_pvalue(abs_a: np.ndarray, t: float) -> float:
    """``P(|sum_g e_g |a_g|| >= |t|)`` over all ``2^G`` equally likely signs ``e_g``, exactly.

    Meet in the middle: the sums of each half of the terms, one half sorted, and for every
    sum of the other half the number of partners beyond ``+-|t|`` by binary search (ties
    within ``TIE_TOL * sum|a|`` count as reached). Exact for any ``G`` (integer counts), in
    ``O(2^(G/2) G)`` time and memory; used up to :data:`EXACT_MAX` groups.

    >>> exact_signflip_pvalue(np.array([1.0, 1.0, 1.0]), 3.0)  # +++ and ---: 2 of 8
    0.25
    >>> exact_signflip_pvalue(np.array([1.0, 2.0]), 1.0)  # |+-1 +-2| >= 1 always
    1.0
    """
    x = np.sort(np.abs(np.asarray(abs_a, dtype=np.float64)))[::-1]
    x = x[x > 0]
    g = x.shape[0]
    tol = TIE_TOL * float(x.sum())
    t = abs(float(t))
    if g == 0 or t <= tol:
        return 1.0
    h = g // 2
    left = _pattern_sums(x[:h])
    right = np.sort(_pattern_sums(x[h:]))
    upper = right.shape[0] - np.searchsorted(right, t - tol - left, side="left")  # sum >= t
    lower = np.searchsorted(right, -t + tol - left, side="right")  # sum <= -t
    hits = int(upper.sum()) + int(lower.sum())
    return float(hits) / float(2**g)


def _log_q(z: np.ndarray) -> np.ndarray:
    """log P(N(0,1) >= z) for z >= 0, accurate far in the tail."""
    return np.log(0.5 * special.erfcx(z / np.sqrt(2.0))) - 0.5 * z * z


def _tail(z: np.ndarray, k4: np.ndarray) -> np.ndarray:
    """P(R >= z sd) for R symmetric with standardized fourth cumulant ``k4`` (<= 0):
    ``Q(z) exp(k4 r(z) / 24)``, ``r = phi(z) He3(z) / Q(z)`` (Edgeworth to first order,
    exponential so that it stays a probability); ``1 - tail(-z)`` below 0."""
    az = np.abs(z)
    mills = np.sqrt(2.0 / np.pi) / special.erfcx(az / np.sqrt(2.0))  # phi(z) / Q(z)
    r = mills * (az**3 - 3.0 * az)
    upper = np.exp(np.minimum(_log_q(az) + k4 * r / 24.0, 0.0))
    upper = np.minimum(upper, 1.0)
    return np.where(z >= 0, upper, 1.0 - upper)


def _mixture_pvalues(t: np.ndarray, top: np.ndarray, s2: np.ndarray, s4: np.ndarray) -> np.ndarray:
    """Two-sided tail probability of ``sum_top +-x + R`` beyond ``t`` (rows vectorized)."""
    k = top.shape[1]
    half = _sign_matrix(k)  # (2^(k-1), k), first sign +: the other half mirrors it
    rest2 = np.maximum(s2 - (top * top).sum(axis=1), 0.0)
    rest4 = np.maximum(s4 - (top**4).sum(axis=1), 0.0)
    small = rest2 <= 1e-24 * np.maximum(s2, 1e-300)
    sd = np.sqrt(np.where(small, 1.0, rest2))
    with np.errstate(divide="ignore", invalid="ignore"):
        k4 = np.where(small, 0.0, -2.0 * rest4 / (rest2 * rest2))
    out = np.empty(t.shape[0])
    chunk = max(1, (1 << 21) // half.shape[0])
    for lo in range(0, t.shape[0], chunk):  # chunks of rows (tests), never groups
        sl = slice(lo, lo + chunk)
        s = top[sl] @ half.T  # (rows, patterns)
        tt = t[sl, None]
        kk = k4[sl, None]
        z1 = (tt - s) / sd[sl, None]
        z2 = (tt + s) / sd[sl, None]
        p = _tail(z1, kk) + _tail(z2, kk)
        if small[sl].any():  # no rest to speak of: the enumerated part alone
            tol = TIE_TOL * top[sl].sum(axis=1)[:, None]
            step = (np.abs(s) >= tt - tol).astype(np.float64)
            p = np.where(small[sl, None], step, p)
        out[sl] = p.mean(axis=1)
    return out


def _lattice_unit(top: np.ndarray, amin: np.ndarray) -> np.ndarray:
    """Continuity correction per row: the largest ``u`` with every kept ``|a_g|`` (the largest
    ones and the smallest) a multiple of it, 0 when there is none above float noise.

    With all terms on the lattice ``u Z`` the sums ``T*`` are spaced ``2u`` apart and ``u`` is
    half the gap (hit rate: ``u = 1``; precision@10 with equal weights: ``u = 0.1``); with
    terms of no common unit (continuous weights) the correction vanishes.
    """
    u = np.where(np.isfinite(amin), amin, 0.0)
    tol = 1e-9 * np.maximum(top[:, 0] if top.shape[1] else u, u)
    for j in range(top.shape[1]):  # the kept terms (<= TOP_K), vectorized over rows
        x = top[:, j].copy()
        y = u.copy()
        live = (x > tol) & (y > tol)
        for _ in range(100):  # Euclid on floats: converges in a few dozen steps
            if not live.any():
                break
            r = np.where(live, np.fmod(x, np.where(live, y, 1.0)), 0.0)
            r = np.where(r > y - tol, 0.0, r)  # a remainder within noise of y is 0
            x, y = np.where(live, y, x), np.where(live, r, y)
            live = live & (y > tol)
        u = np.where(top[:, j] > tol, x, u)
    return np.where(u > tol, u, 0.0)


_SIGNS: dict[int, np.ndarray] = {}


def _sign_matrix(k: int) -> np.ndarray:
    if k not in _SIGNS:
        bits = (np.arange(1 << max(k - 1, 0))[:, None] >> np.arange(max(k - 1, 0))) & 1
        _SIGNS[k] = np.column_stack([np.ones(bits.shape[0]), 1.0 - 2.0 * bits]) if k else np.zeros((1, 0))
    return _SIGNS[k]


def _lattice_pvalues(n: np.ndarray, t: np.ndarray, hist: np.ndarray, lattice_max: int) -> np.ndarray:
    """The exact two-sided p-value of every row whose histogram (rows, 2, HIST_K) is complete
    (not overflowed, counts adding up to ``n``) with its values on a lattice whose windows fit in
    ``lattice_max`` points; NaN for the others (the caller's approximation).

    The unit: Euclid on floats (:func:`_lattice_unit`), else the rational fit of
    :func:`~pandas_rankeval.inference.signflip_lattice.rational_lattice` (fine units such as
    MRR's ``1 / lcm(1..15)``); the tail: one window
    (:func:`~pandas_rankeval.inference.signflip_lattice.lattice_tail`), else the split windows of
    :func:`~pandas_rankeval.inference.signflip_lattice.lattice_tail_windowed`."""
    out = np.full(n.shape[0], np.nan)
    vals, cnts = hist[:, 0, :], hist[:, 1, :]
    ok = (cnts[:, 0] >= 0) & (cnts.sum(axis=1) == n)
    if not ok.any():
        return out
    desc = -np.sort(-np.where(cnts > 0, vals, 0.0), axis=1)  # decreasing, zero-padded
    vmin = np.where(cnts > 0, vals, np.inf).min(axis=1)
    unit = _lattice_unit(desc, vmin)
    for i in np.flatnonzero(ok):  # rows (tests), never groups
        live = cnts[i] > 0
        fit = lattice_multiples(vals[i, live], float(unit[i])) if unit[i] > 0 else None
        if fit is None:
            fit = rational_lattice(vals[i, live])
        if fit is None:
            continue
        m, q = fit
        c = cnts[i, live].astype(np.int64)
        half = 0.5 * (t[i] / q + float((m * c).sum()))  # the observed T' = (T / q + M) / 2
        k0 = int(np.rint(half))
        if abs(half - k0) > 0.25:  # T off the lattice of its own terms: not this path
            continue
        tail = lattice_tail(m, c, k0, lattice_max)
        if np.isnan(tail):  # one window too large: the split windows
            tail = lattice_tail_windowed(m, c, k0, lattice_max)
        out[i] = min(1.0, 2.0 * tail) if np.isfinite(tail) else np.nan
    return out


def signflip_pvalues(
    n: Any, s1: Any, s2: Any, s4: Any, top: Any, amin: Any, *, hist: Any = None, exact_max: int = EXACT_MAX,
    mix_k: int = MIX_K, lattice_max: int = LATTICE_MAX,
) -> np.ndarray:
    """Two-sided sign-flip p-values from the additive sums, one per row (test).

    Parameters
    ----------
    n : array of int
        Groups with a nonzero term ``a_g``.
    s1, s2, s4 : array of float
        ``sum a_g``, ``sum a_g^2``, ``sum a_g^4``.
    top : array, shape (rows, K)
        The ``K`` largest ``|a_g|``, decreasing, zero-padded (``K >= exact_max``).
    amin : array of float
        The smallest nonzero ``|a_g|`` (the continuity correction of the approximation).
    hist : array, shape (rows, 2, HIST_K), optional
        The distinct nonzero ``|a_g|`` and their counts (``sf_hist`` of a summary): rows beyond
        ``exact_max`` whose values lie on a lattice get the exact lattice distribution.
    exact_max : int, default=EXACT_MAX
        At most this many nonzero terms: the exact distribution (0: the lattice path or the
        approximation for every row).
    mix_k : int, default=MIX_K
        Largest terms enumerated exactly inside the approximation.
    lattice_max : int, default=LATTICE_MAX
        Largest FFT window of the lattice path (more: the approximation).

    Returns
    -------
    p : ndarray
        ``P(|T*| >= |T|)`` with ``T = s1``: exact for ``n <= exact_max``, else exact on a
        lattice (with ``hist``) or the approximation described in the module docstring, never
        below ``2^(1-n)``;
        1 when ``n == 0`` or ``T == 0``; NaN where ``s1`` is NaN.

    Examples
    --------
    Four groups that all favour the model: 2 of the 16 sign patterns are as extreme.

    >>> a = np.array([0.1, 0.2, 0.3, 0.4])
    >>> n, s1, s2, s4, top, amin = signflip_stats(a)
    >>> float(signflip_pvalues([n], [s1], [s2], [s4], [top], [amin])[0])
    0.125

    Ten thousand groups with a small consistent gain: far below any replicate floor.

    >>> rng = np.random.default_rng(0)
    >>> a = rng.normal(0.02, 0.1, 10_000)
    >>> p = signflip_pvalues(*[[x] for x in signflip_stats(a)])[0]
    >>> bool(p < 1e-60)
    True

    Hit rate on 200 groups, 120 in favour of the model: the exact binomial tail from the
    histogram of ``|a_g|`` (one value, 1, 200 times).

    >>> s = signflip_sums(np.r_[np.ones(120), -np.ones(80)])
    >>> args = [s["n"][0], s["s"][0, :, 0], s["s"][0, :, 1], s["s"][0, :, 2], s["top"][0], s["amin"][0]]
    >>> float(signflip_pvalues(*args, hist=s["hist"][0])[0].round(6))
    0.005685
    """
    n = np.atleast_1d(np.asarray(n, dtype=np.int64))
    s1 = np.atleast_1d(np.asarray(s1, dtype=np.float64))
    s2 = np.atleast_1d(np.asarray(s2, dtype=np.float64))
    s4 = np.atleast_1d(np.asarray(s4, dtype=np.float64))
    top = np.atleast_2d(np.asarray(top, dtype=np.float64))
    amin = np.atleast_1d(np.asarray(amin, dtype=np.float64))
    if top.shape[1] < min(exact_max, int(n.max(initial=0))):
        raise ValueError(f"signflip_pvalues needs the {exact_max} largest terms per row; got {top.shape[1]}")
    p = np.ones(n.shape[0])
    t = np.abs(s1)
    scale = np.where(n > 0, top.sum(axis=1), 0.0)
    live = (n > 0) & (t > TIE_TOL * np.maximum(scale, 1e-300)) & (s2 > 0)
    exact = live & (n <= exact_max)
    # rows of at most SMALL_EXACT terms: every sign pattern at once, rows in chunks (zero-padded
    # terms repeat each pattern 2^(k - n) times: the same fraction); the others one row at a time
    k = min(SMALL_EXACT, top.shape[1])
    small = np.flatnonzero(exact & (n <= k))
    if small.size:
        half = _sign_matrix(k)  # the first sign +: |sum| is the same for a pattern and its mirror
        reach = t - TIE_TOL * scale  # |sum| >= |T| up to the tie tolerance
        chunk = max(1, (1 << 21) // half.shape[0])
        for lo in range(0, small.shape[0], chunk):
            rows = small[lo : lo + chunk]
            sums = top[rows, :k] @ half.T
            p[rows] = (np.abs(sums) >= reach[rows, None]).sum(axis=1) / float(half.shape[0])
    for i in np.flatnonzero(exact & (n > k)):  # rows (tests), each O(2^(n/2))
        p[i] = exact_signflip_pvalue(top[i, : n[i]], t[i])
    approx = np.flatnonzero(live & (n > exact_max))
    if approx.size and hist is not None:
        hist = np.asarray(hist, dtype=np.float64).reshape(n.shape[0], 2, -1)
        pl = _lattice_pvalues(n[approx], t[approx], hist[approx], lattice_max)
        done = np.isfinite(pl)
        p[approx[done]] = np.maximum(pl[done], np.exp2(1.0 - n[approx[done]].astype(np.float64)))
        approx = approx[~done]
    if approx.size:
        k = min(mix_k, top.shape[1])
        cc = _lattice_unit(top[approx], amin[approx])
        tt = np.maximum(t[approx] - cc, 0.0)
        pa = _mixture_pvalues(tt, top[approx, :k], s2[approx], s4[approx])
        floor = np.exp2(1.0 - n[approx].astype(np.float64))
        p[approx] = np.clip(pa, floor, 1.0)
    return np.where(np.isnan(s1), np.nan, p)


# --------------------------------------------------------------------------- #
# Multiple testing
# --------------------------------------------------------------------------- #
def _finite_sorted(p: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """An all-NaN output of ``p``'s shape, the positions of the finite p-values in ascending
    (stable) order, and those p-values: what every adjustment starts from."""
    p = np.asarray(p, dtype=np.float64)
    ok = np.flatnonzero(np.isfinite(p))
    order = ok[np.argsort(p[ok], kind="stable")]
    return np.full(p.shape, np.nan), order, p[order]


def holm(p: np.ndarray) -> np.ndarray:
    """Holm's step-down adjustment over the finite p-values (NaN stays NaN).

    >>> holm(np.array([0.01, 0.04, 0.03, np.nan, 0.005])).round(3).tolist()
    [0.03, 0.06, 0.06, nan, 0.02]
    """
    out, order, ps = _finite_sorted(p)
    m = ps.shape[0]
    out[order] = np.minimum(1.0, np.maximum.accumulate((m - np.arange(m)) * ps))
    return out


def benjamini_hochberg(p: np.ndarray) -> np.ndarray:
    """Benjamini-Hochberg step-up adjustment (false discovery rate) over the finite p-values:
    ``min_{j >= i} m p_(j) / j``, monotone in ``p``; NaN stays NaN.

    >>> benjamini_hochberg(np.array([0.01, 0.04, 0.03, np.nan, 0.005])).round(4).tolist()
    [0.02, 0.04, 0.04, nan, 0.02]
    """
    out, order, ps = _finite_sorted(p)
    m = ps.shape[0]
    scaled = m * ps / np.arange(1, m + 1)
    out[order] = np.minimum(1.0, np.minimum.accumulate(scaled[::-1])[::-1])
    return out


def adjust_pvalues(
    p: np.ndarray, method: str = "holm", family: Sequence[Any] | np.ndarray | None = None
) -> np.ndarray:
    """Adjust p-values for multiple testing within each family.

    Parameters
    ----------
    p : array of float
        Raw p-values (NaN: no test; left out of the family, stays NaN).
    method : {"holm", "bh", "none"}
        Holm's step-down (family-wise error), Benjamini-Hochberg's step-up (false discovery
        rate), or no adjustment.
    family : array, optional
        A label per p-value; each distinct label is one family (for example the metric of
        each row). Omitted: one family of every p-value.

    Returns
    -------
    ndarray
        Adjusted p-values, in the order of ``p``.

    Examples
    --------
    >>> p = np.array([0.01, 0.02, 0.03, 0.04])
    >>> adjust_pvalues(p, "holm").round(2).tolist()
    [0.04, 0.06, 0.06, 0.06]
    >>> adjust_pvalues(p, "holm", family=["gauc", "gauc", "mrr", "mrr"]).round(2).tolist()
    [0.02, 0.02, 0.06, 0.06]
    >>> adjust_pvalues(p, "bh").round(2).tolist()
    [0.04, 0.04, 0.04, 0.04]
    """
    check_option(method, "adjust", "adjust_pvalues", ADJUSTMENTS)
    p = np.asarray(p, dtype=np.float64)
    if method == "none":
        return p.copy()
    fn = holm if method == "holm" else benjamini_hochberg
    if family is None:
        return fn(p)
    labels = np.asarray(family, dtype=object)
    if labels.shape != p.shape:
        raise ValueError(f"adjust_pvalues: {labels.shape[0]} family labels for {p.shape[0]} p-values")
    out = np.full(p.shape, np.nan)
    _, codes = np.unique(labels.astype(str), return_inverse=True)
    for c in np.unique(codes):  # families (metrics), never groups
        sel = codes.reshape(-1) == c
        out[sel] = fn(p[sel])
    return out
