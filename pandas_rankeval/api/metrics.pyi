"""Generated from the metric registry by ``python -m pandas_rankeval.api``: do not edit."""

from collections.abc import Hashable, Mapping
from typing import Any, Literal

from pandas_rankeval.api.dispatch import EngineOptions, GroupLike, PropensityLike
from pandas_rankeval.core.inputs.options import WeightLike
from pandas_rankeval.core.evaluation.result import MetricResult

__all__ = ["auc", "gauc", "mrr", "ndcg", "average_precision", "precision", "recall", "r_precision", "hit_rate", "rbp", "err", "uauc", "wuauc", "dcg", "xauc", "gxauc", "ips_dcg", "ips_precision", "ips_hit_rate", "logloss", "ne", "pcoc", "ece", "map", "mean_average_precision", "map_", "rprec"]


def auc(
    df: Any,
    *,
    label: Hashable,
    score: Hashable,
    sample_weight: Hashable | None = None,
    ties: Literal["expected", "pessimistic", "optimistic"] = "expected",
    tiebreak: Hashable | None = None,
    threshold: float | None = None,
    max_fpr: float | None = None,
    nan_policy: Literal["raise", "omit"] = "raise",
    engine_options: EngineOptions = None,
) -> MetricResult:
    """Global AUC over all rows (the Mann-Whitney statistic).

    Parameters
    ----------
    df : DataFrame
        One row per shown item: a pandas DataFrame, a polars DataFrame or LazyFrame, a Dask
        DataFrame, a Spark DataFrame (classic or Connect), a DuckDB relation or an Ibis table (a
        warehouse table: the warehouse computes one row per group). Each is evaluated by its own
        engine, imported only when its frame arrives, with the same result (to 1e-12).
    label : column
        Relevance: bool, 0/1 or graded; a row is relevant when its label is > 0
        (or >= ``threshold``).
    score : column
        The model's score; higher ranks first.
    sample_weight : column, optional
        Per-row weights; a (positive, negative) pair weighs ``w_i * w_j``, as
        sklearn's ``sample_weight``. When the relevant or the non-relevant rows
        weigh 0 in total, no pair has weight: NaN with a warning
        (``.coverage.n_zero_weight`` is 1).
    ties : {"expected", "pessimistic", "optimistic"}, default="expected"
        A tied (positive, negative) pair counts 1/2, 0 or 1.
    tiebreak : column, optional
        Orders rows with equal scores (ascending) before the ``ties`` rule applies.
    threshold : float, optional
        Relevant when ``label >= threshold`` instead of ``label > 0``.
    max_fpr : float in (0, 1], optional
        Standardized partial AUC up to this false-positive rate (McClish),
        computed by sklearn. Needs every row in one place: refused on a Dask or
        Spark frame (and a polars LazyFrame), before any work.
    nan_policy : {"raise", "omit"}, default="raise"
        Missing values raise, or their rows are dropped and counted.
    engine_options : dict, optional
        Options of the frame's engine, checked against it before any work: a Dask frame takes
        ``npartitions`` (partitions of the shuffle by group, or by segment, and of the score ranges of
        global AUC; default: the frame's); a Spark frame takes ``rows_per_bucket`` (target rows of one bucket of
        whole groups, default 1,000,000) and ``buckets`` (their number instead); a polars LazyFrame
        takes ``memory_budget`` (bytes, default 2 GiB: a LazyFrame whose evaluation is estimated
        within it, from its row count and schema, is collected once and evaluated as a DataFrame;
        above it, bucket by bucket of whole groups that the budget holds) and ``rows_per_bucket``
        and ``buckets`` too (buckets, whatever the budget); a pandas
        or polars frame takes ``threads`` (default: 2 from 200,000 rows, 1 below, on one core,
        on a worker thread or inside a Spark task; the numbers never depend on it); an Ibis table
        that no Ibis connection holds takes ``execute`` (a callable that runs one SQL string and
        returns a pandas frame) with ``dialect`` (the dialect ``ibis.to_sql`` compiles for). An option
        the frame's engine does not take raises (see
        the "Other frames" pages of the documentation).

    Returns
    -------
    auc : MetricResult
        A float; NaN with a warning when only one class is present.

    Notes
    -----
    AUC = (sum over relevant i, non-relevant j of [s_i > s_j] + 1/2 [s_i = s_j]) / (P N),
    which equals ``sklearn.metrics.roc_auc_score``. It costs one sort of the scores; over
    partitions (Dask, Spark) the (relevant, non-relevant) rows are counted per distinct
    score, range-partitioned and chained in score order in exact integers.

    Examples
    --------
    >>> import pandas as pd
    >>> import pandas_rankeval as pre
    >>> df = pd.DataFrame({"click": [1, 0, 1, 0], "score": [0.9, 0.8, 0.4, 0.4]})
    >>> pre.auc(df, label="click", score="score")
    0.625
    """


def gauc(
    df: Any,
    *,
    group: GroupLike,
    label: Hashable,
    score: Hashable,
    weight: WeightLike = None,
    min_size: int | None = None,
    min_pos: int | None = None,
    min_neg: int | None = None,
    sample_weight: Hashable | None = None,
    ties: Literal["expected", "pessimistic", "optimistic"] = "expected",
    tiebreak: Hashable | None = None,
    threshold: float | None = None,
    implementation: Literal["numpy", "sklearn"] = "numpy",
    max_fpr: float | None = None,
    nan_policy: Literal["raise", "omit"] = "raise",
    progress: bool = False,
    engine: Literal["numpy", "sklearn"] | None = None,
    engine_options: EngineOptions = None,
) -> MetricResult:
    """Group AUC: the weighted mean of the per-group AUC (the DIN paper's GAUC).

    Parameters
    ----------
    df : DataFrame
        One row per shown item: a pandas DataFrame, a polars DataFrame or LazyFrame, a Dask
        DataFrame, a Spark DataFrame (classic or Connect), a DuckDB relation or an Ibis table (a
        warehouse table: the warehouse computes one row per group). Each is evaluated by its own
        engine, imported only when its frame arrives, with the same result (to 1e-12).
    group : column or list of columns
        The user, query or session.
    label, score : column
        Relevance (> 0 or >= ``threshold`` is relevant) and the model's score.
    weight : {"count", "clicks", "log1p", "uniform"}, column, Series or callable, optional
        Group weights: rows, relevant rows, ``log(1 + rows)``, 1, the per-group
        sum of a column, a Series indexed by group key, or a callable that takes
        the per-group statistics frame (columns ``n``, ``positives``,
        ``negatives``, indexed by group key) and returns one weight per group.
        None (the default) is "count". A name that is also a column of ``df``
        (say a column ``"count"``) is ambiguous and raises an error that shows
        how to ask for either.
    min_size, min_pos, min_neg : int, optional
        Leave out groups with fewer rows / relevant rows / non-relevant rows.
    sample_weight : column, optional
        Per-row weights inside each group's AUC (pairs weigh ``w_i * w_j``). A
        group whose relevant or non-relevant rows weigh 0 in total has no AUC: it
        is skipped, on both engines, and counted in ``.coverage.n_zero_weight``.
    ties : {"expected", "pessimistic", "optimistic"}, default="expected"
        A tied pair counts 1/2, 0 or 1.
    tiebreak : column, optional
        Orders rows with equal scores (ascending) first.
    threshold : float, optional
        Relevant when ``label >= threshold``.
    implementation : {"numpy", "sklearn"}, default="numpy"
        "numpy" computes every group at once from one sort; "sklearn" calls
        ``roc_auc_score`` per group (slow; a cross-check, the same number to
        1e-12). ``max_fpr`` always uses sklearn.
    max_fpr : float in (0, 1], optional
        Per-group standardized partial AUC (McClish), from sklearn.
    nan_policy : {"raise", "omit"}, default="raise"
        Missing values raise, or their rows are dropped and counted.
    progress : bool, default=False
        Show a progress bar on stderr (needs tqdm) over the loops of the call
        that can take long: bootstrap replicates (``ci=``, compare's intervals and
        tests, calibration_by's and launch_agreement's intervals), sklearn's
        per-group AUC (``implementation="sklearn"``, ``max_fpr``), the EM
        iterations and replicates of propensities, the files read_trec reads and
        joins. pandas and polars frames (other engines compute on their workers); a
        call without such a loop draws none. No number depends on it.
    engine : {"numpy", "sklearn"}, optional
        Deprecated: the former name of ``implementation`` (``engine`` means only
        the frame's backend), accepted with a FutureWarning until the next release.
    engine_options : dict, optional
        Options of the frame's engine, checked against it before any work: a Dask frame takes
        ``npartitions`` (partitions of the shuffle by group, or by segment, and of the score ranges of
        global AUC; default: the frame's); a Spark frame takes ``rows_per_bucket`` (target rows of one bucket of
        whole groups, default 1,000,000) and ``buckets`` (their number instead); a polars LazyFrame
        takes ``memory_budget`` (bytes, default 2 GiB: a LazyFrame whose evaluation is estimated
        within it, from its row count and schema, is collected once and evaluated as a DataFrame;
        above it, bucket by bucket of whole groups that the budget holds) and ``rows_per_bucket``
        and ``buckets`` too (buckets, whatever the budget); a pandas
        or polars frame takes ``threads`` (default: 2 from 200,000 rows, 1 below, on one core,
        on a worker thread or inside a Spark task; the numbers never depend on it); an Ibis table
        that no Ibis connection holds takes ``execute`` (a callable that runs one SQL string and
        returns a pandas frame) with ``dialect`` (the dialect ``ibis.to_sql`` compiles for). An option
        the frame's engine does not take raises (see
        the "Other frames" pages of the documentation).

    Returns
    -------
    gauc : MetricResult
        A float with ``.coverage``: groups used, skipped for having one class
        only or for the filters, and the share of rows and positives skipped.
        NaN with a warning when no group is eligible; a warning when skipped
        groups hold more than 10% of the rows.

    Notes
    -----
    GAUC = sum_g w_g AUC_g / sum_g w_g over the groups with both classes that
    pass the filters; other groups are in neither sum. Ties as in :func:`auc`.

    Examples
    --------
    A user with 80 rows at AUC 0.7 and one with 20 rows at AUC 0.6:

    >>> import numpy as np, pandas as pd
    >>> import pandas_rankeval as pre
    >>> def user(uid, n, pos, auc):
    ...     # pos positives above a share auc of the negatives, tie-free
    ...     neg = n - pos
    ...     below = round(auc * neg)
    ...     scores = np.r_[np.full(pos, below - 0.5), np.arange(neg)]
    ...     return pd.DataFrame(
    ...         {"user": uid, "click": [1] * pos + [0] * neg, "score": scores}
    ...     )
    >>> df = pd.concat([user("A", 80, 10, 0.7), user("B", 20, 5, 0.6)])
    >>> pre.gauc(df, group="user", label="click", score="score")
    0.68
    >>> round(
    ...     pre.gauc(
    ...         df, group="user", label="click", score="score", weight="uniform"
    ...     ),
    ...     4,
    ... )
    0.65
    >>> print(pre.gauc(df, group="user", label="click", score="score").coverage)
    2 of 2 groups used
    """


def mrr(
    df: Any,
    *,
    group: GroupLike,
    label: Hashable,
    score: Hashable,
    k: int | None = None,
    weight: WeightLike = None,
    ties: Literal["expected", "pessimistic", "optimistic"] = "expected",
    tiebreak: Hashable | None = None,
    threshold: float | None = None,
    empty: Literal["zero", "skip", "error"] = "zero",
    nan_policy: Literal["raise", "omit"] = "raise",
    retrieved: Hashable | Mapping[Hashable, Hashable] | None = None,
    engine_options: EngineOptions = None,
) -> MetricResult:
    """Mean reciprocal rank of the first relevant row (MRR, MRR@k).

    Parameters
    ----------
    df : DataFrame
        One row per shown item: a pandas DataFrame, a polars DataFrame or LazyFrame, a Dask
        DataFrame, a Spark DataFrame (classic or Connect), a DuckDB relation or an Ibis table (a
        warehouse table: the warehouse computes one row per group). Each is evaluated by its own
        engine, imported only when its frame arrives, with the same result (to 1e-12).
    group : column or list of columns
        The user, query or session.
    label : column
        Relevance; a row is relevant when its label is > 0 (or >= ``threshold``).
    score : column
        The model's score; rank 1 is the highest score in the group.
    k : int or None, default=None
        Only the first k rows count: RR is 0 when no relevant row is among them.
    weight : {"uniform", "count", "clicks", "log1p"}, column, Series or callable, optional
        How groups are averaged (as in :func:`gauc`); None (the default) is "uniform".
    ties : {"expected", "pessimistic", "optimistic"}, default="expected"
        "expected" is the exact mean over every ordering of tied rows;
        "pessimistic" / "optimistic" put relevant rows last / first inside a tie.
    tiebreak : column, optional
        Orders rows with equal scores (ascending) before the ``ties`` rule.
    threshold : float, optional
        Relevant when ``label >= threshold`` instead of ``label > 0``.
    empty : {"zero", "skip", "error"}, default="zero"
        Groups with no relevant row score 0, are left out, or raise. Their
        count is in ``.coverage.n_empty`` either way. One rule for every list
        metric, NDCG included: a group is empty when no row is relevant by the
        rule above (with ``threshold <= 0`` label-0 rows are relevant, so such a
        group is not empty; its NDCG is 1 when no row gains anything).
    retrieved : column or dict, optional
        Booleans: rows where it is False (say, relevant documents a run did not
        retrieve) are never ranked and never count in precision, MRR or hit rate, but
        count in the group's relevant rows (recall, AP, R-precision's R) and in NDCG's
        ideal DCG. A dict gives each score column its own column (runs that retrieved
        different rows).
    nan_policy : {"raise", "omit"}, default="raise"
        Missing values raise, or their rows are dropped and counted.
    engine_options : dict, optional
        Options of the frame's engine, checked against it before any work: a Dask frame takes
        ``npartitions`` (partitions of the shuffle by group, or by segment, and of the score ranges of
        global AUC; default: the frame's); a Spark frame takes ``rows_per_bucket`` (target rows of one bucket of
        whole groups, default 1,000,000) and ``buckets`` (their number instead); a polars LazyFrame
        takes ``memory_budget`` (bytes, default 2 GiB: a LazyFrame whose evaluation is estimated
        within it, from its row count and schema, is collected once and evaluated as a DataFrame;
        above it, bucket by bucket of whole groups that the budget holds) and ``rows_per_bucket``
        and ``buckets`` too (buckets, whatever the budget); a pandas
        or polars frame takes ``threads`` (default: 2 from 200,000 rows, 1 below, on one core,
        on a worker thread or inside a Spark task; the numbers never depend on it); an Ibis table
        that no Ibis connection holds takes ``execute`` (a callable that runs one SQL string and
        returns a pandas frame) with ``dialect`` (the dialect ``ibis.to_sql`` compiles for). An option
        the frame's engine does not take raises (see
        the "Other frames" pages of the documentation).

    Returns
    -------
    mrr : MetricResult

    Notes
    -----
    RR = 1 / rank of the first relevant row. With ties, m rows strictly above
    the block that holds the first relevant row, t rows in it and p relevant:
    E[RR] = sum_{j=1..t-p+1} C(t-j, p-1) / C(t, p) / (m + j), exact.

    Examples
    --------
    First relevant rows at ranks 1, 3 and 5:

    >>> import pandas as pd
    >>> import pandas_rankeval as pre
    >>> df = pd.DataFrame({
    ...     "q": [1] * 1 + [2] * 3 + [3] * 5,
    ...     "rel": [1] + [0, 0, 1] + [0, 0, 0, 0, 1],
    ...     "score": [9] + [9, 8, 7] + [9, 8, 7, 6, 5],
    ... })
    >>> round(pre.mrr(df, group="q", label="rel", score="score"), 3)
    0.511
    >>> round(pre.mrr(df, group="q", label="rel", score="score", k=3), 3)
    0.444
    """


