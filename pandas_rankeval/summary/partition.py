"""One partition of whole groups -> one :class:`~.summary.Summary` (stage 4 of the pipeline).

:func:`summarize` runs the same vectorized evaluation as pandas
(:func:`pandas_rankeval.core.evaluation.pipeline.evaluate`) on a partition and reduces it to additive sums;
:func:`summarize_evaluation` does the same for an evaluation already made (pandas, the
one-partition case). :func:`summary_of_counts` builds the group-less summary of global AUC alone
from counts an engine already has. The replicate sums (bootstrap, sign flips) are in
:mod:`.replicate_sums`, the counting of bad values in :mod:`.problems`. This module imports
neither dask nor pyspark.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Hashable, Mapping
from typing import Any

import numpy as np
import pandas as pd

from ..core.metrics.coverage import eligibility
from ..core.evaluation.pipeline import evaluate
from ..core.evaluation.records import Evaluation, segment_of_groups
from ..core.evaluation.reductions import row_groups
from ..core.metrics.definitions import xauc_label_pairs
from ..core.inputs.prepare import rows_per_segment, segment_tuples
from ..core.inputs.validation import InputProblem, internal_error, missing_mask
from ..inference.hashing import key_hash
from ..inference.pvalues import HIST_K, TOP_K, signflip_sums, signflip_terms
from .plan import COUNTER_INDEX, COUNTERS, Plan
from .problems import _count_problems, mixed_by_counts, problem_counts
from .replicate_sums import _replicate_sums
from .summary import Summary, _seg_zero, _shape, empty_summary

__all__ = ["GroupInputs", "summarize", "summarize_evaluation", "summarize_groups", "summary_of_auc", "summary_of_counts"]


def _segment_keys(ev: Evaluation, plan: Plan) -> tuple[np.ndarray, list[tuple]]:
    """Per group (ascending code), the index of its segment; and the segment keys."""
    n_groups = ev.group_stats["n"].shape[0]
    if not plan.by:
        return np.zeros(n_groups, dtype=np.int64), [()]
    seg = segment_of_groups(ev, plan.by, plan.func)
    present, inv = np.unique(seg, return_inverse=True)
    segs = ev.prepared.segments
    if segs is None:
        raise internal_error("segments need segment codes")
    # plain Python values, level by level (the keys of dropped rows are made the same way)
    return inv.reshape(-1).astype(np.int64), segment_tuples(segs.decode(present))


def _graded_rows(ev: Evaluation) -> np.ndarray | None:
    """Per group (ascending code): rows whose label is neither 0 nor 1, when the labels were read
    as grades (a graded metric, NDCG, is asked for) and any is; else None."""
    values = ev.labels.values
    other = ~np.isin(values, (0.0, 1.0))
    if not other.any():
        return None
    return np.bincount(row_groups(ev), weights=other[ev.labels.level], minlength=ev.group_stats["n"].shape[0])


def _class_weights(ev: Evaluation, plan: Plan) -> tuple[np.ndarray, np.ndarray] | None:
    """Per group (ascending code): summed sample weight of the relevant / other rows."""
    sw_col = plan.options.sample_weight
    if sw_col is None:
        return None
    sw = ev.prepared.extra[sw_col]
    gi = row_groups(ev)
    n_groups = ev.group_stats["n"].shape[0]
    rel = ev.labels.rel
    wpos = np.bincount(gi[rel], weights=sw[rel], minlength=n_groups)
    wneg = np.bincount(gi[~rel], weights=sw[~rel], minlength=n_groups)
    return wpos, wneg


@dataclasses.dataclass
class GroupInputs:
    """What a summary reads of one partition of whole groups, one entry per group (in one order):
    its rows and relevant rows, its segment, each (score, metric item)'s
    :class:`~pandas_rankeval.core.evaluation.GroupValues`, the sample weight of each class, the
    rows whose label is graded; and the group keys (hashed for the bootstrap's draws). The pandas
    pipeline makes them from an :class:`Evaluation`; the warehouse engine from the per-group table
    its SQL returns."""

    n: np.ndarray  # int64
    npos: np.ndarray  # int64
    seg_index: np.ndarray  # int64: the index of each group's segment in seg_keys
    seg_keys: list[tuple]
    metrics: Mapping[Hashable, Mapping[str, Any]]  # score -> item name -> GroupValues
    keys: Any  # a callable that gives the group keys (pd.Index), asked for only to hash them
    n_rows: int
    n_dropped: int
    class_w: tuple[np.ndarray, np.ndarray] | None = None  # summed sample weight of each class
    dropped_by: Mapping[tuple, int] | None = None  # rows dropped per segment key (Summary.dropped_by)
    graded: np.ndarray | None = None  # rows whose label is neither 0 nor 1 (graded plans)
    #: per group: two different labels, and such a pair of positive weight (grouped XAUC's plans)
    ordered: tuple[np.ndarray, np.ndarray] | None = None


def summarize_evaluation(
    ev: Evaluation,
    plan: Plan,
    *,
    missing: dict[Hashable, int] | None = None,
    n_dropped: int | None = None,
    key_hashes: np.ndarray | None = None,
    dropped_by: Mapping[tuple, int] | None = None,
) -> Summary:
    """The summary of an evaluation of whole groups (pandas calls this directly).

    Per-group arrays are reduced per segment as they are made: nothing of size
    (groups x items) is kept, except the distinct weight and weight-times-value
    columns that the hashed bootstrap multiplies by its draws, chunk by chunk.
    A plan without groups (global AUC alone) counts rows, relevant rows and
    sample weights only: any partition of the rows will do.
    """
    if not plan.group:
        return _rows_only(ev, plan, missing, n_dropped)
    stats = ev.group_stats
    seg_index, seg_keys = _segment_keys(ev, plan)
    inputs = GroupInputs(
        n=np.asarray(stats["n"], dtype=np.int64), npos=np.asarray(stats["positives"], dtype=np.int64),
        seg_index=seg_index, seg_keys=seg_keys, metrics={s: ev.scores[s].metrics for s in plan.scores},
        keys=lambda: ev.keys, n_rows=ev.prepared.n_rows,
        n_dropped=ev.prepared.n_dropped if n_dropped is None else n_dropped,
        dropped_by=ev.prepared.dropped_by if dropped_by is None else dropped_by,
        class_w=_class_weights(ev, plan),
        graded=_graded_rows(ev) if any(spec.info.graded for spec in plan.specs) else None,
        ordered=xauc_label_pairs(ev) if any(s.info.eligibility == "ordered" for s in plan.specs) else None,
    )
    return summarize_groups(inputs, plan, missing=missing, key_hashes=key_hashes)


class _BySegment:
    """Per-group arrays of one partition reduced per segment: counts (exact) and float sums."""

    def __init__(self, seg_index: np.ndarray, n_seg: int) -> None:
        self.seg_index, self.n_seg = seg_index, n_seg

    def count(self, mask: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
        """Per segment: groups in ``mask`` (or the sum of int ``weights`` over them), exact."""
        if self.n_seg == 1:  # integers: counted (and summed) in place, no copy of the groups in the mask
            if weights is None:
                return np.array([np.count_nonzero(mask) if mask.dtype == bool else int(mask.sum())], dtype=np.int64)
            if weights.dtype.kind in "iub":
                return np.array([int(np.sum(weights, where=mask, dtype=np.int64))], dtype=np.int64)
            return np.array([int(weights[mask].sum())], dtype=np.int64)
        if weights is None:
            return np.bincount(self.seg_index[mask], minlength=self.n_seg).astype(np.int64)
        # float64 bincount: exact while a segment holds fewer than 2**53 rows
        return np.rint(np.bincount(self.seg_index[mask], weights=weights[mask], minlength=self.n_seg)).astype(np.int64)

    def fsum(self, x: np.ndarray) -> np.ndarray:
        if self.n_seg == 1:
            return np.array([x.sum()])
        return np.bincount(self.seg_index, weights=x, minlength=self.n_seg)


#: The label-only counters of an eligibility rule, each the same for every score column.
_LABEL_ONLY = ("n_only_pos", "n_only_neg", "n_filtered", "rows_filtered", "pos_filtered", "n_empty")


@dataclasses.dataclass
class _ItemSums:
    """Per segment, every item's counters and (weighted sum, weight) of its used groups; the
    per-group columns the replicate sums and the paired differences read."""

    counts: np.ndarray  # (segments, items, counters)
    sums: np.ndarray  # (segments, items, 2)
    num_cols: list[np.ndarray]  # per item, w * v (or the row sums) where used: with replicates only
    den_cols: list[np.ndarray]  # per item, w where used: with replicates only
    used: list[np.ndarray]  # per item: with pairs only
    w: list[np.ndarray]
    v: list[np.ndarray]
    numer: list[np.ndarray | None]


def _label_only_counts(rule: str, g: GroupInputs, opts: Any, seg: _BySegment) -> dict[str, np.ndarray]:
    """An eligibility rule's groups that count by their labels alone, and its counters per segment."""
    n, npos = g.n, g.npos
    e = eligibility(rule, n, npos, opts, ordered=g.ordered)
    return {
        "eligible": e.label_only,
        "n_only_pos": seg.count(e.only_pos),
        "n_only_neg": seg.count(e.only_neg),
        "n_filtered": seg.count(e.filtered),
        "rows_filtered": seg.count(e.filtered, n),
        "pos_filtered": seg.count(e.filtered, npos),
        "n_empty": seg.count(e.empty),
    }


def _item_sums(g: GroupInputs, plan: Plan, seg: _BySegment) -> _ItemSums:
    """Every (score, metric item)'s counters and sums per segment."""
    n, npos = g.n, g.npos
    n_items, n_boot, n_pairs = _shape(plan)
    out = _ItemSums(np.zeros((seg.n_seg, max(n_items, 0), len(COUNTERS)), dtype=np.int64),
                    np.zeros((seg.n_seg, n_items, 2)), [], [], [], [], [], [])
    label_only: dict[str, dict[str, np.ndarray]] = {}
    # the items of a report share their used-group masks and weight arrays (one per eligibility
    # rule and weight option): what reads only those is worked out once per distinct pair of
    # arrays (the memo holds them, so that their ids stay theirs)
    memo: dict[tuple[int, int], tuple[Any, ...]] = {}
    for j, (score, name) in enumerate(plan.items):
        gv = g.metrics[score][name]
        used = np.asarray(gv.used, dtype=bool)
        w = np.asarray(gv.weights, dtype=np.float64)
        v = np.asarray(gv.values, dtype=np.float64)
        shared = memo.get((id(used), id(w)))
        if shared is None:
            wu = np.where(used, w, 0.0)
            skipped = ~used
            # every group used with weight 1: w * v where used is v itself, to the bit
            plain = bool(used.all()) and bool((w == 1.0).all())
            shared = memo[(id(used), id(w))] = (
                used, w, wu, skipped, plain, seg.fsum(wu), seg.count(used), seg.count(skipped, n),
                seg.count(skipped, npos))
        _, _, wu, skipped, plain, sum_wu, n_used, rows_skipped, pos_skipped = shared
        if plain and gv.numer is None and not n_boot:
            out.sums[:, j, 0] = seg.fsum(v)
        else:
            with np.errstate(invalid="ignore"):
                wv = np.where(used, w * v if gv.numer is None else gv.numer, 0.0)
            out.sums[:, j, 0] = seg.fsum(wv)
        out.sums[:, j, 1] = sum_wu
        c = out.counts[:, j]
        c[:, COUNTER_INDEX["n_used"]] = n_used
        c[:, COUNTER_INDEX["rows_skipped"]] = rows_skipped
        c[:, COUNTER_INDEX["pos_skipped"]] = pos_skipped
        rule = gv.spec.info.eligibility
        if rule not in label_only:  # the same for every score column: labels (and weights) only
            label_only[rule] = _label_only_counts(rule, g, plan.options, seg)
        lo = label_only[rule]
        for k in _LABEL_ONLY:
            c[:, COUNTER_INDEX[k]] = lo[k]
        if rule in ("pairs", "ordered"):
            c[:, COUNTER_INDEX["n_zero_weight"]] = seg.count(lo["eligible"] & skipped)  # a class weighs 0 in total
        if n_boot:
            out.num_cols.append(wv)
            out.den_cols.append(wu)
        if n_pairs:
            out.used.append(used)
            out.w.append(w)
            out.v.append(v)
            out.numer.append(gv.numer)
    return out


def _pair_sums(plan: Plan, it: _ItemSums, seg: _BySegment) -> dict[str, Any]:
    """The paired differences of the plan's flip pairs: observed sums, the sign-flip sums of every
    pair (one pair at a time: no groups x pairs matrix), which groups both models use, and each
    pair's per-group differences for the hashed sign flips (``wd_cols``)."""
    n_seg = seg.n_seg
    n_pairs = len(plan.flip_pairs)
    out: dict[str, Any] = {
        "flip_obs": np.zeros((n_seg, n_pairs)), "flip_abs": np.zeros((n_seg, n_pairs)), "sf": None,
        "flip_mismatch": np.zeros((n_seg, n_pairs), dtype=np.int64),
        "pair_used": np.zeros((n_seg, n_pairs), dtype=np.int64), "wd_cols": [],
    }
    if not n_pairs:
        return out
    sf = out["sf"] = {"n": np.zeros((n_seg, n_pairs), dtype=np.int64), "s": np.zeros((n_seg, n_pairs, 3)),
                      "top": np.zeros((n_seg, n_pairs, TOP_K)), "amin": np.full((n_seg, n_pairs), np.inf),
                      "hist": np.zeros((n_seg, n_pairs, 2, HIST_K))}
    keep_wd = plan.monte_carlo and bool(plan.n_replicates)
    col = {item: j for j, item in enumerate(plan.items)}
    for p, (m, b, name) in enumerate(plan.flip_pairs):
        jm, jb = col[(m, name)], col[(b, name)]
        um, ub = it.used[jm], it.used[jb]
        wm, wb = it.w[jm], it.w[jb]
        both = um & ub
        out["flip_mismatch"][:, p] = seg.count((um != ub) | (um & (wm != wb)))
        out["pair_used"][:, p] = seg.count(both)
        nm, nb = it.numer[jm], it.numer[jb]
        if nm is not None and nb is not None:  # row sums over the same denominator: their difference
            wd = signflip_terms(np.ones_like(wm), nm, nb, both)
        else:
            wd = signflip_terms(wm, it.v[jm], it.v[jb], both)  # a difference at float rounding is 0
        one = signflip_sums(wd, seg.seg_index, n_seg)
        for field, arr in sf.items():
            arr[:, p] = one[field][:, 0]
        out["flip_obs"][:, p] = seg.fsum(wd)
        out["flip_abs"][:, p] = seg.fsum(np.abs(wd))
        if keep_wd:
            out["wd_cols"].append(wd)
    return out


def _segment_totals(g: GroupInputs, seg: _BySegment) -> dict[str, np.ndarray]:
    """Per segment: groups, rows, relevant rows, groups without a relevant row, graded rows and
    the summed sample weight of each class (the row counts without sample weights)."""
    n, npos = g.n, g.npos
    every = np.ones(n.shape[0], dtype=bool)
    seg_rows = seg.count(every, n)
    seg_pos = seg.count(every, npos)
    out = {
        "n_groups": seg.count(every), "n_rows": seg_rows, "n_pos": seg_pos, "n_nopos": seg.count(npos == 0),
        "n_graded": seg.count(every, g.graded) if g.graded is not None else np.zeros(seg.n_seg, dtype=np.int64),
    }
    if g.class_w is not None:
        sw_pos, sw_neg = seg.fsum(g.class_w[0]), seg.fsum(g.class_w[1])
    else:
        sw_pos, sw_neg = seg_pos.astype(np.float64), (seg_rows - seg_pos).astype(np.float64)
    out["sw_pos"] = np.asarray(sw_pos, dtype=np.float64)
    out["sw_neg"] = np.asarray(sw_neg, dtype=np.float64)
    return out


def _gram_columns(targets: list, it: _ItemSums) -> list[np.ndarray]:
    """Studentized intervals: per target, the per-group products x x^T (upper triangle) with
    x = [num, den] of its items."""
    gram_cols: list[np.ndarray] = []
    for t in targets:
        x: list[np.ndarray] = []
        for j, _ in t:
            x += [it.num_cols[j], it.den_cols[j]]
        for a, b in zip(*np.triu_indices(len(x))):
            gram_cols.append(x[a] * x[b])
    return gram_cols


def _replicates(
    g: GroupInputs, plan: Plan, seg: _BySegment, it: _ItemSums, gram_cols: list[np.ndarray], q: int,
    wd_cols: list[np.ndarray], key_hashes: np.ndarray | None,
) -> tuple[np.ndarray | None, np.ndarray | None, np.ndarray | None]:
    """The replicate sums (bootstrap, hashed sign flips): ``boot`` (segments, replicates, items,
    2), the sign-flip replicates and the replicates of the gram sums; None without replicates."""
    n_items, n_boot, n_pairs = _shape(plan)
    if not (n_boot and g.n.shape[0]):
        return None, None, None
    targets = plan.targets
    if key_hashes is None and plan.resample == "poisson":
        key_hashes = key_hash(g.keys())
    acc, where, flip_reps = _replicate_sums(
        plan, key_hashes, seg.seg_index, seg.n_seg, it.num_cols + it.den_cols + gram_cols, wd_cols,
        n_pairs if plan.monte_carlo else 0
    )
    # one gather from the distinct columns into the layout (segments, replicates, items, 2)
    boot = acc[:, :, np.stack([where[:n_items], where[n_items : 2 * n_items]], axis=1)]
    boot_gram = None
    if targets:
        boot_gram = acc[:, :, where[2 * n_items :]].reshape(seg.n_seg, n_boot, len(targets), q)
    return boot, flip_reps, boot_gram


def summarize_groups(
    g: GroupInputs,
    plan: Plan,
    *,
    missing: dict[Hashable, int] | None = None,
    key_hashes: np.ndarray | None = None,
) -> Summary:
    """The summary of one partition of whole groups from its :class:`GroupInputs`.

    The stages: every item's counters and sums per segment (:func:`_item_sums`), the paired
    differences (:func:`_pair_sums`), the segment totals (:func:`_segment_totals`), the gram sums
    of studentized intervals, the replicate sums (:func:`_replicates`); then the fields stacked,
    one array per field with the segment first (no loop over segments).
    """
    seg_keys = g.seg_keys
    n_seg = len(seg_keys)
    seg = _BySegment(g.seg_index, n_seg)
    n_items, n_boot, n_pairs = _shape(plan)
    it = _item_sums(g, plan, seg)
    pairs = _pair_sums(plan, it, seg)
    targets = plan.targets
    gram_cols = _gram_columns(targets, it)
    q = (2 * len(targets[0])) * (2 * len(targets[0]) + 1) // 2 if targets else 0
    gram = np.stack([seg.fsum(c) for c in gram_cols], axis=1).reshape(n_seg, len(targets), q) if targets else None
    boot, flip_reps, boot_gram = _replicates(g, plan, seg, it, gram_cols, q, pairs["wd_cols"], key_hashes)

    zero = _seg_zero(n_items, n_boot, n_pairs, plan.monte_carlo)
    given: dict[str, np.ndarray | None] = {
        **_segment_totals(g, seg), "counts": it.counts, "sums": it.sums, "boot": boot,
        "flip_obs": pairs["flip_obs"], "flip_abs": pairs["flip_abs"], "flip_reps": flip_reps,
        "flip_mismatch": pairs["flip_mismatch"], "pair_used": pairs["pair_used"], "gram": gram,
        "boot_gram": boot_gram,
    }
    sf = pairs["sf"]
    if sf is not None:
        given.update(sf_n=sf["n"], sf_s=sf["s"], sf_top=sf["top"], sf_min=sf["amin"], sf_hist=sf["hist"])
    data: dict[str, np.ndarray | None] = {}
    for name, z in zero.items():
        v = given.get(name)
        if v is None and z is not None:  # nothing drawn (or no pair): the layout's own values
            v = np.broadcast_to(np.asarray(z), (n_seg, *np.shape(z))).copy()
        data[name] = v
    return Summary(None, dict(missing or {}), g.n_dropped, g.n_rows, (n_items, n_boot, n_pairs),
                   keys=list(seg_keys), data=data, dropped_by=g.dropped_by)


def _rows_only(ev: Evaluation, plan: Plan, missing: dict | None, n_dropped: int | None) -> Summary:
    """The summary of global AUC alone: rows, relevant rows and class weights, no groups."""
    n_items, n_boot, n_pairs = _shape(plan)
    if n_items or n_pairs or plan.by:
        raise internal_error("a plan without groups has group metrics, pairs or segments")
    rel = ev.labels.rel
    seg = _seg_zero(n_items, n_boot, n_pairs)
    n_pos = int(rel.sum())
    sw_col = plan.options.sample_weight
    sw = ev.prepared.extra.get(sw_col) if sw_col is not None else None
    seg.update(
        n_rows=int(rel.shape[0]), n_pos=n_pos,
        sw_pos=float(sw[rel].sum()) if sw is not None else float(n_pos),
        sw_neg=float(sw[~rel].sum()) if sw is not None else float(rel.shape[0] - n_pos),
    )
    seg["boot"] = None
    if n_dropped is None:
        n_dropped = ev.prepared.n_dropped
    return Summary({(): seg}, dict(missing or {}), n_dropped, ev.prepared.n_rows, (n_items, n_boot, n_pairs))


def summary_of_counts(
    plan: Plan,
    *,
    n_rows: int,
    n_pos: int,
    missing: dict[Hashable, int] | None = None,
    n_dropped: int = 0,
    sw_pos: float | None = None,
    sw_neg: float | None = None,
) -> Summary:
    """The summary of global AUC alone from counts an engine already has (no partition pass).

    For a plan without groups (``make_plan(kind="metric", group=None, metrics=["auc"])``):
    rows evaluated, relevant rows, missing values per column, rows dropped and, with
    ``sample_weight``, the summed weights of the relevant and the other rows. The same
    object :func:`summarize` returns for such a plan; :func:`finalize` takes it.

    Examples
    --------
    >>> from pandas_rankeval.summary import make_plan
    >>> from pandas_rankeval.tables import finalize
    >>> plan = make_plan("auc", kind="metric", group=None, label="y", scores="s", metrics=["auc"])
    >>> r = finalize(summary_of_counts(plan, n_rows=10, n_pos=4), plan, auc={((), "s"): 0.75})
    >>> float(r), r.coverage.n_rows
    (0.75, 10)
    """
    if plan.group or plan.specs or plan.by:
        raise ValueError("summary_of_counts is for global AUC alone: a plan without groups, group metrics or by")
    n_items, n_boot, n_pairs = _shape(plan)
    seg = _seg_zero(n_items, n_boot, n_pairs)
    seg.update(
        n_rows=int(n_rows), n_pos=int(n_pos),
        sw_pos=float(n_pos if sw_pos is None else sw_pos),
        sw_neg=float(int(n_rows) - int(n_pos) if sw_neg is None else sw_neg),
    )
    segments = {(): seg} if n_rows else {}
    return Summary(segments, {c: int(v) for c, v in (missing or {}).items()}, n_dropped, n_rows,
                   (n_items, n_boot, n_pairs))


def summary_of_auc(
    plan: Plan, auc: Mapping[tuple, Any], *, n_rows: int, n_pos: int, missing: dict[Hashable, int] | None = None,
    n_dropped: int = 0,
) -> Summary:
    """:func:`summary_of_counts` of an engine's global-AUC pass: with ``sample_weight``, the summed
    weights of the relevant and the other rows are the first score's distinct-score counts (every
    score column covers the same rows), so no pass over the rows is needed (polars LazyFrame,
    DuckDB, Spark)."""
    counts = auc.get(((), plan.scores[0])) if plan.scores else None
    weighted = plan.options.sample_weight is not None and counts is not None
    return summary_of_counts(
        plan, n_rows=n_rows, n_pos=n_pos, missing={c: n for c, n in (missing or {}).items() if n},
        n_dropped=n_dropped,
        sw_pos=float(counts.pos) if weighted else None,  # type: ignore[union-attr]
        sw_neg=float(counts.neg) if weighted else None,  # type: ignore[union-attr]
    )


def summarize(pdf: pd.DataFrame, plan: Plan) -> Summary:
    """The additive summary of one partition that holds whole groups.

    Runs the pandas engine on ``pdf``. Missing values of the plan's columns are
    counted (and their rows dropped) instead of raising: :func:`finalize` raises with
    the whole table's counts, or, under ``nan_policy="omit"``, reports the rows
    dropped. ``empty="error"`` is likewise raised by :func:`finalize`. A partition
    with no rows gives :func:`empty_summary`.
    """
    return summarize_partition(pdf, plan)[0]


def summarize_partition(
    pdf: pd.DataFrame, plan: Plan, *, whole_segments: bool = False
) -> tuple[Summary, Evaluation | None]:
    """:func:`summarize`, and the partition's evaluation (None when there is nothing to evaluate,
    or a bad value was counted).

    ``whole_segments``: the partition holds every row of each of its segments, so the
    evaluation is made as the pandas engine makes it (global AUC kept in score order), for the
    engine to read each segment's global AUC from it (:func:`~.extras.evaluation_extras`).
    """
    if len(pdf) == 0:
        return empty_summary(plan), None
    missing: dict[Hashable, int] = {}
    keep: np.ndarray | None = None
    for c in plan.columns:
        if c not in pdf.columns:
            from pandas_rankeval.core.inputs.validation import check_columns

            check_columns(pdf, plan.columns)
        m = missing_mask(pdf[c])
        if m.any():
            missing[c] = int(m.sum())
            keep = ~m if keep is None else keep & ~m
    n_dropped = 0
    dropped_by: dict[tuple, int] = {}
    if keep is not None:
        n_dropped = int(keep.shape[0] - keep.sum())
        if plan.by:  # each segment's own dropped rows (a missing segment value: no segment)
            dropped_by = rows_per_segment(pdf.loc[~keep, list(plan.by)], plan.by)
        pdf = pdf.loc[keep]
        if len(pdf) == 0:
            s = empty_summary(plan)
            s.missing.update(missing)
            s.n_dropped, s.dropped_by = n_dropped, dropped_by
            return s, None
    problems = _count_problems(pdf, plan)
    if problems and plan.by and plan.group:  # pandas finds a by that varies within a group first
        problems.update(mixed_by_counts(pdf, plan))
    if problems:  # finalize raises with the whole table's counts; nothing to evaluate here
        s = empty_summary(plan)
        s.missing.update(missing)
        s.n_dropped, s.n_rows, s.problems, s.dropped_by = n_dropped, len(pdf), problems, dropped_by
        return s, None
    opts = dataclasses.replace(
        plan.options, nan_policy="raise", empty="zero" if plan.options.empty == "error" else plan.options.empty,
        progress=False,
    )
    try:
        ev = evaluate(
            pdf, group=plan.group or None, label=plan.label, scores=plan.scores,
            specs=plan.all_specs if whole_segments else plan.specs, options=opts, by=plan.by,
            keep_order=whole_segments and plan.has_auc,
        )
        out = summarize_evaluation(ev, plan, missing=missing, n_dropped=n_dropped, dropped_by=dropped_by)
    except InputProblem as p:  # bad weights of groups, a `by` that varies in a group: counted
        s = empty_summary(plan)
        s.missing.update(missing)
        s.n_dropped, s.n_rows, s.problems, s.dropped_by = n_dropped, len(pdf), problem_counts(p), dropped_by
        return s, None
    if plan.placement_columns:
        moments = _partition_moments(pdf, ev, plan)
        out.data["delong"] = np.stack([moments[key] for key in out.keys])
    return out, ev


def _partition_moments(pdf: pd.DataFrame, ev: Evaluation, plan: Plan) -> dict[tuple, np.ndarray]:
    """Clustered-DeLong moments per segment from the rows' placement columns."""
    from pandas_rankeval.inference.delong import class_sums, delong_moments_by, sample_weights

    if len(plan.placement_columns) != len(plan.scores):
        raise ValueError("placement_columns needs one column per score column")
    groups = ev.prepared.encode_groups()
    if groups is None:  # pragma: no cover - a summary always has groups
        raise internal_error("DeLong moments need group codes")
    n_all = ev.group_stats["n"].shape[0]
    gi = np.searchsorted(np.asarray(ev.group_stats["code"]), groups.codes)
    rel = ev.labels.rel
    sw = sample_weights(ev)  # the placements count weights; each row's weighs its own weight too
    a = np.empty((n_all, len(plan.scores)))
    b = np.empty((n_all, len(plan.scores)))
    for k, col in enumerate(plan.placement_columns):
        place = pdf[col].to_numpy(dtype=np.float64)
        if sw is not None:
            place = place * sw
        a[:, k] = np.bincount(gi, weights=np.where(rel, place, 0.0), minlength=n_all)
        b[:, k] = np.bincount(gi, weights=np.where(rel, 0.0, place), minlength=n_all)
    m, n = class_sums(gi, rel, sw, n_all)
    seg_index, keys = _segment_keys(ev, plan)
    moments = delong_moments_by(seg_index, len(keys), m, n, a, b)  # every segment at once
    return dict(zip(keys, moments))
