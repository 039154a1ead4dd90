"""A LazyFrame, bucket by bucket: one scan for the checks, then whole groups a bucket at a time.

1. **Scan** (one streaming aggregation, nothing collected but one row): rows, missing values per
   column (null, or NaN in a float column: missing in pandas either way), rows dropped, and the
   values pandas refuses (infinite labels, negative labels for NDCG, negative or infinite
   weights). Their errors are raised from these whole-table counts by the summary layer's own
   check (:func:`pandas_rankeval.summary.raise_input_errors`), with pandas' messages, before any
   bucket is read.
2. **Buckets**: a row's bucket is a hash of its group key (``hash(key) % B``), so every group is
   whole in one bucket. One bucket's columns are collected at a time (streaming engine, the
   projection and the filter pushed into the scan), converted column by column
   (:mod:`.convert`) and summarized by :func:`pandas_rankeval.summary.summarize`; the summaries
   are added. Memory holds one bucket, never the table.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

import polars as pl

from ...core.options import WEIGHT_NAMES
from ...summary.partition import summarize
from ...summary.summary import Summary, _shape, empty_summary
from .auc import score_key
from .convert import _base, is_float, is_numeric, to_pandas

__all__ = ["Scan", "group_pass", "keep_expr", "scan"]

_SEED = 0x2A5EED


def _missing(column: Hashable, dtype: Any) -> pl.Expr:
    c = pl.col(str(column))
    return (c.is_null() | c.is_nan()) if is_float(dtype) else c.is_null()


def keep_expr(plan: Any, schema: Any) -> pl.Expr:
    """Rows with no missing value in any column the plan reads (the rows pandas keeps)."""
    cols = list(dict.fromkeys(plan.columns))
    keep = ~_missing(cols[0], schema[str(cols[0])])
    for c in cols[1:]:
        keep = keep & ~_missing(c, schema[str(c)])
    return keep


@dataclass
class Scan:
    """What the one aggregation over the input found."""

    n_rows: int  # every row of the input
    missing: dict[Hashable, int]  # per column of the plan, in its order (zeros left out)
    n_dropped: int  # rows with a missing value in any of them
    problems: dict[tuple, int]  # as Summary.problems: values pandas refuses, among kept rows

    def summary(self, plan: Any) -> Summary:
        """A summary with these counts and no segment: the summary layer raises from it."""
        return Summary({}, self.missing, self.n_dropped, self.n_rows - self.n_dropped, _shape(plan), self.problems)


def scan(lf: pl.LazyFrame, plan: Any, schema: Any) -> Scan:
    """One streaming aggregation: rows, missing values and refused values, whole-table counts."""
    cols = list(dict.fromkeys(plan.columns))
    miss = [_missing(c, schema[str(c)]) for c in cols]
    any_miss = pl.any_horizontal(miss)
    kept = ~any_miss
    aggs = [pl.len().alias("rows"), any_miss.sum().alias("dropped")]
    aggs += [m.sum().alias(f"m{i}") for i, m in enumerate(miss)]
    label, o = str(plan.label), plan.options
    ldt = schema[label]
    kinds: list[tuple[str, tuple]] = []
    if is_float(ldt):
        aggs.append((kept & pl.col(label).is_infinite()).sum().alias("p0"))
        kinds.append(("p0", ("infinite_label", plan.label)))
    weights = [o.sample_weight] if o.sample_weight is not None else []
    if isinstance(o.weight, str) and o.weight not in WEIGHT_NAMES:
        weights.append(o.weight)
    for j, w in enumerate(weights):
        if is_numeric(schema[str(w)]) and _base(schema[str(w)]) is not pl.Boolean:
            wc = pl.col(str(w)).cast(pl.Float64)
            aggs.append((kept & (wc.is_infinite() | (wc < 0))).sum().alias(f"w{j}"))
            kinds.append((f"w{j}", ("bad_weight", w)))
    if is_numeric(ldt) and _base(ldt) is not pl.Boolean and any(s.info.graded for s in plan.specs):
        aggs.append((kept & (pl.col(label).cast(pl.Float64) < 0)).sum().alias("neg"))
        kinds.append(("neg", ("negative_label", plan.label)))
    row = lf.select(aggs).collect(engine="streaming").row(0, named=True)
    missing = {c: int(row[f"m{i}"]) for i, c in enumerate(cols) if row[f"m{i}"]}
    problems = {kind: int(row[name]) for name, kind in kinds if row[name]}
    return Scan(int(row["rows"]), missing, int(row["dropped"]) if missing else 0, problems)


def bucket_expr(group: list[Hashable], schema: Any, n: int) -> pl.Expr:
    """``hash(group key) % n``: the same key lands in the same bucket (float keys as pandas
    groups them: -0.0 with 0.0)."""
    cols = [
        (pl.col(str(c)).cast(pl.Float64) + 0.0).alias(str(c)) if is_float(schema[str(c)]) else pl.col(str(c))
        for c in group
    ]
    h = cols[0].hash(_SEED) if len(cols) == 1 else pl.struct(cols).hash(_SEED)
    return h % n


def group_pass(
    lf: pl.LazyFrame, plan: Any, schema: Any, n_buckets: int, placements: dict[Hashable, pl.DataFrame]
) -> Summary:
    """Every bucket of whole groups collected, converted and summarized in turn; the sum."""
    cols = [str(c) for c in dict.fromkeys(plan.columns)]
    names: list[str] = []
    joins: list[tuple[pl.Expr, pl.LazyFrame, list[str]]] = []
    for i, s in enumerate(plan.scores):
        if s in placements:
            table = placements[s]
            on = [c for c in table.columns if c != f"__rk_pl_{i}"]
            joins.append((score_key(s, schema[str(s)]).alias(f"__rk_key_{i}"), table.lazy(), on))
            names.append(f"__rk_pl_{i}")
    part_plan = dataclasses.replace(plan, placement_columns=tuple(names)) if names else plan
    bucket = bucket_expr(plan.group, schema, n_buckets)
    total = empty_summary(plan)
    for b in range(n_buckets):
        q = lf.filter(bucket == b) if n_buckets > 1 else lf
        q = q.select(cols)
        for key, table, on in joins:  # type: ignore[assignment]  # stubs narrower than runtime
            q = q.with_columns(key).join(table, on=on, how="left", nulls_equal=False)  # type: ignore[arg-type]  # stubs narrower than runtime
        part = q.select([*cols, *names]).collect(engine="streaming")
        if part.height == 0:
            continue
        total = total + summarize(to_pandas(part, [*cols, *names]), part_plan)
        del part
    return total
