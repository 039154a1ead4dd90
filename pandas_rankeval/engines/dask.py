"""The metrics of :mod:`pandas_rankeval` on a Dask DataFrame, exact, at any number of groups.

This module is an adapter to the summary layer (:mod:`pandas_rankeval._summary`), the code that
pandas itself runs: it only decides how whole groups get into a partition and how the partitions'
summaries are added up. It computes no metric of its own.

How a call runs
---------------
1. **Checks from metadata** (``ddf.dtypes``), before any compute: missing columns, text scores or
   labels, bad options raise the errors :mod:`pandas_rankeval` raises.
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
   (and tie-break and segment), and the group pass runs again with the placement columns, so
   ``summarize`` adds the per-segment DeLong moments. The interval and p-values equal pandas'.

So a call reads its input at most twice (once without global AUC), and three times for an
interval or test of global AUC: a report of M >= 2 score columns reads it at most M + 1 times,
as the issue requires; a report or compare of ONE score column with ``ci=`` and ``"auc"`` reads
it three times (M + 2).

Options not offered here raise a ``ValueError`` that names them before any compute (never an
approximation): ``max_fpr`` of global AUC; a bootstrap interval / test of global AUC
(``auc_method="bootstrap"`` or ``ties`` other than ``"expected"``: it needs a resampled count per
distinct score); ``resample="multinomial"``.

Every function also exists as ``ddf.rank.<name>`` and ``ddf.rankeval.<name>`` once this module
is imported (``import pandas_rankeval`` imports it when Dask is already loaded). Requires the
optional ``dask[dataframe]`` extra (``pip install 'pandas_rankeval[dask]'``).
"""

from __future__ import annotations

import dataclasses
import operator
from collections import defaultdict
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import pandas as pd

from pandas_rankeval import summary as S
from pandas_rankeval.inference import hashing as H
from pandas_rankeval.tables import finalize
from pandas_rankeval.accessor import METHODS, _Forward
from pandas_rankeval.core.options import WeightLike, check_weight_name
from pandas_rankeval.core.prepare import label_levels
from pandas_rankeval.core.registry import MetricSpec, parse_metrics
from pandas_rankeval.core.result import MetricResult
from pandas_rankeval.core.validation import check_column_name, check_columns, check_k, missing_mask, numeric_values

__all__ = [
    "auc",
    "gauc",
    "mrr",
    "ndcg",
    "average_precision",
    "map",
    "precision",
    "recall",
    "hit_rate",
    "per_group",
    "report",
    "compare",
    "DaskRankevalNamespace",
]

Ties = Literal["expected", "pessimistic", "optimistic"]
Empty = Literal["zero", "skip", "error"]
NanPolicy = Literal["raise", "omit"]
GroupLike = Hashable | Sequence[Hashable]


def _dd() -> Any:
    try:
        import dask.dataframe as dd
    except ImportError as exc:  # pragma: no cover - exercised only without dask
        raise ImportError(
            "pandas_rankeval.dask needs dask: pip install 'pandas_rankeval[dask]'"
        ) from exc
    return dd


# --------------------------------------------------------------------------- #
# Checks from metadata
# --------------------------------------------------------------------------- #
def _meta(ddf: Any, func: str) -> pd.DataFrame:
    """An empty pandas frame with the columns and dtypes of ``ddf`` (no compute)."""
    dd = _dd()
    if not isinstance(ddf, dd.DataFrame):
        hint = (
            f" For a pandas DataFrame use pandas_rankeval.{func.split('.')[-1]}, or wrap it with "
            "dask.dataframe.from_pandas(df, npartitions=...)."
            if isinstance(ddf, pd.DataFrame)
            else ""
        )
        raise TypeError(
            f"{func} expects a Dask DataFrame as its first argument; got {type(ddf).__name__}.{hint}"
        )
    dtypes = ddf.dtypes
    # by position: a repeated column name stays repeated, for the pandas error that counts it
    meta = pd.DataFrame({i: pd.Series(dtype=t) for i, t in enumerate(dtypes.to_numpy())})
    meta.columns = dtypes.index
    name = ddf.index.name
    if name is not None and name not in meta.columns:  # group= / by= may name the index, as in pandas
        meta[name] = pd.Series(dtype=ddf.index.dtype)
    return meta


def _with_index(ddf: Any, columns: Sequence[Hashable]) -> Any:
    """The frame with its index as a column when the call names the index (as pandas allows)."""
    name = ddf.index.name
    if name is not None and name in columns and name not in ddf.columns:
        return ddf.reset_index()
    return ddf


# --------------------------------------------------------------------------- #
# Adding summaries up on the workers
# --------------------------------------------------------------------------- #
def _tree(items: list[Any], combine: Callable[[Any, Any], Any]) -> Any:
    """A binary tree of delayed ``combine`` calls over ``items``: depth log2(len(items))."""
    from dask import delayed

    while len(items) > 1:
        items = [
            delayed(combine, pure=True)(items[i], items[i + 1]) if i + 1 < len(items) else items[i]
            for i in range(0, len(items), 2)
        ]
    return items[0]


