"""Issue 47, "The library": what a newcomer met in a notebook, the CLI, polars and training logs."""

from __future__ import annotations

import inspect

import pytest

import pandas_rankeval as pre


@pytest.fixture(scope="module")
def imps():
    return pre.datasets.make_impressions(n_users=60, seed=1)


# -- 21: a misspelled keyword names the parameter that was meant ----------------------------------
@pytest.mark.parametrize("func, wrong, meant", [
    ("report", "score", "scores"), ("compare", "score", "scores"), ("per_group", "metric", "metrics"),
    ("gauc", "scores", "score"), ("ndcg", "scores", "score"), ("precision", "scores", "score"),
    ("gauc", "tiebrak", "tiebreak"), ("report", "metric", "metrics"),
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


# -- 17: describe() shows as text at a prompt and as HTML in a notebook ----------------------------
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


# -- 19: a missing value in the engine's own word ----------------------------------------------------
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


# -- 20: the command line: one progress bar, flags in the footers, the direction in files -----------
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

    monkeypatch.setattr(progress, "_tqdm", lambda: _FakeBar)
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
