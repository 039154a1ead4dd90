"""pandas_rankeval against what a polars or DuckDB user writes by hand (issue: "faster than ten
lines of polars").

Times, interleaved in one process (median of ``--rounds`` rounds after a warm-up round), on the
frame of ``bench.py`` (long-tailed group sizes, ~7% clicks, continuous scores):

* ``np.argsort`` of one score column (the "one sort" floor);
* ``pre.gauc``, ``pre.mrr``, ``pre.ndcg(k=10)`` and ``pre.report`` (8 metrics x 2 models) on a
  pandas and on a polars frame;
* ``pre.gauc`` on a polars LazyFrame of the same rows (``df.lazy()``), against a GAUC hand-written
  on the same LazyFrame for polars' streaming engine (one ``group_by`` computing each group's AUC
  from ranks, one-class groups dropped, ``collect(engine="streaming")``);
* the same metrics hand-written as polars expressions and as DuckDB SQL (a native DuckDB table),
  and MRR in polars with no sort (each group's best click, the rows above it by a join): the
  line under the table gives ``pre.mrr`` over that one.

Every hand-written value is checked equal to the library's to 1e-9 (the script stops otherwise).
Wall time and process CPU time (all threads) are printed, with the load average at start and end.
``--one-thread`` runs the same table again in a subprocess with ``POLARS_MAX_THREADS=1``, DuckDB
``threads=1`` and the library on one thread (``engine_options={"threads": 1}``). ``--memory`` adds the
peak extra memory of one ``pre.gauc`` call (``--memory-of gauc mrr``: and of one ``pre.mrr``), each measure in a fresh process: the peak resident
set above the frame (``VmHWM``, reset once the frame is built) and the peak of tracemalloc (numpy's
buffers, without the pages the allocator keeps); and the peak resident set of ``pre.gauc`` on the
LazyFrame and of the hand-written streaming GAUC (polars' buffers are not traced by tracemalloc).

The hand-written MRR and NDCG use ordinal ranks: they are timed on a score column with no tie
inside a group (checked), where they equal the library's expected-ties value.

    python benchmarks/bench_peers.py                    # 1e6 rows / 1e5 groups
    python benchmarks/bench_peers.py --rows 1e7         # 1e7 rows / 1e6 groups
    python benchmarks/bench_peers.py --rows 1e6 --one-thread --memory
    python benchmarks/bench_peers.py --rows 1e6 --one-thread --memory --numpy-avx2-too   # AMD Zen 4

The first lines name the CPU and what numpy sorts with: on AMD Zen 4 numpy's AVX-512 sort is
several times slower than its AVX2 sort (see ``bench.numpy_sort_note``), and ``--numpy-avx2-too``
runs everything again with it off, so that both tables come from one invocation.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
import tracemalloc
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(1, str(HERE))

import numpy as np
from bench import make_frame, numpy_sort_note

import pandas_rankeval as pre

G, Y, A, B = "user", "label", "model_a", "model_b"
REPORT_METRICS = ["auc", "gauc", "mrr", "ndcg@10", "map@10", "precision@10", "recall@10", "hit_rate@10"]
D10 = [float(sum(1.0 / np.log2(j + 1.0) for j in range(1, i + 1))) for i in range(11)]  # IDCG of i clicks


# --------------------------------------------------------------------------- #
# Hand-written polars
# --------------------------------------------------------------------------- #
def polars_gauc(pf: Any) -> float:
    import polars as pl

    out = (
        pf.lazy()
        .with_columns(P=pl.col(Y).sum().over(G), n=pl.len().over(G))
        .filter((pl.col("P") > 0) & (pl.col("P") < pl.col("n")))
        .group_by(G)
        .agg(
            r=pl.col(A).rank("average").filter(pl.col(Y) == 1).sum(),
            P=pl.col(Y).sum(),
            n=pl.len(),
        )
        .select(
            (((pl.col("r") - pl.col("P") * (pl.col("P") + 1) / 2) / (pl.col("P") * (pl.col("n") - pl.col("P"))))
             * pl.col("n")).sum() / pl.col("n").sum()
        )
        .collect()
    )
    return float(out.item())


def polars_gauc_streaming(lf: Any) -> float:
    """GAUC by hand on a LazyFrame, for polars' streaming engine: each group's AUC from the ranks of
    its scores (average ranks: exact under ties), groups with one class dropped after the
    ``group_by``, the mean weighted by group size."""
    import polars as pl

    out = (
        lf.group_by(G)
        .agg(r=pl.col(A).rank("average").filter(pl.col(Y) == 1).sum(), P=pl.col(Y).sum(), n=pl.len())
        .filter((pl.col("P") > 0) & (pl.col("P") < pl.col("n")))
        .select(
            (((pl.col("r") - pl.col("P") * (pl.col("P") + 1) / 2) / (pl.col("P") * (pl.col("n") - pl.col("P"))))
             * pl.col("n")).sum() / pl.col("n").sum()
        )
        .collect(engine="streaming")
    )
    return float(out.item())


def polars_mrr(pf: Any) -> float:
    import polars as pl

    out = (
        pf.lazy()
        .group_by(G)
        .agg(
            above=(pl.col(A) > pl.col(A).filter(pl.col(Y) == 1).max()).sum(),
            has=pl.col(Y).max(),
        )
        .select(pl.when(pl.col("has") > 0).then(1.0 / (pl.col("above") + 1)).otherwise(0.0).mean())
        .collect()
    )
    return float(out.item())


def polars_mrr_join(pf: Any) -> float:
    """MRR with no sort, as the issue's peer writes it: each group's best click, the rows above it
    by a join, 1 / (rows above + 1) summed over the groups with a click, over every group."""
    import polars as pl

    lf = pf.lazy()
    best = lf.filter(pl.col(Y) == 1).group_by(G).agg(b=pl.col(A).max())
    above = lf.join(best, on=G).filter(pl.col(A) > pl.col("b")).group_by(G).agg(above=pl.len())
    rr = best.join(above, on=G, how="left").select((1.0 / (pl.col("above").fill_null(0) + 1)).sum())
    total, n_groups = pl.collect_all([rr, lf.select(pl.col(G).n_unique())])
    return float(total.item()) / float(n_groups.item())


def polars_ndcg10(pf: Any) -> float:
    import polars as pl

    n_groups = pf.select(pl.col(G).n_unique()).item()
    out = (
        pf.lazy()
        .filter(pl.col(Y).sum().over(G) > 0)
        .with_columns(r=pl.col(A).rank("ordinal", descending=True).over(G))
        .group_by(G)
        .agg(
            dcg=((pl.col(Y) == 1) & (pl.col("r") <= 10)).cast(pl.Float64)
            .truediv((pl.col("r") + 1).cast(pl.Float64).log(2)).sum(),
            P=pl.col(Y).sum().clip(0, 10),
        )
        .with_columns(idcg=pl.col("P").replace_strict(pl.Series(list(range(11)), dtype=pl.Int64), pl.Series(D10, dtype=pl.Float64)))
        .select((pl.col("dcg") / pl.col("idcg")).sum())
        .collect()
    )
    return float(out.item()) / n_groups


# --------------------------------------------------------------------------- #
# Hand-written DuckDB SQL (a native table t)
# --------------------------------------------------------------------------- #
SQL_GAUC = f"""
WITH c AS (SELECT {G} g, {Y} y, {A} s, sum({Y}) OVER (PARTITION BY {G}) p, count(*) OVER (PARTITION BY {G}) n
           FROM t),
