"""Stage 7: a summed Summary -> the result objects of the public API.

Every engine ends here: :func:`finalize` raises the errors that need whole-table counts, then
builds the ``MetricResult`` of a metric, or the report or compare table.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.evaluation.records import GroupValues, warn_if_needed
from ..core.evaluation.result import MetricResult
from ..summary.finalize import auc_coverage, auc_lookup, metric_coverage, raise_input_errors
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

    Returns
    -------
    MetricResult (kind "metric"), or the ResultTable of report / compare.
    """
    raise_input_errors(summary, plan)
    if plan.kind == "metric":
        return _finalize_metric(summary, plan, auc)
    if plan.kind == "report":
        return report_table(summary, plan, auc, auc_boot, delong)
    return compare_table(summary, plan, auc, auc_boot, delong)


def _finalize_metric(summary: Summary, plan: Plan, auc: dict | None) -> MetricResult:
    spec = plan.all_specs[0]
    score = plan.scores[0]
    if not spec.info.grouped:
        value = auc_lookup(auc, (), score, plan)
        cov = auc_coverage(summary, plan)
    else:
        value, cov = metric_coverage(summary, plan, score)[spec.name]
    empty = np.zeros(0)
    warn_if_needed(GroupValues(spec, empty, empty, empty, value, cov), plan.func)
    return MetricResult(value, metric=spec.name, coverage=cov, params=plan.options.params(spec))