def ndcg(
    df: Any,
    *,
    group: GroupLike,
    label: Hashable,
    score: Hashable,
    k: int | None = None,
    gain: Literal["exp2", "linear"] = "exp2",
    weight: WeightLike = None,
    ties: Literal["expected", "pessimistic", "optimistic"] = "expected",
    tiebreak: Hashable | None = None,
    threshold: float | None = None,
    empty: Literal["zero", "skip", "error"] = "zero",
    nan_policy: Literal["raise", "omit"] = "raise",
    retrieved: Hashable | Mapping[Hashable, Hashable] | None = None,
    engine_options: EngineOptions = None,
) -> MetricResult:
    """Normalized discounted cumulative gain at k (NDCG@k), graded labels welcome.

    Parameters
    ----------
    df : DataFrame
        One row per shown item: a pandas DataFrame, a polars DataFrame or LazyFrame, a Dask
        DataFrame, a Spark DataFrame (classic or Connect), a DuckDB relation or an Ibis table (a
        warehouse table: the warehouse computes one row per group). Each is evaluated by its own
        engine, imported only when its frame arrives, with the same result (to 1e-12).
    group : column or list of columns
        The user, query or session.
    label : column
        Relevance; a row is relevant when its label is > 0 (or >= ``threshold``).
        Graded labels (0, 1, 2, ...) are used as gains; negative labels are an error.
    score : column
        The model's score; rank 1 is the highest score in the group.
    k : int or None, default=None
        Cutoff. None (the default) is the whole list, as the metric name
        ``"ndcg"`` in :func:`report` and sklearn's ``ndcg_score``; ``k=10`` is
        NDCG@10, the name ``"ndcg@10"``. A k larger than a group uses the whole group.
    gain : {"exp2", "linear"}, default="exp2"
        ``2**label - 1`` (Burges) or ``label`` (trec_eval, sklearn).
    weight : {"uniform", "count", "clicks", "log1p"}, column, Series or callable, optional
        How groups are averaged (as in :func:`gauc`); None (the default) is "uniform".
    ties : {"expected", "pessimistic", "optimistic"}, default="expected"
        "expected" is the exact mean over every ordering of tied rows;
        "pessimistic" / "optimistic" put relevant rows last / first inside a tie.
    tiebreak : column, optional
        Orders rows with equal scores (ascending) before the ``ties`` rule.
    threshold : float, optional
        Relevant when ``label >= threshold`` instead of ``label > 0``.
        For NDCG, rows with a label below ``threshold`` gain nothing (graded labels
        at or above it keep their gain).
    empty : {"zero", "skip", "error"}, default="zero"
        Groups with no relevant row score 0, are left out, or raise. Their
        count is in ``.coverage.n_empty`` either way. One rule for every list
        metric, NDCG included: a group is empty when no row is relevant by the
        rule above (with ``threshold <= 0`` label-0 rows are relevant, so such a
        group is not empty; its NDCG is 1 when no row gains anything).
    retrieved : column or dict, optional
        Booleans: rows where it is False (say, relevant documents a run did not
        retrieve) are never ranked and never count in precision, MRR or hit rate, but
        count in the group's relevant rows (recall, AP, R-precision's R) and in NDCG's
        ideal DCG. A dict gives each score column its own column (runs that retrieved
        different rows).
    nan_policy : {"raise", "omit"}, default="raise"
        Missing values raise, or their rows are dropped and counted.
    engine_options : dict, optional
        Options of the frame's engine, checked against it before any work: a Dask frame takes
        ``npartitions`` (partitions of the shuffle by group, or by segment, and of the score ranges of
        global AUC; default: the frame's); a Spark frame takes ``rows_per_bucket`` (target rows of one bucket of
        whole groups, default 1,000,000) and ``buckets`` (their number instead); a polars LazyFrame
        takes ``memory_budget`` (bytes, default 2 GiB: a LazyFrame whose evaluation is estimated
        within it, from its row count and schema, is collected once and evaluated as a DataFrame;
        above it, bucket by bucket of whole groups that the budget holds) and ``rows_per_bucket``
        and ``buckets`` too (buckets, whatever the budget); a pandas
        or polars frame takes ``threads`` (default: 2 from 200,000 rows, 1 below, on one core,
        on a worker thread or inside a Spark task; the numbers never depend on it); an Ibis table
        that no Ibis connection holds takes ``execute`` (a callable that runs one SQL string and
        returns a pandas frame) with ``dialect`` (the dialect ``ibis.to_sql`` compiles for). An option
        the frame's engine does not take raises (see
        the "Other frames" pages of the documentation).

    Returns
    -------
    ndcg : MetricResult

    Notes
    -----
    DCG@k = sum_{i<=k} gain_i / log2(i + 1); NDCG = DCG@k / IDCG@k, IDCG from the
    group's own labels sorted descending. Expected ties give each row of a tied
    block the block's mean gain over the discounts of the positions it occupies,
    which equals ``sklearn.metrics.ndcg_score`` (linear gain).

    Examples
    --------
    >>> import pandas as pd
    >>> import pandas_rankeval as pre
    >>> df = pd.DataFrame({"q": [1, 1, 1], "rel": [0, 1, 2], "score": [3, 2, 1]})
    >>> round(pre.ndcg(df, group="q", label="rel", score="score", gain="linear"), 4)
    0.6199
    >>> round(
    ...     pre.ndcg(df, group="q", label="rel", score="score", gain="linear", k=2),
    ...     4,
    ... )
    0.2398
    """


def average_precision(
    df: Any,
    *,
    group: GroupLike,
    label: Hashable,
    score: Hashable,
    k: int | None = None,
    denominator: Literal["relevant", "min_k"] = "relevant",
    weight: WeightLike = None,
    ties: Literal["expected", "pessimistic", "optimistic"] = "expected",
    tiebreak: Hashable | None = None,
    threshold: float | None = None,
    empty: Literal["zero", "skip", "error"] = "zero",
    nan_policy: Literal["raise", "omit"] = "raise",
    retrieved: Hashable | Mapping[Hashable, Hashable] | None = None,
    engine_options: EngineOptions = None,
) -> MetricResult:
    """Mean average precision (MAP, MAP@k): the mean over groups of AP@k.

    Parameters
    ----------
    df : DataFrame
        One row per shown item: a pandas DataFrame, a polars DataFrame or LazyFrame, a Dask
        DataFrame, a Spark DataFrame (classic or Connect), a DuckDB relation or an Ibis table (a
        warehouse table: the warehouse computes one row per group). Each is evaluated by its own
        engine, imported only when its frame arrives, with the same result (to 1e-12).
    group : column or list of columns
        The user, query or session.
    label : column
        Relevance; a row is relevant when its label is > 0 (or >= ``threshold``).
    score : column
        The model's score; rank 1 is the highest score in the group.
    k : int or None, default=None
        Only relevant rows within the first k count.
    denominator : {"relevant", "min_k"}, default="relevant"
        Divide by all relevant rows of the group (trec_eval, ranx) or by
        ``min(relevant rows, k)`` (Spark, RecBole).
    weight : {"uniform", "count", "clicks", "log1p"}, column, Series or callable, optional
        How groups are averaged (as in :func:`gauc`); None (the default) is "uniform".
    ties : {"expected", "pessimistic", "optimistic"}, default="expected"
        "expected" is the exact mean over every ordering of tied rows;
        "pessimistic" / "optimistic" put relevant rows last / first inside a tie.
    tiebreak : column, optional
        Orders rows with equal scores (ascending) before the ``ties`` rule.
    threshold : float, optional
        Relevant when ``label >= threshold`` instead of ``label > 0``.
    empty : {"zero", "skip", "error"}, default="zero"
        Groups with no relevant row score 0, are left out, or raise. Their
        count is in ``.coverage.n_empty`` either way. One rule for every list
        metric, NDCG included: a group is empty when no row is relevant by the
        rule above (with ``threshold <= 0`` label-0 rows are relevant, so such a
        group is not empty; its NDCG is 1 when no row gains anything).
    retrieved : column or dict, optional
        Booleans: rows where it is False (say, relevant documents a run did not
        retrieve) are never ranked and never count in precision, MRR or hit rate, but
        count in the group's relevant rows (recall, AP, R-precision's R) and in NDCG's
        ideal DCG. A dict gives each score column its own column (runs that retrieved
        different rows).
    nan_policy : {"raise", "omit"}, default="raise"
        Missing values raise, or their rows are dropped and counted.
    engine_options : dict, optional
        Options of the frame's engine, checked against it before any work: a Dask frame takes
        ``npartitions`` (partitions of the shuffle by group, or by segment, and of the score ranges of
        global AUC; default: the frame's); a Spark frame takes ``rows_per_bucket`` (target rows of one bucket of
        whole groups, default 1,000,000) and ``buckets`` (their number instead); a polars LazyFrame
        takes ``memory_budget`` (bytes, default 2 GiB: a LazyFrame whose evaluation is estimated
        within it, from its row count and schema, is collected once and evaluated as a DataFrame;
        above it, bucket by bucket of whole groups that the budget holds) and ``rows_per_bucket``
        and ``buckets`` too (buckets, whatever the budget); a pandas
        or polars frame takes ``threads`` (default: 2 from 200,000 rows, 1 below, on one core,
        on a worker thread or inside a Spark task; the numbers never depend on it); an Ibis table
        that no Ibis connection holds takes ``execute`` (a callable that runs one SQL string and
        returns a pandas frame) with ``dialect`` (the dialect ``ibis.to_sql`` compiles for). An option
        the frame's engine does not take raises (see
        the "Other frames" pages of the documentation).

    Returns
    -------
    map : MetricResult

    Notes
    -----
    AP@k = (1/D) sum over relevant rows at rank i <= k of precision@i. Under ties,
    the exact expectation over the orderings of each tied block, in closed form.

    Examples
    --------
    The list [relevant, not, relevant, not, relevant]:

    >>> import pandas as pd
    >>> import pandas_rankeval as pre
    >>> df = pd.DataFrame(
    ...     {"q": 1, "rel": [1, 0, 1, 0, 1], "score": [5, 4, 3, 2, 1]}
    ... )
    >>> round(pre.average_precision(df, group="q", label="rel", score="score"), 3)
    0.756
    """