f AS (SELECT * FROM c WHERE p > 0 AND p < n),
r AS (SELECT g, y, p, n, rank() OVER (PARTITION BY g ORDER BY s) + (count(*) OVER (PARTITION BY g, s) - 1) / 2.0 ar
      FROM f),
a AS (SELECT any_value(n) n, (sum(y * ar) - any_value(p) * (any_value(p) + 1) / 2.0)
                             / (any_value(p) * (any_value(n) - any_value(p))) auc FROM r GROUP BY g)
SELECT sum(auc * n) / sum(n) FROM a
"""

SQL_MRR = f"""
WITH b AS (SELECT {G} g, max(CASE WHEN {Y} = 1 THEN {A} END) b FROM t GROUP BY {G}),
a AS (SELECT b.g, any_value(b.b) b, count(*) FILTER (WHERE t.{A} > b.b) above
      FROM t JOIN b ON t.{G} = b.g WHERE b.b IS NOT NULL GROUP BY b.g)
SELECT (SELECT sum(1.0 / (above + 1)) FROM a) / (SELECT count(*) FROM b)
"""

SQL_NDCG = f"""
WITH p AS (SELECT {G} g, sum({Y}) p FROM t GROUP BY {G}),
r AS (SELECT t.{G} g, t.{Y} y, row_number() OVER (PARTITION BY t.{G} ORDER BY t.{A} DESC) rn
      FROM t SEMI JOIN (SELECT g FROM p WHERE p > 0) q ON t.{G} = q.g QUALIFY rn <= 10),
