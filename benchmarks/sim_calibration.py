#!/usr/bin/env python
"""Coverage of the calibration metrics' intervals and size of their paired tests, by simulation.

    python benchmarks/sim_calibration.py [--sims 400] [--groups 30 300 3000] [--n-boot 500]

Each data set is drawn from one fixed population: groups of 2 to 15 rows, each row with a true
click probability p = sigmoid(a_group + x_row) and a click y ~ Bernoulli(p). Model A scores the
rows with sigmoid(a + x + e_A), model B with sigmoid(a + x + e_B) (e ~ N(0, 0.5), independent),
so both are equally (mis)calibrated and every true difference is 0. The true values of logloss,
ne, pcoc and ece@10 of model A are their population values, computed once from 2,000,000 groups
of the same population (their Monte Carlo error is far below an interval's width).

Printed per number of groups: the share of data sets whose 95% percentile interval of model A
holds the true value (target 0.95), and the share whose paired test of A against B gives
p < 0.05 (target 0.05). Every data set is one segment of one call (by="set"), its own groups and
its own bootstrap. Binomial standard error near 0.95 with n data sets: sqrt(0.95 * 0.05 / n)
(0.011 at 400); near 0.05 the same.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import pandas_rankeval as pre  # noqa: E402

METRICS = ["logloss", "ne", "pcoc", "ece@10"]


def population(rng: np.random.Generator, n_groups: int, sets: int = 1) -> pd.DataFrame:
    total = n_groups * sets
    sizes = rng.integers(2, 16, total)
    g = np.repeat(np.arange(total), sizes)
    n = g.shape[0]
    a = rng.normal(-2.0, 1.0, total)[g]
    x = rng.normal(0.0, 1.0, n)
    p = 1.0 / (1.0 + np.exp(-(a + x)))
    y = (rng.random(n) < p).astype(np.int64)
    out = {"set": g // n_groups, "user_id": g, "click": y}
    for m in ("model_a", "model_b"):
        out[m] = 1.0 / (1.0 + np.exp(-(a + x + rng.normal(0.0, 0.5, n))))
    return pd.DataFrame(out)


def truth(seed: int) -> pd.Series:
    big = population(np.random.default_rng(seed), 2_000_000)
    rep = pre.report(big, group="user_id", label="click", scores="model_a", metrics=METRICS)
    return rep.loc["model_a", METRICS].astype(float)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sims", type=int, default=400)
    ap.add_argument("--groups", type=int, nargs="+", default=[30, 300, 3000])
    ap.add_argument("--n-boot", type=int, default=500)
    ap.add_argument("--seed", type=int, default=11)
    args = ap.parse_args(argv)
    print(f"load average {os.getloadavg()[0]:.2f}; {args.sims} data sets per size, n_boot={args.n_boot}")
    t0 = time.perf_counter()
    true = truth(args.seed + 1000)
    print("population values of model A:", ", ".join(f"{m} {v:.5f}" for m, v in true.items()),
          f"({time.perf_counter() - t0:.0f} s)")
    print(f"{'groups':>7} " + " ".join(f"{'cover ' + m:>14}" for m in METRICS) + " "
          + " ".join(f"{'size ' + m:>13}" for m in METRICS) + f" {'s':>6}")
    rng = np.random.default_rng(args.seed)
    for n_groups in args.groups:
        t0 = time.perf_counter()
        df = population(rng, n_groups, args.sims)
        kw = dict(group="user_id", label="click", metrics=METRICS, by="set", n_boot=args.n_boot, seed=1)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            rep = pre.report(df, scores="model_a", ci=0.95, **kw)
            cmp = pre.compare(df, scores=["model_a", "model_b"], baseline="model_b", **kw)
        cover, size = [], []
        for m in METRICS:
            lo, hi = rep[f"{m}_low"].to_numpy(float), rep[f"{m}_high"].to_numpy(float)
            ok = np.isfinite(lo) & np.isfinite(hi)
            cover.append(((lo <= true[m]) & (true[m] <= hi))[ok].mean())
            p = cmp.xs(m, level="metric")["p_value"].to_numpy(float)
            size.append((p[np.isfinite(p)] < 0.05).mean())
        print(f"{n_groups:>7,} " + " ".join(f"{c:>14.3f}" for c in cover) + " "
              + " ".join(f"{s:>13.3f}" for s in size) + f" {time.perf_counter() - t0:>6.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
