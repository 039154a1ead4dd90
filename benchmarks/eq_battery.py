"""Equality battery: every metric and option combination, one checkout against another.

Runs the same deterministic cases (ties, one-row and single-class groups, groups with no
relevant row, graded labels, weights of every kind, thresholds, empty rules, min_* filters, k
values, tie rules and tie-break columns, sparse / string / two-column keys, ``by=`` segments,
``ci=`` intervals and ``compare`` p-values for a fixed seed, ``per_group`` tables, the training
hook's ``evaluate_score``) in two subprocesses, one per checkout, and prints the largest absolute
difference of any number (NaN must match NaN, errors must match errors). Exit status 1 when it
exceeds ``--tol`` (default 1e-15).

    python benchmarks/eq_battery.py --baseline /path/to/other/checkout [--candidate .]
"""

from __future__ import annotations

import argparse
import math
import os
import pickle
import subprocess
import sys
import tempfile
import warnings
import zlib
from dataclasses import asdict, is_dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent


# --------------------------------------------------------------------------- #
# Fixtures (deterministic)
# --------------------------------------------------------------------------- #
def frames() -> dict[str, pd.DataFrame]:
    out: dict[str, pd.DataFrame] = {}
    rng = np.random.default_rng(7)
    # a click log: long-tailed groups, ~10% clicks, continuous and tied scores
    n_groups = 1500
    sizes = 1 + rng.poisson(rng.lognormal(0.5, 1.2, n_groups))
    g = np.repeat(np.arange(n_groups), sizes)
    n = g.shape[0]
    ctr = rng.beta(0.7, 6.0, n_groups)[g]
    y = (rng.random(n) < ctr).astype(np.int64)
    a = rng.normal(0, 1, n) + 0.8 * y
    df = pd.DataFrame({
        "g": g * 7919 % 100003,  # dense-ish integer keys
        "gs": np.char.add("u", (g * 31 % 9973).astype(str)),  # string keys
        "gsparse": (g.astype(np.int64) * 104729 + 10**12),  # sparse integer keys
        "g1": g % 37, "g2": g // 37,  # a two-column key
        "y": y,
        "yg": np.where(y > 0, rng.integers(1, 4, n), 0),  # graded labels 0..3
        "a": a,
        "b": rng.normal(0, 1, n) + 0.4 * y,
        "r": np.round(a, 1),  # heavy ties
        "i": np.round(a * 3).astype(np.int64),  # integer scores, ties
        "tb": rng.integers(0, 5, n),  # a tie-break column
        "sw": rng.uniform(0.1, 2.0, n),  # sample weights
        "gw": 0.0,
        "seg": (g % 3).astype(np.int64),  # segments: attributes of whole groups
    })
    df["gw"] = 1.0 + (df["g"] % 5)  # a weight column (constant per group)
    out["log"] = df.sample(frac=1.0, random_state=1).reset_index(drop=True)  # shuffled rows
    # ties only among rows of groups with no relevant row: the kept rows have none
    k = 400
    gg = np.repeat(np.arange(k), 4)
    yy = np.zeros(gg.shape[0], dtype=np.int64)
    yy[(gg % 2 == 0) & (np.arange(gg.shape[0]) % 4 == 0)] = 1
    ss = rng.random(gg.shape[0])
    empty_rows = np.flatnonzero(gg % 2 == 1)
    ss[empty_rows[1::2]] = ss[empty_rows[::2]]  # duplicated scores in the empty groups only
    ss[empty_rows[0]] = ss[0]  # and one tie between a kept and a skipped row
    out["ties_elsewhere"] = pd.DataFrame({"g": gg, "y": yy, "a": ss, "b": ss[::-1].copy()})
    # one-row groups, single-class groups, all-relevant groups, a fully tied group
    small = pd.DataFrame({
        "g": [1, 2, 2, 3, 3, 3, 4, 4, 5, 5, 5, 5, 6, 7, 7],
        "y": [1, 0, 0, 1, 1, 1, 1, 0, 0, 1, 1, 0, 0, 1, 0],
        "a": [0.5, 0.1, 0.2, 0.3, 0.3, 0.1, 0.9, 0.9, 0.4, 0.4, 0.4, 0.4, 0.2, 0.1, 0.8],
        "b": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.1, 1.2, 1.3, 1.4, 1.5],
    })
    out["small"] = small.sample(frac=1.0, random_state=3).reset_index(drop=True)
    # many label levels in many small groups: the ideal DCG from sorted (group, level) cells
    m = 3000
    gm = rng.integers(0, 1400, m)
    ym = np.where(rng.random(m) < 0.3, rng.integers(1, 40, m), 0).astype(np.float64) / 4
    out["levels"] = pd.DataFrame({"g": gm, "y": ym, "a": rng.random(m), "b": np.round(rng.random(m), 1)})
    # many groups: a weighted mean over more than ~1e4 groups is where BLAS may use threads
    gw = rng.integers(0, 60_000, 240_000)
    yw = (rng.random(gw.shape[0]) < 0.12).astype(np.int64)
    out["wide"] = pd.DataFrame({"g": gw, "y": yw, "a": rng.normal(0, 1, gw.shape[0]) + yw,
                                "b": np.round(rng.normal(0, 1, gw.shape[0]) + 0.5 * yw, 1)})
    return out


