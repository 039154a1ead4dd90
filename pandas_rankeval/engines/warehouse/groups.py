"""The warehouse's per-group table -> every metric's per-group values, weights and coverage.

The SQL of :mod:`.stats` returns one row per group with its sufficient statistics; this module
turns them into what the pandas pipeline makes for each (score, metric): the per-group values,
which groups enter the mean (:func:`pandas_rankeval.core.coverage.eligibility`, the one rule), their
weights (the ``weight=`` options) and the coverage, so that the summary layer, the bootstrap and
the tables run on them unchanged. Everything here is vectorized over groups: no Python call per
group.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import numpy as np
import pandas as pd

from .stats import CALIBRATION, Stat, group_values

__all__ = ["Groups", "read_groups", "stat_of", "metric_values"]


def stat_of(spec: Any) -> Stat:
    """The SQL builder's :class:`~.stats.Stat` of a parsed metric (``MetricSpec``)."""
    return Stat(spec.kind, spec.k)


@dataclass
class Groups:
    """One row per group, in key order: the label-only counts every metric shares."""

    keys: pd.Index
    n: np.ndarray  # int64 rows
    npos: np.ndarray  # int64 relevant rows
    wpos: np.ndarray | None = None  # summed sample weight of the relevant rows
    wneg: np.ndarray | None = None
    graded: np.ndarray | None = None  # rows whose label is neither 0 nor 1
    sums: dict[Hashable, np.ndarray] = field(default_factory=dict)  # a weight column's per-group sum
    n_rows: int = 0  # rows evaluated (kept)
    n_dropped: int = 0

    @property
    def n_groups(self) -> int:
        return int(self.n.shape[0])

    def counts(self) -> Any:
        """What the coverage reads of a ranking: ``n``, ``npos``, ``nneg``, ``n_groups``."""
        return SimpleNamespace(n=self.n, npos=self.npos, nneg=self.n - self.npos, n_groups=self.n_groups,
                               wpos=self.wpos, wneg=self.wneg)


def read_groups(table: pd.DataFrame, group: Sequence[Hashable], prefix: str, *, sums: Sequence[Hashable] = (),
                n_dropped: int = 0) -> tuple[Groups, pd.DataFrame]:
    """The :class:`Groups` of a per-group table from :func:`.stats.group_stats` (sorted by key, as
    pandas orders its groups), and its statistic columns in the same order."""
    cols = [str(c) for c in group]
    table = table.sort_values(cols, kind="stable").reset_index(drop=True)
    keys = pd.MultiIndex.from_frame(table[cols]) if len(cols) > 1 else pd.Index(table[cols[0]], name=cols[0])
    if len(cols) > 1:
        keys = keys.set_names(list(group))
    else:
        keys = keys.rename(group[0])

    def col(name: str) -> np.ndarray | None:
        c = f"{prefix}s_{name}"
        return table[c].to_numpy() if c in table.columns else None

    n = np.asarray(col("n"), dtype=np.int64)
    npos = np.asarray(col("positives"), dtype=np.int64)
    wpos, wneg, graded = col("wpos"), col("wneg"), col("graded")
    g = Groups(keys, n, npos,
               None if wpos is None else wpos.astype(np.float64), None if wneg is None else wneg.astype(np.float64),
               None if graded is None else graded.astype(np.int64),
               {c: np.asarray(col(f"sum{i}"), dtype=np.float64) for i, c in enumerate(sums)},
               n_rows=int(n.sum()), n_dropped=n_dropped)
    return g, table


def weights_of(weight: Any, groups: Groups, func: str) -> np.ndarray:
    """Per-group weights of a ``weight=`` option, checked as the pandas engine checks them."""
    from ...core.evaluation.reductions import _as_weights, series_weights
    from ...core.inputs.validation import InputProblem

    n = groups.n.astype(np.float64)
    if isinstance(weight, str):
        if weight == "count":
            w = n
        elif weight == "clicks":
            w = groups.npos.astype(np.float64)
        elif weight == "log1p":
            w = np.log1p(n)
        elif weight == "uniform":
            w = np.ones_like(n)
        else:
            w = groups.sums[weight]
    elif isinstance(weight, pd.Series):
        w = series_weights(weight, groups.keys, func)
    else:
        stats = pd.DataFrame({"n": groups.n, "positives": groups.npos, "negatives": groups.n - groups.npos},
                             index=groups.keys)
        out = weight(stats)
        if isinstance(out, pd.Series):
            out = out.reindex(groups.keys)
        w = _as_weights(out, f"The 'weight' callable of {func}").reshape(-1)
        if w.shape[0] != groups.n_groups:
            raise ValueError(
                f"The 'weight' callable of {func} returned {w.shape[0]:,} values for "
                f"{groups.n_groups:,} groups; return one weight per row of the statistics frame."
            )
    bad = ~np.isfinite(w) | (w < 0)
    if bad.any():
        raise InputProblem("group_weight", func, int(bad.sum()))
    return w


