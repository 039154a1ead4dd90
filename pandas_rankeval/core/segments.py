"""Segments (``by=``) are attributes of whole groups: checked before any metric is computed."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np

__all__ = ["check_segments_constant"]


def _plain(x: Any) -> Any:
    return x.item() if isinstance(x, np.generic) else x


def _key_text(key: Any, names: Sequence[Hashable]) -> str:
    keys = key if isinstance(key, tuple) else (key,)
    return ", ".join(f"{n}={_plain(k)!r}" for n, k in zip(names, keys))


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
    example = int(mixed[0])
    values = segs.decode(uniq[gk == example] % segs.n_codes)
    shown = " and ".join(repr(tuple(map(_plain, v)) if isinstance(v, tuple) else _plain(v)) for v in list(values)[:4])
    key = groups.decode(np.array([example]))[0]
    cols = list(by)
    name = cols[0] if len(cols) == 1 else cols
    raise ValueError(
        f"The 'by' column {name!r} of {func} must be constant within each group: {len(mixed):,} of "
        f"{n_groups:,} groups {'has' if len(mixed) == 1 else 'have'} more than one value, for example the "
        f"group {_key_text(key, group)} has "
        f"{shown}. If {name!r} is part of what a group is, make it part of the group: "
        f"group={[*group, *[c for c in cols if c not in group]]!r}; otherwise segment by an attribute of "
        "the whole group."
    )