def _group_part(pdf: pd.DataFrame, plan: Any, sample: tuple[Hashable, ...]) -> tuple[Any, dict[int, np.ndarray]]:
    """One partition of whole groups -> its summary, and a sample of its scores for the score pass."""
    return S.summarize(pdf, plan), _sample_scores(pdf, sample)


def _add(a: tuple[Any, dict[int, np.ndarray]], b: tuple[Any, dict[int, np.ndarray]]) -> tuple[Any, dict[int, np.ndarray]]:
    return a[0] + b[0], _merge_samples(a[1], b[1])


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
    AUC alone needs only row counts, so its partitions are summarized where they are.
    """
    import dask
    from dask import delayed

    if plan.specs or plan.by or plan.placement_columns:  # DeLong moments need whole groups
        parts = _shuffled(ddf, plan, npartitions).to_delayed()
        part_plan = plan
    else:
        parts = ddf[list(plan.columns)].to_delayed()
        # rows, relevant rows and missing values are all global AUC's coverage needs: the
        # summary of a plan without group metrics and segments takes any partition of rows
        part_plan = plan
    plan_d = delayed(part_plan, pure=True)  # one key: a weight Series travels once, not per task
    root = _tree([delayed(_group_part, pure=True)(p, plan_d, sample) for p in parts], _add)
    ((summary, samples),) = dask.compute(root)
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
    tb = [_T] if job.tiebreak is not None else []
    frame = pdf.astype({_P: count, _N: count})
    g = frame.groupby([_R, *job.by, _S, *tb], sort=False, observed=True, dropna=False)[[_P, _N]].sum()
    out = []
    for key, block in g.reset_index().groupby([_R, *job.by], sort=False, observed=True, dropna=False):
        # worst first: ascending score; inside a score a higher tie-break value ranks lower
        block = block.sort_values([_S, *tb], ascending=[True] + [False] * len(tb), kind="stable")
        counts = S.auc_counts_sorted(block[_P].to_numpy(), block[_N].to_numpy())
        key = key if isinstance(key, tuple) else (key,)
        out.append((int(key[0]), tuple(key[1:]), counts))
    return out


def _placement_part(pdf: pd.DataFrame, job: _AucJob, n_ranges: int, offsets: dict, meta: pd.DataFrame) -> pd.DataFrame:
    """Global DeLong placements (``_A`` for a relevant row, ``_B`` for a non-relevant one) of every
    distinct key of one partition of the range shuffle, in the order of :func:`_range_counts`."""
    if len(pdf) == 0:
        return meta
    count = np.float64 if job.sample_weight is not None else np.int64
    tb = [_T] if job.tiebreak is not None else []
    frame = pdf.astype({_P: count, _N: count})
    g = frame.groupby([_R, *job.by, _S, *tb], sort=False, observed=True, dropna=False)[[_P, _N]].sum()
    out = []
    for key, block in g.reset_index().groupby([_R, *job.by], sort=False, observed=True, dropna=False):
        block = block.sort_values([_S, *tb], ascending=[True] + [False] * len(tb), kind="stable")
        key = key if isinstance(key, tuple) else (key,)
        rid = int(key[0])
        a, b = S.placements_sorted(block[_P].to_numpy(), block[_N].to_numpy(), *offsets[(rid, tuple(key[1:]))])
        block = block.drop(columns=[_P, _N])
        block[_ID] = rid // n_ranges
        block[_A], block[_B] = a, b
        out.append(block)
    return pd.concat(out, ignore_index=True)[list(meta.columns)].astype(meta.dtypes.to_dict())


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
    ddf: Any, job: _AucJob, samples: dict[int, np.ndarray], npartitions: int | None, placements: bool = False
) -> tuple[dict[tuple[Any, Hashable], Any], Any]:
    """Read the input once more: exact global-AUC counts of every (segment, score column).

    With ``placements`` the range shuffle is persisted and a lazy table of every distinct key's
    global DeLong placements is returned too (else None)."""
    import dask
    from dask import delayed

    n_ranges = npartitions or ddf.npartitions
    cuts = [_cuts(samples.get(i, _NO_KEYS), n_ranges) for i in range(len(job.scores))]
    extra = [c for c in (job.label, *job.scores, job.tiebreak, job.sample_weight, *job.by) if c is not None]
    cols = list(dict.fromkeys([*job.columns, *extra]))
    meta = _counts_meta(ddf.dtypes, job)
    counted = ddf[cols].map_partitions(_count_distinct, job, cuts, n_ranges, meta, meta=meta)
    ranged = counted.shuffle(on=_R, npartitions=n_ranges, shuffle_method=_shuffle_method(counted))
    if placements:
        ranged = ranged.persist()
    parts = dask.compute(*[delayed(_range_counts, pure=True)(p, job) for p in ranged.to_delayed()])
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
    return out, ranged.map_partitions(_placement_part, job, n_ranges, offsets, pmeta, meta=pmeta)


# --------------------------------------------------------------------------- #
# ddf.rank / ddf.rankeval
# --------------------------------------------------------------------------- #
class DaskRankevalNamespace:
    """The functions of :mod:`pandas_rankeval.dask` bound to a Dask DataFrame.

    Reached as ``ddf.rank`` or ``ddf.rankeval`` (Dask DataFrames have no ``rank`` method of their
    own, so nothing is shadowed). ``ddf.rank.gauc(group=..., label=..., score=...)`` is
    ``pandas_rankeval.dask.gauc(ddf, group=..., label=..., score=...)``, and ``ddf.rank.map`` is
    :func:`average_precision`.

    Examples
    --------
    >>> import dask.dataframe as dd
    >>> import pandas_rankeval as pre
    >>> import pandas_rankeval.dask
    >>> df = pre.datasets.make_impressions(n_users=200, seed=3)
    >>> ddf = dd.from_pandas(df, npartitions=3)
    >>> g = ddf.rank.gauc(group="user_id", label="click", score="model_b")
    >>> abs(g - pre.gauc(df, group="user_id", label="click", score="model_b")) < 1e-12
    True
    >>> "ndcg" in dir(ddf.rankeval)
    True
    """

    __slots__ = ("_obj",)

    def __init__(self, obj: Any) -> None:
        self._obj = obj  # never raises: Dask builds a namespace on every attribute access

    def __repr__(self) -> str:
        return (
            f"<pandas_rankeval namespace of a Dask DataFrame with {self._obj.npartitions} partitions; "
            f"use one of: {', '.join(METHODS)}>"
        )

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        raise AttributeError(
            f"{type(self).__name__!r} object has no attribute {name!r}. The metrics are: {', '.join(METHODS)}."
        )


for _method, _target in METHODS.items():
    setattr(DaskRankevalNamespace, _method, _Forward(_method, _target, module=__name__))
del _method, _target


def _register() -> None:
    """Install ``ddf.rank`` and ``ddf.rankeval`` on Dask DataFrames (idempotent)."""
    dd = _dd()
    from dask.dataframe.extensions import register_dataframe_accessor

    for name in ("rank", "rankeval"):
        if getattr(dd.DataFrame, name, None) is not DaskRankevalNamespace:
            register_dataframe_accessor(name)(DaskRankevalNamespace)


_register()


# --------------------------------------------------------------------------- #
# One call: plan and checks on the client, one or two passes, finalize on the client
# --------------------------------------------------------------------------- #
def _check_schema(meta: pd.DataFrame, plan: Any) -> None:
    """The errors pandas raises before it reads a value, from the column names and dtypes."""
    weight_column = check_weight_name(plan.options.weight, meta.columns, plan.func, plan.group or None)
    check_columns(meta, plan.columns)
    numeric_values(meta[plan.label], plan.label, "label", keep_int=True)
    for s in plan.scores:
        numeric_values(meta[s], s, "score", keep_float32=True, keep_int64=True)
    for c in (plan.options.sample_weight, weight_column):
        if c is not None:
            numeric_values(meta[c], c, "weight")


def _check_npartitions(npartitions: Any, func: str) -> None:
    if npartitions is not None and (
        isinstance(npartitions, bool) or not isinstance(npartitions, int) or npartitions < 1
    ):
        raise ValueError(
            f"The 'npartitions' parameter of {func} must be an int in the range [1, inf) or None. "
            f"Got {npartitions!r} instead."
        )


def _check_distributable(plan: Any) -> None:
    """Options whose exact value is not a sum over partitions raise here, before any compute."""
    if plan.resample != "poisson" and (plan.kind == "compare" or plan.ci is not None):
        raise ValueError(
            f"{plan.func}: resample='multinomial' has no distributed form: it draws exactly as "
            "many groups as there are, from all of them in one place. Use the default "
            "resample='poisson' (hashed per group: the same interval as pandas for the same seed)."
        )
    if not plan.has_auc:
        return
    if plan.options.max_fpr is not None:
        raise ValueError(
            f"{plan.func}: max_fpr (the partial AUC of global AUC) has no exact distributed form: "
            "it needs the ROC curve of every row in one place. Compute it on a sample with "
            "pandas_rankeval.auc(df, ..., max_fpr=...), or drop max_fpr."
        )
    if (plan.kind == "compare" or plan.ci is not None) and not plan.auc_delong:
        what = "compare" if plan.kind == "compare" else "ci (an interval)"
        raise ValueError(
            f"{plan.func}: a bootstrap {what} of global 'auc' is not offered on Dask (auc_method="
            f"{plan.auc_method!r}"
            f"{'' if plan.options.ties == 'expected' else f', ties={plan.options.ties!r}'}): it "
            "needs a resampled count per distinct score. Use auc_method='delong' with "
            "ties='expected' (the clustered DeLong interval and test, the pandas default), or leave "
            "'auc' out of metrics (GAUC and the list metrics are resampled exactly)."
        )


def _auc_job(plan: Any) -> _AucJob:
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


def _run(ddf: Any, func: str, npartitions: int | None, **kwargs: Any) -> Any:
    """Plan and check on the client (no data), read the input once or twice, finalize."""
    name = f"dask.{func}"
    meta = _meta(ddf, name)
    _check_npartitions(npartitions, name)
    if kwargs.get("resample", "poisson") is None:
        kwargs["resample"] = "poisson"  # the pandas default: the hashed bootstrap
    plan = S.make_plan(name, df=meta, **kwargs)
    _check_schema(meta, plan)
    _check_distributable(plan)
    ddf = _with_index(ddf, plan.columns)
    job = _auc_job(plan) if plan.has_auc else None
    summary, samples = _group_pass(ddf, plan, npartitions, job.scores if job else ())
    S._raise_input_errors(summary, plan)  # whole-table counts, before the score pass
    delong = bool(job and plan.auc_delong and (plan.kind == "compare" or plan.ci is not None))
    auc, table = _score_pass(ddf, job, samples, npartitions, delong) if job else (None, None)
    if delong:  # a third read: every row's global placement, merged in, then the groups again
        rows, names = _with_placements(ddf, plan, job, table)
        plan = dataclasses.replace(plan, placement_columns=tuple(names))
        summary, _ = _group_pass(rows, plan, npartitions, ())
    return finalize(summary, plan, auc=auc)


# --------------------------------------------------------------------------- #
# The public functions: the pandas signatures, plus ``npartitions``
# --------------------------------------------------------------------------- #
_NPARTITIONS = """    npartitions : int, optional
        Partitions of the shuffle by group and of the score ranges of global AUC; default: the
        input's number of partitions."""