def metric_values(groups: Groups, stats: pd.DataFrame, spec: Any, opts: Any, prefix: str,
                  weights: dict[Any, np.ndarray] | None = None) -> list[Any]:
    """The ``GroupValues`` of one metric of one score column (several for a calibration metric of
    several components: ``ne``, ``ece@B``), as the pandas pipeline makes them."""
    from ...core.metrics.coverage import eligibility
    from ...core.evaluation.records import GroupValues
    from ...core.evaluation.reductions import _coverage, _mean

    st = stat_of(spec)
    renamed = stats.rename(columns=lambda c: c[len(prefix) + 2:] if str(c).startswith(prefix + "s_") else c)
    full = groups.counts()
    if spec.kind in CALIBRATION:
        return _calibration_values(groups, renamed, spec, opts)
    info = spec.info
    elig = eligibility(info.eligibility, groups.n, groups.npos, opts, wpos=groups.wpos, wneg=groups.wneg)
    key = opts.weight_for(spec)
    memo = weights if weights is not None else {}
    wkey = key if isinstance(key, str) else id(key)
    if wkey not in memo:
        memo[wkey] = weights_of(key, groups, opts.func)
    w = memo[wkey]
    vals = group_values(renamed, [st], ties=opts.ties if opts.tiebreak is None else "expected",
                        denominator=opts.denominator, empty="zero" if opts.empty != "skip" else "skip",
                        weighted=groups.wpos is not None, prefix="")
    values = vals.iloc[:, 0].to_numpy(dtype=np.float64)
    n_rows, n_dropped = groups.n_rows, groups.n_dropped
    if info.eligibility == "pairs":
        used = elig.used
        values = np.where(used, values, np.nan)

        def finish_pairs() -> tuple[float, Any]:
            cov = _coverage(full, used, n_rows=n_rows, n_dropped=n_dropped, only_pos=int(elig.only_pos.sum()),
                            only_neg=int(elig.only_neg.sum()), filtered=int(elig.filtered.sum()),
                            zero_weight=int(elig.zero_weight.sum()), filtered_mask=elig.filtered)
            return _mean(values, w, used), cov

        return [GroupValues(spec, values, used, w, finish=finish_pairs)]
    n_empty = int(elig.empty.sum())  # empty='error' raised at the checks (whole-table counts)
    used = elig.used

    def finish_list() -> tuple[float, Any]:
        cov = _coverage(full, used, n_rows=n_rows, n_dropped=n_dropped, empty=n_empty)
        return _mean(values, w, used), cov

    return [GroupValues(spec, values, used, w, finish=finish_list)]


def _calibration_values(groups: Groups, t: pd.DataFrame, spec: Any, opts: Any) -> list[Any]:
    """A calibration metric's GroupValues: its value over pooled rows, each group's own value, one
    (numerator, denominator) pair per component (the pandas engine's ``_calibration_metric``)."""
    from ...core.evaluation.records import GroupValues
    from ...core.evaluation.result import Coverage

    def col(c: str) -> np.ndarray:
        return t[f"cal_{c}"].to_numpy(dtype=np.float64)

    if spec.kind == "logloss":
        parts = [(col("wl"), col("w"))]
    elif spec.kind == "ne":
        parts = [(col("wl"), col("w")), (col("wy"), col("w"))]
    elif spec.kind == "pcoc":
        parts = [(col("wp"), col("wy"))]
    else:
        bins = int(spec.k or 10)
        parts = [(col(f"ece{bins}_d{b}"), col(f"ece{bins}_w{b}")) for b in range(bins)]
    num = np.stack([p[0] for p in parts])
    den = np.stack([p[1] for p in parts])
    own = group_values(t, [stat_of(spec)], prefix="").iloc[:, 0].to_numpy(dtype=np.float64)
    totals = np.stack([num.sum(axis=1), den.sum(axis=1)], axis=-1)
    combine = spec.info.combine
    if combine is None:
        value = float(totals[0, 0] / totals[0, 1]) if totals[0, 1] > 0 else math.nan
    else:
        value = float(combine(totals))
    n_groups = groups.n_groups
    used = np.ones(n_groups, dtype=bool)
    cov = Coverage(n_rows=groups.n_rows, n_groups=n_groups, n_used=n_groups, n_only_pos=0, n_only_neg=0,
                   n_filtered=0, n_empty=0, rows_skipped_share=0.0, positives_skipped_share=0.0,
                   n_dropped=groups.n_dropped)
    out = [GroupValues(spec, own, used, den[0], value, cov, numer=num[0])]
    for i in range(1, num.shape[0]):
        with np.errstate(invalid="ignore", divide="ignore"):
            part = np.where(den[i] > 0, num[i] / np.where(den[i] > 0, den[i], 1.0), np.nan)
        out.append(GroupValues(spec, part, used, den[i], math.nan, cov, numer=num[i]))
    return out
