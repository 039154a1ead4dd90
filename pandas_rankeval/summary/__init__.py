"""The additive summary layer that every engine shares (stages 3-6 of the pipeline).

``plan`` (options checked on the client) -> ``partition`` (one partition of whole groups to one
:class:`Summary`) -> ``summary`` (summaries add up) -> ``finalize`` (numbers and coverage).
Global AUC comes from ``auc_counts`` (distinct-score counts chained exactly). This layer
imports neither dask nor pyspark, nor the tables built on it.
"""

from .auc_counts import (
    AucCounts, auc_counts_blocks, auc_counts_sorted, chain_auc, chain_offsets, placements_blocks, placements_sorted,
)
from .finalize import raise_input_errors
from .partition import summarize, summarize_evaluation, summarize_partition, summary_of_counts
from .plan import Plan, make_plan, resolve_resample
from .summary import Summary, empty_summary

__all__ = [
    "AucCounts", "Plan", "Summary", "auc_counts_blocks", "auc_counts_sorted", "chain_auc", "chain_offsets",
    "empty_summary", "make_plan", "raise_input_errors", "placements_blocks", "placements_sorted", "resolve_resample", "summarize",
    "summarize_evaluation", "summarize_partition",
    "summary_of_counts",
]
