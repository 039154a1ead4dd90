"""The passes of a partitioned evaluation, written once against a narrow protocol of primitives.

An engine that evaluates a frame in buckets of whole groups (a polars LazyFrame, a DuckDB
relation) gives the driver a :class:`Source`: a handful of primitives that read the table and
know nothing of metrics, options or messages. The driver runs every pass in one order:

1. **scan**: the source's one aggregate of whole-table counts (:class:`Scan`); a ``by`` that
   varies within a group (distinct (group, segment) keys against distinct groups, and pandas'
   example from the distinct pairs, read only then) joins the values it found; the errors pandas
   raises from them (:func:`~pandas_rankeval.summary.finalize.raise_input_errors`: missing values,
   labels too large for ``gain='exp2'`` or for a metric's top grade, ...), with whole-table counts
   and in pandas' order, before any other work;
2. **early errors** (:func:`raise_early`), still before any bucket: a weight Series or callable
   checked on the whole table's group statistics (rows per (group key, label)), groups with no
   relevant row under ``empty='error'``;
3. **global AUC** (:func:`~pandas_rankeval.summary.ranges.auc_ranges`): exact counts per (segment,
   score) from the source's ranges of distinct scores, chained in order, with the DeLong placement
   tables when the plan asks for them;
4. **buckets** of whole groups (:func:`group_pass`): each bucket collected, the placements joined
   on, summarized by the shared per-partition code
   (:func:`~pandas_rankeval.summary.partition.summarize`), the summaries added; or, for
   ``per_group``, each bucket's kept rows handed back (:func:`per_group_parts`).

An engine that summarizes its buckets where they lie (Dask, Spark) gives a :class:`Summed`
instead, and the same passes run as :func:`evaluate_summed`; one that can also put whole
segments in a bucket (a :class:`Segmented`: Dask) may skip the global-AUC placements with
**segment mode** (:func:`segment_pass`, :mod:`~pandas_rankeval.summary.segment_mode`): every
bucket of whole segments evaluated as pandas evaluates a table.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Hashable, Iterator, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any, Protocol

import numpy as np
import pandas as pd

from ..core.metrics.coverage import empty_error
from ..core.evaluation.pipeline import exp2_overflow
from ..core.inputs.options import WEIGHT_NAMES
from ..core.inputs.prepare import rows_per_segment
from ..core.inputs.segments import mixed_by_of_pairs
from ..core.inputs.validation import missing_values_error
from .checks import needs_group_stats, weights_once
from .finalize import raise_input_errors
from .partition import summarize, summary_of_auc
from .plan import Plan
from .problems import label_problems, mixed_by_counts, problem_counts
from .ranges import Ranges, auc_ranges
from .replicates import reduce_shard, shard_count
from .segment_mode import SegmentPart, add_segments, finish_segments, fits, segment_part
from .summary import Summary, _shape, empty_summary

__all__ = [
    "Scan", "Segmented", "Source", "Summed", "Tables", "bucket_count", "dropped_by_segment", "dropped_of_counts",
    "evaluate", "evaluate_segmented", "evaluate_summed",
    "group_pass", "needs_counts", "per_group_parts", "raise_checked", "raise_early", "raise_from_counts",
    "raise_from_tables", "raise_scan_errors", "raise_summed_early", "segment_mode", "segment_pass", "split_summary",
    "summed_group_pass",
]


@dataclass
class Scan:
    """What the source's one aggregation over the input found (whole-table counts)."""

    n_rows: int  # every row of the input
    missing: dict[Hashable, int]  # per column of the plan, in its order (zeros left out)
    n_dropped: int  # rows with a missing value in any of them
    problems: dict[tuple, int]  # as Summary.problems: values pandas refuses, among kept rows
    n_groups: int = 0  # distinct group keys among kept rows (an estimate may do when n_pairs and n_with_relevant are None)
    label_max: Any = None  # the largest kept label (graded metrics with gain='exp2', a metric's top grade)
    n_with_relevant: int | None = None  # groups with a relevant row (empty='error')
    n_pairs: int | None = None  # distinct (group key, segment key) among kept rows (by=)

    def summary(self, plan: Plan) -> Summary:
        """A summary with these counts and no segment: the summary layer raises from it (in pandas'
        order). The largest label joins the problems it explains: ``gain='exp2'`` overflow, or the
        example of labels above a metric's top grade (``label_grade``)."""
        problems = dict(self.problems)
        top = self.label_max
        if top is not None:
            top = top.item() if isinstance(top, np.generic) else top
            graded = any(s.info.graded for s in plan.specs)
            if graded and plan.options.gain == "exp2" and exp2_overflow(plan.label, top, plan.options.threshold):
                problems[("exp2_label", (plan.label, top))] = 1
            if any(k == "label_grade" for k, _ in problems):
                problems[("label_grade:example", float(top))] = 1
        return Summary({}, self.missing, self.n_dropped, self.n_rows - self.n_dropped, _shape(plan), problems)


