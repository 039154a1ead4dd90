"""Segments (``by=``) are attributes of whole groups: checked before any metric is computed."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from .validation import InputProblem, _plain, first_keys, key_order, mixed_by_message

__all__ = ["check_segments_constant", "mixed_by_message", "mixed_by_of_pairs"]


def check_segments_constant(prep: Any, by: Sequence[Hashable], group: Sequence[Hashable], func: str) -> None:
    """Raise when a ``by`` column takes more than one value within a group.

    One ``np.unique`` over (group code, segment code) pairs, before any sort or metric: a
    segment that varies within a user usually means the unit is (user, segment), and the
    message says how to ask for that (``group=[..., *by]``) with an example group and its
    values.
    """
    groups, segs = prep.encode_groups(), prep.segments
    if groups is None or segs is None or not len(groups.codes):
        return
    pair = groups.codes.astype(np.int64) * segs.n_codes + segs.codes
    uniq = np.unique(pair)
    gk = uniq // segs.n_codes
    repeated = gk[1:] == gk[:-1]
    if not repeated.any():
        return
    mixed = np.unique(gk[1:][repeated])
    n_groups = int(np.unique(gk).shape[0])
    # the example: the smallest key among the mixed groups, its values sorted (the same example
    # whichever partition of whole groups finds it)
    shown = _shown_keys(groups.decode(mixed))
    first = min(range(len(shown)), key=lambda i: key_order(shown[i]))
    example = int(mixed[first])
    values = [_plain_key(v) for v in segs.decode(uniq[gk == example] % segs.n_codes)]
    values = first_keys(values, 4)
    key = shown[first]
    raise InputProblem(
        "mixed_by", (func, tuple(by), tuple(group)), len(mixed), of=n_groups, examples=[(key, tuple(values))]
    )


def mixed_by_of_pairs(pairs: pd.DataFrame, by: Sequence[Hashable], group: Sequence[Hashable], func: str) -> InputProblem | None:
    """The error of :func:`check_segments_constant` from the distinct (group key, segment key)
    rows of a table (an engine's one aggregate), in the order of their first rows: the same
    count, groups and example, or None.

    Examples
    --------
    >>> pairs = pd.DataFrame({"u": [1, 1, 2, 3, 3], "d": ["a", "b", "a", "c", "a"]})
    >>> print(mixed_by_of_pairs(pairs, ["d"], ["u"], "report"))  # doctest: +ELLIPSIS
    The 'by' column 'd' of report must be constant within each group: 2 of 3 groups have more than one value, for example the group u=1 has 'a' and 'b'. ...
    """
    # every value as every engine names it (a zero as 0.0, never -0.0: prepare.unsigned_zero)
    pairs = pairs.apply(lambda c: c + 0.0 if c.dtype.kind == "f" else c)
    pairs = pairs.drop_duplicates()
    gcols = list(group)
    by_key: Any = gcols if len(gcols) > 1 else gcols[0]
    grouped = pairs.groupby(by_key, sort=False, observed=True, dropna=False)
    sizes = grouped.size()
    at_mixed = np.flatnonzero(sizes.to_numpy() > 1)
    if not len(at_mixed):
        return None
    shown = _shown_keys(sizes.index[at_mixed])
    first = min(range(len(shown)), key=lambda i: key_order(shown[i]))
    # the example group's rows by group number, not by label: a list of bool keys given to
    # .loc would be read as a mask, and a NaN key would not be found
    rows = pairs[grouped.ngroup().to_numpy() == at_mixed[first]]
    cols = list(by)
    seg = list(rows[cols[0]]) if len(cols) == 1 else list(rows[cols].itertuples(index=False, name=None))
    values = first_keys([_plain_key(v) for v in seg], 4)
    return InputProblem(
        "mixed_by", (func, tuple(by), tuple(group)), len(at_mixed), of=len(sizes), examples=[(shown[first], tuple(values))]
    )


def _shown(v: Any) -> Any:
    """A key of an object column as a message shows it: keys equal as values are one group
    (``1``, ``1.0`` and ``True``), and whichever of them a partition met first, it is shown alike
    (a bool or a whole float as an int), so the message does not depend on the rows' order."""
    v = _plain(v)
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, float) and v.is_integer() and abs(v) < 2**63:
        return int(v)
    return v


def _shown_keys(index: pd.Index) -> list[Any]:
    """The keys of ``index`` (one level per group column) as a message shows them."""
    if isinstance(index, pd.MultiIndex):
        levels = [index.get_level_values(i) for i in range(index.nlevels)]
        cols = [[_shown(v) if lv.dtype == object else _plain(v) for v in lv.tolist()] for lv in levels]
        return list(zip(*cols))
    return [_shown(v) if index.dtype == object else _plain(v) for v in index.tolist()]


def _plain_key(k: Any) -> Any:
    return tuple(map(_plain, k)) if isinstance(k, tuple) else _plain(k)


