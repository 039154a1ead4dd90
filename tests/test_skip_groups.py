"""Skipping the groups that cannot count, selecting instead of sorting, ranking in parts.

Every number must be the one of a full sort of every row, to the last bit: the skip path is
compared with the full path of the same checkout (the reference switch: every fast path off), in one part
and in several parts on threads, and MRR / hit rate under ties with the brute-force oracles.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest

import pandas_rankeval as pre
from pandas_rankeval.core.evaluation import pipeline as core_evaluate
from pandas_rankeval.core.evaluation import kept
from pandas_rankeval.core.reference import reference_paths
from pandas_rankeval.core.skipping import skip

try:
    import _oracles as O
except ImportError:  # pragma: no cover - run from the repository root
    from tests import _oracles as O


def _frame(seed: int = 0) -> pd.DataFrame:
    """One-row groups, single-class groups, groups with no relevant row, ties at the cutoff,
    rows shuffled."""
    rng = np.random.default_rng(seed)
    rows = [
        (1, 1, 0.5), (2, 0, 0.5),  # one-row groups: relevant / not
        (3, 1, 0.3), (3, 1, 0.2),  # relevant rows only
        (4, 0, 0.9), (4, 0, 0.1), (4, 0, 0.4),  # no relevant row
        (5, 0, 0.7), (5, 1, 0.7), (5, 0, 0.7), (5, 1, 0.6), (5, 0, 0.2),  # a tie block on top
        (6, 0, 0.8), (6, 0, 0.6), (6, 1, 0.5), (6, 0, 0.5), (6, 0, 0.5), (6, 1, 0.1),  # ties at 3
        (7, 1, 0.4), (7, 0, 0.4), (7, 0, 0.4), (7, 0, 0.4),  # one block holds the whole group
    ]
    small = pd.DataFrame(rows, columns=["g", "y", "s"])
    n = 600
    g = rng.integers(100, 260, n)
    big = pd.DataFrame({"g": g, "y": (rng.random(n) < 0.15).astype(int), "s": np.round(rng.random(n), 1)})
    df = pd.concat([small, big], ignore_index=True)
    df["c"] = rng.random(df.shape[0])  # continuous: no tie
    df["yg"] = np.where(df["y"] > 0, rng.integers(1, 4, df.shape[0]), 0)
    return df.sample(frac=1.0, random_state=seed).reset_index(drop=True)


METRICS = ["gauc", "mrr", "mrr@2", "ndcg@3", "map@3", "precision@3", "recall@2", "hit_rate@1",
           "hit_rate@3", "rbp@0.5"]


def _numbers(result: pd.DataFrame) -> np.ndarray:
    return np.asarray(result.select_dtypes("number"), dtype=np.float64).ravel()


def _both(monkeypatch: pytest.MonkeyPatch, fn, parts: int = 1):
    """(skip path, full path) of the same call; ``parts`` > 1 ranks in parts on threads."""
    from pandas_rankeval.core.threads import limit_threads

    with monkeypatch.context() as m, limit_threads(parts if parts > 1 else None):
        calls = []
        real = skip.group_table

        def counted(*a, **k):
            out = real(*a, **k)
            calls.append(out is not None)
            return out

        m.setattr(kept, "group_table", counted)
        fast = fn()
        assert any(calls), "the call did not skip any group"
    with reference_paths():
        full = fn()
    return fast, full


def _tables_equal_the_full_sort(monkeypatch, df: pd.DataFrame, kw: dict, parts: int) -> None:
    """per_group and report on the skipping path equal the full sort: every number, row order."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for fn in (pre.per_group, pre.report):
            fast, full = _both(monkeypatch, lambda fn=fn: fn(df, **kw), parts)
            assert np.array_equal(_numbers(fast), _numbers(full), equal_nan=True)
            assert list(fast.index) == list(full.index)


@pytest.mark.parametrize("parts", [1, 3])
@pytest.mark.parametrize("empty", ["zero", "skip"])
def test_per_group_and_report_equal_the_full_sort(monkeypatch, parts, empty):
    df = _frame()
    kw = {"group": "g", "label": "y", "scores": ["s", "c"], "metrics": METRICS, "empty": empty}
    _tables_equal_the_full_sort(monkeypatch, df, kw, parts)


