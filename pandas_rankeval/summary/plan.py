"""The plan: everything decided on the client before any compute (stage 3 of the pipeline).

:func:`make_plan` checks the options of a public call against the frame's schema (or a pandas
frame itself) and returns a small, picklable :class:`Plan` that every engine hands to the
per-partition summary (:mod:`.partition`) and to the finalizing of the result.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
import dataclasses
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ..inference.hashing import seed_to_int
from ..core.metrics.ips import check_ips_options, ips_columns
from ..core.inputs.options import WEIGHT_NAMES, Options, WeightLike
from ..core.metrics.relaimpr import LIFTS
from ..core.metrics.registry import MetricSpec, check_sample_weight, parse_metrics
from ..core.inputs.validation import as_columns, check_column_name, check_compare_scores, check_option

__all__ = ["Plan", "compare_pairs", "global_pass", "make_plan", "resolve_resample", "COUNTERS", "COUNTER_INDEX"]


#: Counters per (segment, item), exact int64: groups used, skipped per reason, rows and
#: positives in skipped groups and in the groups the filters dropped.
COUNTERS = (
    "n_used", "n_only_pos", "n_only_neg", "n_filtered", "n_empty", "n_zero_weight",
    "rows_skipped", "pos_skipped", "rows_filtered", "pos_filtered",
)
COUNTER_INDEX = {name: i for i, name in enumerate(COUNTERS)}

KINDS = ("metric", "report", "compare", "per_group")
RESAMPLES = ("poisson", "multinomial")
METHODS = ("auto", "randomization", "bootstrap")
ADJUSTMENTS = ("holm", "bh", "none")
FAMILIES = ("table", "metric")
CI_ADJUSTMENTS = ("none", "bonferroni")


_FORMAT = 7  # version of the bytes of a Summary (3: segments stacked in arrays; 4: n_graded; 5: sf_hist;
# 6: sf_hist keyed to 12 significant digits; 7: dropped_by, the rows dropped per segment)


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
    baseline: Hashable | None = None  # compare: None = every pair of scores
    alpha: float = 0.05
    method: str = "auto"
    adjust: str = "holm"
    family: str = "table"
    ci_adjust: str = "none"  # compare: "bonferroni" widens each interval to the family's level
    lift: str = "relative"  # compare: "relaimpr" (RelaImpr on AUC-type metrics, with an interval)
    auc_method: str = "delong"
    ci_method: str = "percentile"
    placement_columns: tuple[Hashable, ...] = ()  # per score: each row's DeLong placement (engines)
    streams: tuple[Any, ...] = ()  # resample="multinomial": the (bootstrap, sign-flip) Generators
    per_model_columns: bool = False  # per_group(scores=[...]): columns "<model>_<metric>"
    global_metric: str = "auc"  # what the global pass counts: "auc", or "xauc" (pre.xauc on a partitioned frame)
    #: no group column: the group key is the row number (every row its own group), so the pooled
    #: metrics' coverage reads rows pooled, not groups
    row_groups: bool = False

    @property
    def targets(self) -> list[list[tuple[int, float]]]:
        """Statistics of the studentized interval: (item index, sign) lists, one per item
        (report) or per (model - baseline) group-metric pair (compare, the order of
        ``flip_pairs``); empty unless ``ci_method="studentized"``."""
        if self.ci_method != "studentized" or not self.n_replicates:
            return []
        col = {item: j for j, item in enumerate(self.items)}
        if self.kind == "compare":
            return [[(col[(m, n)], 1.0), (col[(b, n)], -1.0)] for m, b, n in self.flip_pairs]
        return [[(j, 1.0)] for j in range(len(self.items))]

    @property
    def monte_carlo(self) -> bool:
        """compare's group metrics are tested with hashed random sign flips (``method="randomization"``),
        whose sums the summary then carries; else the sign-flip sums give exact / analytic p-values."""
        return self.kind == "compare" and self.method == "randomization" and bool(self.flip_pairs)

    @property
    def auc_delong(self) -> bool:
        """Global AUC's interval / test is clustered DeLong (else the bootstrap)."""
        from pandas_rankeval.inference.delong import delong_unavailable

        return self.has_auc and self.auc_method == "delong" and delong_unavailable(self.options.ties) is None

    @property
    def interval(self) -> bool:
        """An interval or a test is asked for (``report(ci=...)`` or ``compare``)."""
        return self.ci is not None or self.kind == "compare"

    @property
    def auc_placements(self) -> bool:
        """Global AUC's interval or test is clustered DeLong: an engine that reads the rows in
        partitions gives every row its global placement (``placement_columns``)."""
        return self.auc_delong and self.interval

    @property
    def has_auc(self) -> bool:
        """Global AUC is among the metrics (the engine computes it from its score pass)."""
        return "auc" in self.metrics

    @property
    def has_xauc(self) -> bool:
        """Global XAUC is among the metrics (its value, interval and test read every row's placement:
        :mod:`.extras`)."""
        return "xauc" in self.metrics

    @property
    def items(self) -> list[tuple[Hashable, str]]:
        """(score, group metric name), the order of every per-item array of a Summary; a calibration
        metric with several components adds one item per extra component (``"ne#1"``)."""
        return [(s, name) for s in self.scores for spec in self.specs for name in spec.item_names]

    @property
    def all_specs(self) -> list[MetricSpec]:
        return parse_metrics(list(self.metrics))

    @property
    def n_replicates(self) -> int:
        """Bootstrap replicates the summary carries (0 unless an interval or a test is asked for).

        Hashed Poisson(1) group weights (``resample="poisson"``, any partitioning), or multinomial
        counts drawn per segment from :attr:`streams` (``"multinomial"``, one partition only).
        """
        return self.n_boot if self.interval else 0


