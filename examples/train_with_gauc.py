"""Train with the number you report: LightGBM with GAUC early stopping, then the offline check.

Run it from anywhere (needs LightGBM: pip install 'pandas_rankeval[lightgbm]'):

    python examples/train_with_gauc.py

The setting: a click model is trained on a click log and judged offline by GAUC, the AUC of
each user's list averaged over users. Training usually stops on the validation log loss,
which also rewards knowing *which users* click; GAUC only rewards ranking items *within* a
user. ``pandas_rankeval.lightgbm.eval_metric("gauc", ...)`` puts the library's GAUC (same
ties, same skipped single-class users, same weights as the offline report) into LightGBM's
training log, so that early stopping can keep the round with the best GAUC. The trained
model is then compared offline, on users it never saw, with the score already in
production (``model_b``) by :func:`pandas_rankeval.compare`.

Every sentence that states a conclusion is printed only when the numbers support it.
"""

from __future__ import annotations

import time
import warnings

import numpy as np
import pandas as pd

import pandas_rankeval as pre

try:
    import lightgbm as lgb
except ImportError:  # pragma: no cover - the example says what to install
    raise SystemExit("This example needs LightGBM: pip install 'pandas_rankeval[lightgbm]'") from None

from pandas_rankeval.lightgbm import eval_metric

N_USERS = 3000
FEATURES = ["position", "item_pop", "user_rows", "model_b"]
PARAMS = {
    "objective": "binary", "learning_rate": 0.1, "num_leaves": 15, "min_data_in_leaf": 50,
    "num_threads": 1, "verbosity": -1, "seed": 0, "deterministic": True,
}  # fmt: skip
PATIENCE = 25  # rounds without improvement before early stopping
N_BOOT = 500  # bootstrap replicates of compare(); 1000 is the library default


def section(title: str) -> None:
    print()
    print(title)
    print("-" * len(title))


def features(part: pd.DataFrame, item_pop: pd.Series) -> pd.DataFrame:
    """Features of one split: display position, item popularity in the training log, the
    user's list length, and the production score."""
    return pd.DataFrame({
        "position": part["position"],
        "item_pop": part["item_id"].map(item_pop).fillna(0),
        "user_rows": part.groupby("user_id")["user_id"].transform("size"),
        "model_b": part["model_b"],
    })  # fmt: skip


