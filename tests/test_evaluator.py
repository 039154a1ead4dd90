"""Evaluator: chunks of whole groups in any order and any split, merged, give the one-call table."""

from __future__ import annotations

import re
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
    with pytest.raises(ValueError, match=r"global AUC \('auc' in metrics\) with ci=0.9 \(an interval\) is not available"):
        pre.Evaluator(group="u", label="y", scores="a", metrics=["auc", "gauc"], ci=0.9)
    with pytest.raises(ValueError, match=r"with kind='compare' \(a test\) is not available chunk by chunk"):
        pre.Evaluator(group="u", label="y", scores=["a", "b"], metrics=["auc"], kind="compare")
    with pytest.raises(ValueError, match=r"tiebreak='t' is not available chunk by chunk"):
        pre.Evaluator(group="u", label="y", scores="a", metrics=["auc"], tiebreak="t")
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


# --------------------------------------------------------------------------- #
# Global AUC: per-distinct-score counts, merged exactly
# --------------------------------------------------------------------------- #
AUC_CASES = [
    {},
    {"ties": "pessimistic"},
    {"ties": "optimistic", "threshold": 2},
    {"sample_weight": "w"},
    {"by": "seg", "sample_weight": "w"},
]


def _auc_chunks(df: pd.DataFrame) -> list[pd.DataFrame]:
    """Three chunks of whole groups; the first holds only non-relevant rows, and score "a" (about
    six distinct values) ties across every chunk boundary."""
    no_pos = df.groupby("u")["y"].transform("max") == 0
    users = df.loc[~no_pos, "u"].unique()
    half = set(users[: users.shape[0] // 2])
    first = df[no_pos]
    assert (first["y"] == 0).all() and len(first)
    return [first, df[~no_pos & df["u"].isin(half)], df[~no_pos & ~df["u"].isin(half)]]


@pytest.mark.parametrize("kw", AUC_CASES, ids=lambda kw: "-".join(f"{k}={v}" for k, v in kw.items()) or "plain")
def test_global_auc_from_chunks_is_the_one_call_auc_exactly(kw):
    from _oracles import auc as brute_auc

    df = frame(seed=4).assign(w=lambda d: np.random.default_rng(1).random(len(d)) + 0.25)
    parts = _auc_chunks(df)
    assert set(parts[0]["a"]) & set(parts[1]["a"]) & set(parts[2]["a"])  # ties across the chunks
    by = kw.get("by")
    opts = {k: v for k, v in kw.items() if k != "by"}
    ev = pre.Evaluator(group="u", label="y", scores=["a", "b"], metrics=["auc", "gauc"], **kw)
    for p in parts:
        ev.update(p)
    shipped = pre.Evaluator.from_bytes(ev.to_bytes())
    merged = pre.Evaluator(group="u", label="y", scores=["a", "b"], metrics=["auc", "gauc"], **kw).update(parts[2])
    merged = pre.Evaluator.from_bytes(merged.to_bytes()) | pre.Evaluator(
        group="u", label="y", scores=["a", "b"], metrics=["auc", "gauc"], **kw).update(pd.concat(parts[:2]))
    tol = 1e-15 if "sample_weight" in kw else 0.0  # weighted sums in another order: the last bit
    for got in (ev.result(), shipped.result(), merged.result()):
        segs = sorted(df[by].unique()) if by else [None]
        for seg in segs:
            rows = df if seg is None else df[df[by] == seg]
            for s in ("a", "b"):
                want = float(pre.auc(rows, label="y", score=s, **opts))
                value = got.loc[(seg, s) if by else s, "auc"]
                assert abs(value - want) <= tol, (seg, s, value, want)
                if not by and s == "a":  # and the pair count by brute force
                    sw = rows[kw["sample_weight"]].tolist() if "sample_weight" in kw else None
                    truth = brute_auc(rows["y"].tolist(), rows[s].tolist(), sample_weight=sw,
                                      ties=kw.get("ties", "expected"), threshold=kw.get("threshold"))
                    assert abs(value - truth) <= 1e-12
        assert_table(got, pre.report(df, group="u", label="y", scores=["a", "b"], metrics=["auc", "gauc"], **kw))


@pytest.mark.parametrize("kind", ["polars", "duckdb"])
def test_global_auc_from_chunks_of_other_frames(kind):
    df = frame(seed=5)
    parts = _auc_chunks(df)
    if kind == "polars":
        import polars as pl

        frames = [pl.from_pandas(parts[0]), pl.from_pandas(parts[1]).lazy(), parts[2]]
    else:
        import duckdb

        con = duckdb.connect()
        frames = [con.from_df(p) for p in parts]
    ev = pre.Evaluator(group="u", label="y", scores=["a", "b"], metrics=["auc"])
    for f in frames:
        ev.update(f)
    got = pre.Evaluator.from_bytes(ev.to_bytes()).result()
    for s in ("a", "b"):
        assert got.loc[s, "auc"] == float(pre.auc(df, label="y", score=s))


def test_the_signature_is_reports_with_its_defaults():
    """Every option of report (and of compare, for kind="compare") by name, typed, with the same
    default: no **options, and the default metrics are report's (one definition)."""
    import inspect

    from pandas_rankeval.core.metrics.registry import DEFAULT_METRICS

    ev = inspect.signature(pre.Evaluator).parameters
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in ev.values())
    per_call = {"df", "overall", "engine_options"}  # the frame and its engine come with each update
    for func in (pre.report, pre.compare):
        theirs = inspect.signature(func).parameters
        assert set(theirs) - per_call <= set(ev), func.__name__
    report, compare = inspect.signature(pre.report).parameters, inspect.signature(pre.compare).parameters
    for name, p in ev.items():
        if name == "kind":
            continue
        if name == "group":  # required here: chunks are merged group by group (report's may be None
            assert p.default is inspect.Parameter.empty  # for pooled metrics: every row its own group)
            assert p.annotation == report["group"].annotation.replace(" | None", "")
            continue
        ref = report.get(name) or compare[name]
        assert (p.default, p.annotation) == (ref.default, ref.annotation), name
    assert ev["metrics"].default is DEFAULT_METRICS
    doc = pre.Evaluator.__doc__
    for name in ev:
        assert re.search(rf"^    (\w+, )*{name}( : |,|\n| :\n)", doc, re.M), name  # every parameter documented


def test_the_default_metrics_are_reports():
    df = frame(3)
    got = pre.Evaluator(group="u", label="y", scores=["a", "b"]).update(df).result()
    want = pre.report(df, group="u", label="y", scores=["a", "b"])
    assert list(got.columns) == list(want.columns)
    assert_table(got, want)
