#!/usr/bin/env python
"""Coverage of propensities' intervals over simulated logs, the long version of
tests/test_counterfactual.py (not a timed test).

    python benchmarks/sim_propensities.py [--logs 200] [--sessions 1000] [--n-boot 200]

For each of ``--logs`` click logs of the position-based model with examination 1/k at positions
1..5 (``pandas_rankeval.datasets.make_click_log``: 20 queries x 10 documents, two rankers), it
estimates the propensities with their 95% interval and counts how often the interval holds the
true p_k / p_1, per position and overall:

- EM with one relevance per (query, doc), on logs whose rankings vary per session;
- intervention harvesting, on logs of two deterministic rankers.

Next to each, the share of logs where the naive click-rate ratio CTR_k / CTR_1 falls in the same
interval (it is biased: better documents sit higher). Standard error of a coverage near 0.95
over n checks: sqrt(0.95 * 0.05 / n) (0.0077 over 800).

    python benchmarks/sim_propensities.py --sparse 7.5 25 60 [--logs 6] [--n-boot 50]

EM with one relevance per item on uniform-random logs of 30,000 impressions (4 positions,
examination 1, 0.6, 0.35, 0.25) with the given impressions per item (30,000 / that many items):
coverage of the 95% percentile interval, and the mean relative error of the estimates. Few
impressions per item make the per-item relevances incidental parameters: the likelihood, and
its bootstrap more so, are biased, and the interval stops covering (propensities warns below
pandas_rankeval.counterfactual.propensity.MIN_IMPRESSIONS_PER_ITEM).

    python benchmarks/sim_propensities.py --regression-em [--logs 25] [--sessions 2500] [--n-boot 40]

Regression EM (features=["x1", "x2"], the default logistic relevance model, which is the model
make_click_log draws from) on logs of 200 queries x 10 documents: coverage of the interval and
CPU seconds per log.

    python benchmarks/sim_propensities.py --regression-em-cost 100000 1000000 [--n-boot 20] [--distinct]

CPU seconds (time.process_time) and wall seconds of one regression EM call with n_boot=0 and with
--n-boot replicates, per number of rows; --distinct adds noise to x1 so that no two rows share
their features (no merging of identical rows).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import pandas_rankeval as pre  # noqa: E402
from pandas_rankeval.datasets import make_click_log  # noqa: E402


def run(method: str, n_logs: int, n_sessions: int, n_boot: int) -> None:
    kw: dict = {"item": ["query", "doc"]}
    if method == "harvest":
        kw["ranker"] = "ranker"
    hits, naive, seconds = [], [], []
    for s in range(n_logs):
        log = make_click_log(n_sessions, n_queries=20, n_rankers=2, shuffle=0.0 if method == "harvest" else 1.0,
                             seed=10_000 + s)
        truth = np.asarray(log.attrs["examination"])[1:]
        t0 = time.perf_counter()
        t = pre.propensities(log, group="session", position="position", label="click", n_boot=n_boot, seed=s, **kw)
        seconds.append(time.perf_counter() - t0)
        lo, hi = t["propensity_low"].to_numpy()[1:], t["propensity_high"].to_numpy()[1:]
        hits.append((lo <= truth) & (truth <= hi))
        ctr = (t["clicks"] / t["impressions"]).to_numpy()
        ratio = ctr[1:] / ctr[0]
        naive.append((lo <= ratio) & (ratio <= hi))
    h, nv = np.array(hits), np.array(naive)
    per_pos = " ".join(f"p{k + 2}={v:.3f}" for k, v in enumerate(h.mean(axis=0)))
    print(f"{method:8s} {n_logs} logs x {n_sessions} sessions, n_boot={n_boot}: coverage {h.mean():.3f} "
          f"(se {np.sqrt(0.95 * 0.05 / h.size):.4f}; {per_pos}); all positions covered in {h.all(axis=1).mean():.3f} "
          f"of logs; naive CTR ratio inside {nv.mean():.3f}; {np.median(seconds):.2f} s per log (median)")


def run_sparse(per_item: float, n_logs: int, n_boot: int, n_rows: int = 30_000) -> None:
    import warnings

    import pandas as pd

    truth = np.array([1.0, 0.6, 0.35, 0.25])
    n_items = int(round(n_rows / per_item))
    hits, errors, seconds = [], [], []
    for s in range(n_logs):
        rng = np.random.default_rng(20_000 + s)
        item = rng.integers(0, n_items, n_rows)
        pos = rng.integers(1, len(truth) + 1, n_rows)
        rel = rng.uniform(0.1, 0.9, n_items)
        click = (rng.random(n_rows) < 0.8 * truth[pos - 1] * rel[item]).astype(int)
        log = pd.DataFrame({"session": np.arange(n_rows) // len(truth), "item": item, "position": pos, "click": click})
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", pre.counterfactual.PropensityWarning)
            t = pre.propensities(log, group="session", position="position", label="click", item="item",
                                 n_boot=n_boot, seed=s)
        seconds.append(time.perf_counter() - t0)
        lo, hi = t["propensity_low"].to_numpy()[1:], t["propensity_high"].to_numpy()[1:]
        hits.append((lo <= truth[1:]) & (truth[1:] <= hi))
        errors.append(t["propensity"].to_numpy()[1:] / truth[1:] - 1)
    h = np.array(hits)
    print(f"sparse   {per_item:g} impressions per item ({n_items:,} items, {n_rows:,} rows), {n_logs} logs, "
          f"n_boot={n_boot}: coverage {h.mean():.3f} over {h.size} checks; mean relative error "
          f"{np.round(np.mean(errors, axis=0), 3).tolist()}; {np.median(seconds):.1f} s per log (median)")


def run_regression(n_logs: int, n_sessions: int, n_boot: int) -> None:
    hits, seconds = [], []
    for s in range(n_logs):
        log = make_click_log(n_sessions, n_queries=200, n_docs=10, seed=30_000 + s)
        truth = np.asarray(log.attrs["examination"])[1:]
        c0 = time.process_time()
        t = pre.propensities(log, group="session", position="position", label="click", features=["x1", "x2"],
                             n_boot=n_boot, seed=s)
        seconds.append(time.process_time() - c0)
        lo, hi = t["propensity_low"].to_numpy()[1:], t["propensity_high"].to_numpy()[1:]
        hits.append((lo <= truth) & (truth <= hi))
    h = np.array(hits)
    per_pos = " ".join(f"p{k + 2}={v:.3f}" for k, v in enumerate(h.mean(axis=0)))
    print(f"regression EM {n_logs} logs x {n_sessions} sessions, n_boot={n_boot}: coverage {h.mean():.3f} over "
          f"{h.size} intervals (se {np.sqrt(0.95 * 0.05 / h.size):.4f}; {per_pos}); "
          f"{np.median(seconds):.2f} CPU s per log (median)")


def run_cost(rows: list[int], n_boot: int, distinct: bool) -> None:
    for n in rows:
        log = make_click_log(n // 5, n_queries=200, seed=3)
        if distinct:
            log["x1"] += np.random.default_rng(0).normal(0.0, 0.05, len(log))
        for nb in (0, n_boot):
            w0, c0, l0 = time.perf_counter(), time.process_time(), os.getloadavg()[0]
            t = pre.propensities(log, group="session", position="position", label="click", features=["x1", "x2"],
                                 n_boot=nb, ci=0.95 if nb >= 20 or nb == 0 else 0.5)
            print(f"{len(log):,} rows{' (distinct features)' if distinct else ''}, n_boot={nb}: "
                  f"{time.process_time() - c0:.1f} CPU s, {time.perf_counter() - w0:.1f} wall s, "
                  f"{t.attrs['n_iter']} iterations at most, load {l0:.1f}-{os.getloadavg()[0]:.1f}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--logs", type=int, default=200)
    parser.add_argument("--sessions", type=int, default=1000)
    parser.add_argument("--n-boot", type=int, default=200)
    parser.add_argument("--sparse", type=float, nargs="*", default=None, metavar="PER_ITEM",
                        help="instead: EM coverage on uniform-random logs with these impressions per item")
    parser.add_argument("--regression-em", action="store_true", help="instead: regression EM coverage")
    parser.add_argument("--regression-em-cost", type=int, nargs="*", default=None, metavar="ROWS",
                        help="instead: CPU seconds of regression EM at these numbers of rows")
    parser.add_argument("--distinct", action="store_true", help="with --regression-em-cost: no two rows alike")
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f}")
    if args.regression_em_cost:
        run_cost(args.regression_em_cost, args.n_boot, args.distinct)
    elif args.regression_em:
        run_regression(args.logs, args.sessions, args.n_boot)
    elif args.sparse:
        for per_item in args.sparse:
            run_sparse(per_item, args.logs, args.n_boot)
    else:
        for method in ("em", "harvest"):
            run(method, args.logs, args.sessions, args.n_boot)
    print(f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
