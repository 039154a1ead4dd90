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

import math
from fractions import Fraction
from math import gcd, lcm

import numpy as np
from scipy import special

__all__ = [
    "HIST_K",
    "LATTICE_MAX",
    "hist_key",
    "hist_total",
    "lattice_multiples",
    "lattice_tail",
    "lattice_tail_windowed",
    "merge_hist",
    "rational_lattice",
    "signflip_hist",
]

#: Distinct |a_g| kept per (segment, pair); more: the histogram overflows (no lattice path).
HIST_K = 64
#: Largest FFT window (lattice points) of the exact lattice distribution; larger: the approximation.
LATTICE_MAX = 1 << 17
#: The window spans this many (untilted) standard deviations of T' in lattice units.
WINDOW_SD = 40.0
#: |v - m q| <= LATTICE_TOL * v for every distinct value: on the lattice (float rounding).
LATTICE_TOL = 1e-11
#: Denominators of the rational fit of ``v / v_min`` (:func:`rational_lattice`).
LATTICE_DEN = 10_000
#: Windows of :func:`lattice_tail_windowed`: this many standard deviations each side (widened
#: until the Hoeffding bound on what they leave out is below :data:`WINDOW_REL` of the tail).
WINDOW_K = 8.5
#: Relative accuracy of :func:`lattice_tail_windowed`.
WINDOW_REL = 1e-12
#: Significant digits of the histogram's key: |a_g| equal up to float noise (1/3 against
#: 1/2 - 1/6) count as one value; far below LATTICE_TOL, so the lattice fit is unchanged.
KEY_DIGITS = 12
#: Relative tolerance of the rational fit: two keys' rounding (each within 5e-12 relative).
FIT_TOL = 1.1 * 10.0 ** (1 - KEY_DIGITS)


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


def _tilt(mf: np.ndarray, cf: np.ndarray, target: float) -> float:
    """The tilt ``theta`` putting the tilted mean ``sum c m sigmoid(theta m)`` at ``target``
    (Newton from the left on an increasing concave function converges monotonically)."""
    theta = 0.0
    for _ in range(200):
        p = special.expit(theta * mf)
        mean = float((cf * mf * p).sum())
        var = float((cf * mf * mf * p * (1.0 - p)).sum())
        if target - mean <= 0.05 * np.sqrt(max(var, 1e-300)) or var <= 0:
            break
        theta += (target - mean) / var
    return theta