@pytest.mark.parametrize("parts", [1, 2, 3])
@pytest.mark.parametrize("metrics", [["auc", "gauc", "ndcg@3"], ["auc", "gauc"], ["auc", "ndcg@3", "mrr"]])
def test_global_auc_from_the_parts_equals_the_full_sort(monkeypatch, parts, metrics):
    """With a pair metric every kept row is ranked, and global AUC is read off the parts' sorts
    (each part's classes) plus a sort of the other rows, each set of relevant rows searched in every
    set of non-relevant rows: the same number as the full sort, to the last bit, with ties inside
    parts, across parts and between kept and other rows (a column rounded to one decimal). Without
    a pair metric (candidates only), the whole column is searched as before."""
    from pandas_rankeval.core.ranking import global_auc

    df = _frame(2)
    df["r1"] = np.round(df["c"], 1)
    used = []
    real = global_auc.global_auc_of_sorted

    def counted(pos, neg, ties="expected"):
        used.append(len(neg))
        return real(pos, neg, ties)

    monkeypatch.setattr(kept, "global_auc_of_sorted", counted)
    kw = {"group": "g", "label": "y", "scores": ["c", "r1", "s"], "metrics": metrics}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fast, full = _both(monkeypatch, lambda: pre.report(df, **kw), parts)
    assert np.array_equal(_numbers(fast), _numbers(full), equal_nan=True)
    pairs = "gauc" in metrics
    assert (len(used) == 3 and set(used) == {1 + parts}) if pairs else used == []  # the other rows and each part
    if pairs:
        assert pytest.approx(float(fast.loc["r1", "auc"]), abs=1e-15) == float(pre.auc(df, label="y", score="r1"))


@pytest.mark.parametrize("threads", [2, 3])
def test_global_auc_alone_is_searched_in_ranges_on_threads(monkeypatch, threads):
    """Global AUC of one score column (no row order needed) cuts the rows into one range per
    thread, sorts each range's classes on its own thread and searches every relevant set in every
    non-relevant one: the same three counts as one range, to the last bit, under every tie rule,
    with ties across ranges and a range holding one class only; pre.auc and a training hook's
    evaluate_score equal the one-thread call and sklearn."""
    from sklearn.metrics import roc_auc_score

    from pandas_rankeval.core.ranking import global_auc
    from pandas_rankeval.core.evaluation.pipeline import evaluate_score, prepare_evaluation
    from pandas_rankeval.core.inputs.options import Options
    from pandas_rankeval.core.metrics.registry import parse_metrics
    from pandas_rankeval.core.threads import Workers, limit_threads

    monkeypatch.setattr(global_auc, "SEARCH_PART_ROWS", 50)
    rng = np.random.default_rng(threads)
    n = 900
    rel = rng.random(n) < 0.2
    rel[:200] = False  # the first range has no relevant row
    columns = [np.round(rng.random(n), 1), rng.random(n), rng.integers(0, 5, n), np.round(rng.random(n), 1).astype(np.float32)]
    with Workers(threads) as workers:
        for score in columns:
            for ties in ("expected", "pessimistic", "optimistic"):
                one = global_auc.global_auc_by_search(score, rel, ties)
                assert global_auc.global_auc_by_search(score, rel, ties, workers) == one
    sets = []
    real = global_auc.global_auc_of_sorted
    monkeypatch.setattr(global_auc, "global_auc_of_sorted", lambda p, q, t="expected", w=None: sets.append(len(q)) or real(p, q, t, w))
    df = pd.DataFrame({"y": rel.astype(int), "r": columns[0], "c": columns[1], "i": columns[2]})
    for col in ("r", "c", "i"):
        with limit_threads(1):
            single = pre.auc(df, label="y", score=col)
        sets.clear()
        with limit_threads(threads):
            assert pre.auc(df, label="y", score=col) == single
        assert sets == [threads]
        assert single == pytest.approx(roc_auc_score(rel, df[col]), abs=1e-15)
    ev = prepare_evaluation(df, group=None, label="y", scores=["r"], specs=parse_metrics(["auc"]), options=Options(func="auc"))
    sets.clear()
    with limit_threads(threads):
        hooked = evaluate_score(ev, "hook", df["c"].to_numpy())
    assert sets == [threads]
    assert hooked.metrics["auc"].value == pre.auc(df, label="y", score="c")


