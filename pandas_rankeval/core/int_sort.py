"""Sorting int64 keys by value, in place: numpy's sort, or polars' where numpy's is slow.

Every sort of the ranking stages is a sort of int64 keys by value (a group, a rank, a label level
and a row position packed into one integer): a sorted array of integers is the same whichever
correct algorithm sorts it, so the keys may come from any sort, to the last bit.

numpy 2.4 sorts 64-bit values with an AVX-512 kernel (x86-simd-sort) wherever the CPU has
AVX-512, and reads that choice once, when it is imported. On AMD Zen 4 (CPU family 25) the
kernel's compress-to-memory instruction is microcoded, and it is several times slower than
numpy's AVX2 kernel: 1e6 random int64 in 66 ms against 14 ms on this project's machine. There,
when polars is installed, keys of at least :data:`POLARS_FROM` values are sorted by polars on the
calling thread (``multithreaded=False``: the call's thread count stays the library's own; 24 ms
for the same keys) and copied back. Anywhere else numpy sorts. The environment variable
``PANDAS_RANKEVAL_SORT`` (``numpy`` or ``polars``), read once per process, overrides the choice.
"""

from __future__ import annotations

import functools
import os
from typing import Any

import numpy as np

__all__ = ["POLARS_FROM", "sort_backend", "sort_values"]

#: Keys shorter than this are sorted by numpy (a polars Series costs tens of microseconds).
POLARS_FROM = 1 << 15
_ENV = "PANDAS_RANKEVAL_SORT"


def _numpy_sorts_with_avx512_on_zen4() -> bool:
    """True on an AMD CPU of family 25 (Zen 3 / Zen 4; only Zen 4 has AVX-512) when numpy
    dispatches its 64-bit sorts to AVX-512 (``NPY_DISABLE_CPU_FEATURES`` can turn that off)."""
    try:
        from numpy._core._multiarray_umath import __cpu_features__ as features  # type: ignore[import-not-found]
    except ImportError:  # pragma: no cover - numpy < 2
        return False
    if not features.get("AVX512_SKX"):
        return False
    try:
        with open("/proc/cpuinfo") as f:
            head = f.read(4096)
    except OSError:  # pragma: no cover - not Linux
        return False
    fields = {k.strip(): v.strip() for k, _, v in (line.partition(":") for line in head.splitlines())}
    return fields.get("vendor_id") == "AuthenticAMD" and fields.get("cpu family") == "25"


@functools.cache
def sort_backend() -> str:
    """``"polars"`` or ``"numpy"``: who sorts long int64 keys in this process (decided once).

    >>> from pandas_rankeval.core.int_sort import sort_backend
    >>> sort_backend() in ("numpy", "polars")
    True
    """
    asked = os.environ.get(_ENV, "").strip().lower()
    if asked not in ("", "numpy", "polars"):
        raise ValueError(f"{_ENV} must be 'numpy' or 'polars' (or unset: the library chooses); got {asked!r}.")
    if asked == "numpy" or (not asked and not _numpy_sorts_with_avx512_on_zen4()):
        return "numpy"
    try:
        import polars  # noqa: F401
    except ImportError:
        if asked == "polars":
            raise ImportError(f"{_ENV}=polars needs polars: pip install 'pandas_rankeval[polars]'") from None
        return "numpy"
    return "polars"


def _polars_sort(a: np.ndarray) -> None:
    import polars as pl

    out: Any = pl.Series(values=a).sort(multithreaded=False).to_numpy()
    a[...] = out


def sort_values(a: np.ndarray) -> None:
    """Sort a one-dimensional array in place by value: the same result as ``a.sort()``, to the
    last bit (long int64 arrays by polars where :func:`sort_backend` says so).

    >>> import numpy as np
    >>> from pandas_rankeval.core.int_sort import sort_values
    >>> a = np.array([3, -1, 2], dtype=np.int64)
    >>> sort_values(a)
    >>> a.tolist()
    [-1, 2, 3]
    """
    if a.shape[0] >= POLARS_FROM and a.dtype == np.int64 and sort_backend() == "polars":
        _polars_sort(a)
    else:
        a.sort()
