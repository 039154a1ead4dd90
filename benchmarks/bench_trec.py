"""TREC evaluation at scale: pandas_rankeval against ranx and pytrec_eval.

A synthetic run of Q queries x D retrieved documents (scores with ties) and qrels of ~R judged
documents per query (graded 0-3, some relevant documents not retrieved) are written as TREC text
files; each tool then reads both files and computes MAP, NDCG@10, P@10, recall@100 and MRR over
every query, in a fresh process (its time from the files to the means, and the process's peak
resident memory above what its imports take).

    python benchmarks/bench_trec.py                    # 100,000 queries x 100 documents
    python benchmarks/bench_trec.py --queries 10000    # on a busy machine

The means are printed too: ties are broken by docno in every tool (tiebreak="docno" here), so the
three must agree.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

import numpy as np

METRICS = ["map", "ndcg@10", "precision@10", "recall@100", "mrr"]
TREC = {"map": "map", "ndcg@10": "ndcg_cut_10", "precision@10": "P_10", "recall@100": "recall_100",
        "mrr": "recip_rank"}
RANX = {"map": "map", "ndcg@10": "ndcg@10", "precision@10": "precision@10", "recall@100": "recall@100",
        "mrr": "mrr"}


def write_files(folder: str, queries: int, docs: int, seed: int = 0) -> tuple[str, str]:
    rng = np.random.default_rng(seed)
    q = np.repeat(np.arange(queries), docs)
    d = np.tile(np.arange(docs), queries)
    score = np.round(rng.normal(size=q.shape[0]) * 3, 1)  # one decimal: many ties
    run = os.path.join(folder, "run.txt")
    with open(run, "w") as f:
        for i in range(0, q.shape[0], 1_000_000):
            s = slice(i, i + 1_000_000)
            f.write("".join(f"q{a} Q0 d{b} {b + 1} {c} run\n" for a, b, c in zip(q[s], d[s], score[s])))
    judged = rng.random(q.shape[0]) < 0.2
    grade = rng.integers(0, 4, size=q.shape[0])
    qrels = os.path.join(folder, "qrels.txt")
    with open(qrels, "w") as f:
        f.write("".join(f"q{a} 0 d{b} {g}\n" for a, b, g in zip(q[judged], d[judged], grade[judged])))
        # relevant documents no run retrieved: two per query
        f.write("".join(f"q{a} 0 x{a}-{j} 1\n" for a in range(queries) for j in range(2)))
    return run, qrels


def _ours(run: str, qrels: str) -> dict:
    import pandas_rankeval as pre

    t0 = time.perf_counter()
    table = pre.read_trec(run, qrels, tiebreak="docno")
    t1 = time.perf_counter()
    rep = pre.report(table, group="qid", label="relevance", scores=["run"], metrics=METRICS, gain="linear",
                     retrieved=table.attrs["retrieved"])
    t2 = time.perf_counter()
    return {"read": t1 - t0, "metrics": t2 - t1, "means": {m: float(rep.loc["run", m]) for m in METRICS}}


def _ranx(run: str, qrels: str) -> dict:
    import ranx

    t0 = time.perf_counter()
    r_qrels = ranx.Qrels.from_file(qrels, kind="trec")
    r_run = ranx.Run.from_file(run, kind="trec")
    t1 = time.perf_counter()
    out = ranx.evaluate(r_qrels, r_run, list(RANX.values()))
    t2 = time.perf_counter()
    return {"read": t1 - t0, "metrics": t2 - t1, "means": {m: float(out[RANX[m]]) for m in METRICS}}


def _pytrec_eval(run: str, qrels: str) -> dict:
    import pytrec_eval

    t0 = time.perf_counter()
    with open(qrels) as f:
        q = pytrec_eval.parse_qrel(f)
    with open(run) as f:
        r = pytrec_eval.parse_run(f)
    t1 = time.perf_counter()
    res = pytrec_eval.RelevanceEvaluator(q, set(TREC.values())).evaluate(r)
    means = {m: float(np.mean([v[TREC[m]] for v in res.values()])) for m in METRICS}
    t2 = time.perf_counter()
    return {"read": t1 - t0, "metrics": t2 - t1, "means": means}


TOOLS = {"pandas_rankeval": _ours, "ranx": _ranx, "pytrec_eval": _pytrec_eval}


def child(tool: str, run: str, qrels: str) -> None:
    # the imports first, so that the peak memory counts the evaluation only
    if tool == "pandas_rankeval":
        import pandas_rankeval  # noqa: F401
    elif tool == "ranx":
        import ranx  # noqa: F401
    else:
        import pytrec_eval  # noqa: F401
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    out = TOOLS[tool](run, qrels)
    out["peak_mb"] = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base) / 1024
    print(json.dumps(out))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--queries", type=int, default=100_000)
    ap.add_argument("--docs", type=int, default=100)
    ap.add_argument("--child", nargs=3)
    args = ap.parse_args()
    if args.child:
        child(*args.child)
        return
    print(f"load average: {os.getloadavg()[0]:.1f}; {args.queries:,} queries x {args.docs} documents "
          "(ranx's numba kernels compiled by an earlier run: its one-off compile is not timed)")
    with tempfile.TemporaryDirectory() as folder:
        run, qrels = write_files(folder, args.queries, args.docs)
        results = {}
        for tool in TOOLS:
            proc = subprocess.run([sys.executable, __file__, "--child", tool, run, qrels],
                                  capture_output=True, text=True, check=True)
            results[tool] = json.loads(proc.stdout.strip().splitlines()[-1])
    print(f"{'tool':16} {'read s':>8} {'metrics s':>10} {'total s':>8} {'peak MB':>8}")
    for tool, r in results.items():
        print(f"{tool:16} {r['read']:8.2f} {r['metrics']:10.2f} {r['read'] + r['metrics']:8.2f} {r['peak_mb']:8.0f}")
    print("means:")
    for m in METRICS:
        print(f"  {m:12} " + "  ".join(f"{t}={r['means'][m]:.6f}" for t, r in results.items()))


if __name__ == "__main__":
    main()
