"""The DuckDB engine: every public function on a ``duckdb.DuckDBPyRelation``, exact.

A relation (``duckdb.sql("select * from 'log/*.parquet'")``, a table of a DuckDB file, a relation
over a pandas or Arrow frame) is evaluated where it lies, and answers the questions of the engine
protocol (:mod:`pandas_rankeval.engines.base`) with no metric, option or table logic of its own:

- **schema**: the relation's columns and types (no data read) as an empty pandas frame with the
  dtypes pandas gives them (``DECIMAL`` and ``HUGEINT`` read as float64, ``VARCHAR`` as ``str``),
  from which the plan is made and the name and dtype checks raise pandas' own errors;
- **run**: one aggregate query for the checks (whole-table counts, pandas' messages, before any
  other work), global AUC from counts per distinct score computed by DuckDB (``GROUP BY``) and
  chained exactly, then whole groups bucket by bucket (``hash(group key) % B``) from one query
  ordered by bucket, each bucket summarized by the shared per-partition code (:mod:`.sql`).
  Client memory holds one bucket (and, for a DeLong interval of global AUC, one row per distinct
  score), never the table; DuckDB's own threads run the scans, hashes, counts and the sort.
- **per_group**: every group's metrics as a pandas table (one bucket at a time).

Options that need every row in one place (a multinomial bootstrap, ``max_fpr``, a bootstrap
interval of global AUC) are refused by name before any work, as on the other partitioned engines.
"""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from ...core.validation import check_min_count
from ...summary.finalize import raise_input_errors
from ...summary.partition import summarize, summary_of_auc
from ...summary.plan import Plan
from ...summary.summary import Summary, empty_summary
from ..base import internal_prefix
from ..polars.convert import schema_frame, to_pandas
from .sql import auc_pass, bucket_batches, keep_sql, scan

__all__ = ["NAME", "OPTIONS", "check_options", "distinct", "partitioned", "per_group", "run", "schema"]

NAME = "DuckDB"
#: ``engine_options`` of a DuckDB relation.
OPTIONS: tuple[str, ...] = ("rows_per_bucket", "buckets")
#: Rows of one bucket of whole groups (what the client holds at a time).
ROWS_PER_BUCKET = 2_000_000


def _polars_schema(rel: Any) -> Any:
    return _as_pandas_reads(rel).limit(0).pl().schema


def _as_pandas_reads(rel: Any) -> Any:
    """DECIMAL and HUGEINT columns as DOUBLE, as pandas reads a relation (``rel.df()``); others unchanged."""
    cols, changed = [], False
    for name, kind in zip(rel.columns, rel.types):
        q = '"' + str(name).replace('"', '""') + '"'
        if str(kind).upper().startswith(("DECIMAL", "HUGEINT", "UHUGEINT")):
            cols.append(f"CAST({q} AS DOUBLE) AS {q}")
            changed = True
        else:
            cols.append(q)
    return rel.project(", ".join(cols)) if changed else rel


def schema(frame: Any) -> pd.DataFrame:
    """An empty pandas frame with the relation's columns and the dtypes pandas gives them.

    Examples
    --------
    >>> import duckdb
    >>> rel = duckdb.sql("select 'a' as u, 1 as y, 0.5::double as s, 2.5::decimal(4, 1) as d")
    >>> [str(t) for t in schema(rel).dtypes]
    ['str', 'int32', 'float64', 'float64']
    """
    return schema_frame(_polars_schema(frame), "duckdb")


def _weights_once(rel: Any, plan: Plan) -> Plan:
    """A weight callable called once, on the whole table's group statistics (one SQL aggregate of
    rows per (group key, label) over the rows the evaluation keeps), as on every engine."""
    from ...summary.checks import needs_group_stats, weights_once

    if not plan.group or not needs_group_stats(plan):
        return plan

    def q(c: Any) -> str:
        return '"' + str(c).replace('"', '""') + '"'

    wanted = {str(c) for c in plan.columns}
    conds = []
    if plan.options.nan_policy == "omit":
        for name, kind in zip(rel.columns, rel.types):
            if name in wanted:
                floating = str(kind).upper() in ("DOUBLE", "FLOAT", "REAL")
                conds.append(f"{q(name)} IS NOT NULL" + (f" AND NOT isnan({q(name)})" if floating else ""))
    count = "n"
    while count in rel.columns:
        count = "_" + count
    keys = ", ".join(q(k) for k in [*plan.group, plan.label])
    kept = rel.filter(" AND ".join(conds)) if conds else rel
    return weights_once(plan, kept.aggregate(f"{keys}, count(*) AS {q(count)}", keys).df(), count)


