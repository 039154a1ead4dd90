"""What a newcomer meets first, in a notebook, at the command line, with polars and in training logs: a
misspelled keyword names the parameter meant, describe() shows as text and HTML, a missing value is
named in the engine's word, one progress bar, footers that give flags, the training hooks' metric
names, the forest plot's bars and marks, figures fit for a review, the segments a model hurts.
"""

from __future__ import annotations

import inspect

import pytest

import pandas_rankeval as pre


@pytest.fixture(scope="module")
def imps():
    return pre.datasets.make_impressions(n_users=60, seed=1)


# -- a misspelled keyword names the parameter that was meant ----------------------------------
@pytest.mark.parametrize("func, wrong, meant", [
    ("report", "score", "scores"), ("compare", "score", "scores"), ("per_group", "metric", "metrics"),
    ("gauc", "scores", "score"), ("ndcg", "scores", "score"), ("precision", "scores", "score"),
    ("gauc", "tiebrak", "tiebreak"), ("report", "metric", "metrics"),
    # the names other libraries use for the same idea
    ("calibration_by", "by", "field"), ("report", "segment", "by"), ("compare", "random_state", "seed"),
    ("ndcg", "K", "k"), ("precision", "topk", "k"), ("report", "K", "metrics"), ("report", "level", "ci"),
    ("compare", "n_bootstrap", "n_boot"),
])
def test_unknown_keyword_suggests_the_parameter(imps, func, wrong, meant) -> None:
    function = getattr(pre, func)
    assert meant in inspect.signature(function).parameters  # the hint names a real parameter
    with pytest.raises(TypeError, match=rf"unexpected keyword argument '{wrong}'.*[Dd]id you mean {meant}="):
        function(imps, group="user_id", label="click", **{wrong: "model_a"})


def test_unknown_keyword_through_the_accessor_and_plotting(imps) -> None:
    with pytest.raises(TypeError, match="did you mean scores="):
        imps.rank.report(group="user_id", label="click", score="model_a")
    from pandas_rankeval import plotting

    with pytest.raises(TypeError, match="Did you mean bins="):
        plotting.plot_calibration(imps, label="click", score="model_a", bin=5)


def test_keyword_hints_keep_identity_and_results(imps) -> None:
    assert pre.map is pre.average_precision
    assert pre.gauc.__wrapped__ is pre.api.metrics.gauc
    kw = dict(group="user_id", label="click", score="model_a")
    assert float(pre.gauc(imps, **kw)) == float(pre.api.metrics.gauc(imps, **kw))


# -- describe() shows as text at a prompt and as HTML in a notebook ----------------------------
def test_describe_displays_as_text_and_html(imps) -> None:
    import pickle

    r = pre.gauc(imps, group="user_id", label="click", score="model_a", weight="uniform")
    d = r.describe()
    opts = ", ".join(f"{k}={v!r}" for k, v in r.params.items())
    text = f"gauc = {float(r):.4f} ({opts})\ncoverage: {r.coverage}"  # the text describe() gave as a str
    assert str(d) == text and d == text and d.splitlines()[0].startswith("gauc = ")
    assert repr(d) == text  # not "'gauc = ...\\ncoverage: ...'"
    html = d._repr_html_()
    assert "<b>gauc = " in html and "\n" not in html and "weight=uniform" in html
    assert pickle.loads(pickle.dumps(d))._repr_html_() == html


# -- a missing value in the engine's own word ----------------------------------------------------
def test_missing_label_named_in_the_engines_word(imps) -> None:
    pl = pytest.importorskip("polars")
    duckdb = pytest.importorskip("duckdb")
    kw = dict(group="user_id", label="click", score="model_a")
    holed = imps.assign(click=imps["click"].where(imps["user_id"] != 3))  # NaN on one user's rows
    n = int(holed["click"].isna().sum())
    assert n > 0
    with pytest.raises(ValueError, match=rf"Column 'click' has {n} missing values \(NaN/None\)\. Pass nan_policy='omit'"):
        pre.gauc(holed, **kw)
    nulls = pl.from_pandas(imps).with_columns(
        pl.when(pl.col("user_id") == 3).then(None).otherwise(pl.col("click")).alias("click"))
    assert nulls["click"].null_count() == n
    for frame in (nulls, nulls.lazy()):
        with pytest.raises(ValueError, match=rf"Column 'click' has {n} missing values \(null or NaN\)\. Pass"):
            pre.gauc(frame, **kw)
    con = duckdb.connect()
    con.register("t", holed)
    with pytest.raises(ValueError, match=rf"Column 'click' has {n} missing values \(NULL or NaN\)\. Pass"):
        pre.report(con.table("t"), group="user_id", label="click", scores=["model_a"])