def precision(
    df: Any,
    *,
    group: GroupLike,
    label: Hashable,
    score: Hashable,
    k: int = 10,
    weight: WeightLike = None,
    ties: Literal["expected", "pessimistic", "optimistic"] = "expected",
    tiebreak: Hashable | None = None,
    threshold: float | None = None,
    empty: Literal["zero", "skip", "error"] = "zero",
    nan_policy: Literal["raise", "omit"] = "raise",
    retrieved: Hashable | Mapping[Hashable, Hashable] | None = None,
    engine_options: EngineOptions = None,
) -> MetricResult:
    """Precision at k: relevant rows among the first k, divided by k.

    Parameters
    ----------
    df : DataFrame
        One row per shown item: a pandas DataFrame, a polars DataFrame or LazyFrame, a Dask
        DataFrame, a Spark DataFrame (classic or Connect), a DuckDB relation or an Ibis table (a
        warehouse table: the warehouse computes one row per group). Each is evaluated by its own
        engine, imported only when its frame arrives, with the same result (to 1e-12).
    group : column or list of columns
        The user, query or session.
    label : column
        Relevance; a row is relevant when its label is > 0 (or >= ``threshold``).
    score : column
        The model's score; rank 1 is the highest score in the group.
    k : int, default=10
        The cutoff; a group shorter than k still divides by k (trec_eval).
    weight : {"uniform", "count", "clicks", "log1p"}, column, Series or callable, optional
        How groups are averaged (as in :func:`gauc`); None (the default) is "uniform".
    ties : {"expected", "pessimistic", "optimistic"}, default="expected"
        "expected" is the exact mean over every ordering of tied rows;
        "pessimistic" / "optimistic" put relevant rows last / first inside a tie.
    tiebreak : column, optional
        Orders rows with equal scores (ascending) before the ``ties`` rule.
    threshold : float, optional
        Relevant when ``label >= threshold`` instead of ``label > 0``.
    empty : {"zero", "skip", "error"}, default="zero"
        Groups with no relevant row score 0, are left out, or raise. Their
        count is in ``.coverage.n_empty`` either way. One rule for every list
        metric, NDCG included: a group is empty when no row is relevant by the
        rule above (with ``threshold <= 0`` label-0 rows are relevant, so such a
        group is not empty; its NDCG is 1 when no row gains anything).
    retrieved : column or dict, optional
        Booleans: rows where it is False (say, relevant documents a run did not
        retrieve) are never ranked and never count in precision, MRR or hit rate, but
        count in the group's relevant rows (recall, AP, R-precision's R) and in NDCG's
        ideal DCG. A dict gives each score column its own column (runs that retrieved
        different rows).
    nan_policy : {"raise", "omit"}, default="raise"
        Missing values raise, or their rows are dropped and counted.
    engine_options : dict, optional
        Options of the frame's engine, checked against it before any work: a Dask frame takes
        ``npartitions`` (partitions of the shuffle by group, or by segment, and of the score ranges of
        global AUC; default: the frame's); a Spark frame takes ``rows_per_bucket`` (target rows of one bucket of
        whole groups, default 1,000,000) and ``buckets`` (their number instead); a polars LazyFrame
        takes ``memory_budget`` (bytes, default 2 GiB: a LazyFrame whose evaluation is estimated
        within it, from its row count and schema, is collected once and evaluated as a DataFrame;
        above it, bucket by bucket of whole groups that the budget holds) and ``rows_per_bucket``
        and ``buckets`` too (buckets, whatever the budget); a pandas
        or polars frame takes ``threads`` (default: 2 from 200,000 rows, 1 below, on one core,
        on a worker thread or inside a Spark task; the numbers never depend on it); an Ibis table
        that no Ibis connection holds takes ``execute`` (a callable that runs one SQL string and
        returns a pandas frame) with ``dialect`` (the dialect ``ibis.to_sql`` compiles for). An option
        the frame's engine does not take raises (see
        the "Other frames" pages of the documentation).

    Returns
    -------
    precision : MetricResult

    Notes
    -----
    When a tied block of t rows with p relevant straddles the cutoff and r of its
    rows fall within k, it contributes r * p / t expected relevant rows.

    Examples
    --------
    >>> import pandas as pd
    >>> import pandas_rankeval as pre
    >>> df = pd.DataFrame(
    ...     {"q": 1, "rel": [1, 0, 1, 0, 1], "score": [5, 4, 3, 2, 1]}
    ... )
    >>> [
    ...     round(pre.precision(df, group="q", label="rel", score="score", k=k), 2)
    ...     for k in (1, 3, 5)
    ... ]
    [1.0, 0.67, 0.6]
    """


def recall(
    df: Any,
    *,
    group: GroupLike,
    label: Hashable,
    score: Hashable,
    k: int = 10,
    weight: WeightLike = None,
    ties: Literal["expected", "pessimistic", "optimistic"] = "expected",
    tiebreak: Hashable | None = None,
    threshold: float | None = None,
    empty: Literal["zero", "skip", "error"] = "zero",
    nan_policy: Literal["raise", "omit"] = "raise",
    retrieved: Hashable | Mapping[Hashable, Hashable] | None = None,
    engine_options: EngineOptions = None,
) -> MetricResult:
    """Recall at k: relevant rows among the first k, divided by the group's relevant rows.

    Parameters
    ----------
    df : DataFrame
        One row per shown item: a pandas DataFrame, a polars DataFrame or LazyFrame, a Dask
        DataFrame, a Spark DataFrame (classic or Connect), a DuckDB relation or an Ibis table (a
        warehouse table: the warehouse computes one row per group). Each is evaluated by its own
        engine, imported only when its frame arrives, with the same result (to 1e-12).
    group : column or list of columns
        The user, query or session.
    label : column
        Relevance; a row is relevant when its label is > 0 (or >= ``threshold``).
    score : column
        The model's score; rank 1 is the highest score in the group.
    k : int, default=10
        The cutoff.
    weight : {"uniform", "count", "clicks", "log1p"}, column, Series or callable, optional
        How groups are averaged (as in :func:`gauc`); None (the default) is "uniform".
    ties : {"expected", "pessimistic", "optimistic"}, default="expected"
        "expected" is the exact mean over every ordering of tied rows;
        "pessimistic" / "optimistic" put relevant rows last / first inside a tie.
    tiebreak : column, optional
        Orders rows with equal scores (ascending) before the ``ties`` rule.
    threshold : float, optional
        Relevant when ``label >= threshold`` instead of ``label > 0``.
    empty : {"zero", "skip", "error"}, default="zero"
        Groups with no relevant row score 0, are left out, or raise. Their
        count is in ``.coverage.n_empty`` either way. One rule for every list
        metric, NDCG included: a group is empty when no row is relevant by the
        rule above (with ``threshold <= 0`` label-0 rows are relevant, so such a
        group is not empty; its NDCG is 1 when no row gains anything).
    retrieved : column or dict, optional
        Booleans: rows where it is False (say, relevant documents a run did not
        retrieve) are never ranked and never count in precision, MRR or hit rate, but
        count in the group's relevant rows (recall, AP, R-precision's R) and in NDCG's
        ideal DCG. A dict gives each score column its own column (runs that retrieved
        different rows).
    nan_policy : {"raise", "omit"}, default="raise"
        Missing values raise, or their rows are dropped and counted.
    engine_options : dict, optional
        Options of the frame's engine, checked against it before any work: a Dask frame takes
        ``npartitions`` (partitions of the shuffle by group, or by segment, and of the score ranges of
        global AUC; default: the frame's); a Spark frame takes ``rows_per_bucket`` (target rows of one bucket of
        whole groups, default 1,000,000) and ``buckets`` (their number instead); a polars LazyFrame
        takes ``memory_budget`` (bytes, default 2 GiB: a LazyFrame whose evaluation is estimated
        within it, from its row count and schema, is collected once and evaluated as a DataFrame;
        above it, bucket by bucket of whole groups that the budget holds) and ``rows_per_bucket``
        and ``buckets`` too (buckets, whatever the budget); a pandas
        or polars frame takes ``threads`` (default: 2 from 200,000 rows, 1 below, on one core,
        on a worker thread or inside a Spark task; the numbers never depend on it); an Ibis table
        that no Ibis connection holds takes ``execute`` (a callable that runs one SQL string and
        returns a pandas frame) with ``dialect`` (the dialect ``ibis.to_sql`` compiles for). An option
        the frame's engine does not take raises (see
        the "Other frames" pages of the documentation).

    Returns
    -------
    recall : MetricResult

    Notes
    -----
    Ties as in :func:`precision`: a straddling block contributes r * p / t.

    Examples
    --------
    >>> import pandas as pd
    >>> import pandas_rankeval as pre
    >>> df = pd.DataFrame(
    ...     {"q": 1, "rel": [1, 0, 1, 0, 1], "score": [5, 4, 3, 2, 1]}
    ... )
    >>> round(pre.recall(df, group="q", label="rel", score="score", k=3), 4)
    0.6667
    """


def r_precision(
    df: Any,
    *,
    group: GroupLike,
    label: Hashable,
    score: Hashable,
    weight: WeightLike = None,
    ties: Literal["expected", "pessimistic", "optimistic"] = "expected",
    tiebreak: Hashable | None = None,
    threshold: float | None = None,
    empty: Literal["zero", "skip", "error"] = "zero",
    nan_policy: Literal["raise", "omit"] = "raise",
    retrieved: Hashable | Mapping[Hashable, Hashable] | None = None,
    engine_options: EngineOptions = None,
) -> MetricResult:
    """R-precision: precision at rank R, R the group's relevant rows (trec_eval's ``Rprec``).

    Parameters
    ----------
    df : DataFrame
        One row per shown item: a pandas DataFrame, a polars DataFrame or LazyFrame, a Dask
        DataFrame, a Spark DataFrame (classic or Connect), a DuckDB relation or an Ibis table (a
        warehouse table: the warehouse computes one row per group). Each is evaluated by its own
        engine, imported only when its frame arrives, with the same result (to 1e-12).
    group : column or list of columns
        The user, query or session.
    label : column
        Relevance; a row is relevant when its label is > 0 (or >= ``threshold``).
    score : column
        The model's score; rank 1 is the highest score in the group.
    weight : {"uniform", "count", "clicks", "log1p"}, column, Series or callable, optional
        How groups are averaged (as in :func:`gauc`); None (the default) is "uniform".
    ties : {"expected", "pessimistic", "optimistic"}, default="expected"
        "expected" is the exact mean over every ordering of tied rows;
        "pessimistic" / "optimistic" put relevant rows last / first inside a tie.
    tiebreak : column, optional
        Orders rows with equal scores (ascending) before the ``ties`` rule.
    threshold : float, optional
        Relevant when ``label >= threshold`` instead of ``label > 0``.
    empty : {"zero", "skip", "error"}, default="zero"
        Groups with no relevant row score 0, are left out, or raise. Their
        count is in ``.coverage.n_empty`` either way. One rule for every list
        metric, NDCG included: a group is empty when no row is relevant by the
        rule above (with ``threshold <= 0`` label-0 rows are relevant, so such a
        group is not empty; its NDCG is 1 when no row gains anything).
    retrieved : column or dict, optional
        Booleans: rows where it is False (say, relevant documents a run did not
        retrieve) are never ranked and never count in precision, MRR or hit rate, but
        count in the group's relevant rows (recall, AP, R-precision's R) and in NDCG's
        ideal DCG. A dict gives each score column its own column (runs that retrieved
        different rows).
    nan_policy : {"raise", "omit"}, default="raise"
        Missing values raise, or their rows are dropped and counted.
    engine_options : dict, optional
        Options of the frame's engine, checked against it before any work: a Dask frame takes
        ``npartitions`` (partitions of the shuffle by group, or by segment, and of the score ranges of
        global AUC; default: the frame's); a Spark frame takes ``rows_per_bucket`` (target rows of one bucket of
        whole groups, default 1,000,000) and ``buckets`` (their number instead); a polars LazyFrame
        takes ``memory_budget`` (bytes, default 2 GiB: a LazyFrame whose evaluation is estimated
        within it, from its row count and schema, is collected once and evaluated as a DataFrame;
        above it, bucket by bucket of whole groups that the budget holds) and ``rows_per_bucket``
        and ``buckets`` too (buckets, whatever the budget); a pandas
        or polars frame takes ``threads`` (default: 2 from 200,000 rows, 1 below, on one core,
        on a worker thread or inside a Spark task; the numbers never depend on it); an Ibis table
        that no Ibis connection holds takes ``execute`` (a callable that runs one SQL string and
        returns a pandas frame) with ``dialect`` (the dialect ``ibis.to_sql`` compiles for). An option
        the frame's engine does not take raises (see
        the "Other frames" pages of the documentation).

    Returns
    -------
    rprec : MetricResult

    Notes
    -----
    R-prec = (relevant rows in the top R) / R, where R = P_g is the group's number of relevant
    rows; with ``retrieved=``, the relevant rows outside the ranking count in R too (trec_eval's
    number of relevant documents), so a run that missed them cannot reach 1. At rank R precision
    and recall are equal, and a perfect ranking scores 1 whatever R is. Each group has its own
    cutoff R: a tied block of t rows, p of them relevant, that rank R cuts after r of its rows
    holds r * p / t relevant rows in expectation (the mean of the hypergeometric draw of r rows
    from the block), the exact expected value over the orderings of the tie. A group with no
    relevant row has no R: it scores 0 (``empty="zero"``) or is left out (``"skip"``). The
    group weights are those of :func:`precision`.

    Examples
    --------
    >>> import pandas as pd
    >>> import pandas_rankeval as pre
    >>> df = pd.DataFrame(
    ...     {"q": 1, "rel": [1, 0, 1, 0, 1], "score": [5, 4, 3, 2, 1]}
    ... )
    >>> # R = 3 relevant rows, 2 of them in the top 3
    >>> round(pre.r_precision(df, group="q", label="rel", score="score"), 4)
    0.6667
    >>> # rows 3 and 4 tie across rank 3: half a relevant row in expectation
    >>> tied = df.assign(score=[5, 4, 3, 3, 1])
    >>> pre.r_precision(tied, group="q", label="rel", score="score")
    0.5
    """


def hit_rate(
    df: Any,
    *,
    group: GroupLike,
    label: Hashable,
    score: Hashable,
    k: int = 10,
    weight: WeightLike = None,
    ties: Literal["expected", "pessimistic", "optimistic"] = "expected",
    tiebreak: Hashable | None = None,
    threshold: float | None = None,
    empty: Literal["zero", "skip", "error"] = "zero",
    nan_policy: Literal["raise", "omit"] = "raise",
    retrieved: Hashable | Mapping[Hashable, Hashable] | None = None,
    engine_options: EngineOptions = None,
) -> MetricResult:
    """Hit rate at k: the share of groups with a relevant row among the first k.

    Parameters
    ----------
    df : DataFrame
        One row per shown item: a pandas DataFrame, a polars DataFrame or LazyFrame, a Dask
        DataFrame, a Spark DataFrame (classic or Connect), a DuckDB relation or an Ibis table (a
        warehouse table: the warehouse computes one row per group). Each is evaluated by its own
        engine, imported only when its frame arrives, with the same result (to 1e-12).
    group : column or list of columns
        The user, query or session.
    label : column
        Relevance; a row is relevant when its label is > 0 (or >= ``threshold``).
    score : column
        The model's score; rank 1 is the highest score in the group.
    k : int, default=10
        The cutoff.
    weight : {"uniform", "count", "clicks", "log1p"}, column, Series or callable, optional
        How groups are averaged (as in :func:`gauc`); None (the default) is "uniform".
    ties : {"expected", "pessimistic", "optimistic"}, default="expected"
        "expected" is the exact mean over every ordering of tied rows;
        "pessimistic" / "optimistic" put relevant rows last / first inside a tie.
    tiebreak : column, optional
        Orders rows with equal scores (ascending) before the ``ties`` rule.
    threshold : float, optional
        Relevant when ``label >= threshold`` instead of ``label > 0``.
    empty : {"zero", "skip", "error"}, default="zero"
        Groups with no relevant row score 0, are left out, or raise. Their
        count is in ``.coverage.n_empty`` either way. One rule for every list
        metric, NDCG included: a group is empty when no row is relevant by the
        rule above (with ``threshold <= 0`` label-0 rows are relevant, so such a
        group is not empty; its NDCG is 1 when no row gains anything).
    retrieved : column or dict, optional
        Booleans: rows where it is False (say, relevant documents a run did not
        retrieve) are never ranked and never count in precision, MRR or hit rate, but
        count in the group's relevant rows (recall, AP, R-precision's R) and in NDCG's
        ideal DCG. A dict gives each score column its own column (runs that retrieved
        different rows).
    nan_policy : {"raise", "omit"}, default="raise"
        Missing values raise, or their rows are dropped and counted.
    engine_options : dict, optional
        Options of the frame's engine, checked against it before any work: a Dask frame takes
        ``npartitions`` (partitions of the shuffle by group, or by segment, and of the score ranges of
        global AUC; default: the frame's); a Spark frame takes ``rows_per_bucket`` (target rows of one bucket of
        whole groups, default 1,000,000) and ``buckets`` (their number instead); a polars LazyFrame
        takes ``memory_budget`` (bytes, default 2 GiB: a LazyFrame whose evaluation is estimated
        within it, from its row count and schema, is collected once and evaluated as a DataFrame;
        above it, bucket by bucket of whole groups that the budget holds) and ``rows_per_bucket``
        and ``buckets`` too (buckets, whatever the budget); a pandas
        or polars frame takes ``threads`` (default: 2 from 200,000 rows, 1 below, on one core,
        on a worker thread or inside a Spark task; the numbers never depend on it); an Ibis table
        that no Ibis connection holds takes ``execute`` (a callable that runs one SQL string and
        returns a pandas frame) with ``dialect`` (the dialect ``ibis.to_sql`` compiles for). An option
        the frame's engine does not take raises (see
        the "Other frames" pages of the documentation).

    Returns
    -------
    hit_rate : MetricResult

    Notes
    -----
    When a tied block of t rows with p relevant straddles the cutoff and r of its
    rows fall within k, the chance that none of its relevant rows is among them
    is C(t-p, r) / C(t, r) (exact, no sampling).

    Examples
    --------
    >>> import pandas as pd
    >>> import pandas_rankeval as pre
    >>> df = pd.DataFrame(
    ...     {"q": 1, "rel": [1, 0, 1, 0, 1], "score": [5, 4, 3, 2, 1]}
    ... )
    >>> pre.hit_rate(df, group="q", label="rel", score="score", k=1)
    1.0
    """


