"""The metric functions: one per metric, each a function of a DataFrame.

Every function takes the frame first and keyword-only arguments after it, checks
its input, runs the shared pipeline (one sort of the score column) and returns a
:class:`~pandas_rankeval.MetricResult`: a ``float`` that carries its coverage.
The definitions are in the project's metric contract; the Notes of each function
give the formula and the tie rule.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Literal

import pandas as pd

from pandas_rankeval.core.evaluate import evaluate, warn_if_needed
from pandas_rankeval.core.options import Options, WeightLike
from pandas_rankeval.core.registry import MetricSpec, parse_metrics
from pandas_rankeval.display.table import ResultTable, as_result_table
from pandas_rankeval.core.result import MetricResult
from pandas_rankeval.core.validation import as_columns, check_column_name, check_k

__all__ = [
    "auc",
    "gauc",
    "mrr",
    "ndcg",
    "average_precision",
    "precision",
    "recall",
    "hit_rate",
    "per_group",
]

Ties = Literal["expected", "pessimistic", "optimistic"]
Empty = Literal["zero", "skip", "error"]
NanPolicy = Literal["raise", "omit"]
GroupLike = Hashable | Sequence[Hashable]


def _one(
    df: pd.DataFrame,
    spec: MetricSpec,
    *,
    group: GroupLike | None,
    label: Hashable,
    score: Hashable,
    options: Options,
) -> MetricResult:
    check_column_name(score, "score", options.func, df if isinstance(df, pd.DataFrame) else None)
    ev = evaluate(df, group=group, label=label, scores=[score], specs=[spec], options=options)
    if spec.info.grouped:  # the one-partition case of the summary layer that Dask and Spark share
        from pandas_rankeval.engines.pandas import finalize_evaluation
        from pandas_rankeval.summary.plan import metric_plan

        plan = metric_plan(options, spec, group=group, label=label, score=score, df=df)
        return finalize_evaluation(ev, plan)  # type: ignore[no-any-return]
    gv = ev.scores[score].metrics[spec.name]
    warn_if_needed(gv, options.func)
    return MetricResult(gv.value, metric=spec.name, coverage=gv.coverage, params=options.params(spec))


def auc(
    df: pd.DataFrame,
    *,
    label: Hashable,
    score: Hashable,
    sample_weight: Hashable | None = None,
    ties: Ties = "expected",
    tiebreak: Hashable | None = None,
    threshold: float | None = None,
    max_fpr: float | None = None,
    nan_policy: NanPolicy = "raise",
) -> MetricResult:
    """Global AUC over all rows (the Mann-Whitney statistic).

    Parameters
    ----------
    df : DataFrame
        One row per shown item.
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
        computed by sklearn.
    nan_policy : {"raise", "omit"}, default="raise"
        Missing values raise, or their rows are dropped and counted.

    Returns
    -------
    auc : MetricResult
        A float; NaN with a warning when only one class is present.

    Notes
    -----
    AUC = (sum over relevant i, non-relevant j of [s_i > s_j] + 1/2 [s_i = s_j]) / (P N),
    which equals ``sklearn.metrics.roc_auc_score``. It costs one sort of the scores.

    Examples
    --------
    >>> import pandas as pd
    >>> import pandas_rankeval as pre
    >>> df = pd.DataFrame({"click": [1, 0, 1, 0], "score": [0.9, 0.8, 0.4, 0.4]})
    >>> pre.auc(df, label="click", score="score")
    0.625
    """
    opts = Options(
        "auc", ties=ties, tiebreak=tiebreak, threshold=threshold,
        sample_weight=sample_weight, max_fpr=max_fpr, nan_policy=nan_policy,
    )
    return _one(df, MetricSpec("auc", None), group=None, label=label, score=score, options=opts)


def gauc(
    df: pd.DataFrame,
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
) -> MetricResult:
    """Group AUC: the weighted mean of the per-group AUC (the DIN paper's GAUC).

    Parameters
    ----------
    df : DataFrame
        One row per shown item.
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
    engine : {"numpy", "sklearn"}, default="numpy"
        "numpy" computes every group at once from one sort; "sklearn" calls
        ``roc_auc_score`` per group (slow; a cross-check). ``max_fpr`` always
        uses sklearn.
    max_fpr : float in (0, 1], optional
        Per-group standardized partial AUC (McClish), from sklearn.
    nan_policy : {"raise", "omit"}, default="raise"
        Missing values raise, or their rows are dropped and counted.
    progress : bool, default=False
        Show a progress bar (needs tqdm) for the per-group sklearn loop
        (``engine="sklearn"`` or ``max_fpr``); the numpy engine needs none.

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
    opts = Options(
        "gauc", ties=ties, tiebreak=tiebreak, threshold=threshold, weight=weight,
        min_size=min_size, min_pos=min_pos, min_neg=min_neg,  # type: ignore[arg-type]
        sample_weight=sample_weight, engine=engine, max_fpr=max_fpr, nan_policy=nan_policy,
        progress=progress,
    )
    return _one(df, MetricSpec("gauc", None), group=group, label=label, score=score, options=opts)


def _list_metric(
    kind: str,
    df: pd.DataFrame,
    *,
    group: GroupLike,
    label: Hashable,
    score: Hashable,
    k: int | None,
    allow_none: bool,
    **kw: object,
) -> MetricResult:
    k = check_k(k, kind, allow_none=allow_none)
    opts = Options(kind, **kw)  # type: ignore[arg-type]
    return _one(df, MetricSpec(kind, k), group=group, label=label, score=score, options=opts)


_LIST_PARAMS = """    group : column or list of columns
        The user, query or session.
    label : column
        Relevance; a row is relevant when its label is > 0 (or >= ``threshold``).
    score : column
        The model's score; rank 1 is the highest score in the group."""

_COMMON_PARAMS = """    weight : {"uniform", "count", "clicks", "log1p"}, column, Series or callable, optional
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
        Missing values raise, or their rows are dropped and counted."""


def mrr(
    df: pd.DataFrame,
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
    return _list_metric(
        "mrr", df, group=group, label=label, score=score, k=k, allow_none=True,
        weight=weight, ties=ties, tiebreak=tiebreak, threshold=threshold, empty=empty,
        nan_policy=nan_policy,
    )


def ndcg(
    df: pd.DataFrame,
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
) -> MetricResult:
    """Normalized discounted cumulative gain at k (NDCG@k), graded labels welcome.

    Parameters
    ----------
{list_params}
        Graded labels (0, 1, 2, ...) are used as gains; negative labels are an error.
    k : int or None, default=None
        Cutoff. None (the default) is the whole list, as the metric name
        ``"ndcg"`` in :func:`report` and sklearn's ``ndcg_score``; ``k=10`` is
        NDCG@10, the name ``"ndcg@10"``. A k larger than a group uses the whole group.
    gain : {{"exp2", "linear"}}, default="exp2"
        ``2**label - 1`` (Burges) or ``label`` (trec_eval, sklearn).
{common_params}
        For NDCG, rows with a label below ``threshold`` gain nothing (graded labels
        at or above it keep their gain).

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
    return _list_metric(
        "ndcg", df, group=group, label=label, score=score, k=k, allow_none=True,
        gain=gain, weight=weight, ties=ties, tiebreak=tiebreak, threshold=threshold,
        empty=empty, nan_policy=nan_policy,
    )


def average_precision(
    df: pd.DataFrame,
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
    return _list_metric(
        "map", df, group=group, label=label, score=score, k=k, allow_none=True,
        denominator=denominator, weight=weight, ties=ties, tiebreak=tiebreak,
        threshold=threshold, empty=empty, nan_policy=nan_policy,
    )


def _cutoff_metric(kind: str, summary: str, example: str):  # type: ignore[no-untyped-def]
    def metric(
        df: pd.DataFrame,
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
    ) -> MetricResult:
        return _list_metric(
            kind, df, group=group, label=label, score=score, k=k, allow_none=False,
            weight=weight, ties=ties, tiebreak=tiebreak, threshold=threshold,
            empty=empty, nan_policy=nan_policy,
        )

    metric.__name__ = metric.__qualname__ = kind
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

for _f in (mrr, ndcg, average_precision, precision, recall, hit_rate):
    _f.__doc__ = (
        (_f.__doc__ or "")
        .replace("{list_params}", _LIST_PARAMS)
        .replace("{common_params}", _COMMON_PARAMS)
        .replace("{{", "{")
        .replace("}}", "}")
    )
del _f


def per_group(
    df: pd.DataFrame,
    *,
    group: GroupLike,
    label: Hashable,
    score: Hashable | None = None,
    scores: Sequence[Hashable] | None = None,
    metrics: str | Sequence[str] = ("auc",),
    weight: WeightLike = None,
    min_size: int | None = None,
    min_pos: int | None = None,
    min_neg: int | None = None,
    ties: Ties = "expected",
    tiebreak: Hashable | None = None,
    threshold: float | None = None,
    gain: Literal["exp2", "linear"] = "exp2",
    denominator: Literal["relevant", "min_k"] = "relevant",
    empty: Empty = "zero",
    nan_policy: NanPolicy = "raise",
) -> ResultTable:
    """Every requested metric for every group, indexed by group key: ready to join.

    Parameters
    ----------
    group, label :
        As in :func:`gauc`.
    score : column, optional
        One model's score column: the metric columns are named after the metrics.
    scores : list of columns, optional
        Several models at once (give ``score`` or ``scores``): one column per model and
        metric, named ``"<model>_<metric>"``, in one pass (one sort per model).
    metrics : str or list of str, default=("auc",)
        Metric names such as ``"auc"`` (the per-group AUC, the terms of GAUC),
        ``"mrr"``, ``"ndcg@10"``, ``"map@20"``, ``"precision@5"``.
    weight :
        The weight option whose per-group value goes in the ``weight`` column;
        default: the first metric's default ("count" for AUC, else "uniform").
    min_size, min_pos, min_neg, ties, tiebreak, threshold, gain, denominator, empty, nan_policy :
        As in the single-metric functions.

    Returns
    -------
    table : ResultTable
        One row per group, indexed by the group key(s) (``users.join(table)`` adds the
        columns to a table of users): ``n``, ``positives``, the metrics (NaN where the
        group is left out: one class for AUC, no relevant row under ``empty="skip"``) and
        ``weight``. With ``scores``, ``table.attrs["models"]`` maps each model and metric
        to its column. It prints with each metric's coverage and the
        choices underneath, each model's columns under its name.

    Examples
    --------
    >>> import pandas as pd
    >>> import pandas_rankeval as pre
    >>> df = pd.DataFrame({"user": ["a", "a", "a", "b", "b"],
    ...                    "click": [1, 0, 0, 0, 0], "score": [0.2, 0.9, 0.1, 0.5, 0.4]})
    >>> pre.per_group(df, group="user", label="click", score="score", metrics=["auc", "mrr"])
    ... # doctest: +NORMALIZE_WHITESPACE
    user  n  positives     auc     mrr  weight
    a     3          1  0.5000  0.5000       3
    b     2          0     NaN  0.0000       2
    <BLANKLINE>
    coverage: 5 rows in 2 groups; auc is NaN for the 1 group with one class only
      (40.0% of rows)
    mrr: 1 of 2 groups (50%) have no relevant row and score 0 (empty='zero', as
      trec_eval; ranx skips them: empty='skip')
    (+3 lines of details: .to_text(footer='full'))

    Several models, joined to a table of users:

    >>> df["other"] = [0.9, 0.2, 0.1, 0.5, 0.4]
    >>> table = pre.per_group(df, group="user", label="click", scores=["score", "other"], metrics=["auc"])
    >>> list(table.columns)
    ['n', 'positives', 'score_auc', 'other_auc', 'weight']
    >>> users = pd.DataFrame({"country": ["FR", "DE"]}, index=pd.Index(["a", "b"], name="user"))
    >>> users.join(table[["score_auc", "other_auc"]])
         country  score_auc  other_auc
    user
    a         FR        0.5        1.0
    b         DE        NaN        NaN
    """
    if (score is None) == (scores is None):
        raise ValueError(
            "per_group needs one of 'score' (a column) or 'scores' (a list of columns). "
            f"Got {'both' if score is not None else 'neither'}."
        )
    specs = [MetricSpec("gauc", None) if s.kind == "auc" else s for s in parse_metrics(metrics)]
    opts = Options(
        "per_group", ties=ties, tiebreak=tiebreak, threshold=threshold, weight=weight,
        min_size=min_size, min_pos=min_pos, min_neg=min_neg,  # type: ignore[arg-type]
        gain=gain, denominator=denominator, empty=empty, nan_policy=nan_policy,
    )
    frame = df if isinstance(df, pd.DataFrame) else None
    if scores is not None:
        models = as_columns(scores, "scores", "per_group", frame)
    else:
        check_column_name(score, "score", "per_group", frame)
        models = [score]
    ev = evaluate(df, group=group, label=label, scores=models, specs=specs, options=opts)
    display = ["auc" if (s.kind == "gauc") else s.name for s in specs]
    first = ev.scores[models[0]]
    out = pd.DataFrame({"n": ev.group_stats["n"], "positives": ev.group_stats["positives"]}, index=ev.keys)
    columns: dict[str, dict[str, str]] = {}
    for model in models:
        se = ev.scores[model]
        named = {name: (name if scores is None else f"{model}_{name}") for name in display}
        for spec, name in zip(specs, display):
            out[named[name]] = se.metrics[spec.name].values
        columns[str(model)] = named
    out["weight"] = first.metrics[specs[0].name].weights  # depends on the labels only: one column
    out.attrs["params"] = {name: opts.params(spec) for spec, name in zip(specs, display)}
    out.attrs["coverage"] = {name: first.metrics[spec.name].coverage.as_dict() for spec, name in zip(specs, display)}
    if scores is not None:
        out.attrs["models"] = columns
    return as_result_table(out, "per_group")
