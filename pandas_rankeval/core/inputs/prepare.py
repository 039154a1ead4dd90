"""From a DataFrame to validated numpy arrays: group codes, label levels, scores.

This is the only place that looks at the frame. It never modifies it: columns are
read with ``to_numpy`` (copies where pandas needs to) and rows with missing values
are dropped from the arrays, not from the frame.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ..threads import Workers, over_ranges, row_ranges, run_tasks
from .validation import (
    _plain,
    check_column_name,
    check_columns,
    check_frame,
    missing_mask,
    missing_values_error,
    numeric_values,
)

__all__ = [
    "Groups", "Labels", "Prepared", "prepare", "encode_groups", "label_levels", "relevance_rule", "rows_per_segment",
    "segment_tuples",
]


@dataclass
class Groups:
    """Integer codes for the group key(s) and the way back to key values."""

    codes: np.ndarray  # int32 (int64 beyond 2**31 codes), one per row, in [0, n_codes)
    n_codes: int  # an upper bound of the codes; codes may be sparse (integer keys)
    decode: Callable[[np.ndarray], pd.Index]


#: Integer keys are used as codes without hashing while their range needs at most this many
#: bits plus the bits of the row count: room is left in the sort's 63-bit key for the label.
_SPARSE_CODE_BITS = 55


def _code_dtype(n_codes: int) -> type[np.signedinteger]:
    """int32 codes halve the memory traffic of the sort's gathers; int64 when needed."""
    return np.int32 if n_codes < 2**31 else np.int64


def _key_ranges(n: int, workers: Workers | None) -> list[tuple[int, int]]:
    """Ranges of rows of an integer key column, one per thread of ``workers`` (one without)."""
    return row_ranges(n, workers.n if workers is not None else 1)


def _int_bounds(v: np.ndarray, workers: Workers | None) -> tuple[int, int]:
    """The smallest and largest key, each range of rows on its thread (numpy releases the GIL)."""
    parts = run_tasks(workers, lambda r: (v[r[0] : r[1]].min(), v[r[0] : r[1]].max()), _key_ranges(len(v), workers))
    return min(int(a) for a, _ in parts), max(int(b) for _, b in parts)


def _encode_one(s: pd.Series, workers: Workers | None = None) -> tuple[np.ndarray, int, Callable[[np.ndarray], pd.Index]]:
    name = s.name
    dtype = s.dtype
    if (
        pd.api.types.is_integer_dtype(dtype)
        and not pd.api.types.is_extension_array_dtype(dtype)
        and len(s)
    ):
        v = s.to_numpy()
        lo, hi = _int_bounds(v, workers)
        span = hi - lo + 1
        if span <= 4 * len(v) + 1024 or span.bit_length() <= _SPARSE_CODE_BITS - len(v).bit_length():
            # integer keys of a moderate range: the key itself is the code, no hashing
            # (codes may be sparse: the sort packs them with the score rank into 63 bits)
            codes = np.empty(v.shape[0], dtype=_code_dtype(span))

            def shift(r: tuple[int, int]) -> None:
                np.subtract(v[r[0] : r[1]], lo, out=codes[r[0] : r[1]], casting="unsafe")  # in range: span fits

            run_tasks(workers, shift, _key_ranges(len(v), workers))

            def decode_int(c: np.ndarray) -> pd.Index:
                # in the key's own dtype: lo + code <= hi fits it (uint64 keys above 2**63 too)
                return pd.Index(np.asarray(c).astype(dtype) + dtype.type(lo), name=name)  # type: ignore[arg-type, union-attr]

            return codes, span, decode_int
    if isinstance(dtype, pd.ArrowDtype) and pd.api.types.is_float_dtype(dtype):
        # -0.0 + 0.0 is 0.0: one key (pd.factorize keeps them apart for pyarrow floats); the sum is
        # a double, cast back (exact: the values are the key's own)
        s = (s + 0.0).astype(dtype)
    try:
        codes, uniques = pd.factorize(s, sort=False, use_na_sentinel=True)
    except TypeError as exc:  # lists, arrays, dicts (a polars List or Struct, a DuckDB LIST) are no keys
        if "unhashable" not in str(exc):
            raise
        kind = type(next((v for v in s if v is not None), None)).__name__
        raise TypeError(
            f"Column {name!r} holds {kind} values, which cannot be group or segment keys (they are not "
            "hashable). Use scalar columns: unnest a struct or list column into columns and pass them "
            "as a list, such as group=['a', 'b']."
        ) from None
    codes = codes.astype(_code_dtype(len(uniques)), copy=False)
    uniques = unsigned_zero(uniques)

    def decode(c: np.ndarray) -> pd.Index:
        return pd.Index(uniques.take(np.asarray(c)), name=name)

    return codes, max(len(uniques), 1), decode


