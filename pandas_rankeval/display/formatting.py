"""Cells as people read them: one rule per kind of number, the same in every view and format.

- a metric to :func:`~pandas_rankeval.core.numfmt.digits` decimals (4, or ``display.precision``);
- a difference signed (``+0.0123``), an interval in its estimate's cell (``0.6900 [0.6160, 0.7440]``);
- a count with thousands separators, a share or a lift in % (``+12.4%``);
- a p-value to 3 significant digits, in scientific notation below 0.001, ``< 1e-6`` below that
  (no resolution floors: the number the test gives);
- a significant difference with its direction: ``▲`` better, ``▼`` worse (higher is better, but
  for the metrics compare's ``attrs["direction"]`` names: lower for log loss, NE and ECE, closer
  to 1 for PCOC).

Formatting is for display only: the tables keep their unrounded numbers.
"""

from __future__ import annotations

import math
from collections.abc import Hashable
from typing import Any

import numpy as np
import pandas as pd

from ..core.numfmt import digits, fmt_metric, is_missing, no_negative_zero

__all__ = [
    "AMOUNT_COLUMNS",
    "COUNT_COLUMNS",
    "COVERAGE_COLUMNS",
    "DOWN",
    "SHARE_COLUMNS",
    "UP",
    "digits",
    "direction",
    "fmt_column",
    "fmt_int",
    "fmt_interval",
    "fmt_metric",
    "fmt_number",
    "fmt_p",
    "fmt_share",
    "is_missing",
]

#: Report columns that describe coverage rather than a metric.
COVERAGE_COLUMNS = (
    "n_groups",
    "n_rows",
    "gauc_groups_used",
    "gauc_rows_skipped",
    "groups_no_relevant",
    "rows_dropped",
)
#: Columns that hold counts (thousands separators), in any table.
COUNT_COLUMNS = frozenset({*COVERAGE_COLUMNS, "groups_used", "n", "positives"}) - {"gauc_rows_skipped"}
#: Columns that hold sums of probabilities or of weights: amounts, shown as counts with one
#: decimal (``9,348.4``), not as metrics (``9348.4162``).
AMOUNT_COLUMNS = frozenset({"predicted", "clicks"})
#: Columns that hold shares (shown in %).
SHARE_COLUMNS = frozenset({"gauc_rows_skipped"})
#: The marks of a significant difference: better (higher) and worse (lower) than the baseline.
UP, DOWN = "▲", "▼"
#: Below this a p-value is shown as a bound: more digits would be noise of the approximation.
P_TINY = 1e-6


def fmt_interval(value: Any, low: Any, high: Any, signed: bool = False) -> str:
    """An estimate and its interval in one cell.

    >>> fmt_interval(0.69, 0.616, 0.744)
    '0.6900 [0.6160, 0.7440]'
    >>> fmt_interval(0.012, -0.003, 0.027, signed=True)
    '+0.0120 [-0.0030, +0.0270]'
    """
    head = fmt_metric(value, signed)
    if is_missing(low) or is_missing(high):
        return head
    return f"{head} [{fmt_metric(low, signed)}, {fmt_metric(high, signed)}]"


def _integral(x: Any) -> bool:
    try:
        return float(x).is_integer() and abs(float(x)) < 1e15
    except (TypeError, ValueError):
        return False


def fmt_int(x: Any) -> str:
    """A count with thousands separators; a non-integral value keeps its decimals (a mean
    of counts in ``describe()`` is not a count).

    >>> fmt_int(26228), fmt_int(2.5), fmt_int(float("nan"))
    ('26,228', '2.5000', 'NaN')
    """
    if is_missing(x):
        return "NaN"
    if _integral(x):
        return f"{int(float(x)):,}"
    return fmt_metric(x)


