"""The Dask engine: every public function of :mod:`pandas_rankeval` on a Dask DataFrame, exact.

An adapter (:mod:`pandas_rankeval.engines.base`) to the summary layer (:mod:`pandas_rankeval.summary`),
the code that pandas itself runs: it only decides how whole groups get into a partition and how the
partitions' summaries are added up. It computes no metric of its own and checks no option: the
public functions build the plan and raise every error the schema answers before calling :func:`run`.

How a call runs
---------------
1. **Checks from metadata** (:func:`schema`: ``ddf.dtypes``), before any compute, in the public
   function: missing columns, text scores or labels, bad options raise the errors of pandas.
2. **Group pass** (group metrics, and every call's coverage counts): the rows are shuffled by
   group key so that each group is whole in one partition; every partition becomes one small
   additive summary (``summarize``), the summaries are added in a binary tree of tasks on the
   workers, and only the final, result-sized summary reaches the client, which divides and
   formats it (``finalize``). Missing values are counted in this pass. No per-group row ever
   reaches the client (``per_group`` returns a lazy Dask DataFrame instead).
3. **Score pass** (global AUC only): every input partition counts its (relevant, non-relevant)
   rows per distinct score (per segment with ``by``), which collapses masses of tied scores; the
   distinct scores are range-partitioned with cut points sampled in the group pass and shuffled,
   every range gives its exact counts, and the client chains the ranges in score order in Python
   integers. Every score column goes through the same pass, so equal scores never straddle two
   ranges and the result is exact under every tie rule.
4. **Placement pass** (only for ``ci=`` / ``compare`` with global AUC, clustered DeLong, the
   pandas default ``auc_method="delong"`` with ``ties="expected"``): the range shuffle of step 3
   is persisted; from the chained counts every distinct score gets its global DeLong placement
   (``chain_offsets``, ``placements_sorted``), the rows are merged with that table on the score
   (and tie-break and segment), and the group pass runs on those rows with the placement columns,
   so ``summarize`` adds the per-segment DeLong moments. The interval and p-values equal pandas'.
   Here the group pass runs once, after the score pass, whose cut points are then sampled from
   the distinct keys it counted (persisted) rather than from a group pass.

So a call reads its input at most twice (once without global AUC), an interval or test of
global AUC included: a report of M score columns reads it at most M + 1 times.

Options not offered over partitions raise a ``ValueError`` that names them before any compute
(never an approximation): ``max_fpr`` of global AUC; a bootstrap interval / test of global AUC
(``auc_method="bootstrap"`` or ``ties`` other than ``"expected"``: it needs a resampled count per
distinct score); ``resample="multinomial"``.

Engine option: ``npartitions`` (``engine_options={"npartitions": n}``), the partitions of the
shuffle by group and of the score ranges of global AUC; default: the input's. ``ddf.rank`` and
``ddf.rankeval`` are registered by :mod:`pandas_rankeval.accessor`. Requires the optional
``dask[dataframe]`` extra (``pip install 'pandas_rankeval[dask]'``).
"""

from __future__ import annotations

import dataclasses
import operator
import pickle
from collections import defaultdict
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from pandas_rankeval import summary as S
from pandas_rankeval.inference import hashing as H
from pandas_rankeval.core.prepare import label_levels
from pandas_rankeval.core.validation import missing_mask, numeric_values
from pandas_rankeval.summary.plan import Plan
from pandas_rankeval.summary.replicates import reduce_replicates
from pandas_rankeval.engines.pandas import pandas_extras
from pandas_rankeval.summary.summary import Summary
from pandas_rankeval.tables.per_group import display_names, per_group_table

__all__ = ["NAME", "OPTIONS", "check_options", "partitioned", "per_group", "run", "schema"]

NAME = "Dask"
OPTIONS = ("npartitions",)


# --------------------------------------------------------------------------- #
# The schema and the engine option
# --------------------------------------------------------------------------- #
def schema(ddf: Any) -> pd.DataFrame:
    """An empty pandas frame with the columns and dtypes of ``ddf`` (no compute).

    Built by position, so that a repeated column name stays repeated (for the pandas error that
    counts it); a named index is a column too, since ``group=`` / ``by=`` may name it as in pandas.
    """
    dtypes = ddf.dtypes
    meta = pd.DataFrame({i: pd.Series(dtype=t) for i, t in enumerate(dtypes.to_numpy())})
    meta.columns = dtypes.index
    name = ddf.index.name
    if name is not None and name not in meta.columns:
        meta[name] = pd.Series(dtype=ddf.index.dtype)
    return meta


