#!/usr/bin/env python
"""How long the walk-throughs in examples/ take, as a user runs them (a measurement, not a test).

    python benchmarks/bench_examples.py [--repeats 3]

Runs ``python examples/auc_vs_gauc.py --plots DIR`` and ``python examples/train_with_gauc.py``
(needs lightgbm) in a fresh interpreter ``--repeats`` times each (the in-tree package first on
the path) and prints the median wall time and the CPU time of each run, with the load average.
Target: under 20 s of wall time each on 2 cores (tests/test_examples.py used to assert it inside
the test run, where other tests and processes share the machine; the suite now checks what the
walk-throughs print, and the time is measured here).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = {
    "auc_vs_gauc.py": ["--plots", "{plots}"],
    "train_with_gauc.py": [],
}
TARGET_S = 20.0


def run_once(name: str) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the child) of one run of the walk-through ``name``."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
               MPLBACKEND="Agg")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with tempfile.TemporaryDirectory() as plots:
        start = time.perf_counter()
        args = [a.format(plots=plots) for a in EXAMPLES[name]]
        subprocess.run([sys.executable, str(ROOT / "examples" / name), *args], check=True, env=env,
                       stdout=subprocess.DEVNULL, cwd=plots)
        wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args(argv)
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    ok = True
    for name in EXAMPLES:
        if name == "train_with_gauc.py" and importlib.util.find_spec("lightgbm") is None:
            print(f"examples/{name}: not run (needs lightgbm)")
            continue
        runs = [run_once(name) for _ in range(args.repeats)]
        for i, (wall, cpu) in enumerate(runs, 1):
            print(f"  {name} run {i}: {wall:6.2f} s wall, {cpu:6.2f} s CPU")
        median = statistics.median(wall for wall, _ in runs)
        verdict = "ok" if median < TARGET_S else "MISSED"
        ok &= verdict == "ok"
        print(f"examples/{name}: median {median:.2f} s wall (target < {TARGET_S:.0f} s): {verdict}")
    print(f"load average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
