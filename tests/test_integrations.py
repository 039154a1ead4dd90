"""The training hooks (LightGBM, XGBoost) and the scikit-learn scorer.

Every value a hook reports must equal the library's own function on a frame of the same
keys, labels and scores; early stopping must keep the round where the logged metric
peaks; GridSearchCV with the scorer must pick what a manual loop over the folds picks.
Small data, one thread per library, fixed seeds.
"""

from __future__ import annotations

import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pytest

import pandas_rankeval as pre

lgb = pytest.importorskip("lightgbm")
xgb = pytest.importorskip("xgboost")
sklearn = pytest.importorskip("sklearn")

from sklearn.linear_model import LogisticRegression  # noqa: E402
from sklearn.model_selection import GridSearchCV, GroupKFold, cross_validate  # noqa: E402
from sklearn.tree import DecisionTreeClassifier  # noqa: E402

from pandas_rankeval.lightgbm import eval_metric as lgb_metric  # noqa: E402
from pandas_rankeval.sklearn import make_scorer  # noqa: E402
from pandas_rankeval.xgboost import eval_metric as xgb_metric  # noqa: E402

FUNCTIONS = {
    "auc": pre.auc, "gauc": pre.gauc, "mrr": pre.mrr, "ndcg": pre.ndcg, "map": pre.map,
    "precision": pre.precision, "recall": pre.recall, "hit_rate": pre.hit_rate,
}  # fmt: skip

#: (metric, options): ties in the scores, single-class groups and weights in the data.
CASES = [
    ("gauc", {}),
    ("gauc", {"weight": "clicks", "ties": "pessimistic"}),
    ("gauc", {"weight": "uniform", "sample_weight": "dataset"}),
    ("gauc", {"min_pos": 2, "weight": "log1p"}),
    ("auc", {}),
    ("auc", {"sample_weight": "dataset", "ties": "optimistic"}),
    ("mrr", {}),
    ("mrr@3", {"empty": "skip", "weight": "count"}),
    ("ndcg@5", {"gain": "linear"}),
    ("ndcg", {"threshold": 2}),
    ("map@4", {"denominator": "min_k"}),
    ("precision@3", {}),
    ("recall@3", {"ties": "optimistic"}),
    ("hit_rate@2", {"empty": "skip"}),
]


def library_value(frame: pd.DataFrame, metric: str, options: dict) -> float:
    """pandas_rankeval.<metric> on the evaluation frame (columns g, y, s, w)."""
    kind, _, k = metric.partition("@")
    kw = dict(options)
    if kw.pop("sample_weight", None) == "dataset":
        kw["sample_weight"] = "w"
    if k:
        kw["k"] = int(k)
    if kind != "auc":
        kw["group"] = "g"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pre.CoverageWarning)
        return float(FUNCTIONS[kind](frame, label="y", score="s", **kw))


@pytest.fixture(scope="module")
def small() -> pd.DataFrame:
    """Groups of 1 to 11 rows sorted by key, graded labels, all-0 and all-1 groups, tied scores."""
    rng = np.random.default_rng(7)
    sizes = rng.integers(1, 12, 70)
    g = np.repeat(np.arange(70), sizes)
    n = g.shape[0]
    y = np.where(rng.random(n) < 0.35, rng.integers(1, 4, n), 0)
    y[np.isin(g, [0, 1, 2, 3])] = 0  # only negatives
    y[np.isin(g, [4, 5])] = 2  # only positives
    return pd.DataFrame({
        "g": g, "y": y, "w": rng.integers(0, 4, n).astype(float),
        "x0": np.round(rng.normal(size=n), 1), "x1": rng.normal(size=n),
    })  # fmt: skip


def rounds(n: int, seed: int) -> list[np.ndarray]:
    """Two rounds of predictions with many ties (the second from other values)."""
    rng = np.random.default_rng(seed)
    return [np.round(rng.random(n), 1), rng.integers(0, 5, n) / 4.0]


