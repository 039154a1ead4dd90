"""The exact sign-flip distribution of terms on a lattice, from a mergeable histogram of ``|a_g|``.

Under the sign-flip null ``T = sum_g s_g a_g`` with fair independent signs; grouping the terms
by their distinct sizes ``v`` (``c`` groups each), ``T = sum_v v (2 B_v - c)`` with
``B_v ~ Binomial(c, 1/2)`` independent. Discrete metrics (hit rate ``{0, 1}``, recall@3 in thirds,
MRR on short lists, with equal or integer weights) have few distinct ``|a_g|``, all multiples
``m_v q`` of a common unit ``q``: then ``T = q (2 T' - M)`` with ``T' = sum_v m_v B_v`` an integer
in ``[0, M]``, ``M = sum_v c_v m_v``, and its law is a convolution of a few strided binomials,
computed here exactly up to float rounding (the two-sided p-value is ``2 P(T' >= k0)``, ``k0``
the observed ``T'``, ties included).

The convolution is one inverse FFT of the characteristic function, ``prod_v (q_v + p_v
e^{-i w m_v})^{c_v}``, *exponentially tilted* (``p_v = sigmoid(theta m_v)``, ``theta`` putting the
tilted mean at ``k0``) so that the tail far from the centre is read where the tilted law has its
mass: the p-value keeps its relative accuracy down to ``1e-300``, and the FFT needs only a window
of :data:`WINDOW_SD` tilted standard deviations around ``k0`` (wrap-around beyond it is below
``e^-200`` by Hoeffding), at most :data:`LATTICE_MAX` points. Without a lattice, or with a window
too large, the caller keeps its approximation.

The summary keeps, per (segment, pair), the distinct ``|a_g|`` and their counts
(:func:`signflip_hist`), at most :data:`HIST_K` of them; a part with more is *overflowed* (first
count ``-1``) and so is everything merged with it. Each ``|a_g|`` is keyed to 12 significant
digits (:func:`hist_key`, a function of the value alone, so float noise such as ``1/3`` against
``1/2 - 1/6`` cannot split one value in two); merging is the union of the keys, compared exactly,
with their counts added (:func:`merge_hist`), so the merged histogram is the same whatever the
partitioning and merge order: with at most :data:`HIST_K` distinct values in the whole table no part overflows
and the union is the table's histogram; with more, the union (or a part) overflows.

Pure numpy; imports nothing from the package.
"""

from __future__ import annotations

import numpy as np
from scipy import special

__all__ = ["HIST_K", "LATTICE_MAX", "hist_key", "hist_total", "lattice_multiples", "lattice_tail", "merge_hist", "signflip_hist"]

#: Distinct |a_g| kept per (segment, pair); more: the histogram overflows (no lattice path).
HIST_K = 64
#: Largest FFT window (lattice points) of the exact lattice distribution; larger: the approximation.
LATTICE_MAX = 1 << 20
#: The window spans this many (untilted) standard deviations of T' in lattice units.
WINDOW_SD = 40.0
#: |v - m q| <= LATTICE_TOL * v for every distinct value: on the lattice (float rounding).
LATTICE_TOL = 1e-11
#: Significant digits of the histogram's key: |a_g| equal up to float noise (1/3 against
#: 1/2 - 1/6) count as one value; far below LATTICE_TOL, so the lattice fit is unchanged.
KEY_DIGITS = 12


# --------------------------------------------------------------------------- #
# The histogram: per partition, merged, totalled
# --------------------------------------------------------------------------- #
def _overflowed(shape: tuple[int, ...], h: int) -> np.ndarray:
    out = np.zeros((*shape, 2, h))
    out[..., 1, 0] = -1.0
    return out


def hist_key(absa: np.ndarray) -> np.ndarray:
    """``|a_g|`` (positive) rounded to :data:`KEY_DIGITS` significant digits: the histogram's
    key, a function of each value alone (so the same in every partition and engine) that merges
    values split by float noise.

    >>> v = np.array([1 / 3, 1 / 2 - 1 / 6, 1 - 1e-16 * 3, 0.25])
    >>> np.unique(v).size, np.unique(hist_key(v)).tolist()
    (4, [0.25, 0.333333333333, 1.0])
    """
    absa = np.asarray(absa, dtype=np.float64)
    scale = 10.0 ** (KEY_DIGITS - 1 - np.floor(np.log10(absa)))
    return np.rint(absa * scale) / scale


