"""A DuckDB relation, pass by pass: one aggregate scan, global AUC by ``GROUP BY score``, buckets.

1. **Scan** (one aggregate query, one row back): rows, missing values per column (null, or NaN in
   a float column: missing in pandas either way), rows dropped, and the values pandas refuses
   (infinite labels, negative labels for graded metrics, negative or infinite weights). Their
   errors are raised from these whole-table counts by the summary layer's own check, with
   pandas' messages, before any other query runs.
2. **Global AUC** (the reads of the driver's pass, :func:`pandas_rankeval.summary.ranges.auc_ranges`):
   DuckDB counts the rows per distinct (segment, score, tie-break value, label) (``GROUP BY``,
   ``ORDER BY`` score, DuckDB's threads), and the ordered table is streamed as Arrow batches; each
   batch, cut so that no distinct key straddles two batches, is a range of distinct scores, whose
   exact counts the driver chains in score order.
3. **Buckets**: ``hash(group key) % B`` puts every group whole in one bucket; one query
   ``ORDER BY bucket`` streams the rows once, cut at bucket boundaries, and every bucket is
   summarized by the shared per-partition code; the summaries are added. The bucket numbers only
   decide which groups travel together: no number depends on them.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Iterator
from typing import Any

import numpy as np
import polars as pl
import pyarrow as pa

from ...summary.driver import Scan
from ...summary.ranges import RangeColumns
from ...summary.scan_counts import ScanCount, read_counts
from ..polars.convert import dtype_class, is_float
from ..polars.lazy import relevant_rule, scan_spec

__all__ = ["auc_pass", "bucket_batches", "keep_sql", "polars_frame", "q", "relevant_sql", "scan"]

_SRC = "__rk_src"
#: The queries' own columns are ``<prefix>key``, ``<prefix>n``, ``<prefix>w`` and ``<prefix>bucket``,
#: under the call's prefix (:func:`~pandas_rankeval.engines.base.internal_prefix`: no column of the
#: relation starts with it, so none collides with them).
PREFIX = "__rk_"
#: Arrow rows fetched at a time.
BATCH = 1_000_000


def polars_frame(data: Any) -> pl.DataFrame:
    """An Arrow record batch or table from DuckDB as a polars frame. An ENUM column (an Arrow
    dictionary: DuckDB sends the whole enum) becomes a polars ``Enum`` of the enum's values in their
    order, which pandas reads as ``rel.df()`` does (a Categorical of those categories, ordered), never
    a Categorical whose categories are in the order polars first met them."""
    t = pl.from_arrow(data)
    assert isinstance(t, pl.DataFrame)
    casts = []
    for i, f in enumerate(data.schema):
        if pa.types.is_dictionary(f.type):
            col = data.column(i)
            chunk = col if isinstance(col, pa.Array) else (col.chunks[0] if col.num_chunks else None)
            if chunk is not None:
                casts.append(pl.nth(i).cast(pl.Enum(chunk.dictionary.to_pylist())))
    return t.with_columns(casts) if casts else t


def q(name: Hashable) -> str:
    """A column name as a quoted SQL identifier."""
    return '"' + str(name).replace('"', '""') + '"'


def query(rel: Any, sql: str) -> Any:
    """``sql`` over the relation (named ``__rk_src`` in it)."""
    return rel.query(_SRC, sql)


def _missing(column: Hashable, dtype: Any) -> str:
    c = q(column)
    return f"({c} IS NULL OR isnan({c}))" if is_float(dtype) else f"({c} IS NULL)"


def keep_sql(plan: Any, schema: Any) -> str:
    """Rows with no missing value in any column the plan reads (the rows pandas keeps)."""
    return " AND ".join(f"NOT {_missing(c, schema[str(c)])}" for c in dict.fromkeys(plan.columns))


def _key(columns: list[Hashable], schema: Any) -> str:
    """A key of one or more columns as one SQL value (float keys as pandas groups them: -0.0 with 0.0)."""
    cols = [f"(CAST({q(c)} AS DOUBLE) + 0.0)" if is_float(schema[str(c)]) else q(c) for c in columns]
    return cols[0] if len(cols) == 1 else f"row({', '.join(cols)})"


def relevant_sql(plan: Any, schema: Any) -> str:
    """A row's label is relevant (:func:`pandas_rankeval.engines.polars.lazy.relevant_rule`) in SQL."""
    dtype = schema[str(plan.label)]
    op, bound = relevant_rule(dtype, plan.options.threshold)
    if op == "never":
        return "FALSE"
    if isinstance(bound, int):
        return f"{q(plan.label)} {op} {bound}"
    return f"CAST({q(plan.label)} AS DOUBLE) {op} CAST('{bound!r}' AS DOUBLE)"


