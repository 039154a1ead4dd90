"""The compare table: paired differences, intervals and p-values per model, metric and segment."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..display.table import as_result_table
from ..inference.bootstrap import bootstrap_pvalues, holm, percentile_interval
from ..inference.delong import METHOD, delong_unavailable, normal_interval, z_test
from ..inference.delong import TEST as DELONG_TEST
from ..core.result import warn_once
from ..core.validation import internal_error
from ..summary.finalize import (
    _auc_lookup, _auc_reps, _delong_of, _metric_coverage, _ratio, _segment_order, _studentized, _totals,
    ci_method, fallback_note, flip_pvalues,
)
from ..summary.plan import Plan
from ..summary.summary import Summary

__all__ = ["compare_table", "COLUMNS"]

COLUMNS = [
    "baseline_value", "value", "diff", "lift", "ci_low", "ci_high", "p_value", "p_holm", "significant", "groups_used",
]
RANDOMIZATION = "paired randomization test (random sign flips of the per-group differences)"
BOOTSTRAP = "paired bootstrap test over groups (centered replicates of the difference)"


def _compare_ci_method(plan: Plan, analytic: list[str], boot_names: list[str]) -> str:
    strata = bool(plan.by) and plan.resample != "poisson"
    boot = f"{ci_method(plan, paired=True)}, {plan.n_boot} replicates" + (" (stratified by segment)" if strata else "")
    dl = METHOD + (" (per segment)" if plan.by else "")
    if not analytic:
        return boot
    if not boot_names:
        return dl
    return f"{boot}; {', '.join(analytic)}: {dl}"


def compare_table(
    summary: Summary, plan: Plan, auc: dict | None, auc_boot: dict | None, delong: dict | None
) -> Any:
    names = list(plan.metrics)
    kinds = {s.name: s.kind for s in plan.all_specs}
    baseline = plan.baseline
    models = [s for s in plan.scores if s != baseline]
    pairs = [(m, n) for m in models for n in names]
    no_delong = delong_unavailable(plan.options.ties)
    analytic = [n for n in names if kinds[n] == "auc"] if plan.auc_method == "delong" and no_delong is None else []
    tot = _totals(summary, plan)
    pair_index = {(m, n): p for p, (m, _, n) in enumerate(plan.flip_pairs)}
    flip_ok = {k for k, p in pair_index.items() if tot["flip_mismatch"][p] == 0} if plan.method != "bootstrap" else set()
    keys = _segment_order(list(summary.segments)) if plan.by else [()]
    blocks = []
    fallback: dict[str, None] = {}  # model/metric whose bootstrap-t interval fell back to percentile
    for key in keys:
        seg = summary.segments[key]
        n_pairs = len(pairs)
        base, value, diff, lo, hi, p = (np.full(n_pairs, np.nan) for _ in range(6))
        used = np.zeros(n_pairs, dtype=np.int64)
        point = _ratio(seg["sums"][:, 0], seg["sums"][:, 1]) if seg["sums"].size else np.zeros(0)
        reps = _ratio(seg["boot"][:, :, 0], seg["boot"][:, :, 1]) if seg["boot"] is not None else None
        item_j = {item: j for j, item in enumerate(plan.items)}
        if analytic:
            a, cov = _delong_of(delong, key, plan, seg)
        for i, (m, n) in enumerate(pairs):
            if kinds[n] == "auc":
                used[i] = seg["n_groups"]  # global AUC pools the rows of every group
                jm, jb = plan.scores.index(m), plan.scores.index(baseline)
                if analytic:
                    base[i], value[i] = a[jb], a[jm]
                    diff[i] = a[jm] - a[jb]
                    var = cov[jm, jm] + cov[jb, jb] - 2.0 * cov[jm, jb]
                    lo_i, hi_i = normal_interval(np.array([diff[i]]), np.array([var]), plan.ci)  # type: ignore[arg-type]
                    lo[i], hi[i] = lo_i[0], hi_i[0]
                    p[i] = z_test(np.array([diff[i]]), np.array([var]))[0]
                    continue
                base[i] = _auc_lookup(auc, key, baseline, plan)
                value[i] = _auc_lookup(auc, key, m, plan)
                d_rep = _auc_reps(auc_boot, key, m, plan) - _auc_reps(auc_boot, key, baseline, plan)
            else:
                k = pair_index[(m, n)]
                used[i] = int(seg["pair_used"][k])
                jm, jb = item_j[(m, n)], item_j[(baseline, n)]
                base[i], value[i] = point[jb], point[jm]
                if reps is None:
                    raise internal_error("compare needs bootstrap sums")
                d_rep = reps[:, jm] - reps[:, jb]
            diff[i] = value[i] - base[i]
            if kinds[n] != "auc" and plan.ci_method == "studentized":
                k = pair_index[(m, n)]
                fell: list[bool] = []
                lo[i], hi[i] = _studentized(
                    seg, k, [item_j[(m, n)], item_j[(baseline, n)]], [1.0, -1.0], diff[i], d_rep, plan.ci,  # type: ignore[arg-type]
                    fell,
                )
                if fell[0]:
                    fallback.setdefault(f"{m}/{n}", None)
            else:
                lo_i, hi_i = percentile_interval(d_rep[:, None], plan.ci)  # type: ignore[arg-type]
                lo[i], hi[i] = lo_i[0], hi_i[0]
            p[i] = bootstrap_pvalues(np.array([diff[i]]), d_rep[:, None])[0]
            if (m, n) in flip_ok and seg["flip_reps"] is not None:
                k = pair_index[(m, n)]
                p[i] = flip_pvalues(
                    seg["flip_obs"][k : k + 1], seg["flip_abs"][k : k + 1], seg["flip_reps"][:, k : k + 1],
                    plan.n_boot,
                )[0]
        p = np.where(np.isfinite(diff), p, np.nan)
        blocks.append((base, value, diff, lo, hi, p, used))
    columns = ("baseline_value", "value", "diff", "ci_low", "ci_high", "p_value", "groups_used")
    data = {c: np.concatenate([b[i] for b in blocks]) for i, c in enumerate(columns)}
    with np.errstate(divide="ignore", invalid="ignore"):
        data["lift"] = np.where(data["baseline_value"] != 0, data["diff"] / data["baseline_value"], np.nan)
    data["p_holm"] = holm(data["p_value"])
    data["significant"] = np.nan_to_num(data["p_holm"], nan=1.0) < plan.alpha
    if plan.by:
        tuples = [(*key, m, n) for key in keys for m, n in pairs]
        index = pd.MultiIndex.from_tuples(tuples, names=[*plan.by, "model", "metric"])
    else:
        index = pd.MultiIndex.from_tuples(pairs, names=["model", "metric"])
    out = pd.DataFrame(data, index=index)[COLUMNS]
    method = plan.method
    tests: dict[str, Any] = {
        n: BOOTSTRAP if method == "bootstrap" or kinds[n] == "auc" else RANDOMIZATION for n in names
    }
    for n in names:
        if n in analytic:
            tests[n] = DELONG_TEST
        elif kinds[n] == "auc" and plan.auc_method == "delong":
            tests[n] = f"{BOOTSTRAP}; {no_delong}"
    fallback = [f"{m}/{n}" for m, n in pairs if kinds[n] != "auc" and method != "bootstrap" and (m, n) not in flip_ok]
    if fallback:
        tests["bootstrap_fallback"] = fallback
    first = _metric_coverage(summary, plan, baseline)
    boot_names = [n for n in names if n not in analytic]
    out.attrs = {
        "baseline": baseline,
        "test": tests,
        "ci_method": _compare_ci_method(plan, analytic, boot_names) + (fallback_note(list(fallback)) if fallback else ""),
        "ci": plan.ci,
        "n_boot": plan.n_boot,
        "seed": plan.seed_repr,
        "alpha": plan.alpha,
        "multiple_testing": "Holm over all rows",
        "params": {s.name: plan.options.params(s) for s in plan.all_specs},
        "coverage": {n: first[n][1].as_dict() for n in names},
        "table": "compare",
    }
    if fallback:
        out.attrs["percentile_fallback"] = list(fallback)
    # coverage depends on the labels only: one warning, not one per model
    warn_once(plan.func, [(n, first[n][0], first[n][1]) for n in names])
    return as_result_table(out, "compare")
