"""What a metric is: a :class:`Metric` entry of the registry, :class:`MetricSpec`, a parsed name
carrying its entry, and :class:`KernelInput`, what a kernel reads.

An entry carries the metric's behaviour, not only its traits: the name pattern and its parameter
(a cutoff ``@10`` or a persistence ``@0.8``), the per-group kernel, the eligibility rule of its
groups, the default group weight, the options it takes, how its per-partition summaries merge,
the public function that computes it alone, and the sentence that documents it. The entries
themselves are written in :mod:`.definitions`; :mod:`.registry` parses names against them. A kernel
reads the evaluation through :class:`EvaluationView` and :class:`ScoreView`, Protocols of what it
reads: the records (:mod:`..evaluation.records`) sit a layer above and are passed in, not imported.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol, TypeVar

import numpy as np

from ..inputs.options import Options
from ..inputs.prepare import Labels, Prepared
from ..kernels.calibration import RowInput, RowSums
from ..kernels.ranked import Part, Selection
from ..ranking.tie_blocks import Ranking

__all__ = [
    "Cut", "EvaluationView", "Kernel", "KernelInput", "Metric", "MetricSpec", "NameParam", "Pooled", "Reading", "ScoreView",
    "grade_limit",
]

#: How the groups of a metric enter its mean (see :mod:`.coverage`): ``"pairs"`` needs a relevant
#: and a non-relevant row (and passes the min_* filters); ``"relevant"`` needs a relevant row, the
#: others are empty groups ruled by ``empty=``; ``"rows"`` is one number over all rows (global AUC,
#: global XAUC);
#: ``"pooled"`` (the calibration metrics) pools the rows of every group: each group adds its row
#: sums, none is skipped; ``"ordered"`` (grouped XAUC) needs two different labels in the group (a
#: pair of rows whose labels differ), and passes ``min_size``.
Eligibility = Literal["pairs", "relevant", "rows", "pooled", "ordered"]

T = TypeVar("T")

@dataclass(frozen=True)
class NameParam:
    """The parameter written after ``@`` in a metric name.

    ``kind="cutoff"``: an int >= 1, the public function's ``k`` (``"ndcg@10"``). ``kind=
    "persistence"``: a float in (0, 1) (``"rbp@0.8"``), which is not a cutoff. ``kind="bins"``:
    an int >= 1, the number of equal-width probability bins (``"ece@10"``), the function's ``bins``.
    """

    kind: Literal["cutoff", "persistence", "bins"]
    presence: Literal["none", "optional", "required"]
    default: int | float | None = None  # the public function's default (None: the whole list)

    @property
    def placeholder(self) -> str:
        return {"cutoff": "K", "persistence": "P", "bins": "B"}[self.kind]

    @property
    def example(self) -> str:
        return "0.8" if self.kind == "persistence" else "10"


@dataclass(frozen=True, kw_only=True)
class Kernel:
    """How a ranking metric computes its per-group values from one ranked score column."""

    values: Callable[[KernelInput], np.ndarray]  # one value per group (closed form under ties)
    graded: bool = False  # reads the label levels as gains (NDCG)
    block_levels: bool = False  # reads the rows per label level of every tie block (ERR)
    #: the largest label it reads as a grade (ERR: 4); a larger one is an error, checked with the
    #: table's other label checks before any sort (:func:`grade_limit`); None: any label
    max_label: float | None = None
    #: a per-group factor f (None: none): values are divided by f and weights multiplied by it, so the
    #: mean is sum(w v) / sum(w f) (self-normalized IPS)
    group_factor: Callable[[KernelInput], np.ndarray | None] | None = None


@dataclass(frozen=True, kw_only=True)
class Cut:
    """Which groups and rows the metric's values need: what the evaluation may leave unsorted."""

    #: its values read each group's own ranking (or, global AUC, the sorted scores) only: the groups
    #: that cannot count are not sorted (:mod:`.skip`)
    skip_groups: bool = False
    #: its tie-free values read only the relevant (or gaining) rows, their offsets and their order:
    #: the rows below a group's last relevant row are not sorted (:mod:`.kept`)
    top_rows: bool = False
    #: per-group values from each group's first block with a relevant row (no sort); None: the
    #: metric needs a ranking
    select: Callable[[Selection, int | None], np.ndarray] | None = None