#: Each operation of the shared scan (:data:`pandas_rankeval.summary.scan_counts.OPS`) in SQL:
#: ``{c}`` the quoted column, ``{d}`` it as DOUBLE, ``{m}`` it is missing, ``{kept}`` the row is
#: kept, ``{any}`` the row has a missing value.
_SQL = {
    "rows": "count(*)",
    "dropped": "count_if({any})",
    "missing": "count_if({m})",
    "infinite": "count_if({kept} AND isinf({c}))",
    "bad_weight": "count_if({kept} AND (isinf({d}) OR {d} < 0))",
    "negative": "count_if({kept} AND {d} < 0)",
    "above": "count_if({kept} AND {d} > {bound!r})",
    "max": "max({c}) FILTER (WHERE {kept})",
    "not_binary": "count_if({kept} AND {d} <> 0 AND {d} <> 1)",
    "not_binary_examples": "list_sort(list_distinct(list({d}) FILTER (WHERE {kept} AND {d} <> 0 AND {d} <> 1)))[1:3]",
    "outside_unit": "count_if({kept} AND NOT ({d} >= 0 AND {d} <= 1))",
    "min_double": "min({d}) FILTER (WHERE {kept})",
    "max_double": "max({d}) FILTER (WHERE {kept})",
}


def _count_sql(count: ScanCount, schema: Any, kept: str, any_miss: str) -> str:
    """One aggregate of the shared scan as SQL."""
    if count.column is None:
        return _SQL[count.op].format(kept=kept, any=any_miss)
    c = q(count.column)
    m = _missing(count.column, schema[str(count.column)]) if count.op == "missing" else ""
    return _SQL[count.op].format(c=c, d=f"CAST({c} AS DOUBLE)", m=m, kept=kept, any=any_miss, bound=count.bound)


def _group_sql(plan: Any, schema: Any, kept: str) -> list[str]:
    """Distinct group keys, groups with a relevant row (empty='error') and (group, segment) pairs."""
    lists = [s for s in plan.specs if s.info.eligibility == "relevant"]
    empty = bool(lists) and plan.options.empty == "error"
    # exact when an early check compares it; otherwise only the bucket count's cap reads it (an
    # estimate, a fifth of the exact count's time: the numbers never depend on the buckets)
    distinct = "count(DISTINCT {})" if empty or plan.by else "approx_count_distinct({})"
    return [
        distinct.format(_key(plan.group, schema)) + f" FILTER (WHERE {kept})",
        f"count(DISTINCT {_key(plan.group, schema)}) FILTER (WHERE {kept} AND {relevant_sql(plan, schema)})"
        if empty else "NULL",
        f"count(DISTINCT {_key([*plan.group, *plan.by], schema)}) FILTER (WHERE {kept})" if plan.by else "NULL",
    ]


def scan(rel: Any, plan: Any, schema: Any, exact: dict[Hashable, str] | None = None) -> Scan:
    """One aggregate query: rows, missing values and refused values, whole-table counts (the
    shared scan, :mod:`pandas_rankeval.summary.scan_counts`, in SQL).

    ``exact`` maps a key column that pandas reads as float64 (``DECIMAL``, ``HUGEINT``) to the
    relation's column holding its exact values: the keys that become equal as float64 are counted,
    and refused (:func:`refuse_merged_keys`) before any other check.
    """
    spec = scan_spec(plan, lambda column: schema[str(column)])
    any_miss = "(" + " OR ".join(_missing(c, schema[str(c)]) for c in spec.columns) + ")"
    kept = f"NOT {any_miss}"
    aggs = [_count_sql(count, schema, kept, any_miss) for count in spec.counts]
    at = len(aggs)
    if plan.group:
        aggs += _group_sql(plan, schema, kept)
    exact_at = len(aggs)
    for x in (exact or {}).values():  # distinct exact keys, and distinct keys as pandas reads them
        aggs += [f"count(DISTINCT {q(x)}) FILTER (WHERE {kept})",
                 f"count(DISTINCT CAST({q(x)} AS DOUBLE)) FILTER (WHERE {kept})"]
    row = query(rel, f"SELECT {', '.join(aggs)} FROM {_SRC}").fetchall()[0]
    for i, c in enumerate(exact or {}):
        refuse_merged_keys(c, plan, int(row[exact_at + 2 * i]), int(row[exact_at + 2 * i + 1]))
    named = {count.name: row[i] for i, count in enumerate(spec.counts)}
    missing, problems = read_counts(spec, named)
    missing = {c: n for c, n in missing.items() if n}
    out = Scan(int(named["rows"]), missing, int(named["dropped"]) if missing else 0, problems,
               label_max=named.get("top"))
    if plan.group:
        out.n_groups = int(row[at])
        out.n_with_relevant = None if row[at + 1] is None else int(row[at + 1])
        out.n_pairs = None if row[at + 2] is None else int(row[at + 2])
    return out


