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

from collections.abc import Hashable, Iterator
from typing import Any

import pandas as pd
import polars as pl

from ...summary.driver import Scan, evaluate, per_group_parts
from ...summary.plan import Plan
from ...summary.summary import Summary
from ..base import internal_prefix, option_count, unordered_rows_error
from ..polars.auc import join_placements, map_ranges, place_ranges
from ..polars.auc import score_key as pl_score_key
from ..polars.convert import schema_frame, to_pandas
from .sql import _SRC as SRC
from .sql import auc_pass, bucket_batches, keep_sql, polars_frame, q, query, scan

__all__ = ["NAME", "OPTIONS", "check_options", "distinct", "partitioned", "per_group", "run", "schema",
           "with_row_number"]

NAME = "DuckDB"
#: ``engine_options`` of a DuckDB relation.
OPTIONS: tuple[str, ...] = ("rows_per_bucket", "buckets", "rows_per_query")
#: Rows of one bucket of whole groups (what the client holds at a time).
ROWS_PER_BUCKET = 2_000_000
#: Kept rows DuckDB sorts by bucket in one query; a larger table is read by several queries over
#: ranges of buckets (each a scan of the relation): DuckDB's memory for the sort stays bounded.
ROWS_PER_QUERY = 25_000_000


#: DuckDB types that polars cannot read (it panics: a ``BaseException``), alone or nested.
_UNREADABLE = ("interval", "union")
#: DuckDB types pandas reads as float64 (``rel.df()``).
_AS_DOUBLE = ("decimal", "hugeint", "uhugeint")


def _readable(kind: Any) -> bool:
    """polars reads a column of this DuckDB type (no INTERVAL or UNION in it, at any depth)."""
    if kind.id in _UNREADABLE:
        return False
    return all(_readable(v) for _, v in kind.children if hasattr(v, "id")) if kind.id in ("struct", "list", "array", "map") else True


def _read_sql(ref: str, kind: Any) -> str:
    """A column as pandas reads a relation (``rel.df()``): ``DECIMAL`` and ``HUGEINT`` as DOUBLE,
    ``DATE`` as TIMESTAMP (pandas' ``datetime64[us]``); others unchanged."""
    if kind.id in _AS_DOUBLE:
        return f"CAST({ref} AS DOUBLE)"
    if kind.id == "date":
        return f"CAST({ref} AS TIMESTAMP)"
    return ref


def _polars_schema(rel: Any) -> Any:
    """The relation's columns as pandas reads them, by position (``c0``, ``c1``...: a name may repeat),
    as a polars schema; a column polars cannot read (INTERVAL, UNION) is ``Object`` (never read)."""
    kinds = list(rel.types)
    read = [i for i, k in enumerate(kinds) if _readable(k)]
    found = rel.project(", ".join(f'{_read_sql(f"#{i + 1}", kinds[i])} AS "c{i}"' for i in read)).limit(0).pl().schema if read else {}
    # an INTERVAL as pandas reads it (rel.df(): timedelta64[us]), though never read through polars
    unread = {"interval": pl.Duration("us")}
    return {f"c{i}": found.get(f"c{i}", unread.get(kinds[i].id, pl.Object)) for i in range(len(kinds))}


def schema(frame: Any) -> pd.DataFrame:
    """An empty pandas frame with the relation's columns (by position: a name two columns share is
    kept twice, for pandas' error) and the dtypes pandas gives them (``rel.df()``; no data read).
    A column of a type polars cannot read (INTERVAL, UNION) is typed here without polars, and
    never read unless a call names it.

    Examples
    --------
    >>> import duckdb
    >>> rel = duckdb.sql("select 'a' as u, 1 as y, 0.5::double as s, 2.5::decimal(4, 1) as d, "
    ...                  "DATE '2024-01-02' as day, INTERVAL 1 DAY as gap")
    >>> [str(t) for t in schema(rel).dtypes]
    ['str', 'int32', 'float64', 'float64', 'datetime64[us]', 'timedelta64[us]']
    """
    out = schema_frame(_polars_schema(frame), "duckdb")
    names = [str(c) for c in frame.columns]
    out.columns = names
    at = {f"c{i}": n for i, n in enumerate(names)}  # the attrs of the checks under the relation's names
    out.attrs["whole_decimals"] = [at[c] for c in out.attrs.get("whole_decimals", ())]
    out.attrs["temporal"] = {at[c]: unit for c, unit in out.attrs.get("temporal", {}).items()}
    return out


