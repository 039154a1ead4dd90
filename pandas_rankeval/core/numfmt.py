"""Numbers as people read them: the one rule for a metric's decimals, shared by results and tables."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["digits", "fmt_metric", "is_missing"]

_PANDAS_DEFAULT_PRECISION = 6


def is_missing(x: Any) -> bool:
    if x is None or x is pd.NA:
        return True
    try:
        return isinstance(x, (float, np.floating)) and math.isnan(x)
    except TypeError:  # pragma: no cover - exotic scalars
        return False


def digits() -> int:
    """Decimals of a metric: 4, or ``display.precision`` when the user changed it.

    >>> digits()
    4
    >>> with pd.option_context("display.precision", 2):
    ...     digits()
    2
    """
    precision = int(pd.get_option("display.precision"))
    return 4 if precision == _PANDAS_DEFAULT_PRECISION else precision


def fmt_metric(x: Any, signed: bool = False) -> str:
    """A metric value (or a difference, with ``signed``) to :func:`digits` decimals.

    >>> fmt_metric(0.534307), fmt_metric(0.0123, signed=True), fmt_metric(float("nan"))
    ('0.5343', '+0.0123', 'NaN')
    """
    if is_missing(x):
        return "NaN"
    return f"{float(x):{'+' if signed else ''}.{digits()}f}"
