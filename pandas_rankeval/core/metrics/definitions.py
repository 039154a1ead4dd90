"""The per-group kernel of every group metric, as the registry binds it.

A kernel takes a :class:`KernelInput` (the evaluation, the ranked score column, the parsed
metric name and the cutoff clamped to the longest group) and returns one value per group over
the sorted tie blocks (:mod:`.kernels`), in closed form under the expected tie rule. Which
groups enter the mean (the eligibility rule), their weights and the empty-group rule are the
registry's and :mod:`.coverage`'s, not the kernel's. NDCG's gains and ideal DCG, which depend on
the labels only, are computed once per evaluation here (:func:`gains`, :func:`idcg`).
"""

from __future__ import annotations

import math

import numpy as np

from . import ips
from ..kernels.calibration import ece_combine, ece_rows, logloss_rows, ne_combine, ne_rows, pcoc_rows
from ..kernels.xauc import label_pairs, xauc_sums
from ..kernels.ranked import Part, Selection, ap_per_group, auc_per_group, build_ideal, dcg_per_group, hit_first_block, hit_per_group, hits_per_group, idcg_from_counts, idcg_per_group, rr_first_block, rr_per_group, sum_in_rank_order
from ..ranking.tie_blocks import Ranking, log_factorial
from .metric import Cut, EvaluationView, Kernel, KernelInput, Metric, NameParam, Pooled, Reading
from .sklearn_auc import sklearn_group_auc

__all__ = [
    "DEFINITIONS", "KernelInput", "gains", "idcg", "gauc_values", "rr_values", "ndcg_values", "ap_values",
    "precision_values", "recall_values", "rprec_values", "hit_rate_values", "rbp_values", "rr_select", "hit_rate_select",
    "ERR_MAX_GRADE", "err_stop", "err_values",
]


def gauc_values(x: KernelInput) -> np.ndarray:
    """Per-group AUC (Mann-Whitney over the group's pairs), NaN outside the eligible groups."""
    opts = x.ev.options
    if opts.implementation == "sklearn" or opts.max_fpr is not None:
        return sklearn_group_auc(x.ev, x.se, x.eligible, x.score)
    u, pn = auc_per_group(x.rk)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(x.eligible, u / pn, np.nan)


def _xauc_rows(ev: EvaluationView) -> tuple[np.ndarray, int]:
    """Per row, the index of its group in the per-group arrays (ascending code), and the count."""

    def make() -> tuple[np.ndarray, int]:
        groups = ev.prepared.encode_groups()
        if groups is None:  # pragma: no cover - grouped XAUC always has groups
            raise RuntimeError("grouped XAUC needs group codes")
        uniq, inv = np.unique(groups.codes, return_inverse=True)
        return inv.reshape(-1), int(uniq.shape[0])

    return ev.cache.get("xauc rows", make)


def _sample_weight(ev: EvaluationView) -> np.ndarray | None:
    sw = ev.options.sample_weight
    return None if sw is None else ev.prepared.extra.get(sw)


def xauc_label_pairs(ev: EvaluationView) -> tuple[np.ndarray, np.ndarray]:
    """Per group: two different labels, and such a pair of positive weight (grouped XAUC's
    ``"ordered"`` eligibility), from the labels alone: made once per evaluation."""

    def make() -> tuple[np.ndarray, np.ndarray]:
        rg, n_groups = _xauc_rows(ev)
        return label_pairs(ev.labels.level, rg, n_groups, _sample_weight(ev))

    return ev.cache.get("xauc label pairs", make)


def gxauc_values(x: KernelInput) -> np.ndarray:
    """Per-group XAUC (pairs of different labels ordered by score as by label, tied scores 1/2),
    NaN outside the eligible groups. The labels are their levels (their order, exactly), the
    scores compared as stored."""
    rg, n_groups = _xauc_rows(x.ev)
    num, den = xauc_sums(x.ev.labels.level, x.score, _sample_weight(x.ev), rg, n_groups)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(x.eligible & (den > 0), num / den, np.nan)


def dcg_values(x: KernelInput) -> np.ndarray:
    """Expected DCG@k (NDCG's gains, discounts and tie rule), not normalized."""
    return dcg_per_group(x.rk, x.k)


def rr_values(x: KernelInput) -> np.ndarray:
    """Expected reciprocal rank of the first relevant row (0 beyond the cutoff)."""
    return rr_per_group(x.rk, x.k)


def rr_select(sel: Selection, k: int | None) -> np.ndarray:
    """:func:`rr_values` from each group's first relevant block (no sort)."""
    return rr_first_block(sel.m, sel.t, sel.p, k)


def ndcg_values(x: KernelInput) -> np.ndarray:
    """Expected DCG@k over the group's ideal DCG@k; 1 when the ideal DCG is 0."""
    dcg = dcg_per_group(x.rk, x.k)
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
        return ap_per_group(x.rk, k) / denom


def precision_values(x: KernelInput) -> np.ndarray:
    """Expected relevant rows in the top k, over k (a shorter group still divides by k)."""
    return hits_per_group(x.rk, x.k) / float(x.spec.k)  # type: ignore[arg-type]


def recall_values(x: KernelInput) -> np.ndarray:
    """Expected relevant rows in the top k, over the group's relevant rows."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return hits_per_group(x.rk, x.k) / x.rk.npos


def rprec_values(x: KernelInput) -> np.ndarray:
    """Expected relevant rows in the top R over R, R the group's relevant rows (``npos``: with
    ``retrieved=``, the relevant rows outside the ranking too). The group's own cutoff R cuts a
    tied block of t rows, p relevant, after r of its rows: r * p / t expected relevant rows (the
    hypergeometric mean); groups with R = 0 divide by 0 here and are ruled by ``empty=``."""
    rk = x.rk
    npos = rk.npos
    if rk.rel is not None:  # tie-free: the relevant rows ranked above R, counted exactly
        group, offset, _ = rk.relevant_rows()
        hits = np.bincount(group[offset < npos[group]], minlength=rk.n_groups).astype(np.float64)
    else:
        r = np.clip(npos[rk.group] - rk.offset, 0, rk.size)
        hits = sum_in_rank_order(rk, rk.pos * (r / rk.size))
    with np.errstate(invalid="ignore", divide="ignore"):
        return hits / npos


def hit_rate_values(x: KernelInput) -> np.ndarray:
    """Chance that a relevant row is in the top k."""
    return hit_per_group(x.rk, x.k)


def hit_rate_select(sel: Selection, k: int | None) -> np.ndarray:
    """:func:`hit_rate_values` from each group's first relevant block (no sort)."""
    return hit_first_block(sel.m, sel.t, sel.p, k)  # type: ignore[arg-type]


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
    spread = (rk.pos / size) * np.power(p, rk.offset) * (1.0 - np.power(p, size))
    # a relevant row alone in its block takes the tie-free term, added per group in rank order
    alone = np.where(rk.pos > 0, (1.0 - p) * np.power(p, rk.offset), 0.0)
    return sum_in_rank_order(rk, np.where(rk.size == 1, alone, spread))


#: ERR's top grade: R = (2^label - 1) / 2^4, the 0..4 scale of Chapelle et al. 2009, gdeval
#: (TREC Web, ir_measures' ``ERR@k``) and RankLib; a fixed scale, so no partition of a table
#: can change a row's R.
ERR_MAX_GRADE = 4


