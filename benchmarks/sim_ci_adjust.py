#!/usr/bin/env python
"""Simultaneous coverage of compare's intervals: ``ci_adjust="none"`` against ``"bonferroni"``.

    python benchmarks/sim_ci_adjust.py [--sims 400] [--groups 30 300 3000] [--n-boot 500]

Three models drawn from the same distribution (binormal scores with a shared group effect, the
generator of tests/test_compare_sim.py), so every true difference is 0. All pairs x (gauc, mrr,
ndcg@10) is a family of 9 intervals per data set. Printed per number of groups: the share of data
sets where all 9 intervals at 95% hold 0 (family-wise coverage), unadjusted and Bonferroni-
adjusted, the marginal coverage of one interval, the share with some mark (Holm p < 0.05) and
the median width ratio adjusted / unadjusted. Each data set is one segment of one call (segments
are independent data sets with their own groups); the adjustment is applied per data set with
the function compare(ci_adjust="bonferroni") uses (tests/test_compare.py checks that compare
gives exactly these intervals). Binomial standard error of a coverage near 0.95 with n data sets:
sqrt(0.95 * 0.05 / n) (0.011 at 400).
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
from pandas_rankeval.tables.compare import bonferroni_intervals  # noqa: E402

METRICS = ["gauc", "mrr", "ndcg@10"]


def simulate(rng: np.random.Generator, n_sets: int, n_groups: int) -> pd.DataFrame:
    """``n_sets`` data sets of ``n_groups`` groups each (column ``set``), 3 exchangeable models."""
    total = n_sets * n_groups
    sizes = rng.integers(2, 16, total)
    g = np.repeat(np.arange(total), sizes)
    n = g.shape[0]
    ctr = rng.beta(1.0, 5.0, total)
    y = (rng.random(n) < ctr[g]).astype(np.int64)
    b = rng.normal(0.0, 1.0, total)[g]
    out = {"set": g // n_groups, "user_id": g, "click": y}
    for m in ("model_a", "model_b", "model_c"):
        out[m] = y + b + rng.normal(size=n)
    return pd.DataFrame(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sims", type=int, default=400)
    ap.add_argument("--groups", type=int, nargs="+", default=[30, 300, 3000])
    ap.add_argument("--n-boot", type=int, default=500)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args(argv)
    print(f"load average {os.getloadavg()[0]:.2f}; {args.sims} data sets per size, n_boot={args.n_boot}, "
          f"family: 3 pairs x {len(METRICS)} metrics = 9 intervals at 95%")
    print(f"{'groups':>7} {'fw unadj':>9} {'fw bonf':>8} {'marginal':>9} {'any mark':>9} {'width x':>8} {'s':>6}")
    rng = np.random.default_rng(args.seed)
    for n_groups in args.groups:
        t0 = time.perf_counter()
        df = simulate(rng, args.sims, n_groups)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            cmp = pre.compare(df, group="user_id", label="click", scores=["model_a", "model_b", "model_c"],
                              baseline=None, metrics=METRICS, by="set", n_boot=args.n_boot, seed=1)
        diff, lo, hi = (cmp[c].to_numpy(dtype=float) for c in ("diff", "ci_low", "ci_high"))
        sets = cmp.index.get_level_values("set").to_numpy()
        blo, bhi = lo.copy(), hi.copy()
        for s in np.unique(sets):  # the family of one data set: its 9 rows
            at = sets == s
            blo[at], bhi[at] = bonferroni_intervals(diff[at], lo[at], hi[at], 0.95, None)
        ok = np.isfinite(diff)
        hold = pd.Series((lo <= 0) & (0 <= hi) | ~ok).groupby(sets).all()
        hold_b = pd.Series((blo <= 0) & (0 <= bhi) | ~ok).groupby(sets).all()
        # Holm within each data set (the table's Holm runs over every set: recomputed per set here)
        from pandas_rankeval.inference.pvalues import adjust_pvalues
        p = cmp["p_value"].to_numpy(dtype=float)
        marks = np.zeros(len(p), dtype=bool)
        for s in np.unique(sets):
            at = sets == s
            marks[at] = np.nan_to_num(adjust_pvalues(p[at], "holm"), nan=1.0) < 0.05
        any_mark = pd.Series(marks).groupby(sets).any().mean()
        marginal = ((lo <= 0) & (0 <= hi))[ok].mean()
        width = np.median(((bhi - blo) / (hi - lo))[ok & (hi > lo)])
        print(f"{n_groups:>7,} {hold.mean():>9.3f} {hold_b.mean():>8.3f} {marginal:>9.3f} {any_mark:>9.3f} "
              f"{width:>8.2f} {time.perf_counter() - t0:>6.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
