"""Result types: a float that carries its coverage, and the coverage itself."""

from __future__ import annotations

import html
import os
import sys
import warnings
from dataclasses import dataclass, fields
from typing import Any

from ..numfmt import digits, fmt_metric

__all__ = ["Coverage", "Description", "MetricResult", "CoverageWarning", "warn_coverage", "warn_once", "coverage_problem",
           "xauc_coverage"]

#: Share of rows (or of positives) dropped by the filters above which a metric warns
#: (the metric contract, docs/guide/metric-contract.md: question the data before raising a threshold).
FILTERED_ALERT = 0.10


class CoverageWarning(UserWarning):
    """The filters left out a large share of the data, or no group could be used.

    Groups with one class only (a user who never clicks) are not a reason to warn: GAUC
    skips them by definition, and the coverage (``result.coverage``, the table footers)
    says how many there are. Silence the warning with the standard filters::

        import warnings
        warnings.filterwarnings("ignore", category=pandas_rankeval.CoverageWarning)
    """


_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # the package root


def _library_dirs() -> tuple[str, ...]:
    """Directories whose frames are not the user's: this package and pandas (``df.pipe``)."""
    dirs = [_PACKAGE_DIR]
    pandas_mod = sys.modules.get("pandas")
    pandas_file = getattr(pandas_mod, "__file__", None) if pandas_mod is not None else None
    if pandas_file:
        dirs.append(os.path.dirname(os.path.abspath(pandas_file)))
    return tuple(d + os.sep for d in dirs)


def warn_coverage(message: str) -> None:
    """Issue a :class:`CoverageWarning` pointing at the user's line.

    The warning is attributed to the first frame outside this package and outside
    pandas, whether the metric was called directly, through ``df.rank``, from
    ``report`` or through ``df.pipe``.
    """
    skip = _library_dirs()
    frame = sys._getframe(0)
    level = 1
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(skip):
        frame = frame.f_back  # type: ignore[assignment]
        level += 1
    warnings.warn(message, CoverageWarning, stacklevel=level)


def coverage_problem(name: str, value: float, coverage: Coverage, nan_reason: str = "") -> str | None:
    """Why a metric deserves a :class:`CoverageWarning`, or None.

    Two reasons only (docs/guide/metric-contract.md, "Coverage"): the value is NaN because no group (no row pair) could
    be used, or the filters (``min_size``, ``min_pos``, ``min_neg``) dropped more than
    10% of the rows or of the positives. Single-class groups are in the coverage, not here.
    ``nan_reason`` is the metric's own reason for a NaN, when it has one (a calibration metric's
    ``Metric.nan_reason``): the caller passes it, this module does not read the registry.
    """
    if value != value:  # NaN
        if nan_reason:  # a calibration metric: its own reason
            return f"{name} is NaN because {nan_reason} ({coverage})."
        if coverage.n_used and coverage.grouped:
            why = "the weights of the groups used sum to 0"
        elif not coverage.grouped:
            why = "no (positive, negative) pair has weight" if coverage.n_zero_weight else "the labels hold only one class"
        else:
            why = "no group is eligible"
        return f"{name} is NaN because {why} ({coverage})."
    if coverage.alert:  # the problem only: the table's footer has the whole coverage
        return (
            f"{name}: {coverage.n_used:,} of {coverage.n_groups:,} groups used; the filters drop "
            f"{coverage.rows_filtered_share:.1%} of rows and "
            f"{coverage.positives_filtered_share:.1%} of positives (min_size, min_pos, min_neg; more than 10%: "
            "check the data before raising a threshold)."
        )
    return None


