#!/usr/bin/env python
"""pandas_rankeval.spark against the reference PySpark gAUC, pandas and Dask, on Parquet.

Run from a checkout, under the machine's benchmark lock::

    flock /work/bench.lock python benchmarks/bench_spark.py                 # 1e7 rows: 1e5 and 1e6 groups
    flock /work/bench.lock python benchmarks/bench_spark.py --sizes 1e6:1e5 # a quick run

What is timed, per data size (rows:groups), all on the same Parquet files:

- **spark**: ``pandas_rankeval.spark.report(sdf, metrics=["auc", "gauc", "mrr", "ndcg@10"])``
  on two models, ``sdf = spark.read.parquet(...)``, one ``local[2]`` session.
- **(a) reference**: the reference document's approach on the same session (on a hashed sample
  of about ``--reference-groups`` groups, cached before timing, its time scaled by the group
  count, marked "est"): keep the groups
  with both labels (``groupBy(group).agg(countDistinct(label))`` + join), then
  ``groupBy(group).applyInPandas`` with ``sklearn.metrics.roc_auc_score`` per group, and a
  count-weighted mean; both models' AUC in the same per-group call (so it does LESS work than
  the spark row: GAUC only, no AUC / MRR / NDCG).
- **(b) pandas**: ``pandas_rankeval.report`` on the frame read with pandas, one process
  (Parquet read timed separately).
- **(c) dask**: ``pandas_rankeval.dask.report`` on ``dd.read_parquet`` with a 2-worker
  ``LocalCluster`` (one thread each), when the installed dask adapter accepts the call.

Each engine runs in its own subprocess (a fresh interpreter, so memory numbers are its own);
a cell is the median of ``--repeats`` calls after one warm-up call (the reference runs once).

Driver memory: the spark child reads VmHWM of its own (Python driver) process around the
report call, after resetting the peak mark (``/proc/self/clear_refs``), and counts the bytes
collected to the driver (one summary per bucket + one row per range partition). Both must
stay flat from 1e5 to 1e6 groups.

Correctness gate: every metric of the spark report equals pandas to 1e-12, the reference
GAUC equals our GAUC of the same (sampled) rows to 1e-12 (both count-weighted, ties credited
1/2), Dask equals pandas.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

METRICS = ["auc", "gauc", "mrr", "ndcg@10"]
SCORES = ["model_a", "model_b"]
GROUP, LABEL = "user", "label"


# --------------------------------------------------------------------------- data
def write_data(path: Path, n_rows: int, n_groups: int, seed: int = 7, files: int = 8) -> None:
    """Deterministic impressions table as ``files`` Parquet files (rows shuffled, as a log).

    Long-tailed group sizes (1 + a multinomial split of the other rows with lognormal(1.5)
    weights), per-group click rates Beta(0.7, 9.3) (~7% positives), two CTR-like models;
    ``model_b`` is rounded to 3 decimals, so it is tie-heavy (ties inside groups and across
    range partitions).
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    if (path / "_SUCCESS").exists():
        return
    path.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng([seed, n_rows, n_groups])
    w = rng.lognormal(0.0, 1.5, n_groups)
    sizes = 1 + rng.multinomial(n_rows - n_groups, w / w.sum())
    gidx = np.repeat(np.arange(n_groups), sizes)
    ctr = rng.beta(0.7, 9.3, n_groups)
    label = (rng.random(n_rows) < ctr[gidx]).astype(np.int64)
    bias = rng.normal(0.0, 0.5, n_groups)[gidx]
    a = 1.0 / (1.0 + np.exp(-(-2.5 + bias + 1.2 * label + rng.normal(0.0, 1.0, n_rows))))
    b = np.round(1.0 / (1.0 + np.exp(-(-2.5 + bias + 0.8 * label + rng.normal(0.0, 1.0, n_rows)))), 3)
    keys = rng.choice(10**12, n_groups, replace=False).astype(np.int64)
    perm = rng.permutation(n_rows)
    cols = {GROUP: keys[gidx[perm]], LABEL: label[perm], "model_a": a[perm], "model_b": b[perm]}
    for i, chunk in enumerate(np.array_split(np.arange(n_rows), files)):
        table = pa.table({k: v[chunk] for k, v in cols.items()})
        pq.write_table(table, path / f"part-{i:03d}.parquet")
    (path / "_SUCCESS").write_text("")


