#!/usr/bin/env python
"""Size and power of compare's sign-flip test, the long version of tests/test_compare_sim.py.

    python benchmarks/sim_compare.py [--sims 4000] [--quick]

Prints three tables (not a timed test):

1. **Size**: two identically distributed models (binormal scores, shared group effect; the
   generator of the tests), share of data sets with p < alpha for alpha = 0.05, 0.01, 0.001, at
   30 groups (every data set through ``compare`` itself, as one segment of one call) and at 300,
   3,000 and 30,000 groups (per-group terms from the engine with fair random signs: the null
   hypothesis of the test). Metrics gauc, mrr, ndcg@10, and the lattice-valued hit_rate@10 and
   precision@10. Next to the default, the Student-t reference that a plain self-normalized test
   would use (``t = z sqrt((G-1)/(G-z^2))``, G-1 df) on the same data sets, to show why the
   default enumerates the largest terms and corrects lattices instead.
2. **Power**: model_b better (mu 1.5 vs 1.0): rejection rates of the default and of today's Monte
   Carlo sign flips (1,000 flips) on the same data sets, at alpha = 0.05 and at 0.05/60 (what a
   60-row Holm family asks of its smallest p-value).
3. **Tail accuracy**: the approximation (forced) against the exact distribution on 31-38
   nonzero terms of the same pools, ratio approx/exact at the 10%, 1%, 0.1% and 0.01% tails.

Standard error of a rejection rate near 0.05 with n data sets: sqrt(0.05 * 0.95 / n) (0.0034 at
4,000).
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
from pandas_rankeval.inference import pvalues as P  # noqa: E402
from test_compare_sim import draw_pvalues, group_terms, simulate  # noqa: E402

METRICS = ["gauc", "mrr", "ndcg@10", "hit_rate@10", "precision@10"]
ALPHAS = (0.05, 0.01, 0.001)


def student_t_pvalues(pool: np.ndarray, n_groups: int, n_sims: int, rng: np.random.Generator) -> np.ndarray:
    """The self-normalized sign-flip statistic with a Student t reference (for comparison)."""
    from scipy import special

    out = np.empty(n_sims)
    chunk = max(1, min(n_sims, 3_000_000 // n_groups))
    for lo in range(0, n_sims, chunk):
        k = min(chunk, n_sims - lo)
        a = pool[rng.integers(0, pool.shape[0], (k, n_groups))]
        a = np.abs(a) * rng.choice([-1.0, 1.0], a.shape)
        g = (a != 0).sum(axis=1).astype(float)
        s2 = (a * a).sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            z = a.sum(axis=1) / np.sqrt(s2)
            z2 = np.minimum(z * z, g * (1 - 1e-15))
            t = np.sqrt(z2 * (g - 1) / (g - z2))
            p = 2 * special.stdtr(np.maximum(g - 1, 1), -t)
        out[lo : lo + k] = np.where((g > 1) & (s2 > 0), p, 1.0)
    return out


def size_through_compare(metrics: list[str], n_sims: int, seed: int) -> dict[str, np.ndarray]:
    df = simulate(np.random.default_rng(seed), n_sims * 30, 1.0, 1.0)
    df["sim"] = df["user_id"] // 30
    res = pre.compare(df, group="user_id", label="click", scores=["model_a", "model_b"], baseline="model_a",
                      metrics=metrics, by="sim", ci=0.5, n_boot=2, adjust="none")
    p = res["p_value"].unstack("metric")
    return {m: p[m].to_numpy() for m in metrics}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sims", type=int, default=4000, help="data sets per (size, metric)")
    ap.add_argument("--quick", action="store_true", help="1,000 data sets, no 30,000-group row")
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore", pre.CoverageWarning)
    n_sims = 1000 if args.quick else args.sims
    started = time.perf_counter()
    import os

    print(f"# sim_compare: {n_sims} data sets per cell; load average {os.getloadavg()[0]:.2f}")
    pool_df = simulate(np.random.default_rng(20), 40_000, 1.0, 1.0)
    pools = {m: group_terms(pool_df, m) for m in METRICS}

    print("\n## 1. Size: share of p < alpha, two identically distributed models (default | Student t)")
    print("| groups | metric | " + " | ".join(f"a={a:g}" for a in ALPHAS) + " | "
          + " | ".join(f"t ref a={a:g}" for a in ALPHAS) + " |")
    print("|---|---|" + "---|" * (2 * len(ALPHAS)))
    at30 = size_through_compare(METRICS, n_sims, 21)
    for m in METRICS:
        cells = [f"{np.mean(at30[m] < a):.4f}" for a in ALPHAS]
        ref = student_t_pvalues(pools[m], 30, n_sims, np.random.default_rng(7))
        cells += [f"{np.mean(ref < a):.4f}" for a in ALPHAS]
        print(f"| 30 (compare) | {m} | " + " | ".join(cells) + " |", flush=True)
    for g in (300, 3000) + (() if args.quick else (30_000,)):
        for m in METRICS:
            p = draw_pvalues(pools[m], g, n_sims, np.random.default_rng(g))
            ref = student_t_pvalues(pools[m], g, n_sims, np.random.default_rng(g))
            cells = [f"{np.mean(p < a):.4f}" for a in ALPHAS] + [f"{np.mean(ref < a):.4f}" for a in ALPHAS]
            print(f"| {g:,} | {m} | " + " | ".join(cells) + " |", flush=True)

    print("\n## 2. Power: model_b better (mu 1.5 vs 1.0), same data sets for both tests")
    print("| groups | metric | default a=0.05 | Monte Carlo (1,000 flips) a=0.05 | default a=0.05/60 | "
          "Monte Carlo a=0.05/60 |")
    print("|---|---|---|---|---|---|")
    alt = simulate(np.random.default_rng(22), 40_000, 1.0, 1.5)
    n_pow = min(n_sims, 1000)
    for m in METRICS:
        pool = group_terms(alt, m)
        for g in (30, 300):
            new = draw_pvalues(pool, g, n_pow, np.random.default_rng(g + 1), null=False)
            old = draw_pvalues(pool, g, n_pow, np.random.default_rng(g + 1), null=False, monte_carlo=1000)
            print(f"| {g} | {m} | {np.mean(new < 0.05):.3f} | {np.mean(old < 0.05):.3f} | "
                  f"{np.mean(new < 0.05 / 60):.3f} | {np.mean(old < 0.05 / 60):.3f} |", flush=True)

    print("\n## 3. Tail accuracy: approximation / exact at the atoms (31-38 nonzero terms of each pool)")
    print("| metric | terms | 10% | 1% | 0.1% | 0.01% |")
    print("|---|---|---|---|---|---|")
    rng = np.random.default_rng(3)
    for m in METRICS:
        nz = np.abs(pools[m][pools[m] != 0])
        for g in (31, 34, 38):
            a = rng.choice(nz, g)
            n, _, s2, s4, top, amin = P.signflip_stats(a)
            draws = np.abs(rng.choice([-1.0, 1.0], (200_000, g)) @ a)
            cells = []
            for q in (0.9, 0.99, 0.999, 0.9999):
                t = np.quantile(draws, q, method="lower")
                exact = P.exact_signflip_pvalue(a, t)
                approx = P.signflip_pvalues([n], [t], [s2], [s4], [top], [amin], exact_max=0)[0]
                cells.append(f"{approx / exact:.3f}")
            print(f"| {m} | {g} | " + " | ".join(cells) + " |", flush=True)
    print(f"\n# done in {time.perf_counter() - started:.0f} s; load average {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
