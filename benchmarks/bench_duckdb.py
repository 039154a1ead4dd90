#!/usr/bin/env python
"""DuckDB: the engine against a hand-written DuckDB SQL GAUC over the same Parquet files.

Run from a checkout, one benchmark at a time on a shared machine::

    flock /work/bench.lock python benchmarks/bench_duckdb.py --rows 1e7 --groups 1e6
    python benchmarks/bench_duckdb.py --rows 1e6 --groups 1e5      # a quick look

``--rows`` rows in ``--groups`` users (int64 keys, user sizes uniform in [1, 2 rows/users - 1];
``click`` int8 at a per-user rate; ``model`` rounded to 3 decimals: masses of ties) are written by
DuckDB to ``--files`` Parquet files. Then, each in a fresh child process (peak RSS = the child's
``ru_maxrss``), one after the other:

- **engine**: ``pandas_rankeval.gauc(duckdb.sql("select * from 'dir/*.parquet'"), ...)``;
- **sql**: GAUC written by hand in DuckDB SQL: average ranks for ties from window functions
  (``rank()`` plus half the tied rows), the Mann-Whitney U per user, the row-weighted mean over
  users with both classes (the library's default ``gauc``);
- **report**: ``report(metrics=["auc", "gauc", "mrr", "ndcg@10"])`` on the relation, for information;
- **lazy**: ``pandas_rankeval.gauc(pl.scan_parquet("dir/*.parquet"), ...)`` (the polars LazyFrame engine);
- **dask**: ``pandas_rankeval.dask.gauc(dd.read_parquet("dir"), ...)`` on a ``LocalCluster`` of 2
  single-threaded workers (peak RSS is the client's; the workers' peak and restarts are printed too).

The table prints wall times, peak RSS, the bytes the process read (after its imports) divided by the size of the
Parquet files (``rchar`` of ``/proc/self/io``: the source reads plus any temporary files the engine
reads back; DuckDB and polars read the files with ``pread``; for Dask, what the client received from the cluster, since rchar counts socket reads), the ratio engine / sql (target: 1.5x
at most) and the difference of each GAUC from the SQL one; every line quotes the load average when
it started. ``--engines`` picks the children (default: all).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

CHILD = r"""
import json, resource, sys, time
import duckdb
src, what = sys.argv[1], sys.argv[2]


def rchar():
    with open("/proc/self/io") as io:
        return int(next(line for line in io if line.startswith("rchar")).split()[1])


# the libraries a child uses are imported before the clock and the byte count start
import pandas_rankeval, pandas_rankeval.engines.duckdb  # noqa: E401,F401
if what == "lazy":
    import polars, pandas_rankeval.engines.polars  # noqa: E401,F401
if what == "dask":
    import dask.dataframe, dask.distributed, pandas_rankeval.dask, pandas_rankeval.engines.dask  # noqa: E401,F401
read0 = rchar()
t0 = time.perf_counter()
if what == "sql":
    value = duckdb.sql(f'''
        with r as (
            select u, click,
                   rank() over (partition by u order by model)
                   + (count(*) over (partition by u, model) - 1) / 2.0 as ar
            from '{src}/*.parquet'),
        g as (
            select count(*) as n, sum(click) as p, sum(case when click > 0 then ar else 0 end) as sr
            from r group by u)
        select sum(n * (sr - p * (p + 1) / 2.0) / (p * (n - p))) / sum(n)
        from g where p > 0 and p < n''').fetchall()[0][0]
elif what == "lazy":
    import polars as pl
    import pandas_rankeval as pre
    value = float(pre.gauc(pl.scan_parquet(f"{src}/*.parquet"), group="u", label="click", score="model"))
elif what == "dask":
    import dask.dataframe as dd
    from dask.distributed import Client, LocalCluster
    import pandas_rankeval.dask as prd
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, memory_limit="8GB") as cluster, \
            Client(cluster) as client:
        import os
        before = set(client.run(os.getpid).values())
        value = float(prd.gauc(dd.read_parquet(src), group="u", label="click", score="model"))

        def _peak():
            import resource
            return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        # a restarted worker is a new process: count the worker pids that were not there before
        extra = {"worker_rss_mb": max(client.run(_peak).values()),
                 "restarts": len(set(client.run(os.getpid).values()) - before)}