_EXAMPLE = """    >>> import dask.dataframe as dd
    >>> import pandas_rankeval as pre
    >>> import pandas_rankeval.dask as prd
    >>> df = pre.datasets.make_impressions(n_users=200, seed=3)
    >>> ddf = dd.from_pandas(df, npartitions=4)
"""


def auc(
    ddf: Any,
    *,
    label: Hashable,
    score: Hashable,
    sample_weight: Hashable | None = None,
    ties: Ties = "expected",
    tiebreak: Hashable | None = None,
    threshold: float | None = None,
    max_fpr: float | None = None,
    nan_policy: NanPolicy = "raise",
    npartitions: int | None = None,
) -> MetricResult:
    """Global AUC of a Dask DataFrame, exact (:func:`pandas_rankeval.auc`).

    Parameters
    ----------
    ddf : dask.dataframe.DataFrame
        One row per shown item.
    label, score, sample_weight, ties, tiebreak, threshold, nan_policy :
        As in :func:`pandas_rankeval.auc`.
    max_fpr : None
        Not offered on Dask (the partial AUC has no exact distributed form): any other value
        raises a ``ValueError`` before any compute.
{npartitions}

    Returns
    -------
    auc : MetricResult
        The same value (to 1e-12), coverage and warnings as :func:`pandas_rankeval.auc`.

    Notes
    -----
    Reads the input twice: once to count rows and missing values and to sample the scores, once
    to count (relevant, non-relevant) rows per distinct score, which are then range-partitioned
    and chained in score order in exact integers.

    Examples
    --------
{example}    >>> a = prd.auc(ddf, label="click", score="model_a")
    >>> abs(a - pre.auc(df, label="click", score="model_a")) < 1e-12
    True
    """
    return _run(
        ddf, "auc", npartitions, kind="metric", metrics=MetricSpec("auc", None), group=None,
        label=label, scores=score, sample_weight=sample_weight, ties=ties, tiebreak=tiebreak,
        threshold=threshold, max_fpr=max_fpr, nan_policy=nan_policy,
    )


