"""Every choice that shapes a number: the options of the public functions, checked once.

:class:`Options` holds the tie rule, weights, filters and the rest; :func:`check_weight_name`
is the one check of a weight name against a frame's columns that every engine uses.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any, Union

import numpy as np
import pandas as pd

from .registry import MetricSpec
from .validation import check_column_name, check_min_count, check_option

__all__ = ["Options", "WeightLike", "WEIGHT_NAMES", "check_weight_name", "check_weight_series"]

TIES = ("expected", "pessimistic", "optimistic")
EMPTY = ("zero", "skip", "error")
GAINS = ("exp2", "linear")
DENOMINATORS = ("relevant", "min_k")
NAN_POLICIES = ("raise", "omit")
ENGINES = ("numpy", "sklearn")
WEIGHT_NAMES = ("count", "clicks", "log1p", "uniform")

WeightLike = Union[str, pd.Series, Callable[[pd.DataFrame], Any], None]

@dataclass
class Options:
    """Every choice that shapes a number, checked once."""

    func: str
    ties: str = "expected"
    tiebreak: Hashable | None = None
    threshold: float | None = None
    weight: WeightLike = None  # None: each metric's default
    empty: str = "zero"
    gain: str = "exp2"
    denominator: str = "relevant"
    min_size: int = 0
    min_pos: int = 0
    min_neg: int = 0
    sample_weight: Hashable | None = None
    engine: str = "numpy"
    max_fpr: float | None = None
    nan_policy: str = "raise"
    progress: bool = False

    def check(self) -> Options:
        f = self.func
        check_option(self.ties, "ties", f, TIES)
        check_option(self.empty, "empty", f, EMPTY)
        check_option(self.gain, "gain", f, GAINS)
        check_option(self.denominator, "denominator", f, DENOMINATORS)
        check_option(self.engine, "engine", f, ENGINES)
        check_option(self.nan_policy, "nan_policy", f, NAN_POLICIES)
        self.min_size = check_min_count(self.min_size, "min_size", f)
        self.min_pos = check_min_count(self.min_pos, "min_pos", f)
        self.min_neg = check_min_count(self.min_neg, "min_neg", f)
        if self.threshold is not None and not (
            isinstance(self.threshold, (int, float, np.integer, np.floating))
            and not isinstance(self.threshold, bool)
            and math.isfinite(self.threshold)
        ):
            raise ValueError(
                f"The 'threshold' parameter of {f} must be a finite number or None. "
                f"Got {self.threshold!r} instead."
            )
        if self.max_fpr is not None and not (
            isinstance(self.max_fpr, numbers.Real)
            and not isinstance(self.max_fpr, (bool, np.bool_))
            and 0 < self.max_fpr <= 1
        ):
            raise ValueError(
                f"The 'max_fpr' parameter of {f} must be a float in the range (0, 1] or None. "
                f"Got {self.max_fpr!r} instead."
            )
        if self.max_fpr is not None:
            self.max_fpr = float(self.max_fpr)  # sklearn would compute in float32 for np.float32
        for name in ("sample_weight", "tiebreak"):
            if getattr(self, name) is not None:
                check_column_name(getattr(self, name), name, f)
        w = self.weight
        if isinstance(w, str):
            pass  # a weight name or a column: resolved against the frame's columns
        elif isinstance(w, pd.Series):
            check_weight_series(w, f)
        elif w is not None and not callable(w):
            raise TypeError(
                f"The 'weight' parameter of {f} must be one of {', '.join(map(repr, WEIGHT_NAMES))}, "
                f"a column name, a pandas Series indexed by group key, or a callable. Got {w!r} instead."
            )
        return self

    def params(self, spec: MetricSpec) -> dict[str, Any]:
        """The choices that matter for one metric, for display."""
        out: dict[str, Any] = {"ties": self.ties}
        if spec.info.grouped:
            out["weight"] = self.weight_for(spec) if isinstance(self.weight_for(spec), str) else "custom"
        if self.tiebreak is not None:
            out["tiebreak"] = self.tiebreak
        if spec.kind == "ndcg":
            out["gain"] = self.gain
        if spec.kind == "map":
            out["denominator"] = self.denominator
        if spec.kind not in ("auc", "gauc"):
            out["empty"] = self.empty
        if self.threshold is not None:
            out["threshold"] = self.threshold
        if spec.kind == "gauc":
            for name in ("min_size", "min_pos", "min_neg"):
                if getattr(self, name):
                    out[name] = getattr(self, name)
        return out

    def weight_for(self, spec: MetricSpec) -> WeightLike:
        return spec.info.default_weight if self.weight is None else self.weight

def check_weight_series(weight: pd.Series, func: str) -> None:
    """What a weight Series says by itself, before any data is read (every engine).

    One value per group key (a repeated key cannot be aligned) and numbers. Which groups it
    lacks, and whether the weights of the groups present are finite and >= 0, depend on the
    data: they are counted over the whole table when the groups are evaluated.
    """
    if weight.index.has_duplicates:
        dup = weight.index[weight.index.duplicated()].unique()
        raise ValueError(
            f"The 'weight' Series of {func} could not be aligned to the group keys: its index repeats "
            f"{len(dup):,} key{'s' if len(dup) != 1 else ''} (for example {list(dup[:3])!r}). Index it by "
            "group key, one value per group (for example weight.groupby(level=0).sum())."
        )
    try:
        np.asarray(weight, dtype=np.float64)
    except (TypeError, ValueError):
        bad = [v for v in weight.to_numpy(dtype=object) if not isinstance(v, (numbers.Real, np.bool_))][:3]
        raise TypeError(
            f"The 'weight' Series of {func} must give numbers (one weight per group); got non-numeric "
            f"values such as {bad!r}. Convert them first, for example with pd.to_numeric."
        ) from None


#: What each weight name means, and a callable that asks for it without the name.
_WEIGHT_MEANINGS = {
    "count": ("the rows of each group", "weight=lambda stats: stats['n']"),
    "clicks": ("the relevant rows of each group", "weight=lambda stats: stats['positives']"),
    "log1p": ("log(1 + rows) of each group", "weight=lambda stats: np.log1p(stats['n'])"),
    "uniform": ("1 for every group", "weight=lambda stats: np.ones(len(stats))"),
}


def _ambiguous_weight(name: str, func: str, gcols: Sequence[Hashable] | None) -> str:
    meaning, ask = _WEIGHT_MEANINGS[name]
    key = (gcols[0] if len(gcols) == 1 else list(gcols)) if gcols else "group"
    return (
        f"The 'weight' parameter of {func} is {name!r}, which is both a weight name ({meaning}) "
        f"and a column of the frame. For the column, pass its per-group sums, "
        f"weight=df.groupby({key!r})[{name!r}].sum(), or rename the column; for {meaning}, "
        f"pass {ask}."
    )


def check_weight_name(
    weight: WeightLike, columns: pd.Index, func: str, gcols: Sequence[Hashable] | None
) -> Hashable | None:
    """A weight given by name: a weight name, or a column of the frame (returned), never both.

    Needs only the column names, so the Dask and Spark engines check it from metadata.
    """
    w = weight
    if isinstance(w, str) and w in WEIGHT_NAMES and w in columns:
        raise ValueError(_ambiguous_weight(w, func, gcols))
    if isinstance(w, str) and w not in WEIGHT_NAMES:
        if w not in columns:
            import difflib

            from .validation import ColumnNotFoundError

            close = difflib.get_close_matches(w, [*WEIGHT_NAMES, *map(str, columns)], n=1)
            hint = f" Did you mean {close[0]!r}?" if close else ""
            raise ColumnNotFoundError(
                f"The 'weight' parameter of {func} must be one of "
                f"{', '.join(map(repr, WEIGHT_NAMES))} or a column name. Got {w!r}, which is "
                f"neither.{hint}"
            )
        return w
    return None