def quiet(func, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pre.CoverageWarning)
        return func(*args, **kwargs)


# -- equality with the library's functions ------------------------------------------------


@pytest.mark.parametrize(("metric", "options"), CASES)
def test_lightgbm_native_equals_library(small, metric, options) -> None:
    sizes = small.groupby("g", sort=True).size().to_numpy()
    data = lgb.Dataset(small[["x0", "x1"]], small.y, group=sizes, weight=small.w, free_raw_data=False).construct()
    hook = lgb_metric(metric, **options)  # group=None: the Dataset's queries
    for preds in rounds(len(small), 1):
        name, value, higher = quiet(hook, preds, data)
        expected = library_value(small.assign(s=preds), metric, options)
        assert (name, higher) == (f"rankeval_{metric}", True)
        assert value == pytest.approx(expected, abs=1e-12, nan_ok=True)


@pytest.mark.parametrize(("metric", "options"), CASES)
def test_lightgbm_sklearn_signature_equals_library(small, metric, options) -> None:
    hook = lgb_metric(metric, group=small.g, **options)
    y = small.y.to_numpy(np.float32)
    for preds in rounds(len(small), 2):
        name, value, higher = quiet(hook, y, preds, small.w.to_numpy(), None)
        assert (name, higher) == (f"rankeval_{metric}", True)
        assert value == pytest.approx(library_value(small.assign(s=preds), metric, options), abs=1e-12, nan_ok=True)


@pytest.mark.parametrize(("metric", "options"), CASES)
def test_xgboost_native_equals_library(small, metric, options) -> None:
    data = xgb.DMatrix(small[["x0", "x1"]], small.y, weight=small.w)
    hook = xgb_metric(metric, group=small.g.to_numpy(), **options)
    for preds in rounds(len(small), 3):
        preds = preds.astype(np.float32)  # XGBoost predicts in float32
        name, value = quiet(hook, preds, data)
        assert name == f"rankeval_{metric}"
        assert value == pytest.approx(library_value(small.assign(s=preds), metric, options), abs=1e-12, nan_ok=True)


@pytest.mark.parametrize("metric", ["gauc", "ndcg@5", "map"])
def test_xgboost_qid_and_sklearn_signature_equal_library(small, metric) -> None:
    data = xgb.DMatrix(small[["x0", "x1"]], small.y, qid=small.g)
    by_qid = xgb_metric(metric)  # group=None: the DMatrix's qid
    by_keys = xgb_metric(metric, group=small.g)  # as XGBClassifier(eval_metric=...) calls it
    assert by_keys.__name__ == f"rankeval_{metric}"
    for preds in rounds(len(small), 4):
        preds = preds.astype(np.float32)
        expected = library_value(small.assign(s=preds), metric, {})
        assert quiet(by_qid, preds, data)[1] == pytest.approx(expected, abs=1e-12)
        assert quiet(by_keys, small.y.to_numpy(np.float32), preds) == pytest.approx(expected, abs=1e-12)


def test_several_metrics_share_one_hook(small) -> None:
    data = xgb.DMatrix(small[["x0"]], small.y, qid=small.g)
    preds = rounds(len(small), 5)[0].astype(np.float32)
    got = quiet(xgb_metric(["gauc", "ndcg@3"], name=["my_gauc", "my_ndcg3"]), preds, data)
    frame = small.assign(s=preds)
    assert [n for n, _ in got] == ["my_gauc", "my_ndcg3"]
    assert got[0][1] == pytest.approx(library_value(frame, "gauc", {}), abs=1e-12)
    assert got[1][1] == pytest.approx(library_value(frame, "ndcg@3", {}), abs=1e-12)
    lgb_got = quiet(lgb_metric(["gauc", "mrr"], group=small.g), small.y.to_numpy(), preds.astype(np.float64), None, None)
    assert [(n, h) for n, _, h in lgb_got] == [("rankeval_gauc", True), ("rankeval_mrr", True)]