d AS (SELECT g, sum(y / log2(rn + 1)) dcg FROM r GROUP BY g),
i AS (SELECT unnest(range(11)) k, unnest({D10!r}::DOUBLE[]) idcg)
SELECT (SELECT sum(d.dcg / i.idcg) FROM d JOIN p USING (g) JOIN i ON least(p.p, 10) = i.k)
       / (SELECT count(*) FROM p)
"""


# --------------------------------------------------------------------------- #
# Timing
# --------------------------------------------------------------------------- #
def _time(fn: Callable[[], Any]) -> tuple[float, float, Any]:
    c0, w0 = time.process_time(), time.perf_counter()
    out = fn()
    return time.perf_counter() - w0, time.process_time() - c0, out


def run(rows: int, groups: int, rounds: int, memory: bool, one_thread: bool, memory_of: tuple[str, ...] = ("gauc",)) -> None:
    import duckdb
    import polars as pl

    print(f"# {rows:,} rows / {groups:,} groups, {rounds} rounds, "
          f"threads: polars {pl.thread_pool_size()}, duckdb {'1' if one_thread else 'default'}; "
          f"load average at start {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f}", flush=True)
    t0 = time.perf_counter()
    df = make_frame(rows, groups, string_keys=False)[[G, Y, A, B]]
    pf = pl.from_pandas(df)
    lf = pf.lazy()
    con = duckdb.connect()
    if one_thread:
        con.execute("SET threads = 1")
    con.execute("CREATE TABLE t AS SELECT * FROM df")
    # the hand-written MRR / NDCG use ordinal ranks: no tie inside a group in the timed column
    assert not df.duplicated([G, A]).any(), "model_a has ties inside a group"
    print(f"# data ready in {time.perf_counter() - t0:.1f} s", file=sys.stderr, flush=True)
    # one thread: the library's own option too (its engine sets the thread count of each call)
    lib: dict[str, Any] = {"engine_options": {"threads": 1}} if one_thread else {}
    kw = {"group": G, "label": Y, "score": A, **lib}
    score = df[A].to_numpy()

    methods: dict[str, tuple[str, Callable[[], Any]]] = {
        "argsort": ("np.argsort (one score)", lambda: np.argsort(score)),
        "gauc/pandas": ("gauc", lambda: pre.gauc(df, **kw)),
        "gauc/polars-frame": ("gauc", lambda: pre.gauc(pf, **kw)),
        "gauc/hand-polars": ("gauc", lambda: polars_gauc(pf)),
        "gauc/hand-duckdb": ("gauc", lambda: con.execute(SQL_GAUC).fetchone()[0]),  # type: ignore[index]
        # the same rows as a LazyFrame: the library against a hand-written streaming GAUC on it
        "gauc/polars-lazyframe": ("gauc-lazy", lambda: pre.gauc(lf, **kw)),
        "gauc/hand-polars-streaming": ("gauc-lazy", lambda: polars_gauc_streaming(lf)),
        "mrr/pandas": ("mrr", lambda: pre.mrr(df, **kw)),
        "mrr/polars-frame": ("mrr", lambda: pre.mrr(pf, **kw)),
        "mrr/hand-polars": ("mrr", lambda: polars_mrr(pf)),
        "mrr/hand-polars-join": ("mrr", lambda: polars_mrr_join(pf)),
        "mrr/hand-duckdb": ("mrr", lambda: con.execute(SQL_MRR).fetchone()[0]),  # type: ignore[index]
        "ndcg@10/pandas": ("ndcg@10", lambda: pre.ndcg(df, k=10, **kw)),
        "ndcg@10/polars-frame": ("ndcg@10", lambda: pre.ndcg(pf, k=10, **kw)),
        "ndcg@10/hand-polars": ("ndcg@10", lambda: polars_ndcg10(pf)),
        "ndcg@10/hand-duckdb": ("ndcg@10", lambda: con.execute(SQL_NDCG).fetchone()[0]),  # type: ignore[index]
        "report/pandas": ("report", lambda: pre.report(df, group=G, label=Y, scores=[A, B], metrics=REPORT_METRICS,
                                                       **lib)),
        "report/polars-frame": ("report", lambda: pre.report(pf, group=G, label=Y, scores=[A, B],
                                                             metrics=REPORT_METRICS, **lib)),
    }
    wall: dict[str, list[float]] = {k: [] for k in methods}
    cpu: dict[str, list[float]] = {k: [] for k in methods}
    values: dict[str, Any] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the coverage warning of GAUC (most groups have one class)
        for r in range(rounds + 1):  # round 0 warms up
            names = list(methods)
            if r % 2:
                names.reverse()  # interleaved, alternating order
            for name in names:
                w, c, out = _time(methods[name][1])
                if r:
                    wall[name].append(w)
                    cpu[name].append(c)
                else:
                    values[name] = out
            print(f"# round {r} done", file=sys.stderr, flush=True)
    # values: every hand-written one equals the library's to 1e-9
    for metric in ("gauc", "mrr", "ndcg@10"):
        lib = float(values[f"{metric}/pandas"])
        for other in ("polars-frame", "hand-polars", "hand-duckdb", "hand-polars-join"):
            if f"{metric}/{other}" not in values:
                continue
            v = float(values[f"{metric}/{other}"])
            if abs(v - lib) > 1e-9:
                raise SystemExit(f"value check failed: {metric}/{other} = {v!r}, library {lib!r}")
    for other in ("polars-lazyframe", "hand-polars-streaming"):
        v = float(values[f"gauc/{other}"])
        if abs(v - float(values["gauc/pandas"])) > 1e-9:
            raise SystemExit(f"value check failed: gauc/{other} = {v!r}, library {float(values['gauc/pandas'])!r}")
    rep_pd, rep_pl = values["report/pandas"], values["report/polars-frame"]
    print(f"# values checked equal to 1e-9 (gauc {float(values['gauc/pandas']):.6f}, "
          f"mrr {float(values['mrr/pandas']):.6f}, ndcg@10 {float(values['ndcg@10/pandas']):.6f}; "
          f"report frames {type(rep_pd).__name__}/{type(rep_pl).__name__})")
    med = {k: statistics.median(v) for k, v in wall.items()}
    medc = {k: statistics.median(v) for k, v in cpu.items()}
    print()
    # the targets: with the default threads, against the faster of polars and DuckDB; with
    # one thread, against polars on one thread; report against one pre.gauc on the same frame
    peers = ("hand-polars", "hand-polars-join") if one_thread else ("hand-polars", "hand-duckdb", "hand-polars-join")
    print(f"| what | wall ms (median) | CPU ms (median) | ratio to {'polars' if one_thread else 'best hand-written'} |")
    print("|---|---:|---:|---:|")
    for name, (metric, _) in methods.items():
        hand = [med[f"{metric}/{k}"] for k in peers if f"{metric}/{k}" in med]
        ratio = f"{med[name] / min(hand):.2f}x" if hand and "hand" not in name else ""
        if metric == "report":
            ratio = f"{med[name] / med[name.replace('report/', 'gauc/')]:.2f}x one pre.gauc"
        if name == "gauc/polars-lazyframe":  # against the hand-written streaming GAUC on the same LazyFrame
            ratio = (f"{med[name] / med['gauc/hand-polars-streaming']:.2f}x streaming by hand, "
                     f"{med[name] / med['gauc/polars-frame']:.2f}x the eager frame")
        print(f"| {name} | {1e3 * med[name]:.0f} | {1e3 * medc[name]:.0f} | {ratio} |")
    # the MRR target: pre.mrr against the no-sort polars MRR (best click per group, rows above
    # it by a join), on the same frame
    join = med["mrr/hand-polars-join"]
    print(f"\npre.mrr / no-sort polars MRR (join): pandas frame {med['mrr/pandas'] / join:.2f}x, "
          f"polars frame {med['mrr/polars-frame'] / join:.2f}x")
    if memory:
        del methods, values, df, pf, lf, con
        print()
        # the resident set of one call is not steady (the worker threads' allocator arenas: 27 to
        # 46 bytes per row at 1e6 rows for the same code, fresh processes, loaded or not): the
        # median of 5 fresh processes, with their range; tracemalloc is steady, one process
        lazy = (("rss-lazy", 3), ("rss-hand-lazy", 3))
        for what, how, times in [(w, h, t) for w in memory_of
                                 for h, t in (("rss", 5), ("traced", 1), *(lazy if w == "gauc" else ()))]:
            cmd = [sys.executable, __file__, "--rows", str(rows), "--groups", str(groups), "--child-memory", how,
                   "--memory-of", what]
            if one_thread:
                cmd.append("--child-one-thread")
            outs = [subprocess.run(cmd, check=True, capture_output=True, text=True).stdout.strip() for _ in range(times)]
            if times == 1:
                print(outs[0], flush=True)
                continue
            per_row = sorted(float(o.rsplit("(", 1)[1].split()[0]) for o in outs)
            print(f"{outs[0].split(':')[0]}: median of {times} fresh processes {statistics.median(per_row):.1f} "
                  f"bytes/row (range {per_row[0]:.1f} to {per_row[-1]:.1f})", flush=True)
    print(f"\n# load average at end {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f}")


def memory(rows: int, groups: int, how: str, one_thread: bool, what: str = "gauc") -> None:
    """Peak extra memory of one ``pre.gauc`` call (``what``: or ``pre.mrr``) in this fresh process,
    above the frame: the peak resident set (``VmHWM`` of ``/proc/self/status``, reset after the
    frame is built and a small call has imported everything) or the peak of tracemalloc (which
    sees numpy's buffers, not the allocator's retained pages). ``rss-lazy`` and ``rss-hand-lazy``:
    the peak resident set of ``pre.gauc`` on a LazyFrame of the frame (``pl.from_pandas(df).lazy()``,
    built before the reset) and of the hand-written streaming GAUC on it."""
    import gc

    df = make_frame(rows, groups, string_keys=False)[[G, Y, A, B]]
    kw: dict[str, Any] = {"group": G, "label": Y, "score": A}
    if one_thread:
        kw["engine_options"] = {"threads": 1}
    fn = getattr(pre, what)
    label = "hand-written streaming GAUC" if how == "rss-hand-lazy" else f"pre.{what}"
    call: Callable[[Any], Any] = polars_gauc_streaming if how == "rss-hand-lazy" else lambda d: fn(d, **kw)
    frame: Any = df
    small: Any = df.iloc[:1000]
    if how.endswith("lazy"):
        import polars as pl

        frame, small = pl.from_pandas(df).lazy(), pl.from_pandas(small).lazy()
        label += " on a LazyFrame"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        call(small)
        gc.collect()
        if how.startswith("rss"):
            def status(key: str) -> int:
                with open("/proc/self/status") as f:
                    return next(int(line.split()[1]) * 1024 for line in f if line.startswith(key))

            with open("/proc/self/clear_refs", "w") as f:
                f.write("5")  # the peak resident set starts again from the current one
            base = status("VmRSS:")
            call(frame)
            peak = status("VmHWM:") - base
        else:
            tracemalloc.start()
            call(frame)
            peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
    name = "tracemalloc" if how == "traced" else "RSS (VmHWM)"
    print(f"peak extra memory of one {label}, {name}, {'1 thread' if one_thread else 'default threads'}: "
          f"{peak / 1e6:.1f} MB ({peak / rows:.1f} bytes/row)", flush=True)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", default="1e6", help="rows (groups = rows / 10 unless --groups)")
    ap.add_argument("--groups", default=None)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--memory", action="store_true", help="peak extra memory of one pre.gauc call")
    ap.add_argument("--memory-of", nargs="+", default=["gauc"], choices=["gauc", "mrr"],
                    help="the calls --memory measures (default: gauc)")
    ap.add_argument("--one-thread", action="store_true", help="also run in a 1-thread subprocess")
    ap.add_argument("--numpy-avx2-too", action="store_true",
                    help="then run everything again with numpy's AVX-512 sort off "
                         "(NPY_DISABLE_CPU_FEATURES='AVX512_ICL X86_V4'; for AMD Zen 4, see docs/guide/performance.md)")
    ap.add_argument("--child-one-thread", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--child-memory", choices=["rss", "traced", "rss-lazy", "rss-hand-lazy"], help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    rows = int(float(args.rows))
    groups = int(float(args.groups)) if args.groups else max(1, rows // 10)
    if args.child_memory:
        memory(rows, groups, args.child_memory, args.child_one_thread, args.memory_of[0])
        return
    if args.child_one_thread:
        # the library on one thread too: engine_options={"threads": 1} in run(); for older checkouts
        # without that option, their internal size thresholds for threads set out of reach
        try:
            from pandas_rankeval.core.ranking import score_sort as core_ranking
        except ImportError:  # a checkout before core/ranking/ (flat core/)
            try:
                from pandas_rankeval.core import score_sort as core_ranking  # type: ignore[no-redef]
            except ImportError:  # a checkout before core.score_sort
                from pandas_rankeval.core import ranking as core_ranking  # type: ignore[no-redef]

        try:
            from pandas_rankeval.core import threads as core_threads

            core_threads._LIMIT.set(1)
        except ImportError:  # a checkout before core.threads
            from pandas_rankeval.core import evaluate as core_evaluate  # type: ignore[attr-defined]

            core_evaluate._THREADS_FROM_ROWS = 1 << 62  # type: ignore[attr-defined]
        core_ranking._PARALLEL_FROM = 1 << 62  # type: ignore[attr-defined]
        run(rows, groups, args.rounds, args.memory, one_thread=True, memory_of=tuple(args.memory_of))
        return
    print("\n".join(f"# {line}" for line in numpy_sort_note()), flush=True)
    run(rows, groups, args.rounds, args.memory, one_thread=False, memory_of=tuple(args.memory_of))
    if args.one_thread:
        print("\n## one thread (POLARS_MAX_THREADS=1, DuckDB threads=1, OpenBLAS 1 thread, the library's engine_options threads=1)\n",
              flush=True)
        env = dict(os.environ, POLARS_MAX_THREADS="1", OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
        cmd = [sys.executable, __file__, "--rows", str(rows), "--groups", str(groups),
               "--rounds", str(args.rounds), "--child-one-thread"]
        subprocess.run(cmd, env=env, check=True)
    if args.numpy_avx2_too:
        print("\n## again, numpy's sorts on AVX2 (NPY_DISABLE_CPU_FEATURES='AVX512_ICL X86_V4')\n", flush=True)
        env = dict(os.environ, NPY_DISABLE_CPU_FEATURES="AVX512_ICL X86_V4")
        again = [a for a in (argv if argv is not None else sys.argv[1:]) if a != "--numpy-avx2-too"]
        subprocess.run([sys.executable, __file__, *again], env=env, check=True)


if __name__ == "__main__":
    main()
