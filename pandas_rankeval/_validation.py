"""Input checking: columns, missing values, dtypes and parameters.

Everything a user can get wrong is caught here, before any kernel runs, with a
message that names the column or parameter, the count and the fix.
"""

from __future__ import annotations

import difflib
import numbers
from collections.abc import Hashable, Iterable, Sequence
from typing import Any

import numpy as np
import pandas as pd

__all__ = [
    "ColumnNotFoundError",
    "check_frame",
    "check_columns",
    "check_option",
    "check_k",
    "check_min_count",
    "as_columns",
    "missing_mask",
    "numeric_values",
]


class ColumnNotFoundError(KeyError):
    """A column named in the call is not in the frame."""

    def __str__(self) -> str:  # KeyError quotes its message; show it as written
        return str(self.args[0]) if self.args else ""


def check_frame(df: Any, func: str) -> pd.DataFrame:
    """The input must be a non-empty DataFrame."""
    if not isinstance(df, pd.DataFrame):
        raise TypeError(
            f"{func} expects a pandas DataFrame as its first argument; got {type(df).__name__}."
        )
    if len(df) == 0:
        raise ValueError(f"{func} got an empty DataFrame (0 rows); there is nothing to evaluate.")
    return df


def as_columns(value: Hashable | Sequence[Hashable], param: str, func: str) -> list[Hashable]:
    """Normalize a column or a list of columns to a non-empty list."""
    if isinstance(value, (list, tuple)):
        cols = list(value)
    elif isinstance(value, Hashable) and value is not None:
        cols = [value]
    else:
        raise TypeError(
            f"The '{param}' parameter of {func} must be a column name or a list of column "
            f"names. Got {value!r} instead."
        )
    if not cols:
        raise ValueError(f"The '{param}' parameter of {func} must name at least one column.")
    return cols


def check_columns(df: pd.DataFrame, columns: Iterable[Hashable]) -> None:
    """Raise :class:`ColumnNotFoundError` listing every missing column, with suggestions."""
    wanted = list(dict.fromkeys(columns))
    missing = [c for c in wanted if c not in df.columns]
    if not missing:
        return
    available = [str(c) for c in df.columns]
    hints = []
    for col in missing:
        close = difflib.get_close_matches(str(col), available, n=1, cutoff=0.5)
        if close:
            hints.append(f"Did you mean {close[0]!r} for {col!r}?" if len(missing) > 1 else f"Did you mean {close[0]!r}?")
    msg = f"The following columns were not found: {missing!r}."
    if hints:
        msg += " " + " ".join(hints)
    else:
        msg += f" Available columns: {available!r}."
    raise ColumnNotFoundError(msg)


def check_option(value: Any, param: str, func: str, options: Sequence[str]) -> str:
    """A string parameter must be one of ``options``."""
    if not isinstance(value, str) or value not in options:
        choices = ", ".join(repr(o) for o in options)
        raise ValueError(
            f"The '{param}' parameter of {func} must be one of {choices}. Got {value!r} instead."
        )
    return value


def check_k(k: Any, func: str, *, allow_none: bool = True, param: str = "k") -> int | None:
    """``k`` is a positive int (or None where the metric allows the whole list)."""
    if k is None and allow_none:
        return None
    if isinstance(k, (bool, np.bool_)) or not isinstance(k, numbers.Integral) or k < 1:
        rng = "an int in the range [1, inf)" + (" or None" if allow_none else "")
        raise ValueError(f"The '{param}' parameter of {func} must be {rng}. Got {k!r} instead.")
    return int(k)


def check_min_count(value: Any, param: str, func: str) -> int:
    """Filters such as ``min_size`` are non-negative ints; None means no filter."""
    if value is None:
        return 0
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral) or value < 0:
        raise ValueError(
            f"The '{param}' parameter of {func} must be an int in the range [0, inf) or None. "
            f"Got {value!r} instead."
        )
    return int(value)


def missing_mask(series: pd.Series) -> np.ndarray:
    """Boolean mask of missing values (NaN, None, pd.NA, NaT)."""
    return np.asarray(series.isna(), dtype=bool)


def numeric_values(
    series: pd.Series,
    column: Hashable,
    role: str,
    *,
    keep_float32: bool = False,
    keep_int: bool = False,
) -> np.ndarray:
    """The values of a numeric or bool column as a numpy array.

    Missing values must have been handled before (see :func:`missing_mask`).
    ``keep_float32`` keeps float32 scores as they are (sorting them is exact);
    ``keep_int`` keeps integer and bool columns as (small) integers, which is all
    labels need; everything else becomes float64.
    """
    dtype = series.dtype
    if pd.api.types.is_bool_dtype(dtype):
        return series.to_numpy(dtype=np.uint8 if keep_int else np.float64)
    if not pd.api.types.is_numeric_dtype(dtype) or pd.api.types.is_complex_dtype(dtype):
        hint = f"pd.to_numeric(df[{column!r}])"
        raise TypeError(
            f"Column {column!r} ({role}) must be numeric or bool; it has dtype {dtype}. "
            f"Convert it first, for example with {hint}."
        )
    if keep_float32 and dtype == np.float32:
        return series.to_numpy()
    if keep_int and pd.api.types.is_integer_dtype(dtype):
        numpy_dtype = getattr(dtype, "numpy_dtype", dtype)  # nullable Int8 -> int8
        return series.to_numpy(dtype=numpy_dtype)
    return series.to_numpy(dtype=np.float64)


def internal_error(what: str) -> RuntimeError:
    """An impossible state (a bug, not bad input): what was missing, and where to report it."""
    return RuntimeError(f"pandas_rankeval internal error: {what}. Please report this with the call that raised it.")


def missing_values_error(counts: dict[Hashable, int]) -> ValueError:
    """The error for missing values: the first column and its count, the others, the fix."""
    first, count = next(iter(counts.items()))
    others = [c for c in counts if c != first]
    also = f" (also missing values in {others!r})" if others else ""
    return ValueError(
        f"Column {first!r} has {count:,} missing value{'s' if count != 1 else ''} "
        f"(NaN/None){also}. Pass nan_policy='omit' to drop those rows "
        "(the count is reported with the result), or fill them first."
    )
