"""Input checking: columns, missing values, dtypes and parameters.

Everything a user can get wrong is caught here, before any kernel runs, with a
message that names the column or parameter, the count and the fix.
"""

from __future__ import annotations

import difflib
import math
import numbers
from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import Any

import numpy as np
import pandas as pd

__all__ = [
    "ColumnNotFoundError",
    "InvalidParameterError",
    "invalid_parameter",
    "InputProblem",
    "MissingValuesError",
    "first_keys",
    "problem_message",
    "check_frame",
    "check_columns",
    "closest_name",
    "call_user",
    "duplicate_column_error",
    "check_option",
    "check_k",
    "check_min_count",
    "as_columns",
    "check_column_name",
    "check_seed",
    "check_n_boot_for_level",
    "missing_mask",
    "numeric_values",
    "weight_roles",
]


class ColumnNotFoundError(KeyError):
    """A column named in the call is not in the frame."""

    def __str__(self) -> str:  # KeyError quotes its message; show it as written
        return str(self.args[0]) if self.args else ""


class InvalidParameterError(ValueError, TypeError):
    """A parameter of a public function got a value it does not take: a wrong type, a value
    outside its range, or a choice it does not have.

    One message template for every such check, as scikit-learn's parameter validation: "The
    'k' parameter of ndcg must be an int in the range [1, inf) or None. Got 0 instead.", then
    the fix where there is one (the closest valid choice). It subclasses both ``ValueError``
    and ``TypeError``, so ``except ValueError`` and ``except TypeError`` both catch it whatever
    was wrong with the value. :func:`invalid_parameter` writes it.
    """


def invalid_parameter(
    param: str, func: str, must: str, got: Any, hint: str = "", *, what: str = "parameter"
) -> InvalidParameterError:
    """The error of a parameter check: "The '<param>' parameter of <func> must be <must>. Got
    <got> instead. <hint>" (``got`` shown by its repr, or a Series' or array's type and size
    only, never its values; ``what="engine option"`` for a key of ``engine_options``).

    Examples
    --------
    >>> err = invalid_parameter(
    ...     "ties",
    ...     "gauc",
    ...     "one of 'expected', 'pessimistic'",
    ...     "pesimistic",
    ...     "Did you mean 'pessimistic'?",
    ... )
    >>> print(err)
    The 'ties' parameter of gauc must be one of 'expected', 'pessimistic'. Got
    'pesimistic' instead. Did you mean 'pessimistic'?
    >>> isinstance(err, ValueError) and isinstance(err, TypeError)
    True
    """
    tail = f" {hint.strip()}" if hint.strip() else ""
    return InvalidParameterError(f"The '{param}' {what} of {func} must be {must}. Got {_describe(got)} instead.{tail}")


def check_frame(df: Any, func: str) -> pd.DataFrame:
    """The input must be a non-empty DataFrame."""
    if not isinstance(df, pd.DataFrame):
        raise TypeError(
            f"{func} expects a pandas DataFrame as its first argument; got {type(df).__name__}."
        )
    if len(df) == 0:
        raise ValueError(f"{func} got an empty DataFrame (0 rows); there is nothing to evaluate.")
    return df


def _is_column(df: pd.DataFrame | None, value: Any) -> bool:
    """``value`` is exactly one column's name in ``df`` (a tuple may name a column)."""
    if df is None:
        return False
    try:
        return value in df.columns and isinstance(df.columns.get_loc(value), int)
    except (TypeError, KeyError, ValueError):
        return False


def _hashable(value: Any) -> bool:
    """``value`` can be a column name: it hashes (a polars ``Expr`` claims to, then raises)."""
    try:
        hash(value)
    except TypeError:
        return False
    return True


def _polars_kind(value: Any) -> str | None:
    module = type(value).__module__ or ""
    return type(value).__name__ if module.split(".")[0] == "polars" else None


