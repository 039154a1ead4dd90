"""A LazyFrame, bucket by bucket: one scan for the checks, then whole groups a bucket at a time.

1. **Scan** (one streaming aggregation, nothing collected but one row): rows, missing values per
   column (null, or NaN in a float column: missing in pandas either way), rows dropped, and the
   values pandas refuses (infinite labels, negative labels for NDCG, negative or infinite
   weights). Their errors are raised from these whole-table counts by the summary layer's own
   check (:func:`pandas_rankeval.summary.raise_input_errors`), with pandas' messages, before any
   bucket is read. The same scan answers the errors pandas raises later (:func:`pandas_rankeval.summary.driver.raise_early`): a
   ``by`` that varies within a group (distinct (group, segment) keys against distinct groups; one
   small aggregate of those pairs gives pandas' example when they differ), labels too large for
   ``gain='exp2'`` (the largest label), groups with no relevant row under ``empty='error'``; a
   weight Series or callable is checked on the whole table's group keys (one aggregate).
2. **Buckets**: a row's bucket is a hash of its group key (``hash(key) % B``), so every group is
   whole in one bucket, and there are never more buckets than groups. With more than one bucket,
   one streaming pass writes the plan's columns to temporary Parquet files, one directory per
   bucket (a partitioned sink): the source is read once, whatever the number of buckets, and an
   empty bucket has no file. Each bucket's file is then read in turn, converted column by column
   (:mod:`.convert`) and summarized by :func:`pandas_rankeval.summary.summarize`; the summaries
   are added. Memory holds one bucket, never the table; the temporary directory (under
   ``tempfile.gettempdir()``, removed at the end) holds the plan's columns once, compressed.

Every step works on :func:`safe_columns`: the plan's columns selected by position and renamed
``c0``, ``c1``, ... once at entry, so that no user column name is read as a pattern by polars
(``"^s$"``, ``"*"``), and no user name can collide with the adapter's own columns (``__rk_*``).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass
from typing import Any

import pandas as pd
import polars as pl

from ...core.inputs.options import WEIGHT_NAMES
from ...core.inputs.prepare import relevance_rule
from ...summary.driver import Scan
from ...summary.problems import label_checks
from ...summary.scan_counts import ScanCount, ScanCounts, read_counts, scan_counts
from .auc import auc_pass, join_placements, map_ranges, place_ranges, score_key
from .convert import dtype_class, is_float, is_numeric, pandas_dtype, to_pandas

__all__ = ["LazySource", "Names", "buckets", "keep_expr", "relevant_expr", "relevant_rule", "safe_columns", "scan"]

_SEED = 0x2A5EED


@dataclass
class Names:
    """The plan's columns under the adapter's own names (``c0``, ``c1``, ...: never a pattern,
    never an internal ``__rk_*`` name) and the renamed frame's schema."""

    safe: dict[Hashable, str]  # user column -> name in the renamed frame
    schema: Any  # the renamed frame's schema

    def __getitem__(self, column: Hashable) -> str:
        return self.safe[column]

    def col(self, column: Hashable) -> pl.Expr:
        return pl.col(self.safe[column])

    def dtype(self, column: Hashable) -> Any:
        return self.schema[self.safe[column]]

    def free(self, name: str) -> str:
        """``name``, or ``name`` with ``_`` appended until no user column of the plan has it."""
        while name in self.safe:
            name += "_"
        return name

    def to_pandas(self, part: pl.DataFrame, extra: list[str] = (), cols: list[Hashable] | None = None) -> Any:  # type: ignore[assignment]
        """A collected bucket (or the user columns ``cols`` of a table) as a pandas frame under the
        user's column names (the ``extra`` columns under :meth:`free` names)."""
        cols = list(self.safe) if cols is None else cols
        pdf = to_pandas(part, [self.safe[c] for c in cols] + list(extra))
        pdf.columns = [*cols, *(self.free(e) for e in extra)]
        return pdf


