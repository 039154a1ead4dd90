"""The result tables of :func:`propensities` and :func:`launch_agreement`: DataFrames that print
with their footer (what the numbers rest on) and draw themselves with ``.plot()``."""

from __future__ import annotations

from typing import Any

import pandas as pd

from pandas_rankeval.display.table import ResultTable

__all__ = ["PropensityTable", "AgreementTable"]


def _with_footer(table: ResultTable, kind: str, short: list[str], details: list[str], **attrs: Any) -> None:
    table.attrs.update(attrs)
    table.attrs["table"] = kind
    table.attrs["footer_short"] = [s for s in short if s]
    table.attrs["footer"] = [s for s in [*short, *details] if s]


class PropensityTable(ResultTable):
    """Examination propensity per logged position, relative to position 1.

    A DataFrame indexed by ``position`` with the columns ``propensity``, ``propensity_low``,
    ``propensity_high`` (the bootstrap interval over groups), ``impressions`` and ``clicks``
    (of the log, per position). It prints with a footer (method, groups, replicates,
    convergence); ``plot()`` draws the curve with its interval (pandas' own plotting stays
    available as ``pd.DataFrame(table).plot``). ``attrs`` holds the method and its choices.

    It is what a counterfactual (inverse-propensity) metric takes as ``propensity=``: look a
    position up with ``table.loc[k, "propensity"]`` or ``table["propensity"].reindex(...)``.
    """

    def plot(self, ax: Any = None, *, clip: float | None = None, title: str | None = None) -> Any:  # type: ignore[override]
        """Draw the propensity curve and its interval (see :func:`plot_propensities`)."""
        from ..plotting.counterfactual import plot_propensities

        return plot_propensities(self, ax=ax, clip=clip, title=title)


class AgreementTable(ResultTable):
    """How well each offline metric's lift agreed with the online lift over past launches.

    A DataFrame indexed by ``metric`` (see :func:`launch_agreement` for the columns), printed
    with a footer: how many launches the evidence rests on, which metric agrees best and
    whether that is clear. ``best`` names that metric; ``plot()`` draws online against offline
    lift per metric with the fitted slope.
    """

    @property
    def best(self) -> Any:
        """The offline metric that agrees best (None when no metric could be rated)."""
        return self.attrs.get("best")

    def plot(self, ax: Any = None, *, title: str | None = None) -> Any:  # type: ignore[override]
        """Online against offline lift, one panel per metric (see :func:`plot_launch_agreement`)."""
        from ..plotting.counterfactual import plot_launch_agreement

        return plot_launch_agreement(self, ax=ax, title=title)


def make_table(cls: type[ResultTable], frame: pd.DataFrame, kind: str, short: list[str], details: list[str],
               **attrs: Any) -> Any:
    table = cls(frame)
    _with_footer(table, kind, short, details, **attrs)
    return table
