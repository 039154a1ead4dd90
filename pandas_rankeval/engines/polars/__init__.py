"""The polars adapter: a polars DataFrame or LazyFrame through the shared summary layer.

It answers the questions of the engine protocol (:mod:`pandas_rankeval.engines.base`) and owns
no metric, option or table logic:

- **schema**: the frame's schema (``collect_schema()`` of a LazyFrame: no data read) as an empty
  pandas frame with the dtypes pandas would give the columns, from which the plan is made and
  the name and dtype checks raise pandas' own errors.
- **run**, eager ``DataFrame``: the whole frame is one partition. The plan's columns (and only
  those) become a pandas frame column by column, numeric columns on polars' own buffers
  (:mod:`.convert`), and pandas' path runs on it (one evaluation, summarized as one partition,
  global AUC from its own sorts): every option pandas offers, the same numbers.
- **run**, ``LazyFrame`` that fits in memory (:mod:`.memory`: its rows, counted by one
  ``select(pl.len())`` query, times an estimate of the bytes per row, within ``memory_budget``,
  default 2 GiB; no ``buckets`` or ``rows_per_bucket`` asked for): the plan's columns collected
  once, then the eager path: the eager frame's numbers, errors and warnings.
- **run**, any other ``LazyFrame``: one streaming scan for the checks (:mod:`.lazy`), the exact
  global-AUC counts per distinct score range by range (:mod:`.auc`), then whole groups bucket by
  bucket (``hash(group key) % B``), one bucket in memory at a time. A Parquet dataset larger than
  the memory pandas would need evaluates on one machine.
- **per_group**: every group's metrics as a polars DataFrame.

Importing this module registers ``df.rankeval`` on polars DataFrames and LazyFrames
(:func:`pandas_rankeval.accessor.register_polars`); ``import pandas_rankeval`` does it when
polars is already imported.
"""

from __future__ import annotations

from typing import Any

import pandas as pd
import polars as pl

from ...core.threads import check_threads, limit_threads
from ...summary.driver import evaluate, per_group_parts
from ...summary.plan import Plan
from ...summary.summary import Summary
from ..base import option_count
from .convert import schema_frame, to_pandas
from .lazy import LazySource
from .memory import (
    MEMORY_BUDGET,
    ROWS_PER_BUCKET,
    bucket_options,
    collect_columns,
    fits_in_memory,
)

__all__ = ["NAME", "OPTIONS", "ROWS_PER_BUCKET", "check_options", "distinct", "partitioned", "per_group", "run", "schema",
           "with_row_number"]

NAME = "polars"
#: ``engine_options`` of a polars frame (a LazyFrame reads them; an eager frame is one partition).
OPTIONS: tuple[str, ...] = ("rows_per_bucket", "buckets", "threads", "memory_budget")


def schema(frame: Any) -> pd.DataFrame:
    """An empty pandas frame with the frame's columns and the dtypes pandas gives them (no data read).

    Examples
    --------
    >>> import polars as pl
    >>> lf = pl.LazyFrame({"u": ["a"], "y": [1], "s": [0.5]})
    >>> [str(t) for t in schema(lf).dtypes]
    ['str', 'int64', 'float64']
    """
    return schema_frame(frame.collect_schema() if isinstance(frame, pl.LazyFrame) else frame.schema)


def with_row_number(frame: Any, name: str, resampled: bool = True) -> Any:
    """The DataFrame or LazyFrame with the row numbers 0..n-1 as Int64 (pandas' keys, so the
    hashed bootstrap draws the same replicates)."""
    return frame.with_row_index(name).with_columns(pl.col(name).cast(pl.Int64))


def partitioned(frame: Any) -> bool:
    """A LazyFrame is evaluated in buckets of whole groups; an eager DataFrame in one partition."""
    return isinstance(frame, pl.LazyFrame)


def check_options(options: dict[str, Any], func: str) -> dict[str, Any]:
    """``rows_per_bucket`` and ``buckets`` (int >= 1 or None: either one asks a LazyFrame for
    buckets), ``memory_budget`` (int >= 1, bytes, default 2 GiB: a LazyFrame estimated within it
    is collected once, one above it is read in buckets that the budget holds, :mod:`.memory`) and
    ``threads``.

    Examples
    --------
    >>> check_options({"buckets": 4}, "gauc")
    {'rows_per_bucket': None, 'buckets': 4, 'threads': None, 'memory_budget': 2147483648}
    """
    return {"rows_per_bucket": option_count(options, "rows_per_bucket", func),
            "buckets": option_count(options, "buckets", func),
            "threads": check_threads(options.get("threads"), func),
            "memory_budget": option_count(options, "memory_budget", func, MEMORY_BUDGET)}