def _check_n_boot(n_boot: Any, func: str) -> int:
    from pandas_rankeval.inference.bootstrap import check_n_boot

    return check_n_boot(n_boot, func)


#: The index levels of a report or comparison besides the segments: a ``by`` column cannot share one.
_TABLE_LEVELS = ("model", "metric", "baseline")


def _by_columns(by: Hashable | Sequence[Hashable] | None, func: str, df: pd.DataFrame | None) -> list[Hashable]:
    """The segment columns; none may share a name with a level of the result's index (it would
    hold two levels of one name, read back by name wrongly)."""
    by_cols = as_columns(by, "by", func, df) if by is not None else []
    clash = [c for c in by_cols if c in _TABLE_LEVELS]
    if clash:
        raise ValueError(
            f"The 'by' column {clash[0]!r} of {func} has the name of a level of the result's index "
            f"({', '.join(_TABLE_LEVELS)}). Rename it first, for example "
            f"df.rename(columns={{{clash[0]!r}: {str(clash[0]) + '_segment'!r}}})."
        )
    return by_cols


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
    resample: str | None = "poisson",
    baseline: Hashable | None = None,
    alpha: float = 0.05,
    method: str = "auto",
    auc_method: str = "delong",
    ci_method: str = "percentile",
    adjust: str = "holm",
    family: str = "table",
    ci_adjust: str = "none",
    lift: str = "relative",
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
    implementation: str = "numpy",
    engine: str | None = None,
    nan_policy: str = "raise",
    progress: bool = False,
    df: pd.DataFrame | None = None,
    placement_columns: Sequence[Hashable] | None = None,
    per_model_columns: bool = False,
    position: Hashable | None = None,
    propensity: Any = None,
    clip: float = 0.01,
    snips: bool = False,
    retrieved: Any = None,
    global_metric: str = "auc",
    row_groups: bool = False,
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
    check_column_name(label, "label", func, df)
    one_score = kind == "metric" or (kind == "per_group" and not per_model_columns)
    if one_score:
        check_column_name(scores, "score", func, df)
    score_cols = as_columns(scores, "score" if one_score else "scores", func, df)
    gcols = as_columns(group, "group", func, df) if group is not None else []
    by_cols = _by_columns(by, func, df)
    opts = Options(
        func, ties=ties, tiebreak=tiebreak, threshold=threshold, weight=weight,
        min_size=min_size, min_pos=min_pos, min_neg=min_neg,  # type: ignore[arg-type]
        gain=gain, denominator=denominator, empty=empty, nan_policy=nan_policy,
        sample_weight=sample_weight, max_fpr=max_fpr, implementation=implementation,
        engine=engine, progress=progress,
        position=position, propensity=propensity, clip=clip, snips=snips, retrieved=retrieved,
    ).check()
    _check_retrieved(func, retrieved, opts, specs_all, score_cols)
    resample = _check_metric_options(
        func, kind, specs_all, opts, gcols, sample_weight, resample, ci, ci_method, auc_method
    )
    from pandas_rankeval.inference.delong import delong_unavailable

    delong_auc = auc_method == "delong" and delong_unavailable(ties) is None
    flip_pairs: list[tuple[Hashable, Hashable, str]] = []
    if kind == "report" and ci is not None:
        from pandas_rankeval.inference.bootstrap import check_level

        ci = check_level(ci, "ci", func)
    if kind == "compare":
        check_compare_scores(score_cols, baseline, func, None if df is None else list(df.columns))
        ci, alpha, flip_pairs = _check_compare(
            func, specs_all, score_cols, baseline, ci, alpha, method, adjust, family, ci_adjust, delong_auc
        )
        check_option(lift, "lift", func, LIFTS)
    bootstrapped = kind == "compare" or ci is not None
    seed_int: int | None = None
    streams: tuple[Any, ...] = ()
    if bootstrapped:
        n_boot, seed_int, streams = _bootstrap_draws(func, specs_all, n_boot, seed, ci, resample, delong_auc)
    return Plan(
        func=func,
        kind=kind,
        group=gcols,
        label=label,
        scores=score_cols,
        specs=[s for s in specs_all if s.info.grouped],
        options=opts,
        metrics=tuple(s.name for s in specs_all),
        by=by_cols,
        columns=_columns_read(gcols, label, score_cols, by_cols, sample_weight, weight, tiebreak, opts),
        ci=ci,
        n_boot=int(n_boot) if bootstrapped else 0,
        seed=seed_int if seed_int is not None else seed,
        seed_repr=seed if isinstance(seed, (int, np.integer)) or seed is None else repr(seed),
        resample=resample,
        flip_pairs=tuple(flip_pairs),
        baseline=baseline,
        alpha=float(alpha),
        method=method,
        auc_method=auc_method,
        ci_method=ci_method,
        adjust=adjust,
        family=family,
        ci_adjust=ci_adjust,
        lift=lift,
        placement_columns=tuple(placement_columns or ()),
        streams=streams,
        per_model_columns=per_model_columns,
        global_metric=check_option(global_metric, "global_metric", func, ("auc", "xauc")),
        row_groups=bool(row_groups),
    )