# --------------------------------------------------------------------------- children
def _vm(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) * 1024
    return 0


def _reset_peak() -> None:
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        pass


def _timed(fn, repeats: int) -> tuple[float, object]:
    fn()  # warm-up
    times, out = [], None
    for _ in range(repeats):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return float(np.median(times)), out


def _table_json(rep) -> dict:
    return {f"{m}|{k}": float(rep.loc[m, k]) for m in SCORES for k in METRICS}


def child_spark(path: str, repeats: int, reference: bool, fraction: float = 1.0) -> dict:
    import pandas_rankeval.spark as prs
    from pyspark.sql import functions as F

    spark = prs.local_session(**{"spark.driver.memory": "6g", "spark.sql.shuffle.partitions": "8"})
    sdf = spark.read.parquet(path)
    out: dict = {}

    def ours():
        return prs.report(sdf, group=GROUP, label=LABEL, scores=SCORES, metrics=METRICS)

    ours()  # warm-up (Python workers, JIT)
    _reset_peak()
    base = _vm("VmRSS")
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        rep = ours()
        times.append(time.perf_counter() - t)
    out["spark_s"] = float(np.median(times))
    out["driver_peak_above_base_mb"] = (_vm("VmHWM") - base) / 2**20
    out["collected_bytes"] = int(prs.LAST_CALL.get("collected_bytes", -1))
    out["buckets"] = int(prs.LAST_CALL.get("buckets", -1))
    out["spark"] = _table_json(rep)

    if reference:
        from sklearn.metrics import roc_auc_score  # noqa: F401  (imported by the workers too)
        import pandas as pd

        def group_auc(pdf: pd.DataFrame) -> pd.DataFrame:
            from sklearn.metrics import roc_auc_score

            y = pdf[LABEL].to_numpy()
            return pd.DataFrame({
                "auc_a": [roc_auc_score(y, pdf["model_a"].to_numpy())],
                "auc_b": [roc_auc_score(y, pdf["model_b"].to_numpy())],
                "w": [len(pdf)],
            })

        # a hashed sample of the groups (whole groups), when the full loop would take too long
        # (cached first, so the timed run reads only the sampled rows: its time scales with them)
        sample = sdf if fraction >= 1 else sdf.filter(
            F.pmod(F.xxhash64(F.col(GROUP), F.lit(12345)), F.lit(10**6)) < int(fraction * 10**6)
        ).cache()
        sample.count()

        def reference_gauc():
            valid = sample.groupBy(GROUP).agg(F.countDistinct(LABEL).alias("k")).filter(F.col("k") == 2)
            per = sample.join(valid.select(GROUP), on=GROUP, how="inner").groupBy(GROUP).applyInPandas(
                group_auc, "auc_a double, auc_b double, w long"
            )
            r = per.agg(
                (F.sum(F.col("auc_a") * F.col("w")) / F.sum("w")).alias("a"),
                (F.sum(F.col("auc_b") * F.col("w")) / F.sum("w")).alias("b"),
                F.count(F.lit(1)).alias("groups"),
            ).first()
            return float(r["a"]), float(r["b"]), int(r["groups"])

        t = time.perf_counter()
        ga, gb, n_groups = reference_gauc()
        out["reference_run_s"] = time.perf_counter() - t
        out["reference_s"] = out["reference_run_s"] / fraction
        out["reference_fraction"] = fraction
        out["reference_groups"] = n_groups
        out["reference"] = {"model_a|gauc": ga, "model_b|gauc": gb}
        # our GAUC of the same sampled rows (pandas, exact), to check the reference's value
        import pandas_rankeval as pre

        rows = sample.select(GROUP, LABEL, *SCORES).toPandas()
        out["ours_on_sample"] = {
            f"{s}|gauc": float(pre.gauc(rows, group=GROUP, label=LABEL, score=s)) for s in SCORES
        }
    spark.stop()
    return out


