"""Global AUC on Dask: the primitives of the driver's range pass (:mod:`pandas_rankeval.summary.ranges`).

- **count by keys** (:func:`count_pass`): every input partition counts its rows per distinct
  (score column, segment, score order key, tie-break value, label), which collapses masses of
  tied scores;
- **cut into ranges** (:func:`score_pass`): the distinct keys of each score column are tagged with
  a range of ascending order key (cut points: evenly spaced values of a sample of the scores, taken
  by the group pass, or of the counted keys when those are persisted first) and shuffled by range,
  so a range's keys are in one partition and no distinct key straddles two ranges;
- **map over the ranges** (:func:`map_ranges`): the driver's function runs on every partition of
  the range shuffle, on the workers; only its small result reaches the client;
- **placements** (:func:`place_ranges`) and their **join** (:func:`join_placements`): the driver's
  placements of every counted row, kept on the workers, merged with the rows on (segment, score
  order key, tie-break value, label).
"""

from __future__ import annotations

import pickle
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from pandas_rankeval.core.inputs.validation import missing_mask, numeric_values
from pandas_rankeval.summary.plan import Plan
from pandas_rankeval.summary.ranges import RangeColumns

from .graph import packed, shuffle_method, tree

__all__ = [
    "Counted", "count_pass", "join_placements", "map_ranges", "merge_all_samples", "merge_samples", "place_ranges",
    "range_columns", "sample_scores", "score_pass",
]

#: Rows sampled per partition and score column for the cut points of the score ranges.
_SAMPLE_ROWS = 1024
#: Distinct sampled values kept per score column while samples are merged (bounded memory).
_SAMPLE_KEEP = 1 << 16

_NO_KEYS = np.empty(0, dtype=np.uint64)


def _order_key(v: np.ndarray) -> np.ndarray:
    """Unsigned 64-bit keys in the order of the scores, equal exactly where the scores tie
    (-0.0 and 0.0 included): float64, float32, int64 and uint64 scores all keep their order."""
    if v.dtype.kind == "u":
        return v.astype(np.uint64, copy=False)
    if v.dtype.kind in "ib":
        return v.astype(np.int64, copy=False).view(np.uint64) ^ np.uint64(1 << 63)
    bits = (v.astype(np.float64) + 0.0).view(np.uint64)
    return np.where(bits >> np.uint64(63) == 1, ~bits, bits | np.uint64(1 << 63))


def _score_keys(pdf: pd.DataFrame, score: Hashable) -> np.ndarray:
    """The order keys of a score column, converted as pandas converts it (int64 kept exact)."""
    return _order_key(numeric_values(pdf[score], score, "score", keep_float32=True, keep_int64=True))


