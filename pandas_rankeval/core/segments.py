"""Segments (``by=``) are attributes of whole groups: checked before any metric is computed."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np

from .validation import InputProblem, _plain, first_keys, mixed_by_message

__all__ = ["check_segments_constant", "mixed_by_message"]


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
    keys = list(groups.decode(mixed))
    example = int(mixed[min(range(len(keys)), key=lambda i: _order(keys, i))])
    values = [_plain_key(v) for v in segs.decode(uniq[gk == example] % segs.n_codes)]
    values = first_keys(values, 4)
    key = _plain_key(groups.decode(np.array([example]))[0])
    raise InputProblem(
        "mixed_by", (func, tuple(by), tuple(group)), len(mixed), of=n_groups, examples=[(key, tuple(values))]
    )


def _plain_key(k: Any) -> Any:
    return tuple(map(_plain, k)) if isinstance(k, tuple) else _plain(k)


def _order(keys: list[Any], i: int) -> Any:
    """Sort position of key i (its index when keys do not compare)."""
    try:
        return sum(1 for k in keys if k < keys[i])
    except TypeError:
        return i