def err_stop(ev: EvaluationView) -> np.ndarray:
    """ERR's stopping probability R of each label level: (2^label - 1) / 2^4, 0 below the
    relevance threshold (as NDCG's gains). A label above 4 never gets here: it is refused with
    the table's other label checks (``Metric.max_label``)."""
    v = ev.labels.values
    r = (np.exp2(v) - 1.0) / 2.0**ERR_MAX_GRADE
    if ev.options.threshold is not None:
        r = np.where(np.arange(v.shape[0]) >= ev.labels.rel_level, r, 0.0)
    return r


def _before_in_group(x: np.ndarray, rk: Ranking) -> np.ndarray:
    """Exclusive cumulative sum of an integer per-block array, restarted at every group (exact)."""
    c = np.cumsum(x)
    c -= x
    return c - np.repeat(c[rk.first], rk.nblocks)


def _merge_level(a: np.ndarray, n0: np.ndarray, c: np.ndarray, x: float) -> np.ndarray:
    """Add c rows of value x to the rows behind ``a``: ``a[:, s]`` is the mean over the s-subsets
    of the n0 rows so far of the product of their values; so is the result over n0 + c rows.

    a'_s = sum_u H(u) x^u a_{s-u}, H the hypergeometric chance that u of s rows drawn from the
    n0 + c are new: a weighted mean of non-negative terms (no cancellation), H in log space.
    """
    width = a.shape[1]
    s = np.arange(width)
    n = n0 + c
    lf = log_factorial
    lf_s = lf(s)
    lf_ns = lf(np.maximum(n[:, None] - s, 0))
    base = lf(c) + lf(n0) - lf(n)
    out = np.zeros_like(a)
    for u in range(int(min(c.max(), width - 1)) + 1):
        t = s[u:] - u  # the old rows of an s-subset with u new ones
        ok = (u <= c)[:, None] & (t <= n0[:, None]) & (s[u:] <= n[:, None])
        log_h = (base - lf(np.maximum(c - u, 0)))[:, None] - math.lgamma(u + 1.0) - lf(t)
        log_h = log_h - lf(np.maximum(n0[:, None] - t, 0)) + lf_s[u:] + lf_ns[:, u:]
        out[:, u:] += np.where(ok, np.exp(np.where(ok, log_h, 0.0)) * x**u * a[:, : width - u], 0.0)
    return out


def _subset_means(counts: np.ndarray, r: np.ndarray, size: np.ndarray, width: int) -> np.ndarray:
    """a[:, s], s < width: the mean over the s-row subsets of each block (rows per level ``counts``,
    levels x blocks; ``size`` rows in all) of prod (1 - R), one level at a time (the rows with
    R = 0 last, as one level of value 1)."""
    a = np.zeros((size.shape[0], width))
    a[:, 0] = 1.0
    merged = np.zeros(size.shape[0], dtype=np.int64)
    for level in np.flatnonzero(r > 0):
        c = counts[level]
        if c.any():
            a = _merge_level(a, merged, c, 1.0 - float(r[level]))
            merged += c
    rest = size - merged
    if rest.any():
        a = _merge_level(a, merged, rest, 1.0)
    return a


def _tied_err(counts: np.ndarray, r: np.ndarray, size: np.ndarray, start: np.ndarray, depth: np.ndarray) -> np.ndarray:
    """Expected ERR of tied blocks (rows per level ``counts``, levels x blocks), given that every
    row above each block was passed over (the caller multiplies by that chance).

    In a random order of a block, the row at place i is of level l with chance c_l / t, and the
    i - 1 rows before it are a random subset of the other rows: the reader stops there with
    chance sum_l (c_l / t) R_l a^(-l)_{i-1}, a^(-l)_s the mean of prod (1 - R) over the s-row
    subsets of the block without one row of level l (:func:`_subset_means`). The block adds that
    over (start + i) for i <= depth, its places within the cutoff: a sum of non-negative terms.
    """
    width = int(depth.max())
    place = np.arange(1, width + 1)
    weight = np.where(place <= depth[:, None], 1.0 / (start[:, None] + place), 0.0)
    out = np.zeros(size.shape[0])
    for level in np.flatnonzero(r > 0):
        c = counts[level]
        has = np.flatnonzero(c > 0)
        if not has.shape[0]:
            continue
        less = counts[:, has].copy()
        less[level] -= 1
        a = _subset_means(less, r, size[has] - 1, width)
        share = c[has] * float(r[level]) / size[has]
        out[has] += share * np.sum(a * weight[has], axis=1)
    return out


def err_values(x: KernelInput) -> np.ndarray:
    """Expected reciprocal rank (Chapelle et al. 2009): sum_{r <= k} R_r / r prod_{i < r} (1 - R_i).

    Exact under ties: the product over every block above is order-free, and a tied block's own
    expectation comes from the means of prod (1 - R) over subsets of its rows (:func:`_tied_err`),
    bucketed by the block's depth within the cutoff so that a deep block costs only its own rows.
    """
    rk = x.rk
    lev = rk.block_levels
    if lev is None:  # pragma: no cover - the entry asks build_ranking for them
        raise RuntimeError("ERR needs the label levels of every tie block")
    r = err_stop(x.ev)
    log_pass = np.log1p(-r)  # log(1 - R) of each level: 0 where R is 0
    offset = rk.offset
    k = x.k
    if lev.ndim == 1:  # blocks are rows: the level of each
        above = np.zeros(lev.shape[0])
        for level in np.flatnonzero(r > 0):  # rows of each level above, counted exactly
            above += _before_in_group((lev == level).astype(np.int64), rk) * log_pass[level]
        value = r[lev] * np.exp(above) / (offset + 1.0)
    else:
        above = np.zeros(lev.shape[1])
        for level in np.flatnonzero(r > 0):
            above += _before_in_group(lev[level], rk) * log_pass[level]
        size = rk.size
        depth = size if k is None else np.clip(k - offset, 0, size)
        value = np.where(size == 1, r @ lev / (offset + 1.0), 0.0)
        gaining = r[r > 0] @ lev[r > 0] if (r > 0).any() else np.zeros(size.shape[0])
        tied = np.flatnonzero((size > 1) & (depth > 0) & (gaining > 0))
        if tied.shape[0]:
            bucket = np.ceil(np.log2(depth[tied])).astype(np.int64)  # depths in (2^(b-1), 2^b]
            for b in np.unique(bucket):
                idx = tied[bucket == b]
                value[idx] = _tied_err(lev[:, idx], r, size[idx], offset[idx], depth[idx])
        value = value * np.exp(above)
    if k is not None:
        value = np.where(offset < k, value, 0.0)
    return rk.group_sum(value)


# --------------------------------------------------------------------------- #
# NDCG's label-only parts, once per evaluation
# --------------------------------------------------------------------------- #
def gains(ev: EvaluationView) -> np.ndarray:
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


def idcg(ev: EvaluationView, rk: Ranking, k: int | None, part: Part | None = None) -> np.ndarray:
    """IDCG@k per group (the same for every score column: computed once per k); with ``part``,
    of that run of the groups that count (``ev.table``), as the ranking ``rk`` holds them."""
    return ev.cache.get(("idcg", k, None if part is None else (part.lo, part.hi)), lambda: _idcg(ev, rk, k, part))


