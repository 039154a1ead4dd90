#!/usr/bin/env python
"""The warehouse engine (Ibis) on DuckDB against hand-written DuckDB SQL and the DuckDB relation engine.

Run from a checkout, one benchmark at a time on a shared machine (check ``uptime`` first)::

    flock /work/bench.lock python benchmarks/bench_warehouse.py --rows 1e7 --groups 1e6
    python benchmarks/bench_warehouse.py --rows 1e6 --groups 1e5      # a quick look

The table is the one of ``bench_duckdb.py`` (``u`` int64 keys, ``click`` int8, ``model`` rounded to
3 decimals: masses of ties) written by DuckDB to ``--files`` Parquet files. Then, each in a fresh
child process (peak RSS = the child's ``ru_maxrss``: DuckDB runs in the same process, so this is
DuckDB's memory plus the client's), one after the other, GAUC, NDCG@10 and MRR (expected values
under ties):

- **ibis**: the warehouse engine's SQL builder (``engines/warehouse/stats.group_stats``) on
  ``ibis.duckdb.connect().read_parquet(...)``: one query, one row per group pulled to the client,
  the per-group values and the means computed there (``group_values``);
- **sql**: the same three metrics written by hand in one DuckDB query (row numbers for the
  positions, ``lgamma`` for the expected reciprocal rank, cumulative ``ROWS`` sums over the
  (user, score) blocks): one row back;
- **relation**: today's DuckDB relation engine,
  ``pre.report(duckdb.sql("select * from 'dir/*.parquet'"), metrics=[...])``: rows streamed to the
  client bucket by bucket.

Printed per child: wall time, peak RSS, rows pulled to the client, the client-side bytes of what
was pulled (the per-group frame), and the largest difference of the three values from the SQL ones.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

# the same Parquet table (the same hashed ids, clicks and scores) as the DuckDB engine's benchmark
from bench_duckdb import load, write

CHILD = r"""
import json, resource, sys, time
src, what = sys.argv[1], sys.argv[2]
import duckdb, numpy as np, pandas as pd  # noqa: E401
import pandas_rankeval as pre  # noqa: F401
if what == "ibis":
    import ibis
    from pandas_rankeval.engines.warehouse.stats import Stat, group_stats, group_values
t0 = time.perf_counter()
pulled, pulled_bytes = 1, 0
if what == "sql":
    row = duckdb.sql(f'''
        with r as (
            select u, model as s, click as y,
                   row_number() over (partition by u order by model desc) as pos,
                   row_number() over (partition by u order by click desc) as ipos
            from '{src}/*.parquet'),
        r2 as (
            select *, min(pos) over (partition by u, s) - 1 as m, count(*) over (partition by u, s) as t,
                   sum(y) over (partition by u, s) as p
            from r),
        b as (
            select u, s, count(*) as t, sum(y) as p,
                   sum(case when pos <= 10 then 1 / log2(pos + 1) else 0 end) as disc,
                   sum(case when ipos <= 10 and y > 0 then 1 / log2(ipos + 1) else 0 end) as idcg,
                   sum(case when p > 0 and pos - m <= t - p + 1
                            then exp(lgamma(t - (pos - m) + 1) - lgamma(t - (pos - m) - p + 2)
                                     - lgamma(t + 1) + lgamma(t - p + 1)) * p / pos
                            else 0 end) as rr
            from r2 group by u, s),
        c as (
            select *,
                   sum(t - p) over (partition by u order by s desc rows between unbounded preceding and current row) as cn,
                   sum(p) over (partition by u order by s desc rows between unbounded preceding and current row) as cp
            from b),
        g as (
            select u, sum(t)::double as n, sum(p)::double as np_, sum(p * cn)::double as below,
                   sum(p * (t - p))::double as tied, sum(p / t * disc) as dcg, sum(idcg) as idcg,
                   sum(case when p > 0 and cp = p then rr else 0 end) as rr
            from c group by u)
        select sum(case when np_ > 0 and np_ < n then n * (np_ * (n - np_) - below + 0.5 * tied) / (np_ * (n - np_)) end)
                   / sum(case when np_ > 0 and np_ < n then n end),
               avg(case when np_ > 0 then dcg / idcg else 0 end),
               avg(rr)
        from g''').fetchall()[0]
    values = [float(v) for v in row]