@pytest.mark.parametrize("parts", [1, 2, 3])
def test_sparse_keys_counted_in_ranges_equal_the_full_sort(monkeypatch, parts):
    """Integer keys far apart are counted by sorts of ranges of rows (one per thread), whose
    per-group counts are added: every number equals the full sort's."""
    df = _frame(3)
    df["g"] = df["g"] * 10**9 + 7  # a span far beyond the rows: the sparse path
    kw = {"group": "g", "label": "y", "scores": ["s", "c"], "metrics": METRICS}
    _tables_equal_the_full_sort(monkeypatch, df, kw, parts)


@pytest.mark.parametrize("dense", [True, False])
def test_group_counts_and_kept_runs_in_ranges_of_rows(dense):
    """count_groups in 1 to 5 ranges of rows gives np.unique's counts; kept_rows lays every run
    of kept groups out ascending, with exactly the rows of its groups (rows past one chunk), on
    three threads (the caller and two workers)."""
    from pandas_rankeval.core.skipping.group_count import count_groups, kept_rows, run_bounds
    from pandas_rankeval.core.ranking.numeric import CHUNK_ROWS
    from pandas_rankeval.core.threads import Workers

    rng = np.random.default_rng(11)
    n = 2 * CHUNK_ROWS + 123
    codes = rng.integers(0, 3000 if dense else 2**29, 3000)[rng.integers(0, 3000, n)].astype(np.int32)
    n_codes = 3000 if dense else 2**29
    rel = rng.random(n) < 0.1
    uniq, inv, n_ref = np.unique(codes, return_inverse=True, return_counts=True)
    npos_ref = np.bincount(inv[rel], minlength=uniq.shape[0])
    with Workers(3) as workers:
        for n_parts in (1, 2, 3, 5):
            c = count_groups(codes, n_codes, rel, workers, n_parts)
            assert c is not None and (c.place is None) == dense
            assert np.array_equal(c.code, uniq) and np.array_equal(c.n, n_ref) and np.array_equal(c.npos, npos_ref)
            kept = np.flatnonzero(c.npos > 0)
            bounds = run_bounds(c.n[kept], n_parts)
            rows, row_group, ends = kept_rows(c, codes, kept, bounds, workers)
            slot = np.full(uniq.shape[0], -1)
            slot[kept] = np.arange(kept.shape[0])
            for (lo, hi), start, end in zip(bounds, [0, *ends[:-1]], ends):
                want = np.flatnonzero((slot[inv] >= lo) & (slot[inv] < hi))
                assert np.array_equal(rows[start:end], want)
                assert np.array_equal(row_group[start:end], slot[inv][want])
            assert ends[-1] == rows.shape[0] == int(c.n[kept].sum())


def test_chunked_helpers_equal_numpy():
    from pandas_rankeval.core.ranking.numeric import CHUNK_ROWS, cumsum_into, flip_negative_floats, or_positions

    rng = np.random.default_rng(12)
    n = 2 * CHUNK_ROWS + 77
    flags = rng.random(n) < 0.5
    out = np.empty(n, dtype=np.int64)
    cumsum_into(flags, out)
    assert np.array_equal(out, np.cumsum(flags))
    key = rng.integers(0, 2**20, n) << 20
    want = key | np.arange(n)
    or_positions(key)
    assert np.array_equal(key, want)
    x = rng.normal(size=n)
    bits = x.view(np.int64).copy()
    flip_negative_floats(bits)
    assert np.array_equal(np.argsort(bits, kind="stable"), np.argsort(x, kind="stable"))


@pytest.mark.parametrize("options", [
    {}, {"weight": "count"}, {"weight": "clicks"}, {"min_pos": 2}, {"min_size": 4, "min_neg": 2},
    {"threshold": 2}, {"ci": 0.9, "n_boot": 50, "seed": 3},
])
def test_options_and_intervals_equal_the_full_sort(monkeypatch, options):
    df = _frame(1)
    label = "yg" if "threshold" in options else "y"
    kw = dict(group="g", label=label, scores=["s", "c"], metrics=["gauc", "mrr", "ndcg@3", "hit_rate@2"], **options)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fast, full = _both(monkeypatch, lambda: pre.report(df, **kw))
    assert np.array_equal(_numbers(fast), _numbers(full), equal_nan=True)


