"""Numbers as people read them: the one rule for a metric's decimals, shared by results and tables."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["digits", "fmt_metric", "is_missing", "no_negative_zero"]

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

    A value that rounds to zero shows no minus sign (``+0.0000`` signed, ``0.0000`` otherwise):

    >>> fmt_metric(0.534307), fmt_metric(0.0123, signed=True), fmt_metric(float("nan"))
    ('0.5343', '+0.0123', 'NaN')
    >>> fmt_metric(-1e-17, signed=True), fmt_metric(-0.0), fmt_metric(-0.00004, signed=True)
    ('+0.0000', '0.0000', '+0.0000')
    """
    if is_missing(x):
        return "NaN"
    return no_negative_zero(f"{float(x):{'+' if signed else ''}.{digits()}f}", signed)


def no_negative_zero(text: str, signed: bool = False) -> str:
    """``"-0.0000"`` (a formatted number that rounds to zero) without its minus sign:
    ``"+0.0000"`` when ``signed``, else ``"0.0000"``; any other text unchanged.

    >>> no_negative_zero("-0.0000", signed=True), no_negative_zero("-0.0%"), no_negative_zero("-0.0012")
    ('+0.0000', '0.0%', '-0.0012')
    """
    if text.startswith("-") and not text.strip("-0.%"):
        return ("+" if signed else "") + text[1:]
    return text
