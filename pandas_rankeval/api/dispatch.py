"""One call of a public function, for any frame: engine, plan, checks, run, finalize.

Every public function ends in :func:`evaluate_frame`, each of its parameters passed by name, which

1. picks the frame's engine (:func:`pandas_rankeval.engines.engine_for`; an engine is imported only
   when its frame arrives) and checks ``engine_options`` against it;
2. reads the frame's schema (no data) and builds the :class:`~pandas_rankeval.summary.Plan` once;
3. raises everything the schema and the options can answer (:func:`~pandas_rankeval.summary.checks.
   check_schema`, and :func:`~pandas_rankeval.summary.checks.check_partitioned` for an engine that
   evaluates the frame in partitions);
4. lets the engine summarize the frame (:meth:`Engine.run <pandas_rankeval.engines.base.Engine.run>`),
   or build the per-group table;
5. finalizes the summed summary into the result (:func:`pandas_rankeval.tables.finalize`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Hashable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from ..core.inputs.options import WeightLike
from ..core.metrics.registry import MetricSpec, metric_of_function, parse_metrics
from ..core.evaluation.result import MetricResult
from ..core.threads import one_blas_thread
from ..core.inputs.validation import MissingValuesError, as_columns, check_bins, check_k, check_persistence
from ..engines import engine_for
from ..engines.base import check_engine_options, internal_prefix
from ..summary.checks import check_partitioned, check_schema
from ..summary.plan import global_pass, make_plan
from ..tables import finalize

__all__ = [
    "Empty", "EngineOptions", "GroupLike", "NanPolicy", "PropensityLike", "Ties", "WeightLike", "evaluate_frame",
    "evaluate_metric",
]

Ties = Literal["expected", "pessimistic", "optimistic"]
Empty = Literal["zero", "skip", "error"]
NanPolicy = Literal["raise", "omit"]
GroupLike = Hashable | Sequence[Hashable]
EngineOptions = Mapping[str, Any] | None
#: A PropensityTable, a Series indexed by position, a column name or a callable of the positions.
PropensityLike = Any


def evaluate_frame(frame: Any, func: str, engine_options: EngineOptions, *,
                   finish: Callable[[Any, Any, dict[str, Any]], Any] | None = None, **plan_kwargs: Any) -> Any:
    """Plan and check on the caller's side, let the frame's engine summarize it, finalize.

    ``plan_kwargs`` are those of :func:`pandas_rankeval.summary.make_plan` (``kind`` among them);
    a plan of kind ``"per_group"`` returns the engine's per-group table instead. ``finish``
    (summary, plan, extras), when given, makes the result instead of
    :func:`pandas_rankeval.tables.finalize`. A frame read in partitions runs
    :func:`~pandas_rankeval.summary.plan.global_pass` of the plan (global XAUC alone: the global pass).
    """
    engine = None
    try:
        engine = engine_for(frame, func)
        options = check_engine_options(engine, engine_options, func)
        schema = engine.schema(frame)
        if _row_groups(plan_kwargs):  # pooled metrics without a group: every row its own group
            frame, schema, plan_kwargs = _number_rows(engine, frame, schema, plan_kwargs, func)
        plan = make_plan(func, df=schema, **plan_kwargs)
        check_schema(schema, plan)
        if callable(plan.options.propensity):  # IPS metrics: the callable once, on the distinct positions
            plan = _with_propensities(plan, engine, frame, options)
        if engine.partitioned(frame):
            plan = global_pass(plan)
            check_partitioned(plan, engine.NAME)
        # BLAS on one thread from here to the result, held with every other call running beside
        # this one: every product the same to the bit, whatever runs in the process meanwhile
        with one_blas_thread():
            if plan.kind == "per_group":
                return engine.per_group(frame, plan, options)
            summary, extras = engine.run(frame, plan, options)
            if plan.row_groups and summary.data:  # every row its own group, whatever key the engine
                summary.data["n_groups"] = summary.data["n_rows"].copy()  # used (the warehouse: one)
            return finalize(summary, plan, **extras) if finish is None else finish(summary, plan, extras)
    except (ValueError, TypeError, KeyError) as exc:
        if not raised_by_us(exc):
            raise
        if isinstance(exc, MissingValuesError):  # "null" to a polars user, "NULL" to DuckDB's;
            # shown as the ValueError it is (the class only carries the counts between layers)
            exc = ValueError(str(exc.for_engine(engine.NAME) if engine is not None else exc))
        # An error this library raised on purpose (bad input, a refused option) is raised from
        # here, one frame below the public function, not through the internal frames that found
        # it (as scikit-learn's parameter checks do). PANDAS_RANKEVAL_TRACEBACK=full keeps them.
        raise exc.with_traceback(None)  # noqa: B904


def _row_groups(plan_kwargs: dict[str, Any]) -> bool:
    """A call without ``group`` whose metrics are all pooled over rows or global (logloss, ne,
    pcoc, ece with auc, xauc), at least one pooled: its group key is the row number, so that the
    values pool every row (as with any group) and the bootstrap and the paired tests resample
    rows. Any other call is left to the plan (a metric that needs a group raises there)."""
    if plan_kwargs.get("group") is not None or plan_kwargs.get("kind") == "per_group":
        return False
    metrics = plan_kwargs.get("metrics")
    try:
        specs = [metrics] if isinstance(metrics, MetricSpec) else parse_metrics(metrics)  # type: ignore[arg-type]
    except (ValueError, TypeError):
        return False  # the plan raises it, with its other checks
    if any(s.info.needs_group for s in specs):
        return False
    # a pooled metric; or global AUC with an interval or a test (clustered DeLong over rows: the
    # classic one), which reads its moments per group
    resampled = plan_kwargs.get("kind") == "compare" or plan_kwargs.get("ci") is not None
    return any(s.info.eligibility == "pooled" or (resampled and s.name == "auc") for s in specs)


def _number_rows(engine: Any, frame: Any, schema: Any, plan_kwargs: dict[str, Any],
                 func: str) -> tuple[Any, Any, dict[str, Any]]:
    """The frame with its row-number column (the engine's :meth:`with_row_number`), its schema, and
    the plan's keywords with that column as the group key. A call with no interval and no test reads
    the values only, and the engine may give every row one key (the warehouse): the ``by`` columns
    then join the key, so that a segment stays constant within a group."""
    name = internal_prefix(schema.columns) + "row"
    resampled = plan_kwargs.get("kind") == "compare" or plan_kwargs.get("ci") is not None
    frame = engine.with_row_number(frame, name, resampled)
    by = plan_kwargs.get("by")
    by_cols = [] if resampled or by is None else as_columns(by, "by", func, schema)
    group = [name, *by_cols] if by_cols else name
    return frame, engine.schema(frame), {**plan_kwargs, "group": group, "row_groups": True}


_PACKAGE = str(Path(__file__).resolve().parent.parent)


def raised_by_us(exc: BaseException) -> bool:
    """Raised by a ``raise`` in this package (its last frame is ours), so it is a message for the
    user, not an error of numpy, pandas or an engine passing through (those keep their frames)."""
    if os.environ.get("PANDAS_RANKEVAL_TRACEBACK", "").lower() == "full":
        return False
    tb = exc.__traceback__
    if tb is None:
        return False
    while tb.tb_next is not None:
        tb = tb.tb_next
    return str(Path(tb.tb_frame.f_code.co_filename).resolve()).startswith(_PACKAGE)


def _with_propensities(plan: Any, engine: Any, frame: Any, options: dict[str, Any]) -> Any:
    """The plan with its propensity callable applied to the frame's distinct positions."""
    import dataclasses

    import numpy as np

    from ..core.metrics.ips import resolve_propensity

    opts = plan.options
    values = engine.distinct(frame, opts.position, options)
    try:
        positions = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        return plan  # not numbers: the partitions raise the dtype error with its column
    lookup = resolve_propensity(opts.propensity, positions, plan.func)
    return dataclasses.replace(plan, options=dataclasses.replace(opts, propensity=lookup))


def evaluate_metric(function: str, df: Any, engine_options: EngineOptions, k: Any, **options: Any) -> MetricResult:
    """One metric of one score column: the plan of kind "metric", on the frame's engine.

    ``function`` is the public function (its name is in every message); its metric is the
    registry's entry of that function, ``k`` the cutoff (checked here), ``options`` the
    function's other parameters, each passed by name.
    """
    metric = metric_of_function(function)
    if metric.param.kind == "persistence":
        k = check_persistence(k, function)
    elif metric.param.kind == "bins":
        k = check_bins(k, function)
    elif metric.param.presence != "none":
        k = check_k(k, function, allow_none=metric.param.presence == "optional")
    score = options.pop("score")
    result: MetricResult = evaluate_frame(
        df, function, engine_options, kind="metric", metrics=MetricSpec(metric.name, k, metric), scores=score, **options
    )
    return result
