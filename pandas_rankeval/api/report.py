"""Many metrics over many score columns in one call, overall or per segment."""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import Any, Literal

from pandas_rankeval.core.inputs.options import WeightLike
from pandas_rankeval.core.metrics.registry import DEFAULT_METRICS
from pandas_rankeval.display.table import ResultTable

from .dispatch import EngineOptions, evaluate_frame
from .overall import check_overall, evaluate_with_overall
from .docs import fill_doc

__all__ = ["report"]


def report(
    df: Any,
    *,
    group: Hashable | Sequence[Hashable] | None = None,
    label: Hashable,
    scores: Hashable | Sequence[Hashable],
    metrics: str | Sequence[str] = DEFAULT_METRICS,
    by: Hashable | Sequence[Hashable] | None = None,
    overall: bool = False,
    weight: WeightLike = None,
    ci: float | None = None,
    auc_method: Literal["delong", "bootstrap"] = "delong",
    ci_method: Literal["percentile", "studentized"] = "percentile",
    n_boot: int = 1000,
    seed: int | None = 0,
    resample: Literal["poisson", "multinomial"] | None = None,
    min_size: int | None = None,
    min_pos: int | None = None,
    min_neg: int | None = None,
    ties: Literal["expected", "pessimistic", "optimistic"] = "expected",
    tiebreak: Hashable | None = None,
    threshold: float | None = None,
    sample_weight: Hashable | None = None,
    gain: Literal["exp2", "linear"] = "exp2",
    denominator: Literal["relevant", "min_k"] = "relevant",
    empty: Literal["zero", "skip", "error"] = "zero",
    retrieved: Hashable | Mapping[Hashable, Hashable] | None = None,
    nan_policy: Literal["raise", "omit"] = "raise",
    progress: bool = False,
    position: Hashable | None = None,
    propensity: Any = None,
    clip: float = 0.01,
    snips: bool = False,
    engine_options: EngineOptions = None,
) -> ResultTable:
    """Compare score columns on many metrics at once, overall or per segment.

    Each score column is sorted once; every metric is a reduction over that sort.

    Parameters
    ----------
{frame}
{group_optional}
{label_click}
    scores : column or list of columns
        The models to compare, one score column each.
    metrics : str or list of str, default={default_metrics}
        Metric names: {metric_names}.
    by : column or list of columns, optional
        Segment columns, constant within a group (country, device, activity
        bucket): one row per (segment, model).
{overall}
    weight : weight option, optional
        Group weights for every group metric; default: "count" for GAUC and
        "uniform" for the list metrics.
    ci : float in (0, 1), optional
        Add a confidence interval (``<metric>_low``, ``<metric>_high``) for every
        metric: a percentile bootstrap resampling groups for the group metrics, and
        for global AUC the method of ``auc_method``; for global XAUC (``"xauc"``) its
        clustered DeLong interval over the groups (each row its own cluster without
        ``group``), always. ``report.attrs["ci"]["method"]`` names what was used. See
        :func:`compare` for the methods.
    auc_method : {"delong", "bootstrap"}, default="delong"
        Interval of global AUC. ``"delong"``: the clustered DeLong variance
        (Obuchowski 1997, groups as clusters; per segment with ``by``) and a normal
        interval clipped to [0, 1], in one pass with no resampling (NaN when fewer
        than two groups of the segment hold a relevant row, or a non-relevant row).
        ``"bootstrap"``: the percentile bootstrap over groups. DeLong needs
        ``ties="expected"``; under another tie rule global AUC uses the bootstrap
        and the method in ``report.attrs["ci"]`` says so. With ``sample_weight``
        the interval is that of the weighted AUC (sample-weighted placements).
    ci_method : {"percentile", "studentized"}, default="percentile"
        Bootstrap interval of the group metrics. ``"studentized"``: the bootstrap-t
        interval, each replicate studentized by its delta-method standard error
        (computed from replicate sums, no extra pass); better than the percentile
        interval with few groups or unequal group weights (count-weighted GAUC),
        where the percentile interval undercovers. Global AUC under
        ``auc_method="bootstrap"`` keeps the percentile interval.
    n_boot : int, default=1000
        Bootstrap replicates.
    seed : int or None, default=0
        Seed of the bootstrap; the same seed gives the same intervals.
    resample : {"poisson", "multinomial"}, optional
        How the bootstrap draws groups. ``"poisson"`` (the default): every group
        weighs a Poisson(1) count drawn from a stable hash of (seed, group key,
        replicate), so the interval does not depend on how the rows are ordered or
        partitioned, and the same seed gives the same interval on pandas, Dask and
        Spark. ``"multinomial"``: the classic bootstrap that draws exactly as many
        groups as there are (per segment with ``by``), from
        :func:`numpy.random.default_rng`. Both resample groups and agree in
        distribution as the number of groups grows; every ``ci_method`` works with both.
{metric_options}
{progress}
    position, propensity, clip, snips :
        The options of the counterfactual metrics (``ips_dcg@K``, ``ips_precision@K``,
        ``ips_hit_rate@K``): the logged position column, the propensities, the smallest
        propensity used and self-normalization; see :func:`ips_dcg`.
{engine_options}

    Returns
    -------
    report : ResultTable
        A DataFrame that prints with its coverage and choices underneath. One row per score column (index ``model``; with ``by``, a MultiIndex of
        the segment columns and ``model``), one column per metric, then the
        coverage: ``n_groups``, ``n_rows``, ``gauc_groups_used`` and
        ``gauc_rows_skipped`` (with GAUC), ``groups_no_relevant`` (with list
        metrics), ``rows_dropped`` (with ``nan_policy="omit"``; with ``by``,
        each segment's own rows; rows with a missing segment value, in no
        segment, are counted in ``report.attrs["dropped"]`` and the footer).
        The choices (ties, weights, ...) are in ``report.attrs["params"]``.

    Examples
    --------
    >>> import pandas_rankeval as pre
    >>> df = pre.datasets.make_impressions(n_users=300, seed=1)
    >>> rep = pre.report(
    ...     df,
    ...     group="user_id",
    ...     label="click",
    ...     scores=["model_a", "model_b"],
    ...     metrics=["auc", "gauc", "ndcg@10"],
    ... )
    >>> list(rep.columns[:3])
    ['auc', 'gauc', 'ndcg@10']
    >>> list(rep.index)
    ['model_a', 'model_b']

    It prints rounded, with the lines that matter underneath: what the numbers cover, and
    the ``empty`` choice where it changes a number (the data stay unrounded; the methods
    and choices are in ``rep.footer()`` and ``rep.to_text(footer="full")``):

    >>> print(rep)  # doctest: +NORMALIZE_WHITESPACE
    model       auc    gauc  ndcg@10
    model_a  0.8301  0.6054   0.2112
    model_b  0.6903  0.7335   0.2336
    <BLANKLINE>
    coverage: 5,806 rows in 300 groups; gauc uses 52 groups; 248 with one class only
      are skipped (13.3% of rows)
    ndcg@10: 214 of 300 groups (71%) have no relevant row and score 0 (empty='zero',
      as trec_eval; ranx skips them: empty='skip')
    (+4 lines of details: .to_text(footer='full'))

    ``compact()`` puts metrics in rows and models side by side (intervals, with ``ci=``,
    in the cell of their estimate), here with the difference to a baseline:

    >>> print(
    ...     rep.compact(baseline="model_a")
    ... )  # doctest: +NORMALIZE_WHITESPACE +ELLIPSIS
    metric   model_a  model_b  model_b vs model_a
    auc       0.8301   0.6903    -0.1399 (-16.8%)
    gauc     0.6054  0.7335   +0.1281 (+21.2%)
    ndcg@10  0.2112  0.2336   +0.0224 (+10.6%)
    ...

    Intervals: global AUC by clustered DeLong (no resampling), group metrics by the
    bootstrap over groups.

    >>> rep = pre.report(df, group="user_id", label="click", scores="model_a",
    ...                  metrics=["auc", "gauc"], ci=0.95, n_boot=200)
    >>> list(rep.columns[:6])
    ['auc', 'auc_low', 'auc_high', 'gauc', 'gauc_low', 'gauc_high']
    >>> print(rep.attrs["ci"]["method"])  # doctest: +ELLIPSIS
    percentile bootstrap over groups...; auc: clustered DeLong over groups
    (Obuchowski 1997), normal interval

    The same call on a Dask DataFrame (or a polars or Spark one) gives the same table, intervals
    included, for the same seed; ``engine_options`` holds what only that engine understands:

    >>> import dask.dataframe as dd
    >>> ddf = dd.from_pandas(df, npartitions=4)
    >>> dist = pre.report(
    ...     ddf,
    ...     group="user_id",
    ...     label="click",
    ...     scores="model_a",
    ...     metrics=["auc", "gauc"],
    ...     ci=0.95,
    ...     n_boot=200,
    ...     engine_options={"npartitions": 2},
    ... )
    >>> bool(((dist - rep).abs() < 1e-12).all().all())
    True
    """
    check_overall(overall, by, "report")
    kw: dict[str, Any] = dict(
        group=group, label=label, scores=scores, metrics=metrics, weight=weight, ci=ci,
        auc_method=auc_method, ci_method=ci_method, n_boot=n_boot, seed=seed, resample=resample,
        min_size=min_size, min_pos=min_pos, min_neg=min_neg, ties=ties, tiebreak=tiebreak,
        threshold=threshold, sample_weight=sample_weight, gain=gain, denominator=denominator, empty=empty, retrieved=retrieved, nan_policy=nan_policy,
        progress=progress,
        position=position, propensity=propensity, clip=clip, snips=snips,
    )
    if overall:
        return evaluate_with_overall(
            lambda **k: evaluate_frame(df, "report", engine_options, kind="report", **k), "report", by, **kw
        )
    result: ResultTable = evaluate_frame(df, "report", engine_options, kind="report", by=by, **kw)
    return result


fill_doc(report)