def refuse_merged_keys(column: Hashable, plan: Any, n_exact: int, n_double: int) -> None:
    """A key column whose distinct values are fewer as float64 than exact (``DECIMAL`` or
    ``HUGEINT`` ids above 2**53, which pandas reads as float64: ``rel.df()``) would merge groups
    or segments: refused with the count, and a cast that keeps them apart."""
    if n_exact == n_double:
        return
    role = "group key" if column in plan.group else "segment (by)"
    merged = n_exact - n_double
    quoted = q(column)
    raise ValueError(
        f"Column {column!r} ({role}) has {n_exact:,} distinct values, but {n_double:,} as float64 (as "
        f"pandas reads a DECIMAL or HUGEINT column: values above 2**53 are rounded), so {merged:,} "
        f"{'key would merge with another' if merged == 1 else 'keys would merge with others'}. Cast it to an exact type first, for example "
        f"rel.select('* REPLACE (CAST({quoted} AS VARCHAR) AS {quoted})')."
    )


def score_key(column: Hashable, dtype: Any) -> str:
    """The score as the order key pandas ranks: floats and decimals (HUGEINT too: pandas reads them
    as float64) as DOUBLE with -0.0 as 0.0; integers exact; booleans as 0/1."""
    base = dtype_class(dtype)
    c = q(column)
    if base in (pl.Float32, pl.Float64, pl.Decimal):
        return f"(CAST({c} AS DOUBLE) + 0.0)"
    if base is pl.Boolean:
        return f"CAST({c} AS UTINYINT)"
    return c


def _chunks(reader: Any, keys: list[str]) -> Iterator[pl.DataFrame]:
    """The ordered stream as polars frames, each cut after the last complete run of ``keys``
    (a run of equal keys never straddles two frames)."""
    held: pl.DataFrame | None = None
    for batch in reader:
        t = polars_frame(batch)
        if held is not None:
            t = pl.concat([held, t], how="vertical_relaxed")
        last = t.tail(1).select(keys)
        same = t.select(pl.all_horizontal([pl.col(k).eq_missing(last.get_column(k)[0]) for k in keys])).to_series()
        n_tail = int(same.sum())  # sorted: the rows equal to the last one are the last rows
        if n_tail == t.height:
            held = t
            continue
        held = t.tail(n_tail) if n_tail else None
        yield t.head(t.height - n_tail)
    if held is not None and held.height:
        yield held


