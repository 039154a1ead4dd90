"""The metric functions: one per metric, each a function of a DataFrame.

Every function takes the frame first and keyword-only arguments after it, checks
its input, runs the shared pipeline (one sort of the score column) and returns a
:class:`~pandas_rankeval.MetricResult`: a ``float`` that carries its coverage.
The definitions are in the project's metric contract; the Notes of each function
give the formula and the tie rule.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any, Literal, Protocol

from pandas_rankeval.core.inputs.options import WeightLike
from pandas_rankeval.core.metrics.registry import METRICS
from pandas_rankeval.core.evaluation.result import MetricResult

from .dispatch import (
    Empty,
    EngineOptions,
    GroupLike,
    NanPolicy,
    Ties,
    evaluate_metric,
)
from .docs import fill_doc
from .generated import (
    CalibrationMetric,
    ListCutoffMetric,
    PersistenceMetric,
    calibration_metric,
    cutoff_metric,
    persistence_metric,
)

__all__ = [
    "CalibrationMetric",
    "CutoffMetric",
    "PersistenceMetric",
    "auc",
    "average_precision",
    "gauc",
    "hit_rate",
    "mrr",
    "ndcg",
    "precision",
    "recall",
]


def auc(
    df: Any,
    *,
    label: Hashable,
    score: Hashable,
    sample_weight: Hashable | None = None,
    ties: Ties = "expected",
    tiebreak: Hashable | None = None,
    threshold: float | None = None,
    max_fpr: float | None = None,
    nan_policy: NanPolicy = "raise",
    engine_options: EngineOptions = None,
) -> MetricResult:
    """Global AUC over all rows (the Mann-Whitney statistic).

    Parameters
    ----------
{frame}
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
{threshold}
    max_fpr : float in (0, 1], optional
        Standardized partial AUC up to this false-positive rate (McClish),
        computed by sklearn. Needs every row in one place: refused on a Dask or
        Spark frame (and a polars LazyFrame), before any work.
{nan_policy}
{engine_options}

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
    return evaluate_metric(
        "auc", df, engine_options, None, group=None,
        label=label, score=score, sample_weight=sample_weight, ties=ties, tiebreak=tiebreak,
        threshold=threshold, max_fpr=max_fpr, nan_policy=nan_policy,
    )


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
    ties: Ties = "expected",
    tiebreak: Hashable | None = None,
    threshold: float | None = None,
    engine: Literal["numpy", "sklearn"] = "numpy",
    max_fpr: float | None = None,
    nan_policy: NanPolicy = "raise",
    progress: bool = False,
    engine_options: EngineOptions = None,
) -> MetricResult:
    """Group AUC: the weighted mean of the per-group AUC (the DIN paper's GAUC).

    Parameters
    ----------
{frame}
{group}
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
    engine : {"numpy", "sklearn"}, default="numpy"
        "numpy" computes every group at once from one sort; "sklearn" calls
        ``roc_auc_score`` per group (slow; a cross-check). ``max_fpr`` always
        uses sklearn.
    max_fpr : float in (0, 1], optional
        Per-group standardized partial AUC (McClish), from sklearn.
{nan_policy}
    progress : bool, default=False
        Show a progress bar (needs tqdm) for the per-group sklearn loop
        (``engine="sklearn"`` or ``max_fpr``); the numpy engine needs none.
{engine_options}

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
    ...     # pos positives above a fraction auc of the negatives, in one tie-free list
    ...     neg = n - pos
    ...     below = round(auc * neg)
    ...     scores = np.r_[np.full(pos, below - 0.5), np.arange(neg)]
    ...     return pd.DataFrame({"user": uid, "click": [1] * pos + [0] * neg, "score": scores})
    >>> df = pd.concat([user("A", 80, 10, 0.7), user("B", 20, 5, 0.6)])
    >>> pre.gauc(df, group="user", label="click", score="score")
    0.68
    >>> round(pre.gauc(df, group="user", label="click", score="score", weight="uniform"), 4)
    0.65
    >>> print(pre.gauc(df, group="user", label="click", score="score").coverage)
    2 of 2 groups used
    """
    return evaluate_metric(
        "gauc", df, engine_options, None,
        group=group, label=label, score=score, weight=weight, min_size=min_size, min_pos=min_pos,
        min_neg=min_neg, sample_weight=sample_weight, ties=ties, tiebreak=tiebreak,
        threshold=threshold, engine=engine, max_fpr=max_fpr, nan_policy=nan_policy, progress=progress,
    )


