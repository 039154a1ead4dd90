"""The public functions the registry writes from an entry alone: a list metric with a persistence
(``rbp``) or a cutoff (``err``) and the calibration metrics (``logloss``, ``ne``, ``pcoc``, ``ece``).

Each factory takes the entry alone and evaluates through :func:`.dispatch.evaluate_metric`, as every
metric function does, so that adding such a metric touches only its definition.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any, Protocol

from pandas_rankeval.core.inputs.options import WeightLike
from pandas_rankeval.core.metrics.registry import Metric
from pandas_rankeval.core.evaluation.result import MetricResult

from .dispatch import Empty, EngineOptions, GroupLike, NanPolicy, Ties, evaluate_metric

__all__ = [
    "CalibrationMetric", "ListCutoffMetric", "PersistenceMetric", "calibration_metric", "cutoff_metric",
    "persistence_metric",
]

def _published(function: Any, metric: Metric) -> Any:
    """``function`` named, placed and documented as the entry's public function."""
    function.__name__ = function.__qualname__ = metric.function
    function.__module__ = "pandas_rankeval.api.metrics"
    function.__doc__ = metric.doc
    return function


class PersistenceMetric(Protocol):
    """The signature of a list metric whose name takes a persistence ``p`` (``"rbp@0.8"``)."""

    __name__: str

    def __call__(
        self,
        df: Any,
        *,
        group: GroupLike,
        label: Hashable,
        score: Hashable,
        p: float = 0.8,
        weight: WeightLike = None,
        ties: Ties = "expected",
        tiebreak: Hashable | None = None,
        threshold: float | None = None,
        empty: Empty = "zero",
        nan_policy: NanPolicy = "raise",
        engine_options: EngineOptions = None,
    ) -> MetricResult: ...


def persistence_metric(metric: Metric) -> PersistenceMetric:
    """The public function of a list metric with a persistence, written from its registry entry
    (its docstring is the entry's ``doc``): adding such a metric touches only its definition."""
    default = float(metric.param.default)  # type: ignore[arg-type]

    def function(
        df: Any,
        *,
        group: GroupLike,
        label: Hashable,
        score: Hashable,
        p: float = default,
        weight: WeightLike = None,
        ties: Ties = "expected",
        tiebreak: Hashable | None = None,
        threshold: float | None = None,
        empty: Empty = "zero",
        nan_policy: NanPolicy = "raise",
        engine_options: EngineOptions = None,
    ) -> MetricResult:
        return evaluate_metric(
            metric.function, df, engine_options, p,
            group=group, label=label, score=score, weight=weight, ties=ties, tiebreak=tiebreak,
            threshold=threshold, empty=empty, nan_policy=nan_policy,
        )

    return _published(function, metric)


class ListCutoffMetric(Protocol):
    """The signature of a list metric whose name takes an optional cutoff k (``"err@10"``, ``"err"``)."""

    __name__: str

    def __call__(
        self,
        df: Any,
        *,
        group: GroupLike,
        label: Hashable,
        score: Hashable,
        k: int | None = None,
        weight: WeightLike = None,
        ties: Ties = "expected",
        tiebreak: Hashable | None = None,
        threshold: float | None = None,
        empty: Empty = "zero",
        nan_policy: NanPolicy = "raise",
        engine_options: EngineOptions = None,
    ) -> MetricResult: ...


def cutoff_metric(metric: Metric) -> ListCutoffMetric:
    """The public function of a list metric with a cutoff k (None: the whole list, the default of
    an optional cutoff), written from its registry entry: adding one touches only its definition."""
    default = None if metric.param.default is None else int(metric.param.default)

    def function(
        df: Any,
        *,
        group: GroupLike,
        label: Hashable,
        score: Hashable,
        k: int | None = default,
        weight: WeightLike = None,
        ties: Ties = "expected",
        tiebreak: Hashable | None = None,
        threshold: float | None = None,
        empty: Empty = "zero",
        nan_policy: NanPolicy = "raise",
        engine_options: EngineOptions = None,
    ) -> MetricResult:
        return evaluate_metric(
            metric.function, df, engine_options, k,
            group=group, label=label, score=score, weight=weight, ties=ties, tiebreak=tiebreak,
            threshold=threshold, empty=empty, nan_policy=nan_policy,
        )

    return _published(function, metric)


class CalibrationMetric(Protocol):
    """The signature of a calibration metric (``logloss``, ``ne``, ``pcoc``; ``ece`` adds ``bins``)."""

    __name__: str

    def __call__(
        self,
        df: Any,
        *,
        group: GroupLike,
        label: Hashable,
        score: Hashable,
        sample_weight: Hashable | None = None,
        threshold: float | None = None,
        nan_policy: NanPolicy = "raise",
        engine_options: EngineOptions = None,
    ) -> MetricResult: ...


def calibration_metric(metric: Metric) -> CalibrationMetric:
    """The public function of a calibration metric, written from its registry entry."""

    def function(
        df: Any,
        *,
        group: GroupLike,
        label: Hashable,
        score: Hashable,
        sample_weight: Hashable | None = None,
        threshold: float | None = None,
        nan_policy: NanPolicy = "raise",
        engine_options: EngineOptions = None,
    ) -> MetricResult:
        return evaluate_metric(
            metric.function, df, engine_options, None,
            group=group, label=label, score=score, sample_weight=sample_weight, threshold=threshold,
            nan_policy=nan_policy,
        )

    if metric.param.kind == "bins":
        default = int(metric.param.default)  # type: ignore[arg-type]

        def function_bins(
            df: Any,
            *,
            group: GroupLike,
            label: Hashable,
            score: Hashable,
            bins: int = default,
            sample_weight: Hashable | None = None,
            threshold: float | None = None,
            nan_policy: NanPolicy = "raise",
            engine_options: EngineOptions = None,
        ) -> MetricResult:
            return evaluate_metric(
                metric.function, df, engine_options, bins,
                group=group, label=label, score=score, sample_weight=sample_weight, threshold=threshold,
                nan_policy=nan_policy,
            )

        function = function_bins  # type: ignore[assignment]
    return _published(function, metric)