def auc_pass(rel: Any, plan: Any, schema: Any, *, keep: str | None, placements: bool, batch: int | None = None,
             prefix: str = PREFIX) -> tuple[RangeColumns, Iterable[pl.DataFrame]]:
    """The reads of the global-AUC pass (the driver's ``score_ranges``): per score column, DuckDB
    counts the rows per distinct (segment, score key, tie-break, label), ordered by score, and the
    stream is cut into ranges where no distinct key straddles two (all of them kept with
    ``placements``)."""
    _KEY, _N, _W, _SID, _RANGE = (f"{prefix}{c}" for c in ("key", "n", "w", "sid", "range"))
    o = plan.options
    by = [str(c) for c in plan.by]
    tb = str(o.tiebreak) if o.tiebreak is not None else None
    label = str(plan.label)
    sw = o.sample_weight
    cols = RangeColumns(_SID, _RANGE, tuple(by), _KEY, tb, label, _N, _W if sw is not None else None)
    where = f" WHERE {keep}" if keep else ""
    tbs = [tb] if tb is not None else []

    def tables() -> Iterator[pl.DataFrame]:
        for i, s in enumerate(plan.scores):
            sel = [q(c) for c in by] + [f"{score_key(s, schema[str(s)])} AS {_KEY}"]
            sel += [f"{column_sql(c, plan, schema)} AS {q(c)}" for c in tbs if c not in by]
            sel += [q(label)] if label not in [*by, *tbs] else []
            aggs = [f"count(*) AS {_N}"] + ([f"sum(CAST({q(sw)} AS DOUBLE)) AS {_W}"] if sw is not None else [])
            order = [q(c) for c in by] + [_KEY] + [f"{column_sql(c, plan, schema)} DESC" for c in tbs]
            sql = (
                f"SELECT {', '.join(sel)}, {', '.join(aggs)} FROM {_SRC}{where} "
                f"GROUP BY ALL ORDER BY {', '.join(order)}"
            )
            reader = query(rel, sql).to_arrow_reader(batch or BATCH)
            for r, t in enumerate(_chunks(reader, list(dict.fromkeys([*by, _KEY, *tbs])))):
                yield t.with_columns(pl.lit(i, pl.Int64).alias(_SID), pl.lit(r, pl.Int64).alias(_RANGE))

    return cols, (list(tables()) if placements else tables())


def column_sql(column: Hashable, plan: Any, schema: Any) -> str:
    """A column as the bucket and range reads select it: a tie-break that is an ENUM (a pandas
    Categorical becomes one) by its position among the enum's values, as pandas ranks a
    Categorical by its codes (not lexically, nor by each Arrow batch's own dictionary)."""
    if column == plan.options.tiebreak and _tiebreak_codes(plan, schema):
        return f"enum_code({q(column)})"
    return q(column)


def _tiebreak_codes(plan: Any, schema: Any) -> bool:
    tb = plan.options.tiebreak
    return (tb is not None and tb not in {*plan.group, *plan.by, plan.label, *plan.scores}
            and dtype_class(schema[str(tb)]) in (pl.Enum, pl.Categorical))


def bucket_sql(group: list[Hashable], schema: Any, n: int) -> str:
    """``hash(group key) % n`` (float keys as pandas groups them: -0.0 with 0.0)."""
    cols = [f"(CAST({q(c)} AS DOUBLE) + 0.0)" if is_float(schema[str(c)]) else q(c) for c in group]
    return f"(hash({', '.join(cols)}) % {int(n)})"


def bucket_batches(rel: Any, plan: Any, schema: Any, n_buckets: int, *, keep: str | None = None,
                   batch: int | None = None, prefix: str = PREFIX, queries: int = 1) -> Iterator[pl.DataFrame]:
    """The plan's columns, one polars frame per bucket of whole groups, from ``queries`` ordered
    queries over contiguous ranges of buckets (one query: one sort of every kept row inside
    DuckDB; ``q`` queries: ``q`` scans of the relation, each sorting about ``1/q`` of the rows,
    which bounds DuckDB's memory for the sort)."""
    _B = f"{prefix}bucket"
    cols = [str(c) for c in dict.fromkeys(plan.columns)]
    where = f" WHERE {keep}" if keep else ""
    sel = ", ".join(f"{column_sql(c, plan, schema)} AS {q(c)}" for c in cols)
    if n_buckets <= 1:
        t = polars_frame(query(rel, f"SELECT {sel} FROM {_SRC}{where}").to_arrow_table())
        if t.height:
            yield t
        return
    inner = f"SELECT {sel}, {bucket_sql(plan.group, schema, n_buckets)} AS {_B} FROM {_SRC}{where}"
    queries = max(1, min(int(queries), n_buckets))
    edges = [n_buckets * i // queries for i in range(queries + 1)]
    for first, end in zip(edges[:-1], edges[1:]):
        sql = (f"{inner} ORDER BY {_B}" if queries == 1 else
               f"SELECT * FROM ({inner}) WHERE {_B} >= {first} AND {_B} < {end} ORDER BY {_B}")
        for t in _chunks(query(rel, sql).to_arrow_reader(batch or BATCH), [_B]):
            b = t.get_column(_B).to_numpy()
            cuts = np.flatnonzero(b[1:] != b[:-1]) + 1
            for lo, hi in zip(np.r_[0, cuts], np.r_[cuts, t.height]):
                yield t.slice(int(lo), int(hi - lo)).drop(_B)
