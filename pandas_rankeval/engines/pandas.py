"""The pandas engine: the one-partition case of the summary layer.

A pandas call evaluates its frame once (:func:`pandas_rankeval.core.evaluation.pipeline.evaluate`),
summarizes that one evaluation as one partition and adds the global-AUC pieces from its own sorts
(exact AUC, clustered-DeLong moments, bootstrap AUC replicates:
:func:`pandas_rankeval.summary.extras.evaluation_extras`, shared with every engine); the caller
finalizes: the same path as Dask and Spark, so a number cannot differ between engines except by
summation order.
The whole frame is one partition, so every option works here, the classic multinomial bootstrap
(``resample="multinomial"``) included. The adapter protocol: :mod:`pandas_rankeval.engines.base`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..core.evaluation.pipeline import evaluate
from ..core.threads import check_threads, limit_threads
from ..inference.hashing import key_hash
from ..summary.extras import evaluation_extras
from ..summary.partition import summarize_evaluation
from ..summary.plan import Plan
from ..summary.summary import Summary
from ..tables.per_group import per_group_table

__all__ = ["NAME", "OPTIONS", "check_options", "distinct", "partitioned", "per_group", "run", "schema",
           "with_row_number"]

NAME = "pandas"
OPTIONS: tuple[str, ...] = ("threads",)


def schema(frame: pd.DataFrame) -> pd.DataFrame:
    """The frame without its rows; named index levels become columns (group keys may be index
    levels, as in ``DataFrame.groupby``)."""
    empty = frame.iloc[:0]
    levels = [n for n in empty.index.names if n is not None and n not in empty.columns]
    return empty.reset_index(level=levels) if levels else empty


def with_row_number(frame: pd.DataFrame, name: str, resampled: bool = True) -> pd.DataFrame:
    """A shallow copy (no column copied, the input untouched) with the row numbers 0..n-1."""
    out = frame.copy(deep=False)
    out[name] = np.arange(len(frame), dtype=np.int64)
    return out


def partitioned(frame: pd.DataFrame) -> bool:
    """A pandas frame is one partition: every option works."""
    return False


def check_options(options: dict[str, Any], func: str) -> dict[str, Any]:
    """``threads``: an int >= 1, or None for the default rule (:mod:`pandas_rankeval.core.threads`)."""
    return {"threads": check_threads(options.get("threads"), func)}


def run(frame: pd.DataFrame, plan: Plan, options: dict[str, Any]) -> tuple[Summary, dict[str, Any]]:
    """Evaluate the frame once, summarize it as one partition, add the global-AUC pieces."""
    with limit_threads(options.get("threads")):
        return _run(frame, plan)


def _run(frame: pd.DataFrame, plan: Plan) -> tuple[Summary, dict[str, Any]]:
    ev = evaluate(
        frame, group=plan.group or None, label=plan.label, scores=plan.scores, specs=plan.all_specs,
        options=plan.options, keep_order=plan.has_auc and (bool(plan.by) or plan.interval), by=plan.by,
    )
    key_hashes = None
    if plan.group:
        if plan.n_replicates and plan.resample == "poisson":
            key_hashes = key_hash(ev.keys)
    summary = summarize_evaluation(ev, plan, key_hashes=key_hashes)
    return summary, evaluation_extras(ev, plan, key_hashes)


def distinct(frame: pd.DataFrame, column: Any, options: dict[str, Any] | None = None) -> list[Any]:
    """The distinct non-missing values of a column (or of an index level the call names)."""
    values = frame[column] if column in frame.columns else frame.index.get_level_values(column)
    return pd.Series(values).dropna().unique().tolist()


def per_group(frame: pd.DataFrame, plan: Plan, options: dict[str, Any]) -> Any:
    """The per-group table of the frame (one partition)."""
    return per_group_table(frame, plan)