# -- the command line: one progress bar, flags in the footers, the direction in files -----------
class _FakeBar:
    made: list["_FakeBar"] = []

    def __init__(self, total: int, desc: str, unit: str) -> None:
        self.total, self.n, self.closed = total, 0, False
        _FakeBar.made.append(self)

    def update(self, n: int = 1) -> None:
        self.n += n

    def refresh(self) -> None:
        pass

    def close(self) -> None:
        self.closed = True


def test_by_with_overall_draws_one_progress_bar(imps, monkeypatch) -> None:
    from pandas_rankeval.core import progress

    monkeypatch.setattr(progress, "bar_class", lambda: _FakeBar)
    kw = dict(group="user_id", label="click", scores=["model_a", "model_b"], baseline="model_a",
              metrics=["gauc"], n_boot=20, progress=True)
    totals = []
    for extra in (dict(by="activity"), {}):  # the two passes of by= with overall=True, alone
        _FakeBar.made = []
        pre.compare(imps, **kw, **extra)
        assert len(_FakeBar.made) == 1
        totals.append(_FakeBar.made[0].total)
    _FakeBar.made = []
    pre.compare(imps, **kw, by="activity", overall=True)
    assert len(_FakeBar.made) == 1  # was two: one per pass
    bar = _FakeBar.made[0]
    assert bar.total == sum(totals) and bar.n == bar.total and bar.closed


def _cli(args, capsys):
    from pandas_rankeval.cli import main

    assert main([str(a) for a in args]) == 0
    return capsys.readouterr()


def test_cli_footers_give_flags_not_python(imps, tmp_path, capsys) -> None:
    from pandas_rankeval.cli.output import FLAG_OPTIONS
    from pandas_rankeval.cli.parser import build_parser

    parser = build_parser()
    ev = next(a for a in parser._subparsers._group_actions[0].choices.values() if a.prog.endswith("eval"))
    flags = {s for a in ev._actions for s in a.option_strings}
    assert all(f"--{o.replace('_', '-')}" in flags for o in FLAG_OPTIONS)
    path = tmp_path / "imps.csv"
    imps.to_csv(path, index=False)
    base = [path, "--group", "user_id", "--label", "click", "--score", "model_a", "model_b",
            "--metrics", "gauc", "mrr", "--no-progress", "--n-boot", "50", "--footer", "full", "--width", "100"]
    shown = _cli([*base, "--baseline", "model_a"], capsys).out
    pythonic = pre.compare(imps, group="user_id", label="click", scores=["model_a", "model_b"], baseline="model_a",
                           metrics=["gauc", "mrr"], n_boot=50).to_text(footer="full")
    assert "ci_adjust='bonferroni'" in pythonic and "empty='skip'" in pythonic  # what Python users read
    assert "--ci-adjust bonferroni" in shown and "--empty skip" in shown
    assert "ci_adjust=" not in shown and "empty='" not in shown


def test_cli_csv_says_the_direction(imps, tmp_path, capsys) -> None:
    import numpy as np
    import pandas as pd

    path, out = tmp_path / "imps.csv", tmp_path / "x.csv"
    pre.datasets.make_impressions(n_users=400, seed=1).to_csv(path, index=False)
    # model_b beats model_a on GAUC (make_impressions plants it): against model_b, model_a is worse
    _cli([path, "--group", "user_id", "--label", "click", "--score", "model_b", "model_a", "--baseline", "model_b",
          "--metrics", "gauc", "mrr", "logloss", "--no-progress", "--n-boot", "50", "--output", out], capsys)
    got = pd.read_csv(out, comment="#", keep_default_na=False)
    assert list(got.columns).index("direction") == list(got.columns).index("significant") + 1
    lower = got["metric"].eq("logloss")
    gain = np.where(lower, -got["diff"], got["diff"])  # logloss: lower is better
    want = np.where(~got["significant"], "", np.where(gain > 0, "better", "worse"))
    assert (got["direction"] == want).all() and (want == "worse").any(), got


