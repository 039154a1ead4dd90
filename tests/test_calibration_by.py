"""calibration_by: per-value calibration metrics against sklearn and hand sums, intervals equal
to report's on the same hashed draws, and the field-level RCE (Pan et al. 2020) recomputed per
replicate by hand."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import log_loss

import pandas_rankeval as pre
from pandas_rankeval.inference import hashing as H


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


@pytest.fixture(scope="module")
def imp() -> pd.DataFrame:
    df = pre.datasets.make_impressions(n_users=300, seed=4)
    rng = np.random.default_rng(0)
    return df.assign(
        p=1.0 / (1.0 + np.exp(-(3.0 * df["model_a"] - 2.0))),
        slot=np.minimum(df["position"], 4),  # varies within a user
        w=rng.random(len(df)) * 2,
    )


def _entropy(b):
    return -(b * np.log(b) + (1 - b) * np.log(1 - b))


@pytest.mark.parametrize("weighted", [False, True])
def test_point_values_per_value_are_the_pooled_definitions(imp, weighted):
    sw = "w" if weighted else None
    t = pre.calibration_by(imp, field="slot", label="click", score="p", group="user_id", sample_weight=sw, ci=None)
    for z, sub in imp.groupby("slot"):
        w = sub["w"].to_numpy() if weighted else np.ones(len(sub))
        y, p = sub["click"].to_numpy(), sub["p"].to_numpy()
        row = t.loc[z]
        assert row["rows"] == len(sub)
        assert row["pcoc"] == pytest.approx((w * p).sum() / (w * y).sum(), rel=1e-12)
        ll = log_loss(y, p, sample_weight=w, labels=[0, 1])
        assert row["logloss"] == pytest.approx(ll, rel=1e-12)
        assert row["ne"] == pytest.approx(ll / _entropy((w * y).sum() / w.sum()), rel=1e-12)
        assert row["rce"] == pytest.approx(abs((w * y).sum() - (w * p).sum()) / (w * y).sum(), rel=1e-12)
        assert row["ece@10"] == pytest.approx(
            float(pre.ece(sub, group="user_id", label="click", score="p", sample_weight=sw)), rel=1e-12)
    allrow = t.loc["(all)"]
    assert allrow["pcoc"] == pytest.approx(float(pre.pcoc(imp, group="user_id", label="click", score="p",
                                                          sample_weight=sw)), rel=1e-12)


def test_field_rce_is_the_weighted_mean_relative_error_over_values_with_a_click():
    df = pd.DataFrame({
        "u": [1, 1, 2, 2, 3, 3, 4, 4],
        "f": ["a", "b", "a", "b", "a", "c", "c", "a"],
        "y": [1, 0, 0, 1, 1, 0, 0, 0],
        "p": [0.5, 0.2, 0.4, 0.3, 0.6, 0.1, 0.2, 0.3],
    })
    t = pre.calibration_by(df, field="f", label="y", score="p", group="u", ci=None)
    # a: 4 rows, 2 clicks, 1.8 predicted -> 0.1; b: 2 rows, 1 click, 0.5 predicted -> 0.5; c: no click
    assert t.field_rce == pytest.approx((4 * 0.1 + 2 * 0.5) / 6, abs=1e-12)
    assert np.isnan(t.loc["c", "pcoc"]) and np.isnan(t.loc["c", "rce"])
    footer = " ".join(t.to_text(footer="full").split())
    assert "1 value without a click (25.0% of rows) has no PCOC or RCE: left out of the field-level RCE" in footer
    assert f"field-level RCE over f: {t.field_rce:.4f}" in footer


def test_intervals_equal_reports_on_the_same_draws(imp):
    """device is constant within a user: report(by="device") resamples the same users with the same
    hashed weights, so each value's interval is report's; the (all) row is report's without by."""
    t = pre.calibration_by(imp, field="device", label="click", score="p", group="user_id", n_boot=200, seed=3, ci=0.9)
    rep = pre.report(imp, group="user_id", label="click", scores="p", by="device", metrics=["pcoc", "logloss", "ne"],
                     ci=0.9, n_boot=200, seed=3)
    whole = pre.report(imp, group="user_id", label="click", scores="p", metrics=["pcoc", "logloss", "ne"],
                       ci=0.9, n_boot=200, seed=3)
    for m in ("pcoc", "logloss", "ne"):
        for z in imp["device"].unique():
            for end in ("low", "high"):
                assert t.loc[z, f"{m}_{end}"] == pytest.approx(rep.loc[(z, "p"), f"{m}_{end}"], abs=1e-12)
        assert t.loc["(all)", f"{m}_low"] == pytest.approx(whole.loc["p", f"{m}_low"], abs=1e-12)


