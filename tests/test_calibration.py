"""The calibration metrics (logloss, ne, pcoc, ece@B) against independent oracles.

sklearn's ``log_loss`` and ``calibration_curve`` and hand-written references over plain Python
lists, with sample weights, single-class groups, one-row groups and shuffled rows; per segment
and per group; intervals and paired tests; the errors for bad scores and labels; the plot.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.calibration import calibration_curve
from sklearn.metrics import log_loss

import pandas_rankeval as pre

EPS = 1e-15


def make_frame(seed: int = 0, n_groups: int = 60) -> pd.DataFrame:
    """Groups of 1 to 9 rows (one-row and single-class groups among them), probabilities with
    ties and a few exact 0 and 1, weights, a segment constant per group; rows shuffled."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 10, n_groups)
    g = np.repeat(np.arange(n_groups), sizes)
    n = g.shape[0]
    p = np.round(rng.beta(2, 5, n), 2)
    y = (rng.random(n) < p).astype(np.int64)
    y[g % 7 == 0] = 0  # single-class groups (no click)
    y[g % 11 == 0] = 1  # single-class groups (clicks only)
    df = pd.DataFrame({
        "g": "u" + pd.Series(g).astype(str), "y": y, "p": p,
        "q": np.clip(p * 1.4, 0, 1),  # a miscalibrated model
        "w": rng.random(n) + 0.25, "seg": np.array(["a", "b", "c"])[g % 3],
    })
    return df.sample(frac=1.0, random_state=seed).reset_index(drop=True)


def _clip(p):
    return min(max(p, EPS), 1 - EPS)


def ref_logloss(y, p, w=None):
    w = [1.0] * len(y) if w is None else list(w)
    num = sum(wi * -(math.log(_clip(pi)) if yi else math.log(1 - _clip(pi))) for yi, pi, wi in zip(y, p, w))
    return num / sum(w)


def ref_ne(y, p, w=None):
    w = [1.0] * len(y) if w is None else list(w)
    b = sum(wi * yi for yi, wi in zip(y, w)) / sum(w)
    if b in (0.0, 1.0):
        return math.nan
    return ref_logloss(y, p, w) / -(b * math.log(b) + (1 - b) * math.log(1 - b))


def ref_pcoc(y, p, w=None):
    w = [1.0] * len(y) if w is None else list(w)
    clicks = sum(wi * yi for yi, wi in zip(y, w))
    return sum(wi * pi for pi, wi in zip(p, w)) / clicks if clicks else math.nan


def ref_ece(y, p, w=None, bins=10):
    w = [1.0] * len(y) if w is None else list(w)
    edges = np.linspace(0.0, 1.0, bins + 1).tolist()
    cells: dict[int, list[float]] = {}
    for yi, pi, wi in zip(y, p, w):
        b = next(k for k in range(bins) if pi <= edges[k + 1] or k == bins - 1)  # (k/B, (k+1)/B], 0 in the first
        c = cells.setdefault(b, [0.0, 0.0, 0.0])
        c[0] += wi
        c[1] += wi * pi
        c[2] += wi * yi
    return sum(abs(c[1] - c[2]) for c in cells.values()) / sum(w)


REFS = {"logloss": ref_logloss, "ne": ref_ne, "pcoc": ref_pcoc, "ece": ref_ece}
KW = {"group": "g", "label": "y", "score": "p"}


@pytest.mark.parametrize("weighted", [False, True])
def test_logloss_is_sklearns(weighted):
    df = make_frame()
    w = df["w"] if weighted else None
    got = pre.logloss(df, **KW, sample_weight="w" if weighted else None)
    # sklearn's log_loss clips at its dtype's eps; away from exact 0/1 the two agree
    inner = (df["p"] > 0) & (df["p"] < 1)
    sub = df[inner]
    got_inner = pre.logloss(sub, **KW, sample_weight="w" if weighted else None)
    assert got_inner == pytest.approx(log_loss(sub["y"], sub["p"], sample_weight=None if w is None else sub["w"]), abs=1e-13)
    assert got == pytest.approx(ref_logloss(df["y"], df["p"], w), abs=1e-13)
    assert got.coverage.n_groups == df["g"].nunique() and got.coverage.n_used == df["g"].nunique()