# -- the training hooks' names never collide with the booster's own --------------------------------
def _ranking_frame():
    import numpy as np

    df = pre.datasets.make_impressions(n_users=150, seed=3).sort_values("user_id", kind="stable")
    df = df.reset_index(drop=True)
    df["p"] = df["model_b"] + np.random.default_rng(0).normal(0, 1e-3, len(df))  # no ties
    return df, df.groupby("user_id", sort=True).size().to_numpy()


def test_lambdarank_log_holds_two_names_and_a_chosen_clash_warns() -> None:
    import warnings

    import numpy as np

    lgb = pytest.importorskip("lightgbm")
    from pandas_rankeval.lightgbm import eval_metric

    df, sizes = _ranking_frame()
    X = df[["model_a", "model_b", "position"]]
    params = {"objective": "lambdarank", "metric": "ndcg", "eval_at": [10], "verbosity": -1, "num_leaves": 7,
              "num_threads": 1}

    def train(name):
        log: dict = {}
        data = lgb.Dataset(X, df.click, group=sizes, params={"verbose": -1})
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            booster = lgb.train(params, data, 3, valid_sets=[data], valid_names=["valid"],
                                feval=eval_metric("ndcg@10", name=name), callbacks=[lgb.record_evaluation(log)])
        return booster, log["valid"], [w for w in caught if "two different values" in str(w.message)]

    booster, log, warned = train(None)
    assert sorted(log) == ["ndcg@10", "rankeval_ndcg@10"] and not warned  # two names, three rounds each
    assert all(len(v) == 3 for v in log.values())
    last = pre.ndcg(df.assign(s=booster.predict(X)), group="user_id", label="click", score="s", k=10)
    assert abs(log["rankeval_ndcg@10"][-1] - float(last)) < 1e-12
    assert abs(log["ndcg@10"][-1] - log["rankeval_ndcg@10"][-1]) > 0.1  # LightGBM's own is another number
    _, log, warned = train("ndcg@10")  # the name chosen by hand: one list of six, and a warning
    assert list(log) == ["ndcg@10"] and len(log["ndcg@10"]) == 6 and len(warned) == 1
    assert np.isfinite(log["ndcg@10"]).all()


def test_xgboost_clash_warns_once() -> None:
    import warnings

    xgb = pytest.importorskip("xgboost")
    from pandas_rankeval.xgboost import eval_metric

    df, _ = _ranking_frame()
    dm = xgb.DMatrix(df[["model_a", "model_b", "position"]], df.click, qid=df.user_id)
    for name, clash in ((None, False), ("ndcg@10", True)):
        log: dict = {}
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            xgb.train({"objective": "rank:ndcg", "eval_metric": "ndcg@10", "nthread": 1}, dm, 3, evals=[(dm, "v")],
                      evals_result=log, custom_metric=eval_metric("ndcg@10", name=name), verbose_eval=False)
        warned = [w for w in caught if "two different values" in str(w.message)]
        assert len(warned) == int(clash)
        assert sorted(log["v"]) == (["ndcg@10"] if clash else ["ndcg@10", "rankeval_ndcg@10"])


