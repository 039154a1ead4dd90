"""inference.signflip_lattice: the exact lattice sign-flip distribution and its mergeable histogram."""

from __future__ import annotations

import itertools
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

import pandas_rankeval as pre
from pandas_rankeval.inference import pvalues as P
from pandas_rankeval.inference import signflip_lattice as L


def _brute(a):
    a = np.asarray(a, dtype=float)
    signs = np.array(list(itertools.product([-1.0, 1.0], repeat=a.shape[0])))
    t = signs @ np.abs(a)
    return float(np.mean(np.abs(t) >= abs(a.sum()) - 1e-9 * np.abs(a).sum()))


def _p(a, **kw):
    s = P.signflip_sums(np.asarray(a, dtype=float))
    args = [s["n"][0], s["s"][0, :, 0], s["s"][0, :, 1], s["s"][0, :, 2], s["top"][0], s["amin"][0]]
    return float(P.signflip_pvalues(*args, hist=s["hist"][0], **kw)[0])


@pytest.mark.parametrize("g", [12, 13, 14])
def test_lattice_path_equals_brute_force(g):
    """The lattice path forced (exact_max=0) against all 2^g sign vectors: hit rate, thirds, MRR."""
    rng = np.random.default_rng(g)
    for mags in ([1.0], [1 / 3, 2 / 3, 1.0], [1 - 1 / 2, 1 - 1 / 3, 1 / 2 - 1 / 3, 1 / 3 - 1 / 4, 1.0]):
        for _ in range(4):
            a = rng.choice([-1.0, 1.0], g) * rng.choice(mags, g)
            assert _p(a, exact_max=0) == pytest.approx(_brute(a), rel=1e-9, abs=1e-15)


@pytest.mark.parametrize("g", [15, 16])
def test_lattice_path_equals_brute_force_mixed(g):
    """15 and 16 groups, mixed magnitudes (MRR-like, thirds, integers), lattice path forced."""
    rng = np.random.default_rng(g)
    signs = 1.0 - 2.0 * ((np.arange(1 << g)[:, None] >> np.arange(g)) & 1)
    for mags in ([1 / 2, 1 / 3, 1 / 6, 1 / 12, 1.0], [1.0, 2.0, 5.0]):
        a = rng.choice([-1.0, 1.0], g, p=[0.3, 0.7]) * rng.choice(mags, g)
        brute = float(np.mean(np.abs(signs @ np.abs(a)) >= abs(a.sum()) - 1e-9 * np.abs(a).sum()))
        assert _p(a, exact_max=0) == pytest.approx(brute, rel=1e-9, abs=1e-15)


def test_histogram_keys_merge_float_noise():
    """Values equal up to float noise (1/3 and 1/2 - 1/6, 2/3 and 1 - 1/3) are one key, in any
    partition; the lattice p-value is the exact one."""
    third, noisy = 1 / 3, 1 / 2 - 1 / 6
    assert third != noisy
    a = np.r_[np.full(20, third), np.full(20, -noisy), np.full(15, 2 / 3), np.full(10, -(1 - 1 / 3))]
    h = P.signflip_sums(a)["hist"][0, 0]
    assert (h[1] > 0).sum() == 2 and h[1, :2].tolist() == [40.0, 25.0]
    parts = [P.signflip_sums(a[i])["hist"] for i in np.array_split(np.arange(a.size)[::-1], 3)]
    np.testing.assert_array_equal(L.merge_hist(L.merge_hist(parts[0], parts[1]), parts[2]),
                                  P.signflip_sums(a)["hist"])
    # T' = sum m_v B_v with 40 ones and 25 twos: the exact two-sided tail by direct convolution
    pmf = np.array([1.0])
    for m, c in ((1, 40), (2, 25)):
        b = np.zeros(m * c + 1)
        b[::m] = stats.binom.pmf(np.arange(c + 1), c, 0.5)
        pmf = np.convolve(pmf, b)
    t = np.arange(pmf.size) * 2.0 - 90.0  # T / (1/3) = 2 T' - M
    ref = float(pmf[np.abs(t) >= abs(a.sum()) * 3 - 1e-9].sum())
    assert _p(a) == pytest.approx(ref, rel=1e-9)