def gauc(
    ddf: Any,
    *,
    group: GroupLike,
    label: Hashable,
    score: Hashable,
    weight: WeightLike = None,
    min_size: int | None = None,
    min_pos: int | None = None,
    min_neg: int | None = None,
    sample_weight: Hashable | None = None,
    ties: Ties = "expected",
    tiebreak: Hashable | None = None,
    threshold: float | None = None,
    engine: Literal["numpy", "sklearn"] = "numpy",
    max_fpr: float | None = None,
    nan_policy: NanPolicy = "raise",
    progress: bool = False,
    npartitions: int | None = None,
) -> MetricResult:
    """Group AUC of a Dask DataFrame (:func:`pandas_rankeval.gauc`).

    Parameters
    ----------
    ddf : dask.dataframe.DataFrame
        One row per shown item.
    group, label, score, weight, min_size, min_pos, min_neg, sample_weight, ties, tiebreak, threshold, engine, max_fpr, nan_policy, progress :
        As in :func:`pandas_rankeval.gauc`. A weight callable runs once per partition on that
        partition's groups (their ``n``, ``positives``, ``negatives``), so it must give each group
        a weight from that group's own statistics. A weight Series is sent to the workers once.
{npartitions}

    Returns
    -------
    gauc : MetricResult
        The same value (to 1e-12), coverage and warnings as :func:`pandas_rankeval.gauc`.

    Examples
    --------
{example}    >>> g = prd.gauc(ddf, group="user_id", label="click", score="model_b")
    >>> abs(g - pre.gauc(df, group="user_id", label="click", score="model_b")) < 1e-12
    True
    >>> g.coverage == pre.gauc(df, group="user_id", label="click", score="model_b").coverage
    True
    """
    return _run(
        ddf, "gauc", npartitions, kind="metric", metrics=MetricSpec("gauc", None), group=group,
        label=label, scores=score, weight=weight,
        min_size=min_size, min_pos=min_pos, min_neg=min_neg, sample_weight=sample_weight, ties=ties,
        tiebreak=tiebreak, threshold=threshold, engine=engine, max_fpr=max_fpr,
        nan_policy=nan_policy, progress=progress,
    )