else:
    import pandas_rankeval as pre
    rel = duckdb.sql(f"select * from '{src}/*.parquet'")
    if what == "engine":
        value = float(pre.gauc(rel, group="u", label="click", score="model"))
    else:
        value = float(pre.report(rel, group="u", label="click", scores="model",
                                 metrics=["auc", "gauc", "mrr", "ndcg@10"])["gauc"].iloc[0])
wall = time.perf_counter() - t0
print(json.dumps({"wall": wall, "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "value": value, "rchar": rchar() - read0, **globals().get("extra", {})}))
"""


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def write(directory: str, rows: int, groups: int, files: int) -> None:
    import duckdb

    per = rows // files
    con = duckdb.connect()
    for f in range(files):
        con.execute(f"""
            copy (
                select (hash(i) % {groups})::BIGINT as u,
                       ((hash(i * 31 + 7) % 1000) < 70 + (hash(hash(i) % {groups}) % 100))::TINYINT as click,
                       round(((hash(i * 17 + 3) % 1000000) / 1e6)
                             + 0.1 * ((hash(i * 31 + 7) % 1000) < 70 + (hash(hash(i) % {groups}) % 100))::INT, 3)
                           as model
                from range({f * per}, {(f + 1) * per}) t(i)
            ) to '{directory}/part-{f:03d}.parquet' (format parquet)""")
    con.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=float, default=1e7)
    ap.add_argument("--groups", type=float, default=1e6)
    ap.add_argument("--files", type=int, default=8)
    ap.add_argument("--skip-report", action="store_true")
    ap.add_argument("--engines", default="sql,engine,report,lazy,dask",
                    help="comma-separated children to run, in order (sql and engine are needed for the ratio)")
    args = ap.parse_args()
    rows, groups = int(args.rows), int(args.groups)
    with tempfile.TemporaryDirectory() as d:
        t0 = time.perf_counter()
        write(d, rows, groups, args.files)
        print(f"wrote {rows:,} rows in {groups:,} users to {args.files} Parquet files in "
              f"{time.perf_counter() - t0:.1f} s (load {load()})")
        results = {}
        size = sum(os.path.getsize(os.path.join(d, f)) for f in os.listdir(d))
        print(f"Parquet size {size / 2**20:,.0f} MiB")
        order = [w for w in args.engines.split(",") if not (args.skip_report and w == "report")]
        for what in order:
            at = load()
            out = subprocess.run([sys.executable, "-c", CHILD, d, what], check=False, capture_output=True, text=True,
                                 cwd=os.getcwd())
            if out.returncode:
                print(out.stderr, file=sys.stderr)
                raise SystemExit(out.returncode)
            # the result is the last JSON line (a progress display may share stdout)
            results[what] = json.loads(out.stdout[out.stdout.rindex('{"wall"'):].splitlines()[0])
            r = results[what]
            diff = f"  |gauc - sql| {abs(r['value'] - results['sql']['value']):.1e}" if "sql" in results else ""
            workers = (f"  worker peak RSS {r['worker_rss_mb']:.0f} MB, {r['restarts']} restarts"
                       if "worker_rss_mb" in r else "")
            print(f"{what:>7}: {r['wall']:7.2f} s  peak RSS {r['rss_mb']:7.0f} MB{workers}  "
                  f"read {r['rchar'] / size:5.1f}x the files  gauc {r['value']:.15f}{diff}  (load {at})", flush=True)
        if "engine" in results and "sql" in results:
            e, s = results["engine"], results["sql"]
            print(f"engine / sql wall: {e['wall'] / s['wall']:.2f}x (target <= 1.5x); "
                  f"|gauc difference| = {abs(e['value'] - s['value']):.2e}")


if __name__ == "__main__":
    main()
