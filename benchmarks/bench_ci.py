#!/usr/bin/env python
"""Cost of bootstrap confidence intervals in pandas_rankeval.report.

    python benchmarks/bench_ci.py [--rows 1e6] [--groups 1e5] [--repeats 3] [--n-boot 1000]

Times, in one process, on the synthetic impressions table of bench.py (same generator and seed):

- plain: ``report(df, group, label, scores=["model_a", "model_b"], metrics=["gauc", "mrr", "ndcg@10"])``
- ci:    the same call with ``ci=0.95, n_boot=1000, seed=0``

and prints one table with both medians, their ratio (target: ci / plain < 10) and the cost per
bootstrap replicate. When ``report`` has no ``ci`` parameter yet, or the call raises because the
bootstrap is not implemented, the CI row says "not available" and the script exits 0.

Then (issue 11, global AUC inference) on the same table with 2 models x 8 metrics
(``auc, gauc, mrr, ndcg@10, map@10, precision@10, recall@10, hit_rate@10``), timed in
interleaved rounds:

- plain8:   ``report(...)`` without intervals
- ci8:      ``report(..., ci=0.95, n_boot=1000)`` (global AUC by clustered DeLong, the default)
- compare8: ``compare(..., baseline="model_a", n_boot=1000)`` (the same default; the group metrics'
  p-values from the sign-flip distribution, no sign-flip replicates)
- and, for information, both with ``auc_method="bootstrap"`` (the group bootstrap of global AUC), and
  compare with ``method="randomization"`` (1,000 Monte Carlo sign flips on top of the bootstrap)

Targets: ci8 / plain8 <= 5 and compare8 / plain8 <= 5. Gate: the DeLong and bootstrap intervals of
global AUC have widths within 20% of each other (n_boot=1000), and ci8's point estimates equal
plain8's. ``--no-auc-bootstrap`` skips the informational bootstrap rows (the slow ones).

Checks before the ratio is printed (a failure exits with code 2): the CI report's point estimates
equal the plain report's to 1e-12, every interval holds its point estimate
(``<metric>_low <= value <= <metric>_high``), and repeated calls with the same seed give the same
intervals.
"""

from __future__ import annotations

import argparse
import inspect
import sys
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench import (  # noqa: E402
    GROUP, LABEL, SCORE_A, SCORE_B, TOL, fmt_time, interleaved, load_average, make_frame, timed,
)

