"""The per-group kernel of every group metric, as the registry binds it.

A kernel takes a :class:`KernelInput` (the evaluation, the ranked score column, the parsed
metric name and the cutoff clamped to the longest group) and returns one value per group over
the sorted tie blocks (:mod:`.kernels`), in closed form under the expected tie rule. Which
groups enter the mean (the eligibility rule), their weights and the empty-group rule are the
registry's and :mod:`.coverage`'s, not the kernel's. NDCG's gains and ideal DCG, which depend on
the labels only, are computed once per evaluation here (:func:`gains`, :func:`idcg`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from . import kernels as K
from . import ranking as E
from .metric import Metric, NameParam

if TYPE_CHECKING:  # the records import the registry, which binds these kernels
    from .evaluation import Evaluation, ScoreEvaluation
    from .registry import MetricSpec
    from .skip import Part, Selection

__all__ = [
    "DEFINITIONS", "KernelInput", "gains", "idcg", "gauc_values", "rr_values", "ndcg_values", "ap_values",
    "precision_values", "recall_values", "hit_rate_values", "rbp_values", "rr_select", "hit_rate_select",
]


@dataclass(frozen=True)
class KernelInput:
    """What a kernel reads: one ranked score column of one evaluation, and one metric name."""

    ev: Evaluation
    se: ScoreEvaluation
    rk: E.Ranking
    spec: MetricSpec
    k: int | None  # the cutoff, clamped to the longest group (None: the whole list)
    eligible: np.ndarray  # bool per group: the groups the eligibility rule lets in
    score: np.ndarray  # the score column (the sklearn cross-check reads it)
    part: Part | None = None  # the run of kept groups that ``rk`` ranks (None: every group)


def gauc_values(x: KernelInput) -> np.ndarray:
    """Per-group AUC (Mann-Whitney over the group's pairs), NaN outside the eligible groups."""
    opts = x.ev.options
    if opts.engine == "sklearn" or opts.max_fpr is not None:
        from .reductions import sklearn_group_auc

        return sklearn_group_auc(x.ev, x.se, x.eligible, x.score)
    u, pn = K.auc_per_group(x.rk)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(x.eligible, u / pn, np.nan)


def rr_values(x: KernelInput) -> np.ndarray:
    """Expected reciprocal rank of the first relevant row (0 beyond the cutoff)."""
    return K.rr_per_group(x.rk, x.k)


def rr_select(sel: Selection, k: int | None) -> np.ndarray:
    """:func:`rr_values` from each group's first relevant block (no sort)."""
    return K.rr_first_block(sel.m, sel.t, sel.p, k)


def ndcg_values(x: KernelInput) -> np.ndarray:
    """Expected DCG@k over the group's ideal DCG@k; 1 when the ideal DCG is 0."""
    dcg = K.dcg_per_group(x.rk, x.k)
    ideal = idcg(x.ev, x.rk, x.k, part=x.part)
    with np.errstate(invalid="ignore", divide="ignore"):
        # IDCG = 0 in a group with relevant rows (threshold <= 0 makes label-0 rows
        # relevant, and they gain nothing): every ordering is ideal, NDCG = 1
        return np.where(ideal > 0, dcg / ideal, 1.0)


def ap_values(x: KernelInput) -> np.ndarray:
    """Expected average precision@k, over the relevant rows or min(relevant rows, k)."""
    npos = x.rk.npos
    k = x.k
    denom = npos if (x.ev.options.denominator == "relevant" or k is None) else np.minimum(npos, k)
    with np.errstate(invalid="ignore", divide="ignore"):
        return K.ap_per_group(x.rk, k) / denom


def precision_values(x: KernelInput) -> np.ndarray:
    """Expected relevant rows in the top k, over k (a shorter group still divides by k)."""
    return K.hits_per_group(x.rk, x.k) / float(x.spec.k)  # type: ignore[arg-type]


def recall_values(x: KernelInput) -> np.ndarray:
    """Expected relevant rows in the top k, over the group's relevant rows."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return K.hits_per_group(x.rk, x.k) / x.rk.npos


def hit_rate_values(x: KernelInput) -> np.ndarray:
    """Chance that a relevant row is in the top k."""
    return K.hit_per_group(x.rk, x.k)


def hit_rate_select(sel: Selection, k: int | None) -> np.ndarray:
    """:func:`hit_rate_values` from each group's first relevant block (no sort)."""
    return K.hit_first_block(sel.m, sel.t, sel.p, k)  # type: ignore[arg-type]


def rbp_values(x: KernelInput) -> np.ndarray:
    """Expected rank-biased precision with persistence p: (1 - p) sum_i rel_i p^(i - 1).

    RBP is linear in the relevance of each position, so the expectation over the orderings of a
    tied block of t rows (m rows above it, r relevant) is r / t of the block's summed
    (1 - p) p^(m + j - 1), j = 1..t, which is (r / t) p^m (1 - p^t): exact, in closed form.
    """
    p = float(x.spec.k)  # type: ignore[arg-type]
    rk = x.rk
    if rk.rel is not None:  # tie-free: the relevant rows alone
        group, offset, _ = rk.relevant_rows()
        return np.bincount(group, weights=(1.0 - p) * np.power(p, offset), minlength=rk.n_groups)
    size = rk.size.astype(np.float64)
    return rk.group_sum((rk.pos / size) * np.power(p, rk.offset) * (1.0 - np.power(p, size)))


# --------------------------------------------------------------------------- #
# NDCG's label-only parts, once per evaluation
# --------------------------------------------------------------------------- #
def gains(ev: Evaluation) -> np.ndarray:
    """Gain of each label level; levels below the relevance threshold gain nothing."""
    v = ev.labels.values
    with np.errstate(over="ignore"):
        g = np.exp2(v) - 1.0 if ev.options.gain == "exp2" else v.astype(np.float64)
    if ev.options.threshold is not None:
        g = np.where(np.arange(v.shape[0]) >= ev.labels.rel_level, g, 0.0)
    if not np.isfinite(g).all():  # 2**label overflows float64 from label 1024 on
        raise ValueError(
            f"{ev.options.func}: gain='exp2' overflows for labels >= 1024 (2**label - 1 is beyond "
            f"float64); the largest label is {v.max():.6g}. Pass gain='linear', or rescale the labels."
        )
    return g


def idcg(ev: Evaluation, rk: E.Ranking, k: int | None, part: Part | None = None) -> np.ndarray:
    """IDCG@k per group (the same for every score column: computed once per k); with ``part``,
    of that run of the groups that count (``ev.table``), as the ranking ``rk`` holds them."""
    cache_key = f"idcg@{k}" + ("" if part is None else f"/kept{part.lo}-{part.hi}")
    if cache_key not in ev.group_stats:
        longest = int(rk.n.max())
        g = gains(ev)
        if rk.level_counts is not None:
            with np.errstate(over="ignore", invalid="ignore"):  # checked below
                out = K.idcg_from_counts(rk.level_counts, g, longest, k)
        else:  # too many (group, level) cells to count densely: sort them instead
            groups = ev.prepared.groups
            if groups is None:  # pragma: no cover - list metrics always have groups
                raise RuntimeError("NDCG needs group codes")
            if part is not None:
                ideal = K.build_ideal(part.row_group, part.hi - part.lo, part.level, ev.labels.n_levels)
            elif ev.ideal is None:
                ideal = ev.ideal = K.build_ideal(groups.codes, groups.n_codes, ev.labels.level, ev.labels.n_levels)
            else:
                ideal = ev.ideal
            with np.errstate(over="ignore", invalid="ignore"):
                out = K.idcg_per_group(ideal, g, rk.n_groups, longest, k)
        if not np.isfinite(out).all():  # a sum of large gains beyond float64
            raise ValueError(
                f"{ev.options.func}: the ideal DCG of {int((~np.isfinite(out)).sum()):,} groups overflows "
                f"float64 (gain={ev.options.gain!r}, largest label {ev.labels.values.max():.6g}). "
                "Pass gain='linear', or rescale the labels."
            )
        ev.group_stats[cache_key] = out
    return ev.group_stats[cache_key]


# --------------------------------------------------------------------------- #
# The definitions: one entry per metric
# --------------------------------------------------------------------------- #
#: The options every list metric takes (NDCG adds ``gain``, MAP ``denominator``).
_LIST = ("weight", "ties", "tiebreak", "threshold", "empty", "nan_policy")
_NO_PARAM = NameParam("cutoff", "none")
_CUTOFF = NameParam("cutoff", "optional")
_CUTOFF_REQUIRED = NameParam("cutoff", "required", 10)

_RBP_DOC = """Rank-biased precision (Moffat & Zobel 2008) with persistence p: the expected rate of
    relevant rows seen by a user who reads on from each row with probability p.

    Parameters
    ----------
{list_params}
    p : float in (0, 1), default=0.8
        Persistence: the chance of reading on to the next row; the metric name is ``"rbp@0.8"``.
{common_params}

    Returns
    -------
    rbp : MetricResult

    Notes
    -----
    RBP = (1 - p) sum_i rel_i p^(i - 1), rel_i = 1 for a relevant row (label > 0, or >=
    ``threshold``). RBP is linear in each position's relevance, so under ties the expectation
    over the orderings of a tied block of t rows with r relevant and m rows above it is
    (r / t) p^m (1 - p^t): exact, in closed form. No cutoff: rows deep in a list weigh p^(i - 1).

    Examples
    --------
    >>> import pandas as pd
    >>> import pandas_rankeval as pre
    >>> df = pd.DataFrame({"q": 1, "rel": [1, 0, 1], "score": [3, 2, 1]})
    >>> pre.rbp(df, group="q", label="rel", score="score", p=0.5)
    0.625
    """

#: Every metric, in the order of the docs and the CLI's list.
DEFINITIONS: tuple[Metric, ...] = (
    Metric(
        "auc", "auc", "global AUC (Mann-Whitney)", _NO_PARAM, "rows", "count",
        ("ties", "tiebreak", "threshold", "sample_weight", "max_fpr", "nan_policy"), merge="score_counts",
        per_group="gauc",
    ),
    Metric(
        "gauc", "gauc", "group AUC, weighted mean of per-group AUC", _NO_PARAM, "pairs", "count",
        ("weight", "min_size", "min_pos", "min_neg", "sample_weight", "ties", "tiebreak", "threshold",
         "engine", "max_fpr", "nan_policy", "progress"), gauc_values, group_column="auc",
    ),
    Metric(
        "mrr", "mrr", "mean reciprocal rank of the first relevant row", _CUTOFF, "relevant", "uniform",
        _LIST, rr_values, select=rr_select,
    ),
    Metric(
        "ndcg", "ndcg", "normalized discounted cumulative gain", _CUTOFF, "relevant", "uniform",
        (*_LIST, "gain"), ndcg_values, graded=True,
    ),
    Metric(
        "map", "average_precision", "mean average precision", _CUTOFF, "relevant", "uniform",
        (*_LIST, "denominator"), ap_values, aliases=("map", "mean_average_precision", "map_"),
    ),
    Metric(
        "precision", "precision", "relevant rows in the top k / k", _CUTOFF_REQUIRED, "relevant", "uniform",
        _LIST, precision_values,
    ),
    Metric(
        "recall", "recall", "relevant rows in the top k / relevant rows", _CUTOFF_REQUIRED, "relevant",
        "uniform", _LIST, recall_values,
    ),
    Metric(
        "hit_rate", "hit_rate", "share of groups with a relevant row in the top k", _CUTOFF_REQUIRED,
        "relevant", "uniform", _LIST, hit_rate_values, select=hit_rate_select,
    ),
    Metric(
        "rbp", "rbp", "rank-biased precision: (1 - p) sum of p^(rank - 1) over the relevant rows",
        NameParam("persistence", "required", 0.8), "relevant", "uniform", _LIST, rbp_values,
        doc=_RBP_DOC,
    ),
)
