#!/usr/bin/env python
"""Dask at scale: a report on a table the client never holds, against pandas in one process.

Run from a checkout, one benchmark at a time on a shared machine::

    flock /work/bench.lock python benchmarks/bench_dask.py                   # 3e7 rows + the 1e8-row run
    flock /work/bench.lock python benchmarks/bench_dask.py --big-rows 0      # without the big run
    python benchmarks/bench_dask.py --rows 1e6 --groups 1e5 --files 50 --big-rows 0   # a quick look

What it does, all in this one run:

1. Writes (once; reused while the parameters match) a long-tailed impressions table in Parquet,
   one file at a time in a child process, so this process never holds it: ``--rows`` rows over
   ~``--groups`` users in ``--files`` files (user sizes drawn from lognormal(sigma=1.5) weights:
   median ~3 rows, a few users with thousands; users spread over all files, as in a log).
   Columns: ``user_id`` (int64), ``click`` (int8, per-user rate from Beta(0.7, 9.3), ~7%),
   ``model_a`` (float64, continuous), ``model_b`` (float64 rounded to 4 decimals: heavy ties).
2. Starts ``LocalCluster(n_workers=2, threads_per_worker=1, memory_limit="1.5GB")`` and runs
   ``pandas_rankeval.dask.report(dd.read_parquet(dir), metrics=["auc", "gauc", "mrr", "ndcg@10"])``
   on the two models. Measured: wall time; worker restarts (worker addresses and process ids
   before and after); every worker's peak RSS (its own ``ru_maxrss``) and the spilled bytes; this
   client's peak RSS (``ru_maxrss`` of this process, which never holds the table).
3. Runs ``pandas_rankeval.report`` on the same files in ONE child process (reading excluded from
   its time) and prints the ratio and the largest absolute difference of the two tables.
4. With ``--big-rows`` (default 1e8), writes a second table of that many rows and runs the same
   Dask report on it; printed with the memory one process would need for it (pandas' peak RSS on
   the first table, scaled by rows) against the cluster's 3 GB.

Targets (issue 8): 0 restarts, client peak RSS < 500 MB, Dask time <= 3x pandas, max difference
<= 1e-12, the big run finishes.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

METRICS = ["auc", "gauc", "mrr", "ndcg@10"]
SCORES = ["model_a", "model_b"]
KW = dict(group="user_id", label="click", scores=SCORES, metrics=METRICS)


# --------------------------------------------------------------------------- #
# Data
# --------------------------------------------------------------------------- #
def write_table(out: Path, rows: int, groups: int, files: int, seed: int) -> None:
    """Write the table file by file (run in a child process: see ``--write``)."""
    import numpy as np
    import pandas as pd

    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    # ~groups users appear: a few more are drawn, the lightest ones may not show up
    n_users = int(groups * 1.25)
    weight = rng.lognormal(0.0, 1.5, n_users)
    cdf = np.cumsum(weight)
    cdf /= cdf[-1]
    rate = rng.beta(0.7, 9.3, n_users)
    bias = rng.normal(0.0, 1.0, n_users)
    del weight
    per_file = -(-rows // files)
    done = 0
    for f in range(files):
        n = min(per_file, rows - done)
        if n <= 0:
            break
        r = np.random.default_rng([seed, f])
        user = np.searchsorted(cdf, r.random(n), side="right").clip(0, n_users - 1)
        click = (r.random(n) < rate[user]).astype(np.int8)
        a = 1.0 / (1.0 + np.exp(-(1.2 * click + bias[user] + r.normal(0.0, 1.0, n))))
        b = np.round(1.0 / (1.0 + np.exp(-(0.8 * click + 0.5 * bias[user] + r.normal(0.0, 1.2, n)))), 4)
        frame = pd.DataFrame({"user_id": user.astype(np.int64), "click": click, "model_a": a, "model_b": b})
        frame.to_parquet(out / f"part-{f:04d}.parquet", index=False)
        done += n
    (out / "_params.json").write_text(json.dumps({"rows": rows, "groups": groups, "files": files, "seed": seed}))


def ensure_table(out: Path, rows: int, groups: int, files: int, seed: int) -> float:
    """Write the table unless it is there with these parameters; returns the seconds spent."""
    params = {"rows": rows, "groups": groups, "files": files, "seed": seed}
    marker = out / "_params.json"
    if marker.exists() and json.loads(marker.read_text()) == params:
        return 0.0
    if out.exists():
        for p in out.glob("*.parquet"):
            p.unlink()
    t = time.perf_counter()
    subprocess.run(
        [sys.executable, __file__, "--write", str(out), str(rows), str(groups), str(files), str(seed)],
        check=True,
    )
    return time.perf_counter() - t


# --------------------------------------------------------------------------- #
# pandas in one process
# --------------------------------------------------------------------------- #
def pandas_child(path: str, out: str) -> None:
    import pandas as pd

    import pandas_rankeval as pre

    t = time.perf_counter()
    df = pd.read_parquet(path)
    read = time.perf_counter() - t
    t = time.perf_counter()
    rep = pre.report(df, **KW)
    took = time.perf_counter() - t
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    pd.DataFrame(rep).to_pickle(out)  # exact floats (JSON would round them)
    print(json.dumps({"read": read, "report": took, "peak_mb": peak}))


def run_pandas(path: Path) -> dict:
    import tempfile

    import pandas as pd

    with tempfile.TemporaryDirectory() as tmp:
        table = Path(tmp) / "report.pkl"
        out = subprocess.run(
            [sys.executable, __file__, "--pandas", str(path), str(table)],
            check=True, capture_output=True, text=True,
        )
        result = json.loads(out.stdout.strip().splitlines()[-1])
        result["table"] = pd.read_pickle(table)
    return result


# --------------------------------------------------------------------------- #
# Dask on a LocalCluster
# --------------------------------------------------------------------------- #
def _worker_stats(dask_worker) -> dict:  # noqa: ANN001 - runs on each worker (client.run)
    import resource as r

    data = dask_worker.data
    spilled = getattr(data, "spilled_total", None)
    return {
        "pid": os.getpid(),
        "peak_mb": r.getrusage(r.RUSAGE_SELF).ru_maxrss / 1024,
        "spilled_mb": (spilled.disk / 2**20) if spilled is not None else 0.0,
    }


def run_dask(path: Path, npartitions: int | None = None) -> dict:
    import dask.dataframe as dd
    import distributed

    import pandas_rankeval.dask as prd

    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, memory_limit="1.5GB", dashboard_address=":0"
    ) as cluster, distributed.Client(cluster) as client:
        before = client.run(_worker_stats)
        t = time.perf_counter()
        rep = prd.report(dd.read_parquet(str(path)), **KW, npartitions=npartitions)
        took = time.perf_counter() - t
        after = client.run(_worker_stats)
    restarts = len(set(before) ^ set(after)) // 2 + sum(
        1 for a in before if a in after and before[a]["pid"] != after[a]["pid"]
    )
    return {
        "time": took,
        "table": rep,
        "restarts": restarts,
        "workers_before": sorted(f"{a} pid {s['pid']}" for a, s in before.items()),
        "workers_after": sorted(f"{a} pid {s['pid']}" for a, s in after.items()),
        "worker_peak_mb": max(s["peak_mb"] for s in after.values()),
        "spilled_mb": sum(s["spilled_mb"] for s in after.values()),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=float, default=3e7)
    ap.add_argument("--groups", type=float, default=3e6)
    ap.add_argument("--files", type=int, default=60)
    ap.add_argument("--big-rows", type=float, default=1e8)
    ap.add_argument("--npartitions", type=int, default=None, help="partitions of the Dask shuffles (default: the files')")
    ap.add_argument("--data", type=Path, default=Path("/tmp/pandas_rankeval_bench_dask"))
    ap.add_argument("--seed", type=int, default=20240601)
    args = ap.parse_args()

    import numpy as np
    import pandas as pd

    import pandas_rankeval

    rows, groups = int(args.rows), int(args.groups)
    small = args.data / f"r{rows}_g{groups}_f{args.files}"
    wrote = ensure_table(small, rows, groups, args.files, args.seed)
    load = os.getloadavg()
    print(
        f"pandas_rankeval dask benchmark -- python {sys.version.split()[0]}, pandas {pd.__version__}, "
        f"numpy {np.__version__}, dask {__import__('dask').__version__}, {os.cpu_count()} CPUs; "
        f"load average {load[0]:.2f} at start; pandas_rankeval from {Path(pandas_rankeval.__file__).parent}"
    )
    print(f"data: {rows:,} rows, ~{groups:,} users, {args.files} Parquet files in {small}"
          + (f" (written in {wrote:.0f} s)" if wrote else " (reused)"))

    d = run_dask(small, args.npartitions)
    client_peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # before pandas runs (child)
    p = run_pandas(small)
    want = p["table"]
    got = pd.DataFrame(d["table"])
    diff = float(np.nanmax(np.abs(got[METRICS].to_numpy() - want.loc[got.index, METRICS].to_numpy())))
    n_groups = int(got["n_groups"].iloc[0])

    lines = [
        ("groups in the data", f"{n_groups:,}", ""),
        ("dask report wall time", f"{d['time']:.1f} s", ""),
        ("pandas report wall time (one process, read excluded)", f"{p['report']:.1f} s", f"(read {p['read']:.1f} s, peak RSS {p['peak_mb']:.0f} MB)"),
        ("dask / pandas", f"{d['time'] / p['report']:.2f}x", "target <= 3x"),
        ("worker restarts", f"{d['restarts']}", "target 0"),
        ("client peak RSS", f"{client_peak:.0f} MB", "target < 500 MB"),
        ("worker peak RSS (max of 2, limit 1.5 GB)", f"{d['worker_peak_mb']:.0f} MB", ""),
        ("worker bytes spilled to disk", f"{d['spilled_mb']:.0f} MB", ""),
        ("max |dask - pandas| over auc, gauc, mrr, ndcg@10", f"{diff:.1e}", "target <= 1e-12"),
    ]
    width = max(len(a) for a, _, _ in lines)
    print()
    for a, b, c in lines:
        print(f"{a:<{width}}  {b:>12}  {c}")
    print(f"\nworkers before: {d['workers_before']}\nworkers after:  {d['workers_after']}", flush=True)
    ok = d["restarts"] == 0 and client_peak < 500 and d["time"] <= 3 * p["report"] and diff <= 1e-12
    print("verdict:", "PASS" if ok else "FAIL (see targets above)", flush=True)
    big_rows = int(args.big_rows)
    lines = []
    if big_rows:
        big = args.data / f"r{big_rows}_g{big_rows // 10}_f{max(args.files, big_rows // 500_000)}"
        files = max(args.files, big_rows // 500_000)
        ensure_table(big, big_rows, big_rows // 10, files, args.seed)
        gb = big_rows * (8 + 1 + 8 + 8) / 1e9
        # what one process needs for it: pandas' peak on the small table, scaled by rows
        pandas_gb = p["peak_mb"] / 1024 * big_rows / rows
        db = run_dask(big, args.npartitions)
        lines += [
            (f"big run: {big_rows:,} rows in {files} files ({gb:.1f} GB of columns in memory; pandas would "
             f"peak at ~{pandas_gb:.1f} GB = {pandas_gb / 3.0:.1f}x the cluster's 3 GB)", f"{db['time']:.0f} s",
             "target: finishes"),
            ("big run: worker restarts / worker peak RSS / spilled",
             f"{db['restarts']} / {db['worker_peak_mb']:.0f} MB / {db['spilled_mb']:.0f} MB", ""),
        ]
    for a, b, c in lines:
        print(f"{a}: {b} {c}")
    print(f"load average {os.getloadavg()[0]:.2f} at end")
    return 0 if ok else 1


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--write":
        _, _, path, r, g, f, s = sys.argv
        write_table(Path(path), int(r), int(g), int(f), int(s))
    elif len(sys.argv) > 1 and sys.argv[1] == "--pandas":
        pandas_child(sys.argv[2], sys.argv[3])
    else:
        sys.exit(main())