@dataclass(frozen=True, kw_only=True)
class Pooled:
    """How a calibration metric pools the rows of every group (see :mod:`.calibration`)."""

    rows: Callable[[RowInput], RowSums]  # additive row sums per group
    #: its value from its components' sums (..., parts, 2); None: sums[..., 0, 0] / sums[..., 0, 1],
    #: the ratio of its one component (and of every ranking metric)
    combine: Callable[[np.ndarray], np.ndarray] | None = None
    #: how many (numerator, denominator) components its summary carries, from the name's parameter
    parts: Callable[[int | float | None], int] | None = None


@dataclass(frozen=True, kw_only=True)
class Reading:
    """How a value reads: which way is better, its range, its display, its intervals and tests."""

    direction: Literal["higher", "lower", "closer to 1"] = "higher"
    bounds: tuple[float, float] = (0.0, 1.0)  # the value's range (intervals are clipped to it)
    fmt: str = "ratio"  # display: a value in [0, 1] shown to display.precision decimals
    signflip: bool = True  # paired tests by sign flips of per-group differences (else bootstrap)
    nan_reason: str = ""  # why its value is NaN (a calibration metric's warning), where not coverage's
    #: why ``report(ci=...)`` gives it no interval ("" : it has one); its paired tests stay
    no_interval: str = ""


@dataclass(frozen=True, kw_only=True)
class Metric:
    """One metric of the registry: everything the library knows about it, written once.

    Its public function (``pandas_rankeval.<function>``: signature from ``param`` and ``options``,
    docstring ``doc``) is written from the entry by :mod:`pandas_rankeval.api.metrics`.
    """

    # -- its names and its documentation
    name: str  # the name in metrics=[...] before any "@"
    function: str  # the public function that computes it alone (pandas_rankeval.<function>)
    aliases: tuple[str, ...] = ()  # other public names of its function (map = average_precision)
    summary: str  # the sentence that documents it (docs, CLI, error messages)
    #: the public function's numpydoc docstring; ``{placeholders}`` are the shared parameter texts
    #: of :mod:`pandas_rankeval.api.docs` (braces meant literally are doubled)
    doc: str
    param: NameParam = NameParam("cutoff", "none")  # what may follow "@": its function's k, p or bins
    # -- which groups and options
    eligibility: Eligibility
    default_weight: str = "uniform"  # weight name used when the call gives weight=None
    #: the options (of core.options.OPTIONS) it takes, in the order of its function's keywords
    options: tuple[str, ...]
    # -- how it is computed: a kernel over a ranking, pooled row sums, or neither (global AUC)
    kernel: Kernel | None = None
    pooled: Pooled | None = None
    cut: Cut = Cut()
    # -- how it reads
    reading: Reading = Reading()
    # -- per_group
    per_group: str | None = None  # per_group evaluates this metric instead (auc: the groups' own AUC)
    group_column: str | None = None  # per_group's column name of its per-group values (gauc: "auc")
    #: a number over every pair of rows of the table that reads the labels' order (global XAUC):
    #: the pipeline counts it from the label levels, not from a ranking; its interval and paired
    #: test are the clustered DeLong ones of its row placements (:mod:`pandas_rankeval.summary.extras`)
    row_pairs: bool = False

    @property
    def grouped(self) -> bool:
        """Averaged over groups (False for a number over all rows, global AUC)."""
        return self.eligibility != "rows"

    @property
    def needs_group(self) -> bool:
        """Defined only with a group column: False for a number over all rows (global AUC, global
        XAUC) and for the calibration metrics, which pool rows (without ``group`` every row is its
        own group: the bootstrap's and the paired test's unit is the row)."""
        return self.eligibility not in ("rows", "pooled")

    @property
    def needs_ranking(self) -> bool:
        """Reads the sorted scores (every metric but the calibration ones)."""
        return self.pooled is None

    @property
    def graded(self) -> bool:
        """Reads the label levels as gains (NDCG, ERR)."""
        return self.kernel is not None and self.kernel.graded

    @property
    def block_levels(self) -> bool:
        return self.kernel is not None and self.kernel.block_levels

    @property
    def max_label(self) -> float | None:
        return None if self.kernel is None else self.kernel.max_label

    def n_parts(self, param: float | None) -> int:
        """The (numerator, denominator) components of its summary (1 for a ranking metric)."""
        parts = None if self.pooled is None else self.pooled.parts
        return 1 if parts is None else parts(param)

    @property
    def patterns(self) -> list[str]:
        """The accepted name patterns, ``["ndcg", "ndcg@K"]``."""
        out = []
        if self.param.presence in ("none", "optional"):
            out.append(self.name)
        if self.param.presence in ("optional", "required"):
            out.append(f"{self.name}@{self.param.placeholder}")
        return out