def safe_columns(lf: pl.LazyFrame, plan: Any) -> tuple[pl.LazyFrame, Names]:
    """The plan's columns of ``lf`` selected by position (``pl.nth``: a name is never read as a
    regex or a wildcard) and renamed ``c0``, ``c1``, ... (no user name can collide with ours)."""
    position = {name: i for i, name in enumerate(lf.collect_schema().names())}
    cols = list(dict.fromkeys(plan.columns))
    safe = {c: f"c{j}" for j, c in enumerate(cols)}
    exprs = [pl.nth(position[str(c)]).alias(safe[c]) for c in cols]
    tb = plan.options.tiebreak
    schema = lf.collect_schema()
    other = {*plan.group, *plan.by, plan.label, *plan.scores}
    if tb is not None and tb not in other and dtype_class(schema[str(tb)]) is pl.Categorical:
        # a Categorical ranks by its categories' order (pandas' codes, as an eager frame converts
        # them), not lexically nor by each bucket's own order: its physical codes say that order
        exprs[cols.index(tb)] = pl.nth(position[str(tb)]).to_physical().alias(safe[tb])
    out = lf.select(exprs)
    return out, Names(safe, out.collect_schema())


def _missing(names: Names, column: Hashable) -> pl.Expr:
    c = names.col(column)
    return (c.is_null() | c.is_nan()) if is_float(names.dtype(column)) else c.is_null()


def keep_expr(plan: Any, names: Names) -> pl.Expr:
    """Rows with no missing value in any column the plan reads (the rows pandas keeps)."""
    cols = list(dict.fromkeys(plan.columns))
    keep = ~_missing(names, cols[0])
    for c in cols[1:]:
        keep = keep & ~_missing(names, c)
    return keep


def _numeric(dtype: Any) -> bool:
    """A numeric column that is not boolean (a label or weight that can be checked)."""
    return is_numeric(dtype) and dtype_class(dtype) is not pl.Boolean


def scan_spec(plan: Any, dtype: Callable[[Hashable], Any]) -> ScanCounts:
    """The shared scan's aggregates for a frame whose columns have the polars dtypes ``dtype(column)``
    (a LazyFrame's, or a DuckDB relation's as polars reads them)."""
    ldt = dtype(plan.label)
    o = plan.options
    weights = [o.sample_weight] if o.sample_weight is not None else []
    if isinstance(o.weight, str) and o.weight not in WEIGHT_NAMES:
        weights.append(o.weight)
    cal = tuple(s.name for s in plan.specs if not s.info.needs_ranking)
    return scan_counts(
        plan.columns, plan.label, label_float=is_float(ldt), checks=label_checks(plan, _numeric(ldt)),
        weights=[w for w in weights if _numeric(dtype(w))], calibration=cal,
        scores=[c for c in plan.scores if is_numeric(dtype(c))],
    )


#: Each operation of the shared scan (:data:`pandas_rankeval.summary.scan_counts.OPS`) as a polars
#: expression of (the column, it as Float64, the row is kept, the row has a missing value, the bound).
_EXPRS: dict[str, Callable[..., pl.Expr]] = {
    "rows": lambda c, d, kept, miss, bound: pl.len(),
    "dropped": lambda c, d, kept, miss, bound: miss.sum(),
    "infinite": lambda c, d, kept, miss, bound: (kept & c.is_infinite()).sum(),
    "bad_weight": lambda c, d, kept, miss, bound: (kept & (d.is_infinite() | (d < 0))).sum(),
    "negative": lambda c, d, kept, miss, bound: (kept & (d < 0)).sum(),
    "above": lambda c, d, kept, miss, bound: (kept & (d > bound)).sum(),
    "max": lambda c, d, kept, miss, bound: c.filter(kept).max(),  # exact: an integer stays an integer
    "not_binary": lambda c, d, kept, miss, bound: (kept & (d != 0) & (d != 1)).sum(),
    "not_binary_examples": lambda c, d, kept, miss, bound: d.filter(kept & (d != 0) & (d != 1)).unique().sort().head(3).implode(),
    "outside_unit": lambda c, d, kept, miss, bound: (kept & ~((d >= 0) & (d <= 1))).sum(),
    "min_double": lambda c, d, kept, miss, bound: d.filter(kept).min(),
    "max_double": lambda c, d, kept, miss, bound: d.filter(kept).max(),
}


