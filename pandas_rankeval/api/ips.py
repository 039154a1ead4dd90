"""The counterfactual metrics of a click log: ``ips_dcg``, ``ips_precision``, ``ips_hit_rate``.

Each weighs a click on a row the logging ranker showed at position k by 1 / max(propensity(k),
clip) and evaluates a new score column with these gains (:mod:`pandas_rankeval.core.metrics.ips`).
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from pandas_rankeval.core.inputs.options import WeightLike
from pandas_rankeval.core.evaluation.result import MetricResult

from .dispatch import Empty, EngineOptions, GroupLike, NanPolicy, Ties, evaluate_metric
from .docs import PARAMS, fill_doc

__all__ = ["ips_dcg", "ips_hit_rate", "ips_precision"]

#: A PropensityTable, a Series indexed by position, a column name or a callable of the positions.
PropensityLike = Any

PARAMS["ips_params"] = """    position : column
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
        of groups: a mean per relevant row, not per group (see Notes)."""

PARAMS["ips_notes"] = """    Under the position-based model a click needs an examination, whose probability depends on
    the logged position only (the propensity, relative to position 1), and relevance, which
    depends on the row only. Then E[click / propensity] is the row's relevance (times the
    examination of position 1), whatever position it was shown at, so the metric estimates
    without bias the value the new ranking would have on the true relevance (Joachims et al.,
    WSDM 2017), as long as the propensities are right and at least ``clip``.

    Ties: a tied block spreads its summed IPS gain evenly over the ranks it holds, the exact
    expectation over the orderings of the tie (as DCG). Groups with no click score 0 and count
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
    factor is biased by how often relevant rows were examined.)"""

_EXAMPLE = """    One session: the logged ranker showed three rows at positions 1, 2, 3 (propensities 1, 0.5,
    0.25) and the row at position 3 was clicked. The logged order (``old``) and a new score that
    puts the clicked row first:

    >>> import pandas as pd
    >>> import pandas_rankeval as pre
    >>> df = pd.DataFrame({"s": 1, "pos": [1, 2, 3], "click": [0, 0, 1],
    ...                    "old": [3, 2, 1], "new": [2, 1, 3]})
    >>> prop = pd.Series([1.0, 0.5, 0.25], index=[1, 2, 3])"""

PARAMS["ips_example"] = _EXAMPLE


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
    ties: Ties = "expected",
    tiebreak: Hashable | None = None,
    threshold: float | None = None,
    empty: Empty = "zero",
    nan_policy: NanPolicy = "raise",
    engine_options: EngineOptions = None,
) -> MetricResult:
    """Inverse-propensity DCG@k of a new score column on a click log (unnormalized).

    Parameters
    ----------
{list_params}
    k : int or None, default=None
        The cutoff; None: the whole list.
{ips_params}
{common_params}

    Returns
    -------
    ips_dcg : MetricResult

    Notes
    -----
    IPS-DCG@k = sum over clicked rows i with new rank r_i <= k of
    1 / (log2(r_i + 1) max(propensity(position_i), clip)), averaged over groups. Unnormalized:
    dividing by an ideal DCG of the logged clicks can invert the order of two rankers (Jeunen et
    al., KDD 2024).

{ips_notes}

    Examples
    --------
{ips_example}
    >>> pre.ips_dcg(df, group="s", label="click", score="new", position="pos", propensity=prop)
    4.0
    >>> pre.ips_dcg(df, group="s", label="click", score="old", position="pos", propensity=prop)
    2.0
    """
    return evaluate_metric(
        "ips_dcg", df, engine_options, k,
        group=group, label=label, score=score, position=position, propensity=propensity, clip=clip,
        snips=snips, weight=weight, ties=ties, tiebreak=tiebreak, threshold=threshold, empty=empty,
        nan_policy=nan_policy,
    )


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
    ties: Ties = "expected",
    tiebreak: Hashable | None = None,
    threshold: float | None = None,
    empty: Empty = "zero",
    nan_policy: NanPolicy = "raise",
    engine_options: EngineOptions = None,
) -> MetricResult:
    """Inverse-propensity precision@k: IPS-weighted clicks in the new top k, over k.

    Parameters
    ----------
{list_params}
    k : int, default=10
        The cutoff; a group shorter than k still divides by k.
{ips_params}
{common_params}

    Returns
    -------
    ips_precision : MetricResult

    Notes
    -----
    IPS-P@k = (1/k) sum over clicked rows in the new top k of 1 / max(propensity, clip); a tied
    block that k cuts after r of its t rows contributes r / t of its summed weight.

{ips_notes}

    Examples
    --------
{ips_example}
    >>> pre.ips_precision(df, group="s", label="click", score="new", position="pos", propensity=prop, k=2)
    2.0
    """
    return evaluate_metric(
        "ips_precision", df, engine_options, k,
        group=group, label=label, score=score, position=position, propensity=propensity, clip=clip,
        snips=snips, weight=weight, ties=ties, tiebreak=tiebreak, threshold=threshold, empty=empty,
        nan_policy=nan_policy,
    )


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
    ties: Ties = "expected",
    tiebreak: Hashable | None = None,
    threshold: float | None = None,
    empty: Empty = "zero",
    nan_policy: NanPolicy = "raise",
    engine_options: EngineOptions = None,
) -> MetricResult:
    """Inverse-propensity hit rate@k: the IPS estimate of the clicked rows in the new top k.

    Parameters
    ----------
{list_params}
    k : int, default=10
        The cutoff.
{ips_params}
{common_params}

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

{ips_notes}

    Examples
    --------
{ips_example}
    >>> pre.ips_hit_rate(df, group="s", label="click", score="new", position="pos", propensity=prop, k=1)
    4.0
    >>> pre.ips_hit_rate(df, group="s", label="click", score="new", position="pos", propensity=prop, k=1,
    ...                  snips=True)
    1.0
    """
    return evaluate_metric(
        "ips_hit_rate", df, engine_options, k,
        group=group, label=label, score=score, position=position, propensity=propensity, clip=clip,
        snips=snips, weight=weight, ties=ties, tiebreak=tiebreak, threshold=threshold, empty=empty,
        nan_policy=nan_policy,
    )


for _f in (ips_dcg, ips_precision, ips_hit_rate):
    fill_doc(_f)
del _f
