#!/usr/bin/env python
"""Per-round cost of the training hooks (issue 20).

    flock /work/bench.lock python benchmarks/bench_training.py [--rows 1e6] [--groups 1e5] [--repeats 5]

On the synthetic impressions table of bench.py (same generator and seed; rows shuffled as in
a log, groups keyed by random int64 user ids), one evaluation set of ``--rows`` rows in
``--groups`` groups. A "round" is one call of a hook with a new score column (three score
columns are cycled, so nothing is reused by accident). Timed in interleaved rounds, medians:

- library:   ``pandas_rankeval.gauc(frame, group="user", label="label", score=<column>)`` on a
             frame that already holds the column (the function the hooks must match)
- hooks:     ``pandas_rankeval.lightgbm.eval_metric("gauc", group=keys)`` called as LightGBM's
             native ``feval(preds, Dataset)`` and as its sklearn API ``(y, preds, weight, group)``;
             ``pandas_rankeval.xgboost.eval_metric("gauc", group=keys)`` as ``custom_metric(preds,
             DMatrix)`` (float32 predictions, as XGBoost gives) and as the sklearn API ``(y, preds)``;
             and the same with the keys from the set's own queries (a query-sorted copy:
             LightGBM ``group=sizes``, XGBoost ``qid``)
- ndcg@10:   the library function and the LightGBM hook, for a list metric
- loop:      the hand-written feval a hook replaces: a frame, ``groupby`` and sklearn's
             ``roc_auc_score`` per group with both classes, count-weighted (timed on a random
             sample of groups and scaled by the number of groups, marked ``~ (est)``)

Also timed once: the first round of a hook (it prepares the labels and keys of the set).

Target: every hook's round <= 1.5x the library function on the same frame. Gate (exit code 2):
every hook value equals the library's on that round's frame to 1e-12. Prints the load average
before and after; ratios come from this one run.
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench import GROUP, LABEL, SCORE_A, TOL, fmt_ratio, fmt_time, interleaved, load_average, make_frame  # noqa: E402

TARGET = 1.5


def loop_gauc(keys: np.ndarray, labels: np.ndarray, preds: np.ndarray) -> float:
    """The per-group sklearn feval people write by hand (count-weighted, one-class groups skipped)."""
    from sklearn.metrics import roc_auc_score

    frame = pd.DataFrame({"g": keys, "y": labels, "p": preds})
    num = den = 0.0
    for _, g in frame.groupby("g", sort=False):
        y = g["y"].to_numpy()
        if y.min() == y.max():
            continue
        num += len(g) * roc_auc_score(y, g["p"].to_numpy())
        den += len(g)
    return num / den


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=float, default=1e6)
    ap.add_argument("--groups", type=float, default=1e5)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--loop-groups", type=int, default=3000, help="groups in the timed sample of the loop")
    ap.add_argument("--seed", type=int, default=20240601)
    args = ap.parse_args(argv)

    import lightgbm as lgb
    import xgboost as xgb

    import pandas_rankeval as pre
    from pandas_rankeval.lightgbm import eval_metric as lgb_metric
    from pandas_rankeval.xgboost import eval_metric as xgb_metric

    warnings.simplefilter("ignore", pre.CoverageWarning)
    load_start = load_average()
    rows, n_groups = int(args.rows), int(args.groups)
    df = make_frame(rows, n_groups, args.seed, string_keys=False)
    rng = np.random.default_rng(1)
    names = ["s0", "s1", "s2"]
    for i, name in enumerate(names):  # three rounds' predictions: the score, perturbed
        df[name] = df[SCORE_A] + (rng.normal(0.0, 0.01, rows) if i else 0.0)
    keys, labels = df[GROUP].to_numpy(), df[LABEL].to_numpy()
    labels_f = labels.astype(np.float64)
    labels32 = labels.astype(np.float32)
    preds = {n: df[n].to_numpy() for n in names}
    preds32 = {n: p.astype(np.float32) for n, p in preds.items()}
    df32 = df[[GROUP, LABEL]].assign(**preds32)

    # a query-sorted copy for the hooks that take the keys from the set's queries
    order = np.argsort(keys, kind="stable")
    skeys = keys[order]
    sizes = np.diff(np.flatnonzero(np.r_[True, skeys[1:] != skeys[:-1], True]))
    sorted_df = df.iloc[order].reset_index(drop=True)
    sorted_preds = {n: sorted_df[n].to_numpy() for n in names}
    sorted32 = {n: p.astype(np.float32) for n, p in sorted_preds.items()}

    one_feature = np.zeros((rows, 1), dtype=np.float32)
    ldata = lgb.Dataset(one_feature, labels_f, free_raw_data=False, params={"verbose": -1}).construct()
    ldata_q = lgb.Dataset(one_feature, sorted_df[LABEL].to_numpy(np.float64), group=sizes, free_raw_data=False, params={"verbose": -1}).construct()
    xdata = xgb.DMatrix(one_feature, labels32, nthread=1)
    xdata_q = xgb.DMatrix(one_feature, sorted_df[LABEL].to_numpy(np.float32), qid=skeys, nthread=1)

    hooks = {
        "lgb_native": (lgb_metric("gauc", group=keys), lambda h, n: h(preds[n], ldata)[1]),
        "lgb_sklearn": (lgb_metric("gauc", group=keys), lambda h, n: h(labels_f, preds[n], None, None)[1]),
        "lgb_queries": (lgb_metric("gauc"), lambda h, n: h(sorted_preds[n], ldata_q)[1]),
        "xgb_native": (xgb_metric("gauc", group=keys), lambda h, n: h(preds32[n], xdata)[1]),
        "xgb_sklearn": (xgb_metric("gauc", group=keys), lambda h, n: h(labels32, preds32[n])),
        "xgb_qid": (xgb_metric("gauc"), lambda h, n: h(sorted32[n], xdata_q)[1]),
        "lgb_ndcg": (lgb_metric("ndcg@10", group=keys), lambda h, n: h(labels_f, preds[n], None, None)[1]),
    }
    frames = {  # the frame each hook's value must equal the library on
        "lgb_native": (df, "gauc"), "lgb_sklearn": (df, "gauc"), "lgb_queries": (sorted_df, "gauc"),
        "xgb_native": (df32, "gauc"), "xgb_sklearn": (df32, "gauc"), "xgb_qid": (df32, "gauc"),
        "lgb_ndcg": (df, "ndcg@10"),
    }  # fmt: skip

    def library(frame: pd.DataFrame, metric: str, name: str) -> float:
        if metric == "gauc":
            return float(pre.gauc(frame, group=GROUP, label=LABEL, score=name))
        return float(pre.ndcg(frame, group=GROUP, label=LABEL, score=name, k=10))

    # first rounds (they prepare the set), and the gate: every value equals the library's
    first: dict[str, float] = {}
    worst = 0.0
    for key, (hook, call) in hooks.items():
        t0 = time.perf_counter()
        call(hook, "s0")
        first[key] = time.perf_counter() - t0
        frame, metric = frames[key]
        for n in names:
            worst = max(worst, abs(call(hook, n) - library(frame, metric, n)))
    print(f"gate: largest |hook - library| over {len(hooks)} hooks x {len(names)} rounds = {worst:.2e}", file=sys.stderr)

    def cycling(fn):
        it = itertools.cycle(names)
        return lambda: fn(next(it))

    fns = {
        "library gauc": cycling(lambda n: library(df, "gauc", n)),
        "library gauc f32": cycling(lambda n: library(df32, "gauc", n)),
        "library ndcg@10": cycling(lambda n: library(df, "ndcg@10", n)),
    }
    for key, (hook, call) in hooks.items():
        fns[key] = cycling(lambda n, hook=hook, call=call: call(hook, n))
    times = {k: t for k, (t, _) in interleaved(fns, args.repeats, slow=60.0).items()}

    # the hand-written loop, on a sample of groups, scaled by the number of groups
    sample = rng.choice(np.unique(keys), size=min(args.loop_groups, n_groups), replace=False)
    mask = np.isin(keys, sample)
    t0 = time.perf_counter()
    loop_gauc(keys[mask], labels[mask], preds["s0"][mask])
    t_loop = (time.perf_counter() - t0) * n_groups / len(sample)

    refs = {"lgb_native": "library gauc", "lgb_sklearn": "library gauc", "lgb_queries": "library gauc",
            "xgb_native": "library gauc f32", "xgb_sklearn": "library gauc f32", "xgb_qid": "library gauc f32",
            "lgb_ndcg": "library ndcg@10"}  # fmt: skip
    what = {
        "lgb_native": "LightGBM feval(preds, Dataset), group=keys",
        "lgb_sklearn": "LightGBM sklearn (y, preds, w, group), group=keys",
        "lgb_queries": "LightGBM feval, keys from Dataset(group=sizes)",
        "xgb_native": "XGBoost custom_metric(preds, DMatrix), group=keys",
        "xgb_sklearn": "XGBoost sklearn (y, preds), group=keys",
        "xgb_qid": "XGBoost custom_metric, keys from DMatrix(qid=)",
        "lgb_ndcg": "LightGBM sklearn, ndcg@10",
    }
    print(f"# bench_training: {rows:,} rows, {n_groups:,} groups; pandas_rankeval {pre.__version__}, "
          f"lightgbm {lgb.__version__}, xgboost {xgb.__version__}")  # fmt: skip
    print(f"# {load_start} at start")
    print()
    print(f"| {'what (per round)':52} | {'hook':>14} | {'first round':>11} | {'library fn':>10} | {'hook / library':>14} | {'loop / hook':>11} |")
    print(f"| {'-' * 52} | {'-' * 14}:| {'-' * 11}:| {'-' * 10}:| {'-' * 14}:| {'-' * 11}:|")
    ok = True
    for key, label in what.items():
        ref = times[refs[key]]
        ratio = times[key] / ref
        ok &= ratio <= TARGET
        vs_loop = fmt_ratio(t_loop / times[key], est=True) if key != "lgb_ndcg" else "-"
        print(f"| {label:52} | {fmt_time(times[key]):>14} | {fmt_time(first[key]):>11} | {fmt_time(ref):>10} | "
              f"{fmt_ratio(ratio):>14} | {vs_loop:>11} |")  # fmt: skip
    print(f"| {'hand-written loop: groupby + roc_auc_score per group':52} | {fmt_time(t_loop, est=True):>14} | "
          f"{'':>11} | {fmt_time(times['library gauc']):>10} | {fmt_ratio(t_loop / times['library gauc'], est=True):>14} | {'':>11} |")  # fmt: skip
    print()
    print(f"target: hook / library <= {TARGET} -> {'met' if ok else 'NOT met'}; "
          f"gate: |hook - library| = {worst:.1e} (<= {TOL:g}: {'ok' if worst <= TOL else 'FAILED'})")
    print(f"# {load_average()} at end")
    return 0 if worst <= TOL else 2


if __name__ == "__main__":
    sys.exit(main())