def test_lattice_path_equals_exact_enumeration_up_to_30():
    rng = np.random.default_rng(7)
    for g in (20, 25, 30):
        for w in ([1.0, 2.0, 3.0], [0.25, 0.5, 0.75, 1.0]):
            a = rng.choice([-1.0, 1.0], g, p=[0.35, 0.65]) * rng.choice(w, g)
            assert _p(a, exact_max=0) == pytest.approx(_p(a), rel=1e-9, abs=1e-15)


def test_non_lattice_and_overflow_keep_the_approximation():
    rng = np.random.default_rng(8)
    a = rng.normal(0.05, 0.3, 200)  # 200 distinct values: overflowed
    s = P.signflip_sums(a)
    assert s["hist"][0, 0, 1, 0] == -1
    args = [s["n"][0], s["s"][0, :, 0], s["s"][0, :, 1], s["s"][0, :, 2], s["top"][0], s["amin"][0]]
    assert P.signflip_pvalues(*args, hist=s["hist"][0])[0] == P.signflip_pvalues(*args)[0]
    b = rng.choice([1.0, np.sqrt(2.0), np.pi], 50) * rng.choice([-1.0, 1.0], 50)  # 3 values, no lattice
    sb = P.signflip_sums(b)
    args = [sb["n"][0], sb["s"][0, :, 0], sb["s"][0, :, 1], sb["s"][0, :, 2], sb["top"][0], sb["amin"][0]]
    assert P.signflip_pvalues(*args, hist=sb["hist"][0])[0] == P.signflip_pvalues(*args)[0]
    # a window too large for lattice_max: the approximation
    c = rng.choice([-1.0, 1.0], 60) * rng.choice([1.0, 2.0], 60)
    sc = P.signflip_sums(c)
    args = [sc["n"][0], sc["s"][0, :, 0], sc["s"][0, :, 1], sc["s"][0, :, 2], sc["top"][0], sc["amin"][0]]
    assert P.signflip_pvalues(*args, hist=sc["hist"][0], lattice_max=8)[0] == P.signflip_pvalues(*args)[0]


def test_histogram_merge_is_the_same_whatever_the_partitioning():
    rng = np.random.default_rng(9)
    a = rng.choice([0.0, 1 / 3, 2 / 3, 1.0, 0.5], (600, 2)) * rng.choice([-1.0, 1.0], (600, 2))
    a[:, 1] += np.where(rng.random(600) < 0.6, rng.random(600), 0.0)  # column 1 overflows
    seg = rng.integers(0, 3, 600)
    whole = P.signflip_sums(a, seg, 3)["hist"]
    for split in (2, 5, 17):
        parts = [P.signflip_sums(a[i], seg[i], 3)["hist"] for i in np.array_split(rng.permutation(600), split)]
        h = parts[0]
        for q in parts[1:]:
            h = L.merge_hist(q, h)
        np.testing.assert_array_equal(h, whole)
    assert (whole[:, 1, 1, 0] == -1).all() and (whole[:, 0, 1, 0] > 0).all()
    tot = L.hist_total(whole)
    np.testing.assert_array_equal(tot, P.signflip_sums(a)["hist"][0])


