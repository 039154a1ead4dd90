"""Size and power of xauc_interval's paired test, and the coverage of its interval, by simulation
(seeded, marked slow: ~20 s). The data sets are those of ``benchmarks/sim_xauc.py`` (users with a
per-user effect on watch time and on both models' scores, tied labels and scores), which prints
the long tables (up to 10,000 users, 1,000 data sets a row)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import pandas_rankeval as pre

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from sim_xauc import make, population  # noqa: E402

pytestmark = pytest.mark.slow
N_SIMS, N_USERS, Z = 400, 300, 1.959963984540054


def _band(p: float, n: int = N_SIMS, z: float = 3.0) -> tuple[float, float]:
    """Where the share of n independent data sets lands for a rate p: +- z binomial errors."""
    half = z * (p * (1 - p) / n) ** 0.5
    return p - half, p + half


def test_size_and_coverage_with_exchangeable_models():
    rng = np.random.default_rng(7)
    truth = population(rng)
    reject = cover = 0
    for _ in range(N_SIMS):
        t = pre.xauc_interval(make(N_USERS, rng), label="y", scores=["a", "b"], group="user", baseline="a")
        reject += bool(t.loc["b", "p_value"] < 0.05)
        cover += bool(t.loc["a", "xauc_low"] <= truth <= t.loc["a", "xauc_high"])
    lo, hi = _band(0.05)
    assert lo <= reject / N_SIMS <= hi
    lo, hi = _band(0.95)
    assert lo <= cover / N_SIMS <= hi


def test_power_equals_the_test_that_knows_the_standard_error():
    """Model b noisier: the test's standard error is the true one (the sd of the difference over
    the data sets) and its power is that of the test that knows it, on the same data sets."""
    rng = np.random.default_rng(8)
    diff, se, p = np.empty(N_SIMS), np.empty(N_SIMS), np.empty(N_SIMS)
    for i in range(N_SIMS):
        t = pre.xauc_interval(make(N_USERS * 3, rng, noise_b=0.85), label="y", scores=["a", "b"], group="user",
                              baseline="a")
        diff[i], p[i] = t.loc["b", "diff"], t.loc["b", "p_value"]
        se[i] = (t.loc["b", "diff_high"] - t.loc["b", "diff_low"]) / (2 * Z)
    sd = diff.std(ddof=1)
    assert 0.85 <= se.mean() / sd <= 1.15  # sd itself is known to ~3.5% from 400 data sets
    power, known = float(np.mean(p < 0.05)), float(np.mean(np.abs(diff) > Z * sd))
    assert 0.3 <= known <= 0.9  # a power far from 0 and 1, where a wrong test would show
    assert abs(power - known) <= 3 * (known * (1 - known) / N_SIMS) ** 0.5
