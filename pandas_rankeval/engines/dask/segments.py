"""The Dask engine's segment primitive: buckets of whole segments, a function of each, a tree of results.

The driver's segment mode (:func:`pandas_rankeval.summary.driver.segment_pass`) says what to
compute of every partition of whole segments and how the results add up; here the rows are
shuffled by segment value (``1``, ``1.0`` and ``True`` are one segment, as pandas groups them),
the function runs where each partition lies, the results are combined in a tree of tasks on the
workers and only the finished root reaches the client.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any

import pandas as pd

from .graph import shuffled, tree

__all__ = ["reduce_segments"]


def reduce_segments(
    ddf: Any, columns: Sequence[Hashable], by: Sequence[Hashable], npartitions: int | None,
    part: Callable[[pd.DataFrame], Any], combine: Callable[[list[Any]], Any], finish: Callable[[Any], Any],
) -> Any:
    """Read the rows once: ``columns`` shuffled by the value of ``by``, ``part`` of every
    partition, the results combined by ``combine`` in a tree and ``finish`` of the root, all on
    the workers; the finished result."""
    import dask
    from dask import delayed

    parts = shuffled(ddf, columns, by, npartitions, by_value=True).to_delayed()
    part_d = delayed(part, pure=True)  # one key: the plan travels once, not per task
    root = tree([delayed(_apply, pure=True)(part_d, p) for p in parts], combine)
    (out,) = dask.compute(delayed(finish, pure=True)(root))
    return out


def _apply(fn: Callable[[pd.DataFrame], Any], pdf: pd.DataFrame) -> Any:
    return fn(pdf)
