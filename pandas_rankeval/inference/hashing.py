"""Stable hashes of group keys, and the resampling draws derived from them.

A group-level bootstrap (or sign-flip test) whose draws are a function of
``(seed, group key, replicate)`` alone does not depend on where a group sits: every
partition of whole groups can add its groups' contributions to every replicate, and
the same seed gives the same interval on pandas, Dask and Spark.

That needs a hash of the key that is the same in every process (never Python's
``hash()``, which is salted per process for strings), on every platform, and for
every dtype that can hold the same key:

- integers of any width and signedness (numpy or nullable ``Int64``), bools, and
  floats with an integral value hash as the integer (two's complement in 64 bits);
  other floats hash their IEEE bits (``-0.0`` as ``0.0``);
- strings (``object``, ``str``, ``string[python]``, ``string[pyarrow]``,
  categoricals of strings) hash their UTF-8 bytes with pandas' keyed SipHash-2-4
  (:func:`pandas.util.hash_array`, fixed key), whatever the storage;
- datetimes hash their nanoseconds since the epoch (any unit); a ``datetime.date`` (an object
  column of dates, as Spark's DateType arrives) hashes as its midnight;
- a key of several columns folds the column hashes in column order.

Everything is vectorized over numpy ``uint64`` arrays (wrap-around arithmetic).
"""

from __future__ import annotations

import datetime
import sys
from decimal import Decimal, getcontext
from typing import Any

import numpy as np
import pandas as pd

__all__ = [
    "key_hash",
    "partition_hash",
    "poisson_weights",
    "flip_signs",
    "flip_bits",
    "mix64",
    "seed_to_int",
    "MAX_POISSON",
]

_U64 = np.uint64
_GOLDEN = _U64(0x9E3779B97F4A7C15)
_M1 = _U64(0xBF58476D1CE4E5B9)
_M2 = _U64(0x94D049BB133111EB)
# domain tags: strings and numbers never share a hash by construction of the input
_TAG_STR = _U64(0x5A17_C0DE_0000_0001)
_TAG_FLOAT = _U64(0x5A17_C0DE_0000_0002)
_TAG_BOOT = 0x426F6F7473747261  # "Bootstra"
_TAG_FLIP = 0x5369676E466C6970  # "SignFlip"


def mix64(x: np.ndarray, tmp: np.ndarray | None = None) -> np.ndarray:
    """The SplitMix64 finalizer: a bijection of uint64 with full avalanche (in place).

    ``tmp``: an optional scratch array of x's shape (saves three allocations).
    """
    if tmp is None:
        tmp = np.empty_like(x)
    for shift, mult in ((30, _M1), (27, _M2)):
        np.right_shift(x, _U64(shift), out=tmp)
        x ^= tmp
        x *= mult
    np.right_shift(x, _U64(31), out=tmp)
    x ^= tmp
    return x


def _mix_scalar(x: int) -> int:
    m = (1 << 64) - 1
    x &= m
    x ^= x >> 30
    x = (x * 0xBF58476D1CE4E5B9) & m
    x ^= x >> 27
    x = (x * 0x94D049BB133111EB) & m
    x ^= x >> 31
    return x


def _int_hash(v: np.ndarray) -> np.ndarray:
    """Hash of integers given as int64 / uint64 (two's complement bits)."""
    x = v.astype(np.int64, copy=True).view(np.uint64) if v.dtype.kind == "i" else v.astype(np.uint64, copy=True)
    x += _GOLDEN
    return mix64(x)


def _float_hash(v: np.ndarray) -> np.ndarray:
    """Integral floats hash as the integer; others by their bits, tagged."""
    v = np.asarray(v, dtype=np.float64)
    out = np.empty(v.shape[0], dtype=np.uint64)
    integral = np.isfinite(v) & (v == np.floor(v)) & (v >= -(2.0**63)) & (v < 2.0**63)
    if integral.any():
        out[integral] = _int_hash(v[integral].astype(np.int64))
    rest = ~integral
    if rest.any():
        bits = (v[rest] + 0.0).view(np.uint64).copy()  # -0.0 + 0.0 == +0.0
        bits ^= _TAG_FLOAT
        out[rest] = mix64(bits + _GOLDEN)
    return out


def _str_hash(values: np.ndarray) -> np.ndarray:
    """Keyed SipHash-2-4 of the UTF-8 bytes (pandas' fixed key), then tagged and mixed."""
    from pandas.util import hash_array

    h = hash_array(np.asarray(values, dtype=object), encoding="utf8", hash_key="0123456789123456",
                   categorize=False).astype(np.uint64, copy=True)
    h ^= _TAG_STR
    return mix64(h)


