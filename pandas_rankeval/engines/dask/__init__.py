"""The Dask engine: every public function of :mod:`pandas_rankeval` on a Dask DataFrame, exact.

An adapter (:mod:`pandas_rankeval.engines.base`) to the summary layer (:mod:`pandas_rankeval.summary`),
the code that pandas itself runs: it only decides how whole groups get into a partition and how the
partitions' summaries are added up. It computes no metric of its own and checks no option: the
public functions build the plan and raise every error the schema answers before calling :func:`run`.

How a call runs
---------------
1. **Checks from metadata** (:func:`schema`: ``ddf.dtypes``), before any compute, in the public
   function: missing columns, text scores or labels, bad options raise the errors of pandas.
The passes are the driver's (:func:`pandas_rankeval.summary.driver.evaluate_summed`, the global-AUC
pass :func:`pandas_rankeval.summary.ranges.auc_ranges`); :class:`DaskSource` gives them Dask's
primitives, and every result is reduced on the workers:

2. **Group pass** (:mod:`.groups`, the bucket primitive; group metrics, and every call's coverage
   counts): the rows are shuffled by group key so that each group is whole in one partition;
   the driver's function summarizes every partition (``summarize``), the summaries are added in
   a tree of tasks on the workers, and only the final, result-sized summary reaches the client.
   Missing values are counted in this pass, and the driver raises pandas' errors from its sum.
   No per-group row ever reaches the client (``per_group`` returns a lazy Dask DataFrame). With
   ``by=`` and replicate sums (``ci=``, ``compare``), every partition's summary is cut into shards
   of segments; a shard's pieces are added and reduced in one task, where its segments are whole
   (``summary.replicates``): the replicate sums never reach the client.
3. **Range pass** (:mod:`.scores`; global AUC only): every input partition counts its rows per
   distinct (score, segment, score key, tie-break, label), which collapses masses of tied scores;
   the counted keys are range-partitioned with cut points sampled in the group pass and
   shuffled; the driver's function gives every range's exact counts on the workers, and the
   driver chains the ranges in score order in Python integers. Equal scores never straddle two
   ranges, so the result is exact under every tie rule.
4. **Placements** (only for ``ci=`` / ``compare`` with global AUC, clustered DeLong, the pandas
   default ``auc_method="delong"`` with ``ties="expected"``): the range pass comes first, its
   counted keys persisted (cut points sampled from them); from the chained counts the driver's
   function gives every counted key its global DeLong placement on the workers, the rows are
   merged with that table on (segment, score key, tie-break, label), and the group pass runs on
   those rows with the placement columns, so ``summarize`` adds the per-segment DeLong moments.
5. **Segment mode** (the driver's :func:`~pandas_rankeval.summary.driver.segment_pass` over the
   bucket-of-segments primitive of :mod:`.segments`; that same call with ``by=`` of many
   segments): the counts of step 4's first read give every segment's rows. With at least two
   segments per partition and none larger than an average partition, the rows are shuffled by
   segment instead, and every partition, a pandas table of whole segments, is evaluated by the
   summary layer's code (:mod:`pandas_rankeval.summary.segment_mode`): metrics, global AUC,
   DeLong moments, intervals and p-values, with no placement pass, merge or group pass. The
   count pass's persisted counts are released first. A group found in two partitions (``by``
   varying within it) or a bad value sends the call back to steps 4 and 2 (counting again),
   which raise pandas' error with whole-table counts.

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

from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from pandas_rankeval.core.inputs.validation import missing_mask
from pandas_rankeval.summary.driver import evaluate_segmented, raise_summed_early
from pandas_rankeval.summary.plan import Plan
from pandas_rankeval.summary.summary import Summary
from pandas_rankeval.tables.per_group import (
    check_flat_names,
    display_names,
    per_group_table,
)

from ..base import internal_prefix, option_count
from .graph import shuffled
from .groups import (
    reduce_buckets as group_pass,  # the bucket primitive, under the name the tests trip on
)
from .scores import (
    Counted,
    count_pass,
    join_placements,
    map_ranges,
    place_ranges,
    range_columns,
    score_pass,
)
from .segments import reduce_segments

__all__ = ["NAME", "OPTIONS", "DaskSource", "check_options", "distinct", "partitioned", "per_group", "run", "schema",
           "with_row_number"]

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


def with_row_number(ddf: Any, name: str, resampled: bool = True) -> Any:
    """The frame with the row numbers 0..n-1 (int64) in the frame's order, as pandas numbers them:
    one small pass counts each partition's rows, each partition then numbers its own from its
    offset (no shuffle, no row on the client)."""
    lengths = np.asarray(ddf.map_partitions(len).compute(), dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(lengths)[:-1]])
    meta = ddf._meta.assign(**{name: np.array([], dtype=np.int64)})
    return ddf.map_partitions(_number_rows, name, offsets, meta=meta)


def _number_rows(pdf: pd.DataFrame, name: str, offsets: np.ndarray, partition_info: dict[str, Any] | None = None) -> pd.DataFrame:
    if partition_info is None:  # pragma: no cover - Dask passes it to every partition
        raise RuntimeError("pandas_rankeval: Dask did not pass partition_info to number the rows")
    start = int(offsets[partition_info["number"]])
    out = pdf.copy(deep=False)
    out[name] = np.arange(start, start + len(pdf), dtype=np.int64)
    return out


def partitioned(ddf: Any) -> bool:
    """A Dask frame is evaluated in partitions of whole groups."""
    return True


def check_options(options: dict[str, Any], func: str) -> dict[str, Any]:
    """``npartitions``: an int >= 1, or None (the input's number of partitions)."""
    return {"npartitions": option_count(options, "npartitions", func)}


# --------------------------------------------------------------------------- #
# The driver's primitives on a Dask DataFrame
# --------------------------------------------------------------------------- #
def _missing_counts(pdf: pd.DataFrame, cols: list[Hashable]) -> pd.DataFrame:
    """One partition's missing values per column (pandas' rule, :func:`missing_mask`), as one row
    with the columns' positions as names (any user name is safe)."""
    return pd.DataFrame([[int(missing_mask(pdf.iloc[:, i]).sum()) for i in range(len(cols))]],
                        columns=range(len(cols)), dtype=np.int64)


class DaskSource:
    """A Dask DataFrame's primitives for the driver (:class:`pandas_rankeval.summary.driver.Summed`):
    count by keys, cut into ranges, map over ranges and over buckets of whole groups, merge a
    table back; every result is reduced on the workers."""

    def __init__(self, ddf: Any, plan: Plan, npartitions: int | None) -> None:
        self.ddf = ddf
        self.plan = plan  # the rows' columns (the checked plan once the early checks ran)
        self.npartitions = npartitions
        # the passes' own columns under a prefix that no column of the input starts with
        self.prefix = internal_prefix(ddf.columns)
        self.cols = range_columns(plan, self.prefix)
        self.counted: Counted | None = None  # persisted counted keys (clustered DeLong)
        self.samples: dict[int, np.ndarray] | None = None  # sampled order keys (from the group pass)

    def missing(self) -> dict[Hashable, int]:
        cols = list(dict.fromkeys(self.plan.columns))
        meta = pd.DataFrame({i: pd.Series(dtype=np.int64) for i in range(len(cols))})
        counts = self.ddf[cols].map_partitions(_missing_counts, cols, meta=meta).sum().compute()
        return {c: int(counts.iloc[i]) for i, c in enumerate(cols) if int(counts.iloc[i])}

    # Tables
    def distinct_rows(self, columns: list[Hashable], keep: bool) -> pd.DataFrame:  # pragma: no cover - no scan
        rows = self.ddf[list(columns)]
        return rows.dropna().drop_duplicates().compute() if keep else rows.drop_duplicates().compute()

    def count_rows(self, keys: list[Hashable], keep: bool, count: str) -> pd.DataFrame:
        rows = self.ddf[list(dict.fromkeys([*self.plan.columns, *keys]))]
        rows = rows.dropna() if keep else rows  # rows without a missing value
        return rows.groupby(keys, dropna=True, observed=True).size().compute().rename(count).reset_index()

    def free(self, name: str) -> str:
        while name in self.ddf.columns:
            name += "_"
        return name

    # Ranges
    def score_ranges(self, plan: Plan, keep: bool, n_rows: int, placements: bool) -> Any:
        if placements and self.counted is None:
            self.counted = count_pass(self.ddf, plan, self.cols, self.npartitions)
        ranged = score_pass(self.ddf, plan, self.cols, self.npartitions, self.samples,
                            self.counted if placements else None, placements)
        return self.cols, ranged

    def map_ranges(self, ranges: Any, fn: Any) -> list[Any]:
        return map_ranges(ranges, fn)

    def place_ranges(self, ranges: Any, fn: Any, names: dict[int, str]) -> dict[int, Any]:
        return place_ranges(ranges, self.cols, fn, names, self.prefix)

    def join(self, part: Any, score: Hashable, table: Any) -> Any:
        return join_placements(part, self.plan, self.cols, score, table)

    # Buckets
    def bucket_total(self, whole: bool) -> int:
        return int((self.npartitions or self.ddf.npartitions) if whole else self.ddf.npartitions)

    # Segments
    def segment_rows(self, plan: Plan) -> pd.Series:
        """From the range pass's first read (its counted keys, persisted on the workers): reused by
        the range pass when segment mode does not run."""
        if self.counted is None:
            self.counted = count_pass(self.ddf, plan, self.cols, self.npartitions)
        return self.counted.sizes

    def reduce_segments(self, plan: Plan, part: Any, combine: Any, finish: Any) -> Any:
        self.counted = None  # its persisted counts are freed on the workers while the segments run
        return reduce_segments(self.ddf, plan.columns, plan.by, self.npartitions, part, combine, finish)

    def reduce_buckets(self, plan: Plan, whole: bool, placements: dict[Hashable, Any], part: Any, n_shards: int,
                       shard: Any) -> Summary:
        rows = self.ddf[list(plan.columns)]
        for s in plan.scores:
            if s in placements:
                rows = self.join(rows, s, placements[s])
        sample = tuple(plan.scores) if plan.has_auc and not placements else ()
        summary, samples = group_pass(rows, [*plan.columns, *plan.placement_columns], list(plan.group), whole,
                                      self.npartitions, part, n_shards, shard, Summary.sum, sample)
        if sample:
            self.samples = samples
        return summary  # type: ignore[no-any-return]


# --------------------------------------------------------------------------- #
# One call: the driver's passes, summed on the workers
# --------------------------------------------------------------------------- #
def run(ddf: Any, plan: Plan, options: dict[str, Any]) -> tuple[Summary, dict[str, Any]]:
    """Read the input once or twice (clustered DeLong and segment mode included): the summed
    summary and, with global AUC, its exact counts per (segment, score)
    (:func:`~pandas_rankeval.summary.driver.evaluate_segmented`)."""
    ddf = _with_index(ddf, plan.columns)
    return evaluate_segmented(DaskSource(ddf, plan, options.get("npartitions")), plan)


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


def distinct(ddf: Any, column: Any, options: dict[str, Any] | None = None) -> list[Any]:
    """The distinct non-missing values of a column (one pass of ``unique``)."""
    ddf = _with_index(ddf, [column])
    return pd.Series(ddf[column].dropna().unique().compute()).tolist()


def per_group(ddf: Any, plan: Plan, options: dict[str, Any]) -> Any:
    """Nothing is computed: the rows are shuffled by group key and every partition builds its
    groups' table. A weight Series or callable and ``empty='error'`` are checked now, on the whole
    table (with a missing value found first as pandas finds it). Missing values under
    ``nan_policy="raise"`` and the labels' problems (negative, infinite, above ERR's grade 4, other
    than 0/1 for a calibration metric) raise when the result is computed, with the count of the
    partition that holds them (a whole-table count would cost one more read of the input)."""
    keys = list(plan.group)
    flat = len(keys) > 1
    if flat:  # the keys become columns beside the table's: none may be named like one (before any work)
        check_flat_names(plan, "Dask")
    ddf = _with_index(ddf, plan.columns)
    source = DaskSource(ddf, plan, options.get("npartitions"))
    plan = raise_summed_early(source, plan)  # pandas' errors the whole table answers, now
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