def child_pandas(path: str, repeats: int) -> dict:
    import pandas as pd

    import pandas_rankeval as pre

    t = time.perf_counter()
    df = pd.read_parquet(path)
    read_s = time.perf_counter() - t
    s, rep = _timed(lambda: pre.report(df, group=GROUP, label=LABEL, scores=SCORES, metrics=METRICS), repeats)
    return {"pandas_s": s, "pandas_read_s": read_s, "pandas": _table_json(rep)}


def child_dask(path: str, repeats: int) -> dict:
    import dask.dataframe as dd
    from distributed import Client, LocalCluster

    import pandas_rankeval.dask as prd

    with LocalCluster(n_workers=2, threads_per_worker=1, memory_limit="4GB", dashboard_address=None) as cluster, Client(cluster):
        ddf = dd.read_parquet(path)
        try:
            s, rep = _timed(lambda: prd.report(ddf, group=GROUP, label=LABEL, scores=SCORES, metrics=METRICS), repeats)
        except Exception as exc:  # an adapter that does not take the call: say so
            return {"dask_error": f"{type(exc).__name__}: {exc}"[:300]}
    return {"dask_s": s, "dask": _table_json(rep)}


def run_child(kind: str, path: Path, repeats: int, reference: bool = False, fraction: float = 1.0) -> dict:
    cmd = [sys.executable, __file__, "--child", kind, "--path", str(path), "--repeats", str(repeats)]
    if reference:
        cmd += ["--reference", "--fraction", str(fraction)]
    print(f"  running {kind} ...", file=sys.stderr, flush=True)
    t = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, "PYSPARK_PYTHON": sys.executable})
    if proc.returncode != 0:
        print(proc.stderr[-3000:], file=sys.stderr)
        raise SystemExit(f"{kind} child failed")
    print(f"  {kind} done in {time.perf_counter() - t:.0f} s", file=sys.stderr, flush=True)
    return json.loads(proc.stdout.strip().splitlines()[-1])


# --------------------------------------------------------------------------- main
def parse_size(text: str) -> tuple[int, int]:
    rows, _, groups = text.partition(":")
    return int(float(rows)), int(float(groups))


