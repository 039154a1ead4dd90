"""The propensities of the counterfactual metrics, checked: what ``propensity=`` and ``clip=`` accept.

A :class:`~pandas_rankeval.counterfactual.PropensityTable`, a Series indexed by position or a
callable of the positions become a :class:`PropensityLookup` (small, picklable, the same on every
partition); a column name stays a name. The IPS kernels that read them are in
:mod:`pandas_rankeval.core.metrics.ips`.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .validation import call_user, check_column_name, invalid_parameter

__all__ = ["PropensityLookup", "check_clip", "check_propensity", "check_snips", "is_column", "resolve_propensity"]


@dataclass(frozen=True, eq=False)
class PropensityLookup:
    """Propensity per logged position: sorted distinct ``positions`` and their ``values``.

    What a :class:`~pandas_rankeval.counterfactual.PropensityTable`, a Series indexed by position
    or a callable (applied once to the distinct positions of the frame) become: small, picklable,
    the same on every partition.
    """

    positions: np.ndarray
    values: np.ndarray
    source: str = "table"

    def lookup(self, position: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(propensity of each row, bool: the row's position is in the lookup)."""
        if not self.positions.shape[0]:
            return np.full(position.shape[0], np.nan), np.zeros(position.shape[0], dtype=bool)
        i = np.clip(np.searchsorted(self.positions, position), 0, self.positions.shape[0] - 1)
        found = self.positions[i] == position
        return np.where(found, self.values[i], np.nan), found

    def __repr__(self) -> str:
        return f"{self.source} of {self.positions.shape[0]} positions"


def _lookup(positions: Any, values: Any, what: str, func: str, source: str) -> PropensityLookup:
    try:
        pos = np.asarray(positions, dtype=np.float64)
        val = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(
            f"The 'propensity' {what} of {func} must map numeric positions to numeric propensities."
        ) from None
    bad = ~np.isfinite(val) | (val <= 0)
    if bad.any():
        raise ValueError(
            f"The 'propensity' {what} of {func} has {int(bad.sum()):,} missing, infinite or non-positive "
            f"propensit{'ies' if bad.sum() != 1 else 'y'} (at positions {pos[bad][:3].tolist()}); every "
            "propensity must be a finite number > 0 (clip= sets the smallest one used)."
        )
    if not np.isfinite(pos).all():
        raise ValueError(f"The 'propensity' {what} of {func} has missing or infinite positions.")
    order = np.argsort(pos, kind="stable")
    pos, val = pos[order], val[order]
    if pos.shape[0] > 1 and (pos[1:] == pos[:-1]).any():
        raise ValueError(f"The 'propensity' {what} of {func} gives a position more than once.")
    return PropensityLookup(pos, val, source)


def check_propensity(value: Any, param: str, func: str) -> Any:
    """None, a column name, a :class:`PropensityLookup` or a callable (resolved later)."""
    if value is None or isinstance(value, PropensityLookup):
        return value
    if isinstance(value, pd.DataFrame):
        if "propensity" not in value.columns:
            raise ValueError(
                f"The '{param}' table of {func} needs a 'propensity' column indexed by position (the "
                f"table pre.propensities returns); its columns are {list(value.columns)!r}."
            )
        return _lookup(value.index, value["propensity"], "table", func, "table")
    if isinstance(value, pd.Series):
        return _lookup(value.index, value, "Series", func, "Series")
    if callable(value):
        return value
    if isinstance(value, Hashable) and not isinstance(value, (bool, numbers.Number)):
        check_column_name(value, param, func)
        return value
    raise invalid_parameter(param, func, "a PropensityTable (pre.propensities), a Series indexed by position, a "
                            "column name or a callable of the positions", value)


def check_clip(value: Any, param: str, func: str) -> float:
    if not (isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_)) and 0 <= float(value) <= 1):
        raise invalid_parameter(param, func, "a float in the range [0, 1] (the smallest propensity used; 0: no "
                                "clipping)", value)
    return float(value)


def check_snips(value: Any, param: str, func: str) -> bool:
    """True or False only: any other object (``"no"``, ``None``, 0) is a mistake, not a truth value."""
    if not isinstance(value, (bool, np.bool_)):
        raise invalid_parameter(param, func, "a bool (True: divide by the IPS weight of the clicks; False: by the "
                                "number of groups)", value)
    return bool(value)


def is_column(p: Any) -> bool:
    """A propensity given as a column name (not a lookup, not a callable)."""
    return p is not None and not isinstance(p, PropensityLookup) and not callable(p)


def resolve_propensity(fn: Callable[[np.ndarray], Any], positions: np.ndarray, func: str) -> PropensityLookup:
    """A callable of the positions, applied once to the distinct (finite, positive) positions."""
    pos = np.unique(np.asarray(positions, dtype=np.float64))
    pos = pos[np.isfinite(pos) & (pos > 0)]
    raw = call_user(fn, pos, "propensity", func, f"the {pos.shape[0]:,} distinct positions, a float64 array")
    try:
        out = np.asarray(raw, dtype=np.float64).reshape(-1)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"The 'propensity' callable of {func} must return numbers: {exc}") from None
    if out.shape[0] != pos.shape[0]:
        raise ValueError(
            f"The 'propensity' callable of {func} returned {out.shape[0]:,} values for {pos.shape[0]:,} "
            "positions; return one propensity per position of the array it gets."
        )
    return _lookup(pos, out, "callable", func, "callable")