def _object_hash(values: np.ndarray, lenient: bool = False) -> np.ndarray:
    """Mixed Python objects: each kind with its own rule (slow path, element types vary).

    ``lenient``: a kind with no stable rule (tuples, decimals...) hashes its ``repr`` instead of
    raising (for placing rows in partitions, where equal keys must meet but no draw depends on it).
    """
    n = values.shape[0]
    out = np.empty(n, dtype=np.uint64)
    kinds = np.fromiter(
        (
            0 if isinstance(v, str)
            else 1 if isinstance(v, (bool, np.bool_, int, np.integer))
            else 2 if isinstance(v, (float, np.floating))
            else 3 if isinstance(v, (bytes, bytearray))
            else 4
            for v in values
        ),
        dtype=np.int8,
        count=n,
    )
    for kind in np.unique(kinds):
        sel = kinds == kind
        part = values[sel]
        if kind == 0:
            out[sel] = _str_hash(part)
        elif kind == 1:
            ints = [int(v) for v in part]
            if lenient or all(-(2**63) <= i < 2**64 for i in ints):
                out[sel] = np.array(
                    [_mix_scalar((i & ((1 << 64) - 1)) + 0x9E3779B97F4A7C15) for i in ints], dtype=np.uint64
                )
            else:
                raise TypeError("group keys must fit in 64 bits to be hashed")
        elif kind == 2:
            out[sel] = _float_hash(np.array(part, dtype=np.float64))
        elif kind == 3:
            out[sel] = _str_hash(np.array([bytes(b).decode("latin-1") for b in part], dtype=object))
        else:
            if all(isinstance(v, (datetime.date, np.datetime64)) for v in part):
                # a date is its midnight: the same hash as in a datetime64 column (Spark's
                # DateType and Dask's object dates reach pandas as datetime.date objects)
                out[sel] = _series_hash(pd.Series(pd.to_datetime(list(part))))
            elif lenient:
                out[sel] = _str_hash(np.array([repr(v) for v in part], dtype=object)) ^ _TAG_FLOAT
            else:
                raise TypeError(
                    f"group keys of type {type(part[0]).__name__} cannot be hashed stably; "
                    "use int, float, str, bytes or datetime keys"
                )
    return out


def _series_hash(s: pd.Series) -> np.ndarray:
    dtype = s.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        cats = _series_hash(pd.Series(dtype.categories))
        codes = s.cat.codes.to_numpy()
        if (codes < 0).any():
            raise ValueError("group keys must not be missing to be hashed")
        return cats[codes]
    if s.isna().any():
        raise ValueError("group keys must not be missing to be hashed")
    if pd.api.types.is_bool_dtype(dtype):
        return _int_hash(s.to_numpy(dtype=np.int64))
    if pd.api.types.is_integer_dtype(dtype):
        np_dtype = getattr(dtype, "numpy_dtype", dtype)
        kind = np.dtype(np_dtype).kind  # type: ignore[arg-type]  # stubs narrower than runtime
        return _int_hash(s.to_numpy(dtype=np.uint64 if kind == "u" else np.int64))
    if pd.api.types.is_float_dtype(dtype):
        return _float_hash(s.to_numpy(dtype=np.float64))
    if pd.api.types.is_datetime64_any_dtype(dtype):
        if getattr(dtype, "tz", None) is not None:
            s = s.dt.tz_convert("UTC").dt.tz_localize(None)
        return _int_hash(s.to_numpy(dtype="datetime64[ns]").view(np.int64))
    if pd.api.types.is_string_dtype(dtype) and not pd.api.types.is_object_dtype(dtype):
        return _str_hash(s.to_numpy(dtype=object))
    values = s.to_numpy(dtype=object)
    if all(isinstance(v, str) for v in values):  # the common object case: strings only
        return _str_hash(values)
    return _object_hash(values)


def key_hash(keys: pd.DataFrame | pd.Series | pd.Index) -> np.ndarray:
    """One stable 64-bit hash per row of ``keys`` (one or several key columns).

    The same key gives the same hash in every process and on every platform, for
    every dtype that can hold it (``int8`` ... ``int64``, ``uint``, nullable ``Int64``,
    integral floats; ``object``, ``str`` or ``string[pyarrow]`` strings). Several
    columns are folded in column order.

    Parameters
    ----------
    keys : Series, Index, MultiIndex or DataFrame
        The group key(s), one row per group (or per row: the hash is per row).

    Returns
    -------
    hashes : ndarray of uint64

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> a = key_hash(pd.Series([1, 2, 3], dtype="int8"))
    >>> b = key_hash(pd.Series([1, 2, 3], dtype="Int64"))
    >>> bool((a == b).all())
    True
    >>> bool((key_hash(pd.Series(["x", "y"])) == key_hash(pd.Series(["x", "y"], dtype="string"))).all())
    True
    """
    if isinstance(keys, pd.MultiIndex):
        cols = [pd.Series(keys.get_level_values(i)) for i in range(keys.nlevels)]
    elif isinstance(keys, pd.Index):
        cols = [pd.Series(keys)]
    elif isinstance(keys, pd.Series):
        cols = [keys]
    elif isinstance(keys, pd.DataFrame):
        cols = [keys.iloc[:, i] for i in range(keys.shape[1])]
    else:
        raise TypeError(f"key_hash takes a Series, Index or DataFrame; got {type(keys).__name__}")
    if not cols:
        raise ValueError("key_hash needs at least one key column")
    h = _series_hash(cols[0])
    for c in cols[1:]:
        # order-dependent fold: h' = mix(h * golden + (hash(c) ^ rotl(h, 17)))
        hc = _series_hash(c)
        rot = (h << _U64(17)) | (h >> _U64(47))
        h = mix64(h * _GOLDEN + (hc ^ rot))
    return h