def unsigned_zero(values: Any) -> Any:
    """Float key values with ``-0.0`` as ``0.0``: a key or segment equal to zero is named ``0.0``
    on every engine, whichever of ``-0.0`` and ``0.0`` a partition met first (pandas' groupby
    would name it by its first row; a partitioned engine has no first row).

    Examples
    --------
    >>> unsigned_zero(pd.Index([-0.0, 1.5])).tolist(), unsigned_zero(pd.Index(["a"])).tolist()
    ([0.0, 1.5], ['a'])
    """
    dtype = getattr(values, "dtype", None)
    if dtype is not None and not isinstance(dtype, pd.CategoricalDtype) and dtype.kind == "f":
        return values + 0.0
    return values


def encode_groups(df: pd.DataFrame, columns: Sequence[Hashable], workers: Workers | None = None) -> Groups:
    """Encode one or more key columns as one int64 code per row (integer keys: ranges of rows on
    the threads of ``workers``; the codes do not depend on them)."""
    parts = [_encode_one(df[c], workers) for c in columns]
    if len(parts) == 1:
        codes, n_codes, dec = parts[0]
        return Groups(codes, n_codes, dec)
    radices = [p[1] for p in parts]
    total = 1
    for r in radices:
        total *= r
    if total < 2**62:
        codes = np.zeros(len(df), dtype=np.int64)
        for c, r, _ in parts:
            codes *= r
            codes += c
        codes = codes.astype(_code_dtype(total), copy=False)
        decoders = [p[2] for p in parts]

        def decode_multi(c: np.ndarray) -> pd.Index:
            c = np.asarray(c, dtype=np.int64)
            comps = []
            for r in reversed(radices):
                comps.append(c % r)
                c = c // r
            comps.reverse()
            return pd.MultiIndex.from_arrays(
                [d(x) for d, x in zip(decoders, comps)], names=list(columns)
            )

        return Groups(codes, total, decode_multi)
    # too many combinations to multiply out: let pandas number the observed ones
    ngroup = df.groupby(list(columns), sort=False, observed=True, dropna=False).ngroup()
    codes = ngroup.to_numpy(dtype=np.int64)
    codes = codes.astype(_code_dtype(int(codes.max()) + 1), copy=False)
    first_rows = np.unique(codes, return_index=True)[1]
    keys = pd.MultiIndex.from_frame(df.iloc[first_rows][list(columns)].apply(unsigned_zero))
    order = np.argsort(codes[first_rows])
    keys = keys[order]
    return Groups(codes, int(codes.max()) + 1, lambda c: keys[np.asarray(c)])


@dataclass
class Labels:
    """Label levels: ``level`` indexes the sorted distinct label values ``values``."""

    level: np.ndarray  # small ints, one per row
    values: np.ndarray  # float64 distinct labels, ascending
    rel_level: int  # rows with level >= rel_level are relevant
    _rel: np.ndarray | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def n_levels(self) -> int:
        return int(self.values.shape[0])

    @property
    def rel(self) -> np.ndarray:
        """Whether each row is relevant: made once (a report reads it for the group count and
        for every score column's global AUC), read-only since every reader shares it."""
        if self._rel is None:
            rel = self.level >= self.rel_level
            rel.flags.writeable = False
            self._rel = rel
        return self._rel


