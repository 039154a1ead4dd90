"""A directory of Parquet files, one file per worker process, merged into the one-call report.

Every file holds whole users (here: users split by ``user_id % FILES``, as a log partitioned by
user is written). Each worker reads its file, evaluates it with a ``pandas_rankeval.Evaluator``
and sends the evaluator back as bytes; the parent merges them. The table equals
``pandas_rankeval.report`` on all the rows at once (checked below against the pandas frame and
against a DuckDB relation over the whole directory), intervals included.

    python examples/parquet_evaluator.py [--workers 2] [--users 4000]

Needs pyarrow (reading Parquet) and, for the last check, duckdb
(``pip install 'pandas_rankeval[duckdb]'``).
"""

from __future__ import annotations

import argparse
import tempfile
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
import pandas as pd

import pandas_rankeval as pre

FILES = 6
PARAMS = dict(group="user_id", label="click", scores=["model_a", "model_b"],
              metrics=["gauc", "mrr", "ndcg@10"], by="activity", ci=0.9, n_boot=200, seed=0)


def evaluate_file(path: str) -> bytes:
    """One worker: one file of whole users -> the evaluator as bytes."""
    return pre.Evaluator(**PARAMS).update(pd.read_parquet(path)).to_bytes()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--users", type=int, default=4000)
    args = ap.parse_args()
    df = pre.datasets.make_impressions(args.users, seed=1)
    with tempfile.TemporaryDirectory() as d:
        for i in range(FILES):
            df[df["user_id"] % FILES == i].to_parquet(Path(d) / f"part-{i}.parquet")
        paths = sorted(str(p) for p in Path(d).glob("*.parquet"))
        with ProcessPoolExecutor(args.workers) as pool:
            parts = [pre.Evaluator.from_bytes(b) for b in pool.map(evaluate_file, paths)]
        total = parts[0]
        for part in parts[1:]:
            total = total | part
        table = total.result()
        print(table.round(4).to_string())
        want = pre.report(df, **PARAMS)
        diff = float(np.nanmax(np.abs(table.select_dtypes("number").to_numpy(float)
                                      - want.select_dtypes("number").to_numpy(float))))
        print(f"\n{len(paths)} files, {args.workers} processes; largest difference to report(df): {diff:.1e}")
        try:
            import duckdb
        except ImportError:
            return
        rel = duckdb.sql(f"select * from '{d}/*.parquet'")
        on_duckdb = pre.report(rel, **PARAMS)
        diff = float(np.nanmax(np.abs(table.select_dtypes("number").to_numpy(float)
                                      - on_duckdb.select_dtypes("number").to_numpy(float))))
        print(f"largest difference to report(duckdb relation over the files): {diff:.1e}")


if __name__ == "__main__":
    main()