def partition_hash(keys: pd.DataFrame) -> np.ndarray:
    """Where a row goes when rows are moved so that every group is whole in one partition.

    :func:`key_hash` of the key columns, so keys that are equal as values meet whatever their
    type (``1``, ``1.0`` and ``True`` in an object column are one group for pandas, and hash
    alike), except that it never raises: a missing key hashes as 0 (its row is dropped or
    reported later) and a key of a kind with no stable rule hashes its ``repr``.
    """
    n = len(keys)
    ok = ~np.logical_or.reduce([np.asarray(keys.iloc[:, i].isna()) for i in range(keys.shape[1])]) if n else np.ones(0, bool)
    out = np.zeros(n, dtype=np.uint64)
    if not ok.any():
        return out
    part = keys.loc[ok] if not ok.all() else keys
    h = None
    for i in range(part.shape[1]):
        col = part.iloc[:, i]
        if pd.api.types.is_object_dtype(col.dtype):
            hc = _object_hash(col.to_numpy(dtype=object), lenient=True)
        else:
            try:
                hc = _series_hash(col)
            except (TypeError, ValueError):
                hc = _object_hash(col.to_numpy(dtype=object), lenient=True)
        if h is None:
            h = hc
        else:
            rot = (h << _U64(17)) | (h >> _U64(47))
            h = mix64(h * _GOLDEN + (hc ^ rot))
    out[ok] = h  # type: ignore[assignment]  # stubs narrower than runtime
    return out


def seed_to_int(seed: Any, func: str) -> int:
    """The integer seed of the hashed draws.

    An int is used as it is; None draws one from fresh entropy; a numpy Generator,
    BitGenerator or SeedSequence gives one integer drawn from it (so a SeedSequence
    always gives the same one). Anything else is the error of the pandas functions.
    """
    from pandas_rankeval.core.inputs.validation import check_seed

    check_seed(seed, func)
    if seed is None:
        return int(np.random.default_rng().integers(0, 2**63))
    if isinstance(seed, (int, np.integer)):
        return int(seed)
    return int(np.random.default_rng(seed).integers(0, 2**63))


def _stream(seed: int, tag: int, n: int, start: int = 0) -> np.ndarray:
    """One 64-bit value per replicate, for a (seed, purpose) pair."""
    s = _mix_scalar(_mix_scalar(seed & ((1 << 64) - 1)) ^ tag)
    b = np.arange(start, start + n, dtype=np.uint64)
    b *= _GOLDEN
    b += _U64(s)
    return mix64(mix64(b))


def _poisson_thresholds(bits: int) -> np.ndarray:
    """floor(P(K <= k) * 2**bits) for K ~ Poisson(1), exact decimal arithmetic (no libm)."""
    getcontext().prec = 60
    term = Decimal(-1).exp()
    cdf = Decimal(0)
    scale = Decimal(2) ** bits
    out = []
    k = 0
    while True:
        cdf += term
        t = int(cdf * scale)
        if t >= 2**bits - 1:  # the rest of the tail is below the resolution
            break
        out.append(t)
        k += 1
        term /= k
    return np.array(out, dtype=np.uint64)


#: One 64-bit hash gives two draws, each from 32 uniform bits.
_POISSON_T = _poisson_thresholds(32)
#: The largest Poisson(1) draw this method can produce (P(K > MAX_POISSON) < 2**-32).
MAX_POISSON = int(_POISSON_T.shape[0])
_POISSON_T32 = _POISSON_T.astype(np.uint32)

#: Poisson draws settled by comparisons (K < _DIRECT); larger ones by a binary search.
_DIRECT = 4


def _buffer(work: dict | None, name: str, shape: tuple[int, ...], dtype: Any) -> np.ndarray:
    """A scratch array, reused from ``work`` when the shape matches (no page faults per chunk)."""
    if work is None:
        return np.empty(shape, dtype=dtype)
    buf = work.get(name)
    if buf is None or buf.shape != shape or buf.dtype != dtype:
        buf = work[name] = np.empty(shape, dtype=dtype)
    return buf