def sample_scores(pdf: pd.DataFrame, scores: tuple[Hashable, ...]) -> dict[int, np.ndarray]:
    """A few distinct order keys of each score column of one partition."""
    out = {}
    for i, s in enumerate(scores):
        rows = pdf[s].iloc[:: max(1, len(pdf) // _SAMPLE_ROWS)]
        rows = rows[~missing_mask(rows)]
        out[i] = np.unique(_score_keys(rows.to_frame(), s))
    return out


def merge_samples(a: dict[int, np.ndarray], b: dict[int, np.ndarray]) -> dict[int, np.ndarray]:
    out = {}
    for i in a.keys() | b.keys():
        u = np.union1d(a.get(i, _NO_KEYS), b.get(i, _NO_KEYS))
        if u.shape[0] > _SAMPLE_KEEP:  # evenly spaced distinct values: the sample stays small
            u = u[np.linspace(0, u.shape[0] - 1, _SAMPLE_KEEP).astype(np.int64)]
        out[i] = u
    return out


def merge_all_samples(parts: list[dict[int, np.ndarray]]) -> dict[int, np.ndarray]:
    out = parts[0]
    for p in parts[1:]:
        out = merge_samples(out, p)
    return out


def _cuts(sample: np.ndarray, n_ranges: int) -> np.ndarray:
    """At most ``n_ranges - 1`` increasing cut points that split the sampled distinct values evenly."""
    if sample.shape[0] == 0 or n_ranges <= 1:
        return _NO_KEYS
    return np.unique(sample[(sample.shape[0] * np.arange(1, n_ranges)) // n_ranges])


def range_columns(plan: Plan, prefix: str) -> RangeColumns:
    """The columns of the counted keys: the user's segment, tie-break and label columns, the
    pass's own under ``prefix`` (no column of the input starts with it)."""
    o = plan.options
    return RangeColumns(prefix + "sid", prefix + "range", tuple(plan.by), prefix + "key", o.tiebreak,  # type: ignore[arg-type]
                        plan.label, prefix + "n", prefix + "w" if o.sample_weight is not None else None)  # type: ignore[arg-type]


def _read(plan: Plan) -> list[Hashable]:
    """The columns the count reads: the checked columns, the label, scores, tie-break, weights, segments."""
    o = plan.options
    extra = [c for c in (plan.label, *plan.scores, o.tiebreak, o.sample_weight, *plan.by) if c is not None]
    return list(dict.fromkeys([*plan.columns, *extra]))


def _meta(dtypes: pd.Series, cols: RangeColumns) -> pd.DataFrame:
    """The counted keys' columns: 32-bit score index, range and rows (a key's rows in one input
    partition fit; the range functions add them in int64), so the range shuffle moves ~21 bytes a
    key instead of 33."""
    out: dict[Hashable, Any] = {cols.sid: pd.Series(dtype=np.int32), cols.range: pd.Series(dtype=np.int32)}
    for c in cols.keys:
        out[c] = pd.Series(dtype=np.uint64 if c == cols.key else dtypes[c])  # type: ignore[call-overload]
    out[cols.n] = pd.Series(dtype=np.int32)
    if cols.w is not None:
        out[cols.w] = pd.Series(dtype=np.float64)
    return pd.DataFrame(out)


#: Distinct labels up to which a partition's keys are counted by one sort and one bincount.
_FEW_LABELS = 8


def _count_sorted(key: np.ndarray, label: pd.Series, cols: RangeColumns) -> pd.DataFrame | None:
    """Rows per distinct (order key, label) by ``np.unique`` of the keys and one ``bincount`` of
    (key, label) codes: no segment, tie-break or weight, and at most :data:`_FEW_LABELS` labels
    (None otherwise). The same rows and counts as the groupby, in key order."""
    codes, labels = pd.factorize(label, sort=False, use_na_sentinel=False)
    n_lab = len(labels)
    if n_lab > _FEW_LABELS:
        return None
    uniq, inv = np.unique(key, return_inverse=True)
    counts = np.bincount(inv.reshape(-1) * n_lab + codes, minlength=uniq.shape[0] * n_lab)
    nz = np.flatnonzero(counts)
    return pd.DataFrame({cols.key: uniq[nz // n_lab], cols.label: labels.take(nz % n_lab), cols.n: counts[nz]})


def _count_keys(pdf: pd.DataFrame, plan: Plan, cols: RangeColumns, cuts: list[np.ndarray] | None, n_ranges: int,
                meta: pd.DataFrame) -> pd.DataFrame:
    """Rows (and summed sample weights) per distinct (score column, segment, order key, tie-break
    value, label) of one input partition, among the rows pandas keeps; tagged with the score range
    of their key when the cut points are known."""
    keep = ~np.logical_or.reduce([missing_mask(pdf[c]) for c in dict.fromkeys(plan.columns)])
    if not keep.all():
        pdf = pdf.loc[keep]
    if len(pdf) == 0:
        return meta
    other = [c for c in cols.keys if c != cols.key]
    plain = not cols.by and cols.tb is None and cols.w is None
    frames = []
    for i, s in enumerate(plan.scores):
        key = _score_keys(pdf, s)
        counted = _count_sorted(key, pdf[cols.label], cols) if plain else None
        if counted is None:
            f = pdf[other].reset_index(drop=True)
            f[cols.key] = key
            grouped = f.assign(**({cols.w: pdf[plan.options.sample_weight].to_numpy(dtype=np.float64)} if cols.w else {}))
            g = grouped.groupby(cols.keys, sort=False, observed=True, dropna=False)
            counted = g.size().rename(cols.n).to_frame()
            if cols.w is not None:
                counted[cols.w] = g[cols.w].sum()
            counted = counted.reset_index()
        counted[cols.sid] = i
        r = np.searchsorted(cuts[i], counted[cols.key].to_numpy(), side="right") if cuts is not None else 0
        counted[cols.range] = i * n_ranges + r
        frames.append(counted)
    out = pd.concat(frames, ignore_index=True)
    return out[list(meta.columns)].astype(meta.dtypes.to_dict())


def _sample_keys(pdf: pd.DataFrame, cols: RangeColumns, by: tuple[Hashable, ...]) -> tuple[dict[int, np.ndarray], pd.Series]:
    """A few distinct order keys of each score column among one partition's counted keys, and the
    rows of each segment (of the first score column's keys: every kept row has one)."""
    out = {}
    sid = pdf[cols.sid].to_numpy()
    keys = pdf[cols.key].to_numpy()
    for i in np.unique(sid).tolist():
        k = np.unique(keys[sid == i])
        out[int(i)] = k[:: max(1, k.shape[0] // _SAMPLE_ROWS)]
    sizes = pd.Series(dtype=np.int64)
    if by and len(pdf):
        first = pdf.loc[sid == 0]
        index = pd.MultiIndex.from_frame(first[list(by)]) if len(by) > 1 else pd.Index(first[by[0]])
        sizes = pd.Series(first[cols.n].to_numpy(dtype=np.int64), index=index)
        sizes = sizes.groupby(level=list(range(len(by))), sort=False).sum()
    return out, sizes


def _add_counts(parts: list[pd.Series]) -> pd.Series:
    """Rows per segment of several partitions added (segment keys by value, as pandas groups)."""
    parts = [p for p in parts if len(p)]
    if not parts:
        return pd.Series(dtype=np.int64)
    both = pd.concat(parts)
    return both.groupby(level=list(range(both.index.nlevels)), sort=False).sum()


def _merge_key_samples(parts: list[tuple[dict[int, np.ndarray], pd.Series]]) -> tuple[dict[int, np.ndarray], pd.Series]:
    return merge_all_samples([p[0] for p in parts]), _add_counts([p[1] for p in parts])


@dataclass
class Counted:
    """The counted keys of every input partition persisted on the workers (no range yet), a sample
    of their order keys per score column, and the rows of every segment."""

    frame: Any
    samples: dict[int, np.ndarray]
    sizes: pd.Series


def count_pass(ddf: Any, plan: Plan, cols: RangeColumns, npartitions: int | None) -> Counted:
    """Read the input once: every partition's distinct keys counted and persisted, a sample of
    their order keys (the cut points of the ranges), and the rows of every segment."""
    import dask
    from dask import delayed

    n_ranges = npartitions or ddf.npartitions
    meta = _meta(ddf.dtypes, cols)
    counted = ddf[_read(plan)].map_partitions(_count_keys, plan, cols, None, n_ranges, meta, meta=meta).persist()
    parts = [delayed(_sample_keys, pure=True)(p, cols, tuple(plan.by)) for p in counted.to_delayed()]
    ((samples, sizes),) = dask.compute(tree(parts, _merge_key_samples))
    return Counted(counted, samples, sizes)


def _assign_ranges(pdf: pd.DataFrame, cuts: list[np.ndarray], n_ranges: int, cols: RangeColumns) -> pd.DataFrame:
    """The score range of every counted key (its score column's index is in ``cols.sid``)."""
    if len(pdf) == 0:
        return pdf
    out = pdf.copy()
    sid = out[cols.sid].to_numpy()
    keys = out[cols.key].to_numpy()
    rng = np.zeros(len(out), dtype=np.int64)
    for i in np.unique(sid).tolist():
        sel = sid == i
        rng[sel] = i * n_ranges + np.searchsorted(cuts[i], keys[sel], side="right")
    out[cols.range] = rng.astype(out[cols.range].dtype)
    return out


def score_pass(ddf: Any, plan: Plan, cols: RangeColumns, npartitions: int | None, samples: dict[int, np.ndarray] | None,
               counted: Counted | None, persist: bool) -> Any:
    """The counted keys cut into ranges of ascending order key (cut points from ``samples``, of
    the group pass, or from ``counted``'s own sample) and shuffled by range: every range whole in
    one partition (persisted with ``persist``, for the placements)."""
    n_ranges = npartitions or ddf.npartitions
    meta = _meta(ddf.dtypes, cols)
    if counted is not None:
        cuts = [_cuts(counted.samples.get(i, _NO_KEYS), n_ranges) for i in range(len(plan.scores))]
        frame = counted.frame.map_partitions(_assign_ranges, cuts, n_ranges, cols, meta=meta)
    else:
        cuts = [_cuts((samples or {}).get(i, _NO_KEYS), n_ranges) for i in range(len(plan.scores))]
        frame = ddf[_read(plan)].map_partitions(_count_keys, plan, cols, cuts, n_ranges, meta, meta=meta)
    ranged = frame.shuffle(on=cols.range, npartitions=n_ranges, shuffle_method=shuffle_method(frame))
    return ranged.persist() if persist else ranged


def map_ranges(ranged: Any, fn: Callable[[pd.DataFrame], Any]) -> list[Any]:
    """``fn`` of every partition of the range shuffle, on the workers; the pickled results."""
    import dask
    from dask import delayed

    fn_d = delayed(fn, pure=True)  # one key: the function (and what it holds) travels once
    blobs = dask.compute(*[delayed(packed, pure=True)(fn_d, p) for p in ranged.to_delayed()])
    return [pickle.loads(b) for b in blobs]


def _placed(pdf: pd.DataFrame, fn: Callable[[pd.DataFrame], np.ndarray], cols: RangeColumns, name: str,
            meta: pd.DataFrame) -> pd.DataFrame:
    if len(pdf) == 0:
        return meta
    out = pdf[[cols.sid, *cols.keys]].copy()
    out[name] = fn(pdf)
    # a key counted in several input partitions has one row per partition here, each with the
    # same placement: once, so that the merge gives every row one placement
    out = out.drop_duplicates(subset=[cols.sid, *cols.keys], ignore_index=True)
    return out.astype(meta.dtypes.to_dict())


def place_ranges(ranged: Any, cols: RangeColumns, fn: Callable[[pd.DataFrame], np.ndarray], names: dict[int, str],
                 prefix: str) -> dict[int, Any]:
    """Per score index, the counted keys of its ranges with ``fn``'s placements in ``names[sid]``
    (lazy: computed on the workers from the persisted range shuffle, by the join)."""
    from dask import delayed

    name = prefix + "pl"
    meta = ranged._meta[[cols.sid, *cols.keys]].assign(**{name: np.zeros(0, dtype=np.float64)})
    fn_d = delayed(fn, pure=True)
    table = ranged.map_partitions(_placed, fn_d, cols, name, meta, meta=meta)
    return {i: table[table[cols.sid] == i].drop(columns=[cols.sid]).rename(columns={name: names[i]})
            for i in names}


def _keyed(pdf: pd.DataFrame, plan: Plan, score: Hashable, name: str) -> pd.DataFrame:
    """The rows with the order key of ``score`` in column ``name`` (0 where a checked column is
    missing: those rows are dropped by the summaries, as pandas drops them)."""
    keep = ~np.logical_or.reduce([missing_mask(pdf[c]) for c in plan.columns]) if len(pdf) else np.ones(0, bool)
    key = np.zeros(len(pdf), dtype=np.uint64)
    if keep.any():
        key[keep] = _score_keys(pdf.loc[keep], score)
    out = pdf.copy()
    out[name] = key
    return out


def join_placements(rows: Any, plan: Plan, cols: RangeColumns, score: Hashable, table: Any) -> Any:
    """The rows with a placement table merged on (left, on its keys; the rows' ``score`` as its
    order key, which takes the table's key column while they are merged)."""
    keyed = rows.map_partitions(_keyed, plan, score, cols.key)
    merged = keyed.merge(table, how="left", on=cols.keys, shuffle_method=shuffle_method(keyed))
    return merged.drop(columns=[cols.key])
