"""Plots from a frame or a compare table (matplotlib, an optional extra).

    from pandas_rankeval import plotting
    plotting.plot_group_auc(df, score="model_a")
"""

from __future__ import annotations

from .calibration import plot_calibration
from .comparison import plot_comparison, plot_group_auc

__all__ = ["plot_calibration", "plot_comparison", "plot_group_auc"]
