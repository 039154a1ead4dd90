"""The additive summary layer that pandas, Dask and Spark share.

A *partition* holds whole groups (any number, possibly none). :func:`summarize`
runs the same vectorized engine as pandas (:func:`~pandas_rankeval._evaluate.evaluate`)
on it and returns a :class:`Summary`: per segment and per (score, metric), the sums
``sum_g w_g v_g`` and ``sum_g w_g`` over the used groups and exact integer coverage
counters; with ``n_boot``, the same two sums for every hashed Poisson(1) bootstrap
replicate; with flip pairs, the sums of sign-flipped weighted differences; and the
missing-value counts of every checked column. Never a per-group row.

Summaries add up (``a + b``, commutative and associative up to float summation
order), travel as bytes (:meth:`Summary.to_bytes`) and are turned into the very
result objects of the pandas API by :func:`finalize` on the client, which also raises
the errors that need whole-table counts (missing values, ``empty="error"``).
pandas is the one-partition case: its report, compare and metric functions call
:func:`summarize_evaluation` on their one evaluation, then :func:`finalize`.

Global AUC is not a sum over groups. The engines compute it from their own score
pass and hand it to :func:`finalize` as ``auc={(segment key, score): value}``, where
the value is a float or an :class:`AucCounts` (exact pair counts, see
:func:`auc_counts_sorted` and :func:`chain_auc`). Its clustered-DeLong interval is
additive again once every row knows its global placement (:func:`chain_offsets`,
:func:`placements_sorted`, ``make_plan(placement_columns=...)``): the summary then
carries the per-segment moment matrices of :mod:`pandas_rankeval._delong`.

Studentized (bootstrap-t) intervals need, per statistic, the sums of ``x x^T`` with
``x = [w v, w]`` of its items, once and per replicate: additive too, and carried when
``ci_method="studentized"``.

This module imports neither dask nor pyspark.
"""

from __future__ import annotations

import dataclasses
import math
import pickle
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from . import _hashing as H
from ._evaluate import WEIGHT_NAMES, Evaluation, Options, WeightLike, evaluate
from ._registry import MetricSpec, parse_metrics
from ._result import Coverage, MetricResult, warn_once
from ._validation import (
    as_columns,
    check_compare_scores,
    check_option,
    internal_error,
    missing_mask,
    missing_values_error,
)

__all__ = [
    "AucCounts",
    "Plan",
    "Summary",
    "auc_counts_sorted",
    "chain_auc",
    "chain_offsets",
    "placements_sorted",
    "empty_summary",
    "finalize",
    "make_plan",
    "summarize",
    "summarize_evaluation",
    "summary_of_counts",
]

#: Counters per (segment, item), exact int64: groups used, skipped per reason, rows and
#: positives in skipped groups and in the groups the filters dropped.
COUNTERS = (
    "n_used", "n_only_pos", "n_only_neg", "n_filtered", "n_empty", "n_zero_weight",
    "rows_skipped", "pos_skipped", "rows_filtered", "pos_filtered",
)
_C = {name: i for i, name in enumerate(COUNTERS)}

KINDS = ("metric", "report", "compare")
RESAMPLES = ("poisson", "multinomial")
METHODS = ("auto", "randomization", "bootstrap")

#: Elements of one chunk of the (groups x replicates) draw matrix.
_CHUNK_ELEMENTS = 1 << 20

_FORMAT = 1  # version of the bytes of a Summary


# --------------------------------------------------------------------------- #
# The plan
# --------------------------------------------------------------------------- #
@dataclass(frozen=True)
class Plan:
    """Everything decided on the client before any compute. Picklable, small.

    ``specs`` are the group metrics (what :func:`summarize` computes); ``metrics``
    every requested name in the caller's order, ``"auc"`` (global AUC) included.
    """

    func: str
    kind: str  # "metric" | "report" | "compare"
    group: list[Hashable]
    label: Hashable
    scores: list[Hashable]
    specs: list[MetricSpec]
    options: Options
    metrics: tuple[str, ...]
    by: list[Hashable] = field(default_factory=list)
    columns: list[Hashable] = field(default_factory=list)
    ci: float | None = None
    n_boot: int = 0
    seed: int | None = 0
    seed_repr: Any = 0
    resample: str = "poisson"
    flip_pairs: tuple[tuple[Hashable, Hashable, str], ...] = ()
    baseline: Hashable | None = None
    alpha: float = 0.05
    method: str = "auto"
    auc_method: str = "delong"
    ci_method: str = "percentile"
    placement_columns: tuple[Hashable, ...] = ()  # per score: each row's DeLong placement (engines)

    @property
    def targets(self) -> list[list[tuple[int, float]]]:
        """Statistics of the studentized interval: (item index, sign) lists, one per item
        (report) or per (model - baseline) group-metric pair (compare, the order of
        ``flip_pairs``); empty unless ``ci_method="studentized"``."""
        if self.ci_method != "studentized" or not self.hashed_boot:
            return []
        col = {item: j for j, item in enumerate(self.items)}
        if self.kind == "compare":
            return [[(col[(m, n)], 1.0), (col[(b, n)], -1.0)] for m, b, n in self.flip_pairs]
        return [[(j, 1.0)] for j in range(len(self.items))]

    @property
    def auc_delong(self) -> bool:
        """Global AUC's interval / test is clustered DeLong (else the bootstrap)."""
        from ._delong import delong_unavailable

        return self.has_auc and self.auc_method == "delong" and delong_unavailable(self.options.ties) is None

    @property
    def has_auc(self) -> bool:
        """Global AUC is among the metrics (the engine computes it from its score pass)."""
        return "auc" in self.metrics

    @property
    def items(self) -> list[tuple[Hashable, str]]:
        """(score, group metric name), the order of every per-item array of a Summary."""
        return [(s, spec.name) for s in self.scores for spec in self.specs]

    @property
    def all_specs(self) -> list[MetricSpec]:
        return parse_metrics(list(self.metrics))

    @property
    def hashed_boot(self) -> int:
        """Replicates the summary carries (0 unless the hashed bootstrap is asked for)."""
        return self.n_boot if (self.resample == "poisson" and (self.ci is not None or self.kind == "compare")) else 0


def _check_n_boot(n_boot: Any, func: str) -> int:
    from ._stats import check_n_boot

    return check_n_boot(n_boot, func)


