"""Global AUC (and global XAUC) of an evaluation of whole segments: what
:func:`~pandas_rankeval.tables.finalize` adds to the summary (stage 5 of the pipeline), from the
evaluation's own sorts (and rows).

An evaluation that holds every row of each of its segments (a pandas frame, one partition of
whole segments of a partitioned engine: :func:`pandas_rankeval.summary.driver.segment_pass`)
gives every segment's exact global AUC from the one sort of each score column, the
clustered-DeLong moments, and the AUC of every hashed bootstrap replicate
(:func:`evaluation_extras`). Written once here, for every engine; no engine computes them.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..core.ranking.tie_blocks import global_auc_by
from ..core.evaluation.records import Evaluation
from ..core.inputs.validation import internal_error
from ..inference.hashing import key_hash, poisson_weights
from .partition import _segment_keys
from .plan import Plan
from .summary import _plain

__all__ = ["evaluation_extras", "xauc_extras"]


def _pandas_segments(ev: Evaluation, plan: Plan) -> tuple[list[tuple], np.ndarray | None, list[np.ndarray | None]]:
    """The segment keys, every row's segment (index into the keys), and every segment's groups
    (indices of the per-group arrays): one sort, no pass over the rows per segment."""
    if not plan.by:
        return [()], None, [None]
    from ..inference.bootstrap import groups_by_segment

    keys = _segment_keys(ev, plan)[1]  # in the order of the segment codes present
    present, groups = groups_by_segment(ev, plan.by, plan.func)  # that order; each segment's groups
    segs = ev.prepared.segments
    if segs is None:  # pragma: no cover - by implies segment codes
        raise internal_error("segments need segment codes")
    # every row's segment: its code's place among the groups' segment codes
    row_seg = np.minimum(np.searchsorted(present, segs.codes), present.shape[0] - 1)
    if not np.array_equal(present[row_seg], segs.codes):  # pragma: no cover - every row is in a group
        raise internal_error("a row whose segment no group has")
    return keys, row_seg, list(groups)


def evaluation_extras(ev: Evaluation, plan: Plan, key_hashes: np.ndarray | None = None) -> dict[str, Any]:
    """What :func:`~pandas_rankeval.tables.finalize` adds to the summary for global AUC, from the
    sorts of an evaluation of whole segments.

    ``auc``: exact from the one sort of each score column (per segment: the rows of the
    segment in that sort). ``delong``: the clustered-DeLong moments. ``auc_boot``: the
    AUC of every hashed bootstrap replicate, reading the same sort with each row of
    group g weighted by its draw (``AucDesign``).
    """
    out: dict[str, Any] = {}
    if plan.has_xauc:
        out["xauc"] = xauc_extras(ev, plan)
    if not plan.has_auc:
        return out
    if not plan.group:  # global AUC alone: its value from the one sort
        out["auc"] = {((), s): float(ev.scores[s].metrics["auc"].value) for s in plan.scores}
        return out
    keys, row_seg, seg_groups = _pandas_segments(ev, plan)
    auc: dict[tuple, float] = {}
    opts = ev.options
    sw = ev.prepared.extra.get(opts.sample_weight) if opts.sample_weight is not None else None
    for s in plan.scores:
        se = ev.scores[s]
        if row_seg is None:
            auc[((), s)] = float(se.metrics["auc"].value)
            continue
        if se.order is None or se.rank is None:
            raise internal_error("segment AUC needs the score order")
        u, wp, wn = global_auc_by(se.order, se.rank, ev.labels.rel, sw, row_seg, len(keys))
        with np.errstate(invalid="ignore", divide="ignore"):
            value = np.where((wp > 0) & (wn > 0), u / (wp * wn), math.nan)
        for key, v in zip(keys, value.tolist()):
            auc[(key, s)] = v
    out["auc"] = auc
    if not plan.interval:
        return out
    if plan.auc_delong:
        from pandas_rankeval.inference.delong import segment_moments

        moments = segment_moments(ev, plan.scores, plan.by, plan.func)
        out["delong"] = {tuple(_plain(v) for v in k): G for k, G in moments.items()}
        return out
    from pandas_rankeval.inference.bootstrap import (
        Stratum,
        count_chunks,
        row_groups,
        stratum_rng,
    )

    if key_hashes is None and plan.resample == "poisson":
        key_hashes = key_hash(ev.keys)
    rg = row_groups(ev)
    n_all = ev.group_stats["n"].shape[0]
    items = [(s, "auc") for s in plan.scores]
    boot: dict[tuple, np.ndarray] = {}
    for si, (key, gi) in enumerate(zip(keys, seg_groups)):
        groups = np.arange(n_all) if gi is None else gi
        stratum = Stratum(ev, items, groups, rg)
        chunk = stratum.chunk_size(plan.n_boot)
        parts = []
        if plan.resample == "poisson":  # the draws of the group sums, from the same hash
            kh = key_hashes[groups]  # type: ignore[index]
            for lo in range(0, plan.n_boot, chunk):
                b = min(chunk, plan.n_boot - lo)
                counts = np.ascontiguousarray(poisson_weights(kh, int(plan.seed), b, start=lo).T)  # type: ignore[arg-type]
                parts.append(stratum.values(counts))
        else:  # the counts of the group sums, drawn again from the segment's stream
            for _, counts in count_chunks(stratum_rng(plan.streams[0], si), stratum.n, plan.n_boot, chunk):
                parts.append(stratum.values(counts))
        reps = np.concatenate(parts, axis=0)
        for j, s in enumerate(plan.scores):
            boot[(key, s)] = reps[:, j]
    out["auc_boot"] = boot
    return out


def xauc_extras(ev: Evaluation, plan: Plan) -> dict[tuple, Any]:
    """Global XAUC of every segment (``()`` without ``by``) from the evaluation's rows:
    ``{segment key: XaucRows}``, with the clustered DeLong covariance over the call's groups (each
    row its own cluster without a group) when an interval or a test is asked for
    (:func:`pandas_rankeval.inference.xauc_delong.xauc_rows`, as ``xauc_interval`` computes it)."""
    from ..inference.xauc_delong import XaucRows, xauc_rows

    counted = None
    if not plan.by:  # the whole table's value: the pipeline's own count of each column
        gv = [ev.scores[s].metrics["xauc"] for s in plan.scores]
        values = np.array([[g.value for g in gv]], dtype=np.float64)
        used = np.array([bool(gv[0].coverage.n_used)])
        if not plan.interval:
            return {(): XaucRows(values[0], bool(used[0]), int(ev.labels.level.shape[0]))}
        counted = (values, used)
    opts = ev.options
    sw = ev.prepared.extra.get(opts.sample_weight) if opts.sample_weight is not None else None
    keys: list[tuple] = [()]
    row_seg: np.ndarray | None = None
    cluster: np.ndarray | None = None
    if plan.group:
        from ..inference.bootstrap import row_groups

        keys, row_seg, _ = _pandas_segments(ev, plan)
        cluster = row_groups(ev)
    scores = [ev.prepared.scores[s] for s in plan.scores]
    stats = xauc_rows(ev.labels.level, scores, sw, cluster, row_seg, len(keys), plan.interval, counted)
    return dict(zip(keys, stats))