def _describe(value: Any) -> str:
    """A parameter's value in a message: its type and size, never its values.

    >>> (
    ...     _describe(pd.Series([0.1, 0.2, 0.3], name="s")),
    ...     _describe(pd.Series(range(5))),
    ... )
    ("a pandas Series (named 's', 3 values)", 'a pandas Series (5 values)')
    """
    polars = _polars_kind(value)
    if isinstance(value, pd.Series) or polars == "Series":
        name = getattr(value, "name", None)
        named = f"named {name!r}, " if name not in (None, "") else ""
        return f"a {'polars' if polars else 'pandas'} Series ({named}{len(value):,} values)"
    if polars == "Expr":
        return f"a polars expression ({_short(str(value))})"
    if polars is not None:
        return f"a polars {polars}"
    if isinstance(value, (pd.DataFrame, np.ndarray, pd.Index)):
        return f"a {type(value).__name__} ({len(value):,} rows)" if isinstance(value, pd.DataFrame) else (
            f"a {type(value).__name__} of {np.size(value):,} values" if isinstance(value, np.ndarray)
            else f"an Index of {len(value):,} values"
        )
    return _short(repr(value))


def _short(text: str) -> str:
    return text if len(text) <= 60 else text[:57] + "..."


def _name_hint(value: Any, param: str, item: bool = False) -> str:
    """How to pass a Series' or a polars column expression's name instead of it."""
    name = getattr(value, "name", None) if isinstance(value, pd.Series) or _polars_kind(value) == "Series" else None
    if _polars_kind(value) == "Expr":
        try:  # pl.col("s") names a column; pl.col("s") * 2 computes one
            name = value.meta.output_name() if value.meta.is_column() else None
        except Exception:  # several columns, a pattern
            name = None
        if name is None:
            return " Add the expression to the frame as a column (df.with_columns(...)) and pass its name."
    if name not in (None, ""):
        return f" Pass the column's name: {name!r}." if item else f" Pass the column's name: {param}={name!r}."
    return " Add the values to the frame as a column and pass its name."


def check_column_name(value: Any, param: str, func: str, df: pd.DataFrame | None = None) -> Hashable:
    """A parameter that takes one column: a hashable name, not the column's values."""
    if isinstance(value, (list, tuple)) and not _is_column(df, value):
        fix = f"Pass {param}={value[0]!r}" if len(value) == 1 else "Name one column"
        if param == "score":
            fix += ", or use report(..., scores=[...]) for several score columns"
        raise invalid_parameter(param, func, "one column name", value, f"{fix}.")
    if (
        isinstance(value, (pd.Series, pd.DataFrame, np.ndarray, pd.Index))
        or _polars_kind(value) is not None
        or not _hashable(value)
        or value is None
    ):
        raise invalid_parameter(param, func, "a column name", value, "" if value is None else _name_hint(value, param))
    return value


def as_columns(
    value: Hashable | Sequence[Hashable], param: str, func: str, df: pd.DataFrame | None = None
) -> list[Hashable]:
    """Normalize a column or a list of columns to a non-empty list.

    A tuple is a list of columns unless it is itself the name of a column of ``df``
    (MultiIndex columns, tuple names), as in ``pandas.DataFrame.groupby``.
    """
    if isinstance(value, tuple) and _is_column(df, value):
        cols: list[Hashable] = [value]
    elif isinstance(value, (list, tuple)):
        cols = list(value)
    elif _hashable(value) and value is not None and not isinstance(value, (pd.Series, pd.Index)) and _polars_kind(value) is None:
        cols = [value]
    else:
        raise invalid_parameter(param, func, "a column name or a list of column names", value,
                                "" if value is None else _name_hint(value, param))
    if not cols:
        raise invalid_parameter(param, func, "a column name or a non-empty list of column names", value)
    for c in cols:
        if isinstance(c, (pd.Series, pd.DataFrame, np.ndarray, pd.Index, list)) or _polars_kind(c) is not None or not _hashable(c):
            raise TypeError(
                f"The '{param}' parameter of {func} must be a column name or a list of column "
                f"names; one item is {_describe(c)}.{_name_hint(c, param, item=True)}"
            )
    return cols


