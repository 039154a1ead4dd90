"""The report table: metrics per model (and segment), with intervals, from a summed Summary."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..display.table import as_result_table
from ..inference.bootstrap import percentile_interval
from ..inference.delong import METHOD, delong_unavailable, delong_words, normal_interval
from ..core.metrics.registry import nan_reason, parse_metric
from ..core.evaluation.result import warn_once
from ..core.inputs.validation import internal_error
from ..summary.finalize import (
    COUNTER_INDEX, auc_lookup, auc_replicates, delong_of, dropped_segments, metric_coverage, segment_order, ci_method,
    fallback_note, item_values, xauc_of,
)
from ..summary.plan import Plan
from ..summary.replicates import MIN_UNITS, few_units, pooled_units, replicate_results
from ..summary.summary import Summary

__all__ = ["report_table"]


def _report_ci_info(plan: Plan) -> dict[str, Any]:
    names = list(plan.metrics)
    analytic = [n for n in names if (n == "auc" and plan.auc_delong) or n == "xauc"]
    boot = [n for n in names if n not in analytic]
    dl = delong_words(METHOD, plan.options.sample_weight) + (" (per segment)" if plan.by else "")
    note = "; auc: percentile bootstrap" if plan.ci_method == "studentized" and plan.has_auc and not analytic else ""
    info: dict[str, Any] = {
        "level": plan.ci,
        "method": ci_method(plan) + (" (stratified by segment)" if plan.by and plan.resample != "poisson" else "")
        + note,
        "n_boot": plan.n_boot,
        "seed": plan.seed_repr,
    }
    if analytic and boot:
        info["method"] = f"{info['method']}; {', '.join(analytic)}: {dl}"
    elif analytic:
        info = {"level": plan.ci, "method": dl}
    elif plan.has_auc and plan.auc_method == "delong":
        info["method"] = f"{info['method']} (auc too: {delong_unavailable(plan.options.ties)})"
    return info


def report_table(
    summary: Summary, plan: Plan, auc: dict | None, auc_boot: dict | None, delong: dict | None,
    xauc: dict | None = None,
) -> Any:
    """The report: one row per (segment, model), metric columns (and intervals), coverage columns.

    Computed over every segment at once (``by=`` with thousands of values costs a few array
    operations): the point values, the percentile intervals (one vectorized quantile over all
    segments and items), the coverage columns. Only the clustered-DeLong variance of global
    AUC (and global XAUC, from ``xauc``) and the opt-in studentized interval are computed one
    segment at a time.
    """
    names = list(plan.metrics)
    specs = {s.name: s for s in plan.all_specs}
    keys = segment_order(list(summary.keys)) if plan.by else [()]
    if any(k not in summary.index for k in keys):  # pragma: no cover - every key comes from the summary
        raise internal_error("a segment without a summary")
    pos = np.array([summary.index[k] for k in keys], dtype=np.int64)
    values = _point_values(summary, plan, keys, pos, auc, xauc)
    columns: dict[str, np.ndarray] = {n: values[n].reshape(-1) for n in names}
    columns.update(_count_columns(summary, plan, keys, pos))
    fallback: dict[str, None] = {}  # model/metric whose bootstrap-t interval fell back to percentile
    intervals: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    if plan.ci is not None:
        intervals = _intervals(summary, plan, keys, pos, values, auc_boot, delong, fallback, xauc)
    if plan.by:
        idx: pd.Index = pd.MultiIndex.from_tuples([(*k, s) for k in keys for s in plan.scores],
                                                  names=[*plan.by, "model"])
    else:
        idx = pd.Index(plan.scores, name="model", tupleize_cols=False)  # tuple names stay names
    ordered: dict[str, np.ndarray] = {}
    for c, v in columns.items():
        ordered[c] = v
        if c in intervals:
            ordered[f"{c}_low"], ordered[f"{c}_high"] = intervals[c]
    table = pd.DataFrame(ordered, index=idx)
    if intervals:
        table.attrs["ci"] = _report_ci_info(plan)
        few = _few_group_cells(summary, plan, pos, values, intervals)
        if few:
            table.attrs["few_groups"] = few
        if fallback:
            table.attrs["ci"]["method"] += fallback_note(list(fallback))
            table.attrs["ci"]["percentile_fallback"] = list(fallback)
    table.attrs["params"] = {n: plan.options.params(specs[n]) for n in names}
    table.attrs["graded_rows"] = summary.total("n_graded")
    dropped = dropped_segments(summary, plan)
    if dropped is not None:
        table.attrs["dropped"] = dropped
    first = metric_coverage(summary, plan, plan.scores[0], xauc)
    table.attrs["coverage"] = {n: first[n][1].as_dict() for n in names}
    table = as_result_table(table, "report")
    # which groups a metric uses depends on the labels only: one warning covers every model
    warn_once(plan.func, [(n, first[n][0], first[n][1], nan_reason(n)) for n in names])
    return table


def _few_group_cells(summary: Summary, plan: Plan, pos: np.ndarray, values: dict[str, np.ndarray],
                     intervals: dict[str, tuple[np.ndarray, np.ndarray]]) -> int:
    """How many values have no interval because their metric uses fewer than 2 groups (the
    footer says so): a group metric's groups used, global AUC's and XAUC's groups."""
    item_j = {item: j for j, item in enumerate(plan.items)}
    pooled = pooled_units(summary.data, plan)[pos] < MIN_UNITS
    n = 0
    for name, (lo, _) in intervals.items():
        if name in ("auc", "xauc"):
            few = np.repeat(pooled, len(plan.scores))
        else:
            few = few_units(summary.data, plan, np.array([item_j[(s, name)] for s in plan.scores]))[pos].reshape(-1)
        n += int(np.sum(few & np.isfinite(values[name].reshape(-1)) & np.isnan(lo)))
    return n