def _idcg(ev: EvaluationView, rk: Ranking, k: int | None, part: Part | None) -> np.ndarray:
    """:func:`idcg`, computed."""
    longest = int(rk.n.max())
    g = gains(ev)
    if rk.level_counts is not None:
        with np.errstate(over="ignore", invalid="ignore"):  # checked below
            out = idcg_from_counts(rk.level_counts, g, longest, k)
    else:  # too many (group, level) cells to count densely: sort them instead
        groups = ev.prepared.groups
        if groups is None:  # pragma: no cover - list metrics always have groups
            raise RuntimeError("NDCG needs group codes")
        if part is not None:
            ideal = build_ideal(part.row_group, part.hi - part.lo, part.level, ev.labels.n_levels)
        else:
            ideal = ev.cache.get("ideal", lambda: build_ideal(groups.codes, groups.n_codes, ev.labels.level,
                                                                ev.labels.n_levels))
        with np.errstate(over="ignore", invalid="ignore"):
            out = idcg_per_group(ideal, g, rk.n_groups, longest, k)
    if not np.isfinite(out).all():  # a sum of large gains beyond float64
        raise ValueError(
            f"{ev.options.func}: the ideal DCG of {int((~np.isfinite(out)).sum()):,} groups overflows "
            f"float64 (gain={ev.options.gain!r}, largest label {ev.labels.values.max():.6g}). "
            "Pass gain='linear', or rescale the labels."
        )
    return out


# --------------------------------------------------------------------------- #
# The definitions: one entry per metric
# --------------------------------------------------------------------------- #
#: The options every list metric takes (NDCG adds ``gain``, MAP ``denominator``).
_LIST = ("weight", "ties", "tiebreak", "threshold", "empty", "nan_policy")
#: The list metrics of a ranking of rows, which take rows outside it (``retrieved``; not IPS).
_RANKED = (*_LIST, "retrieved")
_NO_PARAM = NameParam("cutoff", "none")
_CUTOFF = NameParam("cutoff", "optional")
_CUTOFF_REQUIRED = NameParam("cutoff", "required", 10)
_IPS = ("position", "propensity", "clip", "snips")

