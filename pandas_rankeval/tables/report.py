"""The report table: metrics per model (and segment), with intervals, from a summed Summary."""

from __future__ import annotations

import math
from collections.abc import Hashable
from typing import Any

import numpy as np
import pandas as pd

from ..display.table import as_result_table
from ..inference.bootstrap import percentile_interval
from ..inference.delong import METHOD, delong_unavailable, normal_interval
from ..core.result import warn_once
from ..core.validation import internal_error
from ..summary.finalize import (
    _C, _delong_of, _metric_coverage, _seg_reps, _seg_values, _segment_order, _studentized, ci_method,
    fallback_note,
)
from ..summary.plan import Plan
from ..summary.summary import Summary

__all__ = ["report_table"]


def _report_ci_info(plan: Plan) -> dict[str, Any]:
    names = list(plan.metrics)
    analytic = ["auc"] if plan.auc_delong else []
    boot = [n for n in names if n not in analytic]
    dl = METHOD + (" (per segment)" if plan.by else "")
    note = "; auc: percentile bootstrap" if plan.ci_method == "studentized" and plan.has_auc and not analytic else ""
    info: dict[str, Any] = {
        "level": plan.ci,
        "method": ci_method(plan) + (" (stratified by segment)" if plan.by and plan.resample != "poisson" else "")
        + note,
        "n_boot": plan.n_boot,
        "seed": plan.seed_repr,
    }
    if analytic and boot:
        info["method"] = f"{info['method']}; auc: {dl}"
    elif analytic:
        info = {"level": plan.ci, "method": dl}
    elif plan.has_auc and plan.auc_method == "delong":
        info["method"] = f"{info['method']} (auc too: {delong_unavailable(plan.options.ties)})"
    return info


def report_table(
    summary: Summary, plan: Plan, auc: dict | None, auc_boot: dict | None, delong: dict | None
) -> Any:
    names = list(plan.metrics)
    specs = {s.name: s for s in plan.all_specs}
    item_j = {item: j for j, item in enumerate(plan.items)}
    group_names = [n for n in names if specs[n].kind != "auc"]
    gauc_names = [n for n in names if specs[n].kind == "gauc"]
    has_list = any(specs[n].kind not in ("auc", "gauc") for n in names)
    keys = _segment_order(list(summary.segments)) if plan.by else [()]
    rows: list[dict[str, Any]] = []
    index: list[Any] = []
    ci_cols: list[dict[str, float]] = []
    fallback: dict[str, None] = {}  # model/metric whose bootstrap-t interval fell back to percentile
    for key in keys:
        seg = summary.segments.get(key)
        if seg is None:  # pragma: no cover - every key comes from the summary
            raise internal_error("a segment without a summary")
        values = _seg_values(seg, plan, key, auc)
        reps = _seg_reps(seg, plan, key, auc_boot) if plan.ci is not None else None
        var = None
        if plan.ci is not None and plan.auc_delong:
            var = np.diag(_delong_of(delong, key, plan, seg)[1])
        for s in plan.scores:
            out: dict[str, Any] = {n: values[(s, n)] for n in names}
            if group_names or plan.by:
                out["n_groups"] = seg["n_groups"]
            out["n_rows"] = seg["n_rows"]
            if gauc_names:
                c = seg["counts"][item_j[(s, gauc_names[0])]]
                out["gauc_groups_used"] = int(c[_C["n_used"]])
                out["gauc_rows_skipped"] = float(int(c[_C["rows_skipped"]]) / max(seg["n_rows"], 1))
            if has_list:
                out["groups_no_relevant"] = seg["n_nopos"]
            if summary.n_dropped:
                out["rows_dropped"] = summary.n_dropped
            rows.append(out)
            index.append((*key, s) if plan.by else s)
            if reps is not None and plan.ci is not None:
                iv: dict[str, float] = {}
                for n in names:
                    ok = math.isfinite(out[n])
                    if n == "auc" and var is not None:
                        lo, hi = normal_interval(
                            np.array([out[n]]), var[plan.scores.index(s) : plan.scores.index(s) + 1], plan.ci,
                            clip=(0.0, 1.0),
                        )
                    elif n != "auc" and plan.ci_method == "studentized":
                        j = item_j[(s, n)]
                        fell: list[bool] = []
                        lo, hi = (
                            np.array([v])
                            for v in _studentized(seg, j, [j], [1.0], out[n], reps[(s, n)], plan.ci, fell)
                        )
                        if fell[0]:
                            fallback.setdefault(f"{s}/{n}", None)
                    else:
                        lo, hi = percentile_interval(reps[(s, n)][:, None], plan.ci)
                    iv[f"{n}_low"] = float(lo[0]) if ok else math.nan
                    iv[f"{n}_high"] = float(hi[0]) if ok else math.nan
                ci_cols.append(iv)
    if plan.by:
        idx: pd.Index = pd.MultiIndex.from_tuples(index, names=[*plan.by, "model"])
    else:
        idx = pd.Index(plan.scores, name="model", tupleize_cols=False)  # tuple names stay names
    table = pd.DataFrame(rows, index=idx)
    if ci_cols:
        cols: list[Hashable] = []
        for c in list(table.columns):
            cols.append(c)
            if c in names:
                table[f"{c}_low"] = [iv[f"{c}_low"] for iv in ci_cols]
                table[f"{c}_high"] = [iv[f"{c}_high"] for iv in ci_cols]
                cols += [f"{c}_low", f"{c}_high"]
        table = table[cols]
        table.attrs["ci"] = _report_ci_info(plan)
        if fallback:
            table.attrs["ci"]["method"] += fallback_note(list(fallback))
            table.attrs["ci"]["percentile_fallback"] = list(fallback)
    table.attrs["params"] = {n: plan.options.params(specs[n]) for n in names}
    first = _metric_coverage(summary, plan, plan.scores[0])
    table.attrs["coverage"] = {n: first[n][1].as_dict() for n in names}
    table = as_result_table(table, "report")
    # which groups a metric uses depends on the labels only: one warning covers every model
    warn_once(plan.func, [(n, first[n][0], first[n][1]) for n in names])
    return table
