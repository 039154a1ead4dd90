"""Will it win online? Position bias in a click log, and whether offline lifts predicted A/B results.

    python examples/offline_online.py                  # saves plots in ./offline_online_plots/
    python examples/offline_online.py --no-plots

Everything runs on simulated data whose truth is known:

1. a click log of the position-based model: a click needs an examination, whose probability
   depends on the position only (here 1/k), and relevance, which depends on the document only;
2. the naive click rate by position mixes both: better documents sit higher;
3. ``propensities`` by EM (items that moved between positions, here through personalization);
4. ``propensities`` by intervention harvesting (two deterministic rankers that disagree);
5. what the propensities are for: a click at position k weighs 1 / max(propensity_k, clip) in a
   counterfactual metric (``ips_dcg@K``, ``ips_hit_rate@K``), which is unbiased only while
   examination depends on the position alone and every propensity is at least ``clip``: the naive
   click DCG of a new ranker against the IPS estimate and the truth;
6. ``launch_agreement``: over 12 past launches, which offline metric's lift had the sign of the
   A/B result, Kendall's tau and the slope between them, and how little 12 launches can say.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd

import pandas_rankeval as pre
from pandas_rankeval.datasets import make_click_log

KW = dict(group="session", position="position", label="click")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--plots", default="offline_online_plots", help="folder for the plots")
    parser.add_argument("--no-plots", action="store_true")
    args = parser.parse_args()
    pd.set_option("display.width", 100)

    print("1. A click log with known examination")
    log = make_click_log(4000, n_queries=30, n_rankers=2, shuffle=1.0, seed=0)
    truth = pd.Series(log.attrs["examination"], index=pd.Index(range(1, 6), name="position"), name="truth")
    print(f"{len(log):,} impressions in {log['session'].nunique():,} sessions, {log['click'].sum():,} clicks; "
          "true examination by position: " + ", ".join(f"{v:.3f}" for v in truth))
    print("Assumption (position-based model): P(click) = P(examined | position) * P(relevant | document).")

    print("\n2. The naive click rate by position is biased")
    ctr = log.groupby("position")["click"].mean()
    naive = ctr / ctr.loc[1]
    print(pd.DataFrame({"ctr": ctr, "ctr / ctr at 1": naive, "truth": truth}).round(3).to_string())
    print(f"=> the naive ratio is off by up to {float((naive - truth).abs().max()):.3f}: better documents sit higher.")

    print("\n3. propensities by EM (documents that moved between positions)")
    em = pre.propensities(log, **KW, item=["query", "doc"], n_boot=200, seed=0)
    print(em.to_text(footer="full", width=100))
    inside = (em["propensity_low"] <= truth) & (truth <= em["propensity_high"])
    print(f"=> the truth is inside the 95% interval at {int(inside.sum())} of {len(truth)} positions.")

    print("\n4. propensities by intervention harvesting (two rankers, no personalization)")
    fixed = make_click_log(4000, n_queries=30, n_rankers=2, shuffle=0.0, seed=1)
    hv = pre.propensities(fixed, **KW, item=["query", "doc"], ranker="ranker", n_boot=200, seed=0)
    print(hv.to_text(footer="short", width=100))
    inside = (hv["propensity_low"] <= truth) & (truth <= hv["propensity_high"])
    print(f"=> the truth is inside the 95% interval at {int(inside.sum())} of {len(truth)} positions.")

    print("\n5. What the propensities are for: inverse-propensity weights")
    clip = 0.1
    weight = 1.0 / np.maximum(em["propensity"], clip)
    per_pos = log.assign(w=log["position"].map(weight)).groupby("position").apply(
        lambda g: pd.Series({"clicks": g["click"].sum(), "weight": g["w"].iloc[0],
                             "weighted clicks / impressions": (g["click"] * g["w"]).mean(),
                             "mean relevance shown": g["relevance"].mean()}), include_groups=False)
    per_pos["clicks"] = per_pos["clicks"].astype(int)
    print(per_pos.round(3).to_string())
    print(f"A click at position k counts 1 / max(propensity_k, clip={clip}): reweighted, the click rate by position "
          "tracks the relevance that was shown there, not where it was shown. This holds only while examination "
          f"depends on the position alone and every propensity is at least clip (here the smallest is "
          f"{float(em['propensity'].min()):.3f}).")

    print("\n5b. Counterfactual metrics: will a new ranker win online?")
    rng = np.random.default_rng(7)
    log["new"] = log["relevance"] + rng.normal(0.0, 0.15, len(log))  # a better ranker than the logged one
    log["old"] = -log["position"]  # the logged order
    ips_kw = {"group": "session", "label": "click", "position": "position", "metrics": ["ips_dcg@5", "ips_hit_rate@1"]}
    naive = pre.report(log, scores=["old", "new"], **ips_kw, propensity=lambda p: np.ones(len(p)))
    ips = pre.compare(log, scores=["old", "new"], baseline="old", **ips_kw, propensity=em, clip=clip, seed=0)
    rank = log.groupby("session")["new"].rank(ascending=False)
    true_dcg = (log["relevance"] / np.log2(rank + 1)).groupby(log["session"]).sum().mean()
    true_old = (log["relevance"] / np.log2(log["position"] + 1)).groupby(log["session"]).sum().mean()
    print(f"naive click DCG@5 (propensity 1): old {naive.loc['old', 'ips_dcg@5']:.3f}, "
          f"new {naive.loc['new', 'ips_dcg@5']:.3f}")
    print(ips.to_text(footer="short", width=100))
    naive_lift = naive.loc["new", "ips_dcg@5"] / naive.loc["old", "ips_dcg@5"] - 1
    print(f"true DCG@5 on the simulated relevance: old {true_old:.3f}, new {true_dcg:.3f} "
          f"({true_dcg / true_old - 1:+.1%}). The naive click DCG says {naive_lift:+.1%}: it credits the old "
          "ranker with the clicks it earned at the top, where rows were examined most. The IPS estimate (EM "
          f"propensities, clip={clip}) gets the sign and the size of the lift. It rests on two assumptions: "
          "examination depends on the position only, and every propensity is at least clip.")

    print("\n6. launch_agreement: did offline lifts predict the A/B results?")
    rng = np.random.default_rng(5)
    ips = rng.normal(0.004, 0.006, 12)
    launches = pd.DataFrame({
        "launch": [f"L{i + 1:02d}" for i in range(12)],
        "ips_dcg@10": ips,
        "ndcg@10": 0.6 * ips + rng.normal(0, 0.005, 12),
        "auc": rng.normal(0.002, 0.004, 12),
        "ctr_lift": 0.8 * ips + rng.normal(0, 0.0015, 12),
    }).set_index("launch")
    print(launches.round(4).to_string())
    agree = pre.launch_agreement(launches, offline=["ips_dcg@10", "ndcg@10", "auc"], online="ctr_lift", seed=0)
    print(agree.to_text(footer="full", width=100))
    print(f"=> best: {agree.best}.")

    if not args.no_plots:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        out = Path(args.plots)
        out.mkdir(parents=True, exist_ok=True)
        ax = em.plot(clip=clip)
        ax.plot(truth.index, truth.to_numpy(), linestyle="--", color="black", label="truth (1/k)")
        ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0, fontsize="small")
        ax.figure.savefig(out / "propensities.png", dpi=120)
        axes = agree.plot()
        axes[0].figure.savefig(out / "launch_agreement.png", dpi=120)
        plt.close("all")
        print(f"\nplots saved in {out}/: propensities.png, launch_agreement.png")


if __name__ == "__main__":
    main()
