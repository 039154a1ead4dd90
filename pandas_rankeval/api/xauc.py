"""``xauc_interval``: global XAUC of one or more score columns with clustered DeLong intervals, and
the paired difference of each model against a baseline, as one table.

Global XAUC itself (``xauc``) is a metric of the registry: its function is written from its entry
(:mod:`pandas_rankeval.core.metrics.definitions`), ``report(metrics=["xauc"], ci=...)`` gives its
interval and ``compare`` its paired test. ``xauc_interval`` is the same numbers in a table of its
own (the value, interval and standard error per model; the difference, interval, p-value and
Holm's adjustment per model against a baseline): one computation,
:func:`pandas_rankeval.inference.xauc_delong.xauc_rows`, serves both.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any, Literal, NoReturn

import numpy as np
import pandas as pd

from pandas_rankeval.core.inputs.validation import (
    check_columns, check_option, missing_mask, missing_values_error, numeric_values, problem_message,
)
from pandas_rankeval.display.table import ResultTable

__all__ = ["xauc_arrays", "xauc_interval"]


def _one_partition(df: Any) -> pd.DataFrame | None:
    """A frame evaluated in one piece, as pandas (a pandas or an eager polars DataFrame), or None
    (a frame the engines read in partitions)."""
    if isinstance(df, pd.DataFrame):
        return df
    if type(df).__module__.startswith("polars") and type(df).__name__ == "DataFrame":
        return df.to_pandas()  # type: ignore[no-any-return]
    return None


def xauc_arrays(
    df: pd.DataFrame, cols: list[Hashable], sample_weight: Hashable | None, nan_policy: str, func: str,
    extra: list[Hashable] | None = None, engine: str = "pandas",
) -> tuple[pd.DataFrame, np.ndarray, list[np.ndarray], np.ndarray | None, int]:
    """The rows to use, their label (``cols[0]``), scores (``cols[1:]``) and weights, each refused
    with its column, count and fix; the rows dropped (``nan_policy='omit'``). ``extra`` columns (a
    group key) are checked for missing values too; ``engine`` words the missing values (``"polars"``: null)."""
    check_option(nan_policy, "nan_policy", func, ("raise", "omit"))
    label, scores = cols[0], cols[1:]
    used = list(dict.fromkeys([*cols, *([sample_weight] if sample_weight is not None else []), *(extra or [])]))
    check_columns(df, used)
    if len(df) == 0:
        raise ValueError(f"{func} got an empty DataFrame (0 rows); there is nothing to evaluate.")
    missing = {c: missing_mask(df[c]) for c in used}
    counts = {c: int(m.sum()) for c, m in missing.items() if m.any()}
    n_dropped = 0
    if counts:
        if nan_policy == "raise":
            raise missing_values_error(counts).for_engine(engine)
        keep = ~np.logical_or.reduce(list(missing.values()))
        n_dropped = int((~keep).sum())
        df = df.loc[keep]
    y = numeric_values(df[label], label, "label")
    if not np.isfinite(y).all():
        raise ValueError(problem_message("infinite_label", label, int((~np.isfinite(y)).sum())))
    s = [numeric_values(df[c], c, "score", keep_int64=True) for c in scores]
    w = None
    if sample_weight is not None:
        w = numeric_values(df[sample_weight], sample_weight, "sample_weight")
        bad = ~np.isfinite(w) | (w < 0)
        if bad.any():
            raise ValueError(problem_message("bad_weight", sample_weight, int(bad.sum())))
    return df, y, s, w, n_dropped


#: A frame read in partitions, in words (the refusal of :func:`xauc_interval`).
_PARTITIONED = {"polars": "polars LazyFrame", "dask": "Dask frame", "pyspark": "Spark frame",
                "duckdb": "DuckDB relation", "ibis": "Ibis table"}


def _refuse_partitioned(df: Any, label: Hashable, scores: list[Hashable]) -> NoReturn:
    from pandas_rankeval.engines import frame_kind

    kind = frame_kind(df)
    what = _PARTITIONED.get(kind or "", type(df).__name__)
    cols = [label, *scores]
    raise TypeError(
        f"xauc_interval on a {what}: its clustered DeLong interval needs every row's credit against "
        "every other row (its placement) summed per group, which is not a sum over partitions. Collect "
        f"the columns it reads ({cols!r}, the group and sample_weight columns) into a pandas or polars "
        "DataFrame first; the point value on the frame itself is xauc, which runs on every engine."
    )


def xauc_interval(
    df: Any,
    *,
    label: Hashable,
    scores: Hashable | list[Hashable],
    group: Hashable | list[Hashable] | None = None,
    sample_weight: Hashable | None = None,
    ci: float = 0.95,
    baseline: Hashable | None = None,
    nan_policy: Literal["raise", "omit"] = "raise",
) -> ResultTable:
    """Global XAUC of one or more score columns with clustered DeLong intervals, and the paired
    difference of each model against a baseline with its interval and test, as one table.

    The same numbers as ``report(df, group=group, metrics=["xauc"], ci=ci)`` (the interval) and
    ``compare(df, group=group, metrics=["xauc"], baseline=baseline, ci=ci)`` (the difference, its
    p-value and Holm's adjustment): one computation serves the three. This table adds the standard
    error and takes ``group=None`` (each row its own cluster) and a polars DataFrame as they do.

    Parameters
    ----------
    df : pandas or polars DataFrame
        One row per impression (a frame read in partitions is refused: collect the columns first).
    label : column
        A numeric label such as watch time.
    scores : column or list of columns
        The models' scores, on the same rows.
    group : column or list of columns, optional
        The clusters (users, sessions): rows of one group are not independent. None: every row is
        its own cluster.
    sample_weight : column, optional
        Per-row weights (finite, >= 0): a pair weighs ``w_i * w_j``.
    ci : float in (0, 1), default=0.95
        Level of the intervals.
    baseline : column, optional
        One of ``scores``: every other model gets ``diff`` (its XAUC minus the baseline's), its
        interval, the two-sided p-value and Holm's adjustment over the models.
    nan_policy : {"raise", "omit"}, default="raise"
        Missing values raise, or their rows are dropped (from every model: paired rows).

    Returns
    -------
    table : ResultTable
        Indexed by score column: ``xauc``, ``xauc_low``, ``xauc_high``, ``se``; with a baseline
        ``diff``, ``diff_low``, ``diff_high``, ``p_value``, ``p_holm``.

    Notes
    -----
    The interval is XAUC -/+ z se (clipped to [0, 1]), se from the clustered DeLong variance
    (:mod:`pandas_rankeval.inference.xauc_delong`): each row's placement (its credit against every
    row of another label) summed per group, as the clustered DeLong interval of global AUC
    (Obuchowski 1997). The paired difference uses the covariance of the two XAUCs over the same
    groups. ``benchmarks/sim_xauc.py`` measures coverage and the test's size. The difference's
    interval is clipped to [-1, 1] here (compare's is not: the two differ only where it reaches
    past a bound).

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> import pandas_rankeval as pre
    >>> rng = np.random.default_rng(0)
    >>> watch = rng.exponential(size=400)
    >>> df = pd.DataFrame(
    ...     {
    ...         "user": np.repeat(np.arange(40), 10),
    ...         "watch": watch,
    ...         "a": watch + rng.normal(size=400),
    ...         "b": watch + 2 * rng.normal(size=400),
    ...     }
    ... )
    >>> t = pre.xauc_interval(
    ...     df, label="watch", scores=["a", "b"], group="user", baseline="a"
    ... )
    >>> bool(t.loc["b", "diff_high"] < 0)  # b orders watch time worse than a
    True
    """
    from pandas_rankeval.inference.bootstrap import check_level
    from pandas_rankeval.inference.delong import normal_interval, z_test
    from pandas_rankeval.inference.pvalues import holm
    from pandas_rankeval.inference.xauc_delong import xauc_rows

    score_cols = list(scores) if isinstance(scores, (list, tuple)) else [scores]
    if not score_cols:
        raise ValueError("The 'scores' parameter of xauc_interval names no column; pass one or more score columns.")
    frame = _one_partition(df)
    if frame is None:
        _refuse_partitioned(df, label, score_cols)
    ci = check_level(ci, "ci", "xauc_interval")
    if baseline is not None and baseline not in score_cols:
        raise ValueError(f"The 'baseline' parameter of xauc_interval must be one of the scores {score_cols!r}; "
                         f"got {baseline!r}.")
    gcols = ([] if group is None else list(group) if isinstance(group, (list, tuple)) else [group])
    rows, y, s, w, n_dropped = xauc_arrays(frame, [label, *score_cols], sample_weight, nan_policy, "xauc_interval",
                                           extra=gcols, engine=_word(df))
    cluster = None
    if gcols:
        keys: Any = rows[gcols[0]] if len(gcols) == 1 else pd.MultiIndex.from_frame(rows[gcols])
        cluster = pd.factorize(keys)[0].astype(np.int64)
    (one,) = xauc_rows(y, s, w, cluster, None, 1, interval=True)  # what report / compare compute for "xauc"
    values, n_clusters = one.values, one.n_clusters
    cov = one.cov if one.cov is not None else np.full((len(score_cols), len(score_cols)), np.nan)
    var = np.diag(cov)
    lo, hi = normal_interval(values, var, ci, clip=(0.0, 1.0))
    table = pd.DataFrame({"xauc": values, "xauc_low": lo, "xauc_high": hi, "se": np.sqrt(var)},
                         index=pd.Index(score_cols, name="score"))
    if baseline is not None:
        b = score_cols.index(baseline)
        diff = values - values[b]
        dvar = var + var[b] - 2.0 * cov[:, b]
        dlo, dhi = normal_interval(diff, dvar, ci, clip=(-1.0, 1.0))
        p = z_test(diff, dvar)
        others = np.arange(len(score_cols)) != b
        p = np.where(others, p, np.nan)
        table["diff"], table["diff_low"], table["diff_high"] = (np.where(others, x, np.nan) for x in (diff, dlo, dhi))
        table["p_value"], table["p_holm"] = p, holm(p)
    out = ResultTable(table)
    unit = f"{n_clusters:,} groups ({', '.join(map(str, gcols))})" if gcols else f"{n_clusters:,} rows (no group)"
    lines = [f"[low, high]: {ci:.0%} clustered DeLong intervals of global XAUC over {unit}"]
    if baseline is not None:
        lines.append(f"diff: each model minus {baseline!r} on the same rows; p_value two-sided (normal), "
                     "p_holm adjusted over the models")
    if np.isnan(values).any():
        lines.append("xauc is NaN where no pair of rows has different labels")
    if n_dropped:
        lines.append(f"{n_dropped:,} rows with missing values dropped (nan_policy='omit')")
    out.attrs.update({"table": "xauc_interval", "ci": ci, "footer_short": lines, "footer": lines})
    return out


def _word(df: Any) -> str:
    """The engine whose words a missing value takes (a polars user reads "null")."""
    return "pandas" if isinstance(df, pd.DataFrame) else "polars"
