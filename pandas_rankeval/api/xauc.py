"""``xauc``: global XAUC over every pair of rows of a table (continuous labels such as watch time).

Unlike the group metrics it is not a sum over groups: every pair of rows counts. A pandas or
polars DataFrame is counted in one piece (O(n log n): 1e6 rows in about a second). A frame read in
partitions (a polars LazyFrame, a DuckDB relation, Dask, Spark, an Ibis table) goes through its
engine's global-AUC pass: rows counted per distinct (score, label) in ranges of ascending score,
each range's pairs counted exactly where it lies, the pairs across ranges from the ranges' label
counts (:mod:`pandas_rankeval.summary.xauc_counts`); the same number as pandas. Grouped XAUC
(``gxauc``) is a group metric of every engine.
"""

from __future__ import annotations

from collections.abc import Hashable
from functools import partial
from typing import Any, Literal, NoReturn

import numpy as np
import pandas as pd

from pandas_rankeval.core.evaluation.result import Coverage, MetricResult, warn_coverage
from pandas_rankeval.core.inputs.validation import (
    check_columns, check_option, missing_mask, missing_values_error, numeric_values, problem_message,
)
from pandas_rankeval.core.kernels.xauc import xauc_sums
from pandas_rankeval.display.table import ResultTable
from pandas_rankeval.engines import engine_for
from pandas_rankeval.engines.base import check_engine_options
from pandas_rankeval.summary.finalize import raise_input_errors

from .dispatch import EngineOptions, evaluate_frame

__all__ = ["xauc", "xauc_arrays", "xauc_interval"]


def _one_partition(df: Any) -> pd.DataFrame | None:
    """A frame evaluated in one piece, as pandas (a pandas or an eager polars DataFrame), or None
    (a frame the engines read in partitions)."""
    if isinstance(df, pd.DataFrame):
        return df
    if type(df).__module__.startswith("polars") and type(df).__name__ == "DataFrame":
        return df.to_pandas()  # type: ignore[no-any-return]
    return None


def _finish(summary: Any, plan: Any, extras: dict[str, Any], *, sample_weight: Hashable | None) -> MetricResult:
    """The result of a partitioned frame's global pass (:mod:`pandas_rankeval.summary.xauc_counts`):
    the whole table's input errors, then num / den, with pandas' coverage."""
    raise_input_errors(summary, plan)
    counts = extras["auc"][((), plan.scores[0])]
    return _result(counts.num, counts.den, summary.n_rows, summary.n_dropped, sample_weight)


def _result(num: float, den: float, n_rows: int, n_dropped: int, sample_weight: Hashable | None) -> MetricResult:
    value = float(num / den) if den > 0 else float("nan")
    cov = Coverage(n_rows=n_rows, n_groups=1, n_used=int(den > 0), n_dropped=n_dropped, grouped=False)
    if den <= 0:
        warn_coverage("xauc is NaN: no pair of rows has different labels (and positive weight).")
    params = {} if sample_weight is None else {"sample_weight": sample_weight}
    return MetricResult(value, metric="xauc", coverage=cov, params=params)


def _partitioned(df: Any, label: Hashable, score: Hashable, sample_weight: Hashable | None, nan_policy: str,
                 engine_options: EngineOptions) -> MetricResult:
    """Global XAUC of a frame read in partitions: the engine's checks and its global pass over
    ranges of distinct (score, label), chained exactly (:mod:`pandas_rankeval.summary.xauc_counts`)."""
    check_option(nan_policy, "nan_policy", "xauc", ("raise", "omit"))
    result: MetricResult = evaluate_frame(
        df, "xauc", engine_options, finish=partial(_finish, sample_weight=sample_weight), kind="metric",
        group=None, label=label, scores=score, metrics=["auc"], sample_weight=sample_weight,
        nan_policy=nan_policy, global_metric="xauc",
    )
    return result


def xauc(
    df: Any,
    *,
    label: Hashable,
    score: Hashable,
    sample_weight: Hashable | None = None,
    nan_policy: Literal["raise", "omit"] = "raise",
    engine_options: EngineOptions = None,
) -> MetricResult:
    """Global XAUC: the share of pairs of rows with different labels ordered by score as by label.

    Parameters
    ----------
    df : DataFrame (pandas, polars, Dask, Spark), polars LazyFrame, DuckDB relation or Ibis table
        One row per impression.
    label : column
        A numeric label such as watch time (any real values; only their order matters).
    score : column
        The model's score, compared exactly as stored (integers as integers).
    sample_weight : column, optional
        Per-row weights (finite, >= 0): a pair weighs ``w_i * w_j``.
    nan_policy : {"raise", "omit"}, default="raise"
        Missing values raise, or their rows are dropped (counted in ``.coverage.n_dropped``).
    engine_options : dict, optional
        Options of the frame's engine (as every public function takes them); a pandas or polars
        DataFrame is counted in one piece.

    Returns
    -------
    xauc : MetricResult
        NaN (with a warning) when no pair of rows has different labels.

    Notes
    -----
    XAUC = (C + T / 2) / P over the P pairs of rows whose labels differ (weight w_i * w_j each):
    C of them have the larger score on the larger label, T have tied scores (Zhan et al., Kuaishou,
    arXiv 2206.06003). Pairs of equal labels are not pairs. The count is exact, O(n log n) (a
    weighted inversion count in label order), never sampled; TorchEasyRec's ``XAUC`` samples 1e-3 of
    all pairs and counts tied scores and tied labels as wrong (``benchmarks/bench_xauc.py``
    measures the difference). With 0/1 labels it is :func:`auc`. Its grouped form, within users,
    is :func:`gxauc`; an interval and a paired comparison: :func:`xauc_interval`.

    On a frame read in partitions the engine counts rows per distinct (score, label) in ranges of
    ascending score (global AUC's pass); each range's pairs are counted where it lies, and the
    client chains the ranges from one row per distinct (range, label): its memory grows with the
    ranges times the distinct labels, never with the rows.

    Examples
    --------
    >>> import pandas as pd
    >>> import pandas_rankeval as pre
    >>> df = pd.DataFrame(
    ...     {"watch": [1.0, 2.0, 3.0, 3.0], "score": [0.1, 0.3, 0.2, 0.3]}
    ... )
    >>> # 3 of 5 pairs ordered, 1 tied: 3.5 / 5
    >>> pre.xauc(df, label="watch", score="score")
    0.7
    """
    frame = _one_partition(df)
    if frame is None:
        return _partitioned(df, label, score, sample_weight, nan_policy, engine_options)
    if engine_options is not None:  # checked as every function checks them (one partition: none used)
        check_engine_options(engine_for(df, "xauc"), engine_options, "xauc")
    _, y, s, w, n_dropped = xauc_arrays(frame, [label, score], sample_weight, nan_policy, "xauc", engine=_word(df))
    num, den = xauc_sums(y, s[0], w)
    return _result(float(num[0]), float(den[0]), y.shape[0], n_dropped, sample_weight)


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
    difference of each model against a baseline with its interval and test.

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
    groups. ``benchmarks/sim_xauc.py`` measures coverage and the test's size.

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
    from pandas_rankeval.inference.xauc_delong import xauc_delong

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
    if gcols:
        keys: Any = rows[gcols[0]] if len(gcols) == 1 else pd.MultiIndex.from_frame(rows[gcols])
        cluster = pd.factorize(keys)[0].astype(np.int64)
    else:
        cluster = np.arange(y.shape[0], dtype=np.int64)
    n_clusters = int(cluster.max()) + 1 if cluster.shape[0] else 0
    values, cov = xauc_delong(y, s, w, cluster, n_clusters)
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