def label_levels(y: np.ndarray, threshold: float | None, graded: bool) -> Labels:
    """Relevance levels of the labels.

    With ``graded=False`` only relevance matters: two levels (0 = not relevant,
    1 = relevant). With ``graded=True`` every distinct label is its own level, as
    NDCG needs. Integer labels are compared as integers (exact beyond 2**53).
    """
    integer = y.dtype.kind in "iu"
    rel = np.empty(y.shape[0], dtype=bool)
    if integer:
        # y > 0 is y >= 1 and y >= t is y >= ceil(t): integer comparisons, exact at any size
        info = np.iinfo(y.dtype)
        bound = 1 if threshold is None else math.ceil(threshold)
        if bound > info.max:
            rel[:] = False
        else:
            low = y.dtype.type(max(bound, int(info.min)))
            over_ranges(lambda lo, hi: np.greater_equal(y[lo:hi], low, out=rel[lo:hi]), y.shape[0])
    elif threshold is None:
        over_ranges(lambda lo, hi: np.greater(y[lo:hi], 0, out=rel[lo:hi]), y.shape[0])
    else:
        over_ranges(lambda lo, hi: np.greater_equal(y[lo:hi], threshold, out=rel[lo:hi]), y.shape[0])
    if not graded:  # the levels are the relevance (a view of it): both read-only, shared as ``Labels.rel``
        rel.flags.writeable = False
        labels = Labels(rel.view(np.uint8), np.array([0.0, 1.0]), 1)
        labels._rel = rel
        return labels
    if integer:
        lo, hi = int(y.min()), int(y.max())
        if hi - lo < 4096:
            if lo == 0 and hi < 256:  # the usual 0/1 clicks or small grades: one byte a row, one pass
                level: np.ndarray = y.astype(np.uint8)
            elif y.dtype.kind == "i":  # int64 holds every signed label, and y - lo is in [0, 4096)
                level = y.astype(np.int64)
                level -= lo
            else:  # unsigned: y - lo in the labels' own dtype, in [0, hi - lo]
                level = (y - y.dtype.type(lo)).astype(np.int64)
            values = float(lo) + np.arange(hi - lo + 1, dtype=np.float64)
            rel_level = min(max(bound - lo, 0), hi - lo + 1)
        else:
            exact, level = np.unique(y, return_inverse=True)
            level = level.astype(np.int64)
            values = exact.astype(np.float64)  # only gains read these; relevance stays exact
            rel_level = (
                exact.shape[0] if bound > hi else int(np.searchsorted(exact, y.dtype.type(max(bound, lo)), side="left"))
            )
    else:
        lo_f, hi_f = float(y.min()), float(y.max())
        if hi_f - lo_f < 4096 and max(abs(lo_f), abs(hi_f)) < 2.0**52 and np.all(y == np.round(y)):
            values = np.arange(lo_f, hi_f + 1.0)
            level = (y - lo_f).astype(np.int64)
        else:
            values, level = np.unique(y, return_inverse=True)
            level = level.astype(np.int64)
        if threshold is None:
            rel_level = int(np.searchsorted(values, 0.0, side="right"))
        else:
            rel_level = int(np.searchsorted(values, threshold, side="left"))
    dtype = np.uint8 if values.shape[0] <= 256 else np.int64
    return Labels(level.astype(dtype, copy=False), values, rel_level)  # level is a new array here