def _list_doc(name: str, pandas_name: str, params: str, example: str) -> str:
    return f"""{name} of a Dask DataFrame (:func:`pandas_rankeval.{pandas_name}`).

    Parameters
    ----------
    ddf : dask.dataframe.DataFrame
        One row per shown item.
    {params} :
        As in :func:`pandas_rankeval.{pandas_name}` (a weight callable: see :func:`gauc`).
{_NPARTITIONS}

    Returns
    -------
    {pandas_name} : MetricResult
        The same value (to 1e-12), coverage and warnings as :func:`pandas_rankeval.{pandas_name}`.

    Examples
    --------
{_EXAMPLE}{example}"""


def mrr(
    ddf: Any,
    *,
    group: GroupLike,
    label: Hashable,
    score: Hashable,
    k: int | None = None,
    weight: WeightLike = None,
    ties: Ties = "expected",
    tiebreak: Hashable | None = None,
    threshold: float | None = None,
    empty: Empty = "zero",
    nan_policy: NanPolicy = "raise",
    npartitions: int | None = None,
) -> MetricResult:
    return _run(
        ddf, "mrr", npartitions, kind="metric", metrics=MetricSpec("mrr", check_k(k, "dask.mrr")),
        group=group, label=label, scores=score, weight=weight, ties=ties,
        tiebreak=tiebreak, threshold=threshold, empty=empty, nan_policy=nan_policy,
    )


def ndcg(
    ddf: Any,
    *,
    group: GroupLike,
    label: Hashable,
    score: Hashable,
    k: int | None = None,
    gain: Literal["exp2", "linear"] = "exp2",
    weight: WeightLike = None,
    ties: Ties = "expected",
    tiebreak: Hashable | None = None,
    threshold: float | None = None,
    empty: Empty = "zero",
    nan_policy: NanPolicy = "raise",
    npartitions: int | None = None,
) -> MetricResult:
    return _run(
        ddf, "ndcg", npartitions, kind="metric", metrics=MetricSpec("ndcg", check_k(k, "dask.ndcg")),
        group=group, label=label, scores=score, gain=gain, weight=weight,
        ties=ties, tiebreak=tiebreak, threshold=threshold, empty=empty, nan_policy=nan_policy,
    )


def average_precision(
    ddf: Any,
    *,
    group: GroupLike,
    label: Hashable,
    score: Hashable,
    k: int | None = None,
    denominator: Literal["relevant", "min_k"] = "relevant",
    weight: WeightLike = None,
    ties: Ties = "expected",
    tiebreak: Hashable | None = None,
    threshold: float | None = None,
    empty: Empty = "zero",
    nan_policy: NanPolicy = "raise",
    npartitions: int | None = None,
) -> MetricResult:
    return _run(
        ddf, "average_precision", npartitions, kind="metric",
        metrics=MetricSpec("map", check_k(k, "dask.average_precision")), group=group, label=label, scores=score,
        denominator=denominator, weight=weight, ties=ties, tiebreak=tiebreak, threshold=threshold,
        empty=empty, nan_policy=nan_policy,
    )


def _cutoff(kind: str) -> Callable[..., MetricResult]:
    def metric(
        ddf: Any,
        *,
        group: GroupLike,
        label: Hashable,
        score: Hashable,
        k: int = 10,
        weight: WeightLike = None,
        ties: Ties = "expected",
        tiebreak: Hashable | None = None,
        threshold: float | None = None,
        empty: Empty = "zero",
        nan_policy: NanPolicy = "raise",
        npartitions: int | None = None,
    ) -> MetricResult:
        return _run(
            ddf, kind, npartitions, kind="metric",
            metrics=MetricSpec(kind, check_k(k, f"dask.{kind}", allow_none=False)),
            group=group, label=label, scores=score, weight=weight,
            ties=ties, tiebreak=tiebreak, threshold=threshold, empty=empty, nan_policy=nan_policy,
        )

    metric.__name__ = metric.__qualname__ = kind
    return metric


