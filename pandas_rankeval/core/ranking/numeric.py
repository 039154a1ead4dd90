"""Numeric helpers of the ranking stages: exact small tables, run starts, per-group prefix sums.

Shared by the score sort (:mod:`.score_sort`), the tie blocks (:mod:`.ranking`), the per-group
kernels (:mod:`.kernels`) and the group table (:mod:`.skip`); they depend on numpy only.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

__all__ = [
    "CHUNK_ROWS", "bit_width", "cumulative_discount", "cumsum_into", "exclusive_within", "flip_negative_floats", "harmonic",
    "log_factorial", "or_positions", "rows_of_runs", "run_of_rows", "starts_of_runs",
]

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


def starts_of_runs(change: np.ndarray) -> np.ndarray:
    """Start positions of runs given ``change[i] = a[i+1] != a[i]``."""
    starts = np.flatnonzero(change)
    starts += 1
    return np.concatenate(([0], starts))


def run_of_rows(sizes: np.ndarray, dtype: Any = np.int64) -> np.ndarray:
    """Each row's run, for runs of ``sizes`` rows (each at least 1) laid out one after the other:
    ``np.repeat(np.arange(len(sizes)), sizes)``, made by a cumulative sum of the runs' starts
    (``np.repeat`` holds the GIL: threads running it wait for each other).

    >>> run_of_rows(np.array([2, 1, 3])).tolist()
    [0, 0, 1, 2, 2, 2]
    """
    total = int(sizes.sum())
    out = np.zeros(total, dtype=dtype)
    if sizes.shape[0] > 1:
        out[np.cumsum(sizes[:-1])] = 1
    np.cumsum(out, out=out)
    return out


def rows_of_runs(sizes: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """Whether each row lies in a kept run, for runs of ``sizes`` rows laid out one after the
    other (each kept run at least 1 row): ``np.repeat(keep, sizes)``, made by toggling at the kept
    runs' edges (an exclusive-or accumulated: no GIL held, unlike ``np.repeat``).

    >>> rows_of_runs(np.array([2, 1, 3]), np.array([True, False, True])).tolist()
    [True, True, False, True, True, True]
    """
    ends = np.cumsum(sizes)
    edge = np.zeros(int(ends[-1]) + 1 if ends.shape[0] else 1, dtype=bool)
    edge[(ends - sizes)[keep]] = True  # kept runs' first rows (distinct)
    edge[ends[keep]] ^= True  # and the rows after them (distinct; a kept run may start there: no toggle)
    return np.logical_xor.accumulate(edge[:-1])


def exclusive_within(x: np.ndarray, gfirst: np.ndarray, nblocks: np.ndarray) -> np.ndarray:
    """Exclusive cumulative sum of a per-block array, restarted at every group."""
    c = np.cumsum(x)
    c -= x
    return c - np.repeat(c[gfirst], nblocks)



def bit_width(x: int) -> int:
    return max(int(x).bit_length(), 1)


#: Rows per chunk of the in-place helpers below: their temporaries stay this small.
CHUNK_ROWS = 1 << 16


def or_positions(a: np.ndarray) -> None:
    """``a |= arange(len(a))`` in place, chunk by chunk: no temporary as long as ``a``."""
    n = a.shape[0]
    for lo in range(0, n, CHUNK_ROWS):
        hi = min(lo + CHUNK_ROWS, n)
        a[lo:hi] |= np.arange(lo, hi, dtype=a.dtype)


def cumsum_into(flags: np.ndarray, out: np.ndarray) -> None:
    """``np.cumsum(flags, out=out)`` chunk by chunk: numpy casts a whole bool input to the output's
    dtype first (a temporary of 8 bytes a row for int64); integers, so the sums are the same."""
    carry = 0
    for lo in range(0, flags.shape[0], CHUNK_ROWS):
        hi = min(lo + CHUNK_ROWS, flags.shape[0])
        part = out[lo:hi]
        np.cumsum(flags[lo:hi], out=part)
        if carry:
            part += carry
        carry = int(part[-1])


def flip_negative_floats(bits: np.ndarray) -> None:
    """The integer view of floats, in place: every bit but the sign flipped where the sign is set
    (negative floats then order as integers), chunk by chunk."""
    low = np.iinfo(bits.dtype).max
    top = 8 * bits.dtype.itemsize - 1
    for lo in range(0, bits.shape[0], CHUNK_ROWS):
        b = bits[lo : lo + CHUNK_ROWS]
        flip = b >> top  # -1 for negative floats, 0 otherwise
        flip &= low
        b ^= flip