def signflip_hist(absa: np.ndarray, seg: np.ndarray, n_seg: int, h: int = HIST_K) -> np.ndarray:
    """The distinct nonzero ``|a_g|`` of one test per segment and their counts.

    Values are keyed by :func:`hist_key` (12 significant digits). Returns an array
    (n_seg, 2, h): ``[..., 0, :]`` the distinct values ascending then 0,
    ``[..., 1, :]`` their counts (exact integers as float) then 0; a segment with more than ``h``
    distinct values is overflowed: zeros with count ``-1`` first.

    >>> signflip_hist(np.array([0.5, 1.0, 0.5, 0.0]), np.zeros(4, dtype=int), 1, 3)[0].tolist()
    [[0.5, 1.0, 0.0], [2.0, 1.0, 0.0]]
    """
    absa = np.asarray(absa, dtype=np.float64)
    nz = absa > 0
    vals, sg = hist_key(absa[nz]), np.asarray(seg, dtype=np.int64)[nz]
    out = np.zeros((n_seg, 2, h))
    if not vals.shape[0]:
        return out
    order = np.lexsort((vals, sg))
    v, g = vals[order], sg[order]
    start = np.r_[True, (v[1:] != v[:-1]) | (g[1:] != g[:-1])]
    run = np.cumsum(start) - 1
    run_v, run_g = v[start], g[start]
    run_c = np.bincount(run).astype(np.float64)
    rank = np.arange(run_v.shape[0]) - np.searchsorted(run_g, np.arange(n_seg))[run_g]
    keep = rank < h
    out[run_g[keep], 0, rank[keep]] = run_v[keep]
    out[run_g[keep], 1, rank[keep]] = run_c[keep]
    over = np.bincount(run_g, minlength=n_seg) > h
    out[over] = _overflowed((), h)
    return out


def _union(v: np.ndarray, c: np.ndarray, h: int) -> np.ndarray:
    """Histograms given as values ``v`` and counts ``c`` (..., L) (count 0: empty, any count
    < 0: overflowed) -> their union (..., 2, h): equal values' counts added."""
    lead = v.shape[:-1]
    v = v.reshape(-1, v.shape[-1])
    c = c.reshape(-1, c.shape[-1])
    rows = v.shape[0]
    key = np.where(c > 0, v, np.inf)  # empty slots sort last
    order = np.argsort(key, axis=-1, kind="stable")
    vs = np.take_along_axis(key, order, axis=-1)
    cs = np.take_along_axis(c, order, axis=-1)
    valid = np.isfinite(vs)
    start = np.ones(vs.shape, dtype=bool)
    start[:, 1:] = vs[:, 1:] != vs[:, :-1]
    run = np.cumsum(start, axis=-1) - 1
    distinct = np.where(valid, run + 1, 0).max(axis=-1, initial=0)
    out = np.zeros((rows, 2, h))
    ok = valid & (run < h)
    r_idx = np.broadcast_to(np.arange(rows)[:, None], vs.shape)
    out[r_idx[ok], 0, run[ok]] = vs[ok]
    np.add.at(out[:, 1, :], (r_idx[ok], run[ok]), cs[ok])
    over = (distinct > h) | (c < 0).any(axis=-1)
    out[over] = _overflowed((), h)
    return out.reshape(*lead, 2, h)


