"""Counterfactual (inverse-propensity) metrics of a click log: ``ips_dcg@K``, ``ips_precision@K``,
``ips_hit_rate@K``.

A click on a row that the logging ranker showed at position k weighs 1 / max(propensity(k), clip)
(Joachims et al., WSDM 2017): under the position-based model (a click needs an examination whose
probability depends on the position only, and relevance, which depends on the row only) its
expectation is the row's relevance, whatever the position it was shown at. The metrics of a new
score column are the ordinary ones with these per-row gains, exact under ties (a tied block spreads
its summed gain evenly over the ranks it holds, the rule of DCG). With ``snips=True`` each group's
value is divided by its clicks' summed IPS weight and its weight multiplied by it, so that the mean
is the IPS-weighted mean over the clicks (self-normalized IPS, a ratio of sums over groups that
stays additive over partitions and bootstrap replicates).

This module holds the checks of the options (``position``, ``propensity``, ``clip``), the per-row
weights and the kernels the registry binds (:mod:`.definitions`).
"""

from __future__ import annotations

import numbers
import weakref
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ..inputs.prepare import raw_key
from ..ranking.numeric import cumulative_discount
from ..inputs.validation import InputProblem, call_user, check_column_name

if TYPE_CHECKING:
    from .definitions import KernelInput
    from ..evaluation.records import Evaluation
    from ..inputs.options import Options
    from ..ranking.tie_blocks import Ranking

__all__ = [
    "PropensityLookup",
    "check_clip",
    "check_snips",
    "check_ips_options",
    "check_propensity",
    "ips_dcg_values",
    "ips_hit_rate_values",
    "ips_precision_values",
    "resolve_propensity",
    "row_gains",
    "snips_factor",
]


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
    raise TypeError(
        f"The '{param}' parameter of {func} must be a PropensityTable (pre.propensities), a Series "
        f"indexed by position, a column name or a callable of the positions. Got {value!r} instead."
    )


def check_clip(value: Any, param: str, func: str) -> float:
    if not (isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_)) and 0 <= float(value) <= 1):
        raise ValueError(
            f"The '{param}' parameter of {func} must be a float in the range [0, 1] (the smallest propensity "
            f"used; 0: no clipping). Got {value!r} instead."
        )
    return float(value)


def check_snips(value: Any, param: str, func: str) -> bool:
    """True or False only: any other object (``"no"``, ``None``, 0) is a mistake, not a truth value."""
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(
            f"The '{param}' parameter of {func} must be a bool (True: divide by the IPS weight of the "
            f"clicks; False: by the number of groups). Got {value!r} instead."
        )
    return bool(value)


def check_ips_options(opts: Options, ips: bool, func: str) -> None:
    """What the IPS options need, before any data is read: a propensity, and a position unless
    the propensity is a column; none of them without an IPS metric."""
    if not ips:
        given = [n for n in ("position", "propensity") if getattr(opts, n) is not None]
        if given or opts.snips:
            raise ValueError(
                f"The {' and '.join(repr(g) for g in given or ['snips'])} parameter of {func} applies to the "
                "counterfactual metrics only ('ips_dcg@K', 'ips_precision@K', 'ips_hit_rate@K')."
            )
        return
    if opts.propensity is None:
        raise ValueError(
            f"{func}: the counterfactual metrics need propensity= (a PropensityTable from "
            "pre.propensities, a Series indexed by position, a column of per-row propensities or a "
            "callable of the positions) and position= (the column of the logged position)."
        )
    if opts.position is None and not _is_column(opts.propensity):
        raise ValueError(
            f"{func}: propensity= is looked up by position: pass position= (the column of each row's "
            "logged display position)."
        )


def _is_column(p: Any) -> bool:
    return p is not None and not isinstance(p, PropensityLookup) and not callable(p)


def ips_columns(opts: Options) -> list[Hashable]:
    """The columns the IPS metrics read: the position, and the propensity when it is a column."""
    out: list[Hashable] = []
    if opts.position is not None:
        out.append(opts.position)
    if _is_column(opts.propensity):
        out.append(opts.propensity)
    return out


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