def short(n: int) -> str:
    e = round(math.log10(n))
    return f"1e{e}" if 10**e == n else f"{n:,}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", nargs="+", default=["1e7:1e5", "1e7:1e6"])
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--data-dir", default="/tmp/pandas_rankeval_bench_spark")
    ap.add_argument("--no-reference", action="store_true")
    ap.add_argument("--no-dask", action="store_true")
    ap.add_argument("--child")
    ap.add_argument("--path")
    ap.add_argument("--reference", action="store_true")
    ap.add_argument("--fraction", type=float, default=1.0)
    ap.add_argument(
        "--reference-groups", type=float, default=2e4,
        help="run the reference on a hashed sample of about this many groups and scale its time "
        "by the group count (default 2e4; the full loop at 1e6 groups takes about an hour here)",
    )
    args = ap.parse_args()
    if args.child:
        fn = {"spark": lambda: child_spark(args.path, args.repeats, args.reference, args.fraction),
              "pandas": lambda: child_pandas(args.path, args.repeats),
              "dask": lambda: child_dask(args.path, args.repeats)}[args.child]
        print(json.dumps(fn()))
        return

    import pandas
    import pyspark

    print(f"# bench_spark: pyspark {pyspark.__version__}, pandas {pandas.__version__}, "
          f"numpy {np.__version__}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}")
    results = {}
    for text in args.sizes:
        rows, groups = parse_size(text)
        label = f"{short(rows)}r/{short(groups)}g"
        path = Path(args.data_dir) / f"rows{rows}_groups{groups}"
        print(f"{label}: data -> {path}", file=sys.stderr, flush=True)
        write_data(path, rows, groups)
        r = {}
        r.update(run_child("pandas", path, args.repeats))
        fraction = min(1.0, args.reference_groups / groups)
        r.update(run_child("spark", path, args.repeats, reference=not args.no_reference, fraction=fraction))
        if not args.no_dask:
            r.update(run_child("dask", path, args.repeats))
        results[label] = r

    failures = []
    for label, r in results.items():
        diffs = [abs(r["spark"][k] - r["pandas"][k]) for k in r["pandas"]]
        r["max_diff_spark"] = max(diffs)
        if not r["max_diff_spark"] <= 1e-12:
            failures.append(f"{label}: spark differs from pandas by {r['max_diff_spark']:.2e}")
        if "reference" in r:
            d = max(abs(r["reference"][k] - r["ours_on_sample"][k]) for k in r["reference"])
            r["max_diff_reference"] = d
            if not d <= 1e-12:
                failures.append(f"{label}: the reference gAUC differs from ours by {d:.2e}")
        if "dask" in r:
            r["max_diff_dask"] = max(abs(r["dask"][k] - r["pandas"][k]) for k in r["pandas"])
            if not r["max_diff_dask"] <= 1e-12:
                failures.append(f"{label}: dask differs from pandas by {r['max_diff_dask']:.2e}")

    labels = list(results)

    def row(name: str, fmt) -> None:
        cells = []
        for lab in labels:
            try:
                cells.append(fmt(results[lab]))
            except (KeyError, TypeError, ZeroDivisionError):
                cells.append("-")
        print(f"| {name} | " + " | ".join(cells) + " |")

    print()
    print("| row | " + " | ".join(labels) + " |")
    print("|---|" + "---|" * len(labels))
    row("spark report (2 models x auc, gauc, mrr, ndcg@10), s", lambda r: f"{r['spark_s']:.1f}")
    row("(a) reference applyInPandas + roc_auc_score gAUC (2 models, gauc only), s", lambda r: (
        f"{r['reference_s']:.1f}" if r["reference_fraction"] >= 1 else
        f"~{r['reference_s']:.0f} (est: {r['reference_run_s']:.0f} s on {r['reference_fraction']:.0%} of the groups)"))
    row("(b) pandas report, one process, s (+ Parquet read)", lambda r: f"{r['pandas_s']:.1f} (+{r['pandas_read_s']:.1f})")
    row("(c) dask report, LocalCluster 2 workers, s", lambda r: f"{r['dask_s']:.1f}" if "dask_s" in r else r.get("dask_error", "-")[:60])
    row("speed-up vs (a) (target >= 20x)", lambda r: f"{r['reference_s'] / r['spark_s']:.1f}x")
    row("spark / pandas time", lambda r: f"{r['spark_s'] / r['pandas_s']:.2f}")
    row("buckets", lambda r: f"{r['buckets']}")
    row("bytes collected to the driver", lambda r: f"{r['collected_bytes']:,}")
    row("driver (Python) peak above baseline, MB", lambda r: f"{r['driver_peak_above_base_mb']:.1f}")
    row("max |spark - pandas|", lambda r: f"{r['max_diff_spark']:.1e}")
    row("max |reference - ours| (gauc, the reference's rows)", lambda r: f"{r['max_diff_reference']:.1e}")
    row("max |dask - pandas|", lambda r: f"{r['max_diff_dask']:.1e}")
    print()
    if failures:
        print("CORRECTNESS FAILURES:\n" + "\n".join(failures))
        raise SystemExit(2)
    for lab, r in results.items():
        if "reference_s" in r:
            ratio = r["reference_s"] / r["spark_s"]
            print(f"{lab}: {ratio:.1f}x faster than the reference: {'PASS' if ratio >= 20 else 'FAIL'} (target 20x)")
    print(f"# load at end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