def closest_name(name: Hashable, candidates: Iterable[Hashable], cutoff: float = 0.5) -> str | None:
    """The candidate a missing ``name`` most likely meant, or None.

    A candidate that differs from ``name`` only in case comes first; otherwise the closest by
    :func:`difflib.get_close_matches`, with both sides compared in lower case (case alone never
    decides between two candidates).

    Examples
    --------
    >>> closest_name("MODEL_A", ["model_b", "model_a"])
    'model_a'
    >>> closest_name("Model_A", ["user", "model_b", "model_a"])
    'model_a'
    >>> closest_name("Clik", ["user", "click"])
    'click'
    >>> closest_name("zzz", ["user", "click"]) is None
    True
    """
    names = [str(c) for c in candidates]
    folded = [n.casefold() for n in names]
    key = str(name).casefold()
    if key in folded:
        return names[folded.index(key)]
    close = difflib.get_close_matches(key, folded, n=1, cutoff=cutoff)
    return names[folded.index(close[0])] if close else None


def call_user(fn: Callable[[Any], Any], arg: Any, param: str, func: str, given: str) -> Any:
    """``fn(arg)``, a callable the user passed as ``param`` of ``func``. An error it raises comes
    out as a ValueError that names the parameter and what the callable was given, raised ``from``
    the original (whose traceback shows the line of the callable that failed).

    Examples
    --------
    >>> try:
    ...     call_user(
    ...         lambda st: st["clicks"],
    ...         {"n": 1},
    ...         "weight",
    ...         "gauc",
    ...         "the group statistics",
    ...     )
    ... except ValueError as exc:
    ...     print(exc)
    ...     print(repr(exc.__cause__))
    The 'weight' callable of gauc raised KeyError: 'clicks' (it was called with the
    group statistics). Fix the callable (its own error is shown above this one).
    KeyError('clicks')
    """
    try:
        return fn(arg)
    except Exception as exc:
        raise ValueError(
            f"The '{param}' callable of {func} raised {type(exc).__name__}: {exc} (it was called with "
            f"{given}). Fix the callable (its own error is shown above this one)."
        ) from exc


def duplicate_column_error(column: Hashable, count: int, fix: str | None = None, note: str = "") -> ValueError:
    """The error of a column name that names ``count`` columns of a frame (pandas' message; ``fix``
    replaces the pandas example, ``note`` says why the names count as one, if not obvious)."""
    return ValueError(
        f"Column {column!r} appears {count:,} times in the frame{note}, so it does not name one column. "
        "Rename or drop the duplicates first, for example "
        f"{fix or 'df.loc[:, ~df.columns.duplicated()]'}."
    )


def check_columns(df: pd.DataFrame, columns: Iterable[Hashable], duplicate_fix: Any = None) -> None:
    """Raise :class:`ColumnNotFoundError` listing every missing column, with suggestions.

    A column named more than once raises :func:`duplicate_column_error`; ``duplicate_fix(column)``,
    if given, writes its example fix (a DuckDB relation is fixed in SQL, not with ``df.loc``).
    """
    wanted = list(dict.fromkeys(columns))
    missing = [c for c in wanted if c not in df.columns]
    if not missing:
        for c in wanted:
            loc = df.columns.get_loc(c)
            if isinstance(loc, int):
                continue
            count = int(np.asarray(loc).sum()) if not isinstance(loc, slice) else len(range(*loc.indices(len(df.columns))))
            if isinstance(df.columns, pd.MultiIndex) and not (isinstance(c, tuple) and len(c) == df.columns.nlevels):
                example = df.columns[df.columns.get_locs([c] if not isinstance(c, tuple) else list(c))[0]]
                raise ColumnNotFoundError(
                    f"Column {c!r} names {count:,} columns of the MultiIndex columns, not one. Name one "
                    f"column with a tuple of every level, such as {example!r}, or flatten the columns "
                    "first (df.columns = ['_'.join(map(str, c)) for c in df.columns])."
                )
            raise duplicate_column_error(c, count, duplicate_fix(c) if duplicate_fix is not None else None)
        return
    available = [str(c) for c in df.columns]
    hints = []
    for col in missing:
        close = closest_name(col, available)
        if close is not None:
            hints.append(f"Did you mean {close!r} for {col!r}?" if len(missing) > 1 else f"Did you mean {close!r}?")
    msg = f"The following columns were not found: {missing!r}."
    if hints:
        msg += " " + " ".join(hints)
    else:
        msg += f" Available columns: {available!r}."
    raise ColumnNotFoundError(msg)