def _with_index(ddf: Any, columns: Sequence[Hashable]) -> Any:
    """The frame with its index as a column when the call names the index (as pandas allows)."""
    name = ddf.index.name
    if name is not None and name in columns and name not in ddf.columns:
        return ddf.reset_index()
    return ddf


def partitioned(ddf: Any) -> bool:
    """A Dask frame is evaluated in partitions of whole groups."""
    return True


def check_options(options: dict[str, Any], func: str) -> dict[str, Any]:
    """``npartitions``: an int >= 1, or None (the input's number of partitions)."""
    npartitions = options.get("npartitions")
    if npartitions is not None and (
        isinstance(npartitions, bool) or not isinstance(npartitions, int) or npartitions < 1
    ):
        raise ValueError(
            f"The 'npartitions' engine option of {func} must be an int in the range [1, inf) or None. "
            f"Got {npartitions!r} instead."
        )
    return {"npartitions": npartitions}


# --------------------------------------------------------------------------- #
# Adding summaries up on the workers
# --------------------------------------------------------------------------- #
def _tree(items: list[Any], combine: Callable[[list[Any]], Any], fan_in: int = 8) -> Any:
    """A tree of delayed ``combine`` calls over ``items``, ``fan_in`` at a time: depth
    log_fan_in(len(items)). Adding many summaries in one call allocates their union once."""
    from dask import delayed

    while len(items) > 1:
        items = [
            delayed(combine, pure=True)(items[i : i + fan_in]) if i + 1 < len(items) else items[i]
            for i in range(0, len(items), fan_in)
        ]
    return items[0]


def _group_part(pdf: pd.DataFrame, plan: Any, sample: tuple[Hashable, ...]) -> tuple[Any, dict[int, np.ndarray]]:
    """One partition of whole groups -> its summary, and a sample of its scores for the score pass."""
    return S.summarize(pdf, plan), _sample_scores(pdf, sample)


def _add(parts: list[tuple[Any, dict[int, np.ndarray]]]) -> tuple[Any, dict[int, np.ndarray]]:
    samples = parts[0][1]
    for p in parts[1:]:
        samples = _merge_samples(samples, p[1])
    return S.Summary.sum([p[0] for p in parts]), samples


def _merge_all_samples(parts: list[dict[int, np.ndarray]]) -> dict[int, np.ndarray]:
    out = parts[0]
    for p in parts[1:]:
        out = _merge_samples(out, p)
    return out


_KEY_HASH = "__rk_key_hash"


def _key_hashed(pdf: pd.DataFrame, group: list[Hashable]) -> pd.DataFrame:
    out = pdf.copy()
    out[_KEY_HASH] = H.partition_hash(pdf[group])
    return out


def _shuffled(ddf: Any, plan: Any, npartitions: int | None) -> Any:
    """The plan's columns (and placement columns), shuffled so that every group is whole in one partition.

    Keys in an object column are placed by value (:func:`~pandas_rankeval.inference.hashing.partition_hash`):
    ``1``, ``1.0`` and ``True`` are one group for pandas, and Dask's own hash of an object column
    (of its text) would send them to different partitions.
    """
    cols = [*plan.columns, *plan.placement_columns]
    n = npartitions or ddf.npartitions
    data = ddf[cols]
    if any(pd.api.types.is_object_dtype(data.dtypes[c]) for c in plan.group):
        meta = data._meta.assign(**{_KEY_HASH: np.zeros(0, dtype=np.uint64)})
        keyed = data.map_partitions(_key_hashed, list(plan.group), meta=meta)
        return keyed.shuffle(on=_KEY_HASH, npartitions=n, shuffle_method=_shuffle_method(data)).drop(columns=[_KEY_HASH])
    on = plan.group[0] if len(plan.group) == 1 else list(plan.group)
    return data.shuffle(on=on, npartitions=n, shuffle_method=_shuffle_method(data))


def _shuffle_method(ddf: Any) -> str | None:
    """The shuffle's method: Dask's default, except for object columns (keys of mixed types), which
    the p2p shuffle cannot carry (it moves Arrow tables) and the task shuffle can (pickle)."""
    return "tasks" if any(pd.api.types.is_object_dtype(t) for t in ddf.dtypes) else None


