#!/usr/bin/env python
"""Cost of bootstrap confidence intervals in pandas_rankeval.report.

    python benchmarks/bench_ci.py [--rows 1e6] [--groups 1e5] [--repeats 3] [--n-boot 1000]

Times, in one process, on the synthetic impressions table of bench.py (same generator and seed):

- plain: ``report(df, group, label, scores=["model_a", "model_b"], metrics=["gauc", "mrr", "ndcg@10"])``
- ci:    the same call with ``ci=0.95, n_boot=1000, seed=0``

and prints one table with both medians, their ratio (target: ci / plain < 10) and the cost per
bootstrap replicate. When ``report`` has no ``ci`` parameter yet, or the call raises because the
bootstrap is not implemented, the CI row says "not available" and the script exits 0.

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
from bench import GROUP, LABEL, SCORE_A, SCORE_B, TOL, fmt_time, make_frame, timed  # noqa: E402

METRICS = ["gauc", "mrr", "ndcg@10"]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=float, default=1e6)
    ap.add_argument("--groups", type=float, default=1e5)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--n-boot", type=int, default=1000)
    ap.add_argument("--slow", type=float, default=60.0, help="do not repeat a call slower than this (s)")
    ap.add_argument("--seed", type=int, default=20240601, help="data seed (the bootstrap seed is 0)")
    args = ap.parse_args(argv)

    import pandas_rankeval as prk

    if hasattr(prk, "CoverageWarning"):
        warnings.simplefilter("ignore", prk.CoverageWarning)
    rows, groups = int(args.rows), int(args.groups)
    df = make_frame(rows, groups, args.seed)
    kw = dict(group=GROUP, label=LABEL, scores=[SCORE_A, SCORE_B], metrics=METRICS)
    prk.report(make_frame(3000, 300, 1), **kw)  # warm-up: imports, caches

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
    return 0


if __name__ == "__main__":
    sys.exit(main())
