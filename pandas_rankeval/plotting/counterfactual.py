"""Plots of the counterfactual tables: the propensity curve, and online against offline lift.

matplotlib is optional (``pip install 'pandas_rankeval[plot]'``) and imported when a plot is
drawn. Each function returns what it drew on; legends sit outside the data, as in
:mod:`pandas_rankeval.plotting`.
"""

from __future__ import annotations

import warnings

from typing import Any

import numpy as np
import pandas as pd

from .style import model_colors, prepare_axes, require_matplotlib

__all__ = ["plot_propensities", "plot_launch_agreement"]


def plot_propensities(table: pd.DataFrame, ax: Any = None, *, clip: float | None = None, title: str | None = None) -> Any:
    """The propensity of each position (points and line) with its interval (a band).

    Parameters
    ----------
    table : PropensityTable
        The result of :func:`pandas_rankeval.propensities`.
    ax : matplotlib Axes, optional
        Where to draw; default: a new figure.
    clip : float, optional
        Draw the clipping floor of an inverse-propensity metric (a dotted line): positions
        below it would be weighted by 1 / clip, not 1 / propensity.
    title : str, optional
        Default: "Examination propensity by position (<method>)".

    Returns
    -------
    ax : matplotlib Axes

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import pandas as pd
    >>> from pandas_rankeval.counterfactual import PropensityTable, plot_propensities
    >>> t = PropensityTable({"propensity": [1.0, 0.5, 0.3], "propensity_low": [1.0, 0.4, 0.2],
    ...                      "propensity_high": [1.0, 0.6, 0.4]}, index=pd.Index([1, 2, 3], name="position"))
    >>> ax = plot_propensities(t, clip=0.1)
    >>> ax.get_xlabel()
    'position'
    """

    for c in ("propensity", "propensity_low", "propensity_high"):
        if c not in table.columns:
            raise ValueError(f"plot_propensities expects the table of pandas_rankeval.propensities; the column {c!r} is missing.")
    ax = prepare_axes(ax, (7.0, 4.5))
    color = model_colors(1)[0]
    k = np.asarray(table.index, dtype=float)
    p = table["propensity"].to_numpy(dtype=float)
    lo, hi = table["propensity_low"].to_numpy(dtype=float), table["propensity_high"].to_numpy(dtype=float)
    ax.plot(k, p, marker="o", color=color, linewidth=2, label="propensity")
    if np.isfinite(lo).any():
        level = table.attrs.get("ci", 0.95)
        ax.fill_between(k, lo, hi, color=color, alpha=0.2, linewidth=0, label=f"{level:.0%} interval (bootstrap over groups)")
    if clip is not None:
        ax.axhline(clip, color="grey", linestyle=":", linewidth=1.2, label=f"clip = {clip:g}")
    ax.set_xlabel("position")
    ax.set_ylabel("examination relative to position 1")
    ax.set_ylim(0, max(1.05, float(np.nanmax(hi)) * 1.05 if np.isfinite(hi).any() else 1.05))
    ax.set_xticks(k)
    method = table.attrs.get("method")
    ax.set_title(title if title is not None else "Examination propensity by position" + (f" ({method})" if method else ""))
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0, fontsize="small")
    return ax


def plot_launch_agreement(
    table: pd.DataFrame, ax: Any = None, *, title: str | None = None, axes: Any = None
) -> Any:
    """Online against offline lift, one panel per offline metric, with the fitted slope.

    Each launch is a point; points in the shaded quadrants are launches where the signs
    disagree. The line is the slope through the origin; each panel's title gives the sign
    agreement and Kendall's tau. The best metric's title is bold.

    Parameters
    ----------
    table : AgreementTable
        The result of :func:`pandas_rankeval.launch_agreement`.
    ax : matplotlib Axes or array of Axes, optional
        One per metric (as every plot of the package, ``ax=``); default: a new figure with one row
        of panels.
    title : str, optional
        Default: "Offline vs online lift (<n> launches)".
    axes : array of matplotlib Axes, optional
        The former name of ``ax`` (deprecated: it warns and does the same).

    Returns
    -------
    axes : numpy array of matplotlib Axes

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import pandas as pd
    >>> import pandas_rankeval as pre
    >>> from pandas_rankeval.counterfactual import plot_launch_agreement
    >>> launches = pd.DataFrame({"ndcg": [0.01, 0.02, -0.01, 0.03, 0.00], "auc": [0.0, 0.01, 0.01, -0.02, 0.01],
    ...                          "online": [0.004, 0.011, -0.002, 0.012, 0.001]})
    >>> axes = plot_launch_agreement(pre.launch_agreement(launches, offline=["ndcg", "auc"], online="online"))
    >>> [a.get_xlabel() for a in axes]
    ['ndcg lift (offline)', 'auc lift (offline)']
    """

    points = table.attrs.get("points")
    if not isinstance(points, dict):
        raise ValueError("plot_launch_agreement expects the table of pandas_rankeval.launch_agreement (its attrs hold the launches).")
    require_matplotlib()
    import matplotlib.pyplot as plt

    metrics = [str(m) for m in table.index]
    if axes is not None:
        if ax is not None:
            raise TypeError("plot_launch_agreement: pass the Axes once, as ax= (axes= is its former name).")
        warnings.warn("plot_launch_agreement(axes=) is now ax=, as in every plot of pandas_rankeval; "
                      "axes= will be removed.", DeprecationWarning, stacklevel=2)
    else:
        axes = ax
    if axes is None:
        fig, axes = plt.subplots(1, len(metrics), figsize=(4.2 * len(metrics), 4.0), squeeze=False, layout="constrained",
                                 sharey=True)
        axes = axes[0]
        n = int(table["n_launches"].max())
        fig.suptitle(title if title is not None else f"Offline vs online lift ({n:,} launch{'es' if n != 1 else ''})")
    axes = np.atleast_1d(np.asarray(axes, dtype=object))
    if len(axes) != len(metrics):
        raise ValueError(f"plot_launch_agreement needs one Axes per metric ({len(metrics)}); got {len(axes)}.")
    online = table.attrs.get("online", "online")
    colors = model_colors(len(metrics))
    for ax, m, color in zip(axes, metrics, colors):
        x, y = (np.asarray(v, dtype=float) for v in points[m])
        span_x = float(np.max(np.abs(x))) * 1.15 or 1.0
        span_y = float(np.max(np.abs(y))) * 1.15 or 1.0
        ax.fill_between([0, span_x], -span_y, 0, color="#f3d6d6", linewidth=0, zorder=0)
        ax.fill_between([-span_x, 0], 0, span_y, color="#f3d6d6", linewidth=0, zorder=0)
        ax.axhline(0, color="grey", linewidth=0.8)
        ax.axvline(0, color="grey", linewidth=0.8)
        ax.scatter(x, y, color=color, s=30, zorder=3)
        row = table.loc[table.index[metrics.index(m)]]
        slope = float(row["slope"])
        if np.isfinite(slope):
            xs = np.array([-span_x, span_x])
            ax.plot(xs, slope * xs, color=color, linewidth=1.5, label=f"slope {slope:.2g}")
        ax.set_xlim(-span_x, span_x)
        ax.set_ylim(-span_y, span_y)
        tau = float(row["kendall_tau"])
        ax.set_title(f"{m}: signs agree {float(row['sign_agreement']):.0%}, tau {'n/a' if not np.isfinite(tau) else format(tau, '.2f')}",
                     fontsize="medium", fontweight="bold" if bool(row.get("best", False)) else "normal")
        ax.set_xlabel(f"{m} lift (offline)")
    axes[0].set_ylabel(f"{online} (online)")
    return axes
