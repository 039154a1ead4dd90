"""The metric functions: one per entry of the registry, each written from its entry
(:mod:`.publish`). Type checkers read their signatures and docstrings from ``metrics.pyi``, written
from the registry too (``python -m pandas_rankeval.api``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pandas_rankeval.core.metrics.registry import metric_functions

from .publish import function_for, published

__all__ = list(metric_functions())
globals().update(published())


def __getattr__(name: str) -> Callable[..., Any]:
    """A metric registered after import (a test's throwaway metric): its function, written now."""
    metric = metric_functions().get(name)
    if metric is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return function_for(metric)