def fmt_amount(x: Any) -> str:
    """A sum of probabilities or of weights: thousands separators, one decimal unless integral.

    >>> fmt_amount(9348.41623), fmt_amount(5222.0), fmt_amount(0.04)
    ('9,348.4', '5,222', '0.0')
    """
    if is_missing(x):
        return "NaN"
    if _integral(x):
        return f"{int(float(x)):,}"
    return f"{float(x):,.1f}"


def fmt_share(x: Any, signed: bool = False) -> str:
    """A share or a relative difference in %.

    >>> fmt_share(0.1634), fmt_share(-0.0528, signed=True), fmt_share(-1e-9, signed=True)
    ('16.3%', '-5.3%', '+0.0%')
    """
    if is_missing(x):
        return "NaN"
    return no_negative_zero(f"{float(x):{'+' if signed else ''}.1%}", signed)


def fmt_p(x: Any) -> str:
    """A p-value: 3 significant digits, scientific below 0.001, ``< 1e-6`` below 1e-6.

    >>> [fmt_p(p) for p in (0.2936, 0.0312, 0.00512, 0.000812, 3e-9, 1.0)]
    ['0.294', '0.0312', '0.00512', '8.12e-4', '< 1e-6', '1.00']
    """
    if is_missing(x):
        return "NaN"
    p = float(x)
    if p < P_TINY:
        return "< 1e-6"
    if p < 0.001:
        mantissa, exponent = f"{p:.2e}".split("e")
        return f"{mantissa}e{int(exponent)}"
    decimals = max(0, 2 - math.floor(math.log10(p)))
    return f"{p:.{decimals}f}"


def direction(diff: Any, significant: Any, better: str = "higher", value: Any = None, base: Any = None) -> str:
    """``▲`` for a significant gain, ``▼`` for a significant loss, else ``""``.

    ``better`` is the metric's side (compare's ``attrs["direction"]``): ``"higher"``, ``"lower"``
    (log loss, NE, ECE), or ``"closer to 1"`` (PCOC: the model whose value is nearer 1 gains).

    >>> direction(0.02, True), direction(-0.02, True), direction(0.02, False)
    ('▲', '▼', '')
    >>> direction(-0.02, True, "lower"), direction(0.1, True, "closer to 1", 1.05, 0.95)
    ('▲', '')
    """
    if is_missing(significant) or not bool(significant) or is_missing(diff) or float(diff) == 0:
        return ""
    gain = float(diff)
    if better == "lower":
        gain = -gain
    elif better == "closer to 1":
        if is_missing(value) or is_missing(base):
            return ""
        gain = abs(float(base) - 1.0) - abs(float(value) - 1.0)
        if gain == 0:
            return ""
    return UP if gain > 0 else DOWN


def fmt_number(x: Any) -> str:
    """Any cell: booleans as yes/no, integral numbers as counts, other floats as metrics."""
    if is_missing(x):
        return "NaN"
    if isinstance(x, (bool, np.bool_)):
        return "yes" if x else "no"
    if isinstance(x, (int, np.integer)):
        return f"{int(x):,}"
    if isinstance(x, (float, np.floating)):
        return fmt_int(x) if _integral(x) else fmt_metric(x)
    return str(x)


def fmt_column(name: Hashable, col: pd.Series) -> pd.Series:
    """A column of any table by its name and dtype (counts, shares, flags, metrics)."""
    if name in COUNT_COLUMNS or name == "weight":  # group weights: counts by default, any amount otherwise
        return col.map(fmt_int)
    if name in SHARE_COLUMNS:
        return col.map(fmt_share)
    if name in AMOUNT_COLUMNS and pd.api.types.is_numeric_dtype(col.dtype) and not pd.api.types.is_bool_dtype(col.dtype):
        return col.map(fmt_amount)
    if pd.api.types.is_bool_dtype(col.dtype):
        return col.map(lambda v: "yes" if v else "no")
    if pd.api.types.is_float_dtype(col.dtype):
        return col.map(fmt_metric)
    return col.map(fmt_number)
