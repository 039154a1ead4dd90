"""Global AUC on Dask: count per distinct score, range-partition, chain exact counts.

Every input partition counts its (relevant, non-relevant) rows per distinct score (per segment
with ``by``), which collapses masses of tied scores; the distinct scores are range-partitioned
and shuffled; every range gives its exact counts, and the client chains the ranges in score order
in Python integers. Equal scores never straddle two ranges, so the result is exact under every
tie rule. For clustered DeLong, every distinct key also gets its global placement, and the rows
are merged with that table (:func:`with_placements`).
"""

from __future__ import annotations

import operator
import pickle
from collections import defaultdict
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from pandas_rankeval import summary as S
from pandas_rankeval.core.prepare import label_levels
from pandas_rankeval.core.validation import missing_mask, numeric_values
from pandas_rankeval.summary.plan import Plan

from .graph import packed, shuffle_method, tree

__all__ = [
    "AucJob", "Counted", "add_counts", "auc_job", "count_pass", "merge_all_samples", "merge_samples", "range_pass",
    "ranged_counts", "sample_scores", "score_pass", "with_placements",
]

#: Rows sampled per partition and score column for the cut points of the score ranges.
_SAMPLE_ROWS = 1024
#: Distinct sampled values kept per score column while samples are merged (bounded memory).
_SAMPLE_KEEP = 1 << 16

_NO_KEYS = np.empty(0, dtype=np.uint64)


@dataclass(frozen=True)
class AucJob:
    """What the score pass needs: columns and the options that shape global AUC."""

    label: Hashable
    scores: tuple[Hashable, ...]
    columns: tuple[Hashable, ...]  # every checked column: a row missing one of them is dropped
    by: tuple[Hashable, ...]
    threshold: float | None
    ties: str
    tiebreak: Hashable | None
    sample_weight: Hashable | None
    #: the prefix of the pass's own columns (:func:`~pandas_rankeval.engines.base.internal_prefix`):
    #: no column of the input starts with it, so none collides with them
    prefix: str = "__rk_"

    # the pass's own columns: score range, order key, tie-break, relevant / non-relevant counts,
    # score id, placements (relevant, non-relevant), the rows' order key and tie-break in the merge
    @property
    def R(self) -> str:
        return self.prefix + "range"
    @property
    def S(self) -> str:
        return self.prefix + "score"
    @property
    def T(self) -> str:
        return self.prefix + "tiebreak"
    @property
    def P(self) -> str:
        return self.prefix + "pos"
    @property
    def N(self) -> str:
        return self.prefix + "neg"
    @property
    def ID(self) -> str:
        return self.prefix + "sid"
    @property
    def A(self) -> str:
        return self.prefix + "a"
    @property
    def B(self) -> str:
        return self.prefix + "b"
    @property
    def K(self) -> str:
        return self.prefix + "key"
    @property
    def TB(self) -> str:
        return self.prefix + "tb"


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


def _key_columns(dtypes: pd.Series, job: AucJob, first: tuple[str, Any]) -> dict[Hashable, Any]:
    """The empty columns of a distinct key: ``first``, the order key, the tie-break value, the segment."""
    cols: dict[Hashable, Any] = {first[0]: pd.Series(dtype=first[1]), job.S: pd.Series(dtype=np.uint64)}
    if job.tiebreak is not None:
        cols[job.T] = pd.Series(dtype=dtypes[job.tiebreak])  # type: ignore[call-overload]  # stubs narrower than runtime
    for c in job.by:
        cols[c] = pd.Series(dtype=dtypes[c])  # type: ignore[call-overload]  # stubs narrower than runtime
    return cols


def _all_cuts(samples: dict[int, np.ndarray], job: AucJob, n_ranges: int) -> list[np.ndarray]:
    """The cut points of every score column's ranges, from its sampled distinct keys."""
    return [_cuts(samples.get(i, _NO_KEYS), n_ranges) for i in range(len(job.scores))]


def _counts_meta(dtypes: pd.Series, job: AucJob) -> pd.DataFrame:
    cols = _key_columns(dtypes, job, (job.R, np.int32))
    # a partition's count of one distinct score fits int32; the ranges add them up in int64
    count = np.float64 if job.sample_weight is not None else np.int32
    cols[job.P] = pd.Series(dtype=count)
    cols[job.N] = pd.Series(dtype=count)
    return pd.DataFrame(cols)


