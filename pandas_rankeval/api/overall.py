"""``overall=True`` of ``report`` and ``compare`` with ``by=``: the whole table as one more segment.

The overall rows come from the same call without ``by`` (one more evaluation of the frame, on any
engine), so every number of them is exactly what that call gives, intervals and tests included
(the hashed bootstrap draws each group's weights from its key and the seed, whatever the
segments). In a comparison the overall rows join the family of the multiple-testing adjustment
(and of ``ci_adjust="bonferroni"``): the adjusted p-values, the marks and simultaneous intervals
are computed again over the whole table.
"""

from __future__ import annotations

import warnings
from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from pandas_rankeval.core.evaluation.result import CoverageWarning
from pandas_rankeval.core.inputs.validation import invalid_parameter
from pandas_rankeval.core.progress import one_bar
from pandas_rankeval.display.table import ResultTable, as_result_table

from .dispatch import raised_by_us

__all__ = ["OVERALL", "check_overall", "with_overall"]

#: The segment label of the overall rows (in every ``by`` column).
OVERALL = "(all)"


def check_overall(overall: object, by: Hashable | Sequence[Hashable] | None, func: str) -> bool:
    """``overall`` as a bool; an error when it is not one, or when there is no ``by``."""
    if not isinstance(overall, (bool, np.bool_)):
        raise invalid_parameter("overall", func, "True or False", overall)
    if overall and by is None:
        raise ValueError(
            f"{func}(overall=True) adds the whole table's rows to a table by segment; pass by=... "
            "(without by the table is the overall one)."
        )
    return bool(overall)


def with_overall(segments: ResultTable, whole: ResultTable, by: Hashable | Sequence[Hashable], kind: str) -> ResultTable:
    """The table by segment, then the whole table's rows under the segment ``(all)``."""
    cols = list(segments.index.names)[: segments.index.nlevels - whole.index.nlevels]  # the by columns
    keys = [k if isinstance(k, tuple) else (k,) for k in whole.index]
    index = pd.MultiIndex.from_tuples([(*([OVERALL] * len(cols)), *k) for k in keys],
                                      names=[*cols, *whole.index.names])
    tail = pd.DataFrame(whole).set_axis(index, axis=0)
    head = pd.DataFrame(segments)
    combined = pd.concat([head, tail[[c for c in head.columns if c in tail.columns]]])
    for c in head.columns:  # a count that only the segments had stays an integer where it can
        if head[c].dtype.kind in "iu" and combined[c].notna().all():
            combined[c] = combined[c].astype(head[c].dtype)
    combined.attrs = dict(segments.attrs)
    combined.attrs["overall"] = OVERALL
    if kind == "compare":
        _readjust(combined)
    return as_result_table(combined, kind)


def _readjust(table: pd.DataFrame) -> None:
    """Adjusted p-values, marks and (``ci_adjust="bonferroni"``) intervals over the whole table."""
    from pandas_rankeval.tables.compare import apply_adjustment, multiple_testing

    attrs = table.attrs
    adjust, family = str(attrs.get("adjust", "holm")), str(attrs.get("family", "table"))
    metric_of = np.array([str(m) for m in table.index.get_level_values("metric")], dtype=object)
    ci = attrs.get("ci")
    apply_adjustment(table, metric_of, adjust=adjust, family=family, alpha=float(attrs.get("alpha", 0.05)),
                     ci=None if ci is None else float(ci), ci_adjust=str(attrs.get("ci_adjust", "none")))
    metrics = list(dict.fromkeys(metric_of.tolist()))
    attrs["multiple_testing"] = multiple_testing(adjust, family, metrics, len(table))


def evaluate_with_overall(call: Any, kind: str, by: Any, **kwargs: Any) -> ResultTable:
    """``call(by=by, **kwargs)`` (the public function's evaluation) and the same call without
    ``by``, joined under ``(all)``; a comparison's intervals are made simultaneous after the join,
    over the whole table."""
    ci_adjust = kwargs.get("ci_adjust")
    if ci_adjust is not None:
        kwargs["ci_adjust"] = "none"  # unadjusted parts; adjusted once, over the joined table
    try:
        with one_bar():  # progress=True: one bar for both passes
            segments = call(by=by, **kwargs)
            with warnings.catch_warnings():  # one warning per call: the segments' pass gave it
                warnings.simplefilter("ignore", CoverageWarning)
                whole = call(by=None, **kwargs)
    except (ValueError, TypeError, KeyError) as exc:
        if not raised_by_us(exc):
            raise
        raise exc.with_traceback(None)  # noqa: B904  # as evaluate_frame does: one frame below the public function
    if ci_adjust is not None:
        segments.attrs["ci_adjust"] = ci_adjust
    return with_overall(segments, whole, by, kind)