def merge_hist(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Two histograms (..., 2, h) merged: the union of the values, counts added; overflowed
    when either is or when the union has more than ``h`` values. Commutative, associative.

    >>> a = np.array([[0.5, 1.0, 0.0], [2.0, 1.0, 0.0]])
    >>> b = np.array([[1.0, 2.0, 0.0], [4.0, 1.0, 0.0]])
    >>> merge_hist(a, b).tolist()
    [[0.5, 1.0, 2.0], [2.0, 5.0, 1.0]]
    >>> merge_hist(a, np.array([[0.25, 3.0, 0.0], [1.0, 1.0, 0.0]]))[1, 0]  # 4 values: overflowed
    np.float64(-1.0)
    """
    h = a.shape[-1]
    return _union(np.concatenate([a[..., 0, :], b[..., 0, :]], axis=-1),
                  np.concatenate([a[..., 1, :], b[..., 1, :]], axis=-1), h)


def hist_total(v: np.ndarray) -> np.ndarray:
    """Stacked histograms (segments, ..., 2, h) merged over the segments (the whole table)."""
    h = v.shape[-1]
    pooled = np.moveaxis(v, 0, -2)  # (..., 2, segments, h)
    flat = pooled.reshape(*pooled.shape[:-2], pooled.shape[-2] * h)
    return _union(flat[..., 0, :], flat[..., 1, :], h)


# --------------------------------------------------------------------------- #
# The exact lattice distribution
# --------------------------------------------------------------------------- #
def lattice_multiples(values: np.ndarray, unit: float) -> tuple[np.ndarray, float] | None:
    """The integer multiples ``m`` of ``values`` on the lattice ``q Z`` near ``unit`` (``q``
    refitted by least squares), or None when some value is off it by more than
    :data:`LATTICE_TOL` relative."""
    if not unit > 0:
        return None
    m = np.rint(values / unit)
    if (m < 1).any() or m.max() > 2.0**40:
        return None
    q = float((values * m).sum() / (m * m).sum())
    if (np.abs(values - m * q) > LATTICE_TOL * values).any():
        return None
    return m.astype(np.int64), q


def lattice_tail(m: np.ndarray, c: np.ndarray, k0: int, max_window: int = LATTICE_MAX) -> float:
    """``P(T' >= k0)`` for ``T' = sum_v m_v B_v``, ``B_v ~ Binomial(c_v, 1/2)``, exactly up to
    float rounding, or NaN when the window would exceed ``max_window`` points.

    >>> round(lattice_tail(np.array([1]), np.array([10]), 8), 12)  # binomial: (45 + 10 + 1) / 1024
    0.0546875
    >>> round(lattice_tail(np.array([1, 2]), np.array([1, 1]), 3), 12)  # 0, 1, 2, 3 equally likely
    0.25
    """
    m = np.asarray(m, dtype=np.int64)
    cf = np.asarray(c, dtype=np.float64)
    big_m = int((m * np.asarray(c, dtype=np.int64)).sum())
    if k0 <= 0:
        return 1.0
    if k0 > big_m:
        return 0.0
    mf = m.astype(np.float64)
    sd = 0.5 * float(np.sqrt((cf * mf * mf).sum()))
    need = big_m + 1 if big_m + 1 <= WINDOW_SD * sd else int(np.ceil(WINDOW_SD * sd))
    n_fft = 1 << max(4, int(np.ceil(np.log2(max(need, 2)))))
    if n_fft > max_window:
        return float("nan")
    # the tilt: tilted mean sum c m sigmoid(theta m) at k0 (capped below M; Newton from the
    # left on an increasing concave function converges monotonically)
    target = min(float(k0), big_m - 0.5)
    theta = 0.0
    for _ in range(200):
        p = special.expit(theta * mf)
        mean = float((cf * mf * p).sum())
        var = float((cf * mf * mf * p * (1.0 - p)).sum())
        if target - mean <= 0.05 * np.sqrt(max(var, 1e-300)) or var <= 0:
            break
        theta += (target - mean) / var
    x = theta * mf
    p, q = special.expit(x), special.expit(-x)  # tilted P(B = 1), P(B = 0) per distinct value
    # characteristic function on the rfft frequencies, angles from a table (no large-argument cos)
    j = np.arange(n_fft // 2 + 1, dtype=np.int64)
    ang = 2.0 * np.pi * np.arange(n_fft) / n_fft
    cos_t, sin_t = np.cos(ang), np.sin(ang)
    logmag = np.zeros(j.shape[0])
    phase = np.zeros(j.shape[0])
    with np.errstate(divide="ignore"):
        for mv, cv, pv, qv in zip(m.tolist(), cf.tolist(), p.tolist(), q.tolist()):  # distinct values
            idx = (j * mv) % n_fft
            ca, sa = cos_t[idx], sin_t[idx]
            logmag += 0.5 * cv * np.log1p(np.maximum(-2.0 * pv * qv * (1.0 - ca), -1.0))
            phase += cv * np.arctan2(-pv * sa, qv + pv * ca)
    spec = np.exp(logmag) * (np.cos(phase) + 1j * np.sin(phase))
    tilted = np.maximum(np.fft.irfft(spec, n=n_fft), 0.0)
    # back from the tilted law: p_k = tilted_k exp(K(theta) - theta k), K the cumulant function
    cgf = float((cf * (np.logaddexp(0.0, x) - np.log(2.0))).sum())
    last = big_m if n_fft > big_m else min(big_m, k0 + n_fft // 2 - 1)  # whole support, or the window
    ks = np.arange(k0, last + 1, dtype=np.int64)
    w = tilted[ks % n_fft] * np.exp(cgf - theta * ks.astype(np.float64))
    return float(min(w.sum(), 1.0))