def _count_distinct(
    pdf: pd.DataFrame, job: AucJob, cuts: list[np.ndarray], n_ranges: int, meta: pd.DataFrame
) -> pd.DataFrame:
    """(relevant, non-relevant) rows per distinct (score, tie-break value, segment) of one input
    partition, tagged with the score range they belong to: masses of tied rows become one row."""
    keep = ~np.logical_or.reduce([missing_mask(pdf[c]) for c in job.columns])
    if not keep.all():  # the rows the group pass dropped (nan_policy="omit")
        pdf = pdf.loc[keep]
    if len(pdf) == 0:
        return meta
    y = numeric_values(pdf[job.label], job.label, "label", keep_int=True)
    rel = label_levels(y, job.threshold, graded=False).rel
    if job.sample_weight is None:
        pos = rel.astype(np.int32)
        neg = 1 - pos
    else:
        w = numeric_values(pdf[job.sample_weight], job.sample_weight, "weight")
        pos = np.where(rel, w, 0.0)
        neg = np.where(rel, 0.0, w)
    extra = [c for c in (job.tiebreak, *job.by) if c is not None]
    frames = []
    for i, s in enumerate(job.scores):
        sc = _score_keys(pdf, s)
        if not extra:
            uniq, inv = np.unique(sc, return_inverse=True)
            m = uniq.shape[0]
            if job.sample_weight is None:
                p = np.bincount(inv[rel], minlength=m)
                f = pd.DataFrame({job.S: uniq, job.P: p, job.N: np.bincount(inv, minlength=m) - p})
            else:
                f = pd.DataFrame({
                    job.S: uniq,
                    job.P: np.bincount(inv, weights=pos, minlength=m),
                    job.N: np.bincount(inv, weights=neg, minlength=m),
                })
        else:
            f = pd.DataFrame({job.S: sc, job.P: pos, job.N: neg})
            if job.tiebreak is not None:
                f[job.T] = pdf[job.tiebreak].to_numpy()
            for c in job.by:
                f[c] = pdf[c].to_numpy()
            keys = [job.S, *([job.T] if job.tiebreak is not None else []), *job.by]
            f = f.groupby(keys, sort=False, observed=True, dropna=False)[[job.P, job.N]].sum().reset_index()
        f[job.R] = i * n_ranges + np.searchsorted(cuts[i], f[job.S].to_numpy(), side="right")
        frames.append(f)
    out = pd.concat(frames, ignore_index=True)
    return out[list(meta.columns)].astype(meta.dtypes.to_dict())


