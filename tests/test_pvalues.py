"""inference.pvalues: exact and approximate sign-flip p-values from additive sums; Holm, BH."""

from __future__ import annotations

import itertools
from math import comb

import numpy as np
import pytest

from pandas_rankeval.inference import pvalues as P


def _p(a, **kw):
    return float(P.signflip_pvalues(*[[x] for x in P.signflip_stats(np.asarray(a, dtype=float))], **kw)[0])


def _brute(a):
    a = np.asarray(a, dtype=float)
    signs = np.array(list(itertools.product([-1.0, 1.0], repeat=a.shape[0])))
    t = signs @ np.abs(a)
    return float(np.mean(np.abs(t) >= abs(a.sum()) - 1e-9 * np.abs(a).sum()))


@pytest.mark.parametrize("g", [1, 2, 3, 6, 9, 12, 14])
def test_exact_equals_brute_force_enumeration(g):
    rng = np.random.default_rng(g)
    for _ in range(15):
        # few distinct magnitudes: many ties of |T*| with |T|
        mags = rng.choice([0.25, 0.5, 1.0, float(rng.random())], g)
        a = rng.choice([-1.0, 1.0], g) * mags
        assert _p(a) == _brute(a)


def test_exact_counts_ties_and_binomial_tails():
    for g in (5, 16, 25, 30):
        for k in range(g + 1):
            a = np.r_[np.ones(k), -np.ones(g - k)]
            t = abs(2 * k - g)
            exact = sum(comb(g, j) for j in range(g + 1) if abs(2 * j - g) >= t) / 2**g
            assert _p(a) == pytest.approx(exact, rel=1e-12, abs=0)


def test_zero_differences_are_exactly_zero():
    assert _p(np.zeros(50)) == 1.0
    assert _p([]) == 1.0
    # a difference at float rounding is no difference
    a = P.signflip_terms(np.ones(40), np.full(40, 0.3), np.full(40, 0.3) + 1e-16, np.ones(40, dtype=bool))
    assert not a.any() and _p(a) == 1.0
    # positive and negative that cancel: p = 1
    assert _p([0.5, -0.5]) == 1.0
    # a zero group carries no sign: same p with or without it
    assert _p([0.3, 0.2, 0.0, 0.1]) == _p([0.3, 0.2, 0.1])


def test_floor_is_the_observed_pattern_not_a_replicate_count():
    for g in (10, 30):  # every group favours the model: the observed pattern and its mirror
        assert _p(np.ones(g)) == pytest.approx(2.0 ** (1 - g), rel=1e-12)
    for g in (45, 80):  # the approximation stays above that floor and far below 1e-6
        assert 2.0 ** (1 - g) <= _p(np.ones(g)) < 1e-10
    # thousands of groups: far below 1 / (n_boot + 1)
    a = np.random.default_rng(1).normal(0.05, 0.3, 5000)
    assert 0 < _p(a) < 1e-12


@pytest.mark.parametrize("kind", ["equal", "lognormal", "mrr", "one_or_two", "pareto"])
def test_tail_approximation_close_to_exact_at_the_atoms(kind):
    """The approximation (forced with exact_max=0) against the exact distribution on 31-38
    nonzero groups, at observed values of |T| (atoms), from the body to the 0.1% tail: never
    anti-conservative by more than 2%, never conservative by more than 35%."""
    rng = np.random.default_rng(5)
    draw = {
        "equal": lambda m: np.ones(m),
        "lognormal": lambda m: rng.lognormal(0.0, 1.5, m),
        "mrr": lambda m: np.abs(1 / rng.geometric(0.35, m) - 1 / rng.geometric(0.35, m)),
        "one_or_two": lambda m: rng.choice([1.0, 2.0], m, p=[0.8, 0.2]),
        "pareto": lambda m: rng.pareto(1.5, m) + 1,
    }[kind]
    for g in (31, 34, 38):
        a = draw(4 * g)
        a = a[a > 0][:g]
        n, _, s2, s4, top, amin = P.signflip_stats(a)
        draws = np.abs(rng.choice([-1.0, 1.0], (4000, a.size)) @ a)
        for t in np.quantile(draws, [0.5, 0.9, 0.99, 0.999], method="lower"):
            exact = P.exact_signflip_pvalue(a, t)
            approx = P.signflip_pvalues([n], [t], [s2], [s4], [top], [amin], exact_max=0)[0]
            assert 0.98 * exact <= approx <= 1.35 * exact, (g, t, exact, approx)