def _group_pass(
    ddf: Any, plan: Any, npartitions: int | None, sample: tuple[Hashable, ...]
) -> tuple[Any, dict[int, np.ndarray]]:
    """Read the input once: the whole table's summary, added up on the workers.

    Group metrics and per-segment counts need whole groups (a shuffle by group key); global
    AUC alone needs only row counts, so its partitions are summarized where they are. With
    ``by=`` and replicate sums, see :func:`_sharded`.
    """
    import dask
    from dask import delayed

    if plan.specs or plan.by or plan.placement_columns:  # DeLong moments need whole groups
        parts = _shuffled(ddf, plan, npartitions).to_delayed()
    else:
        # rows, relevant rows and missing values are all global AUC's coverage needs: the
        # summary of a plan without group metrics and segments takes any partition of rows
        parts = ddf[list(plan.columns)].to_delayed()
    if _SHARD and plan.by and plan.n_replicates and plan.kind != "metric" and len(parts) > 1:
        return _sharded(parts, plan, sample)
    plan_d = delayed(plan, pure=True)  # one key: a weight Series travels once, not per task
    root = _tree([delayed(_group_part, pure=True)(p, plan_d, sample) for p in parts], _add)
    ((summary, samples),) = dask.compute(root)
    return summary, samples


#: Most shards of segments in a sharded group pass (tasks: partitions x shards pieces).
_MAX_SHARDS = 16
_SHARD = True


def _group_part_split(pdf: pd.DataFrame, plan: Any, sample: tuple[Hashable, ...], n: int) -> tuple[Any, ...]:
    """One partition's summary in ``n`` shards of segments, and its score sample."""
    return (*S.summarize(pdf, plan).split(n), _sample_scores(pdf, sample))


def _shard(parts: list[Any], plan: Any) -> Any:
    """One shard of segments: its pieces from every partition added (whole segments), and the
    replicate sums reduced to the intervals and p-values the tables take from them."""
    return reduce_replicates(S.Summary.sum(parts), plan)


def _sharded(parts: list[Any], plan: Plan, sample: tuple[Hashable, ...]) -> tuple[Any, dict[int, np.ndarray]]:
    """The group pass with ``by=`` and replicate sums (intervals, compare): reduce where a
    segment is whole, so that no replicate sum leaves the workers.

    Every partition's summary holds all its segments' replicate sums (segments x replicates x
    items), most of them partial. Each is cut into shards of segments (a stable hash of the
    key); a shard's pieces from all partitions are added in one task, which then holds whole
    segments and reduces their replicate sums to intervals and p-values
    (:func:`~pandas_rankeval.summary.replicates.reduce_replicates`, the code the tables run).
    The shards (disjoint segments, result-sized) are concatenated in a tree. Per call, each
    replicate sum crosses the network at most once, between workers, and never reaches the
    client: at 2,000 segments and 1,000 replicates that was 256 MB per partition.
    """
    import dask
    from dask import delayed

    n = min(len(parts), _MAX_SHARDS)
    plan_d = delayed(plan, pure=True)
    split = [delayed(_group_part_split, pure=True, nout=n + 1)(p, plan_d, sample, n) for p in parts]
    shards = [delayed(_shard, pure=True)([sp[k] for sp in split], plan_d) for k in range(n)]
    summary_root = _tree(shards, S.Summary.sum)
    samples_root = _tree([sp[n] for sp in split], _merge_all_samples)
    summary, samples = dask.compute(summary_root, samples_root)
    return summary, samples


# --------------------------------------------------------------------------- #
# Global AUC: count per distinct score, range-partition, chain exact counts
# --------------------------------------------------------------------------- #
#: Rows sampled per partition and score column for the cut points of the score ranges.
_SAMPLE_ROWS = 1024
#: Distinct sampled values kept per score column while samples are merged (bounded memory).
_SAMPLE_KEEP = 1 << 16

_R, _S, _T, _P, _N = "__rk_range", "__rk_score", "__rk_tiebreak", "__rk_pos", "__rk_neg"
_ID, _A, _B, _K, _TB = "__rk_sid", "__rk_a", "__rk_b", "__rk_key", "__rk_tb"
_NO_KEYS = np.empty(0, dtype=np.uint64)


@dataclass(frozen=True)
class _AucJob:
    """What the score pass needs: columns and the options that shape global AUC."""

    label: Hashable
    scores: tuple[Hashable, ...]
    columns: tuple[Hashable, ...]  # every checked column: a row missing one of them is dropped
    by: tuple[Hashable, ...]
    threshold: float | None
    ties: str
    tiebreak: Hashable | None
    sample_weight: Hashable | None


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