def test_field_rce_interval_from_hand_replicates(imp):
    """slot varies within a user: every replicate weighs each user's rows by its hashed Poisson
    count; field_rce per replicate by pandas groupby, then the percentile interval."""
    n_boot, seed = 120, 2
    t = pre.calibration_by(imp, field="slot", label="click", score="p", group="user_id", n_boot=n_boot, seed=seed)
    keys = pd.Series(np.sort(imp["user_id"].unique()))
    counts = H.poisson_weights(H.key_hash(keys), seed, n_boot)
    c = counts[imp["user_id"].map({k: i for i, k in enumerate(keys)}).to_numpy()]
    vals = []
    for b in range(n_boot):
        g = imp.assign(cw=c[:, b], cy=c[:, b] * imp["click"], cp=c[:, b] * imp["p"]).groupby("slot")[["cw", "cy", "cp"]].sum()
        g = g[g["cy"] > 0]
        vals.append((g["cw"] * (g["cy"] - g["cp"]).abs() / g["cy"]).sum() / g["cw"].sum())
    lo, hi = np.quantile(vals, [0.025, 0.975])
    assert t.field_rce_interval == pytest.approx((lo, hi), abs=1e-12)


def test_two_field_columns_and_omitted_rows(imp):
    df = imp.copy()
    df.loc[df.index[:5], "p"] = np.nan
    with pytest.raises(ValueError, match=r"Column 'p' has 5 missing values.*nan_policy='omit'"):
        pre.calibration_by(df, field=["device", "slot"], label="click", score="p", group="user_id", ci=None)
    t = pre.calibration_by(df, field=["device", "slot"], label="click", score="p", group="user_id", ci=None,
                           nan_policy="omit")
    assert t.index.names == ["device", "slot"] and t.loc[("(all)", "(all)"), "rows"] == len(df) - 5
    assert "5 rows with missing values dropped" in t.to_text()


def test_bad_input_is_refused_by_name(imp):
    with pytest.raises(ValueError, match=r"Column 'model_a' \(score\) has .* outside \[0, 1\]"):
        pre.calibration_by(imp.assign(model_a=imp["model_a"] + 2), field="slot", label="click", score="model_a",
                           group="user_id", ci=None)
    with pytest.raises(ValueError, match=r"Column 'relevance' \(label\) has .* other than 0 and 1"):
        pre.calibration_by(imp, field="slot", label="relevance", score="p", group="user_id", ci=None)
    with pytest.raises(ValueError, match="resample groups"):
        pre.calibration_by(imp, field="slot", label="click", score="p")
    with pytest.raises(pre.ColumnNotFoundError, match="Did you mean 'slot'"):
        pre.calibration_by(imp, field="Slot", label="click", score="p", ci=None)
    before = imp.copy()
    pre.calibration_by(imp, field="slot", label="click", score="p", group="user_id", n_boot=20)
    pd.testing.assert_frame_equal(imp, before)


def test_polars_frame_gives_the_same_table(imp):
    pl = pytest.importorskip("polars")
    cols = ["user_id", "slot", "click", "p"]
    a = pre.calibration_by(imp[cols], field="slot", label="click", score="p", group="user_id", n_boot=30)
    b = pre.calibration_by(pl.from_pandas(imp[cols]), field="slot", label="click", score="p", group="user_id", n_boot=30)
    pd.testing.assert_frame_equal(pd.DataFrame(a), pd.DataFrame(b))
    assert a.field_rce_interval == b.field_rce_interval


def test_plot_draws_pcoc_per_value(imp):
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    t = pre.calibration_by(imp, field="slot", label="click", score="p", group="user_id", n_boot=50)
    ax = t.plot()
    labels = [x.get_text() for x in ax.get_yticklabels()]
    assert labels[-1] == "(all)" and sorted(labels[:-1]) == ["1", "2", "3", "4"]
    assert "field-level RCE" in ax.get_title()
    import matplotlib.pyplot as plt

    plt.close(ax.figure)


