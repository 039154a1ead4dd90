"""Where one call's time goes: the CPU, wall time and page faults of each stage of ``pre.mrr`` (or
another metric), timed by wrapping the pipeline's functions where they are called. Prints per stage
the medians over the repeats of its process CPU and wall time (ms) and of the process's minor page
faults during it (a fault is a page of new memory touched: on a VM each costs microseconds; stages
nest: a stage includes those called inside it).

    python benchmarks/bench_stages.py --rows 1e7 --frame pandas --threads 1
    python benchmarks/bench_stages.py --rows 1e7 --frame polars --metric gauc

With ``--threads 1`` each stage's CPU is its cost; with 2, a stage on the threads shows the CPU of
both. The frame is ``bench.make_frame`` (int64 keys, ~10 rows a group).
"""

from __future__ import annotations

import argparse
import collections
import functools
import importlib
import os
import statistics
import sys
import time
import warnings
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(1, str(ROOT / "benchmarks"))

#: (module under pandas_rankeval, function name as that module calls it)
STAGES = [
    ("engines.polars", "to_pandas"), ("engines.pandas", "evaluate"),
    ("core.evaluation.pipeline", "prepare_evaluation"), ("core.inputs.prepare", "_drop_missing"),
    ("core.evaluation.pipeline", "_checked_levels"), ("core.inputs.prepare", "encode_groups"),
    ("core.evaluation.kept", "first_block_groups"), ("core.skipping.first_block", "count_groups"),
    ("core.evaluation.kept", "table_of"), ("core.evaluation.kept", "select_first_blocks"),
    ("core.evaluation.kept", "_rank_parts"), ("core.evaluation.pipeline", "_score_metrics"),
    ("engines.pandas", "summarize_evaluation"), ("api.dispatch", "finalize"),
]


def _faults() -> int:
    """Minor page faults of the process so far (0 where ``resource`` is missing)."""
    try:
        import resource
    except ImportError:  # pragma: no cover - Windows
        return 0
    return int(resource.getrusage(resource.RUSAGE_SELF).ru_minflt)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", default="1e7")
    ap.add_argument("--frame", choices=["pandas", "polars"], default="pandas")
    ap.add_argument("--metric", default="mrr", help="a metric function of pandas_rankeval (default: mrr)")
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    from bench import make_frame

    import pandas_rankeval as pre

    acc: dict[str, list[tuple[float, float, int]]] = collections.defaultdict(list)
    for mod_name, name in STAGES:
        mod = importlib.import_module("pandas_rankeval." + mod_name)
        if not hasattr(mod, name):
            continue
        f = getattr(mod, name)

        def timed(*a: Any, _f: Any = f, _label: str = f"{mod_name.split('.')[-1]}.{name}", **k: Any) -> Any:
            t, w, faults = time.process_time(), time.perf_counter(), _faults()
            try:
                return _f(*a, **k)
            finally:
                acc[_label].append((time.process_time() - t, time.perf_counter() - w, _faults() - faults))

        setattr(mod, name, functools.wraps(f)(timed))
    n = int(float(args.rows))
    df = make_frame(n, max(1, n // 10), string_keys=False)[["user", "label", "model_a"]]
    frame: Any = df
    if args.frame == "polars":
        import polars as pl

        frame = pl.from_pandas(df)
    fn = getattr(pre, args.metric)
    options = {"threads": args.threads} if args.threads else None

    def call() -> Any:
        return fn(frame, group="user", label="label", score="model_a", engine_options=options)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        call()
        acc.clear()
        wall, cpu = [], []
        for _ in range(args.repeats):
            w0, c0 = time.perf_counter(), time.process_time()
            call()
            wall.append(time.perf_counter() - w0)
            cpu.append(time.process_time() - c0)
    print(f"pre.{args.metric}, {args.frame} frame, {n:,} rows, threads {args.threads or 'default'}: "
          f"wall {1e3 * statistics.median(wall):.0f} ms, CPU {1e3 * statistics.median(cpu):.0f} ms "
          f"(medians of {args.repeats}; load {os.getloadavg()[0]:.2f})")
    print(f"  {'stage':36s} {'CPU ms':>8s} {'wall ms':>8s} {'faults':>8s}")
    for label, times in acc.items():
        per = len(times) // args.repeats
        if per:
            med = [statistics.median(sum(x[j] for x in times[i * per : (i + 1) * per]) for i in range(args.repeats))
                   for j in range(3)]
            print(f"  {label:36s} {1e3 * med[0]:8.1f} {1e3 * med[1]:8.1f} {med[2]:8.0f}  (x{per} a call)")


if __name__ == "__main__":
    main()
