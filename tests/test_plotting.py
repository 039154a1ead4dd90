"""pandas_rankeval.plotting: drawn with the Agg backend, checked on the Axes' content."""

from __future__ import annotations

import sys
import warnings

import numpy as np
import pandas as pd
import pytest

import pandas_rankeval as pre

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.collections import PathCollection, PolyCollection  # noqa: E402

from pandas_rankeval import plotting  # noqa: E402


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


@pytest.fixture(scope="module")
def frame() -> pd.DataFrame:
    return pre.datasets.make_impressions(400, seed=3)


def quiet(func, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pre.CoverageWarning)
        return func(*args, **kwargs)


def scatters(ax) -> list[PathCollection]:
    return [c for c in ax.collections if isinstance(c, PathCollection)]


def bands(ax) -> list[PolyCollection]:
    return [c for c in ax.collections if isinstance(c, PolyCollection)]


def line(ax, label: str):
    found = [ln for ln in ax.lines if ln.get_label() == label]
    assert len(found) == 1, [ln.get_label() for ln in ax.lines]
    return found[0]


# --- plot_group_auc -------------------------------------------------------------------------


def test_group_auc_points_lines_and_labels(frame: pd.DataFrame) -> None:
    ax = quiet(plotting.plot_group_auc, frame, group="user_id", label="click", score="model_b")
    table = pre.per_group(frame, group="user_id", label="click", score="model_b")
    defined = table.dropna(subset=["auc"])

    (points,) = scatters(ax)
    offsets = np.asarray(points.get_offsets())
    assert offsets.shape == (len(defined), 2)  # one point per group with both classes
    np.testing.assert_array_equal(np.sort(offsets[:, 0]), np.sort(defined["n"].to_numpy(float)))
    np.testing.assert_allclose(np.sort(offsets[:, 1]), np.sort(defined["auc"].to_numpy()))

    gauc = quiet(pre.gauc, frame, group="user_id", label="click", score="model_b")
    gline = line(ax, f"model_b: GAUC (count) {gauc:.3f}")
    assert gline.get_ydata()[0] == pytest.approx(float(gauc), rel=1e-12)
    assert line(ax, "chance (0.5)").get_ydata()[0] == 0.5

    mean = line(ax, "model_b: mean by size")
    assert 1 <= len(mean.get_xdata()) <= 8  # at most one point per bin
    assert np.all(np.diff(mean.get_xdata()) > 0)
    assert len(bands(ax)) == 1

    assert ax.get_xscale() == "log"
    assert ax.get_xlabel() == "group size (rows)"
    assert ax.get_ylabel() == "per-group AUC"
    assert ax.get_title() == "Per-group AUC by group size"
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert f"groups ({len(defined):,}), area ∝ weight (count)" in legend
    # the legend sits outside the data (to the right of the axes)
    fig = ax.figure
    fig.canvas.draw()
    assert ax.get_legend().get_window_extent().x0 >= ax.get_window_extent().x1
    # point areas grow with the group's weight (rows), so big groups are visible
    sizes = points.get_sizes()
    order = np.argsort(offsets[:, 0])
    assert sizes[order[-1]] == pytest.approx(160) and sizes[order[0]] < 10
    # the few largest groups (sparse size bins) still get a mean marker
    assert any(ln.get_label() == "mean of bins with < 5 groups" for ln in ax.lines)


