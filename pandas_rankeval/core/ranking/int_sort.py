"""Sorting int64 keys by value, in place: numpy's sort, or polars' when asked for.

Every sort of the ranking stages is a sort of int64 keys by value (a group, a rank, a label level
and a row position packed into one integer): a sorted array of integers is the same whichever
correct algorithm sorts it, so the keys may come from any sort, to the last bit.

numpy 2.4 sorts 64-bit values with an AVX-512 kernel (x86-simd-sort) wherever the CPU has
AVX-512, and reads that choice once, when it is imported. On AMD Zen 4 (CPU family 25) the
kernel's compress-to-memory instruction is microcoded, and it is several times slower than
numpy's AVX2 kernel: 1e6 random int64 in 66 ms against 14 ms on this project's machine. The best
remedy is numpy's own switch, set before numpy is imported (``NPY_DISABLE_CPU_FEATURES="AVX512_ICL
X86_V4"``). Where that cannot be done, ``PANDAS_RANKEVAL_SORT=polars`` (read at the first sort of
the process) has keys of at least :data:`POLARS_FROM` values sorted by polars on the calling thread
(``multithreaded=False``: a call's thread count stays the library's own; 24 ms for the keys
above) and copied back: faster there, at the cost of polars' own buffers (its allocator keeps
them a while: the peak resident memory of one call grows). Unset or ``numpy``: numpy sorts.
"""

from __future__ import annotations

import functools
import os
from typing import Any

import numpy as np
from numpy.typing import DTypeLike

from .numeric import or_positions

__all__ = ["POLARS_FROM", "pack_and_sort", "polars_sorts", "sort_backend", "sort_values"]

#: Keys shorter than this are sorted by numpy (a polars Series costs tens of microseconds).
POLARS_FROM = 1 << 15
_ENV = "PANDAS_RANKEVAL_SORT"


@functools.cache
def sort_backend() -> str:
    """``"polars"`` or ``"numpy"``: who sorts long int64 keys in this process (decided once, from
    ``PANDAS_RANKEVAL_SORT``).

    >>> from pandas_rankeval.core.ranking.int_sort import sort_backend
    >>> sort_backend() in ("numpy", "polars")
    True
    """
    asked = os.environ.get(_ENV, "").strip().lower()
    if asked not in ("", "numpy", "polars"):
        raise ValueError(f"{_ENV} must be 'numpy' or 'polars' (or unset: numpy); got {asked!r}.")
    if asked != "polars":
        return "numpy"
    try:
        import polars  # noqa: F401
    except ImportError:
        raise ImportError(f"{_ENV}=polars needs polars: pip install 'pandas_rankeval[polars]'") from None
    return "polars"


def polars_sorts(n: int) -> bool:
    """Whether polars sorts ``n`` int64 keys in this process (the one rule of :func:`sort_values`
    and :func:`.sorting.sortable`). The backend is asked first: the first sort of a process
    imports polars when it is the backend, however short the keys."""
    return sort_backend() == "polars" and n >= POLARS_FROM


def _polars_sort(a: np.ndarray) -> None:
    import polars as pl

    out: Any = pl.Series(values=a).sort(multithreaded=False).to_numpy()
    a[...] = out


def sort_values(a: np.ndarray) -> None:
    """Sort a one-dimensional array in place by value: the same result as ``a.sort()``, to the
    last bit (long int64 arrays by polars when :func:`sort_backend` says so).

    >>> import numpy as np
    >>> from pandas_rankeval.core.ranking.int_sort import sort_values
    >>> a = np.array([3, -1, 2], dtype=np.int64)
    >>> sort_values(a)
    >>> a.tolist()
    [-1, 2, 3]
    """
    if polars_sorts(a.shape[0]) and a.dtype == np.int64:
        _polars_sort(a)
    else:
        a.sort()


def pack_and_sort(key: np.ndarray, ibits: int, *, positions: DTypeLike = np.int64, shifted: bool = False,
                  rows: np.ndarray | None = None, packed: bool = False, out: np.ndarray | None = None) -> np.ndarray:
    """Sort rows by a packed int64 key with one sort by value (no argsort), and say where each went.

    ``key`` holds one int64 a row, the fields to sort by packed into its high bits and below
    ``2**(63 - ibits)``; each row's position is put in the ``ibits`` low bits (``ibits`` at least
    ``bit_width(len(key) - 1)``; ``shifted``: the key is shifted left by ``ibits`` already; ``rows``:
    the positions to put there, ascending and below ``2**ibits``, instead of ``0 .. len(key) - 1``;
    ``packed``: the positions are there already), the keys are sorted in place
    (:func:`sort_values`), and the positions taken back out. Returns the positions of the sorted
    rows (as ``positions``, a dtype that holds them) and leaves ``key`` holding the sorted fields
    (the positions shifted out); ``out``, an array of ``len(key)`` integers, receives the positions
    instead of a new array. Equal fields keep their rows in
    ascending position: every key is distinct, so any correct sort gives the same order.

    >>> key = np.array([2, 0, 2, 1], dtype=np.int64)
    >>> pack_and_sort(key, 2).tolist(), key.tolist()
    ([1, 3, 0, 2], [0, 1, 2, 2])
    """
    if not packed:
        if not shifted:
            key <<= ibits
        if rows is None:
            or_positions(key)
        else:
            key |= rows
    sort_values(key)
    if out is None:
        out = np.empty(key.shape[0], dtype=positions)
    np.bitwise_and(key, (1 << ibits) - 1, out=out, casting="unsafe")
    key >>= ibits
    return out
