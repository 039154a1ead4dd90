"""``xauc``: global XAUC over every pair of rows of a table (continuous labels such as watch time).

Unlike the group metrics it is not a sum over groups: every pair of rows counts, so it needs every
row in one place. It reads a pandas or polars DataFrame (the exact count costs O(n log n): 1e6
rows in about a second); a partitioned frame (Dask, Spark, a LazyFrame, DuckDB) is refused with the
way to evaluate it. Grouped XAUC (``gxauc``) is a group metric: pandas, polars, DuckDB, Dask and
Spark frames (not the warehouse engine, which does not compute it in SQL).
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any, Literal

import numpy as np
import pandas as pd

from pandas_rankeval.core.evaluation.result import Coverage, MetricResult, warn_coverage
from pandas_rankeval.core.inputs.validation import (
    check_columns, check_option, missing_mask, missing_values_error, numeric_values,
)
from pandas_rankeval.core.kernels.xauc import xauc_sums

__all__ = ["xauc"]


def _as_pandas(df: Any) -> pd.DataFrame:
    if isinstance(df, pd.DataFrame):
        return df
    module = type(df).__module__
    if module.startswith("polars") and type(df).__name__ == "DataFrame":
        return df.to_pandas()  # type: ignore[no-any-return]
    raise TypeError(
        f"xauc counts every pair of rows, so it reads a pandas or polars DataFrame; got {type(df).__name__}. "
        "Collect the label and score columns first (ddf[[label, score]].compute(), "
        "sdf.select(label, score).toPandas(), lf.select(label, score).collect()), or evaluate grouped "
        "XAUC with gxauc, which runs on pandas, polars, DuckDB, Dask and Spark frames."
    )


def xauc(
    df: Any,
    *,
    label: Hashable,
    score: Hashable,
    sample_weight: Hashable | None = None,
    nan_policy: Literal["raise", "omit"] = "raise",
) -> MetricResult:
    """Global XAUC: the share of pairs of rows with different labels ordered by score as by label.

    Parameters
    ----------
    df : pandas or polars DataFrame
        One row per impression.
    label : column
        A numeric label such as watch time (any real values; only their order matters).
    score : column
        The model's score, compared exactly as stored (integers as integers).
    sample_weight : column, optional
        Per-row weights (finite, >= 0): a pair weighs ``w_i * w_j``.
    nan_policy : {"raise", "omit"}, default="raise"
        Missing values raise, or their rows are dropped (counted in ``.coverage.n_dropped``).

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
    is :func:`gxauc`.

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
    df = _as_pandas(df)
    check_option(nan_policy, "nan_policy", "xauc", ("raise", "omit"))
    cols = list(dict.fromkeys([label, score, *([sample_weight] if sample_weight is not None else [])]))
    check_columns(df, cols)
    if len(df) == 0:
        raise ValueError("xauc got an empty DataFrame (0 rows); there is nothing to evaluate.")
    missing = {c: missing_mask(df[c]) for c in cols}
    counts = {c: int(m.sum()) for c, m in missing.items() if m.any()}
    n_dropped = 0
    if counts:
        if nan_policy == "raise":
            raise missing_values_error(counts)
        keep = ~np.logical_or.reduce(list(missing.values()))
        n_dropped = int((~keep).sum())
        df = df.loc[keep]
    y = numeric_values(df[label], label, "label")
    if not np.isfinite(y).all():
        raise ValueError(f"Column {label!r} (label) has {int((~np.isfinite(y)).sum()):,} infinite values; "
                         "XAUC orders finite labels.")
    s = numeric_values(df[score], score, "score", keep_int64=True)
    w = None
    if sample_weight is not None:
        w = numeric_values(df[sample_weight], sample_weight, "sample_weight")
        bad = ~np.isfinite(w) | (w < 0)
        if bad.any():
            raise ValueError(f"Column {sample_weight!r} (sample_weight) has {int(bad.sum()):,} values that are "
                             "negative or not finite; sample weights must be finite and >= 0.")
    num, den = xauc_sums(y, s, w)
    value = float(num[0] / den[0]) if den[0] > 0 else float("nan")
    cov = Coverage(n_rows=len(df), n_groups=1, n_used=int(den[0] > 0), n_dropped=n_dropped, grouped=False)
    if den[0] <= 0:
        warn_coverage("xauc is NaN: no pair of rows has different labels (and positive weight).")
    params = {} if sample_weight is None else {"sample_weight": sample_weight}
    return MetricResult(value, metric="xauc", coverage=cov, params=params)
