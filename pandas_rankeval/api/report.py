"""Many metrics over many score columns in one call, overall or per segment."""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from typing import Any, Literal

import numpy as np
import pandas as pd

from pandas_rankeval.core import ranking as E
from pandas_rankeval.display.table import ResultTable, as_result_table
from pandas_rankeval.core.evaluate import Evaluation, GroupValues, evaluate, segment_of_groups
from pandas_rankeval.core.options import Options, WeightLike
from pandas_rankeval.core.registry import parse_metrics
from pandas_rankeval.core.result import warn_once
from pandas_rankeval.core.validation import as_columns, check_n_boot_for_level, check_option, check_seed, internal_error

__all__ = ["report"]

DEFAULT_METRICS = ("auc", "gauc", "mrr", "ndcg@10")


def _rows(
    ev: Evaluation,
    score: Hashable,
    names: list[str],
    used_groups: np.ndarray | None,
    row_mask: np.ndarray | None,
) -> dict[str, Any]:
    """One row of the report: metric values and coverage for a score (and segment)."""
    se = ev.scores[score]
    out: dict[str, Any] = {}
    for name in names:
        gv: GroupValues = se.metrics[name]
        if gv.spec.kind == "auc":
            if row_mask is None:
                out[name] = gv.value
            else:
                if se.order is None or se.rank is None:
                    raise internal_error("segment AUC needs the score order")
                sel = row_mask[se.order]
                sw = ev.prepared.extra.get(ev.options.sample_weight) if ev.options.sample_weight else None
                u, wp, wn = E.global_auc(se.order[sel], se.rank[sel], ev.labels.rel, sw)
                out[name] = u / (wp * wn) if wp > 0 and wn > 0 else math.nan
            continue
        used = gv.used if used_groups is None else gv.used & used_groups
        w = gv.weights[used]
        total = float(w.sum())
        out[name] = float(np.dot(w, gv.values[used]) / total) if total > 0 else math.nan
    stats = ev.group_stats
    in_seg = slice(None) if used_groups is None else used_groups
    if stats:
        rows = np.asarray(stats["n"])[in_seg]
        out["n_groups"] = int(rows.shape[0])
        out["n_rows"] = int(rows.sum())
    else:  # global AUC only: no per-group table was built
        if used_groups is not None:
            out["n_groups"] = int(used_groups.sum())
        out["n_rows"] = int(row_mask.sum()) if row_mask is not None else ev.prepared.n_rows
    gauc_names = [n for n in names if se.metrics[n].spec.kind == "gauc"]
    if gauc_names:
        used = se.metrics[gauc_names[0]].used[in_seg]
        out["gauc_groups_used"] = int(used.sum())
        out["gauc_rows_skipped"] = float(rows[~used].sum() / max(rows.sum(), 1))
    if any(se.metrics[n].spec.kind not in ("auc", "gauc") for n in names):
        pos = np.asarray(stats["positives"])[in_seg]
        out["groups_no_relevant"] = int((pos == 0).sum())
    if ev.prepared.n_dropped:
        out["rows_dropped"] = ev.prepared.n_dropped
    return out


