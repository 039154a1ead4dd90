"""PCOC per value of a field with its interval: the plot of :func:`pandas_rankeval.calibration_by`
(:func:`plot_calibration_by`)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

__all__ = ["plot_calibration_by"]

_INSTALL_HINT = (
    "plot_calibration_by needs matplotlib: pip install 'pandas_rankeval[plot]' (or pip install matplotlib)"
)


def plot_calibration_by(
    table: Any, ax: Any = None, *, max_values: int = 30, title: str | None = None, **kwargs: Any,
) -> Any:
    """PCOC per value of a field, with its interval, on a log scale around 1 (calibrated).

    Parameters
    ----------
    table : CalibrationByTable or DataFrame
        The result of :func:`pandas_rankeval.calibration_by`; a DataFrame is passed to it first
        with ``kwargs`` (``field=``, ``label=``, ``score=``, ``group=``, ...).
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
    """
    from pandas_rankeval.calibration import CalibrationByTable, calibration_by

    if not isinstance(table, CalibrationByTable):
        if not isinstance(table, pd.DataFrame) or not kwargs:
            raise TypeError(
                "plot_calibration_by takes the table of pandas_rankeval.calibration_by, or a DataFrame with "
                f"its arguments (field=, label=, score=, ...); got {type(table).__name__}."
            )
        table = calibration_by(table, **kwargs)
    try:
        import matplotlib.pyplot as plt
    except ImportError as exc:  # pragma: no cover - matplotlib is in the test environment
        raise ImportError(_INSTALL_HINT) from exc
    t = pd.DataFrame(table)
    overall = t.index.get_level_values(0).astype(str) == "(all)"
    values = t[~overall & t["pcoc"].notna()].sort_values("rows", ascending=False)
    hidden = int((~overall).sum()) - min(len(values), max_values)
    values = values.head(max_values)
    shown = pd.concat([values, t[overall]])
    labels = [" / ".join(map(str, k)) if isinstance(k, tuple) else str(k) for k in shown.index]
    if ax is None:
        _, ax = plt.subplots(figsize=(6.4, 1.2 + 0.28 * len(shown)), layout="constrained")
    y = np.arange(len(shown))[::-1]
    pcoc = shown["pcoc"].to_numpy(dtype=float)
    colors = ["#555555" if str(k) == "(all)" or (isinstance(k, tuple) and k[0] == "(all)") else "C0" for k in shown.index]
    if "pcoc_low" in shown.columns:
        lo, hi = shown["pcoc_low"].to_numpy(dtype=float), shown["pcoc_high"].to_numpy(dtype=float)
        ax.hlines(y, lo, hi, colors=colors, linewidth=2)
    ax.scatter(pcoc, y, color=colors, zorder=3)
    ax.axvline(1.0, color="#999999", linestyle="--", linewidth=1)
    ax.set_xscale("log")
    ax.set_yticks(y)
    ax.set_yticklabels(labels)
    ax.set_xlabel("PCOC (predicted / observed clicks; 1 = calibrated)")
    if title is None:
        field = ", ".join(map(str, table.attrs.get("field", [])))
        lo_f, hi_f = table.field_rce_interval
        title = f"{field}: field-level RCE {table.field_rce:.3f}" + (
            f" [{lo_f:.3f}, {hi_f:.3f}]" if np.isfinite(lo_f) else ""
        )
        if hidden > 0:
            title += f"\n{hidden:,} values not shown (fewer rows, or no click)"
    ax.set_title(title)
    return ax