METRICS = ["gauc", "mrr", "ndcg", "ndcg@3", "map", "map@5", "precision@1", "precision@3", "recall@3",
           "hit_rate@1", "hit_rate@3", "hit_rate@1000", "rbp@0.8", "mrr@2"]


def _h(v: Any) -> float:
    """A number standing for a label (index values, text): equal labels give equal numbers."""
    return float(zlib.crc32(str(v).encode()))


def numbers(x: Any) -> list[float]:
    """Every number of a result, flattened."""
    if isinstance(x, pd.DataFrame):
        out: list[float] = []
        for c in x.columns:
            col = x[c]
            if pd.api.types.is_numeric_dtype(col) or pd.api.types.is_bool_dtype(col):
                out.extend(np.asarray(col, dtype=np.float64).tolist())
            else:
                out.extend(_h(v) for v in col.tolist())  # labels must match too
        out.extend(_h(v) for v in x.index.tolist())
        return out
    if isinstance(x, (list, tuple)):
        return [v for e in x for v in numbers(e)]
    if isinstance(x, dict):
        return [v for key in sorted(x, key=str) for v in numbers(x[key])]
    if is_dataclass(x) and not isinstance(x, type):
        return numbers({k: v for k, v in asdict(x).items() if isinstance(v, (int, float, bool, np.number))})
    if isinstance(x, (int, float, np.number, bool)):
        out = [float(x)]
        cov = getattr(x, "coverage", None)
        if cov is not None:
            out.extend(numbers(cov))
        return out
    if x is None:
        return []
    return [_h(x)]


Case = tuple[str, str, str, dict[str, Any]]  # name, frame, function of pandas_rankeval, keyword arguments


def _metric(metric: str) -> tuple[str, dict[str, Any]]:
    kind, _, param = metric.partition("@")
    func = "average_precision" if kind == "map" else kind
    if not param:
        return func, {}
    return func, {"p": float(param)} if kind == "rbp" else {"k": int(param)}