def relevance_rule(dtype: Any, threshold: float | None) -> tuple[str, Any]:
    """How a label column of ``dtype`` (the pandas dtype of an engine's ``schema``) is relevant,
    exactly as :func:`label_levels` reads it, for an engine to translate into its own expression:
    ``("never", None)``; ``(">=", bound)`` with an int bound for an integer label (``>= 1`` or
    ``>= ceil(threshold)``, clipped to the dtype's range: exact at any size); ``(">", 0.0)`` or
    ``(">=", threshold)`` for a float or bool label, compared as float64 (a bool label is 0 or 1,
    where ``>= ceil(t)`` and ``>= t`` agree). A label of another dtype is never relevant (the
    schema checks refuse it first).

    >>> relevance_rule(np.dtype(np.int64), 1.5), relevance_rule(np.dtype(np.int8), 200.0)
    (('>=', 2), ('never', None))
    >>> relevance_rule(np.dtype(np.uint8), -3.0), relevance_rule(np.dtype(bool), None)
    (('>=', 0), ('>', 0.0))
    >>> relevance_rule(np.dtype(np.float32), 0.5), relevance_rule(np.dtype(object), None)
    (('>=', 0.5), ('never', None))
    """
    if pd.api.types.is_integer_dtype(dtype) and not pd.api.types.is_bool_dtype(dtype):
        info = np.iinfo(np.dtype(getattr(dtype, "numpy_dtype", dtype)))
        bound = 1 if threshold is None else math.ceil(threshold)
        return ("never", None) if bound > info.max else (">=", max(bound, int(info.min)))
    numeric = pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_complex_dtype(dtype)
    if not (numeric or pd.api.types.is_bool_dtype(dtype)):
        return ("never", None)
    return (">", 0.0) if threshold is None else (">=", float(threshold))


def raw_key(column: Hashable) -> tuple[str, Hashable]:
    """The key of a ``raw_extra`` column's values in :attr:`Prepared.extra`."""
    return ("__raw__", column)


@dataclass
class Prepared:
    """Validated arrays of one call, rows with missing values already dropped."""

    groups: Groups | None
    y: np.ndarray | None  # labels as floats; released once the label levels are built
    scores: dict[Hashable, np.ndarray]
    extra: dict[Hashable, np.ndarray] = field(default_factory=dict)
    n_rows: int = 0
    n_dropped: int = 0
    segments: Groups | None = None  # codes of the ``by`` columns, when asked for
    #: rows dropped per segment key (rows with no segment value in none): :func:`rows_per_segment`
    dropped_by: dict[tuple, int] = field(default_factory=dict)
    _pending: tuple[pd.DataFrame, list[Hashable]] | None = None

    def encode_groups(self, workers: Workers | None = None) -> Groups | None:
        """Encode the group keys now, if :func:`prepare` was asked to defer it (on the threads of
        ``workers``, if given)."""
        if self._pending is not None:
            frame, cols = self._pending
            self.groups = encode_groups(frame, cols, workers)
            self._pending = None
        return self.groups