def test_exact_zero_and_one_are_clipped_not_infinite():
    df = pd.DataFrame({"g": [1, 1, 2, 2], "y": [1, 0, 1, 0], "p": [0.0, 1.0, 1.0, 0.0]})
    got = pre.logloss(df, **KW)
    assert got == pytest.approx(ref_logloss(df["y"], df["p"]), rel=1e-12)
    assert got == pytest.approx(-math.log(EPS) / 2, rel=1e-4)  # two wrong certainties of four rows: 34.5 each
    assert pre.logloss(df.assign(p=[1.0, 0.0, 1.0, 0.0]), **KW) == pytest.approx(-math.log1p(-EPS), abs=1e-18)


@pytest.mark.parametrize("name", ["ne", "pcoc", "ece"])
@pytest.mark.parametrize("weighted", [False, True])
def test_ne_pcoc_ece_against_hand_references(name, weighted):
    df = make_frame(seed=1)
    w = df["w"] if weighted else None
    got = getattr(pre, name)(df, **KW, sample_weight="w" if weighted else None)
    assert got == pytest.approx(REFS[name](df["y"], df["p"], w), abs=1e-13)
    shuffled = df.sample(frac=1.0, random_state=9)
    again = getattr(pre, name)(shuffled, **KW, sample_weight="w" if weighted else None)
    assert abs(float(again) - float(got)) <= 1e-15


def test_ne_is_logloss_over_the_base_rate_entropy_and_pcoc_is_a_ratio():
    df = make_frame(seed=2)
    b = df["y"].mean()
    assert pre.ne(df, **KW) == pytest.approx(log_loss(df["y"], np.clip(df["p"], EPS, 1 - EPS)) / log_loss(df["y"], np.full(len(df), b)), rel=1e-12)
    assert pre.pcoc(df, **KW) == pytest.approx(df["p"].sum() / df["y"].sum(), rel=1e-13)


@pytest.mark.parametrize("bins", [1, 5, 10, 13])
def test_ece_bins_are_calibration_curves(bins):
    df = make_frame(seed=3)
    prob_true, prob_pred = calibration_curve(df["y"], df["p"], n_bins=bins, strategy="uniform")
    edges = np.linspace(0, 1, bins + 1).tolist()  # sklearn's bins: (k/B, (k+1)/B], 0 in the first
    which = [next(k for k in range(bins) if p <= edges[k + 1] or k == bins - 1) for p in df["p"]]
    counts = np.bincount(which, minlength=bins)
    counts = counts[counts > 0]
    want = float(np.sum(counts / counts.sum() * np.abs(prob_pred - prob_true)))
    assert pre.ece(df, **KW, bins=bins) == pytest.approx(want, abs=1e-13)
    rep = pre.report(df, group="g", label="y", scores="p", metrics=[f"ece@{bins}"])
    assert rep.loc["p", f"ece@{bins}"] == pytest.approx(want, abs=1e-13)
    if bins == 1:  # one bin: |mean p - mean y|
        assert want == pytest.approx(abs(df["p"].mean() - df["y"].mean()), abs=1e-14)


def test_per_segment_pools_the_segments_rows():
    df = make_frame(seed=4)
    metrics = ["logloss", "ne", "pcoc", "ece@10"]
    rep = pre.report(df, group="g", label="y", scores=["p", "q"], metrics=metrics, by="seg", sample_weight="w")
    for (seg, model), row in rep.iterrows():
        part = df[df["seg"] == seg]
        for name in metrics:
            ref = REFS[name.split("@")[0]](part["y"], part[model], part["w"])
            assert row[name] == pytest.approx(ref, abs=1e-13), (seg, model, name)