def _count_expr(count: ScanCount, names: Names, kept: pl.Expr, any_miss: pl.Expr) -> pl.Expr:
    """One aggregate of the shared scan as a polars expression, named by the count."""
    if count.op == "missing":
        return _missing(names, count.column).sum().alias(count.name)
    c = names.col(count.column) if count.column is not None else pl.lit(None)
    return _EXPRS[count.op](c, c.cast(pl.Float64), kept, any_miss, count.bound).alias(count.name)


def _group_exprs(plan: Any, names: Names, kept: pl.Expr) -> list[pl.Expr]:
    """Distinct group keys, groups with a relevant row (empty='error'), (group, segment) pairs."""
    if not plan.group:
        return []
    out = [_key(plan.group, names).filter(kept).n_unique().alias("groups")]
    if any(s.info.eligibility == "relevant" for s in plan.specs) and plan.options.empty == "error":
        out.append(_key(plan.group, names).filter(kept & relevant_expr(names, plan)).n_unique().alias("with_rel"))
    if plan.by:
        out.append(_key([*plan.group, *plan.by], names).filter(kept).n_unique().alias("pairs"))
    return out


def scan(lf: pl.LazyFrame, plan: Any, names: Names) -> Scan:
    """One streaming aggregation: rows, missing values, refused values and distinct group keys,
    whole-table counts (the shared scan, :mod:`pandas_rankeval.summary.scan_counts`, in polars)."""
    spec = scan_spec(plan, names.dtype)
    any_miss = pl.any_horizontal([_missing(names, c) for c in spec.columns])
    kept = ~any_miss
    aggs = [_count_expr(count, names, kept, any_miss) for count in spec.counts]
    row = lf.select(aggs + _group_exprs(plan, names, kept)).collect(engine="streaming").row(0, named=True)
    missing, problems = read_counts(spec, row)
    missing = {c: n for c, n in missing.items() if n}
    groups = int(row["groups"]) if plan.group else 0
    out = Scan(int(row["rows"]), missing, int(row["dropped"]) if missing else 0, problems, groups)
    out.label_max = row.get("top")
    if "with_rel" in row:
        out.n_with_relevant = int(row["with_rel"])
    if "pairs" in row:
        out.n_pairs = int(row["pairs"])
    return out


def relevant_rule(dtype: Any, threshold: float | None) -> tuple[str, Any]:
    """How a label of polars ``dtype`` is relevant: the shared rule
    (:func:`pandas_rankeval.core.inputs.prepare.relevance_rule`) of the dtype pandas gives it."""
    return relevance_rule(pandas_dtype(dtype), threshold)


def relevant_expr(names: Names, plan: Any) -> pl.Expr:
    """A row's label is relevant (:func:`relevant_rule`) as a polars expression."""
    dtype = names.dtype(plan.label)
    op, bound = relevant_rule(dtype, plan.options.threshold)
    if op == "never":
        return pl.lit(False)
    c = names.col(plan.label) if isinstance(bound, int) else names.col(plan.label).cast(pl.Float64)
    return (c >= bound) if op == ">=" else (c > bound)


def _key(group: list[Hashable], names: Names) -> pl.Expr:
    """The group key as one expression (float keys as pandas groups them: -0.0 with 0.0). A
    column named twice (``by=`` a group column) is read once: a struct takes each name once."""
    cols = [_normalized(names, c) for c in dict.fromkeys(group)]
    return cols[0] if len(cols) == 1 else pl.struct(cols)


def _normalized(names: Names, column: Hashable) -> pl.Expr:
    """A key column as pandas groups it (a float key's -0.0 with 0.0)."""
    c = names.col(column)
    return (c.cast(pl.Float64) + 0.0).alias(names[column]) if is_float(names.dtype(column)) else c


def bucket_expr(group: list[Hashable], names: Names, n: int) -> pl.Expr:
    """``hash(group key) % n``: the same key lands in the same bucket."""
    return _key(group, names).hash(_SEED) % n