def main() -> None:
    started = time.perf_counter()
    # GAUC leaves out the users without a click (or without a non-click) by definition and
    # the coverage says so; keep the output to the numbers.
    warnings.simplefilter("ignore", pre.CoverageWarning)

    # ------------------------------------------------------------------------------------
    # 1. A small click log, split by user: no user is in two splits.
    # ------------------------------------------------------------------------------------
    section("1. The click log, split by user")
    log = pre.datasets.make_impressions(n_users=N_USERS, seed=0)
    split = np.select([log["user_id"] % 5 < 3, log["user_id"] % 5 == 3], ["train", "valid"], "test")
    train, valid, test = (log[split == s] for s in ("train", "valid", "test"))
    item_pop = train.groupby("item_id").size()
    X = {name: features(part, item_pop) for name, part in (("train", train), ("valid", valid), ("test", test))}
    for name, part in (("train", train), ("valid", valid), ("test", test)):
        print(f"{name:5}: {len(part):6,} impressions, {part['user_id'].nunique():5,} users, "
              f"click rate {part['click'].mean():.3f}")  # fmt: skip

    dtrain = lgb.Dataset(X["train"], train["click"])
    dvalid = lgb.Dataset(X["valid"], valid["click"], reference=dtrain)
    # the hook: the library's GAUC by user on the validation set, logged every round
    gauc_by_user = eval_metric("gauc", group=valid["user_id"])

    # ------------------------------------------------------------------------------------
    # 2. Early stopping on validation GAUC: metric="None" leaves GAUC the only metric.
    # ------------------------------------------------------------------------------------
    section("2. LightGBM, early stopping on validation GAUC")
    history: dict = {}
    by_gauc = lgb.train(
        {**PARAMS, "metric": "None"}, dtrain, num_boost_round=500,
        valid_sets=[dvalid], valid_names=["valid"], feval=gauc_by_user,
        callbacks=[lgb.early_stopping(PATIENCE, verbose=False), lgb.record_evaluation(history)],
    )  # fmt: skip
    curve = history["valid"]["rankeval_gauc"]
    peak = int(np.argmax(curve)) + 1
    print(f"rounds trained: {len(curve)}; best iteration: {by_gauc.best_iteration}; "
          f"validation GAUC there: {curve[by_gauc.best_iteration - 1]:.4f}")  # fmt: skip
    print("validation GAUC at rounds 1, 10, 20, ...: " + ", ".join(f"{v:.4f}" for v in curve[::10]))
    if by_gauc.best_iteration == peak:
        print(f"=> Training kept round {peak}, where the logged GAUC peaks.")

    # ------------------------------------------------------------------------------------
    # 3. The usual set-up for comparison: early stopping on the validation log loss, with
    #    GAUC logged alongside (first_metric_only: the log loss alone decides).
    # ------------------------------------------------------------------------------------
    section("3. The same model, early stopping on validation log loss")
    history_ll: dict = {}
    by_logloss = lgb.train(
        {**PARAMS, "metric": "binary_logloss"}, dtrain, num_boost_round=500,
        valid_sets=[dvalid], valid_names=["valid"], feval=gauc_by_user,
        callbacks=[lgb.early_stopping(PATIENCE, first_metric_only=True, verbose=False),
                   lgb.record_evaluation(history_ll)],
    )  # fmt: skip
    stop_ll = by_logloss.best_iteration
    gauc_at_ll = history_ll["valid"]["rankeval_gauc"][stop_ll - 1]
    print(f"best iteration by log loss: {stop_ll}; validation GAUC there: {gauc_at_ll:.4f} "
          f"(log loss {history_ll['valid']['binary_logloss'][stop_ll - 1]:.4f})")  # fmt: skip
    if stop_ll != by_gauc.best_iteration and gauc_at_ll < max(curve):
        print(f"=> Stopping on log loss keeps round {stop_ll}, whose validation GAUC is "
              f"{max(curve) - gauc_at_ll:.4f} below the GAUC peak at round {peak}.")  # fmt: skip

    # ------------------------------------------------------------------------------------
    # 4. The logged number is the offline number: pre.gauc on the validation frame with the
    #    best iteration's scores gives what LightGBM logged.
    # ------------------------------------------------------------------------------------
    section("4. The training log and the offline metric agree")
    valid_scored = valid.assign(score=by_gauc.predict(X["valid"], num_iteration=by_gauc.best_iteration))
    offline = pre.gauc(valid_scored, group="user_id", label="click", score="score")
    logged = curve[by_gauc.best_iteration - 1]
    print(f"logged in training: {logged:.10f}")
    print(f"pre.gauc offline:   {float(offline):.10f}   ({offline.coverage})")
    if abs(logged - offline) < 1e-9:
        print("=> The same number: same ties, same skipped users, same weights.")

    # ------------------------------------------------------------------------------------
    # 5. Offline, on users no model has seen: both trained models against the production
    #    score, paired by user (bootstrap intervals, randomization tests, Holm).
    # ------------------------------------------------------------------------------------
    section("5. Held-out users: compare with the production score (model_b)")
    scored = test.assign(
        gbm_gauc_stop=by_gauc.predict(X["test"], num_iteration=by_gauc.best_iteration),
        gbm_logloss_stop=by_logloss.predict(X["test"], num_iteration=stop_ll),
    )
    table = pre.compare(
        scored, group="user_id", label="click", scores=["model_b", "gbm_gauc_stop", "gbm_logloss_stop"],
        baseline="model_b", metrics=["gauc", "auc", "ndcg@10"], n_boot=N_BOOT, seed=0,
    )  # fmt: skip
    print(table.round(4).to_string())
    for model in ("gbm_gauc_stop", "gbm_logloss_stop"):
        row = table.loc[(model, "gauc")]
        direction = "higher" if row["diff"] > 0 else "lower"
        verdict = "significant" if bool(row["significant"]) else "not significant"
        print(f"=> {model} vs model_b on gauc: {row['diff']:+.4f} [{row['ci_low']:+.4f}, {row['ci_high']:+.4f}], "
              f"{direction}, {verdict} (Holm-adjusted p {row['p_holm']:.4f})")  # fmt: skip
    a, b = (float(table.loc[(m, "gauc"), "value"]) for m in ("gbm_gauc_stop", "gbm_logloss_stop"))
    if a > b:
        print(f"=> On held-out users, the GAUC-stopped model also has the higher GAUC ({a:.4f} vs {b:.4f}).")
    if not bool(table.loc[("gbm_gauc_stop", "gauc"), "significant"]):
        used = int(table.loc[("gbm_gauc_stop", "gauc"), "groups_used"])
        print(f"=> Its lead over model_b is within the noise of {used} usable test users: "
              "do not ship on this log alone; a larger held-out log would tell.")
    print(f"\n(done in {time.perf_counter() - started:.1f} s)")


if __name__ == "__main__":
    main()
