"""MRR, MRR@K, hit rate and hit rate@K with no sort by score: first relevant blocks counted.

When every metric of a call has a ``Cut.select`` (MRR and hit rate), the evaluation counts each
group's first relevant block over every row (:mod:`~.skipping.first_block`): in the rows' order
for dense group codes, in the group count's runs for sparse ones. Its
numbers must be those of the sort path (the reference switch: every fast path off) to the last
bit, on tie-heavy, one-class, one-row and shuffled frames, with every weight option and key kind,
on 1 to 3 threads, and the expected values under ties must be the brute-force mean over every
ordering of the tied rows.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest

import pandas_rankeval as pre
from pandas_rankeval.core.evaluation import kept
from pandas_rankeval.core.reference import reference_paths
from pandas_rankeval.core.skipping.first_block import first_block_groups, select_first_blocks
from pandas_rankeval.core.threads import Workers, limit_threads

try:
    import _oracles as O
except ImportError:  # pragma: no cover - run from the repository root
    from tests import _oracles as O

SELECT = ["mrr", "mrr@1", "mrr@2", "mrr@4", "hit_rate@1", "hit_rate@2", "hit_rate@3"]


def _frame(seed: int = 0) -> pd.DataFrame:
    """Hand-made groups (one row, one class, no relevant row, tie blocks on top, straddling the
    cutoffs, a whole group tied) and random ones with heavy ties, rows shuffled."""
    rng = np.random.default_rng(seed)
    rows = [
        (1, 1, 0.5), (2, 0, 0.5),  # one-row groups: relevant / not
        (3, 1, 0.3), (3, 1, 0.2), (3, 1, 0.3),  # relevant rows only, a tie on top
        (4, 0, 0.9), (4, 0, 0.1), (4, 0, 0.9),  # no relevant row (ties among its rows)
        (5, 0, 0.7), (5, 1, 0.7), (5, 0, 0.7), (5, 1, 0.6), (5, 0, 0.2),  # a tie block on top
        (6, 0, 0.8), (6, 0, 0.6), (6, 1, 0.5), (6, 0, 0.5), (6, 0, 0.5), (6, 1, 0.1),  # ties at 3
        (7, 1, 0.4), (7, 0, 0.4), (7, 0, 0.4), (7, 0, 0.4),  # one block holds the whole group
        (8, 0, 0.9), (8, 0, 0.8), (8, 0, 0.7), (8, 1, 0.7), (8, 1, 0.7), (8, 0, 0.7), (8, 0, 0.1),
    ]
    small = pd.DataFrame(rows, columns=["g", "y", "s"])
    n = 900
    g = rng.integers(100, 300, n)
    big = pd.DataFrame({"g": g, "y": (rng.random(n) < 0.15).astype(int), "s": np.round(rng.random(n), 1)})
    df = pd.concat([small, big], ignore_index=True)
    m = df.shape[0]
    df["c"] = rng.random(m)  # continuous: no tie
    df["i"] = rng.integers(-3, 3, m)  # int64 scores, ties
    df["f32"] = np.round(rng.random(m), 1).astype(np.float32)
    df["gw"] = 1.0 + df["g"] % 3  # a weight column
    return df.sample(frac=1.0, random_state=seed).reset_index(drop=True)


def _numbers(obj: object) -> np.ndarray:
    if isinstance(obj, pd.DataFrame):
        return np.asarray(obj.select_dtypes("number"), dtype=np.float64).ravel()
    out = [float(obj)]  # type: ignore[arg-type]
    out += [float(v) for v in vars(obj.coverage).values() if isinstance(v, (int, float))]  # type: ignore[attr-defined]
    return np.array(out)


def _selected_and_sorted(monkeypatch: pytest.MonkeyPatch, call, threads: int = 1):
    """(selection path, sort path) of the same call; the selection path must have run."""
    calls = []
    real = kept.select_first_blocks

    def counted(*a, **k):
        calls.append(1)
        return real(*a, **k)

    with monkeypatch.context() as m, limit_threads(threads), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m.setattr(kept, "select_first_blocks", counted)
        fast = call()
        assert calls, "the call did not take the selection path"
        calls.clear()
        with reference_paths():
            slow = call()
        assert not calls, "the reference switch must turn the selection path off"
    return fast, slow


def _bit_equal(fast: object, slow: object, tol: float = 0.0) -> None:
    a, b = _numbers(fast), _numbers(slow)
    assert a.size and np.allclose(a, b, rtol=0, atol=tol, equal_nan=True), np.nanmax(np.abs(a - b))
    if isinstance(fast, pd.DataFrame):
        assert list(fast.index) == list(slow.index)


@pytest.mark.parametrize("threads", [1, 2, 3])
@pytest.mark.parametrize("keys", ["dense", "sparse", "string", "two", "some_codes"])
def test_report_and_per_group_equal_the_sort_path(monkeypatch, threads, keys):
    df = _frame(threads)
    group: str | list[str] = "g"
    if keys == "sparse":
        df["g"] = df["g"].astype(np.int64) * 10**9 + 7  # integer keys far apart: runs of the group count's sort
    elif keys == "string":
        df["g"] = "u" + df["g"].astype(str)
    elif keys == "two":
        df["g2"] = df["g"] % 4
        group = ["g", "g2"]
    elif keys == "some_codes":
        df["g"] = df["g"] * 3  # dense codes with holes: looked up in a table
    for fn in (pre.report, pre.per_group):
        for empty in ("zero", "skip"):
            kw = {"group": group, "label": "y", "scores": ["s", "c", "i", "f32"], "metrics": SELECT, "empty": empty}
            fast, slow = _selected_and_sorted(monkeypatch, lambda fn=fn, kw=kw: fn(df, **kw), threads)
            _bit_equal(fast, slow)


@pytest.mark.parametrize("options", [
    {}, {"weight": "count"}, {"weight": "clicks"}, {"weight": "log1p"}, {"weight": "gw"},
    {"weight": "series"}, {"weight": "callable"}, {"empty": "skip"}, {"threshold": 2, "label": "yg"},
    {"by": "seg"}, {"ci": 0.9, "n_boot": 40, "seed": 3},
])
def test_options_equal_the_sort_path(monkeypatch, options):
    df = _frame(4)
    df["yg"] = np.where(df["y"] > 0, 1 + df.index % 3, 0)
    df["seg"] = df["g"] % 3
    kw = {"group": "g", "label": "y", "scores": ["s", "c"], "metrics": ["mrr", "mrr@2", "hit_rate@2"]} | options
    if options.get("weight") == "series":
        kw["weight"] = pd.Series(1.0 + np.arange(df["g"].nunique()) % 4, index=np.sort(df["g"].unique()))
    elif options.get("weight") == "callable":
        kw["weight"] = lambda st: st["n"] + 2.0 * st["positives"]
    fast, slow = _selected_and_sorted(monkeypatch, lambda: pre.report(df, **kw), 2)
    # the bootstrap's replicate sums are added in another order under the reference switch (one
    # dense product): its interval bounds may differ in the last bit, whichever path ranks
    _bit_equal(fast, slow, 1e-15 if "ci" in options else 0.0)
    single = {k: v for k, v in kw.items() if k not in ("scores", "metrics", "by", "ci", "n_boot", "seed")}
    for fn, extra in ((pre.mrr, {}), (pre.mrr, {"k": 3}), (pre.hit_rate, {"k": 2})):
        fast, slow = _selected_and_sorted(monkeypatch, lambda fn=fn, extra=extra: fn(df, score="s", **single, **extra))
        _bit_equal(fast, slow)
        assert fast.coverage == slow.coverage


@pytest.mark.parametrize("k", [None, 1, 2, 3, 5])
def test_expected_values_equal_the_brute_force_over_tie_orders(monkeypatch, k):
    """Every group's MRR@k / hit rate@k under ties is the mean over every ordering of its tied
    rows (the oracle), per group (per_group) and averaged (empty groups score 0)."""
    df = _frame()
    df = df[df["g"] < 100]  # the hand-made groups: small enough to enumerate
    groups = O.split_groups(df, "g")
    for metric in ("mrr", "hit_rate"):
        if metric == "hit_rate" and k is None:
            continue
        name = metric if k is None else f"{metric}@{k}"
        oracle_fn = O.list_metric_fn(metric, k=k)
        want = {}
        for key, pos in groups.items():
            labels, scores = df["y"].iloc[pos].tolist(), df["s"].iloc[pos].tolist()
            want[key] = 0.0 if not any(labels) else O.tie_value(oracle_fn, labels, scores)
        fast, _ = _selected_and_sorted(monkeypatch, lambda name=name: pre.per_group(
            df, group="g", label="y", score="s", metrics=[name]))
        got = fast[name].to_dict()
        for key, value in want.items():
            assert math.isclose(got[key], value, rel_tol=0, abs_tol=1e-15), (name, key)
        mean, _ = _selected_and_sorted(monkeypatch, lambda name=name: pre.report(
            df, group="g", label="y", scores=["s"], metrics=[name]))
        assert math.isclose(float(mean[name].iloc[0]), math.fsum(want.values()) / len(want), rel_tol=0,
                            abs_tol=1e-15)


@pytest.mark.parametrize("dtype", ["int64", "uint64", "float64", "float32"])
def test_scores_at_the_top_of_their_dtype(monkeypatch, dtype):
    """A group with no relevant row keeps its dtype's top value as its best score: its rows at that
    value (the largest integer, or inf) must not count anywhere; a relevant row at the top counts."""
    top = np.inf if dtype.startswith("float") else np.iinfo(dtype).max
    s = np.array([top, top, 1, top, 2, 3, top, 0], dtype=dtype)
    df = pd.DataFrame({"g": [1, 1, 1, 2, 2, 2, 3, 3], "y": [0, 0, 0, 1, 0, 1, 1, 0], "s": s})
    for fn, kw in ((pre.mrr, {}), (pre.mrr, {"k": 1}), (pre.hit_rate, {"k": 1})):
        fast, slow = _selected_and_sorted(monkeypatch, lambda fn=fn, kw=kw: fn(df, group="g", label="y", score="s", **kw))
        _bit_equal(fast, slow)
    # group 1 has no relevant row (0); group 2: its relevant row at the top is first (RR 1); group 3:
    # its one relevant row alone on top (RR 1)
    assert float(pre.mrr(df, group="g", label="y", score="s")) == pytest.approx(2 / 3, abs=1e-15)
    got = pre.per_group(df, group="g", label="y", score="s", metrics=["mrr"])["mrr"].tolist()
    assert got == [0.0, 1.0, 1.0]


def test_one_row_and_one_group_frames(monkeypatch):
    for df in (pd.DataFrame({"g": [5], "y": [1], "s": [0.2]}), pd.DataFrame({"g": [5], "y": [0], "s": [0.2]}),
               pd.DataFrame({"g": [5] * 4, "y": [0, 1, 1, 0], "s": [0.3] * 4})):
        fast, slow = _selected_and_sorted(monkeypatch, lambda df=df: pre.mrr(df, group="g", label="y", score="s"))
        _bit_equal(fast, slow)
    # the last frame: one block of 4 rows, 2 relevant: the mean over its orderings
    want = O.tie_value(O.list_metric_fn("mrr"), [0, 1, 1, 0], [0.3] * 4)
    assert float(fast) == pytest.approx(want, abs=1e-15) and want == pytest.approx(0.5 + 1 / 6 + 1 / 18, abs=1e-15)


@pytest.mark.parametrize("dense", [True, False])
def test_groups_and_selection_equal_numpy(dense):
    """first_block_groups in 1 to 5 ranges of rows gives np.unique's codes and counts (and, dense,
    every row's group); select_first_blocks gives the first relevant block counted group by group,
    with groups spanning ranges (sparse: each range's runs)."""
    rng = np.random.default_rng(13)
    n = 5000
    n_codes = 3000 if dense else 2**40
    codes = rng.integers(0, n_codes, 700)[rng.integers(0, 700, n)]
    codes = codes.astype(np.int32 if dense else np.int64)
    rel = rng.random(n) < 0.1
    score = np.round(rng.random(n), 1)
    uniq, inv, n_ref = np.unique(codes, return_inverse=True, return_counts=True)
    npos_ref = np.bincount(inv[rel], minlength=uniq.shape[0])
    kept_ref = np.flatnonzero(npos_ref)
    best = np.array([score[(inv == g) & rel].max() for g in kept_ref])
    m_ref = np.array([np.sum((inv == g) & (score > b)) for g, b in zip(kept_ref, best)])
    t_ref = np.array([np.sum((inv == g) & (score == b)) for g, b in zip(kept_ref, best)])
    p_ref = np.array([np.sum((inv == g) & (score == b) & rel) for g, b in zip(kept_ref, best)])
    with Workers(3) as workers:
        for n_parts in (1, 2, 3, 5):
            h = first_block_groups(codes, n_codes, rel.view(np.uint8), workers, n_parts)
            assert np.array_equal(h.code, uniq) and np.array_equal(h.n, n_ref) and np.array_equal(h.npos, npos_ref)
            assert np.array_equal(h.kept, kept_ref)
            if dense:
                assert h.rows is not None and np.array_equal(h.rows.row_group, inv)
            else:
                assert h.runs is not None and len(h.runs) == n_parts
            sel = select_first_blocks(score, h, workers)
            assert np.array_equal(sel.m, m_ref) and np.array_equal(sel.t, t_ref) and np.array_equal(sel.p, p_ref)


def test_other_metrics_keep_their_path(monkeypatch):
    """A call with a metric that needs a ranking (or options that read every row) takes the sort
    path: the selection is for MRR and hit rate alone."""
    df = _frame(5)
    calls = []
    monkeypatch.setattr(kept, "select_first_blocks", lambda *a, **k: calls.append(1))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pre.report(df, group="g", label="y", scores=["s"], metrics=["mrr", "ndcg@3"])
        pre.mrr(df, group="g", label="y", score="s", ties="pessimistic")
    assert calls == []


def test_polars_frame_takes_the_selection_path(monkeypatch):
    pl = pytest.importorskip("polars")
    df = _frame(6)
    pf = pl.from_pandas(df)
    fast, slow = _selected_and_sorted(monkeypatch, lambda: pre.report(pf, group="g", label="y", scores=["s", "c"],
                                                                    metrics=SELECT))
    _bit_equal(fast, slow)
    want = pre.report(df, group="g", label="y", scores=["s", "c"], metrics=SELECT)
    _bit_equal(fast, want)


@pytest.mark.parametrize("threads", [2, 3])
def test_a_range_of_rows_with_no_relevant_group(monkeypatch, threads):
    """Sparse keys whose first range of rows holds only groups with no relevant row (its run keeps
    no row), and a group split over every range: the sort path's numbers."""
    df = pd.DataFrame({
        "g": [10**12, 10**12, 3 * 10**12, 3 * 10**12, 5, 7 * 10**12, 5, 7 * 10**12, 5, 5, 9, 9],
        "y": [0, 0, 0, 0, 0, 1, 1, 0, 0, 1, 0, 0],
        "s": [0.9, 0.1, 0.5, 0.5, 0.4, 0.3, 0.4, 0.8, 0.7, 0.2, 0.6, 0.6],
    })
    for fn in (pre.per_group, pre.report):
        fast, slow = _selected_and_sorted(monkeypatch, lambda fn=fn: fn(
            df, group="g", label="y", scores=["s"], metrics=["mrr", "mrr@2", "hit_rate@1"]), threads)
        _bit_equal(fast, slow)
    # group 5: rows 0.4 (no), 0.4 (yes), 0.7 (no), 0.2 (yes): one row above, a tie of 2 with 1 relevant
    got = pre.per_group(df, group="g", label="y", score="s", metrics=["mrr"])["mrr"]
    assert got.loc[5] == pytest.approx(0.5 * (1 / 2) + 0.5 * (1 / 3), abs=1e-15)
