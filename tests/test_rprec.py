"""R-precision: exact under ties, against brute-force enumeration of every tie ordering.

The oracle is written from the definition: R = the group's relevant rows, R-prec = relevant rows
among the first R of one ordering / R; the expected value is the mean over every ordering of the
tied rows (tests/_oracles.py), the pessimistic and optimistic ones the minimum and maximum.
trec_eval's ``Rprec`` (pytrec_eval) is checked in tests/test_trec.py, every engine in
tests/test_engine_parity.py.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import pandas_rankeval as pre
from _oracles import is_relevant, mean_over_groups, tie_value


def rprec_oracle(labels, threshold=None) -> float:
    """Relevant rows among the first R of one ordering, over R (R = all relevant rows)."""
    rel = [is_relevant(y, threshold) for y in labels]
    r = sum(rel)
    return sum(rel[:r]) / r if r else 0.0


def _frame(seed: int, n_groups: int = 30) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 8, n_groups)  # one-row groups included
    g = np.repeat(np.arange(n_groups), sizes)
    n = g.shape[0]
    return pd.DataFrame({
        "g": g,
        "y": rng.integers(0, 3, n) * (rng.random(n) < 0.5),  # graded, empty groups too
        "s": rng.integers(0, 3, n).astype(float),  # heavy ties, blocks straddling R
        "tb": rng.integers(0, 2, n),
    }).sample(frac=1.0, random_state=seed)  # shuffled rows


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
@pytest.mark.parametrize("ties", ["expected", "pessimistic", "optimistic"])
def test_rprec_equals_enumeration(seed, ties):
    df = _frame(seed)
    got = pre.r_precision(df, group="g", label="y", score="s", ties=ties)
    assert got == pytest.approx(mean_over_groups(df, rprec_oracle, ties), abs=1e-12)
    rep = pre.report(df, group="g", label="y", scores="s", metrics=["rprec"], ties=ties)
    assert rep.loc["s", "rprec"] == pytest.approx(float(got), abs=1e-15)
    # per group: each group's own value, empty groups 0
    pg = pd.DataFrame(pre.per_group(df, group="g", label="y", score="s", metrics=["rprec"], ties=ties))["rprec"]
    for key, rows in df.groupby("g"):
        want = tie_value(rprec_oracle, rows["y"].tolist(), rows["s"].tolist(), ties=ties)
        assert pg[key] == pytest.approx(want, abs=1e-12), key


def test_rprec_options_tiebreak_threshold_empty_weight():
    df = _frame(4)
    got = pre.rprec(df, group="g", label="y", score="s", tiebreak="tb", threshold=2, empty="skip")
    want = mean_over_groups(df, lambda o: rprec_oracle(o, 2), "expected", "skip", "tb", 2)
    assert got == pytest.approx(want, abs=1e-12)
    assert got.coverage.n_empty == sum(not (rows["y"] >= 2).any() for _, rows in df.groupby("g"))
    # weight="clicks": each group weighs its R
    values, weights = [], []
    for _, rows in df.groupby("g"):
        r = int((rows["y"] > 0).sum())
        values.append(tie_value(rprec_oracle, rows["y"].tolist(), rows["s"].tolist()) if r else 0.0)
        weights.append(r)
    got = pre.r_precision(df, group="g", label="y", score="s", weight="clicks")
    assert got == pytest.approx(math.fsum(v * w for v, w in zip(values, weights)) / sum(weights), abs=1e-12)


def test_rprec_hand_worked():
    # R = 3; ranking [1, 0, 1, 0, 1]: two relevant rows in the top 3
    df = pd.DataFrame({"q": 1, "rel": [1, 0, 1, 0, 1], "score": [5, 4, 3, 2, 1]})
    assert pre.r_precision(df, group="q", label="rel", score="score") == pytest.approx(2 / 3, abs=1e-15)
    # rows 3 and 4 tied across rank 3: one row of the block is within R, half relevant in expectation
    df["score"] = [5, 4, 3, 3, 1]
    assert pre.r_precision(df, group="q", label="rel", score="score") == 0.5
    # the whole group tied: R of its n rows within R, R * R / n relevant in expectation
    df["score"] = 1
    assert pre.r_precision(df, group="q", label="rel", score="score") == pytest.approx(3 / 5, abs=1e-15)
    # a perfect ranking scores 1, whatever R
    assert pre.r_precision(df.assign(score=df["rel"]), group="q", label="rel", score="score") == 1.0


def test_rprec_names_and_errors():
    df = _frame(5)
    a = pre.r_precision(df, group="g", label="y", score="s")
    assert pre.rprec is pre.r_precision or float(pre.rprec(df, group="g", label="y", score="s")) == float(a)
    assert float(df.rank.rprec(group="g", label="y", score="s")) == float(a)
    with pytest.raises(ValueError, match="rprec"):
        pre.report(df, group="g", label="y", scores="s", metrics=["rprec@3"])
    with pytest.raises(TypeError, match="'k'"):
        pre.r_precision(df, group="g", label="y", score="s", k=3)
    with pytest.raises(ValueError, match="have no relevant row"):
        pre.r_precision(df, group="g", label="y", score="s", empty="error")