elif what == "ibis":
    con = ibis.duckdb.connect()
    t = con.read_parquet(f"{src}/*.parquet")
    stats = [Stat("gauc"), Stat("ndcg", 10), Stat("mrr")]
    table = con.execute(group_stats(t, group=["u"], label="click", score="model", stats=stats))
    pulled, pulled_bytes = len(table), int(table.memory_usage(deep=True).sum())
    v = group_values(table, stats)
    n = table["__rk_s_n"].to_numpy(dtype=float)
    ok = ~np.isnan(v["auc"].to_numpy())
    values = [float((n[ok] * v["auc"].to_numpy()[ok]).sum() / n[ok].sum()), float(v["ndcg@10"].mean()),
              float(v["mrr"].mean())]
else:
    rel = duckdb.sql(f"select * from '{src}/*.parquet'")
    rep = pre.report(rel, group="u", label="click", scores="model", metrics=["gauc", "ndcg@10", "mrr"])
    values = [float(rep["gauc"].iloc[0]), float(rep["ndcg@10"].iloc[0]), float(rep["mrr"].iloc[0])]
    pulled = -1  # every kept row, bucket by bucket
wall = time.perf_counter() - t0
print(json.dumps({"wall": wall, "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "values": values, "pulled": pulled, "pulled_bytes": pulled_bytes}))
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=float, default=1e7)
    ap.add_argument("--groups", type=float, default=1e6)
    ap.add_argument("--files", type=int, default=8)
    ap.add_argument("--engines", default="sql,ibis,relation", help="comma-separated children, in order")
    args = ap.parse_args()
    rows, groups = int(args.rows), int(args.groups)
    with tempfile.TemporaryDirectory() as d:
        t0 = time.perf_counter()
        write(d, rows, groups, args.files)
        size = sum(os.path.getsize(os.path.join(d, f)) for f in os.listdir(d))
        print(f"wrote {rows:,} rows in {groups:,} users ({size / 2**20:,.0f} MiB of Parquet) in "
              f"{time.perf_counter() - t0:.1f} s (load {load()})")
        results = {}
        for what in args.engines.split(","):
            at = load()
            out = subprocess.run([sys.executable, "-c", CHILD, d, what], check=False, capture_output=True, text=True)
            if out.returncode:
                print(out.stderr, file=sys.stderr)
                raise SystemExit(out.returncode)
            r = results[what] = json.loads(out.stdout[out.stdout.rindex('{"wall"'):].splitlines()[0])
            diff = ""
            if "sql" in results:
                diff = f"  max |value - sql| {max(abs(a - b) for a, b in zip(r['values'], results['sql']['values'])):.1e}"
            pulled = "every row" if r["pulled"] < 0 else f"{r['pulled']:,} rows"
            per_group = f" ({r['pulled_bytes'] / r['pulled']:.0f} B/group)" if r["pulled_bytes"] else ""
            print(f"{what:>8}: {r['wall']:7.2f} s  peak RSS {r['rss_mb']:7.0f} MB  pulled {pulled}{per_group}  "
                  f"gauc/ndcg@10/mrr {', '.join(f'{v:.12f}' for v in r['values'])}{diff}  (load {at})", flush=True)
        if "ibis" in results and "sql" in results:
            print(f"ibis / sql wall: {results['ibis']['wall'] / results['sql']['wall']:.2f}x (target <= 1.5x)")
        if "ibis" in results and "relation" in results:
            print(f"relation / ibis wall: {results['relation']['wall'] / results['ibis']['wall']:.2f}x")


if __name__ == "__main__":
    main()