def test_sums_merge_like_one_partition():
    """Split the groups over partitions in any way: n and s add, top merges, amin is a min;
    the p-values are those of one partition."""
    rng = np.random.default_rng(3)
    a = rng.normal(0.02, 0.2, (500, 3))
    a[rng.random(500) < 0.3, 0] = 0.0
    seg = rng.integers(0, 4, 500)
    whole = P.signflip_sums(a, seg, 4)
    cut = rng.permutation(500)
    parts = [P.signflip_sums(a[idx], seg[idx], 4) for idx in np.array_split(cut, 5)]
    n = sum(p["n"] for p in parts)
    s = sum(p["s"] for p in parts)
    top = parts[0]["top"]
    amin = parts[0]["amin"]
    for p in parts[1:]:
        top = P.merge_top(top, p["top"])
        amin = np.minimum(amin, p["amin"])
    np.testing.assert_array_equal(n, whole["n"])
    np.testing.assert_allclose(s, whole["s"], rtol=1e-12)
    np.testing.assert_array_equal(top, whole["top"])
    np.testing.assert_array_equal(amin, whole["amin"])
    args = [x.reshape(12, *x.shape[2:]) for x in (n, s[..., 0], s[..., 1], s[..., 2], top, amin)]
    wargs = [x.reshape(12, *x.shape[2:]) for x in (whole["n"], *np.moveaxis(whole["s"], -1, 0), whole["top"],
                                                  whole["amin"])]
    np.testing.assert_allclose(P.signflip_pvalues(*args), P.signflip_pvalues(*wargs), rtol=1e-12)


def test_segments_are_independent_rows():
    rng = np.random.default_rng(4)
    a = rng.normal(0.1, 1.0, 300)
    seg = np.repeat([0, 1, 2], 100)
    s = P.signflip_sums(a, seg, 3)
    p = P.signflip_pvalues(s["n"][:, 0], s["s"][:, 0, 0], s["s"][:, 0, 1], s["s"][:, 0, 2], s["top"][:, 0],
                           s["amin"][:, 0])
    for k in range(3):
        assert p[k] == pytest.approx(_p(a[seg == k]), rel=1e-12)


def test_nan_difference_gives_nan():
    p = P.signflip_pvalues([3], [np.nan], [1.0], [1.0], [np.r_[1.0, 1.0, 1.0, np.zeros(27)]], [1.0])
    assert np.isnan(p[0])


def test_holm_and_bh_by_hand():
    p = np.array([0.01, 0.04, 0.03, np.nan, 0.005])
    np.testing.assert_allclose(P.holm(p), [0.03, 0.06, 0.06, np.nan, 0.02])
    # BH: sorted 0.005, 0.01, 0.03, 0.04 (m = 4) -> 0.02, 0.02, 0.04, 0.04
    np.testing.assert_allclose(P.benjamini_hochberg(p), [0.02, 0.04, 0.04, np.nan, 0.02])
    np.testing.assert_allclose(P.adjust_pvalues(p, "none"), p)
    assert P.benjamini_hochberg(np.array([0.9, 0.95])).tolist() == [0.95, 0.95]


def test_bh_is_monotone_and_below_holm():
    rng = np.random.default_rng(6)
    p = rng.random(200) ** 3
    bh, hm = P.benjamini_hochberg(p), P.holm(p)
    order = np.argsort(p)
    assert np.all(np.diff(bh[order]) >= 0) and np.all(np.diff(hm[order]) >= 0)
    assert np.all(bh <= hm + 1e-15) and np.all(bh >= p)


def test_family_per_metric():
    p = np.array([0.01, 0.02, 0.01, 0.02])
    fam = np.array(["gauc", "mrr", "gauc", "mrr"])
    np.testing.assert_allclose(P.adjust_pvalues(p, "holm", family=fam), [0.02, 0.04, 0.02, 0.04])
    np.testing.assert_allclose(P.adjust_pvalues(p, "holm"), [0.04, 0.04, 0.04, 0.04])