class Tables(Protocol):
    """The primitives the early checks need: two small aggregates (no metric, option or message).
    ``keep`` says whether to read only the rows pandas keeps (no missing value in a column of the
    plan); the driver asks for it only when the scan found dropped rows."""

    def distinct_rows(self, columns: list[Hashable], keep: bool) -> pd.DataFrame:
        """The distinct rows of ``columns`` (user names), in the order of their first rows."""
        ...

    def count_rows(self, keys: list[Hashable], keep: bool, count: str) -> pd.DataFrame:
        """Rows per distinct ``keys`` (user names; float group keys as pandas groups them), the
        count in column ``count``."""
        ...

    def free(self, name: str) -> str:
        """``name``, changed until no column of the table or the plan has it."""
        ...


class Source(Tables, Ranges, Protocol):
    """The primitives a partitioned engine gives the driver for every pass (no metric, option or
    message)."""

    #: The start of the names of the driver's own columns (no column of the table starts with it).
    prefix: str

    def scan(self, plan: Plan) -> Scan:
        """One aggregate over the table: the whole-table counts of :class:`Scan`."""
        ...

    def join(self, part: Any, score: Hashable, table: Any) -> Any:
        """A collected bucket with the placement table of ``score`` (:meth:`place_ranges`) joined on
        (left, on the table's :attr:`~pandas_rankeval.summary.ranges.RangeColumns.keys`, the bucket's
        score as its order key)."""
        ...

    def buckets(self, plan: Plan, n_buckets: int, keep: bool) -> Iterator[Any]:
        """The non-empty buckets of whole groups (``hash(group key) % n_buckets``) of the plan's
        columns, one collected frame at a time."""
        ...

    def to_pandas(self, part: Any, extra: list[str]) -> pd.DataFrame:
        """A collected bucket as a pandas frame: the plan's columns under the user's names, then
        the ``extra`` columns under :meth:`free` names."""
        ...

    def empty(self) -> pd.DataFrame:
        """The plan's columns with no row, as :meth:`to_pandas` gives them."""
        ...


class Summed(Tables, Ranges, Protocol):
    """The primitives of an engine whose buckets are summarized where they lie and added in a tree
    there (Dask): the client never holds a bucket, nor a per-group row. Its whole-table counts ride
    along with the group pass (its summed summary), so it has no scan of its own."""

    prefix: str

    def missing(self) -> dict[Hashable, int]:
        """The missing values of each column of the plan over the whole table (one aggregate;
        columns with none left out): asked for only on the way to an error, which pandas would
        raise after them."""
        ...

    def bucket_total(self, whole: bool) -> int:
        """The buckets :meth:`reduce_buckets` makes (``whole``: of whole groups)."""
        ...

    def reduce_buckets(self, plan: Plan, whole: bool, placements: dict[Hashable, Any],
                       part: Callable[[pd.DataFrame], tuple[Summary, ...]], n_shards: int,
                       shard: Callable[[list[Summary]], Summary]) -> Summary:
        """``part`` of every bucket (a pandas frame of the plan's columns and, joined on, the
        ``placements`` tables' columns; of whole groups when ``whole``, else any rows), run where
        it lies: ``n_shards`` pieces; piece ``k`` of every bucket reduced by ``shard``, the shards
        added (``Summary.sum``), all of it where the buckets are. The sum."""
        ...