def mrr(
    df: Any,
    *,
    group: GroupLike,
    label: Hashable,
    score: Hashable,
    k: int | None = None,
    weight: WeightLike = None,
    ties: Ties = "expected",
    tiebreak: Hashable | None = None,
    threshold: float | None = None,
    empty: Empty = "zero",
    nan_policy: NanPolicy = "raise",
    engine_options: EngineOptions = None,
) -> MetricResult:
    """Mean reciprocal rank of the first relevant row (MRR, MRR@k).

    Parameters
    ----------
{list_params}
    k : int or None, default=None
        Only the first k rows count: RR is 0 when no relevant row is among them.
{common_params}

    Returns
    -------
    mrr : MetricResult

    Notes
    -----
    RR = 1 / rank of the first relevant row. With ties, m rows strictly above
    the block that holds the first relevant row, t rows in it and p relevant:
    E[RR] = sum_{{j=1..t-p+1}} C(t-j, p-1) / C(t, p) / (m + j), exact.

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
    return evaluate_metric(
        "mrr", df, engine_options, k,
        group=group, label=label, score=score, weight=weight, ties=ties, tiebreak=tiebreak,
        threshold=threshold, empty=empty, nan_policy=nan_policy,
    )


def ndcg(
    df: Any,
    *,
    group: GroupLike,
    label: Hashable,
    score: Hashable,
    k: int | None = None,
    gain: Literal["exp2", "linear"] = "exp2",
    weight: WeightLike = None,
    ties: Ties = "expected",
    tiebreak: Hashable | None = None,
    threshold: float | None = None,
    empty: Empty = "zero",
    nan_policy: NanPolicy = "raise",
    engine_options: EngineOptions = None,
) -> MetricResult:
    """Normalized discounted cumulative gain at k (NDCG@k), graded labels welcome.

    Parameters
    ----------
{frame}
{group}
{list_label}
        Graded labels (0, 1, 2, ...) are used as gains; negative labels are an error.
{list_score}
    k : int or None, default=None
        Cutoff. None (the default) is the whole list, as the metric name
        ``"ndcg"`` in :func:`report` and sklearn's ``ndcg_score``; ``k=10`` is
        NDCG@10, the name ``"ndcg@10"``. A k larger than a group uses the whole group.
    gain : {{"exp2", "linear"}}, default="exp2"
        ``2**label - 1`` (Burges) or ``label`` (trec_eval, sklearn).
{list_order}
{threshold}
        For NDCG, rows with a label below ``threshold`` gain nothing (graded labels
        at or above it keep their gain).
{list_empty}
{nan_policy}
{engine_options}

    Returns
    -------
    ndcg : MetricResult

    Notes
    -----
    DCG@k = sum_{{i<=k}} gain_i / log2(i + 1); NDCG = DCG@k / IDCG@k, IDCG from the
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
    >>> round(pre.ndcg(df, group="q", label="rel", score="score", gain="linear", k=2), 4)
    0.2398
    """
    return evaluate_metric(
        "ndcg", df, engine_options, k,
        group=group, label=label, score=score, gain=gain, weight=weight, ties=ties, tiebreak=tiebreak,
        threshold=threshold, empty=empty, nan_policy=nan_policy,
    )


def average_precision(
    df: Any,
    *,
    group: GroupLike,
    label: Hashable,
    score: Hashable,
    k: int | None = None,
    denominator: Literal["relevant", "min_k"] = "relevant",
    weight: WeightLike = None,
    ties: Ties = "expected",
    tiebreak: Hashable | None = None,
    threshold: float | None = None,
    empty: Empty = "zero",
    nan_policy: NanPolicy = "raise",
    engine_options: EngineOptions = None,
) -> MetricResult:
    """Mean average precision (MAP, MAP@k): the mean over groups of AP@k.

    Parameters
    ----------
{list_params}
    k : int or None, default=None
        Only relevant rows within the first k count.
    denominator : {{"relevant", "min_k"}}, default="relevant"
        Divide by all relevant rows of the group (trec_eval, ranx) or by
        ``min(relevant rows, k)`` (Spark, RecBole).
{common_params}

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
    >>> df = pd.DataFrame({"q": 1, "rel": [1, 0, 1, 0, 1], "score": [5, 4, 3, 2, 1]})
    >>> round(pre.average_precision(df, group="q", label="rel", score="score"), 3)
    0.756
    """
    return evaluate_metric(
        "average_precision", df, engine_options, k,
        group=group, label=label, score=score, denominator=denominator, weight=weight, ties=ties,
        tiebreak=tiebreak, threshold=threshold, empty=empty, nan_policy=nan_policy,
    )


class CutoffMetric(Protocol):
    """The signature of :func:`precision`, :func:`recall` and :func:`hit_rate`."""

    __name__: str

    def __call__(
        self,
        df: Any,
        *,
        group: GroupLike,
        label: Hashable,
        score: Hashable,
        k: int = 10,
        weight: WeightLike = None,
        ties: Ties = "expected",
        tiebreak: Hashable | None = None,
        threshold: float | None = None,
        empty: Empty = "zero",
        nan_policy: NanPolicy = "raise",
        engine_options: EngineOptions = None,
    ) -> MetricResult: ...


def _cutoff_metric(function: str, summary: str, example: str) -> CutoffMetric:
    def metric(
        df: Any,
        *,
        group: GroupLike,
        label: Hashable,
        score: Hashable,
        k: int = 10,
        weight: WeightLike = None,
        ties: Ties = "expected",
        tiebreak: Hashable | None = None,
        threshold: float | None = None,
        empty: Empty = "zero",
        nan_policy: NanPolicy = "raise",
        engine_options: EngineOptions = None,
    ) -> MetricResult:
        return evaluate_metric(
            function, df, engine_options, k,
            group=group, label=label, score=score, weight=weight, ties=ties, tiebreak=tiebreak,
            threshold=threshold, empty=empty, nan_policy=nan_policy,
        )

    metric.__name__ = metric.__qualname__ = function
    metric.__doc__ = summary + example
    return metric


_EXAMPLE_FRAME = """
    >>> import pandas as pd
    >>> import pandas_rankeval as pre
    >>> df = pd.DataFrame({"q": 1, "rel": [1, 0, 1, 0, 1], "score": [5, 4, 3, 2, 1]})