precision = _cutoff("precision")
recall = _cutoff("recall")
hit_rate = _cutoff("hit_rate")

_LIST = "group, label, score, k, weight, ties, tiebreak, threshold, empty, nan_policy"
for _f, _title, _params, _ex in (
    (mrr, "Mean reciprocal rank", _LIST, "mrr"),
    (ndcg, "NDCG@k", _LIST.replace("k,", "k, gain,"), "ndcg"),
    (average_precision, "Mean average precision", _LIST.replace("k,", "k, denominator,"), "average_precision"),
    (precision, "Precision at k", _LIST, "precision"),
    (recall, "Recall at k", _LIST, "recall"),
    (hit_rate, "Hit rate at k", _LIST, "hit_rate"),
):
    _f.__doc__ = _list_doc(
        _title,
        _ex,
        _params,
        f"""    >>> v = prd.{_ex}(ddf, group="user_id", label="click", score="model_a")
    >>> abs(v - pre.{_ex}(df, group="user_id", label="click", score="model_a")) < 1e-12
    True
""",
    )
del _f, _title, _params, _ex

#: ``map`` is the usual name of mean average precision.
map = average_precision  # noqa: A001 - deliberate, as pandas_rankeval.map

for _f in (auc, gauc):
    _f.__doc__ = (_f.__doc__ or "").replace("{npartitions}", _NPARTITIONS).replace("{example}", _EXAMPLE)
del _f


def report(
    ddf: Any,
    *,
    group: GroupLike,
    label: Hashable,
    scores: Hashable | Sequence[Hashable],
    metrics: str | Sequence[str] = ("auc", "gauc", "mrr", "ndcg@10"),
    by: Hashable | Sequence[Hashable] | None = None,
    weight: WeightLike = None,
    ci: float | None = None,
    auc_method: Literal["delong", "bootstrap"] = "delong",
    ci_method: Literal["percentile", "studentized"] = "percentile",
    n_boot: int = 1000,
    seed: int | None = 0,
    resample: Literal["poisson", "multinomial"] | None = None,
    min_size: int | None = None,
    min_pos: int | None = None,
    min_neg: int | None = None,
    ties: Ties = "expected",
    tiebreak: Hashable | None = None,
    threshold: float | None = None,
    gain: Literal["exp2", "linear"] = "exp2",
    denominator: Literal["relevant", "min_k"] = "relevant",
    empty: Empty = "zero",
    nan_policy: NanPolicy = "raise",
    progress: bool = False,
    npartitions: int | None = None,
) -> Any:
    """:func:`pandas_rankeval.report` of a Dask DataFrame: many metrics, many models, exact.

    Parameters
    ----------
    ddf : dask.dataframe.DataFrame
        One row per shown item.
    group, label, scores, metrics, by, weight, min_size, min_pos, min_neg, ties, tiebreak, threshold, gain, denominator, empty, nan_policy, progress :
        As in :func:`pandas_rankeval.report` (a weight callable: see :func:`gauc`).
    ci, auc_method, ci_method, n_boot, seed, resample :
        As in :func:`pandas_rankeval.report`: the hashed group bootstrap, whose replicate weights
        come from (seed, group key), so the interval equals the pandas one for the same seed,
        whatever the partitioning. ``resample="multinomial"`` (a draw of exactly as many groups
        as there are, in one place) is not offered and raises. With global ``"auc"`` in
        ``metrics`` the clustered DeLong interval (``auc_method="delong"``, ``ties="expected"``)
        equals pandas'; its bootstrap interval (``auc_method="bootstrap"`` or another tie rule)
        is not a sum over partitions and raises before any compute.
{npartitions}

    Returns
    -------
    report : ResultTable
        The same table (values to 1e-12, coverage columns, footer, warnings) as
        :func:`pandas_rankeval.report`.

    Notes
    -----
    **Passes.** A report of M score columns reads the input at most M + 1 times; in fact twice
    when ``metrics`` holds global ``"auc"`` (the group pass, then one score pass for every
    column at once) and once otherwise; three times with ``ci=`` and global ``"auc"`` (the
    placement pass, see the module docstring). Client memory does not grow with the number of groups.

    Examples
    --------
{example}    >>> kw = dict(group="user_id", label="click", scores=["model_a", "model_b"],
    ...           metrics=["auc", "gauc", "ndcg@10"])
    >>> dist, local = prd.report(ddf, **kw), pre.report(df, **kw)
    >>> bool(((dist[["auc", "gauc", "ndcg@10"]] - local[["auc", "gauc", "ndcg@10"]]).abs() < 1e-12).all().all())
    True
    """
    return _run(
        ddf, "report", npartitions, kind="report", group=group, label=label, scores=scores, metrics=metrics, by=by,
        weight=weight, ci=ci, auc_method=auc_method, ci_method=ci_method, n_boot=n_boot, seed=seed, resample=resample, min_size=min_size, min_pos=min_pos,
        min_neg=min_neg, ties=ties, tiebreak=tiebreak, threshold=threshold, gain=gain,
        denominator=denominator, empty=empty, nan_policy=nan_policy, progress=progress,
    )