def test_multi_column_keys_and_string_keys(small) -> None:
    keys = pd.DataFrame({"user": small.g % 7, "day": (small.g // 7).astype(str)})
    preds = rounds(len(small), 6)[0]
    hook = lgb_metric("gauc", group=keys)
    value = quiet(hook, small.y.to_numpy(), preds, None, None)[1]
    frame = pd.concat([keys, small[["y"]]], axis=1).assign(s=preds)
    expected = quiet(pre.gauc, frame, group=["user", "day"], label="y", score="s")
    assert value == pytest.approx(expected, abs=1e-12)


def test_coverage_warning_once_per_set(small) -> None:
    hook = lgb_metric("gauc", group=small.g, min_size=8)  # the filter drops most rows
    y = small.y.to_numpy()
    first, second = rounds(len(small), 8)
    with pytest.warns(pre.CoverageWarning, match="eval_metric: gauc: .* the filters drop"):
        hook(y, first, None, None)
    with warnings.catch_warnings():
        warnings.simplefilter("error", pre.CoverageWarning)
        hook(y, second, None, None)  # the same set: no second warning


# -- training with early stopping -----------------------------------------------------------


@pytest.fixture(scope="module")
def clicks() -> tuple[pd.DataFrame, pd.Series, pd.Series]:
    df = pre.datasets.make_impressions(n_users=600, seed=3)
    df["item_pop"] = df.groupby("item_id")["item_id"].transform("size")
    return df, df.user_id % 3 != 0, df.user_id % 3 == 0


FEATURES = ["model_a", "model_b", "position", "item_pop"]
LGB_PARAMS = {"objective": "binary", "metric": "None", "verbosity": -1, "num_leaves": 31,
              "learning_rate": 0.3, "num_threads": 1, "min_data_in_leaf": 5}  # fmt: skip


def test_lightgbm_native_early_stopping_keeps_the_gauc_peak(clicks) -> None:
    df, train, valid = clicks
    dtrain = lgb.Dataset(df.loc[train, FEATURES], df.click[train])
    dvalid = lgb.Dataset(df.loc[valid, FEATURES], df.click[valid], reference=dtrain)
    log: dict = {}
    booster = lgb.train(
        LGB_PARAMS, dtrain, num_boost_round=300, valid_sets=[dtrain, dvalid], valid_names=["train", "valid"],
        feval=lgb_metric("gauc", group={dtrain: df.user_id[train], dvalid: df.user_id[valid]}),
        callbacks=[lgb.early_stopping(10, verbose=False), lgb.record_evaluation(log)],
    )  # fmt: skip
    curve = log["valid"]["rankeval_gauc"]
    assert len(curve) < 300  # it stopped early ...
    assert booster.best_iteration == int(np.argmax(curve)) + 1  # ... at the GAUC peak
    assert len(curve) == booster.best_iteration + 10
    assert int(np.argmin(curve)) != int(np.argmax(curve))
    assert log["train"]["rankeval_gauc"][-1] > max(curve)  # the training set got its own keys


def eval_sets(*pairs) -> dict:
    """LightGBM's sklearn evaluation sets: eval_X / eval_y from 4.7 on, eval_set before."""
    import inspect

    if "eval_X" in inspect.signature(lgb.LGBMModel.fit).parameters:
        return {"eval_X": tuple(x for x, _ in pairs), "eval_y": tuple(y for _, y in pairs)}
    return {"eval_set": list(pairs)}


def recorder(hook):
    """The hook behind a four-parameter function that keeps each round's predictions."""
    seen: list[tuple[int, np.ndarray]] = []

    def recording(y_true, y_pred, weight, group):
        seen.append((len(y_true), y_pred.copy()))
        return hook(y_true, y_pred, weight, group)

    return recording, seen


def test_lightgbm_sklearn_early_stopping_and_list_of_groups(clicks) -> None:
    df, train, valid = clicks
    X_tr, y_tr, X_va, y_va = df.loc[train, FEATURES], df.click[train], df.loc[valid, FEATURES], df.click[valid]
    recording, seen = recorder(lgb_metric("gauc", group=[df.user_id[train], df.user_id[valid]]))
    model = lgb.LGBMClassifier(n_estimators=300, learning_rate=0.3, min_child_samples=5, n_jobs=1, verbose=-1, metric="None")
    model.fit(X_tr, y_tr, eval_metric=recording, callbacks=[lgb.early_stopping(10, verbose=False)],
              **eval_sets((X_tr, y_tr), (X_va, y_va)))  # fmt: skip
    curve = model.evals_result_["valid_1"]["rankeval_gauc"]
    assert model.best_iteration_ == int(np.argmax(curve)) + 1 < 300
    (train_curve,) = [log["rankeval_gauc"] for name, log in model.evals_result_.items() if name != "valid_1"]
    assert train_curve[-1] > max(curve)  # the training set got its own keys
    last_valid = [p for n, p in seen if n == len(y_va)][-1]
    frame = df[valid].assign(s=last_valid)
    assert curve[-1] == pytest.approx(quiet(pre.gauc, frame, group="user_id", label="click", score="s"), abs=1e-12)


def test_lightgbm_ranker_uses_eval_group(clicks) -> None:
    df, train, valid = clicks
    sizes = lambda mask: df[mask].groupby("user_id", sort=True).size().to_numpy()  # noqa: E731
    recording, seen = recorder(lgb_metric("ndcg@5"))  # group=None: the queries of eval_group
    ranker = lgb.LGBMRanker(n_estimators=5, n_jobs=1, verbose=-1, min_child_samples=5, metric="None")
    ranker.fit(df.loc[train, FEATURES], df.relevance[train], group=sizes(train), eval_group=[sizes(valid)],
               eval_metric=recording, **eval_sets((df.loc[valid, FEATURES], df.relevance[valid])))  # fmt: skip
    curve = ranker.evals_result_["valid_0"]["rankeval_ndcg@5"]
    assert len(curve) == len(seen) == 5
    for value, (_, preds) in zip(curve, seen):
        frame = df[valid].assign(s=preds)
        assert value == pytest.approx(pre.ndcg(frame, group="user_id", label="relevance", score="s", k=5), abs=1e-12)


def test_xgboost_native_early_stopping_is_told_higher_is_better(clicks) -> None:
    df, train, valid = clicks
    dtrain = xgb.DMatrix(df.loc[train, FEATURES], df.click[train])
    dvalid = xgb.DMatrix(df.loc[valid, FEATURES], df.click[valid], qid=df.user_id[valid])
    log: dict = {}
    params = {"objective": "binary:logistic", "disable_default_eval_metric": 1, "nthread": 1, "max_depth": 6, "eta": 0.3}
    booster = xgb.train(params, dtrain, 300, evals=[(dvalid, "valid")], evals_result=log,
                        custom_metric=xgb_metric("gauc"), early_stopping_rounds=10, verbose_eval=False)  # fmt: skip
    curve = log["valid"]["rankeval_gauc"]
    assert len(curve) < 300
    assert booster.best_iteration == int(np.argmax(curve))  # XGBoost counts rounds from 0
    assert int(np.argmin(curve)) != int(np.argmax(curve))  # minimizing would have stopped elsewhere
    with pytest.raises(ValueError, match="maximize=False"):
        xgb.train(params, dtrain, 3, evals=[(dvalid, "valid")], custom_metric=xgb_metric("gauc"),
                  early_stopping_rounds=2, maximize=False, verbose_eval=False)  # fmt: skip


def test_xgboost_sklearn_early_stopping(clicks) -> None:
    df, train, valid = clicks
    model = xgb.XGBClassifier(n_estimators=300, max_depth=6, learning_rate=0.3, n_jobs=1,
                              eval_metric=xgb_metric("gauc", group=df.user_id[valid]), early_stopping_rounds=10)  # fmt: skip
    model.fit(df.loc[train, FEATURES], df.click[train], eval_set=[(df.loc[valid, FEATURES], df.click[valid])], verbose=False)
    curve = model.evals_result()["validation_0"]["rankeval_gauc"]
    assert model.best_iteration == int(np.argmax(curve)) and len(curve) < 300
    frame = df[valid].assign(s=model.predict_proba(df.loc[valid, FEATURES], iteration_range=(0, len(curve)))[:, 1])
    assert curve[-1] == pytest.approx(pre.gauc(frame, group="user_id", label="click", score="s"), abs=1e-6)


def test_xgboost_ranker_sklearn_api_is_refused_with_the_way_out(clicks) -> None:
    df, train, _ = clicks
    ranker = xgb.XGBRanker(n_estimators=2, n_jobs=1, eval_metric=xgb_metric("ndcg@5"))
    X, y, qid = df.loc[train, FEATURES], df.relevance[train], df.user_id[train]
    with pytest.raises(TypeError, match=r"once per query.*xgb\.train.*qid"):
        ranker.fit(X, y, qid=qid, eval_set=[(X, y)], eval_qid=[qid], verbose=False)


def test_cross_validation_with_queries_keeps_the_peak(clicks) -> None:
    """lgb.cv / xgb.cv split the data themselves: group=None takes each fold's queries."""
    df, _, _ = clicks
    X, y = df[FEATURES], df.click
    sizes = df.groupby("user_id", sort=True).size().to_numpy()  # rows are sorted by user
    params = {"objective": "binary", "metric": "None", "verbosity": -1, "num_threads": 1, "learning_rate": 0.3}
    stopped = lgb.cv(params, lgb.Dataset(X, y, group=sizes), 200, nfold=3, seed=0, feval=lgb_metric("gauc"),
                     callbacks=[lgb.early_stopping(5, verbose=False)])["valid rankeval_gauc-mean"]  # fmt: skip
    full = lgb.cv(params, lgb.Dataset(X, y, group=sizes), len(stopped) + 5, nfold=3, seed=0,
                  feval=lgb_metric("gauc"))["valid rankeval_gauc-mean"]  # fmt: skip
    assert len(stopped) < 200 and int(np.argmax(full)) == len(stopped) - 1
    xparams = {"objective": "binary:logistic", "disable_default_eval_metric": 1, "nthread": 1, "eta": 0.3}
    dall = xgb.DMatrix(X, y, qid=df.user_id)
    xstopped = xgb.cv(xparams, dall, 200, nfold=3, seed=0, custom_metric=xgb_metric("gauc"), early_stopping_rounds=5)
    xfull = xgb.cv(xparams, dall, len(xstopped) + 5, nfold=3, seed=0, custom_metric=xgb_metric("gauc"))
    assert len(xstopped) < 200 and int(np.argmax(xfull["test-rankeval_gauc-mean"])) == len(xstopped) - 1


# -- scikit-learn scorer -------------------------------------------------------------------


def test_grid_search_picks_the_best_mean_gauc_like_a_manual_loop(clicks) -> None:
    df, _, _ = clicks
    X, y, groups = df[FEATURES], df.click, df.user_id
    grid = [1, 4, 12]  # a tree's predict_proba: scores with many ties
    cv = GroupKFold(n_splits=3)
    tree = DecisionTreeClassifier(random_state=0)
    with sklearn.config_context(enable_metadata_routing=True):
        search = GridSearchCV(tree, {"max_depth": grid}, cv=cv, scoring=make_scorer("gauc"))
        search.fit(X, y, groups=groups)
        cross = cross_validate(tree.set_params(max_depth=grid[0]), X, y, cv=cv,
                               scoring={"gauc": make_scorer("gauc")}, params={"groups": groups})  # fmt: skip
    manual = []
    for depth in grid:
        folds = []
        for tr, te in cv.split(X, y, groups):
            model = DecisionTreeClassifier(random_state=0, max_depth=depth).fit(X.iloc[tr], y.iloc[tr])
            frame = df.iloc[te].assign(s=model.predict_proba(X.iloc[te])[:, 1])
            folds.append(quiet(pre.gauc, frame, group="user_id", label="click", score="s"))
        manual.append(folds)
    means = np.mean(manual, axis=1)
    np.testing.assert_allclose(search.cv_results_["mean_test_score"], means, rtol=0, atol=1e-12)
    np.testing.assert_allclose(cross["test_gauc"], manual[0], rtol=0, atol=1e-12)
    assert search.best_params_ == {"max_depth": grid[int(np.argmax(means))]}
    assert len(set(np.round(means, 6))) == 3  # the grid points differ: the choice means something


def test_scorer_groups_from_a_column_of_X_and_options(clicks) -> None:
    df, train, valid = clicks
    X = df[["model_a", "model_b", "position", "user_id"]]
    model = LogisticRegression().fit(X[train], df.click[train])
    scorer = make_scorer("ndcg@5", group="user_id", gain="linear", response_method="predict_proba")
    frame = df[valid].assign(s=model.predict_proba(X[valid])[:, 1])
    expected = pre.ndcg(frame, group="user_id", label="click", score="s", k=5, gain="linear")
    assert scorer(model, X[valid], df.click[valid]) == pytest.approx(expected, abs=1e-12)


# -- errors ------------------------------------------------------------------------------


def test_wrong_group_length_names_the_parameter_and_the_fix(small) -> None:
    hook = lgb_metric("gauc", group=small.g[:-3])
    with pytest.raises(ValueError, match=r"'group' parameter .* has 4\d\d keys, but LightGBM is evaluating a set of 4\d\d rows"):
        hook(small.y.to_numpy(), np.zeros(len(small)), None, None)
    xhook = xgb_metric("gauc", group=[small.g[:10], small.g[:20]])
    with pytest.raises(ValueError, match=r"key arrays of \[10, 20\] rows .* one key array per evaluation set"):
        xhook(np.zeros(len(small), np.float32), xgb.DMatrix(small[["x0"]], small.y))


def test_one_key_array_for_two_sets_is_refused(small) -> None:
    hook = lgb_metric("gauc", group=small.g)
    preds = np.zeros(len(small))
    quiet(hook, small.y.to_numpy(), preds, None, None)
    with pytest.raises(ValueError, match=r"second, different set .* group=\[keys_of_set_1, keys_of_set_2\]"):
        hook((small.y.to_numpy() + 1) % 2, preds, None, None)


def test_missing_groups_name_the_ways_to_give_them(small) -> None:
    data = lgb.Dataset(small[["x0"]], small.y).construct()
    with pytest.raises(ValueError, match=r"no query information. Pass group=.*Dataset\(group=...\)"):
        lgb_metric("gauc")(np.zeros(len(small)), data)
    with pytest.raises(ValueError, match=r"DMatrix\(qid=...\)"):
        xgb_metric("mrr")(np.zeros(len(small), np.float32), xgb.DMatrix(small[["x0"]], small.y))
    assert lgb_metric("auc")(np.linspace(0, 1, len(small)), data)[0] == "rankeval_auc"  # global AUC needs none


def test_unknown_metric_and_options() -> None:
    with pytest.raises(ValueError, match=r"'metric' parameter of pandas_rankeval.lightgbm.eval_metric: Unknown metric 'gacu'. Did you mean 'gauc'\?"):
        lgb_metric("gacu")
    with pytest.raises(ValueError, match=r"'metric' parameter of pandas_rankeval.sklearn.make_scorer: .* needs a cutoff, such as 'recall@10'"):
        make_scorer("recall")
    with pytest.raises(TypeError, match="the cutoff goes in the metric name, such as 'ndcg@10'"):
        xgb_metric("ndcg", k=10)
    with pytest.raises(TypeError, match=r"'gain', which 'gauc' does not take. Their options are"):
        xgb_metric("gauc", gain="linear")
    with pytest.raises(TypeError, match="tie-break needs a column"):
        lgb_metric("gauc", tiebreak="position")
    with pytest.raises(ValueError, match=r"The 'ties' parameter of pandas_rankeval.lightgbm.eval_metric must be"):
        lgb_metric("gauc", ties="random")
    with pytest.raises(ValueError, match=r"'weight' parameter .* weight=df.groupby\(key\)\[column\].sum\(\)"):
        lgb_metric("gauc", weight="gmv")
    with pytest.raises(TypeError, match=r"not a column name: pass group=valid_df\['user_id'\]"):
        lgb_metric("gauc", group="user_id")
    with pytest.raises(ValueError, match="sample_weight.*'auc', 'gauc', 'uauc', 'wuauc', 'xauc', 'gxauc', 'logloss', 'ne', 'pcoc' and 'ece' only"):
        xgb_metric("ndcg@5", sample_weight="dataset")
    with pytest.raises(ValueError, match="cannot hold them"):
        xgb_metric("gauc", name="valid-gauc")
    with pytest.raises(ValueError, match="cannot hold them"):  # xgb.cv splits its log on spaces
        xgb_metric("gauc", name="gauc (rankeval)")
    with pytest.raises(ValueError, match=r"response_method"):
        make_scorer("gauc", response_method="score")


def test_bad_predictions_are_named(small) -> None:
    hook = lgb_metric("gauc", group=small.g)
    y = small.y.to_numpy()
    with pytest.raises(ValueError, match=r"shape \(4\d\d, 3\) .* one score per row"):
        hook(y, np.zeros((len(small), 3)), None, None)
    preds = np.zeros(len(small))
    preds[:2] = np.nan
    with pytest.raises(ValueError, match=r"2 of the model's 4\d\d predictions .* are NaN"):
        hook(y, preds, None, None)


def test_scorer_without_groups_says_how_to_route_them(clicks) -> None:
    df, train, valid = clicks
    model = DecisionTreeClassifier(max_depth=3).fit(df.loc[train, FEATURES], df.click[train])
    with pytest.raises(ValueError, match=r"received no groups.*enable_metadata_routing=True.*groups=groups"):
        make_scorer("gauc")(model, df.loc[valid, FEATURES], df.click[valid])
    with pytest.raises(ValueError, match=r"12 keys for the 7,402 rows"):
        make_scorer("gauc")(model, df.loc[valid, FEATURES], df.click[valid], groups=np.arange(12))


def test_missing_extra_is_named(monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "lightgbm", None)
    monkeypatch.setitem(sys.modules, "xgboost", None)
    with pytest.raises(ImportError, match=r"pip install 'pandas_rankeval\[lightgbm\]'"):
        lgb_metric("gauc")
    with pytest.raises(ImportError, match=r"pip install 'pandas_rankeval\[xgboost\]'"):
        xgb_metric("gauc")


def test_import_pandas_rankeval_imports_no_training_library() -> None:
    code = (
        "import sys, pandas_rankeval, pandas_rankeval.lightgbm, pandas_rankeval.xgboost, pandas_rankeval.sklearn; "
        "print(sorted(m for m in ('lightgbm', 'xgboost') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_hook_pickles_without_its_prepared_sets(small) -> None:
    import copy
    import pickle

    hook = xgb_metric("gauc", group=small.g)
    quiet(hook, small.y.to_numpy(np.float32), np.zeros(len(small), np.float32))
    clone = pickle.loads(pickle.dumps(hook))
    assert clone._core._sets == [] and hook._core._sets != []
    assert copy.deepcopy(hook)._core._sets == []
    preds = rounds(len(small), 9)[0].astype(np.float32)
    assert quiet(clone, small.y.to_numpy(np.float32), preds) == quiet(hook, small.y.to_numpy(np.float32), preds)