# --------------------------------------------------------------------------- #
# Per-row gains: click / max(propensity, clip)
# --------------------------------------------------------------------------- #
def row_gains(ev: Evaluation) -> np.ndarray:
    """Every row's IPS gain, in the prepared rows' order (once per evaluation)."""
    cache = ("__ips__", "gain")  # with the prepared columns: the same rows
    if cache in ev.prepared.extra:
        return ev.prepared.extra[cache]
    opts = ev.options
    extra = ev.prepared.extra
    prop = opts.propensity
    if _is_column(prop):
        p = extra[raw_key(prop)].astype(np.float64, copy=False)
        bad = ~np.isfinite(p) | (p <= 0)
        if bad.any():
            raise InputProblem("bad_propensity", prop, int(bad.sum()))
    else:
        pos = extra[raw_key(opts.position)].astype(np.float64, copy=False)
        bad = ~np.isfinite(pos) | (pos <= 0)
        if bad.any():
            raise InputProblem("bad_position", opts.position, int(bad.sum()))
        if not isinstance(prop, PropensityLookup):  # a callable on pandas: once, on the distinct positions
            prop = resolve_propensity(prop, pos, opts.func)
        p, found = prop.lookup(pos)
        if not found.all():
            missing = np.unique(pos[~found])
            raise InputProblem(
                "unknown_position", opts.position, int((~found).sum()),
                examples=[int(v) if float(v).is_integer() else float(v) for v in missing[:3]],
            )
    gain = np.where(ev.labels.rel, 1.0 / np.maximum(p, opts.clip), 0.0)
    ev.prepared.extra[cache] = gain
    return gain


#: Summed IPS gain of every tie block of a ranking (per score column, shared by its metrics).
_BLOCK_GAINS: weakref.WeakKeyDictionary[Ranking, np.ndarray] = weakref.WeakKeyDictionary()


def _block_gains(x: KernelInput) -> np.ndarray:
    rk = x.rk
    if rk in _BLOCK_GAINS:
        return _BLOCK_GAINS[rk]
    gain = row_gains(x.ev)
    se, groups = x.se, x.ev.prepared.groups
    if se.order is None or se.rank is None or groups is None:  # pragma: no cover - grouped metrics keep them
        raise RuntimeError("IPS metrics need the score order and the group codes")
    rank = np.empty(se.rank.shape[0], dtype=np.int64)
    rank[se.order] = se.rank
    codes = groups.codes.astype(np.int64)
    # blocks are the distinct (group code, rank) pairs, ascending: the ranking's order of blocks
    span = int(rank.max()) + 1 if rank.shape[0] else 1
    if int(groups.n_codes) < (2**62) // span:
        _, block = np.unique(codes * span + rank, return_inverse=True)
    else:
        perm = np.lexsort((rank, codes))
        new = np.ones(perm.shape[0], dtype=bool)
        new[1:] = (codes[perm][1:] != codes[perm][:-1]) | (rank[perm][1:] != rank[perm][:-1])
        block = np.empty(perm.shape[0], dtype=np.int64)
        block[perm] = np.cumsum(new) - 1
    out = np.bincount(block.reshape(-1), weights=gain, minlength=rk.n_blocks)
    if out.shape[0] != rk.n_blocks:  # pragma: no cover - internal invariant
        raise RuntimeError("IPS block gains and the ranking disagree on the blocks")
    _BLOCK_GAINS[rk] = out
    return out


def _cut(rk: Ranking, k: int | None) -> np.ndarray:
    return rk.size if k is None else np.clip(k - rk.offset, 0, rk.size)


def ips_dcg_values(x: KernelInput) -> np.ndarray:
    """Expected IPS DCG@k: sum over clicks of discount(new rank) / max(propensity, clip)."""
    rk, k = x.rk, x.k
    g = _block_gains(x) / rk.size
    longest = int(rk.n.max()) if rk.n_groups else 0
    d = cumulative_discount(longest if k is None else min(longest, k))
    top = d.shape[0] - 1
    lo = np.minimum(rk.offset, top)
    hi = np.minimum(rk.offset + rk.size, top)
    return rk.group_sum(g * (d[hi] - d[lo]))


def _ips_hits(x: KernelInput) -> np.ndarray:
    rk = x.rk
    return rk.group_sum(_block_gains(x) * (_cut(rk, x.k) / rk.size))


def ips_precision_values(x: KernelInput) -> np.ndarray:
    """Expected IPS-weighted clicks in the new top k, over k."""
    return _ips_hits(x) / float(x.spec.k)  # type: ignore[arg-type]


def ips_hit_rate_values(x: KernelInput) -> np.ndarray:
    """Expected IPS-weighted clicks in the new top k (the hit rate when a group has one click)."""
    return _ips_hits(x)


def snips_factor(x: KernelInput) -> np.ndarray | None:
    """With ``snips=True``: every group's summed IPS weight of its clicks (None otherwise)."""
    if not x.ev.options.snips:
        return None
    return x.rk.group_sum(_block_gains(x))
