"""Studentized (bootstrap-t) intervals for group metrics, from additive replicate sums.

A group metric is a ratio ``R = sum_g num_g / sum_g den_g`` (``num = w v``, ``den = w``
over the used groups); a comparison is a difference of two such ratios. Its
linearization (the delta method) gives a standard error from sums over groups: for a
statistic ``T = sum_k s_k R_k`` (one term for a metric, ``+model -baseline`` for a
difference) the influence of group g is

    L_g = sum_k s_k (num_kg - R_k den_kg) / D_k,        D_k = sum_g den_kg,

and ``se(T)^2 = sum_g L_g^2`` (the factor n / (n - 1) cancels in the interval). A
bootstrap replicate reweights the groups by counts ``c_g``; its standard error
``se*`` is the same expression with ``c_g`` inside every sum, which needs only the
replicate sums ``sum_g c_g x_g x_g^T`` of the products of ``x_g = [num_1g, den_1g,
num_2g, den_2g, ...]``: one more matrix product per chunk of replicates, no loop over
groups, and additive over partitions of groups like every other replicate sum.

The interval is ``[T - t*_(1+ci)/2 se, T - t*_(1-ci)/2 se]`` with ``t* = (T* - T) / se*``
(Efron & Tibshirani 1993, ch. 12; Davison & Hinkley 1997, 5.2). With few groups and
unequal weights (count-weighted GAUC) the percentile interval undercovers; the
studentized one corrects for the skewness and for the dependence of the spread on the
estimate (``tests/test_studentized.py`` measures both by simulation).

Global AUC has no such linear form in the replicate counts (a row's placement depends
on the other groups' counts); its interval follows ``auc_method`` (clustered DeLong, or
the percentile bootstrap, said in the footer).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = ["StudentizedStratum", "replicate_se", "studentized_fallback", "studentized_interval"]

#: A statistic: a list of (item index in the stratum, sign).
Target = Sequence[tuple[int, float]]


class StudentizedStratum:
    """A :class:`pandas_rankeval._stats.Stratum` whose replicates also carry ``se*``.

    ``values(counts)`` returns the stratum's own statistics (replicates x items) followed
    by one standard error per target (replicates x targets), so that the replicate
    machinery (``_stats.replicates``) drives it unchanged and the counts are the same as
    for the percentile bootstrap with the same seed.
    """

    def __init__(self, stratum: object, targets: Sequence[Target]) -> None:
        self.inner = stratum
        self.n = stratum.n  # type: ignore[attr-defined]
        self.groups = stratum.groups  # type: ignore[attr-defined]
        self.items = stratum.items  # type: ignore[attr-defined]
        self.targets = [list(t) for t in targets]
        lin = {int(j): i for i, j in enumerate(stratum.lin)}  # type: ignore[attr-defined]
        design, where = stratum.design, stratum.where  # type: ignore[attr-defined]
        n_lin = len(lin)
        # per linear item: its numerator and denominator columns per group
        self._num = {j: design[:, where[i]] for j, i in lin.items()}
        self._den = {j: design[:, where[n_lin + i]] for j, i in lin.items()}
        cols: list[np.ndarray] = []
        self._plan: list[tuple[list[int], list[float], list[int], np.ndarray] | None] = []
        for t in self.targets:
            if not t or any(j not in lin for j, _ in t):
                self._plan.append(None)  # global AUC: no studentized form
                continue
            js = [j for j, _ in t]
            signs = [float(s) for _, s in t]
            x = []
            for j in js:
                x += [self._num[j], self._den[j]]
            p = len(x)
            start = len(cols)
            iu = np.triu_indices(p)
            for a, b in zip(*iu):
                cols.append(x[a] * x[b])
            dens = []
            for j in js:
                dens.append(len(cols))
                cols.append(self._den[j])
            self._plan.append((js, signs, dens, np.arange(start, start + len(iu[0]))))
        self._q = np.column_stack(cols) if cols else np.zeros((self.n, 0))

    def __getattr__(self, name: str) -> object:
        # anything else the replicate machinery reads (group keys, sizes) is the stratum's
        return getattr(self.inner, name)

    def chunk_size(self, n_boot: int) -> int:
        return self.inner.chunk_size(n_boot)  # type: ignore[attr-defined]

    @property
    def work_rows(self) -> int:
        return self.inner.work_rows  # type: ignore[attr-defined]

    def values(self, counts: np.ndarray) -> np.ndarray:
        base = self.inner.values(counts)  # type: ignore[attr-defined]
        sums = counts @ self._q if self._q.shape[1] else np.zeros((counts.shape[0], 0))
        se = np.full((counts.shape[0], len(self.targets)), np.nan)
        for k, plan in enumerate(self._plan):
            if plan is None:
                continue
            js, signs, dens, gram_cols = plan
            se[:, k] = replicate_se(base[:, js], np.array(signs), sums[:, dens], sums[:, gram_cols])
        return np.concatenate([base, se], axis=1)

    def point(self) -> np.ndarray:
        """Statistics and standard errors with every group counted once."""
        return self.values(np.ones((1, self.n)))[0]


#: Rounding allowance of a variance computed from the Gram sums, relative to the size of the
#: terms that cancel in it: a replicate whose variance is below it has no spread (``se* = 0``).
_VAR_RTOL = 1024 * np.finfo(np.float64).eps


def replicate_se(ratios: np.ndarray, signs: np.ndarray, dens: np.ndarray, gram: np.ndarray) -> np.ndarray:
    """Delta-method standard error of ``sum_k s_k R_k`` per replicate.

    ``ratios`` and ``dens`` are (b, K); ``gram`` the upper triangle (row-major) of
    ``sum_g c_g x_g x_g^T`` with ``x = [num_1, den_1, ..., num_K, den_K]``, (b, p(p+1)/2).

    The variance is a difference of sums that cancel exactly when every group drawn has the
    same value; it is 0 (not a tiny positive number made of rounding) when it is below
    :data:`_VAR_RTOL` times the size of the cancelling terms (``|alpha|' |G| |alpha|``).
    """
    b, k = ratios.shape
    p = 2 * k
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        if k == 1:  # (sum c num^2 - 2 R sum c num den + R^2 sum c den^2) / D^2
            r, s = ratios[:, 0], signs[0]
            scale = (s * s) / (dens[:, 0] ** 2)
            var = (gram[:, 0] - 2.0 * r * gram[:, 1] + r * r * gram[:, 2]) * scale
            size = (np.abs(gram[:, 0]) + 2.0 * np.abs(r * gram[:, 1]) + r * r * np.abs(gram[:, 2])) * scale
        else:
            alpha = np.empty((b, p))
            alpha[:, 0::2] = signs / dens
            alpha[:, 1::2] = -signs * ratios / dens
            g = np.zeros((b, p, p))
            iu = np.triu_indices(p)
            g[:, iu[0], iu[1]] = gram
            g[:, iu[1], iu[0]] = gram
            var = np.einsum("bi,bij,bj->b", alpha, g, alpha)
            a = np.abs(alpha)
            size = np.einsum("bi,bij,bj->b", a, np.abs(g), a)
        var = np.where(var > _VAR_RTOL * size, var, np.where(np.isnan(var), np.nan, 0.0))
    return np.sqrt(var)


def studentized_fallback(se: np.ndarray, reps: np.ndarray, se_reps: np.ndarray) -> np.ndarray:
    """Per column: the bootstrap-t interval is not defined, the percentile one is used.

    That is when the estimate's standard error, or that of a replicate with a defined
    statistic, is not positive up to rounding (:func:`replicate_se`): its t-statistic would be
    infinite, or made of rounding. A replicate that drew only groups of one value has
    ``se* = 0``; with few groups that happens often. Columns without any standard error
    (global AUC) are not counted here: they take the percentile interval anyway.
    """
    se_reps = np.asarray(se_reps, dtype=np.float64)
    has_se = np.isfinite(se_reps).any(axis=0)
    defined = np.isfinite(reps)
    flat_rep = (defined & ~(se_reps > 0)).any(axis=0)
    return has_se & (~(np.asarray(se) > 0) | flat_rep)


def studentized_interval(
    point: np.ndarray,
    se: np.ndarray,
    reps: np.ndarray,
    se_reps: np.ndarray,
    ci: float,
    bounds: tuple[Any, Any] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Bootstrap-t interval per column: ``[T - t*_hi se, T - t*_lo se]``.

    Where it is not defined (:func:`studentized_fallback`: a standard error that is 0 up to
    rounding) or no replicate has a standard error (global AUC), the percentile interval of
    ``reps`` is returned instead. ``bounds``: the statistic's range (``(0, 1)`` for a metric,
    ``(-1, 1)`` for a difference of two), to which the interval is clipped.
    """
    q = [(1.0 - ci) / 2.0, (1.0 + ci) / 2.0]
    with np.errstate(invalid="ignore", divide="ignore"):
        t = (reps - point) / se_reps
    t[~np.isfinite(t) | ~(se_reps > 0)] = np.nan
    percentile = studentized_fallback(se, reps, se_reps) | ~np.isfinite(se_reps).any(axis=0)
    from .bootstrap import nan_quantiles

    with np.errstate(invalid="ignore"):
        t_lo, t_hi = nan_quantiles(t, q)
        lo = point - t_hi * se
        hi = point - t_lo * se
        if percentile.any():
            p_lo, p_hi = nan_quantiles(reps[:, percentile], q)
            lo[percentile], hi[percentile] = p_lo, p_hi
    if bounds is not None:
        lo = np.clip(lo, *bounds)
        hi = np.clip(hi, *bounds)
    return lo, hi
