"""The compare table: paired differences, intervals and p-values per pair of models, metric and segment."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ..display.table import as_result_table
from ..inference.bootstrap import bootstrap_pvalues, percentile_interval
from ..inference.delong import METHOD, delong_unavailable, delong_words, normal_interval, z_test
from ..inference.delong import TEST as DELONG_TEST
from ..inference.pvalues import EXACT_MAX, MIX_K, adjust_pvalues, signflip_pvalues
from ..core.metrics.relaimpr import delta_interval, has_relaimpr, lift_values
from ..core.metrics.registry import nan_reason
from ..core.evaluation.result import warn_coverage, warn_once
from ..core.inputs.validation import internal_error
from ..summary.finalize import (
    auc_lookup, auc_replicates, delong_of, dropped_segments, metric_coverage, segment_order, table_totals, ci_method,
    fallback_note, item_values, xauc_of,
)
from ..summary.plan import Plan, compare_pairs
from ..summary.replicates import MIN_UNITS, pooled_units, replicate_results
from ..summary.summary import Summary

__all__ = ["compare_table", "COLUMNS", "multiple_testing"]

COLUMNS = [
    "baseline_value", "value", "diff", "lift", "ci_low", "ci_high", "p_value", "p_holm", "significant", "groups_used",
]
#: The adjusted p-value's column for each ``adjust=`` (none: no such column).
ADJUSTED = {"holm": "p_holm", "bh": "p_bh", "none": None}
SIGNFLIP = (
    f"paired sign-flip test of the per-group differences: exact over all 2^G sign patterns when at most "
    f"{EXACT_MAX} groups differ, else exact on a lattice when every group's difference is a multiple of one "
    f"unit (a convolution of scaled binomials), else the {MIX_K} largest enumerated and the rest normal "
    "(Edgeworth and lattice corrections)"
)
RANDOMIZATION = "paired randomization test (Monte Carlo: random sign flips of the per-group differences)"
BOOTSTRAP = "paired bootstrap test over groups (centered replicates of the difference)"


def columns_for(adjust: str, lift: str = "relative") -> list[str]:
    """compare's columns for an adjustment: ``p_holm`` (default), ``p_bh``, or none; with
    ``lift="relaimpr"`` the lift's interval (``lift_low``, ``lift_high``) after ``lift``."""
    col = ADJUSTED[adjust]
    out = [c if c != "p_holm" else col for c in COLUMNS if c != "p_holm" or col is not None]
    if lift == "relaimpr":
        at = out.index("lift") + 1
        out[at:at] = ["lift_low", "lift_high"]
    return out  # type: ignore[return-value]


def multiple_testing(adjust: str, family: str, metrics: Sequence[Any], n_rows: int) -> str:
    """The words for the adjustment and its family (``attrs["multiple_testing"]``, footer).

    >>> multiple_testing("holm", "table", ["gauc", "mrr"], 12)
    'Holm over all 12 rows, one family'
    >>> multiple_testing("bh", "metric", ["gauc", "mrr"], 12)
    'Benjamini-Hochberg false discovery rate within each metric, 2 families'
    """
    if adjust == "none":
        return "none (raw p-values)"
    how = "Holm" if adjust == "holm" else "Benjamini-Hochberg false discovery rate"
    if family == "metric":
        k = len(set(map(str, metrics)))
        return f"{how} within each metric, {k} famil{'ies' if k != 1 else 'y'}"
    return f"{how} over all {n_rows:,} rows, one family"


def _compare_ci_method(plan: Plan, analytic: list[str], boot_names: list[str]) -> str:
    strata = bool(plan.by) and plan.resample != "poisson"
    boot = f"{ci_method(plan, paired=True)}, {plan.n_boot} replicates" + (" (stratified by segment)" if strata else "")
    dl = delong_words(METHOD, plan.options.sample_weight) + (" (per segment)" if plan.by else "")
    if not analytic:
        return boot
    if not boot_names:
        return dl
    return f"{boot}; {', '.join(analytic)}: {dl}"