def test_differences_page_rows_for_lightgbm_and_xgboost() -> None:
    """The LightGBM and XGBoost rows of docs/guide/differences.md, measured."""
    import numpy as np

    lgb = pytest.importorskip("lightgbm")
    xgb = pytest.importorskip("xgboost")
    df, sizes = _ranking_frame()
    X = np.zeros((len(df), 1))
    kw = dict(group="user_id", label="click", score="p")
    empty = 1 - df.groupby("user_id")["click"].max().gt(0).mean()  # share of users without a click
    res: dict = {}
    data = lgb.Dataset(X, df.click, group=sizes, init_score=df.p.to_numpy(), params={"verbose": -1})
    lgb.train({"objective": "lambdarank", "metric": ["ndcg", "map"], "eval_at": [10], "verbose": -1,
               "learning_rate": 1e-9}, data, 1, valid_sets=[data], valid_names=["v"],
              callbacks=[lgb.record_evaluation(res)])
    skip_ndcg = float(pre.ndcg(df, k=10, empty="skip", **kw))
    skip_map = float(pre.average_precision(df, k=10, empty="skip", denominator="min_k", **kw))
    assert res["v"]["ndcg@10"][0] == pytest.approx(empty + (1 - empty) * skip_ndcg, abs=1e-12)
    assert res["v"]["map@10"][0] == pytest.approx(empty + (1 - empty) * skip_map, abs=1e-12)
    dm = xgb.DMatrix(X, df.click, qid=df.user_id, base_margin=df.p.to_numpy())
    got = {}
    for m in ("ndcg@10", "ndcg@10-", "map@10", "map@10-"):
        log: dict = {}
        xgb.train({"objective": "rank:ndcg", "eval_metric": m, "eta": 1e-9, "max_depth": 1}, dm, 1,
                  evals=[(dm, "v")], evals_result=log, verbose_eval=False)
        got[m] = log["v"][m][0]
    assert got["ndcg@10"] == pytest.approx(empty + (1 - empty) * skip_ndcg, abs=1e-12)
    assert got["map@10"] == pytest.approx(empty + (1 - empty) * skip_map, abs=1e-12)
    assert got["ndcg@10-"] == pytest.approx(float(pre.ndcg(df, k=10, **kw)), abs=1e-12)
    assert got["map@10-"] == pytest.approx(float(pre.average_precision(df, k=10, denominator="min_k", **kw)), abs=1e-12)
    res = {}
    data = lgb.Dataset(X, df.click, init_score=df.p.to_numpy(), params={"verbose": -1})
    lgb.train({"objective": "binary", "metric": "auc", "verbose": -1, "learning_rate": 1e-9}, data, 1,
              valid_sets=[data], valid_names=["v"], callbacks=[lgb.record_evaluation(res)])
    assert res["v"]["auc"][0] == pytest.approx(float(pre.auc(df, label="click", score="p")), abs=1e-12)


# -- the forest plot's bars agree with its marks -------------------------------------------------
def _bars_and_marks(axes):
    """Per drawn row: (bar low, bar high, filled) read back from the artists of each panel."""
    import numpy as np
    from matplotlib.collections import LineCollection, PathCollection

    out = []
    for ax in np.atleast_1d(axes):
        bars = {}
        for coll in ax.collections:
            if isinstance(coll, LineCollection):
                for seg in coll.get_segments():
                    if len(seg) == 2 and seg[0][1] == seg[1][1]:  # a horizontal error bar
                        bars[round(float(seg[0][1]), 6)] = (min(seg[0][0], seg[1][0]), max(seg[0][0], seg[1][0]))
        for coll in ax.collections:
            if isinstance(coll, PathCollection):
                faces = coll.get_facecolors()
                for k, (x, y) in enumerate(coll.get_offsets()):
                    face = faces[k % len(faces)]
                    filled = not np.allclose(face[:3], 1.0)  # hollow points are white inside
                    out.append((*bars[round(float(y), 6)], filled))
    return out


def test_forest_plot_bars_agree_with_marks_on_the_gallery_comparison() -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from pandas_rankeval import plotting

    df = pre.datasets.make_impressions()  # docs/gallery.md's comparison
    cmp = pre.compare(df, group="user_id", label="click", scores=["model_a", "model_b"],
                      baseline="model_a", metrics=["auc", "gauc", "mrr", "ndcg@10"], by="device")
    table_says = ((cmp["ci_low"] > 0) | (cmp["ci_high"] < 0)) == cmp["significant"]
    assert not table_says.all()  # the table's own intervals contradict a mark (tablet gauc)
    rows = _bars_and_marks(plotting.plot_comparison(cmp))
    assert len(rows) == len(cmp) and sum(f for *_, f in rows) == int(cmp["significant"].sum())
    for low, high, filled in rows:
        assert (low > 0 or high < 0) == filled, (low, high, filled)
    plt.close("all")
    rows = _bars_and_marks(plotting.plot_comparison(cmp, intervals="table"))  # the table's, on request
    assert any((low > 0 or high < 0) != filled for low, high, filled in rows)
    plt.close("all")


