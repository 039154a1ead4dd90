"""Every metric of every group, as a table indexed by the group key(s): ready to join."""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import Any, Literal

from pandas_rankeval.core.inputs.options import WeightLike
from pandas_rankeval.core.metrics.registry import parse_metrics

from .dispatch import (
    Empty,
    EngineOptions,
    GroupLike,
    NanPolicy,
    Ties,
    evaluate_frame,
)
from .docs import fill_doc

__all__ = ["per_group"]


def per_group(
    df: Any,
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
    sample_weight: Hashable | None = None,
    gain: Literal["exp2", "linear"] = "exp2",
    denominator: Literal["relevant", "min_k"] = "relevant",
    empty: Empty = "zero",
    retrieved: Hashable | Mapping[Hashable, Hashable] | None = None,
    nan_policy: NanPolicy = "raise",
    position: Hashable | None = None,
    propensity: Any = None,
    clip: float = 0.01,
    snips: bool = False,
    engine_options: EngineOptions = None,
) -> Any:
    """Every requested metric for every group, indexed by group key: ready to join.

    Parameters
    ----------
{frame}
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
        default: the first ranking metric's default ("count" for AUC, else "uniform"). With
        calibration metrics only (``logloss``, ``ne``, ``pcoc``, ``ece``), which pool rows
        instead of averaging groups, it is the group's rows (summed ``sample_weight``).
{metric_options}
        A weight callable is called once, on every group's statistics, on every engine (a
        Dask, Spark or polars Lazy frame first counts the rows of each group in one pass; the
        statistics frame, one row per group, is built in the caller's memory, as on pandas).
    position, propensity, clip, snips :
        The options of the counterfactual metrics (``ips_dcg@K``, ``ips_precision@K``,
        ``ips_hit_rate@K``): the logged position column, the propensities, the smallest
        propensity used and self-normalization; see :func:`ips_dcg`.
{engine_options}

    Returns
    -------
    table : ResultTable, or a frame of the input's engine
        For a pandas frame: one row per group, indexed by the group key(s)
        (``users.join(table)`` adds the columns to a table of users): ``n``, ``positives``,
        the metrics (NaN where the group is left out: one class for AUC, no relevant row under
        ``empty="skip"``; one class for NE, no click for PCOC) and ``weight``. With ``scores``, ``table.attrs["models"]`` maps each
        model and metric to its column. It prints with each metric's coverage and the
        choices underneath, each model's columns under its name.

        For the other engines the same columns, as a frame of the input's kind, computed once
        per partition of whole groups and never collected: a lazy Dask DataFrame (indexed by
        the key with one group column; with several, the keys are columns), a lazy Spark
        DataFrame, a polars DataFrame (the key columns first, in their own dtypes; rows
        unordered), a pandas frame for a DuckDB relation, the pandas table (indexed by the key)
        for an Ibis table. Where the keys are columns (all but
        pandas and a one-key Dask frame), a key column named like a column of the table
        (``n``, ``positives``, a metric, ``weight``) raises before any work: rename it first.

    Examples
    --------
    >>> import pandas as pd
    >>> import pandas_rankeval as pre
    >>> df = pd.DataFrame(
    ...     {
    ...         "user": ["a", "a", "a", "b", "b"],
    ...         "click": [1, 0, 0, 0, 0],
    ...         "score": [0.2, 0.9, 0.1, 0.5, 0.4],
    ...     }
    ... )
    >>> pre.per_group(
    ...     df, group="user", label="click", score="score", metrics=["auc", "mrr"]
    ... )
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
    >>> table = pre.per_group(
    ...     df,
    ...     group="user",
    ...     label="click",
    ...     scores=["score", "other"],
    ...     metrics=["auc"],
    ... )
    >>> list(table.columns)
    ['n', 'positives', 'score_auc', 'other_auc', 'weight']
    >>> users = pd.DataFrame(
    ...     {"country": ["FR", "DE"]}, index=pd.Index(["a", "b"], name="user")
    ... )
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
    names = [s.info.per_group or s.name for s in parse_metrics(metrics)]  # auc: the per-group AUC
    result: Any = evaluate_frame(
        df, "per_group", engine_options, kind="per_group",
        scores=score if scores is None else scores, per_model_columns=scores is not None, metrics=names,
        group=group, label=label, weight=weight, min_size=min_size, min_pos=min_pos, min_neg=min_neg,
        ties=ties, tiebreak=tiebreak, threshold=threshold, sample_weight=sample_weight, gain=gain, denominator=denominator, empty=empty, retrieved=retrieved,
        nan_policy=nan_policy,
        position=position, propensity=propensity, clip=clip, snips=snips,
    )
    return result


fill_doc(per_group)