def bonferroni_intervals(
    diff: np.ndarray, lo: np.ndarray, hi: np.ndarray, ci: float, family: np.ndarray | None,
    bounds: tuple[Any, Any] = (-1.0, 1.0),
) -> tuple[np.ndarray, np.ndarray]:
    """Each interval widened to level ``1 - (1 - ci) / m`` over its family (``m`` rows with a
    difference: the table, or each metric's rows): each side's distance to ``diff`` times
    ``z_{1 - (1 - ci) / (2m)} / z_{(1 + ci) / 2}`` (a normal interval ``diff -/+ z se``, DeLong's,
    becomes exactly the Bonferroni one; a skewed bootstrap interval keeps its skew and stays
    inside the adjusted one), clipped to ``bounds``: [-1, 1] for a difference of two values in
    [0, 1]; per row, the range of each row's difference (log loss, PCOC, the IPS metrics: none).

    Examples
    --------
    >>> import numpy as np
    >>> lo, hi = bonferroni_intervals(np.array([0.1, 0.0]), np.array([0.05, -0.05]),
    ...                               np.array([0.15, 0.05]), 0.95, None)
    >>> np.round(lo, 4).tolist(), np.round(hi, 4).tolist()
    ([0.0428, -0.0572], [0.1572, 0.0572])
    """
    from scipy.special import ndtri  # the normal quantile (scipy.stats' norm.ppf, bit for bit)

    defined = np.isfinite(diff) & np.isfinite(lo) & np.isfinite(hi)
    groups = family if family is not None else np.zeros(diff.shape[0], dtype=object)
    m = np.ones(diff.shape[0])
    for g in dict.fromkeys(groups[defined].tolist()):  # a few families: the metrics at most
        m[groups == g] = int((defined & (groups == g)).sum())
    ratio = ndtri(1.0 - (1.0 - ci) / (2.0 * m)) / ndtri(0.5 + ci / 2.0)
    with np.errstate(invalid="ignore"):
        below, above = np.maximum(diff - lo, 0.0), np.maximum(hi - diff, 0.0)
    out_lo = np.where(defined, np.clip(diff - ratio * below, *bounds), lo)
    out_hi = np.where(defined, np.clip(diff + ratio * above, *bounds), hi)
    return out_lo, out_hi


