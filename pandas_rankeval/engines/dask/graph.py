"""Task-graph helpers of the Dask engine: trees of additions, shuffles of whole keys, packed results.

Nothing here knows a metric: these are the shapes every pass of the engine is built from.
"""

from __future__ import annotations

import pickle
from collections.abc import Callable, Hashable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from pandas_rankeval.inference.hashing import partition_hash

from ..base import internal_prefix

__all__ = ["KEY_HASH", "packed", "shuffle_method", "shuffled", "tree"]

#: The column of a row's key hash while rows are shuffled by value (under the call's prefix,
#: :func:`~pandas_rankeval.engines.base.internal_prefix`: no user column collides with it).
KEY_HASH = "key_hash"


def tree(items: list[Any], combine: Callable[[list[Any]], Any], fan_in: int = 8) -> Any:
    """A tree of delayed ``combine`` calls over ``items``, ``fan_in`` at a time: depth
    log_fan_in(len(items)). Adding many summaries in one call allocates their union once."""
    from dask import delayed

    while len(items) > 1:
        items = [
            delayed(combine, pure=True)(items[i : i + fan_in]) if i + 1 < len(items) else items[i]
            for i in range(0, len(items), fan_in)
        ]
    return items[0]


def _key_hashed(pdf: pd.DataFrame, keys: list[Hashable], name: str) -> pd.DataFrame:
    out = pdf.copy()
    out[name] = partition_hash(pdf[keys])
    return out


def shuffled(
    ddf: Any, columns: Sequence[Hashable], keys: Sequence[Hashable], npartitions: int | None, *, by_value: bool = False
) -> Any:
    """``columns`` of ``ddf``, shuffled so that the rows of every value of ``keys`` are in one partition.

    Keys in an object column (or every key, with ``by_value``) are placed by value
    (:func:`~pandas_rankeval.inference.hashing.partition_hash`): ``1``, ``1.0`` and ``True`` are
    one key for pandas, and Dask's own hash of an object column (of its text) would send them
    to different partitions.
    """
    n = npartitions or ddf.npartitions
    data = ddf[list(columns)]
    keys = list(keys)
    if by_value or any(pd.api.types.is_object_dtype(data.dtypes[c]) for c in keys):
        name = internal_prefix(data.columns) + KEY_HASH
        meta = data._meta.assign(**{name: np.zeros(0, dtype=np.uint64)})
        keyed = data.map_partitions(_key_hashed, keys, name, meta=meta)
        return keyed.shuffle(on=name, npartitions=n, shuffle_method=shuffle_method(data)).drop(columns=[name])
    on = keys[0] if len(keys) == 1 else keys
    return data.shuffle(on=on, npartitions=n, shuffle_method=shuffle_method(data))


def shuffle_method(ddf: Any) -> str | None:
    """The shuffle's method: Dask's default, except for object columns (keys of mixed types), which
    the p2p shuffle cannot carry (it moves Arrow tables) and the task shuffle can (pickle)."""
    return "tasks" if any(pd.api.types.is_object_dtype(t) for t in ddf.dtypes) else None


def packed(fn: Callable[..., Any], *args: Any) -> bytes:
    """``fn(*args)`` pickled on the worker: a list of thousands of small tuples (a range
    partition's counts per segment) reaches the client as one buffer. Left to distributed, such
    a list is serialized item by item, which cost 0.3 s of a 0.6 s call at 2,000 segments."""
    return pickle.dumps(fn(*args), protocol=pickle.HIGHEST_PROTOCOL)
