#!/usr/bin/env python
"""Client memory against the number of groups: flat, on every partitioned engine.

The same rows (``--rows``, written once per group count by DuckDB to Parquet files, as in
``bench_duckdb.py``) are cut into more and more groups (``--groups``, default 1e4 to 3e6). Each
engine evaluates ``gauc`` and ``report(metrics=["auc", "gauc", "mrr", "ndcg@10"], ci=0.9)`` in a
fresh child process, one after the other:

- **duckdb**: a ``duckdb.sql("select * from 'dir/*.parquet'")`` relation (the child is the client
  and DuckDB's threads do the scans: its peak RSS is what the user's process needs);
- **lazy**: ``pl.scan_parquet("dir/*.parquet")`` (the polars LazyFrame engine);
- **dask**: ``dd.read_parquet(dir)`` on a ``LocalCluster`` of 2 single-threaded worker processes;
  the client's peak RSS is the child's, the workers' peak is printed beside it.

A client whose memory grew with the groups (a per-group table collected on the driver) would show
a peak that rises with the group count; the summaries the engines collect are per segment, never
per group, so the peak should stay flat (within the noise of the allocator). Every line quotes the
load average when it started; the values are checked equal across engines to 1e-12.

    python benchmarks/bench_client_memory.py --rows 1e7
    python benchmarks/bench_client_memory.py --rows 3e7 --groups 1e4 1e6 3e6 --engines duckdb,dask
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_duckdb import load, write

CHILD = r"""
import json, resource, sys, time
import pandas_rankeval as pre
src, what = sys.argv[1], sys.argv[2]
kw = dict(group="u", label="click")
metrics = ["auc", "gauc", "mrr", "ndcg@10"]
t0 = time.perf_counter()
extra = {}
if what == "duckdb":
    import duckdb
    rel = duckdb.sql(f"select * from '{src}/*.parquet'")
    g = float(pre.gauc(rel, score="model", **kw))
    r = pre.report(rel, scores="model", metrics=metrics, ci=0.9, n_boot=200, **kw)
elif what == "lazy":
    import polars as pl
    lf = pl.scan_parquet(f"{src}/*.parquet")
    g = float(pre.gauc(lf, score="model", **kw))
    r = pre.report(lf, scores="model", metrics=metrics, ci=0.9, n_boot=200, **kw)
else:
    import os
    import dask.dataframe as dd
    from dask.distributed import Client, LocalCluster
    import pandas_rankeval.dask as prd
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, memory_limit="8GB") as cluster, \
            Client(cluster) as client:
        before = set(client.run(os.getpid).values())
        ddf = dd.read_parquet(src)
        g = float(prd.gauc(ddf, score="model", **kw))
        r = prd.report(ddf, scores="model", metrics=metrics, ci=0.9, n_boot=200, **kw)

        def _peak():
            import resource
            return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        extra = {"worker_rss_mb": max(client.run(_peak).values()),
                 "restarts": len(set(client.run(os.getpid).values()) - before)}
print(json.dumps({"wall": time.perf_counter() - t0,
                  "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "gauc": g, "values": [float(r[m].iloc[0]) for m in metrics], **extra}))
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=float, default=1e7)
    ap.add_argument("--groups", type=float, nargs="+", default=[1e4, 1e5, 1e6, 3e6])
    ap.add_argument("--files", type=int, default=8)
    ap.add_argument("--engines", default="duckdb,lazy,dask")
    args = ap.parse_args()
    rows = int(args.rows)
    print(f"{rows:,} rows; peak RSS in MB (client; Dask workers in brackets), wall in s")
    for groups in map(int, args.groups):
        with tempfile.TemporaryDirectory() as d:
            write(d, rows, groups, args.files)
            first = None
            for what in args.engines.split(","):
                at = load()
                out = subprocess.run([sys.executable, "-c", CHILD, d, what], check=False, capture_output=True,
                                     text=True)
                if out.returncode:
                    print(out.stderr, file=sys.stderr)
                    raise SystemExit(out.returncode)
                r = json.loads(out.stdout[out.stdout.rindex('{"wall"'):].splitlines()[0])
                first = first or r
                diff = max(abs(a - b) for a, b in zip([r["gauc"], *r["values"]], [first["gauc"], *first["values"]]))
                workers = f" [workers {r['worker_rss_mb']:.0f}, {r['restarts']} restarts]" if "worker_rss_mb" in r else ""
                print(f"groups {groups:>10,}  {what:>6}: peak RSS {r['rss_mb']:6.0f}{workers}  "
                      f"wall {r['wall']:6.1f}  gauc {r['gauc']:.12f}  max |diff| {diff:.1e}  (load {at})", flush=True)


if __name__ == "__main__":
    main()