@dataclass(frozen=True)
class MetricSpec:
    """A parsed metric name: its kind and the parameter after ``@`` (cutoff or persistence), with
    the registry's entry of its kind (``info``; not part of its equality or hash). The registry
    makes them (:func:`~.registry.parse_metric`): this module never looks the registry up."""

    kind: str
    k: int | float | None
    info: Metric = field(compare=False, repr=False)

    @property
    def cutoff(self) -> int | None:
        """The cutoff k, or None (no cutoff, or a parameter that is not a cutoff)."""
        if self.k is None or self.info.param.kind != "cutoff":
            return None
        return int(self.k)

    @property
    def item_names(self) -> list[str]:
        """The summary's items of this metric: its name, then its extra components (``ne#1``)."""
        return [self.name, *(f"{self.name}#{i}" for i in range(1, self.info.n_parts(self.k)))]

    @property
    def name(self) -> str:
        if self.k is None:
            return self.kind
        return f"{self.kind}@{self.k!r}" if isinstance(self.k, float) else f"{self.kind}@{self.k}"


def grade_limit(specs: Sequence[MetricSpec]) -> tuple[float, tuple[str, ...]] | None:
    """The largest label the requested metrics accept, and the names of those that set it (None
    when none does). A larger label is the ``label_grade`` problem of
    :func:`~.validation.problem_message`: pandas raises it from its labels, every partitioned
    engine counts it over the whole table first."""
    limited = [s for s in specs if s.info.max_label is not None]
    if not limited:
        return None
    limit = min(float(s.info.max_label) for s in limited)  # type: ignore[arg-type]
    return limit, tuple(dict.fromkeys(s.name for s in limited if s.info.max_label == limit))


class CacheView(Protocol):
    """What a kernel reads of an evaluation's cache (:class:`~..evaluation.records.Cache`): an
    entry made by ``make`` the first time its key is asked for."""

    def get(self, key: Hashable, make: Callable[[], T]) -> T: ...


class EvaluationView(Protocol):
    """What a kernel reads of the evaluation (:class:`~..evaluation.records.Evaluation`, a layer
    above: passed in, not imported): the options, the labels, the prepared columns, and the
    evaluation's cache (what it computes once: the ideal DCG, the IPS gain of every row)."""

    options: Options
    labels: Labels
    prepared: Prepared

    @property
    def cache(self) -> CacheView: ...


class ScoreView(Protocol):
    """What a kernel reads of one score column's evaluation (a
    :class:`~..evaluation.records.ScoreEvaluation`): the rows by score and their ranks."""

    order: np.ndarray | None
    rank: np.ndarray | None

    @property
    def cache(self) -> CacheView: ...  # the score column's own entries (the IPS gain of each tie block)


@dataclass(frozen=True)
class KernelInput:
    """What a kernel reads: one ranked score column of one evaluation, and one metric name."""

    ev: EvaluationView
    se: ScoreView
    rk: Ranking
    spec: MetricSpec
    k: int | None  # the cutoff, clamped to the longest group (None: the whole list)
    eligible: np.ndarray  # bool per group: the groups the eligibility rule lets in
    score: np.ndarray  # the score column (the sklearn cross-check reads it)
    part: Part | None = None  # the run of kept groups that ``rk`` ranks (None: every group)