def prepare(
    df: pd.DataFrame,
    *,
    func: str,
    group: Sequence[Hashable] | None,
    label: Hashable,
    scores: Sequence[Hashable],
    numeric_extra: Sequence[Hashable] = (),
    roles: Mapping[Hashable, str] | None = None,
    key_extra: Sequence[Hashable] = (),
    segment: Sequence[Hashable] = (),
    nan_policy: str = "raise",
    defer_groups: bool = False,
    raw_extra: Sequence[Hashable] = (),
) -> Prepared:
    """Check the columns and turn them into arrays.

    ``numeric_extra`` are numeric columns (sample weights, a weight column; ``roles`` names the
    parameter of each in errors, default "weight");
    ``key_extra`` are columns used only for ordering (a tie-break column), which
    may be of any sortable dtype; ``raw_extra`` are numeric columns that their metric checks (the
    logged position and propensity of the IPS metrics). With ``defer_groups`` the group keys are encoded
    only when :meth:`Prepared.encode_groups` is called, so that a caller can sort
    the scores meanwhile.
    """
    check_frame(df, func)
    gcols = list(group) if group is not None else []
    _check_named_columns(df, func, label, scores)
    # group keys (and segments) may be index levels, as in DataFrame.groupby: they become
    # columns of a new frame (the caller's frame is not touched)
    levels = [
        c for c in dict.fromkeys([*gcols, *segment])
        if c not in df.columns and c is not None and c in [n for n in df.index.names if n is not None]
    ]
    if levels:
        df = df.reset_index(level=levels)
    cols = [*gcols, label, *scores, *numeric_extra, *key_extra, *segment, *raw_extra]
    check_columns(df, cols)
    whole = df
    df, n_dropped, keep = _drop_missing(df, func, cols, nan_policy)
    # each segment's own dropped rows (read only with by= and dropped rows)
    dropped_by: dict[tuple, int] = {}
    if segment and keep is not None:
        dropped_by = rows_per_segment(whole.loc[~keep, list(segment)], list(segment))
    y = numeric_values(df[label], label, "label", keep_int=True)
    if y.dtype.kind == "f" and not np.isfinite(y).all():
        count = int((~np.isfinite(y)).sum())
        raise ValueError(
            f"Column {label!r} (label) has {count:,} infinite value{'s' if count != 1 else ''}; "
            "labels must be finite numbers or bools."
        )
    score_arrays = {s: _score_array(df[s], s) for s in scores}
    extra = _extra_arrays(df, numeric_extra, raw_extra, key_extra, roles or {})
    groups = encode_groups(df, gcols) if gcols and not defer_groups else None
    segments = encode_groups(df, list(segment)) if segment else None
    return Prepared(
        _pending=(df, gcols) if gcols and defer_groups else None,
        segments=segments,
        groups=groups,
        y=y,
        scores=score_arrays,
        extra=extra,
        n_rows=len(df),
        n_dropped=n_dropped,
        dropped_by=dropped_by,
    )


def _check_named_columns(df: pd.DataFrame, func: str, label: Hashable, scores: Sequence[Hashable]) -> None:
    """The label and score names are column names; no score column named twice."""
    check_column_name(label, "label", func, df)
    for s in scores:
        check_column_name(s, "scores", func, df)
    repeated = [s for s in dict.fromkeys(scores) if list(scores).count(s) > 1]
    if repeated:
        raise ValueError(
            f"The 'scores' parameter of {func} names a column more than once: {repeated!r}. "
            "Name each score column once."
        )


def _drop_missing(
    df: pd.DataFrame, func: str, cols: list[Hashable], nan_policy: str
) -> tuple[pd.DataFrame, int, np.ndarray | None]:
    """Missing values, checked column by column so the message can name them: raised, or their
    rows dropped (a new frame: the caller's frame is not touched); how many rows were dropped,
    and the mask of the rows kept (None when none was dropped)."""
    cols = list(dict.fromkeys(cols))
    if not any(_may_miss(df[c]) for c in cols):  # the usual case: no mask made
        return df, 0, None
    masks = {c: missing_mask(df[c]) for c in cols}
    bad = {c: int(m.sum()) for c, m in masks.items() if m.any()}
    if not bad:
        return df, 0, None
    if nan_policy == "raise":
        raise missing_values_error(bad)
    keep = ~np.logical_or.reduce(list(masks.values()))
    n_dropped = int(len(df) - keep.sum())
    if not keep.any():
        raise ValueError(
            f"{func}: every row has a missing value in {list(bad)!r}; nothing is left to evaluate."
        )
    return df.loc[keep], n_dropped, keep


def segment_tuples(keys: pd.Index) -> list[tuple]:
    """Segment keys (a decoded ``Index`` or ``MultiIndex``) as tuples of plain Python values,
    level by level: the keys of a summary's segments."""
    levels = [keys.get_level_values(i) for i in range(keys.nlevels)] if isinstance(keys, pd.MultiIndex) else [keys]
    columns = [[_plain(v) for v in lvl.tolist()] if lvl.dtype == object else lvl.tolist() for lvl in levels]
    return list(zip(*columns))


