"""AUC went up, GAUC did not: a walk-through with pandas_rankeval.

Run it from anywhere:

    python examples/auc_vs_gauc.py                  # prints the story, saves two plots
    python examples/auc_vs_gauc.py --plots DIR      # saves the plots in DIR
    python examples/auc_vs_gauc.py --no-plots

The setting: a recommender shows each user a list of items and logs clicks. Of two models,
``model_a`` has the better global AUC, the number most offline dashboards show, so it looks
like the one to ship. But every user only ever sees *their own* list, so what matters is how
well a model ranks items *within* a user. GAUC (group AUC) measures exactly that: the AUC of
each user's list, averaged over users. This script shows, step by step, why the two numbers
disagree on the same data, and how to check that a difference is real.

Every number below is computed, and every sentence that states a conclusion is printed only
when the numbers support it.
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import pandas as pd

import pandas_rankeval as pre
from pandas_rankeval.datasets import make_impressions

MODELS = ["model_a", "model_b"]
N_BOOT = 500  # bootstrap replicates for the intervals; 1000 is the library default


def section(title: str) -> None:
    print()
    print(title)
    print("-" * len(title))


def winner(values: pd.Series) -> str:
    """The model with the larger value of a metric."""
    return str(values.idxmax())


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plots", default="auc_vs_gauc_plots", metavar="DIR", help="where to save the plots")
    parser.add_argument("--no-plots", action="store_true", help="do not draw the plots")
    args = parser.parse_args(argv)
    started = time.perf_counter()

    # The GAUC of this data leaves out many users (most never click), and the library warns
    # about that each time. We print the coverage ourselves below, so keep the output clean.
    warnings.simplefilter("ignore", pre.CoverageWarning)

    # ------------------------------------------------------------------------------------
    # 1. The data: one row per impression (user, item, click, and both models' scores).
    # ------------------------------------------------------------------------------------
    df = make_impressions()  # 2,000 users, seed 0: the same frame on every run
    section("1. The data")
    sizes = df.groupby("user_id").size()
    print(
        f"{len(df):,} impressions of {df['user_id'].nunique():,} users, click rate "
        f"{df['click'].mean():.1%}; list length: median {sizes.median():.0f}, max {sizes.max():,}"
    )
    print(df.head(3).to_string())

    # ------------------------------------------------------------------------------------
    # 2. The headline numbers. Global AUC pools every row of every user: it asks "is a random
    #    clicked impression scored above a random unclicked one", across users. GAUC asks the
    #    same question inside each user's list, and averages over users weighted by their
    #    number of impressions (weight="count", as in the DIN paper).
    # ------------------------------------------------------------------------------------
    section("2. Global AUC vs GAUC")
    headline = pd.DataFrame(
        {
            "AUC": {m: float(pre.auc(df, label="click", score=m)) for m in MODELS},
            "GAUC": {m: float(pre.gauc(df, group="user_id", label="click", score=m)) for m in MODELS},
        }
    )
    headline.index.name = "model"
    print(headline.round(4).to_string())
    auc_best, gauc_best = winner(headline["AUC"]), winner(headline["GAUC"])
    if auc_best != gauc_best:
        print(f"=> AUC up, GAUC not: {auc_best} has the higher global AUC but {gauc_best} has the higher GAUC.")
    else:
        print(f"=> Both metrics prefer {auc_best}.")

    # GAUC is an average over the users where an AUC exists: a user with no click (or only
    # clicks) has no pair to order and is left out. The result says how many were used.
    g = pre.gauc(df, group="user_id", label="click", score="model_a")
    print(f"GAUC coverage: {g.coverage}")

    # ------------------------------------------------------------------------------------
    # 3. Why. Users differ a lot in how often they click. A score that only knows *who* the
    #    user is (the same value for every item of a user) cannot rank anything inside a list,
    #    yet it puts heavy clickers' rows above light clickers' rows, which global AUC rewards.
    #    With exact ties, such a score has a per-user AUC of exactly 0.5.
    # ------------------------------------------------------------------------------------
    section("3. Why: a score that only knows the user")
    df["user_only"] = df.groupby("user_id")["model_a"].transform("mean")
    auc_user = float(pre.auc(df, label="click", score="user_only"))
    gauc_user = float(pre.gauc(df, group="user_id", label="click", score="user_only"))
    print(f"user_only = the user's mean model_a score: AUC {auc_user:.4f}, GAUC {gauc_user:.4f}")
    if gauc_user == 0.5 and auc_user > headline.loc["model_b", "AUC"]:
        print(
            "=> It ranks nothing within a user (GAUC exactly 0.5) and still beats model_b on "
            "global AUC: global AUC measures who clicks, not what they click."
        )

    # ------------------------------------------------------------------------------------
    # 4. Weights. "count" lets heavy users dominate; "clicks" weighs users by positives;
    #    "log1p" damps heavy users; "uniform" gives every user the same say. A conclusion
    #    that flips with the weight is fragile; this one should not.
    # ------------------------------------------------------------------------------------
    section("4. GAUC under each weight")
    weights = ["count", "clicks", "log1p", "uniform"]
    by_weight = pd.DataFrame(
        {
            w: {m: float(pre.gauc(df, group="user_id", label="click", score=m, weight=w)) for m in MODELS}
            for w in weights
        }
    ).T
    by_weight.index.name = "weight"
    by_weight["diff (b - a)"] = by_weight["model_b"] - by_weight["model_a"]
    print(by_weight.round(4).to_string())
    winners = {winner(by_weight.loc[w, MODELS]) for w in weights}
    if len(winners) == 1:
        print(f"=> {winners.pop()} has the higher GAUC under every weight.")
    else:
        print("=> The GAUC winner depends on the weight: look at who the users are.")

    # ------------------------------------------------------------------------------------
    # 5. Segments. report() computes many metrics for many models in one pass (one sort per
    #    score column), overall or per segment; a segment column must be constant within a
    #    user. Command line: pandas-rankeval eval FILE --group user_id --label click
    #    --score model_a model_b --metrics auc gauc ndcg@10 --by activity
    # ------------------------------------------------------------------------------------
    section("5. Per segment")
    for by in ["activity", "country"]:
        rep = pre.report(
            df, group="user_id", label="click", scores=MODELS, metrics=["auc", "gauc", "ndcg@10"], by=by
        )
        wide = rep[["auc", "gauc", "ndcg@10"]].unstack("model")
        wide.columns = [f"{metric} {model[-1]}" for metric, model in wide.columns]
        users = rep.xs("model_a", level="model")
        wide["users"] = users["n_groups"]
        wide["gauc users"] = users["gauc_groups_used"]
        wide = wide.loc[rep.index.get_level_values(by).unique()]  # keep the report's order
        print(f"by {by} (a = model_a, b = model_b):")
        print(wide.round(4).to_string())
        gauc_b = (wide["gauc b"] > wide["gauc a"]).sum()
        auc_a = (wide["auc a"] > wide["auc b"]).sum()
        n = len(wide)
        print(
            f"=> model_b has the higher GAUC in {gauc_b} of {n} {by} segments; "
            f"model_a the higher AUC in {auc_a} of {n}."
        )
        print()
    print(
        "Light users contribute few GAUC terms (most have no click), and each of their terms is "
        "coarse (one click among two rows gives 0, 0.5 or 1): the plot of per-user AUC by list "
        "length (section 8) shows how noisy short lists are."
    )

    # ------------------------------------------------------------------------------------
    # 6. How sure are we? report(ci=0.95) adds a bootstrap interval for every metric,
    #    resampling users (the unit that was sampled), so the within-user correlation of
    #    impressions is respected.
    # ------------------------------------------------------------------------------------
    section("6. Confidence intervals")
    rep = pre.report(
        df, group="user_id", label="click", scores=MODELS, metrics=["auc", "gauc"], ci=0.95, n_boot=N_BOOT, seed=0
    )
    for metric in ["auc", "gauc"]:
        for m in MODELS:
            print(
                f"{metric:>4} {m}: {rep.loc[m, metric]:.4f}  "
                f"95% CI [{rep.loc[m, f'{metric}_low']:.4f}, {rep.loc[m, f'{metric}_high']:.4f}]"
            )
    print(f"({rep.attrs.get('ci', {}).get('method', 'bootstrap')}, n_boot={N_BOOT})")
    for metric in ["auc", "gauc"]:
        a_low, a_high = rep.loc["model_a", f"{metric}_low"], rep.loc["model_a", f"{metric}_high"]
        b_low, b_high = rep.loc["model_b", f"{metric}_low"], rep.loc["model_b", f"{metric}_high"]
        overlap = max(a_low, b_low) <= min(a_high, b_high)
        print(f"=> The two {metric} intervals {'overlap' if overlap else 'do not overlap'}.")
    print(
        "Each interval is computed for one model alone, yet both models are scored on the same "
        "users, so their errors are correlated. To judge the difference, bootstrap the "
        "difference itself:"
    )

    # ------------------------------------------------------------------------------------
    # 7. The paired comparison. compare() bootstraps the *difference* to a baseline on the
    #    same resampled users, gives a p-value per (model, metric) and Holm-adjusts them for
    #    the number of comparisons. Command line: add --baseline model_a to the eval command.
    # ------------------------------------------------------------------------------------
    section("7. Paired comparison with model_a as the baseline")
    cmp = pre.compare(
        df, group="user_id", label="click", scores=MODELS, baseline="model_a",
        metrics=["auc", "gauc", "ndcg@10"], ci=0.95, n_boot=N_BOOT, seed=0,
    )
    print(cmp.round(4).to_string())
    for metric in ["auc", "gauc", "ndcg@10"]:
        row = cmp.loc[("model_b", metric)]
        direction = "higher" if row["diff"] > 0 else "lower"
        verdict = "significant" if bool(row["significant"]) else "not significant"
        print(
            f"=> model_b vs model_a on {metric}: {row['diff']:+.4f} "
            f"[{row['ci_low']:+.4f}, {row['ci_high']:+.4f}], {direction}, {verdict} "
            f"(Holm-adjusted p {row['p_holm']:.3g})"
        )

    # ------------------------------------------------------------------------------------
    # 8. Plots (needs matplotlib): per-user AUC by list length, and the comparison as a
    #    forest plot.
    # ------------------------------------------------------------------------------------
    section("8. Plots")
    if args.no_plots:
        print("skipped (--no-plots)")
    else:
        try:
            import matplotlib

            matplotlib.use("Agg")  # files only, no window
            import matplotlib.pyplot as plt
        except ImportError:
            print("matplotlib is not installed: pip install 'pandas_rankeval[plot]' to draw the plots")
        else:
            from pandas_rankeval import plotting

            out = Path(args.plots)
            out.mkdir(parents=True, exist_ok=True)
            fig, ax = plt.subplots(figsize=(8, 5))
            plotting.plot_group_auc(df, group="user_id", label="click", score=MODELS, ax=ax)
            fig.savefig(out / "group_auc_by_size.png", dpi=100, bbox_inches="tight")  # legend at the right
            axes = plotting.plot_comparison(cmp)  # one panel per metric
            axes[0].figure.savefig(out / "comparison.png", dpi=100, bbox_inches="tight")
            plt.close("all")
            print(f"saved {out / 'group_auc_by_size.png'} and {out / 'comparison.png'}")

    print()
    print(f"done in {time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    main()
