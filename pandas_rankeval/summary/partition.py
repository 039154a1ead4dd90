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
from ..core.inputs.validation import InputProblem, internal_error, missing_mask
from ..inference.hashing import key_hash
from ..inference.pvalues import HIST_K, TOP_K, signflip_sums, signflip_terms
from .plan import COUNTER_INDEX, COUNTERS, Plan
from .problems import _count_problems, mixed_by_counts, problem_counts
from .replicate_sums import _replicate_sums
from .summary import Summary, _plain, _seg_zero, _shape, empty_summary

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
    keys = segs.decode(present)
    # plain Python values, level by level (``tolist`` converts a whole level at once)
    levels = [keys.get_level_values(i) for i in range(keys.nlevels)] if isinstance(keys, pd.MultiIndex) else [keys]
    columns = [[_plain(v) for v in lvl.tolist()] if lvl.dtype == object else lvl.tolist() for lvl in levels]
    return inv.reshape(-1).astype(np.int64), list(zip(*columns))


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
        class_w=_class_weights(ev, plan),
        graded=_graded_rows(ev) if any(spec.info.graded for spec in plan.specs) else None,
        ordered=xauc_label_pairs(ev) if any(s.info.eligibility == "ordered" for s in plan.specs) else None,
    )
    return summarize_groups(inputs, plan, missing=missing, key_hashes=key_hashes)