_RBP_DOC = """Rank-biased precision (Moffat & Zobel 2008) with persistence p: the expected rate of
    relevant rows seen by a user who reads on from each row with probability p.

    Parameters
    ----------
{list_params}
    p : float in (0, 1), default=0.8
        Persistence: the chance of reading on to the next row; the metric name is ``"rbp@0.8"``.
{ranked_params}

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


_ERR_DOC = """Expected reciprocal rank (Chapelle et al. 2009): the expected inverse rank at which a
    reader, who stops at each row with a chance R that grows with its grade, stops (ERR, ERR@k).

    Parameters
    ----------
{list_params}
    k : int or None, default=None
        Only the first k rows count (``"err@10"``); None is the whole list (``"err"``).
{ranked_params}

    Returns
    -------
    err : MetricResult

    Notes
    -----
    ERR@k = sum_{{r <= k}} (R_r / r) prod_{{i < r}} (1 - R_i), R = (2^label - 1) / 2^4: labels are
    grades 0 to 4 (Chapelle et al.'s scale, fixed as gdeval's, ir_measures' ``ERR@k`` and
    RankLib's are), so a click (label 1) stops the reader with chance 1/16 and a label above 4 is
    an error; rows below ``threshold`` have R = 0. The scale does not depend on the table, so every
    engine and partition gives the same number.

    Under ties the value is the exact mean over every order of each tied block (no sampling): the
    rows above a block are passed over with chance prod (1 - R), whatever their order, and a
    block's own part is sum_{{i <= d}} (a_{{i-1}} - a_i) / (m + i) with m rows above it, d of its
    places within k and a_s the mean of prod (1 - R) over its s-row subsets, built from the rows
    per grade in the block in hypergeometric weights (in log space). A tied block costs
    O(d * min(d, t)) per grade present (t its rows): cheap with a cutoff; without one, a group of
    n rows that all tie costs O(n^2).

    Examples
    --------
    >>> import pandas as pd
    >>> import pandas_rankeval as pre
    >>> df = pd.DataFrame({"q": 1, "grade": [4, 0, 2], "score": [3, 2, 1]})
    >>> # 15/16 + (1/16)(3/16)/3
    >>> round(pre.err(df, group="q", label="grade", score="score"), 6)
    0.941406
    """

#: The options every calibration metric takes.
_CALIBRATION = ("sample_weight", "threshold", "nan_policy")

_CAL_PARAMS = """    Parameters
    ----------
{frame}
    group : column or list of columns, optional
        The user, query or session: the unit of the group bootstrap and of ``per_group``. The
        value pools the rows of every group (a group adds its row sums; none is skipped), so it
        is the same with any group and without one. Without ``group`` (the default) every row is
        its own group: the unit of ``report``'s interval and ``compare``'s test is the row.
    label : column
        Clicks: 0/1 or bool. Other labels are an error unless ``threshold`` is given
        (a click is then ``label >= threshold``).
    score : column
        The predicted click probability, in [0, 1]; a value outside (or an infinite one) is an
        error that names the column, the count and the range seen."""

_CAL_COMMON = """    sample_weight : column, optional
        Per-row weights (finite, >= 0); every row weighs 1 by default.
    threshold : float, optional
        Reads a graded label as a click when ``label >= threshold``.
{nan_policy}
{engine_options}"""


def _cal_doc(summary: str, extra: str, ret: str, notes: str, example: str) -> str:
    return f"""{summary}

{_CAL_PARAMS}
{extra}{_CAL_COMMON}

    Returns
    -------
    {ret} : MetricResult

    Notes
    -----
{notes}

    Examples
    --------
    >>> import pandas as pd
    >>> import pandas_rankeval as pre
    >>> df = pd.DataFrame({{"user": [1, 1, 2, 2], "click": [1, 0, 0, 1],
    ...                    "p": [0.8, 0.4, 0.2, 0.5]}})
{example}
    """


_LOGLOSS_DOC = _cal_doc(
    "Log loss (cross-entropy) of predicted click probabilities, pooled over every row.",
    "",
    "logloss",
    """    logloss = -sum_i w_i (y_i log p_i + (1 - y_i) log(1 - p_i)) / sum_i w_i, which is
    ``sklearn.metrics.log_loss(y, p, sample_weight=w)``. p is clipped to [1e-15, 1 - 1e-15]
    inside the logs, so a wrong prediction of exactly 0 or 1 costs 34.5 nats, not infinity.
    Lower is better. No sort is needed: each group adds (sum w l, sum w).""",
    """    >>> round(pre.logloss(df, group="user", label="click", score="p"), 4)
    0.4126

    The rows are pooled: no group is needed for the value (every row is then its own group)::

    >>> round(pre.logloss(df, label="click", score="p"), 4)
    0.4126""",
)

_NE_DOC = _cal_doc(
    "Normalized entropy: log loss divided by the entropy of the base click rate of the same rows.",
    "",
    "ne",
    """    NE = logloss / H(b), H(b) = -(b log b + (1 - b) log(1 - b)), b = sum w y / sum w (He et al.
    2014, "Practical lessons from predicting clicks on ads at Facebook"). A model that always
    predicts the base rate scores 1; lower is better. NaN when every row is a click or none is
    (b is 0 or 1: no entropy to divide by). Per segment and per group, b is the base rate of
    that segment's or group's rows.""",
    """    >>> round(pre.ne(df, group="user", label="click", score="p"), 4)
    0.5952""",
)

_PCOC_DOC = _cal_doc(
    "PCOC: predicted over observed clicks, sum w p / sum w y; 1 is calibrated.",
    "",
    "pcoc",
    """    PCOC = sum_i w_i p_i / sum_i w_i y_i. Above 1 the model over-predicts clicks, below 1 it
    under-predicts; neither side is better, the value closest to 1 is (``compare`` reports the
    difference and says "closer to 1"). NaN when there is no click. Groups with no click still
    add their predicted clicks to the numerator.""",
    """    >>> round(pre.pcoc(df, group="user", label="click", score="p"), 4)
    0.95""",
)

_ECE_DOC = _cal_doc(
    "Expected calibration error over equal-width probability bins.",
    """    bins : int, default=10
        The number of equal-width bins of [0, 1]; the metric name is ``"ece@10"``.
""",
    "ece",
    """    ECE = sum_b (W_b / W) |sum_b w p / W_b - sum_b w y / W_b| = sum_b |sum_b w (p - y)| / W over
    the bins [0, 1/B], (1/B, 2/B], ..., ((B-1)/B, 1] (an edge falls in the bin below it; the
    edges of ``np.linspace(0, 1, B + 1)``, as ``sklearn.calibration.calibration_curve(strategy=
    "uniform")`` cuts them), W_b the weight of the rows in
    bin b, W the weight of every row; empty bins add nothing. Lower is better. Its paired test
    in ``compare`` is the paired bootstrap (ECE is not a sum over groups).""",
    """    >>> round(pre.ece(df, group="user", label="click", score="p", bins=2), 4)
    0.075""",
)


def _two_parts(_: int | float | None) -> int:
    """NE's summary: log loss and the base rate's entropy (module-level, so an entry pickles)."""
    return 2


def _bins_parts(bins: int | float | None) -> int:
    """ECE's summary: one component per bin."""
    return int(bins)  # type: ignore[arg-type]


_AUC_DOC = """Global AUC over all rows (the Mann-Whitney statistic).

    Parameters
    ----------
{frame}
    label : column
        Relevance: bool, 0/1 or graded; a row is relevant when its label is > 0
        (or >= ``threshold``).
    score : column
        The model's score; higher ranks first.
    sample_weight : column, optional
        Per-row weights; a (positive, negative) pair weighs ``w_i * w_j``, as
        sklearn's ``sample_weight``. When the relevant or the non-relevant rows
        weigh 0 in total, no pair has weight: NaN with a warning
        (``.coverage.n_zero_weight`` is 1).
    ties : {"expected", "pessimistic", "optimistic"}, default="expected"
        A tied (positive, negative) pair counts 1/2, 0 or 1.
    tiebreak : column, optional
        Orders rows with equal scores (ascending) before the ``ties`` rule applies.
{threshold}
    max_fpr : float in (0, 1], optional
        Standardized partial AUC up to this false-positive rate (McClish),
        computed by sklearn. Needs every row in one place: refused on a Dask or
        Spark frame (and a polars LazyFrame), before any work.
{nan_policy}
{engine_options}

    Returns
    -------
    auc : MetricResult
        A float; NaN with a warning when only one class is present.

    Notes
    -----
    AUC = (sum over relevant i, non-relevant j of [s_i > s_j] + 1/2 [s_i = s_j]) / (P N),
    which equals ``sklearn.metrics.roc_auc_score``. It costs one sort of the scores; over
    partitions (Dask, Spark) the (relevant, non-relevant) rows are counted per distinct
    score, range-partitioned and chained in score order in exact integers.

    Examples
    --------
    >>> import pandas as pd
    >>> import pandas_rankeval as pre
    >>> df = pd.DataFrame({"click": [1, 0, 1, 0], "score": [0.9, 0.8, 0.4, 0.4]})
    >>> pre.auc(df, label="click", score="score")
    0.625
    """


_GAUC_DOC = """Group AUC: the weighted mean of the per-group AUC (the DIN paper's GAUC).

    Parameters
    ----------
{frame}
{group}
    label, score : column
        Relevance (> 0 or >= ``threshold`` is relevant) and the model's score.
    weight : {"count", "clicks", "log1p", "uniform"}, column, Series or callable, optional
        Group weights: rows, relevant rows, ``log(1 + rows)``, 1, the per-group
        sum of a column, a Series indexed by group key, or a callable that takes
        the per-group statistics frame (columns ``n``, ``positives``,
        ``negatives``, indexed by group key) and returns one weight per group.
        None (the default) is "count". A name that is also a column of ``df``
        (say a column ``"count"``) is ambiguous and raises an error that shows
        how to ask for either.
    min_size, min_pos, min_neg : int, optional
        Leave out groups with fewer rows / relevant rows / non-relevant rows.
    sample_weight : column, optional
        Per-row weights inside each group's AUC (pairs weigh ``w_i * w_j``). A
        group whose relevant or non-relevant rows weigh 0 in total has no AUC: it
        is skipped, on both engines, and counted in ``.coverage.n_zero_weight``.
    ties : {"expected", "pessimistic", "optimistic"}, default="expected"
        A tied pair counts 1/2, 0 or 1.
    tiebreak : column, optional
        Orders rows with equal scores (ascending) first.
    threshold : float, optional
        Relevant when ``label >= threshold``.
{implementation}
    max_fpr : float in (0, 1], optional
        Per-group standardized partial AUC (McClish), from sklearn.
{nan_policy}
{progress}
{engine}
{engine_options}

    Returns
    -------
    gauc : MetricResult
        A float with ``.coverage``: groups used, skipped for having one class
        only or for the filters, and the share of rows and positives skipped.
        NaN with a warning when no group is eligible; a warning when skipped
        groups hold more than 10% of the rows.

    Notes
    -----
    GAUC = sum_g w_g AUC_g / sum_g w_g over the groups with both classes that
    pass the filters; other groups are in neither sum. Ties as in :func:`auc`.

    Examples
    --------
    A user with 80 rows at AUC 0.7 and one with 20 rows at AUC 0.6:

    >>> import numpy as np, pandas as pd
    >>> import pandas_rankeval as pre
    >>> def user(uid, n, pos, auc):
    ...     # pos positives above a share auc of the negatives, tie-free
    ...     neg = n - pos
    ...     below = round(auc * neg)
    ...     scores = np.r_[np.full(pos, below - 0.5), np.arange(neg)]
    ...     return pd.DataFrame(
    ...         {"user": uid, "click": [1] * pos + [0] * neg, "score": scores}
    ...     )
    >>> df = pd.concat([user("A", 80, 10, 0.7), user("B", 20, 5, 0.6)])
    >>> pre.gauc(df, group="user", label="click", score="score")
    0.68
    >>> round(
    ...     pre.gauc(
    ...         df, group="user", label="click", score="score", weight="uniform"
    ...     ),
    ...     4,
    ... )
    0.65
    >>> print(pre.gauc(df, group="user", label="click", score="score").coverage)
    2 of 2 groups used
    """


_MRR_DOC = """Mean reciprocal rank of the first relevant row (MRR, MRR@k).

    Parameters
    ----------
{list_params}
    k : int or None, default=None
        Only the first k rows count: RR is 0 when no relevant row is among them.
{ranked_params}

    Returns
    -------
    mrr : MetricResult

    Notes
    -----
    RR = 1 / rank of the first relevant row. With ties, m rows strictly above
    the block that holds the first relevant row, t rows in it and p relevant:
    E[RR] = sum_{{j=1..t-p+1}} C(t-j, p-1) / C(t, p) / (m + j), exact.

    Examples
    --------
    First relevant rows at ranks 1, 3 and 5:

    >>> import pandas as pd
    >>> import pandas_rankeval as pre
    >>> df = pd.DataFrame({
    ...     "q": [1] * 1 + [2] * 3 + [3] * 5,
    ...     "rel": [1] + [0, 0, 1] + [0, 0, 0, 0, 1],
    ...     "score": [9] + [9, 8, 7] + [9, 8, 7, 6, 5],
    ... })
    >>> round(pre.mrr(df, group="q", label="rel", score="score"), 3)
    0.511
    >>> round(pre.mrr(df, group="q", label="rel", score="score", k=3), 3)
    0.444
    """


_NDCG_DOC = """Normalized discounted cumulative gain at k (NDCG@k), graded labels welcome.

    Parameters
    ----------
{frame}
{group}
{list_label}
        Graded labels (0, 1, 2, ...) are used as gains; negative labels are an error.
{list_score}
    k : int or None, default=None
        Cutoff. None (the default) is the whole list, as the metric name
        ``"ndcg"`` in :func:`report` and sklearn's ``ndcg_score``; ``k=10`` is
        NDCG@10, the name ``"ndcg@10"``. A k larger than a group uses the whole group.
    gain : {{"exp2", "linear"}}, default="exp2"
        ``2**label - 1`` (Burges) or ``label`` (trec_eval, sklearn).
{list_order}
{threshold}
        For NDCG, rows with a label below ``threshold`` gain nothing (graded labels
        at or above it keep their gain).
{list_empty}
{list_retrieved}
{nan_policy}
{engine_options}

    Returns
    -------
    ndcg : MetricResult

    Notes
    -----
    DCG@k = sum_{{i<=k}} gain_i / log2(i + 1); NDCG = DCG@k / IDCG@k, IDCG from the
    group's own labels sorted descending. Expected ties give each row of a tied
    block the block's mean gain over the discounts of the positions it occupies,
    which equals ``sklearn.metrics.ndcg_score`` (linear gain).

    Examples
    --------
    >>> import pandas as pd
    >>> import pandas_rankeval as pre
    >>> df = pd.DataFrame({"q": [1, 1, 1], "rel": [0, 1, 2], "score": [3, 2, 1]})
    >>> round(pre.ndcg(df, group="q", label="rel", score="score", gain="linear"), 4)
    0.6199
    >>> round(
    ...     pre.ndcg(df, group="q", label="rel", score="score", gain="linear", k=2),
    ...     4,
    ... )
    0.2398
    """


_AVERAGE_PRECISION_DOC = """Mean average precision (MAP, MAP@k): the mean over groups of AP@k.

    Parameters
    ----------
{list_params}
    k : int or None, default=None
        Only relevant rows within the first k count.
    denominator : {{"relevant", "min_k"}}, default="relevant"
        Divide by all relevant rows of the group (trec_eval, ranx) or by
        ``min(relevant rows, k)`` (Spark, RecBole).
{ranked_params}

    Returns
    -------
    map : MetricResult

    Notes
    -----
    AP@k = (1/D) sum over relevant rows at rank i <= k of precision@i. Under ties,
    the exact expectation over the orderings of each tied block, in closed form.

    Examples
    --------
    The list [relevant, not, relevant, not, relevant]:

    >>> import pandas as pd
    >>> import pandas_rankeval as pre
    >>> df = pd.DataFrame(
    ...     {"q": 1, "rel": [1, 0, 1, 0, 1], "score": [5, 4, 3, 2, 1]}
    ... )
    >>> round(pre.average_precision(df, group="q", label="rel", score="score"), 3)
    0.756
    """


_PRECISION_DOC = """Precision at k: relevant rows among the first k, divided by k.

    Parameters
    ----------
{list_params}
    k : int, default=10
        The cutoff; a group shorter than k still divides by k (trec_eval).
{ranked_params}

    Returns
    -------
    precision : MetricResult

    Notes
    -----
    When a tied block of t rows with p relevant straddles the cutoff and r of its
    rows fall within k, it contributes r * p / t expected relevant rows.

    Examples
    --------
    >>> import pandas as pd
    >>> import pandas_rankeval as pre
    >>> df = pd.DataFrame(
    ...     {"q": 1, "rel": [1, 0, 1, 0, 1], "score": [5, 4, 3, 2, 1]}
    ... )
    >>> [
    ...     round(pre.precision(df, group="q", label="rel", score="score", k=k), 2)
    ...     for k in (1, 3, 5)
    ... ]
    [1.0, 0.67, 0.6]
    """


_RECALL_DOC = """Recall at k: relevant rows among the first k, divided by the group's relevant rows.

    Parameters
    ----------
{list_params}
    k : int, default=10
        The cutoff.
{ranked_params}

    Returns
    -------
    recall : MetricResult

    Notes
    -----
    Ties as in :func:`precision`: a straddling block contributes r * p / t.

    Examples
    --------
    >>> import pandas as pd
    >>> import pandas_rankeval as pre
    >>> df = pd.DataFrame(
    ...     {"q": 1, "rel": [1, 0, 1, 0, 1], "score": [5, 4, 3, 2, 1]}
    ... )
    >>> round(pre.recall(df, group="q", label="rel", score="score", k=3), 4)
    0.6667
    """


_R_PRECISION_DOC = """R-precision: precision at rank R, R the group's relevant rows (trec_eval's ``Rprec``).

    Parameters
    ----------
{list_params}
{ranked_params}

    Returns
    -------
    rprec : MetricResult

    Notes
    -----
    R-prec = (relevant rows in the top R) / R, where R = P_g is the group's number of relevant
    rows; with ``retrieved=``, the relevant rows outside the ranking count in R too (trec_eval's
    number of relevant documents), so a run that missed them cannot reach 1. At rank R precision
    and recall are equal, and a perfect ranking scores 1 whatever R is. Each group has its own
    cutoff R: a tied block of t rows, p of them relevant, that rank R cuts after r of its rows
    holds r * p / t relevant rows in expectation (the mean of the hypergeometric draw of r rows
    from the block), the exact expected value over the orderings of the tie. A group with no
    relevant row has no R: it scores 0 (``empty="zero"``) or is left out (``"skip"``). The
    group weights are those of :func:`precision`.

    Examples
    --------
    >>> import pandas as pd
    >>> import pandas_rankeval as pre
    >>> df = pd.DataFrame(
    ...     {"q": 1, "rel": [1, 0, 1, 0, 1], "score": [5, 4, 3, 2, 1]}
    ... )
    >>> # R = 3 relevant rows, 2 of them in the top 3
    >>> round(pre.r_precision(df, group="q", label="rel", score="score"), 4)
    0.6667
    >>> # rows 3 and 4 tie across rank 3: half a relevant row in expectation
    >>> tied = df.assign(score=[5, 4, 3, 3, 1])
    >>> pre.r_precision(tied, group="q", label="rel", score="score")
    0.5
    """


_HIT_RATE_DOC = """Hit rate at k: the share of groups with a relevant row among the first k.

    Parameters
    ----------
{list_params}
    k : int, default=10
        The cutoff.
{ranked_params}

    Returns
    -------
    hit_rate : MetricResult

    Notes
    -----
    When a tied block of t rows with p relevant straddles the cutoff and r of its
    rows fall within k, the chance that none of its relevant rows is among them
    is C(t-p, r) / C(t, r) (exact, no sampling).

    Examples
    --------
    >>> import pandas as pd
    >>> import pandas_rankeval as pre
    >>> df = pd.DataFrame(
    ...     {"q": 1, "rel": [1, 0, 1, 0, 1], "score": [5, 4, 3, 2, 1]}
    ... )
    >>> pre.hit_rate(df, group="q", label="rel", score="score", k=1)
    1.0
    """


_IPS_DCG_DOC = """Inverse-propensity DCG@k of a new score column on a click log (unnormalized).

    Parameters
    ----------
{list_params}
    k : int or None, default=None
        The cutoff; None: the whole list.
{ips_params}
{common_params}

    Returns
    -------
    ips_dcg : MetricResult

    Notes
    -----
    IPS-DCG@k = sum over clicked rows i with new rank r_i <= k of
    1 / (log2(r_i + 1) max(propensity(position_i), clip)), averaged over groups. Unnormalized:
    dividing by an ideal DCG of the logged clicks can invert the order of two rankers (Jeunen et
    al., KDD 2024).

{ips_notes}

    Examples
    --------
{ips_example}
    >>> pre.ips_dcg(
    ...     df,
    ...     group="s",
    ...     label="click",
    ...     score="new",
    ...     position="pos",
    ...     propensity=prop,
    ... )
    4.0
    >>> pre.ips_dcg(
    ...     df,
    ...     group="s",
    ...     label="click",
    ...     score="old",
    ...     position="pos",
    ...     propensity=prop,
    ... )
    2.0
    """


_IPS_PRECISION_DOC = """Inverse-propensity precision@k: IPS-weighted clicks in the new top k, over k.

    Parameters
    ----------
{list_params}
    k : int, default=10
        The cutoff; a group shorter than k still divides by k.
{ips_params}
{common_params}

    Returns
    -------
    ips_precision : MetricResult

    Notes
    -----
    IPS-P@k = (1/k) sum over clicked rows in the new top k of 1 / max(propensity, clip); a tied
    block that k cuts after r of its t rows contributes r / t of its summed weight.

{ips_notes}

    Examples
    --------
{ips_example}
    >>> pre.ips_precision(
    ...     df,
    ...     group="s",
    ...     label="click",
    ...     score="new",
    ...     position="pos",
    ...     propensity=prop,
    ...     k=2,
    ... )
    2.0
    """


_IPS_HIT_RATE_DOC = """Inverse-propensity hit rate@k: the IPS estimate of the clicked rows in the new top k.

    Parameters
    ----------
{list_params}
    k : int, default=10
        The cutoff.
{ips_params}
{common_params}

    Returns
    -------
    ips_hit_rate : MetricResult

    Notes
    -----
    Per group, sum over clicked rows in the new top k of 1 / max(propensity, clip): the unbiased
    estimate of the relevant rows the new top k holds, which is the hit rate@k of a group with at
    most one relevant row (one click per session, the usual click log). With several relevant
    rows it counts each: the hit rate (whether any relevant row is in the top k) is not linear in
    the relevance of the rows, and no inverse-propensity estimate of it is both unbiased and
    bounded. With ``snips=True`` it is the IPS-weighted share of the clicks that the new top k
    holds. Ties as in :func:`ips_precision`; it is k times ``ips_precision@k``.

{ips_notes}

    Examples
    --------
{ips_example}
    >>> pre.ips_hit_rate(
    ...     df,
    ...     group="s",
    ...     label="click",
    ...     score="new",
    ...     position="pos",
    ...     propensity=prop,
    ...     k=1,
    ... )
    4.0
    >>> pre.ips_hit_rate(
    ...     df,
    ...     group="s",
    ...     label="click",
    ...     score="new",
    ...     position="pos",
    ...     propensity=prop,
    ...     k=1,
    ...     snips=True,
    ... )
    1.0
    """


#: What a metric whose values read each group's own ranking may leave unsorted: the groups that
#: cannot count; ``top_rows``: also the rows below a group's last relevant row.
_SKIP = Cut(skip_groups=True)
_TOP = Cut(skip_groups=True, top_rows=True)
#: How a counterfactual metric's value reads: a sum of inverse-propensity weights, not a ratio.
_IPS_READING = Reading(fmt="number")

#: The options of uauc and wuauc: gauc's, without its sklearn engine.
_UAUC_OPTIONS = ("weight", "min_size", "min_pos", "min_neg", "sample_weight", "ties", "tiebreak", "threshold",
                 "nan_policy")

_GAUC_NAMED_PARAMS = """    Parameters
    ----------
{frame}
{group}
    label, score : column
        Relevance (> 0 or >= ``threshold`` is relevant) and the model's score.
    weight : {{"count", "clicks", "log1p", "uniform"}}, column, Series or callable, optional
        Group weights, as :func:`gauc`; None (the default) is the metric's own (see Notes).
    min_size, min_pos, min_neg : int, optional
        Leave out groups with fewer rows / relevant rows / non-relevant rows.
    sample_weight : column, optional
        Per-row weights inside each group's AUC (pairs weigh ``w_i * w_j``).
    ties : {{"expected", "pessimistic", "optimistic"}}, default="expected"
        A tied pair counts 1/2, 0 or 1.
    tiebreak : column, optional
        Orders rows with equal scores (ascending) first.
    threshold : float, optional
        Relevant when ``label >= threshold``.
{nan_policy}
{engine_options}"""

_UAUC_NOTES = """    uauc = (1 / |G*|) sum_{{g in G*}} AUC_g and wuauc = sum_{{g in G*}} n_g AUC_g / sum_{{g in G*}} n_g
    over the eligible users G* (a click and a non-click; with ``sample_weight``, both classes of
    positive weight), as TorchRec's ``uauc.py`` defines its ``uauc`` and ``wuauc``. They are
    :func:`gauc` with ``weight="uniform"`` and ``weight="count"``: the same eligibility, coverage,
    intervals and tests. TorchRec weighs a user by its summed sample weight (w_pos + w_neg): with
    ``sample_weight``, pass ``weight=<that column>`` for its wuauc. TorchRec also leaves out a user
    whose nonzero predictions are all equal and orders tied scores by its sort; here a tied pair
    counts 1/2 (the tie rule of :func:`gauc`), so the two agree on tie-free scores."""

_UAUC_EXAMPLE = """    >>> import pandas as pd
    >>> import pandas_rankeval as pre
    >>> df = pd.DataFrame({{"user": [1, 1, 1, 2, 2], "click": [1, 0, 0, 1, 0],
    ...                    "score": [0.9, 0.95, 0.1, 0.3, 0.2]}})"""

_UAUC_DOC = f"""UAUC (TorchRec's name): the unweighted mean of the per-user AUC, ``gauc(weight="uniform")``.

{_GAUC_NAMED_PARAMS}

    Returns
    -------
    uauc : MetricResult

    Notes
    -----
{_UAUC_NOTES}

    Examples
    --------
{_UAUC_EXAMPLE}
    >>> # users at AUC 0.5 and 1
    >>> pre.uauc(df, group="user", label="click", score="score")
    0.75
    """

_WUAUC_DOC = f"""WUAUC (TorchRec's name): the per-user AUC weighted by the user's rows, ``gauc(weight="count")``.

{_GAUC_NAMED_PARAMS}

    Returns
    -------
    wuauc : MetricResult

    Notes
    -----
{_UAUC_NOTES}

    Examples
    --------
{_UAUC_EXAMPLE}
    >>> # (3 * 0.5 + 2 * 1) / 5
    >>> pre.wuauc(df, group="user", label="click", score="score")
    0.7
    """

_DCG_DOC = """Discounted cumulative gain: NDCG's numerator, not normalized (DCG, DCG@k).

    Parameters
    ----------
{list_params}
    k : int or None, default=None
        Only the first k rows count (``"dcg@10"``); None is the whole list (``"dcg"``).
    gain : {{"exp2", "linear"}}, default="exp2"
        The gain of a label: ``2^label - 1`` or the label itself, as :func:`ndcg`.
{common_params}

    Returns
    -------
    dcg : MetricResult

    Notes
    -----
    DCG@k = sum_{{i <= k}} gain(label_(i)) / log2(i + 1), the gains, discounts and tie rule of
    :func:`ndcg` (under ties the exact expectation: each row of a tied block gets the block's mean
    gain times the block's summed discounts), without dividing by the ideal DCG. Jeunen et al.
    (KDD 2024) show that normalizing can reverse the order of two models that unnormalized DCG,
    the quantity an online reward tracks, gets right; it is also what :func:`ips_dcg` estimates
    from a click log, so the two compare on the same rows. A group with no relevant row gains 0
    (``empty="zero"``) or is left out (``"skip"``).

    Examples
    --------
    >>> import pandas as pd
    >>> import pandas_rankeval as pre
    >>> df = pd.DataFrame({"q": 1, "rel": [3, 0, 1], "score": [3, 2, 1]})
    >>> # 7 / log2(2) + 1 / log2(4)
    >>> pre.dcg(df, group="q", label="rel", score="score")
    7.5
    """

_XAUC_DOC = """Global XAUC: the share of pairs of rows with different labels ordered by score as by label.

    Parameters
    ----------
{frame}
    label : column
        A numeric label such as watch time (any real values; only their order matters).
    score : column
        The model's score, compared exactly as stored (integers as integers).
    sample_weight : column, optional
        Per-row weights (finite, >= 0): a pair weighs ``w_i * w_j``.
{nan_policy}
{engine_options}

    Returns
    -------
    xauc : MetricResult
        NaN (with a warning) when no pair of rows has different labels.

    Notes
    -----
    XAUC = (C + T / 2) / P over the P pairs of rows whose labels differ (weight w_i * w_j each):
    C of them have the larger score on the larger label, T have tied scores (Zhan et al., Kuaishou,
    arXiv 2206.06003). Pairs of equal labels are not pairs. The count is exact, O(n log n) (a
    weighted inversion count in label order), never sampled; TorchEasyRec's ``XAUC`` samples 1e-3 of
    all pairs and counts tied scores and tied labels as wrong (``benchmarks/bench_xauc.py``
    measures the difference). With 0/1 labels it is :func:`auc`. Its grouped form, within users,
    is :func:`gxauc`.

    ``"xauc"`` is a metric of :func:`report` and :func:`compare` too: ``report(ci=...)`` gives its
    clustered DeLong interval over the ``group`` column's groups (each row its own cluster without
    a group), and ``compare`` the paired clustered DeLong test of two models on the same rows,
    with Holm's adjustment and the lift (RelaImpr under ``lift="relaimpr"``) as for global
    ``auc`` (:func:`xauc_interval` is the same interval as a table of its own). Those need every
    row in one place: a pandas or polars DataFrame (a frame read in partitions is refused by name).

    On a frame read in partitions the engine counts rows per distinct (score, label) in ranges of
    ascending score (global AUC's pass); each range's pairs are counted where it lies, and the
    client chains the ranges from one row per distinct (range, label): its memory grows with the
    ranges times the distinct labels, never with the rows.

    Examples
    --------
    >>> import pandas as pd
    >>> import pandas_rankeval as pre
    >>> df = pd.DataFrame(
    ...     {"watch": [1.0, 2.0, 3.0, 3.0], "score": [0.1, 0.3, 0.2, 0.3]}
    ... )
    >>> # 3 of 5 pairs ordered, 1 tied: 3.5 / 5
    >>> pre.xauc(df, label="watch", score="score")
    0.7
    """

_GXAUC_DOC = """Grouped XAUC: per group, the share of its pairs of rows with different labels ordered by
    score as by label (tied scores 1/2), averaged over groups with GAUC's weights.

    Parameters
    ----------
{frame}
{group}
    label : column
        A numeric label such as watch time; only its order matters (any real values).
    score : column
        The model's score.
    weight : {{"count", "clicks", "log1p", "uniform"}}, column, Series or callable, optional
        Group weights, as :func:`gauc`; None (the default) is ``"count"`` (rows).
    min_size : int, optional
        Leave out groups with fewer rows.
    sample_weight : column, optional
        Per-row weights: a pair weighs ``w_i * w_j``.
{nan_policy}
{engine_options}

    Returns
    -------
    gxauc : MetricResult
        A float with ``.coverage``: groups whose labels are all equal have no pair and are
        skipped (counted with the one-class groups).

    Notes
    -----
    XAUC_g = (C_g + T_g / 2) / P_g over the pairs of rows of group g whose labels differ (P_g of
    them, weight w_i * w_j each): C_g those whose larger label has the larger score, T_g those
    whose scores tie (Zhan et al., Kuaishou, arXiv 2206.06003). Pairs of equal labels are not
    pairs. Counted exactly in O(n log n) (a weighted inversion count), never sampled:
    TorchEasyRec's ``XAUC`` samples pairs and counts tied scores (and tied labels) as wrong. With
    0/1 labels it is :func:`gauc`. The mean over groups uses GAUC's weights; groups with one label
    value are skipped, as one-class groups are by GAUC.

    Examples
    --------
    >>> import pandas as pd
    >>> import pandas_rankeval as pre
    >>> df = pd.DataFrame(
    ...     {
    ...         "user": [1, 1, 1, 2, 2],
    ...         "watch": [3.0, 40.0, 12.0, 5.0, 5.0],
    ...         "score": [0.1, 0.9, 0.5, 0.3, 0.2],
    ...     }
    ... )
    >>> # user 2: one label, skipped
    >>> pre.gxauc(df, group="user", label="watch", score="score")
    1.0
    """

#: Every metric, in the order of the docs and the CLI's list.
DEFINITIONS: tuple[Metric, ...] = (
    Metric(
        name="auc", function="auc", summary="global AUC (Mann-Whitney)", doc=_AUC_DOC,
        eligibility="rows", default_weight="count",
        options=("sample_weight", "ties", "tiebreak", "threshold", "max_fpr", "nan_policy"),
        cut=_SKIP, per_group="gauc",
    ),
    Metric(
        name="gauc", function="gauc", summary="group AUC, weighted mean of per-group AUC", doc=_GAUC_DOC,
        eligibility="pairs", default_weight="count",
        options=("weight", "min_size", "min_pos", "min_neg", "sample_weight", "ties", "tiebreak", "threshold",
                 "implementation", "max_fpr", "nan_policy", "progress", "engine"),
        kernel=Kernel(values=gauc_values), cut=_SKIP, group_column="auc",
    ),
    Metric(
        name="mrr", function="mrr", summary="mean reciprocal rank of the first relevant row", doc=_MRR_DOC,
        param=_CUTOFF, eligibility="relevant", options=_RANKED,
        kernel=Kernel(values=rr_values), cut=Cut(skip_groups=True, top_rows=True, select=rr_select),
    ),
    Metric(
        name="ndcg", function="ndcg", summary="normalized discounted cumulative gain", doc=_NDCG_DOC,
        param=_CUTOFF, eligibility="relevant", options=("gain", *_RANKED),
        kernel=Kernel(values=ndcg_values, graded=True), cut=_TOP,
    ),
    Metric(
        name="map", function="average_precision", aliases=("map", "mean_average_precision", "map_"),
        summary="mean average precision", doc=_AVERAGE_PRECISION_DOC,
        param=_CUTOFF, eligibility="relevant", options=("denominator", *_RANKED),
        kernel=Kernel(values=ap_values), cut=_TOP,
    ),
    Metric(
        name="precision", function="precision", summary="relevant rows in the top k / k", doc=_PRECISION_DOC,
        param=_CUTOFF_REQUIRED, eligibility="relevant", options=_RANKED,
        kernel=Kernel(values=precision_values), cut=_TOP,
    ),
    Metric(
        name="recall", function="recall", summary="relevant rows in the top k / relevant rows", doc=_RECALL_DOC,
        param=_CUTOFF_REQUIRED, eligibility="relevant", options=_RANKED,
        kernel=Kernel(values=recall_values), cut=_TOP,
    ),
    Metric(
        name="rprec", function="r_precision", aliases=("rprec",),
        summary="R-precision: relevant rows in the top R / R, R the group's relevant rows", doc=_R_PRECISION_DOC,
        eligibility="relevant", options=_RANKED, kernel=Kernel(values=rprec_values), cut=_TOP,
    ),
    Metric(
        name="hit_rate", function="hit_rate", summary="share of groups with a relevant row in the top k",
        doc=_HIT_RATE_DOC, param=_CUTOFF_REQUIRED, eligibility="relevant", options=_RANKED,
        kernel=Kernel(values=hit_rate_values), cut=Cut(skip_groups=True, top_rows=True, select=hit_rate_select),
    ),
    Metric(
        name="rbp", function="rbp",
        summary="rank-biased precision: (1 - p) sum of p^(rank - 1) over the relevant rows", doc=_RBP_DOC,
        param=NameParam("persistence", "required", 0.8), eligibility="relevant", options=_RANKED,
        kernel=Kernel(values=rbp_values), cut=_TOP,
    ),
    Metric(
        name="err", function="err",
        summary="expected reciprocal rank: sum of R / rank over the rows, R = (2^label - 1) / 16 "
        "times the chance that no row above stopped the reader", doc=_ERR_DOC,
        param=_CUTOFF, eligibility="relevant", options=_RANKED,
        kernel=Kernel(values=err_values, graded=True, block_levels=True, max_label=ERR_MAX_GRADE),
    ),
    # the CTR sheet: TorchRec's names of gauc's weightings, unnormalized DCG, global and grouped XAUC
    Metric(
        name="uauc", function="uauc", doc=_UAUC_DOC,
        summary="user AUC (TorchRec): the unweighted mean of per-user AUC, gauc(weight='uniform')",
        eligibility="pairs", default_weight="uniform", options=_UAUC_OPTIONS,
        kernel=Kernel(values=gauc_values), cut=_SKIP,
    ),
    Metric(
        name="wuauc", function="wuauc", doc=_WUAUC_DOC,
        summary="weighted user AUC (TorchRec): per-user AUC weighted by the user's rows, gauc(weight='count')",
        eligibility="pairs", default_weight="count", options=_UAUC_OPTIONS,
        kernel=Kernel(values=gauc_values), cut=_SKIP,
    ),
    Metric(
        name="dcg", function="dcg", doc=_DCG_DOC,
        summary="discounted cumulative gain, not normalized (NDCG's numerator)",
        param=_CUTOFF, eligibility="relevant", options=("gain", *_LIST),
        kernel=Kernel(values=dcg_values, graded=True), cut=_TOP,
        reading=Reading(fmt="number", bounds=(0.0, math.inf)),
    ),
    Metric(
        name="xauc", function="xauc", doc=_XAUC_DOC,
        summary="global XAUC: share of pairs of rows with different (continuous) labels ordered by score as by "
        "label, tied scores 1/2",
        eligibility="rows", options=("sample_weight", "nan_policy"), cut=_SKIP, per_group="gxauc", row_pairs=True,
        reading=Reading(nan_reason="no pair of rows has different labels (and positive weight)"),
    ),
    Metric(
        name="gxauc", function="gxauc", doc=_GXAUC_DOC,
        summary="grouped XAUC: per-group share of pairs of different (continuous) labels ordered by score "
        "as by label, tied scores 1/2",
        eligibility="ordered", default_weight="count", options=("weight", "min_size", "sample_weight", "nan_policy"),
        kernel=Kernel(values=gxauc_values),
    ),
    # counterfactual metrics of a click log (core/metrics/ips.py): a click weighs 1 / max(propensity, clip)
    Metric(
        name="ips_dcg", function="ips_dcg",
        summary="inverse-propensity DCG: discount of the new rank / propensity of the logged position, "
        "summed over clicks", doc=_IPS_DCG_DOC,
        param=_CUTOFF, eligibility="relevant", options=(*_IPS, *_LIST),
        kernel=Kernel(values=ips.ips_dcg_values, group_factor=ips.snips_factor), reading=_IPS_READING,
    ),
    Metric(
        name="ips_precision", function="ips_precision",
        summary="inverse-propensity precision: clicks in the new top k, each / propensity of its logged "
        "position, over k", doc=_IPS_PRECISION_DOC,
        param=_CUTOFF_REQUIRED, eligibility="relevant", options=(*_IPS, *_LIST),
        kernel=Kernel(values=ips.ips_precision_values, group_factor=ips.snips_factor), reading=_IPS_READING,
    ),
    Metric(
        name="ips_hit_rate", function="ips_hit_rate",
        summary="inverse-propensity clicks in the new top k (the hit rate of one-click groups)",
        doc=_IPS_HIT_RATE_DOC, param=_CUTOFF_REQUIRED, eligibility="relevant", options=(*_IPS, *_LIST),
        kernel=Kernel(values=ips.ips_hit_rate_values, group_factor=ips.snips_factor), reading=_IPS_READING,
    ),
    Metric(
        name="logloss", function="logloss",
        summary="log loss of predicted click probabilities (lower is better)", doc=_LOGLOSS_DOC,
        eligibility="pooled", options=_CALIBRATION, pooled=Pooled(rows=logloss_rows),
        reading=Reading(direction="lower", bounds=(0.0, math.inf), nan_reason="the rows weigh 0 in total"),
    ),
    Metric(
        name="ne", function="ne",
        summary="normalized entropy: log loss / entropy of the base click rate (lower is better)", doc=_NE_DOC,
        eligibility="pooled", options=_CALIBRATION,
        pooled=Pooled(rows=ne_rows, combine=ne_combine, parts=_two_parts),
        reading=Reading(direction="lower", bounds=(0.0, math.inf),
                        nan_reason="every row is a click or none is, or the rows weigh 0 (the base rate has no entropy)"),
    ),
    Metric(
        name="pcoc", function="pcoc",
        summary="predicted over observed clicks, sum p / sum clicks (1 is calibrated)", doc=_PCOC_DOC,
        eligibility="pooled", options=_CALIBRATION, pooled=Pooled(rows=pcoc_rows),
        reading=Reading(direction="closer to 1", bounds=(0.0, math.inf), nan_reason="the clicks weigh 0 in total, or there is none (nothing to divide by)"),
    ),
    Metric(
        name="ece", function="ece",
        summary="expected calibration error over B equal-width probability bins (lower is better)", doc=_ECE_DOC,
        param=NameParam("bins", "optional", 10), eligibility="pooled", options=_CALIBRATION,
        pooled=Pooled(rows=ece_rows, combine=ece_combine, parts=_bins_parts),
        reading=Reading(
            direction="lower", signflip=False, nan_reason="the rows weigh 0 in total",
            no_interval="a sample's binned ECE is biased upward, so a bootstrap interval would miss the "
            "population value; compare() tests differences",
        ),
    ),
)
