"""The pack-and-sort sites of two checkouts, A/B in one process with the calls interleaved (fair on a
shared machine): best and median of N rounds in ms, and the outputs checked equal to the bit.

    python benchmarks/bench_pack_and_sort.py --baseline /path/to/other/checkout [--rows 1e6] [--rounds 31]

The baseline's package is imported as ``pandas_rankeval_base`` (a symlink in a temporary folder);
this checkout's as ``pandas_rankeval`` (put first on the path here, whatever is installed). Sites: the score sort, the tie refinement, the one-sort
ranking, the group count (int32 and int64 codes) and the calibration order.
"""
import argparse
import hashlib
import importlib
import os
import statistics
import sys
import tempfile
import time
import warnings

import numpy as np

ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
ap.add_argument("--baseline", required=True)
ap.add_argument("--rows", type=float, default=1e6)
ap.add_argument("--rounds", type=int, default=31)
args = ap.parse_args()
tmp = tempfile.mkdtemp()
os.symlink(os.path.join(os.path.abspath(args.baseline), "pandas_rankeval"), os.path.join(tmp, "pandas_rankeval_base"))
sys.path.insert(0, tmp)
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # this checkout
warnings.simplefilter("ignore")  # the second package registers the same accessors

def load(pkg):
    m = {}
    m["sort_order"] = importlib.import_module(f"{pkg}.core.ranking.sorting").sort_order
    m["refine_ties"] = importlib.import_module(f"{pkg}.core.ranking.score_sort")._refine_ties
    m["rank_groups"] = importlib.import_module(f"{pkg}.core.ranking.group_rank").rank_groups
    m["count_sorted"] = importlib.import_module(f"{pkg}.core.skipping.group_count")._count_sorted
    m["canonical_order"] = importlib.import_module(f"{pkg}.core.evaluation.reductions").canonical_order
    return m

A, B = load("pandas_rankeval_base"), load("pandas_rankeval")
for pkg in ("pandas_rankeval_base", "pandas_rankeval"):
    print(pkg, "from", os.path.realpath(os.path.dirname(importlib.import_module(pkg).__file__)))
n, rounds = int(args.rows), args.rounds
print(f"{n:,} rows, {rounds} rounds, load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
rng = np.random.default_rng(0)
score = rng.random(n)
groups = rng.integers(0, n // 10, n)
level = rng.integers(0, 2, n)
order = np.argsort(score)
new = np.diff(np.round(score[order], 3)) != 0
tb = rng.integers(0, 50, n)
codes32 = groups.astype(np.int32)
rel = level.astype(bool)
p = np.round(rng.random(n), 3)
calls = {
    "sort_order": lambda m: m["sort_order"](score),
    "refine_ties": lambda m: m["refine_ties"](order, new, [tb[order]]),
    "rank_groups": lambda m: m["rank_groups"](score, groups, n // 10, level, 2, 1),
    "count_sorted int32": lambda m: m["count_sorted"](codes32, n // 10, rel),
    "count_sorted int64": lambda m: m["count_sorted"](groups, n // 10, rel),
    "canonical_order": lambda m: m["canonical_order"](groups, n // 10, p, level, None),
}

def digest(x):
    h = hashlib.sha1()
    for a in (x if isinstance(x, tuple) else (x,)):
        arrs = [a] if isinstance(a, np.ndarray) else [v for v in vars(a).values() if isinstance(v, np.ndarray)]
        for v in arrs:
            h.update(v.dtype.str.encode()); h.update(np.ascontiguousarray(v).tobytes())
    return h.hexdigest()

for name, call in calls.items():
    assert digest(call(A)) == digest(call(B)), name
    ta, tb_ = [], []
    for r in range(rounds):
        for m, t in ((A, ta), (B, tb_)) if r % 2 == 0 else ((B, tb_), (A, ta)):
            t0 = time.perf_counter(); call(m); t.append((time.perf_counter() - t0) * 1e3)
    print(f"{name:20s} base best {min(ta):7.1f} median {statistics.median(ta):7.1f} | this best {min(tb_):7.1f} "
          f"median {statistics.median(tb_):7.1f} | this/base {min(tb_) / min(ta):.3f}  (outputs identical)")
