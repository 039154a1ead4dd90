"""Stage 7: a summed Summary -> the result objects of the public API.

Every engine ends here: :func:`finalize` raises the errors that need whole-table counts, then
builds the ``MetricResult`` of a metric, or the report or compare table.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.evaluation.records import GroupValues, warn_if_needed
from ..core.evaluation.result import MetricResult, xauc_coverage
from ..core.metrics.registry import parse_metric
from ..summary.finalize import auc_coverage, auc_lookup, metric_coverage, raise_input_errors, xauc_of
from ..summary.plan import Plan
from ..summary.summary import Summary
from .compare import compare_table
from .report import report_table

__all__ = ["finalize"]


def finalize(
    summary: Summary,
    plan: Plan,
    *,
    auc: dict | None = None,
    auc_boot: dict | None = None,
    delong: dict | None = None,
    xauc: dict | None = None,
) -> Any:
    """Client side: check with whole-table counts, divide, and build the pandas result.

    Parameters
    ----------
    summary : Summary
        The sum of every partition's summary.
    plan : Plan
        The plan the summaries were made with.
    auc : dict, optional
        ``{(segment key, score): AucCounts or float}`` for global AUC (segment key
        ``()`` without ``by``), computed by the engine's own score pass.
    auc_boot : dict, optional
        ``{(segment key, score): array of n_boot replicates}`` of global AUC under the
        same hashed bootstrap, when an interval of global AUC by bootstrap is asked for
        (``auc_method="bootstrap"``, or a tie rule other than "expected").
    delong : dict, optional
        ``{segment key: moment matrix}`` of :func:`pandas_rankeval._delong.delong_moments`
        over the plan's scores (in order), summed over partitions: the clustered-DeLong
        interval and test of global AUC (``auc_method="delong"``, the default).
    xauc : dict, optional
        ``{segment key: XaucRows}`` (:mod:`pandas_rankeval.inference.xauc_delong`) when global
        XAUC is asked for: its values, and with an interval or a test its clustered DeLong
        covariance, from an evaluation of every row (:func:`~pandas_rankeval.summary.extras.xauc_extras`).

    A plan of the global pass of global XAUC (``global_metric="xauc"``: ``pre.xauc`` on a frame
    read in partitions) reads its chained counts from ``auc`` (:mod:`pandas_rankeval.summary.xauc_counts`).

    Returns
    -------
    MetricResult (kind "metric"), or the ResultTable of report / compare.
    """
    raise_input_errors(summary, plan)
    if plan.global_metric == "xauc":
        return _global_xauc(summary, plan, auc)
    if plan.kind == "metric":
        return _finalize_metric(summary, plan, auc, xauc)
    if plan.kind == "report":
        return report_table(summary, plan, auc, auc_boot, delong, xauc)
    return compare_table(summary, plan, auc, auc_boot, delong, xauc)


def _global_xauc(summary: Summary, plan: Plan, auc: dict | None) -> MetricResult:
    """Global XAUC of a frame read in partitions, from its global pass's chained counts."""
    counts = _xauc_counts(auc, plan)
    return _xauc_result(counts.value(), counts.den > 0, summary, plan)


def _xauc_counts(auc: dict | None, plan: Plan) -> Any:
    """The global pass's ``XaucCounts`` of the plan's one score column."""
    if auc is None or ((), plan.scores[0]) not in auc:  # pragma: no cover - the pass always counts
        raise ValueError(f"{plan.func}: global XAUC was asked for, but no XAUC counts were given to finalize")
    return auc[((), plan.scores[0])]


def _xauc_result(value: float, used: bool, summary: Summary, plan: Plan) -> MetricResult:
    """Global XAUC's result: pandas' coverage and its warning when no pair of rows has different labels."""
    spec = parse_metric("xauc")
    cov = xauc_coverage(summary.n_rows, float(used), summary.n_dropped)
    empty = np.zeros(0)
    warn_if_needed(GroupValues(spec, empty, empty, empty, value, cov), plan.func)
    return MetricResult(value, metric=spec.name, coverage=cov, params=plan.options.params(spec))


def _finalize_metric(summary: Summary, plan: Plan, auc: dict | None, xauc: dict | None) -> MetricResult:
    spec = plan.all_specs[0]
    score = plan.scores[0]
    if spec.info.row_pairs:
        rows = xauc_of(xauc, (), plan)
        return _xauc_result(float(rows.values[0]), rows.used, summary, plan)
    if not spec.info.grouped:
        value = auc_lookup(auc, (), score, plan)
        cov = auc_coverage(summary, plan)
    else:
        value, cov = metric_coverage(summary, plan, score)[spec.name]
    empty = np.zeros(0)
    warn_if_needed(GroupValues(spec, empty, empty, empty, value, cov), plan.func)
    return MetricResult(value, metric=spec.name, coverage=cov, params=plan.options.params(spec))