def global_pass(plan: Plan) -> Plan:
    """The plan an engine that reads the frame in partitions runs: global XAUC alone (``pre.xauc``)
    becomes the global-AUC pass counting XAUC's pairs (``global_metric="xauc"``: rows per distinct
    (score, label) in ranges, :mod:`.xauc_counts`); any other plan is unchanged."""
    if plan.kind == "metric" and plan.metrics == ("xauc",):
        return dataclasses.replace(plan, metrics=("auc",), global_metric="xauc")
    return plan


def _check_retrieved(func: str, retrieved: Any, opts: Options, specs_all: Sequence[MetricSpec],
                     score_cols: list[Hashable]) -> None:
    """retrieved=: only for the metrics that take it, and a dict maps score columns of the call."""
    from ..core.inputs.retrieved import check_retrieved_metrics

    check_retrieved_metrics(retrieved, [s.name for s in specs_all if "retrieved" not in s.info.options], func)
    if isinstance(opts.retrieved, dict) and set(opts.retrieved) - set(score_cols):
        raise ValueError(
            f"The 'retrieved' parameter of {func} maps {sorted(map(str, set(opts.retrieved) - set(score_cols)))} "
            f"to columns, which are not score columns of this call ({list(score_cols)}); map each score column "
            "to its retrieved column."
        )


def _check_metric_options(
    func: str, kind: str, specs_all: Sequence[MetricSpec], opts: Options, gcols: list[Hashable],
    sample_weight: Hashable | None, resample: str | None, ci: float | None, ci_method: str, auc_method: str,
) -> str:
    """The options against the metrics asked for (IPS, sample weights, a group column, a
    studentized interval of a ratio); the resampling scheme, resolved."""
    check_ips_options(opts, any("propensity" in s.info.options for s in specs_all), func)
    check_sample_weight(sample_weight, specs_all, func)
    if any(s.info.grouped for s in specs_all) and not gcols:
        raise ValueError(
            f"{func} needs the 'group' parameter (the user, query or session column) for "
            f"{[s.name for s in specs_all if s.info.needs_group] or [s.name for s in specs_all if s.info.grouped]}"
            + (" (the metrics pooled over rows and global AUC take no group: logloss, ne, pcoc, ece, auc, xauc)."
               if any(s.info.needs_group for s in specs_all) else ".")
        )
    resolved = resolve_resample(resample, ci_method, func)
    combined = [s.name for s in specs_all if s.info.pooled is not None and s.info.pooled.combine is not None]
    if combined and ci_method == "studentized" and (kind == "compare" or ci is not None):
        raise ValueError(
            f"The 'ci_method' parameter of {func} is 'studentized', whose standard error is that of a ratio of "
            f"sums; {combined} are not such ratios. Pass ci_method='percentile' for them."
        )
    check_option(auc_method, "auc_method", func, ("delong", "bootstrap"))
    check_option(ci_method, "ci_method", func, ("percentile", "studentized"))
    return resolved


