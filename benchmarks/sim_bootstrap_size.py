#!/usr/bin/env python
"""Size of compare's paired-bootstrap test (``method="bootstrap"``) against the default exact
sign-flip test (``method="auto"``), at few groups.

    python benchmarks/sim_bootstrap_size.py [--groups 5 10 30 100] [--sets 600]

Two identically distributed models (the generator of ``tests/test_compare_sim.py``: binormal
scores with a shared group effect, 2 to 15 rows a group); each data set of G groups is one
segment of one ``compare(by=...)`` call (segments are independent tests on their own groups),
p-values unadjusted. Prints the share of data sets with p < 0.05 per method and metric; its
standard error near 0.05 with n data sets is sqrt(0.05 * 0.95 / n) (0.009 at 600).
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import pandas_rankeval as pre  # noqa: E402
from test_compare_sim import simulate  # noqa: E402

METRICS = ["gauc", "mrr"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--groups", type=int, nargs="+", default=[5, 10, 30, 100])
    ap.add_argument("--sets", type=int, default=600)
    ap.add_argument("--seed", type=int, default=5)
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    warnings.simplefilter("ignore")
    print(f"{'groups':>6} {'sets':>5} " + " ".join(f"{m + ' ' + x:>15}" for x in ("auto", "bootstrap") for m in METRICS))
    for g in args.groups:
        t0 = time.perf_counter()
        parts = []
        for s in range(args.sets):
            d = simulate(rng, g, 1.0, 1.0)
            d["user_id"] += s * 10_000
            d["seg"] = s
            parts.append(d)
        df = pd.concat(parts, ignore_index=True)
        shares = []
        for method in ("auto", "bootstrap"):
            c = pd.DataFrame(pre.compare(df, group="user_id", label="click", scores=["model_a", "model_b"],
                                         metrics=METRICS, by="seg", method=method, n_boot=500, seed=1, adjust="none"))
            shares += [float((c.xs(m, level="metric")["p_value"] < 0.05).mean()) for m in METRICS]
        print(f"{g:>6} {args.sets:>5} " + " ".join(f"{v:>15.3f}" for v in shares)
              + f"   ({time.perf_counter() - t0:.0f} s)", flush=True)


if __name__ == "__main__":
    main()
