"""``by=`` with many segments on Dask: partitions of whole segments, each a pandas table.

With clustered DeLong for global AUC (``report(ci=...)`` or ``compare`` with ``auc``, the
defaults), the group pass would come after a score pass, a placement pass and a merge of every
row with its placement. When the segments are many and none is larger than an average
partition, the rows are shuffled by segment instead: every partition then holds whole
segments, and every number of a segment (its metrics, its global AUC and DeLong moments, its
intervals and p-values) is computed where its rows are, by the code the pandas engine runs.
Only result-sized summaries leave the workers.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from pandas_rankeval import summary as S
from pandas_rankeval.inference import hashing as H
from pandas_rankeval.summary.plan import Plan
from pandas_rankeval.summary.replicates import reduce_replicates
from pandas_rankeval.summary.summary import Summary

from ..pandas import pandas_extras
from .graph import shuffled, tree

__all__ = ["fits", "segment_pass"]

#: Segment mode needs at least this many segments per partition of the shuffle (balance).
SEGMENTS_PER_PART = 2
_NO_HASHES = np.empty(0, dtype=np.uint64)


def fits(sizes: pd.Series, npartitions: int) -> bool:
    """Partitions of whole segments stay balanced: at least :data:`SEGMENTS_PER_PART` segments
    per partition, and no segment above the rows of an average partition."""
    if not len(sizes):
        return False
    return len(sizes) >= SEGMENTS_PER_PART * npartitions and int(sizes.max()) <= max(1, int(sizes.sum()) // npartitions)


def _segment_part(pdf: pd.DataFrame, plan: Plan) -> tuple[Summary, dict[str, dict], np.ndarray, bool]:
    """One partition of whole segments, evaluated as the pandas engine evaluates a table: its
    summary (replicate sums reduced to intervals and p-values: the segments are whole), each
    segment's global AUC and clustered-DeLong moments, and its groups' key hashes (sorted)."""
    summary, ev = S.summarize_partition(pdf, plan, whole_segments=True)
    if ev is None:  # no rows, or a bad value counted: the group pass reports it
        return summary, {}, _NO_HASHES, bool(summary.problems)
    extras = pandas_extras(ev, plan)
    if plan.n_replicates:
        summary = reduce_replicates(summary, plan)
    return summary, extras, np.unique(H.key_hash(ev.keys)), False


def _add_segments(parts: list[tuple[Summary, dict[str, dict], np.ndarray, bool]]) -> tuple[Any, ...]:
    """Partitions of disjoint segments added: summaries concatenated, extras united. A group key
    in two partitions has rows in two segments (``by`` varies in the group): flagged."""
    extras: dict[str, dict] = {}
    for p in parts:
        for name, values in p[1].items():
            extras.setdefault(name, {}).update(values)
    hashes = np.concatenate([p[2] for p in parts])
    distinct = np.unique(hashes)
    flagged = any(p[3] for p in parts) or distinct.shape[0] < hashes.shape[0]
    return S.Summary.sum([p[0] for p in parts]), extras, distinct, flagged


def _without_hashes(whole: tuple[Any, ...]) -> tuple[Any, ...]:
    return whole[0], whole[1], whole[3]


def segment_pass(ddf: Any, plan: Plan, npartitions: int | None) -> tuple[Summary, dict[str, Any]] | None:
    """Read the input once: rows shuffled by segment key (by value, as pandas groups them), every
    partition a pandas table of whole segments, the results concatenated on the workers.

    None when a group has rows in two segments, or a bad value was counted: the group pass then
    raises pandas' error with the whole table's counts.
    """
    import dask
    from dask import delayed

    parts = shuffled(ddf, plan.columns, plan.by, npartitions, by_value=True).to_delayed()
    plan_d = delayed(plan, pure=True)
    root = tree([delayed(_segment_part, pure=True)(p, plan_d) for p in parts], _add_segments)
    ((summary, extras, flagged),) = dask.compute(delayed(_without_hashes, pure=True)(root))
    if flagged:
        return None
    return summary, extras
