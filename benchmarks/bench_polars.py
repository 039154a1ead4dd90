#!/usr/bin/env python
"""polars: an eager DataFrame against pandas, and a LazyFrame over Parquet against pandas' memory.

Run from a checkout, one benchmark at a time on a shared machine::

    flock /work/bench.lock python benchmarks/bench_polars.py                      # (a) and (b)
    flock /work/bench.lock python benchmarks/bench_polars.py --skip-lazy          # (a) only
    python benchmarks/bench_polars.py --rows 1e6 --groups 1e5 --big-rows 2e6 --big-groups 2e5 --files 8  # a quick look

(a) **Eager.** A table of ``--rows`` rows in ``--groups`` users (int64 keys; user sizes
    lognormal(sigma=1.5): median ~3 rows, a few users with thousands; ``click`` int8 at a per-user
    rate ~7%; ``model_a`` float64, continuous; ``model_b`` rounded to 4 decimals: heavy ties) is
    built once in pandas and once in polars (``pl.from_pandas``). The same report
    (``metrics=["auc", "gauc", "mrr", "ndcg@10"]`` on both models) runs on each, alternately,
    ``--repeats`` times; the table prints the median wall times, their ratio (target: polars
    within 1.2x of pandas) and the largest difference of the two reports. The same with string
    keys (``"u123"``: pandas ``str``, polars ``String``) is shown for information.
(b) **LazyFrame over Parquet.** ``--big-rows`` rows in ``--big-groups`` users, written file by file
    with polars (``--files`` files; the writer holds one file's rows at a time). Two child
    processes, one after the other, each under ``/usr/bin/time -v`` (peak RSS = its "Maximum
    resident set size"): ``pl.scan_parquet(dir)`` through the polars adapter, and
    ``pd.read_parquet(dir)`` + ``pandas_rankeval.report``. The table prints both wall times and
    peak RSS, their ratio (target: polars' peak <= 1/3 of pandas') and the largest difference of
    the two reports. This process watches the machine's available memory while pandas runs: if it
    falls under ``--min-free-gb`` the pandas child is stopped (this machine is shared), and pandas
    is measured on the first ``--fallback-rows`` rows' files instead, its peak scaled by rows
    (said so in the table), with the polars LazyFrame on the same files for the numbers.

Every measurement line quotes the load average (``uptime``) when it started.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

METRICS = ["auc", "gauc", "mrr", "ndcg@10"]
SCORES = ["model_a", "model_b"]
KW = {"group": "user_id", "label": "click", "scores": SCORES, "metrics": METRICS}


def load() -> str:
    return ", ".join(f"{x:.2f}" for x in os.getloadavg())


# --------------------------------------------------------------------------- #
# Data
# --------------------------------------------------------------------------- #
def _users(groups: int, seed: int):
    import numpy as np

    rng = np.random.default_rng(seed)
    n_users = int(groups * 1.25)  # a few more drawn: the lightest may not show up
    weight = rng.lognormal(0.0, 1.5, n_users)
    cdf = np.cumsum(weight)
    cdf /= cdf[-1]
    return cdf, rng.beta(0.7, 9.3, n_users), rng.normal(0.0, 1.0, n_users)


def _rows(n: int, users, seed: list[int], string_keys: bool = False) -> dict:
    import numpy as np

    cdf, rate, bias = users
    r = np.random.default_rng(seed)
    user = np.searchsorted(cdf, r.random(n), side="right").clip(0, cdf.shape[0] - 1)
    click = (r.random(n) < rate[user]).astype(np.int8)
    a = 1.0 / (1.0 + np.exp(-(1.2 * click + bias[user] + r.normal(0.0, 1.0, n))))
    b = np.round(1.0 / (1.0 + np.exp(-(0.8 * click + 0.5 * bias[user] + r.normal(0.0, 1.2, n)))), 4)
    key = user.astype(np.int64)
    return {"user_id": key, "click": click, "model_a": a, "model_b": b}


def write_parquet(out: Path, rows: int, groups: int, files: int, seed: int) -> float:
    """Write the table file by file with polars (unless it is there); returns the seconds spent."""
    import polars as pl

    params = {"rows": rows, "groups": groups, "files": files, "seed": seed}
    marker = out / "_params.json"
    if marker.exists() and json.loads(marker.read_text()) == params:
        return 0.0
    out.mkdir(parents=True, exist_ok=True)
    for p in out.glob("*.parquet"):
        p.unlink()
    t = time.perf_counter()
    users = _users(groups, seed)
    per_file = -(-rows // files)
    done = 0
    for f in range(files):
        n = min(per_file, rows - done)
        if n <= 0:
            break
        pl.DataFrame(_rows(n, users, [seed, f])).write_parquet(out / f"part-{f:04d}.parquet")
        done += n
    marker.write_text(json.dumps(params))
    return time.perf_counter() - t


# --------------------------------------------------------------------------- #
# The polars report: the public function on a polars frame
# --------------------------------------------------------------------------- #
def polars_report(frame, engine_options: dict | None = None):
    import pandas_rankeval as pre

    return pre.report(frame, **KW, engine_options=engine_options or None)


def max_diff(a, b) -> float:
    import pandas as pd

    a, b = pd.DataFrame(a), pd.DataFrame(b)
    return float((a[METRICS] - b[METRICS]).abs().max().max())


# --------------------------------------------------------------------------- #
# (a) eager
# --------------------------------------------------------------------------- #
def bench_eager(rows: int, groups: int, repeats: int, seed: int, string_keys: bool) -> dict:
    import numpy as np
    import pandas as pd
    import polars as pl

    import pandas_rankeval as pre

    data = _rows(rows, _users(groups, seed), [seed, 10**6])
    df = pd.DataFrame(data)
    if string_keys:
        df["user_id"] = "u" + df["user_id"].astype("str")
    pdf = pl.from_pandas(df)
    times: dict[str, list[float]] = {"pandas": [], "polars": []}
    out = {}
    started = load()
    cpu: dict[str, list[float]] = {"pandas": [], "polars": []}
    for i in range(repeats):  # alternately, each first in turn, so that a change of load hits both
        for name in (("pandas", "polars") if i % 2 == 0 else ("polars", "pandas")):
            gc.collect()
            t, c = time.perf_counter(), time.process_time()
            rep = pre.report(df, **KW) if name == "pandas" else polars_report(pdf)
            times[name].append(time.perf_counter() - t)
            cpu[name].append(time.process_time() - c)
            out[name] = rep
    med = {k: float(np.median(v)) for k, v in times.items()}
    low = {k: float(np.min(v)) for k, v in times.items()}
    med_cpu = {k: float(np.median(v)) for k, v in cpu.items()}
    from pandas_rankeval.engines.polars.convert import to_pandas

    conv = []
    for _ in range(repeats):  # what the polars frame costs on top of pandas' own path
        t = time.perf_counter()
        to_pandas(pdf, ["user_id", "click", *SCORES])
        conv.append(time.perf_counter() - t)
    return {
        "min_pandas": low["pandas"], "min_polars": low["polars"], "min_ratio": low["polars"] / low["pandas"],
        "convert": float(np.median(conv)),
        "rows": rows, "groups": int(df["user_id"].nunique()), "keys": "str" if string_keys else "int64",
        "pandas": med["pandas"], "polars": med["polars"], "ratio": med["polars"] / med["pandas"],
        "cpu_pandas": med_cpu["pandas"], "cpu_polars": med_cpu["polars"],
        "cpu_ratio": med_cpu["polars"] / med_cpu["pandas"],
        "diff": max_diff(out["polars"], out["pandas"]), "load": started, "times": times, "cpu": cpu,
    }


# --------------------------------------------------------------------------- #
# (b) lazy, in child processes under /usr/bin/time -v
# --------------------------------------------------------------------------- #
def child(kind: str, path: str, out: str, files: int, options: str) -> None:
    import pandas as pd

    t = time.perf_counter()
    paths = sorted(Path(path).glob("*.parquet"))[:files]
    if kind == "pandas":
        import pandas_rankeval as pre

        df = pd.read_parquet([str(p) for p in paths])
        read = time.perf_counter() - t
        rep = pre.report(df, **KW)
    else:
        import polars as pl

        read = 0.0
        rep = polars_report(pl.scan_parquet([str(p) for p in paths]), json.loads(options))
    pd.DataFrame(rep).to_pickle(out)
    print(json.dumps({"wall": time.perf_counter() - t, "read": read}))


def run_child(kind: str, path: Path, files: int, options: dict, min_free_gb: float) -> dict:
    import pandas as pd
    import psutil

    with tempfile.TemporaryDirectory() as tmp:
        table = Path(tmp) / "report.pkl"
        cmd = ["/usr/bin/time", "-v", sys.executable, __file__, "--child", kind, str(path), str(table),
               str(files), json.dumps(options)]
        started = load()
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env={**os.environ, "PYTHONPATH": str(ROOT)})
        stopped = threading.Event()
        low = []

        def watch() -> None:
            while proc.poll() is None and not stopped.is_set():
                free = psutil.virtual_memory().available / 2**30
                if free < min_free_gb:
                    low.append(free)
                    for c in psutil.Process(proc.pid).children(recursive=True):
                        c.kill()  # the python child of /usr/bin/time: ours
                    return
                time.sleep(0.5)

        watcher = threading.Thread(target=watch, daemon=True)
        watcher.start()
        stdout, stderr = proc.communicate()
        stopped.set()
        if low:
            return {"stopped": True, "free_gb": low[0], "load": started}
        if proc.returncode != 0:
            raise RuntimeError(f"{kind} child failed:\n{stderr[-3000:]}")
        peak_kb = next(int(line.split(":")[1]) for line in stderr.splitlines() if "Maximum resident set size" in line)
        res = json.loads(stdout.strip().splitlines()[-1])
        res.update(peak_mb=peak_kb / 1024, table=pd.read_pickle(table), stopped=False, load=started)
        return res


def bench_lazy(args) -> list[str]:
    rows, groups = int(args.big_rows), int(args.big_groups)
    path = args.data / f"r{rows}_g{groups}_f{args.files}"
    wrote = write_parquet(path, rows, groups, args.files, args.seed)
    lines = [f"(b) {rows:,} rows / ~{groups:,} users in {args.files} Parquet files"
             + (f" (written in {wrote:.0f} s)" if wrote else " (reused)")]
    opts = {"rows_per_bucket": args.rows_per_bucket} if args.rows_per_bucket else {}
    lazy = run_child("polars", path, args.files, opts, args.min_free_gb)
    lines.append(f"    polars LazyFrame (scan_parquet)  wall {lazy['wall']:7.1f} s   peak RSS {lazy['peak_mb']:8.0f} MB"
                 f"   [load {lazy['load']}]")
    if args.pandas_max_rows and rows > args.pandas_max_rows:
        pand = {"stopped": True, "skipped": True}
    else:
        pand = run_child("pandas", path, args.files, {}, args.min_free_gb)
    if not pand["stopped"]:
        lines.append(f"    pandas (read_parquet + report)   wall {pand['wall']:7.1f} s   peak RSS {pand['peak_mb']:8.0f} MB"
                     f"   (read {pand['read']:.1f} s)   [load {pand['load']}]")
        lines.append(f"    peak RSS polars / pandas: {lazy['peak_mb'] / pand['peak_mb']:.3f}  (target <= 0.333)")
        lines.append(f"    max |polars - pandas| over the report: {max_diff(lazy['table'], pand['table']):.2e}")
        return lines
    if pand.get("skipped"):
        lines.append(f"    pandas at {rows:,} rows: not run (--pandas-max-rows {args.pandas_max_rows:,.0f})")
    else:
        lines.append(f"    pandas at {rows:,} rows: STOPPED, the machine's available memory fell to "
                     f"{pand['free_gb']:.1f} GB (< {args.min_free_gb} GB)")
    files = max(1, round(args.files * args.fallback_rows / rows))
    small_rows = min(rows, files * -(-rows // args.files))
    pand = run_child("pandas", path, files, {}, args.min_free_gb)
    if pand["stopped"]:
        lines.append(f"    pandas on {files} files ({small_rows:,} rows): stopped too")
        return lines
    small = run_child("polars", path, files, opts, args.min_free_gb)
    scaled = pand["peak_mb"] * rows / small_rows
    lines.append(f"    pandas on the first {files} files ({small_rows:,} rows): wall {pand['wall']:.1f} s, peak RSS "
                 f"{pand['peak_mb']:.0f} MB [load {pand['load']}]; scaled by rows to {rows:,}: ~{scaled:.0f} MB (estimate)")
    lines.append(f"    polars LazyFrame on the same {files} files: wall {small['wall']:.1f} s, peak RSS {small['peak_mb']:.0f} MB; "
                 f"max |polars - pandas| {max_diff(small['table'], pand['table']):.2e}")
    lines.append(f"    peak RSS polars ({rows:,} rows) / pandas (estimate at {rows:,}): {lazy['peak_mb'] / scaled:.3f}"
                 "  (target <= 0.333)")
    return lines


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=float, default=1e7)
    ap.add_argument("--groups", type=float, default=1e6)
    ap.add_argument("--repeats", type=int, default=9)
    ap.add_argument("--big-rows", type=float, default=1e8)
    ap.add_argument("--big-groups", type=float, default=1e7)
    ap.add_argument("--files", type=int, default=80)
    ap.add_argument("--rows-per-bucket", type=int, default=0, help="engine option of the LazyFrame (default: the adapter's)")
    ap.add_argument("--fallback-rows", type=float, default=3e7)
    ap.add_argument("--min-free-gb", type=float, default=1.5)
    ap.add_argument("--pandas-max-rows", type=float, default=0, help="measure pandas on --fallback-rows above this")
    ap.add_argument("--data", type=Path, default=Path("/tmp/pandas_rankeval_bench_polars"))
    ap.add_argument("--seed", type=int, default=20240601)
    ap.add_argument("--skip-eager", action="store_true")
    ap.add_argument("--skip-lazy", action="store_true")
    ap.add_argument("--child", nargs=5, metavar=("KIND", "PATH", "OUT", "FILES", "OPTIONS"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        kind, path, out, files, options = args.child
        child(kind, path, out, int(files), options)
        return 0
    import polars as pl

    print(f"polars {pl.__version__}, {os.cpu_count()} cores; report of {SCORES} on {METRICS}")
    if not args.skip_eager:
        print(f"(a) eager DataFrame vs pandas, {args.repeats} alternating runs")
        print(f"    {'rows':>12} {'groups':>10} {'keys':>6} | {'wall: pandas':>12} {'polars':>7} {'ratio':>6} |"
              f" {'min: pandas':>11} {'polars':>7} {'ratio':>6} | {'cpu: pandas':>11} {'polars':>7} {'ratio':>6} |"
              f" {'convert':>8} {'max diff':>8}  load")
        for string_keys in (False, True):
            r = bench_eager(int(args.rows), int(args.groups), args.repeats, args.seed, string_keys)
            print(f"    {r['rows']:>12,} {r['groups']:>10,} {r['keys']:>6} | {r['pandas']:>11.2f}s {r['polars']:>6.2f}s"
                  f" {r['ratio']:>6.3f} | {r['min_pandas']:>10.2f}s {r['min_polars']:>6.2f}s {r['min_ratio']:>6.3f} |"
                  f" {r['cpu_pandas']:>10.2f}s {r['cpu_polars']:>6.2f}s {r['cpu_ratio']:>6.3f} |"
                  f" {r['convert'] * 1e3:>6.1f}ms {r['diff']:>8.1e}  [{r['load']}]", flush=True)
            print(f"      wall times: pandas {[round(x, 2) for x in r['times']['pandas']]}, "
                  f"polars {[round(x, 2) for x in r['times']['polars']]}", flush=True)
        print("    target: polars / pandas <= 1.2 (int64 keys); wall = median, min = fastest run, cpu = median "
              "process CPU time; convert = the plan's columns to pandas (what polars adds)")
    if not args.skip_lazy:
        for line in bench_lazy(args):
            print(line, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
