"""The warehouse engine's questions that need no metric: the schema, the options, and every query
sent (counted)."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from ...core.inputs.validation import invalid_parameter
from .stats import SUPPORTED

__all__ = ["NAME", "OPTIONS", "QUERIES", "SUPPORTED", "check_options", "distinct", "execute", "partitioned", "schema",
           "with_row_number"]

NAME = "Ibis"
#: ``engine_options`` of an Ibis table: ``execute`` (a callable that runs one SQL string and returns
#: a pandas DataFrame, for a table that no Ibis connection holds) with ``dialect`` (the SQL dialect
#: ``ibis.to_sql`` compiles for, for example ``"clickhouse"``).
OPTIONS: tuple[str, ...] = ("execute", "dialect")
#: Every query the engine sends, counted (the tests read it): see the docs' "what each call sends".
QUERIES = itertools.count()


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


def with_row_number(frame: Any, name: str, resampled: bool = True) -> Any:
    """The values alone (``resampled=False``): one constant key, so the warehouse sends one row back
    (the calibration metrics pool rows: any key gives their values). An interval or a test resamples
    rows, which would send every row back: refused, asking for ``group=``."""
    if not resampled:
        import ibis

        return frame.mutate(**{name: ibis.literal(0, type="int64")})
    raise ValueError(
        "An interval or a test of the calibration metrics (logloss, ne, pcoc, ece) on an Ibis table needs "
        "the 'group' parameter: without it every row is its own group, and the warehouse sends one row per "
        "group back, so it would send the whole table. Pass group= (the user or request: the unit the "
        "bootstrap resamples), leave out ci= (the values need no group), or evaluate the table on DuckDB, "
        "polars or Dask, which resample rows where they lie."
    )


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
        raise invalid_parameter("execute", func, "a callable (sql -> DataFrame) or None", execute, what="engine option")
    if (execute is None) != (dialect is None):
        raise ValueError(f"The 'execute' and 'dialect' engine options of {func} go together: 'execute' runs the "
                         "SQL that ibis.to_sql compiles for 'dialect' (for example dialect='clickhouse').")
    if dialect is not None and not isinstance(dialect, str):
        raise invalid_parameter("dialect", func, "a str", dialect, what="engine option")
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


def distinct(frame: Any, column: Any, options: dict[str, Any] | None = None) -> list[Any]:
    """The distinct non-missing values of a column (one query; a GROUP BY, see
    :func:`.checks.label_examples`), through ``options`` (``execute`` and ``dialect``) when given."""
    c = frame[str(column)]
    rows = frame.filter(c.notnull())
    out = execute(rows.group_by(c.get_name()).aggregate(n=rows.count()).select(c.get_name()),
                  check_options(dict(options or {}), "distinct"))
    return out.iloc[:, 0].tolist()


