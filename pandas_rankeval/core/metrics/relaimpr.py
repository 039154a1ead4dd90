"""The lift of a comparison: the relative difference, or RelaImpr on the AUC-type metrics.

RelaImpr (Zhou et al., "Deep Interest Network", KDD 2018) states a gain in AUC relative to the
gain of the baseline over a random ranking (AUC 0.5)::

    RelaImpr = (m_model - 0.5) / (m_base - 0.5) - 1

It is defined for the metrics whose random-ranking value is 0.5 (:data:`RELAIMPR_KINDS`: global
AUC, GAUC and its names UAUC / WUAUC, XAUC and grouped XAUC) and only when the baseline beats
random: a baseline at most 0.5 gives NaN (the footer says where). Every other metric keeps the
relative lift ``diff / m_base``. ``compare(..., lift="relaimpr")`` asks for it; the interval of a
lift comes from the same paired resamples as the interval of the difference (the lift computed
on each replicate), or, for global AUC's clustered DeLong, from the delta method on the same
covariance matrix.
"""

from __future__ import annotations

import numpy as np

__all__ = ["LIFTS", "RELAIMPR_KINDS", "delta_interval", "has_relaimpr", "lift_values"]

#: ``compare(lift=...)``: the relative difference (the default), or RelaImpr where defined.
LIFTS = ("relative", "relaimpr")

#: The metric kinds (the name before any ``@``) whose random ranking scores 0.5.
RELAIMPR_KINDS = frozenset({"auc", "gauc", "uauc", "wuauc", "xauc", "gxauc"})


def has_relaimpr(metric: str) -> bool:
    """True for a metric name whose lift is RelaImpr under ``lift="relaimpr"``.

    >>> has_relaimpr("gauc"), has_relaimpr("ndcg@10")
    (True, False)
    """
    return str(metric).split("@", 1)[0] in RELAIMPR_KINDS


def lift_values(model: np.ndarray, base: np.ndarray, relaimpr: np.ndarray | bool) -> np.ndarray:
    """The lift of ``model`` over ``base`` (arrays that broadcast): RelaImpr where ``relaimpr``
    (NaN where the baseline is at most 0.5), else ``(model - base) / base`` (NaN where base is 0).

    >>> lift_values(np.array([0.8, 0.8, 0.8]), np.array([0.75, 0.5, 0.75]), np.array([True, True, False])).round(4)
    array([0.2   ,    nan, 0.0667])
    """
    model = np.asarray(model, dtype=np.float64)
    base = np.asarray(base, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = np.where(base > 0.5, (model - 0.5) / (base - 0.5) - 1.0, np.nan)
        plain = np.where(base != 0, (model - base) / base, np.nan)
    return np.where(relaimpr, rel, plain)


def delta_interval(
    model: np.ndarray, base: np.ndarray, var_m: np.ndarray, var_b: np.ndarray, cov: np.ndarray,
    relaimpr: np.ndarray, ci: float,
) -> tuple[np.ndarray, np.ndarray]:
    """Normal interval of the lift by the delta method, from the variances and the covariance of
    the two values (global AUC's clustered DeLong matrix). RelaImpr r = (a - 1/2) / (b - 1/2) - 1
    has gradient (1 / (b - 1/2), -(a - 1/2) / (b - 1/2)^2); the relative lift a / b - 1 has
    (1 / b, -a / b^2). NaN where the lift is undefined.

    >>> lo, hi = delta_interval(np.array([0.8]), np.array([0.75]), np.array([1e-4]), np.array([1e-4]),
    ...                         np.array([0.5e-4]), np.array([True]), 0.95)
    >>> round(float(lo[0]), 4), round(float(hi[0]), 4)
    (0.1127, 0.2873)
    """
    from scipy.special import ndtri

    model = np.asarray(model, dtype=np.float64)
    base = np.asarray(base, dtype=np.float64)
    centre = np.where(relaimpr, 0.5, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        ga = 1.0 / (base - centre)
        gb = -(model - centre) / (base - centre) ** 2
        var = ga * ga * var_m + gb * gb * var_b + 2.0 * ga * gb * cov
        half = ndtri(0.5 + ci / 2.0) * np.sqrt(np.maximum(var, 0.0))
    point = lift_values(model, base, relaimpr)
    return point - half, point + half