def test_group_auc_binned_mean_and_band_exact() -> None:
    # Four groups of 2 rows (AUC 1, 0, 1, 1) and two of 8 rows (AUC 0.5 by construction).
    rows = []
    for g, auc in enumerate([1.0, 0.0, 1.0, 1.0]):
        pos, neg = (0.9, 0.1) if auc == 1.0 else (0.1, 0.9)
        rows += [(g, 1, pos), (g, 0, neg)]
    for g in (10, 11):
        rows += [(g, y, 0.5) for y in (1, 0, 0, 0, 1, 0, 0, 0)]  # all tied: AUC 0.5
    df = pd.DataFrame(rows, columns=["g", "y", "s"])
    ax = plotting.plot_group_auc(df, group="g", label="y", score="s", bins=2, min_per_bin=2, quantiles=(0.0, 1.0))
    mean = line(ax, "s: mean by size")
    np.testing.assert_allclose(mean.get_xdata(), [2.0, 8.0])
    np.testing.assert_allclose(mean.get_ydata(), [0.75, 0.5])
    (band,) = bands(ax)
    ys = band.get_paths()[0].vertices[:, 1]
    assert ys.min() == pytest.approx(0.0) and ys.max() == pytest.approx(1.0)
    # GAUC weighted by count: (2 * 3 + 8 * 0.5 * 2) / (2 * 4 + 8 * 2) = 14 / 24
    assert line(ax, f"s: GAUC (count) {14 / 24:.3f}").get_ydata()[0] == pytest.approx(14 / 24)


def test_group_auc_min_per_bin_drops_sparse_bins() -> None:
    df = pd.DataFrame({"g": [1, 1, 2, 2, 2], "y": [1, 0, 1, 0, 0], "s": [0.9, 0.1, 0.3, 0.2, 0.1]})
    ax = plotting.plot_group_auc(df, group="g", label="y", score="s", min_per_bin=5)
    assert len(scatters(ax)) == 1 and len(scatters(ax)[0].get_offsets()) == 2
    assert [ln.get_label() for ln in ax.lines if "mean by size" in ln.get_label()] == []
    assert len(bands(ax)) == 0


def test_group_auc_several_scores_on_given_axes(frame: pd.DataFrame) -> None:
    fig, ax = plt.subplots()
    default = quiet(plotting.plot_group_auc, frame, group="user_id", label="click", score=["model_a", "model_b"])
    assert scatters(default) == [] and bands(default) == []  # several models: means and GAUC lines only
    entries = [t.get_text() for t in default.get_legend().get_texts()]
    assert entries[0].startswith("model_a (GAUC ") and entries[1].startswith("model_b (GAUC ")
    out = quiet(
        plotting.plot_group_auc, frame, group="user_id", label="click", score=["model_a", "model_b"],
        ax=ax, weight="uniform", logx=False, title="two models", s=3, points=True, bands=True,
    )
    assert out is ax
    assert len(scatters(ax)) == 2
    assert [c.get_sizes()[0] for c in scatters(ax)] == [3, 3]  # scatter keywords pass through
    assert len(bands(ax)) == 2
    for score in ("model_a", "model_b"):
        g = quiet(pre.gauc, frame, group="user_id", label="click", score=score, weight="uniform")
        assert line(ax, f"{score}: GAUC (uniform) {g:.3f}").get_ydata()[0] == pytest.approx(float(g))
    # model_b ranks better within users: its GAUC line is higher
    ya = next(ln for ln in ax.lines if ln.get_label().startswith("model_a: GAUC")).get_ydata()[0]
    yb = next(ln for ln in ax.lines if ln.get_label().startswith("model_b: GAUC")).get_ydata()[0]
    assert yb > ya
    assert ax.get_xscale() == "linear"
    assert ax.get_title() == "two models"


def test_group_auc_without_points_or_band(frame: pd.DataFrame) -> None:
    ax = quiet(plotting.plot_group_auc, frame, group="user_id", label="click", score="model_a", points=False, quantiles=None)
    assert len(ax.collections) == 0
    assert any(ln.get_label() == "model_a: mean by size" for ln in ax.lines)


def _strip(ax):
    (strip,) = [a for a in ax.child_axes if a.get_label() == "shares"]
    return strip


def _bars(strip, label: str) -> list[tuple[float, float, float]]:
    """(left, right, height) of the strip's bars of one container, left to right."""
    (bars,) = [c for c in strip.containers if c.get_label() == label]
    return [(r.get_x(), r.get_x() + r.get_width(), r.get_height()) for r in bars]