def _check_compare(
    func: str, specs_all: Sequence[MetricSpec], score_cols: list[Hashable], baseline: Hashable | None,
    ci: float | None, alpha: float, method: str, adjust: str, family: str, ci_adjust: str, delong_auc: bool,
) -> tuple[float, float, list[tuple[Hashable, Hashable, str]]]:
    """compare's options: the level (0.95 by default), alpha, the test and adjustments; the
    (model, baseline, group metric) triples tested by sign flips."""
    from pandas_rankeval.inference.bootstrap import check_level

    check_compare_scores(score_cols, baseline, func)  # (checked with the frame's columns first, when given)
    level = check_level(0.95 if ci is None else ci, "ci", func)  # compare's default level
    alpha = check_level(alpha, "alpha", func)
    check_option(method, "method", func, METHODS)
    check_option(adjust, "adjust", func, ADJUSTMENTS)
    check_option(family, "family", func, FAMILIES)
    check_option(ci_adjust, "ci_adjust", func, CI_ADJUSTMENTS)
    if method == "randomization" and not delong_auc and any(s.name == "auc" for s in specs_all):
        raise ValueError(
            "Global AUC has no group-level randomization test (it is not a sum over groups); "
            "use auc_method='delong' (needs ties='expected'), method='auto' (a paired bootstrap "
            "test for 'auc') or method='bootstrap'."
        )
    # every (model, baseline, group metric) tested by sign flips unless method="bootstrap"
    flip_pairs = [(m, b, s.name) for m, b in compare_pairs(score_cols, baseline) for s in specs_all if s.info.grouped]
    return level, alpha, flip_pairs


def _bootstrap_draws(
    func: str, specs_all: Sequence[MetricSpec], n_boot: Any, seed: Any, ci: float | None, resample: str,
    delong_auc: bool,
) -> tuple[int, int | None, tuple[Any, ...]]:
    """n_boot and seed checked; the hashed bootstrap's integer seed, or the classic bootstrap's streams."""
    from pandas_rankeval.core.inputs.validation import check_n_boot_for_level, check_seed

    n_boot = _check_n_boot(n_boot, func)
    check_seed(seed, func)
    # a metric is bootstrapped: a group metric, or global AUC without clustered DeLong (global XAUC
    # never is: its interval and test are clustered DeLong)
    if any(s.info.grouped or (s.name == "auc" and not delong_auc) for s in specs_all):
        check_n_boot_for_level(n_boot, ci, func)  # type: ignore[arg-type]
    if resample == "poisson":
        return n_boot, seed_to_int(seed, func), ()
    # the classic bootstrap's streams, spawned once per call as it always was
    return n_boot, None, tuple(np.random.default_rng(seed).spawn(2))


def _columns_read(
    gcols: list[Hashable], label: Hashable, score_cols: list[Hashable], by_cols: list[Hashable],
    sample_weight: Hashable | None, weight: WeightLike, tiebreak: Hashable | None, opts: Options,
) -> list[Hashable]:
    """Every column a partition reads, in the order of the missing-value check of pandas."""
    from ..core.inputs.retrieved import retrieved_columns

    numeric_extra: list[Hashable] = []
    if sample_weight is not None:
        numeric_extra.append(sample_weight)
    if isinstance(weight, str) and weight not in WEIGHT_NAMES:
        numeric_extra.append(weight)
    return list(dict.fromkeys([
        *gcols, label, *score_cols, *numeric_extra, *([tiebreak] if tiebreak is not None else []), *by_cols,
        *ips_columns(opts), *retrieved_columns(opts.retrieved, score_cols).values(),
    ]))


def compare_pairs(scores: Sequence[Hashable], baseline: Hashable | None) -> list[tuple[Hashable, Hashable]]:
    """The (model, baseline) pairs of a comparison: every other score against ``baseline``, or,
    with ``baseline=None``, every pair of scores, each later one against each earlier one.

    >>> compare_pairs(["a", "b", "c"], "a")
    [('b', 'a'), ('c', 'a')]
    >>> compare_pairs(["a", "b", "c"], None)
    [('b', 'a'), ('c', 'a'), ('c', 'b')]
    """
    if baseline is not None:
        return [(m, baseline) for m in scores if m != baseline]
    return [(scores[j], scores[i]) for i in range(len(scores)) for j in range(i + 1, len(scores))]


def resolve_resample(resample: str | None, ci_method: str, func: str) -> str:
    """The bootstrap of a pandas call: the hashed Poisson one unless asked otherwise.

    ``None`` (the default of the pandas functions) is ``"poisson"``.
    """
    if resample is None:
        return "poisson"
    check_option(resample, "resample", func, RESAMPLES)
    return resample
