"""Paired comparison of models against a baseline: differences, intervals, tests."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any, Literal

import numpy as np
import pandas as pd

from pandas_rankeval.display.table import ResultTable, as_result_table
from pandas_rankeval.core.evaluate import evaluate
from pandas_rankeval.core.options import Options, WeightLike
from pandas_rankeval.core.progress import Progress as _Progress
from pandas_rankeval.core.registry import parse_metrics
from pandas_rankeval.core.result import warn_once
from pandas_rankeval.inference.bootstrap import (
    bootstrap_pvalues,
    check_level,
    check_n_boot,
    flip_rngs,
    holm,
    percentile_interval,
    replicates,
    sign_flip_pvalues,
    strata_of,
)
from pandas_rankeval.inference.delong import METHOD as DELONG_METHOD
from pandas_rankeval.inference.delong import TEST as DELONG_TEST
from pandas_rankeval.inference.delong import delong_compare, delong_unavailable, normal_interval, z_test
from pandas_rankeval.summary.finalize import fallback_note
from pandas_rankeval.core.validation import (
    as_columns,
    check_compare_scores,
    check_n_boot_for_level,
    check_option,
    check_seed,
    internal_error,
)

__all__ = ["compare"]

METHODS = ("auto", "randomization", "bootstrap")
AUC_METHODS = ("delong", "bootstrap")
COLUMNS = [
    "baseline_value", "value", "diff", "lift", "ci_low", "ci_high", "p_value", "p_holm", "significant", "groups_used",
]

_RANDOMIZATION = "paired randomization test (random sign flips of the per-group differences)"
_BOOTSTRAP = "paired bootstrap test over groups (centered replicates of the difference)"


def _ci_method(n_boot: int, strata: bool, analytic: list[str], boot_names: list[str], how: str) -> str:
    kind = "studentized (bootstrap-t)" if how == "studentized" else "percentile"
    boot = f"{kind} paired bootstrap over groups, {n_boot} replicates" + (
        " (stratified by segment)" if strata else ""
    )
    dl = DELONG_METHOD + (" (per segment)" if strata else "")
    if not analytic:
        return boot
    if not boot_names:
        return dl
    return f"{boot}; {', '.join(analytic)}: {dl}"


def _groups_used(ev: Any, groups: np.ndarray, pairs: list[tuple[Hashable, str]], baseline: Hashable) -> np.ndarray:
    """Groups of a stratum behind each (model, metric) row: used by both models (a group
    metric), or all of them (global AUC pools their rows)."""
    out = np.empty(len(pairs), dtype=np.int64)
    for k, (m, n) in enumerate(pairs):
        gm, gb = ev.scores[m].metrics[n], ev.scores[baseline].metrics[n]
        if gm.spec.kind == "auc":
            out[k] = groups.shape[0]
        else:
            out[k] = int((gm.used[groups] & gb.used[groups]).sum())
    return out


def compare(
    df: pd.DataFrame,
    *,
    group: Hashable | Sequence[Hashable],
    label: Hashable,
    scores: Sequence[Hashable],
    baseline: Hashable,
    metrics: str | Sequence[str] = ("auc", "gauc", "mrr", "ndcg@10"),
    by: Hashable | Sequence[Hashable] | None = None,
    ci: float = 0.95,
    n_boot: int = 1000,
    seed: Any = 0,
    method: Literal["auto", "randomization", "bootstrap"] = "auto",
    auc_method: Literal["delong", "bootstrap"] = "delong",
    ci_method: Literal["percentile", "studentized"] = "percentile",
    resample: Literal["poisson", "multinomial"] | None = None,
    alpha: float = 0.05,
    weight: WeightLike = None,
    min_size: int | None = None,
    min_pos: int | None = None,
    min_neg: int | None = None,
    ties: Literal["expected", "pessimistic", "optimistic"] = "expected",
    tiebreak: Hashable | None = None,
    threshold: float | None = None,
    gain: Literal["exp2", "linear"] = "exp2",
    denominator: Literal["relevant", "min_k"] = "relevant",
    empty: Literal["zero", "skip", "error"] = "zero",
    nan_policy: Literal["raise", "omit"] = "raise",
    progress: bool = False,
) -> ResultTable:
    """Compare models with a baseline on the same groups: difference, interval, p-value.

    Every model is paired with the baseline on the same users (queries, sessions):
    the interval of the difference comes from one bootstrap over groups shared by
    both models, and the p-value from a paired test at the group level. p-values
    are adjusted for the number of (model, metric) rows with Holm's method.

    Parameters
    ----------
    df : DataFrame
        One row per shown item.
    group : column or list of columns
        The user, query or session: the unit that is resampled and tested.
    label : column
        Click or graded relevance.
    scores : list of columns
        The score columns to compare, the baseline among them (at least two).
    baseline : column
        The score column every other one is compared with.
    metrics : str or list of str, default=("auc", "gauc", "mrr", "ndcg@10")
        Metric names, as in :func:`report`.
    by : column or list of columns, optional
        Segment columns, constant within a group: one comparison per segment, with
        groups resampled (and signs flipped) within their segment.
    ci : float in (0, 1), default=0.95
        Level of the percentile bootstrap interval of each difference.
    n_boot : int, default=1000
        Bootstrap replicates, and random sign flips of the randomization test.
        p-values are multiples of ``1 / (n_boot + 1)``.
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
        The test of the group metrics. ``"auto"`` and ``"randomization"``: the
        randomization test; ``"bootstrap"``: paired bootstrap p-values. Global AUC
        follows ``auc_method``; with ``auc_method="bootstrap"``, ``"randomization"``
        is an error for ``"auc"``.
    auc_method : {"delong", "bootstrap"}, default="delong"
        Interval and test of global AUC. ``"delong"``: the clustered DeLong
        covariance of the two AUCs (Obuchowski 1997, groups as clusters), a normal
        interval of the difference and a paired z-test, computed in one pass with
        no resampling. ``"bootstrap"``: the paired bootstrap over groups, as for the
        group metrics. DeLong needs ``ties="expected"`` (a tied pair counts 1/2);
        under another tie rule global AUC uses the bootstrap, and
        ``comparison.attrs["test"]`` says so.
    ci_method : {"percentile", "studentized"}, default="percentile"
        Bootstrap interval of the differences of group metrics: the percentile
        interval, or the studentized (bootstrap-t) one, each replicate of the
        difference divided by its delta-method standard error; better with few
        groups or unequal group weights. The p-values do not change.
    alpha : float in (0, 1), default=0.05
        Level of the ``significant`` column (on the Holm-adjusted p-value).
    weight, min_size, min_pos, min_neg, ties, tiebreak, threshold, gain, denominator, empty, nan_policy :
        As in :func:`report`.
    progress : bool, default=False
        Show a progress bar (needs tqdm).

    Returns
    -------
    comparison : ResultTable
        A DataFrame that prints with its tests and choices underneath. One row
        per (model, metric), the baseline left out (with ``by``: the segment
        columns first), columns:

        - ``baseline_value``, ``value``: the metric of the baseline and of the model.
        - ``diff``: ``value - baseline_value``.
        - ``lift``: the relative difference ``diff / baseline_value`` (a fraction; shown
          in %), NaN when the baseline's value is 0.
        - ``ci_low``, ``ci_high``: the interval of ``diff``: the paired bootstrap
          (percentile, or studentized with ``ci_method="studentized"``) for group
          metrics; for global AUC the clustered DeLong normal interval (or the
          bootstrap with ``auc_method="bootstrap"``).
        - ``p_value``: two-sided p-value of the paired test (see Notes); shown as
          ``< 0.001`` (a bound) at the floor ``1 / (n_boot + 1)`` of a resampling test.
        - ``p_holm``: Holm-adjusted over all rows of the table.
        - ``significant``: ``p_holm < alpha``.
        - ``groups_used``: groups behind the row (in its segment): those both models'
          metric uses; for global AUC, every group (their rows are pooled).

        ``comparison.attrs`` describes the tests, the interval, ``n_boot``, ``seed``,
        ``alpha``, the metric options and each metric's coverage (the footer shows them).
        ``comparison.compact()`` shows models side by side, ``comparison.summary()`` a
        models x metrics table with significance marks.

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
    of the ``2^G`` patterns of swaps is equally likely: the randomization test
    draws ``n_boot`` of them (random signs) and reports
    ``p = (1 + #{|T*| >= |T|}) / (1 + n_boot)``, which is exact (a valid p-value
    for any number of groups) with no distributional assumption. It is the paired
    permutation test of the IR literature (Smucker, Allan & Carterette, CIKM 2007)
    at the level of groups, for weighted means.

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
    with the interval: it is small roughly when the interval excludes 0.

    **Multiplicity.** Holm's step-down adjustment over every row of the table
    (models x metrics, and segments): it controls the family-wise error rate under
    any dependence between the tests, which matters here because the metrics of
    one model are strongly correlated.

    Examples
    --------
    >>> import pandas_rankeval as pre
    >>> df = pre.datasets.make_impressions(n_users=300, seed=1)
    >>> res = pre.compare(df, group="user_id", label="click", scores=["model_a", "model_b"],
    ...                   baseline="model_a", metrics=["auc", "gauc", "mrr"], n_boot=500)
    >>> list(res.columns)  # doctest: +NORMALIZE_WHITESPACE
    ['baseline_value', 'value', 'diff', 'lift', 'ci_low', 'ci_high', 'p_value', 'p_holm',
     'significant', 'groups_used']
    >>> res[["baseline_value", "value", "diff"]].round(3)
                    baseline_value  value   diff
    model   metric
    model_b auc        0.830  0.690 -0.140
            gauc       0.605  0.734  0.128
            mrr        0.200  0.234  0.033
    >>> res["significant"].tolist()
    [True, True, True]
    >>> bool((res["ci_low"] <= res["diff"]).all() and (res["diff"] <= res["ci_high"]).all())
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
    func = "compare"
    score_cols = as_columns(scores, "scores", func, df if isinstance(df, pd.DataFrame) else None)
    check_compare_scores(score_cols, baseline, func)
    ci = check_level(ci, "ci", func)
    alpha = check_level(alpha, "alpha", func)
    n_boot = check_n_boot(n_boot, func)
    check_seed(seed, func)
    check_option(method, "method", func, METHODS)
    specs = parse_metrics(metrics if not isinstance(metrics, str) else [metrics])
    check_option(auc_method, "auc_method", func, AUC_METHODS)
    check_option(ci_method, "ci_method", func, ("percentile", "studentized"))
    no_delong = delong_unavailable(ties)
    use_delong = auc_method == "delong" and no_delong is None
    if any(not (use_delong and s.kind == "auc") for s in specs):  # a bootstrapped interval
        check_n_boot_for_level(n_boot, ci, func)
    if method == "randomization" and not use_delong and any(s.kind == "auc" for s in specs):
        raise ValueError(
            "Global AUC has no group-level randomization test (it is not a sum over groups); "
            "use auc_method='delong' (needs ties='expected'), method='auto' (a paired bootstrap "
            "test for 'auc') or method='bootstrap'."
        )
    by_cols = as_columns(by, "by", func, df if isinstance(df, pd.DataFrame) else None) if by is not None else []
    opts = Options(
        func, ties=ties, tiebreak=tiebreak, threshold=threshold, weight=weight,
        min_size=min_size, min_pos=min_pos, min_neg=min_neg,  # type: ignore[arg-type]
        gain=gain, denominator=denominator, empty=empty, nan_policy=nan_policy,
    )
    from pandas_rankeval.engines.pandas import finalize_evaluation
    from pandas_rankeval.summary.plan import make_plan, resolve_resample

    plan = None
    if resolve_resample(resample, ci_method, func) == "poisson":
        # the one-partition case of the summary layer that Dask and Spark share
        plan = make_plan(
            func, kind="compare", group=group, label=label, scores=score_cols, metrics=[s.name for s in specs],
            by=by_cols or None, weight=weight, ci=ci, n_boot=n_boot, seed=seed, resample="poisson",
            baseline=baseline, alpha=alpha, method=method, auc_method=auc_method, ci_method=ci_method, min_size=min_size,
            min_pos=min_pos, min_neg=min_neg, ties=ties, tiebreak=tiebreak, threshold=threshold, gain=gain,
            denominator=denominator, empty=empty, nan_policy=nan_policy, progress=progress,
            df=df if isinstance(df, pd.DataFrame) else None,
        )
    ev = evaluate(
        df, group=group, label=label, scores=score_cols, specs=specs, options=opts,
        keep_order=any(s.kind == "auc" for s in specs), by=by_cols,
    )
    if plan is not None:
        return finalize_evaluation(ev, plan)  # type: ignore[no-any-return]
    names = [s.name for s in specs]
    kinds = {s.name: s.kind for s in specs}
    models = [s for s in score_cols if s != baseline]
    analytic = [n for n in names if kinds[n] == "auc"] if use_delong else []
    boot_names = [n for n in names if n not in analytic]
    items = [(s, n) for s in score_cols for n in boot_names]
    col = {item: j for j, item in enumerate(items)}
    pairs = [(m, n) for m in models for n in names]
    bpairs = [(m, n) for m, n in pairs if n in boot_names]
    at = np.array([pairs.index(pair) for pair in bpairs], dtype=np.int64)
    strata, present = strata_of(ev, items, by_cols, func)
    dl = delong_compare(ev, score_cols, by_cols, func) if analytic else {}
    if by_cols:
        segs = ev.prepared.segments
        if segs is None or present is None:
            raise internal_error("segments need segment codes")
        keys = segs.decode(present)
        stratum_keys = [k if isinstance(k, tuple) else (k,) for k in keys]
    else:
        stratum_keys = [()]

    flip_pairs = []  # pairs tested by sign flips
    for m, n in bpairs:
        if method == "bootstrap" or kinds[n] == "auc":
            continue
        gm, gb = ev.scores[m].metrics[n], ev.scores[baseline].metrics[n]
        # weights and eligibility depend on labels only; checked, not assumed
        if np.array_equal(gm.used, gb.used) and np.array_equal(gm.weights, gb.weights):
            flip_pairs.append((m, n))
    flip_set = set(flip_pairs)
    stud_fallback: dict[str, None] = {}  # bootstrap-t intervals that fell back to percentile

    total = n_boot * len(strata) * ((1 if bpairs else 0) + (1 if flip_pairs else 0))
    bar = _Progress(progress, total, func)
    try:
        studentized = ci_method == "studentized" and bool(bpairs)
        if studentized:
            from pandas_rankeval.inference.studentized import (
                StudentizedStratum, studentized_fallback, studentized_interval,
            )

            targets = [[(col[(m, n)], 1.0), (col[(baseline, n)], -1.0)] for m, n in bpairs]
            wrapped = [StudentizedStratum(st, targets) for st in strata]
            reps = replicates(wrapped, n_boot=n_boot, seed=seed, progress=bar)  # type: ignore[arg-type]
        elif bpairs:
            reps = replicates(strata, n_boot=n_boot, seed=seed, progress=bar)
        flips = flip_rngs(seed, len(strata))
        blocks = []
        for s_idx, stratum in enumerate(strata):
            base, value, diff, lo, hi, p = (np.full(len(pairs), np.nan) for _ in range(6))
            if analytic:  # clustered DeLong: the AUCs and their covariance, no resampling
                auc, cov = dl[stratum_keys[s_idx]]
                for i, (m, n) in enumerate(pairs):
                    if n in analytic:
                        jm, jb = score_cols.index(m), score_cols.index(baseline)
                        base[i], value[i] = auc[jb], auc[jm]
                        diff[i] = auc[jm] - auc[jb]
                        var = cov[jm, jm] + cov[jb, jb] - 2.0 * cov[jm, jb]
                        lo[i], hi[i] = normal_interval(diff[i], var, ci)
                        p[i] = z_test(diff[i], var)
            groups_used = _groups_used(ev, stratum.groups, pairs, baseline)
            if not bpairs:
                blocks.append((base, value, diff, lo, hi, p, groups_used))
                continue
            point = stratum.point()
            jm = np.array([col[(m, n)] for m, n in bpairs])
            jb = np.array([col[(baseline, n)] for _, n in bpairs])
            base[at], value[at] = point[jb], point[jm]
            diff[at] = value[at] - base[at]
            d_reps = reps[s_idx][:, jm] - reps[s_idx][:, jb]
            if studentized:
                k = len(items)
                se0 = wrapped[s_idx].point()[k:]
                lo[at], hi[at] = studentized_interval(diff[at], se0, d_reps, reps[s_idx][:, k:], ci, bounds=(-1.0, 1.0))
                fell = studentized_fallback(se0, d_reps, reps[s_idx][:, k:]) & np.isfinite(diff[at])
                stud_fallback.update((f"{m}/{n}", None) for (m, n), f in zip(bpairs, fell) if f)
            else:
                lo[at], hi[at] = percentile_interval(d_reps, ci)
            p[at] = bootstrap_pvalues(diff[at], d_reps)
            if flip_pairs:
                g = stratum.groups
                wd = np.empty((stratum.n, len(flip_pairs)))
                for k, (m, n) in enumerate(flip_pairs):
                    gm, gb = ev.scores[m].metrics[n], ev.scores[baseline].metrics[n]
                    used = gm.used[g]
                    wd[:, k] = np.where(used, gm.weights[g] * (gm.values[g] - gb.values[g]), 0.0)
                p_flip = sign_flip_pvalues(wd, flips[s_idx], n_boot, bar)
                for k, pair in enumerate(flip_pairs):
                    p[pairs.index(pair)] = p_flip[k]
            p = np.where(np.isfinite(diff), p, np.nan)
            blocks.append((base, value, diff, lo, hi, p, groups_used))
    finally:
        bar.close()

    if by_cols:  # segments in key order, as in report
        try:
            order = np.asarray(keys.argsort())
        except TypeError:  # keys that do not compare: order of appearance
            order = np.arange(len(keys))
        keys = keys[order]
        blocks = [blocks[i] for i in order]
    columns = ("baseline_value", "value", "diff", "ci_low", "ci_high", "p_value", "groups_used")
    data = {c: np.concatenate([b[i] for b in blocks]) for i, c in enumerate(columns)}
    with np.errstate(divide="ignore", invalid="ignore"):
        data["lift"] = np.where(data["baseline_value"] != 0, data["diff"] / data["baseline_value"], np.nan)
    data["p_holm"] = holm(data["p_value"])
    data["significant"] = np.nan_to_num(data["p_holm"], nan=1.0) < alpha
    pair_tuples = [(m, n) for m, n in pairs]
    if by_cols:
        tuples = [
            (*(key if isinstance(key, tuple) else (key,)), m, n)
            for key in keys
            for m, n in pair_tuples
        ]
        index = pd.MultiIndex.from_tuples(tuples, names=[*by_cols, "model", "metric"])
    else:
        index = pd.MultiIndex.from_tuples(pair_tuples, names=["model", "metric"])
    out = pd.DataFrame(data, index=index)[COLUMNS]

    tests = {
        n: _BOOTSTRAP if method == "bootstrap" or kinds[n] == "auc" else _RANDOMIZATION for n in names
    }
    for n in names:
        if n in analytic:
            tests[n] = DELONG_TEST
        elif kinds[n] == "auc" and auc_method == "delong":
            tests[n] = f"{_BOOTSTRAP}; {no_delong}"
    fallback = [f"{m}/{n}" for m, n in pairs if kinds[n] != "auc" and method != "bootstrap" and (m, n) not in flip_set]
    if fallback:  # pragma: no cover - weights never depend on scores
        tests["bootstrap_fallback"] = fallback
    out.attrs = {
        "baseline": baseline,
        "test": tests,
        "ci_method": _ci_method(n_boot, bool(by_cols), analytic, boot_names, ci_method)
        + (fallback_note(list(stud_fallback)) if stud_fallback else ""),
        "ci": ci,
        "n_boot": n_boot,
        "seed": seed if isinstance(seed, (int, np.integer)) or seed is None else repr(seed),
        "alpha": alpha,
        "multiple_testing": "Holm over all rows",
        "params": {s.name: opts.params(s) for s in specs},
        "coverage": {n: ev.scores[baseline].metrics[n].coverage.as_dict() for n in names},
        "table": "compare",
    }
    if stud_fallback:
        out.attrs["percentile_fallback"] = list(stud_fallback)
    # coverage depends on the labels only: one warning, not one per model
    first = ev.scores[baseline].metrics
    warn_once(func, [(n, first[n].value, first[n].coverage) for n in names])
    return as_result_table(out, "compare")
