"""Expected reciprocal rank: exact under ties, against brute-force enumeration of tie orderings."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from _oracles import mean_over_groups, tie_value

import pandas_rankeval as pre


def err_oracle(labels, k=None, threshold=None) -> float:
    """sum_{r <= k} R_r / r prod_{i < r} (1 - R_i), R = (2^label - 1) / 16, one ordering."""
    total, passed = 0.0, 1.0
    for rank, y in enumerate(labels[:k] if k is not None else labels, start=1):
        stop = (2.0 ** y - 1.0) / 16.0 if threshold is None or y >= threshold else 0.0
        total += passed * stop / rank
        passed *= 1.0 - stop
    return total


def _frame(seed: int, n_groups: int = 25, top: int = 4) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 8, n_groups)  # one-row groups and tied blocks of up to 7 rows
    g = np.repeat(np.arange(n_groups), sizes)
    n = g.shape[0]
    return pd.DataFrame({
        "g": g,
        "y": rng.integers(0, top + 1, n) * (rng.random(n) < 0.6),  # graded, all-zero groups too
        "s": rng.integers(0, 3, n).astype(float),  # heavy ties
        "tb": rng.integers(0, 2, n),
    }).sample(frac=1.0, random_state=seed)  # shuffled rows


def _oracle_mean(df, k, ties, empty="zero", tiebreak=None, threshold=None):
    return mean_over_groups(df, lambda o: err_oracle(o, k, threshold), ties, empty, tiebreak, threshold)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("ties", ["expected", "pessimistic", "optimistic"])
@pytest.mark.parametrize("k", [None, 1, 2, 5])  # cutoffs inside tied blocks
def test_err_equals_enumeration(seed, ties, k):
    df = _frame(seed)
    got = pre.err(df, group="g", label="y", score="s", k=k, ties=ties)
    assert got == pytest.approx(_oracle_mean(df, k, ties), abs=1e-12)
    name = "err" if k is None else f"err@{k}"
    rep = pre.report(df, group="g", label="y", scores="s", metrics=[name], ties=ties)
    assert rep.loc["s", name] == pytest.approx(float(got), abs=1e-15)


def test_err_options_tiebreak_threshold_empty_and_per_group():
    df = _frame(4)
    got = pre.err(df, group="g", label="y", score="s", k=3, tiebreak="tb", threshold=2, empty="skip")
    assert got == pytest.approx(_oracle_mean(df, 3, "expected", "skip", "tb", 2), abs=1e-12)
    assert got.coverage.n_empty == sum(not (grp["y"] >= 2).any() for _, grp in df.groupby("g"))
    table = pre.per_group(df, group="g", label="y", score="s", metrics=["err@5"])
    for key, grp in df.groupby("g"):
        want = tie_value(lambda o: err_oracle(o, 5), grp["y"].tolist(), grp["s"].tolist())
        assert table.loc[key, "err@5"] == pytest.approx(want, abs=1e-12)
    with pytest.raises(ValueError, match="no relevant row"):
        pre.err(df, group="g", label="y", score="s", empty="error")


def test_err_tie_free_and_one_block_groups_and_row_order():
    df = _frame(5)
    df["u"] = np.random.default_rng(5).permutation(len(df)).astype(float)  # no ties
    assert pre.err(df, group="g", label="y", score="u", k=4) == pytest.approx(
        _oracle_mean(df.assign(s=df["u"]), 4, "expected"), abs=1e-12)
    df["c"] = 1.0  # every group one tied block
    assert pre.err(df, group="g", label="y", score="c") == pytest.approx(
        _oracle_mean(df.assign(s=df["c"]), None, "expected"), abs=1e-12)
    back = df.iloc[::-1].set_axis(np.arange(len(df)) * 7)
    assert float(pre.err(back, group="g", label="y", score="s", k=3)) == float(
        pre.err(df, group="g", label="y", score="s", k=3))


def test_err_hand_worked():
    # grades 4, 0, 2 ranked in that order: R = 15/16, 0, 3/16
    df = pd.DataFrame({"q": 1, "grade": [4, 0, 2], "score": [3, 2, 1]})
    assert pre.err(df, group="q", label="grade", score="score") == pytest.approx(15 / 16 + (1 / 16) * (3 / 16) / 3, abs=1e-15)
    assert pre.err(df, group="q", label="grade", score="score", k=1) == 15 / 16
    # the three tied: the mean over the 6 orders, written out
    df["score"] = 1
    stops = [15 / 16, 0.0, 3 / 16]
    want = 0.0
    for order in itertools.permutations(stops):
        want += order[0] + (1 - order[0]) * order[1] / 2 + (1 - order[0]) * (1 - order[1]) * order[2] / 3
    assert pre.err(df, group="q", label="grade", score="score") == pytest.approx(want / 6, abs=1e-15)


def test_err_large_tied_block_with_a_cutoff_matches_its_closed_form():
    # 300 tied rows, 3 of grade 1 (R = 1/16): with k = 2 only two places count,
    # E = E[R_1] + E[(1 - R_1) R_2] / 2 by the two-row hypergeometric draws
    df = pd.DataFrame({"q": 1, "y": [1] * 3 + [0] * 297, "s": 0.0})
    r = 1 / 16
    p1 = 3 / 300
    both = 3 * 2 / (300 * 299)
    second = p1 - both  # second row relevant, first not
    want = p1 * r + (second * r + both * (1 - r) * r) / 2
    assert pre.err(df, group="q", label="y", score="s", k=2) == pytest.approx(want, abs=1e-14)


def test_err_refuses_grades_above_four():
    df = pd.DataFrame({"q": [1, 1, 2], "y": [5, 0, 1], "s": [1.0, 2.0, 3.0]})
    with pytest.raises(ValueError, match=r"1 row above grade 4 \(labels up to 5\); err reads labels as grades 0 to 4"):
        pre.err(df, group="q", label="y", score="s")
