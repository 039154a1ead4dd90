"""PCOC per value of a field with its interval: the plot of the table of
:func:`pandas_rankeval.calibration_by` (:func:`plot_calibration_by`, also ``table.plot()``)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from .style import GREY, plain_log_ticks, prepare_axes

__all__ = ["plot_calibration_by"]


def plot_calibration_by(table: Any, ax: Any = None, *, max_values: int = 30, title: str | None = None) -> Any:
    """PCOC per value of a field, with its interval, on a log scale around 1 (calibrated).

    Parameters
    ----------
    table : CalibrationByTable
        The result of :func:`pandas_rankeval.calibration_by`.
    ax : matplotlib Axes, optional
    max_values : int, default=30
        The values with the most rows are drawn (the title says how many are left out).
    title : str, optional
        Default: the field and its field-level RCE with the interval.

    Returns
    -------
    ax : matplotlib Axes
        One row per value (largest first), the overall row ``(all)`` last in grey; a dot at
        PCOC, a bar over its interval; values without a click (no PCOC) are left out and counted
        in the title.

    Examples
    --------
    >>> import pandas_rankeval as pre
    >>> from pandas_rankeval import plotting
    >>> df = pre.datasets.make_impressions(n_users=200).assign(p=0.07)
    >>> t = pre.calibration_by(
    ...     df, field="device", label="click", score="p", group="user_id", n_boot=50
    ... )
    >>> ax = plotting.plot_calibration_by(t)  # doctest: +SKIP
    """
    if getattr(table, "attrs", {}).get("table") != "calibration_by":
        raise TypeError(
            "plot_calibration_by takes the table of pandas_rankeval.calibration_by(df, field=..., label=..., "
            f"score=..., group=...); got {type(table).__name__}."
        )
    t = pd.DataFrame(table)
    first = t.index.get_level_values(0).astype(str)
    overall = first == "(all)"
    values = t[~overall & t["pcoc"].notna()].sort_values("rows", ascending=False)
    hidden = int((~overall).sum()) - min(len(values), max_values)
    values = values.head(max_values)
    shown = pd.concat([values, t[overall]])
    labels = [" / ".join(map(str, k)) if isinstance(k, tuple) else str(k) for k in shown.index]
    ax = prepare_axes(ax, (6.4, 1.2 + 0.28 * len(shown)))
    y = np.arange(len(shown))[::-1]
    pcoc = shown["pcoc"].to_numpy(dtype=float)
    colors = [GREY if str(k if not isinstance(k, tuple) else k[0]) == "(all)" else "C0" for k in shown.index]
    if "pcoc_low" in shown.columns:
        lo, hi = shown["pcoc_low"].to_numpy(dtype=float), shown["pcoc_high"].to_numpy(dtype=float)
        ax.hlines(y, lo, hi, colors=colors, linewidth=2)
    ax.scatter(pcoc, y, color=colors, zorder=3)
    ax.axvline(1.0, color="#999999", linestyle="--", linewidth=1)
    ax.set_xscale("log")
    plain_log_ticks(ax.xaxis)  # 0.8, 0.9, 1: not 8x10^-1
    ax.set_yticks(y)
    ax.set_yticklabels(labels)
    ax.set_xlabel("PCOC (predicted / observed clicks; 1 = calibrated)")
    if title is None:
        field = ", ".join(map(str, table.attrs.get("field", [])))
        frce = float(table.attrs.get("field_rce", np.nan))
        lo_f, hi_f = table.attrs.get("field_rce_interval", (np.nan, np.nan))
        title = f"{field}: field-level RCE {frce:.3f}" + (f" [{lo_f:.3f}, {hi_f:.3f}]" if np.isfinite(lo_f) else "")
        if hidden > 0:
            title += f"\n{hidden:,} values not shown (fewer rows, or no click)"
    ax.set_title(title)
    return ax