METRICS = ["gauc", "mrr", "ndcg@10"]
METRICS8 = ["auc", "gauc", "mrr", "ndcg@10", "map@10", "precision@10", "recall@10", "hit_rate@10"]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=float, default=1e6)
    ap.add_argument("--groups", type=float, default=1e5)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--n-boot", type=int, default=1000)
    ap.add_argument("--slow", type=float, default=60.0, help="do not repeat a call slower than this (s)")
    ap.add_argument("--seed", type=int, default=20240601, help="data seed (the bootstrap seed is 0)")
    ap.add_argument("--no-auc-bootstrap", action="store_true", help="skip the auc_method='bootstrap' rows")
    ap.add_argument("--only-auc", action="store_true", help="only the 8-metric section (issue 11)")
    ap.add_argument("--timer", choices=("wall", "cpu"), default="wall",
                    help="8-metric section: wall time, or process CPU time (steadier on a loaded machine)")
    args = ap.parse_args(argv)

    import pandas_rankeval as prk

    if hasattr(prk, "CoverageWarning"):
        warnings.simplefilter("ignore", prk.CoverageWarning)
    rows, groups = int(args.rows), int(args.groups)
    df = make_frame(rows, groups, args.seed)
    kw = dict(group=GROUP, label=LABEL, scores=[SCORE_A, SCORE_B], metrics=METRICS)
    prk.report(make_frame(3000, 300, 1), **kw)  # warm-up: imports, caches
    if args.only_auc:
        return auc_section(prk, df, args)

    t_plain, plain = timed(lambda: prk.report(df, **kw), args.repeats, args.slow)

    ci_kw = dict(ci=0.95, n_boot=args.n_boot, seed=0)
    t_ci, ci_out, why = None, None, ""
    params = inspect.signature(prk.report).parameters
    if not all(k in params for k in ci_kw):
        why = "report() has no ci/n_boot/seed parameters"
    else:
        try:
            prk.report(make_frame(3000, 300, 1), **kw, **ci_kw)  # warm-up of the bootstrap path
            outs = []

            def call():
                out = prk.report(df, **kw, **ci_kw)
                outs.append(out)
                return out

            t_ci, ci_out = timed(call, args.repeats, args.slow)
        except (TypeError, NotImplementedError, ImportError) as e:
            why = f"{type(e).__name__}: {e}"

    if ci_out is not None:
        problems = []
        for model in plain.index:
            for m in METRICS:
                a, b = float(ci_out.loc[model, m]), float(plain.loc[model, m])
                if not abs(a - b) <= TOL:
                    problems.append(f"{model} {m}: point estimate {a!r} with ci vs {b!r} without")
                lo_c, hi_c = f"{m}_low", f"{m}_high"
                if lo_c not in ci_out.columns or hi_c not in ci_out.columns:
                    problems.append(f"no columns {lo_c}/{hi_c} in {list(ci_out.columns)}")
                    continue
                lo, hi = float(ci_out.loc[model, lo_c]), float(ci_out.loc[model, hi_c])
                if not lo <= b <= hi:
                    problems.append(f"{model} {m}: interval [{lo!r}, {hi!r}] does not hold {b!r}")
        for other in outs[1:]:
            if not other.equals(outs[0]):
                problems.append("two calls with seed=0 gave different reports")
                break
        if problems:
            print("*** CORRECTNESS GATE FAILED:\n  " + "\n  ".join(problems), file=sys.stderr)
            return 2

    print(f"report of 2 models x {METRICS}, {rows:,} rows, {df[GROUP].nunique():,} groups; "
          f"medians of {args.repeats} calls")
    print()
    w = 44
    print(f"{'':{w}}  {'time':>12}")
    print(f"{'report, no CI':{w}}  {fmt_time(t_plain):>12}")
    if t_ci is None:
        print(f"{f'report, ci=0.95, n_boot={args.n_boot}':{w}}  {'not available':>12}  ({why})")
        print()
        print("target ci / plain < 10: n/a (CI not available)")
        return 0
    ratio = t_ci / t_plain
    print(f"{f'report, ci=0.95, n_boot={args.n_boot}':{w}}  {fmt_time(t_ci):>12}")
    print(f"{'per bootstrap replicate (ci - plain) / n_boot':{w}}  {fmt_time((t_ci - t_plain) / args.n_boot):>12}")
    print(f"{'ci / plain':{w}}  {ratio:>12.2f}  target < 10: {'PASS' if ratio < 10 else 'FAIL'}")
    print()
    print(ci_out.to_string())
    print()
    return auc_section(prk, df, args)


