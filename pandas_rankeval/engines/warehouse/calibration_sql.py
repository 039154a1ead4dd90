"""The calibration metrics' row terms in SQL, written once for the per-group statistics
(:mod:`.stats`: ``logloss``, ``ne``, ``pcoc``, ``ece``) and for ``calibration_by``'s cells
(:mod:`.cells`), so both give numpy's numbers (:mod:`pandas_rankeval.core.kernels.calibration`):

- the log loss clips p to [EPS, 1 - EPS]; -log(q) for a click, and -log1p(-q) otherwise, which
  SQL has no function for: it is computed as ``ln(u) * q / (1 - u)`` with ``u = 1 - q`` (u rounds
  1 - q, 1 - u is then exact, and the ratio corrects the rounding; Goldberg's rewriting of log1p,
  within a few ulps of it), never as ``ln(1 - q)``, whose rounding of ``1 - q`` costs up to
  1e-16 / q relative;
- the ECE bin of p is the number of interior edges of ``np.linspace(0, 1, bins + 1)`` strictly
  below p (``np.searchsorted(edges, p, side="left")``: an edge belongs to the bin below it, p = 0
  to the first bin, p = 1 to the last), one comparison per edge against the edge as an exact
  DOUBLE literal (``FLOOR(p * bins)`` misplaces probabilities next to an edge).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...core.kernels.calibration import EPS

__all__ = ["ece_bin", "row_loss"]


def _lit(v: float) -> Any:
    import ibis

    return ibis.literal(float(v), "float64")


def row_loss(p: Any, clicked: Any) -> Any:
    """The log loss of a row as an Ibis DOUBLE: ``p`` the probability (DOUBLE), ``clicked`` a
    boolean."""
    import ibis

    q = ibis.greatest(ibis.least(p, _lit(1.0 - EPS)), _lit(EPS))
    u = _lit(1.0) - q  # in [EPS, 1 - EPS]: u < 1, so 1 - u > 0
    return ibis.ifelse(clicked, -q.ln(), -(u.ln() * (q / (_lit(1.0) - u))))


def ece_bin(p: Any, bins: int) -> Any:
    """The ECE bin (0 .. bins - 1, int64) of the probability ``p`` (DOUBLE)."""
    import ibis

    at: Any = ibis.literal(0, "int64")
    for e in np.linspace(0.0, 1.0, bins + 1)[1:-1]:
        at = at + ibis.ifelse(p > _lit(e), ibis.literal(1, "int64"), ibis.literal(0, "int64"))
    return at