def test_compare_p_values_equal_the_full_sort(monkeypatch):
    df = _frame(2)
    kw = {"group": "g", "label": "y", "scores": ["s", "c"], "metrics": ["gauc", "mrr", "ndcg@3"], "n_boot": 100, "seed": 1}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fast, full = _both(monkeypatch, lambda: pre.compare(df, **kw))
    assert np.array_equal(_numbers(fast), _numbers(full), equal_nan=True)


def test_coverage_counts_stay_those_of_every_group(monkeypatch):
    df = _frame()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for fn in (pre.gauc, pre.ndcg):  # (MRR alone hashes its groups: tests/test_hashed_select.py)
            fast, full = _both(monkeypatch, lambda fn=fn: fn(df, group="g", label="y", score="s"))
            assert float(fast) == float(full)
            assert fast.coverage == full.coverage
    assert fast.coverage.n_groups == df["g"].nunique()


@pytest.mark.parametrize("k", [None, 1, 2, 3, 5])
def test_selected_mrr_and_hit_rate_equal_the_oracle_under_ties(k):
    """MRR and hit rate alone take the no-sort path: their expected values under ties are the
    brute-force mean over every ordering of the tied rows."""
    df = _frame()
    df = df[df["g"] < 100]  # the hand-made groups: small enough to enumerate
    groups = O.split_groups(df, "g")
    for metric, fn in (("mrr", pre.mrr), ("hit_rate", pre.hit_rate)):
        if metric == "hit_rate" and k is None:
            continue
        oracle_fn = O.list_metric_fn(metric, k=k)
        values = []
        for pos in groups.values():
            labels, scores = df["y"].iloc[pos].tolist(), df["s"].iloc[pos].tolist()
            values.append(0.0 if not any(labels) else O.tie_value(oracle_fn, labels, scores))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = fn(df, group="g", label="y", score="s", k=k) if k is not None else fn(df, group="g", label="y", score="s")
        assert math.isclose(float(got), sum(values) / len(values), rel_tol=0, abs_tol=1e-12)


@pytest.mark.parametrize("metrics", [["gauc", "ndcg", "map", "rbp@0.8", "recall@2"], ["gauc", "precision@2", "recall@2"]])
def test_ties_only_among_skipped_rows_keep_the_full_sort_arithmetic(monkeypatch, metrics):
    """The kept rows have no tie, but the column has: the values must still be those of a full
    sort (a group's arithmetic follows its own ties only)."""
    rng = np.random.default_rng(5)
    g = np.repeat(np.arange(300), 5)
    y = ((g % 2 == 0) & (np.arange(g.shape[0]) % 5 == 1)).astype(int)
    s = rng.random(g.shape[0])
    empty = np.flatnonzero(g % 2 == 1)
    s[empty[1::2]] = s[empty[::2]]
    df = pd.DataFrame({"g": g, "y": y, "s": s, "c": s[::-1].copy()})
    kw = {"group": "g", "label": "y", "scores": ["s"], "metrics": metrics}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fast, full = _both(monkeypatch, lambda: pre.per_group(df, **kw))
    assert np.array_equal(_numbers(fast), _numbers(full), equal_nan=True)