def test_group_auc_small_sizes_each_get_a_bin_and_the_strip_gives_their_shares() -> None:
    # on users of 1-30 rows the 2-row groups (a band from 0 to 1, points piled on
    # 0, 0.5 and 1) filled the left of the figure with nothing saying how many they are or how
    # little of GAUC they make. Each small size is now its own bin, at its size, and a strip under
    # the AUC gives each bin's share of the groups and of the GAUC weight, with its count.
    df = pre.datasets.make_impressions()
    sizes = df.groupby("user_id").size()
    small = df[df.user_id.isin(sizes[sizes <= 30].index)]
    ax = plotting.plot_group_auc(small, group="user_id", label="click", score="model_b")

    # the oracle, from the raw rows: a user has an AUC when he has a click and a non-click;
    # GAUC's count weight is his rows; the bins are 2 | 3 | 4-5 | 6-7 | 8-10 | 11-15 | 16-21 | 22-30
    # (8 log-spaced bins from 2 to 30 rows, on whole sizes)
    users = small.groupby("user_id")["click"].agg(["size", "sum"])
    users = users[(users["sum"] > 0) & (users["sum"] < users["size"])]
    assert users["size"].min() == 2 and users["size"].max() == 30
    bounds = [(2, 2), (3, 3), (4, 5), (6, 7), (8, 10), (11, 15), (16, 21), (22, 30)]
    want_groups = [int(users["size"].between(a, b).sum()) for a, b in bounds]
    want_weight = [users.loc[users["size"].between(a, b), "size"].sum() / users["size"].sum() for a, b in bounds]
    assert want_groups[0] == max(want_groups)  # the 2-row bin: the most groups ...
    assert want_weight[0] < 0.5 * want_groups[0] / len(users)  # ... and less than half that share of the weight

    strip = _strip(ax)
    groups = _bars(strip, "share of groups")
    weight = _bars(strip, "share of GAUC weight")
    assert [(round(lo + 0.5), round(hi - 0.5)) for lo, hi, _ in groups] == bounds  # each bar spans its sizes
    np.testing.assert_allclose([h for *_, h in groups], np.array(want_groups) / len(users), rtol=1e-12)
    np.testing.assert_allclose([h for *_, h in weight], want_weight, rtol=1e-12)
    for (glo, ghi, _), (wlo, whi, _) in zip(groups, weight):
        assert glo < wlo < whi < ghi  # the weight's bar inside its bin's
    assert [t.get_text() for t in strip.texts] == [f"{g:,}" for g in want_groups]
    # the single sizes' means sit at their size, with the mean of their groups' AUC
    mean = line(ax, "model_b: mean by size")
    np.testing.assert_allclose(mean.get_xdata()[:2], [2.0, 3.0])
    auc = pre.per_group(small, group="user_id", label="click", score="model_b", metrics=["auc"])
    np.testing.assert_allclose(mean.get_ydata()[:2], [auc.loc[auc["n"] == k, "auc"].mean() for k in (2, 3)], rtol=1e-12)
    # the strip is under the AUC: the lowest point (AUC 0) is above it, the AUC's ticks are 0..1 only
    ax.figure.canvas.draw()
    to_axes = ax.transData + ax.transAxes.inverted()
    strip_top = ax.transAxes.inverted().transform(strip.get_window_extent().get_points())[1, 1]
    assert to_axes.transform((2.0, 0.0))[1] > strip_top
    assert min(ax.get_yticks()) == pytest.approx(0.0) and max(ax.get_yticks()) == pytest.approx(1.0)
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "below: share of GAUC weight (count)" in legend


def test_group_auc_strip_off_and_uniform_weight() -> None:
    df = pre.datasets.make_impressions(n_users=300, seed=2)
    ax = quiet(plotting.plot_group_auc, df, group="user_id", label="click", score="model_a", shares=False)
    assert ax.child_axes == []
    ax = quiet(plotting.plot_group_auc, df, group="user_id", label="click", score="model_a", weight="uniform")
    strip = _strip(ax)
    assert [c.get_label() for c in strip.containers] == ["share of groups"]  # the weight's bars would repeat it
    assert sum(h for *_, h in _bars(strip, "share of groups")) == pytest.approx(1.0, rel=1e-12)


