"""Global AUC with ``sample_weight``: one definition on every engine.

The weighted AUC (pairs weigh ``w_i * w_j``) of ``report``, ``compare`` (clustered DeLong, the
default, with sample-weighted placements) and ``pre.auc`` is the same number on pandas, polars,
a polars LazyFrame, DuckDB, Dask and Spark; it equals a brute-force weighted pair count and
sklearn's ``roc_auc_score(sample_weight=)``; the intervals and p-values do not move when every
weight is multiplied by 7.3; and with integer weights the weighted clustered DeLong is exactly
the unweighted one on the rows repeated (a repeated row stays in its group).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pytest
from _oracles import auc as brute_auc
from sklearn.metrics import roc_auc_score
from test_engine_parity import ENGINES, OPTIONS, assert_same, engine_frame, make_frame  # noqa: F401

import pandas_rankeval as pre

pytestmark = [
    pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning"),
    pytest.mark.filterwarnings("ignore:The copy keyword is deprecated:Warning:pyspark"),
    pytest.mark.filterwarnings("ignore::pandas_rankeval.CoverageWarning"),
]

#: The reproducer of the bug: no ties in s or t; weighted AUCs 11/35 and 29/35 by hand.
SNIPPET = pd.DataFrame({"g": [1, 1, 1, 2, 2, 2], "y": [1, 0, 0, 1, 0, 1], "s": [.9, .8, .1, .3, .6, .2],
                        "t": [.2, .5, .6, .9, .1, .7], "sw": [1., 5, 1, 1, 1, 3]})


def _weighted_frame() -> pd.DataFrame:
    """40 groups, score "a" with about six distinct values (ties across every partition), "b" without
    ties, weights in [0.5, 1.5); shuffled so that groups and ties straddle partitions."""
    return make_frame("int", seed=41, n_groups=60)


def _scaled(df: pd.DataFrame, col: str, factor: float = 7.3) -> pd.DataFrame:
    return df.assign(**{col: df[col] * factor})


def _calls(engine: str, frame: Any, kw: dict[str, Any]) -> tuple[Any, Any]:
    opts = OPTIONS.get(engine)
    rep = pre.report(frame, metrics=["auc"], ci=0.9, engine_options=opts, **kw)
    cmp = pre.compare(frame, metrics=["auc"], engine_options=opts, **kw)
    return rep, cmp


CASES = {
    "snippet": (SNIPPET, {"group": "g", "label": "y", "scores": ["s", "t"], "sample_weight": "sw"}),
    "random": (_weighted_frame(), {"group": "g", "label": "y", "scores": ["a", "b"], "sample_weight": "w"}),
}


@pytest.mark.parametrize("engine,case", [
    # Spark's random case takes 8 s: it runs in the slow suite (.ci/run runs it after README's command)
    pytest.param(e, c, id=f"{e}-{c}", marks=[pytest.mark.slow] if (e, c) == ("spark", "random") else [])
    for c in CASES for e in ENGINES
])
def test_weighted_global_auc_is_one_number_on_every_engine(engine, engine_frame, case):
    df, kw = CASES[case]
    want_rep, want_cmp = _calls("pandas", df, kw)
    # the value is the weighted AUC: a brute-force pair count, and sklearn where no score ties
    for s in kw["scores"]:
        truth = brute_auc(df["y"].tolist(), df[s].tolist(), sample_weight=df[kw["sample_weight"]].tolist())
        assert abs(want_rep.loc[s, "auc"] - truth) <= 1e-12
        if df[s].is_unique:
            assert abs(truth - roc_auc_score(df["y"] > 0, df[s], sample_weight=df[kw["sample_weight"]])) <= 1e-12
    base, model = kw["scores"]
    row = want_cmp.loc[(model, base, "auc")]
    assert abs(row["baseline_value"] - want_rep.loc[base, "auc"]) <= 1e-12  # compare weighs as report does
    assert abs(row["value"] - want_rep.loc[model, "auc"]) <= 1e-12
    if case == "snippet":
        assert (abs(row["baseline_value"] - 11 / 35) <= 1e-12 and abs(row["value"] - 29 / 35) <= 1e-12)
    rep, cmp = _calls(engine, engine_frame(df), kw)
    assert_same(rep, want_rep)
    assert_same(cmp, want_cmp)
    # intervals and tests do not depend on the unit of the weights
    rep7, cmp7 = _calls(engine, engine_frame(_scaled(df, kw["sample_weight"])), kw)
    assert_same(rep7, want_rep)
    assert_same(cmp7, want_cmp)


def _repeated(df: pd.DataFrame, col: str) -> pd.DataFrame:
    return df.loc[df.index.repeat(df[col].astype(int))].drop(columns=col).reset_index(drop=True)


def test_weighted_delong_equals_unweighted_delong_on_repeated_rows():
    """Integer weight k = the row k times in its group: the same clusters, the same placements,
    so the weighted clustered DeLong (AUC, interval, difference, test) is the unweighted one."""
    rng = np.random.default_rng(7)
    df = make_frame("str", seed=3, n_groups=50)
    df["k"] = rng.integers(1, 4, len(df)).astype(np.float64)
    kw = {"group": "g", "label": "y", "scores": ["a", "b"], "metrics": ["auc"]}
    rep = pre.report(df, ci=0.95, sample_weight="k", **kw)
    rep1 = pre.report(_repeated(df, "k"), ci=0.95, **kw)
    cols = ["auc", "auc_low", "auc_high"]
    np.testing.assert_allclose(rep[cols].to_numpy(), rep1[cols].to_numpy(), rtol=0, atol=1e-12)
    cmp = pre.compare(df, sample_weight="k", **kw)
    cmp1 = pre.compare(_repeated(df, "k"), **kw)
    cols = ["baseline_value", "value", "diff", "ci_low", "ci_high", "p_value"]
    np.testing.assert_allclose(cmp[cols].to_numpy(), cmp1[cols].to_numpy(), rtol=0, atol=1e-12)
    # all weights 1: the unweighted numbers themselves
    ones = pre.compare(df.assign(k=1.0), sample_weight="k", **kw)
    np.testing.assert_allclose(ones[cols].to_numpy(), pre.compare(df, **kw)[cols].to_numpy(), rtol=0, atol=1e-12)


def test_weighted_delong_is_said_in_attrs():
    kw = {"group": "g", "label": "y", "scores": ["s", "t"], "metrics": ["auc"], "sample_weight": "sw"}
    cmp = pre.compare(SNIPPET, **kw)
    assert cmp.attrs["params"]["auc"]["sample_weight"] == "sw"
    assert "sample-weighted placements" in cmp.attrs["test"]["auc"]
    assert "sample-weighted placements" in cmp.attrs["ci_method"]
    rep = pre.report(SNIPPET, ci=0.95, **kw)
    assert rep.attrs["params"]["auc"]["sample_weight"] == "sw"
    assert "sample-weighted placements" in rep.attrs["ci"]["method"]
    unweighted = pre.compare(SNIPPET, **{k: v for k, v in kw.items() if k != "sample_weight"})
    assert "sample_weight" not in unweighted.attrs["params"]["auc"]
    assert "weighted" not in unweighted.attrs["test"]["auc"]