# -- figures a user can paste in a review ----------------------------------------------------------
def test_group_auc_small_groups_have_integer_ticks_and_calibration_one_legend() -> None:
    import re

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    from pandas_rankeval import plotting

    df = pre.datasets.make_impressions(n_users=600, seed=0)
    sizes = df.groupby("user_id").size()
    small = df[df.user_id.isin(sizes[sizes <= 30].index)]
    ax = plotting.plot_group_auc(small, group="user_id", label="click", score="model_b")
    ax.figure.canvas.draw()
    lo, hi = ax.get_xlim()
    shown = [t.get_text() for t in ax.get_xticklabels() if lo <= t.get_position()[0] <= hi]
    assert len(shown) >= 3 and all(re.fullmatch(r"\d+", t) for t in shown), shown  # not 2x10^0
    assert [float(t) for t in shown] == [t.get_position()[0] for t in ax.get_xticklabels() if lo <= t.get_position()[0] <= hi]
    assert not [t.get_text() for t in ax.xaxis.get_minorticklabels() if t.get_text()]
    plt.close("all")

    frame = df.assign(p=1 / (1 + np.exp(-df.model_b)), q=1 / (1 + np.exp(-df.model_a)))
    axes = plotting.plot_calibration(frame, label="click", score=["p", "q"], by="device", bins=10)
    fig = axes[0].figure
    assert len(fig.legends) == 1 and all(a.get_legend() is None for a in axes)  # one legend, not one per panel
    assert [t.get_text() for t in fig.legends[0].get_texts()] == ["p", "q", "perfectly calibrated"]
    for a, device in zip(axes, sorted(frame.device.unique())):
        part = frame[frame.device == device]
        want = [f"{m} {float(pre.ece(part, group='user_id', label='click', score=m, bins=10)):.4f}" for m in ("p", "q")]
        assert a.get_title(loc="left") == f"device={device}\nECE@10: " + ", ".join(want)
    plt.close("all")


# -- who does model B hurt? ------------------------------------------------------------------------
def test_worst_ranks_segments_by_the_models_gain() -> None:
    import numpy as np

    df = pre.datasets.make_impressions(n_users=400, seed=1)
    kw = dict(group="user_id", label="click", scores=["model_a", "model_b"], baseline="model_a", n_boot=100)
    cmp = pre.compare(df, metrics=["auc", "gauc", "logloss"], by="activity", **kw)
    for metric, sign in (("auc", 1.0), ("gauc", 1.0), ("logloss", -1.0)):
        w = cmp.worst(metric)
        # an independent oracle: each segment's difference from its own call, on the better side
        want = {}
        for seg, part in df.groupby("activity"):
            one = pre.compare(part, metrics=[metric], **kw)
            want[seg] = sign * float(one["diff"].iloc[0])
        order = sorted(want, key=want.get)
        assert list(w.index.get_level_values("activity")) == order
        np.testing.assert_allclose(sign * w["diff"].to_numpy(), [want[s] for s in order], atol=1e-12)
        assert {"ci_low", "ci_high", "p_holm", "significant"} <= set(w.columns) and w.attrs == cmp.attrs | w.attrs
    assert len(cmp.worst()) == len(cmp)
    with pytest.raises(ValueError, match="metrics are"):
        cmp.worst("mrr")


def test_worst_ranks_the_segments_and_shows_the_whole_table_apart() -> None:
    """"Who does model B hurt?" reads segments: the "(all)" rows of overall=True are not ranked
    among them but follow them (the reference), or are left out with overall=False."""
    import numpy as np
    import pandas as pd

    df = pre.datasets.make_impressions(n_users=400, seed=1)
    kw = dict(group="user_id", label="click", scores=["model_a", "model_b"], baseline="model_a", n_boot=100)
    cmp = pre.compare(df, metrics=["auc", "gauc"], by="activity", overall=True, **kw)
    for metric in ("auc", "gauc"):
        # an independent oracle: each segment's own call, and the call without by= for the whole table
        want = {seg: float(pre.compare(part, metrics=[metric], **kw)["diff"].iloc[0])
                for seg, part in df.groupby("activity")}
        whole = float(pre.compare(df, metrics=[metric], **kw)["diff"].iloc[0])
        order = sorted(want, key=want.get)
        assert min(want.values()) < whole < max(want.values())  # ranked by value it would sit among them
        w = cmp.worst(metric)
        assert list(w.index.get_level_values("activity")) == [*order, "(all)"]
        np.testing.assert_allclose(w["diff"].to_numpy(), [*(want[s] for s in order), whole], atol=1e-12)
        alone = cmp.worst(metric, overall=False)
        assert list(alone.index.get_level_values("activity")) == order
        pd.testing.assert_frame_equal(pd.DataFrame(alone), pd.DataFrame(w).iloc[:-1])
    every = cmp.worst()  # both metrics: every segment row ranked, then the two "(all)" rows
    assert list(every.index.get_level_values("activity"))[-2:] == ["(all)", "(all)"]
    assert "(all)" not in list(every.index.get_level_values("activity"))[:-2] and len(every) == len(cmp)
    with pytest.raises(TypeError, match="'overall' parameter of worst"):
        cmp.worst(overall="no")