def cases() -> list[Case]:
    out: list[Case] = []
    scores = {"log": ("a", "b", "r", "i"), "ties_elsewhere": ("a", "b"), "small": ("a", "b"), "levels": ("a", "b")}
    for fname, cols in scores.items():
        for metric in METRICS:
            func, kw = _metric(metric)
            for score in cols:
                for empty in ("zero", "skip") if metric != "gauc" else ("zero",):
                    extra = {"empty": empty} if metric != "gauc" else {}
                    out.append((f"{fname}/{metric}/{score}/{empty}", fname, func,
                                dict(group="g", label="y", score=score, **kw, **extra)))
    log_opts: list[dict[str, Any]] = [
        {"ties": "pessimistic"}, {"ties": "optimistic"}, {"tiebreak": "tb"},
        {"weight": "count"}, {"weight": "uniform"}, {"weight": "clicks"}, {"weight": "log1p"}, {"weight": "gw"},
        {"threshold": 2}, {"threshold": 0.5}, {"threshold": 0}, {"empty": "skip", "threshold": 3},
    ]
    for metric in METRICS:
        func, kw = _metric(metric)
        for score in ("a", "r"):
            for i, opt in enumerate(log_opts):
                if metric == "gauc" and "empty" in opt:
                    continue
                label = "yg" if "threshold" in opt else "y"
                out.append((f"log/{metric}/{score}/opt{i}", "log", func, dict(group="g", label=label, score=score, **kw, **opt)))
            for key in ("gs", "gsparse", ["g1", "g2"]):
                out.append((f"log/{metric}/{score}/key{key}", "log", func, dict(group=key, label="y", score=score, **kw)))
            if metric.startswith("ndcg"):
                for opt in ({"gain": "linear"}, {}):
                    out.append((f"log/{metric}/{score}/graded{opt}", "log", func, dict(group="g", label="yg", score=score, **kw, **opt)))
            if metric.startswith("map"):
                out.append((f"log/{metric}/{score}/min_k", "log", func,
                            dict(group="g", label="y", score=score, denominator="min_k", **kw)))
    for score in ("a", "r", "i"):
        for opt in ({"min_size": 3}, {"min_pos": 2}, {"min_neg": 4}, {"min_size": 2, "min_pos": 1, "min_neg": 2},
                    {"sample_weight": "sw"}, {"max_fpr": 0.5}, {"engine": "sklearn"}, {"weight": "gw", "min_pos": 2}):
            out.append((f"log/gauc/{score}/{sorted(opt)}", "log", "gauc", dict(group="g", label="y", score=score, **opt)))
        out.append((f"log/auc/{score}", "log", "auc", {"label": "y", "score": score}))
    mixes = [["gauc", "mrr", "ndcg@10", "map", "precision@3", "recall@3", "hit_rate@3", "rbp@0.8"],
             ["auc", "gauc", "mrr", "ndcg@10"], ["mrr", "hit_rate@2"], ["mrr"], ["gauc"], ["gauc", "ndcg@5"]]
    for metric in ("gauc", "mrr", "ndcg@10", "hit_rate@3", "map"):
        func, kw = _metric(metric)
        for score in ("a", "b"):
            out.append((f"wide/{metric}/{score}", "wide", func, dict(group="g", label="y", score=score, **kw)))
    out.append(("wide/report", "wide", "report", {"group": "g", "label": "y", "scores": ["a", "b"], "metrics": mixes[0]}))
    for fname in ("log", "small", "ties_elsewhere"):
        for j, mix in enumerate(mixes):
            base = {"group": "g", "label": "y", "scores": ["a", "b"], "metrics": mix}
            out.append((f"{fname}/report/mix{j}", fname, "report", base))
            out.append((f"{fname}/per_group/mix{j}", fname, "per_group", dict(base)))
            if fname == "log":
                out.append((f"{fname}/report/mix{j}/tied", fname, "report", dict(base, scores=["r", "i"])))
                out.append((f"{fname}/per_group/mix{j}/tied", fname, "per_group", dict(base, scores=["r", "i"])))
                out.append((f"{fname}/report/mix{j}/by", fname, "report", dict(base, by="seg")))
                out.append((f"{fname}/report/mix{j}/ci", fname, "report", dict(base, ci=0.9, n_boot=200, seed=5)))
                out.append((f"{fname}/report/mix{j}/ci-by", fname, "report", dict(base, by="seg", ci=0.9, n_boot=100, seed=2)))
                out.append((f"{fname}/report/mix{j}/ci-mult", fname, "report",
                            dict(base, ci=0.9, n_boot=100, seed=3, resample="multinomial")))
                out.append((f"{fname}/report/mix{j}/skip", fname, "report", dict(base, empty="skip", weight="count")))
                out.append((f"{fname}/compare/mix{j}", fname, "compare", dict(base, n_boot=200, seed=4)))
                out.append((f"{fname}/compare/mix{j}/boot", fname, "compare",
                            dict(base, n_boot=200, seed=4, method="bootstrap")))
                out.append((f"{fname}/compare/mix{j}/rand", fname, "compare",
                            dict(base, n_boot=200, seed=4, method="randomization", by="seg")))
    return out