def rbp(
    df: Any,
    *,
    group: GroupLike,
    label: Hashable,
    score: Hashable,
    p: float = 0.8,
    weight: WeightLike = None,
    ties: Literal["expected", "pessimistic", "optimistic"] = "expected",
    tiebreak: Hashable | None = None,
    threshold: float | None = None,
    empty: Literal["zero", "skip", "error"] = "zero",
    nan_policy: Literal["raise", "omit"] = "raise",
    retrieved: Hashable | Mapping[Hashable, Hashable] | None = None,
    engine_options: EngineOptions = None,
) -> MetricResult:
    """Rank-biased precision (Moffat & Zobel 2008) with persistence p: the expected rate of
    relevant rows seen by a user who reads on from each row with probability p.

    Parameters
    ----------
    df : DataFrame
        One row per shown item: a pandas DataFrame, a polars DataFrame or LazyFrame, a Dask
        DataFrame, a Spark DataFrame (classic or Connect), a DuckDB relation or an Ibis table (a
        warehouse table: the warehouse computes one row per group). Each is evaluated by its own
        engine, imported only when its frame arrives, with the same result (to 1e-12).
    group : column or list of columns
        The user, query or session.
    label : column
        Relevance; a row is relevant when its label is > 0 (or >= ``threshold``).
    score : column
        The model's score; rank 1 is the highest score in the group.
    p : float in (0, 1), default=0.8
        Persistence: the chance of reading on to the next row; the metric name is ``"rbp@0.8"``.
    weight : {"uniform", "count", "clicks", "log1p"}, column, Series or callable, optional
        How groups are averaged (as in :func:`gauc`); None (the default) is "uniform".
    ties : {"expected", "pessimistic", "optimistic"}, default="expected"
        "expected" is the exact mean over every ordering of tied rows;
        "pessimistic" / "optimistic" put relevant rows last / first inside a tie.
    tiebreak : column, optional
        Orders rows with equal scores (ascending) before the ``ties`` rule.
    threshold : float, optional
        Relevant when ``label >= threshold`` instead of ``label > 0``.
    empty : {"zero", "skip", "error"}, default="zero"
        Groups with no relevant row score 0, are left out, or raise. Their
        count is in ``.coverage.n_empty`` either way. One rule for every list
        metric, NDCG included: a group is empty when no row is relevant by the
        rule above (with ``threshold <= 0`` label-0 rows are relevant, so such a
        group is not empty; its NDCG is 1 when no row gains anything).
    retrieved : column or dict, optional
        Booleans: rows where it is False (say, relevant documents a run did not
        retrieve) are never ranked and never count in precision, MRR or hit rate, but
        count in the group's relevant rows (recall, AP, R-precision's R) and in NDCG's
        ideal DCG. A dict gives each score column its own column (runs that retrieved
        different rows).
    nan_policy : {"raise", "omit"}, default="raise"
        Missing values raise, or their rows are dropped and counted.
    engine_options : dict, optional
        Options of the frame's engine, checked against it before any work: a Dask frame takes
        ``npartitions`` (partitions of the shuffle by group, or by segment, and of the score ranges of
        global AUC; default: the frame's); a Spark frame takes ``rows_per_bucket`` (target rows of one bucket of
        whole groups, default 1,000,000) and ``buckets`` (their number instead); a polars LazyFrame
        takes ``memory_budget`` (bytes, default 2 GiB: a LazyFrame whose evaluation is estimated
        within it, from its row count and schema, is collected once and evaluated as a DataFrame;
        above it, bucket by bucket of whole groups that the budget holds) and ``rows_per_bucket``
        and ``buckets`` too (buckets, whatever the budget); a pandas
        or polars frame takes ``threads`` (default: 2 from 200,000 rows, 1 below, on one core,
        on a worker thread or inside a Spark task; the numbers never depend on it); an Ibis table
        that no Ibis connection holds takes ``execute`` (a callable that runs one SQL string and
        returns a pandas frame) with ``dialect`` (the dialect ``ibis.to_sql`` compiles for). An option
        the frame's engine does not take raises (see
        the "Other frames" pages of the documentation).

    Returns
    -------
    rbp : MetricResult

    Notes
    -----
    RBP = (1 - p) sum_i rel_i p^(i - 1), rel_i = 1 for a relevant row (label > 0, or >=
    ``threshold``). RBP is linear in each position's relevance, so under ties the expectation
    over the orderings of a tied block of t rows with r relevant and m rows above it is
    (r / t) p^m (1 - p^t): exact, in closed form. No cutoff: rows deep in a list weigh p^(i - 1).

    Examples
    --------
    >>> import pandas as pd
    >>> import pandas_rankeval as pre
    >>> df = pd.DataFrame({"q": 1, "rel": [1, 0, 1], "score": [3, 2, 1]})
    >>> pre.rbp(df, group="q", label="rel", score="score", p=0.5)
    0.625
    """


def err(
    df: Any,
    *,
    group: GroupLike,
    label: Hashable,
    score: Hashable,
    k: int | None = None,
    weight: WeightLike = None,
    ties: Literal["expected", "pessimistic", "optimistic"] = "expected",
    tiebreak: Hashable | None = None,
    threshold: float | None = None,
    empty: Literal["zero", "skip", "error"] = "zero",
    nan_policy: Literal["raise", "omit"] = "raise",
    retrieved: Hashable | Mapping[Hashable, Hashable] | None = None,
    engine_options: EngineOptions = None,
) -> MetricResult:
    """Expected reciprocal rank (Chapelle et al. 2009): the expected inverse rank at which a
    reader, who stops at each row with a chance R that grows with its grade, stops (ERR, ERR@k).

    Parameters
    ----------
    df : DataFrame
        One row per shown item: a pandas DataFrame, a polars DataFrame or LazyFrame, a Dask
        DataFrame, a Spark DataFrame (classic or Connect), a DuckDB relation or an Ibis table (a
        warehouse table: the warehouse computes one row per group). Each is evaluated by its own
        engine, imported only when its frame arrives, with the same result (to 1e-12).
    group : column or list of columns
        The user, query or session.
    label : column
        Relevance; a row is relevant when its label is > 0 (or >= ``threshold``).
    score : column
        The model's score; rank 1 is the highest score in the group.
    k : int or None, default=None
        Only the first k rows count (``"err@10"``); None is the whole list (``"err"``).
    weight : {"uniform", "count", "clicks", "log1p"}, column, Series or callable, optional
        How groups are averaged (as in :func:`gauc`); None (the default) is "uniform".
    ties : {"expected", "pessimistic", "optimistic"}, default="expected"
        "expected" is the exact mean over every ordering of tied rows;
        "pessimistic" / "optimistic" put relevant rows last / first inside a tie.
    tiebreak : column, optional
        Orders rows with equal scores (ascending) before the ``ties`` rule.
    threshold : float, optional
        Relevant when ``label >= threshold`` instead of ``label > 0``.
    empty : {"zero", "skip", "error"}, default="zero"
        Groups with no relevant row score 0, are left out, or raise. Their
        count is in ``.coverage.n_empty`` either way. One rule for every list
        metric, NDCG included: a group is empty when no row is relevant by the
        rule above (with ``threshold <= 0`` label-0 rows are relevant, so such a
        group is not empty; its NDCG is 1 when no row gains anything).
    retrieved : column or dict, optional
        Booleans: rows where it is False (say, relevant documents a run did not
        retrieve) are never ranked and never count in precision, MRR or hit rate, but
        count in the group's relevant rows (recall, AP, R-precision's R) and in NDCG's
        ideal DCG. A dict gives each score column its own column (runs that retrieved
        different rows).
    nan_policy : {"raise", "omit"}, default="raise"
        Missing values raise, or their rows are dropped and counted.
    engine_options : dict, optional
        Options of the frame's engine, checked against it before any work: a Dask frame takes
        ``npartitions`` (partitions of the shuffle by group, or by segment, and of the score ranges of
        global AUC; default: the frame's); a Spark frame takes ``rows_per_bucket`` (target rows of one bucket of
        whole groups, default 1,000,000) and ``buckets`` (their number instead); a polars LazyFrame
        takes ``memory_budget`` (bytes, default 2 GiB: a LazyFrame whose evaluation is estimated
        within it, from its row count and schema, is collected once and evaluated as a DataFrame;
        above it, bucket by bucket of whole groups that the budget holds) and ``rows_per_bucket``
        and ``buckets`` too (buckets, whatever the budget); a pandas
        or polars frame takes ``threads`` (default: 2 from 200,000 rows, 1 below, on one core,
        on a worker thread or inside a Spark task; the numbers never depend on it); an Ibis table
        that no Ibis connection holds takes ``execute`` (a callable that runs one SQL string and
        returns a pandas frame) with ``dialect`` (the dialect ``ibis.to_sql`` compiles for). An option
        the frame's engine does not take raises (see
        the "Other frames" pages of the documentation).

    Returns
    -------
    err : MetricResult

    Notes
    -----
    ERR@k = sum_{r <= k} (R_r / r) prod_{i < r} (1 - R_i), R = (2^label - 1) / 2^4: labels are
    grades 0 to 4 (Chapelle et al.'s scale, fixed as gdeval's, ir_measures' ``ERR@k`` and
    RankLib's are), so a click (label 1) stops the reader with chance 1/16 and a label above 4 is
    an error; rows below ``threshold`` have R = 0. The scale does not depend on the table, so every
    engine and partition gives the same number.

    Under ties the value is the exact mean over every order of each tied block (no sampling): the
    rows above a block are passed over with chance prod (1 - R), whatever their order, and a
    block's own part is sum_{i <= d} (a_{i-1} - a_i) / (m + i) with m rows above it, d of its
    places within k and a_s the mean of prod (1 - R) over its s-row subsets, built from the rows
    per grade in the block in hypergeometric weights (in log space). A tied block costs
    O(d * min(d, t)) per grade present (t its rows): cheap with a cutoff; without one, a group of
    n rows that all tie costs O(n^2).

    Examples
    --------
    >>> import pandas as pd
    >>> import pandas_rankeval as pre
    >>> df = pd.DataFrame({"q": 1, "grade": [4, 0, 2], "score": [3, 2, 1]})
    >>> # 15/16 + (1/16)(3/16)/3
    >>> round(pre.err(df, group="q", label="grade", score="score"), 6)
    0.941406
    """


