"""The records of one evaluation, and what callers read from them (the pipeline's data).

:class:`Evaluation` holds everything one call of :func:`~pandas_rankeval.core.evaluation.pipeline.evaluate`
computed: the prepared columns, the label levels, the options and, per score column, a
:class:`ScoreEvaluation` whose :class:`GroupValues` are one metric's per-group values, weights
and mean. :func:`warn_if_needed` issues a metric's coverage warning; :func:`segment_of_groups`
gives every group's segment code.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any, TypeVar

import numpy as np
import pandas as pd

from ..ranking.tie_blocks import Ranking
from ..inputs.options import Options
from ..inputs.prepare import Labels, Prepared
from ..metrics.metric import MetricSpec
from .result import Coverage, coverage_problem, warn_coverage
from ..skipping.first_block import FirstBlockGroups
from ..skipping.skip import GroupTable, Part, Selection
from ..inputs.validation import InputProblem, internal_error

__all__ = ["Cache", "GroupValues", "ScoreEvaluation", "Evaluation", "warn_if_needed", "segment_of_groups"]

T = TypeVar("T")


class Cache:
    """What an evaluation computes once and reads many times, by key: made by ``make`` the first
    time the key is asked for, then kept for the evaluation's lifetime (no process-wide cache).

    :attr:`Evaluation.cache` holds what the labels and groups decide, the same for every score
    column (and every round of a training hook): the per-group counts and each row's group, each
    eligibility rule's groups, each weight option's weights, NDCG's ideal DCG, the IPS gain of every
    row. A score column's own entries (the IPS gain of each tie block of its ranking) are in its
    :attr:`ScoreEvaluation.cache`, and go with it. Two score columns reduced on two threads may both
    make an entry: the same value, kept once.
    """

    __slots__ = ("_items",)

    def __init__(self) -> None:
        self._items: dict[Hashable, Any] = {}

    def get(self, key: Hashable, make: Callable[[], T]) -> T:
        try:
            return self._items[key]  # type: ignore[no-any-return]
        except KeyError:
            return self._items.setdefault(key, make())  # type: ignore[no-any-return]

    def __contains__(self, key: Hashable) -> bool:
        return key in self._items


class GroupValues:
    """One metric on one score column: per-group values, weights, the mean and the coverage.

    The mean and the coverage may be given, or computed on first read by ``finish`` (a call that
    returns both): the engines read the per-group arrays into their summaries and never ask for
    them, while the training hooks and ``per_group`` do.
    """

    def __init__(
        self,
        spec: MetricSpec,
        values: np.ndarray,
        used: np.ndarray,
        weights: np.ndarray,
        value: float | None = None,
        coverage: Coverage | None = None,
        numer: np.ndarray | None = None,
        *,
        finish: Callable[[], tuple[float, Coverage]] | None = None,
    ) -> None:
        if (value is None or coverage is None) and finish is None:
            raise TypeError("GroupValues needs value and coverage, or finish")
        self.spec = spec
        self.values = values  # per group; NaN where the metric is undefined
        self.used = used  # bool per group: enters the mean
        self.weights = weights  # per group
        #: per group, the numerator of the summary's ratio where it is not weights * values (the
        #: calibration metrics' row sums: a group with no click adds predicted clicks to PCOC)
        self.numer = numer
        self._value = value
        self._coverage = coverage
        self._finish = finish

    def _complete(self) -> None:
        if self._finish is not None:
            self._value, self._coverage = self._finish()
            self._finish = None

    @property
    def value(self) -> float:
        """The weighted mean over the groups used."""
        self._complete()
        return self._value  # type: ignore[return-value]

    @property
    def coverage(self) -> Coverage:
        """Groups used and skipped, and why."""
        self._complete()
        return self._coverage  # type: ignore[return-value]


@dataclass
class ScoreEvaluation:
    score: Hashable
    metrics: dict[str, GroupValues]
    ranking: Ranking | None = None  # over the kept groups' rows only when ``table`` is set
    order: np.ndarray | None = None
    rank: np.ndarray | None = None
    calibration_order: np.ndarray | None = None  # rows by (group, p, y, w): the calibration sums' order
    #: every group's counts, when only the groups that count were sorted (MRR and hit rate alone: counted)
    table: GroupTable | FirstBlockGroups | None = None
    selection: Selection | None = None  # first relevant block per kept group (MRR, hit rate: no sort)
    parts: list[tuple[Part, Ranking]] | None = None  # with ``table``: runs of kept groups, ranked
    auc_counts: tuple[float, float, float] | None = None  # global AUC's (U, P, N), computed ahead
    cache: Cache = field(default_factory=Cache)  # what this column's metrics share (see Cache)


@dataclass
class Evaluation:
    """Everything one call computed, kept for reports, per-group tables and the bootstrap."""

    prepared: Prepared
    labels: Labels
    options: Options
    specs: list[MetricSpec]
    scores: dict[Hashable, ScoreEvaluation]
    table: GroupTable | None = None  # the groups that count (see .skip), decided once per evaluation
    table_decided: bool = False
    cache: Cache = field(default_factory=Cache)  # what every score column shares, made once
    _keys: pd.Index | None = None

    def _group_codes(self) -> Any:
        groups = self.prepared.encode_groups()
        if groups is None:
            raise internal_error("per-group arrays need group codes")
        return groups

    def _count_groups(self) -> dict[str, np.ndarray]:
        """The per-group counts when no ranking gave them (the first ranked score column does:
        ``evaluate._group_stats``), each row's group with them."""
        uniq, inv = np.unique(self._group_codes().codes, return_inverse=True)
        inv = self.cache.get("row groups", lambda: inv.reshape(-1))
        n = np.bincount(inv, minlength=uniq.shape[0]).astype(np.int64)
        npos = np.bincount(inv, weights=self.labels.rel, minlength=uniq.shape[0]).astype(np.int64)
        return {"code": uniq, "n": n, "positives": npos, "negatives": n - npos}

    @property
    def group_stats(self) -> dict[str, np.ndarray]:
        """Per group, by ascending code (the order of every per-group array): ``code``, ``n``,
        ``positives``, ``negatives``; once per evaluation, from the first ranking or counted."""
        return self.cache.get("group stats", self._count_groups)

    @property
    def row_groups(self) -> np.ndarray:
        """Per row, the index of its group in the per-group arrays (once per evaluation)."""
        code = self.group_stats["code"]  # counting the groups keeps each row's group too
        return self.cache.get("row groups", lambda: np.searchsorted(np.asarray(code), self._group_codes().codes))

    @property
    def keys(self) -> pd.Index:
        """Group keys in the order of every per-group array."""
        if self._keys is None:
            groups = self.prepared.encode_groups()
            if groups is None:  # pragma: no cover - callers without groups never ask
                raise RuntimeError("this evaluation has no groups")
            self._keys = groups.decode(self.group_stats["code"])
        return self._keys


