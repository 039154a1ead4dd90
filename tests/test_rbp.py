"""Rank-biased precision: exact under ties, against brute-force enumeration of tie orderings."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import pandas_rankeval as pre
from _oracles import is_relevant, mean_over_groups


def rbp_oracle(labels, p, threshold=None) -> float:
    """(1 - p) * sum_i rel_i p^(i - 1), one ordering, from the definition."""
    return (1 - p) * math.fsum(p ** i for i, y in enumerate(labels) if is_relevant(y, threshold))


def _frame(seed: int, n_groups: int = 25) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 7, n_groups)  # one-row groups included
    g = np.repeat(np.arange(n_groups), sizes)
    n = g.shape[0]
    return pd.DataFrame({
        "g": g,
        "y": rng.integers(0, 3, n) * (rng.random(n) < 0.5),  # graded, many empty groups
        "s": rng.integers(0, 3, n).astype(float),  # heavy ties
        "tb": rng.integers(0, 2, n),
    }).sample(frac=1.0, random_state=seed)  # shuffled rows


def _oracle_mean(df, p, ties, empty="zero", tiebreak=None, threshold=None):
    return mean_over_groups(df, lambda o: rbp_oracle(o, p, threshold), ties, empty, tiebreak, threshold)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("ties", ["expected", "pessimistic", "optimistic"])
@pytest.mark.parametrize("p", [0.5, 0.8, 0.95])
def test_rbp_equals_enumeration(seed, ties, p):
    df = _frame(seed)
    got = pre.rbp(df, group="g", label="y", score="s", p=p, ties=ties)
    assert got == pytest.approx(_oracle_mean(df, p, ties), abs=1e-12)
    name = f"rbp@{p}"
    rep = pre.report(df, group="g", label="y", scores="s", metrics=[name], ties=ties)
    assert rep.loc["s", name] == pytest.approx(float(got), abs=1e-15)


def test_rbp_options_tiebreak_threshold_empty():
    df = _frame(4)
    got = pre.rbp(df, group="g", label="y", score="s", p=0.7, tiebreak="tb", threshold=2, empty="skip")
    assert got == pytest.approx(_oracle_mean(df, 0.7, "expected", "skip", "tb", 2), abs=1e-12)


def test_rbp_hand_worked():
    # one list [relevant, not, relevant] with p = 0.5: (1 - 0.5) (1 + 0.25) = 0.625
    df = pd.DataFrame({"q": 1, "rel": [1, 0, 1], "score": [3, 2, 1]})
    assert pre.rbp(df, group="q", label="rel", score="score", p=0.5) == 0.625
    # all three tied: each position holds 2/3 relevant in expectation: 0.5 (2/3) (1 + 0.5 + 0.25)
    df["score"] = 1
    assert pre.rbp(df, group="q", label="rel", score="score", p=0.5) == pytest.approx(0.5 * 2 / 3 * 1.75, abs=1e-15)


@pytest.mark.parametrize("bad", [0, 1, 1.5, -0.1, "0.8", True])
def test_rbp_bad_persistence(bad):
    df = _frame(0)
    with pytest.raises(ValueError, match=r"The 'p' parameter of rbp must be a float in the range \(0, 1\)"):
        pre.rbp(df, group="g", label="y", score="s", p=bad)
    with pytest.raises(ValueError, match="persistence of 'rbp@1.5' must be in the range"):
        pre.report(df, group="g", label="y", scores="s", metrics=["rbp@1.5"])