@pytest.mark.parametrize("scale", [0.8, 5.0])
def test_plot_pcoc_axis_reads_plain_numbers(imp, scale):
    # PCOC between 0.7 and 0.83 was labelled 7x10^-1, 8x10^-1, 9x10^-1, 10^0
    pytest.importorskip("matplotlib")
    import re

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    frame = imp.assign(q=np.clip(imp["p"] * scale, 1e-6, 1 - 1e-6), tenth=np.minimum(imp["position"], 3))
    if scale > 1:  # PCOC from under 1 to about 5: more than a decade with the interval
        frame.loc[frame["tenth"] == 1, "q"] = frame.loc[frame["tenth"] == 1, "p"] * 0.3
    t = pre.calibration_by(frame, field="tenth", label="click", score="q", group="user_id", n_boot=50)
    ax = t.plot()
    ax.figure.canvas.draw()
    lo, hi = ax.get_xlim()
    shown = [(x.get_position()[0], x.get_text()) for x in ax.get_xticklabels() if lo <= x.get_position()[0] <= hi]
    assert len(shown) >= 3, shown
    for pos, text in shown:
        assert re.fullmatch(r"\d[\d,]*(\.\d+)?", text), shown  # no 10^0, no x10^-1 (mathtext)
        assert float(text.replace(",", "")) == pytest.approx(pos, rel=1e-6)
    assert not [x.get_text() for x in ax.xaxis.get_minorticklabels() if x.get_text()]
    plt.close(ax.figure)


def test_predicted_clicks_print_as_amounts(imp):
    # a sum of 9,348 probabilities printed as a metric, "9348.4162"
    big = pd.concat([imp.assign(user_id=imp["user_id"] + k * 10_000) for k in range(3)], ignore_index=True)
    t = pre.calibration_by(big, field="slot", label="click", score="p", group="user_id", ci=None)
    text = t.to_text()
    for v in pd.DataFrame(t)["predicted"]:
        assert f"{v:,.1f}" in text
    assert max(pd.DataFrame(t)["predicted"]) > 1000 and f"{max(pd.DataFrame(t)['predicted']):.4f}" not in text
    w = pre.calibration_by(imp.assign(w=imp["w"] + 0.01), field="slot", label="click", score="p", group="user_id",
                           sample_weight="w", ci=None)
    for v in pd.DataFrame(w)["clicks"]:  # weighted clicks: an amount too
        assert f"{v:,.1f}" in w.to_text()


def test_estimates_print_with_their_interval_in_one_cell(imp):
    # pcoc, pcoc_low, pcoc_high, logloss, logloss_low ... as 14 columns ran past
    # a 1,280 px notebook; each estimate now carries its interval in its cell, as a report's do
    t = pre.calibration_by(imp, field="slot", label="click", score="p", group="user_id", n_boot=50)
    frame = pd.DataFrame(t)
    assert {"pcoc_low", "pcoc_high", "logloss_low", "ne_high"} <= set(frame.columns)  # the table keeps them
    text = t.to_text(width=0, footer="none")
    header = text.splitlines()[0].split()
    assert "pcoc_low" not in header and "logloss_high" not in header and "pcoc" in header
    for m in ("pcoc", "logloss", "ne"):
        for v, lo, hi in zip(frame[m], frame[f"{m}_low"], frame[f"{m}_high"]):
            assert f"{v:.4f} [{lo:.4f}, {hi:.4f}]" in text
    html = t._repr_html_()
    assert "pcoc_low" not in html and f"[{frame['pcoc_low'].iloc[0]:.4f}, " in html


def test_progress_draws_the_bootstrap_bar_and_changes_no_number(imp, capsys):
    pytest.importorskip("tqdm")
    kw = dict(field="slot", label="click", score="p", group="user_id", n_boot=300)
    plain = pre.calibration_by(imp, **kw)
    shown = pre.calibration_by(imp, progress=True, **kw)
    pd.testing.assert_frame_equal(pd.DataFrame(shown), pd.DataFrame(plain))
    err = capsys.readouterr().err
    assert "bootstrap" in err and "300/300" in err