def _hook(df: pd.DataFrame, metrics: list[str]) -> list[float]:
    """The training hooks' path: one evaluation prepared once, new score columns evaluated on it."""
    try:
        from pandas_rankeval.core.evaluation.pipeline import evaluate_score, prepare_evaluation
        from pandas_rankeval.core.inputs.options import Options
        from pandas_rankeval.core.metrics.registry import parse_metrics
    except ImportError:  # a checkout with a flat core/
        from pandas_rankeval.core.evaluate import evaluate_score, prepare_evaluation  # type: ignore[no-redef]
        from pandas_rankeval.core.options import Options  # type: ignore[no-redef]
        from pandas_rankeval.core.registry import parse_metrics  # type: ignore[no-redef]

    specs = parse_metrics(metrics)
    ev = prepare_evaluation(df, group="g", label="y", scores=["a"], specs=specs, options=Options("hook"))
    out: list[float] = []
    for i in range(3):
        s = np.asarray(df["a"], dtype=np.float64) * (i + 1) + np.asarray(df["b"], dtype=np.float64) * i
        se = evaluate_score(ev, f"s{i}", s)
        for gv in se.metrics.values():
            out.append(gv.value)
            out.extend(np.asarray(gv.values, dtype=np.float64).tolist())
            out.extend(np.asarray(gv.weights, dtype=np.float64).tolist())
    return out


def run_child(path: str) -> None:
    import pandas_rankeval as pre

    warnings.simplefilter("ignore")
    fr = frames()
    results: dict[str, Any] = {}
    skipped = _count_skips()
    for name, fname, func, kw in cases():
        try:
            results[name] = numbers(getattr(pre, func)(fr[fname], **kw))
        except Exception as exc:  # noqa: BLE001 - the same error on both sides is a match
            results[name] = f"{type(exc).__name__}: {exc}"
    for fname in ("log", "small", "ties_elsewhere"):
        for mix in (["gauc", "mrr", "ndcg@10", "hit_rate@3"], ["mrr"], ["gauc"]):
            name = f"{fname}/hook/{'+'.join(mix)}"
            try:
                results[name] = _hook(fr[fname], mix)
            except Exception as exc:  # noqa: BLE001
                results[name] = f"{type(exc).__name__}: {exc}"
    with open(path, "wb") as fh:
        pickle.dump({"file": pre.__file__, "results": results, "skips": skipped}, fh)


