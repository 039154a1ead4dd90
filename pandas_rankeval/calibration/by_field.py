"""calibration_by: the calibration metrics per value of a field, with intervals over groups.

A CTR model can be calibrated overall and still over-predict on one device and under-predict on
another: the errors cancel in the pooled PCOC. Per value z of a field (device, ad category,
position; a field may vary within a user), the table gives the calibration metrics of the rows
with that value (the pooled definitions of :mod:`pandas_rankeval.core.kernels.calibration`: PCOC, log
loss, NE, ECE@B), and the field-level relative calibration error (Pan et al., WWW 2020)::

    field_rce = sum_z N_z |sum_{i in z} (y_i - p_i)| / sum_{i in z} y_i  /  sum_z N_z

over the values z that have a click (N_z: the weight of their rows; |sum (y - p)| / sum y is
|1 - PCOC_z|). A value without a click has no relative error: it is left out of both sums and
counted in the footer (values and share of rows), never dropped silently.

Every frame goes through one pass (:mod:`.cells`): per chunk of rows, the sums of every (group,
value) cell and the counts of the values pandas refuses; a pandas frame is one chunk, any other
frame is read in chunks where it lies and only the cells travel. An Ibis table is not read: the
warehouse sends the counts (one aggregate) and one row per (cell, ECE bin) (one GROUP BY,
:mod:`pandas_rankeval.engines.warehouse.cells`).

Intervals: the percentile bootstrap over groups (users, requests) with hashed Poisson(1) weights
(the same draws as ``report``'s for a seed): per (group, value) cell the row sums are formed once,
and each replicate weighs them by its group's count, so the values of one replicate keep their
correlation within a user and the interval of ``field_rce`` is that of one number. ECE gets no
interval, as in ``report`` (a sample's binned ECE is biased upward).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from functools import partial
from typing import Any

import numpy as np
import pandas as pd

from pandas_rankeval.core.inputs.validation import (
    MissingValuesError, check_bins, check_columns, check_frame, check_option, check_seed, invalid_parameter,
)
from pandas_rankeval.api.docs import fill_doc
from pandas_rankeval.core.kernels.calibration import binary_entropy
from pandas_rankeval.core.progress import Progress
from pandas_rankeval.display.table import ResultTable
from pandas_rankeval.inference.bootstrap import check_level, check_n_boot, percentile_interval
from pandas_rankeval.engines import engine_for, frame_kind
from pandas_rankeval.engines.base import check_engine_options
from pandas_rankeval.engines.chunks import map_chunks
from pandas_rankeval.inference.hashing import key_hash, poisson_weights, seed_to_int

from .cells import (
    CellSpec, Chunk, cells_from_bins, check_dtypes, chunk_sums, merge_chunks, raise_problems, sum_by,
)

__all__ = ["CalibrationByTable", "calibration_by", "field_rce"]

_FUNC = "calibration_by"
#: The label of the row of every value together (``overall=True``).
OVERALL = "(all)"
#: Replicates whose sums are formed at once (the groups x replicates counts of one chunk).
_CHUNK = 64
#: Row sums per cell: weight, clicks, predicted clicks, log loss; then (sum w (p - y), sum w) per bin.
_W, _Y, _P, _L = 0, 1, 2, 3


class CalibrationByTable(ResultTable):
    """The calibration metrics per value of a field (see :func:`calibration_by`); ``field_rce``
    is the field-level relative calibration error, ``plot()`` draws PCOC per value."""

    @property
    def field_rce(self) -> float:
        """The field-level relative calibration error (Pan et al., WWW 2020)."""
        return float(self.attrs.get("field_rce", np.nan))

    @property
    def field_rce_interval(self) -> tuple[float, float]:
        """Its bootstrap interval (NaN without ``ci``)."""
        lo, hi = self.attrs.get("field_rce_interval", (np.nan, np.nan))
        return float(lo), float(hi)

    def plot(self, ax: Any = None, *, title: str | None = None) -> Any:  # type: ignore[override]
        """PCOC per value with its interval, the line of perfect calibration at 1."""
        from pandas_rankeval.plotting.field_calibration import plot_calibration_by

        return plot_calibration_by(self, ax=ax, title=title)


def field_rce(weight: np.ndarray, clicks: np.ndarray, predicted: np.ndarray) -> np.ndarray:
    """The field-level relative calibration error from per-value sums (..., values): the
    weight-weighted mean of |clicks - predicted| / clicks over the values with a click (NaN when
    no value has one).

    >>> float(
    ...     field_rce(
    ...         np.array([10.0, 30.0, 5.0]),
    ...         np.array([2.0, 3.0, 0.0]),
    ...         np.array([3.0, 2.4, 1.0]),
    ...     )
    ... )
    0.275
    """
    has = clicks > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        rce = np.where(has, np.abs(clicks - predicted) / np.where(has, clicks, 1.0), 0.0)
        den = np.sum(np.where(has, weight, 0.0), axis=-1)
        return np.where(den > 0, np.sum(np.where(has, weight, 0.0) * rce, axis=-1) / np.where(den > 0, den, 1.0), np.nan)


def _codes(df: pd.DataFrame, cols: list[Hashable]) -> tuple[np.ndarray, pd.Index]:
    """Codes 0..k-1 of the distinct keys of ``cols`` (sorted where the keys sort) and the keys."""
    values: Any = df[cols[0]] if len(cols) == 1 else pd.MultiIndex.from_frame(df[cols])
    try:
        codes, uniques = pd.factorize(values, sort=True)
    except TypeError:  # keys of mixed types that do not sort
        codes, uniques = pd.factorize(values, sort=False)
    if len(cols) == 1:
        index = pd.Index(uniques, name=cols[0])
    else:
        index = pd.MultiIndex.from_tuples(list(uniques), names=cols)
    return np.asarray(codes, dtype=np.int64), index


def _as_list(value: Hashable | Sequence[Hashable], param: str) -> list[Hashable]:
    cols = list(value) if isinstance(value, (list, tuple)) else [value]
    if not cols:
        raise invalid_parameter(param, _FUNC, "a column or a non-empty list of columns", value)
    return cols


def _metrics(s: np.ndarray, bins: int) -> dict[str, np.ndarray]:
    """The metrics from value sums (..., 4 [+ 2 bins]: ECE only when the bins' sums are there)."""
    w, y, pr, loss = s[..., _W], s[..., _Y], s[..., _P], s[..., _L]
    ok = w > 0
    safe_w = np.where(ok, w, 1.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        ll = np.where(ok, loss / safe_w, np.nan)
        out = {
            "pcoc": np.where(y > 0, pr / np.where(y > 0, y, 1.0), np.nan),
            "logloss": ll,
            "ne": ll / binary_entropy(np.where(ok, y / safe_w, np.nan)),
        }
        if s.shape[-1] > 4:
            out["ece"] = np.where(ok, np.abs(s[..., 4 : 4 + bins]).sum(axis=-1) / safe_w, np.nan)
    return out


def _replicate_sums(cell_sums: np.ndarray, cell_group: np.ndarray, cell_value: np.ndarray, n_values: int,
                    hashes: np.ndarray, seed: int, n_boot: int, progress: bool = False) -> np.ndarray:
    """(replicates, values, 4): each value's sums (weight, clicks, predicted, loss) with every group weighted by its hashed
    Poisson(1) count, in chunks of replicates (a sparse (values x cells) sum of each chunk)."""
    from scipy import sparse

    n_cells, k = cell_sums.shape
    # rows (value, stat), columns cells: value sums = A @ counts of the cells' groups
    rows = (cell_value[:, None] * k + np.arange(k)[None, :]).reshape(-1)
    cols = np.repeat(np.arange(n_cells), k)
    a = sparse.csr_matrix((cell_sums.reshape(-1), (rows, cols)), shape=(n_values * k, n_cells))
    out = np.empty((n_boot, n_values, k))
    bar = Progress(progress, total=n_boot, desc="bootstrap")
    try:
        for start in range(0, n_boot, _CHUNK):
            b = min(_CHUNK, n_boot - start)
            counts = poisson_weights(hashes, seed, b, start=start)[cell_group]  # cells x b
            out[start : start + b] = np.asarray(a @ counts).T.reshape(b, n_values, k)
            bar.update(b)
    finally:
        bar.close()
    return out


def calibration_by(
    df: pd.DataFrame,
    *,
    field: Hashable | Sequence[Hashable],
    label: Hashable,
    score: Hashable,
    group: Hashable | Sequence[Hashable] | None = None,
    sample_weight: Hashable | None = None,
    threshold: float | None = None,
    bins: int = 10,
    ci: float | None = 0.95,
    n_boot: int = 1000,
    seed: Any = 0,
    overall: bool = True,
    nan_policy: str = "raise",
    progress: bool = False,
    engine_options: Mapping[str, Any] | None = None,
) -> CalibrationByTable:
    """Calibration per value of a field: PCOC, log loss, NE and ECE, with intervals, and the
    field-level relative calibration error as one number.

    Parameters
    ----------
    df : DataFrame (pandas, polars, Dask, Spark), polars LazyFrame, DuckDB relation or Ibis table
        One row per impression. A frame other than pandas is read in chunks where it lies
        (:mod:`pandas_rankeval.engines.chunks`); each chunk sends back the sums of its (group,
        value) cells, so the client holds one row per cell (per value without ``group``), never a
        row of the table. An Ibis table is not read at all: two SQL queries, the checks and one
        GROUP BY over (value, group, ECE bin), send back the whole table's counts and one row per
        (cell, bin) (:mod:`pandas_rankeval.engines.warehouse.cells`). The same numbers as pandas.
    field : column or list of columns
        The field (device, ad category, position, ...); a list gives one row per combination.
        It may vary within a group.
    label : column
        Clicks, 0/1 or bool (with ``threshold``: a click is ``label >= threshold``).
    score : column
        Predicted click probabilities in [0, 1].
    group : column or list of columns, optional
        The user or request: the unit the bootstrap resamples. Needed for intervals
        (``ci=None`` without it).
    sample_weight : column, optional
        Per-row weights (finite, >= 0).
    threshold : float, optional
        Reads a graded label as a click when ``label >= threshold``.
    bins : int, default=10
        Equal-width probability bins of ECE, as :func:`ece`.
    ci : float in (0, 1) or None, default=0.95
        Level of the percentile bootstrap intervals over groups; None: no interval.
    n_boot : int, default=1000
        Bootstrap replicates.
    seed : int, default=0
        Seed of the hashed Poisson(1) group weights (the same draws as :func:`report`'s).
    overall : bool, default=True
        Add a row ``(all)`` with the metrics of every row together.
    nan_policy : {{"raise", "omit"}}, default="raise"
        Missing values in any column used: an error, or rows dropped (counted in the footer).
{progress}
    engine_options : dict, optional
        Read for an Ibis table only: a table that no Ibis connection holds takes ``execute`` (a
        callable that runs one SQL string and returns a pandas frame) with ``dialect`` (the
        dialect ``ibis.to_sql`` compiles for). Other frames are read in chunks and take none.

    Returns
    -------
    table : CalibrationByTable
        Indexed by the field's values (then ``(all)``), columns ``rows``, ``clicks``,
        ``predicted`` (sum of p; weighted sums with ``sample_weight``), ``pcoc``, ``logloss``,
        ``ne`` with ``_low`` / ``_high`` interval columns, ``ece`` (no interval, as in
        :func:`report`) and ``rce`` = |clicks - predicted| / clicks. ``table.field_rce`` is
        the field-level relative calibration error, ``table.field_rce_interval`` its
        interval; both are in the footer. ``table.plot()`` draws PCOC per value.

    Notes
    -----
    field_rce = sum_z N_z |sum_z (y - p)| / sum_z y / sum_z N_z over the values z with a click
    (Pan et al., "Field-aware Calibration: A Simple and Empirically Strong Method for Reliable
    Probabilistic Predictions", WWW 2020), N_z the weight of the rows of z. It is 0 when every
    value is calibrated (PCOC_z = 1) and it does not let an over-predicted value cancel an
    under-predicted one, as the pooled PCOC does. A value without a click is left out of both
    sums and counted in the footer. Like ECE it is an absolute error, biased upward in small
    samples (a value with few clicks adds noise, never cancellation); its interval is the
    percentile interval over groups.

    Examples
    --------
    >>> import pandas as pd
    >>> import pandas_rankeval as pre
    >>> df = pd.DataFrame(
    ...     {
    ...         "user": [1, 1, 2, 2, 3, 3],
    ...         "device": ["ios", "web"] * 3,
    ...         "click": [1, 0, 0, 1, 1, 0],
    ...         "p": [0.5, 0.2, 0.4, 0.3, 0.6, 0.1],
    ...     }
    ... )
    >>> t = pre.calibration_by(
    ...     df, field="device", label="click", score="p", group="user", ci=None
    ... )
    >>> t["pcoc"].round(3).tolist()
    [0.75, 0.6, 0.7]
    >>> round(t.field_rce, 4)  # (3 |2 - 1.5| / 2 + 3 |1 - 0.6| / 1) / 6
    0.325
    """
    fcols, gcols, bins, ci = _check_options(field, group, bins, ci, n_boot, seed, overall, nan_policy)
    spec = CellSpec(tuple(fcols), tuple(gcols), label, score, sample_weight, threshold, bins, _FUNC)
    found = _read_cells(df, spec, nan_policy, engine_options)
    if found.keys is None or found.sums is None:  # pragma: no cover - raise_problems raised first
        raise ValueError(f"{_FUNC}: no row is left to evaluate.")
    value, keys = _codes(found.keys, fcols)
    n_values = len(keys)
    all_sums = found.sums
    cell_group, gkeys = _codes(found.keys, gcols) if gcols else (None, None)
    if cell_group is not None:  # cells in (group, value) order: the replicate sums read them in order
        order = np.lexsort((value, cell_group))
        value, cell_group, all_sums = value[order], cell_group[order], all_sums[order]
    sums = all_sums[:, 1:]  # per (group, value) cell: w, w y, w p, w loss, then the bins'
    value_sums = sum_by(value, sums, n_values)
    n_rows = np.rint(np.bincount(value, weights=all_sums[:, 0], minlength=n_values)).astype(np.int64)
    stacked = np.concatenate([value_sums, value_sums.sum(axis=0)[None]]) if overall else value_sums
    point = _metrics(stacked, bins)
    frce = float(field_rce(value_sums[:, _W], value_sums[:, _Y], value_sums[:, _P]))
    frame = pd.DataFrame({"rows": np.concatenate([n_rows, [int(n_rows.sum())]])[: n_values + int(bool(overall))]})
    if sample_weight is not None:
        frame["weight"] = stacked[:, _W]
    frame["clicks"] = stacked[:, _Y] if sample_weight is not None else np.rint(stacked[:, _Y]).astype(np.int64)
    frame["predicted"] = stacked[:, _P]
    lo_hi: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    frce_ci = (np.nan, np.nan)
    if ci is not None and cell_group is not None and gkeys is not None:
        lo_hi, frce_ci = _intervals(sums[:, :4], cell_group, value, n_values, key_hash(_key_frame(gkeys, gcols)),
                                    seed, int(n_boot), ci, bins, bool(overall), bool(progress))
    for m in ("pcoc", "logloss", "ne"):
        frame[m] = point[m]
        if m in lo_hi:
            frame[f"{m}_low"], frame[f"{m}_high"] = lo_hi[m]
    frame[f"ece@{bins}"] = point["ece"]
    with np.errstate(invalid="ignore", divide="ignore"):
        frame["rce"] = np.where(frame["clicks"] > 0, np.abs(frame["clicks"] - frame["predicted"]) / frame["clicks"], np.nan)
    index = list(keys) + ([_overall_key(len(fcols))] if overall else [])
    frame.index = pd.MultiIndex.from_tuples(index, names=fcols) if len(fcols) > 1 else pd.Index(index, name=fcols[0])
    table = CalibrationByTable(frame)
    no_click = int((value_sums[:, _Y] <= 0).sum())
    share = float(value_sums[value_sums[:, _Y] <= 0, _W].sum() / value_sums[:, _W].sum()) if no_click else 0.0
    _footer(table, fcols, frce, frce_ci, ci, n_boot, seed, len(gkeys) if gkeys is not None else 0, no_click, share,
            found.n_dropped, bins, sample_weight)
    return table


fill_doc(calibration_by)


def _intervals(cell_sums: np.ndarray, cell_group: np.ndarray, cell_value: np.ndarray, n_values: int,
               hashes: np.ndarray, seed: Any, n_boot: int, ci: float, bins: int,
               overall: bool, progress: bool) -> tuple[dict[str, tuple[np.ndarray, np.ndarray]], tuple[float, float]]:
    """The percentile intervals of PCOC, log loss and NE per value (and overall), and of field_rce."""
    reps = _replicate_sums(cell_sums, cell_group, cell_value, n_values, hashes, seed_to_int(seed, _FUNC), n_boot,
                           progress)
    rep_all = np.concatenate([reps, reps.sum(axis=1, keepdims=True)], axis=1) if overall else reps
    rm = _metrics(rep_all, bins)
    lo_hi = {m: percentile_interval(rm[m], ci, bounds=(0.0, np.inf)) for m in ("pcoc", "logloss", "ne")}
    f_lo, f_hi = percentile_interval(field_rce(reps[..., _W], reps[..., _Y], reps[..., _P])[:, None], ci,
                                     bounds=(0.0, np.inf))
    return lo_hi, (float(f_lo[0]), float(f_hi[0]))


def _read_cells(df: Any, spec: CellSpec, nan_policy: str, engine_options: Mapping[str, Any] | None = None) -> Chunk:
    """The whole table's cell sums, after every error pandas raises: the columns and dtypes from
    the frame's schema (no data read), then its values' from the whole table's counts. A pandas
    frame is one chunk; an Ibis table is summed in SQL (:func:`_read_ibis`); any other frame is
    read in chunks where it lies (:func:`pandas_rankeval.engines.chunks.map_chunks`)."""
    kind = frame_kind(df)
    if engine_options and kind != "ibis":
        if not isinstance(engine_options, Mapping):
            raise invalid_parameter("engine_options", _FUNC, "a dict (or None)", engine_options)
        raise ValueError(
            f"The 'engine_options' parameter of {_FUNC} has {list(engine_options)!r}: {_FUNC} reads "
            "every frame but an Ibis table in chunks and takes no engine option for it (an Ibis table "
            "takes 'execute' and 'dialect')."
        )
    if isinstance(df, pd.DataFrame):
        check_frame(df, _FUNC)
        check_columns(df, spec.columns)
        check_dtypes(df, spec)
        found = merge_chunks([chunk_sums(df[spec.columns], spec)], spec)
        raise_problems(found, spec, nan_policy)
        return found
    engine = engine_for(df, _FUNC)
    if kind == "ibis":
        return _read_ibis(df, spec, nan_policy, check_engine_options(engine, engine_options, _FUNC))
    schema = engine.schema(df)
    check_columns(schema, spec.columns)
    check_dtypes(schema, spec)
    found = map_chunks(df, spec.columns, partial(chunk_sums, spec=spec), partial(merge_chunks, spec=spec))
    if found.n_rows == 0:
        raise ValueError(f"{_FUNC} got an empty DataFrame (0 rows); there is nothing to evaluate.")
    try:
        raise_problems(found, spec, nan_policy)
    except MissingValuesError as exc:  # "null" to a polars user, "NULL" to DuckDB's
        raise ValueError(str(exc.for_engine(engine.NAME))) from None
    return found


def _read_ibis(t: Any, spec: CellSpec, nan_policy: str, options: dict[str, Any]) -> Chunk:
    """The same :class:`Chunk` from an Ibis table, its rows left in the warehouse: the columns and
    dtypes from the schema (no query), the checks' one aggregate query and pandas' errors from its
    counts (the three smallest labels other than 0 and 1: one more small query, on that error
    only), then one GROUP BY over (keys, ECE bin) whose (cell, bin) rows are added up per cell."""
    from pandas_rankeval.engines.warehouse import cells as sql

    schema = sql.table_schema(t)
    check_columns(schema, spec.columns)
    check_dtypes(schema, spec)
    c = sql.cell_checks(t, columns=spec.columns, label=spec.label, score=spec.score,
                        sample_weight=spec.sample_weight, threshold=spec.threshold, options=options)
    if c["rows"] == 0:
        raise ValueError(f"{_FUNC} got an empty DataFrame (0 rows); there is nothing to evaluate.")
    found = Chunk(n_rows=c["rows"], missing=c["missing"], n_dropped=c["dropped"] if c["missing"] else 0,
                  infinite_label=c["infinite_label"], not_binary=c["not_binary"], outside_unit=c["outside_unit"],
                  p_lo=c["p_lo"], p_hi=c["p_hi"], bad_weight=c["bad_weight"])
    missing_first = bool(found.missing) and (nan_policy == "raise" or found.n_dropped >= found.n_rows)
    if found.not_binary and not missing_first:  # the label error names a few such labels
        found.label_examples = sql.label_examples(t, columns=spec.columns, label=spec.label, options=options)
    try:
        raise_problems(found, spec, nan_policy)
    except MissingValuesError as exc:
        raise ValueError(str(exc.for_engine(sql.NAME))) from None
    frame, prefix = sql.cell_bins(t, keys=spec.keys, label=spec.label, score=spec.score,
                                  sample_weight=spec.sample_weight, threshold=spec.threshold, bins=spec.bins,
                                  columns=spec.columns, omit=bool(found.missing), options=options)
    found.keys, found.sums = cells_from_bins(frame, spec, prefix)
    return found


def _check_options(field: Any, group: Any, bins: Any, ci: Any, n_boot: Any, seed: Any, overall: Any,
                   nan_policy: Any) -> tuple[list[Hashable], list[Hashable], int, float | None]:
    """Every option checked before the data is read: the field and group columns, bins, ci."""
    check_option(nan_policy, "nan_policy", _FUNC, ("raise", "omit"))
    bins = check_bins(bins, _FUNC)
    fcols = _as_list(field, "field")
    gcols = _as_list(group, "group") if group is not None else []
    if ci is not None:
        ci = check_level(ci, "ci", _FUNC)
        if not gcols:
            raise ValueError(
                f"{_FUNC}: intervals resample groups (users, requests), never rows; pass group=<column> "
                "or ci=None."
            )
        check_n_boot(n_boot, _FUNC)
        check_seed(seed, _FUNC)
    if not isinstance(overall, (bool, np.bool_)):
        raise invalid_parameter("overall", _FUNC, "True or False", overall)
    return fcols, gcols, bins, ci


def _key_frame(keys: pd.Index, cols: list[Hashable]) -> Any:
    """The group keys as the hashing reads them (a Series, or a frame of the key columns)."""
    if len(cols) == 1:
        return pd.Series(keys, name=cols[0])
    return keys.to_frame(index=False)


def _overall_key(n: int) -> Any:
    return OVERALL if n == 1 else tuple([OVERALL] * n)


def _footer(table: CalibrationByTable, fcols: list[Hashable], frce: float, frce_ci: tuple[float, float],
            ci: float | None, n_boot: int, seed: Any, n_groups: int, no_click: int, share: float, n_dropped: int,
            bins: int, sample_weight: Hashable | None) -> None:
    name = ", ".join(map(str, fcols))
    head = f"field-level RCE over {name}: {frce:.4f}"
    if ci is not None and np.isfinite(frce_ci[0]):
        head += f" [{frce_ci[0]:.4f}, {frce_ci[1]:.4f}]"
    head += " (the rows-weighted mean of |clicks - predicted| / clicks over the values; 0 is calibrated)"
    short = [head]
    if no_click:
        short.append(
            f"{no_click:,} value{'s' if no_click != 1 else ''} without a click ({share:.1%} of "
            f"{'weight' if sample_weight is not None else 'rows'}) ha{'ve' if no_click != 1 else 's'} no PCOC or RCE: "
            "left out of the field-level RCE"
        )
    if n_dropped:
        short.append(f"{n_dropped:,} rows with missing values dropped (nan_policy='omit')")
    details = []
    if ci is not None:
        details.append(
            f"[low, high]: {ci:.0%} percentile bootstrap intervals over {n_groups:,} groups (hashed Poisson(1) "
            f"weights), n_boot={n_boot}, seed={seed}; ece@{bins}: none (a sample's binned ECE is biased upward)"
        )
    details.append("pcoc = predicted / clicks; rce = |clicks - predicted| / clicks; ne = logloss / H(click rate)")
    table.attrs.update({
        "table": "calibration_by", "field": fcols, "field_rce": frce, "field_rce_interval": frce_ci,
        "ci": ci, "n_boot": n_boot if ci is not None else 0, "seed": seed, "bins": bins,
        "values_without_click": no_click, "rows_dropped": n_dropped,
    })
    table.attrs["footer_short"] = short
    table.attrs["footer"] = [*short, *details]
