"""The report equals the single-metric calls, a group-by-group computation, and sorts once per model."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import pandas_rankeval as pre
from pandas_rankeval.core.ranking import tie_blocks as _engine

pytestmark = pytest.mark.filterwarnings("ignore::pandas_rankeval.CoverageWarning")  # coverage is asserted, not warned about, here


METRICS = ["auc", "gauc", "mrr", "mrr@3", "ndcg@3", "ndcg", "map", "map@3", "precision@2", "recall@3", "hit_rate@2"]


def single(df, name, score, **kw):
    """The single-metric function for a metric name."""
    kind, _, k = name.partition("@")
    kwargs = dict(label="rel", score=score, **kw)
    if kind == "auc":
        kwargs.pop("weight", None)
        kwargs.pop("empty", None)
        return pre.auc(df, **kwargs)
    kwargs["group"] = "q"
    func = {
        "gauc": pre.gauc, "mrr": pre.mrr, "ndcg": pre.ndcg, "map": pre.average_precision,
        "precision": pre.precision, "recall": pre.recall, "hit_rate": pre.hit_rate,
    }[kind]
    if kind == "gauc":
        kwargs.pop("empty", None)
    else:
        kwargs["k"] = int(k) if k else None
    return func(df, **kwargs)


@pytest.fixture
def frame() -> pd.DataFrame:
    rng = np.random.default_rng(7)
    sizes = rng.integers(1, 9, 60)
    q = np.repeat(np.arange(60), sizes)
    n = q.shape[0]
    return pd.DataFrame(
        {
            "q": q,
            "rel": rng.integers(0, 3, n) * (rng.random(n) < 0.5),
            "a": np.round(rng.random(n), 1),  # heavy ties
            "b": rng.random(n),
            "country": np.array(["de", "fr", "us"])[q % 3],
            "device": np.array(["ios", "web"])[(q // 3) % 2],
        }
    ).sample(frac=1.0, random_state=3)


@pytest.mark.parametrize("ties", ["expected", "pessimistic", "optimistic"])
@pytest.mark.parametrize("weight", [None, "uniform", "log1p"])
def test_report_equals_single_metric_calls(frame, ties, weight):
    rep = pre.report(frame, group="q", label="rel", scores=["a", "b"], metrics=METRICS, ties=ties, weight=weight)
    assert list(rep.index) == ["a", "b"]
    assert rep.index.name == "model"
    assert list(rep.columns[: len(METRICS)]) == METRICS
    for s in ["a", "b"]:
        for name in METRICS:
            kw = {"ties": ties}
            if weight is not None:
                kw["weight"] = weight
            want = float(single(frame, name, s, **kw))
            assert rep.loc[s, name] == pytest.approx(want, abs=1e-12), (s, name)


def test_report_equals_group_by_group(frame):
    """Concatenated per-group reports rebuild the weighted means."""
    rep = pre.report(frame, group="q", label="rel", scores=["a"], metrics=METRICS[1:], weight="uniform")
    per = {name: [] for name in METRICS[1:]}
    for _, g in frame.groupby("q"):
        one = pre.report(g, group="q", label="rel", scores=["a"], metrics=METRICS[1:], weight="uniform")
        for name in per:
            per[name].append(one.loc["a", name])
    for name, vals in per.items():
        vals = np.array(vals, dtype=float)
        assert rep.loc["a", name] == pytest.approx(np.nanmean(vals), abs=1e-12), name


def test_report_coverage_columns(frame):
    rep = pre.report(frame, group="q", label="rel", scores=["a", "b"], metrics=["gauc", "mrr"])
    g = pre.gauc(frame, group="q", label="rel", score="a")
    assert rep.loc["a", "n_groups"] == 60
    assert rep.loc["a", "n_rows"] == len(frame)
    assert rep.loc["a", "gauc_groups_used"] == g.coverage.n_used
    assert rep.loc["a", "gauc_rows_skipped"] == pytest.approx(g.coverage.rows_skipped_share)
    no_rel = int((frame.groupby("q")["rel"].max() == 0).sum())
    assert rep.loc["a", "groups_no_relevant"] == no_rel
    assert rep.attrs["params"]["gauc"]["weight"] == "count"
    assert rep.attrs["params"]["mrr"]["weight"] == "uniform"


def test_report_one_sort_per_score_column(frame, monkeypatch):
    calls = {"score_rank": 0, "build_ranking": 0}
    for name in calls:
        original = getattr(_engine, name)

        def counting(*args, _original=original, _name=name, **kwargs):
            calls[_name] += 1
            return _original(*args, **kwargs)

        monkeypatch.setattr(_engine, name, counting)
    pre.report(frame, group="q", label="rel", scores=["a", "b"], metrics=METRICS)
    assert calls == {"score_rank": 2, "build_ranking": 2}


@pytest.mark.parametrize("by", ["country", ["country", "device"]])
def test_report_by_segment_equals_the_subsets(frame, by):
    rep = pre.report(frame, group="q", label="rel", scores=["a", "b"], metrics=METRICS, by=by)
    cols = [by] if isinstance(by, str) else by
    assert rep.index.names == [*cols, "model"]
    for key, sub in frame.groupby(cols):
        key = key if isinstance(key, tuple) else (key,)
        alone = pre.report(sub, group="q", label="rel", scores=["a", "b"], metrics=METRICS)
        for s in ["a", "b"]:
            row = rep.loc[(*key, s)]
            for name in METRICS:
                assert row[name] == pytest.approx(alone.loc[s, name], abs=1e-12), (key, s, name)
            assert row["n_rows"] == len(sub)


def test_report_single_string_arguments(frame):
    rep = pre.report(frame, group="q", label="rel", scores="a", metrics="ndcg@3")
    assert rep.shape[0] == 1
    assert rep.loc["a", "ndcg@3"] == pytest.approx(float(pre.ndcg(frame, group="q", label="rel", score="a", k=3)))


def test_report_returns_python_floats_and_leaves_the_frame(frame):
    before = frame.copy()
    rep = pre.report(frame, group="q", label="rel", scores=["a", "b"], metrics=["gauc"])
    pd.testing.assert_frame_equal(frame, before)
    assert rep["gauc"].dtype == np.float64


def test_per_group_matches_report_means(frame):
    table = pre.per_group(frame, group="q", label="rel", score="b", metrics=["mrr", "ndcg@3", "auc"])
    assert list(table.columns) == ["n", "positives", "mrr", "ndcg@3", "auc", "weight"]
    assert table.index.name == "q"
    assert table["mrr"].mean() == pytest.approx(float(pre.mrr(frame, group="q", label="rel", score="b")))
    ok = table["auc"].notna()
    gauc = np.average(table.loc[ok, "auc"], weights=table.loc[ok, "n"])
    assert gauc == pytest.approx(float(pre.gauc(frame, group="q", label="rel", score="b")))


def test_threads_and_serial_give_the_same_report(monkeypatch):
    df = pre.datasets.make_impressions(n_users=400, seed=2)
    from pandas_rankeval.core.threads import limit_threads

    serial = pre.report(df, group="user_id", label="click", scores=["model_a", "model_b"], metrics=METRICS[:1] + ["gauc", "mrr"])
    with limit_threads(2):
        threaded = pre.report(df, group="user_id", label="click", scores=["model_a", "model_b"], metrics=METRICS[:1] + ["gauc", "mrr"])
    pd.testing.assert_frame_equal(serial, threaded)


def test_report_displays_its_coverage_and_choices(frame):
    rep = pre.report(frame, group="q", label="rel", scores=["a", "b"], metrics=["auc", "gauc", "mrr"], weight=None)
    text = repr(rep)
    assert "coverage:" in text and "gauc uses " in text  # the lines that matter, under the table
    full = rep.to_text(footer="full", width=0)
    assert "coverage of gauc: " in full and "groups used" in full
    assert "choices: ties=expected; gauc: weight=count; mrr: weight=uniform, empty=zero" in full
    html = rep._repr_html_()
    assert html.startswith("<div") and "choices: ties=expected" in html  # in the folded details
    assert "coverage:" in rep.to_text() and rep.to_markdown().startswith("| model |")
    # anything derived from it other than a selection of rows is a plain DataFrame
    assert type(rep[["gauc"]]) is pd.DataFrame
    assert type(rep.copy()) is pd.DataFrame
    assert isinstance(rep, pd.DataFrame)


def test_ndcg_threshold_zeroes_the_gain_of_low_labels(frame):
    cut = frame.assign(rel=frame["rel"].where(frame["rel"] >= 2, 0))
    for k in (3, None):
        want = float(pre.ndcg(cut, group="q", label="rel", score="b", k=k))
        got = float(pre.ndcg(frame, group="q", label="rel", score="b", k=k, threshold=2))
        assert got == pytest.approx(want, abs=1e-12)


def test_report_by_segment_with_global_auc_only(frame):
    rep = pre.report(frame, group="q", label="rel", scores=["a"], metrics=["auc"], by="country")
    for country, sub in frame.groupby("country"):
        assert rep.loc[(country, "a"), "auc"] == pytest.approx(float(pre.auc(sub, label="rel", score="a")), abs=1e-12)
        assert rep.loc[(country, "a"), "n_rows"] == len(sub)
        assert rep.loc[(country, "a"), "n_groups"] == sub["q"].nunique()


# ---------------------------------------------------------------- by= with overall=True
def test_overall_rows_are_the_call_without_by_and_join_the_family():
    """A by= table gets the whole table's rows under '(all)', exactly the call
    without by (intervals too); in a comparison they join the adjustment's family; on Dask the
    same table; overall=True without by, or not a bool, is an error before any work."""
    import warnings

    import dask.dataframe as dd

    from pandas_rankeval.inference.pvalues import adjust_pvalues

    df = pre.datasets.make_impressions(n_users=400, seed=2)
    kw = dict(group="user_id", label="click", scores=["model_a", "model_b"], metrics=["auc", "gauc", "mrr"])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        rep = pre.report(df, by="device", overall=True, ci=0.9, n_boot=100, **kw)
    assert sum(issubclass(w.category, pre.CoverageWarning) for w in caught) <= 1
    whole = pre.report(df, ci=0.9, n_boot=100, **kw)
    assert list(rep.index.get_level_values("device").unique())[-1] == "(all)"
    pd.testing.assert_frame_equal(pd.DataFrame(rep.xs("(all)", level="device")), pd.DataFrame(whole), check_dtype=False)
    plain = pre.report(df, by="device", ci=0.9, n_boot=100, **kw)
    pd.testing.assert_frame_equal(pd.DataFrame(rep.drop(index="(all)", level="device")), pd.DataFrame(plain))
    assert "(all) 400" in " ".join(str(rep).split())

    cmp = pre.compare(df, by="device", overall=True, n_boot=100, ci_adjust="bonferroni", **kw)
    raw = pre.compare(df, n_boot=100, **kw)
    assert np.allclose(cmp.xs("(all)", level="device")["p_value"], raw["p_value"], rtol=0, atol=1e-15)
    assert np.allclose(cmp["p_holm"], adjust_pvalues(cmp["p_value"].to_numpy(), "holm"), rtol=0, atol=1e-15)
    assert "over the 12 comparisons" in " ".join(str(cmp).split())
    assert ((cmp["ci_low"] <= cmp["diff"]) & (cmp["diff"] <= cmp["ci_high"])).all()

    ddf = dd.from_pandas(df, npartitions=3)
    import dask

    with dask.config.set(scheduler="synchronous"):
        dist = pre.report(ddf, by="device", overall=True, ci=0.9, n_boot=100, **kw)
    num = rep.select_dtypes("number").columns
    np.testing.assert_allclose(dist[num].to_numpy(float), rep[num].to_numpy(float), rtol=0, atol=1e-12)

    with pytest.raises(ValueError, match=r"overall=True\) adds the whole table's rows to a table by segment"):
        pre.report(df, overall=True, **kw)
    with pytest.raises(TypeError, match="'overall' parameter of compare must be True or False"):
        pre.compare(df, by="device", overall="yes", **kw)