def test_group_auc_size_ticks_do_not_touch() -> None:
    # 2 to 3,000 rows: the ticks were 1, 2, 3, 5 times each power of ten, and "2,000" ran into "3,000"
    ax = plotting.plot_group_auc(pre.datasets.make_impressions(), group="user_id", label="click", score="model_b")
    fig = ax.figure
    fig.canvas.draw()
    lo, hi = ax.get_xlim()
    boxes = sorted((t.get_window_extent() for t in ax.get_xticklabels() if t.get_text() and lo <= t.get_position()[0] <= hi),
                   key=lambda b: b.x0)
    assert len(boxes) >= 4
    assert all(a.x1 + 2 < b.x0 for a, b in zip(boxes, boxes[1:])), [(b.x0, b.x1) for b in boxes]


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"bins": 0}, "'bins' parameter of plot_group_auc"),
        ({"quantiles": (0.9, 0.1)}, "'quantiles' parameter of plot_group_auc"),
    ],
)
def test_group_auc_bad_parameters(frame: pd.DataFrame, kwargs, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        plotting.plot_group_auc(frame, group="user_id", label="click", score="model_a", **kwargs)


def test_group_auc_library_errors_pass_through(frame: pd.DataFrame) -> None:
    with pytest.raises(KeyError, match="Did you mean 'user_id'"):
        plotting.plot_group_auc(frame, group="uid", label="click", score="model_a")


# --- plot_comparison ------------------------------------------------------------------------


def comparison_table() -> pd.DataFrame:
    index = pd.MultiIndex.from_tuples(
        [("model_b", "auc"), ("model_b", "gauc"), ("model_c", "gauc"), ("model_c", "ndcg@10")],
        names=["model", "metric"],
    )
    return pd.DataFrame(
        {
            "baseline_value": [0.82, 0.53, 0.53, 0.19],
            "value": [0.70, 0.69, 0.54, 0.20],
            "diff": [-0.12, 0.16, 0.01, 0.01],
            "ci_low": [-0.14, 0.12, -0.02, np.nan],
            "ci_high": [-0.10, 0.19, 0.04, np.nan],
            "p_value": [0.0, 0.0, 0.4, np.nan],
            "p_holm": [0.0, 0.0, 0.8, np.nan],
            "significant": [True, True, False, False],
        },
        index=index,
    )


def test_comparison_rows_bars_and_zero_line() -> None:
    table = comparison_table()
    fig, ax = plt.subplots()
    assert plotting.plot_comparison(table, ax, relative=False, intervals="table") is ax
    labels = [t.get_text() for t in ax.get_yticklabels()]
    ticks = list(ax.get_yticks())
    # first row of the table at the top
    by_y = [label for _, label in sorted(zip(ticks, labels), reverse=True)]
    assert by_y == ["model_b: auc", "model_b: gauc", "model_c: gauc", "model_c: ndcg@10"]

    segments = [seg for bars in ax.containers for seg in bars.lines[2][0].get_segments()]
    assert len(segments) == 3  # the row without a CI has no bar
    spans = sorted((float(s[0][0]), float(s[1][0])) for s in segments)
    np.testing.assert_allclose(spans, sorted([(-0.14, -0.10), (0.12, 0.19), (-0.02, 0.04)]), atol=1e-12)

    # one point per row, in its model's colour; filled when significant, hollow otherwise
    points = scatters(ax)
    assert len(points) == 4
    xs = [float(np.asarray(c.get_offsets())[0, 0]) for c in points]
    filled = [x for x, c in zip(xs, points) if c.get_facecolor()[0][:3].tolist() != [1.0, 1.0, 1.0]]
    np.testing.assert_allclose(sorted(filled), [-0.12, 0.16])
    assert len({tuple(np.round(c.get_edgecolor()[0], 3)) for c in points}) == 2  # model_b, model_c
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend == ["model_b", "model_c", "significant (Holm)", "not significant"]

    zero = [ln for ln in ax.lines if list(ln.get_xdata()) == [0, 0]]
    assert len(zero) == 1
    assert ax.get_xlabel().split("\n")[0] == "difference to the baseline"
    texts = sorted(t.get_text() for t in ax.texts)
    # the p-value that decides significance, by the tables' rule; none for the NaN row
    assert texts == ["p < 1e-6", "p < 1e-6", "p=0.800"]


def test_comparison_one_panel_per_metric() -> None:
    table = comparison_table()
    axes = plotting.plot_comparison(table)
    assert [a.get_title(loc="left") for a in axes] == ["auc", "gauc", "ndcg@10"]
    gauc = axes[1]
    assert [t.get_text() for t in gauc.get_yticklabels()] == ["model_b", "model_c"]  # first row at the top (y=1)
    # each metric on its own x scale: the small ndcg difference is not squeezed next to gauc's
    lo, hi = axes[2].get_xlim()
    assert hi - lo < 0.2
    # one colour per model, filled when significant
    colours = {tuple(np.round(c.get_edgecolor()[0], 3)) for c in scatters(gauc)}
    assert len(colours) == 2
    fills = [c.get_facecolor()[0][:3].tolist() for c in scatters(gauc)]
    assert fills[1] == [1.0, 1.0, 1.0]  # model_c's gauc row is not significant: hollow
    legend = axes[0].figure.legends[0]
    assert [t.get_text() for t in legend.get_texts()] == ["model_b", "model_c", "significant (Holm)", "not significant"]


def test_comparison_relative_on_one_axis() -> None:
    table = comparison_table()
    fig, ax = plt.subplots()
    plotting.plot_comparison(table, ax)  # a given Axes: relative differences by default
    xs = sorted(float(x) for c in scatters(ax) for x in np.asarray(c.get_offsets())[:, 0])
    want = sorted(100 * table["diff"] / table["baseline_value"])
    np.testing.assert_allclose(xs, want, rtol=1e-12)
    assert ax.get_xlabel().split("\n")[0] == "difference to the baseline (% of the baseline's value)"


def test_comparison_on_given_axes_without_annotations() -> None:
    fig, ax = plt.subplots()
    table = comparison_table().drop(columns=["significant", "p_value", "p_holm"]).xs("model_b", level="model",
                                                                                      drop_level=False)
    out = plotting.plot_comparison(table, ax, annotate=True, title="t", relative=False)
    assert out is ax
    assert len(ax.texts) == 0
    (points,) = scatters(ax)  # one model: one colour, hollow points (no test in the table)
    assert len(points.get_offsets()) == 2 and points.get_label() == "difference"
    assert ax.get_title() == "t"


def test_comparison_single_index() -> None:
    table = comparison_table().reset_index(level="model", drop=True).iloc[:2]
    ax = plotting.plot_comparison(table, annotate=False)
    assert sorted(t.get_text() for t in ax.get_yticklabels()) == ["auc", "gauc"]


def test_comparison_bad_input() -> None:
    with pytest.raises(TypeError, match="expects the DataFrame returned by pandas_rankeval.compare"):
        plotting.plot_comparison([1, 2, 3])
    with pytest.raises(ValueError, match=r"\['ci_low', 'ci_high'\] are missing"):
        plotting.plot_comparison(pd.DataFrame({"diff": [0.1]}))
    with pytest.raises(ValueError, match="empty table"):
        plotting.plot_comparison(comparison_table().iloc[:0])


@pytest.mark.skipif(not hasattr(pre, "compare"), reason="pandas_rankeval.compare not available yet")
def test_comparison_of_real_compare(frame: pd.DataFrame) -> None:
    table = quiet(
        pre.compare, frame, group="user_id", label="click", scores=["model_a", "model_b"],
        baseline="model_a", metrics=["auc", "gauc", "ndcg@10"], n_boot=200, seed=0,
    )
    axes = plotting.plot_comparison(table)
    assert len(axes) == 3 and sum(len(a.get_yticks()) for a in axes) == len(table)
    assert sum(len(c.get_offsets()) for a in axes for c in scatters(a)) == len(table)
    assert [t.get_text() for t in axes[1].get_yticklabels()] == ["model_b"]
    fig = axes[0].figure
    assert fig.legends[0].get_title().get_text() == "Difference to the baseline (model_a)"
    assert axes[-1].get_xlabel().split("\n")[0] == "difference to the baseline (model_a)"
    holm = [t.get_text() for a in axes for t in a.texts]
    assert all(t.startswith("p") for t in holm) and len(holm) == len(table)
    assert "significant (Holm)" in [t.get_text() for t in fig.legends[0].get_texts()]
    # model_b: lower global AUC, higher GAUC; the GAUC interval excludes 0
    diffs = dict(zip(table.index.get_level_values("metric"), table["diff"]))
    assert diffs["auc"] < 0 < diffs["gauc"]
    assert table.loc[("model_b", "gauc"), "ci_low"] > 0


def test_comparison_of_all_pairs_names_each_pair(frame: pd.DataFrame) -> None:
    """An all-pairs compare has a row per pair, labelled by the pair
    (two rows of model_c are model_c - model_a and model_c - model_b), each pair in its colour."""
    df = frame.assign(model_c=frame["model_a"] * 0.5 + frame["model_b"])
    table = quiet(
        pre.compare, df, group="user_id", label="click", scores=["model_a", "model_b", "model_c"],
        baseline=None, metrics=["gauc", "mrr"], n_boot=200, seed=0,
    )
    axes = plotting.plot_comparison(table)
    labels = [t.get_text() for t in axes[0].get_yticklabels()]
    assert labels == ["model_b - model_a", "model_c - model_a", "model_c - model_b"]
    colours = {tuple(np.round(c.get_facecolor()[0][:3], 3)) for c in scatters(axes[0]) if len(c.get_offsets())}
    edge = {tuple(np.round(c.get_edgecolor()[0][:3], 3)) for c in scatters(axes[0]) if len(c.get_offsets())}
    assert len(colours | edge) >= 3
    fig = axes[0].figure
    assert fig.legends[0].get_title().get_text() == "Pairwise differences (first model - second)"
    assert "model_c - model_b" in [t.get_text() for t in fig.legends[0].get_texts()]
    assert axes[-1].get_xlabel().split("\n")[0] == "difference (first model - second)"
    assert [a.get_title(loc="left") for a in axes] == ["gauc", "mrr"]
    _, ax = plt.subplots()
    plotting.plot_comparison(table, ax=ax)
    assert "model_c - model_b: mrr" in [t.get_text() for t in ax.get_yticklabels()]


def test_comparison_panels_say_which_way_is_better(frame: pd.DataFrame) -> None:
    """A panel of a metric where lower (logloss) or closer to 1 (pcoc) is better says so in its
    title: a positive difference of logloss is a worse model (seen in the audit's screenshot)."""
    df = frame.assign(p_a=frame["model_a"].rank(pct=True) * 0.5, p_b=frame["model_b"].rank(pct=True) * 0.5)
    table = quiet(pre.compare, df, group="user_id", label="click", scores=["p_a", "p_b"], baseline="p_a",
                  metrics=["gauc", "logloss", "pcoc"], n_boot=50, seed=0)
    axes = plotting.plot_comparison(table)
    assert [a.get_title(loc="left") for a in axes] == ["gauc", "logloss (lower is better)", "pcoc (closer to 1 is better)"]


# --- matplotlib is optional -----------------------------------------------------------------


def test_clear_error_without_matplotlib(frame: pd.DataFrame, monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(ImportError, match=r"needs matplotlib.*pandas_rankeval\[plot\]"):
        quiet(plotting.plot_group_auc, frame, group="user_id", label="click", score="model_a")
    with pytest.raises(ImportError, match="needs matplotlib"):
        plotting.plot_comparison(comparison_table())


def test_module_imports_without_matplotlib() -> None:
    import subprocess

    code = (
        "import sys; sys.modules['matplotlib'] = None\n"
        "import pandas_rankeval.plotting as p\n"
        "assert callable(p.plot_group_auc) and callable(p.plot_comparison)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