def warn_if_needed(gv: GroupValues, where: str) -> None:
    """At most one :class:`CoverageWarning`: NaN because nothing was eligible, or the
    filters dropped more than 10% of rows or positives (single-class groups never warn)."""
    name = gv.spec.name if where == gv.spec.name else f"{where}: {gv.spec.name}"
    problem = coverage_problem(name, gv.value, gv.coverage, gv.spec.info.reading.nan_reason)
    if problem is not None:
        warn_coverage(problem)


def segment_of_groups(ev: Evaluation, by: list[Hashable], func: str) -> np.ndarray:
    """The segment code of every group; each ``by`` column must be constant within a group."""
    groups, segs = ev.prepared.encode_groups(), ev.prepared.segments
    if groups is None or segs is None:  # pragma: no cover - report() always passes both
        raise RuntimeError("segments need group and segment codes")
    key = groups.codes.astype(np.int64) * segs.n_codes + segs.codes
    uniq = np.unique(key)  # ascending group code, the order of every per-group array
    gk = uniq // segs.n_codes
    n_groups = 1 + int(np.count_nonzero(gk[1:] != gk[:-1]))
    if uniq.shape[0] != n_groups:
        n_mixed = int((np.bincount(np.searchsorted(np.unique(gk), gk)) > 1).sum())
        raise InputProblem("mixed_by", (func, tuple(by), ()), n_mixed, of=n_groups)
    return uniq % segs.n_codes
