#!/usr/bin/env python
"""Dask with ``by=`` of many segments against pandas (issue 19, item 14).

Run from a checkout, one benchmark at a time on a shared machine::

    flock /work/bench.lock python benchmarks/bench_dask_segments.py
    python benchmarks/bench_dask_segments.py --segments 2000 --rows 20000 --repeats 3

A report of two models over the default metrics (``auc``, ``gauc``, ``mrr``, ``ndcg@10``) with
``by=`` a segment column of ``--segments`` values (constant within a user), on ``--rows`` rows,
without and with ``ci=0.95`` (1,000 hashed bootstrap replicates, clustered DeLong for ``auc``).
pandas runs in this process; Dask on ``LocalCluster(n_workers=2, threads_per_worker=1,
memory_limit=--memory)`` from ``dd.from_pandas(df, npartitions=--partitions)``, and (``--sync``)
on the synchronous scheduler too. Each call runs once to warm up (imports, the cluster's first
tasks), then ``--repeats`` times; the median wall time is printed with the ratio Dask / pandas,
the largest difference between the two tables, and the load average before and after.

Target (issue 19): Dask within 3x pandas, with ``ci=`` too. Before the fix the segments were
summed and finalized one at a time in Python: 11x pandas, and 46.8 s against 2.6 s with ``ci=``.
Each Dask line says which path ran: segment mode (clustered DeLong with many segments: partitions
of whole segments), group mode with shards (intervals without global AUC, or few / large
segments), or plain group mode.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))


def make_frame(rows: int, segments: int, seed: int = 0, users: int | None = None):
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(seed)
    users = rng.integers(0, users or 2 * segments, rows)
    return pd.DataFrame({
        "user": users,
        "segment": users % segments,  # a user's segment: constant within the user
        "click": (rng.random(rows) < 0.3).astype(np.int8),
        "model_a": rng.random(rows),
        "model_b": rng.random(rows).round(2),  # ties
    })


def timed(fn, repeats: int) -> tuple[float, object]:
    out = fn()  # warm-up
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times), out


def max_diff(a, b) -> float:
    import numpy as np
    import pandas as pd

    a, b = pd.DataFrame(a), pd.DataFrame(b)
    if not a.index.equals(b.index) or list(a.columns) != list(b.columns):
        return float("inf")
    x, y = a.to_numpy(dtype=float), b.to_numpy(dtype=float)
    both_nan = np.isnan(x) & np.isnan(y)
    return float(np.nanmax(np.where(both_nan, 0.0, np.abs(x - y)))) if x.size else 0.0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=20_000)
    ap.add_argument("--segments", type=int, default=2_000)
    ap.add_argument("--users", type=int, default=None, help="distinct users (default: 2 per segment)")
    ap.add_argument("--partitions", type=int, default=4)
    ap.add_argument("--memory", default="1.5GB", help="memory_limit of each of the 2 Dask workers")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--n-boot", type=int, default=1000)
    ap.add_argument("--sync", action="store_true", help="also time Dask on the synchronous scheduler")
    args = ap.parse_args()

    warnings.simplefilter("ignore")
    import dask
    import dask.dataframe as dd
    import distributed

    import pandas_rankeval as pre
    import pandas_rankeval.dask as prd
    from pandas_rankeval.engines import dask as engine
    from pandas_rankeval.engines.dask import groups

    modes: list[str] = []  # which path each Dask call took (client-side functions, wrapped)
    seg_pass, shard_pass = engine.segment_pass, groups.sharded

    def segment_pass(*a, **k):
        out = seg_pass(*a, **k)
        if out is not None:
            modes.append("segment mode")
        return out

    def sharded(*a, **k):
        modes.append("group mode, shards")
        return shard_pass(*a, **k)

    engine.segment_pass, groups.sharded = segment_pass, sharded

    df = make_frame(args.rows, args.segments, users=args.users)
    kw = dict(group="user", label="click", scores=["model_a", "model_b"], by="segment")
    print(f"pandas_rankeval from {pre.__file__}")
    print(f"{args.rows:,} rows, {df['user'].nunique():,} users, {args.segments:,} segments, "
          f"{args.partitions} partitions; load average at start: {os.getloadavg()}", flush=True)
    rows = []
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, memory_limit=args.memory,
                                  dashboard_address=":0", processes=True) as cluster, \
            distributed.Client(cluster) as client:
        from bench_dask import _worker_stats  # pid, peak RSS and spilled bytes of a worker

        before = client.run(_worker_stats)
        ddf = dd.from_pandas(df, npartitions=args.partitions)
        for ci in (None, 0.95):
            extra = dict(ci=ci, n_boot=args.n_boot) if ci else {}
            tp, want = timed(lambda: pre.report(df, **kw, **extra), args.repeats)
            with dask.config.set({"dataframe.shuffle.method": "p2p"}):
                td, got = timed(lambda: prd.report(ddf, **kw, **extra), args.repeats)
            rows.append((f"ci={ci}", "LocalCluster", tp, td, max_diff(got, want)))
            mode = modes[-1] if modes else "group mode"
            modes.clear()
            print(f"  {rows[-1][0]:9s} {rows[-1][1]:13s} pandas {tp:7.3f} s  dask {td:7.3f} s  "
                  f"ratio {td / tp:5.2f}x  max diff {rows[-1][4]:.1e}  ({mode})", flush=True)
            if args.sync:
                with dask.config.set({"scheduler": "synchronous", "dataframe.shuffle.method": "tasks"}):
                    ts, got = timed(lambda: prd.report(ddf, **kw, **extra), args.repeats)
                rows.append((f"ci={ci}", "synchronous", tp, ts, max_diff(got, want)))
                print(f"  {rows[-1][0]:9s} {rows[-1][1]:13s} pandas {tp:7.3f} s  dask {ts:7.3f} s  "
                      f"ratio {ts / tp:5.2f}x  max diff {rows[-1][4]:.1e}", flush=True)
        after = client.run(_worker_stats)
        restarts = len(set(before) ^ set(after)) // 2 + sum(
            1 for a in before if a in after and before[a]["pid"] != after[a]["pid"]
        )
        print(f"workers: {restarts} restart(s), peak RSS {max(s['peak_mb'] for s in after.values()):,.0f} MB "
              f"(largest of 2, every call included), spilled {sum(s['spilled_mb'] for s in after.values()):,.0f} MB; "
              f"this process (pandas too) peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:,.0f} MB")
        del client
    print(f"load average at end: {os.getloadavg()}")
    worst = max(r[3] / r[2] for r in rows if r[1] == "LocalCluster")
    print(f"target: Dask within 3x pandas: {'met' if worst <= 3 else 'NOT met'} (worst {worst:.2f}x)")


if __name__ == "__main__":
    main()