def check_option(value: Any, param: str, func: str, options: Sequence[str]) -> str:
    """A string parameter must be one of ``options`` (the error names the closest one).

    >>> check_option(
    ...     "Optimistic", "ties", "gauc", ("expected", "pessimistic", "optimistic")
    ... )
    Traceback (most recent call last):
    ...
    pandas_rankeval.core.inputs.validation.InvalidParameterError: The 'ties'
    parameter of gauc must be one of 'expected', 'pessimistic', 'optimistic'. Got
    'Optimistic' instead. Did you mean 'optimistic'?
    """
    if not isinstance(value, str) or value not in options:
        choices = ", ".join(repr(o) for o in options)
        close = closest_name(value, options, cutoff=0.6) if isinstance(value, str) else None
        raise invalid_parameter(param, func, f"one of {choices}", value, f"Did you mean {close!r}?" if close else "")
    return value


def check_k(k: Any, func: str, *, allow_none: bool = True, param: str = "k") -> int | None:
    """``k`` is a positive int (or None where the metric allows the whole list)."""
    if k is None and allow_none:
        return None
    if isinstance(k, (bool, np.bool_)) or not isinstance(k, numbers.Integral) or k < 1:
        rng = "an int in the range [1, inf)" + (" or None" if allow_none else "")
        raise invalid_parameter(param, func, rng, k)
    return int(k)


def check_persistence(p: Any, func: str, *, param: str = "p") -> float:
    """A persistence (rank-biased precision's ``p``) is a float in the open range (0, 1)."""
    if isinstance(p, (bool, np.bool_)) or not isinstance(p, numbers.Real) or not (0.0 < float(p) < 1.0):
        raise invalid_parameter(param, func, "a float in the range (0, 1)", p)
    return float(p)


def check_bins(bins: Any, func: str, *, param: str = "bins") -> int:
    """A number of equal-width bins (``ece``'s ``bins``) is an int in [1, 1000]."""
    if isinstance(bins, (bool, np.bool_)) or not isinstance(bins, numbers.Integral) or not 1 <= int(bins) <= 1000:
        raise invalid_parameter(param, func, "an int in the range [1, 1000]", bins)
    return int(bins)


def check_min_count(value: Any, param: str, func: str) -> int:
    """Filters such as ``min_size`` are non-negative ints; None means no filter."""
    if value is None:
        return 0
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral) or value < 0:
        raise invalid_parameter(param, func, "an int in the range [0, inf) or None", value)
    return int(value)


def missing_mask(series: pd.Series) -> np.ndarray:
    """Boolean mask of missing values (NaN, None, pd.NA, NaT).

    numpy-backed numbers are read directly (``series.isna()`` costs ~40 us a column of any
    length, most of a small call): integers and bools hold no missing value, floats only NaN.
    """
    dtype = series.dtype
    if isinstance(dtype, np.dtype):
        if dtype.kind in "iub":
            return np.zeros(series.shape[0], dtype=bool)
        if dtype.kind == "f":
            return np.isnan(series.to_numpy())
    elif pd.api.types.is_float_dtype(dtype):  # a pyarrow or masked float: null, and NaN that is not null
        return np.isnan(series.to_numpy(dtype=np.float64, na_value=np.nan))
    return np.asarray(series.isna(), dtype=bool)


def weight_roles(sample_weight: Hashable | None, weight_column: Hashable | None) -> dict[Hashable, str]:
    """The weight columns of a call, each with the parameter that names it (for its errors).

    >>> weight_roles("w", None), weight_roles("w", "w"), weight_roles(None, "imp")
    ({'w': 'sample_weight'}, {'w': 'sample_weight and weight'}, {'imp': 'weight'})
    """
    roles: dict[Hashable, str] = {}
    if sample_weight is not None:
        roles[sample_weight] = "sample_weight"
    if weight_column is not None:
        roles[weight_column] = "sample_weight and weight" if weight_column in roles else "weight"
    return roles


