#!/usr/bin/env python
"""Spark with ``by=`` of many segments and intervals: wall time and bytes the driver collects.

    flock /work/bench.lock python benchmarks/bench_spark_segments.py
    python benchmarks/bench_spark_segments.py --rows 200000 --segments 2000 --buckets 8

A report of two models over the default metrics (``auc``, ``gauc``, ``mrr``, ``ndcg@10``) with
``by=`` a segment column (constant within a user) and ``ci=0.95`` (1,000 hashed replicates,
clustered DeLong for ``auc``), on a ``local[2]`` session, against pandas in this process. Prints
the median wall times, their ratio, the largest difference between the tables and the bytes of
summaries the driver collected (``engines.spark.session.LAST_CALL``): a bucket's replicate sums are
segments x replicates x items x 2 floats (192 MB at 2,000 segments and 6 items) unless reduced on
the executors. The load average is printed before and after.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=200_000)
    ap.add_argument("--users", type=int, default=40_000)
    ap.add_argument("--segments", type=int, default=2_000)
    ap.add_argument("--buckets", type=int, default=8)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--n-boot", type=int, default=1000)
    args = ap.parse_args()

    warnings.simplefilter("ignore")
    from bench_dask_segments import make_frame, max_diff

    import pandas_rankeval as pre
    import pandas_rankeval.spark as prs
    from pandas_rankeval.engines.spark.session import LAST_CALL, local_session

    df = make_frame(args.rows, args.segments, users=args.users)
    kw = dict(group="user", label="click", scores=["model_a", "model_b"], by="segment", ci=0.95, n_boot=args.n_boot)
    print(f"pandas_rankeval from {pre.__file__}")
    print(f"{args.rows:,} rows, {df['user'].nunique():,} users, {df['segment'].nunique():,} segments, "
          f"{args.buckets} buckets; load average at start: {os.getloadavg()}", flush=True)
    spark = local_session()
    sdf = spark.createDataFrame(df).cache()
    sdf.count()

    def timed(fn):
        out = fn()
        times = []
        for _ in range(args.repeats):
            t = time.perf_counter()
            out = fn()
            times.append(time.perf_counter() - t)
        return statistics.median(times), out

    tp, want = timed(lambda: pre.report(df, **kw))
    ts, got = timed(lambda: prs.report(sdf, buckets=args.buckets, **kw))
    print(f"  pandas {tp:7.2f} s  spark {ts:7.2f} s  ratio {ts / tp:5.2f}x  max diff {max_diff(got, want):.1e}  "
          f"collected {LAST_CALL.get('collected_bytes', 0) / 1e6:,.1f} MB")
    print(f"load average at end: {os.getloadavg()}")


if __name__ == "__main__":
    main()