def make_plan(
    func: str,
    *,
    kind: str,
    group: Hashable | Sequence[Hashable] | None,
    label: Hashable,
    scores: Hashable | Sequence[Hashable],
    metrics: str | Sequence[str],
    by: Hashable | Sequence[Hashable] | None = None,
    weight: WeightLike = None,
    ci: float | None = None,
    n_boot: int = 1000,
    seed: Any = 0,
    resample: str = "poisson",
    baseline: Hashable | None = None,
    alpha: float = 0.05,
    method: str = "auto",
    auc_method: str = "delong",
    ci_method: str = "percentile",
    min_size: int | None = None,
    min_pos: int | None = None,
    min_neg: int | None = None,
    ties: str = "expected",
    tiebreak: Hashable | None = None,
    threshold: float | None = None,
    gain: str = "exp2",
    denominator: str = "relevant",
    empty: str = "zero",
    sample_weight: Hashable | None = None,
    max_fpr: float | None = None,
    engine: str = "numpy",
    nan_policy: str = "raise",
    progress: bool = False,
    df: pd.DataFrame | None = None,
    placement_columns: Sequence[Hashable] | None = None,
) -> Plan:
    """Check every parameter (no data touched) and decide what each partition computes.

    The checks and their messages are those of the pandas functions: ``func`` names
    the function in messages (``"report"``, ``"dask.report"``, ...). ``kind`` is
    ``"metric"`` (one metric, a :class:`MetricResult`), ``"report"`` or
    ``"compare"``. ``seed=None`` draws a seed here, once, so that every partition
    uses the same one. ``df`` (optional, a frame or an empty frame with the same
    columns) lets a tuple name a column, as in the pandas functions.

    ``placement_columns`` (engines, clustered DeLong): one column name per score, in
    the order of ``scores``, that the engine adds to every row before
    :func:`summarize`: the row's unnormalized DeLong placement from the global score
    pass (see :func:`placements_sorted`). :func:`summarize` then adds the per-segment
    DeLong moment matrices to the summary, and :func:`finalize` needs no ``delong=``.
    """
    check_option(kind, "kind", func, KINDS)
    if kind == "metric":
        specs_all = [metrics] if isinstance(metrics, MetricSpec) else parse_metrics(metrics)
    else:
        specs_all = parse_metrics(metrics if not isinstance(metrics, str) else [metrics])
    score_cols = as_columns(scores, "scores" if kind != "metric" else "score", func, df)
    gcols = as_columns(group, "group", func, df) if group is not None else []
    by_cols = as_columns(by, "by", func, df) if by is not None else []
    opts = Options(
        func, ties=ties, tiebreak=tiebreak, threshold=threshold, weight=weight,
        min_size=min_size, min_pos=min_pos, min_neg=min_neg,  # type: ignore[arg-type]
        gain=gain, denominator=denominator, empty=empty, nan_policy=nan_policy,
        sample_weight=sample_weight, max_fpr=max_fpr, engine=engine, progress=progress,
    ).check()
    if any(s.info.grouped for s in specs_all) and not gcols:
        raise ValueError(
            f"{func} needs the 'group' parameter (the user, query or session column) for "
            f"{[s.name for s in specs_all if s.info.grouped]}."
        )
    check_option(resample, "resample", func, RESAMPLES)
    check_option(auc_method, "auc_method", func, ("delong", "bootstrap"))
    check_option(ci_method, "ci_method", func, ("percentile", "studentized"))
    flip_pairs: list[tuple[Hashable, Hashable, str]] = []
    seed_int: int | None = None
    from ._delong import delong_unavailable

    delong_auc = auc_method == "delong" and delong_unavailable(ties) is None
    if kind == "report" and ci is not None:
        from ._stats import check_level

        ci = check_level(ci, "ci", func)
    if kind == "compare":
        from ._stats import check_level

        check_compare_scores(score_cols, baseline, func)
        ci = check_level(0.95 if ci is None else ci, "ci", func)  # compare's default level
        alpha = check_level(alpha, "alpha", func)
        check_option(method, "method", func, METHODS)
        if method == "randomization" and not delong_auc and any(s.kind == "auc" for s in specs_all):
            raise ValueError(
                "Global AUC has no group-level randomization test (it is not a sum over groups); "
                "use auc_method='delong' (needs ties='expected'), method='auto' (a paired bootstrap "
                "test for 'auc') or method='bootstrap'."
            )
        flip_pairs = [  # every (model, baseline, group metric); sign-flipped unless method="bootstrap"
            (m, baseline, s.name) for m in score_cols if m != baseline for s in specs_all if s.kind != "auc"
        ]
    if kind == "compare" or ci is not None:
        from ._validation import check_n_boot_for_level, check_seed

        n_boot = _check_n_boot(n_boot, func)
        check_seed(seed, func)
        if any(not (delong_auc and s.kind == "auc") for s in specs_all):  # a metric is bootstrapped
            check_n_boot_for_level(n_boot, ci, func)  # type: ignore[arg-type]
        if resample == "poisson":
            seed_int = H.seed_to_int(seed, func)
    # every column a partition reads, in the order of the missing-value check of pandas
    numeric_extra: list[Hashable] = []
    if sample_weight is not None:
        numeric_extra.append(sample_weight)
    if isinstance(weight, str) and weight not in WEIGHT_NAMES:
        numeric_extra.append(weight)
    columns = list(dict.fromkeys([
        *gcols, label, *score_cols, *numeric_extra, *([tiebreak] if tiebreak is not None else []), *by_cols,
    ]))
    seed_repr = seed if isinstance(seed, (int, np.integer)) or seed is None else repr(seed)
    return Plan(
        func=func,
        kind=kind,
        group=gcols,
        label=label,
        scores=score_cols,
        specs=[s for s in specs_all if s.kind != "auc"],
        options=opts,
        metrics=tuple(s.name for s in specs_all),
        by=by_cols,
        columns=columns,
        ci=ci,
        n_boot=int(n_boot) if (kind == "compare" or ci is not None) else 0,
        seed=seed_int if seed_int is not None else seed,
        seed_repr=seed_repr,
        resample=resample,
        flip_pairs=tuple(flip_pairs),
        baseline=baseline,
        alpha=float(alpha),
        method=method,
        auc_method=auc_method,
        ci_method=ci_method,
        placement_columns=tuple(placement_columns or ()),
    )


# --------------------------------------------------------------------------- #
# The summary
# --------------------------------------------------------------------------- #
def _seg_zero(n_items: int, n_boot: int, n_pairs: int, flips: bool = True) -> dict[str, Any]:
    return {
        "n_groups": 0,
        "n_rows": 0,
        "n_pos": 0,
        "n_nopos": 0,
        "sw_pos": 0.0,
        "sw_neg": 0.0,
        "counts": np.zeros((n_items, len(COUNTERS)), dtype=np.int64),
        "sums": np.zeros((n_items, 2)),
        "boot": np.zeros((n_boot, n_items, 2)) if n_boot else None,
        "flip_obs": np.zeros(n_pairs),
        "flip_abs": np.zeros(n_pairs),
        "flip_reps": np.zeros((n_boot, n_pairs)) if (n_boot and n_pairs and flips) else None,
        "flip_mismatch": np.zeros(n_pairs, dtype=np.int64),
        "pair_used": np.zeros(n_pairs, dtype=np.int64),
        "delong": None,  # clustered-DeLong moment matrix over the scores, or None
        "gram": None,  # (targets x q) sums of x x^T (studentized intervals), or None
        "boot_gram": None,  # (n_boot x targets x q), or None
    }


def _seg_add(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, va in a.items():
        vb = b[k]
        if va is None or vb is None:
            if (va is None) != (vb is None):
                raise ValueError("these summaries were made with different plans; they cannot be added")
            out[k] = None
        elif isinstance(va, np.ndarray):
            if va.shape != vb.shape:
                raise ValueError("these summaries were made with different plans; they cannot be added")
            out[k] = va + vb
        elif isinstance(va, float) or isinstance(vb, float):
            out[k] = float(va) + float(vb)
        else:
            out[k] = int(va) + int(vb)
    return out


class Summary:
    """An additive summary of one or more partitions of whole groups.

    Attributes
    ----------
    segments : dict
        Segment key (a tuple of the ``by`` values, ``()`` without ``by``) -> a dict of
        ``n_groups``, ``n_rows``, ``n_pos`` (relevant rows), ``n_nopos`` (groups with
        no relevant row), ``counts`` (items x :data:`COUNTERS`, int64), ``sums``
        (items x 2: ``sum w v``, ``sum w`` over used groups), ``boot`` (replicates x
        items x 2, the same sums with every group weighted by its hashed Poisson(1)
        count, or None), ``flip_obs``, ``flip_abs`` (pairs: ``sum w d``, ``sum |w d|``),
        ``flip_reps`` (replicates x pairs: ``sum b w d`` over groups whose hashed flip
        bit ``b`` is 1, or None) and ``flip_mismatch`` (pairs: groups whose weight or
        eligibility differs between the model and the baseline).
    missing : dict
        Column -> missing values seen (rows), in the order of the plan's columns.
    n_dropped : int
        Rows dropped for missing values.
    n_rows : int
        Rows evaluated.
    problems : dict
        Bad values counted instead of raised (raised by :func:`finalize` with the whole
        table's counts): ``("infinite_label", column)``, ``("bad_weight", column)``,
        ``("negative_label", column)`` -> rows. A partition with any is not evaluated.
    """

    __slots__ = ("segments", "missing", "n_dropped", "n_rows", "shape", "problems")

    def __init__(
        self,
        segments: dict[tuple, dict[str, Any]],
        missing: dict[Hashable, int],
        n_dropped: int,
        n_rows: int,
        shape: tuple[int, int, int],
        problems: dict[tuple, int] | None = None,
    ) -> None:
        self.segments = segments
        self.missing = missing
        self.n_dropped = int(n_dropped)
        self.n_rows = int(n_rows)
        self.shape = shape  # (items, replicates, flip pairs)
        self.problems = dict(problems or {})

    def __add__(self, other: Summary) -> Summary:
        if not isinstance(other, Summary):
            return NotImplemented
        if self.shape != other.shape:
            raise ValueError("these summaries were made with different plans; they cannot be added")
        segs = dict(self.segments)
        for key, seg in other.segments.items():
            segs[key] = _seg_add(segs[key], seg) if key in segs else seg
        missing = dict(self.missing)
        for c, n in other.missing.items():
            missing[c] = missing.get(c, 0) + int(n)
        problems = dict(self.problems)
        for k, n in other.problems.items():
            problems[k] = problems.get(k, 0) + int(n)
        return Summary(
            segs, missing, self.n_dropped + other.n_dropped, self.n_rows + other.n_rows, self.shape, problems
        )

    def __radd__(self, other: Any) -> Summary:
        if isinstance(other, int) and other == 0:  # sum(summaries)
            return self
        return NotImplemented

    def to_bytes(self) -> bytes:
        """The summary as bytes (a binary column in Spark, a message anywhere).

        Pickle of plain dicts, numpy arrays and the segment keys: for transport between
        the processes of one computation, not for untrusted input.
        """
        state = (_FORMAT, self.segments, self.missing, self.n_dropped, self.n_rows, self.shape, self.problems)
        return pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL)

    @classmethod
    def from_bytes(cls, data: bytes) -> Summary:
        fmt, segments, missing, n_dropped, n_rows, shape, problems = pickle.loads(data)
        if fmt != _FORMAT:
            raise ValueError(f"a Summary written in format {fmt} cannot be read by format {_FORMAT}")
        return cls(segments, missing, n_dropped, n_rows, tuple(shape), problems)

    def __reduce__(self) -> Any:
        return (Summary.from_bytes, (self.to_bytes(),))

    def __repr__(self) -> str:
        return (
            f"Summary({len(self.segments)} segment(s), {self.n_rows:,} rows, "
            f"{sum(s['n_groups'] for s in self.segments.values()):,} groups)"
        )


