"""The warehouse's per-group table -> every metric's per-group values, weights and coverage.

The SQL of :mod:`.stats` returns one row per group with its sufficient statistics; this module
turns them into what the pandas pipeline makes for each (score, metric): the per-group values,
which groups enter the mean (:func:`pandas_rankeval.core.coverage.eligibility`, the one rule), their
weights (the ``weight=`` options) and the coverage, so that the summary layer, the bootstrap and
the tables run on them unchanged. Everything here is vectorized over groups: no Python call per
group.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import numpy as np
import pandas as pd

from .stats import CALIBRATION, GAUC_NAMES, IPS, Stat, group_values

__all__ = ["Groups", "label_pairs", "read_groups", "stat_of", "metric_values"]


def stat_of(spec: Any) -> Stat:
    """The SQL builder's :class:`~.stats.Stat` of a parsed metric (``MetricSpec``): uauc and wuauc
    read GAUC's per-group AUC (their weights are their own)."""
    return Stat("gauc" if spec.kind in GAUC_NAMES else spec.kind, spec.k)


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
    """Per-group weights of a ``weight=`` option (the pandas pipeline's one definition, with a weight
    column's per-group sums from the SQL)."""
    from ...core.evaluation.reductions import weights_of as core_weights

    return core_weights(weight, groups.n, groups.npos, lambda: groups.keys, func, groups.sums.get)


def metric_values(groups: Groups, stats: pd.DataFrame, spec: Any, opts: Any, prefix: str,
                  weights: dict[Any, np.ndarray] | None = None) -> list[Any]:
    """The ``GroupValues`` of one metric of one score column (several for a calibration metric of
    several components: ``ne``, ``ece@B``), by the pandas pipeline's own assembly
    (:func:`~pandas_rankeval.core.evaluation.reductions.group_values_of`) from the SQL's values."""
    from ...core.evaluation.reductions import group_values_of
    from ...core.metrics.coverage import eligibility

    renamed = stats.rename(columns=lambda c: c[len(prefix) + 2:] if str(c).startswith(prefix + "s_") else c)
    if spec.kind in CALIBRATION:
        return _calibration_values(groups, renamed, spec)
    elig = eligibility(spec.info.eligibility, groups.n, groups.npos, opts, wpos=groups.wpos, wneg=groups.wneg,
                       ordered=label_pairs(renamed) if spec.info.eligibility == "ordered" else None)
    key = opts.weight_for(spec)
    memo = weights if weights is not None else {}
    wkey = key if isinstance(key, str) else id(key)
    if wkey not in memo:
        memo[wkey] = weights_of(key, groups, opts.func)
    # the SQL's values: AUC over both classes (NaN where a class is missing), the list metrics with
    # a group without relevant row at 0 (its rule's value is set by group_values_of)
    vals = group_values(renamed, [stat_of(spec)], ties=opts.ties, denominator=opts.denominator,
                        weighted=groups.wpos is not None, prefix="")
    values = vals.iloc[:, 0].to_numpy(dtype=np.float64)
    group_w = memo[wkey]
    if spec.info.eligibility in ("pairs", "ordered"):
        values = np.where(elig.used, values, np.nan)
    elif spec.kind in IPS and opts.snips:  # self-normalized IPS: sum(w v) / sum(w f), f the clicks' IPS weight
        factor = renamed["ips"].to_numpy(dtype=np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            values, group_w = values / factor, group_w * factor
    return [group_values_of(spec, values, group_w, elig, groups.counts(), opts, n_rows=groups.n_rows,
                            n_dropped=groups.n_dropped)]


def label_pairs(table: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Grouped XAUC's ``ordered`` eligibility from the SQL's sums: two different labels, and (with
    sample weights) pairs of them of positive weight (2T > 0; without weights 2T > 0 too)."""
    two = table["xauc_labels"].to_numpy() >= 2
    return two, two & (table["xauc_t2"].to_numpy(dtype=np.float64) > 0)


def _calibration_values(groups: Groups, t: pd.DataFrame, spec: Any) -> list[Any]:
    """A calibration metric's GroupValues from the SQL's row sums (one (numerator, denominator)
    pair per component) by the pandas pipeline's assembly."""
    from ...core.evaluation.reductions import calibration_values_of

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
    own = group_values(t, [stat_of(spec)], prefix="").iloc[:, 0].to_numpy(dtype=np.float64)
    return calibration_values_of(spec, np.stack([p[0] for p in parts]), np.stack([p[1] for p in parts]), own,
                                 n_rows=groups.n_rows, n_dropped=groups.n_dropped)