def test_per_group_is_each_groups_own_value():
    df = make_frame(seed=5)
    table = pre.per_group(df, group="g", label="y", score="p", metrics=["logloss", "ne", "pcoc", "ece@4"],
                          sample_weight="w")
    assert len(table) == df["g"].nunique()
    for key, rows in df.groupby("g"):
        got = table.loc[key]
        assert got["logloss"] == pytest.approx(ref_logloss(rows["y"], rows["p"], rows["w"]), abs=1e-13)
        ne, pcoc = ref_ne(rows["y"], rows["p"], rows["w"]), ref_pcoc(rows["y"], rows["p"], rows["w"])
        assert (math.isnan(got["ne"]) and math.isnan(ne)) or got["ne"] == pytest.approx(ne, abs=1e-12)
        assert (math.isnan(got["pcoc"]) and math.isnan(pcoc)) or got["pcoc"] == pytest.approx(pcoc, abs=1e-12)
        assert got["ece@4"] == pytest.approx(ref_ece(rows["y"], rows["p"], rows["w"], bins=4), abs=1e-13)
    np.testing.assert_allclose(table["weight"], df.groupby("g")["w"].sum().reindex(table.index), rtol=1e-13)
    one_row = df.groupby("g").filter(lambda r: len(r) == 1)
    assert len(one_row) and table.loc[one_row["g"], "ne"].isna().all()  # one row: one class, no entropy


def test_intervals_and_paired_tests():
    df = make_frame(seed=6, n_groups=120)
    metrics = ["logloss", "ne", "pcoc", "ece"]
    rep = pre.report(df, group="g", label="y", scores=["p", "q"], metrics=metrics, ci=0.9, n_boot=200)
    for name in ["logloss", "ne", "pcoc"]:
        for model in ("p", "q"):
            assert rep.loc[model, f"{name}_low"] <= rep.loc[model, name] <= rep.loc[model, f"{name}_high"]
    # ECE has no interval (a sample's binned ECE is biased upward: benchmarks/sim_calibration.py),
    # and the footer says why
    assert rep[["ece@10_low", "ece@10_high"]].isna().all().all() and rep["ece@10"].notna().all()
    assert "ece@10: none (a sample's binned ECE is biased upward" in " ".join(rep.to_text().split())
    again = pre.report(df.sample(frac=1.0, random_state=3), group="g", label="y", scores=["p", "q"],
                       metrics=metrics, ci=0.9, n_boot=200)
    np.testing.assert_allclose(again.to_numpy(float), rep.to_numpy(float), atol=1e-13, rtol=0, equal_nan=True)
    cmp = pre.compare(df, group="g", label="y", scores=["p", "q"], metrics=metrics, baseline="p", n_boot=200)
    table = cmp.reset_index(level="model", drop=True)
    assert table.loc["pcoc", "value"] == pytest.approx(ref_pcoc(df["y"], df["q"]), abs=1e-13)
    assert table.loc["pcoc", "p_value"] < 1e-6  # 1.4 times the predicted clicks
    # NE = logloss / H(b) with H(b) the same for both models: one test, the same p-value
    assert table.loc["ne", "p_value"] == table.loc["logloss", "p_value"]
    assert cmp.attrs["direction"]["pcoc"] == "closer to 1" and cmp.attrs["direction"]["logloss"] == "lower"
    assert "bootstrap" in cmp.attrs["test"]["ece@10"] and "sign-flip" in cmp.attrs["test"]["logloss"]
    assert "▼ worse" in cmp.to_text()  # pcoc moved away from 1: worse, though it went up
    with pytest.raises(ValueError, match="ci_method='percentile'"):
        pre.report(df, group="g", label="y", scores="p", metrics=["ne"], ci=0.9, ci_method="studentized")