def _point_values(
    summary: Summary, plan: Plan, keys: list[tuple], pos: np.ndarray, auc: dict | None, xauc: dict | None
) -> dict[str, np.ndarray]:
    """Every metric's value per (segment, model): global AUC from the engine's counts, global XAUC
    from the engine's count of its pairs, the others from the summed items."""
    item_j = {item: j for j, item in enumerate(plan.items)}
    scores = list(plan.scores)
    point = item_values(plan, summary.data["sums"][pos])  # sums: (segments, items, 2)
    values: dict[str, np.ndarray] = {}  # metric -> (segments, models)
    for n in plan.metrics:
        if n == "auc":
            values[n] = np.array([[auc_lookup(auc, k, s, plan) for s in scores] for k in keys], dtype=np.float64)
        elif n == "xauc":
            values[n] = np.array([xauc_of(xauc, k, plan).values for k in keys], dtype=np.float64).reshape(len(keys), -1)
        else:
            values[n] = point[:, [item_j[(s, n)] for s in scores]]
    return values


def _count_columns(summary: Summary, plan: Plan, keys: list[tuple], pos: np.ndarray) -> dict[str, np.ndarray]:
    """The coverage columns per (segment, model): groups, rows, GAUC's groups used and rows
    skipped, groups without a relevant row, rows dropped (by segment: the segment's own)."""
    names = list(plan.metrics)
    specs = {s.name: s for s in plan.all_specs}
    item_j = {item: j for j, item in enumerate(plan.items)}
    gauc_names = [n for n in names if specs[n].info.eligibility == "pairs"]
    scores = list(plan.scores)
    n_mod = len(scores)
    data = summary.data
    n_rows = data["n_rows"][pos]
    columns: dict[str, np.ndarray] = {}
    if any(specs[n].info.grouped for n in names) or plan.by:
        columns["n_groups"] = np.repeat(data["n_groups"][pos], n_mod)  # a per-segment column, once per model
    columns["n_rows"] = np.repeat(n_rows, n_mod)
    if gauc_names:
        cnt = data["counts"][pos][:, [item_j[(s, gauc_names[0])] for s in scores], :]  # (segments, models, counters)
        columns["gauc_groups_used"] = cnt[:, :, COUNTER_INDEX["n_used"]].reshape(-1)
        columns["gauc_rows_skipped"] = (cnt[:, :, COUNTER_INDEX["rows_skipped"]] / np.maximum(n_rows, 1)[:, None]).reshape(-1)
    if any(specs[n].info.eligibility == "relevant" for n in names):
        columns["groups_no_relevant"] = np.repeat(data["n_nopos"][pos], n_mod)
    if summary.n_dropped and plan.by:  # each segment's own rows (Summary.dropped_by)
        own = np.array([summary.dropped_by.get(k, 0) for k in keys], dtype=np.int64)
        columns["rows_dropped"] = np.repeat(own, n_mod)
    elif summary.n_dropped:
        columns["rows_dropped"] = np.full(len(pos) * n_mod, summary.n_dropped, dtype=np.int64)
    return columns


