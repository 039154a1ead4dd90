"""What every plot of the package shares: matplotlib on demand, one Axes per call (constrained
layout), one colour and one marker per model, legends outside the data, p-values as text.

matplotlib is an optional dependency (``pip install 'pandas_rankeval[plot]'``); it is imported when
a plot is drawn, not when a module is imported.
"""

from __future__ import annotations

from typing import Any

__all__ = ["INSTALL_HINT", "MARKERS", "GREY", "require_matplotlib", "prepare_axes", "make_room", "matplotlib_rc",
           "model_colors", "p_text", "legend_right_of_texts", "plain_log_ticks"]

INSTALL_HINT = (
    "pandas_rankeval.plotting needs matplotlib, which is not installed: "
    "pip install 'pandas_rankeval[plot]' (or pip install matplotlib)"
)
MARKERS = ("o", "s", "^", "D", "v", "P", "X")
GREY = "#555555"


def require_matplotlib() -> None:
    try:
        import matplotlib
        import matplotlib.pyplot  # noqa: F401
    except ImportError as exc:
        raise ImportError(INSTALL_HINT) from exc


def prepare_axes(ax: Any, figsize: tuple[float, float]) -> Any:
    """The given Axes (its figure gets constrained layout if it has no layout engine), or a
    new figure's Axes with constrained layout."""
    require_matplotlib()
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=figsize, layout="constrained")
        return ax
    make_room(ax.figure)
    return ax


def make_room(fig: Any) -> None:
    if fig.get_layout_engine() is None:
        fig.set_layout_engine("constrained")


def matplotlib_rc(name: str) -> float:
    """A font size from matplotlib's settings, in points (named sizes such as "medium" resolved)."""
    import matplotlib
    from matplotlib.font_manager import FontProperties

    value = matplotlib.rcParams[name]  # type: ignore[index]  # stubs narrower than runtime
    return float(value) if isinstance(value, (int, float)) else float(FontProperties(size=value).get_size_in_points())


def model_colors(n: int) -> list[Any]:
    """n distinct colours: the colour-blind-safe tab10 order (blue, orange, green, ...)."""
    import matplotlib

    cycle = [c["color"] for c in matplotlib.rcParams["axes.prop_cycle"]]
    if len(set(cycle)) < min(n, 10):  # a style with too few colours: fall back to tab10
        cycle = [matplotlib.colormaps["tab10"](i) for i in range(10)]
    return [cycle[i % len(cycle)] for i in range(n)]


def p_text(p: float) -> str:
    from pandas_rankeval.display.formatting import fmt_p

    text = fmt_p(p)
    return f"p {text}" if text.startswith("<") else f"p={text}"

def legend_right_of_texts(ax: Any, handles: list[Any] | None) -> Any:
    """The legend to the right of the axes, past the p-values written there (an offset in
    inches, so it holds when a layout engine resizes the axes)."""
    from matplotlib.transforms import ScaledTranslation

    fig = ax.figure
    renderer = fig.canvas.get_renderer()
    widest = max([t.get_window_extent(renderer).width for t in ax.texts] or [0.0])
    shift = ScaledTranslation(widest / fig.dpi + 0.15, 0, fig.dpi_scale_trans)
    kw = {"handles": handles} if handles else {}
    return ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), bbox_transform=ax.transAxes + shift,
                     borderaxespad=0.0, fontsize="small", **kw)


def plain_log_ticks(axis: Any) -> None:
    """Ticks of a log axis written as plain numbers (``0.7, 0.8, 0.9, 1``, ``0.1, 1, 10``), not
    matplotlib's ``7x10^-1``, over the axis' current limits: within a decade, about five evenly
    spaced values; wider, 1, 2, 3, 5 times the powers of 10 up to a decade and a half, 1, 2, 5
    up to two and a half, 1 and 3 up to four, the powers alone beyond. No minor labels."""
    import numpy as np
    from matplotlib.ticker import FixedLocator, FuncFormatter, MaxNLocator, NullFormatter, NullLocator

    lo, hi = sorted(axis.get_view_interval())
    if not (lo > 0 and hi > lo):
        return
    span = float(np.log10(hi / lo))
    if span < 1:
        ticks = [float(t) for t in MaxNLocator(nbins=5, steps=[1, 2, 2.5, 5, 10]).tick_values(lo, hi)]
        axis.set_minor_locator(NullLocator())
    else:
        steps = (1, 2, 3, 5) if span <= 1.5 else (1, 2, 5) if span <= 2.5 else (1, 3) if span <= 4 else (1,)
        decades = 10.0 ** np.arange(np.floor(np.log10(lo)), np.ceil(np.log10(hi)) + 1)
        ticks = [float(m * d) for d in decades for m in steps]
    ticks = [t for t in ticks if lo <= t <= hi]
    if len(ticks) < 2:
        return
    axis.set_major_locator(FixedLocator(ticks))
    axis.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:,.6g}"))
    axis.set_minor_formatter(NullFormatter())
