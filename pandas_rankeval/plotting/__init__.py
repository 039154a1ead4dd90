"""Plots: per-group AUC against group size, a forest plot of model comparisons, and the reliability
diagram of predicted probabilities (:func:`plot_calibration`), PCOC per value of a field
(:func:`plot_calibration_by`).

matplotlib is an optional dependency (``pip install 'pandas_rankeval[plot]'``); it is imported
when a plot is drawn, not when this module is imported. Every function returns what it drew on,
so a figure can be composed, restyled and saved as usual::

    import matplotlib.pyplot as plt
    from pandas_rankeval import plotting

    fig, (left, right) = plt.subplots(1, 2, figsize=(14, 5), layout="constrained")
    plotting.plot_group_auc(df, group="user_id", label="click", score="model_b", ax=left)
    plotting.plot_comparison(pandas_rankeval.compare(df, ...), ax=right)
    fig.savefig("eval.png")

Legends never sit on the data: they go outside the axes, and a figure without a layout engine
gets matplotlib's constrained layout so that they have room (a figure the caller laid out
keeps its engine). Each model has one colour and one marker, in every plot.
"""

from __future__ import annotations

from .._keywords import keyword_hints
from .calibration import plot_calibration
from .comparison import plot_comparison
from .field_calibration import plot_calibration_by
from .group_auc import plot_group_auc

plot_calibration = keyword_hints(plot_calibration)
plot_calibration_by = keyword_hints(plot_calibration_by)
plot_comparison = keyword_hints(plot_comparison)
plot_group_auc = keyword_hints(plot_group_auc)

__all__ = ["plot_calibration", "plot_calibration_by", "plot_comparison", "plot_group_auc"]
