"""compare with ``resample="multinomial"``: the classic group bootstrap on one pandas evaluation.

The default (``resample="poisson"``) goes through the additive summary that Dask and Spark
share (:mod:`pandas_rankeval.tables.compare`). This path draws multinomial counts of groups per
segment and numpy sign flips, and reads the same per-group differences for the sign-flip
p-values; its table has the same columns, index and attrs.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import numpy as np

from ..core.evaluate import Evaluation
from ..core.options import Options
from ..core.progress import Progress as _Progress
from ..core.result import warn_once
from ..core.validation import internal_error
from ..display.table import ResultTable, as_result_table
from ..inference.bootstrap import (
    bootstrap_pvalues, flip_rngs, percentile_interval, replicates, sign_flip_pvalues, strata_of,
)
from ..inference.delong import METHOD as DELONG_METHOD
from ..inference.delong import delong_compare, normal_interval, z_test
from ..inference.pvalues import signflip_pvalues, signflip_sums, signflip_terms
from ..summary.plan import compare_pairs
from .compare import finish_table, table_attrs, tests_of

__all__ = ["compare_multinomial"]


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


def _groups_used(ev: Evaluation, groups: np.ndarray, rows: list[tuple[Hashable, Hashable, str]]) -> np.ndarray:
    """Groups of a stratum behind each row: used by both models (a group metric), or all of
    them (global AUC pools their rows)."""
    out = np.empty(len(rows), dtype=np.int64)
    for k, (m, b, n) in enumerate(rows):
        gm, gb = ev.scores[m].metrics[n], ev.scores[b].metrics[n]
        out[k] = groups.shape[0] if gm.spec.kind == "auc" else int((gm.used[groups] & gb.used[groups]).sum())
    return out


def compare_multinomial(
    ev: Evaluation,
    *,
    func: str,
    score_cols: list[Hashable],
    baseline: Hashable | None,
    specs: list[Any],
    by_cols: list[Hashable],
    opts: Options,
    ci: float,
    n_boot: int,
    seed: Any,
    method: str,
    auc_method: str,
    ci_method: str,
    use_delong: bool,
    no_delong: str | None,
    alpha: float,
    adjust: str,
    family: str,
    progress: bool,
) -> ResultTable:
    """The compare table from one evaluation with the multinomial bootstrap over groups."""
    names = [s.name for s in specs]
    kinds = {s.name: s.kind for s in specs}
    analytic = [n for n in names if kinds[n] == "auc"] if use_delong else []
    boot_names = [n for n in names if n not in analytic]
    items = [(s, n) for s in score_cols for n in boot_names]
    col = {item: j for j, item in enumerate(items)}
    rows = [(m, b, n) for m, b in compare_pairs(score_cols, baseline) for n in names]
    brows = [r for r in rows if r[2] in boot_names]
    at = np.array([rows.index(r) for r in brows], dtype=np.int64)
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

    flip_rows = []  # rows tested by sign flips
    for m, b, n in brows:
        if method == "bootstrap" or kinds[n] == "auc":
            continue
        gm, gb = ev.scores[m].metrics[n], ev.scores[b].metrics[n]
        # weights and eligibility depend on labels only; checked, not assumed
        if np.array_equal(gm.used, gb.used) and np.array_equal(gm.weights, gb.weights):
            flip_rows.append((m, b, n))
    flip_set = set(flip_rows)
    monte_carlo = method == "randomization"

    total = n_boot * len(strata) * ((1 if brows else 0) + (1 if flip_rows and monte_carlo else 0))
    bar = _Progress(progress, total, func)
    try:
        studentized = ci_method == "studentized" and bool(brows)
        if studentized:
            from ..inference.studentized import StudentizedStratum, studentized_interval

            targets = [[(col[(m, n)], 1.0), (col[(b, n)], -1.0)] for m, b, n in brows]
            wrapped = [StudentizedStratum(st, targets) for st in strata]
            reps = replicates(wrapped, n_boot=n_boot, seed=seed, progress=bar)  # type: ignore[arg-type]
        elif brows:
            reps = replicates(strata, n_boot=n_boot, seed=seed, progress=bar)
        flips = flip_rngs(seed, len(strata))
        blocks = []
        for s_idx, stratum in enumerate(strata):
            base, value, diff, lo, hi, p = (np.full(len(rows), np.nan) for _ in range(6))
            if analytic:  # clustered DeLong: the AUCs and their covariance, no resampling
                auc, cov = dl[stratum_keys[s_idx]]
                for i, (m, b, n) in enumerate(rows):
                    if n in analytic:
                        jm, jb = score_cols.index(m), score_cols.index(b)
                        base[i], value[i] = auc[jb], auc[jm]
                        diff[i] = auc[jm] - auc[jb]
                        var = cov[jm, jm] + cov[jb, jb] - 2.0 * cov[jm, jb]
                        lo[i], hi[i] = normal_interval(diff[i], var, ci)
                        p[i] = z_test(diff[i], var)
            groups_used = _groups_used(ev, stratum.groups, rows)
            if not brows:
                blocks.append((base, value, diff, lo, hi, p, groups_used))
                continue
            point = stratum.point()
            jm = np.array([col[(m, n)] for m, _, n in brows])
            jb = np.array([col[(b, n)] for _, b, n in brows])
            base[at], value[at] = point[jb], point[jm]
            diff[at] = value[at] - base[at]
            d_reps = reps[s_idx][:, jm] - reps[s_idx][:, jb]
            if studentized:
                k = len(items)
                se0 = wrapped[s_idx].point()[k:]
                lo[at], hi[at] = studentized_interval(diff[at], se0, d_reps, reps[s_idx][:, k:], ci)
            else:
                lo[at], hi[at] = percentile_interval(d_reps, ci)
            p[at] = bootstrap_pvalues(diff[at], d_reps)
            if flip_rows:
                g = stratum.groups
                wd = np.empty((stratum.n, len(flip_rows)))
                for k, (m, b, n) in enumerate(flip_rows):
                    gm, gb = ev.scores[m].metrics[n], ev.scores[b].metrics[n]
                    wd[:, k] = signflip_terms(gm.weights[g], gm.values[g], gb.values[g], gm.used[g] & gb.used[g])
                if monte_carlo:
                    p_flip = sign_flip_pvalues(wd, flips[s_idx], n_boot, bar)
                else:
                    sf = signflip_sums(wd)
                    p_flip = signflip_pvalues(sf["n"][0], sf["s"][0, :, 0], sf["s"][0, :, 1], sf["s"][0, :, 2],
                                              sf["top"][0], sf["amin"][0])
                for k, r in enumerate(flip_rows):
                    p[rows.index(r)] = p_flip[k]
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
        seg_keys = [k if isinstance(k, tuple) else (k,) for k in keys]
    else:
        seg_keys = [()]
    columns = ("baseline_value", "value", "diff", "ci_low", "ci_high", "p_value", "groups_used")
    data = {c: np.concatenate([blk[i] for blk in blocks]) for i, c in enumerate(columns)}
    out = finish_table(data, rows, seg_keys, by_cols, all_pairs=baseline is None, adjust=adjust, family=family,
                       alpha=alpha)
    tests = tests_of(method, names, kinds, analytic, auc_method, no_delong)
    fallback = [f"{m}/{n}" for m, b, n in rows if kinds[n] != "auc" and method != "bootstrap"
                and (m, b, n) not in flip_set]
    if fallback:  # pragma: no cover - weights never depend on scores
        tests["bootstrap_fallback"] = fallback
    ref = baseline if baseline is not None else score_cols[0]
    out.attrs = table_attrs(
        baseline, score_cols, tests, _ci_method(n_boot, bool(by_cols), analytic, boot_names, ci_method), ci, n_boot,
        seed if isinstance(seed, (int, np.integer)) or seed is None else repr(seed), alpha, adjust, family,
        len(out), names, {s.name: opts.params(s) for s in specs},
        {n: ev.scores[ref].metrics[n].coverage.as_dict() for n in names},
    )
    # coverage depends on the labels only: one warning, not one per model
    first = ev.scores[ref].metrics
    warn_once(func, [(n, first[n].value, first[n].coverage) for n in names])
    return as_result_table(out, "compare")