def compare(
    ddf: Any,
    *,
    group: GroupLike,
    label: Hashable,
    scores: Sequence[Hashable],
    baseline: Hashable,
    metrics: str | Sequence[str] = ("auc", "gauc", "mrr", "ndcg@10"),
    by: Hashable | Sequence[Hashable] | None = None,
    ci: float = 0.95,
    n_boot: int = 1000,
    seed: Any = 0,
    method: Literal["auto", "randomization", "bootstrap"] = "auto",
    auc_method: Literal["delong", "bootstrap"] = "delong",
    ci_method: Literal["percentile", "studentized"] = "percentile",
    resample: Literal["poisson", "multinomial"] | None = None,
    alpha: float = 0.05,
    weight: WeightLike = None,
    min_size: int | None = None,
    min_pos: int | None = None,
    min_neg: int | None = None,
    ties: Ties = "expected",
    tiebreak: Hashable | None = None,
    threshold: float | None = None,
    gain: Literal["exp2", "linear"] = "exp2",
    denominator: Literal["relevant", "min_k"] = "relevant",
    empty: Empty = "zero",
    nan_policy: NanPolicy = "raise",
    progress: bool = False,
    npartitions: int | None = None,
) -> Any:
    """:func:`pandas_rankeval.compare` of a Dask DataFrame: paired differences, intervals, tests.

    Parameters
    ----------
    ddf : dask.dataframe.DataFrame
        One row per shown item.
    group, label, scores, baseline, by, ci, n_boot, seed, method, auc_method, ci_method, resample, alpha, weight, min_size, min_pos, min_neg, ties, tiebreak, threshold, gain, denominator, empty, nan_policy, progress :
        As in :func:`pandas_rankeval.compare`, with the hashed group bootstrap and hashed sign
        flips (the same table as pandas for the same seed).
    metrics : str or list of str, default=("auc", "gauc", "mrr", "ndcg@10")
        As in :func:`pandas_rankeval.compare`. Global ``"auc"`` gets pandas' clustered DeLong
        test (``auc_method="delong"``, ``ties="expected"``); its bootstrap test
        (``auc_method="bootstrap"`` or another tie rule) raises before any compute.
{npartitions}

    Returns
    -------
    comparison : ResultTable
        The same table as :func:`pandas_rankeval.compare` (to 1e-12).

    Notes
    -----
    Reads the input once (the group pass carries the bootstrap and sign-flip sums); three times
    with global ``"auc"`` in ``metrics`` (group pass, score pass, placement pass).

    Examples
    --------
{example}    >>> kw = dict(group="user_id", label="click", scores=["model_a", "model_b"],
    ...           baseline="model_a", metrics=["gauc", "mrr"], n_boot=200)
    >>> dist, local = prd.compare(ddf, **kw), pre.compare(df, **kw)
    >>> bool(((dist["diff"] - local["diff"]).abs() < 1e-12).all())
    True
    """
    return _run(
        ddf, "compare", npartitions, kind="compare", group=group, label=label, scores=scores, baseline=baseline,
        metrics=metrics, by=by, ci=ci, n_boot=n_boot, seed=seed, method=method, auc_method=auc_method, ci_method=ci_method, resample=resample, alpha=alpha,
        weight=weight, min_size=min_size, min_pos=min_pos, min_neg=min_neg, ties=ties,
        tiebreak=tiebreak, threshold=threshold, gain=gain, denominator=denominator, empty=empty,
        nan_policy=nan_policy, progress=progress,
    )


for _f in (report, compare):
    _f.__doc__ = (_f.__doc__ or "").replace("{npartitions}", _NPARTITIONS).replace("{example}", _EXAMPLE)
del _f


def _read_columns(kwargs: dict[str, Any], pdf: pd.DataFrame) -> list[Hashable]:
    """The columns a per_group call reads (where a missing value drops the row)."""
    from pandas_rankeval.core.options import WEIGHT_NAMES
    from pandas_rankeval.core.validation import as_columns

    models = [kwargs["score"]] if kwargs.get("scores") is None else list(kwargs["scores"])
    cols = [*as_columns(kwargs["group"], "group", "dask.per_group", pdf), kwargs["label"], *models]
    w = kwargs["weight"]
    if isinstance(w, str) and w not in WEIGHT_NAMES:
        cols.append(w)
    if kwargs["tiebreak"] is not None:
        cols.append(kwargs["tiebreak"])
    return list(dict.fromkeys(cols))