def test_compare_same_pvalues_from_partitions():
    """A frame cut into partitions of whole groups: the summed Summary gives exactly the
    p-values of one partition (the lattice path on hit rate and recall@3, 120 groups)."""
    import pandas as pd

    from pandas_rankeval import summary as S
    from pandas_rankeval.tables import finalize

    rng = np.random.default_rng(10)
    g = np.repeat(np.arange(120), 4)
    y = (rng.random(g.size) < 0.3).astype(int)
    df = pd.DataFrame({"q": g, "y": y, "a": rng.random(g.size), "b": rng.random(g.size) + 0.3 * y})
    kw = {"group": "q", "label": "y", "scores": ["a", "b"], "baseline": "a", "metrics": ["hit_rate@1", "recall@3"],
          "ci": 0.5, "n_boot": 2, "adjust": "none"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = pre.compare(df, **kw)["p_value"].to_numpy()
        plan = S.make_plan("compare", kind="compare", **kw)
        part = rng.integers(0, 5, 120)[g]
        got = finalize(sum(S.summarize(df[part == i], plan) for i in range(5)), plan)["p_value"].to_numpy()
    np.testing.assert_array_equal(got, expected)
    assert np.isfinite(expected).all() and (expected < 1).all()


def test_gauc_pvalues_unchanged_from_main():
    """Continuous-score gauc (no lattice): the p-values of main, to the last bit."""
    sys.path.insert(0, str(Path(__file__).parent))
    from test_compare_sim import simulate

    out = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for seed, n in [(1, 35), (2, 60), (3, 300)]:
            df = simulate(np.random.default_rng(seed), n, 1.0, 1.2)
            res = pre.compare(df, group="user_id", label="click", scores=["model_a", "model_b"], baseline="model_a",
                              metrics=["gauc"], ci=0.5, n_boot=2, adjust="none")
            out.append(float(res["p_value"].iloc[0]))
    assert out == [0.7841644287109375, 0.3503342270851135, 0.10611213222164023]


def test_fine_reciprocal_rank_units_take_the_exact_path():
    """Differences of reciprocal ranks up to 1/15 (unit 1/lcm(1..15) = 1/360360, too fine for a
    float Euclid): the rational fit finds the unit, and the lattice path equals all 2^16 sign
    vectors; sqrt(2) ratios have no unit and are refused."""
    from pandas_rankeval.inference.signflip_lattice import rational_lattice

    rr = 1 / np.arange(1, 16)
    mags = np.unique(np.round(np.abs(rr[:, None] - rr[None, :]), 15))
    mags = mags[mags > 0][::7]
    fit = rational_lattice(mags)
    assert fit is not None
    m, q = fit
    np.testing.assert_allclose(m * q, mags, rtol=1e-11)
    assert round(1 / q) % 7 == 0 and round(1 / q) % 11 == 0  # the unit has the fine denominators
    assert rational_lattice(np.array([1.0, 2.0**0.5, 3.0])) is None
    g = 16
    rng = np.random.default_rng(4)
    signs = 1.0 - 2.0 * ((np.arange(1 << g)[:, None] >> np.arange(g)) & 1)
    a = rng.choice([-1.0, 1.0], g, p=[0.3, 0.7]) * rng.choice(mags, g)
    brute = float(np.mean(np.abs(signs @ np.abs(a)) >= abs(a.sum()) - 1e-9 * np.abs(a).sum()))
    assert _p(a, exact_max=0) == pytest.approx(brute, rel=1e-9, abs=1e-15)


def test_a_window_too_large_falls_back_to_the_approximation_not_to_one():
    """60 groups of |a| in {1, 2} with T = 41: the exact tail equals a direct convolution of the
    signs; with a window cap too small for it, the approximation (close to it), never p = 1
    (``min(1.0, nan)`` once gave 1)."""
    a = np.r_[np.full(29, 2.0), np.full(7, 1.0), np.full(24, -1.0)]  # T = 58 + 7 - 24 = 41
    law = np.array([1.0])
    for m in np.abs(a).astype(int):  # P(sum s_g |a_g| = t), t from -90 to 90, by convolution
        step = np.zeros(2 * m + 1)
        step[0] = step[-1] = 0.5
        law = np.convolve(law, step)
    t = np.arange(law.shape[0]) - (law.shape[0] - 1) // 2
    exact = float(law[np.abs(t) >= 41].sum())
    assert _p(a) == pytest.approx(exact, rel=1e-9)
    small = _p(a, lattice_max=8)
    assert np.isfinite(small) and small < 0.01 and small == pytest.approx(exact, rel=0.1)