def rows_per_segment(frame: pd.DataFrame, by: Sequence[Hashable], counts: Any = None) -> dict[tuple, int]:
    """Rows per segment key (``counts``: each row's count instead of 1), keyed as a summary keys
    its segments (:func:`segment_tuples`), over the rows whose every ``by`` value is present:
    a row with a missing segment value belongs to no segment. Zeros left out.

    Examples
    --------
    >>> f = pd.DataFrame({"d": ["a", None, "b", "a"], "n": [2, 5, 1, 3]})
    >>> rows_per_segment(f, ["d"]), rows_per_segment(f, ["d"], f["n"])
    ({('a',): 2, ('b',): 1}, {('a',): 5, ('b',): 1})
    """
    present = ~np.logical_or.reduce([missing_mask(frame[c]) for c in by]) if len(frame) else np.zeros(0, dtype=bool)
    if not present.any():
        return {}
    sub = frame.loc[present, list(by)].reset_index(drop=True)
    segs = encode_groups(sub, list(by))
    uniq, inv = np.unique(np.asarray(segs.codes, dtype=np.int64), return_inverse=True)
    totals = np.zeros(uniq.shape[0], dtype=np.int64)  # exact integer sums
    np.add.at(totals, inv.reshape(-1), 1 if counts is None else np.asarray(counts, dtype=np.int64)[present])
    keys = segment_tuples(segs.decode(uniq))
    return {k: int(n) for k, n in zip(keys, totals.tolist()) if n}


def _may_miss(col: pd.Series) -> bool:
    """Whether a column may hold a missing value: numpy integers and bools never do, a numpy
    float column only when its minimum is NaN (``min`` propagates NaN: one pass, no mask)."""
    dtype = col.dtype
    if isinstance(dtype, np.dtype) and dtype.kind in "iub":
        return False
    if isinstance(dtype, np.dtype) and dtype.kind == "f":
        values = col.to_numpy()
        return bool(values.shape[0]) and any(over_ranges(lambda lo, hi: bool(np.isnan(values[lo:hi].min())),
                                                         values.shape[0]))
    return True


def _score_array(col: pd.Series, s: Hashable) -> np.ndarray:
    """A score column as a numeric array (float32 and int64 kept)."""
    arr = numeric_values(col, s, "score", keep_float32=True, keep_int64=True)
    # a numpy float column's NaN were found by missing_mask above (dropped or raised); NaN
    # produced by the conversion of another dtype cannot happen: guard anyway
    checked = isinstance(col.dtype, np.dtype) and col.dtype.kind == "f"
    if arr.dtype.kind == "f" and not checked and np.isnan(arr).any():
        raise ValueError(f"Column {s!r} (score) has NaN values after conversion.")
    return arr


def _extra_arrays(df: pd.DataFrame, numeric_extra: Sequence[Hashable], raw_extra: Sequence[Hashable],
                  key_extra: Sequence[Hashable], roles: Mapping[Hashable, str]) -> dict[Hashable, np.ndarray]:
    """Weights (finite, >= 0), the IPS metrics' raw columns (under their own key) and the
    ordering columns (as int64 codes in sorted order)."""
    extra: dict[Hashable, np.ndarray] = {}
    for c in numeric_extra:
        arr = numeric_values(df[c], c, roles.get(c, "weight"))
        if not np.isfinite(arr).all() or (arr < 0).any():
            count = int((~np.isfinite(arr) | (arr < 0)).sum())
            raise ValueError(
                f"Column {c!r} (weight) has {count:,} negative or infinite value"
                f"{'s' if count != 1 else ''}; weights must be finite and >= 0."
            )
        extra[c] = arr
    for c in raw_extra:  # under their own key: a tie-break column may be one of them too
        extra[raw_key(c)] = numeric_values(df[c], c, "position or propensity")
    for c in key_extra:
        codes, _ = pd.factorize(df[c], sort=True)
        extra[c] = codes.astype(np.int64)
    return extra