def _shape(plan: Plan) -> tuple[int, int, int]:
    return (len(plan.items), plan.hashed_boot, len(plan.flip_pairs))


def empty_summary(plan: Plan) -> Summary:
    """The summary of a partition with no rows (the identity of ``+``)."""
    return Summary({}, {}, 0, 0, _shape(plan))


def _plain(v: Any) -> Any:
    return v.item() if isinstance(v, np.generic) else v


def _segment_keys(ev: Evaluation, plan: Plan) -> tuple[np.ndarray, list[tuple]]:
    """Per group (ascending code), the index of its segment; and the segment keys."""
    n_groups = ev.group_stats["n"].shape[0]
    if not plan.by:
        return np.zeros(n_groups, dtype=np.int64), [()]
    from .report import segment_of_groups

    seg = segment_of_groups(ev, plan.by, plan.func)
    present, inv = np.unique(seg, return_inverse=True)
    segs = ev.prepared.segments
    if segs is None:
        raise internal_error("segments need segment codes")
    keys = segs.decode(present)
    out = []
    for k in keys:
        t = k if isinstance(k, tuple) else (k,)
        out.append(tuple(_plain(v) for v in t))
    return inv.reshape(-1).astype(np.int64), out


def _ensure_group_stats(ev: Evaluation) -> None:
    """Group codes, rows and relevant rows per group, when no group metric built them."""
    if ev.group_stats:
        return
    groups = ev.prepared.encode_groups()
    if groups is None:
        raise internal_error("a summary needs group codes")
    uniq, inv = np.unique(groups.codes, return_inverse=True)
    inv = inv.reshape(-1)
    n = np.bincount(inv, minlength=uniq.shape[0]).astype(np.int64)
    npos = np.bincount(inv, weights=ev.labels.rel, minlength=uniq.shape[0]).astype(np.int64)
    ev.group_stats.update(code=uniq, n=n, positives=npos, negatives=n - npos)


def _class_weights(ev: Evaluation, plan: Plan) -> tuple[np.ndarray, np.ndarray] | None:
    """Per group (ascending code): summed sample weight of the relevant / other rows."""
    sw_col = plan.options.sample_weight
    if sw_col is None:
        return None
    sw = ev.prepared.extra[sw_col]
    groups = ev.prepared.encode_groups()
    if groups is None:
        raise internal_error("a summary needs group codes")
    gi = np.searchsorted(np.asarray(ev.group_stats["code"]), groups.codes)
    n_groups = ev.group_stats["n"].shape[0]
    rel = ev.labels.rel
    wpos = np.bincount(gi[rel], weights=sw[rel], minlength=n_groups)
    wneg = np.bincount(gi[~rel], weights=sw[~rel], minlength=n_groups)
    return wpos, wneg


def _distinct(columns: list[np.ndarray]) -> tuple[list[np.ndarray], list[int]]:
    """Distinct columns (models share a metric's weights) and where each input column went."""
    out: list[np.ndarray] = []
    where: list[int] = []
    for c in columns:
        for k, u in enumerate(out):
            if u is c or np.array_equal(u, c):
                where.append(k)
                break
        else:
            where.append(len(out))
            out.append(c)
    return out, where


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
    _ensure_group_stats(ev)
    stats = ev.group_stats
    n = np.asarray(stats["n"], dtype=np.int64)
    npos = np.asarray(stats["positives"], dtype=np.int64)
    nneg = n - npos
    n_all = n.shape[0]
    seg_index, seg_keys = _segment_keys(ev, plan)
    n_seg = len(seg_keys)
    items = plan.items
    n_items, n_boot, n_pairs = _shape(plan)
    opts = plan.options
    flips = n_pairs > 0 and plan.method != "bootstrap"

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
    for j, (score, name) in enumerate(items):
        gv = ev.scores[score].metrics[name]
        used = np.asarray(gv.used, dtype=bool)
        w = np.asarray(gv.weights, dtype=np.float64)
        v = np.asarray(gv.values, dtype=np.float64)
        wu = np.where(used, w, 0.0)
        with np.errstate(invalid="ignore"):
            wv = np.where(used, w * v, 0.0)
        sums[:, j, 0] = fsum(wv)
        sums[:, j, 1] = fsum(wu)
        c = counts[:, j]
        c[:, _C["n_used"]] = count(used)
        skipped = ~used
        c[:, _C["rows_skipped"]] = count(skipped, n)
        c[:, _C["pos_skipped"]] = count(skipped, npos)
        if gv.spec.kind == "gauc":
            if "gauc" not in label_only:  # the same for every score column: labels only
                has_both = (npos > 0) & (nneg > 0)
                passes = (n >= opts.min_size) & (npos >= opts.min_pos) & (nneg >= opts.min_neg)
                filtered = has_both & ~passes
                label_only["gauc"] = {
                    "eligible": has_both & passes,
                    "n_only_pos": count((npos > 0) & (nneg == 0)),
                    "n_only_neg": count(npos == 0),
                    "n_filtered": count(filtered),
                    "rows_filtered": count(filtered, n),
                    "pos_filtered": count(filtered, npos),
                }
            lo = label_only["gauc"]
            for k in ("n_only_pos", "n_only_neg", "n_filtered", "rows_filtered", "pos_filtered"):
                c[:, _C[k]] = lo[k]
            c[:, _C["n_zero_weight"]] = count(lo["eligible"] & skipped)  # a class weighs 0 in total
        else:
            if "empty" not in label_only:
                label_only["empty"] = {"n_empty": count(npos == 0)}  # one rule for every list metric
            c[:, _C["n_empty"]] = label_only["empty"]["n_empty"]
        if n_boot:
            num_cols.append(wv)
            den_cols.append(wu)
        if n_pairs:
            used_l.append(used)
            w_l.append(w)
            v_l.append(v)

    # paired differences: observed sums, and which groups both models use
    wd_cols: list[np.ndarray] = []
    flip_obs = np.zeros((n_seg, n_pairs))
    flip_abs = np.zeros((n_seg, n_pairs))
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
        with np.errstate(invalid="ignore"):
            wd = np.where(both, wm * (v_l[jm] - v_l[jb]), 0.0)
        flip_obs[:, p] = fsum(wd)
        flip_abs[:, p] = fsum(np.abs(wd))
        if flips and n_boot:
            wd_cols.append(wd)

    class_w = _class_weights(ev, plan)
    seg_n = count(np.ones(n_all, dtype=bool))
    seg_rows = count(np.ones(n_all, dtype=bool), n)
    seg_pos = count(np.ones(n_all, dtype=bool), npos)
    seg_nopos = count(npos == 0)
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
        if key_hashes is None:
            key_hashes = H.key_hash(ev.keys)
        acc, flip_reps = _hashed_sums(
            plan, key_hashes, seg_index, n_seg, num_cols + den_cols + gram_cols, wd_cols, n_pairs if flips else 0
        )
        boot = np.stack([acc[:, :, :n_items], acc[:, :, n_items : 2 * n_items]], axis=3)
        if targets:
            boot_gram = acc[:, :, 2 * n_items :].reshape(n_seg, n_boot, len(targets), q)

    segments: dict[tuple, dict[str, Any]] = {}
    for si, key in enumerate(seg_keys):
        seg = _seg_zero(n_items, n_boot, n_pairs, flips)
        seg.update(
            n_groups=int(seg_n[si]), n_rows=int(seg_rows[si]), n_pos=int(seg_pos[si]), n_nopos=int(seg_nopos[si]),
            sw_pos=float(sw_pos[si]), sw_neg=float(sw_neg[si]),
            counts=counts[si].copy(), sums=sums[si].copy(),
            flip_obs=flip_obs[si].copy(), flip_abs=flip_abs[si].copy(),
            flip_mismatch=mismatch[si].copy(), pair_used=pair_used[si].copy(),
        )
        if boot is not None:
            seg["boot"] = boot[si]
        if flip_reps is not None:
            seg["flip_reps"] = flip_reps[si]
        if gram is not None:
            seg["gram"] = gram[si].copy()
        if boot_gram is not None:
            seg["boot_gram"] = boot_gram[si].copy()
        segments[key] = seg
    if n_dropped is None:
        n_dropped = ev.prepared.n_dropped
    return Summary(segments, dict(missing or {}), n_dropped, ev.prepared.n_rows, (n_items, n_boot, n_pairs))


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