def numeric_values(
    series: pd.Series,
    column: Hashable,
    role: str,
    *,
    keep_float32: bool = False,
    keep_int: bool = False,
    keep_int64: bool = False,
    fix: str | None = None,
) -> np.ndarray:
    """The values of a numeric or bool column as a numpy array.

    Missing values must have been handled before (see :func:`missing_mask`).
    ``keep_float32`` keeps float32 scores as they are (sorting them is exact);
    ``keep_int`` keeps integer and bool columns as (small) integers, which is all
    labels need; ``keep_int64`` keeps 64-bit integer columns (numpy or nullable)
    as int64 / uint64, which float64 would round above 2**53 (scores are ranked
    exactly as stored); everything else becomes float64. ``fix`` is the conversion a text
    column's error suggests (default: pandas' ``pd.to_numeric``).
    """
    dtype = series.dtype
    if pd.api.types.is_bool_dtype(dtype):
        return series.to_numpy(dtype=np.uint8 if keep_int else np.float64)
    if not pd.api.types.is_numeric_dtype(dtype) or pd.api.types.is_complex_dtype(dtype):
        temporal = pd.api.types.is_datetime64_any_dtype(dtype) or pd.api.types.is_timedelta64_dtype(dtype)
        hint = fix or (f"df[{column!r}].astype('int64')" if temporal else f"pd.to_numeric(df[{column!r}])")
        raise TypeError(
            f"Column {column!r} ({role}) must be numeric or bool; it has dtype {dtype}. "
            f"Convert it first, for example with {hint}."
        )
    if keep_float32 and dtype == np.float32:
        return series.to_numpy()
    if keep_int64 and pd.api.types.is_integer_dtype(dtype):
        numpy_dtype: np.dtype = np.dtype(getattr(dtype, "numpy_dtype", dtype))  # type: ignore[arg-type, call-overload]
        if numpy_dtype.itemsize == 8:  # smaller integers are exact in float64
            return series.to_numpy(dtype=numpy_dtype)
    if keep_int and pd.api.types.is_integer_dtype(dtype):
        numpy_dtype = np.dtype(getattr(dtype, "numpy_dtype", dtype))  # type: ignore[arg-type]  # stubs narrower than runtime;  nullable Int8 -> int8
        return series.to_numpy(dtype=numpy_dtype)
    return series.to_numpy(dtype=np.float64)


#: The order in which the problems of the data are reported, the order pandas meets them in
#: (``exp2_label``: labels too large for ``gain='exp2'``, whose message is
#: :func:`~.evaluate.exp2_overflow_error`'s).
PROBLEM_ORDER = (
    "infinite_label", "bad_weight", "mixed_by", "negative_label", "exp2_label", "label_grade", "binary_label",
    "probability", "group_weight", "weight_missing", "bad_position", "bad_propensity", "unknown_position",
)


def problem_message(kind: str, where: Any, count: int, *, of: int = 0, examples: Sequence[Any] = ()) -> str:
    """The message of a problem of the data, from its count over the rows (or groups) seen.

    The same words whether one partition (pandas) or the whole table (Dask, Spark: the counts of
    every partition added up) found it. ``where`` is the column, or for the kinds about groups
    (``group_weight``, ``weight_missing``, ``mixed_by``) the function and its columns.
    """
    s = "s" if count != 1 else ""
    if kind == "infinite_label":
        return f"Column {where!r} (label) has {count:,} infinite value{s}; labels must be finite numbers or bools."
    if kind == "bad_weight":
        return (
            f"Column {where!r} (weight) has {count:,} negative or infinite value{s}; weights must be finite and >= 0."
        )
    if kind == "negative_label":
        return (
            f"Column {where!r} has {count:,} negative label{s}; graded metrics (NDCG, DCG, ERR) need labels >= 0 "
            "(graded relevance). "
            "Clip or shift them first."
        )
    if kind == "label_grade":  # where: (label column, largest grade, metric names); examples: [largest label]
        label, limit, names = where
        named = names[0] if len(names) == 1 else ", ".join(names)
        return (
            f"Column {label!r} (label) has {count:,} row{s} above grade {limit:g} (labels up to "
            f"{float(examples[0]):.6g}); {named} read{'s' if len(names) == 1 else ''} labels as grades 0 to "
            f"{limit:g} (R = (2**label - 1) / 2**{limit:g}). Rescale the labels to 0..{limit:g} first."
        )
    if kind == "group_weight":
        return (
            f"The 'weight' of {where} must be finite and >= 0; {count:,} groups got a negative, infinite or "
            "missing weight."
        )
    if kind == "weight_missing":
        return (
            f"The 'weight' Series of {where} has no value for {count:,} of {of:,} groups (for example "
            f"{list(examples)!r}). Index it by group key and give every group a weight."
        )
    if kind == "mixed_by":
        return mixed_by_message(where, count, of, examples)
    if kind in ("bad_position", "bad_propensity"):
        what = kind.split("_")[1]
        return (
            f"Column {where!r} ({what}) has {count:,} infinite, zero or negative value{s}; the IPS metrics "
            f"need every {what} > 0 (missing values: see nan_policy)."
        )
    if kind == "unknown_position":
        return (
            f"Column {where!r} (position) has {count:,} row{s} at a position the propensity table does not give "
            f"(for example {list(examples)!r}). Estimate the propensities on the same positions, or give "
            "those positions a propensity."
        )
    if kind == "binary_label":  # where: (label column, metric names); examples: labels seen
        from ..kernels.calibration import label_error

        return str(label_error(where[0], count, sorted(examples)[:3], list(where[1])))
    if kind == "probability":  # where: (score column, metric names); examples: [smallest, largest]
        from ..kernels.calibration import probability_error

        return str(probability_error(where[0], count, examples[0], examples[1], list(where[1])))
    raise internal_error(f"unknown problem {kind!r}")