def difference_bounds(metric_of: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per row, the range of a difference of its metric's values: [-1, 1] for a metric in [0, 1]."""
    from ..core.metrics.registry import parse_metric

    ranges = {}
    for name in dict.fromkeys(metric_of.tolist()):
        info = parse_metric(name).info
        lo, hi = info.reading.bounds if info.reading.fmt == "ratio" else (0.0, np.inf)
        ranges[name] = (lo - hi, hi - lo)
    return (np.array([ranges[n][0] for n in metric_of], dtype=np.float64),
            np.array([ranges[n][1] for n in metric_of], dtype=np.float64))


def apply_adjustment(
    data: Any, metric_of: np.ndarray, *, adjust: str, family: str, alpha: float, ci: float | None, ci_adjust: str,
) -> None:
    """The multiple-testing step of a comparison, in place over every row of ``data`` (a dict of
    columns or a DataFrame; ``metric_of`` each row's metric): the adjusted p-value column, the
    ``significant`` flag and, with ``ci_adjust="bonferroni"``, the simultaneous intervals. The
    table's own rows and a table joined with its overall rows (``overall=True``) use it alike."""
    groups = metric_of if family == "metric" else None
    p_adj = adjust_pvalues(np.asarray(data["p_value"], dtype=float), adjust, family=groups)
    col = ADJUSTED[adjust]
    if col is not None:
        data[col] = p_adj
    data["significant"] = np.nan_to_num(p_adj, nan=1.0) < alpha
    if ci_adjust == "bonferroni" and ci is not None:
        data["ci_low"], data["ci_high"] = bonferroni_intervals(
            np.asarray(data["diff"], dtype=float), np.asarray(data["ci_low"], dtype=float),
            np.asarray(data["ci_high"], dtype=float), ci, groups, difference_bounds(metric_of),
        )


def finish_table(
    data: dict[str, np.ndarray],
    rows: list[tuple[Hashable, Hashable, str]],
    keys: list[tuple],
    by: list[Hashable],
    *,
    all_pairs: bool,
    adjust: str,
    family: str,
    alpha: float,
    ci: float | None = None,
    ci_adjust: str = "none",
    lift: str = "relative",
) -> pd.DataFrame:
    """Lift, adjusted p-values, the significance flag and the index of a compare table.

    ``data`` holds the per-row columns (segments outer, ``rows`` inner); ``rows`` are
    (model, baseline, metric). With ``lift="relaimpr"`` the lift is RelaImpr on the AUC-type
    metrics (:mod:`pandas_rankeval.core.metrics.relaimpr`) and ``data`` brings ``lift_low``,
    ``lift_high``.
    """
    metric_of = np.array([str(n) for _ in keys for _, _, n in rows], dtype=object)
    kinds = np.array([lift == "relaimpr" and has_relaimpr(n) for n in metric_of], dtype=bool)
    data["lift"] = lift_values(data["value"], data["baseline_value"], kinds)
    apply_adjustment(data, metric_of, adjust=adjust, family=family, alpha=alpha, ci=ci, ci_adjust=ci_adjust)
    names = ["model", "baseline", "metric"] if all_pairs else ["model", "metric"]
    tuples = [
        (*key, m, b, n) if all_pairs else (*key, m, n) for key in keys for m, b, n in rows
    ]
    if by or all_pairs:
        index: pd.Index = pd.MultiIndex.from_tuples(tuples, names=[*by, *names])
    else:
        index = pd.MultiIndex.from_tuples(tuples, names=names)
    return pd.DataFrame(data, index=index)[columns_for(adjust, lift)]


def _delong_lift(data: dict[str, np.ndarray], idx: np.ndarray, cov: list[tuple[float, float, float]],
                 metrics: list[str], ci: float) -> None:
    """The lift's interval of global AUC's clustered-DeLong rows ``idx``: the delta method on each
    row's (var model, var baseline, covariance)."""
    vm, vb, cv = (np.array(c) for c in zip(*cov))
    kinds = np.array([has_relaimpr(m) for m in metrics], dtype=bool)
    data["lift_low"][idx], data["lift_high"][idx] = delta_interval(
        data["value"][idx], data["baseline_value"][idx], vm, vb, cv, kinds, ci,
    )


def _lift_interval(model_reps: np.ndarray, base_reps: np.ndarray, metric: str, ci: float) -> tuple[float, float]:
    """Percentile interval of the lift over paired replicates of the two values (global AUC's
    bootstrap); NaN when RelaImpr's baseline is at most 0.5 in a replicate."""
    kind = has_relaimpr(metric)
    if kind and np.any(base_reps <= 0.5):
        return math.nan, math.nan
    lo, hi = percentile_interval(lift_values(model_reps, base_reps, kind)[:, None], ci)
    return float(lo[0]), float(hi[0])


def lift_words(names: Sequence[str]) -> dict[str, str]:
    """attrs["lift"] (``lift="relaimpr"``): each metric's lift, ``"relaimpr"`` or ``"relative"``
    (the footer says which)."""
    return {str(n): "relaimpr" if has_relaimpr(str(n)) else "relative" for n in names}


def tests_of(plan_method: str, names: list[str], pooled: dict[str, bool], analytic: list[str], auc_method: str,
               no_delong: str | None) -> dict[str, Any]:
    """attrs["test"]: the test behind each metric's p-values."""
    group_test = {"auto": SIGNFLIP, "randomization": RANDOMIZATION, "bootstrap": BOOTSTRAP}[plan_method]
    tests: dict[str, Any] = {n: BOOTSTRAP if pooled[n] else group_test for n in names}
    for n in names:
        if n in analytic:
            tests[n] = DELONG_TEST
        elif pooled[n] and auc_method == "delong":
            tests[n] = f"{BOOTSTRAP}; {no_delong}"
    return tests


#: The float columns of a segment's block, then its int column (``groups_used``, last).
_BLOCK_COLUMNS = ("baseline_value", "value", "diff", "ci_low", "ci_high", "p_value", "lift_low", "lift_high",
                  "groups_used")


@dataclass
class _Pairs:
    """What every row of the compare table reads: the rows (model, baseline, metric) and the
    plan's decisions about them."""

    plan: Plan
    rows: list[tuple[Hashable, Hashable, str]]
    pooled: dict[str, bool]
    analytic: list[str]
    pair_index: dict[tuple[Hashable, Hashable, str], int]
    item_j: dict[Any, int]
    flip_ok: set[tuple[Hashable, Hashable, str]]
    replicates: Any
    auc: dict | None
    auc_boot: dict | None
    delong: dict | None
    xauc: dict | None = None


@dataclass
class _Deferred:
    """The rows whose test runs once for the whole table (vectorized), gathered segment by segment."""

    dl_rows: list[int] = field(default_factory=list)  # rows (over all segments) of global AUC's clustered DeLong
    dl_var: list[float] = field(default_factory=list)
    dl_cov: list[tuple[float, float, float]] = field(default_factory=list)  # (var model, var baseline, cov): the lift
    sf_rows: list[int] = field(default_factory=list)  # rows (over all segments) of the analytic sign-flip test
    sf_args: list[list[Any]] = field(default_factory=lambda: [[], [], [], [], [], []])
    sf_hist: list[np.ndarray] = field(default_factory=list)
    stud_fallback: dict[str, None] = field(default_factory=dict)  # bootstrap-t intervals that fell back to percentile


def compare_table(
    summary: Summary, plan: Plan, auc: dict | None, auc_boot: dict | None, delong: dict | None,
    xauc: dict | None = None,
) -> Any:
    """The compare table: per segment, pair and metric the paired difference, its interval and
    p-value (the vectorized tests run once for the whole table), then the footer's ``attrs``.
    Global AUC (clustered DeLong under ``auc_method="delong"``) and global XAUC (``xauc``: always
    clustered DeLong) are tested by the paired z-test of their covariance over the same groups."""
    no_delong = delong_unavailable(plan.options.ties)
    pairs = _pairs_of(summary, plan, auc, auc_boot, delong, no_delong)
    pairs.xauc = xauc
    keys = segment_order(list(summary.segments)) if plan.by else [()]
    deferred = _Deferred()
    blocks = [_segment_block(pairs, deferred, summary, s_idx, key) for s_idx, key in enumerate(keys)]
    data = {c: np.concatenate([blk[c] for blk in blocks]) for c in _BLOCK_COLUMNS}
    _run_deferred_tests(data, deferred, plan)
    out = finish_table(data, pairs.rows, keys, list(plan.by), all_pairs=plan.baseline is None, adjust=plan.adjust,
                       family=plan.family, alpha=plan.alpha, ci=plan.ci, ci_adjust=plan.ci_adjust, lift=plan.lift)
    return _with_attrs(out, summary, pairs, deferred, no_delong)


def _pairs_of(
    summary: Summary, plan: Plan, auc: dict | None, auc_boot: dict | None, delong: dict | None, no_delong: str | None
) -> _Pairs:
    """The table's rows and which test each can take (analytic DeLong, sign flips, bootstrap)."""
    names = list(plan.metrics)
    pooled = {s.name: not s.info.grouped for s in plan.all_specs}
    tot = table_totals(summary, plan)
    pair_index = {(m, b, n): p for p, (m, b, n) in enumerate(plan.flip_pairs)}
    boot_only = _boot_only(plan)
    flip_ok = {
        k for k, p in pair_index.items() if tot["flip_mismatch"][p] == 0 and k[2] not in boot_only
    } if plan.method != "bootstrap" else set()
    rr = replicate_results(summary, plan)  # every pair's interval and p-values per segment
    if rr is None and plan.flip_pairs:  # pragma: no cover - compare always has replicate sums
        raise internal_error("compare needs bootstrap sums")
    return _Pairs(
        plan=plan,
        rows=[(m, b, n) for m, b in compare_pairs(plan.scores, plan.baseline) for n in names],
        pooled=pooled,
        analytic=[n for n in names if pooled[n] and (n == "xauc" or (plan.auc_method == "delong" and no_delong is None))],
        pair_index=pair_index,
        item_j={item: j for j, item in enumerate(plan.items)},
        flip_ok=flip_ok,
        replicates=rr,
        auc=auc,
        auc_boot=auc_boot,
        delong=delong,
    )


def _boot_only(plan: Plan) -> set[str]:
    """The metrics with no per-group difference to flip (ECE): tested by the bootstrap only."""
    return {s.name for s in plan.all_specs if not s.info.reading.signflip}


def _segment_block(pairs: _Pairs, deferred: _Deferred, summary: Summary, s_idx: int, key: Any) -> dict[str, np.ndarray]:
    """One segment's rows: values, differences, intervals and p-values (the vectorized tests deferred)."""
    plan = pairs.plan
    seg = summary.segments[key]
    sp = summary.index[key]
    n_rows = len(pairs.rows)
    block = {c: np.full(n_rows, np.nan) for c in _BLOCK_COLUMNS[:-1]}
    block["groups_used"] = np.zeros(n_rows, dtype=np.int64)
    point = item_values(plan, seg["sums"]) if seg["sums"].size else np.zeros(0)
    # the values and covariance of each global metric tested by clustered DeLong, in this segment
    analytic: dict[str, Any] = {}
    if "auc" in pairs.analytic:
        analytic["auc"] = delong_of(pairs.delong, key, plan, seg)
    if "xauc" in pairs.analytic:
        rows = xauc_of(pairs.xauc, key, plan)
        analytic["xauc"] = (rows.values, rows.cov)
    for i in range(n_rows):
        if pairs.pooled[pairs.rows[i][2]]:
            _pooled_row(pairs, deferred, block, i, s_idx * n_rows + i, key, seg, analytic.get(pairs.rows[i][2]))
        else:
            _paired_row(pairs, deferred, block, i, s_idx * n_rows + i, seg, sp, point)
    return block


def _pooled_row(
    pairs: _Pairs, deferred: _Deferred, block: dict[str, np.ndarray], i: int, row: int, key: Any, seg: Any,
    delong_auc: Any,
) -> None:
    """A row of global AUC or global XAUC: clustered DeLong (deferred), else (AUC) the paired
    bootstrap of the pooled AUC."""
    plan = pairs.plan
    m, b, _ = pairs.rows[i]
    base, value, diff = block["baseline_value"], block["value"], block["diff"]
    block["groups_used"][i] = seg["n_groups"]  # global AUC pools the rows of every group
    jm, jb = plan.scores.index(m), plan.scores.index(b)
    if delong_auc is not None:  # the interval and z-test of every such row at once, below
        a, cov = delong_auc
        base[i], value[i] = a[jb], a[jm]
        diff[i] = a[jm] - a[jb]
        deferred.dl_rows.append(row)
        deferred.dl_var.append(cov[jm, jm] + cov[jb, jb] - 2.0 * cov[jm, jb])
        deferred.dl_cov.append((cov[jm, jm], cov[jb, jb], cov[jm, jb]))
        return
    base[i] = auc_lookup(pairs.auc, key, b, plan)
    value[i] = auc_lookup(pairs.auc, key, m, plan)
    diff[i] = value[i] - base[i]
    if pooled_units(seg, plan) < MIN_UNITS:  # one group: no sample to resample
        return
    d_rep = auc_replicates(pairs.auc_boot, key, m, plan) - auc_replicates(pairs.auc_boot, key, b, plan)
    lo_i, hi_i = percentile_interval(d_rep[:, None], plan.ci, bounds=(-1.0, 1.0))  # type: ignore[arg-type]
    block["ci_low"][i], block["ci_high"][i] = lo_i[0], hi_i[0]
    block["p_value"][i] = bootstrap_pvalues(np.array([diff[i]]), d_rep[:, None], value[i], base[i])[0]
    if plan.lift == "relaimpr":
        block["lift_low"][i], block["lift_high"][i] = _lift_interval(
            auc_replicates(pairs.auc_boot, key, m, plan), auc_replicates(pairs.auc_boot, key, b, plan),
            pairs.rows[i][2], plan.ci,  # type: ignore[arg-type]
        )


def _paired_row(
    pairs: _Pairs, deferred: _Deferred, block: dict[str, np.ndarray], i: int, row: int, seg: Any, sp: int,
    point: np.ndarray,
) -> None:
    """A row of a per-group metric: the bootstrap's interval and p-value, then the randomization
    test's p-value or the analytic sign flip (deferred) where the pair allows it."""
    plan, rr = pairs.plan, pairs.replicates
    m, b, n = pairs.rows[i]
    k = pairs.pair_index[(m, b, n)]
    block["groups_used"][i] = int(seg["pair_used"][k])
    block["baseline_value"][i], block["value"][i] = point[pairs.item_j[(b, n)]], point[pairs.item_j[(m, n)]]
    block["diff"][i] = block["value"][i] - block["baseline_value"][i]
    block["ci_low"][i], block["ci_high"][i] = rr["rep_lo"][sp, k], rr["rep_hi"][sp, k]
    block["p_value"][i] = rr["rep_pboot"][sp, k]
    if plan.lift == "relaimpr":
        block["lift_low"][i], block["lift_high"][i] = rr["rep_llo"][sp, k], rr["rep_lhi"][sp, k]
    if plan.ci_method == "studentized" and rr["rep_fell"][sp, k]:
        deferred.stud_fallback.setdefault(f"{m}/{n}" if plan.baseline is not None else f"{m}-{b}/{n}", None)
    if (m, b, n) not in pairs.flip_ok:
        return
    if plan.method == "randomization" and rr["rep_prand"] is not None:
        block["p_value"][i] = rr["rep_prand"][sp, k]
    elif plan.method == "auto":
        deferred.sf_rows.append(row)
        for lst, v in zip(deferred.sf_args, (seg["sf_n"][k], seg["sf_s"][k, 0], seg["sf_s"][k, 1], seg["sf_s"][k, 2],
                                             seg["sf_top"][k], seg["sf_min"][k])):
            lst.append(v)
        deferred.sf_hist.append(seg["sf_hist"][k])


def _run_deferred_tests(data: dict[str, np.ndarray], deferred: _Deferred, plan: Plan) -> None:
    """Every clustered-DeLong interval and z-test, and every analytic sign-flip p-value, of the
    table in one vectorized call each; no p-value where the difference is not finite."""
    if deferred.dl_rows:
        idx, var = np.array(deferred.dl_rows), np.array(deferred.dl_var)
        data["ci_low"][idx], data["ci_high"][idx] = normal_interval(data["diff"][idx], var, plan.ci)  # type: ignore[arg-type]
        data["p_value"][idx] = z_test(data["diff"][idx], var)
        if plan.lift == "relaimpr":
            names = list(plan.metrics)  # a segment's rows are (pair, metric), the metric innermost
            metrics = [names[r % len(names)] for r in deferred.dl_rows]
            _delong_lift(data, idx, deferred.dl_cov, metrics, plan.ci)  # type: ignore[arg-type]
    if deferred.sf_rows:
        data["p_value"][np.array(deferred.sf_rows)] = signflip_pvalues(
            *(np.array(a) for a in deferred.sf_args), hist=np.array(deferred.sf_hist)
        )
    data["p_value"] = np.where(np.isfinite(data["diff"]), data["p_value"], np.nan)


def _tests_words(pairs: _Pairs, no_delong: str | None) -> dict[str, Any]:
    """The footer's test of each metric, and the rows that fell back to the bootstrap."""
    plan = pairs.plan
    names = list(plan.metrics)
    boot_only = _boot_only(plan)
    tests = tests_of(plan.method, names, pairs.pooled, pairs.analytic, plan.auc_method, no_delong)
    tests.update({n: delong_words(DELONG_TEST, plan.options.sample_weight) for n in pairs.analytic})
    tests.update({n: BOOTSTRAP for n in boot_only})
    fallback = [f"{m}/{n}" for m, b, n in pairs.rows if not pairs.pooled[n] and plan.method != "bootstrap"
                and (m, b, n) not in pairs.flip_ok and n not in boot_only]
    if fallback:
        tests["bootstrap_fallback"] = fallback
    return tests


#: Fewest groups at which the paired bootstrap's p-values keep their size, by simulation
#: (``benchmarks/sim_bootstrap_size.py``: share of p < 0.05 under the null 0.157 at 5 groups,
#: 0.105 at 10, 0.077 at 30, 0.061 at 50, 0.058 at 100 for GAUC; the sign-flip test 0.052 at 30).
BOOTSTRAP_MIN_GROUPS = 50


def _warn_bootstrap_size(out: Any, plan: Plan, pairs: _Pairs) -> None:
    """``method="bootstrap"`` on a row of a group metric with fewer than
    :data:`BOOTSTRAP_MIN_GROUPS` groups: its p-value runs small (a warning names the fewest)."""
    if plan.method != "bootstrap":
        return
    metric = out.index.get_level_values("metric")
    grouped = np.array([not pairs.pooled[str(m)] for m in metric], dtype=bool)
    used = out["groups_used"].to_numpy()[grouped & np.isfinite(out["diff"].to_numpy(dtype=float))]
    used = used[used >= MIN_UNITS]
    if used.size and int(used.min()) < BOOTSTRAP_MIN_GROUPS:
        warn_coverage(
            f"{plan.func}: method='bootstrap' p-values run small with few groups (the fewest here: "
            f"{int(used.min()):,}): two equal models gave p < 0.05 in 16% of simulated tests at 5 groups, 8% at "
            "30, 6% at 50. The default method='auto' (the exact sign-flip test) keeps its size."
        )


def _with_attrs(out: Any, summary: Summary, pairs: _Pairs, deferred: _Deferred, no_delong: str | None) -> Any:
    """The table's ``attrs`` (tests, interval, coverage, directions), the coverage warning, the result table."""
    plan = pairs.plan
    names = list(plan.metrics)
    stud_fallback = deferred.stud_fallback
    first = metric_coverage(summary, plan, plan.baseline if plan.baseline is not None else plan.scores[0], pairs.xauc)
    boot_names = [n for n in names if n not in pairs.analytic]
    ci_words = _compare_ci_method(plan, pairs.analytic, boot_names) + (
        fallback_note(list(stud_fallback)) if stud_fallback else ""
    )
    out.attrs = table_attrs(  # type: ignore[assignment]  # stubs narrower than runtime
        plan.baseline, plan.scores, _tests_words(pairs, no_delong), ci_words, plan.ci, plan.n_boot,
        plan.seed_repr, plan.alpha, plan.adjust, plan.family, len(out),
        names, {s.name: plan.options.params(s) for s in plan.all_specs},
        {n: first[n][1].as_dict() for n in names},
    )
    if stud_fallback:
        out.attrs["percentile_fallback"] = list(stud_fallback)
    _warn_bootstrap_size(out, plan, pairs)
    few = int(np.sum((out["groups_used"].to_numpy() < MIN_UNITS) & np.isfinite(out["diff"].to_numpy(dtype=float))))
    if few:  # no interval (nor bootstrap p-value) there: the footer says why
        out.attrs["few_groups"] = few
    out.attrs["graded_rows"] = summary.total("n_graded")
    dropped = dropped_segments(summary, plan)
    if dropped is not None:  # the footer says where the dropped rows were
        out.attrs["dropped"] = dropped
    out.attrs["ci_adjust"] = plan.ci_adjust
    if plan.lift == "relaimpr":
        out.attrs["lift"] = lift_words(names)
    directions = {s.name: s.info.reading.direction for s in plan.all_specs}
    if any(d != "higher" for d in directions.values()):  # which value is better, where not the higher
        out.attrs["direction"] = directions
    # coverage depends on the labels only: one warning, not one per model
    warn_once(plan.func, [(n, first[n][0], first[n][1], nan_reason(n)) for n in names])
    return as_result_table(out, "compare")


def table_attrs(
    baseline: Hashable | None, scores: Sequence[Hashable], tests: dict[str, Any], ci_text: str, ci: Any, n_boot: int,
    seed: Any, alpha: float, adjust: str, family: str, n_rows: int, names: list[str], params: dict, coverage: dict,
) -> dict[str, Any]:
    """compare's ``attrs``: what the footer shows (tests, interval, adjustment and its family)."""
    return {
        "baseline": baseline,
        "pairs": "all" if baseline is None else "baseline",
        "models": list(scores),
        "test": tests,
        "ci_method": ci_text,
        "ci": ci,
        "n_boot": n_boot,
        "seed": seed,
        "alpha": alpha,
        "adjust": adjust,
        "family": family,
        "p_adjusted": ADJUSTED[adjust],
        "multiple_testing": multiple_testing(adjust, family, names, n_rows),
        "params": params,
        "coverage": coverage,
        "table": "compare",
    }
