#!/usr/bin/env python
"""XAUC: the exact O(n log n) count against sampled pairs and a hand-written polars version.

    python benchmarks/bench_xauc.py [--rows 1e6 1e7] [--ratio 1e-3] [--max-pairs 2e8] [--group-size 50]

For a table of n rows with a continuous label (watch time: lognormal, 30% zeros, so labels tie)
and a score (label signal plus noise, rounded: scores tie), per n:

* **exact** (:func:`pandas_rankeval.core.kernels.xauc.xauc_sums`): concordant pairs of different labels
  over all such pairs, tied scores 1/2, in O(n log n); global and grouped (users of
  ``--group-size`` rows on average, mean of per-user XAUC weighted by rows);
* **sampled** (TorchEasyRec's ``XAUC``, written here in numpy): ``ratio * n (n - 1) / 2`` pairs
  drawn uniformly with replacement from every pair of rows (a flat index mapped to (i, j) by the
  triangular root), a pair right when (y_i - y_j)(s_i - s_j) > 0 (so tied labels and tied scores
  count as wrong), the mean over the pairs. Capped at ``--max-pairs`` (TorchEasyRec's
  ``max_pairs``) where the ratio asks for more, in chunks of 1e7 pairs. Its error is shown against
  the exact value of its own definition (ties wrong, tied-label pairs in the denominator) and
  against the exact XAUC of the contract;
* **polars**, hand-written: grouped XAUC by a self-join of each user's rows (exact, O(sum n_g^2)),
  and the global sampled estimate with the pairs gathered by polars.

Prints seconds and values. Machine note: run it on an idle machine (``uptime`` load below the
core count); the numbers of docs/guide/ctr.md say where they came from.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pandas_rankeval.core.kernels.xauc import xauc_sums  # noqa: E402

_CHUNK = 10_000_000


def make(n: int, group_size: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = np.where(rng.random(n) < 0.3, 0.0, np.round(rng.lognormal(3.0, 1.0, n), 1))  # watch seconds
    s = np.round(np.log1p(y) + rng.normal(0, 1.5, n), 2)
    g = np.sort(rng.integers(0, max(1, n // group_size), n))
    return y, s, g


def sampled(y: np.ndarray, s: np.ndarray, n_pairs: int, seed: int = 1) -> tuple[float, float]:
    """TorchEasyRec's estimate (ties wrong), and the same pairs scored by the contract's rule
    (pairs of equal labels dropped, tied scores 1/2)."""
    rng = np.random.default_rng(seed)
    n = y.shape[0]
    total = n * (n - 1) // 2
    right = kept = half = 0.0
    done = 0
    while done < n_pairs:
        m = min(_CHUNK, n_pairs - done)
        flat = rng.integers(0, total, m)
        i = np.floor((-1.0 + np.sqrt(1.0 + 8.0 * flat.astype(np.float64))) / 2.0).astype(np.int64)
        a, b = flat - i * (i + 1) // 2, i + 1
        dy, ds = y[a] - y[b], s[a] - s[b]
        prod = dy * ds
        right += float((prod > 0).sum())
        diff = dy != 0
        kept += float(diff.sum())
        half += float((prod > 0).sum()) + 0.5 * float((diff & (ds == 0)).sum())
        done += m
    return right / n_pairs, half / kept


def ties_wrong_exact(y: np.ndarray, s: np.ndarray) -> float:
    """The exact value of the sampled estimate's own definition: concordant pairs over all pairs."""
    num, _ = xauc_sums(y, s)
    n = y.shape[0]
    c = num - _tied_pairs(y, s) / 2.0  # num = C + S / 2, S the pairs of different labels and tied scores
    return float(c[0] / (n * (n - 1) / 2))


def _tied_pairs(y: np.ndarray, s: np.ndarray) -> np.ndarray:
    """Pairs of different labels whose scores tie: those of equal scores minus those also of equal labels."""
    _, cs = np.unique(s, return_counts=True)
    both = np.unique(np.stack([s, y]), axis=1, return_counts=True)[1]
    return np.array([(cs.astype(np.float64) * (cs - 1) / 2).sum() - (both.astype(np.float64) * (both - 1) / 2).sum()])


