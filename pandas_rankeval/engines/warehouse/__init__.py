"""The warehouse engine: every public function on an ``ibis.Table``, computed where the table lies.

An Ibis table on any backend (BigQuery, Snowflake, ClickHouse, Trino, Postgres, Databricks,
DuckDB, ...) answers the questions of the engine protocol (:mod:`pandas_rankeval.engines.base`)
with SQL that the backend runs; the client receives one row per group, never the rows:

1. **checks** (:mod:`.checks`, one aggregate query, one row back): whole-table counts of missing
   and refused values, from which pandas' own errors are raised before any metric query;
2. **groups** (:mod:`.stats`, one query per score column): every group's sufficient statistics
   for the requested metrics, exact under ties; the per-group values, weights and coverage are
   made from them on the client (:mod:`.groups`), vectorized;
3. **global AUC** (one query per score column, when ``auc`` is asked for): relevant and
   non-relevant rows per distinct score, chained exactly on the client.

The summary layer, the hashed group bootstrap, the sign-flip tests, Holm/BH and the displays then
run on the per-group values as they do for pandas. Client memory is proportional to the number of
groups (and, for global AUC, of distinct scores).

Options that need every row in one place are refused by name before any query: ``max_fpr``, a
DeLong interval or test of global AUC (the placements of every row), ``resample="multinomial"``.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Hashable
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["NAME", "OPTIONS", "QUERIES", "check_options", "distinct", "partitioned", "per_group", "run", "schema"]

NAME = "Ibis"
#: ``engine_options`` of an Ibis table: ``execute`` (a callable that runs one SQL string and returns
#: a pandas DataFrame, for a table that no Ibis connection holds) with ``dialect`` (the SQL dialect
#: ``ibis.to_sql`` compiles for, for example ``"clickhouse"``).
OPTIONS: tuple[str, ...] = ("execute", "dialect")
#: Every query the engine sends, counted (the tests read it): see the docs' "what each call sends".
QUERIES = itertools.count()
#: Metrics the warehouse computes (the others are refused by name before any query).
from .stats import SUPPORTED  # noqa: E402


def _pandas_dtype(dtype: Any) -> Any:
    """The pandas dtype a column of this Ibis type reads as (decimals as float64, as pandas reads them)."""
    if dtype.is_decimal():
        return np.dtype(np.float64)
    if dtype.is_string():
        return pd.StringDtype(na_value=np.nan)
    try:
        return dtype.to_pandas()
    except Exception:  # noqa: BLE001 - a type pandas has no dtype for: object, as pandas reads it
        return np.dtype(object)


def schema(frame: Any) -> pd.DataFrame:
    """An empty pandas frame with the table's columns and the dtypes pandas reads them as (no query).

    Examples
    --------
    >>> import ibis
    >>> t = ibis.table({"u": "int64", "y": "int8", "s": "float64", "q": "string", "d": "decimal(9, 2)"}, name="t")
    >>> [str(d) for d in schema(t).dtypes]
    ['int64', 'int8', 'float64', 'str', 'float64']
    """
    s = frame.schema()
    return pd.DataFrame({name: pd.Series([], dtype=_pandas_dtype(dt)) for name, dt in s.items()})


def partitioned(frame: Any) -> bool:
    """A warehouse table is never in one place: the options that need every row are refused."""
    return True


def check_options(options: dict[str, Any], func: str) -> dict[str, Any]:
    """``execute`` (a callable ``sql -> pandas.DataFrame`` or None) and ``dialect`` (a string, needed
    with ``execute``).

    Examples
    --------
    >>> check_options({}, "gauc")
    {'execute': None, 'dialect': None}
    """
    execute, dialect = options.get("execute"), options.get("dialect")
    if execute is not None and not callable(execute):
        raise TypeError(f"The 'execute' engine option of {func} must be a callable (sql -> DataFrame) or None; "
                        f"got {type(execute).__name__}.")
    if (execute is None) != (dialect is None):
        raise ValueError(f"The 'execute' and 'dialect' engine options of {func} go together: 'execute' runs the "
                         "SQL that ibis.to_sql compiles for 'dialect' (for example dialect='clickhouse').")
    if dialect is not None and not isinstance(dialect, str):
        raise TypeError(f"The 'dialect' engine option of {func} must be a str; got {type(dialect).__name__}.")
    return {"execute": execute, "dialect": dialect}


def execute(expr: Any, options: dict[str, Any]) -> pd.DataFrame:
    """One query: through ``options["execute"]`` (the SQL for ``options["dialect"]``) or the
    table's own Ibis connection. Counted in :data:`QUERIES`."""
    next(QUERIES)
    run_sql: Callable[[str], pd.DataFrame] | None = options.get("execute")
    if run_sql is not None:
        import ibis

        return run_sql(str(ibis.to_sql(expr, dialect=options["dialect"])))
    return expr.execute()  # type: ignore[no-any-return]


def distinct(frame: Any, column: Any) -> list[Any]:
    """The distinct non-missing values of a column (one ``SELECT DISTINCT``)."""
    c = frame[str(column)]
    out = execute(frame.filter(c.notnull()).select(c).distinct(), {})
    return out.iloc[:, 0].tolist()


from ._run import per_group, run  # noqa: E402
