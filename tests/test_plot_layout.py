"""Plots stay readable with 5 models and 4 segments: checked on the drawn figure, no legend
overlaps an axes' data area, a text label (ticks, p-values, titles) or another legend, and
every legend stays inside the figure."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import pandas_rankeval as pre

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt

from pandas_rankeval import plotting


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _area(a, b) -> float:
    w = min(a.x1, b.x1) - max(a.x0, b.x0)
    h = min(a.y1, b.y1) - max(a.y0, b.y0)
    return max(w, 0.0) * max(h, 0.0)


def collisions(fig) -> list[tuple[str, str]]:
    """Everything a legend of ``fig`` overlaps, after drawing (layout engines included)."""
    fig.canvas.draw()
    r = fig.canvas.get_renderer()
    legends = list(fig.legends) + [ax.get_legend() for ax in fig.axes if ax.get_legend() is not None]
    assert legends, "no legend drawn"
    found = []
    for i, leg in enumerate(legends):
        box = leg.get_window_extent(r)
        inside = fig.bbox
        if box.x0 < inside.x0 - 1 or box.x1 > inside.x1 + 1 or box.y0 < inside.y0 - 1 or box.y1 > inside.y1 + 1:
            found.append(("outside the figure", str(box)))
        for ax in fig.axes:
            if _area(box, ax.get_window_extent(r)) > 0:
                found.append(("data area", ax.get_title(loc="left") or ax.get_title()))
            labels = [*ax.texts, *ax.get_yticklabels(), *ax.get_xticklabels(), ax.title, ax._left_title,
                      ax.xaxis.label, ax.yaxis.label]
            for t in labels:
                if t.get_visible() and t.get_text() and _area(box, t.get_window_extent(r)) > 0:
                    found.append(("text", t.get_text()))
        for t in fig.texts:
            if t.get_text() and _area(box, t.get_window_extent(r)) > 0:
                found.append(("figure text", t.get_text()))
        for other in legends[i + 1:]:
            if _area(box, other.get_window_extent(r)) > 0:
                found.append(("legend", "another legend"))
    return found


MODELS = ["popularity", "twotower_v1", "twotower_v2", "ranker_lgbm", "ranker_xgb"]
SEGMENTS = ["desktop", "mobile", "tablet", "smart_tv"]


@pytest.fixture(scope="module")
def data() -> pd.DataFrame:
    df = pre.datasets.make_impressions(n_users=1200, seed=8)
    rng = np.random.default_rng(8)
    df = df.rename(columns={"model_a": "popularity", "model_b": "twotower_v1"})
    for j, name in enumerate(MODELS[2:]):
        df[name] = df["twotower_v1"] * (0.6 + 0.2 * j) + rng.normal(0, 0.1, len(df))
    users = df["user_id"].to_numpy()
    df["segment"] = np.asarray(SEGMENTS)[users % 4]
    return df


@pytest.fixture(scope="module")
def comparison(data) -> pd.DataFrame:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pre.CoverageWarning)
        return pre.compare(data, group="user_id", label="click", scores=MODELS, baseline="popularity",
                           metrics=["auc", "gauc", "mrr"], by="segment", n_boot=50)


def test_forest_panels_5_models_4_segments(comparison) -> None:
    assert comparison.index.get_level_values("segment").nunique() == 4
    axes = plotting.plot_comparison(comparison)
    fig = axes[0].figure
    assert collisions(fig) == []
    (legend,) = fig.legends
    texts = [t.get_text() for t in legend.get_texts()]
    assert texts[:4] == MODELS[1:] and legend.get_title().get_text().startswith("Difference to the baseline")
    # segments head their rows in bold; each model has its own colour
    ticks = axes[0].get_yticklabels()
    bold = [t.get_text() for t in ticks if t.get_fontweight() == "bold"]
    assert bold == SEGMENTS or sorted(bold) == sorted(SEGMENTS)
    colours = {tuple(np.round(c.get_edgecolor()[0], 3)) for c in axes[0].collections if len(c.get_offsets())}
    assert len(colours) == 4


def test_forest_on_a_given_axes_5_models_4_segments(comparison) -> None:
    fig, ax = plt.subplots(figsize=(9, 12))
    plotting.plot_comparison(comparison, ax=ax)
    assert collisions(fig) == []
    legend = ax.get_legend()
    assert [t.get_text() for t in legend.get_texts()][:4] == MODELS[1:]
    p_labels = [t for t in ax.texts if t.get_text().startswith("p")]
    assert len(p_labels) == len(comparison)  # the legend covers none of them (checked above)


def test_group_auc_5_models(data) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pre.CoverageWarning)
        ax = plotting.plot_group_auc(data, group="user_id", label="click", score=MODELS)
    assert collisions(ax.figure) == []
    entries = [t.get_text() for t in ax.get_legend().get_texts()]
    assert len(entries) <= len(MODELS) + 5 + 2  # one per model, one per kind of mark, the strip's two bars
    assert all(any(e.startswith(f"{m} (GAUC ") for e in entries) for m in MODELS)
    assert not ax.collections  # no five piled-up clouds and bands unless asked for


def test_plots_side_by_side_in_one_figure(data, comparison) -> None:
    fig, (left, right) = plt.subplots(1, 2, figsize=(16, 7))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pre.CoverageWarning)
        plotting.plot_group_auc(data, group="user_id", label="click", score=MODELS, ax=left)
    plotting.plot_comparison(comparison.xs("gauc", level="metric", drop_level=False), ax=right)
    assert collisions(fig) == []