def _uniform32(
    key_hashes: np.ndarray, seed: int, tag: int, n: int, start: int, work: dict | None = None
) -> np.ndarray:
    """(groups x n) uniform 32-bit values (uint32) for replicates start .. start + n - 1.

    Replicate b uses half ``b % 2`` (high, then low 32 bits) of hash ``b // 2``: plain
    shifts and masks, the same on every platform. The values are a view of the hashes: on a
    little-endian machine their halves are swapped in place first, so that the high half comes
    first in memory (no copy into a second array).
    """
    kh = np.asarray(key_hashes, dtype=np.uint64)
    first, last = start // 2, (start + n + 1) // 2
    r = _stream(seed, tag, last - first, first)
    shape = (kh.shape[0], last - first)
    x = np.bitwise_xor(kh[:, None], r[None, :], out=_buffer(work, "x", shape, np.uint64))
    tmp = _buffer(work, "tmp", shape, np.uint64)
    mix64(x, tmp)
    if sys.byteorder == "little":
        np.right_shift(x, _U64(32), out=tmp)
        x <<= _U64(32)
        x |= tmp
    off = start - 2 * first
    return x.view(np.uint32).reshape(kh.shape[0], -1)[:, off : off + n]


def poisson_weights(
    key_hashes: np.ndarray,
    seed: int,
    n_boot: int,
    *,
    start: int = 0,
    dtype: Any = np.float64,
    work: dict | None = None,
) -> np.ndarray:
    """Poisson(1) bootstrap counts, (groups x replicates), a function of (seed, key, replicate).

    Replicates ``start .. start + n_boot - 1``: asking for a slice of replicates gives
    the same columns as asking for all of them. ``work``: a dict of scratch arrays
    reused across calls of the same shape (the result may live in it: copy it before
    the next call with the same ``work``).

    Examples
    --------
    >>> import pandas as pd
    >>> h = key_hash(pd.Series([10, 11, 12]))
    >>> w = poisson_weights(h, seed=0, n_boot=5)
    >>> w.shape
    (3, 5)
    >>> bool((poisson_weights(h[1:], seed=0, n_boot=5) == w[1:]).all())
    True
    """
    x = _uniform32(key_hashes, seed, _TAG_BOOT, n_boot, start, work)
    shape = x.shape
    t = _POISSON_T32
    flag = _buffer(work, "flag", shape, np.bool_)
    # K = the number of thresholds x reaches: four comparisons settle K <= 4 (99.6% of the
    # draws), a binary search (same dtype as x: no casting) the rest
    k = np.greater_equal(x, t[0], out=_buffer(work, "k", shape, np.bool_)).view(np.uint8)
    for j in range(1, _DIRECT):
        k += np.greater_equal(x, t[j], out=flag)
    tail = np.flatnonzero(np.greater_equal(x, t[_DIRECT], out=flag))  # K >= 5: 0.4% of the draws
    if tail.size:
        k.reshape(-1)[tail] = np.searchsorted(t, x.reshape(-1)[tail], side="right")
    if work is None:
        return k.astype(dtype, copy=False)
    out = _buffer(work, "out", shape, dtype)
    out[...] = k
    return out


def flip_bits(key_hashes: np.ndarray, seed: int, n_boot: int, *, start: int = 0) -> np.ndarray:
    """Sign-flip indicators (groups x replicates) in {0, 1}: 1 flips the group's sign.

    A function of (seed, key, replicate), independent of the bootstrap draws: replicate
    b is bit ``b % 64`` (least significant first) of hash ``b // 64``.
    """
    kh = np.asarray(key_hashes, dtype=np.uint64)
    first, last = start // 64, (start + n_boot + 63) // 64
    r = _stream(seed, _TAG_FLIP, last - first, first)
    x = kh[:, None] ^ r[None, :]
    mix64(x)
    # explicit little-endian bytes, then bits least significant first: platform-independent
    bits = np.unpackbits(x.astype("<u8").view(np.uint8), axis=1, bitorder="little")
    off = start - 64 * first
    return bits[:, off : off + n_boot].astype(np.float64)


def flip_signs(key_hashes: np.ndarray, seed: int, n_boot: int, *, start: int = 0) -> np.ndarray:
    """Random signs (groups x replicates) in {-1, +1}, a function of (seed, key, replicate).

    Examples
    --------
    >>> import pandas as pd
    >>> s = flip_signs(key_hash(pd.Series(["a", "b"])), seed=1, n_boot=4)
    >>> sorted(set(s.ravel().tolist())) <= [-1.0, 1.0]
    True
    """
    return 1.0 - 2.0 * flip_bits(key_hashes, seed, n_boot, start=start)