def uauc(
    df: Any,
    *,
    group: GroupLike,
    label: Hashable,
    score: Hashable,
    weight: WeightLike = None,
    min_size: int | None = None,
    min_pos: int | None = None,
    min_neg: int | None = None,
    sample_weight: Hashable | None = None,
    ties: Literal["expected", "pessimistic", "optimistic"] = "expected",
    tiebreak: Hashable | None = None,
    threshold: float | None = None,
    nan_policy: Literal["raise", "omit"] = "raise",
    engine_options: EngineOptions = None,
) -> MetricResult:
    """UAUC (TorchRec's name): the unweighted mean of the per-user AUC, ``gauc(weight="uniform")``.

    Parameters
    ----------
    df : DataFrame
        One row per shown item: a pandas DataFrame, a polars DataFrame or LazyFrame, a Dask
        DataFrame, a Spark DataFrame (classic or Connect), a DuckDB relation or an Ibis table (a
        warehouse table: the warehouse computes one row per group). Each is evaluated by its own
        engine, imported only when its frame arrives, with the same result (to 1e-12).
    group : column or list of columns
        The user, query or session.
    label, score : column
        Relevance (> 0 or >= ``threshold`` is relevant) and the model's score.
    weight : {"count", "clicks", "log1p", "uniform"}, column, Series or callable, optional
        Group weights, as :func:`gauc`; None (the default) is the metric's own (see Notes).
    min_size, min_pos, min_neg : int, optional
        Leave out groups with fewer rows / relevant rows / non-relevant rows.
    sample_weight : column, optional
        Per-row weights inside each group's AUC (pairs weigh ``w_i * w_j``).
    ties : {"expected", "pessimistic", "optimistic"}, default="expected"
        A tied pair counts 1/2, 0 or 1.
    tiebreak : column, optional
        Orders rows with equal scores (ascending) first.
    threshold : float, optional
        Relevant when ``label >= threshold``.
    nan_policy : {"raise", "omit"}, default="raise"
        Missing values raise, or their rows are dropped and counted.
    engine_options : dict, optional
        Options of the frame's engine, checked against it before any work: a Dask frame takes
        ``npartitions`` (partitions of the shuffle by group, or by segment, and of the score ranges of
        global AUC; default: the frame's); a Spark frame takes ``rows_per_bucket`` (target rows of one bucket of
        whole groups, default 1,000,000) and ``buckets`` (their number instead); a polars LazyFrame
        takes ``memory_budget`` (bytes, default 2 GiB: a LazyFrame whose evaluation is estimated
        within it, from its row count and schema, is collected once and evaluated as a DataFrame;
        above it, bucket by bucket of whole groups that the budget holds) and ``rows_per_bucket``
        and ``buckets`` too (buckets, whatever the budget); a pandas
        or polars frame takes ``threads`` (default: 2 from 200,000 rows, 1 below, on one core,
        on a worker thread or inside a Spark task; the numbers never depend on it); an Ibis table
        that no Ibis connection holds takes ``execute`` (a callable that runs one SQL string and
        returns a pandas frame) with ``dialect`` (the dialect ``ibis.to_sql`` compiles for). An option
        the frame's engine does not take raises (see
        the "Other frames" pages of the documentation).

    Returns
    -------
    uauc : MetricResult

    Notes
    -----
    uauc = (1 / |G*|) sum_{g in G*} AUC_g and wuauc = sum_{g in G*} n_g AUC_g / sum_{g in G*} n_g
    over the eligible users G* (a click and a non-click; with ``sample_weight``, both classes of
    positive weight), as TorchRec's ``uauc.py`` defines its ``uauc`` and ``wuauc``. They are
    :func:`gauc` with ``weight="uniform"`` and ``weight="count"``: the same eligibility, coverage,
    intervals and tests. TorchRec weighs a user by its summed sample weight (w_pos + w_neg): with
    ``sample_weight``, pass ``weight=<that column>`` for its wuauc. TorchRec also leaves out a user
    whose nonzero predictions are all equal and orders tied scores by its sort; here a tied pair
    counts 1/2 (the tie rule of :func:`gauc`), so the two agree on tie-free scores.

    Examples
    --------
    >>> import pandas as pd
    >>> import pandas_rankeval as pre
    >>> df = pd.DataFrame({"user": [1, 1, 1, 2, 2], "click": [1, 0, 0, 1, 0],
    ...                    "score": [0.9, 0.95, 0.1, 0.3, 0.2]})
    >>> # users at AUC 0.5 and 1
    >>> pre.uauc(df, group="user", label="click", score="score")
    0.75
    """


def wuauc(
    df: Any,
    *,
    group: GroupLike,
    label: Hashable,
    score: Hashable,
    weight: WeightLike = None,
    min_size: int | None = None,
    min_pos: int | None = None,
    min_neg: int | None = None,
    sample_weight: Hashable | None = None,
    ties: Literal["expected", "pessimistic", "optimistic"] = "expected",
    tiebreak: Hashable | None = None,
    threshold: float | None = None,
    nan_policy: Literal["raise", "omit"] = "raise",
    engine_options: EngineOptions = None,
) -> MetricResult:
    """WUAUC (TorchRec's name): the per-user AUC weighted by the user's rows, ``gauc(weight="count")``.

    Parameters
    ----------
    df : DataFrame
        One row per shown item: a pandas DataFrame, a polars DataFrame or LazyFrame, a Dask
        DataFrame, a Spark DataFrame (classic or Connect), a DuckDB relation or an Ibis table (a
        warehouse table: the warehouse computes one row per group). Each is evaluated by its own
        engine, imported only when its frame arrives, with the same result (to 1e-12).
    group : column or list of columns
        The user, query or session.
    label, score : column
        Relevance (> 0 or >= ``threshold`` is relevant) and the model's score.
    weight : {"count", "clicks", "log1p", "uniform"}, column, Series or callable, optional
        Group weights, as :func:`gauc`; None (the default) is the metric's own (see Notes).
    min_size, min_pos, min_neg : int, optional
        Leave out groups with fewer rows / relevant rows / non-relevant rows.
    sample_weight : column, optional
        Per-row weights inside each group's AUC (pairs weigh ``w_i * w_j``).
    ties : {"expected", "pessimistic", "optimistic"}, default="expected"
        A tied pair counts 1/2, 0 or 1.
    tiebreak : column, optional
        Orders rows with equal scores (ascending) first.
    threshold : float, optional
        Relevant when ``label >= threshold``.
    nan_policy : {"raise", "omit"}, default="raise"
        Missing values raise, or their rows are dropped and counted.
    engine_options : dict, optional
        Options of the frame's engine, checked against it before any work: a Dask frame takes
        ``npartitions`` (partitions of the shuffle by group, or by segment, and of the score ranges of
        global AUC; default: the frame's); a Spark frame takes ``rows_per_bucket`` (target rows of one bucket of
        whole groups, default 1,000,000) and ``buckets`` (their number instead); a polars LazyFrame
        takes ``memory_budget`` (bytes, default 2 GiB: a LazyFrame whose evaluation is estimated
        within it, from its row count and schema, is collected once and evaluated as a DataFrame;
        above it, bucket by bucket of whole groups that the budget holds) and ``rows_per_bucket``
        and ``buckets`` too (buckets, whatever the budget); a pandas
        or polars frame takes ``threads`` (default: 2 from 200,000 rows, 1 below, on one core,
        on a worker thread or inside a Spark task; the numbers never depend on it); an Ibis table
        that no Ibis connection holds takes ``execute`` (a callable that runs one SQL string and
        returns a pandas frame) with ``dialect`` (the dialect ``ibis.to_sql`` compiles for). An option
        the frame's engine does not take raises (see
        the "Other frames" pages of the documentation).

    Returns
    -------
    wuauc : MetricResult

    Notes
    -----
    uauc = (1 / |G*|) sum_{g in G*} AUC_g and wuauc = sum_{g in G*} n_g AUC_g / sum_{g in G*} n_g
    over the eligible users G* (a click and a non-click; with ``sample_weight``, both classes of
    positive weight), as TorchRec's ``uauc.py`` defines its ``uauc`` and ``wuauc``. They are
    :func:`gauc` with ``weight="uniform"`` and ``weight="count"``: the same eligibility, coverage,
    intervals and tests. TorchRec weighs a user by its summed sample weight (w_pos + w_neg): with
    ``sample_weight``, pass ``weight=<that column>`` for its wuauc. TorchRec also leaves out a user
    whose nonzero predictions are all equal and orders tied scores by its sort; here a tied pair
    counts 1/2 (the tie rule of :func:`gauc`), so the two agree on tie-free scores.

    Examples
    --------
    >>> import pandas as pd
    >>> import pandas_rankeval as pre
    >>> df = pd.DataFrame({"user": [1, 1, 1, 2, 2], "click": [1, 0, 0, 1, 0],
    ...                    "score": [0.9, 0.95, 0.1, 0.3, 0.2]})
    >>> # (3 * 0.5 + 2 * 1) / 5
    >>> pre.wuauc(df, group="user", label="click", score="score")
    0.7
    """


def dcg(
    df: Any,
    *,
    group: GroupLike,
    label: Hashable,
    score: Hashable,
    k: int | None = None,
    gain: Literal["exp2", "linear"] = "exp2",
    weight: WeightLike = None,
    ties: Literal["expected", "pessimistic", "optimistic"] = "expected",
    tiebreak: Hashable | None = None,
    threshold: float | None = None,
    empty: Literal["zero", "skip", "error"] = "zero",
    nan_policy: Literal["raise", "omit"] = "raise",
    engine_options: EngineOptions = None,
) -> MetricResult:
    """Discounted cumulative gain: NDCG's numerator, not normalized (DCG, DCG@k).

    Parameters
    ----------
    df : DataFrame
        One row per shown item: a pandas DataFrame, a polars DataFrame or LazyFrame, a Dask
        DataFrame, a Spark DataFrame (classic or Connect), a DuckDB relation or an Ibis table (a
        warehouse table: the warehouse computes one row per group). Each is evaluated by its own
        engine, imported only when its frame arrives, with the same result (to 1e-12).
    group : column or list of columns
        The user, query or session.
    label : column
        Relevance; a row is relevant when its label is > 0 (or >= ``threshold``).
    score : column
        The model's score; rank 1 is the highest score in the group.
    k : int or None, default=None
        Only the first k rows count (``"dcg@10"``); None is the whole list (``"dcg"``).
    gain : {"exp2", "linear"}, default="exp2"
        The gain of a label: ``2^label - 1`` or the label itself, as :func:`ndcg`.
    weight : {"uniform", "count", "clicks", "log1p"}, column, Series or callable, optional
        How groups are averaged (as in :func:`gauc`); None (the default) is "uniform".
    ties : {"expected", "pessimistic", "optimistic"}, default="expected"
        "expected" is the exact mean over every ordering of tied rows;
        "pessimistic" / "optimistic" put relevant rows last / first inside a tie.
    tiebreak : column, optional
        Orders rows with equal scores (ascending) before the ``ties`` rule.
    threshold : float, optional
        Relevant when ``label >= threshold`` instead of ``label > 0``.
    empty : {"zero", "skip", "error"}, default="zero"
        Groups with no relevant row score 0, are left out, or raise. Their
        count is in ``.coverage.n_empty`` either way. One rule for every list
        metric, NDCG included: a group is empty when no row is relevant by the
        rule above (with ``threshold <= 0`` label-0 rows are relevant, so such a
        group is not empty; its NDCG is 1 when no row gains anything).
    nan_policy : {"raise", "omit"}, default="raise"
        Missing values raise, or their rows are dropped and counted.
    engine_options : dict, optional
        Options of the frame's engine, checked against it before any work: a Dask frame takes
        ``npartitions`` (partitions of the shuffle by group, or by segment, and of the score ranges of
        global AUC; default: the frame's); a Spark frame takes ``rows_per_bucket`` (target rows of one bucket of
        whole groups, default 1,000,000) and ``buckets`` (their number instead); a polars LazyFrame
        takes ``memory_budget`` (bytes, default 2 GiB: a LazyFrame whose evaluation is estimated
        within it, from its row count and schema, is collected once and evaluated as a DataFrame;
        above it, bucket by bucket of whole groups that the budget holds) and ``rows_per_bucket``
        and ``buckets`` too (buckets, whatever the budget); a pandas
        or polars frame takes ``threads`` (default: 2 from 200,000 rows, 1 below, on one core,
        on a worker thread or inside a Spark task; the numbers never depend on it); an Ibis table
        that no Ibis connection holds takes ``execute`` (a callable that runs one SQL string and
        returns a pandas frame) with ``dialect`` (the dialect ``ibis.to_sql`` compiles for). An option
        the frame's engine does not take raises (see
        the "Other frames" pages of the documentation).

    Returns
    -------
    dcg : MetricResult

    Notes
    -----
    DCG@k = sum_{i <= k} gain(label_(i)) / log2(i + 1), the gains, discounts and tie rule of
    :func:`ndcg` (under ties the exact expectation: each row of a tied block gets the block's mean
    gain times the block's summed discounts), without dividing by the ideal DCG. Jeunen et al.
    (KDD 2024) show that normalizing can reverse the order of two models that unnormalized DCG,
    the quantity an online reward tracks, gets right; it is also what :func:`ips_dcg` estimates
    from a click log, so the two compare on the same rows. A group with no relevant row gains 0
    (``empty="zero"``) or is left out (``"skip"``).

    Examples
    --------
    >>> import pandas as pd
    >>> import pandas_rankeval as pre
    >>> df = pd.DataFrame({"q": 1, "rel": [3, 0, 1], "score": [3, 2, 1]})
    >>> # 7 / log2(2) + 1 / log2(4)
    >>> pre.dcg(df, group="q", label="rel", score="score")
    7.5
    """


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
    df : DataFrame
        One row per shown item: a pandas DataFrame, a polars DataFrame or LazyFrame, a Dask
        DataFrame, a Spark DataFrame (classic or Connect), a DuckDB relation or an Ibis table (a
        warehouse table: the warehouse computes one row per group). Each is evaluated by its own
        engine, imported only when its frame arrives, with the same result (to 1e-12).
    label : column
        A numeric label such as watch time (any real values; only their order matters).
    score : column
        The model's score, compared exactly as stored (integers as integers).
    sample_weight : column, optional
        Per-row weights (finite, >= 0): a pair weighs ``w_i * w_j``.
    nan_policy : {"raise", "omit"}, default="raise"
        Missing values raise, or their rows are dropped and counted.
    engine_options : dict, optional
        Options of the frame's engine, checked against it before any work: a Dask frame takes
        ``npartitions`` (partitions of the shuffle by group, or by segment, and of the score ranges of
        global AUC; default: the frame's); a Spark frame takes ``rows_per_bucket`` (target rows of one bucket of
        whole groups, default 1,000,000) and ``buckets`` (their number instead); a polars LazyFrame
        takes ``memory_budget`` (bytes, default 2 GiB: a LazyFrame whose evaluation is estimated
        within it, from its row count and schema, is collected once and evaluated as a DataFrame;
        above it, bucket by bucket of whole groups that the budget holds) and ``rows_per_bucket``
        and ``buckets`` too (buckets, whatever the budget); a pandas
        or polars frame takes ``threads`` (default: 2 from 200,000 rows, 1 below, on one core,
        on a worker thread or inside a Spark task; the numbers never depend on it); an Ibis table
        that no Ibis connection holds takes ``execute`` (a callable that runs one SQL string and
        returns a pandas frame) with ``dialect`` (the dialect ``ibis.to_sql`` compiles for). An option
        the frame's engine does not take raises (see
        the "Other frames" pages of the documentation).

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

    ``"xauc"`` is a metric of :func:`report` and :func:`compare` too: ``report(ci=...)`` gives its
    clustered DeLong interval over the ``group`` column's groups (each row its own cluster without
    a group), and ``compare`` the paired clustered DeLong test of two models on the same rows,
    with Holm's adjustment and the lift (RelaImpr under ``lift="relaimpr"``) as for global
    ``auc`` (:func:`xauc_interval` is the same interval as a table of its own). Those need every
    row in one place: a pandas or polars DataFrame (a frame read in partitions is refused by name).

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