def _tilted_folded(m: np.ndarray, cf: np.ndarray, x: np.ndarray, n_fft: int) -> np.ndarray:
    """The tilted law of ``sum_v m_v B_v`` (``P(B_v = 1) = sigmoid(x_v)``) folded modulo
    ``n_fft``: entry ``j`` is the tilted mass of ``{k = j mod n_fft}``, by one inverse FFT."""
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
    return np.maximum(np.fft.irfft(spec, n=n_fft), 0.0)


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
    theta = _tilt(mf, cf, min(float(k0), big_m - 0.5))  # capped below M
    x = theta * mf
    tilted = _tilted_folded(m, cf, x, n_fft)
    # back from the tilted law: p_k = tilted_k exp(K(theta) - theta k), K the cumulant function
    cgf = float((cf * (np.logaddexp(0.0, x) - np.log(2.0))).sum())
    last = big_m if n_fft > big_m else min(big_m, k0 + n_fft // 2 - 1)  # whole support, or the window
    ks = np.arange(k0, last + 1, dtype=np.int64)
    w = tilted[ks % n_fft] * np.exp(cgf - theta * ks.astype(np.float64))
    return float(min(w.sum(), 1.0))


# --------------------------------------------------------------------------- #
# Fine lattices: the rational fit of the unit, the windowed split tail
# --------------------------------------------------------------------------- #
def rational_lattice(values: np.ndarray, max_den: int = LATTICE_DEN) -> tuple[np.ndarray, float] | None:
    """The integer multiples ``m`` and the unit ``q`` of distinct positive ``values`` from a
    rational fit of each ``v / v_min`` (denominator at most ``max_den``), or None.

    The unit is ``v_min / lcm(denominators)`` (the largest unit of which every value is a
    multiple); accepted when every ratio is within :data:`FIT_TOL` of its fraction (the keys'
    12-digit rounding) and every value within :data:`FIT_TOL` of ``m q`` (``q`` refitted by least
    squares), the multiples at most ``2^40``. A Python loop over the distinct values (at most
    :data:`HIST_K`), never over groups.

    >>> m, q = rational_lattice(np.array([1 / 3 - 1 / 7, 1 / 2 - 1 / 15, 1 / 13]))  # MRR-like
    >>> m.tolist(), round(1 / q)
    ([520, 1183, 210], 2730)
    >>> rational_lattice(np.array([1.0, 2.0**0.5])) is None  # no common unit
    True
    """
    v = np.asarray(values, dtype=np.float64)
    if not v.shape[0] or not (v > 0).all():
        return None
    vmin = float(v.min())
    fr = []
    den = 1
    for x in (v / vmin).tolist():
        f = Fraction(x).limit_denominator(max_den)
        if abs(x - f.numerator / f.denominator) > FIT_TOL * x:
            return None
        fr.append(f)
        den = lcm(den, f.denominator)
        if den > 2**40:
            return None
    big = [f * den for f in fr]  # exact integers: den is a multiple of every denominator
    if max(big) > 2**40:
        return None
    m = np.array([int(b) for b in big], dtype=np.int64)
    mf = m.astype(np.float64)
    q = float((v * mf).sum() / (mf * mf).sum())
    if (np.abs(v - mf * q) > FIT_TOL * v).any():
        return None
    return m, q


def _window(big_m: int, sd: float, k_sd: float) -> int:
    """FFT points for a part of support ``[0, big_m]``: the whole support when it is the smaller,
    else ``+-k_sd`` standard deviations (a power of two, at least 16)."""
    need = min(big_m + 1, 2 * math.ceil(k_sd * sd + 1.0))
    return 1 << max(4, (need - 1).bit_length())


def _split(m: np.ndarray, c: np.ndarray, k_sd: float) -> tuple[int, np.ndarray, int, int]:
    """The split of the distinct values into a coarse part (the multiples of ``r``) and the rest
    (their own unit ``g``) of least FFT work: ``(r, coarse mask, g, largest window)``.
    Candidates: ``r`` the gcd of the values of most variance ``c m^2`` (1: no split)."""
    order = np.argsort(-(c * m.astype(np.float64) ** 2), kind="stable").tolist()
    best: tuple[float, int, np.ndarray, int, int] | None = None
    r = 0
    seen = set()
    for i in order:
        r = gcd(r, int(m[i]))
        if r in seen:
            continue
        seen.add(r)
        coarse = m % r == 0
        g = int(np.gcd.reduce(m[~coarse])) if (~coarse).any() else 1
        cost, widest = 0.0, 1
        for part, unit in ((coarse, r), (~coarse, g)):
            if part.any():
                mp = m[part] // unit
                sd = 0.5 * float(np.sqrt((c[part] * mp.astype(np.float64) ** 2).sum()))
                n_fft = _window(int((mp * c[part]).sum()), sd, k_sd)
                cost += n_fft * float(part.sum())
                widest = max(widest, n_fft)
        if best is None or cost < best[0]:
            best = (cost, r, coarse, g, widest)
    assert best is not None
    return best[1], best[2], best[3], best[4]


def _part(m: np.ndarray, c: np.ndarray, unit: int, theta: float, k_sd: float) -> tuple[np.ndarray, int, float]:
    """One part of the split in its own unit: the tilted masses on a window of consecutive
    lattice points (log scale), the window's first point, and the Hoeffding bound on the tilted
    mass outside it (0 when it holds the whole support)."""
    mp = m // unit
    mf, cf = mp.astype(np.float64), c.astype(np.float64)
    big_m = int((mp * c).sum())
    sd = 0.5 * float(np.sqrt((cf * mf * mf).sum()))
    n_fft = _window(big_m, sd, k_sd)
    x = theta * unit * mf
    folded = _tilted_folded(mp, cf, x, n_fft)
    if n_fft > big_m:
        lo, bound = 0, 0.0
    else:
        centre = int(np.rint((cf * mf * special.expit(x)).sum()))
        lo = centre - n_fft // 2
        bound = 2.0 * float(np.exp(-((n_fft // 2 - 0.5) ** 2) / (2.0 * sd * sd)))
    with np.errstate(divide="ignore"):
        logp = np.log(folded[(lo + np.arange(n_fft)) % n_fft])
    return logp, lo, bound


def lattice_tail_windowed(
    m: np.ndarray, c: np.ndarray, k0: int, max_window: int = LATTICE_MAX, rel: float = WINDOW_REL,
) -> float:
    """``P(T' >= k0)`` as :func:`lattice_tail`, for lattices too fine for one window: the values
    split into a coarse part ``C`` (the multiples of ``r``, in units of ``r``) and the rest ``F``
    (in units of their own gcd), each tilted law on a window of :data:`WINDOW_K` standard
    deviations, combined as ``sum_f P(F = f) P(C >= k0 - f)``. The result is within ``rel``
    (relative) of the exact tail, a bound checked after the fact from Hoeffding's inequality
    (windows widened when it fails); NaN when a window would exceed ``max_window`` points.

    >>> from scipy import stats
    >>> m, c = np.array([2, 3]), np.array([40, 7])  # T' = 2 B1 + 3 B2
    >>> ref = sum(stats.binom.pmf(j, 7, 0.5) * stats.binom.sf((30 - 3 * j + 1) // 2 - 1, 40, 0.5)
    ...           for j in range(8))
    >>> bool(abs(lattice_tail_windowed(m, c, 30) / ref - 1) < 1e-12)
    True
    """
    m = np.asarray(m, dtype=np.int64)
    c = np.asarray(c, dtype=np.int64)
    big_m = int((m * c).sum())
    if k0 <= 0:
        return 1.0
    if k0 > big_m:
        return 0.0
    mf, cf = m.astype(np.float64), c.astype(np.float64)
    theta = _tilt(mf, cf, min(float(k0), big_m - 0.5))
    cgf = float((cf * (np.logaddexp(0.0, theta * mf) - np.log(2.0))).sum())
    k_sd = WINDOW_K
    while True:
        r, coarse, g, widest = _split(m, c, k_sd)
        if widest > max_window:
            return float("nan")
        logc, lo_c, b_c = _part(m[coarse], c[coarse], r, theta, k_sd)
        if (~coarse).any():
            logf, lo_f, b_f = _part(m[~coarse], c[~coarse], g, theta, k_sd)
        else:
            logf, lo_f, b_f = np.zeros(1), 0, 0.0
        # S*(j) = sum_{i >= j} P~(C = i) e^{-theta r (i - j)} on C's window (log scale)
        step = theta * r
        idx = np.arange(logc.shape[0], dtype=np.float64)
        acc = np.logaddexp.accumulate((logc - step * idx)[::-1])[::-1] + step * idx
        f = g * (lo_f + np.arange(logf.shape[0], dtype=np.int64))  # F's points, in units of T'
        j = -((f - k0) // r)  # the least C point (units of r) with r j + f >= k0
        jc = np.clip(j, lo_c, None)
        inside = jc < lo_c + logc.shape[0]
        expo = logf - theta * (f + r * jc - k0).astype(np.float64)
        terms = np.exp(expo[inside] + acc[jc[inside] - lo_c])
        tilted = float(terms.sum())  # E~[e^{-theta (T' - k0)}; T' >= k0]
        if b_c + b_f <= rel * max(tilted - b_c - b_f, 0.0):
            return float(min(np.exp(cgf - theta * k0) * tilted, 1.0))
        k_sd *= 1.5