def polars_grouped(y: np.ndarray, s: np.ndarray, g: np.ndarray) -> float:
    import polars as pl

    df = pl.DataFrame({"g": g, "y": y, "s": s}).with_row_index("i")
    pairs = df.join(df, on="g", suffix="_r").filter(pl.col("i") < pl.col("i_r")).filter(pl.col("y") != pl.col("y_r"))
    per = pairs.with_columns(
        c=pl.when((pl.col("y") - pl.col("y_r")) * (pl.col("s") - pl.col("s_r")) > 0).then(1.0)
        .when(pl.col("s") == pl.col("s_r")).then(0.5).otherwise(0.0)
    ).group_by("g").agg(x=pl.col("c").mean())
    rows = df.group_by("g").agg(n=pl.len())
    out = per.join(rows, on="g")
    return float((out["x"] * out["n"]).sum() / out["n"].sum())


def polars_sampled(y: np.ndarray, s: np.ndarray, n_pairs: int, seed: int = 1) -> float:
    import polars as pl

    rng = np.random.default_rng(seed)
    n = y.shape[0]
    total = n * (n - 1) // 2
    frame = pl.DataFrame({"y": y, "s": s})
    right = 0
    done = 0
    while done < n_pairs:
        m = min(_CHUNK, n_pairs - done)
        flat = pl.Series(rng.integers(0, total, m))
        i = ((-1.0 + (1.0 + 8.0 * flat.cast(pl.Float64)).sqrt()) / 2.0).floor().cast(pl.Int64)
        a, b = flat - i * (i + 1) // 2, i + 1
        right += int(((frame["y"].gather(a) - frame["y"].gather(b)) * (frame["s"].gather(a) - frame["s"].gather(b)) > 0).sum())
        done += m
    return right / n_pairs


def grouped_exact(y: np.ndarray, s: np.ndarray, g: np.ndarray) -> float:
    num, den = xauc_sums(y, s, None, g)
    rows = np.bincount(g, minlength=num.shape[0]).astype(float)
    ok = den > 0
    return float((rows[ok] * num[ok] / den[ok]).sum() / rows[ok].sum())


def timed(fn, *a):
    t = time.perf_counter()
    v = fn(*a)
    return v, time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=float, nargs="+", default=[1e6, 1e7])
    ap.add_argument("--ratio", type=float, default=1e-3)
    ap.add_argument("--max-pairs", type=float, default=2e8)
    ap.add_argument("--group-size", type=int, default=50)
    ap.add_argument("--no-polars-join", action="store_true", help="skip the polars self-join (O(sum n_g^2) rows in memory)")
    args = ap.parse_args()
    for n in map(int, args.rows):
        y, s, g = make(n, args.group_size)
        n_pairs = int(min(args.ratio * n * (n - 1) / 2, args.max_pairs))
        capped = n_pairs < args.ratio * n * (n - 1) / 2
        (num, den), t_exact = timed(xauc_sums, y, s)
        exact = float(num[0] / den[0])
        tw = ties_wrong_exact(y, s)
        (est, est_contract), t_samp = timed(sampled, y, s, n_pairs)
        gx, t_gx = timed(grouped_exact, y, s, g)
        print(f"n = {n:,} rows ({len(np.unique(y)):,} distinct labels, {len(np.unique(s)):,} distinct scores)")
        print(f"  exact xauc            {exact:.6f}  {t_exact:7.2f} s")
        print(f"  sampled (ties wrong)  {est:.6f}  {t_samp:7.2f} s  {n_pairs:,} pairs"
              f"{' (capped by --max-pairs)' if capped else ''}; its own exact value {tw:.6f}, error {est - tw:+.2e};"
              f" vs exact xauc {est - exact:+.2e}")
        print(f"  same pairs, contract  {est_contract:.6f}            error vs exact xauc {est_contract - exact:+.2e}")
        print(f"  grouped exact         {gx:.6f}  {t_gx:7.2f} s  ({len(np.unique(g)):,} users)")
        try:
            if not args.no_polars_join:
                pg, t_pg = timed(polars_grouped, y, s, g)
                print(f"  polars grouped join   {pg:.6f}  {t_pg:7.2f} s  (difference {pg - gx:+.1e})")
            ps, t_ps = timed(polars_sampled, y, s, n_pairs)
            print(f"  polars sampled        {ps:.6f}  {t_ps:7.2f} s")
        except ImportError:
            print("  polars: not installed")


if __name__ == "__main__":
    main()