def _sample_keys(pdf: pd.DataFrame, n_ranges: int, job: AucJob) -> tuple[dict[int, np.ndarray], pd.Series]:
    """A few distinct order keys of each score column among one partition's distinct keys, and
    the rows of each segment (of the first score column's keys: every row has one; with sample
    weights, its distinct keys, a lower bound)."""
    out = {}
    sid = pdf[job.R].to_numpy() // n_ranges
    keys = pdf[job.S].to_numpy()
    for i in np.unique(sid).tolist():
        k = np.unique(keys[sid == i])
        out[int(i)] = k[:: max(1, k.shape[0] // _SAMPLE_ROWS)]
    sizes = pd.Series(dtype=np.int64)
    if job.by and len(pdf):
        first = pdf.loc[sid == 0]
        if job.sample_weight is None:
            rows = (first[job.P].to_numpy(dtype=np.int64) + first[job.N].to_numpy(dtype=np.int64))
        else:
            rows = np.ones(len(first), dtype=np.int64)
        sizes = pd.Series(rows, index=pd.MultiIndex.from_frame(first[list(job.by)]) if len(job.by) > 1
                          else pd.Index(first[job.by[0]])).groupby(level=list(range(len(job.by))), sort=False).sum()
    return out, sizes


def _merge_key_samples(parts: list[tuple[dict[int, np.ndarray], pd.Series]]) -> tuple[dict[int, np.ndarray], pd.Series]:
    samples = merge_all_samples([p[0] for p in parts])
    return samples, add_counts([p[1] for p in parts])


def add_counts(parts: list[pd.Series]) -> pd.Series:
    """Rows per segment of several partitions added (segment keys by value, as pandas groups)."""
    parts = [p for p in parts if len(p)]
    if not parts:
        return pd.Series(dtype=np.int64)
    both = pd.concat(parts)
    return both.groupby(level=list(range(both.index.nlevels)), sort=False).sum()


def _assign_ranges(pdf: pd.DataFrame, cuts: list[np.ndarray], n_ranges: int, job: AucJob) -> pd.DataFrame:
    """The score range of every distinct key (its score column's id is in the range column already)."""
    if len(pdf) == 0:
        return pdf
    out = pdf.copy()
    r = out[job.R].to_numpy()
    sid = r // n_ranges
    keys = out[job.S].to_numpy()
    rng = r.copy()
    for i in np.unique(sid).tolist():
        sel = sid == i
        rng[sel] = i * n_ranges + np.searchsorted(cuts[i], keys[sel], side="right")
    out[job.R] = rng.astype(r.dtype)
    return out


def _range_counts(pdf: pd.DataFrame, job: AucJob) -> list[tuple[Any, ...]]:
    """Exact counts of every (score range, segment) held by one partition of the range shuffle:
    ``(range id, segment key, (relevant, non-relevant, twice U))``."""
    if len(pdf) == 0:
        return []
    count = np.float64 if job.sample_weight is not None else np.int64
    if job.tiebreak is None and not job.by:
        # the common case in numpy: sort by (range, score), add up equal scores, cut at ranges
        r, s = pdf[job.R].to_numpy(), pdf[job.S].to_numpy()
        order = np.lexsort((s, r))
        r, s = r[order], s[order]
        first = np.flatnonzero(np.r_[True, (r[1:] != r[:-1]) | (s[1:] != s[:-1])])
        pos = np.add.reduceat(pdf[job.P].to_numpy().astype(count)[order], first)
        neg = np.add.reduceat(pdf[job.N].to_numpy().astype(count)[order], first)
        r = r[first]
        cut = np.flatnonzero(np.r_[True, r[1:] != r[:-1], True])
        return [
            (int(r[a]), (), S.auc_counts_sorted(pos[a:b], neg[a:b]))
            for a, b in zip(cut[:-1], cut[1:])
        ]
    block, starts, seg_keys = _blocks(pdf, job, count)
    counts = S.auc_counts_blocks(block[job.P].to_numpy(), block[job.N].to_numpy(), starts)
    rids = block[job.R].to_numpy()[starts]
    return [(int(r), k, c) for r, k, c in zip(rids.tolist(), seg_keys, counts)]


def _blocks(pdf: pd.DataFrame, job: AucJob, count: Any) -> tuple[pd.DataFrame, np.ndarray, list[tuple]]:
    """The distinct (range, segment, score[, tie-break]) keys of one partition of the range shuffle,
    sorted worst first within each (range, segment) block (ascending score; inside a score a higher
    tie-break value ranks lower): the rows, where each block starts, and each block's segment key.
    One groupby and one sort for the whole partition, however many segments it holds."""
    tb = [job.T] if job.tiebreak is not None else []
    frame = pdf.astype({job.P: count, job.N: count})
    g = frame.groupby([job.R, *job.by, job.S, *tb], sort=False, observed=True, dropna=False)[[job.P, job.N]].sum().reset_index()
    block_id = g.groupby([job.R, *job.by], sort=False, observed=True, dropna=False).ngroup().to_numpy()
    sort_keys = [g[job.S].to_numpy()]
    if tb:
        sort_keys.insert(0, -pd.factorize(g[job.T], sort=True)[0])  # lexsort: last key first
    order = np.lexsort((*sort_keys, block_id))
    g = g.iloc[order].reset_index(drop=True)
    block_id = block_id[order]
    starts = np.flatnonzero(np.r_[True, block_id[1:] != block_id[:-1]])
    if job.by:
        cols = [g[c].to_numpy()[starts].tolist() for c in job.by]
        seg_keys = [tuple(v.item() if isinstance(v, np.generic) else v for v in k) for k in zip(*cols)]
    else:
        seg_keys = [()] * starts.shape[0]
    return g, starts, seg_keys


def _placement_part(pdf: pd.DataFrame, job: AucJob, n_ranges: int, offsets: bytes, meta: pd.DataFrame) -> pd.DataFrame:
    """Global DeLong placements (``job.A`` for a relevant row, ``job.B`` for a non-relevant one) of every
    distinct key of one partition of the range shuffle, in the order of :func:`_range_counts`."""
    if len(pdf) == 0:
        return meta
    count = np.float64 if job.sample_weight is not None else np.int64
    block, starts, seg_keys = _blocks(pdf, job, count)
    rids = block[job.R].to_numpy()[starts].tolist()
    table = pickle.loads(offsets)
    off = np.array([table[(r, k)] for r, k in zip(rids, seg_keys)], dtype=object).reshape(-1, 2)
    a, b = S.placements_blocks(block[job.P].to_numpy(), block[job.N].to_numpy(), starts, off[:, 0].astype(np.float64),
                               off[:, 1].astype(np.float64))
    block = block.drop(columns=[job.P, job.N])
    block[job.ID] = block[job.R].to_numpy() // n_ranges
    block[job.A], block[job.B] = a, b
    return block[list(meta.columns)].astype(meta.dtypes.to_dict())


def _placement_meta(dtypes: pd.Series, job: AucJob) -> pd.DataFrame:
    cols = _key_columns(dtypes, job, (job.ID, np.int64))
    cols[job.A] = pd.Series(dtype=np.float64)
    cols[job.B] = pd.Series(dtype=np.float64)
    return pd.DataFrame(cols)


def _keyed(pdf: pd.DataFrame, job: AucJob, i: int) -> pd.DataFrame:
    """The rows with the order key of score ``i`` (0 where a checked column is missing: those rows
    are dropped by the summaries, as pandas drops them)."""
    keep = ~np.logical_or.reduce([missing_mask(pdf[c]) for c in job.columns]) if len(pdf) else np.ones(0, bool)
    key = np.zeros(len(pdf), dtype=np.uint64)
    if keep.any():
        key[keep] = _score_keys(pdf.loc[keep], job.scores[i])
    out = pdf.copy()
    out[job.K] = key
    return out


def _placed(pdf: pd.DataFrame, job: AucJob, name: str) -> pd.DataFrame:
    """A relevant row takes ``job.A``, a non-relevant one ``job.B``: its placement column ``name``."""
    keep = ~np.logical_or.reduce([missing_mask(pdf[c]) for c in job.columns]) if len(pdf) else np.ones(0, bool)
    rel = np.zeros(len(pdf), dtype=bool)
    if keep.any():
        y = numeric_values(pdf.loc[keep, job.label], job.label, "label", keep_int=True)  # type: ignore[index]  # stubs narrower than runtime
        rel[keep] = label_levels(y, job.threshold, graded=False).rel
    out = pdf.drop(columns=[job.K, job.A, job.B])
    out[name] = np.where(keep, np.where(rel, pdf[job.A].to_numpy(dtype=np.float64), pdf[job.B].to_numpy(dtype=np.float64)), np.nan)
    return out


def with_placements(ddf: Any, plan: Any, job: AucJob, table: Any) -> tuple[Any, list[str]]:
    """Every row with its global DeLong placement per score: a left merge of the rows with the
    placement table on (order key, tie-break, segment)."""
    rows = ddf[list(plan.columns)]
    names = []
    for i in range(len(job.scores)):
        right = table[table[job.ID] == i].drop(columns=[job.ID]).rename(columns={job.S: job.K})
        on = [job.K, *job.by]
        if job.tiebreak is not None:
            right = right.rename(columns={job.T: job.TB})
            keyed = rows.map_partitions(_keyed, job, i).assign(**{job.TB: rows[job.tiebreak]})
            on.append(job.TB)
        else:
            keyed = rows.map_partitions(_keyed, job, i)
        merged = keyed.merge(right, how="left", on=on, shuffle_method=shuffle_method(keyed))
        if job.tiebreak is not None:
            merged = merged.drop(columns=[job.TB])
        name = f"{job.prefix}pl_{i}"
        rows = merged.map_partitions(_placed, job, name)
        names.append(name)
    return rows, names


def auc_job(plan: Plan, prefix: str = "__rk_") -> AucJob:
    """What the score pass needs of a plan (its own columns under ``prefix``)."""
    o = plan.options
    return AucJob(
        label=plan.label,
        scores=tuple(plan.scores),
        columns=tuple(plan.columns),
        by=tuple(plan.by),
        threshold=o.threshold,
        ties=o.ties,
        tiebreak=o.tiebreak,
        sample_weight=o.sample_weight,
        prefix=prefix,
    )


def _count_columns(job: AucJob) -> list[Hashable]:
    extra = [c for c in (job.label, *job.scores, job.tiebreak, job.sample_weight, *job.by) if c is not None]
    return list(dict.fromkeys([*job.columns, *extra]))


def score_pass(
    ddf: Any, job: AucJob, samples: dict[int, np.ndarray], npartitions: int | None
) -> dict[tuple[Any, Hashable], Any]:
    """Read the input once more: exact global-AUC counts of every (segment, score column), the
    cut points of the score ranges taken from ``samples`` (of the group pass before)."""
    n_ranges = npartitions or ddf.npartitions
    meta = _counts_meta(ddf.dtypes, job)
    cuts = _all_cuts(samples, job, n_ranges)
    counted = ddf[_count_columns(job)].map_partitions(_count_distinct, job, cuts, n_ranges, meta, meta=meta)
    return range_pass(counted, job, n_ranges, ddf.dtypes)[0]


@dataclass
class Counted:
    """The distinct (score, tie-break, segment) keys of every input partition with their
    (relevant, non-relevant) counts, persisted on the workers; a sample of the keys per score
    column; and per segment, its rows (its distinct keys, with sample weights)."""

    frame: Any
    samples: dict[int, np.ndarray]
    sizes: pd.Series
    n_ranges: int


def count_pass(ddf: Any, job: AucJob, npartitions: int | None) -> Counted:
    """Read the input once: every partition's distinct keys counted (persisted), a sample of the
    keys for the cut points of the score ranges, and the rows of every segment."""
    import dask
    from dask import delayed

    n_ranges = npartitions or ddf.npartitions
    meta = _counts_meta(ddf.dtypes, job)
    none = [_NO_KEYS] * len(job.scores)
    counted = ddf[_count_columns(job)].map_partitions(_count_distinct, job, none, n_ranges, meta, meta=meta).persist()
    parts = [delayed(_sample_keys, pure=True)(p, n_ranges, job) for p in counted.to_delayed()]
    ((samples, sizes),) = dask.compute(tree(parts, _merge_key_samples))
    return Counted(counted, samples, sizes, n_ranges)


def range_pass(
    counted: Any, job: AucJob, n_ranges: int, dtypes: pd.Series, placements: bool = False
) -> tuple[dict[tuple[Any, Hashable], Any], Any]:
    """Shuffle the counted keys by score range; every range gives its exact counts per segment;
    the client chains the ranges in score order (Python integers).

    With ``placements`` the range shuffle is persisted and a lazy table of every distinct key's
    global DeLong placements is returned too (else None)."""
    import dask
    from dask import delayed

    ranged = counted.shuffle(on=job.R, npartitions=n_ranges, shuffle_method=shuffle_method(counted))
    if placements:
        ranged = ranged.persist()
    blobs = dask.compute(*[delayed(packed, pure=True)(_range_counts, p, job) for p in ranged.to_delayed()])
    parts = [pickle.loads(b) for b in blobs]
    # one small tuple per (range, segment): chained in score order on the client
    ranges: dict[tuple[Any, int], list[tuple[int, Any]]] = defaultdict(list)
    for part in parts:
        for rid, seg, counts in part:
            ranges[(seg, rid // n_ranges)].append((rid, counts))
    out = {}
    offsets: dict[tuple[int, Any], tuple[int, int]] = {}
    for (seg, i), items in ranges.items():
        items.sort(key=operator.itemgetter(0))
        out[(seg, job.scores[i])] = S.chain_auc([c for _, c in items])
        if placements:
            for (rid, _), off in zip(items, S.chain_offsets([c for _, c in items])):
                offsets[(rid, seg)] = off
    if not placements:
        return out, None
    pmeta = _placement_meta(dtypes, job)
    blob = pickle.dumps(offsets, protocol=pickle.HIGHEST_PROTOCOL)  # bytes: hashed at once, not item by item
    return out, ranged.map_partitions(_placement_part, job, n_ranges, blob, pmeta, meta=pmeta)


def ranged_counts(counted: Counted, job: AucJob, dtypes: pd.Series) -> tuple[dict[tuple[Any, Hashable], Any], Any]:
    """The score pass after :func:`count_pass`: cut points from its sample, then :func:`range_pass`
    with the DeLong placement table."""
    cuts = _all_cuts(counted.samples, job, counted.n_ranges)
    meta = _counts_meta(dtypes, job)
    frame = counted.frame.map_partitions(_assign_ranges, cuts, counted.n_ranges, job, meta=meta)
    return range_pass(frame, job, counted.n_ranges, dtypes, placements=True)
