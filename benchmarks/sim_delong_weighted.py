#!/usr/bin/env python
"""Size of the sample-weighted clustered DeLong test of compare (a measurement, not a timed test).

    python benchmarks/sim_delong_weighted.py [--reps 1000] [--sizes 30 100 300 1000] [--seed 5]

Null: two models with the same distribution on clustered data (the generator of
tests/test_delong.py: per-user click propensity and a score offset shared by the user's rows
and by both models; scores rounded to 0.1, so there are ties), each model with its own noise.
Every row has a sample weight, lognormal, heavier on clicks and shared in part by the user's
rows (so weights, labels and clusters are dependent). ``--reps`` data sets of each number of
users run in one ``compare(by="rep")`` call (each data set is a segment: its own AUCs and test).
Printed: the share of data sets whose weighted test rejects at 5% (target 0.05; its Monte Carlo
standard error is sqrt(.05 * .95 / reps), 0.007 at 1,000), next to the unweighted test on the
same data, and the mean weighted AUC.
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
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import pandas_rankeval as pre  # noqa: E402
from test_delong import clustered_replicates  # noqa: E402


def null_sets(n_rep: int, n_users: int, rng: np.random.Generator) -> pd.DataFrame:
    """``n_rep`` weighted data sets of ``n_users`` users, two models of the same distribution."""
    user, y, scores = clustered_replicates(n_rep, n_users, rng, betas=(1.0, 1.0))
    w_user = rng.lognormal(0.0, 0.5, n_rep * n_users)[user]
    w = w_user * rng.lognormal(0.0, 0.75, user.shape[0]) * np.where(y, 2.0, 1.0)
    return pd.DataFrame({"rep": user // n_users, "user": user, "y": y.astype(np.int8),
                         "a": scores[0], "b": scores[1], "w": w})


def rejection(df: pd.DataFrame, weighted: bool, alpha: float = 0.05) -> tuple[float, float]:
    """(share of data sets rejected at ``alpha``, mean AUC of model a)."""
    kw = dict(group="user", label="y", scores=["a", "b"], baseline="a", metrics=["auc"], by="rep")
    out = pre.compare(df, sample_weight="w" if weighted else None, **kw)
    p = out["p_value"].to_numpy(dtype=np.float64)
    return float(np.mean(p < alpha)), float(out["baseline_value"].mean())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=1000)
    ap.add_argument("--sizes", type=int, nargs="+", default=[30, 100, 300, 1000])
    ap.add_argument("--seed", type=int, default=5)
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore", pre.CoverageWarning)
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    se = (0.05 * 0.95 / args.reps) ** 0.5
    print(f"{args.reps} null data sets per size; Monte Carlo standard error of a rate near 0.05: {se:.4f}")
    print(f"{'users':>6} {'weighted':>9} {'unweighted':>11} {'mean AUC (weighted)':>20}")
    start = time.perf_counter()
    ok = True
    rng = np.random.default_rng(args.seed)
    for n_users in args.sizes:
        df = null_sets(args.reps, n_users, rng)
        rw, auc_w = rejection(df, True)
        ru, _ = rejection(df, False)
        ok &= abs(rw - 0.05) <= 3 * se + (0.01 if n_users < 100 else 0.0)
        print(f"{n_users:>6} {rw:>9.3f} {ru:>11.3f} {auc_w:>20.3f}")
    print(f"{time.perf_counter() - start:.1f} s; load average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