def _per_group_part(pdf: pd.DataFrame, kwargs: dict[str, Any], meta: pd.DataFrame, flat: bool) -> pd.DataFrame:
    """The pandas per-group table of one partition of whole groups.

    Under ``nan_policy="omit"`` a partition may hold only rows with a missing value (the shuffle
    puts rows with a missing key together): it has no group, not an error.
    """
    if len(pdf) and kwargs["nan_policy"] == "omit":
        pdf = pdf.loc[~np.logical_or.reduce([missing_mask(pdf[c]) for c in _read_columns(kwargs, pdf)])]
    if len(pdf) == 0:
        return meta
    from pandas_rankeval.api.metrics import per_group as pandas_per_group

    out = pandas_per_group(pdf, **kwargs)
    return out.reset_index() if flat else out


def per_group(
    ddf: Any,
    *,
    group: GroupLike,
    label: Hashable,
    score: Hashable | None = None,
    scores: Sequence[Hashable] | None = None,
    metrics: str | Sequence[str] = ("auc",),
    weight: WeightLike = None,
    min_size: int | None = None,
    min_pos: int | None = None,
    min_neg: int | None = None,
    ties: Ties = "expected",
    tiebreak: Hashable | None = None,
    threshold: float | None = None,
    gain: Literal["exp2", "linear"] = "exp2",
    denominator: Literal["relevant", "min_k"] = "relevant",
    empty: Empty = "zero",
    nan_policy: NanPolicy = "raise",
    npartitions: int | None = None,
) -> Any:
    """Every metric for every group, as a lazy Dask DataFrame (:func:`pandas_rankeval.per_group`).

    Nothing is computed: the rows are shuffled by group key and every partition runs the pandas
    per-group engine on its whole groups. Compute, persist or write the result as any Dask
    DataFrame; per-group rows never pass through the client unless you ask for them.

    Parameters
    ----------
    ddf : dask.dataframe.DataFrame
        One row per shown item.
    group, label, score, scores, metrics, weight, min_size, min_pos, min_neg, ties, tiebreak, threshold, gain, denominator, empty, nan_policy :
        As in :func:`pandas_rankeval.per_group` (``scores``: one column per model and
        metric, ``"<model>_<metric>"``). Missing values under ``nan_policy="raise"``
        raise when the result is computed (this function reads no data), with the count of the
        partition that holds them.
{npartitions}

    Returns
    -------
    table : dask.dataframe.DataFrame
        The columns of :func:`pandas_rankeval.per_group` (``n``, ``positives``, one per metric,
        ``weight``), indexed by the group key; with several group columns (Dask has no
        MultiIndex) the keys are columns and the index is meaningless. Rows come in partition
        order, not sorted by key.

    Examples
    --------
{example}    >>> table = prd.per_group(ddf, group="user_id", label="click", score="model_a",
    ...                       metrics=["auc", "mrr"])
    >>> local = pre.per_group(df, group="user_id", label="click", score="model_a", metrics=["auc", "mrr"])
    >>> got = table.compute().sort_index()
    >>> bool(((got["mrr"] - local["mrr"]).abs() < 1e-12).all())
    True
    """
    if (score is None) == (scores is None):
        raise ValueError(
            "per_group needs one of 'score' (a column) or 'scores' (a list of columns). "
            f"Got {'both' if score is not None else 'neither'}."
        )
    kwargs: dict[str, Any] = dict(
        group=group, label=label, score=score, scores=scores, metrics=metrics, weight=weight, min_size=min_size,
        min_pos=min_pos, min_neg=min_neg, ties=ties, tiebreak=tiebreak, threshold=threshold,
        gain=gain, denominator=denominator, empty=empty, nan_policy=nan_policy,
    )
    name = "dask.per_group"
    meta = _meta(ddf, name)
    _check_npartitions(npartitions, name)
    specs = [MetricSpec("gauc", None) if sp.kind == "auc" else sp for sp in parse_metrics(metrics)]
    plan_kw = {k: v for k, v in kwargs.items() if k not in ("score", "scores", "metrics")}
    if scores is None:
        check_column_name(score, "score", name, meta)
    models = [score] if scores is None else list(scores)
    plan = S.make_plan(name, kind="report", scores=models if scores is not None else score,
                       metrics=[sp.name for sp in specs], df=meta, **plan_kw)
    _check_schema(meta, plan)
    ddf = _with_index(ddf, plan.columns)
    names = ["auc" if sp.kind == "gauc" else sp.name for sp in plan.specs]
    if scores is not None:
        names = [f"{m}_{n}" for m in models for n in names]
    keys = list(plan.group)
    out_meta = pd.DataFrame(
        {
            **{k: pd.Series(dtype=meta[k].dtype) for k in keys},
            "n": pd.Series(dtype=np.int64),
            "positives": pd.Series(dtype=np.int64),
            **{n: pd.Series(dtype=np.float64) for n in names},
            "weight": pd.Series(dtype=np.float64),
        }
    )
    flat = len(keys) > 1
    if not flat:
        out_meta = out_meta.set_index(keys[0])
    return _shuffled(ddf, plan, npartitions).map_partitions(
        _per_group_part, kwargs, out_meta, flat, meta=out_meta
    )


per_group.__doc__ = (per_group.__doc__ or "").replace("{npartitions}", _NPARTITIONS).replace("{example}", _EXAMPLE)
