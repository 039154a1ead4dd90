"""The pandas engine: the one-partition case of the summary layer.

A pandas call evaluates its frame once (:func:`pandas_rankeval.core.evaluate.evaluate`),
summarizes that one evaluation as one partition, adds the global-AUC pieces from its own sorts
(exact AUC, clustered-DeLong moments, hashed AUC replicates) and finalizes: the same path as
Dask and Spark, so a number cannot differ between engines except by summation order.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..core import ranking as E
from ..core.evaluate import Evaluation, segment_of_groups
from ..core.validation import internal_error
from ..inference import hashing as H
from ..summary.partition import _ensure_group_stats, _segment_keys, summarize_evaluation
from ..summary.plan import Plan
from ..summary.summary import _plain
from ..tables import finalize

__all__ = ["finalize_evaluation", "pandas_extras"]


def _pandas_segments(ev: Evaluation, plan: Plan) -> list[tuple[tuple, np.ndarray | None, np.ndarray | None]]:
    """(segment key, its groups (indices of the per-group arrays), its rows mask) per segment."""
    n_groups = ev.group_stats["n"].shape[0]
    if not plan.by:
        return [((), None, None)]
    seg_index, keys = _segment_keys(ev, plan)
    seg_code = segment_of_groups(ev, plan.by, plan.func)  # per group, the segment code
    segs = ev.prepared.segments
    if segs is None:  # pragma: no cover - by implies segment codes
        raise internal_error("segments need segment codes")
    out = []
    for si, key in enumerate(keys):
        gi = np.flatnonzero(seg_index == si)
        code = seg_code[gi[0]] if gi.shape[0] else -1
        out.append((key, gi, segs.codes == code))
    del n_groups
    return out


def pandas_extras(ev: Evaluation, plan: Plan, key_hashes: np.ndarray | None = None) -> dict[str, Any]:
    """What an engine adds to :func:`finalize` for global AUC, computed from the pandas sorts.

    ``auc``: exact from the one sort of each score column (per segment: the rows of the
    segment in that sort). ``delong``: the clustered-DeLong moments. ``auc_boot``: the
    AUC of every hashed bootstrap replicate, reading the same sort with each row of
    group g weighted by its draw (``AucDesign``).
    """
    out: dict[str, Any] = {}
    if not plan.has_auc:
        return out
    _ensure_group_stats(ev)
    segments = _pandas_segments(ev, plan)
    auc: dict[tuple, float] = {}
    opts = ev.options
    sw = ev.prepared.extra.get(opts.sample_weight) if opts.sample_weight is not None else None
    for key, _, rows in segments:
        for s in plan.scores:
            se = ev.scores[s]
            if rows is None:
                auc[(key, s)] = float(se.metrics["auc"].value)
                continue
            if se.order is None or se.rank is None:
                raise internal_error("segment AUC needs the score order")
            sel = rows[se.order]
            u, wp, wn = E.global_auc(se.order[sel], se.rank[sel], ev.labels.rel, sw)
            auc[(key, s)] = u / (wp * wn) if wp > 0 and wn > 0 else math.nan
    out["auc"] = auc
    interval = plan.ci is not None or plan.kind == "compare"
    if not interval:
        return out
    if plan.auc_delong:
        from pandas_rankeval.inference.delong import segment_moments

        moments = segment_moments(ev, plan.scores, plan.by, plan.func)
        out["delong"] = {tuple(_plain(v) for v in k): G for k, G in moments.items()}
        return out
    if plan.resample != "poisson":  # pragma: no cover - the multinomial path never gets here
        raise internal_error("the hashed AUC replicates need resample='poisson'")
    from pandas_rankeval.inference.bootstrap import Stratum, row_groups

    if key_hashes is None:
        key_hashes = H.key_hash(ev.keys)
    rg = row_groups(ev)
    n_all = ev.group_stats["n"].shape[0]
    items = [(s, "auc") for s in plan.scores]
    boot: dict[tuple, np.ndarray] = {}
    for key, gi, _ in segments:
        groups = np.arange(n_all) if gi is None else gi
        stratum = Stratum(ev, items, groups, rg)
        kh = key_hashes[groups]
        chunk = stratum.chunk_size(plan.n_boot)
        parts = []
        for lo in range(0, plan.n_boot, chunk):
            b = min(chunk, plan.n_boot - lo)
            counts = np.ascontiguousarray(H.poisson_weights(kh, int(plan.seed), b, start=lo).T)  # type: ignore[arg-type]
            parts.append(stratum.values(counts))
        reps = np.concatenate(parts, axis=0)
        for j, s in enumerate(plan.scores):
            boot[(key, s)] = reps[:, j]
    out["auc_boot"] = boot
    return out


def finalize_evaluation(ev: Evaluation, plan: Plan) -> Any:
    """pandas: summarize the one evaluation (one partition), add the AUC pieces, finalize."""
    _ensure_group_stats(ev)
    key_hashes = H.key_hash(ev.keys) if plan.hashed_boot else None
    summary = summarize_evaluation(ev, plan, key_hashes=key_hashes)
    return finalize(summary, plan, **pandas_extras(ev, plan, key_hashes))
