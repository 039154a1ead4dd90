#!/usr/bin/env python
"""Bias of the counterfactual metrics over simulated click logs, the long version of
tests/test_ips.py (not a timed test).

    python benchmarks/sim_ips.py [--logs 200] [--sessions 2000] [--k 5]

Each of ``--logs`` click logs follows the position-based model (``make_click_log``: 40 queries x
10 documents, 5 positions, examination 1/k, per-session ranking noise). A new ranker scores the
shown documents by their true relevance plus noise. For each log:

- truth: the mean over sessions of sum_i relevance_i / log2(new rank_i + 1) (DCG@K on the true
  click probabilities when examined);
- naive: the same sum over the logged clicks (no reweighting), i.e. ``ips_dcg`` with propensity 1;
- IPS: ``ips_dcg@K`` with the true propensities (clip 0.01, never binding here);
- SNIPS: ``ips_dcg@K`` with ``snips=True``, whose estimand is sum_i relevance_i lambda_i /
  sum_i relevance_i (a mean per relevant row); and, to show why that is its own scale, SNIPS
  times the logged clicks per session (the "IPS divided by the mean IPS weight of the clicks"
  form), which is biased by the examination rate of the relevant rows;
- clipped IPS: ``clip=0.3``, above the propensities 1/4 and 1/5 of positions 4 and 5: biased down;
- IPS with EM propensities estimated from the same log (``pre.propensities``), for a few logs.

It prints, per estimator, the mean bias relative to the truth, its Monte Carlo standard error
(sd / sqrt(logs)) and the standard deviation over logs.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import pandas_rankeval as pre  # noqa: E402
from pandas_rankeval.datasets import make_click_log  # noqa: E402


def one_log(seed: int, n_sessions: int, k: int, em: bool) -> dict[str, float]:
    log = make_click_log(n_sessions, n_queries=40, depth=5, seed=seed)
    rng = np.random.default_rng(10_000 + seed)
    log["new"] = log["relevance"] + rng.normal(0.0, 0.15, len(log))
    prop = pd.Series(log.attrs["examination"], index=range(1, 6))
    rank = log.groupby("session")["new"].rank(ascending=False, method="first")
    lam = np.where(rank <= k, 1.0 / np.log2(rank + 1.0), 0.0)
    truth = float((log["relevance"] * lam).groupby(log["session"]).sum().mean())
    truth_snips = float((log["relevance"] * lam).sum() / log["relevance"].sum())
    clicks_per_session = float(log["click"].sum() / log["session"].nunique())
    kw = {"group": "session", "label": "click", "score": "new", "k": k, "position": "position"}
    out = {
        "truth": truth,
        "truth_snips": truth_snips,
        "naive": float(pre.ips_dcg(log, **kw, propensity=lambda p: np.ones(len(p)))),
        "ips": float(pre.ips_dcg(log, **kw, propensity=prop)),
        "snips": float(pre.ips_dcg(log, **kw, propensity=prop, snips=True)),
        "clip_0.3": float(pre.ips_dcg(log, **kw, propensity=prop, clip=0.3)),
    }
    out["snips_x_clicks"] = out["snips"] * clicks_per_session
    if em:
        table = pre.propensities(log, group="session", position="position", label="click", item=["query", "doc"],
                                 n_boot=0)
        out["ips_em"] = float(pre.ips_dcg(log, **kw, propensity=table))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--logs", type=int, default=200)
    parser.add_argument("--sessions", type=int, default=2000)
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--em-logs", type=int, default=20, help="logs on which EM propensities are also used")
    args = parser.parse_args()
    t0 = time.perf_counter()
    rows = [one_log(seed, args.sessions, args.k, seed < args.em_logs) for seed in range(args.logs)]
    res = pd.DataFrame(rows)
    print(f"{args.logs} logs x {args.sessions} sessions, DCG@{args.k}, {time.perf_counter() - t0:.1f} s")
    print(f"mean truth {res['truth'].mean():.4f} (per session), SNIPS estimand {res['truth_snips'].mean():.4f} "
          "(per relevant row)")
    print(f"{'estimator':<16}{'vs':<13}{'mean bias':>11}{'MC error':>10}{'rel. bias':>11}{'sd':>9}")
    for est, ref in (("naive", "truth"), ("ips", "truth"), ("snips", "truth_snips"), ("snips_x_clicks", "truth"),
                     ("clip_0.3", "truth"), ("ips_em", "truth")):
        if est not in res:
            continue
        d = (res[est] - res[ref]).dropna()
        n = len(d)
        print(f"{est:<16}{ref:<13}{d.mean():>+11.4f}{d.std(ddof=1) / np.sqrt(n):>10.4f}"
              f"{d.mean() / res[ref].mean():>+10.1%} {res[est].dropna().std(ddof=1):>8.4f}  ({n} logs)")


if __name__ == "__main__":
    main()