def test_no_group_counts():
    """No group can count (every row relevant: GAUC has no pair): the full path answers."""
    df = pd.DataFrame({"g": [1, 1, 2], "y": [1, 1, 1], "s": [0.1, 0.2, 0.3]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert math.isnan(pre.gauc(df, group="g", label="y", score="s"))


# ---------------------------------------------------------------- threads: one rule, any number
def test_threads_engine_option_and_rule_never_change_a_number():
    """engine_options={"threads": n} on pandas and polars frames: 1, 2 and 3 threads give the same
    numbers to the last bit (parts are whole groups); the default rule is 2 threads from 200,000
    rows in the main thread, 1 on a worker thread (Dask's threaded scheduler, a pool) or below
    that size; a bad value names the option."""
    import threading
    from concurrent.futures import ThreadPoolExecutor

    import polars as pl

    from pandas_rankeval.core.threads import THREADS_FROM_ROWS, limit_threads, threads_for

    rng = np.random.default_rng(3)
    n = THREADS_FROM_ROWS + 10_000
    df = pd.DataFrame({"u": rng.integers(0, 20_000, n), "y": (rng.random(n) < 0.1).astype(int),
                       "s": np.round(rng.random(n), 3), "t": rng.random(n)})
    kw = dict(group="u", label="y", scores=["s", "t"], metrics=["gauc", "mrr", "ndcg@10", "recall@5"])
    tables = [pre.report(df, engine_options={"threads": k}, **kw) for k in (1, 2, 3)]
    for t in tables[1:]:
        pd.testing.assert_frame_equal(pd.DataFrame(t), pd.DataFrame(tables[0]), check_exact=True)
    pd.testing.assert_frame_equal(pd.DataFrame(pre.report(df, **kw)), pd.DataFrame(tables[0]), check_exact=True)
    got = pre.report(pl.from_pandas(df), engine_options={"threads": 3}, **kw)
    pd.testing.assert_frame_equal(pd.DataFrame(got), pd.DataFrame(tables[0]), check_exact=True)

    assert threads_for(THREADS_FROM_ROWS - 1) == 1
    if threading.current_thread() is threading.main_thread() and (__import__("os").cpu_count() or 1) > 1:
        assert threads_for(THREADS_FROM_ROWS) == 2
    with ThreadPoolExecutor(1) as pool:  # a worker thread: the engine already runs one task per core
        assert pool.submit(threads_for, 10**8).result() == 1
    with limit_threads(4):
        assert threads_for(10) == 4
        with limit_threads(None):  # an engine's default option keeps the enclosing number
            assert threads_for(10) == 4
            with limit_threads(1):
                assert threads_for(10) == 1
        assert threads_for(10) == 4
        calls = []
        real = core_evaluate.evaluate_kept
        with pytest.MonkeyPatch.context() as m:
            m.setattr(core_evaluate, "evaluate_kept", lambda ev, names, ko, threads: calls.append(threads) or real(ev, names, ko, threads))
            pre.gauc(df.iloc[:5000], group="u", label="y", score="s")
        assert calls == [4]  # through the pandas engine, whose own option is unset
    with pytest.raises(ValueError, match=r"The 'threads' engine option of gauc must be an int in the range \[1, inf\).* Got 0 instead\."):
        pre.gauc(df, group="u", label="y", score="s", engine_options={"threads": 0})


def test_workers_are_the_caller_and_n_minus_one_threads():
    """Workers(n) runs a batch on the calling thread and n - 1 pool threads (the caller takes
    tasks too), results in the items' order; Workers(1) runs everything inline; a task's error
    is raised by map and the other threads take no new task; submit runs on a pool thread."""
    import threading
    import time

    from pandas_rankeval.core.threads import Workers, run_tasks

    caller = threading.get_ident()

    for n in (1, 2, 3):
        meet = threading.Barrier(n, timeout=30)

        def task(x: int) -> tuple[int, int]:
            if x < n:  # each thread waits here on its first task: the first n go to n threads
                meet.wait()
            return x * x, threading.get_ident()

        with Workers(n) as workers:
            out = workers.map(task, list(range(12)))
            assert [v for v, _ in out] == [x * x for x in range(12)]
            used = {t for _, t in out}
            assert caller in used and len(used) == n  # the caller and n - 1 others, no more
            started = workers.submit(threading.get_ident)
            assert (started is None) == (n == 1)
            if started is not None:
                assert started.result() != caller
    assert run_tasks(None, lambda x: x + 1, [1, 2]) == [2, 3]

    ran = []

    def fails(x: int) -> int:
        ran.append(x)
        if x == 0:
            raise KeyError("task 0")
        time.sleep(0.02)
        return x

    with Workers(2) as workers, pytest.raises(KeyError, match="task 0"):
        workers.map(fails, list(range(50)))
    assert len(ran) < 50  # stopped early, not every task run


LIST_ONLY = [["ndcg@3", "precision@3", "recall@2", "hit_rate@1", "mrr@2", "map@3"],
             ["ndcg@50", "precision@50", "hit_rate@3"], ["ndcg", "mrr", "map", "rbp@0.5", "precision@2"]]


@pytest.mark.parametrize("metrics", LIST_ONLY)
@pytest.mark.parametrize("options", [
    {"empty": "zero", "parts": 1}, {"empty": "skip", "parts": 3}, {"weight": "clicks", "parts": 1},
    {"label": "yg", "threshold": 2, "parts": 3}, {"label": "yg", "parts": 1},
])
def test_list_metrics_on_the_rows_that_count_equal_the_full_sort(monkeypatch, metrics, options):
    """List metrics alone rank only each group's rows down to its last relevant row (and one row of
    a group whose best relevant row is beyond every cutoff): the same numbers as a full sort, on a
    tie-free column, one with ties below the relevant rows only and one with ties everywhere
    (shuffled rows, cutoffs beyond the group, groups with no relevant row)."""
    df = _frame(3)
    low = df["c"].to_numpy().copy()
    below = (df["y"] == 0).to_numpy() & (low < 0.2)
    low[below] = np.round(low[below], 1) - 1.0  # ties, below every relevant row of the group
    df["low"] = low
    df["r2"] = np.round(df["c"], 2)  # ties everywhere: among and above the relevant rows too
    opts = dict(options)
    parts = opts.pop("parts")
    kw = {"group": "g", "label": opts.pop("label", "y"), "scores": ["c", "low", "r2"], "metrics": metrics, **opts}
    used = []
    real = kept.candidates

    def counted(*a, **k):
        out = real(*a, **k)
        used.append(out is not None)
        return out

    monkeypatch.setattr(kept, "candidates", counted)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fast, full = _both(monkeypatch, lambda: pre.per_group(df, **kw), parts)
    assert any(used), "no part was ranked on its rows that count"
    assert np.array_equal(_numbers(fast), _numbers(full), equal_nan=True)


@pytest.mark.parametrize("label", ["y", "yg"])
def test_a_groups_value_does_not_depend_on_ties_elsewhere(label):
    """NDCG, MAP and RBP of a group without a tied relevant (or gaining) row are its tie-free values
    to the last bit, whether the rest of the column has ties or not, on the full sort and on the
    rows that count: a group's number never depends on the other groups. Its tied rows below or
    among the non-relevant rows do not change that either."""
    df = _frame(4)
    metrics = ["ndcg", "ndcg@3", "map", "map@2", "rbp@0.7"]
    clean = df[df["g"] >= 100].drop_duplicates(["g", "c"]).copy()
    clean["s"] = clean["c"]  # no tie anywhere
    per = lambda frame: pre.per_group(frame, group="g", label=label, scores=["s"], metrics=metrics)  # noqa: E731
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        alone = per(clean)
        tied = clean.copy()
        extra = pd.DataFrame({"g": -1, "y": [1, 0, 1, 0], "yg": [2, 0, 1, 0], "s": 0.5, "c": 0.5})
        with_ties = per(pd.concat([tied, extra], ignore_index=True))  # one more group, all tied
        # the non-relevant rows above each group's relevant rows tied together, and those below:
        # no relevant row moves, none is tied
        moved = clean.copy()
        rel = moved[label] > 0
        top = moved["s"].where(rel).groupby(moved["g"]).transform("max")
        bottom = moved["s"].where(rel).groupby(moved["g"]).transform("min")
        moved.loc[~rel & (moved["s"] > top), "s"] = top + 1.0
        moved.loc[~rel & (moved["s"] < bottom), "s"] = bottom - 1.0
        assert moved.groupby("g")["s"].apply(lambda v: v.duplicated().any()).sum() > 10
        ties_among_others = per(moved)
    assert alone.index.equals(with_ties.drop(index=-1).index) and alone.index.equals(ties_among_others.index)
    columns = [f"s_{m}" for m in metrics]
    got = np.asarray(with_ties.drop(index=-1)[columns], dtype=np.float64)
    want = np.asarray(alone[columns], dtype=np.float64)
    assert np.array_equal(got, want) and np.array_equal(np.asarray(ties_among_others[columns], dtype=np.float64), want)
    assert (want > 0).sum() > 100 and (want < 1).sum() > 100  # real values, not only 0 and 1


def test_relevant_rows_by_group_counts_equal_the_binary_search():
    """A tie-free ranking finds the group of each relevant row from the per-group counts
    (np.repeat), no longer by a binary search in the groups' first rows: the same groups, offsets
    and order among the group's relevant rows (one-row groups, groups with no relevant row or all
    relevant, shuffled rows)."""
    from pandas_rankeval.core.ranking import tie_blocks as E

    rng = np.random.default_rng(8)
    n = 5000
    codes = rng.integers(0, 900, n)
    codes[:3] = [901, 902, 902]  # a one-row group, and a group of two
    level = (rng.random(n) < 0.2).astype(np.uint8)
    level[:3] = [1, 1, 1]  # ... all relevant
    order, rank = E.score_rank(rng.random(n))
    assert int(rank[0]) == n - 1  # no tie: blocks are rows
    rk = E.build_ranking(codes, 903, order, rank, level, 2, 1)
    assert rk.rel is not None and (rk.npos == 0).any()
    group, offset, nth = rk.relevant_rows()
    where = np.flatnonzero(rk.rel)
    g2, o2 = rk.sparse_rows(where)
    assert np.array_equal(group, g2) and np.array_equal(offset, o2)
    for g in (0, int(group[-1]), int(np.argmax(rk.npos))):  # the i-th relevant row of its group
        assert np.array_equal(nth[group == g], np.arange(int(rk.npos[g])))


def _blas_threads() -> list[int]:
    from threadpoolctl import threadpool_info

    return [int(lib["num_threads"]) for lib in threadpool_info() if lib["user_api"] == "blas"]


def test_blas_limit_is_held_until_the_last_block_leaves():
    """Each call limited BLAS to one thread and restored what it had found on the
    way out, so that one call lifted the limit while another still computed (its dot products of
    > 1e4 groups then split over BLAS threads: 5.6e-17 apart), and the last to leave could restore
    one thread for good. The limit is now held by a count: blocks that leave in any order keep it
    until the last one, which restores the limit found before the first."""
    import threading

    from threadpoolctl import threadpool_limits

    from pandas_rankeval.core.threads import one_blas_thread

    def on_a_thread(step) -> None:  # a call running on another thread (as in a pool)
        t = threading.Thread(target=step)
        t.start()
        t.join()

    outside = _blas_threads()
    with threadpool_limits(limits=2, user_api="blas"):  # this thread set the pool last
        before = _blas_threads()
        first, second = one_blas_thread(), one_blas_thread()
        on_a_thread(first.__enter__)  # threadpoolctl ignored a thread other than the last setter
        assert _blas_threads() == [1] * len(before)
        second.__enter__()
        on_a_thread(lambda: first.__exit__(None, None, None))  # the first call ends, the second computes
        assert _blas_threads() == [1] * len(before)
        second.__exit__(None, None, None)
        assert _blas_threads() == before
    assert _blas_threads() == outside  # and the caller's own block restores its own


def test_concurrent_reports_are_identical_to_the_bit():
    """Four threads running the same report(ci=0.95) at once, three rounds, give
    the serial call's table to the last bit (12,000 groups: the mean's dot product is one BLAS
    would split), and leave BLAS's thread count as they found it."""
    import threading

    rng = np.random.default_rng(16)
    n_groups = 12_000
    g = np.repeat(np.arange(n_groups), 3)
    df = pd.DataFrame({"u": g, "y": (rng.random(g.size) < 0.3).astype(int),
                       "s": rng.random(g.size), "t": np.round(rng.random(g.size), 2)})
    kw = dict(group="u", label="y", scores=["s", "t"], metrics=["auc", "gauc", "mrr", "ndcg@3"], ci=0.95,
              n_boot=100)
    before = _blas_threads()
    serial = pd.DataFrame(pre.report(df, **kw))
    for _ in range(3):
        out: list = [None] * 4
        start = threading.Barrier(4, timeout=60)

        def run(i: int) -> None:
            start.wait()
            out[i] = pd.DataFrame(pre.report(df, **kw))

        threads = [threading.Thread(target=run, args=(i,)) for i in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        for got in out:
            pd.testing.assert_frame_equal(got, serial, check_exact=True)
    assert _blas_threads() == before