def test_bad_scores_and_labels_are_clear_errors():
    df = make_frame(seed=7)
    bad = df.assign(p=df["p"].where(df.index % 50 != 0, 1.7))
    n_bad = int((df.index % 50 == 0).sum())
    with pytest.raises(ValueError, match=rf"Column 'p' \(score\) has {n_bad} values outside \[0, 1\] \(range seen: [0-9.]+ to 1.7\)"):
        pre.logloss(bad, **KW)
    with pytest.raises(ValueError, match=r"Column 'p' \(score\) has 1 value outside \[0, 1\] \(range seen: -inf"):
        pre.report(df.assign(p=df["p"].where(df.index != 3, -np.inf)), group="g", label="y", scores="p",
                   metrics=["gauc", "pcoc"])
    pre.gauc(bad, **KW)  # ranking metrics keep any score
    with pytest.raises(ValueError, match=r"Column 'p' has 1 missing value"):
        pre.ece(df.assign(p=df["p"].where(df.index != 3)), **KW)
    graded = df.assign(y=df["y"] * 2)
    with pytest.raises(ValueError, match=r"Column 'y' \(label\) has \d+ labels other than 0 and 1 \(for example 2\).*threshold="):
        pre.ne(graded, **KW)
    assert pre.ne(graded, **KW, threshold=1) == pytest.approx(float(pre.ne(df, **KW)), abs=1e-15)
    assert pre.logloss(df.assign(y=df["y"].astype(bool)), **KW) == pre.logloss(df, **KW)
    with pytest.raises(ValueError, match=r"The 'bins' parameter of ece must be an int in the range \[1, 1000\]"):
        pre.ece(df, **KW, bins=0)
    with pytest.raises(ValueError, match="number of bins"):
        pre.report(df, group="g", label="y", scores="p", metrics=["ece@0"])


def test_the_accessor_and_the_training_hook_reach_them():
    from pandas_rankeval.integrations._training import TrainingMetric

    df = make_frame(seed=8)
    assert df.rank.logloss(**KW) == pre.logloss(df, **KW)
    hook = TrainingMetric(["logloss", "ece@5"], group=df["g"].to_numpy(), sample_weight=None, options={},
                          func="eval_metric", library="LightGBM")
    got = dict(hook.evaluate(df["p"].to_numpy(), df["y"].to_numpy()))
    assert got["rankeval_logloss"] == pytest.approx(float(pre.logloss(df, **KW)), abs=1e-13)
    assert got["rankeval_ece@5"] == pytest.approx(float(pre.ece(df, **KW, bins=5)), abs=1e-13)


def test_plot_calibration():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from pandas_rankeval import plotting
    from pandas_rankeval.plotting.calibration import calibration_table

    df = make_frame(seed=9)
    ax = plotting.plot_calibration(df, label="y", score=["p", "q"], bins=5, sample_weight="w")
    texts = [t.get_text() for t in ax.get_legend().get_texts()]
    ece = float(pre.ece(df, group="g", label="y", score="q", bins=5, sample_weight="w"))
    assert texts[1] == f"q (ECE@5 {ece:.4f})"
    table = calibration_table(df, label="y", score="p", bins=5)
    prob_true, prob_pred = calibration_curve(df["y"], df["p"], n_bins=5)
    np.testing.assert_allclose(table["rate"], prob_true, atol=1e-14)
    np.testing.assert_allclose(table["mean_p"], prob_pred, atol=1e-14)
    axes = plotting.plot_calibration(df, label="y", score="p", by="seg")
    assert len(axes) == 3 and [a.get_title(loc="left").split("\n")[0] for a in axes] == ["seg=a", "seg=b", "seg=c"]
    with pytest.raises(ValueError, match="outside"):
        plotting.plot_calibration(df.assign(p=df["p"] + 1), label="y", score="p")
    plt.close("all")