def run(frame: Any, plan: Plan, options: dict[str, Any] | None = None) -> tuple[Summary, dict[str, Any]]:
    """The summed summary of the frame and the extras of :func:`pandas_rankeval.tables.finalize`.

    Examples
    --------
    >>> import polars as pl
    >>> from pandas_rankeval.summary import make_plan
    >>> from pandas_rankeval.tables import finalize
    >>> lf = pl.LazyFrame({"u": [1, 1, 2, 2, 3], "y": [1, 0, 0, 1, 1], "s": [0.9, 0.2, 0.4, 0.3, 0.5]})
    >>> plan = make_plan("report", kind="report", group="u", label="y", scores="s",
    ...                  metrics=["auc", "gauc"], df=schema(lf))
    >>> summary, extras = run(lf, plan, {"buckets": 2})
    >>> finalize(summary, plan, **extras)[["auc", "gauc"]].round(4).to_dict("records")
    [{'auc': 0.8333, 'gauc': 0.5}]
    """
    opts = check_options(dict(options or {}), plan.func)
    with limit_threads(opts["threads"]):  # the buckets of a LazyFrame are evaluated here, one by one
        if isinstance(frame, pl.LazyFrame):
            # global XAUC alone (global_metric="xauc") is the global pass's: counts per distinct
            # (score, label) in ranges, whatever the budget
            if plan.global_metric == "xauc" or not fits_in_memory(frame, plan, opts):
                return _run_lazy(frame, plan, opts)
            frame = collect_columns(frame, plan.columns)  # one collect, then the eager path
        from .. import pandas as pandas_engine

        return pandas_engine.run(to_pandas(frame, plan.columns), plan, {"threads": opts["threads"]})  # type: ignore[no-any-return]


def _run_lazy(lf: pl.LazyFrame, plan: Plan, options: dict[str, Any]) -> tuple[Summary, dict[str, Any]]:
    """Every pass of :mod:`pandas_rankeval.summary.driver` on the LazyFrame's primitives."""
    options = bucket_options(options, plan, lf.collect_schema())
    return evaluate(LazySource(lf, plan, options["range_rows"]), plan, options)


def distinct(frame: Any, column: Any, options: dict[str, Any] | None = None) -> list[Any]:
    """The distinct non-missing values of a column, selected by position (a name that polars
    would read as a pattern selects that column alone)."""
    names = (frame.collect_schema() if isinstance(frame, pl.LazyFrame) else frame.schema).names()
    out = frame.select(pl.nth(names.index(column))).unique()
    return (out.collect() if isinstance(out, pl.LazyFrame) else out).to_series().drop_nulls().to_list()


def per_group(frame: Any, plan: Plan, options: dict[str, Any] | None = None) -> pl.DataFrame:
    """Every group's metrics as a polars DataFrame: the group key column(s), ``n``, ``positives``,
    one column per metric and ``weight`` (:func:`pandas_rankeval.tables.per_group.per_group_table`).

    An eager frame is one partition, and so is a LazyFrame that fits in memory (:mod:`.memory`:
    collected once); any other LazyFrame is read bucket by bucket of whole groups, after the one
    scan that raises pandas' errors (rows come in bucket order, not sorted by key).

    Examples
    --------
    >>> import polars as pl
    >>> from pandas_rankeval.summary import make_plan
    >>> df = pl.DataFrame({"u": ["a", "a", "b", "b"], "y": [1, 0, 0, 1], "s": [0.9, 0.2, 0.4, 0.3]})
    >>> plan = make_plan("per_group", kind="per_group", group="u", label="y", scores="s",
    ...                  metrics=["gauc", "mrr"], df=schema(df))
    >>> per_group(df, plan).sort("u").select("u", "n", "auc", "mrr").rows()
    [('a', 2, 1.0, 1.0), ('b', 2, 0.0, 0.5)]
    """
    from ...tables.per_group import check_flat_names, per_group_table

    cols = [str(c) for c in dict.fromkeys(plan.columns)]
    check_flat_names(plan, "polars")  # a key column named like a column of the table: before any work
    source = frame.collect_schema() if isinstance(frame, pl.LazyFrame) else frame.schema
    keys = {str(k): source[str(k)] for k in plan.group}

    def one(pdf: pd.DataFrame) -> pl.DataFrame:
        table = pd.DataFrame(per_group_table(pdf, plan)).reset_index()
        table.attrs = {}
        return _as_polars(table, keys)

    opts = check_options(dict(options or {}), plan.func)
    if isinstance(frame, pl.LazyFrame) and fits_in_memory(frame, plan, opts):
        frame = collect_columns(frame, cols)  # one collect, then the eager path
    if not isinstance(frame, pl.LazyFrame):
        return one(to_pandas(frame, cols))
    opts = bucket_options(opts, plan, frame.collect_schema())
    plan, parts = per_group_parts(LazySource(frame, plan, opts["range_rows"]), plan, opts)
    return pl.concat([one(p) for p in parts], how="vertical_relaxed")


def _as_polars(table: pd.DataFrame, keys: dict[str, Any]) -> pl.DataFrame:
    """The flat per-group table as a polars frame under its own column names (``pl.from_pandas``
    renames an empty name), the key columns in the source's dtypes: a ``Date`` key stays a
    ``Date``, a ``Datetime`` or ``Duration`` keeps its unit and time zone, an ``Enum`` its categories."""
    names = [str(c) for c in table.columns]
    out = pl.from_pandas(table.set_axis([f"c{i}" for i in range(len(names))], axis=1))
    out.columns = names
    casts = [pl.col(k).cast(dtype) for k, dtype in keys.items() if out.schema[k] != dtype]
    return out.with_columns(casts) if casts else out


def _register_namespace() -> None:
    """``df.rankeval`` on polars frames once a polars frame has arrived (the namespace lives with
    the others at the top of the package, :func:`pandas_rankeval.accessor.register_polars`; it is
    looked up when this module is first imported, as the namespaces look the public functions up
    when called, so no engine module imports the top of the package)."""
    import importlib

    importlib.import_module("pandas_rankeval.accessor").register_polars()


_register_namespace()