"""

precision = _cutoff_metric(
    "precision",
    """Precision at k: relevant rows among the first k, divided by k.

    Parameters
    ----------
{list_params}
    k : int, default=10
        The cutoff; a group shorter than k still divides by k (trec_eval).
{common_params}

    Returns
    -------
    precision : MetricResult

    Notes
    -----
    When a tied block of t rows with p relevant straddles the cutoff and r of its
    rows fall within k, it contributes r * p / t expected relevant rows.

    Examples
    --------""",
    _EXAMPLE_FRAME
    + """    >>> [round(pre.precision(df, group="q", label="rel", score="score", k=k), 2) for k in (1, 3, 5)]
    [1.0, 0.67, 0.6]
    """,
)

recall = _cutoff_metric(
    "recall",
    """Recall at k: relevant rows among the first k, divided by the group's relevant rows.

    Parameters
    ----------
{list_params}
    k : int, default=10
        The cutoff.
{common_params}

    Returns
    -------
    recall : MetricResult

    Notes
    -----
    Ties as in :func:`precision`: a straddling block contributes r * p / t.

    Examples
    --------""",
    _EXAMPLE_FRAME
    + """    >>> round(pre.recall(df, group="q", label="rel", score="score", k=3), 4)
    0.6667
    """,
)

hit_rate = _cutoff_metric(
    "hit_rate",
    """Hit rate at k: the share of groups with a relevant row among the first k.

    Parameters
    ----------
{list_params}
    k : int, default=10
        The cutoff.
{common_params}

    Returns
    -------
    hit_rate : MetricResult

    Notes
    -----
    When a tied block of t rows with p relevant straddles the cutoff and r of its
    rows fall within k, the chance that none of its relevant rows is among them
    is C(t-p, r) / C(t, r) (exact, no sampling).

    Examples
    --------""",
    _EXAMPLE_FRAME
    + """    >>> pre.hit_rate(df, group="q", label="rel", score="score", k=1)
    1.0
    """,
)

for _f in (auc, gauc, mrr, ndcg, average_precision, precision, recall, hit_rate):
    fill_doc(_f)
#: The public functions the registry defines by their entry alone (no hand-written function above).
GENERATED: dict[str, PersistenceMetric | CalibrationMetric | ListCutoffMetric] = {
    m.function: fill_doc(persistence_metric(m))
    for m in METRICS.values()
    if m.function not in globals() and m.param.kind == "persistence"
}
GENERATED.update({  # a list metric with a cutoff and its docstring in its entry (err)
    m.function: fill_doc(cutoff_metric(m))
    for m in METRICS.values()
    if m.function not in globals() and m.param.kind == "cutoff" and m.doc and m.kernel is not None
})
GENERATED.update({  # type: ignore[dict-item]
    m.function: fill_doc(calibration_metric(m))
    for m in METRICS.values()
    if m.function not in globals() and m.rows is not None
})
globals().update(GENERATED)
__all__ += list(GENERATED)
del _f


from .ips import ips_dcg, ips_hit_rate, ips_precision  # the counterfactual metrics

__all__ += ["ips_dcg", "ips_precision", "ips_hit_rate"]
