"""Numeric helpers of the ranking stages: exact small tables, run starts, per-group prefix sums.

Shared by the score sort (:mod:`.score_sort`), the tie blocks (:mod:`.ranking`), the per-group
kernels (:mod:`.kernels`) and the group table (:mod:`.skip`); they depend on numpy only.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["cumulative_discount", "harmonic", "log_factorial"]

_SMALL = 256
_LOG_FACT_SMALL = np.array([math.lgamma(i + 1.0) for i in range(_SMALL)])
_HARM_SMALL = np.concatenate([[0.0], np.cumsum(1.0 / np.arange(1, _SMALL))])


def log_factorial(x: np.ndarray) -> np.ndarray:
    """log(x!) for non-negative integer arrays: exact table below 256, Stirling above.

    Above 256 the Stirling series to x^-5 is accurate to about 1e-16 relative;
    differences of large values lose about eps * x * log(x) absolute, which is the
    floor of any log-space binomial ratio.
    """
    x = np.asarray(x, dtype=np.int64)
    out = np.empty(x.shape, dtype=np.float64)
    small = x < _SMALL
    out[small] = _LOG_FACT_SMALL[x[small]]
    if not small.all():
        z = x[~small].astype(np.float64) + 1.0
        zi = 1.0 / z
        zi2 = zi * zi
        out[~small] = (
            (z - 0.5) * np.log(z)
            - z
            + 0.5 * math.log(2.0 * math.pi)
            + zi * (1.0 / 12.0 - zi2 * (1.0 / 360.0 - zi2 / 1260.0))
        )
    return out


def harmonic(x: np.ndarray) -> np.ndarray:
    """Harmonic numbers H(x) = sum_{i=1..x} 1/i for non-negative integer arrays."""
    x = np.asarray(x, dtype=np.int64)
    out = np.empty(x.shape, dtype=np.float64)
    small = x < _SMALL
    out[small] = _HARM_SMALL[x[small]]
    if not small.all():
        z = x[~small].astype(np.float64)
        zi2 = 1.0 / (z * z)
        out[~small] = (
            np.log(z)
            + np.euler_gamma
            + 0.5 / z
            - zi2 * (1.0 / 12.0 - zi2 * (1.0 / 120.0 - zi2 / 252.0))
        )
    return out


def cumulative_discount(upto: int) -> np.ndarray:
    """D[i] = sum_{j=1..i} 1 / log2(j + 1), for i = 0..upto."""
    d = np.zeros(upto + 1, dtype=np.float64)
    if upto:
        d[1:] = np.cumsum(1.0 / np.log2(np.arange(2, upto + 2, dtype=np.float64)))
    return d


def _starts_of_runs(change: np.ndarray) -> np.ndarray:
    """Start positions of runs given ``change[i] = a[i+1] != a[i]``."""
    starts = np.flatnonzero(change)
    starts += 1
    return np.concatenate(([0], starts))


def _exclusive_within(x: np.ndarray, gfirst: np.ndarray, nblocks: np.ndarray) -> np.ndarray:
    """Exclusive cumulative sum of a per-block array, restarted at every group."""
    c = np.cumsum(x)
    c -= x
    return c - np.repeat(c[gfirst], nblocks)



def _bits(x: int) -> int:
    return max(int(x).bit_length(), 1)