def test_undefined_values_are_nan_with_their_reason():
    df = pd.DataFrame({"g": [1, 1, 2], "y": [0, 0, 0], "p": [0.1, 0.2, 0.3]})
    with pytest.warns(pre.CoverageWarning, match="ne is NaN because every row is a click or none is"):
        assert math.isnan(pre.ne(df, **KW))
    with pytest.warns(pre.CoverageWarning, match="pcoc is NaN because the clicks weigh 0 in total, or there is none"):
        assert math.isnan(pre.pcoc(df, **KW))
    assert pre.logloss(df, **KW) == pytest.approx(ref_logloss(df["y"], df["p"]), abs=1e-15)
    clicked = df.assign(y=[1, 0, 0], w=[0.0, 1.0, 1.0])  # a click, of weight 0: nothing to divide by
    with pytest.warns(pre.CoverageWarning, match="pcoc is NaN because the clicks weigh 0 in total"):
        assert math.isnan(pre.pcoc(clicked, **KW, sample_weight="w"))
    zero = df.assign(w=0.0)
    with pytest.warns(pre.CoverageWarning, match="ece@10 is NaN because the rows weigh 0"):
        assert math.isnan(pre.ece(zero, **KW, sample_weight="w"))


def test_training_hooks_and_scorers_know_the_better_side():
    lgb = pytest.importorskip("lightgbm")
    from sklearn.linear_model import LogisticRegression

    from pandas_rankeval.lightgbm import eval_metric
    from pandas_rankeval.sklearn import make_scorer

    df = make_frame(seed=10)
    feval = eval_metric(["logloss", "pcoc"], group=df["g"].to_numpy())
    data = lgb.Dataset(np.zeros((len(df), 1)), df["y"].to_numpy(), params={"verbose": -1}).construct()
    (n1, v1, h1), (n2, _, h2) = feval(df["p"].to_numpy(), data)
    assert (n1, h1, n2, h2) == ("rankeval_logloss", False, "rankeval_pcoc", False)
    assert v1 == pytest.approx(float(pre.logloss(df, **KW)), abs=1e-13)
    X = df[["p"]].to_numpy()
    model = LogisticRegression().fit(X, df["y"])
    want = pre.logloss(df.assign(p=model.predict_proba(X)[:, 1]), **KW)
    scorer = make_scorer("logloss")  # a loss, negated as scikit-learn's "neg_log_loss"
    assert scorer(model, X, df["y"], groups=df["g"].to_numpy()) == pytest.approx(-float(want), abs=1e-12)
    with pytest.raises(ValueError, match="best at 1"):
        make_scorer("pcoc")
    assert scorer.response_method == ["predict_proba"]


def test_intervals_cover_and_paired_tests_hold_their_size():
    """The small version of benchmarks/sim_calibration.py: 80 data sets of 300 groups from one
    population (values from 400,000 groups), two equally calibrated models. The 95% intervals of
    logloss, ne and pcoc hold the population value in about 95% of the sets, their paired tests
    reject about 5%, and a percentile interval of ECE would miss it (why report gives none)."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    import sim_calibration as sim

    big = sim.population(np.random.default_rng(5), 400_000)
    true = pre.report(big, group="user_id", label="click", scores="model_a", metrics=sim.METRICS).loc["model_a"]
    df = sim.population(np.random.default_rng(6), 300, 80)
    kw = dict(group="user_id", label="click", metrics=sim.METRICS, by="set", n_boot=300, seed=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rep = pre.report(df, scores="model_a", ci=0.95, **kw)
        cmp = pre.compare(df, scores=["model_a", "model_b"], baseline="model_b", **kw)
    for m in ["logloss", "ne", "pcoc"]:
        cover = ((rep[f"{m}_low"] <= true[m]) & (true[m] <= rep[f"{m}_high"])).mean()
        size = (cmp.xs(m, level="metric")["p_value"] < 0.05).mean()
        assert 0.85 <= cover <= 1.0 and size <= 0.12, (m, cover, size)
    assert rep["ece@10_low"].isna().all()
    assert (rep["ece@10"] > true["ece@10"]).mean() > 0.8  # the upward bias that rules out an interval