def _count_skips() -> list[int]:
    """[evaluations that skipped groups, of them without a sort] (a checkout with core.skip)."""
    counts = [0, 0]
    try:
        from pandas_rankeval.core.evaluation import kept
        from pandas_rankeval.core.evaluation import pipeline as ev_mod
        from pandas_rankeval.core.skipping import skip
    except ImportError:  # a checkout with a flat core/
        try:
            from pandas_rankeval.core import evaluate as ev_mod  # type: ignore[attr-defined,no-redef]
            from pandas_rankeval.core import kept  # type: ignore[attr-defined,no-redef]
            from pandas_rankeval.core import skip  # type: ignore[attr-defined,no-redef]
        except ImportError:
            return counts
    if os.environ.get("EQ_PARTS"):  # rank in parts on threads at every size
        try:
            from pandas_rankeval.core import threads

            threads._LIMIT.set(int(os.environ["EQ_PARTS"]))
        except ImportError:  # a checkout before core.threads
            ev_mod._THREADS_FROM_ROWS = 0  # type: ignore[attr-defined]
            ev_mod._THREADS = int(os.environ["EQ_PARTS"])  # type: ignore[attr-defined]
    table = skip.group_table
    # the score columns selected with no sort by score: select_first_blocks, or select_first (before)
    hook = "select_first_blocks" if hasattr(kept, "select_first_blocks") else "select_first"
    select = getattr(kept, hook, None)

    def counted_table(*a: Any, **k: Any) -> Any:
        out = table(*a, **k)
        counts[0] += out is not None
        return out

    def counted_select(*a: Any, **k: Any) -> Any:
        counts[1] += 1
        return select(*a, **k)

    kept.group_table = counted_table  # type: ignore[attr-defined]
    if select is not None:
        setattr(kept, hook, counted_select)
    return counts


def _run(checkout: Path, path: str, parts: int = 0) -> dict[str, Any]:
    env = dict(os.environ, PYTHONPATH=str(checkout))
    if parts:
        env["EQ_PARTS"] = str(parts)
    subprocess.run([sys.executable, __file__, "--child", path], env=env, check=True, cwd=str(checkout))
    with open(path, "rb") as fh:
        return pickle.load(fh)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--baseline", help="checkout to compare against")
    ap.add_argument("--candidate", default=str(ROOT))
    ap.add_argument("--tol", type=float, default=1e-15)
    ap.add_argument("--parts", type=int, default=3, help="also rank in this many parts at every size (0: no)")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        run_child(args.child)
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        base = _run(Path(args.baseline), f"{tmp}/base.pkl")
        cands = [_run(Path(args.candidate), f"{tmp}/cand.pkl")]
        if args.parts:
            cands.append(_run(Path(args.candidate), f"{tmp}/cand{args.parts}.pkl", args.parts))
    print(f"baseline  {base['file']}\ncandidate {cands[0]['file']}")
    status = 0
    for cand, parts in zip(cands, (0, args.parts)):
        print(f"\ncandidate{f' ranked in {parts} parts on threads at every size' if parts else ''}: "
              f"{cand['skips'][0]} evaluations sorted the groups that count only, "
              f"{cand['skips'][1]} score columns selected without a sort")
        status |= _compare(base, cand, args.tol)
    return status


def _compare(base: dict[str, Any], cand: dict[str, Any], tol: float) -> int:
    worst, worst_name, n_numbers, bad = 0.0, "", 0, []
    for name, b in base["results"].items():
        c = cand["results"].get(name)
        if isinstance(b, str) or isinstance(c, str):
            if b != c:
                bad.append(f"{name}: {b!r} vs {c!r}")
            continue
        if c is None or len(b) != len(c):
            bad.append(f"{name}: {len(b)} numbers vs {None if c is None else len(c)}")
            continue
        x, y = np.asarray(b, dtype=np.float64), np.asarray(c, dtype=np.float64)
        n_numbers += x.shape[0]
        if not np.array_equal(np.isnan(x), np.isnan(y)) or not np.array_equal(np.isinf(x), np.isinf(y)):
            bad.append(f"{name}: NaN / inf at different places")
            continue
        fin = np.isfinite(x)
        if fin.any():
            d = float(np.max(np.abs(x[fin] - y[fin])))
            if d > worst:
                worst, worst_name = d, name
    n_err = sum(isinstance(v, str) for v in base["results"].values())
    print(f"{len(base['results'])} cases ({n_err} raise the same error on purpose or not), {n_numbers:,} numbers")
    print(f"max abs diff {worst:.3g}" + (f" ({worst_name})" if worst_name else ""))
    for line in bad[:20]:
        print("MISMATCH", line)
    ok = not bad and worst <= tol and not math.isnan(worst)
    print("OK" if ok else f"FAILED (tol {tol:g})")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