def test_adjust_errors():
    with pytest.raises(ValueError, match=r"The 'adjust' parameter of adjust_pvalues must be one of 'holm', 'bh', 'none'. Got 'bonf'"):
        P.adjust_pvalues(np.array([0.1]), "bonf")
    with pytest.raises(ValueError, match=r"2 family labels for 1 p-values"):
        P.adjust_pvalues(np.array([0.1]), "holm", family=["a", "b"])


@pytest.mark.parametrize("seed", range(4))
def test_small_rows_enumerated_together_equal_one_row_at_a_time(seed):
    """Rows of at most SMALL_EXACT nonzero terms take their 2^k sign patterns in one matrix
    product (zero-padded); the p-values equal the exact meet-in-the-middle count of each row
    alone, ties (equal terms, |T| on an atom) and 0 to 12 terms included."""
    rng = np.random.default_rng(seed)
    rows = []
    for g in list(range(0, 13)) * 4:
        a = rng.choice([-1.0, 1.0], g) * (rng.integers(1, 4, g) if rng.random() < 0.5 else rng.random(g))
        rows.append(P.signflip_stats(a))
    n, s1, s2, s4, top, amin = (np.array(x) for x in zip(*rows))
    got = P.signflip_pvalues(n, s1, s2, s4, top, amin)
    want = np.array([
        P.exact_signflip_pvalue(top[i, : n[i]], s1[i]) if n[i] and s2[i] > 0 and abs(s1[i]) > P.TIE_TOL * top[i].sum()
        else 1.0
        for i in range(len(rows))
    ])
    assert (n <= P.SMALL_EXACT).any() and (n > P.SMALL_EXACT).any()
    np.testing.assert_array_equal(got, want)


def test_bootstrap_and_signflip_share_the_zero_rule():
    """A difference at float rounding (an expected-ties AP of 0.9999999999999998 against 1.0)
    is zero for both tests: the sign-flip term is 0, the bootstrap p-value is 1."""
    from pandas_rankeval.inference.bootstrap import bootstrap_pvalues

    vm, vb = np.array([1.0 - 2.0**-52, 0.75]), np.array([1.0, 0.5])
    d = vm - vb
    assert P.zero_difference(d, vm, vb).tolist() == [True, False]
    assert P.signflip_terms(np.ones(2), vm, vb, np.ones(2, bool)).tolist() == [0.0, 0.25]
    reps = np.random.default_rng(0).normal(0.0, 3e-16, (200, 1))
    assert bootstrap_pvalues(d[:1], reps, vm[:1], vb[:1]).tolist() == [1.0]
    # a real difference is unaffected
    assert bootstrap_pvalues(np.array([0.25]), reps + 0.25, [0.75], [0.5])[0] < 0.01


def _all_positive_groups():
    import pandas as pd

    rows = [(g, 1, float(3 + g % 5 - i), 0.5) for g in range(40) for i in range(3 + g % 5)]
    return pd.DataFrame(rows, columns=["g", "y", "a", "b"])


@pytest.mark.parametrize("engine", ["pandas", "dask"])
def test_bootstrap_test_of_rounding_differences_is_one_on_every_engine(engine):
    """All-positive groups: a strict ranking gives AP 1.0, all scores tied give the expected
    AP 1 up to rounding; Dask sums in another order and used to give p = 0.945 here."""
    import pandas_rankeval as pre

    df = _all_positive_groups()
    if engine == "dask":
        dd = pytest.importorskip("dask.dataframe")
        import dask

        with dask.config.set({"scheduler": "synchronous"}):
            res = pre.compare(dd.from_pandas(df, npartitions=3), group="g", label="y", scores=["a", "b"],
                              baseline="a", metrics=["map"], method="bootstrap", n_boot=200)
    else:
        res = pre.compare(df, group="g", label="y", scores=["a", "b"], baseline="a", metrics=["map"],
                          method="bootstrap", n_boot=200)
    assert res["p_value"].tolist() == [1.0]
