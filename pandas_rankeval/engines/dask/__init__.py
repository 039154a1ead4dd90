"""The Dask engine: every public function of :mod:`pandas_rankeval` on a Dask DataFrame, exact.

An adapter (:mod:`pandas_rankeval.engines.base`) to the summary layer (:mod:`pandas_rankeval.summary`),
the code that pandas itself runs: it only decides how whole groups get into a partition and how the
partitions' summaries are added up. It computes no metric of its own and checks no option: the
public functions build the plan and raise every error the schema answers before calling :func:`run`.

How a call runs
---------------
1. **Checks from metadata** (:func:`schema`: ``ddf.dtypes``), before any compute, in the public
   function: missing columns, text scores or labels, bad options raise the errors of pandas.
2. **Group pass** (:mod:`.groups`; group metrics, and every call's coverage counts): the rows
   are shuffled by group key so that each group is whole in one partition; every partition
   becomes one small additive summary (``summarize``), the summaries are added in a tree of
   tasks on the workers, and only the final, result-sized summary reaches the client, which
   divides and formats it (``finalize``). Missing values are counted in this pass. No per-group
   row ever reaches the client (``per_group`` returns a lazy Dask DataFrame instead). With
   ``by=`` and replicate sums (``ci=``, ``compare``), every partition's summary is cut into
   shards of segments; a shard's pieces are added in one task, where its segments are whole,
   and reduced there to intervals and p-values (``summary.replicates``): the replicate sums
   (segments x replicates x items) never reach the client.
3. **Score pass** (:mod:`.scores`; global AUC only): every input partition counts its (relevant,
   non-relevant) rows per distinct score (per segment with ``by``), which collapses masses of
   tied scores; the distinct scores are range-partitioned with cut points sampled in the group
   pass and shuffled, every range gives its exact counts, and the client chains the ranges in
   score order in Python integers. Every score column goes through the same pass, so equal
   scores never straddle two ranges and the result is exact under every tie rule.
4. **Placement pass** (only for ``ci=`` / ``compare`` with global AUC, clustered DeLong, the
   pandas default ``auc_method="delong"`` with ``ties="expected"``): here the score pass comes
   first, its counted keys persisted (cut points sampled from them, not from a group pass); from
   the chained counts every distinct score gets its global DeLong placement (``chain_offsets``,
   ``placements_sorted``), the rows are merged with that table on the score (and tie-break and
   segment), and the group pass runs on those rows with the placement columns, so
   ``summarize`` adds the per-segment DeLong moments. The interval and p-values equal pandas'.
5. **Segment mode** (:mod:`.segments`; that same call with ``by=`` of many segments): the counts
   of step 4's first read give every segment's rows. With at least two segments per partition
   and none larger than an average partition, the rows are shuffled by segment instead, and
   every partition, a pandas table of whole segments, is evaluated by the pandas engine's own
   code: metrics, global AUC, DeLong moments, intervals and p-values, with no placement pass,
   merge or group pass. The count pass's persisted counts are released first. A group found in
   two partitions (``by`` varying within it) or a bad value sends the call back to steps 4 and
   2 (counting again), which raise pandas' error with whole-table counts.

So a call reads its input at most twice (once without global AUC), an interval or test of
global AUC and segment mode included (an error found by segment mode reads it once more): a
report of M score columns reads it at most M + 1 times.

Options not offered over partitions raise a ``ValueError`` that names them before any compute
(never an approximation): ``max_fpr`` of global AUC; a bootstrap interval / test of global AUC
(``auc_method="bootstrap"`` or ``ties`` other than ``"expected"``: it needs a resampled count per
distinct score); ``resample="multinomial"``.

Engine option: ``npartitions`` (``engine_options={"npartitions": n}``), the partitions of the
shuffle by group and of the score ranges of global AUC; default: the input's. ``ddf.rank`` and
``ddf.rankeval`` are registered by :mod:`pandas_rankeval.accessor`. Requires the optional
``dask[dataframe]`` extra (``pip install 'pandas_rankeval[dask]'``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from pandas_rankeval.core.validation import missing_mask
from pandas_rankeval.summary.checks import needs_group_stats
from pandas_rankeval.summary.driver import (
    needs_counts,
    raise_from_counts,
    raise_scan_errors,
)
from pandas_rankeval.summary.plan import Plan
from pandas_rankeval.summary.summary import Summary
from pandas_rankeval.tables.per_group import (
    check_flat_names,
    display_names,
    per_group_table,
)

from ..base import internal_prefix
from .graph import shuffled
from .groups import group_pass
from .scores import auc_job, count_pass, ranged_counts, score_pass, with_placements
from .segments import fits, segment_pass

__all__ = ["NAME", "OPTIONS", "check_options", "distinct", "partitioned", "per_group", "run", "schema"]

NAME = "Dask"
OPTIONS: tuple[str, ...] = ("npartitions",)


# --------------------------------------------------------------------------- #
# The schema and the engine option
# --------------------------------------------------------------------------- #
def schema(ddf: Any) -> pd.DataFrame:
    """An empty pandas frame with the columns and dtypes of ``ddf`` (no compute).

    Built by position, so that a repeated column name stays repeated (for the pandas error that
    counts it); a named index is a column too, since ``group=`` / ``by=`` may name it as in pandas.
    """
    dtypes = ddf.dtypes
    meta = pd.DataFrame({i: pd.Series(dtype=t) for i, t in enumerate(dtypes.to_numpy())})
    meta.columns = dtypes.index
    name = ddf.index.name
    if name is not None and name not in meta.columns:
        meta[name] = pd.Series(dtype=ddf.index.dtype)
    return meta


def _with_index(ddf: Any, columns: Sequence[Hashable]) -> Any:
    """The frame with its index as a column when the call names the index (as pandas allows)."""
    name = ddf.index.name
    if name is not None and name in columns and name not in ddf.columns:
        return ddf.reset_index()
    return ddf


def partitioned(ddf: Any) -> bool:
    """A Dask frame is evaluated in partitions of whole groups."""
    return True


def check_options(options: dict[str, Any], func: str) -> dict[str, Any]:
    """``npartitions``: an int >= 1, or None (the input's number of partitions)."""
    npartitions = options.get("npartitions")
    if npartitions is not None and (
        isinstance(npartitions, bool) or not isinstance(npartitions, int) or npartitions < 1
    ):
        raise ValueError(
            f"The 'npartitions' engine option of {func} must be an int in the range [1, inf) or None. "
            f"Got {npartitions!r} instead."
        )
    return {"npartitions": npartitions}


def _weights_once(ddf: Any, plan: Plan, early: bool = False) -> Plan:
    """A weight callable called once, on every group's statistics (one more read: rows per
    (group key, label) among the rows kept), never once per partition: a callable that looks at
    all groups (``n / n.sum()``, a rank) gives pandas' number. With ``early`` (the lazy
    ``per_group``, which has no pass of its own before the partitions run), that read also checks
    a weight Series and ``empty='error'`` on the whole table (:func:`~pandas_rankeval.summary.driver.raise_from_counts`)."""
    if not (needs_counts(plan) if early else (plan.group and needs_group_stats(plan))):
        return plan
    keys = list(dict.fromkeys([*plan.group, plan.label]))
    rows = ddf[list(dict.fromkeys(plan.columns))].dropna()  # rows without a missing value
    counts = rows.groupby(keys, dropna=True, observed=True).size().compute()
    name = "rows"
    while name in keys:
        name += "_"
    return raise_from_counts(plan, counts.rename(name).reset_index(), name)


# --------------------------------------------------------------------------- #
# One call: one or two reads of the input, summed on the workers
# --------------------------------------------------------------------------- #
def run(ddf: Any, plan: Plan, options: dict[str, Any]) -> tuple[Summary, dict[str, Any]]:
    """Read the input once or twice (clustered DeLong included): the summed summary and,
    with global AUC, its exact counts per (segment, score)."""
    npartitions = options.get("npartitions")
    ddf = _with_index(ddf, plan.columns)
    plan = _weights_once(ddf, plan, early=True)  # a weight Series, empty='error': before any pass
    # the passes' own columns under a prefix that no column of the input starts with
    job = auc_job(plan, internal_prefix(ddf.columns)) if plan.has_auc else None
    if job is None or not plan.auc_placements:
        summary, samples = group_pass(ddf, plan, npartitions, job.scores if job else ())
        raise_scan_errors(summary, plan)  # whole-table counts, before the score pass
        return summary, {"auc": score_pass(ddf, job, samples, npartitions) if job else None}
    # clustered DeLong: the score pass first (its counts give every segment's rows)
    counted = count_pass(ddf, job, npartitions)
    if plan.by and plan.group and fits(counted.sizes, counted.n_ranges):
        counted = None  # type: ignore[assignment]  # stubs narrower than runtime;  its persisted counts are freed on the workers while the segments run
        whole = segment_pass(ddf, plan, npartitions)  # a second read; nothing more
        if whole is not None:
            return whole
        # a group in two segments, or a bad value: the passes below raise pandas' error with
        # whole-table counts, after counting the distinct keys again (a third read, errors only)
        counted = count_pass(ddf, job, npartitions)
    auc, table = ranged_counts(counted, job, ddf.dtypes)
    # a second read: every row's global placement, merged in, then the groups
    rows, names = with_placements(ddf, plan, job, table)
    summary, _ = group_pass(rows, dataclasses.replace(plan, placement_columns=tuple(names)), npartitions, ())
    return summary, {"auc": auc}


# --------------------------------------------------------------------------- #
# per_group: a lazy Dask DataFrame, the per-group table of every partition of whole groups
# --------------------------------------------------------------------------- #
def _per_group_part(pdf: pd.DataFrame, plan: Plan, meta: pd.DataFrame, flat: bool) -> pd.DataFrame:
    """The per-group table of one partition of whole groups.

    Under ``nan_policy="omit"`` a partition may hold only rows with a missing value (the shuffle
    puts rows with a missing key together): it has no group, not an error.
    """
    if len(pdf) and plan.options.nan_policy == "omit":
        pdf = pdf.loc[~np.logical_or.reduce([missing_mask(pdf[c]) for c in plan.columns if c in pdf.columns])]
    if len(pdf) == 0:
        return meta
    out = pd.DataFrame(per_group_table(pdf, plan))
    return out.reset_index() if flat else out


def distinct(ddf: Any, column: Any) -> list[Any]:
    """The distinct non-missing values of a column (one pass of ``unique``)."""
    ddf = _with_index(ddf, [column])
    return pd.Series(ddf[column].dropna().unique().compute()).tolist()


def per_group(ddf: Any, plan: Plan, options: dict[str, Any]) -> Any:
    """Nothing is computed: the rows are shuffled by group key and every partition builds its
    groups' table. Missing values under ``nan_policy="raise"`` raise when the result is computed,
    with the count of the partition that holds them."""
    keys = list(plan.group)
    flat = len(keys) > 1
    if flat:  # the keys become columns beside the table's: none may be named like one (before any work)
        check_flat_names(plan, "Dask")
    ddf = _with_index(ddf, plan.columns)
    plan = _weights_once(ddf, plan, early=True)  # pandas' errors the whole table answers, now
    meta = schema(ddf)
    columns = {
        "n": pd.Series(dtype=np.int64),
        "positives": pd.Series(dtype=np.int64),
        **{n: pd.Series(dtype=np.float64) for n in display_names(plan)},
        "weight": pd.Series(dtype=np.float64),
    }
    if flat:
        out_meta = pd.DataFrame({**{k: pd.Series(dtype=meta[k].dtype) for k in keys}, **columns})  # type: ignore[misc]  # stubs narrower than runtime
    else:  # indexed by the key, as pandas' table (a key named 'n' beside the column 'n' included)
        out_meta = pd.DataFrame(columns, index=pd.Index([], dtype=meta[keys[0]].dtype, name=keys[0]))
    return shuffled(ddf, [*plan.columns, *plan.placement_columns], plan.group, options.get("npartitions")).map_partitions(
        _per_group_part, plan, out_meta, flat, meta=out_meta
    )
