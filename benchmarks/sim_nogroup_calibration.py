"""Coverage of report(ci=0.95) without group (every row its own group: a row bootstrap) for
logloss, NE and PCOC on i.i.d. rows, against the population values of the simulated model.

    python benchmarks/sim_nogroup_calibration.py [n_sets] [n_rows]

Rows: p ~ Beta(2, 8), clicks ~ Bernoulli(1.2 p) (a miscalibrated model, PCOC 1/1.2). The
population values are those of 2,000,000 rows of the same model.
"""

from __future__ import annotations

import sys

import numpy as np
import pandas as pd

import pandas_rankeval as pre

METRICS = ["logloss", "ne", "pcoc"]


def draw(rng: np.random.Generator, n: int) -> pd.DataFrame:
    p = rng.beta(2, 8, n)
    return pd.DataFrame({"y": (rng.random(n) < np.minimum(1.2 * p, 1)).astype(np.int64), "p": p})


def main(n_sets: int = 200, n_rows: int = 2000) -> None:
    truth = pre.report(draw(np.random.default_rng(10**6), 2_000_000), label="y", scores="p", metrics=METRICS)
    hits = dict.fromkeys(METRICS, 0)
    for i in range(n_sets):
        r = pre.report(draw(np.random.default_rng(i), n_rows), label="y", scores="p", metrics=METRICS,
                       ci=0.95, n_boot=400, seed=i)
        for m in METRICS:
            hits[m] += int(r[f"{m}_low"].iloc[0] <= truth[m].iloc[0] <= r[f"{m}_high"].iloc[0])
    for m in METRICS:
        print(f"{m:8s} coverage {hits[m] / n_sets:.3f} over {n_sets} sets of {n_rows} rows (truth {truth[m].iloc[0]:.4f})")


def size(n_sets: int, n_rows: int) -> None:
    rejected = dict.fromkeys(METRICS, 0)
    for i in range(n_sets):
        rng = np.random.default_rng(10_000 + i)
        q = rng.beta(2, 8, n_rows)
        df = pd.DataFrame({"y": (rng.random(n_rows) < q).astype(np.int64),
                           "a": np.clip(q * np.exp(rng.normal(0, 0.3, n_rows)), 0, 1),
                           "b": np.clip(q * np.exp(rng.normal(0, 0.3, n_rows)), 0, 1)})
        c = pre.compare(df, label="y", scores=["a", "b"], baseline="a", metrics=METRICS, n_boot=200, seed=i, adjust="none")
        for m, p in zip(c.index.get_level_values("metric"), c["p_value"]):
            rejected[m] += int(p < 0.05)
    for m in METRICS:
        print(f"{m:8s} paired test rejects {rejected[m] / n_sets:.3f} of {n_sets} equal pairs at alpha 0.05")


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:3]))
    size(*(int(a) for a in sys.argv[1:3]))