def with_row_number(frame: Any, name: str, resampled: bool = True) -> Any:
    """The relation with the row numbers 0..n-1 as BIGINT (a window over the scan, no ORDER BY),
    for the values alone. An interval or a test would resample rows by numbers that follow the scan
    order (not defined for a relation): refused, asking for ``group=``."""
    if resampled:
        raise unordered_rows_error("a DuckDB relation")
    return frame.project(f"*, CAST(row_number() OVER () - 1 AS BIGINT) AS {q(name)}")


class DuckSource:
    """A relation's primitives for the partitioned driver (:class:`pandas_rankeval.summary.driver.Source`)."""

    def __init__(self, rel: Any, plan: Plan, rows_per_query: int = ROWS_PER_QUERY) -> None:
        self.rows_per_query = rows_per_query
        self.n_kept = 0  # kept rows, from the scan: how many ordered queries read the buckets
        self.cols = [str(c) for c in dict.fromkeys(plan.columns)]
        self.prefix = internal_prefix(self.cols)  # no column of the call starts so, in any case
        self.rel, self.exact = _project(rel, plan, self.cols, self.prefix)
        self.schema = self.rel.project(", ".join(q(c) for c in self.cols)).limit(0).pl().schema
        self.keep = keep_sql(plan, self.schema)

    def _where(self, keep: bool) -> str:
        return f" WHERE {self.keep}" if keep else ""

    def scan(self, plan: Plan) -> Scan:
        found = scan(self.rel, plan, self.schema, self.exact)
        self.n_kept = found.n_rows - found.n_dropped
        return found

    def distinct_rows(self, columns: list[Hashable], keep: bool) -> pd.DataFrame:
        cols = ", ".join(q(c) for c in columns)
        rn = f"{self.prefix}rn"
        sql = (f"SELECT {cols} FROM (SELECT {cols}, row_number() OVER () AS {rn} FROM {SRC}{self._where(keep)}) "
               f"GROUP BY ALL ORDER BY min({rn})")
        return to_pandas(polars_frame(query(self.rel, sql).to_arrow_table()), [str(c) for c in columns]).set_axis(columns, axis=1)

    def count_rows(self, keys: list[Hashable], keep: bool, count: str) -> pd.DataFrame:
        cols = ", ".join(q(k) for k in keys)
        sql = f"SELECT {cols}, count(*) AS {q(count)} FROM {SRC}{self._where(keep)} GROUP BY ALL"
        return query(self.rel, sql).df()  # type: ignore[no-any-return]

    def free(self, name: str) -> str:
        taken = {str(c).lower() for c in self.rel.columns}  # DuckDB resolves names case-insensitively
        while name.lower() in taken:
            name += "_"
        return name

    def score_ranges(self, plan: Plan, keep: bool, n_rows: int, placements: bool) -> Any:
        cols, ranges = auc_pass(self.rel, plan, self.schema, keep=self.keep if keep else None,
                                placements=placements, prefix=self.prefix)
        return cols, (cols, ranges)

    def map_ranges(self, ranges: Any, fn: Any) -> list[Any]:
        return map_ranges(ranges[1], fn)

    def place_ranges(self, ranges: Any, fn: Any, names: dict[int, str]) -> dict[int, Any]:
        cols, tables = ranges
        return place_ranges(tables, cols.keys, fn, names, cols.sid)

    def join(self, part: Any, score: Hashable, table: Any) -> Any:
        import polars as pl

        key = pl_score_key(pl.col(str(score)), self.schema[str(score)])
        return join_placements(part, key, table, f"{self.prefix}key")

    def buckets(self, plan: Plan, n_buckets: int, keep: bool) -> Iterator[Any]:
        return bucket_batches(self.rel, plan, self.schema, n_buckets, keep=self.keep if keep else None,
                              prefix=self.prefix, queries=-(-self.n_kept // self.rows_per_query))

    def to_pandas(self, part: Any, extra: list[str]) -> pd.DataFrame:
        return to_pandas(part, [*self.cols, *extra])  # type: ignore[no-any-return]

    def empty(self) -> pd.DataFrame:
        return schema_frame(self.schema)[self.cols]


def _project(rel: Any, plan: Plan, cols: list[str], prefix: str) -> tuple[Any, dict[Hashable, str]]:
    """The relation reduced to the call's columns (read by position, as pandas reads them: the
    others, of whatever type, are never read), and the exact values of every key column pandas
    reads as float64 (``DECIMAL``, ``HUGEINT``) under ``<prefix>x<i>``, for the scan's check that
    no two keys merge. The schema checks have refused a name two columns share (in any case)."""
    names, kinds = [str(c) for c in rel.columns], list(rel.types)
    at = {c: names.index(c) for c in cols}
    for c in cols:
        if not _readable(kinds[at[c]]):
            quoted = q(c)
            raise TypeError(
                f"Column {c!r} has DuckDB type {kinds[at[c]]}, which the DuckDB engine cannot read (it "
                "reads a relation through Arrow and polars). Convert it first, for example "
                f"rel.select('* REPLACE (CAST({quoted} AS VARCHAR) AS {quoted})')."
            )
    keys = [c for c in dict.fromkeys([*plan.group, *plan.by]) if kinds[at[str(c)]].id in _AS_DOUBLE]
    exact = {c: f"{prefix}x{i}" for i, c in enumerate(keys)}
    sel = [f"{_read_sql(f'#{at[c] + 1}', kinds[at[c]])} AS {q(c)}" for c in cols]
    sel += [f"#{at[str(c)] + 1} AS {q(x)}" for c, x in exact.items()]
    return rel.project(", ".join(sel)), exact


def partitioned(frame: Any) -> bool:
    """A relation is always evaluated in buckets of whole groups."""
    return True


def check_options(options: dict[str, Any], func: str) -> dict[str, Any]:
    """``rows_per_bucket`` (int >= 1, default 2,000,000), ``buckets`` (int >= 1 or None) and
    ``rows_per_query`` (int >= 1, default 25,000,000: kept rows DuckDB sorts by bucket in one
    query; a larger table is read by ``ceil(rows / rows_per_query)`` queries over ranges of
    buckets, each a scan of the relation, so DuckDB's memory for the sort stays bounded).

    Examples
    --------
    >>> check_options({"buckets": 4}, "gauc")
    {'rows_per_bucket': 2000000, 'buckets': 4, 'rows_per_query': 25000000}
    """
    return {"rows_per_bucket": option_count(options, "rows_per_bucket", func, ROWS_PER_BUCKET),
            "buckets": option_count(options, "buckets", func),
            "rows_per_query": option_count(options, "rows_per_query", func, ROWS_PER_QUERY)}


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
    return evaluate(DuckSource(frame, plan, opts["rows_per_query"]), plan, opts)


def distinct(rel: Any, column: Any, options: dict[str, Any] | None = None) -> list[Any]:
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
    plan, parts = per_group_parts(DuckSource(frame, plan, opts["rows_per_query"]), plan, opts)
    tables = []
    for part in parts:
        table = pd.DataFrame(per_group_table(part, plan)).reset_index()
        table.attrs = {}
        tables.append(table)
    return pd.concat(tables, ignore_index=True) if len(tables) > 1 else tables[0]
