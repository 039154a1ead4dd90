"""polars -> pandas at the edge of the adapter: the schema, and the plan's columns of one partition.

Only the columns a plan reads are converted, one by one, into a pandas frame that the shared
summary reads as it reads a pandas frame:

- a null-free numeric column of one chunk becomes a pandas column on the very buffer polars holds
  (``Series.to_numpy()`` is zero-copy there; pandas is told ``copy=False``);
- an integer column with nulls becomes a nullable ``Int64``-style column (values + mask), a float
  column's nulls become NaN: missing either way, as in pandas, and 64-bit integers stay exact;
- strings become pandas' ``str`` dtype on the Arrow buffers, categoricals pandas categoricals,
  dates and datetimes ``datetime64``; a ``Decimal`` column becomes a column of ``decimal.Decimal``
  values (object dtype), exactly what pandas holds for one: keys group by their exact value
  (never rounded to float64, which merges keys above 2**53), a hashed bootstrap refuses them as
  pandas does, and a score, label or weight is refused with pandas' message.

Keys therefore reach the stable key hash (:func:`pandas_rankeval.inference.hashing.key_hash`) with
the identity pandas gives them (an ``Int64`` key hashes as int64, a ``String`` key as its UTF-8
bytes), so the hashed bootstrap draws the same replicates as pandas for the same seed.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np
import pandas as pd
import polars as pl

__all__ = ["dtype_class", "is_float", "is_numeric", "pandas_dtype", "schema_frame", "to_pandas"]

_NUMPY = {
    pl.Int8: np.int8, pl.Int16: np.int16, pl.Int32: np.int32, pl.Int64: np.int64,
    pl.UInt8: np.uint8, pl.UInt16: np.uint16, pl.UInt32: np.uint32, pl.UInt64: np.uint64,
    pl.Float32: np.float32, pl.Float64: np.float64,
}
_NULLABLE = {
    pl.Int8: "Int8", pl.Int16: "Int16", pl.Int32: "Int32", pl.Int64: "Int64",
    pl.UInt8: "UInt8", pl.UInt16: "UInt16", pl.UInt32: "UInt32", pl.UInt64: "UInt64",
}


def dtype_class(dtype: Any) -> Any:
    """The dtype's class (``Datetime("us")`` -> ``Datetime``)."""
    return dtype.base_type() if hasattr(dtype, "base_type") else dtype


def is_float(dtype: Any) -> bool:
    """A float column: NaN is missing there too (pandas cannot tell NaN from null)."""
    return dtype_class(dtype) in (pl.Float32, pl.Float64)


def is_numeric(dtype: Any) -> bool:
    """Numeric or bool in pandas' eyes (what a label, score or weight may be)."""
    return dtype_class(dtype) in _NUMPY or dtype_class(dtype) is pl.Boolean


def pandas_dtype(dtype: Any) -> Any:
    """The dtype pandas gives a column of this polars dtype (``DataFrame.to_pandas``)."""
    base = dtype_class(dtype)
    if base in _NUMPY:
        return np.dtype(_NUMPY[base])
    if base is pl.Boolean:
        return np.dtype(bool)
    if base is pl.Decimal:
        return np.dtype(object)  # decimal.Decimal values, as pandas holds them (exact)
    if base is pl.String:
        return pd.StringDtype(na_value=np.nan)  # pandas' default "str"
    if base in (pl.Categorical, pl.Enum):
        return pd.CategoricalDtype()
    if base is pl.Date:
        return np.dtype("datetime64[ms]")
    if base is pl.Datetime:
        unit = getattr(dtype, "time_unit", None) or "us"
        tz = getattr(dtype, "time_zone", None)
        return pd.DatetimeTZDtype(unit, tz) if tz else np.dtype(f"datetime64[{unit}]")
    if base is pl.Duration:
        return np.dtype(f"timedelta64[{getattr(dtype, 'time_unit', None) or 'us'}]")
    return np.dtype(object)


def schema_frame(schema: Any, source: str = "polars") -> pd.DataFrame:
    """An empty pandas frame with the columns of a polars schema and the dtypes pandas gives them
    (``attrs["source"]`` is ``source``, ``"polars"`` or ``"duckdb"``: the checks then give that
    library's fix)."""
    out = pd.DataFrame({name: pd.Series(dtype=pandas_dtype(dt)) for name, dt in schema.items()})
    out.attrs["source"] = source
    # Decimal columns with no fraction digits: their fix is an integer cast (exact to 2**63), not
    # a float one (rounds above 2**53)
    out.attrs["whole_decimals"] = [name for name, dt in schema.items() if dtype_class(dt) is pl.Decimal and not dt.scale]
    # dates, times and durations, with their unit ("" for Date and Time): their fix reads the
    # integer they are stored as (exact), not a cast to float (DuckDB has none; float rounds ns)
    out.attrs["temporal"] = {name: getattr(dt, "time_unit", None) or "" for name, dt in schema.items()
                             if dtype_class(dt) in (pl.Date, pl.Datetime, pl.Duration, pl.Time)}
    return out


def _column(s: pl.Series) -> Any:
    """One polars column as a pandas Series (zero-copy where Arrow allows)."""
    dtype = s.dtype
    base = dtype_class(dtype)
    nulls = s.null_count()
    if base is pl.Decimal:
        return s.to_pandas()  # decimal.Decimal objects: exact, as in pandas
    if base in _NUMPY:
        if nulls and base in _NULLABLE:
            values = s.fill_null(0).to_numpy()
            mask = s.is_null().to_numpy()
            return pd.Series(pd.arrays.IntegerArray(values, mask), name=s.name, copy=False)
        # a null-free column of one chunk: a view of polars' buffer (nulls of a float: NaN)
        return pd.Series(s.to_numpy(), name=s.name, copy=False)
    if base is pl.Boolean:
        if nulls:
            values = s.fill_null(False).to_numpy()
            return pd.Series(pd.arrays.BooleanArray(values, s.is_null().to_numpy()), name=s.name, copy=False)
        return pd.Series(s.to_numpy(), name=s.name, copy=False)
    return s.to_pandas()  # strings (Arrow-backed "str"), categoricals, dates: polars' own conversion


def to_pandas(frame: pl.DataFrame, columns: Sequence[Hashable]) -> pd.DataFrame:
    """The named columns of an eager polars frame as a pandas frame, column by column.

    Examples
    --------
    >>> import polars as pl
    >>> df = pl.DataFrame({"u": ["a", "b"], "y": [1, None], "s": [0.5, 0.25], "x": [1, 2]})
    >>> pdf = to_pandas(df, ["u", "y", "s"])
    >>> [str(t) for t in pdf.dtypes]
    ['str', 'Int64', 'float64']
    """
    cols = list(dict.fromkeys(columns))
    return pd.DataFrame({c: _column(frame.get_column(str(c))) for c in cols}, copy=False)
