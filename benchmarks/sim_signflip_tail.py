#!/usr/bin/env python
"""The sign-flip p-value (exact enumeration <= 30 groups, exact lattice path or the tail
approximation beyond) against a Monte Carlo sign-flip test, and its size under the null.

    python benchmarks/sim_signflip_tail.py [--draws 200000] [--tables 300] [--sizes 20,40,100,300,3000]
        [--metrics mrr,recall@3,hit_rate@1,ndcg@10]

Per-group terms ``a_g = w_g d_g`` come from the engine (``per_group`` on 40,000 simulated groups,
the generator of tests/test_compare_sim.py, 2-15 rows per group). For each metric and number of
groups: tables whose signs are tilted towards the model (P(sign = +) = 0.5 + e, a grid of e that
puts p between ~0.2 and ~0.001), the p-value of ``signflip_pvalues`` (with the histogram: the
lattice path where it applies; ``path`` says which) against ``draws`` random sign flips,
``|p - p_mc| / SE`` with ``SE = sqrt(p (1 - p) / draws)``; then the share of ``--tables`` null
tables with p < 0.05 (SE sqrt(0.05 * 0.95 / tables)).
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

from pandas_rankeval.inference import pvalues as P  # noqa: E402
from test_compare_sim import group_terms, simulate  # noqa: E402

METRICS = ["mrr", "recall@3", "hit_rate@1", "ndcg@10"]


def pvalue(a: np.ndarray) -> tuple[float, str]:
    s = P.signflip_sums(a)
    args = [s["n"][0], s["s"][0, :, 0], s["s"][0, :, 1], s["s"][0, :, 2], s["top"][0], s["amin"][0]]
    p = float(P.signflip_pvalues(*args, hist=s["hist"][0])[0])
    p0 = float(P.signflip_pvalues(*args)[0])
    n = int(s["n"][0, 0])
    path = "exact" if n <= P.EXACT_MAX else ("lattice" if p != p0 else "approx")
    return p, path


def monte_carlo(a: np.ndarray, draws: int, rng: np.random.Generator) -> float:
    a = a[a != 0]
    t = abs(a.sum())
    tol = 1e-10 * np.abs(a).sum()
    hits = 0
    block = max(1, 4_000_000 // max(a.size, 1))
    for lo in range(0, draws, block):
        k = min(block, draws - lo)
        signs = rng.integers(0, 2, (k, a.size), dtype=np.int8) * 2 - 1
        hits += int((np.abs(signs @ np.abs(a)) >= t - tol).sum())
    return hits / draws


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--draws", type=int, default=200_000)
    ap.add_argument("--tables", type=int, default=300)
    ap.add_argument("--sizes", default="20,40,100,300,3000")
    ap.add_argument("--effects", default="0.05,0.1,0.15,0.2")
    ap.add_argument("--metrics", default=",".join(METRICS))
    args = ap.parse_args()
    sizes = [int(x) for x in args.sizes.split(",")]
    effects = [float(x) for x in args.effects.split(",")]
    rng = np.random.default_rng(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        df = simulate(np.random.default_rng(20), 40_000, 1.0, 1.0)
        metrics = args.metrics.split(",")
        pools = {m: group_terms(df, m) for m in metrics}
    print(f"Monte Carlo draws {args.draws:,}; null tables per size {args.tables}")
    print(f"{'metric':11s} {'groups':>6s} {'e':>5s} {'path':>7s} {'p':>10s} {'p_mc':>10s} {'|d|/SE':>7s}")
    worst = []
    for m in metrics:
        pool = np.abs(pools[m][pools[m] != 0])
        for g in sizes:
            for e in effects:
                eff = e * (20 / g) ** 0.5  # roughly the same z at every size
                a = pool[rng.integers(0, pool.size, g)] * np.where(rng.random(g) < 0.5 + eff, 1.0, -1.0)
                p, path = pvalue(a)
                pm = monte_carlo(a, args.draws, rng)
                se = max((pm * (1 - pm) / args.draws) ** 0.5, 1.0 / args.draws)
                z = abs(p - pm) / se
                worst.append(z)
                print(f"{m:11s} {g:6d} {eff:5.3f} {path:>7s} {p:10.3g} {pm:10.3g} {z:7.2f}")
            rej = np.mean([pvalue(pool[rng.integers(0, pool.size, g)] * rng.choice([-1.0, 1.0], g))[0] < 0.05
                           for _ in range(args.tables)])
            print(f"{m:11s} {g:6d} size at 0.05: {rej:.3f} (SE {(0.05 * 0.95 / args.tables) ** 0.5:.3f})")
    w = np.array(worst)
    print(f"checks {w.size}; |d|/SE > 3: {(w > 3).sum()}; max {w.max():.2f}")


if __name__ == "__main__":
    t0 = time.perf_counter()
    main()
    print(f"{time.perf_counter() - t0:.0f} s")