def gxauc(
    df: Any,
    *,
    group: GroupLike,
    label: Hashable,
    score: Hashable,
    weight: WeightLike = None,
    min_size: int | None = None,
    sample_weight: Hashable | None = None,
    nan_policy: Literal["raise", "omit"] = "raise",
    engine_options: EngineOptions = None,
) -> MetricResult:
    """Grouped XAUC: per group, the share of its pairs of rows with different labels ordered by
    score as by label (tied scores 1/2), averaged over groups with GAUC's weights.

    Parameters
    ----------
    df : DataFrame
        One row per shown item: a pandas DataFrame, a polars DataFrame or LazyFrame, a Dask
        DataFrame, a Spark DataFrame (classic or Connect), a DuckDB relation or an Ibis table (a
        warehouse table: the warehouse computes one row per group). Each is evaluated by its own
        engine, imported only when its frame arrives, with the same result (to 1e-12).
    group : column or list of columns
        The user, query or session.
    label : column
        A numeric label such as watch time; only its order matters (any real values).
    score : column
        The model's score.
    weight : {"count", "clicks", "log1p", "uniform"}, column, Series or callable, optional
        Group weights, as :func:`gauc`; None (the default) is ``"count"`` (rows).
    min_size : int, optional
        Leave out groups with fewer rows.
    sample_weight : column, optional
        Per-row weights: a pair weighs ``w_i * w_j``.
    nan_policy : {"raise", "omit"}, default="raise"
        Missing values raise, or their rows are dropped and counted.
    engine_options : dict, optional
        Options of the frame's engine, checked against it before any work: a Dask frame takes
        ``npartitions`` (partitions of the shuffle by group, or by segment, and of the score ranges of
        global AUC; default: the frame's); a Spark frame takes ``rows_per_bucket`` (target rows of one bucket of
        whole groups, default 1,000,000) and ``buckets`` (their number instead); a polars LazyFrame
        takes ``memory_budget`` (bytes, default 2 GiB: a LazyFrame whose evaluation is estimated
        within it, from its row count and schema, is collected once and evaluated as a DataFrame;
        above it, bucket by bucket of whole groups that the budget holds) and ``rows_per_bucket``
        and ``buckets`` too (buckets, whatever the budget); a pandas
        or polars frame takes ``threads`` (default: 2 from 200,000 rows, 1 below, on one core,
        on a worker thread or inside a Spark task; the numbers never depend on it); an Ibis table
        that no Ibis connection holds takes ``execute`` (a callable that runs one SQL string and
        returns a pandas frame) with ``dialect`` (the dialect ``ibis.to_sql`` compiles for). An option
        the frame's engine does not take raises (see
        the "Other frames" pages of the documentation).

    Returns
    -------
    gxauc : MetricResult
        A float with ``.coverage``: groups whose labels are all equal have no pair and are
        skipped (counted with the one-class groups).

    Notes
    -----
    XAUC_g = (C_g + T_g / 2) / P_g over the pairs of rows of group g whose labels differ (P_g of
    them, weight w_i * w_j each): C_g those whose larger label has the larger score, T_g those
    whose scores tie (Zhan et al., Kuaishou, arXiv 2206.06003). Pairs of equal labels are not
    pairs. Counted exactly in O(n log n) (a weighted inversion count), never sampled:
    TorchEasyRec's ``XAUC`` samples pairs and counts tied scores (and tied labels) as wrong. With
    0/1 labels it is :func:`gauc`. The mean over groups uses GAUC's weights; groups with one label
    value are skipped, as one-class groups are by GAUC.

    Examples
    --------
    >>> import pandas as pd
    >>> import pandas_rankeval as pre
    >>> df = pd.DataFrame(
    ...     {
    ...         "user": [1, 1, 1, 2, 2],
    ...         "watch": [3.0, 40.0, 12.0, 5.0, 5.0],
    ...         "score": [0.1, 0.9, 0.5, 0.3, 0.2],
    ...     }
    ... )
    >>> # user 2: one label, skipped
    >>> pre.gxauc(df, group="user", label="watch", score="score")
    1.0
    """


def ips_dcg(
    df: Any,
    *,
    group: GroupLike,
    label: Hashable,
    score: Hashable,
    k: int | None = None,
    position: Hashable | None = None,
    propensity: PropensityLike = None,
    clip: float = 0.01,
    snips: bool = False,
    weight: WeightLike = None,
    ties: Literal["expected", "pessimistic", "optimistic"] = "expected",
    tiebreak: Hashable | None = None,
    threshold: float | None = None,
    empty: Literal["zero", "skip", "error"] = "zero",
    nan_policy: Literal["raise", "omit"] = "raise",
    engine_options: EngineOptions = None,
) -> MetricResult:
    """Inverse-propensity DCG@k of a new score column on a click log (unnormalized).

    Parameters
    ----------
    df : DataFrame
        One row per shown item: a pandas DataFrame, a polars DataFrame or LazyFrame, a Dask
        DataFrame, a Spark DataFrame (classic or Connect), a DuckDB relation or an Ibis table (a
        warehouse table: the warehouse computes one row per group). Each is evaluated by its own
        engine, imported only when its frame arrives, with the same result (to 1e-12).
    group : column or list of columns
        The user, query or session.
    label : column
        Relevance; a row is relevant when its label is > 0 (or >= ``threshold``).
    score : column
        The model's score; rank 1 is the highest score in the group.
    k : int or None, default=None
        The cutoff; None: the whole list.
    position : column
        Each row's display position in the logged ranking (numbers > 0, 1 at the top), by which
        ``propensity`` is looked up. Not needed when ``propensity`` is a column.
    propensity : PropensityTable, Series, column or callable
        The examination propensity of each logged position: the table :func:`propensities`
        returns (its ``propensity`` column), a Series indexed by position, a column of per-row
        propensities, or a callable that takes the array of distinct positions and returns their
        propensities (called once, on the caller's side, whatever the engine). A position the
        table does not give, and a missing, zero or negative position or propensity, raise an
        error that names the column and the count.
    clip : float in [0, 1], default=0.01
        A click weighs 1 / max(propensity, clip): no click weighs more than 1 / clip (100 by
        default); 0 turns clipping off. Clipping trades a downward bias at the positions whose
        propensity is below ``clip`` for a bounded variance.
    snips : bool, default=False
        Self-normalized IPS: divide by the summed IPS weight of the clicks instead of the number
        of groups: a mean per relevant row, not per group (see Notes).
    weight : {"uniform", "count", "clicks", "log1p"}, column, Series or callable, optional
        How groups are averaged (as in :func:`gauc`); None (the default) is "uniform".
    ties : {"expected", "pessimistic", "optimistic"}, default="expected"
        "expected" is the exact mean over every ordering of tied rows;
        "pessimistic" / "optimistic" put relevant rows last / first inside a tie.
    tiebreak : column, optional
        Orders rows with equal scores (ascending) before the ``ties`` rule.
    threshold : float, optional
        Relevant when ``label >= threshold`` instead of ``label > 0``.
    empty : {"zero", "skip", "error"}, default="zero"
        Groups with no relevant row score 0, are left out, or raise. Their
        count is in ``.coverage.n_empty`` either way. One rule for every list
        metric, NDCG included: a group is empty when no row is relevant by the
        rule above (with ``threshold <= 0`` label-0 rows are relevant, so such a
        group is not empty; its NDCG is 1 when no row gains anything).
    nan_policy : {"raise", "omit"}, default="raise"
        Missing values raise, or their rows are dropped and counted.
    engine_options : dict, optional
        Options of the frame's engine, checked against it before any work: a Dask frame takes
        ``npartitions`` (partitions of the shuffle by group, or by segment, and of the score ranges of
        global AUC; default: the frame's); a Spark frame takes ``rows_per_bucket`` (target rows of one bucket of
        whole groups, default 1,000,000) and ``buckets`` (their number instead); a polars LazyFrame
        takes ``memory_budget`` (bytes, default 2 GiB: a LazyFrame whose evaluation is estimated
        within it, from its row count and schema, is collected once and evaluated as a DataFrame;
        above it, bucket by bucket of whole groups that the budget holds) and ``rows_per_bucket``
        and ``buckets`` too (buckets, whatever the budget); a pandas
        or polars frame takes ``threads`` (default: 2 from 200,000 rows, 1 below, on one core,
        on a worker thread or inside a Spark task; the numbers never depend on it); an Ibis table
        that no Ibis connection holds takes ``execute`` (a callable that runs one SQL string and
        returns a pandas frame) with ``dialect`` (the dialect ``ibis.to_sql`` compiles for). An option
        the frame's engine does not take raises (see
        the "Other frames" pages of the documentation).

    Returns
    -------
    ips_dcg : MetricResult

    Notes
    -----
    IPS-DCG@k = sum over clicked rows i with new rank r_i <= k of
    1 / (log2(r_i + 1) max(propensity(position_i), clip)), averaged over groups. Unnormalized:
    dividing by an ideal DCG of the logged clicks can invert the order of two rankers (Jeunen et
    al., KDD 2024).

    Under the position-based model a click needs an examination, whose probability depends on
    the logged position only (the propensity, relative to position 1), and relevance, which
    depends on the row only. Then E[click / propensity] is the row's relevance (times the
    examination of position 1), whatever position it was shown at, so the metric estimates
    without bias the value the new ranking would have on the true relevance (Joachims et al.,
    WSDM 2017), as long as the propensities are right and at least ``clip``.

    Ties: a tied block spreads its summed IPS gain evenly over the ranks it holds, the exact
    expectation over the orderings of the tie (as DCG). ``ties="optimistic"`` and
    ``"pessimistic"`` order a tie by the rows' IPS weights, the largest first or last (so the
    clicks first or last), not by their labels: the largest and the smallest value over the
    orderings of the tie. Groups with no click score 0 and count
    (``empty="zero"``, the default, which the estimate needs: ``empty="skip"`` conditions on a
    click, a bias the weights do not undo).

    ``snips=True`` divides each group's value by the summed IPS weight W_g of its clicks and
    multiplies its weight by W_g: the result is sum_g w_g v_g / sum_g w_g W_g, a ratio of sums
    over groups (additive over partitions and bootstrap replicates), the IPS-weighted mean over
    clicks of the gain the new ranking gives a clicked row. Its estimand is another one: the
    mean gain per relevant row, sum_i rel_i gain_i / sum_i rel_i, not per group. The denominator
    is the same for every score column of one log, so the ratio of two models' SNIPS values
    estimates the ratio of their IPS estimands, and both rank models alike. It does not depend on
    the scale of the propensities and has a far smaller variance, at the cost of a bias that
    vanishes with many groups. (Times the logged clicks per group it is not the IPS value: that
    factor is biased by how often relevant rows were examined.)

    Examples
    --------
    One session: the logged ranker showed three rows at positions 1, 2, 3 (propensities 1, 0.5,
    0.25) and the row at position 3 was clicked. The logged order (``old``) and a new score that
    puts the clicked row first:

    >>> import pandas as pd
    >>> import pandas_rankeval as pre
    >>> df = pd.DataFrame({"s": 1, "pos": [1, 2, 3], "click": [0, 0, 1],
    ...                    "old": [3, 2, 1], "new": [2, 1, 3]})
    >>> prop = pd.Series([1.0, 0.5, 0.25], index=[1, 2, 3])
    >>> pre.ips_dcg(
    ...     df,
    ...     group="s",
    ...     label="click",
    ...     score="new",
    ...     position="pos",
    ...     propensity=prop,
    ... )
    4.0
    >>> pre.ips_dcg(
    ...     df,
    ...     group="s",
    ...     label="click",
    ...     score="old",
    ...     position="pos",
    ...     propensity=prop,
    ... )
    2.0
    """