def auc_section(prk, df, args) -> int:
    """Issue 11: report / compare with intervals on 2 models x 8 metrics, against no intervals."""
    params = inspect.signature(prk.report).parameters
    if "auc_method" not in params:
        print("8-metric section: report() has no auc_method parameter; skipped")
        return 0
    kw = dict(group=GROUP, label=LABEL, scores=[SCORE_A, SCORE_B], metrics=METRICS8)
    ck = dict(kw, baseline=SCORE_A, n_boot=args.n_boot, seed=0)
    small = make_frame(3000, 300, 1)
    prk.report(small, **kw, ci=0.95, n_boot=50)
    prk.compare(small, **dict(ck, n_boot=50))
    fns = {
        "plain8": lambda: prk.report(df, **kw),
        "ci8": lambda: prk.report(df, **kw, ci=0.95, n_boot=args.n_boot, seed=0),
        "compare8": lambda: prk.compare(df, **ck),
    }
    if not args.no_auc_bootstrap:
        fns["ci8_boot"] = lambda: prk.report(
            df, **kw, ci=0.95, n_boot=args.n_boot, seed=0, auc_method="bootstrap"
        )
        fns["compare8_boot"] = lambda: prk.compare(df, **ck, auc_method="bootstrap")
    if "adjust" in inspect.signature(prk.compare).parameters:  # the default needs no sign-flip replicates
        fns["compare8_mc"] = lambda: prk.compare(df, **ck, method="randomization")
    print(f"issue 11: 2 models x {len(METRICS8)} metrics, {len(df):,} rows, {df[GROUP].nunique():,} groups, "
          f"n_boot={args.n_boot}; {load_average()}", flush=True)
    res = interleaved(fns, args.repeats, args.slow, args.timer)
    t = {k: v[0] for k, v in res.items()}
    out = {k: v[1] for k, v in res.items()}
    problems = []
    plain, ci = out["plain8"], out["ci8"]
    for model in plain.index:
        for m in METRICS8:
            if not abs(float(ci.loc[model, m]) - float(plain.loc[model, m])) <= TOL:
                problems.append(f"{model} {m}: point estimate differs with ci")
            lo, hi = float(ci.loc[model, f"{m}_low"]), float(ci.loc[model, f"{m}_high"])
            if not lo <= float(plain.loc[model, m]) <= hi:
                problems.append(f"{model} {m}: interval [{lo}, {hi}] does not hold the estimate")
    if "ci8_boot" in out:
        boot = out["ci8_boot"]
        for model in plain.index:
            w_dl = float(ci.loc[model, "auc_high"] - ci.loc[model, "auc_low"])
            w_bs = float(boot.loc[model, "auc_high"] - boot.loc[model, "auc_low"])
            print(f"  auc interval width {model}: DeLong {w_dl:.5f}, bootstrap {w_bs:.5f} (ratio {w_dl / w_bs:.3f})")
            if not 0.8 <= w_dl / w_bs <= 1.25:
                problems.append(f"{model}: DeLong / bootstrap width {w_dl / w_bs:.3f}")
        c_dl, c_bs = out["compare8"], out["compare8_boot"]
        row = (SCORE_B, "auc")
        w_dl = float(c_dl.loc[row, "ci_high"] - c_dl.loc[row, "ci_low"])
        w_bs = float(c_bs.loc[row, "ci_high"] - c_bs.loc[row, "ci_low"])
        print(f"  auc difference interval width: DeLong {w_dl:.5f}, bootstrap {w_bs:.5f} (ratio {w_dl / w_bs:.3f})")
    if problems:
        print("*** CORRECTNESS GATE FAILED:\n  " + "\n  ".join(problems), file=sys.stderr)
        return 2
    w = 58
    base = t["plain8"]
    print(f"{'':{w}}  {args.timer + ' time':>10}  {'x plain':>8}  target")
    rows = [
        ("plain8", "report, no intervals", None),
        ("ci8", f"report, ci=0.95, n_boot={args.n_boot} (auc: DeLong)", 5.0),
        ("compare8", f"compare, n_boot={args.n_boot} (auc: DeLong)", 5.0),
        ("ci8_boot", "report, ci=0.95, auc_method='bootstrap' (information)", None),
        ("compare8_boot", "compare, auc_method='bootstrap' (information)", None),
        ("compare8_mc", "compare, method='randomization' (information)", None),
    ]
    for key, label, target in rows:
        if key not in t:
            continue
        r = t[key] / base
        verdict = "" if target is None else f"<= {target:g}: {'PASS' if r <= target else 'FAIL'}"
        print(f"{label:{w}}  {fmt_time(t[key]):>10}  {r:>8.2f}  {verdict}")
    print(f"end: {load_average()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