def report(
    df: pd.DataFrame,
    *,
    group: Hashable | Sequence[Hashable],
    label: Hashable,
    scores: Hashable | Sequence[Hashable],
    metrics: str | Sequence[str] = DEFAULT_METRICS,
    by: Hashable | Sequence[Hashable] | None = None,
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
    gain: Literal["exp2", "linear"] = "exp2",
    denominator: Literal["relevant", "min_k"] = "relevant",
    empty: Literal["zero", "skip", "error"] = "zero",
    nan_policy: Literal["raise", "omit"] = "raise",
    progress: bool = False,
) -> ResultTable:
    """Compare score columns on many metrics at once, overall or per segment.

    Each score column is sorted once; every metric is a reduction over that sort.

    Parameters
    ----------
    df : DataFrame
        One row per shown item.
    group : column or list of columns
        The user, query or session.
    label : column
        Click or graded relevance.
    scores : column or list of columns
        The models to compare, one score column each.
    metrics : str or list of str, default=("auc", "gauc", "mrr", "ndcg@10")
        Metric names: ``"auc"``, ``"gauc"``, ``"mrr"``, ``"mrr@K"``, ``"ndcg"``,
        ``"ndcg@K"``, ``"map"``, ``"map@K"``, ``"precision@K"``, ``"recall@K"``,
        ``"hit_rate@K"``.
    by : column or list of columns, optional
        Segment columns, constant within a group (country, device, activity
        bucket): one row per (segment, model).
    weight : weight option, optional
        Group weights for every group metric; default: "count" for GAUC and
        "uniform" for the list metrics.
    ci : float in (0, 1), optional
        Add a confidence interval (``<metric>_low``, ``<metric>_high``) for every
        metric: a percentile bootstrap resampling groups for the group metrics, and
        for global AUC the method of ``auc_method``. ``report.attrs["ci"]["method"]``
        names what was used. See :func:`compare` for the methods.
    auc_method : {"delong", "bootstrap"}, default="delong"
        Interval of global AUC. ``"delong"``: the clustered DeLong variance
        (Obuchowski 1997, groups as clusters; per segment with ``by``) and a normal
        interval clipped to [0, 1], in one pass with no resampling (NaN when fewer
        than two groups of the segment hold a relevant row, or a non-relevant row).
        ``"bootstrap"``: the percentile bootstrap over groups. DeLong needs
        ``ties="expected"``; under another tie rule global AUC uses the bootstrap
        and the method in ``report.attrs["ci"]`` says so.
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
    min_size, min_pos, min_neg, ties, tiebreak, threshold, gain, denominator, empty, nan_policy :
        As in the single-metric functions.
    progress : bool, default=False
        Show a progress bar for the bootstrap (needs tqdm).

    Returns
    -------
    report : ResultTable
        A DataFrame that prints with its coverage and choices underneath. One row per score column (index ``model``; with ``by``, a MultiIndex of
        the segment columns and ``model``), one column per metric, then the
        coverage: ``n_groups``, ``n_rows``, ``gauc_groups_used`` and
        ``gauc_rows_skipped`` (with GAUC), ``groups_no_relevant`` (with list
        metrics), ``rows_dropped`` (with ``nan_policy="omit"``). The choices
        (ties, weights, ...) are in ``report.attrs["params"]``.

    Examples
    --------
    >>> import pandas_rankeval as pre
    >>> df = pre.datasets.make_impressions(n_users=300, seed=1)
    >>> rep = pre.report(df, group="user_id", label="click", scores=["model_a", "model_b"],
    ...                  metrics=["auc", "gauc", "ndcg@10"])
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
    coverage: 5,806 rows in 300 groups; gauc uses 52, not the 248 groups with one
      class only (13.3% of rows)
    ndcg@10: 214 of 300 groups (71%) have no relevant row and score 0 (empty='zero',
      as trec_eval; ranx skips them: empty='skip')
    (+4 lines of details: .to_text(footer='full'))

    ``compact()`` puts metrics in rows and models side by side (intervals, with ``ci=``,
    in the cell of their estimate), here with the difference to a baseline:

    >>> print(rep.compact(baseline="model_a"))  # doctest: +NORMALIZE_WHITESPACE +ELLIPSIS
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
    percentile bootstrap over groups...; auc: clustered DeLong over groups (Obuchowski 1997), normal interval
    """
    func = "report"
    specs = parse_metrics(metrics if not isinstance(metrics, str) else [metrics])
    score_cols = as_columns(scores, "scores", func, df if isinstance(df, pd.DataFrame) else None)
    by_cols = as_columns(by, "by", func, df if isinstance(df, pd.DataFrame) else None) if by is not None else []
    opts = Options(
        func, ties=ties, tiebreak=tiebreak, threshold=threshold, weight=weight,
        min_size=min_size, min_pos=min_pos, min_neg=min_neg,  # type: ignore[arg-type]
        gain=gain, denominator=denominator, empty=empty, nan_policy=nan_policy,
    )
    check_option(auc_method, "auc_method", func, ("delong", "bootstrap"))
    check_option(ci_method, "ci_method", func, ("percentile", "studentized"))
    if ci is not None:
        from pandas_rankeval.inference.delong import delong_unavailable
        from pandas_rankeval.inference.bootstrap import check_level, check_n_boot

        ci = check_level(ci, "ci", func)
        check_seed(seed, func)
        delong_auc = auc_method == "delong" and delong_unavailable(ties) is None
        if any(not (delong_auc and s.kind == "auc") for s in specs):  # a metric is bootstrapped
            check_n_boot_for_level(check_n_boot(n_boot, func), ci, func)
    from pandas_rankeval.engines.pandas import finalize_evaluation
    from pandas_rankeval.summary.plan import make_plan, resolve_resample

    plan = None
    if ci is None or resolve_resample(resample, ci_method, func) == "poisson":
        # the one-partition case of the summary layer that Dask and Spark share
        plan = make_plan(
            func, kind="report", group=group, label=label, scores=score_cols, metrics=[s.name for s in specs],
            by=by_cols or None, weight=weight, ci=ci, n_boot=n_boot, seed=seed, resample="poisson",
            auc_method=auc_method, ci_method=ci_method, min_size=min_size, min_pos=min_pos, min_neg=min_neg, ties=ties,
            tiebreak=tiebreak, threshold=threshold, gain=gain, denominator=denominator, empty=empty,
            nan_policy=nan_policy, progress=progress, df=df if isinstance(df, pd.DataFrame) else None,
        )
    need_rows = bool(by_cols) or ci is not None
    ev = evaluate(
        df, group=group, label=label, scores=score_cols, specs=specs, options=opts,
        keep_order=need_rows, by=by_cols,
    )
    if plan is not None:
        return finalize_evaluation(ev, plan)  # type: ignore[no-any-return]
    names = [s.name for s in specs]
    rows: list[dict[str, Any]] = []
    index: list[Any] = []
    if by_cols:
        seg_of_group = segment_of_groups(ev, by_cols, func)
        segs = ev.prepared.segments
        if segs is None:
            raise internal_error("segments need segment codes")
        present = np.unique(seg_of_group)
        seg_keys = segs.decode(present)
        try:  # segments in key order (country "de" before "fr"), models in the order given
            by_key = seg_keys.argsort()
            present, seg_keys = present[by_key], seg_keys[by_key]
        except TypeError:  # keys that do not compare: keep the order of appearance
            pass
        for code, key in zip(present, seg_keys):
            in_seg = seg_of_group == code
            row_mask = segs.codes == code
            for s in score_cols:
                rows.append(_rows(ev, s, names, in_seg, row_mask))
                index.append((*(key if isinstance(key, tuple) else (key,)), s))
        idx: pd.Index = pd.MultiIndex.from_tuples(index, names=[*by_cols, "model"])
    else:
        for s in score_cols:
            rows.append(_rows(ev, s, names, None, None))
        idx = pd.Index(score_cols, name="model", tupleize_cols=False)  # tuple names stay names
    out = pd.DataFrame(rows, index=idx)
    if ci is not None:
        from pandas_rankeval.inference.delong import METHOD, delong_report, delong_unavailable
        from pandas_rankeval.inference.bootstrap import bootstrap_report

        no_delong = delong_unavailable(ties)
        analytic = [s.name for s in specs if s.kind == "auc"] if auc_method == "delong" and no_delong is None else []
        boot = [n for n in names if n not in analytic]
        if boot:
            out = bootstrap_report(
                ev, out, boot, by_cols, ci=ci, n_boot=n_boot, seed=seed, progress=progress, ci_method=ci_method
            )
        if analytic:
            out = delong_report(ev, out, analytic, by_cols, ci=ci)
            dl = METHOD + (" (per segment)" if by_cols else "")
            if boot:
                info = dict(out.attrs["ci"])
                info["method"] = f"{info['method']}; {', '.join(analytic)}: {dl}"
            else:
                info = {"level": ci, "method": dl}
            out.attrs["ci"] = info
        elif auc_method == "delong" and any(s.kind == "auc" for s in specs):
            info = dict(out.attrs["ci"])
            info["method"] = f"{info['method']} (auc too: {no_delong})"
            out.attrs["ci"] = info
    out.attrs["params"] = {name: opts.params(spec) for name, spec in zip(names, specs)}
    out.attrs["coverage"] = {name: ev.scores[score_cols[0]].metrics[name].coverage.as_dict() for name in names}
    out = as_result_table(out, "report")
    # which groups a metric uses depends on the labels only: one warning covers every model
    first = ev.scores[score_cols[0]].metrics
    warn_once(func, [(name, first[name].value, first[name].coverage) for name in names])
    return out
