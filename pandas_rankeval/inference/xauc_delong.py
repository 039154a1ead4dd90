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

import numpy as np

from ..core.kernels.xauc import xauc_placements

__all__ = ["xauc_delong"]


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
    >>> values, cov = xauc_delong(y, [np.array([0.1, 0.3, 0.2, 0.3])], None, np.arange(4), 4)
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