def ips_precision(
    df: Any,
    *,
    group: GroupLike,
    label: Hashable,
    score: Hashable,
    k: int = 10,
    position: Hashable | None = None,
    propensity: PropensityLike = None,
    clip: float = 0.01,
    snips: bool = False,
    weight: WeightLike = None,
    ties: Literal["expected", "pessimistic", "optimistic"] = "expected",
    tiebreak: Hashable | None = None,
    threshold: float | None = None,
    empty: Literal["zero", "skip", "error"] = "zero",
    nan_policy: Literal["raise", "omit"] = "raise",
    engine_options: EngineOptions = None,
) -> MetricResult:
    """Inverse-propensity precision@k: IPS-weighted clicks in the new top k, over k.

    Parameters
    ----------
    df : DataFrame
        One row per shown item: a pandas DataFrame, a polars DataFrame or LazyFrame, a Dask
        DataFrame, a Spark DataFrame (classic or Connect), a DuckDB relation or an Ibis table (a
        warehouse table: the warehouse computes one row per group). Each is evaluated by its own
        engine, imported only when its frame arrives, with the same result (to 1e-12).
    group : column or list of columns
        The user, query or session.
    label : column
        Relevance; a row is relevant when its label is > 0 (or >= ``threshold``).
    score : column
        The model's score; rank 1 is the highest score in the group.
    k : int, default=10
        The cutoff; a group shorter than k still divides by k.
    position : column
        Each row's display position in the logged ranking (numbers > 0, 1 at the top), by which
        ``propensity`` is looked up. Not needed when ``propensity`` is a column.
    propensity : PropensityTable, Series, column or callable
        The examination propensity of each logged position: the table :func:`propensities`
        returns (its ``propensity`` column), a Series indexed by position, a column of per-row
        propensities, or a callable that takes the array of distinct positions and returns their
        propensities (called once, on the caller's side, whatever the engine). A position the
        table does not give, and a missing, zero or negative position or propensity, raise an
        error that names the column and the count.
    clip : float in [0, 1], default=0.01
        A click weighs 1 / max(propensity, clip): no click weighs more than 1 / clip (100 by
        default); 0 turns clipping off. Clipping trades a downward bias at the positions whose
        propensity is below ``clip`` for a bounded variance.
    snips : bool, default=False
        Self-normalized IPS: divide by the summed IPS weight of the clicks instead of the number
        of groups: a mean per relevant row, not per group (see Notes).
    weight : {"uniform", "count", "clicks", "log1p"}, column, Series or callable, optional
        How groups are averaged (as in :func:`gauc`); None (the default) is "uniform".
    ties : {"expected", "pessimistic", "optimistic"}, default="expected"
        "expected" is the exact mean over every ordering of tied rows;
        "pessimistic" / "optimistic" put relevant rows last / first inside a tie.
    tiebreak : column, optional
        Orders rows with equal scores (ascending) before the ``ties`` rule.
    threshold : float, optional
        Relevant when ``label >= threshold`` instead of ``label > 0``.
    empty : {"zero", "skip", "error"}, default="zero"
        Groups with no relevant row score 0, are left out, or raise. Their
        count is in ``.coverage.n_empty`` either way. One rule for every list
        metric, NDCG included: a group is empty when no row is relevant by the
        rule above (with ``threshold <= 0`` label-0 rows are relevant, so such a
        group is not empty; its NDCG is 1 when no row gains anything).
    nan_policy : {"raise", "omit"}, default="raise"
        Missing values raise, or their rows are dropped and counted.
    engine_options : dict, optional
        Options of the frame's engine, checked against it before any work: a Dask frame takes
        ``npartitions`` (partitions of the shuffle by group, or by segment, and of the score ranges of
        global AUC; default: the frame's); a Spark frame takes ``rows_per_bucket`` (target rows of one bucket of
        whole groups, default 1,000,000) and ``buckets`` (their number instead); a polars LazyFrame
        takes ``memory_budget`` (bytes, default 2 GiB: a LazyFrame whose evaluation is estimated
        within it, from its row count and schema, is collected once and evaluated as a DataFrame;
        above it, bucket by bucket of whole groups that the budget holds) and ``rows_per_bucket``
        and ``buckets`` too (buckets, whatever the budget); a pandas
        or polars frame takes ``threads`` (default: 2 from 200,000 rows, 1 below, on one core,
        on a worker thread or inside a Spark task; the numbers never depend on it); an Ibis table
        that no Ibis connection holds takes ``execute`` (a callable that runs one SQL string and
        returns a pandas frame) with ``dialect`` (the dialect ``ibis.to_sql`` compiles for). An option
        the frame's engine does not take raises (see
        the "Other frames" pages of the documentation).

    Returns
    -------
    ips_precision : MetricResult

    Notes
    -----
    IPS-P@k = (1/k) sum over clicked rows in the new top k of 1 / max(propensity, clip); a tied
    block that k cuts after r of its t rows contributes r / t of its summed weight.

    Under the position-based model a click needs an examination, whose probability depends on
    the logged position only (the propensity, relative to position 1), and relevance, which
    depends on the row only. Then E[click / propensity] is the row's relevance (times the
    examination of position 1), whatever position it was shown at, so the metric estimates
    without bias the value the new ranking would have on the true relevance (Joachims et al.,
    WSDM 2017), as long as the propensities are right and at least ``clip``.

    Ties: a tied block spreads its summed IPS gain evenly over the ranks it holds, the exact
    expectation over the orderings of the tie (as DCG). ``ties="optimistic"`` and
    ``"pessimistic"`` order a tie by the rows' IPS weights, the largest first or last (so the
    clicks first or last), not by their labels: the largest and the smallest value over the
    orderings of the tie. Groups with no click score 0 and count
    (``empty="zero"``, the default, which the estimate needs: ``empty="skip"`` conditions on a
    click, a bias the weights do not undo).

    ``snips=True`` divides each group's value by the summed IPS weight W_g of its clicks and
    multiplies its weight by W_g: the result is sum_g w_g v_g / sum_g w_g W_g, a ratio of sums
    over groups (additive over partitions and bootstrap replicates), the IPS-weighted mean over
    clicks of the gain the new ranking gives a clicked row. Its estimand is another one: the
    mean gain per relevant row, sum_i rel_i gain_i / sum_i rel_i, not per group. The denominator
    is the same for every score column of one log, so the ratio of two models' SNIPS values
    estimates the ratio of their IPS estimands, and both rank models alike. It does not depend on
    the scale of the propensities and has a far smaller variance, at the cost of a bias that
    vanishes with many groups. (Times the logged clicks per group it is not the IPS value: that
    factor is biased by how often relevant rows were examined.)

    Examples
    --------
    One session: the logged ranker showed three rows at positions 1, 2, 3 (propensities 1, 0.5,
    0.25) and the row at position 3 was clicked. The logged order (``old``) and a new score that
    puts the clicked row first:

    >>> import pandas as pd
    >>> import pandas_rankeval as pre
    >>> df = pd.DataFrame({"s": 1, "pos": [1, 2, 3], "click": [0, 0, 1],
    ...                    "old": [3, 2, 1], "new": [2, 1, 3]})
    >>> prop = pd.Series([1.0, 0.5, 0.25], index=[1, 2, 3])
    >>> pre.ips_precision(
    ...     df,
    ...     group="s",
    ...     label="click",
    ...     score="new",
    ...     position="pos",
    ...     propensity=prop,
    ...     k=2,
    ... )
    2.0
    """


def ips_hit_rate(
    df: Any,
    *,
    group: GroupLike,
    label: Hashable,
    score: Hashable,
    k: int = 10,
    position: Hashable | None = None,
    propensity: PropensityLike = None,
    clip: float = 0.01,
    snips: bool = False,
    weight: WeightLike = None,
    ties: Literal["expected", "pessimistic", "optimistic"] = "expected",
    tiebreak: Hashable | None = None,
    threshold: float | None = None,
    empty: Literal["zero", "skip", "error"] = "zero",
    nan_policy: Literal["raise", "omit"] = "raise",
    engine_options: EngineOptions = None,
) -> MetricResult:
    """Inverse-propensity hit rate@k: the IPS estimate of the clicked rows in the new top k.

    Parameters
    ----------
    df : DataFrame
        One row per shown item: a pandas DataFrame, a polars DataFrame or LazyFrame, a Dask
        DataFrame, a Spark DataFrame (classic or Connect), a DuckDB relation or an Ibis table (a
        warehouse table: the warehouse computes one row per group). Each is evaluated by its own
        engine, imported only when its frame arrives, with the same result (to 1e-12).
    group : column or list of columns
        The user, query or session.
    label : column
        Relevance; a row is relevant when its label is > 0 (or >= ``threshold``).
    score : column
        The model's score; rank 1 is the highest score in the group.
    k : int, default=10
        The cutoff.
    position : column
        Each row's display position in the logged ranking (numbers > 0, 1 at the top), by which
        ``propensity`` is looked up. Not needed when ``propensity`` is a column.
    propensity : PropensityTable, Series, column or callable
        The examination propensity of each logged position: the table :func:`propensities`
        returns (its ``propensity`` column), a Series indexed by position, a column of per-row
        propensities, or a callable that takes the array of distinct positions and returns their
        propensities (called once, on the caller's side, whatever the engine). A position the
        table does not give, and a missing, zero or negative position or propensity, raise an
        error that names the column and the count.
    clip : float in [0, 1], default=0.01
        A click weighs 1 / max(propensity, clip): no click weighs more than 1 / clip (100 by
        default); 0 turns clipping off. Clipping trades a downward bias at the positions whose
        propensity is below ``clip`` for a bounded variance.
    snips : bool, default=False
        Self-normalized IPS: divide by the summed IPS weight of the clicks instead of the number
        of groups: a mean per relevant row, not per group (see Notes).
    weight : {"uniform", "count", "clicks", "log1p"}, column, Series or callable, optional
        How groups are averaged (as in :func:`gauc`); None (the default) is "uniform".
    ties : {"expected", "pessimistic", "optimistic"}, default="expected"
        "expected" is the exact mean over every ordering of tied rows;
        "pessimistic" / "optimistic" put relevant rows last / first inside a tie.
    tiebreak : column, optional
        Orders rows with equal scores (ascending) before the ``ties`` rule.
    threshold : float, optional
        Relevant when ``label >= threshold`` instead of ``label > 0``.
    empty : {"zero", "skip", "error"}, default="zero"
        Groups with no relevant row score 0, are left out, or raise. Their
        count is in ``.coverage.n_empty`` either way. One rule for every list
        metric, NDCG included: a group is empty when no row is relevant by the
        rule above (with ``threshold <= 0`` label-0 rows are relevant, so such a
        group is not empty; its NDCG is 1 when no row gains anything).
    nan_policy : {"raise", "omit"}, default="raise"
        Missing values raise, or their rows are dropped and counted.
    engine_options : dict, optional
        Options of the frame's engine, checked against it before any work: a Dask frame takes
        ``npartitions`` (partitions of the shuffle by group, or by segment, and of the score ranges of
        global AUC; default: the frame's); a Spark frame takes ``rows_per_bucket`` (target rows of one bucket of
        whole groups, default 1,000,000) and ``buckets`` (their number instead); a polars LazyFrame
        takes ``memory_budget`` (bytes, default 2 GiB: a LazyFrame whose evaluation is estimated
        within it, from its row count and schema, is collected once and evaluated as a DataFrame;
        above it, bucket by bucket of whole groups that the budget holds) and ``rows_per_bucket``
        and ``buckets`` too (buckets, whatever the budget); a pandas
        or polars frame takes ``threads`` (default: 2 from 200,000 rows, 1 below, on one core,
        on a worker thread or inside a Spark task; the numbers never depend on it); an Ibis table
        that no Ibis connection holds takes ``execute`` (a callable that runs one SQL string and
        returns a pandas frame) with ``dialect`` (the dialect ``ibis.to_sql`` compiles for). An option
        the frame's engine does not take raises (see
        the "Other frames" pages of the documentation).

    Returns
    -------
    ips_hit_rate : MetricResult

    Notes
    -----
    Per group, sum over clicked rows in the new top k of 1 / max(propensity, clip): the unbiased
    estimate of the relevant rows the new top k holds, which is the hit rate@k of a group with at
    most one relevant row (one click per session, the usual click log). With several relevant
    rows it counts each: the hit rate (whether any relevant row is in the top k) is not linear in
    the relevance of the rows, and no inverse-propensity estimate of it is both unbiased and
    bounded. With ``snips=True`` it is the IPS-weighted share of the clicks that the new top k
    holds. Ties as in :func:`ips_precision`; it is k times ``ips_precision@k``.

    Under the position-based model a click needs an examination, whose probability depends on
    the logged position only (the propensity, relative to position 1), and relevance, which
    depends on the row only. Then E[click / propensity] is the row's relevance (times the
    examination of position 1), whatever position it was shown at, so the metric estimates
    without bias the value the new ranking would have on the true relevance (Joachims et al.,
    WSDM 2017), as long as the propensities are right and at least ``clip``.

    Ties: a tied block spreads its summed IPS gain evenly over the ranks it holds, the exact
    expectation over the orderings of the tie (as DCG). ``ties="optimistic"`` and
    ``"pessimistic"`` order a tie by the rows' IPS weights, the largest first or last (so the
    clicks first or last), not by their labels: the largest and the smallest value over the
    orderings of the tie. Groups with no click score 0 and count
    (``empty="zero"``, the default, which the estimate needs: ``empty="skip"`` conditions on a
    click, a bias the weights do not undo).

    ``snips=True`` divides each group's value by the summed IPS weight W_g of its clicks and
    multiplies its weight by W_g: the result is sum_g w_g v_g / sum_g w_g W_g, a ratio of sums
    over groups (additive over partitions and bootstrap replicates), the IPS-weighted mean over
    clicks of the gain the new ranking gives a clicked row. Its estimand is another one: the
    mean gain per relevant row, sum_i rel_i gain_i / sum_i rel_i, not per group. The denominator
    is the same for every score column of one log, so the ratio of two models' SNIPS values
    estimates the ratio of their IPS estimands, and both rank models alike. It does not depend on
    the scale of the propensities and has a far smaller variance, at the cost of a bias that
    vanishes with many groups. (Times the logged clicks per group it is not the IPS value: that
    factor is biased by how often relevant rows were examined.)

    Examples
    --------
    One session: the logged ranker showed three rows at positions 1, 2, 3 (propensities 1, 0.5,
    0.25) and the row at position 3 was clicked. The logged order (``old``) and a new score that
    puts the clicked row first:

    >>> import pandas as pd
    >>> import pandas_rankeval as pre
    >>> df = pd.DataFrame({"s": 1, "pos": [1, 2, 3], "click": [0, 0, 1],
    ...                    "old": [3, 2, 1], "new": [2, 1, 3]})
    >>> prop = pd.Series([1.0, 0.5, 0.25], index=[1, 2, 3])
    >>> pre.ips_hit_rate(
    ...     df,
    ...     group="s",
    ...     label="click",
    ...     score="new",
    ...     position="pos",
    ...     propensity=prop,
    ...     k=1,
    ... )
    4.0
    >>> pre.ips_hit_rate(
    ...     df,
    ...     group="s",
    ...     label="click",
    ...     score="new",
    ...     position="pos",
    ...     propensity=prop,
    ...     k=1,
    ...     snips=True,
    ... )
    1.0
    """


