"""Result types: a float that carries its coverage, and the coverage itself."""

from __future__ import annotations

import html
import os
import sys
import warnings
from dataclasses import asdict, dataclass
from typing import Any

__all__ = ["Coverage", "MetricResult", "CoverageWarning", "warn_coverage"]

#: Share of rows in skipped groups above which the coverage says so (metrics.md).
SKIPPED_ROWS_ALERT = 0.10


class CoverageWarning(UserWarning):
    """A metric left out a large share of the data, or could not be computed at all."""


_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))


def warn_coverage(message: str) -> None:
    """Issue a :class:`CoverageWarning` pointing at the user's line.

    The warning is attributed to the first frame outside this package, whether the
    metric was called directly, through ``df.rank`` or from ``report``.
    """
    frame = sys._getframe(0)
    level = 1
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE_DIR):
        frame = frame.f_back  # type: ignore[assignment]
        level += 1
    warnings.warn(message, CoverageWarning, stacklevel=level)


@dataclass(frozen=True)
class Coverage:
    """Which groups a metric used, which it skipped and why.

    Attributes
    ----------
    n_rows : int
        Rows evaluated (after ``nan_policy="omit"`` dropped any).
    n_groups : int
        Groups in the data.
    n_used : int
        Groups that entered the average.
    n_only_pos, n_only_neg : int
        Groups skipped because they hold only relevant / only non-relevant rows
        (AUC-type metrics).
    n_filtered : int
        Groups skipped by ``min_size`` / ``min_pos`` / ``min_neg``.
    n_zero_weight : int
        Groups skipped because the ``sample_weight`` of their relevant rows, or of
        their non-relevant rows, sums to 0: their AUC is undefined (AUC-type metrics).
    n_empty : int
        Groups with no relevant row (list metrics); they count as 0 under
        ``empty="zero"`` and are left out under ``empty="skip"``.
    rows_skipped_share, positives_skipped_share : float
        Share of rows and of relevant rows that sit in skipped groups.
    n_dropped : int
        Rows dropped because of missing values (``nan_policy="omit"``).
    """

    n_rows: int
    n_groups: int
    n_used: int
    n_only_pos: int = 0
    n_only_neg: int = 0
    n_filtered: int = 0
    n_empty: int = 0
    rows_skipped_share: float = 0.0
    positives_skipped_share: float = 0.0
    n_dropped: int = 0
    n_zero_weight: int = 0

    @property
    def n_skipped(self) -> int:
        """Groups left out of the average, for any reason."""
        return self.n_groups - self.n_used

    @property
    def alert(self) -> bool:
        """True when more than 10% of the rows sit in skipped groups."""
        return self.rows_skipped_share > SKIPPED_ROWS_ALERT

    def as_dict(self) -> dict[str, Any]:
        """The coverage as a plain dict (for tables and JSON)."""
        return asdict(self)

    def __str__(self) -> str:
        parts = []
        for count, reason in (
            (self.n_only_neg, "no positive"),
            (self.n_only_pos, "no negative"),
            (self.n_filtered, "filtered"),
            (self.n_zero_weight, "zero sample weight"),
            (self.n_empty, "no relevant row"),
        ):
            if count:
                parts.append(f"{count:,} {reason}")
        text = f"{self.n_used:,} of {self.n_groups:,} groups used"
        if self.n_skipped:
            text += f", skipped: {', '.join(parts) if parts else self.n_skipped}"
            text += (
                f"; skipped groups hold {self.rows_skipped_share:.1%} of rows"
                f" and {self.positives_skipped_share:.1%} of positives"
            )
        elif self.n_empty:
            text += f" ({self.n_empty:,} with no relevant row, scored 0)"
        if self.n_dropped:
            text += f"; {self.n_dropped:,} rows with missing values dropped"
        if self.alert:
            text += " (more than 10% of rows skipped: check the data and filters)"
        return text


class MetricResult(float):
    """A metric value that still behaves as a ``float`` and carries its coverage.

    Attributes
    ----------
    metric : str
        The metric's name, such as ``"gauc"`` or ``"ndcg@10"``.
    coverage : Coverage
        Groups used and skipped, and rows dropped.
    params : dict
        The choices that shaped the number (weight, ties, k, ...).

    Examples
    --------
    >>> r = MetricResult(0.75, metric="auc", coverage=Coverage(n_rows=4, n_groups=1, n_used=1))
    >>> r
    0.75
    >>> r + 0.25
    1.0
    >>> print(r.coverage)
    1 of 1 groups used
    """

    metric: str
    coverage: Coverage
    params: dict[str, Any]

    def __new__(
        cls,
        value: float,
        *,
        metric: str,
        coverage: Coverage,
        params: dict[str, Any] | None = None,
    ) -> MetricResult:
        self = super().__new__(cls, value)
        self.metric = metric
        self.coverage = coverage
        self.params = dict(params or {})
        return self

    def __reduce__(self) -> Any:
        return (_rebuild, (float(self), self.metric, self.coverage, self.params))

    def describe(self) -> str:
        """One line per fact: the value, the choices and the coverage.

        Examples
        --------
        >>> r = MetricResult(0.5, metric="gauc", params={"weight": "count"},
        ...                  coverage=Coverage(n_rows=10, n_groups=3, n_used=2, n_only_neg=1,
        ...                                    rows_skipped_share=0.2))
        >>> print(r.describe())
        gauc = 0.500000 (weight='count')
        coverage: 2 of 3 groups used, skipped: 1 no positive; skipped groups hold 20.0% of rows and 0.0% of positives (more than 10% of rows skipped: check the data and filters)
        """
        opts = ", ".join(f"{k}={v!r}" for k, v in self.params.items())
        return f"{self.metric} = {float(self):.6f} ({opts})\ncoverage: {self.coverage}"

    def _repr_html_(self) -> str:
        """Jupyter shows the value with its choices and coverage; ``repr`` stays the float's."""
        opts = ", ".join(f"{k}={v}" for k, v in self.params.items())
        return (
            f"<b>{html.escape(self.metric)} = {float(self):.6g}</b>"
            f'<br><span style="font-size: 0.9em; color: #555">{html.escape(opts)}<br>'
            f"{html.escape(str(self.coverage))}</span>"
        )


def _rebuild(value: float, metric: str, coverage: Coverage, params: dict[str, Any]) -> MetricResult:
    return MetricResult(value, metric=metric, coverage=coverage, params=params)


