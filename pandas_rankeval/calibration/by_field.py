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

Intervals: the percentile bootstrap over groups (users, requests) with hashed Poisson(1) weights
(the same draws as ``report``'s for a seed): per (group, value) cell the row sums are formed once,
and each replicate weighs them by its group's count, so the values of one replicate keep their
correlation within a user and the interval of ``field_rce`` is that of one number. ECE gets no
interval, as in ``report`` (a sample's binned ECE is biased upward).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from pandas_rankeval.core.kernels.calibration import (
    binary_entropy, check_binary_labels, check_probabilities, ece_bins, label_error, probability_error, row_loss,
)
from pandas_rankeval.core.inputs.validation import (
    check_bins, check_columns, check_frame, check_option, check_seed, invalid_parameter, missing_mask,
    missing_values_error, numeric_values,
)
from pandas_rankeval.api.docs import fill_doc
from pandas_rankeval.core.progress import Progress
from pandas_rankeval.display.table import ResultTable
from pandas_rankeval.inference.bootstrap import check_level, check_n_boot, percentile_interval
from pandas_rankeval.inference.hashing import key_hash, poisson_weights, seed_to_int

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


def _read(df: pd.DataFrame, field: list[Hashable], label: Hashable, score: Hashable, group: list[Hashable],
          sample_weight: Hashable | None, threshold: float | None, nan_policy: str) -> tuple[pd.DataFrame, int]:
    """The rows to use (missing values refused or, with nan_policy='omit', dropped and counted)."""
    cols = list(dict.fromkeys([*field, label, score, *group, *([sample_weight] if sample_weight is not None else [])]))
    check_columns(df, cols)
    missing = {c: missing_mask(df[c]) for c in cols}
    counts = {c: int(m.sum()) for c, m in missing.items() if m.any()}
    if counts and nan_policy == "raise":
        raise missing_values_error(counts)
    n_dropped = 0
    if counts:
        keep = ~np.logical_or.reduce([m for m in missing.values()])
        n_dropped = int((~keep).sum())
        df = df.loc[keep]
        if len(df) == 0:
            raise ValueError(f"{_FUNC}: every row has a missing value in {list(counts)!r}; nothing is left to evaluate.")
    return df, n_dropped


def _checked_arrays(df: pd.DataFrame, label: Hashable, score: Hashable, sample_weight: Hashable | None,
                    threshold: float | None) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Clicks (bool), probabilities and weights, each refused with the column, count and fix."""
    names = ["pcoc", "logloss", "ne", "ece", "field_rce"]
    yv = numeric_values(df[label], label, "label")
    if threshold is not None:
        if not np.isfinite(yv).all():
            raise ValueError(f"Column {label!r} (label) has {int((~np.isfinite(yv)).sum()):,} infinite values.")
        y = yv >= threshold
    else:
        bad = check_binary_labels(yv)
        if bad is not None:
            raise label_error(label, bad[0], bad[1], names)
        y = yv == 1
    p = numeric_values(df[score], score, "score")
    out = check_probabilities(p)
    if out is not None:
        raise probability_error(score, out[0], out[1], out[2], names)
    w = None
    if sample_weight is not None:
        w = numeric_values(df[sample_weight], sample_weight, "sample_weight")
        bad_w = ~np.isfinite(w) | (w < 0)
        if bad_w.any():
            raise ValueError(
                f"Column {sample_weight!r} (sample_weight) has {int(bad_w.sum()):,} values that are negative or "
                "not finite; sample weights must be finite and >= 0."
            )
    return y, p, w


def _cell_sums(cell: np.ndarray, n_cells: int, y: np.ndarray, p: np.ndarray, w: np.ndarray | None,
               bins: int) -> np.ndarray:
    """(cells, 4 + 2 bins): per cell the sums of w, w y, w p, w loss, then per bin w (p - y), w."""
    ww = np.ones(p.shape[0]) if w is None else w
    out = np.empty((n_cells, 4 + 2 * bins))
    out[:, _W] = np.bincount(cell, weights=ww, minlength=n_cells)
    out[:, _Y] = np.bincount(cell, weights=ww * y, minlength=n_cells)
    out[:, _P] = np.bincount(cell, weights=ww * p, minlength=n_cells)
    out[:, _L] = np.bincount(cell, weights=ww * row_loss(p, y), minlength=n_cells)
    b = ece_bins(p, bins)
    at = cell * bins + b
    size = n_cells * bins
    out[:, 4 : 4 + bins] = np.bincount(at, weights=ww * (p - y), minlength=size).reshape(n_cells, bins)
    out[:, 4 + bins :] = np.bincount(at, weights=ww, minlength=size).reshape(n_cells, bins)
    return out


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
) -> CalibrationByTable:
    """Calibration per value of a field: PCOC, log loss, NE and ECE, with intervals, and the
    field-level relative calibration error as one number.

    Parameters
    ----------
    df : pandas or polars DataFrame
        One row per impression (a polars frame is read as pandas; Dask, Spark and DuckDB frames
        are not taken: collect the columns used first).
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
    if not isinstance(df, pd.DataFrame) and type(df).__module__.startswith("polars") and hasattr(df, "to_pandas"):
        df = df.to_pandas()  # a polars DataFrame: its columns once, as pandas reads them
    df = check_frame(df, _FUNC)
    fcols, gcols, bins, ci = _check_options(field, group, bins, ci, n_boot, seed, overall, nan_policy)
    rows, n_dropped = _read(df, fcols, label, score, gcols, sample_weight, threshold, nan_policy)
    y, p, w = _checked_arrays(rows, label, score, sample_weight, threshold)
    value, keys = _codes(rows, fcols)
    n_values = len(keys)
    if gcols:
        gcode, gkeys = _codes(rows, gcols)
        cell_key = gcode * n_values + value
        cells, cell = np.unique(cell_key, return_inverse=True)
        cell_group, cell_value = cells // n_values, cells % n_values
    else:
        cell, cell_value = value, np.arange(n_values)
        cells = cell_value
    sums = _cell_sums(cell.astype(np.int64), cells.shape[0], y, p, w, bins)
    value_sums = np.zeros((n_values, sums.shape[1]))
    np.add.at(value_sums, cell_value, sums)
    all_sums = value_sums.sum(axis=0)[None]
    point = _metrics(np.concatenate([value_sums, all_sums]) if overall else value_sums, bins)
    frce = float(field_rce(value_sums[:, _W], value_sums[:, _Y], value_sums[:, _P]))
    frame = pd.DataFrame({
        "rows": np.concatenate([np.bincount(value, minlength=n_values), [len(rows)]])[: n_values + int(bool(overall))],
    })
    stacked = np.concatenate([value_sums, all_sums]) if overall else value_sums
    if w is not None:
        frame["weight"] = stacked[:, _W]
    frame["clicks"] = stacked[:, _Y] if w is not None else np.rint(stacked[:, _Y]).astype(np.int64)
    frame["predicted"] = stacked[:, _P]
    lo_hi: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    frce_ci = (np.nan, np.nan)
    if ci is not None:
        reps = _replicate_sums(sums[:, :4], cell_group, cell_value, n_values, key_hash(_key_frame(gkeys, gcols)),
                               seed_to_int(seed, _FUNC), int(n_boot), bool(progress))
        rep_all = np.concatenate([reps, reps.sum(axis=1, keepdims=True)], axis=1) if overall else reps
        rm = _metrics(rep_all, bins)
        for m in ("pcoc", "logloss", "ne"):
            lo, hi = percentile_interval(rm[m], ci, bounds=(0.0, np.inf))
            lo_hi[m] = (lo, hi)
        f_lo, f_hi = percentile_interval(field_rce(reps[..., _W], reps[..., _Y], reps[..., _P])[:, None], ci,
                                         bounds=(0.0, np.inf))
        frce_ci = (float(f_lo[0]), float(f_hi[0]))
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
    _footer(table, fcols, frce, frce_ci, ci, n_boot, seed, len(gkeys) if gcols else 0, no_click, share,
            n_dropped, bins, sample_weight)
    return table


fill_doc(calibration_by)


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