def _intervals(
    summary: Summary,
    plan: Plan,
    keys: list[tuple],
    pos: np.ndarray,
    values: dict[str, np.ndarray],
    auc_boot: dict | None,
    delong: dict | None,
    fallback: dict[str, None],
    xauc: dict | None = None,
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Every metric's interval per (segment, model), flattened in the table's row order."""
    scores = list(plan.scores)
    item_j = {item: j for j, item in enumerate(plan.items)}
    n_seg, n_mod = len(keys), len(scores)
    ci = float(plan.ci)  # type: ignore[arg-type]
    rr = replicate_results(summary, plan)  # every item's interval per segment (maybe computed on the workers)
    out: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for n, v in values.items():
        if n == "xauc" or (n == "auc" and plan.auc_delong):
            if n == "xauc":  # clustered DeLong of its row placements, always
                var = np.array([np.diag(xauc_of(xauc, k, plan).cov) for k in keys])
            else:
                var = np.array([np.diag(delong_of(delong, k, plan, summary.segments[k])[1]) for k in keys])
            lo, hi = normal_interval(v.reshape(-1), var.reshape(-1), ci, clip=(0.0, 1.0))
            lo, hi = lo.reshape(n_seg, n_mod), hi.reshape(n_seg, n_mod)
        elif n == "auc":  # the hashed bootstrap replicates of global AUC, from the engine
            r = np.stack([np.stack([auc_replicates(auc_boot, k, s, plan) for s in scores], axis=1) for k in keys])
            flat = np.moveaxis(r, 1, 0).reshape(r.shape[1], n_seg * n_mod)
            lo_f, hi_f = percentile_interval(flat, ci, bounds=(0.0, 1.0))
            lo, hi = lo_f.reshape(n_seg, n_mod), hi_f.reshape(n_seg, n_mod)
            few = pooled_units(summary.data, plan)[pos] < MIN_UNITS
            lo, hi = np.where(few[:, None], np.nan, lo), np.where(few[:, None], np.nan, hi)  # one group: no sample
        else:
            if rr is None:  # pragma: no cover - an interval always has replicate sums
                raise internal_error("an interval without bootstrap sums")
            cols = [item_j[(s, n)] for s in scores]
            lo, hi = rr["rep_lo"][pos][:, cols], rr["rep_hi"][pos][:, cols]  # type: ignore[index]
            fell = rr["rep_fell"][pos][:, cols]  # type: ignore[index]
            # the models whose interval fell back, in the order of the first segment where each did
            first = np.where(fell.any(axis=0), fell.argmax(axis=0), n_seg)
            for m in sorted(np.flatnonzero(first < n_seg).tolist(), key=lambda m: (first[m], m)):
                fallback.setdefault(f"{scores[m]}/{n}", None)
        ok = np.isfinite(v) & (not parse_metric(n).info.reading.no_interval)
        out[n] = (np.where(ok, lo, np.nan).reshape(-1), np.where(ok, hi, np.nan).reshape(-1))
    return out