def buckets(lf: pl.LazyFrame, bucket: pl.Expr, n_buckets: int, tmp: str) -> list[pl.LazyFrame]:
    """The non-empty buckets of ``lf``: the frame itself for one bucket; otherwise one streaming
    pass that writes every row to its bucket's directory under ``tmp`` (a partitioned Parquet
    sink, the source read once), and a scan of each directory written."""
    if n_buckets <= 1:
        return [lf]
    lf.with_columns(bucket.alias("__rk_b")).sink_parquet(
        pl.PartitionBy(tmp, key="__rk_b", include_key=False), engine="streaming", mkdir=True
    )
    dirs = sorted(d for d in os.listdir(tmp) if d.startswith("__rk_b="))
    return [pl.scan_parquet(os.path.join(tmp, d)) for d in dirs]


class LazySource:
    """A LazyFrame's primitives for the partitioned driver (:class:`pandas_rankeval.summary.driver.Source`):
    every read goes through the renamed frame of :func:`safe_columns`."""

    prefix = "__rk_"

    def __init__(self, lf: pl.LazyFrame, plan: Any, range_rows: int) -> None:
        self.lf, self.names = safe_columns(lf, plan)
        self.keep = keep_expr(plan, self.names)
        self.range_rows = range_rows

    def _data(self, keep: bool) -> pl.LazyFrame:
        return self.lf.filter(self.keep) if keep else self.lf

    def scan(self, plan: Any) -> Scan:
        return scan(self.lf, plan, self.names)

    def distinct_rows(self, columns: list[Hashable], keep: bool) -> pd.DataFrame:
        # the values as the rows hold them, first seen first (a zero float key is named 0.0 later,
        # by core.segments.mixed_by_of_pairs, as on every engine)
        out = self._data(keep).select([self.names.col(c) for c in columns]).unique(maintain_order=True).collect()
        return self.names.to_pandas(out, cols=columns)  # type: ignore[no-any-return]

    def count_rows(self, keys: list[Hashable], keep: bool, count: str) -> pd.DataFrame:
        group = set(keys[:-1])
        exprs = [_normalized(self.names, c) if c in group else self.names.col(c) for c in keys]
        counts = self._data(keep).group_by(exprs).agg(pl.len().alias("__rk_n")).collect(engine="streaming")
        return self.names.to_pandas(counts, ["__rk_n"], cols=keys)  # type: ignore[no-any-return]

    def free(self, name: str) -> str:
        return self.names.free(name)

    def score_ranges(self, plan: Any, keep: bool, n_rows: int, placements: bool) -> Any:
        cols, ranges = auc_pass(self.lf, plan, self.names, keep=self.keep if keep else None, n_rows=n_rows,
                                range_rows=self.range_rows, placements=placements)
        return cols, (cols.keys, ranges)

    def map_ranges(self, ranges: Any, fn: Any) -> list[Any]:
        return map_ranges(ranges[1], fn)

    def place_ranges(self, ranges: Any, fn: Any, names: dict[int, str]) -> dict[int, Any]:
        return place_ranges(ranges[1], ranges[0], fn, names)

    def join(self, part: pl.DataFrame, score: Hashable, table: pl.DataFrame) -> pl.DataFrame:
        return join_placements(part, score_key(self.names.col(score), self.names.dtype(score)), table)

    def buckets(self, plan: Any, n_buckets: int, keep: bool) -> Iterator[pl.DataFrame]:
        data = self._data(keep).select([self.names[c] for c in dict.fromkeys(plan.columns)])
        with tempfile.TemporaryDirectory(prefix="rankeval-") as tmp:
            for q in buckets(data, bucket_expr(plan.group, self.names, n_buckets), n_buckets, tmp):
                part = q.collect(engine="streaming")
                if part.height:
                    yield part

    def to_pandas(self, part: pl.DataFrame, extra: list[str]) -> pd.DataFrame:
        return self.names.to_pandas(part, extra)  # type: ignore[no-any-return]

    def empty(self) -> pd.DataFrame:
        return self.names.to_pandas(self.lf.head(0).collect())  # type: ignore[no-any-return]