class Segmented(Summed, Protocol):
    """:class:`Summed`, and buckets of whole segments: the primitives of segment mode
    (:func:`segment_pass`)."""

    def segment_rows(self, plan: Plan) -> pd.Series:
        """Rows per segment key (pandas' grouping by value) among the rows pandas keeps. The engine
        may keep what it counted for the range pass (:meth:`score_ranges` with placements)."""
        ...

    def reduce_segments(self, plan: Plan, part: Callable[[pd.DataFrame], SegmentPart],
                        combine: Callable[[list[SegmentPart]], SegmentPart],
                        finish: Callable[[SegmentPart], Any]) -> Any:
        """The rows of the plan's columns in buckets of whole segments (by value: ``1``, ``1.0``
        and ``True`` are one segment), ``part`` of every bucket run where it lies, the results
        combined by ``combine`` in a tree there and ``finish`` of the root, the only result that
        travels. What :meth:`segment_rows` kept may be released first."""
        ...


def bucket_count(found: Scan, options: dict[str, Any]) -> int:
    """Buckets asked for (or kept rows / ``rows_per_bucket``), never more than the groups."""
    n_rows = found.n_rows - found.n_dropped
    wanted = options["buckets"] or max(1, -(-n_rows // options["rows_per_bucket"]))
    return int(max(1, min(wanted, found.n_groups)))


def raise_early(source: Tables, plan: Plan, found: Scan) -> Plan:
    """The errors pandas raises from values, answered by whole-table counts (or one small aggregate)
    before any bucket: a segment that varies within a group, a weight Series or callable pandas refuses, groups with no relevant row under ``empty='error'``.
    Returns the plan (with a weight callable called once)."""
    keep = bool(found.n_dropped)
    if plan.group and needs_counts(plan, empty=False):  # every group's statistics, once
        count = source.free("__rk_n")
        counts = source.count_rows(list(dict.fromkeys([*plan.group, plan.label])), keep, count)
        plan = weights_once(plan, counts, count)
    lists = [s for s in plan.specs if s.info.eligibility == "relevant"]
    if found.n_with_relevant is not None and lists and found.n_groups > found.n_with_relevant:
        raise empty_error(lists[0].name, found.n_groups - found.n_with_relevant, found.n_groups)
    return plan


def dropped_of_counts(every: pd.DataFrame, kept: pd.DataFrame, by: list[Hashable], count: str,
                      dtypes: Mapping[Hashable, Any] | None = None) -> dict[tuple, int]:
    """Rows dropped per segment key (``Summary.dropped_by``) from two aggregates of rows per
    distinct ``by`` values (count in column ``count``): of every row, and of the kept rows. Rows
    with a missing segment value are in no segment (:func:`~pandas_rankeval.core.inputs.prepare.rows_per_segment`).
    ``dtypes`` (the table's pandas dtypes): an integer segment column that came back as floats
    (it had missing values) is read as integers, so a segment is named as pandas names it.

    >>> every = pd.DataFrame({"d": [1.0, 2.0, None], "n": [5, 3, 4]})
    >>> kept = pd.DataFrame({"d": [1.0, 2.0], "n": [4, 3]})
    >>> dropped_of_counts(every, kept, ["d"], "n", {"d": np.dtype("int64")})
    {(1,): 1}
    """
    kinds = {c: getattr(dtypes[c], "kind", "") for c in by if dtypes is not None and c in dtypes}

    def ints(frame: pd.DataFrame) -> pd.DataFrame:
        cast = {c: "Int64" for c in by if kinds.get(c) in ("i", "u") and frame[c].dtype.kind == "f"}
        return frame.astype(cast) if cast else frame

    every, kept = ints(every), ints(kept)
    out = rows_per_segment(every, by, every[count])
    for k, n in rows_per_segment(kept, by, kept[count]).items():
        out[k] = out.get(k, 0) - n
    return {k: n for k, n in out.items() if n}


def dropped_by_segment(source: Tables, plan: Plan, n_dropped: int,
                       dtypes: Mapping[Hashable, Any] | None = None) -> dict[tuple, int]:
    """:func:`dropped_of_counts` from the source's rows per segment (every row, kept rows): for an
    engine whose buckets hold the kept rows only. Empty without ``by`` or dropped rows (no query)."""
    if not plan.by or not n_dropped:
        return {}
    count = source.free("__rk_n")
    by = list(plan.by)
    return dropped_of_counts(source.count_rows(by, False, count), source.count_rows(by, True, count), by, count, dtypes)


def needs_counts(plan: Plan, empty: bool = True) -> bool:
    """The plan's early checks need rows per (group key, label): a weight callable (called once on
    them), a weight Series (checked on the whole table's group keys), or (``empty``) groups with no
    relevant row under ``empty='error'``."""
    series = isinstance(plan.options.weight, pd.Series) and bool(plan.specs)
    lists = empty and plan.options.empty == "error" and any(s.info.eligibility == "relevant" for s in plan.specs)
    return bool(plan.group) and (needs_group_stats(plan) or series or lists)


def raise_from_counts(plan: Plan, counts: pd.DataFrame, count: str) -> Plan:
    """The early checks of an engine that has no scan of its own (Dask's and Spark's lazy
    ``per_group``), from one aggregate: rows per (group key, label) of the kept rows in column
    ``count``. A weight Series or callable (:func:`~pandas_rankeval.summary.checks.weights_once`)
    and ``empty='error'`` raise pandas' errors with whole-table counts. Returns the plan."""
    import numpy as np

    from ..core.inputs.prepare import label_levels
    from ..core.inputs.validation import numeric_values

    plan = weights_once(plan, counts, count) if needs_counts(plan, empty=False) else plan
    lists = [s for s in plan.specs if s.info.eligibility == "relevant"]
    if lists and plan.options.empty == "error" and len(counts):
        y = numeric_values(counts[plan.label], plan.label, "label", keep_int=True)
        rel = np.asarray(label_levels(y, plan.options.threshold, graded=False).rel, dtype=bool)
        keys = counts[list(plan.group)]
        n_groups = len(keys.drop_duplicates())
        n_rel = len(keys.loc[rel].drop_duplicates())
        if n_groups > n_rel:
            raise empty_error(lists[0].name, n_groups - n_rel, n_groups)
    return plan


def raise_scan_errors(found: Scan | Summary, plan: Plan) -> None:
    """pandas' errors from the scan's whole-table counts (missing values, no row left, the values
    pandas refuses), in pandas' order (:func:`~pandas_rankeval.summary.finalize.raise_input_errors`).
    An engine whose scan rides along with its first pass (Dask's group pass) gives that pass's
    summed summary instead."""
    raise_input_errors(found.summary(plan) if isinstance(found, Scan) else found, plan)


def mixed_by(source: Tables, plan: Plan, found: Scan) -> None:
    """A segment that varies within a group, found from the scan's distinct (group key, segment
    key) count against its distinct group keys, joins the scan's problems (pandas' example from
    the distinct pairs: read only then), to be raised in pandas' order among them."""
    if found.n_pairs is not None and found.n_pairs > found.n_groups:  # some group has two segments
        pairs = source.distinct_rows(list(dict.fromkeys([*plan.group, *plan.by])), bool(found.n_dropped))
        problem = mixed_by_of_pairs(pairs, plan.by, plan.group, plan.func)
        if problem is not None:
            found.problems.update(problem_counts(problem))


def raise_checked(source: Tables, plan: Plan, found: Scan) -> Plan:
    """Every error a scan answers, in pandas' order: a ``by`` that varies within a group joins the
    scan's problems (:func:`mixed_by`), they are raised (:func:`raise_scan_errors`), then the early
    errors (:func:`raise_early`). Returns the plan (with a weight callable called once)."""
    mixed_by(source, plan, found)
    raise_scan_errors(found, plan)
    return raise_early(source, plan, found)


def checked(source: Source, plan: Plan) -> tuple[Plan, Scan]:
    """The scan and every error it answers, before any other work."""
    found = source.scan(plan)
    return raise_checked(source, plan, found), found


def group_pass(source: Source, plan: Plan, n_buckets: int, placements: dict[Hashable, Any]) -> Summary:
    """Every bucket of whole groups collected, its DeLong placements joined on, summarized by the
    shared per-partition code; the sum."""
    extra = [f"{source.prefix}pl_{i}" for i, s in enumerate(plan.scores) if s in placements]
    part_plan = dataclasses.replace(plan, placement_columns=tuple(source.free(e) for e in extra)) if extra else plan
    total = empty_summary(plan)
    for part in source.buckets(plan, n_buckets, False):
        for s in plan.scores:
            if s in placements:
                part = source.join(part, s, placements[s])
        total = total + summarize(source.to_pandas(part, extra), part_plan)
    return total


def split_summary(pdf: pd.DataFrame, plan: Plan, n: int) -> tuple[Summary, ...]:
    """One bucket's summary (:func:`~pandas_rankeval.summary.partition.summarize`) in ``n`` shards of
    segments (one piece when ``n`` is 1)."""
    summary = summarize(pdf, plan)
    return (summary,) if n == 1 else tuple(summary.split(n))


def summed_group_pass(source: Summed, plan: Plan, placements: dict[Hashable, Any]) -> Summary:
    """Every bucket summarized and the summaries added where the buckets are. With ``by=`` and
    replicate sums (intervals, ``compare``) each summary is cut into shards of segments and every
    shard reduced where its segments are whole (:func:`~pandas_rankeval.summary.replicates.reduce_shard`),
    so that no replicate sum reaches the client. Group metrics and segments need whole groups;
    global AUC's coverage alone takes any partition of rows."""
    extra = tuple(f"{source.prefix}pl_{i}" for i, s in enumerate(plan.scores) if s in placements)
    part_plan = dataclasses.replace(plan, placement_columns=extra) if extra else plan
    whole = bool(plan.specs or plan.by or extra)
    n = shard_count(plan, source.bucket_total(whole))
    shard = Summary.sum if n == 1 else partial(reduce_shard, plan=plan)
    return source.reduce_buckets(part_plan, whole, placements, partial(split_summary, plan=part_plan, n=n), n, shard)


def _values_unseen(plan: Plan) -> bool:
    """Whether some value pandas checks before a weight or an empty group is outside the rows per
    (group key, label) that the early checks read: the scores of a calibration metric, a sample
    weight or a weight column."""
    o = plan.options
    return (any(not s.info.needs_ranking for s in plan.specs) or o.sample_weight is not None
            or (isinstance(o.weight, str) and o.weight not in WEIGHT_NAMES))


def raise_from_tables(source: Tables, plan: Plan) -> Plan:
    """:func:`raise_from_counts` from the source's rows per (group key, label) of the kept rows,
    when the plan's early checks need them (a weight Series or callable, ``empty='error'``)."""
    if not needs_counts(plan):
        return plan
    count = source.free("rows")
    counts = source.count_rows(list(dict.fromkeys([*plan.group, plan.label])), True, count)
    try:
        return raise_from_counts(plan, counts, count)
    except ValueError:  # pandas meets the values' problems first: the labels' from these counts, and
        problems = label_problems(counts[plan.label], plan, counts[count].to_numpy())
        if plan.by:  # a by that varies within a group from one more aggregate (on this error only)
            problems.update(mixed_by_counts(source.count_rows(list(dict.fromkeys([*plan.group, *plan.by])), True, count), plan))
        raise_input_errors(Summary({}, {}, 0, int(counts[count].sum()), _shape(plan), problems), plan)
        raise


def raise_summed_early(source: Summed, plan: Plan) -> Plan:
    """:func:`raise_from_tables` for an engine that sums its buckets where they lie. When it raises,
    missing values (``nan_policy='raise'``; those counts hold the complete rows only) are counted by
    one aggregate and raised first, as pandas does; when a value it cannot see may come first in
    pandas' order (:func:`_values_unseen`), the group pass counts the values (on this error only)
    and raises what pandas raises first."""
    try:
        return raise_from_tables(source, plan)
    except ValueError:
        missing = source.missing() if plan.options.nan_policy == "raise" else {}
        if missing:
            raise missing_values_error({c: missing[c] for c in plan.columns if missing.get(c)}) from None
        if _values_unseen(plan):
            # counting only: no weight (the one that raised) and no empty='error' (it comes after
            # a weight error in pandas' order, and the group pass would raise it first)
            counting = dataclasses.replace(plan, options=dataclasses.replace(plan.options, weight=None, empty="zero"))
            raise_scan_errors(summed_group_pass(source, counting, {}), counting)
        raise


def evaluate_summed(source: Summed, plan: Plan, early: bool = True) -> tuple[Summary, dict[str, Any]]:
    """Every pass of an engine that sums its buckets where they lie (:class:`Summed`): the early
    checks (``early``: one small aggregate, when the plan needs it), the group pass and its
    whole-table counts' errors, and global AUC after it (clustered DeLong: before it, its
    placements joined to the rows of the group pass). Reads the input twice with global AUC
    (once without)."""
    plan = raise_summed_early(source, plan) if early else plan
    if not plan.has_auc or not (plan.auc_placements and plan.group):
        summary = summed_group_pass(source, plan, {})
        raise_scan_errors(summary, plan)  # whole-table counts, before the range pass
        if not plan.has_auc:
            return summary, {"auc": None}
        return summary, {"auc": auc_ranges(source, plan, True, summary.n_rows, False, source.prefix).auc}
    counted = auc_ranges(source, plan, True, 0, True, source.prefix)
    summary = summed_group_pass(source, plan, counted.placements)
    raise_scan_errors(summary, plan)
    return summary, {"auc": counted.auc}


def segment_mode(plan: Plan) -> bool:
    """The plan may run in segment mode (:func:`segment_pass`): ``by=`` over groups with clustered
    DeLong for global AUC, which would otherwise need a range pass, a placement pass and a join
    before the group pass."""
    return bool(plan.has_auc and plan.auc_placements and plan.by and plan.group)


def segment_pass(source: Segmented, plan: Plan) -> tuple[Summary, dict[str, Any]] | None:
    """Segment mode: when the rows per segment say that buckets of whole segments balance
    (:func:`~pandas_rankeval.summary.segment_mode.fits`), every bucket of whole segments is
    evaluated as pandas evaluates a table (:func:`~pandas_rankeval.summary.segment_mode.segment_part`:
    metrics, global AUC, DeLong moments, intervals and p-values) and the results are added where
    they lie; the summary and the extras of :func:`pandas_rankeval.tables.finalize`.

    None when the buckets would not balance, or when a group has rows in two segments or a bad
    value was counted: the other passes then raise pandas' error with whole-table counts."""
    if not fits(source.segment_rows(plan), source.bucket_total(True)):
        return None
    summary, extras, flagged = source.reduce_segments(plan, partial(segment_part, plan=plan), add_segments,
                                                      finish_segments)
    return None if flagged else (summary, extras)


def evaluate_segmented(source: Segmented, plan: Plan) -> tuple[Summary, dict[str, Any]]:
    """:func:`evaluate_summed` for an engine that also gives buckets of whole segments: the early
    checks, then segment mode when the plan allows it and the segments balance
    (:func:`segment_pass`: the count of rows per segment, then one more read, nothing else),
    else the summed passes (a group in two segments or a bad value: they count again and raise
    pandas' error)."""
    plan = raise_summed_early(source, plan)
    if segment_mode(plan):
        whole = segment_pass(source, plan)
        if whole is not None:
            return whole
    return evaluate_summed(source, plan, early=False)


def evaluate(source: Source, plan: Plan, options: dict[str, Any]) -> tuple[Summary, dict[str, Any]]:
    """Every pass of a partitioned evaluation: the summed summary and the extras of
    :func:`pandas_rankeval.tables.finalize`. ``options`` holds ``buckets`` and ``rows_per_bucket``."""
    plan, found = checked(source, plan)
    extras: dict[str, Any] = {}
    placements: dict[Hashable, Any] = {}
    counted = None
    if plan.has_auc:
        counted = auc_ranges(source, plan, bool(found.n_dropped), found.n_rows - found.n_dropped,
                             bool(plan.auc_placements and plan.group), source.prefix)
        extras["auc"] = counted.auc
        placements = counted.placements
    if plan.group:
        return group_pass(source, plan, bucket_count(found, options), placements), extras
    if counted is None:  # pragma: no cover - a plan without groups is global AUC
        raise ValueError(f"{plan.func}: a plan without groups must ask for global AUC")
    summary = summary_of_auc(plan, counted.auc, n_rows=counted.n_rows, n_pos=counted.n_pos,
                             missing=found.missing, n_dropped=found.n_dropped)
    return summary, extras


def per_group_parts(source: Source, plan: Plan, options: dict[str, Any]) -> tuple[Plan, Iterator[pd.DataFrame]]:
    """The checked plan (every error raised now) and the buckets' kept rows as pandas frames, one
    at a time (the empty frame of the plan's columns when no row is kept), for
    :func:`pandas_rankeval.tables.per_group.per_group_table`."""
    plan, found = checked(source, plan)
    n_buckets = bucket_count(found, options)

    def parts() -> Iterator[pd.DataFrame]:
        seen = False
        for part in source.buckets(plan, n_buckets, bool(found.n_dropped)):
            seen = True
            yield source.to_pandas(part, [])
        if not seen:
            yield source.empty()

    return plan, parts()
