"""Segment mode: partitions of whole segments, each evaluated as pandas evaluates a table.

With ``by=`` and clustered DeLong for global AUC (``report(ci=...)``, ``compare`` with ``"auc"``),
the passes of a partitioned evaluation are a range pass, a placement pass, a join of every row
with its placement and a group pass. When the segments are many and none is larger than an
average partition (:func:`fits`), an engine that can put the rows of every segment in one
partition (a shuffle by segment value) gives every number of a segment where its rows are
instead: its metrics, its global AUC and DeLong moments
(:func:`~pandas_rankeval.summary.extras.evaluation_extras`), its intervals and p-values
(:func:`~pandas_rankeval.summary.replicates.reduce_replicates`). This module holds what runs on
such a partition (:func:`segment_part`) and how the partitions' results add up
(:func:`add_segments`, :func:`finish_segments`); the driver's
:func:`~pandas_rankeval.summary.driver.segment_pass` runs them over the engine's primitive.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..inference.hashing import key_hash
from .extras import evaluation_extras
from .partition import summarize_partition
from .plan import Plan
from .replicates import reduce_replicates
from .summary import Summary

__all__ = ["SEGMENTS_PER_PART", "SegmentPart", "add_segments", "finish_segments", "fits", "segment_part"]

#: Segment mode needs at least this many segments per partition (balance).
SEGMENTS_PER_PART = 2
_NO_HASHES = np.empty(0, dtype=np.uint64)

#: One partition's result: its summary (replicate sums reduced), its segments' global-AUC extras,
#: its groups' key hashes (sorted, distinct) and whether a bad value was counted.
SegmentPart = tuple[Summary, dict[str, dict], np.ndarray, bool]


def fits(sizes: pd.Series, n_parts: int) -> bool:
    """Partitions of whole segments stay balanced: at least :data:`SEGMENTS_PER_PART` segments
    per partition, and no segment above the rows of an average partition (``sizes``: rows per
    segment key).

    >>> fits(pd.Series([5, 5, 5, 5]), 2), fits(pd.Series([5, 5, 5, 50]), 2), fits(pd.Series([5, 5]), 2)
    (True, False, False)
    """
    if not len(sizes):
        return False
    return len(sizes) >= SEGMENTS_PER_PART * n_parts and int(sizes.max()) <= max(1, int(sizes.sum()) // n_parts)


def segment_part(pdf: pd.DataFrame, plan: Plan) -> SegmentPart:
    """One partition of whole segments, evaluated as the pandas engine evaluates a table: its
    summary (replicate sums reduced to intervals and p-values: the segments are whole), each
    segment's global AUC and clustered-DeLong moments, and its groups' key hashes (sorted)."""
    summary, ev = summarize_partition(pdf, plan, whole_segments=True)
    if ev is None:  # no rows, or a bad value counted: the group pass reports it
        return summary, {}, _NO_HASHES, bool(summary.problems)
    extras = evaluation_extras(ev, plan)
    if plan.n_replicates:
        summary = reduce_replicates(summary, plan)
    return summary, extras, np.unique(key_hash(ev.keys)), False


def add_segments(parts: list[SegmentPart]) -> SegmentPart:
    """Partitions of disjoint segments added: summaries concatenated, extras united. A group key
    in two partitions has rows in two segments (``by`` varies in the group): flagged."""
    extras: dict[str, dict] = {}
    for p in parts:
        for name, values in p[1].items():
            extras.setdefault(name, {}).update(values)
    hashes = np.concatenate([p[2] for p in parts])
    distinct = np.unique(hashes)
    flagged = any(p[3] for p in parts) or distinct.shape[0] < hashes.shape[0]
    return Summary.sum([p[0] for p in parts]), extras, distinct, flagged


def finish_segments(whole: SegmentPart) -> tuple[Summary, dict[str, dict], bool]:
    """The added result without its key hashes (they stay where the partitions are)."""
    return whole[0], whole[1], whole[3]