def key_order(key: Any) -> Any:
    """A sort key that orders any group keys, of mixed types too: numbers (bools, ints, floats,
    by value), then text, then anything else by its type and ``repr``; a tuple key element by
    element. The examples an error shows are the smallest keys in this order, the same whichever
    partitions found them and in whatever order their rows came.

    >>> sorted(["k1", 5, 4.5, True, ("a", 1)], key=key_order)
    [True, 4.5, 5, 'k1', ('a', 1)]
    """
    if isinstance(key, tuple):
        return (4, tuple(key_order(k) for k in key))
    key = key.item() if isinstance(key, np.generic) else key
    if isinstance(key, (bool, int, float)) and key == key:  # NaN last among the others
        return (0, key)
    if isinstance(key, str):
        return (1, key)
    return (2, type(key).__name__, repr(key))


def first_keys(keys: Sequence[Any], n: int = 3) -> list[Any]:
    """The ``n`` smallest keys in :func:`key_order`: the examples an error shows, the same
    whichever partitions found them."""
    return sorted(keys, key=key_order)[:n]


class InputProblem(ValueError):
    """Bad values of the data, counted: one partition raises it, an engine adds the counts.

    pandas raises it as it is (one partition is the whole table). The summary layer catches it
    in each partition (:func:`pandas_rankeval.summary.summarize`) and raises it again with the
    counts of every partition added up, so Dask and Spark report whole-table counts.
    """

    def __init__(self, kind: str, where: Any, count: int, *, of: int = 0, examples: Sequence[Any] = ()) -> None:
        self.kind, self.where, self.count, self.of = kind, where, int(count), int(of)
        self.examples = list(examples)[:3]
        super().__init__(problem_message(kind, where, self.count, of=self.of, examples=self.examples))


def internal_error(what: str) -> RuntimeError:
    """An impossible state (a bug, not bad input): what was missing, and where to report it."""
    return RuntimeError(f"pandas_rankeval internal error: {what}. Please report this with the call that raised it.")


#: How each engine's users call a missing value (the engine's NAME; pandas and Dask: NaN/None).
MISSING_WORDS = {"polars": "null or NaN", "DuckDB": "NULL or NaN", "Spark": "NULL or NaN"}


class MissingValuesError(ValueError):
    """Missing values under ``nan_policy='raise'``: the counts per column, worded for an engine.

    The layers that count them do not know the frame's kind; :meth:`for_engine` words the same
    counts for it (``null`` to a polars user, ``NULL`` to DuckDB and Spark).
    """

    def __init__(self, counts: dict[Hashable, int], word: str = "NaN/None") -> None:
        self.counts = dict(counts)
        self.word = word
        first, count = next(iter(self.counts.items()))
        others = [c for c in self.counts if c != first]
        also = f" (also missing values in {others!r})" if others else ""
        super().__init__(
            f"Column {first!r} has {count:,} missing value{'s' if count != 1 else ''} "
            f"({word}){also}. Pass nan_policy='omit' to drop those rows "
            "(the count is reported with the result), or fill them first."
        )

    def for_engine(self, engine: str) -> MissingValuesError:
        """The same error in the words of ``engine`` (its ``NAME``)."""
        return MissingValuesError(self.counts, MISSING_WORDS.get(engine, self.word))


