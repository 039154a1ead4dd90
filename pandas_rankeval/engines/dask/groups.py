"""The Dask engine's bucket primitive: whole groups per partition, a function of each, a tree of results.

The driver (:func:`pandas_rankeval.summary.driver.summed_group_pass`) says what to compute of every
partition of whole groups and how pieces add up; here the rows are shuffled by group key, the
function runs where each partition lies, and the results are combined in a tree of tasks on the
workers, so that only the final, result-sized object reaches the client. With ``n`` shards
(``by=`` with replicate sums) every partition's result is cut into ``n`` pieces, piece ``k`` of
every partition is reduced in one task (:func:`sharded`), and the reduced shards are combined in
a tree. A sample of the score columns' order keys rides along (the cut points of the range pass).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from functools import partial
from typing import Any

import numpy as np
import pandas as pd

from .graph import shuffled, tree
from .scores import merge_all_samples, merge_samples, sample_scores

__all__ = ["reduce_buckets", "sharded"]


def _part(pdf: pd.DataFrame, part: Callable[[pd.DataFrame], tuple], sample: tuple[Hashable, ...]) -> tuple[Any, dict]:
    """One partition of whole groups -> its (one) piece, and a sample of its scores."""
    return part(pdf)[0], sample_scores(pdf, sample)


def _add(parts: list[tuple[Any, dict[int, np.ndarray]]], combine: Callable[[list[Any]], Any]) -> tuple[Any, dict]:
    samples = parts[0][1]
    for p in parts[1:]:
        samples = merge_samples(samples, p[1])
    return combine([p[0] for p in parts]), samples


def reduce_buckets(
    rows: Any, columns: list[Hashable], group: list[Hashable], whole: bool, npartitions: int | None,
    part: Callable[[pd.DataFrame], tuple], n_shards: int, shard: Callable[[list[Any]], Any],
    combine: Callable[[list[Any]], Any], sample: tuple[Hashable, ...],
) -> tuple[Any, dict[int, np.ndarray]]:
    """Read the rows once: ``part`` of every partition of whole groups (``whole``; else of any
    partition of rows), ``n_shards`` pieces each, reduced on the workers; and a sample of the
    ``sample`` columns' order keys."""
    import dask
    from dask import delayed

    if whole:
        parts = shuffled(rows, columns, group, npartitions).to_delayed()
    else:
        parts = rows[columns].to_delayed()
    part_d = delayed(part, pure=True)  # one key: the plan (a weight Series) travels once, not per task
    if n_shards > 1:
        return sharded(parts, part_d, n_shards, shard, combine, sample)
    root = tree([delayed(_part, pure=True)(p, part_d, sample) for p in parts], partial(_add, combine=combine))
    ((summary, samples),) = dask.compute(root)
    return summary, samples


def _part_split(pdf: pd.DataFrame, part: Callable[[pd.DataFrame], tuple], sample: tuple[Hashable, ...]) -> tuple:
    return (*part(pdf), sample_scores(pdf, sample))


def sharded(parts: list[Any], part: Any, n: int, shard: Callable[[list[Any]], Any], combine: Callable[[list[Any]], Any],
            sample: tuple[Hashable, ...]) -> tuple[Any, dict[int, np.ndarray]]:
    """Every partition's result in ``n`` pieces; piece ``k`` of all partitions reduced in one task
    (``shard``), the reduced shards combined in a tree: each piece crosses between workers once."""
    import dask
    from dask import delayed

    split = [delayed(_part_split, pure=True, nout=n + 1)(p, part, sample) for p in parts]
    shards = [delayed(shard, pure=True)([sp[k] for sp in split]) for k in range(n)]
    summary, samples = dask.compute(tree(shards, combine), tree([sp[n] for sp in split], merge_all_samples))
    return summary, samples