def test_worst_says_its_order_and_where_the_whole_table_went() -> None:
    """The printed ranking says what it is ranked by, and that "(all)" comes after it unranked;
    once the rows are reordered the note goes, once the "(all)" rows are gone that part goes."""
    df = pre.datasets.make_impressions(n_users=400, seed=1)
    kw = dict(group="user_id", label="click", scores=["model_a", "model_b"], baseline="model_a", n_boot=100)
    cmp = pre.compare(df, metrics=["auc", "gauc"], by="activity", overall=True, **kw)
    order = "order: the largest loss on gauc first"
    whole = "(all): the whole table, after the ranked segments (not ranked)"
    flat = " ".join(cmp.worst("gauc").to_text().split())  # the footer's lines wrap at the width
    assert order in flat and whole in flat
    assert whole in " ".join(cmp.worst("gauc")._repr_html_().split())
    assert "order: the largest loss first" in " ".join(cmp.worst().to_text().split())  # every metric
    head = " ".join(cmp.worst("gauc").head(2).to_text().split())  # the two worst segments: no "(all)" row
    assert order in head and "(all):" not in head
    assert "(all):" not in " ".join(cmp.worst("gauc", overall=False).to_text().split())
    for reordered in (cmp.worst("gauc").sort_values("p_value"), cmp.worst("gauc").sample(frac=1, random_state=0)):
        assert "order:" not in reordered.to_text()
    assert "order:" not in cmp.to_text()


def test_per_group_by_model_has_the_columns_it_shows(imps) -> None:
    t = pre.per_group(imps, group="user_id", label="click", scores=["model_a", "model_b"], metrics=["auc", "mrr"])
    wide = t.by_model()
    assert wide.columns.names == ["model", "metric"]
    assert list(wide["model_b"].columns) == ["auc", "mrr"]
    for model in ("model_a", "model_b"):
        one = pre.per_group(imps, group="user_id", label="click", score=model, metrics=["auc", "mrr"])
        for metric in ("auc", "mrr"):
            assert wide[(model, metric)].equals(one[metric].rename((model, metric)))
            assert t[f"{model}_{metric}"].equals(one[metric].rename(f"{model}_{metric}"))  # the flat names stay
    assert wide[("", "n")].equals(t["n"].rename(("", "n")))
    assert list(t.columns) == ["n", "positives", "model_a_auc", "model_a_mrr", "model_b_auc", "model_b_mrr", "weight"]


def test_forest_plot_bars_of_tiny_p_values_have_their_width() -> None:
    # on a 300k-row log every row with p below 1e-16 (DeLong's z of 14 gives
    # 1e-44) was drawn as a bare dot: z_{1-p/2} was read as ndtri(1 - p/2), and 1 - p/2 rounds to 1
    import numpy as np
    import pandas as pd
    from scipy.stats import norm

    from pandas_rankeval.plotting.comparison import agreeing_intervals

    p = np.array([0.3, 1e-5, 1e-44, 0.0])
    t = pd.DataFrame(
        {"diff": [0.002, 0.02, 0.025, 0.03], "ci_low": [-0.003, 0.01, 0.0215, 0.02], "ci_high": [0.007, 0.03, 0.0283, 0.04],
         "p_value": p},
        index=pd.MultiIndex.from_tuples([("m1", "auc"), ("m2", "auc"), ("m3", "auc"), ("m4", "auc")], names=["model", "metric"]),
    )
    t.attrs.update({"adjust": "none", "alpha": 0.05})
    lo, hi, _ = agreeing_intervals(t)
    # the oracle: half width z_{0.975} |diff| / z_{1 - p/2}, z from scipy's normal (isf at p/2)
    for i in range(3):
        half = norm.isf(0.025) * abs(t["diff"].iloc[i]) / norm.isf(p[i] / 2)
        assert hi[i] - t["diff"].iloc[i] == pytest.approx(half, rel=1e-9)
        assert t["diff"].iloc[i] - lo[i] == pytest.approx(half, rel=1e-9)
    assert hi[2] - lo[2] > 0.005  # about 2 x 1.96 / 14 of the difference: visible
    assert (lo[3], hi[3]) == (0.02, 0.04)  # p = 0: no width to imply, the table's interval
    assert (lo[0] < 0 < hi[0]) and lo[1] > 0  # still agreeing with the marks