def missing_values_error(counts: dict[Hashable, int]) -> MissingValuesError:
    """The error for missing values: the first column and its count, the others, the fix."""
    return MissingValuesError(counts)


def check_seed(seed: Any, func: str) -> Any:
    """A seed for :func:`numpy.random.default_rng`: None, an int >= 0, or a numpy Generator,
    BitGenerator or SeedSequence."""
    if seed is None or isinstance(seed, (np.random.Generator, np.random.BitGenerator, np.random.SeedSequence)):
        return seed
    if isinstance(seed, numbers.Integral) and not isinstance(seed, (bool, np.bool_)) and int(seed) >= 0:
        return seed
    raise invalid_parameter("seed", func, "an int in the range [0, inf), None, or a numpy Generator / SeedSequence", seed)


def check_n_boot_for_level(n_boot: int, ci: float, func: str) -> None:
    """A percentile interval at level ``ci`` needs at least 1 / (1 - ci) replicates.

    With fewer, its ends are the extreme replicates (with one, a single replicate
    is the whole "interval", which need not contain the estimate).
    """
    needed = math.ceil(1.0 / (1.0 - ci) - 1e-9)
    if n_boot < needed:
        raise ValueError(
            f"The 'n_boot' parameter of {func} is {n_boot:,}, too few for a {ci:.0%} interval: a "
            f"percentile interval at level ci needs at least 1 / (1 - ci) = {needed:,} bootstrap "
            "replicates (1,000 or more is usual). Raise n_boot or lower ci."
        )


def check_compare_scores(score_cols: list[Hashable], baseline: Hashable | None, func: str,
                         columns: list[Hashable] | None = None) -> None:
    """compare's score columns: distinct, at least two, the baseline among them (None: all pairs).
    With the frame's ``columns``, a baseline that is a column but not a score is told to join
    ``scores``, and one that is no column gets the closest column name."""
    if len(set(score_cols)) != len(score_cols):
        dup = sorted({str(c) for c in score_cols if score_cols.count(c) > 1})
        raise ValueError(f"The 'scores' parameter of {func} names a column more than once: {dup}.")
    if baseline is not None and baseline not in score_cols:  # first: it may be the second column meant
        close = None if columns is None or baseline in columns else closest_name(baseline, columns, cutoff=0.6)
        hint = (f"Did you mean {close!r}?" if close is not None
                else f"List it in scores too: scores={[baseline, *score_cols]!r}.")
        raise invalid_parameter("baseline", func, f"one of the score columns {score_cols!r}", baseline, hint)
    if len(score_cols) < 2:
        raise ValueError(
            f"{func} needs at least two score columns, the baseline and a model to compare with it; "
            f"got scores={score_cols!r}."
        )


def _plain(x: Any) -> Any:
    return x.item() if isinstance(x, np.generic) else x


def _key_text(key: Any, names: Sequence[Hashable]) -> str:
    keys = key if isinstance(key, tuple) else (key,)
    return ", ".join(f"{n}={_plain(k)!r}" for n, k in zip(names, keys))


def mixed_by_message(where: tuple, count: int, of: int, examples: Sequence[Any]) -> str:
    """The error of a ``by`` column that varies within groups (whole-table counts)."""
    func, by, group = where
    cols = list(by)
    name = cols[0] if len(cols) == 1 else cols
    example = ""
    if examples:
        key, values = examples[0]
        texts = [repr(v) for v in values]
        shown = texts[0] if len(texts) == 1 else ", ".join(texts[:-1]) + " and " + texts[-1]
        example = f", for example the group {_key_text(key, group)} has {shown}"
    return (
        f"The 'by' column {name!r} of {func} must be constant within each group: {count:,} of "
        f"{of:,} groups {'has' if count == 1 else 'have'} more than one value{example}. If {name!r} is part "
        f"of what a group is, make it part of the group: group={[*group, *[c for c in cols if c not in group]]!r}; "
        "otherwise segment by an attribute of the whole group."
    )
