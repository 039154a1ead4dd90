#!/usr/bin/env python
"""Clustered DeLong against the group bootstrap at scale (a measurement, not a timed test).

    python benchmarks/sim_delong.py [--n-users 5000] [--n-boot 4000]

The long version of tests/test_delong.py::test_delong_agrees_with_the_group_bootstrap_on_large_data:
one clustered data set (the generator of tests/test_delong.py, seed 99, two models with label
effects 1.0 and 1.2), the width of the clustered-DeLong 95% interval of each model's AUC
(report) and of the paired difference (compare) divided by the width of the percentile group
bootstrap with ``--n-boot`` replicates (4,000: the Monte Carlo error of a width is about 1.5%),
and both p-values of the difference. Target: every ratio within 1 +- 0.1. The suite runs the
same check with 1,000 replicates (Monte Carlo error about 3%).

Prints the load average with the result; the time is information only.
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


def widths(n_users: int, n_boot: int, seed: int = 99) -> dict[str, float]:
    """Ratios DeLong width / bootstrap width (model a, model b, b - a) and both p-values of b - a."""
    user, y, scores = clustered_replicates(1, n_users, np.random.default_rng(seed), betas=(1.0, 1.2))
    df = pd.DataFrame({"user_id": user, "click": y.astype(np.int8), "a": scores[0], "b": scores[1]})
    kw = dict(group="user_id", label="click", scores=["a", "b"], metrics=["auc"], ci=0.95)
    dl = pre.report(df, **kw)
    bs = pre.report(df, auc_method="bootstrap", n_boot=n_boot, seed=1, **kw)
    ratio = ((dl["auc_high"] - dl["auc_low"]) / (bs["auc_high"] - bs["auc_low"])).to_numpy()
    kw = dict(group="user_id", label="click", scores=["a", "b"], baseline="a", metrics=["auc"])
    c_dl = pre.compare(df, **kw)
    c_bs = pre.compare(df, auc_method="bootstrap", n_boot=n_boot, seed=1, **kw)
    diff = (c_dl["ci_high"] - c_dl["ci_low"]).iloc[0] / (c_bs["ci_high"] - c_bs["ci_low"]).iloc[0]
    return {"a": float(ratio[0]), "b": float(ratio[1]), "b - a": float(diff),
            "p DeLong": float(c_dl["p_value"].iloc[0]), "p bootstrap": float(c_bs["p_value"].iloc[0])}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n-users", type=int, default=5000)
    ap.add_argument("--n-boot", type=int, default=4000)
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore", pre.CoverageWarning)
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    start = time.perf_counter()
    out = widths(args.n_users, args.n_boot)
    took = time.perf_counter() - start
    print(f"{args.n_users} users, bootstrap n_boot={args.n_boot}")
    ok = True
    for name in ("a", "b", "b - a"):
        inside = abs(out[name] - 1.0) <= 0.1
        ok &= inside
        print(f"  DeLong / bootstrap width, {name:5s}: {out[name]:.3f}   target 1 +- 0.1: {'ok' if inside else 'MISSED'}")
    print(f"  p-value of b - a: DeLong {out['p DeLong']:.2e}, bootstrap {out['p bootstrap']:.2e}")
    print(f"{took:.1f} s; load average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
