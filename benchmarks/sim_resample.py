#!/usr/bin/env python
"""Coverage and false-positive rates of the two group bootstraps, side by side (not a timed test).

    python benchmarks/sim_resample.py [--n-sim 200]

Re-runs the simulations of tests/test_stats.py (95% intervals of auc, gauc, mrr, ndcg@5 on 300
groups against the known truth; report(ci=0.95, n_boot=400)) and tests/test_compare.py (two
identical models, 200 groups, compare(n_boot=200): share of p < 0.05) for the hashed Poisson(1)
bootstrap with hashed sign flips (the default, resample="poisson") and for the multinomial
bootstrap with numpy sign flips (resample="multinomial"), on the same simulated data sets and
seeds. The tests assert the bands for the default; this script prints both.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import pandas_rankeval as pre  # noqa: E402
from test_compare import simulate as simulate_pair  # noqa: E402
from test_stats import MU, TAU, simulate  # noqa: E402


def truth() -> dict[str, float]:
    import math

    from scipy.stats import norm

    big = simulate(np.random.default_rng(123), 300_000)
    rep = pre.report(big, group="user_id", label="click", scores="model_a", metrics=["mrr", "ndcg@5"])
    return {
        "gauc": float(norm.cdf(MU / math.sqrt(2))),
        "auc": float(norm.cdf(MU / math.sqrt(2 * (1 + TAU**2)))),
        "mrr": float(rep.loc["model_a", "mrr"]),
        "ndcg@5": float(rep.loc["model_a", "ndcg@5"]),
    }


def coverage(n_sim: int, resample: str, t: dict[str, float]) -> dict[str, float]:
    rng = np.random.default_rng(2024)
    metrics = ["auc", "gauc", "mrr", "ndcg@5"]
    hits = dict.fromkeys(metrics, 0)
    for i in range(n_sim):
        df = simulate(rng, 300)
        rep = pre.report(df, group="user_id", label="click", scores="model_a", metrics=metrics,
                         ci=0.95, n_boot=400, seed=i, resample=resample, auc_method="bootstrap")
        for m in metrics:
            hits[m] += rep.loc["model_a", f"{m}_low"] <= t[m] <= rep.loc["model_a", f"{m}_high"]
    return {m: h / n_sim for m, h in hits.items()}


def false_positives(n_sim: int, resample: str) -> dict[str, float]:
    rng = np.random.default_rng(77)
    metrics = ["auc", "gauc", "mrr", "ndcg@5"]
    rejected = dict.fromkeys(metrics, 0)
    for i in range(n_sim):
        df = simulate_pair(rng, 200, 1.0, 1.0)
        res = pre.compare(df, group="user_id", label="click", scores=["model_a", "model_b"],
                          baseline="model_a", metrics=metrics, n_boot=200, seed=i, resample=resample,
                          auc_method="bootstrap")
        for m in metrics:
            rejected[m] += res.loc[("model_b", m), "p_value"] < 0.05
    return {m: r / n_sim for m, r in rejected.items()}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n-sim", type=int, default=200)
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore", pre.CoverageWarning)
    t = truth()
    print(f"{args.n_sim} simulated data sets per cell; global AUC by the group bootstrap (auc_method='bootstrap')")
    print(f"{'':38s}{'auc':>8s}{'gauc':>8s}{'mrr':>8s}{'ndcg@5':>8s}   seconds")
    for resample in ("poisson", "multinomial"):
        start = time.time()
        cov = coverage(args.n_sim, resample, t)
        print(f"{'coverage of 95% intervals, ' + resample:38s}" + "".join(f"{cov[m]:8.3f}" for m in cov)
              + f"   {time.time() - start:6.1f}")
        start = time.time()
        fp = false_positives(args.n_sim, resample)
        print(f"{'p < 0.05 under H0 (alpha 0.05), ' + resample:38s}" + "".join(f"{fp[m]:8.3f}" for m in fp)
              + f"   {time.time() - start:6.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
