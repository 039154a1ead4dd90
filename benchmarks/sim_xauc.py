#!/usr/bin/env python
"""Coverage of global XAUC's clustered DeLong interval and size of its paired test
(``xauc_interval``).

    python benchmarks/sim_xauc.py [--sims 400] [--groups 100 1000]

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


def make(n_users: int, rng: np.random.Generator) -> pd.DataFrame:
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
        "b": np.round(base + rng.normal(0, 0.8, n), 2),
    })


def population(rng: np.random.Generator) -> float:
    df = make(300_000, rng)
    num, den = xauc_sums(df["y"].to_numpy(), df["a"].to_numpy())
    num_b, den_b = xauc_sums(df["y"].to_numpy(), df["b"].to_numpy())
    return float((num[0] + num_b[0]) / (den[0] + den_b[0]))  # the two models are exchangeable


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sims", type=int, default=400)
    ap.add_argument("--groups", type=int, nargs="+", default=[100, 1000])
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


if __name__ == "__main__":
    main()