def warn_once(where: str, metrics: list[tuple[str, float, Coverage, str]]) -> None:
    """One :class:`CoverageWarning` for a call over several metrics (``report``,
    ``compare``): every metric's problem in one message, or nothing. Each metric is (name,
    value, coverage, its own reason for a NaN or "")."""
    problems = [p for p in (coverage_problem(n, v, c, r) for n, v, c, r in metrics) if p is not None]
    if problems:
        warn_coverage(f"{where}: " + " ".join(problems))


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
    rows_filtered_share, positives_filtered_share : float
        Share of rows and of relevant rows in the groups that the filters
        (``min_size`` / ``min_pos`` / ``min_neg``) dropped.
    grouped : bool
        False for global AUC, which pools every row: its coverage is rows, not groups.

    Examples
    --------
    >>> import pandas as pd
    >>> import pandas_rankeval as pre
    >>> df = pd.DataFrame(
    ...     {
    ...         "u": [1, 1, 2, 2, 3],
    ...         "y": [1, 0, 0, 0, 1],
    ...         "s": [0.9, 0.1, 0.5, 0.4, 0.3],
    ...     }
    ... )
    >>> cov = pre.gauc(df, group="u", label="y", score="s").coverage
    >>> cov.n_groups, cov.n_used, cov.n_only_neg, cov.n_only_pos
    (3, 1, 1, 1)
    >>> print(cov)
    1 of 3 groups used, skipped: 1 no positive, 1 no negative; skipped groups hold
    60.0% of rows and 50.0% of positives
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
    rows_filtered_share: float = 0.0
    positives_filtered_share: float = 0.0
    grouped: bool = True

    @property
    def n_skipped(self) -> int:
        """Groups left out of the average, for any reason."""
        return self.n_groups - self.n_used

    @property
    def alert(self) -> bool:
        """True when the filters dropped more than 10% of the rows or of the positives."""
        return max(self.rows_filtered_share, self.positives_filtered_share) > FILTERED_ALERT

    def as_dict(self) -> dict[str, Any]:
        """The coverage as a plain dict (for tables and JSON). Every field is a number or a bool,
        so a shallow copy is ``dataclasses.asdict`` without its recursive deep copy."""
        return {f.name: getattr(self, f.name) for f in fields(self)}

    def __str__(self) -> str:
        if not self.grouped:  # global AUC: every row in one pool
            text = f"all {self.n_rows:,} row{'' if self.n_rows == 1 else 's'} pooled (no groups)"
            if self.n_zero_weight:
                text += "; one class has zero total sample weight, so no weighted pair"
            elif not self.n_used:
                text += "; only one class, so no (positive, negative) pair"
            if self.n_dropped:
                text += f"; {self.n_dropped:,} row{'' if self.n_dropped == 1 else 's'} with missing values dropped"
            return text
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
            text += f"; {self.n_dropped:,} row{'' if self.n_dropped == 1 else 's'} with missing values dropped"
        if self.alert:
            text += (
                f"; the filters drop {self.rows_filtered_share:.1%} of rows and "
                f"{self.positives_filtered_share:.1%} of positives (more than 10%: check the "
                "data before raising a threshold)"
            )
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
    >>> r = MetricResult(
    ...     0.75,
    ...     metric="auc",
    ...     coverage=Coverage(n_rows=4, n_groups=1, n_used=1, grouped=False),
    ... )
    >>> r
    0.75
    >>> r + 0.25
    1.0
    >>> print(r.coverage)
    all 4 rows pooled (no groups)
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

    def __repr__(self) -> str:
        """The value to the tables' decimals, so that ``{'gauc': r}`` reads ``{'gauc': 0.6828}``;
        ``float(r)`` and ``str(r)`` keep every digit."""
        x = float(self)
        return repr(round(x, digits())) if x == x else "nan"

    def __str__(self) -> str:
        return float.__repr__(self)

    def __reduce__(self) -> Any:
        return (_rebuild, (float(self), self.metric, self.coverage, self.params))

    def describe(self) -> Description:
        """One line per fact: the value, the choices and the coverage.

        Returns
        -------
        Description
            The text (a ``str``: ``str(d)``, ``print(d)``, ``d.splitlines()``), shown as
            text at a prompt and as HTML in a notebook, not as a quoted string.

        Examples
        --------
        >>> r = MetricResult(
        ...     0.5,
        ...     metric="gauc",
        ...     params={"weight": "count"},
        ...     coverage=Coverage(
        ...         n_rows=10,
        ...         n_groups=3,
        ...         n_used=2,
        ...         n_only_neg=1,
        ...         rows_skipped_share=0.2,
        ...     ),
        ... )
        >>> r.describe()
        gauc = 0.5000 (weight='count')
        coverage: 2 of 3 groups used, skipped: 1 no positive; skipped groups hold 20.0%
        of rows and 0.0% of positives
        """
        opts = ", ".join(f"{k}={v!r}" for k, v in self.params.items())
        text = f"{self.metric} = {_fmt_value(float(self))} ({opts})\ncoverage: {self.coverage}"
        return Description(text, self._repr_html_())

    def _repr_html_(self) -> str:
        """Jupyter shows the value with its choices and coverage; ``repr`` stays the float's."""
        opts = ", ".join(f"{k}={v}" for k, v in self.params.items())
        return (
            f"<b>{html.escape(self.metric)} = {_fmt_value(float(self))}</b>"
            f'<br><span style="font-size: 0.9em; color: #555">{html.escape(opts)}<br>'
            f"{html.escape(str(self.coverage))}</span>"
        )


class Description(str):
    """The text of :meth:`MetricResult.describe`, which displays as itself.

    A ``str`` (so ``str(d)``, ``print(d)``, ``d.splitlines()`` and comparisons are the text's),
    whose ``repr`` is the text, not a quoted string with ``\\n``, and whose ``_repr_html_`` gives
    Jupyter the value in bold over the choices and the coverage.

    Examples
    --------
    >>> d = Description("auc = 0.7000\\ncoverage: 10 rows", "<b>auc = 0.7000</b>")
    >>> d
    auc = 0.7000
    coverage: 10 rows
    >>> str(d) == "auc = 0.7000\\ncoverage: 10 rows", d._repr_html_()
    (True, '<b>auc = 0.7000</b>')
    """

    _html: str

    def __new__(cls, text: str, html_text: str | None = None) -> Description:
        self = super().__new__(cls, text)
        self._html = html_text if html_text is not None else f"<pre>{html.escape(text)}</pre>"
        return self

    def __repr__(self) -> str:
        return str.__str__(self)

    def __str__(self) -> str:
        return str.__str__(self)

    def _repr_html_(self) -> str:
        return self._html

    def _repr_pretty_(self, p: Any, cycle: bool) -> None:  # IPython's plain-text display
        p.text(str.__str__(self))

    def __reduce__(self) -> tuple[Any, ...]:
        return (Description, (str.__str__(self), self._html))


def _fmt_value(x: float) -> str:
    return fmt_metric(x)


def _rebuild(value: float, metric: str, coverage: Coverage, params: dict[str, Any]) -> MetricResult:
    return MetricResult(value, metric=metric, coverage=coverage, params=params)


def xauc_coverage(n_rows: int, den: float, n_dropped: int) -> Coverage:
    """Coverage of global XAUC over the whole table: one pool of rows, used when a pair of rows has
    different labels (and positive weight), ``den > 0``. The same on every engine."""
    return Coverage(n_rows=int(n_rows), n_groups=1, n_used=int(den > 0), n_dropped=int(n_dropped), grouped=False)