def _hashed_sums(
    plan: Plan,
    key_hashes: np.ndarray,
    seg_index: np.ndarray,
    n_seg: int,
    columns: list[np.ndarray],
    wd_cols: list[np.ndarray],
    n_flip: int,
) -> tuple[np.ndarray, np.ndarray | None]:
    """Per segment: (n_boot x columns) sums of k_gb * column_g, and (n_boot x pairs) flip sums.

    Replicate b weighs group g by its hashed Poisson(1) count k_gb (and flips it when its
    hashed bit is 1); groups are taken in chunks so that the draws of a chunk stay small.
    Repeated columns (models share a metric's weights) are multiplied once.
    """
    n_boot = plan.n_boot
    seed = int(plan.seed)  # type: ignore[arg-type]
    cols, where = _distinct(columns)
    boot = np.zeros((n_seg, n_boot, len(columns)))
    reps = np.zeros((n_seg, n_boot, n_flip)) if n_flip else None
    if n_seg == 1:
        groups_of = [None]
    else:
        order = np.argsort(seg_index, kind="stable")
        cuts = np.searchsorted(seg_index[order], np.arange(1, n_seg))
        groups_of = np.split(order, cuts)
    n_all = key_hashes.shape[0]
    step = max(1, _CHUNK_ELEMENTS // max(n_boot, 1))
    from ._progress import Progress

    bar = Progress(plan.options.progress, total=n_all, desc="bootstrap" if plan.kind == "report" else plan.func,
                   unit="group")
    where_arr = np.array(where, dtype=np.int64)
    work: dict[str, np.ndarray] = {}  # draw buffers reused chunk after chunk
    for si, gi in enumerate(groups_of):
        size = n_all if gi is None else gi.shape[0]
        acc = np.zeros((n_boot, len(cols)))
        acc_f = np.zeros((n_boot, n_flip)) if n_flip else None
        for lo in range(0, size, step):
            hi = min(lo + step, size)
            idx: Any = slice(lo, hi) if gi is None else gi[lo:hi]
            kh = key_hashes[idx]
            if cols:
                design = np.column_stack([c[idx] for c in cols])
                acc += H.poisson_weights(kh, seed, n_boot, work=work).T @ design
            if acc_f is not None:
                wd = np.column_stack([c[idx] for c in wd_cols])
                acc_f += H.flip_bits(kh, seed, n_boot).T @ wd
            bar.update(hi - lo)
        if columns:
            boot[si] = acc[:, where_arr]
        if reps is not None and acc_f is not None:
            reps[si] = acc_f
    bar.close()
    return boot, reps


def summarize(pdf: pd.DataFrame, plan: Plan) -> Summary:
    """The additive summary of one partition that holds whole groups.

    Runs the pandas engine on ``pdf``. Missing values of the plan's columns are
    counted (and their rows dropped) instead of raising: :func:`finalize` raises with
    the whole table's counts, or, under ``nan_policy="omit"``, reports the rows
    dropped. ``empty="error"`` is likewise raised by :func:`finalize`. A partition
    with no rows gives :func:`empty_summary`.
    """
    if len(pdf) == 0:
        return empty_summary(plan)
    missing: dict[Hashable, int] = {}
    keep: np.ndarray | None = None
    for c in plan.columns:
        if c not in pdf.columns:
            from ._validation import check_columns

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
            return s
    problems = _count_problems(pdf, plan)
    if problems:  # finalize raises with the whole table's counts; nothing to evaluate here
        s = empty_summary(plan)
        s.missing.update(missing)
        s.n_dropped, s.n_rows, s.problems = n_dropped, len(pdf), problems
        return s
    opts = dataclasses.replace(
        plan.options, nan_policy="raise", empty="zero" if plan.options.empty == "error" else plan.options.empty,
        progress=False,
    )
    ev = evaluate(
        pdf, group=plan.group or None, label=plan.label, scores=plan.scores, specs=plan.specs,
        options=opts, by=plan.by,
    )
    out = summarize_evaluation(ev, plan, missing=missing, n_dropped=n_dropped)
    if plan.placement_columns:
        for key, G in _partition_moments(pdf, ev, plan).items():
            out.segments[key]["delong"] = G
    return out


def _count_problems(pdf: pd.DataFrame, plan: Plan) -> dict[tuple, int]:
    """Bad values that pandas raises for, counted (numeric columns only: a text column is the
    same TypeError in every partition, raised by the engine from its dtype)."""
    out: dict[tuple, int] = {}
    lab = pdf[plan.label]
    numeric = pd.api.types.is_numeric_dtype(lab.dtype) and not pd.api.types.is_bool_dtype(lab.dtype)
    if numeric and pd.api.types.is_float_dtype(lab.dtype):
        bad = int((~np.isfinite(lab.to_numpy(dtype=np.float64))).sum())
        if bad:
            out[("infinite_label", plan.label)] = bad
    w = plan.options.weight
    weight_cols = [plan.options.sample_weight] if plan.options.sample_weight is not None else []
    if isinstance(w, str) and w not in WEIGHT_NAMES:
        weight_cols.append(w)
    for c in weight_cols:
        col = pdf[c]
        if pd.api.types.is_numeric_dtype(col.dtype) and not pd.api.types.is_bool_dtype(col.dtype):
            arr = col.to_numpy(dtype=np.float64)
            bad = int((~np.isfinite(arr) | (arr < 0)).sum())
            if bad:
                out[("bad_weight", c)] = bad
    if numeric and any(s.info.graded for s in plan.specs):
        neg = int((lab.to_numpy(dtype=np.float64) < 0).sum())
        if neg:
            out[("negative_label", plan.label)] = neg
    return out


def _partition_moments(pdf: pd.DataFrame, ev: Evaluation, plan: Plan) -> dict[tuple, np.ndarray]:
    """Clustered-DeLong moments per segment from the rows' placement columns."""
    from ._delong import delong_moments

    if len(plan.placement_columns) != len(plan.scores):
        raise ValueError("placement_columns needs one column per score column")
    _ensure_group_stats(ev)
    groups = ev.prepared.encode_groups()
    if groups is None:  # pragma: no cover - a summary always has groups
        raise internal_error("DeLong moments need group codes")
    n_all = ev.group_stats["n"].shape[0]
    gi = np.searchsorted(np.asarray(ev.group_stats["code"]), groups.codes)
    rel = ev.labels.rel
    a = np.empty((n_all, len(plan.scores)))
    b = np.empty((n_all, len(plan.scores)))
    for k, col in enumerate(plan.placement_columns):
        place = pdf[col].to_numpy(dtype=np.float64)
        a[:, k] = np.bincount(gi, weights=np.where(rel, place, 0.0), minlength=n_all)
        b[:, k] = np.bincount(gi, weights=np.where(rel, 0.0, place), minlength=n_all)
    m = np.asarray(ev.group_stats["positives"], dtype=np.float64)
    n = np.asarray(ev.group_stats["n"], dtype=np.float64) - m
    seg_index, keys = _segment_keys(ev, plan)
    out = {}
    for si, key in enumerate(keys):
        sel = seg_index == si
        out[key] = delong_moments(m[sel], n[sel], a[sel], b[sel])
    return out


# --------------------------------------------------------------------------- #
# Global AUC: exact counts
# --------------------------------------------------------------------------- #
@dataclass(frozen=True)
class AucCounts:
    """Exact Mann-Whitney counts of one score column (Python ints, no overflow).

    ``greater``: (relevant, non-relevant) pairs with the relevant row scored higher;
    ``tied``: pairs with equal scores. With float (sample-weighted) counts the fields
    are floats.
    """

    pos: int
    neg: int
    greater: int
    tied: int

    @property
    def twice_u(self) -> int:
        """2 U under ties='expected' (a tied pair counts 1/2): an integer."""
        return 2 * self.greater + self.tied

    def value(self, ties: str = "expected") -> float:
        """AUC under a tie rule: tied pairs count 1/2 ('expected'), 0 ('pessimistic'), 1 ('optimistic')."""
        check_option(ties, "ties", "AucCounts.value", ("expected", "pessimistic", "optimistic"))
        if not self.pos or not self.neg:
            return math.nan
        if ties == "expected":
            num, den = self.twice_u, 2 * self.pos * self.neg
        elif ties == "pessimistic":
            num, den = self.greater, self.pos * self.neg
        else:
            num, den = self.greater + self.tied, self.pos * self.neg
        return float(num / den)  # int / int: correctly rounded for any size

    def __add__(self, other: AucCounts) -> AucCounts:  # pragma: no cover - use chain_auc
        raise TypeError("AUC counts of score ranges are chained (chain_auc), not added")


_INT64_MAX = 2**63 - 1


def _exact_sum(a: np.ndarray) -> int:
    if a.shape[0] == 0:
        return 0
    if int(a.max()) * a.shape[0] <= _INT64_MAX and int(a.min()) >= 0:
        return int(a.sum())
    return int(sum(int(x) for x in a.tolist()))


def auc_counts_sorted(pos: np.ndarray, neg: np.ndarray) -> tuple[int, int, int, int]:
    """Mann-Whitney counts of one range partition of DISTINCT scores, ascending.

    ``pos[i]``, ``neg[i]``: relevant / non-relevant rows (or their summed sample
    weights) at the i-th distinct score. Returns ``(pos_total, neg_total, greater,
    tied)``: exact Python ints for integer counts (int64 arithmetic where the totals
    prove it cannot overflow, Python integers on the distinct-score arrays
    otherwise), floats for float counts. Chain partitions with :func:`chain_auc`.

    Examples
    --------
    >>> import numpy as np
    >>> auc_counts_sorted(np.array([0, 1, 1]), np.array([2, 1, 0]))  # scores 1 < 2 < 3
    (2, 3, 5, 1)
    """
    pos = np.asarray(pos)
    neg = np.asarray(neg)
    if pos.shape != neg.shape or pos.ndim != 1:
        raise ValueError("pos and neg must be 1-d arrays of the same length")
    if pos.dtype.kind == "f" or neg.dtype.kind == "f":
        p = pos.astype(np.float64)
        q = neg.astype(np.float64)
        below = np.cumsum(q) - q
        return float(p.sum()), float(q.sum()), float(np.dot(p, below)), float(np.dot(p, q))
    if pos.dtype.kind not in "iub" or neg.dtype.kind not in "iub":
        raise TypeError("pos and neg must be integer (or float) counts")
    if (pos.size and int(pos.min()) < 0) or (neg.size and int(neg.min()) < 0):
        raise ValueError("counts must be >= 0")
    P = _exact_sum(pos)
    N = _exact_sum(neg)
    if P * N <= _INT64_MAX and N <= _INT64_MAX:
        # every partial sum of pos_i * below_i and of pos_i * neg_i is at most P * N
        p = pos.astype(np.int64)
        q = neg.astype(np.int64)
        below = np.cumsum(q) - q
        return P, N, int(np.dot(p, below)), int(np.dot(p, q))
    return _auc_counts_exact(pos, neg)


def _auc_counts_exact(pos: np.ndarray, neg: np.ndarray) -> tuple[int, int, int, int]:
    """Python integers on the (distinct-score) arrays: no bound needed."""
    greater = tied = acc = P = 0
    for pi, qi in zip(pos.tolist(), neg.tolist()):
        if pi:
            greater += pi * acc
            tied += pi * qi
            P += pi
        acc += qi
    return P, acc, greater, tied


def chain_auc(parts: Sequence[tuple[Any, Any, Any, Any]]) -> AucCounts:
    """Chain per-partition counts given in ascending score order (partitions disjoint in score).

    ``greater = sum_p greater_p + pos_p * (non-relevant rows of all earlier partitions)``;
    no tie straddles two partitions of distinct scores. Python integers throughout.

    Examples
    --------
    >>> c = chain_auc([(0, 2, 0, 0), (2, 1, 1, 1)])  # the example of auc_counts_sorted, split
    >>> c, c.value()
    (AucCounts(pos=2, neg=3, greater=5, tied=1), 0.9166666666666666)
    """
    P = N = greater = tied = 0
    for p, n, g, t in parts:
        isint = all(isinstance(x, (int, np.integer)) for x in (p, n, g, t))
        conv = int if isint else float
        p, n, g, t = conv(p), conv(n), conv(g), conv(t)
        greater = greater + g + p * N
        tied = tied + t
        P = P + p
        N = N + n
    return AucCounts(P, N, greater, tied)


def chain_offsets(parts: Sequence[tuple[Any, Any, Any, Any]]) -> list[tuple[int, int]]:
    """Per range partition (ascending score order): (non-relevant rows in the partitions
    before it, relevant rows in the partitions after it), Python ints. With
    :func:`placements_sorted` they give every row its global DeLong placement.

    Examples
    --------
    >>> chain_offsets([(0, 2, 0, 0), (2, 1, 1, 1)])
    [(0, 2), (2, 0)]
    """
    negs = [int(p[1]) for p in parts]
    poss = [int(p[0]) for p in parts]
    out = []
    before = 0
    after = sum(poss)
    for p, n in zip(poss, negs):
        after -= p
        out.append((before, after))
        before += n
    return out


def placements_sorted(
    pos: np.ndarray, neg: np.ndarray, neg_before: int = 0, pos_after: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """Unnormalized DeLong placements at each DISTINCT score of one range partition (ascending).

    A relevant row at score i is placed above ``neg_before + (non-relevant rows below i
    in this partition) + neg[i] / 2`` non-relevant rows; a non-relevant row below
    ``pos_after + (relevant rows above i in this partition) + pos[i] / 2`` relevant rows
    (ties count 1/2, ``ties="expected"``). Returns ``(for relevant rows, for
    non-relevant rows)`` as float64: give every row the value of its score and class in
    a placement column of the plan (``make_plan(placement_columns=...)``).

    Examples
    --------
    >>> a, b = placements_sorted(np.array([0, 1, 1]), np.array([2, 1, 0]))
    >>> a.tolist(), b.tolist()
    ([1.0, 2.5, 3.0], [2.0, 1.5, 0.5])
    """
    p = np.asarray(pos, dtype=np.float64)
    q = np.asarray(neg, dtype=np.float64)
    below = np.cumsum(q) - q + float(neg_before)
    above = (p.sum() - np.cumsum(p)) + float(pos_after)
    return below + 0.5 * q, above + 0.5 * p


def _auc_value(v: Any, ties: str) -> float:
    if isinstance(v, AucCounts):
        return v.value(ties)
    return float(v)


# --------------------------------------------------------------------------- #
# finalize
# --------------------------------------------------------------------------- #
def _raise_input_errors(summary: Summary, plan: Plan) -> None:
    bad = {c: int(summary.missing[c]) for c in plan.columns if summary.missing.get(c)}
    for c, k in summary.missing.items():  # columns outside the plan's list, if any
        if k and c not in bad:
            bad[c] = int(k)
    if bad and plan.options.nan_policy == "raise":
        raise missing_values_error(bad)
    if summary.n_rows == 0 and summary.n_dropped and not summary.problems:
        raise ValueError(
            f"{plan.func}: every row has a missing value in {list(bad)!r}; nothing is left to evaluate."
        )
    probs = summary.problems
    for (kind, col), count in sorted(probs.items(), key=lambda kv: ["infinite_label", "bad_weight",
                                                                       "negative_label"].index(kv[0][0])):
        s = "s" if count != 1 else ""
        if kind == "infinite_label":
            raise ValueError(
                f"Column {col!r} (label) has {count:,} infinite value{s}; labels must be finite numbers or bools."
            )
        if kind == "bad_weight":
            raise ValueError(
                f"Column {col!r} (weight) has {count:,} negative or infinite value{s}; weights must be finite and >= 0."
            )
        raise ValueError(
            f"Column {col!r} has {count:,} negative label{s}; NDCG needs "
            "labels >= 0 (graded relevance). Clip or shift them first."
        )
    if summary.n_rows == 0:
        if summary.n_dropped:
            raise ValueError(
                f"{plan.func}: every row has a missing value in {list(bad)!r}; nothing is left to evaluate."
            )
        raise ValueError(f"{plan.func} got an empty DataFrame (0 rows); there is nothing to evaluate.")
    if plan.options.empty == "error":
        tot = _totals(summary, plan)
        n_groups = sum(s["n_groups"] for s in summary.segments.values())
        for j, (score, name) in enumerate(plan.items):
            if score != plan.scores[0]:
                break
            n_empty = int(tot["counts"][j, _C["n_empty"]])
            if n_empty:
                raise ValueError(
                    f"{name}: {n_empty:,} of {n_groups:,} groups have no relevant row. "
                    "Pass empty='zero' to score them 0 or empty='skip' to leave them out."
                )


def _totals(summary: Summary, plan: Plan) -> dict[str, Any]:
    """The sum of every segment (the whole table)."""
    segs = list(summary.segments.values())
    if not segs:
        n_items, n_boot, n_pairs = summary.shape
        return _seg_zero(n_items, n_boot, n_pairs, plan.method != "bootstrap")
    tot = segs[0]
    for seg in segs[1:]:
        tot = _seg_add(tot, seg)
    return tot


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        r = num / den
    return np.where(den > 0, r, np.nan)


def _coverage(seg: dict[str, Any], j: int, n_dropped: int) -> Coverage:
    c = seg["counts"][j]
    n_rows = seg["n_rows"]
    total_pos = seg["n_pos"]
    return Coverage(
        n_rows=n_rows,
        n_groups=seg["n_groups"],
        n_used=int(c[_C["n_used"]]),
        n_only_pos=int(c[_C["n_only_pos"]]),
        n_only_neg=int(c[_C["n_only_neg"]]),
        n_filtered=int(c[_C["n_filtered"]]),
        n_empty=int(c[_C["n_empty"]]),
        rows_skipped_share=float(int(c[_C["rows_skipped"]]) / max(n_rows, 1)),
        positives_skipped_share=float(int(c[_C["pos_skipped"]]) / total_pos) if total_pos else 0.0,
        n_dropped=n_dropped,
        n_zero_weight=int(c[_C["n_zero_weight"]]),
        rows_filtered_share=float(int(c[_C["rows_filtered"]]) / max(n_rows, 1)) if c[_C["n_filtered"]] else 0.0,
        positives_filtered_share=(
            float(int(c[_C["pos_filtered"]]) / total_pos) if (total_pos and c[_C["n_filtered"]]) else 0.0
        ),
    )


def _auc_coverage(summary: Summary, plan: Plan) -> Coverage:
    """Coverage of global AUC over the whole table (every row pooled)."""
    n_rows = summary.n_rows
    segs = summary.segments.values()
    npos = sum(s["n_pos"] for s in segs)
    both = 0 < npos < n_rows
    zero_weight = (
        both and plan.options.sample_weight is not None
        and not (sum(s["sw_pos"] for s in segs) > 0 and sum(s["sw_neg"] for s in segs) > 0)
    )
    ok = both and not zero_weight
    return Coverage(
        n_rows=n_rows,
        n_groups=1,
        n_used=int(ok),
        n_only_pos=int(npos == n_rows),
        n_only_neg=int(npos == 0),
        n_zero_weight=int(zero_weight),
        rows_skipped_share=0.0 if ok else 1.0,
        positives_skipped_share=0.0 if ok or not npos else 1.0,
        n_dropped=summary.n_dropped,
        grouped=False,
    )


def _whole_table(summary: Summary, plan: Plan) -> dict[str, Any]:
    """The sum of every segment, with the table's totals."""
    tot = _totals(summary, plan)
    segs = summary.segments.values()
    tot["n_groups"] = sum(s["n_groups"] for s in segs)
    tot["n_rows"] = summary.n_rows
    tot["n_pos"] = sum(s["n_pos"] for s in segs)
    return tot


def _metric_coverage(summary: Summary, plan: Plan, score: Hashable) -> dict[str, tuple[float, Coverage]]:
    """Whole-table (value, coverage) of every metric of one score column, for footers and warnings.

    Global AUC's value is only used to decide the warning: NaN exactly when it has no pair.
    """
    tot = _whole_table(summary, plan)
    out: dict[str, tuple[float, Coverage]] = {}
    for name in plan.metrics:
        if name == "auc":
            cov = _auc_coverage(summary, plan)
            out[name] = (1.0 if cov.n_used else math.nan, cov)
            continue
        j = plan.items.index((score, name))
        value = float(_ratio(tot["sums"][j, 0], tot["sums"][j, 1]))
        out[name] = (value, _coverage(tot, j, summary.n_dropped))
    return out


def _segment_order(keys: list[tuple]) -> list[tuple]:
    """Segments in key order (country "de" before "fr"); keys that do not compare keep their order."""
    try:
        return sorted(keys)
    except TypeError:
        return list(keys)


def _auc_lookup(auc: dict | None, key: tuple, score: Hashable, plan: Plan) -> float:
    if auc is None:
        raise ValueError(f"{plan.func}: global AUC was asked for, but no AUC counts were given to finalize")
    for k in ((key, score), (key[0] if len(key) == 1 else key, score)):
        if k in auc:
            return _auc_value(auc[k], plan.options.ties)
    if not key and score in auc:
        return _auc_value(auc[score], plan.options.ties)
    raise ValueError(f"{plan.func}: no global AUC counts for segment {key!r} and score {score!r}")


def _auc_reps(auc_boot: dict | None, key: tuple, score: Hashable, plan: Plan) -> np.ndarray:
    if auc_boot is not None:
        for k in ((key, score), (key[0] if len(key) == 1 else key, score)):
            if k in auc_boot:
                return np.asarray(auc_boot[k], dtype=np.float64)
        if not key and score in auc_boot:
            return np.asarray(auc_boot[score], dtype=np.float64)
    raise ValueError(
        f"{plan.func}: an interval for global AUC needs its bootstrap replicates; "
        "this engine gave none (leave 'auc' out of the metrics, or drop ci=)"
    )


def finalize(
    summary: Summary,
    plan: Plan,
    *,
    auc: dict | None = None,
    auc_boot: dict | None = None,
    delong: dict | None = None,
) -> Any:
    """Client side: check with whole-table counts, divide, and build the pandas result.

    Parameters
    ----------
    summary : Summary
        The sum of every partition's summary.
    plan : Plan
        The plan the summaries were made with.
    auc : dict, optional
        ``{(segment key, score): AucCounts or float}`` for global AUC (segment key
        ``()`` without ``by``), computed by the engine's own score pass.
    auc_boot : dict, optional
        ``{(segment key, score): array of n_boot replicates}`` of global AUC under the
        same hashed bootstrap, when an interval of global AUC by bootstrap is asked for
        (``auc_method="bootstrap"``, or a tie rule other than "expected").
    delong : dict, optional
        ``{segment key: moment matrix}`` of :func:`pandas_rankeval._delong.delong_moments`
        over the plan's scores (in order), summed over partitions: the clustered-DeLong
        interval and test of global AUC (``auc_method="delong"``, the default).

    Returns
    -------
    MetricResult (kind "metric"), or the ResultTable of report / compare.
    """
    _raise_input_errors(summary, plan)
    if plan.kind == "metric":
        return _finalize_metric(summary, plan, auc)
    if plan.kind == "report":
        return _finalize_report(summary, plan, auc, auc_boot, delong)
    return _finalize_compare(summary, plan, auc, auc_boot, delong)


def _finalize_metric(summary: Summary, plan: Plan, auc: dict | None) -> MetricResult:
    from ._evaluate import GroupValues, warn_if_needed

    spec = plan.all_specs[0]
    score = plan.scores[0]
    if spec.kind == "auc":
        value = _auc_lookup(auc, (), score, plan)
        cov = _auc_coverage(summary, plan)
    else:
        value, cov = _metric_coverage(summary, plan, score)[spec.name]
    empty = np.zeros(0)
    warn_if_needed(GroupValues(spec, empty, empty, empty, value, cov), plan.func)
    return MetricResult(value, metric=spec.name, coverage=cov, params=plan.options.params(spec))


def _seg_values(seg: dict[str, Any], plan: Plan, key: tuple, auc: dict | None) -> dict[tuple, float]:
    point = _ratio(seg["sums"][:, 0], seg["sums"][:, 1]) if seg["sums"].size else np.zeros(0)
    out = {item: float(point[j]) for j, item in enumerate(plan.items)}
    if plan.has_auc:
        for s in plan.scores:
            out[(s, "auc")] = _auc_lookup(auc, key, s, plan)
    return out


def _seg_reps(seg: dict[str, Any], plan: Plan, key: tuple, auc_boot: dict | None) -> dict[tuple, np.ndarray]:
    boot = seg["boot"]
    out: dict[tuple, np.ndarray] = {}
    if boot is not None:
        reps = _ratio(boot[:, :, 0], boot[:, :, 1])
        for j, item in enumerate(plan.items):
            out[item] = reps[:, j]
    if plan.has_auc and not plan.auc_delong:
        for s in plan.scores:
            out[(s, "auc")] = _auc_reps(auc_boot, key, s, plan)
    return out


def ci_method(plan: Plan, paired: bool = False) -> str:
    """The words for the bootstrap interval (``attrs``, footers)."""
    stud = plan.ci_method == "studentized"
    if paired:
        base = ("studentized (bootstrap-t)" if stud else "percentile") + " paired bootstrap over groups"
    else:
        base = ("studentized bootstrap (bootstrap-t)" if stud else "percentile bootstrap") + " over groups"
    if plan.resample == "poisson":
        base += " (hashed Poisson(1) weights)"
    return base


def _studentized(
    seg: dict[str, Any], t: int, js: list[int], signs: list[float], point: float, reps: np.ndarray, ci: float
) -> tuple[float, float]:
    """Bootstrap-t interval of target t (``sum_k s_k R_k`` over items js) in one segment."""
    from ._studentized import _se, studentized_interval

    sums, boot = seg["sums"], seg["boot"]
    sg = np.array(signs)
    r0 = _ratio(sums[js, 0], sums[js, 1])[None, :]
    se0 = _se(r0, sg, sums[js, 1][None, :], seg["gram"][t][None, :])
    r = _ratio(boot[:, js, 0], boot[:, js, 1])
    se_r = _se(r, sg, boot[:, js, 1], seg["boot_gram"][:, t, :])
    lo, hi = studentized_interval(np.array([point]), se0, reps[:, None], se_r[:, None], ci)
    return float(lo[0]), float(hi[0])


def _report_ci_info(plan: Plan) -> dict[str, Any]:
    from ._delong import METHOD, delong_unavailable

    names = list(plan.metrics)
    analytic = ["auc"] if plan.auc_delong else []
    boot = [n for n in names if n not in analytic]
    dl = METHOD + (" (per segment)" if plan.by else "")
    note = "; auc: percentile bootstrap" if plan.ci_method == "studentized" and plan.has_auc and not analytic else ""
    info: dict[str, Any] = {
        "level": plan.ci,
        "method": ci_method(plan) + (" (stratified by segment)" if plan.by and plan.resample != "poisson" else "")
        + note,
        "n_boot": plan.n_boot,
        "seed": plan.seed_repr,
    }
    if analytic and boot:
        info["method"] = f"{info['method']}; auc: {dl}"
    elif analytic:
        info = {"level": plan.ci, "method": dl}
    elif plan.has_auc and plan.auc_method == "delong":
        info["method"] = f"{info['method']} (auc too: {delong_unavailable(plan.options.ties)})"
    return info


def _finalize_report(
    summary: Summary, plan: Plan, auc: dict | None, auc_boot: dict | None, delong: dict | None
) -> Any:
    from ._delong import normal_interval
    from ._display import as_result_table
    from ._stats import percentile_interval

    names = list(plan.metrics)
    specs = {s.name: s for s in plan.all_specs}
    item_j = {item: j for j, item in enumerate(plan.items)}
    group_names = [n for n in names if specs[n].kind != "auc"]
    gauc_names = [n for n in names if specs[n].kind == "gauc"]
    has_list = any(specs[n].kind not in ("auc", "gauc") for n in names)
    keys = _segment_order(list(summary.segments)) if plan.by else [()]
    rows: list[dict[str, Any]] = []
    index: list[Any] = []
    ci_cols: list[dict[str, float]] = []
    for key in keys:
        seg = summary.segments.get(key)
        if seg is None:  # pragma: no cover - every key comes from the summary
            raise internal_error("a segment without a summary")
        values = _seg_values(seg, plan, key, auc)
        reps = _seg_reps(seg, plan, key, auc_boot) if plan.ci is not None else None
        var = None
        if plan.ci is not None and plan.auc_delong:
            var = np.diag(_delong_of(delong, key, plan, seg)[1])
        for s in plan.scores:
            out: dict[str, Any] = {n: values[(s, n)] for n in names}
            if group_names or plan.by:
                out["n_groups"] = seg["n_groups"]
            out["n_rows"] = seg["n_rows"]
            if gauc_names:
                c = seg["counts"][item_j[(s, gauc_names[0])]]
                out["gauc_groups_used"] = int(c[_C["n_used"]])
                out["gauc_rows_skipped"] = float(int(c[_C["rows_skipped"]]) / max(seg["n_rows"], 1))
            if has_list:
                out["groups_no_relevant"] = seg["n_nopos"]
            if summary.n_dropped:
                out["rows_dropped"] = summary.n_dropped
            rows.append(out)
            index.append((*key, s) if plan.by else s)
            if reps is not None and plan.ci is not None:
                iv: dict[str, float] = {}
                for n in names:
                    ok = math.isfinite(out[n])
                    if n == "auc" and var is not None:
                        lo, hi = normal_interval(
                            np.array([out[n]]), var[plan.scores.index(s) : plan.scores.index(s) + 1], plan.ci,
                            clip=(0.0, 1.0),
                        )
                    elif n != "auc" and plan.ci_method == "studentized":
                        j = item_j[(s, n)]
                        lo, hi = (np.array([v]) for v in _studentized(seg, j, [j], [1.0], out[n], reps[(s, n)], plan.ci))
                    else:
                        lo, hi = percentile_interval(reps[(s, n)][:, None], plan.ci)
                    iv[f"{n}_low"] = float(lo[0]) if ok else math.nan
                    iv[f"{n}_high"] = float(hi[0]) if ok else math.nan
                ci_cols.append(iv)
    if plan.by:
        idx: pd.Index = pd.MultiIndex.from_tuples(index, names=[*plan.by, "model"])
    else:
        idx = pd.Index(plan.scores, name="model", tupleize_cols=False)  # tuple names stay names
    table = pd.DataFrame(rows, index=idx)
    if ci_cols:
        cols: list[Hashable] = []
        for c in list(table.columns):
            cols.append(c)
            if c in names:
                table[f"{c}_low"] = [iv[f"{c}_low"] for iv in ci_cols]
                table[f"{c}_high"] = [iv[f"{c}_high"] for iv in ci_cols]
                cols += [f"{c}_low", f"{c}_high"]
        table = table[cols]
        table.attrs["ci"] = _report_ci_info(plan)
    table.attrs["params"] = {n: plan.options.params(specs[n]) for n in names}
    first = _metric_coverage(summary, plan, plan.scores[0])
    table.attrs["coverage"] = {n: first[n][1].as_dict() for n in names}
    table = as_result_table(table, "report")
    # which groups a metric uses depends on the labels only: one warning covers every model
    warn_once(plan.func, [(n, first[n][0], first[n][1]) for n in names])
    return table


def flip_pvalues(obs: np.ndarray, abs_sum: np.ndarray, reps: np.ndarray, n_flips: int) -> np.ndarray:
    """Randomization p-values from the hashed sign flips: T* = T - 2 sum_{b=1} w d."""
    t = np.abs(obs)
    tol = 1e-10 * abs_sum
    t_star = obs[None, :] - 2.0 * reps
    hits = (np.abs(t_star) >= t - tol).sum(axis=0)
    return (1.0 + hits) / (1.0 + n_flips)


def _delong_of(
    delong: dict | None, key: tuple, plan: Plan, seg: dict | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """AUCs of the plan's scores and their clustered-DeLong covariance in one segment."""
    from ._delong import delong_from_moments

    if (delong is None or key not in delong) and seg is not None and seg.get("delong") is not None:
        return delong_from_moments(seg["delong"])
    if delong is None or key not in delong:
        raise ValueError(
            f"{plan.func}: the clustered DeLong interval of global AUC needs its moment matrix "
            f"for segment {key!r}; this engine gave none (pass auc_method='bootstrap', or leave 'auc' out)"
        )
    return delong_from_moments(np.asarray(delong[key], dtype=np.float64))


def _compare_ci_method(plan: Plan, analytic: list[str], boot_names: list[str]) -> str:
    from ._delong import METHOD

    strata = bool(plan.by) and plan.resample != "poisson"
    boot = f"{ci_method(plan, paired=True)}, {plan.n_boot} replicates" + (" (stratified by segment)" if strata else "")
    dl = METHOD + (" (per segment)" if plan.by else "")
    if not analytic:
        return boot
    if not boot_names:
        return dl
    return f"{boot}; {', '.join(analytic)}: {dl}"


def _finalize_compare(
    summary: Summary, plan: Plan, auc: dict | None, auc_boot: dict | None, delong: dict | None
) -> Any:
    from ._delong import TEST as DELONG_TEST
    from ._delong import delong_unavailable, normal_interval, z_test
    from ._display import as_result_table
    from ._stats import bootstrap_pvalues, holm, percentile_interval
    from .compare import _BOOTSTRAP, _RANDOMIZATION, COLUMNS

    names = list(plan.metrics)
    kinds = {s.name: s.kind for s in plan.all_specs}
    baseline = plan.baseline
    models = [s for s in plan.scores if s != baseline]
    pairs = [(m, n) for m in models for n in names]
    no_delong = delong_unavailable(plan.options.ties)
    analytic = [n for n in names if kinds[n] == "auc"] if plan.auc_method == "delong" and no_delong is None else []
    tot = _totals(summary, plan)
    pair_index = {(m, n): p for p, (m, _, n) in enumerate(plan.flip_pairs)}
    flip_ok = {k for k, p in pair_index.items() if tot["flip_mismatch"][p] == 0} if plan.method != "bootstrap" else set()
    keys = _segment_order(list(summary.segments)) if plan.by else [()]
    blocks = []
    for key in keys:
        seg = summary.segments[key]
        n_pairs = len(pairs)
        base, value, diff, lo, hi, p = (np.full(n_pairs, np.nan) for _ in range(6))
        used = np.zeros(n_pairs, dtype=np.int64)
        point = _ratio(seg["sums"][:, 0], seg["sums"][:, 1]) if seg["sums"].size else np.zeros(0)
        reps = _ratio(seg["boot"][:, :, 0], seg["boot"][:, :, 1]) if seg["boot"] is not None else None
        item_j = {item: j for j, item in enumerate(plan.items)}
        if analytic:
            a, cov = _delong_of(delong, key, plan, seg)
        for i, (m, n) in enumerate(pairs):
            if kinds[n] == "auc":
                used[i] = seg["n_groups"]  # global AUC pools the rows of every group
                jm, jb = plan.scores.index(m), plan.scores.index(baseline)
                if analytic:
                    base[i], value[i] = a[jb], a[jm]
                    diff[i] = a[jm] - a[jb]
                    var = cov[jm, jm] + cov[jb, jb] - 2.0 * cov[jm, jb]
                    lo_i, hi_i = normal_interval(np.array([diff[i]]), np.array([var]), plan.ci)  # type: ignore[arg-type]
                    lo[i], hi[i] = lo_i[0], hi_i[0]
                    p[i] = z_test(np.array([diff[i]]), np.array([var]))[0]
                    continue
                base[i] = _auc_lookup(auc, key, baseline, plan)
                value[i] = _auc_lookup(auc, key, m, plan)
                d_rep = _auc_reps(auc_boot, key, m, plan) - _auc_reps(auc_boot, key, baseline, plan)
            else:
                k = pair_index[(m, n)]
                used[i] = int(seg["pair_used"][k])
                jm, jb = item_j[(m, n)], item_j[(baseline, n)]
                base[i], value[i] = point[jb], point[jm]
                if reps is None:
                    raise internal_error("compare needs bootstrap sums")
                d_rep = reps[:, jm] - reps[:, jb]
            diff[i] = value[i] - base[i]
            if kinds[n] != "auc" and plan.ci_method == "studentized":
                k = pair_index[(m, n)]
                lo[i], hi[i] = _studentized(
                    seg, k, [item_j[(m, n)], item_j[(baseline, n)]], [1.0, -1.0], diff[i], d_rep, plan.ci,  # type: ignore[arg-type]
                )
            else:
                lo_i, hi_i = percentile_interval(d_rep[:, None], plan.ci)  # type: ignore[arg-type]
                lo[i], hi[i] = lo_i[0], hi_i[0]
            p[i] = bootstrap_pvalues(np.array([diff[i]]), d_rep[:, None])[0]
            if (m, n) in flip_ok and seg["flip_reps"] is not None:
                k = pair_index[(m, n)]
                p[i] = flip_pvalues(
                    seg["flip_obs"][k : k + 1], seg["flip_abs"][k : k + 1], seg["flip_reps"][:, k : k + 1],
                    plan.n_boot,
                )[0]
        p = np.where(np.isfinite(diff), p, np.nan)
        blocks.append((base, value, diff, lo, hi, p, used))
    columns = ("baseline_value", "value", "diff", "ci_low", "ci_high", "p_value", "groups_used")
    data = {c: np.concatenate([b[i] for b in blocks]) for i, c in enumerate(columns)}
    with np.errstate(divide="ignore", invalid="ignore"):
        data["lift"] = np.where(data["baseline_value"] != 0, data["diff"] / data["baseline_value"], np.nan)
    data["p_holm"] = holm(data["p_value"])
    data["significant"] = np.nan_to_num(data["p_holm"], nan=1.0) < plan.alpha
    if plan.by:
        tuples = [(*key, m, n) for key in keys for m, n in pairs]
        index = pd.MultiIndex.from_tuples(tuples, names=[*plan.by, "model", "metric"])
    else:
        index = pd.MultiIndex.from_tuples(pairs, names=["model", "metric"])
    out = pd.DataFrame(data, index=index)[COLUMNS]
    method = plan.method
    tests: dict[str, Any] = {
        n: _BOOTSTRAP if method == "bootstrap" or kinds[n] == "auc" else _RANDOMIZATION for n in names
    }
    for n in names:
        if n in analytic:
            tests[n] = DELONG_TEST
        elif kinds[n] == "auc" and plan.auc_method == "delong":
            tests[n] = f"{_BOOTSTRAP}; {no_delong}"
    fallback = [f"{m}/{n}" for m, n in pairs if kinds[n] != "auc" and method != "bootstrap" and (m, n) not in flip_ok]
    if fallback:
        tests["bootstrap_fallback"] = fallback
    first = _metric_coverage(summary, plan, baseline)
    boot_names = [n for n in names if n not in analytic]
    out.attrs = {
        "baseline": baseline,
        "test": tests,
        "ci_method": _compare_ci_method(plan, analytic, boot_names),
        "ci": plan.ci,
        "n_boot": plan.n_boot,
        "seed": plan.seed_repr,
        "alpha": plan.alpha,
        "multiple_testing": "Holm over all rows",
        "params": {s.name: plan.options.params(s) for s in plan.all_specs},
        "coverage": {n: first[n][1].as_dict() for n in names},
        "table": "compare",
    }
    # coverage depends on the labels only: one warning, not one per model
    warn_once(plan.func, [(n, first[n][0], first[n][1]) for n in names])
    return as_result_table(out, "compare")


# --------------------------------------------------------------------------- #
# pandas: the one-partition case
# --------------------------------------------------------------------------- #
def resolve_resample(resample: str | None, ci_method: str, func: str) -> str:
    """The bootstrap of a pandas call: the hashed Poisson one unless asked otherwise.

    ``None`` (the default of the pandas functions) is ``"poisson"``.
    """
    if resample is None:
        return "poisson"
    check_option(resample, "resample", func, RESAMPLES)
    return resample


def _pandas_segments(ev: Evaluation, plan: Plan) -> list[tuple[tuple, np.ndarray | None, np.ndarray | None]]:
    """(segment key, its groups (indices of the per-group arrays), its rows mask) per segment."""
    n_groups = ev.group_stats["n"].shape[0]
    if not plan.by:
        return [((), None, None)]
    seg_index, keys = _segment_keys(ev, plan)
    from .report import segment_of_groups

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
    from . import _engine as E

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
        from ._delong import segment_moments

        moments = segment_moments(ev, plan.scores, plan.by, plan.func)
        out["delong"] = {tuple(_plain(v) for v in k): G for k, G in moments.items()}
        return out
    if plan.resample != "poisson":  # pragma: no cover - the multinomial path never gets here
        raise internal_error("the hashed AUC replicates need resample='poisson'")
    from ._stats import Stratum, row_groups

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


def metric_plan(
    options: Options, spec: MetricSpec, *, group: Any, label: Hashable, score: Hashable, df: Any = None
) -> Plan:
    """The plan of a single-metric function from its checked options."""
    o = options
    return make_plan(
        o.func, kind="metric", group=group, label=label, scores=score, metrics=spec, weight=o.weight,
        min_size=o.min_size, min_pos=o.min_pos, min_neg=o.min_neg, ties=o.ties, tiebreak=o.tiebreak,
        threshold=o.threshold, gain=o.gain, denominator=o.denominator, empty=o.empty,
        sample_weight=o.sample_weight, max_fpr=o.max_fpr, engine=o.engine, nan_policy=o.nan_policy,
        progress=o.progress, df=df if isinstance(df, pd.DataFrame) else None,
    )


def finalize_evaluation(ev: Evaluation, plan: Plan) -> Any:
    """pandas: summarize the one evaluation (one partition), add the AUC pieces, finalize."""
    _ensure_group_stats(ev)
    key_hashes = H.key_hash(ev.keys) if plan.hashed_boot else None
    summary = summarize_evaluation(ev, plan, key_hashes=key_hashes)
    return finalize(summary, plan, **pandas_extras(ev, plan, key_hashes))