def _sample_scores(pdf: pd.DataFrame, scores: tuple[Hashable, ...]) -> dict[int, np.ndarray]:
    """A few distinct order keys of each score column of one partition."""
    out = {}
    for i, s in enumerate(scores):
        rows = pdf[s].iloc[:: max(1, len(pdf) // _SAMPLE_ROWS)]
        rows = rows[~missing_mask(rows)]
        out[i] = np.unique(_score_keys(rows.to_frame(), s))
    return out


def _merge_samples(a: dict[int, np.ndarray], b: dict[int, np.ndarray]) -> dict[int, np.ndarray]:
    out = {}
    for i in a.keys() | b.keys():
        u = np.union1d(a.get(i, _NO_KEYS), b.get(i, _NO_KEYS))
        if u.shape[0] > _SAMPLE_KEEP:  # evenly spaced distinct values: the sample stays small
            u = u[np.linspace(0, u.shape[0] - 1, _SAMPLE_KEEP).astype(np.int64)]
        out[i] = u
    return out


def _cuts(sample: np.ndarray, n_ranges: int) -> np.ndarray:
    """At most ``n_ranges - 1`` increasing cut points that split the sampled distinct values evenly."""
    if sample.shape[0] == 0 or n_ranges <= 1:
        return _NO_KEYS
    return np.unique(sample[(sample.shape[0] * np.arange(1, n_ranges)) // n_ranges])


def _counts_meta(dtypes: pd.Series, job: _AucJob) -> pd.DataFrame:
    cols: dict[Hashable, Any] = {_R: pd.Series(dtype=np.int32), _S: pd.Series(dtype=np.uint64)}
    if job.tiebreak is not None:
        cols[_T] = pd.Series(dtype=dtypes[job.tiebreak])
    for c in job.by:
        cols[c] = pd.Series(dtype=dtypes[c])
    # a partition's count of one distinct score fits int32; the ranges add them up in int64
    count = np.float64 if job.sample_weight is not None else np.int32
    cols[_P] = pd.Series(dtype=count)
    cols[_N] = pd.Series(dtype=count)
    return pd.DataFrame(cols)


def _count_distinct(
    pdf: pd.DataFrame, job: _AucJob, cuts: list[np.ndarray], n_ranges: int, meta: pd.DataFrame
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
                f = pd.DataFrame({_S: uniq, _P: p, _N: np.bincount(inv, minlength=m) - p})
            else:
                f = pd.DataFrame({
                    _S: uniq,
                    _P: np.bincount(inv, weights=pos, minlength=m),
                    _N: np.bincount(inv, weights=neg, minlength=m),
                })
        else:
            f = pd.DataFrame({_S: sc, _P: pos, _N: neg})
            if job.tiebreak is not None:
                f[_T] = pdf[job.tiebreak].to_numpy()
            for c in job.by:
                f[c] = pdf[c].to_numpy()
            keys = [_S, *([_T] if job.tiebreak is not None else []), *job.by]
            f = f.groupby(keys, sort=False, observed=True, dropna=False)[[_P, _N]].sum().reset_index()
        f[_R] = i * n_ranges + np.searchsorted(cuts[i], f[_S].to_numpy(), side="right")
        frames.append(f)
    out = pd.concat(frames, ignore_index=True)
    return out[list(meta.columns)].astype(meta.dtypes.to_dict())


def _sample_keys(pdf: pd.DataFrame, n_ranges: int) -> dict[int, np.ndarray]:
    """A few distinct order keys of each score column among one partition's distinct keys."""
    out = {}
    sid = pdf[_R].to_numpy() // n_ranges
    keys = pdf[_S].to_numpy()
    for i in np.unique(sid).tolist():
        k = np.unique(keys[sid == i])
        out[int(i)] = k[:: max(1, k.shape[0] // _SAMPLE_ROWS)]
    return out


def _assign_ranges(pdf: pd.DataFrame, cuts: list[np.ndarray], n_ranges: int) -> pd.DataFrame:
    """The score range of every distinct key (its score column's id is in the range column already)."""
    if len(pdf) == 0:
        return pdf
    out = pdf.copy()
    r = out[_R].to_numpy()
    sid = r // n_ranges
    keys = out[_S].to_numpy()
    rng = r.copy()
    for i in np.unique(sid).tolist():
        sel = sid == i
        rng[sel] = i * n_ranges + np.searchsorted(cuts[i], keys[sel], side="right")
    out[_R] = rng.astype(r.dtype)
    return out


def _packed(fn: Callable[..., Any], *args: Any) -> bytes:
    """``fn(*args)`` pickled on the worker: a list of thousands of small tuples (a range
    partition's counts per segment) reaches the client as one buffer. Left to distributed, such
    a list is serialized item by item, which cost 0.3 s of a 0.6 s call at 2,000 segments."""
    return pickle.dumps(fn(*args), protocol=pickle.HIGHEST_PROTOCOL)


def _range_counts(pdf: pd.DataFrame, job: _AucJob) -> list[tuple[Any, ...]]:
    """Exact counts of every (score range, segment) held by one partition of the range shuffle:
    ``(range id, segment key, (relevant, non-relevant, twice U))``."""
    if len(pdf) == 0:
        return []
    count = np.float64 if job.sample_weight is not None else np.int64
    if job.tiebreak is None and not job.by:
        # the common case in numpy: sort by (range, score), add up equal scores, cut at ranges
        r, s = pdf[_R].to_numpy(), pdf[_S].to_numpy()
        order = np.lexsort((s, r))
        r, s = r[order], s[order]
        first = np.flatnonzero(np.r_[True, (r[1:] != r[:-1]) | (s[1:] != s[:-1])])
        pos = np.add.reduceat(pdf[_P].to_numpy().astype(count)[order], first)
        neg = np.add.reduceat(pdf[_N].to_numpy().astype(count)[order], first)
        r = r[first]
        cut = np.flatnonzero(np.r_[True, r[1:] != r[:-1], True])
        return [
            (int(r[a]), (), S.auc_counts_sorted(pos[a:b], neg[a:b]))
            for a, b in zip(cut[:-1], cut[1:])
        ]
    block, starts, seg_keys = _blocks(pdf, job, count)
    counts = S.auc_counts_blocks(block[_P].to_numpy(), block[_N].to_numpy(), starts)
    rids = block[_R].to_numpy()[starts]
    return [(int(r), k, c) for r, k, c in zip(rids.tolist(), seg_keys, counts)]


def _blocks(pdf: pd.DataFrame, job: _AucJob, count: Any) -> tuple[pd.DataFrame, np.ndarray, list[tuple]]:
    """The distinct (range, segment, score[, tie-break]) keys of one partition of the range shuffle,
    sorted worst first within each (range, segment) block (ascending score; inside a score a higher
    tie-break value ranks lower): the rows, where each block starts, and each block's segment key.
    One groupby and one sort for the whole partition, however many segments it holds."""
    tb = [_T] if job.tiebreak is not None else []
    frame = pdf.astype({_P: count, _N: count})
    g = frame.groupby([_R, *job.by, _S, *tb], sort=False, observed=True, dropna=False)[[_P, _N]].sum().reset_index()
    block_id = g.groupby([_R, *job.by], sort=False, observed=True, dropna=False).ngroup().to_numpy()
    sort_keys = [g[_S].to_numpy()]
    if tb:
        sort_keys.insert(0, -pd.factorize(g[_T], sort=True)[0])  # lexsort: last key first
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


def _placement_part(pdf: pd.DataFrame, job: _AucJob, n_ranges: int, offsets: bytes, meta: pd.DataFrame) -> pd.DataFrame:
    """Global DeLong placements (``_A`` for a relevant row, ``_B`` for a non-relevant one) of every
    distinct key of one partition of the range shuffle, in the order of :func:`_range_counts`."""
    if len(pdf) == 0:
        return meta
    count = np.float64 if job.sample_weight is not None else np.int64
    block, starts, seg_keys = _blocks(pdf, job, count)
    rids = block[_R].to_numpy()[starts].tolist()
    table = pickle.loads(offsets)
    off = np.array([table[(r, k)] for r, k in zip(rids, seg_keys)], dtype=object).reshape(-1, 2)
    a, b = S.placements_blocks(block[_P].to_numpy(), block[_N].to_numpy(), starts, off[:, 0].astype(np.float64),
                               off[:, 1].astype(np.float64))
    block = block.drop(columns=[_P, _N])
    block[_ID] = block[_R].to_numpy() // n_ranges
    block[_A], block[_B] = a, b
    return block[list(meta.columns)].astype(meta.dtypes.to_dict())


def _placement_meta(dtypes: pd.Series, job: _AucJob) -> pd.DataFrame:
    cols: dict[Hashable, Any] = {_ID: pd.Series(dtype=np.int64), _S: pd.Series(dtype=np.uint64)}
    if job.tiebreak is not None:
        cols[_T] = pd.Series(dtype=dtypes[job.tiebreak])
    for c in job.by:
        cols[c] = pd.Series(dtype=dtypes[c])
    cols[_A] = pd.Series(dtype=np.float64)
    cols[_B] = pd.Series(dtype=np.float64)
    return pd.DataFrame(cols)


def _keyed(pdf: pd.DataFrame, job: _AucJob, i: int) -> pd.DataFrame:
    """The rows with the order key of score ``i`` (0 where a checked column is missing: those rows
    are dropped by the summaries, as pandas drops them)."""
    keep = ~np.logical_or.reduce([missing_mask(pdf[c]) for c in job.columns]) if len(pdf) else np.ones(0, bool)
    key = np.zeros(len(pdf), dtype=np.uint64)
    if keep.any():
        key[keep] = _score_keys(pdf.loc[keep], job.scores[i])
    out = pdf.copy()
    out[_K] = key
    return out


def _placed(pdf: pd.DataFrame, job: _AucJob, name: str) -> pd.DataFrame:
    """A relevant row takes ``_A``, a non-relevant one ``_B``: its placement column ``name``."""
    keep = ~np.logical_or.reduce([missing_mask(pdf[c]) for c in job.columns]) if len(pdf) else np.ones(0, bool)
    rel = np.zeros(len(pdf), dtype=bool)
    if keep.any():
        y = numeric_values(pdf.loc[keep, job.label], job.label, "label", keep_int=True)
        rel[keep] = label_levels(y, job.threshold, graded=False).rel
    out = pdf.drop(columns=[_K, _A, _B])
    out[name] = np.where(keep, np.where(rel, pdf[_A].to_numpy(dtype=np.float64), pdf[_B].to_numpy(dtype=np.float64)), np.nan)
    return out


def _with_placements(ddf: Any, plan: Any, job: _AucJob, table: Any) -> tuple[Any, list[str]]:
    """Every row with its global DeLong placement per score: a left merge of the rows with the
    placement table on (order key, tie-break, segment)."""
    rows = ddf[list(plan.columns)]
    names = []
    for i in range(len(job.scores)):
        right = table[table[_ID] == i].drop(columns=[_ID]).rename(columns={_S: _K})
        on = [_K, *job.by]
        if job.tiebreak is not None:
            right = right.rename(columns={_T: _TB})
            keyed = rows.map_partitions(_keyed, job, i).assign(**{_TB: rows[job.tiebreak]})
            on.append(_TB)
        else:
            keyed = rows.map_partitions(_keyed, job, i)
        merged = keyed.merge(right, how="left", on=on, shuffle_method=_shuffle_method(keyed))
        if job.tiebreak is not None:
            merged = merged.drop(columns=[_TB])
        name = f"__rk_pl_{i}"
        rows = merged.map_partitions(_placed, job, name)
        names.append(name)
    return rows, names


def _score_pass(
    ddf: Any, job: _AucJob, samples: dict[int, np.ndarray] | None, npartitions: int | None, placements: bool = False
) -> tuple[dict[tuple[Any, Hashable], Any], Any]:
    """Read the input once more: exact global-AUC counts of every (segment, score column).

    The cut points of the score ranges come from ``samples`` (taken in the group pass), or, with
    ``samples=None`` (no group pass before), from the distinct keys counted per input partition
    (persisted, then sampled: the input is still read once).

    With ``placements`` the range shuffle is persisted and a lazy table of every distinct key's
    global DeLong placements is returned too (else None)."""
    import dask
    from dask import delayed

    n_ranges = npartitions or ddf.npartitions
    extra = [c for c in (job.label, *job.scores, job.tiebreak, job.sample_weight, *job.by) if c is not None]
    cols = list(dict.fromkeys([*job.columns, *extra]))
    meta = _counts_meta(ddf.dtypes, job)
    if samples is None:  # no group pass before: sample the distinct keys themselves, no extra read
        none = [_NO_KEYS] * len(job.scores)
        counted = ddf[cols].map_partitions(_count_distinct, job, none, n_ranges, meta, meta=meta).persist()
        parts = counted.to_delayed()
        samples = dask.compute(_tree([delayed(_sample_keys, pure=True)(p, n_ranges) for p in parts], _merge_all_samples))[0]
        cuts = [_cuts(samples.get(i, _NO_KEYS), n_ranges) for i in range(len(job.scores))]
        counted = counted.map_partitions(_assign_ranges, cuts, n_ranges, meta=meta)
    else:
        cuts = [_cuts(samples.get(i, _NO_KEYS), n_ranges) for i in range(len(job.scores))]
        counted = ddf[cols].map_partitions(_count_distinct, job, cuts, n_ranges, meta, meta=meta)
    ranged = counted.shuffle(on=_R, npartitions=n_ranges, shuffle_method=_shuffle_method(counted))
    if placements:
        ranged = ranged.persist()
    packed = dask.compute(*[delayed(_packed, pure=True)(_range_counts, p, job) for p in ranged.to_delayed()])
    parts = [pickle.loads(b) for b in packed]
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
    pmeta = _placement_meta(ddf.dtypes, job)
    blob = pickle.dumps(offsets, protocol=pickle.HIGHEST_PROTOCOL)  # bytes: hashed at once, not item by item
    return out, ranged.map_partitions(_placement_part, job, n_ranges, blob, pmeta, meta=pmeta)


# --------------------------------------------------------------------------- #
# One call: one or two passes (three for clustered DeLong), summed on the workers
# --------------------------------------------------------------------------- #
def _auc_job(plan: Plan) -> _AucJob:
    o = plan.options
    return _AucJob(
        label=plan.label,
        scores=tuple(plan.scores),
        columns=tuple(plan.columns),
        by=tuple(plan.by),
        threshold=o.threshold,
        ties=o.ties,
        tiebreak=o.tiebreak,
        sample_weight=o.sample_weight,
    )


def run(ddf: Any, plan: Plan, options: dict[str, Any]) -> tuple[Summary, dict[str, Any]]:
    """Read the input once or twice (clustered DeLong included): the summed summary and,
    with global AUC, its exact counts per (segment, score)."""
    npartitions = options.get("npartitions")
    ddf = _with_index(ddf, plan.columns)
    if _segment_mode(ddf, plan, npartitions):
        whole = _segment_pass(ddf, plan, npartitions)
        if whole is not None:
            return whole
    job = _auc_job(plan) if plan.has_auc else None
    delong = plan.auc_placements
    samples = None
    if not delong:  # with a placement pass to come, the group pass runs once, after the score pass
        summary, samples = _group_pass(ddf, plan, npartitions, job.scores if job else ())
        S._raise_input_errors(summary, plan)  # whole-table counts, before the score pass
    auc, table = _score_pass(ddf, job, samples, npartitions, delong) if job else (None, None)
    if delong:  # a second read: every row's global placement, merged in, then the groups
        rows, names = _with_placements(ddf, plan, job, table)  # type: ignore[arg-type]
        summary, _ = _group_pass(rows, dataclasses.replace(plan, placement_columns=tuple(names)), npartitions, ())
    return summary, {"auc": auc}


# --------------------------------------------------------------------------- #
# by= with many segments: partitions of whole segments, each a pandas table
# --------------------------------------------------------------------------- #
#: Segment mode needs at least this many segments per partition of the shuffle (balance).
_SEGMENTS_PER_PART = 2


def _segment_counts(pdf: pd.DataFrame, by: list[Hashable]) -> pd.Series:
    """Rows per segment key of one input partition (a key with a missing value left out)."""
    return pdf.groupby(by, sort=False, dropna=True, observed=True).size()


def _add_counts(parts: list[pd.Series]) -> pd.Series:
    both = pd.concat(parts)
    if not len(both):
        return both
    return both.groupby(level=list(range(both.index.nlevels)), sort=False).sum()


def _segment_mode(ddf: Any, plan: Plan, npartitions: int | None) -> bool:
    """``by=`` with many segments, none larger than an average partition: shuffle whole segments.

    Counts the rows of every segment first (a pass over the ``by`` columns alone, whose result
    has one row per segment). With at least :data:`_SEGMENTS_PER_PART` segments per partition
    and no segment above the average partition's rows, partitions of whole segments stay
    balanced, and each is a pandas table whose numbers are final (:func:`_segment_pass`).
    Otherwise (a few large segments) the rows are shuffled by group, as without ``by``.
    """
    import dask
    from dask import delayed

    if not plan.by or not plan.group:
        return False
    n = npartitions or ddf.npartitions
    parts = ddf[list(plan.by)].to_delayed()
    (sizes,) = dask.compute(_tree([delayed(_segment_counts, pure=True)(p, list(plan.by)) for p in parts], _add_counts))
    if not len(sizes):
        return False
    return len(sizes) >= _SEGMENTS_PER_PART * n and int(sizes.max()) <= max(1, int(sizes.sum()) // n)


def _segment_part(pdf: pd.DataFrame, plan: Plan) -> tuple[Summary, dict[str, dict], np.ndarray, bool]:
    """One partition of whole segments, evaluated as the pandas engine evaluates a table: its
    summary (replicate sums reduced to intervals and p-values: the segments are whole), each
    segment's global AUC and clustered-DeLong moments, and its groups' key hashes (sorted)."""
    summary, ev = S.summarize_partition(pdf, plan, whole_segments=True)
    if ev is None:  # no rows, or a bad value counted: the group pass reports it
        return summary, {}, _NO_KEYS, bool(summary.problems)
    extras = pandas_extras(ev, plan)
    if plan.n_replicates:
        summary = reduce_replicates(summary, plan)
    return summary, extras, np.unique(H.key_hash(ev.keys)), False


def _add_segments(parts: list[tuple[Summary, dict[str, dict], np.ndarray, bool]]) -> tuple[Any, ...]:
    """Partitions of disjoint segments added: summaries concatenated, extras united. A group key
    in two partitions has rows in two segments (``by`` varies in the group): flagged."""
    extras: dict[str, dict] = {}
    for p in parts:
        for name, values in p[1].items():
            extras.setdefault(name, {}).update(values)
    hashes = np.concatenate([p[2] for p in parts])
    distinct = np.unique(hashes)
    flagged = any(p[3] for p in parts) or distinct.shape[0] < hashes.shape[0]
    return S.Summary.sum([p[0] for p in parts]), extras, distinct, flagged


def _without_hashes(whole: tuple[Any, ...]) -> tuple[Any, ...]:
    return whole[0], whole[1], whole[3]


def _segment_pass(ddf: Any, plan: Plan, npartitions: int | None) -> tuple[Summary, dict[str, Any]] | None:
    """Read the input once: rows shuffled by segment key (by value, as pandas groups), every
    partition a pandas table of whole segments; only result-sized summaries leave the workers.

    No score pass and no placement pass: a segment's global AUC, its DeLong moments and its
    intervals are computed where its rows are. None when a group has rows in two segments or
    a bad value was counted: the group pass then raises with the whole table's counts.
    """
    import dask
    from dask import delayed

    n = npartitions or ddf.npartitions
    data = ddf[list(plan.columns)]
    meta = data._meta.assign(**{_KEY_HASH: np.zeros(0, dtype=np.uint64)})
    keyed = data.map_partitions(_key_hashed, list(plan.by), meta=meta)
    parts = keyed.shuffle(on=_KEY_HASH, npartitions=n, shuffle_method=_shuffle_method(data)).drop(
        columns=[_KEY_HASH]
    ).to_delayed()
    plan_d = delayed(plan, pure=True)
    root = _tree([delayed(_segment_part, pure=True)(p, plan_d) for p in parts], _add_segments)
    ((summary, extras, flagged),) = dask.compute(delayed(_without_hashes, pure=True)(root))
    if flagged:
        return None
    return summary, extras


# --------------------------------------------------------------------------- #
# per_group: a lazy Dask DataFrame, the per-group table of every partition of whole groups
# --------------------------------------------------------------------------- #
def _per_group_part(pdf: pd.DataFrame, plan: Plan, meta: pd.DataFrame, flat: bool) -> pd.DataFrame:
    """The per-group table of one partition of whole groups.

    Under ``nan_policy="omit"`` a partition may hold only rows with a missing value (the shuffle
    puts rows with a missing key together): it has no group, not an error.
    """
    if len(pdf) and plan.options.nan_policy == "omit":
        pdf = pdf.loc[~np.logical_or.reduce([missing_mask(pdf[c]) for c in plan.columns if c in pdf.columns])]
    if len(pdf) == 0:
        return meta
    out = pd.DataFrame(per_group_table(pdf, plan))
    return out.reset_index() if flat else out


def per_group(ddf: Any, plan: Plan, options: dict[str, Any]) -> Any:
    """Nothing is computed: the rows are shuffled by group key and every partition builds its
    groups' table. Missing values under ``nan_policy="raise"`` raise when the result is computed,
    with the count of the partition that holds them."""
    ddf = _with_index(ddf, plan.columns)
    meta = schema(ddf)
    keys = list(plan.group)
    out_meta = pd.DataFrame(
        {
            **{k: pd.Series(dtype=meta[k].dtype) for k in keys},
            "n": pd.Series(dtype=np.int64),
            "positives": pd.Series(dtype=np.int64),
            **{n: pd.Series(dtype=np.float64) for n in display_names(plan)},
            "weight": pd.Series(dtype=np.float64),
        }
    )
    flat = len(keys) > 1
    if not flat:
        out_meta = out_meta.set_index(keys[0])
    return _shuffled(ddf, plan, options.get("npartitions")).map_partitions(
        _per_group_part, plan, out_meta, flat, meta=out_meta
    )
