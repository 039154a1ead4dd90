"""Clustered DeLong inference for global XAUC: the variance of one XAUC and the covariance of two
on the same rows.

XAUC is a ratio of two U-statistics of order 2 over the rows: ``num = 1/2 sum_i w_i A_i`` and
``den = 1/2 sum_i w_i B_i`` (:func:`~pandas_rankeval.core.kernels.xauc.xauc_placements`: B_i the
weight of the rows whose label differs from row i's, A_i the credit row i earns with them). Its
first-order expansion (Hoeffding's projection, then the delta method for the ratio) is a sum over
rows,

    XAUC_hat - XAUC ~ sum_i w_i (A_i - XAUC B_i) / den,

so with the rows in clusters (users: rows of one user are not independent) the variance is
estimated from the cluster sums ``psi_g = sum_{i in g} w_i (A_i - XAUC B_i)`` (which sum to 0),

    var(XAUC) = K / (K - 1) * sum_g psi_g^2 / den^2        (K clusters),

and for two score columns r, s on the same rows (the same den: it depends on the labels alone)
``cov = K / (K - 1) * sum_g psi_g^r psi_g^s / den^2``. With 0/1 labels and one row per cluster
this is DeLong's variance of the AUC (with 1/m in place of 1/(m - 1)): ``w A`` of a relevant row
is N times its placement V10, of a non-relevant row P times V01. Obuchowski (1997) clusters
DeLong's placements the same way. ``benchmarks/sim_xauc.py`` measures the coverage.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..core.kernels.xauc import xauc_placements, xauc_sums

__all__ = ["XaucRows", "xauc_delong", "xauc_rows"]


def xauc_delong(
    y: np.ndarray, scores: Sequence[np.ndarray], w: np.ndarray | None, cluster: np.ndarray, n_clusters: int,
) -> tuple[np.ndarray, np.ndarray]:
    """XAUC of every score column and their clustered DeLong covariance matrix.

    Parameters
    ----------
    y : the labels; scores : one array per score column; w : sample weights or None;
    cluster : the cluster (group) code of every row, in ``[0, n_clusters)``; every code present.

    Returns
    -------
    values : (k,) float array, NaN when no pair of rows has different labels.
    cov : (k, k) float array, NaN with fewer than two clusters or no pair.

    Examples
    --------
    >>> y = np.array([1.0, 2.0, 3.0, 3.0])
    >>> values, cov = xauc_delong(
    ...     y, [np.array([0.1, 0.3, 0.2, 0.3])], None, np.arange(4), 4
    ... )
    >>> # psi = 0.9, -0.6, -0.4, 0.1: var = 4/3 * 1.34 / 5**2
    >>> float(values[0]), round(float(cov[0, 0]), 6)
    (0.7, 0.071467)
    """
    k = len(scores)
    values = np.full(k, np.nan)
    psi = np.zeros((n_clusters, k))
    den = 0.0
    for j, s in enumerate(scores):
        wa, wb = xauc_placements(y, s, w)
        den = float(wb.sum()) / 2.0
        if den <= 0:
            continue
        values[j] = float(wa.sum()) / 2.0 / den
        psi[:, j] = np.bincount(cluster, weights=wa - values[j] * wb, minlength=n_clusters)
    if den <= 0 or n_clusters < 2:
        return values, np.full((k, k), np.nan)
    cov = n_clusters / (n_clusters - 1) * (psi.T @ psi) / den**2
    return values, cov


@dataclass(frozen=True)
class XaucRows:
    """Global XAUC of every score column over one segment's rows (the whole table without ``by``):
    what ``report`` and ``compare`` read for ``"xauc"``, and :func:`pandas_rankeval.xauc_interval`.

    ``values`` (k,): XAUC per score column (NaN without a pair of rows of different labels);
    ``used``: such a pair (of positive weight) exists (the labels' alone, the same for every
    column); ``cov`` (k, k): the clustered DeLong covariance of :func:`xauc_delong`, None when no
    interval or test was asked for; ``n_clusters``: the clusters (groups, or rows without a group;
    0 when not counted)."""

    values: np.ndarray
    used: bool
    n_rows: int
    n_clusters: int = 0
    cov: np.ndarray | None = None


def xauc_rows(
    y: np.ndarray, scores: Sequence[np.ndarray], w: np.ndarray | None, cluster: np.ndarray | None,
    segment: np.ndarray | None, n_segments: int, interval: bool,
    counted: tuple[np.ndarray, np.ndarray] | None = None,
) -> list[XaucRows]:
    """Global XAUC per segment of the rows (pairs within a segment only), with its clustered
    DeLong covariance when ``interval``: the one computation behind ``report`` / ``compare``'s
    ``"xauc"`` and :func:`pandas_rankeval.xauc_interval`.

    Parameters
    ----------
    y : the labels (any ordered numeric values: their order only); scores : one array per model;
    w : sample weights or None; cluster : each row's group (any int codes), None: each row its own
    cluster; segment : each row's segment in ``[0, n_segments)``, None: one segment;
    counted : ``(values, used)`` per segment, (n_segments, k) and (n_segments,), when the caller
    has counted them already (the pipeline's count of each column): not counted again.

    Returns
    -------
    One :class:`XaucRows` per segment. The values are the exact counts of
    :func:`~pandas_rankeval.core.kernels.xauc.xauc_sums` (all segments in one call per score
    column, as ``pre.xauc`` counts them); the covariance one :func:`xauc_delong` per segment.

    Examples
    --------
    >>> y = np.array([1.0, 2.0, 3.0, 3.0])
    >>> (one,) = xauc_rows(
    ...     y, [np.array([0.1, 0.3, 0.2, 0.3])], None, None, None, 1, True
    ... )
    >>> float(one.values[0]), round(float(one.cov[0, 0]), 6), one.n_clusters
    (0.7, 0.071467, 4)
    """
    n = y.shape[0]
    seg = np.zeros(n, dtype=np.int64) if segment is None else np.asarray(segment, dtype=np.int64)
    if counted is not None:
        values, used = counted
    else:
        sums = [xauc_sums(y, s, w, seg, n_segments) for s in scores]
        den = sums[0][1] if sums else np.zeros(n_segments)
        used = den > 0
        with np.errstate(invalid="ignore", divide="ignore"):
            values = np.column_stack([np.where(d > 0, num / d, np.nan) for num, d in sums]) if sums \
                else np.zeros((n_segments, 0))
    order = np.argsort(seg, kind="stable")
    bounds = np.searchsorted(seg[order], np.arange(n_segments + 1))
    out = []
    for i in range(n_segments):
        rows = order[bounds[i]:bounds[i + 1]]
        if cluster is None:
            codes, k = np.arange(rows.shape[0], dtype=np.int64), int(rows.shape[0])
        else:
            uniq, inv = np.unique(np.asarray(cluster)[rows], return_inverse=True)
            codes, k = inv.reshape(-1).astype(np.int64), int(uniq.shape[0])
        cov: np.ndarray | None = None
        if interval:
            _, cov = xauc_delong(y[rows], [s[rows] for s in scores], None if w is None else w[rows], codes, k)
        out.append(XaucRows(values[i], bool(used[i]), int(rows.shape[0]), k, cov))
    return out