def logloss(
    df: Any,
    *,
    group: GroupLike | None = None,
    label: Hashable,
    score: Hashable,
    sample_weight: Hashable | None = None,
    threshold: float | None = None,
    nan_policy: Literal["raise", "omit"] = "raise",
    engine_options: EngineOptions = None,
) -> MetricResult:
    """Log loss (cross-entropy) of predicted click probabilities, pooled over every row.

    Parameters
    ----------
    df : DataFrame
        One row per shown item: a pandas DataFrame, a polars DataFrame or LazyFrame, a Dask
        DataFrame, a Spark DataFrame (classic or Connect), a DuckDB relation or an Ibis table (a
        warehouse table: the warehouse computes one row per group). Each is evaluated by its own
        engine, imported only when its frame arrives, with the same result (to 1e-12).
    group : column or list of columns, optional
        The user, query or session: the unit of the group bootstrap and of ``per_group``. The
        value pools the rows of every group (a group adds its row sums; none is skipped), so it
        is the same with any group and without one. Without ``group`` (the default) every row is
        its own group: the unit of ``report``'s interval and ``compare``'s test is the row.
    label : column
        Clicks: 0/1 or bool. Other labels are an error unless ``threshold`` is given
        (a click is then ``label >= threshold``).
    score : column
        The predicted click probability, in [0, 1]; a value outside (or an infinite one) is an
        error that names the column, the count and the range seen.
    sample_weight : column, optional
        Per-row weights (finite, >= 0); every row weighs 1 by default.
    threshold : float, optional
        Reads a graded label as a click when ``label >= threshold``.
    nan_policy : {"raise", "omit"}, default="raise"
        Missing values raise, or their rows are dropped and counted.
    engine_options : dict, optional
        Options of the frame's engine, checked against it before any work: a Dask frame takes
        ``npartitions`` (partitions of the shuffle by group, or by segment, and of the score ranges of
        global AUC; default: the frame's); a Spark frame takes ``rows_per_bucket`` (target rows of one bucket of
        whole groups, default 1,000,000) and ``buckets`` (their number instead); a polars LazyFrame
        takes ``memory_budget`` (bytes, default 2 GiB: a LazyFrame whose evaluation is estimated
        within it, from its row count and schema, is collected once and evaluated as a DataFrame;
        above it, bucket by bucket of whole groups that the budget holds) and ``rows_per_bucket``
        and ``buckets`` too (buckets, whatever the budget); a pandas
        or polars frame takes ``threads`` (default: 2 from 200,000 rows, 1 below, on one core,
        on a worker thread or inside a Spark task; the numbers never depend on it); an Ibis table
        that no Ibis connection holds takes ``execute`` (a callable that runs one SQL string and
        returns a pandas frame) with ``dialect`` (the dialect ``ibis.to_sql`` compiles for). An option
        the frame's engine does not take raises (see
        the "Other frames" pages of the documentation).

    Returns
    -------
    logloss : MetricResult

    Notes
    -----
    logloss = -sum_i w_i (y_i log p_i + (1 - y_i) log(1 - p_i)) / sum_i w_i, which is
    ``sklearn.metrics.log_loss(y, p, sample_weight=w)``. p is clipped to [1e-15, 1 - 1e-15]
    inside the logs, so a wrong prediction of exactly 0 or 1 costs 34.5 nats, not infinity.
    Lower is better. No sort is needed: each group adds (sum w l, sum w).

    Examples
    --------
    >>> import pandas as pd
    >>> import pandas_rankeval as pre
    >>> df = pd.DataFrame({"user": [1, 1, 2, 2], "click": [1, 0, 0, 1],
    ...                    "p": [0.8, 0.4, 0.2, 0.5]})
    >>> round(pre.logloss(df, group="user", label="click", score="p"), 4)
    0.4126

    The rows are pooled: no group is needed for the value (every row is then its own group)::

    >>> round(pre.logloss(df, label="click", score="p"), 4)
    0.4126
    """


def ne(
    df: Any,
    *,
    group: GroupLike | None = None,
    label: Hashable,
    score: Hashable,
    sample_weight: Hashable | None = None,
    threshold: float | None = None,
    nan_policy: Literal["raise", "omit"] = "raise",
    engine_options: EngineOptions = None,
) -> MetricResult:
    """Normalized entropy: log loss divided by the entropy of the base click rate of the same rows.

    Parameters
    ----------
    df : DataFrame
        One row per shown item: a pandas DataFrame, a polars DataFrame or LazyFrame, a Dask
        DataFrame, a Spark DataFrame (classic or Connect), a DuckDB relation or an Ibis table (a
        warehouse table: the warehouse computes one row per group). Each is evaluated by its own
        engine, imported only when its frame arrives, with the same result (to 1e-12).
    group : column or list of columns, optional
        The user, query or session: the unit of the group bootstrap and of ``per_group``. The
        value pools the rows of every group (a group adds its row sums; none is skipped), so it
        is the same with any group and without one. Without ``group`` (the default) every row is
        its own group: the unit of ``report``'s interval and ``compare``'s test is the row.
    label : column
        Clicks: 0/1 or bool. Other labels are an error unless ``threshold`` is given
        (a click is then ``label >= threshold``).
    score : column
        The predicted click probability, in [0, 1]; a value outside (or an infinite one) is an
        error that names the column, the count and the range seen.
    sample_weight : column, optional
        Per-row weights (finite, >= 0); every row weighs 1 by default.
    threshold : float, optional
        Reads a graded label as a click when ``label >= threshold``.
    nan_policy : {"raise", "omit"}, default="raise"
        Missing values raise, or their rows are dropped and counted.
    engine_options : dict, optional
        Options of the frame's engine, checked against it before any work: a Dask frame takes
        ``npartitions`` (partitions of the shuffle by group, or by segment, and of the score ranges of
        global AUC; default: the frame's); a Spark frame takes ``rows_per_bucket`` (target rows of one bucket of
        whole groups, default 1,000,000) and ``buckets`` (their number instead); a polars LazyFrame
        takes ``memory_budget`` (bytes, default 2 GiB: a LazyFrame whose evaluation is estimated
        within it, from its row count and schema, is collected once and evaluated as a DataFrame;
        above it, bucket by bucket of whole groups that the budget holds) and ``rows_per_bucket``
        and ``buckets`` too (buckets, whatever the budget); a pandas
        or polars frame takes ``threads`` (default: 2 from 200,000 rows, 1 below, on one core,
        on a worker thread or inside a Spark task; the numbers never depend on it); an Ibis table
        that no Ibis connection holds takes ``execute`` (a callable that runs one SQL string and
        returns a pandas frame) with ``dialect`` (the dialect ``ibis.to_sql`` compiles for). An option
        the frame's engine does not take raises (see
        the "Other frames" pages of the documentation).

    Returns
    -------
    ne : MetricResult

    Notes
    -----
    NE = logloss / H(b), H(b) = -(b log b + (1 - b) log(1 - b)), b = sum w y / sum w (He et al.
    2014, "Practical lessons from predicting clicks on ads at Facebook"). A model that always
    predicts the base rate scores 1; lower is better. NaN when every row is a click or none is
    (b is 0 or 1: no entropy to divide by). Per segment and per group, b is the base rate of
    that segment's or group's rows.

    Examples
    --------
    >>> import pandas as pd
    >>> import pandas_rankeval as pre
    >>> df = pd.DataFrame({"user": [1, 1, 2, 2], "click": [1, 0, 0, 1],
    ...                    "p": [0.8, 0.4, 0.2, 0.5]})
    >>> round(pre.ne(df, group="user", label="click", score="p"), 4)
    0.5952
    """


def pcoc(
    df: Any,
    *,
    group: GroupLike | None = None,
    label: Hashable,
    score: Hashable,
    sample_weight: Hashable | None = None,
    threshold: float | None = None,
    nan_policy: Literal["raise", "omit"] = "raise",
    engine_options: EngineOptions = None,
) -> MetricResult:
    """PCOC: predicted over observed clicks, sum w p / sum w y; 1 is calibrated.

    Parameters
    ----------
    df : DataFrame
        One row per shown item: a pandas DataFrame, a polars DataFrame or LazyFrame, a Dask
        DataFrame, a Spark DataFrame (classic or Connect), a DuckDB relation or an Ibis table (a
        warehouse table: the warehouse computes one row per group). Each is evaluated by its own
        engine, imported only when its frame arrives, with the same result (to 1e-12).
    group : column or list of columns, optional
        The user, query or session: the unit of the group bootstrap and of ``per_group``. The
        value pools the rows of every group (a group adds its row sums; none is skipped), so it
        is the same with any group and without one. Without ``group`` (the default) every row is
        its own group: the unit of ``report``'s interval and ``compare``'s test is the row.
    label : column
        Clicks: 0/1 or bool. Other labels are an error unless ``threshold`` is given
        (a click is then ``label >= threshold``).
    score : column
        The predicted click probability, in [0, 1]; a value outside (or an infinite one) is an
        error that names the column, the count and the range seen.
    sample_weight : column, optional
        Per-row weights (finite, >= 0); every row weighs 1 by default.
    threshold : float, optional
        Reads a graded label as a click when ``label >= threshold``.
    nan_policy : {"raise", "omit"}, default="raise"
        Missing values raise, or their rows are dropped and counted.
    engine_options : dict, optional
        Options of the frame's engine, checked against it before any work: a Dask frame takes
        ``npartitions`` (partitions of the shuffle by group, or by segment, and of the score ranges of
        global AUC; default: the frame's); a Spark frame takes ``rows_per_bucket`` (target rows of one bucket of
        whole groups, default 1,000,000) and ``buckets`` (their number instead); a polars LazyFrame
        takes ``memory_budget`` (bytes, default 2 GiB: a LazyFrame whose evaluation is estimated
        within it, from its row count and schema, is collected once and evaluated as a DataFrame;
        above it, bucket by bucket of whole groups that the budget holds) and ``rows_per_bucket``
        and ``buckets`` too (buckets, whatever the budget); a pandas
        or polars frame takes ``threads`` (default: 2 from 200,000 rows, 1 below, on one core,
        on a worker thread or inside a Spark task; the numbers never depend on it); an Ibis table
        that no Ibis connection holds takes ``execute`` (a callable that runs one SQL string and
        returns a pandas frame) with ``dialect`` (the dialect ``ibis.to_sql`` compiles for). An option
        the frame's engine does not take raises (see
        the "Other frames" pages of the documentation).

    Returns
    -------
    pcoc : MetricResult

    Notes
    -----
    PCOC = sum_i w_i p_i / sum_i w_i y_i. Above 1 the model over-predicts clicks, below 1 it
    under-predicts; neither side is better, the value closest to 1 is (``compare`` reports the
    difference and says "closer to 1"). NaN when there is no click. Groups with no click still
    add their predicted clicks to the numerator.

    Examples
    --------
    >>> import pandas as pd
    >>> import pandas_rankeval as pre
    >>> df = pd.DataFrame({"user": [1, 1, 2, 2], "click": [1, 0, 0, 1],
    ...                    "p": [0.8, 0.4, 0.2, 0.5]})
    >>> round(pre.pcoc(df, group="user", label="click", score="p"), 4)
    0.95
    """


def ece(
    df: Any,
    *,
    group: GroupLike | None = None,
    label: Hashable,
    score: Hashable,
    bins: int = 10,
    sample_weight: Hashable | None = None,
    threshold: float | None = None,
    nan_policy: Literal["raise", "omit"] = "raise",
    engine_options: EngineOptions = None,
) -> MetricResult:
    """Expected calibration error over equal-width probability bins.

    Parameters
    ----------
    df : DataFrame
        One row per shown item: a pandas DataFrame, a polars DataFrame or LazyFrame, a Dask
        DataFrame, a Spark DataFrame (classic or Connect), a DuckDB relation or an Ibis table (a
        warehouse table: the warehouse computes one row per group). Each is evaluated by its own
        engine, imported only when its frame arrives, with the same result (to 1e-12).
    group : column or list of columns, optional
        The user, query or session: the unit of the group bootstrap and of ``per_group``. The
        value pools the rows of every group (a group adds its row sums; none is skipped), so it
        is the same with any group and without one. Without ``group`` (the default) every row is
        its own group: the unit of ``report``'s interval and ``compare``'s test is the row.
    label : column
        Clicks: 0/1 or bool. Other labels are an error unless ``threshold`` is given
        (a click is then ``label >= threshold``).
    score : column
        The predicted click probability, in [0, 1]; a value outside (or an infinite one) is an
        error that names the column, the count and the range seen.
    bins : int, default=10
        The number of equal-width bins of [0, 1]; the metric name is ``"ece@10"``.
    sample_weight : column, optional
        Per-row weights (finite, >= 0); every row weighs 1 by default.
    threshold : float, optional
        Reads a graded label as a click when ``label >= threshold``.
    nan_policy : {"raise", "omit"}, default="raise"
        Missing values raise, or their rows are dropped and counted.
    engine_options : dict, optional
        Options of the frame's engine, checked against it before any work: a Dask frame takes
        ``npartitions`` (partitions of the shuffle by group, or by segment, and of the score ranges of
        global AUC; default: the frame's); a Spark frame takes ``rows_per_bucket`` (target rows of one bucket of
        whole groups, default 1,000,000) and ``buckets`` (their number instead); a polars LazyFrame
        takes ``memory_budget`` (bytes, default 2 GiB: a LazyFrame whose evaluation is estimated
        within it, from its row count and schema, is collected once and evaluated as a DataFrame;
        above it, bucket by bucket of whole groups that the budget holds) and ``rows_per_bucket``
        and ``buckets`` too (buckets, whatever the budget); a pandas
        or polars frame takes ``threads`` (default: 2 from 200,000 rows, 1 below, on one core,
        on a worker thread or inside a Spark task; the numbers never depend on it); an Ibis table
        that no Ibis connection holds takes ``execute`` (a callable that runs one SQL string and
        returns a pandas frame) with ``dialect`` (the dialect ``ibis.to_sql`` compiles for). An option
        the frame's engine does not take raises (see
        the "Other frames" pages of the documentation).

    Returns
    -------
    ece : MetricResult

    Notes
    -----
    ECE = sum_b (W_b / W) |sum_b w p / W_b - sum_b w y / W_b| = sum_b |sum_b w (p - y)| / W over
    the bins [0, 1/B], (1/B, 2/B], ..., ((B-1)/B, 1] (an edge falls in the bin below it; the
    edges of ``np.linspace(0, 1, B + 1)``, as ``sklearn.calibration.calibration_curve(strategy=
    "uniform")`` cuts them), W_b the weight of the rows in
    bin b, W the weight of every row; empty bins add nothing. Lower is better. Its paired test
    in ``compare`` is the paired bootstrap (ECE is not a sum over groups).

    Examples
    --------
    >>> import pandas as pd
    >>> import pandas_rankeval as pre
    >>> df = pd.DataFrame({"user": [1, 1, 2, 2], "click": [1, 0, 0, 1],
    ...                    "p": [0.8, 0.4, 0.2, 0.5]})
    >>> round(pre.ece(df, group="user", label="click", score="p", bins=2), 4)
    0.075
    """


map = average_precision
mean_average_precision = average_precision
map_ = average_precision
rprec = r_precision
