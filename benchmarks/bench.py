#!/usr/bin/env python
"""Speed, scaling and memory benchmark of pandas_rankeval, with a correctness gate.

Run from a checkout (the in-tree package is imported first; ranx is optional)::

    python benchmarks/bench.py                      # 1e5, 1e6, 1e7 rows (~10 rows/group) + 1e6 rows in 1e4 groups
    python benchmarks/bench.py --quick              # 1e5 and 1e6 rows only
    python benchmarks/bench.py --sizes 1e6 1e6:1e4 --repeats 5

Everything that is timed runs in this one process and is printed as ONE table (one column per
data size, one row per method or ratio), followed by the targets with PASS/FAIL. The methods of a
size are timed in ``--repeats`` interleaved rounds (A B C, A B C, ...) so that load from other
processes falls on all of them alike; a cell is the median of its calls (a call slower than
``--slow`` seconds is not repeated; one faster than 0.1 s runs 5 times per round after the first).
``--timer cpu`` uses this process's CPU time instead of the wall clock: steadier on a shared
machine, but it adds up the threads of multi-threaded code (ranx, report on several models). The
header prints the load average at the start and the end. See benchmarks/README.md for every row.

Data
----
``make_frame(n_rows, n_groups)`` builds a deterministic impressions table (seeded by
``--seed``, n_rows and n_groups): long-tailed group sizes (1 + a multinomial split of the other
rows with lognormal(sigma=1.5) weights: median 4 rows, a few groups with thousands), per-group
click rates from Beta(0.7, 9.3) (about 7% positives overall), two CTR-like score columns
``model_a`` and ``model_b`` (sigmoid of label signal + per-group bias + noise; continuous, so
free of ties inside a group, which is checked), ``model_a_r2`` = ``model_a`` rounded to 2
decimals (heavy ties), integer group keys ``user`` (random int64 ids), the same keys as pandas 3's
default string dtype (``user_s`` = ``user.astype("str")``), an ``item`` id unique inside each
group (for ranx's doc ids) and an int64 ``label``. Rows are shuffled, as a log would be.

Methods timed
-------------
- floor: one ``np.argsort`` of the ``model_a`` column (numpy's default introsort).
- ours: ``pandas_rankeval.gauc`` (int keys, string keys, tied scores), ``report`` of two models x
  8 metrics, and ``report`` of one model x [mrr, ndcg@10] (the work ranx is compared with).
- pandas vectorized GAUC: ``groupby(group)[score].rank()`` average ranks, then the rank-sum
  formula per group, count-weighted over groups with both classes.
- textbook: ``for _, g in df.groupby(group): roc_auc_score(g[label], g[score])`` skipping
  single-class groups, count-weighted. When a pilot on a random sample of groups predicts more
  than ``--textbook-limit`` seconds (default 60) for the full loop, the loop runs on a random
  sample of groups only and the time is extrapolated by group count (cells marked "~ ... (est)").
  The estimate leaves out the groupby set-up on the full frame, so it is a lower bound.
- ranx (if importable): MRR and NDCG@10 of ``model_a`` from the same DataFrame, conversion
  included. Conversion uses the fastest path found for ranx: plain dicts built with numpy
  (``{q_id: {doc_id: score}}`` for the run, ``{q_id: {doc_id: label}}`` of the relevant rows for
  the qrels, both in the same query order) passed to ``ranx.evaluate``. On 1e6 rows that path
  took ~1 s against ~3.4 s for ``Qrels.from_df``/``Run.from_df`` and ~11 s for ``Qrels(dict)``/
  ``Run(dict)``; so the ranx ratio is conservative. As in ranx/TREC practice the qrels hold the
  relevant rows only, and the run keeps the queries that have one (ranx's ``make_comparable``);
  ranx uses numba with all cores (2 here). ranx's numba functions are compiled before timing.
  A second row times ranx's documented DataFrame path (``Qrels.from_df`` of the relevant rows,
  ``Run.from_df`` of all rows, ``evaluate(..., make_comparable=True)``), for information.

Correctness gate (before any ratio is printed; a mismatch aborts with exit code 2)
-------------------------------------------------------------------------------------
All to an absolute 1e-12:
- ours gauc == pandas vectorized GAUC (int keys; also on the tied column ``model_a_r2``);
  ours with string keys == ours with int keys.
- textbook loop: on the full data when it ran in full (weighted GAUC and every per-group AUC
  against the pandas baseline and ``per_group``); when estimated, on the sampled groups: ours
  ``gauc`` of the sampled rows == the loop's weighted value, and per-group AUCs ==
  ``per_group(...)["auc"]`` == the pandas baseline for those groups.
- ties: the same sklearn loop on a sample of groups of ``model_a_r2`` (sklearn's
  ``roc_auc_score`` credits a tied pair 1/2, like our default ``ties="expected"``).
- ``report``: its gauc column == ``gauc()`` for both models; its auc == sklearn's
  ``roc_auc_score`` on all rows; its list metrics == the metric functions (mrr, ndcg,
  average_precision, precision, recall, hit_rate) with default parameters.
- ranx: MRR, NDCG@10 (and untimed MAP@10, P@10, R@10, Hit@10) == ours with ``empty="skip"``
  (ranx only scores queries that are in the qrels) and ``gain="linear"`` for NDCG (ranx's
  ``ndcg`` is Jarvelin's linear gain; labels here are 0/1, so exp2 would give the same). The
  check uses ``model_a``, which has no tie inside any group (checked), because ranx breaks ties
  by an unstable sort and would not follow the expected-value rule.

Peak memory (rows "peak mem ...")
---------------------------------
Measured in a fresh subprocess per call (``--mem-probe``): the child builds the same frame, makes
one warm-up call on a small frame (imports, caches), collects garbage, calls ``malloc_trim(0)``,
reads VmRSS from /proc/self/status as the baseline, resets the kernel's peak-RSS mark by writing
"5" to /proc/self/clear_refs, makes the one ``gauc`` call and reads VmHWM. Peak above the frame =
VmHWM - baseline. This sees every allocator (numpy, pandas, pyarrow, Python objects) and only the
pages really touched. To keep freed memory from hiding inside malloc's heap, the child runs with
MALLOC_MMAP_THRESHOLD_=65536 (every array > 64 KiB gets its own mapping, returned on free) and
ARROW_DEFAULT_MEMORY_POOL=system. A second child measures the same call with tracemalloc (which
numpy reports its data buffers to; pyarrow buffers are not seen by it), as a cross-check. The
target is checked against the larger of the two. Where clear_refs is not writable the RSS probe
reports "n/a" and tracemalloc alone is used.
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

TOL = 1e-12
GROUP, GROUP_S, LABEL, ITEM = "user", "user_s", "label", "item"
SCORE_A, SCORE_B, SCORE_TIES = "model_a", "model_b", "model_a_r2"
REPORT_METRICS = ["auc", "gauc", "mrr", "ndcg@10", "map@10", "precision@10", "recall@10", "hit_rate@10"]
RANX_TIMED = ["mrr", "ndcg@10"]
RANX_EXTRA = ["map@10", "precision@10", "recall@10", "hit_rate@10"]


# --------------------------------------------------------------------------- data
def make_frame(n_rows: int, n_groups: int, seed: int = 20240601, string_keys: bool = True) -> pd.DataFrame:
    """Deterministic synthetic impressions table (see the module docstring)."""
    if not 1 <= n_groups <= n_rows:
        raise ValueError(f"need 1 <= n_groups <= n_rows, got {n_groups} groups for {n_rows} rows")
    rng = np.random.default_rng([seed, n_rows, n_groups])
    w = rng.lognormal(0.0, 1.5, n_groups)
    sizes = 1 + rng.multinomial(n_rows - n_groups, w / w.sum())
    gidx = np.repeat(np.arange(n_groups), sizes)
    starts = np.cumsum(sizes) - sizes
    item = np.arange(n_rows, dtype=np.int64) - np.repeat(starts, sizes)
    ctr = rng.beta(0.7, 9.3, n_groups)
    label = (rng.random(n_rows) < ctr[gidx]).astype(np.int64)
    bias = rng.normal(0.0, 0.5, n_groups)[gidx]
    logit_a = -2.5 + bias + 1.2 * label + rng.normal(0.0, 1.0, n_rows)
    logit_b = -2.5 + bias + 0.8 * label + rng.normal(0.0, 1.0, n_rows)
    del bias
    perm = rng.permutation(n_rows)
    keys = rng.choice(10**9, n_groups, replace=False).astype(np.int64)
    user = keys[gidx[perm]]
    del gidx
    score_a = 1.0 / (1.0 + np.exp(-logit_a[perm]))
    df = pd.DataFrame(
        {
            GROUP: user,
            ITEM: item[perm],
            LABEL: label[perm],
            SCORE_A: score_a,
            SCORE_B: 1.0 / (1.0 + np.exp(-logit_b[perm])),
            SCORE_TIES: np.round(score_a, 2),
        }
    )
    if string_keys:
        df[GROUP_S] = df[GROUP].astype("str")
    return df


def parse_size(text: str) -> tuple[int, int]:
    """'1e6' -> (1e6 rows, 1e5 groups); '1e6:1e4' -> (1e6 rows, 1e4 groups)."""
    rows_s, _, groups_s = text.partition(":")
    rows = int(float(rows_s))
    groups = int(float(groups_s)) if groups_s else max(1, rows // 10)
    return rows, groups


def short(n: int) -> str:
    e = int(round(math.log10(n))) if n > 0 else 0
    return f"1e{e}" if 10**e == n else f"{n:,}"


def size_label(rows: int, groups: int) -> str:
    return f"{short(rows)}r/{short(groups)}g"


# --------------------------------------------------------------------------- baselines
def floor_argsort(df: pd.DataFrame, score: str) -> np.ndarray:
    return np.argsort(df[score].to_numpy())


def pandas_gauc(df: pd.DataFrame, group: str, label: str, score: str) -> tuple[float, pd.Series]:
    """Pandas-only vectorized GAUC: average ranks per group + rank-sum (Mann-Whitney) formula."""
    pos = df[label] > 0
    ranks = df.groupby(group, sort=False)[score].rank(method="average")
    parts = pd.DataFrame({"n": 1, "p": pos.astype(np.int64), "rp": ranks.where(pos, 0.0)})
    stats = parts.groupby(df[group], sort=False).sum()
    n, p, rp = stats["n"], stats["p"], stats["rp"]
    neg = n - p
    ok = (p > 0) & (neg > 0)
    auc = (rp[ok] - p[ok] * (p[ok] + 1) / 2) / (p[ok] * neg[ok])
    value = float((auc * n[ok]).sum() / n[ok].sum())
    return value, auc


def textbook_loop(df: pd.DataFrame, group: str, label: str, score: str) -> tuple[float, dict]:
    """The per-group sklearn loop everybody writes first (count-weighted, single-class skipped)."""
    from sklearn.metrics import roc_auc_score

    num = den = 0.0
    per = {}
    for key, g in df.groupby(group):
        if g[label].nunique() < 2:
            continue
        a = roc_auc_score(g[label], g[score])
        per[key] = a
        num += len(g) * a
        den += len(g)
    return num / den, per


def sample_groups(df: pd.DataFrame, group: str, m: int, seed: int) -> pd.DataFrame:
    keys = df[group].unique()
    rng = np.random.default_rng(seed)
    chosen = rng.choice(keys, size=min(m, len(keys)), replace=False)
    return df[df[group].isin(chosen)]


def ranx_inputs(df: pd.DataFrame, group: str, item: str, label: str, score: str) -> tuple[dict, dict]:
    """Frame -> (qrels, run) dicts for ranx.evaluate, queries that have a relevant row only."""
    q = df[group].to_numpy()
    o = np.argsort(q, kind="stable")
    q = q[o]
    lab = df[label].to_numpy()[o]
    sc = df[score].to_numpy(np.float64)[o]
    ids = df[item].to_numpy()[o].astype(str)
    b = np.flatnonzero(q[1:] != q[:-1]) + 1
    starts = np.r_[0, b]
    haspos = np.add.reduceat((lab > 0).astype(np.int64), starts) > 0
    qkeys = q[starts].astype(str).tolist()
    id_parts = np.split(ids, b)
    sc_parts = np.split(sc, b)
    lab_parts = np.split(lab, b)
    run, qrels = {}, {}
    for k, h, i, s, ll in zip(qkeys, haspos.tolist(), id_parts, sc_parts, lab_parts):
        if h:
            run[k] = dict(zip(i.tolist(), s.tolist()))
            m = ll > 0
            qrels[k] = dict(zip(i[m].tolist(), ll[m].tolist()))
    return qrels, run


def ranx_eval(df: pd.DataFrame, group: str, item: str, label: str, score: str, metrics: list[str]):
    from ranx import evaluate

    qrels, run = ranx_inputs(df, group, item, label, score)
    out = evaluate(qrels, run, metrics)
    return ({metrics[0]: out} if len(metrics) == 1 else out), (qrels, run)


def ranx_eval_from_df(df: pd.DataFrame, group: str, item: str, label: str, score: str, metrics: list[str]):
    """ranx's documented DataFrame path: Qrels.from_df / Run.from_df, evaluate(make_comparable=True).

    Its asserts want object-dtype ids (pandas 3's str dtype is rejected), int64 labels, float64 scores.
    """
    from ranx import Qrels, Run, evaluate

    f = pd.DataFrame({
        "q_id": df[group].astype(str).astype(object),
        "doc_id": df[item].astype(str).astype(object),
        "rel": df[label].astype(np.int64),
        "score": df[score].astype(np.float64),
    })
    qrels = Qrels.from_df(f[f["rel"] > 0], q_id_col="q_id", doc_id_col="doc_id", score_col="rel")
    run = Run.from_df(f, q_id_col="q_id", doc_id_col="doc_id", score_col="score")
    out = evaluate(qrels, run, metrics, make_comparable=True)
    return {metrics[0]: out} if len(metrics) == 1 else out


def has_within_group_ties(df: pd.DataFrame, group: str, score: str) -> int:
    q = df[group].to_numpy()
    s = df[score].to_numpy()
    o = np.lexsort((s, q))
    q, s = q[o], s[o]
    return int(np.count_nonzero((q[1:] == q[:-1]) & (s[1:] == s[:-1])))


# --------------------------------------------------------------------------- timing / checks
class GateFailure(AssertionError):
    pass


class Gate:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def close(self, what: str, ours, ref, tol: float = TOL) -> None:
        a, b = float(ours), float(ref)
        d = abs(a - b)
        if not (d <= tol):  # also catches NaN
            raise GateFailure(f"{what}: {a!r} vs {b!r} (|diff| = {d:.3e} > {tol:g})")
        self.lines.append(f"ok  {what}: {a:.15f} (|diff| {d:.1e})")

    def close_series(self, what: str, ours: pd.Series, ref: pd.Series, tol: float = TOL) -> None:
        ours = ours.astype(np.float64)
        ref = ref.astype(np.float64)
        if len(ours) != len(ref) or not ours.index.sort_values().equals(ref.index.sort_values()):
            missing = ref.index.difference(ours.index)[:5].tolist()
            extra = ours.index.difference(ref.index)[:5].tolist()
            raise GateFailure(f"{what}: different groups ({len(ours)} vs {len(ref)}; missing {missing}, extra {extra})")
        d = (ours - ref.reindex(ours.index)).abs()
        worst = d.max() if len(d) else 0.0
        if not (worst <= tol) or d.isna().any():
            k = d.fillna(np.inf).idxmax()
            raise GateFailure(f"{what}: group {k!r}: {ours[k]!r} vs {ref[k]!r} (max |diff| {worst:.3e})")
        self.lines.append(f"ok  {what}: {len(d)} groups (max |diff| {worst:.1e})")

    def note(self, text: str) -> None:
        self.lines.append(f"--  {text}")


def _clock(timer: str):
    return time.process_time if timer == "cpu" else time.perf_counter


def timed(fn, repeats: int, slow: float, timer: str = "wall"):
    """Median time of fn() over repeats (1 call when a call exceeds `slow` s), and its result."""
    return interleaved({"x": fn}, repeats, slow, timer)["x"]


def interleaved(fns: dict, repeats: int, slow: float, timer: str = "wall") -> dict:
    """Time several callables in rounds (A B C, A B C, ...), so that load from other processes
    falls on all of them alike. Returns {name: (median time, last result)}. A callable slower
    than `slow` s is not called again; one faster than 0.1 s is called 5 times per round."""
    clock = _clock(timer)
    times: dict = {k: [] for k in fns}
    out: dict = {}
    for rnd in range(repeats):
        for k, fn in fns.items():
            if rnd and times[k][0] > slow:
                continue
            for _ in range(5 if rnd and times[k][0] < 0.1 else 1):
                gc.collect()
                t0 = clock()
                out[k] = fn()
                times[k].append(clock() - t0)
    return {k: (statistics.median(times[k]), out[k]) for k in fns}


def load_average() -> str:
    try:
        one, five, _ = os.getloadavg()
    except OSError:
        return "load average n/a"
    return f"load average {one:.2f} (1 min), {five:.2f} (5 min) on {os.cpu_count()} CPUs"


def _cpuinfo() -> dict[str, str]:
    """The first processor's fields of /proc/cpuinfo (empty elsewhere)."""
    try:
        with open("/proc/cpuinfo") as f:
            text = f.read().split("\n\n", 1)[0]
    except OSError:
        return {}
    return {k.strip(): v.strip() for k, _, v in (line.partition(":") for line in text.splitlines())}


def numpy_sort_note() -> list[str]:
    """What numpy's sorts run on here: the CPU, whether numpy dispatches its 64-bit sorts to
    AVX-512 (x86-simd-sort), and one ``np.sort`` of 1e6 random floats.

    On AMD Zen 4 (family 25 with AVX-512: EPYC 9004 "Genoa", Ryzen 7000) that AVX-512 sort is
    several times slower than numpy's AVX2 one (the memory form of its compress-store is
    microcoded on Zen 4; OpenJDK turned its AVX-512 sort off there for the same reason), so every
    sort of the library, and the ``np.argsort`` floor, is slower there than the CPU allows:
    measured on this project's machine, ``np.sort`` of 1e6 float64 took 62 ms with numpy's
    default dispatch and 11 ms with ``NPY_DISABLE_CPU_FEATURES="AVX512_ICL X86_V4"``
    (``np.argsort`` 114 -> 45 ms). The lines returned say so when it applies."""
    info = _cpuinfo()
    try:
        from numpy._core._multiarray_umath import __cpu_features__ as feats
    except ImportError:  # pragma: no cover - numpy < 2
        feats = {}
    avx512 = bool(feats.get("AVX512_SKX"))
    x = np.random.default_rng(0).random(1_000_000)
    np.sort(x)
    t0 = time.perf_counter()
    for _ in range(3):
        np.sort(x)
    ms = (time.perf_counter() - t0) / 3 * 1e3
    cpu = info.get("model name", "unknown CPU")
    family = info.get("cpu family", "?")
    lines = [f"machine: {cpu} (vendor {info.get('vendor_id', '?')}, family {family}), "
             f"numpy {np.__version__} sorts 64-bit values with {'AVX-512' if avx512 else 'AVX2 or less'} "
             f"(NPY_DISABLE_CPU_FEATURES={os.environ.get('NPY_DISABLE_CPU_FEATURES', '')!r}); "
             f"np.sort of 1e6 floats: {ms:.1f} ms"]
    if avx512 and info.get("vendor_id") == "AuthenticAMD" and family == "25":
        lines.append("AMD Zen 4 with numpy's AVX-512 sort, several times slower than its AVX2 sort here: "
                     "every sort of the library and of np.argsort pays it (polars and DuckDB do not). "
                     "Run again with NPY_DISABLE_CPU_FEATURES=\"AVX512_ICL X86_V4\" to see the CPU's speed; "
                     "see docs/guide/performance.md.")
    return lines


def fmt_time(t: float | None, est: bool = False) -> str:
    if t is None:
        return "n/a"
    s = f"{t * 1e3:.1f} ms" if t < 1 else f"{t:.2f} s"
    return f"~{s} (est)" if est else s


def fmt_ratio(r: float | None, est: bool = False) -> str:
    if r is None or not np.isfinite(r):
        return "n/a"
    s = f"{r:.0f}" if r >= 100 else f"{r:.2f}"
    return f"~{s}" if est else s


# --------------------------------------------------------------------------- memory probe (child)
def _status_kib(field: str) -> int | None:
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def mem_probe(rows: int, groups: int, group: str, method: str, seed: int) -> dict:
    import pandas_rankeval as prk

    warm = make_frame(2000, 200, seed)
    prk.gauc(warm, group=group, label=LABEL, score=SCORE_A)
    df = make_frame(rows, groups, seed)
    del warm
    gc.collect()
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass
    frame_bytes = int(df.memory_usage(deep=True).sum())
    if method == "rss":
        base = _status_kib("VmRSS")
        try:
            with open("/proc/self/clear_refs", "w") as fh:
                fh.write("5")
        except OSError:
            return {"bytes": None, "frame_bytes": frame_bytes, "why": "clear_refs not writable"}
        if _status_kib("VmHWM") is None or base is None:
            return {"bytes": None, "frame_bytes": frame_bytes, "why": "no /proc/self/status"}
        r = prk.gauc(df, group=group, label=LABEL, score=SCORE_A)
        peak = _status_kib("VmHWM")
        return {"bytes": (peak - base) * 1024, "frame_bytes": frame_bytes, "value": float(r)}
    import tracemalloc

    tracemalloc.start()
    r = prk.gauc(df, group=group, label=LABEL, score=SCORE_A)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return {"bytes": peak, "frame_bytes": frame_bytes, "value": float(r)}


def run_mem_probe(rows: int, groups: int, group: str, method: str, seed: int) -> dict:
    env = dict(os.environ, MALLOC_MMAP_THRESHOLD_="65536", ARROW_DEFAULT_MEMORY_POOL="system")
    cmd = [sys.executable, str(Path(__file__).resolve()), "--mem-probe", str(rows), str(groups), group, method,
           "--seed", str(seed)]
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if p.returncode != 0:
        return {"bytes": None, "why": (p.stderr.strip().splitlines() or ["failed"])[-1]}
    return json.loads(p.stdout.strip().splitlines()[-1])


def measure_memory(r: dict, seed: int, mem: dict) -> None:
    """Peak-memory probes of one size (fresh subprocesses); the gate checks their gauc value."""
    for key, col, method in (("rss", GROUP, "rss"), ("tracemalloc", GROUP, "tracemalloc"), ("rss_str", GROUP_S, "rss")):
        print(f"[{r['label']}] memory probe {key} ...", file=sys.stderr, flush=True)
        m = mem[(r["label"], key)] = run_mem_probe(r["rows"], r["groups"], col, method, seed)
        if m.get("why"):
            print(f"[{r['label']}] memory probe {key}: n/a ({m['why']})", file=sys.stderr)
        elif abs(m["value"] - r["value"]) > TOL:  # same frame, same call: same number
            raise GateFailure(f"[{r['label']}] memory probe {key} got gauc {m['value']!r}, the timed run "
                              f"{r['value']!r}")


# --------------------------------------------------------------------------- one size
def bench_size(prk, rows: int, groups: int, args, gate: Gate, have_ranx: bool) -> dict:
    lab = size_label(rows, groups)
    say = (lambda m: print(f"[{lab}] {m}", file=sys.stderr, flush=True))
    t0 = time.perf_counter()
    df = make_frame(rows, groups, args.seed)
    n_groups = df[GROUP].nunique()
    say(f"frame built in {time.perf_counter() - t0:.1f} s: {len(df):,} rows, {n_groups:,} groups, "
        f"{df[LABEL].mean():.1%} positives, {df.memory_usage(deep=True).sum() / 2**20:.0f} MiB")
    R, slow = args.repeats, args.slow
    res: dict = {"rows": rows, "groups": n_groups, "label": lab}

    fns = {
        "argsort": lambda: floor_argsort(df, SCORE_A),
        "gauc": lambda: prk.gauc(df, group=GROUP, label=LABEL, score=SCORE_A),
        "gauc_str": lambda: prk.gauc(df, group=GROUP_S, label=LABEL, score=SCORE_A),
        "gauc_ties": lambda: prk.gauc(df, group=GROUP, label=LABEL, score=SCORE_TIES),
        "report": lambda: prk.report(df, group=GROUP, label=LABEL, scores=[SCORE_A, SCORE_B],
                                     metrics=REPORT_METRICS),
        "report_mn": lambda: prk.report(df, group=GROUP, label=LABEL, scores=[SCORE_A], metrics=RANX_TIMED),
        "pandas": lambda: pandas_gauc(df, GROUP, LABEL, SCORE_A),
    }
    if have_ranx:
        fns["ranx"] = lambda: ranx_eval(df, GROUP, ITEM, LABEL, SCORE_A, RANX_TIMED)
        fns["ranx_df"] = lambda: ranx_eval_from_df(df, GROUP, ITEM, LABEL, SCORE_A, RANX_TIMED)
    say(f"timing {len(fns)} methods in {R} interleaved rounds ({load_average()})")
    tm = interleaved(fns, R, slow, args.timer)
    for k, (t, _) in tm.items():
        res[k] = t
    g_int, g_str, g_ties = tm["gauc"][1], tm["gauc_str"][1], tm["gauc_ties"][1]
    rep, rep_mn = tm["report"][1], tm["report_mn"][1]
    pv, pv_per = tm["pandas"][1]
    say("  ".join(f"{k} {fmt_time(t)}" for k, (t, _) in tm.items()))
    say(f"gauc coverage: {getattr(g_int, 'coverage', 'n/a')}")

    # ---- correctness: GAUC
    gate.close(f"[{lab}] gauc ours vs pandas vectorized", g_int, pv)
    gate.close(f"[{lab}] gauc string keys vs int keys", g_str, g_int)
    pv_t, pv_t_per = pandas_gauc(df, GROUP, LABEL, SCORE_TIES)
    gate.close(f"[{lab}] gauc on 2-decimal ties: ours vs pandas vectorized", g_ties, pv_t)

    # ---- textbook loop: pilot, then full or sampled
    clock = _clock(args.timer)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m0 = min(n_groups, args.pilot_groups)
        pilot = sample_groups(df, GROUP, m0, args.seed + 1)
        tp = clock()
        textbook_loop(pilot, GROUP, LABEL, SCORE_A)
        per_group_s = (clock() - tp) / m0
        predicted = per_group_s * n_groups
        if predicted <= args.textbook_limit:
            say(f"textbook loop: full run (pilot predicts {predicted:.0f} s)")
            t1 = clock()
            tb, tb_per = textbook_loop(df, GROUP, LABEL, SCORE_A)
            res["textbook"], res["textbook_est"] = clock() - t1, False
            gate.close(f"[{lab}] gauc ours vs sklearn loop (all groups)", g_int, tb)
            gate.close_series(f"[{lab}] per-group AUC pandas vectorized vs sklearn loop (all groups)",
                              pv_per, pd.Series(tb_per))
            checked_frame, checked_per = df, pd.Series(tb_per)
        else:
            m = int(min(n_groups, max(1000, args.textbook_sample_seconds / per_group_s)))
            sub = sample_groups(df, GROUP, m, args.seed + 2)
            say(f"textbook loop: pilot predicts {predicted:.0f} s > {args.textbook_limit:.0f} s; "
                f"estimating from {m:,} sampled groups")
            t1 = clock()
            tb, tb_per = textbook_loop(sub, GROUP, LABEL, SCORE_A)
            res["textbook"], res["textbook_est"] = (clock() - t1) * n_groups / m, True
            gate.close(f"[{lab}] gauc ours on {m:,} sampled groups vs sklearn loop on them",
                       prk.gauc(sub, group=GROUP, label=LABEL, score=SCORE_A), tb)
            tb_s = pd.Series(tb_per)
            gate.close_series(f"[{lab}] per-group AUC pandas vectorized vs sklearn loop ({len(tb_s):,} sampled groups)",
                              pv_per.reindex(tb_s.index), tb_s)
            checked_frame, checked_per = sub, tb_s
        check_per_group(prk, gate, lab, checked_frame, SCORE_A, checked_per, "sklearn loop")

        # ties: sklearn loop on a sample of groups of the rounded column
        sub_t = sample_groups(df, GROUP, min(n_groups, args.ties_groups), args.seed + 3)
        tbt, tbt_per = textbook_loop(sub_t, GROUP, LABEL, SCORE_TIES)
        tbt_s = pd.Series(tbt_per)
        gate.close_series(f"[{lab}] ties: per-group AUC pandas vectorized vs sklearn loop ({len(tbt_s):,} groups)",
                          pv_t_per.reindex(tbt_s.index), tbt_s)
        gate.close(f"[{lab}] ties: gauc ours on sampled groups vs sklearn loop on them",
                   prk.gauc(sub_t, group=GROUP, label=LABEL, score=SCORE_TIES), tbt)
        check_per_group(prk, gate, lab, sub_t, SCORE_TIES, tbt_s, "sklearn loop (ties)")
    say(f"textbook {fmt_time(res['textbook'], res['textbook_est'])}")

    # ---- report vs functions and sklearn
    from sklearn.metrics import roc_auc_score

    for sc in (SCORE_A, SCORE_B):
        gate.close(f"[{lab}] report gauc[{sc}] vs gauc()", rep.loc[sc, "gauc"],
                   g_int if sc == SCORE_A else prk.gauc(df, group=GROUP, label=LABEL, score=sc))
    gate.close(f"[{lab}] report auc[{SCORE_A}] vs sklearn roc_auc_score (all rows)", rep.loc[SCORE_A, "auc"],
               roc_auc_score(df[LABEL] > 0, df[SCORE_A]))
    base = dict(group=GROUP, label=LABEL, score=SCORE_A)
    fn_default = {
        "mrr": lambda **e: prk.mrr(df, **base, **e),
        "ndcg@10": lambda **e: prk.ndcg(df, **base, k=10, **e),
        "map@10": lambda **e: prk.average_precision(df, **base, k=10, **e),
        "precision@10": lambda **e: prk.precision(df, **base, k=10, **e),
        "recall@10": lambda **e: prk.recall(df, **base, k=10, **e),
        "hit_rate@10": lambda **e: prk.hit_rate(df, **base, k=10, **e),
    }
    for m, f in fn_default.items():
        gate.close(f"[{lab}] report {m}[{SCORE_A}] vs the metric function", rep.loc[SCORE_A, m], f())
    for m in RANX_TIMED:
        gate.close(f"[{lab}] report(1 model, mrr+ndcg@10) {m} vs report(2 models, 8 metrics)",
                   rep_mn.loc[SCORE_A, m], rep.loc[SCORE_A, m])

    # ---- ranx
    res.setdefault("ranx", None)
    res.setdefault("ranx_df", None)
    if have_ranx:
        ties = has_within_group_ties(df, GROUP, SCORE_A)
        if ties:
            raise GateFailure(f"[{lab}] {SCORE_A} has {ties} within-group ties; the ranx comparison needs none")
        rx, (qrels, run) = tm["ranx"][1]
        for m in RANX_TIMED:
            gate.close(f"[{lab}] ranx {m}: Qrels/Run.from_df path vs dict path", tm["ranx_df"][1][m], rx[m])
        from ranx import evaluate

        rx.update(evaluate(qrels, run, RANX_EXTRA))
        del qrels, run
        extra_kw = {"ndcg@10": {"gain": "linear"}}
        for m, f in fn_default.items():
            gate.close(f"[{lab}] ranx {m} vs ours (empty='skip'{', gain=linear' if m in extra_kw else ''})",
                       f(empty="skip", **extra_kw.get(m, {})), rx[m])
    res["value"] = float(g_int)
    del df
    gc.collect()
    return res


def check_per_group(prk, gate: Gate, lab: str, frame: pd.DataFrame, score: str, ref: pd.Series, what: str) -> None:
    try:
        pg = prk.per_group(frame, group=GROUP, label=LABEL, score=score, metrics=("auc",))
    except Exception as e:  # noqa: BLE001 - report, do not hide
        gate.note(f"[{lab}] per_group not usable ({type(e).__name__}: {e}); per-group check skipped")
        return
    auc = pg["auc"].dropna()
    gate.close_series(f"[{lab}] per_group auc ({score}) vs {what}", auc, ref)


# --------------------------------------------------------------------------- table
def verdict(checks: list[tuple[str, float | None, object]]) -> str:
    """checks: (size label, value, predicate). PASS when every value exists and passes."""
    if not checks:
        return "n/a (size not run)"
    if any(v is None for _, v, _ in checks):
        return "n/a (not measured)"
    bad = [(lab, v) for lab, v, ok in checks if not ok(v)]
    return "PASS" if not bad else "FAIL (" + ", ".join(f"{lab}: {fmt_ratio(v)}" for lab, v in bad) + ")"


def render(results: list[dict], mem: dict, have_ranx: bool) -> tuple[str, list[str]]:
    labs = [r["label"] for r in results]
    ten = [r for r in results if r["rows"] // r["groups"] <= 20]  # the ~10 rows/group series
    big = max(ten or results, key=lambda r: r["rows"])
    small = min(ten or results, key=lambda r: r["rows"])
    rows_out: list[tuple[str, list[str], str, str]] = []

    def trow(name, key, est_key=None):
        rows_out.append((name, [fmt_time(r.get(key), bool(est_key and r.get(est_key))) for r in results], "", ""))

    trow("floor: np.argsort(model_a)", "argsort")
    trow("gauc, int keys", "gauc")
    trow("gauc, string keys (str dtype)", "gauc_str")
    trow("gauc, scores rounded to 2 dp", "gauc_ties")
    trow("report: 2 models x 8 metrics", "report")
    trow("report: 1 model, mrr+ndcg@10", "report_mn")
    trow("pandas vectorized gauc", "pandas")
    trow("textbook sklearn loop gauc", "textbook", "textbook_est")
    trow("ranx mrr+ndcg@10 (+conversion)" if have_ranx else "ranx (not installed)", "ranx")
    if have_ranx:
        trow("  same via Qrels/Run.from_df", "ranx_df")

    def ratio(r, a, b, k=1.0):
        return (r[a] / (k * r[b])) if r.get(a) is not None and r.get(b) else None

    def rrow(name, fn, target="", checks=(), est_key=None):
        cells = [fmt_ratio(fn(r), bool(est_key and r.get(est_key))) for r in results]
        rows_out.append((name, cells, target, verdict([(r["label"], fn(r), ok) for r, ok in checks]) if target else ""))

    at_most = lambda t: (lambda v: v <= t)  # noqa: E731
    at_least = lambda t: (lambda v: v >= t)  # noqa: E731
    rrow("gauc / argsort", lambda r: ratio(r, "gauc", "argsort"), f"<= 2.5 at {big['label']}",
         [(big, at_most(2.5))])
    tb_checks = [(r, at_least(250)) for r in results if r["rows"] >= 10**7] + [
        (r, at_least(100)) for r in results if r["rows"] == 10**6 and r["groups"] == 10**5]
    rrow("textbook / gauc", lambda r: ratio(r, "textbook", "gauc"), ">= 250 at 1e7r, >= 100 at 1e6r/1e5g",
         tb_checks, "textbook_est")
    rrow("report / (2 x gauc)", lambda r: ratio(r, "report", "gauc", 2.0), "<= 2 (every size)",
         [(r, at_most(2.0)) for r in results])
    if have_ranx:
        # the target of the MRR/NDCG issue: 1e6 rows in 1e5 groups; other sizes are information
        rrow("ranx / report(mrr+ndcg@10)", lambda r: ratio(r, "ranx", "report_mn"), ">= 10 at 1e6r/1e5g",
             [(r, at_least(10.0)) for r in results if r["rows"] == 10**6 and r["groups"] == 10**5])
    if have_ranx:
        rrow("  same via Qrels/Run.from_df", lambda r: ratio(r, "ranx_df", "report_mn"))
    rrow("string keys / int keys", lambda r: ratio(r, "gauc_str", "gauc"), "<= 1.5 (every size)",
         [(r, at_most(1.5)) for r in results])
    rrow("ties (2 dp) / no ties", lambda r: ratio(r, "gauc_ties", "gauc"))
    rrow("pandas vectorized / gauc", lambda r: ratio(r, "pandas", "gauc"))
    rows_out.append(("gauc ns/row", [f"{r['gauc'] / r['rows'] * 1e9:.1f}" for r in results], "", ""))
    rows_out.append(("argsort ns/row", [f"{r['argsort'] / r['rows'] * 1e9:.1f}" for r in results], "", ""))
    if small is not big:
        gg = (big["gauc"] / big["rows"]) / (small["gauc"] / small["rows"])
        ag = (big["argsort"] / big["rows"]) / (small["argsort"] / small["rows"])
        name = f"per-row growth {short(small['rows'])}->{short(big['rows'])}"
        cells = ["" for _ in results]
        cells[labs.index(big["label"])] = f"gauc x{gg:.2f} / argsort x{ag:.2f} = {gg / ag:.2f}"
        rows_out.append((name, cells, "gauc growth <= 1.25 x argsort's", "PASS" if gg / ag <= 1.25 else "FAIL"))
    # memory
    def mem_cell(r, key):
        m = mem.get((r["label"], key))
        if not m or m.get("bytes") is None:
            return "n/a" if m is None else "n/a*"
        return f"{m['bytes'] / r['rows']:.1f}"

    rows_out.append(("peak mem above frame, int keys, RSS [B/row]", [mem_cell(r, "rss") for r in results], "", ""))
    rows_out.append(("  same, tracemalloc [B/row]", [mem_cell(r, "tracemalloc") for r in results], "", ""))
    rows_out.append(("  same, string keys, RSS [B/row]", [mem_cell(r, "rss_str") for r in results], "", ""))
    mem_checks = []
    for r in results:
        got = [mem.get((r["label"], k), {}).get("bytes") for k in ("rss", "tracemalloc")]
        got = [g for g in got if g is not None]
        mem_checks.append((r["label"], max(got) / r["rows"] if got else None, at_most(48)))
    i = [x[0] for x in rows_out].index("peak mem above frame, int keys, RSS [B/row]")
    rows_out[i] = rows_out[i][:2] + ("<= 48 (max of RSS, tracemalloc)",
                                     verdict(mem_checks) if mem else "n/a (--no-memory)")

    header = ["", *labs, "target", "verdict"]
    body = [[name, *cells, target, v] for name, cells, target, v in rows_out]
    widths = [max(len(str(x[i])) for x in [header, *body]) for i in range(len(header))]
    line = lambda xs: "  ".join(str(x).ljust(w) if j in (0, len(xs) - 2, len(xs) - 1) else str(x).rjust(w)
                                for j, (x, w) in enumerate(zip(xs, widths))).rstrip()
    out = [line(header), "-" * len(line(header))]
    out += [line(b) for b in body]
    verdicts = [f"{name}: {v}  [{target}]" for name, _, target, v in rows_out if target]
    return "\n".join(out), verdicts


# --------------------------------------------------------------------------- main
def source_revision(prk) -> str:
    """Git commit of the imported package's checkout, '+dirty' when its files differ from it."""
    pkg = Path(prk.__file__).resolve().parent
    try:
        git = ["git", "-C", str(pkg)]
        rev = subprocess.run([*git, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
        dirty = subprocess.run([*git, "status", "--porcelain", "--", "."], capture_output=True, text=True).stdout
    except OSError:
        return "?"
    return (rev or "?") + ("+dirty" if dirty.strip() else "")


def versions(prk) -> str:
    parts = [f"python {platform.python_version()}", f"numpy {np.__version__}", f"pandas {pd.__version__}"]
    from importlib.metadata import PackageNotFoundError, version

    for dist in ("scikit-learn", "ranx"):
        try:
            parts.append(f"{dist} {version(dist)}")
        except PackageNotFoundError:
            parts.append(f"{dist} -")
    parts.append(f"pandas_rankeval {getattr(prk, '__version__', '?')} @ {source_revision(prk)} "
                 f"({Path(prk.__file__).parent})")
    parts.append(f"{os.cpu_count()} CPUs, {platform.machine()}")
    return ", ".join(parts)


def warm_up(prk, have_ranx: bool) -> None:
    """First calls on a tiny frame: imports, numba compilation of ranx, caches."""
    df = make_frame(3000, 300, 1)
    prk.gauc(df, group=GROUP, label=LABEL, score=SCORE_A)
    prk.gauc(df, group=GROUP_S, label=LABEL, score=SCORE_A)
    prk.report(df, group=GROUP, label=LABEL, scores=[SCORE_A, SCORE_B], metrics=REPORT_METRICS)
    pandas_gauc(df, GROUP, LABEL, SCORE_A)
    if have_ranx:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            qrels, run = ranx_inputs(df, GROUP, ITEM, LABEL, SCORE_A)
            from ranx import evaluate

            evaluate(qrels, run, RANX_TIMED + RANX_EXTRA)
            ranx_eval_from_df(df, GROUP, ITEM, LABEL, SCORE_A, RANX_TIMED)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="only 1e5 and 1e6 rows")
    ap.add_argument("--sizes", nargs="+", metavar="ROWS[:GROUPS]",
                    help="data sizes, e.g. 1e5 1e6 1e7 1e6:1e4 (default; groups default to rows/10)")
    ap.add_argument("--repeats", type=int, default=3, help="timed calls per cell, median reported (default 3)")
    ap.add_argument("--slow", type=float, default=20.0, help="do not repeat a call slower than this (s)")
    ap.add_argument("--timer", choices=("wall", "cpu"), default="wall",
                    help="wall clock (default) or this process's CPU time (steadier on a loaded machine; "
                         "counts ranx's threads, so do not use it for the ranx ratio)")
    ap.add_argument("--seed", type=int, default=20240601)
    ap.add_argument("--textbook-limit", type=float, default=60.0,
                    help="estimate the sklearn loop from a sample when the full loop would take longer (s)")
    ap.add_argument("--textbook-sample-seconds", type=float, default=8.0,
                    help="target time of the sampled sklearn loop (s)")
    ap.add_argument("--pilot-groups", type=int, default=300)
    ap.add_argument("--ties-groups", type=int, default=1500, help="groups in the sklearn check on tied scores")
    ap.add_argument("--no-ranx", action="store_true", help="skip ranx even if installed")
    ap.add_argument("--no-memory", action="store_true", help="skip the peak-memory subprocesses")
    ap.add_argument("--verbose", action="store_true", help="print every correctness check")
    ap.add_argument("--mem-probe", nargs=4, metavar=("ROWS", "GROUPS", "GROUPCOL", "METHOD"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)

    if args.mem_probe:
        rows, groups, col, method = args.mem_probe
        print(json.dumps(mem_probe(int(rows), int(groups), col, method, args.seed)))
        return 0

    try:
        import pandas_rankeval as prk

        prk.gauc, prk.report  # noqa: B018
    except (ImportError, AttributeError) as e:
        print(f"pandas_rankeval is not usable yet: {e}", file=sys.stderr)
        return 1
    have_ranx = False
    if not args.no_ranx:
        try:
            import ranx  # noqa: F401

            have_ranx = True
        except ImportError:
            print("ranx is not installed: its rows are skipped (pip install ranx)", file=sys.stderr)

    if args.sizes:
        sizes = [parse_size(s) for s in args.sizes]
    elif args.quick:
        sizes = [parse_size("1e5"), parse_size("1e6")]
    else:
        sizes = [parse_size(s) for s in ("1e5", "1e6", "1e7", "1e6:1e4")]

    # The library warns when many rows sit in skipped groups (true of this data: most small groups
    # have no click). The coverage is logged once per size instead; the cost of the check is timed.
    if hasattr(prk, "CoverageWarning"):
        warnings.simplefilter("ignore", prk.CoverageWarning)
    t_start = time.perf_counter()
    load_start = load_average()
    machine = numpy_sort_note()
    header = versions(prk)  # before timing: the code this process imports now
    warm_up(prk, have_ranx)
    gate = Gate()
    results = []
    mem: dict = {}
    try:
        for rows, groups in sizes:
            r = bench_size(prk, rows, groups, args, gate, have_ranx)
            results.append(r)
            if not args.no_memory:
                measure_memory(r, args.seed, mem)
    except GateFailure as e:
        print("\n".join(gate.lines), file=sys.stderr)
        print(f"\n*** CORRECTNESS GATE FAILED: {e}\n*** No ratio is printed: the methods do not compute the same "
              f"number.", file=sys.stderr)
        return 2

    table, verdicts = render(results, mem, have_ranx)
    print(f"pandas_rankeval benchmark -- {header}")
    rev_end = source_revision(prk)
    if rev_end != header.split(" @ ")[1].split(" ")[0]:
        print(f"NOTE: the package's checkout is now at {rev_end}; the memory probes (subprocesses, run after "
              f"each size's timings) may have imported newer code than the timed process")
    print(f"{args.timer} time, medians of {args.repeats} interleaved rounds (5 calls per round under 0.1 s, 1 call "
          f"when > {args.slow:g} s); '~ (est)' = extrapolated from sampled groups; seed {args.seed}")
    print(f"{load_start} at start, {load_average()} at end")
    print("\n".join(machine))
    print()
    print(table)
    print()
    print(f"correctness gate: {sum(1 for x in gate.lines if x.startswith('ok'))} checks passed "
          f"(tolerance {TOL:g})" + ("" if have_ranx else "; ranx not installed, its checks skipped"))
    for x in gate.lines:
        if args.verbose or not x.startswith("ok"):
            print("  " + x)
    print("targets:")
    for v in verdicts:
        print("  " + v)
    print(f"total benchmark time {time.perf_counter() - t_start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