def partitioned(frame: Any) -> bool:
    """A relation is always evaluated in buckets of whole groups."""
    return True


def check_options(options: dict[str, Any], func: str) -> dict[str, Any]:
    """``rows_per_bucket`` (int >= 1, default 2,000,000) and ``buckets`` (int >= 1 or None).

    Examples
    --------
    >>> check_options({"buckets": 4}, "gauc")
    {'rows_per_bucket': 2000000, 'buckets': 4}
    """
    rpb = options.get("rows_per_bucket", ROWS_PER_BUCKET)
    if check_min_count(rpb, "rows_per_bucket", func) < 1:
        raise ValueError(
            f"The 'rows_per_bucket' parameter of {func} must be an int in the range [1, inf). Got {rpb!r} instead."
        )
    buckets = options.get("buckets")
    if buckets is not None and check_min_count(buckets, "buckets", func) < 1:
        raise ValueError(
            f"The 'buckets' parameter of {func} must be an int in the range [1, inf) or None. Got {buckets!r} instead."
        )
    return {"rows_per_bucket": int(rpb), "buckets": None if buckets is None else int(buckets)}


def _n_buckets(opts: dict[str, Any], n_rows: int) -> int:
    return int(opts["buckets"] or max(1, math.ceil(n_rows / opts["rows_per_bucket"])))


def run(frame: Any, plan: Plan, options: dict[str, Any] | None = None) -> tuple[Summary, dict[str, Any]]:
    """The summed summary of the relation and the extras of :func:`pandas_rankeval.tables.finalize`.

    Examples
    --------
    >>> import duckdb
    >>> from pandas_rankeval.summary import make_plan
    >>> from pandas_rankeval.tables import finalize
    >>> rel = duckdb.sql("select * from (values (1, 1, 0.9), (1, 0, 0.2), (2, 0, 0.4), (2, 1, 0.3), "
    ...                  "(3, 1, 0.5)) t(u, y, s)")
    >>> plan = make_plan("report", kind="report", group="u", label="y", scores="s",
    ...                  metrics=["auc", "gauc"], df=schema(rel))
    >>> summary, extras = run(rel, plan, {"buckets": 2})
    >>> finalize(summary, plan, **extras)[["auc", "gauc"]].round(4).to_dict("records")
    [{'auc': 0.8333, 'gauc': 0.5}]
    """
    opts = check_options(dict(options or {}), plan.func)
    frame = _as_pandas_reads(frame)
    sch = _polars_schema(frame)
    prefix = internal_prefix(frame.columns)  # the queries' own columns: no column of the relation starts so
    found = scan(frame, plan, sch)
    plan = _weights_once(frame, plan)
    raise_input_errors(found.summary(plan), plan)  # pandas' errors, before any other query
    found.raise_early(plan)  # labels too large for gain='exp2': the whole table's largest label
    keep = keep_sql(plan, sch) if found.n_dropped else None
    extras: dict[str, Any] = {}
    counted = None
    if plan.has_auc:
        counted = auc_pass(frame, plan, sch, keep=keep, placements=bool(plan.auc_placements and plan.group), prefix=prefix)
        extras["auc"] = counted.auc
    if plan.group:
        return _group_pass(frame, plan, sch, _n_buckets(opts, found.n_rows - found.n_dropped),
                           counted.placements if counted else {}, prefix), extras
    if counted is None:  # pragma: no cover - a plan without groups is global AUC
        raise ValueError(f"{plan.func}: a plan without groups must ask for global AUC")
    summary = summary_of_auc(plan, counted.auc, n_rows=counted.n_rows, n_pos=counted.n_pos,
                             missing=found.missing, n_dropped=found.n_dropped)
    return summary, extras