def summarize_groups(
    g: GroupInputs,
    plan: Plan,
    *,
    missing: dict[Hashable, int] | None = None,
    key_hashes: np.ndarray | None = None,
) -> Summary:
    """The summary of one partition of whole groups from its :class:`GroupInputs`."""
    n, npos = g.n, g.npos
    n_all = n.shape[0]
    seg_index, seg_keys = g.seg_index, g.seg_keys
    n_seg = len(seg_keys)
    items = plan.items
    n_items, n_boot, n_pairs = _shape(plan)
    opts = plan.options
    flips = plan.monte_carlo  # hashed sign-flip replicates: method="randomization" only

    def count(mask: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
        """Per segment: groups in ``mask`` (or the sum of int ``weights`` over them), exact."""
        if n_seg == 1:
            return np.array([int(mask.sum()) if weights is None else int(weights[mask].sum())], dtype=np.int64)
        if weights is None:
            return np.bincount(seg_index[mask], minlength=n_seg).astype(np.int64)
        # float64 bincount: exact while a segment holds fewer than 2**53 rows
        return np.rint(np.bincount(seg_index[mask], weights=weights[mask], minlength=n_seg)).astype(np.int64)

    def fsum(x: np.ndarray) -> np.ndarray:
        if n_seg == 1:
            return np.array([x.sum()])
        return np.bincount(seg_index, weights=x, minlength=n_seg)

    counts = np.zeros((n_seg, max(n_items, 0), len(COUNTERS)), dtype=np.int64)
    sums = np.zeros((n_seg, n_items, 2))
    label_only: dict[str, dict[str, np.ndarray]] = {}
    num_cols: list[np.ndarray] = []
    den_cols: list[np.ndarray] = []
    used_l: list[np.ndarray] = []
    w_l: list[np.ndarray] = []
    v_l: list[np.ndarray] = []
    num_l: list[np.ndarray | None] = []
    # the items of a report share their used-group masks and weight arrays (one per eligibility
    # rule and weight option): what reads only those is worked out once per distinct pair of
    # arrays (the memo holds them, so that their ids stay theirs)
    memo: dict[tuple[int, int], tuple[Any, ...]] = {}
    for j, (score, name) in enumerate(items):
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
                used, w, wu, skipped, plain, fsum(wu), count(used), count(skipped, n), count(skipped, npos))
        _, _, wu, skipped, plain, sum_wu, n_used, rows_skipped, pos_skipped = shared
        if plain and gv.numer is None and not n_boot:
            sums[:, j, 0] = fsum(v)
        else:
            with np.errstate(invalid="ignore"):
                wv = np.where(used, w * v if gv.numer is None else gv.numer, 0.0)
            sums[:, j, 0] = fsum(wv)
        sums[:, j, 1] = sum_wu
        c = counts[:, j]
        c[:, COUNTER_INDEX["n_used"]] = n_used
        c[:, COUNTER_INDEX["rows_skipped"]] = rows_skipped
        c[:, COUNTER_INDEX["pos_skipped"]] = pos_skipped
        rule = gv.spec.info.eligibility
        if rule not in label_only:  # the same for every score column: labels (and weights) only
            e = eligibility(rule, n, npos, opts, ordered=g.ordered)
            label_only[rule] = {
                "eligible": e.label_only,
                "n_only_pos": count(e.only_pos),
                "n_only_neg": count(e.only_neg),
                "n_filtered": count(e.filtered),
                "rows_filtered": count(e.filtered, n),
                "pos_filtered": count(e.filtered, npos),
                "n_empty": count(e.empty),
            }
        lo = label_only[rule]
        for k in ("n_only_pos", "n_only_neg", "n_filtered", "rows_filtered", "pos_filtered", "n_empty"):
            c[:, COUNTER_INDEX[k]] = lo[k]
        if rule in ("pairs", "ordered"):
            c[:, COUNTER_INDEX["n_zero_weight"]] = count(lo["eligible"] & skipped)  # a class weighs 0 in total
        if n_boot:
            num_cols.append(wv)
            den_cols.append(wu)
        if n_pairs:
            used_l.append(used)
            w_l.append(w)
            v_l.append(v)
            num_l.append(gv.numer)

    # paired differences: observed sums, and which groups both models use
    wd_cols: list[np.ndarray] = []
    flip_obs = np.zeros((n_seg, n_pairs))
    flip_abs = np.zeros((n_seg, n_pairs))
    sf: dict[str, np.ndarray] | None = None
    if n_pairs:  # the sign-flip sums of every pair, one pair at a time (no groups x pairs matrix)
        sf = {"n": np.zeros((n_seg, n_pairs), dtype=np.int64), "s": np.zeros((n_seg, n_pairs, 3)),
              "top": np.zeros((n_seg, n_pairs, TOP_K)), "amin": np.full((n_seg, n_pairs), np.inf),
              "hist": np.zeros((n_seg, n_pairs, 2, HIST_K))}
    mismatch = np.zeros((n_seg, n_pairs), dtype=np.int64)
    pair_used = np.zeros((n_seg, n_pairs), dtype=np.int64)
    col = {item: j for j, item in enumerate(items)}
    for p, (m, b, name) in enumerate(plan.flip_pairs):
        jm, jb = col[(m, name)], col[(b, name)]
        um, ub = used_l[jm], used_l[jb]
        wm, wb = w_l[jm], w_l[jb]
        both = um & ub
        mismatch[:, p] = count((um != ub) | (um & (wm != wb)))
        pair_used[:, p] = count(both)
        nm, nb = num_l[jm], num_l[jb]
        if nm is not None and nb is not None:  # row sums over the same denominator: their difference
            wd = signflip_terms(np.ones_like(wm), nm, nb, both)
        else:
            wd = signflip_terms(wm, v_l[jm], v_l[jb], both)  # a difference at float rounding is 0
        one = signflip_sums(wd, seg_index, n_seg)
        for name, arr in sf.items():  # type: ignore[union-attr]
            arr[:, p] = one[name][:, 0]
        flip_obs[:, p] = fsum(wd)
        flip_abs[:, p] = fsum(np.abs(wd))
        if flips and n_boot:
            wd_cols.append(wd)

    class_w = g.class_w
    seg_n = count(np.ones(n_all, dtype=bool))
    seg_rows = count(np.ones(n_all, dtype=bool), n)
    seg_pos = count(np.ones(n_all, dtype=bool), npos)
    seg_nopos = count(npos == 0)
    graded = g.graded
    seg_graded = count(np.ones(n_all, dtype=bool), graded) if graded is not None else np.zeros(n_seg, dtype=np.int64)
    if class_w is not None:
        sw_pos, sw_neg = fsum(class_w[0]), fsum(class_w[1])
    else:
        sw_pos, sw_neg = seg_pos.astype(np.float64), (seg_rows - seg_pos).astype(np.float64)

    # studentized intervals: per target, the sums of x x^T with x = [num, den] of its items
    targets = plan.targets
    gram_cols: list[np.ndarray] = []
    for t in targets:
        x: list[np.ndarray] = []
        for j, _ in t:
            x += [num_cols[j], den_cols[j]]
        for a, b in zip(*np.triu_indices(len(x))):
            gram_cols.append(x[a] * x[b])
    q = (2 * len(targets[0])) * (2 * len(targets[0]) + 1) // 2 if targets else 0
    gram = np.stack([fsum(c) for c in gram_cols], axis=1).reshape(n_seg, len(targets), q) if targets else None

    boot = flip_reps = boot_gram = None
    if n_boot and n_all:
        if key_hashes is None and plan.resample == "poisson":
            key_hashes = key_hash(g.keys())
        acc, where, flip_reps = _replicate_sums(
            plan, key_hashes, seg_index, n_seg, num_cols + den_cols + gram_cols, wd_cols, n_pairs if flips else 0
        )
        # one gather from the distinct columns into the layout (segments, replicates, items, 2)
        boot = acc[:, :, np.stack([where[:n_items], where[n_items : 2 * n_items]], axis=1)]
        if targets:
            boot_gram = acc[:, :, where[2 * n_items :]].reshape(n_seg, n_boot, len(targets), q)

    n_dropped = g.n_dropped
    # the segments stacked: one array per field, the segment first (no loop over segments)
    zero = _seg_zero(n_items, n_boot, n_pairs, flips)
    given: dict[str, np.ndarray | None] = {
        "n_groups": seg_n, "n_rows": seg_rows, "n_pos": seg_pos, "n_nopos": seg_nopos,
        "n_graded": seg_graded, "sw_pos": np.asarray(sw_pos, dtype=np.float64), "sw_neg": np.asarray(sw_neg, dtype=np.float64),
        "counts": counts, "sums": sums, "boot": boot, "flip_obs": flip_obs, "flip_abs": flip_abs,
        "flip_reps": flip_reps, "flip_mismatch": mismatch, "pair_used": pair_used, "gram": gram,
        "boot_gram": boot_gram,
    }
    if sf is not None:
        given.update(sf_n=sf["n"], sf_s=sf["s"], sf_top=sf["top"], sf_min=sf["amin"], sf_hist=sf["hist"])
    data: dict[str, np.ndarray | None] = {}
    for name, z in zero.items():
        v = given.get(name)  # type: ignore[assignment]  # stubs narrower than runtime
        if v is None and z is not None:  # nothing drawn (or no pair): the layout's own values
            v = np.broadcast_to(np.asarray(z), (n_seg, *np.shape(z))).copy()
        data[name] = v
    return Summary(None, dict(missing or {}), n_dropped, g.n_rows, (n_items, n_boot, n_pairs),
                   keys=list(seg_keys), data=data)


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
    if keep is not None:
        n_dropped = int(keep.shape[0] - keep.sum())
        pdf = pdf.loc[keep]
        if len(pdf) == 0:
            s = empty_summary(plan)
            s.missing.update(missing)
            s.n_dropped = n_dropped
            return s, None
    problems = _count_problems(pdf, plan)
    if problems and plan.by and plan.group:  # pandas finds a by that varies within a group first
        problems.update(mixed_by_counts(pdf, plan))
    if problems:  # finalize raises with the whole table's counts; nothing to evaluate here
        s = empty_summary(plan)
        s.missing.update(missing)
        s.n_dropped, s.n_rows, s.problems = n_dropped, len(pdf), problems
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
        out = summarize_evaluation(ev, plan, missing=missing, n_dropped=n_dropped)
    except InputProblem as p:  # bad weights of groups, a `by` that varies in a group: counted
        s = empty_summary(plan)
        s.missing.update(missing)
        s.n_dropped, s.n_rows, s.problems = n_dropped, len(pdf), problem_counts(p)
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
