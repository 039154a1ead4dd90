#!/usr/bin/env python
"""Coverage of global XAUC's clustered DeLong interval, and size and power of its paired test
(``xauc_interval``).

    python benchmarks/sim_xauc.py [--sims 400] [--groups 100 1000 10000] [--noise-b 0.85]

Data: users with 1 + Poisson(4) rows and a user effect u ~ N(0, 1); watch time
y = round(exp(0.6 u + e), 1) with e ~ N(0, 1) (many tied labels); the two models' scores are
round(log(1 + y) + 0.5 u' + noise, 2), noise N(0, 0.8) each, u' = u + N(0, 0.5) per user (a
per-user bias of the model shared by the user's rows: rows of a user are correlated, as on a
click log). The two models are exchangeable, so their population XAUCs are equal: the paired
test's null holds. The population XAUC comes from one sample of 300,000 users (~1.5e6 rows).

Prints, per number of users G: the coverage of the 95% interval (share of data sets whose
interval holds the population XAUC) with the clusters (group=user) and without them (every row
its own cluster, which ignores the within-user correlation), the mean width, and the size of the
paired test at alpha = 0.05 (share of data sets with p < 0.05). Standard error of a coverage near
0.95 with n data sets: sqrt(0.95 * 0.05 / n) (0.011 at 400).

Then the power: model b noisier (N(0, ``--noise-b``) instead of N(0, 0.8)), so its population XAUC
is lower by delta (from one sample of 300,000 users). Per number of users: the mean estimated
difference, its standard deviation over the data sets (sd: the true standard error, by
simulation), the mean standard error the test used over sd (1: the test's yardstick is right),
the share of data sets the test rejects at 0.05, and two references it should match: the test
that knows sd (rejects when |difference| > 1.96 sd, on the same data sets) and the normal
theory's power for delta / sd. The test estimates its standard error from each data set, so it
may fall a little below the references with few users; far below would waste data, far above
would mean its size is off.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import pandas_rankeval as pre  # noqa: E402
from pandas_rankeval.core.kernels.xauc import xauc_sums  # noqa: E402


def make(n_users: int, rng: np.random.Generator, noise_b: float = 0.8) -> pd.DataFrame:
    sizes = 1 + rng.poisson(4, n_users)
    user = np.repeat(np.arange(n_users), sizes)
    n = user.shape[0]
    u = rng.normal(size=n_users)[user]
    bias = u + rng.normal(0, 0.5, n_users)[user]
    y = np.round(np.exp(0.6 * u + rng.normal(size=n)), 1)
    base = np.log1p(y) + 0.5 * bias
    return pd.DataFrame({
        "user": user,
        "y": y,
        "a": np.round(base + rng.normal(0, 0.8, n), 2),
        "b": np.round(base + rng.normal(0, noise_b, n), 2),
    })


def population(rng: np.random.Generator) -> float:
    df = make(300_000, rng)
    num, den = xauc_sums(df["y"].to_numpy(), df["a"].to_numpy())
    num_b, den_b = xauc_sums(df["y"].to_numpy(), df["b"].to_numpy())
    return float((num[0] + num_b[0]) / (den[0] + den_b[0]))  # the two models are exchangeable


def population_delta(rng: np.random.Generator, noise_b: float) -> float:
    """XAUC(b) - XAUC(a) on one sample of 300,000 users, b with noise N(0, noise_b)."""
    df = make(300_000, rng, noise_b)
    y = df["y"].to_numpy()
    (num_a, den_a), (num_b, den_b) = xauc_sums(y, df["a"].to_numpy()), xauc_sums(y, df["b"].to_numpy())
    return float(num_b[0] / den_b[0] - num_a[0] / den_a[0])


def power(groups: list[int], sims: int, noise_b: float, rng: np.random.Generator) -> None:
    """The paired test's power against the test that knows the standard error, and the theory."""
    from scipy import stats

    delta = population_delta(rng, noise_b)
    z = stats.norm.ppf(0.975)
    print(f"\npower: b with noise N(0, {noise_b}), population delta {delta:.5f}")
    print(f"{'users':>6} {'rows':>7} {'mean diff':>10} {'sd':>8} {'se / sd':>8} {'power':>6} "
          f"{'known sd':>9} {'theory':>7}")
    for g in groups:
        diff, se, p = np.empty(sims), np.empty(sims), np.empty(sims)
        rows = 0
        t0 = time.perf_counter()
        for i in range(sims):
            df = make(g, rng, noise_b)
            rows += len(df)
            t = pre.xauc_interval(df, label="y", scores=["a", "b"], group="user", baseline="a")
            diff[i], p[i] = t.loc["b", "diff"], t.loc["b", "p_value"]
            se[i] = (t.loc["b", "diff_high"] - t.loc["b", "diff_low"]) / (2 * z)
        sd = float(diff.std(ddof=1))
        known = float(np.mean(np.abs(diff) > z * sd))
        theory = float(stats.norm.cdf(-z - delta / sd) + stats.norm.cdf(-z + delta / sd))
        print(f"{g:>6} {rows // sims:>7} {diff.mean():>10.5f} {sd:>8.5f} {se.mean() / sd:>8.3f} "
              f"{np.mean(p < 0.05):>6.3f} {known:>9.3f} {theory:>7.3f}   ({time.perf_counter() - t0:.1f} s)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sims", type=int, default=400)
    ap.add_argument("--groups", type=int, nargs="+", default=[100, 1000, 10000])
    ap.add_argument("--noise-b", type=float, default=0.85, help="model b's noise sd in the power runs (a: 0.8)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    t0 = time.perf_counter()
    truth = population(rng)
    print(f"population XAUC {truth:.5f} ({time.perf_counter() - t0:.1f} s)")
    print(f"{'users':>6} {'rows':>7} {'cover (user)':>13} {'cover (row)':>12} {'width':>7} {'size':>6}")
    for g in args.groups:
        hit = hit_rows = reject = 0
        width = 0.0
        rows = 0
        t0 = time.perf_counter()
        for _ in range(args.sims):
            df = make(g, rng)
            rows += len(df)
            t = pre.xauc_interval(df, label="y", scores=["a", "b"], group="user", baseline="a")
            hit += bool(t.loc["a", "xauc_low"] <= truth <= t.loc["a", "xauc_high"])
            width += t.loc["a", "xauc_high"] - t.loc["a", "xauc_low"]
            reject += bool(t.loc["b", "p_value"] < 0.05)
            r = pre.xauc_interval(df, label="y", scores="a")
            hit_rows += bool(r.loc["a", "xauc_low"] <= truth <= r.loc["a", "xauc_high"])
        n = args.sims
        print(f"{g:>6} {rows // n:>7} {hit / n:>13.3f} {hit_rows / n:>12.3f} {width / n:>7.4f} {reject / n:>6.3f}"
              f"   ({time.perf_counter() - t0:.1f} s)")
    power(args.groups, args.sims, args.noise_b, rng)


if __name__ == "__main__":
    main()
