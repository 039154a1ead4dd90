"""Evaluator: chunks of whole groups in any order and any split, merged, give the one-call table."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import pandas_rankeval as pre

pytestmark = pytest.mark.filterwarnings("ignore::pandas_rankeval.CoverageWarning")


def frame(seed: int = 0, n_groups: int = 80) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 10, n_groups)
    g = np.repeat(np.arange(n_groups), sizes)
    n = g.shape[0]
    y = np.where(rng.random(n) < rng.beta(1, 2, n_groups)[g], rng.integers(1, 3, n), 0)
    return pd.DataFrame({
        "u": "user-" + pd.Series(g * 5 + 1).astype(str), "y": y.astype(np.int64),
        "a": np.round(rng.random(n) * 4) / 4 + 0.2 * (y > 0), "b": rng.normal(size=n) + y,
        "seg": np.array(["x", "y", "z"])[g % 3],
    }).sample(frac=1.0, random_state=seed).reset_index(drop=True)


def chunks(df: pd.DataFrame, n: int, seed: int) -> list[pd.DataFrame]:
    """Whole groups, split at random into n chunks."""
    users = df["u"].unique()
    part = dict(zip(users, np.random.default_rng(seed).integers(0, n, users.shape[0])))
    side = df["u"].map(part)
    return [df[side == i] for i in range(n) if (side == i).any()]


def assert_table(got, want) -> None:
    got, want = pd.DataFrame(got), pd.DataFrame(want)
    assert list(got.columns) == list(want.columns) and got.index.equals(want.index)
    for c in want.columns:
        if pd.api.types.is_float_dtype(want[c].dtype):
            np.testing.assert_allclose(got[c].to_numpy(np.float64), want[c].to_numpy(), atol=1e-12, rtol=0, err_msg=c)
        else:
            assert (got[c].to_numpy() == want[c].to_numpy()).all(), c


REPORT = dict(group="u", label="y", scores=["a", "b"], metrics=["gauc", "mrr@3", "ndcg@5", "map"], by="seg",
              ci=0.9, n_boot=40, seed=7)


@pytest.mark.parametrize("seed", [1, 2])
def test_chunks_in_any_order_and_split_equal_the_one_call_report(seed):
    import duckdb
    import polars as pl

    df = frame(seed)
    parts = chunks(df, 5, seed)
    kinds = [lambda d: d, pl.from_pandas, lambda d: pl.from_pandas(d).lazy(), duckdb.from_df]
    evs = []
    for i, part in enumerate(parts[::-1] if seed % 2 else parts):  # any order, any frame kind
        evs.append(pre.Evaluator(**REPORT).update(kinds[i % len(kinds)](part)))
    total = evs[0]
    for ev in evs[1:]:
        total = ev | total
    assert_table(total.result(), pre.report(df, **REPORT))
    one = pre.Evaluator(**REPORT)
    for part in parts:
        one.update(part)
    assert_table(one.result(), pre.report(df, **REPORT))


def test_compare_and_the_bytes_round_trip():
    df = frame(3)
    kw = dict(group="u", label="y", scores=["a", "b"], baseline="a", metrics=["gauc", "ndcg@5"], n_boot=40, seed=2)
    parts = [pre.Evaluator(kind="compare", **kw).update(p) for p in chunks(df, 3, 0)]
    shipped = [pre.Evaluator.from_bytes(p.to_bytes()) for p in parts]
    total = shipped[0] | shipped[1] | shipped[2]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pre.CoverageWarning)
        want = pre.compare(df, **kw)
    assert_table(total.result(), want)
    assert_table(pre.Evaluator.from_bytes(total.to_bytes()).result(), want)


def test_a_split_group_is_refused_by_name():
    df = frame(4)
    first = df[df["u"] != "user-1"]
    second = df[df["u"] == "user-1"]
    split = pd.concat([second.iloc[:1], first])
    ev = pre.Evaluator(**REPORT).update(split)
    with pytest.raises(ValueError, match=r"Evaluator.update: group u='user-1' is in this chunk and in an earlier one \(1 group in all\); every group must be whole"):
        ev.update(second.iloc[1:])
    other = pre.Evaluator(**REPORT).update(second.iloc[1:])
    with pytest.raises(ValueError, match=r"Evaluator.merge: a group \(key hash \d+\) is in this chunk .* \(1 group"):
        ev | other
    with pytest.raises(ValueError, match="different parameters"):
        ev | pre.Evaluator(**(REPORT | {"seed": 8}))


def test_what_cannot_be_merged_is_refused_before_any_data():
    with pytest.raises(ValueError, match=r"global AUC \('auc' in metrics\) is not a sum over groups"):
        pre.Evaluator(group="u", label="y", scores="a", metrics=["auc", "gauc"])
    with pytest.raises(ValueError, match="resample='multinomial'"):
        pre.Evaluator(group="u", label="y", scores="a", metrics=["gauc"], ci=0.9, resample="multinomial")
    with pytest.raises(ValueError, match="no chunk was added"):
        pre.Evaluator(group="u", label="y", scores="a", metrics=["gauc"]).result()


def test_the_parquet_example_gets_the_one_call_table(tmp_path):
    import os
    import re
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    env = dict(os.environ, PYTHONPATH=str(root) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out = subprocess.run([sys.executable, str(root / "examples" / "parquet_evaluator.py"), "--users", "600"],
                         capture_output=True, text=True, env=env, cwd=tmp_path, check=True).stdout
    diffs = [float(x) for x in re.findall(r"largest difference to .*?: (\S+)\n", out)]
    assert len(diffs) == 2 and max(diffs) <= 1e-12, out