def _group_pass(rel: Any, plan: Plan, sch: Any, n_buckets: int, placements: dict, prefix: str) -> Summary:
    """Every bucket of whole groups summarized in turn (DeLong placements joined on); the sum."""
    import dataclasses

    import polars as pl

    from ..polars.auc import score_key as pl_score_key

    cols = [str(c) for c in dict.fromkeys(plan.columns)]
    names: list[str] = []
    joins = []
    for i, s in enumerate(plan.scores):
        if s in placements:
            table = placements[s]
            on = [c for c in table.columns if c != f"{prefix}pl_{i}"]
            joins.append((pl_score_key(pl.col(str(s)), sch[str(s)]).alias(f"{prefix}key_{i}"), table, on))
            names.append(f"{prefix}pl_{i}")
    part_plan = dataclasses.replace(plan, placement_columns=tuple(names)) if names else plan
    total = empty_summary(plan)
    for part in bucket_batches(rel, plan, sch, n_buckets, prefix=prefix):
        for key, table, on in joins:
            part = part.with_columns(key).join(table, on=on, how="left", nulls_equal=False)
        total = total + summarize(to_pandas(part, [*cols, *names]), part_plan)
    return total


def distinct(rel: Any, column: Any) -> list[Any]:
    """The distinct non-missing values of a column (one SQL ``DISTINCT``)."""
    quoted = '"' + str(column).replace('"', '""') + '"'
    return [row[0] for row in rel.project(quoted).filter(f"{quoted} IS NOT NULL").distinct().fetchall()]


def per_group(frame: Any, plan: Plan, options: dict[str, Any] | None = None) -> pd.DataFrame:
    """Every group's metrics as a pandas table: the group key column(s), ``n``, ``positives``,
    one column per metric and ``weight``
    (:func:`pandas_rankeval.tables.per_group.per_group_table`), rows in bucket order.

    Examples
    --------
    >>> import duckdb
    >>> from pandas_rankeval.summary import make_plan
    >>> rel = duckdb.sql("select * from (values ('a', 1, 0.9), ('a', 0, 0.2), ('b', 0, 0.4), "
    ...                  "('b', 1, 0.3)) t(u, y, s)")
    >>> plan = make_plan("per_group", kind="per_group", group="u", label="y", scores="s",
    ...                  metrics=["gauc", "mrr"], df=schema(rel))
    >>> per_group(rel, plan).sort_values("u")[["u", "n", "auc", "mrr"]].values.tolist()
    [['a', 2, 1.0, 1.0], ['b', 2, 0.0, 0.5]]
    """
    from ...tables.per_group import check_flat_names, per_group_table

    check_flat_names(plan, "DuckDB")  # a key named like a column of the table: before any query
    opts = check_options(dict(options or {}), plan.func)
    frame = _as_pandas_reads(frame)
    sch = _polars_schema(frame)
    found = scan(frame, plan, sch)
    plan = _weights_once(frame, plan)
    raise_input_errors(found.summary(plan), plan)  # pandas' errors, before any bucket is read
    found.raise_early(plan)  # labels too large for gain='exp2': the whole table's largest label
    keep = keep_sql(plan, sch) if found.n_dropped else None
    cols = [str(c) for c in dict.fromkeys(plan.columns)]
    tables = []
    prefix = internal_prefix(frame.columns)
    for part in bucket_batches(frame, plan, sch, _n_buckets(opts, found.n_rows - found.n_dropped), keep=keep, prefix=prefix):
        table = pd.DataFrame(per_group_table(to_pandas(part, cols), plan)).reset_index()
        table.attrs = {}
        tables.append(table)
    if not tables:
        empty = schema_frame(sch)
        table = pd.DataFrame(per_group_table(empty[cols], plan)).reset_index()
        table.attrs = {}
        return table
    return pd.concat(tables, ignore_index=True)
