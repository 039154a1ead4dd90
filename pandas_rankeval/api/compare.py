"""Paired comparison of models against a baseline: differences, intervals, tests."""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import Any, Literal

from pandas_rankeval.core.inputs.options import WeightLike
from pandas_rankeval.core.metrics.registry import DEFAULT_METRICS
from pandas_rankeval.display.table import ResultTable
from pandas_rankeval.inference.bootstrap import check_level

from .dispatch import EngineOptions, evaluate_frame
from .overall import check_overall, evaluate_with_overall
from .docs import fill_doc

__all__ = ["compare"]


def compare(
    df: Any,
    *,
    group: Hashable | Sequence[Hashable] | None = None,
    label: Hashable,
    scores: Sequence[Hashable],
    baseline: Hashable | None = None,
    metrics: str | Sequence[str] = DEFAULT_METRICS,
    by: Hashable | Sequence[Hashable] | None = None,
    overall: bool = False,
    ci: float = 0.95,
    n_boot: int = 1000,
    seed: Any = 0,
    method: Literal["auto", "randomization", "bootstrap"] = "auto",
    auc_method: Literal["delong", "bootstrap"] = "delong",
    ci_method: Literal["percentile", "studentized"] = "percentile",
    resample: Literal["poisson", "multinomial"] | None = None,
    alpha: float = 0.05,
    adjust: Literal["holm", "bh", "none"] = "holm",
    family: Literal["table", "metric"] = "table",
    ci_adjust: Literal["none", "bonferroni"] = "none",
    lift: Literal["relative", "relaimpr"] = "relative",
    weight: WeightLike = None,
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
    """Compare models on the same groups: difference, interval, p-value.

    Every model is paired with the baseline (or, with ``baseline=None``, with every
    other model) on the same users (queries, sessions): the interval of the difference
    comes from one bootstrap over groups shared by both models, and the p-value from a
    paired test at the group level that no number of replicates bounds. p-values are
    adjusted for the number of rows of the table with Holm's method (or
    Benjamini-Hochberg, or none), over the whole table or per metric.

    Parameters
    ----------
{frame}
{group_optional}
{label_click}
    scores : list of columns
        The score columns to compare, the baseline among them (at least two).
    baseline : column or None, default=None
        The score column every other one is compared with. ``None``: every pair of
        score columns, each later one against each earlier one (``k (k - 1) / 2`` rows
        per metric and segment, all in one family of tests); the index then has a
        ``baseline`` level.
    metrics : str or list of str, default={default_metrics}
        Metric names, as in :func:`report`.
    by : column or list of columns, optional
        Segment columns, constant within a group: one comparison per segment, with
        groups resampled (and signs flipped) within their segment.
{overall}
    ci : float in (0, 1), default=0.95
        Level of the percentile bootstrap interval of each difference.
    n_boot : int, default=1000
        Bootstrap replicates of the intervals (and, with ``method="randomization"``,
        random sign flips, whose p-values are multiples of ``1 / (n_boot + 1)``).
    seed : int or None, default=0
        Seed of the bootstrap and of the sign flips; the same seed gives the same
        table, and the same bootstrap replicates as ``report(..., ci=..., seed=seed)``.
    resample : {"poisson", "multinomial"}, optional
        How the bootstrap draws groups (and the randomization test its signs).
        ``"poisson"`` (the default): Poisson(1) group weights and random signs from a
        stable hash of (seed, group key, replicate), so the table does not depend on
        how the rows are ordered or partitioned, and the same seed gives the same
        table on pandas, Dask and Spark. ``"multinomial"``: the classic bootstrap
        that draws exactly as many groups as there are (per segment with ``by``),
        and signs from :func:`numpy.random.default_rng`. Every ``ci_method`` works
        with both.
    method : {"auto", "randomization", "bootstrap"}, default="auto"
        The test of the group metrics. ``"auto"``: the paired sign-flip test with its
        p-value from the exact sign-flip distribution (every one of the ``2^G`` sign
        patterns when at most 30 groups differ, an accurate tail approximation
        otherwise; see Notes), never bounded by a number of replicates.
        ``"randomization"``: the same test by Monte Carlo, ``n_boot`` hashed random
        sign flips (p-values are multiples of ``1 / (n_boot + 1)``). ``"bootstrap"``:
        paired bootstrap p-values, too small with few groups (under two equal models
        p < 0.05 in 16% of simulated tests at 5 groups, 8% at 30, 6% at 50: a
        ``CoverageWarning`` says so below 50 groups). Global AUC follows ``auc_method``; with
        ``auc_method="bootstrap"``, ``"randomization"`` is an error for ``"auc"``.
    auc_method : {"delong", "bootstrap"}, default="delong"
        Interval and test of global AUC. ``"delong"``: the clustered DeLong
        covariance of the two AUCs (Obuchowski 1997, groups as clusters), a normal
        interval of the difference and a paired z-test, computed in one pass with
        no resampling. ``"bootstrap"``: the paired bootstrap over groups, as for the
        group metrics. DeLong needs ``ties="expected"`` (a tied pair counts 1/2);
        under another tie rule global AUC uses the bootstrap, and
        ``comparison.attrs["test"]`` says so. With ``sample_weight`` both methods
        test the weighted AUC (DeLong with sample-weighted placements).
    ci_method : {"percentile", "studentized"}, default="percentile"
        Bootstrap interval of the differences of group metrics: the percentile
        interval, or the studentized (bootstrap-t) one, each replicate of the
        difference divided by its delta-method standard error; better with few
        groups or unequal group weights. The p-values do not change.
    alpha : float in (0, 1), default=0.05
        Level of the ``significant`` column (on the adjusted p-value).
    adjust : {"holm", "bh", "none"}, default="holm"
        Multiple-testing adjustment: Holm's step-down (family-wise error rate, under
        any dependence between the tests), Benjamini-Hochberg's step-up (false
        discovery rate), or none. The adjusted column is ``p_holm`` or ``p_bh``
        (none: no such column, ``significant`` reads ``p_value``).
    family : {"table", "metric"}, default="table"
        The family the adjustment runs over: every row of the table, or the rows of
        each metric separately (models x segments). Named in the footer.
    ci_adjust : {"none", "bonferroni"}, default="none"
        The intervals' multiplicity: each at level ``ci`` (unadjusted: the footer says
        so next to the adjusted marks), or Bonferroni-adjusted over the same family as
        ``adjust`` (``m`` rows: each interval at level ``1 - (1 - ci) / m``), so that
        all of them hold together with probability at least ``ci``. Each side of the
        unadjusted interval is stretched away from ``diff`` by
        ``z_{1 - (1 - ci) / (2m)} / z_{(1 + ci) / 2}`` (DeLong's normal interval becomes
        exactly the Bonferroni one), so the bootstrap never has to reach the far tail
        that ``(1 - ci) / (2m)`` asks of ``n_boot`` replicates. The marks still come from
        the paired tests, so near the edge an interval and a mark can disagree; the
        simultaneous intervals make that rare (``benchmarks/sim_ci_adjust.py``).
    lift : {"relative", "relaimpr"}, default="relative"
        What the ``lift`` column holds. ``"relative"``: ``diff / baseline_value``.
        ``"relaimpr"``: RelaImpr (Zhou et al., KDD 2018, the DIN paper),
        ``(value - 0.5) / (baseline_value - 0.5) - 1``, for the metrics whose random
        ranking scores 0.5 (``auc``, ``gauc``, ``uauc``, ``wuauc``, ``xauc``, ``gxauc``);
        the other metrics keep the relative lift. The table then has the lift's interval
        too (``lift_low``, ``lift_high``): the lift computed on each of the same paired
        bootstrap replicates as the interval of ``diff`` (percentile), and for global AUC
        under clustered DeLong the delta method on the same covariance matrix. RelaImpr
        is undefined (NaN, said in the footer) where the baseline's value is at most 0.5,
        and its interval where a replicate's is; Bonferroni's ``ci_adjust`` leaves the
        lift's interval at level ``ci``.
    weight, min_size, min_pos, min_neg, ties, tiebreak, threshold, sample_weight, gain, denominator, empty, nan_policy, retrieved :
        As in :func:`report`.
{progress}
    position, propensity, clip, snips :
        The options of the counterfactual metrics (``ips_dcg@K``, ``ips_precision@K``,
        ``ips_hit_rate@K``): the logged position column, the propensities, the smallest
        propensity used and self-normalization; see :func:`ips_dcg`.
{engine_options}

    Returns
    -------
    comparison : ResultTable
        A DataFrame that prints with its tests and choices underneath. One row
        per (model, metric), the baseline left out (with ``by``: the segment
        columns first; with ``baseline=None``: one row per (model, baseline,
        metric) for every pair), columns:

        - ``baseline_value``, ``value``: the metric of the baseline and of the model.
        - ``diff``: ``value - baseline_value``.
        - ``lift``: the relative difference ``diff / baseline_value`` (a fraction; shown
          in %), NaN when the baseline's value is 0; with ``lift="relaimpr"``, RelaImpr
          on the AUC-type metrics, and its interval ``lift_low``, ``lift_high``.
        - ``ci_low``, ``ci_high``: the interval of ``diff``: the paired bootstrap
          (percentile, or studentized with ``ci_method="studentized"``) for group
          metrics; for global AUC the clustered DeLong normal interval (or the
          bootstrap with ``auc_method="bootstrap"``).
        - ``p_value``: two-sided p-value of the paired test (see Notes); shown as
          ``< 0.001`` (a bound) at the floor ``1 / (n_boot + 1)`` of a resampling test
          (``method="randomization"`` or ``"bootstrap"``), in scientific notation
          below 1e-4.
        - ``p_holm``: Holm-adjusted over the family (``p_bh`` with ``adjust="bh"``;
          no column with ``adjust="none"``).
        - ``significant``: adjusted p-value ``< alpha``.
        - ``groups_used``: groups behind the row (in its segment): those both models'
          metric uses; for global AUC, every group (their rows are pooled).

        ``comparison.attrs`` describes the tests, the interval, ``n_boot``, ``seed``,
        ``alpha``, the adjustment (``adjust``, ``family``, ``p_adjusted``: the column,
        ``multiple_testing``: in words), the pairs (``pairs``: "baseline" or "all"),
        the metric options and each metric's coverage (the footer shows them).
        ``comparison.compact()`` shows models side by side, ``comparison.summary()`` a
        models x metrics table with significance marks (with ``baseline=None``: who
        beats whom, per metric).

    Notes
    -----
    **Unit.** Groups (users, queries) are the independent units; rows of one group
    are not. Resampling or testing rows would understate the uncertainty.

    **Interval.** The percentile interval of ``diff* = value* - baseline*`` over
    ``n_boot`` bootstrap replicates that resample groups. By default
    (``resample="poisson"``) replicate b weighs group g by a Poisson(1) count drawn
    from a hash of (seed, group key, b) (the Poisson bootstrap, Hanley & MacGibbon
    2006; Chamandy et al. 2012): the draws do not depend on the row order or on how
    the data are partitioned, so pandas, Dask and Spark give the same table for a
    seed. ``resample="multinomial"`` draws as many groups as there are, with
    replacement (within each segment with ``by``); both are the group bootstrap and
    agree as the number of groups grows (``tests/test_stats.py`` and
    ``tests/test_compare.py`` check coverage and false positives by simulation).
    Both models, and every metric, use the same resampled
    groups in a replicate, so the interval accounts for their correlation. With
    ``ci_method="studentized"`` each replicate is divided by its own delta-method
    standard error (the bootstrap-t interval ``[D - t*_hi se, D - t*_lo se]``), which
    holds its level better with few groups and unequal group weights. Global AUC:
    ``D -/+ z se(D)`` with the clustered DeLong ``se(D)`` (see below).

    **Test of a group metric** (GAUC, MRR, NDCG, MAP, precision, recall, hit rate).
    The metric is ``sum_g w_g v_g / sum_g w_g`` over the used groups, where the
    weights ``w_g`` and which groups are used depend on the labels only, never on
    the scores. So ``diff = sum_g w_g d_g / sum_g w_g`` with
    ``d_g = v_g(model) - v_g(baseline)``, and swapping the two models' scores
    inside group g flips the sign of ``d_g`` and nothing else. Under the null
    hypothesis that the two models are exchangeable within each group, every one
    of the ``2^G`` patterns of swaps is equally likely: given the sizes
    ``|w_g d_g|``, the signs of ``T = sum_g w_g d_g`` are independent fair coins.
    This is the paired permutation test of the IR literature (Smucker, Allan &
    Carterette, CIKM 2007) at the level of groups, for weighted means, and its
    null distribution is known: the default (``method="auto"``) computes
    ``p = P(|T*| >= |T|)`` from it. With at most 30 groups whose difference is not
    zero, exactly, by counting all ``2^G`` patterns (ties included); with more,
    from the 12 largest terms enumerated and the rest approximated by a normal law
    with its exact variance, an Edgeworth correction from its exact fourth cumulant
    and a continuity correction on lattices (hit rate's ``d_g`` in {-1, 0, 1}); but
    when the weighted differences take at most 64 distinct sizes, all multiples of one
    unit, the tail is exact again: a convolution of scaled binomials. The
    approximation stays close to the exact tail where both can be computed (31-38
    groups: approximate / exact p between 1.00 and 1.03 for gauc, mrr and ndcg down to
    the 0.01% tail, up to 1.16, on the side of caution, for hit rate and precision;
    ``tests/test_pvalues.py``), and the test holds its level at 30, 300 and 30,000
    groups (``tests/test_compare_sim.py``, ``benchmarks/sim_compare.py``). A
    difference within ``1e-12`` of zero (float rounding) is zero: a model compared
    with a copy of itself gets ``p = 1``. All it needs are sums over groups (count,
    ``sum a``, ``sum a^2``, ``sum a^4``) and the 30 largest ``|a_g|``, so Dask and
    Spark give the same p-values. ``method="randomization"`` draws ``n_boot`` hashed
    sign patterns instead and reports ``p = (1 + #{|T*| >= |T|}) / (1 + n_boot)``,
    which is valid but can never go below ``1 / (n_boot + 1)``: after adjustment for
    many rows, no difference could be significant.

    **Test of global AUC.** Global AUC compares rows across groups, so it is not a
    sum of per-group terms, and swapping the scores within a group mixes the two
    models' score scales in one ranking: such a test depends on how the two models
    are calibrated relative to each other, which AUC itself ignores. By default
    (``auc_method="delong"``) the variance of the difference is the clustered
    DeLong one: every row's placement value (its share of the other class beaten,
    ties counting 1/2) is summed per group, and Obuchowski's (1997) estimator of
    the variances and the covariance of the two AUCs treats groups as the
    independent units; ``z = D / se(D)``, ``p = 2 (1 - Phi(|z|))`` and the interval
    is ``D -/+ z_{(1+ci)/2} se(D)``. Row-level DeLong (pROC's ``roc.test``) would
    treat the rows of one user as independent and understate the variance. With
    ``auc_method="bootstrap"`` global AUC gets a paired bootstrap test: with ``D`` the observed difference and
    ``D*`` its replicates (the same replicates as the interval),
    ``p = (1 + #{|D* - D| >= |D|}) / (1 + n_boot)``, the centered bootstrap test
    (Hall & Wilson 1991). It is approximate (asymptotic in the number of groups),
    invariant to monotone transforms of either model's scores, and consistent
    with the interval: it is small roughly when the interval excludes 0. Global
    XAUC (``"xauc"``, a continuous label) is tested the same clustered DeLong way
    whatever ``auc_method`` and ``ties`` say (they are global AUC's): each row's
    placement is its credit against every row of another label, summed per group.

    **Multiplicity.** By default Holm's step-down adjustment over every row of the
    table (model pairs x metrics, and segments): it controls the family-wise error
    rate under any dependence between the tests, which matters here because the
    metrics of one model are strongly correlated. ``adjust="bh"`` controls the false
    discovery rate instead (Benjamini-Hochberg; valid under the positive dependence
    of metrics that move together), ``family="metric"`` adjusts each metric's rows
    separately. The footer names the adjustment and its family.

    Examples
    --------
    >>> import pandas_rankeval as pre
    >>> df = pre.datasets.make_impressions(n_users=300, seed=1)
    >>> res = pre.compare(
    ...     df,
    ...     group="user_id",
    ...     label="click",
    ...     scores=["model_a", "model_b"],
    ...     baseline="model_a",
    ...     metrics=["auc", "gauc", "mrr"],
    ...     n_boot=500,
    ... )
    >>> list(res.columns)  # doctest: +NORMALIZE_WHITESPACE
    ['baseline_value', 'value', 'diff', 'lift', 'ci_low', 'ci_high', 'p_value',
     'p_holm', 'significant', 'groups_used']
    >>> res[["baseline_value", "value", "diff"]].round(3)
                    baseline_value  value   diff
    model   metric
    model_b auc        0.830  0.690 -0.140
            gauc       0.605  0.734  0.128
            mrr        0.200  0.234  0.033
    >>> res["significant"].tolist()
    [True, True, True]
    >>> bool(
    ...     (res["ci_low"] <= res["diff"]).all()
    ...     and (res["diff"] <= res["ci_high"]).all()
    ... )
    True
    >>> print(res.summary())  # doctest: +NORMALIZE_WHITESPACE +ELLIPSIS
    model                    auc      gauc       mrr
    model_a (baseline)    0.8301    0.6054    0.2001
    model_b             ▼ 0.6903  ▲ 0.7335  ▲ 0.2335
    <BLANKLINE>
    ▲ / ▼: significantly better / worse than model_a: Holm-adjusted p < 0.05 over
      the 3 comparisons
    ...
    """
    if ci is None:  # make_plan's default level is for callers of the summary layer, not for compare
        check_level(ci, "ci", "compare")
    check_overall(overall, by, "compare")
    kw: dict[str, Any] = dict(
        group=group, label=label, scores=scores, baseline=baseline, metrics=metrics, ci=ci,
        n_boot=n_boot, seed=seed, method=method, auc_method=auc_method, ci_method=ci_method,
        resample=resample, alpha=alpha, adjust=adjust, family=family, ci_adjust=ci_adjust, lift=lift, weight=weight, min_size=min_size,
        min_pos=min_pos, min_neg=min_neg, ties=ties, tiebreak=tiebreak, threshold=threshold, sample_weight=sample_weight, gain=gain,
        denominator=denominator, empty=empty, retrieved=retrieved, nan_policy=nan_policy, progress=progress,
        position=position, propensity=propensity, clip=clip, snips=snips,
    )
    if overall:
        return evaluate_with_overall(
            lambda **k: evaluate_frame(df, "compare", engine_options, kind="compare", **k), "compare", by, **kw
        )
    result: ResultTable = evaluate_frame(df, "compare", engine_options, kind="compare", by=by, **kw)
    return result


fill_doc(compare)
