"""``by=`` with many segments on Dask, and the replicate results per segment.

Two ways a Dask call with ``by=`` and intervals runs, both equal to pandas to 1e-12:

- **segment mode** (clustered DeLong for global AUC, many segments, none larger than an average
  partition): the rows are shuffled by segment, every partition is a pandas table of whole
  segments; no score, placement or group pass;
- **group mode with shards** (few or large segments, or no global AUC): the rows are shuffled by
  group, every partition's summary is cut into shards of segments, and each shard's replicate
  sums are reduced to intervals and p-values on the worker.

Which one ran is read from the driver's and the engine's functions (wrapped to count their calls) on the
synchronous scheduler, so a test cannot pass on the other path by accident.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd
import pytest

import pandas_rankeval as pre
from pandas_rankeval import summary as S
from pandas_rankeval.summary.summary import shard_of
from pandas_rankeval.summary.replicates import RESULT_FIELDS, reduce_replicates, replicate_results
from pandas_rankeval.tables import finalize

dd = pytest.importorskip("dask.dataframe")
import dask  # noqa: E402

from pandas_rankeval.engines.dask import groups  # noqa: E402
from pandas_rankeval.summary import driver  # noqa: E402

TOL = dict(check_exact=False, atol=1e-12, rtol=0)


@pytest.fixture(autouse=True)
def _synchronous():
    with dask.config.set({"scheduler": "synchronous", "dataframe.shuffle.method": "tasks"}):
        yield


@pytest.fixture
def calls(monkeypatch):
    """How often each path ran: ``segment`` (segment mode gave the result), ``sharded``."""
    seen = {"segment": 0, "sharded": 0}
    seg_pass, shard_pass = driver.segment_pass, groups.sharded

    def segment_pass(*a, **k):
        out = seg_pass(*a, **k)
        seen["segment"] += out is not None
        return out

    def sharded(*a, **k):
        seen["sharded"] += 1
        return shard_pass(*a, **k)

    monkeypatch.setattr(driver, "segment_pass", segment_pass)
    monkeypatch.setattr(groups, "sharded", sharded)
    return seen


def frame(n_segments: int, seed: int = 0, n_users: int = 400) -> pd.DataFrame:
    """Users of 1 to 9 rows, each in one segment; tied scores (b); graded labels; a user with one
    row; users with one class only; rows shuffled (users straddle partitions)."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 10, n_users)
    users = np.repeat(rng.permutation(n_users) * 3 + 1, sizes)
    n = users.shape[0]
    df = pd.DataFrame({
        "user": users,
        "seg": (users * 7919) % n_segments,
        "rel": rng.integers(0, 3, n) * (rng.random(n) < 0.4),
        "a": rng.random(n),
        "b": np.round(rng.random(n), 1),
        "c": rng.normal(size=n),
    })
    return df.sample(frac=1.0, random_state=seed).reset_index(drop=True)


def quiet(fn, *args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pre.CoverageWarning)
        return fn(*args, **kw)


def assert_same(got, want) -> None:
    got, want = pd.DataFrame(got), pd.DataFrame(want)
    assert list(got.columns) == list(want.columns)
    pd.testing.assert_frame_equal(got, want, **TOL)
    for key in ("ci", "test", "ci_method", "multiple_testing", "coverage", "percentile_fallback"):
        assert got.attrs.get(key) == want.attrs.get(key), key


KW = dict(group="user", label="rel", n_boot=200, seed=11)
CASES = [
    ("report", dict(scores=["a", "b", "c"], ci=0.9)),
    ("report", dict(scores=["a", "b"], ci=0.95, ci_method="studentized", metrics=["auc", "gauc", "mrr", "ndcg@5"])),
    ("compare", dict(scores=["a", "b", "c"])),
    ("compare", dict(scores=["a", "b"], baseline="a", method="randomization", metrics=["auc", "gauc", "map"])),
    ("compare", dict(scores=["a", "b"], baseline="b", method="bootstrap", ci_method="studentized",
                     metrics=["auc", "gauc", "precision@3"])),
]


@pytest.mark.parametrize("npartitions", [1, 3, 8])
@pytest.mark.parametrize("func,kw", CASES, ids=[f"{f}-{i}" for i, (f, _) in enumerate(CASES)])
def test_many_segments_run_in_segment_mode_and_equal_pandas(calls, func, kw, npartitions):
    df = frame(60, seed=npartitions)
    want = quiet(getattr(pre, func), df, by="seg", **KW, **kw)
    got = quiet(getattr(pre, func), dd.from_pandas(df, npartitions=npartitions, sort=False), by="seg", **KW, **kw)
    assert_same(got, want)
    assert calls == {"segment": 1, "sharded": 0}


@pytest.mark.parametrize("func,kw", CASES, ids=[f"{f}-{i}" for i, (f, _) in enumerate(CASES)])
def test_few_segments_run_in_group_mode_with_shards_and_equal_pandas(calls, func, kw):
    """3 segments over 4 partitions: too few for whole-segment partitions to balance."""
    df = frame(3, seed=5)
    want = quiet(getattr(pre, func), df, by="seg", **KW, **kw)
    got = quiet(getattr(pre, func), dd.from_pandas(df, npartitions=4, sort=False), by="seg", **KW, **kw)
    assert_same(got, want)
    assert calls == {"segment": 0, "sharded": 1}


def test_a_segment_larger_than_a_partition_runs_in_group_mode(calls):
    df = frame(60, seed=3)
    df.loc[df.index[: len(df) // 2], "seg"] = -1  # half the rows in one segment (whole users stay whole below)
    df["seg"] = df.groupby("user")["seg"].transform("min")
    kw = dict(scores=["a", "b"], ci=0.9, by="seg", **KW)
    assert_same(quiet(pre.report, dd.from_pandas(df, npartitions=4, sort=False), **kw), quiet(pre.report, df, **kw))
    assert calls == {"segment": 0, "sharded": 1}


def test_without_global_auc_the_group_mode_reduces_in_shards(calls):
    """No clustered DeLong (no 'auc'): no count pass to size the segments; shards, many segments or not."""
    df = frame(60, seed=4)
    kw = dict(scores=["a", "b"], ci=0.9, by="seg", metrics=["gauc", "ndcg@5"], **KW)
    assert_same(quiet(pre.report, dd.from_pandas(df, npartitions=5, sort=False), **kw), quiet(pre.report, df, **kw))
    assert calls == {"segment": 0, "sharded": 1}


def test_ties_across_partitions_in_segment_mode(calls):
    """Every segment's rows sorted by a heavily tied score and cut into partitions before the shuffle."""
    df = frame(40, seed=9)
    df["t"] = np.where(df["a"] < 0.5, 0.5, np.round(df["a"], 1))
    ordered = df.sort_values("t", kind="stable").reset_index(drop=True)
    kw = dict(scores=["t", "b"], ci=0.9, by="seg", metrics=["auc", "gauc", "mrr"], **KW)
    for ties in ("expected",):
        got = quiet(pre.report, dd.from_pandas(ordered, npartitions=6, sort=False), ties=ties, **kw)
        assert_same(got, quiet(pre.report, df, ties=ties, **kw))
    assert calls["segment"] == 1


def test_segment_keys_equal_as_values_are_one_segment(calls):
    """Object keys 1, 1.0 and True are one segment for pandas, wherever their rows are."""
    df = frame(40, seed=12)
    seg = df["seg"].astype(object)
    one = (seg == 1).to_numpy()
    kind = pd.factorize(df["user"])[0] % 3  # per user: the key's type is constant within a user
    seg[one] = np.array([1, 1.0, True], dtype=object)[kind[one]]
    df["seg"] = seg
    assert {type(v) for v in df.loc[one, "seg"]} == {int, float, bool}
    kw = dict(scores=["a", "b"], ci=0.9, by="seg", **KW)
    want = quiet(pre.report, df, **kw)
    with dask.config.set({"dataframe.convert-string": False}):  # else Dask makes the keys text
        got = quiet(pre.report, dd.from_pandas(df, npartitions=4, sort=False), **kw)
    assert_same(got, want)
    assert calls["segment"] == 1


def test_missing_segment_keys_in_segment_mode(calls):
    df = frame(40, seed=13)
    df["seg"] = df["seg"].astype(float)
    df.loc[df.index[::17], "seg"] = np.nan  # some rows of some users
    kw = dict(scores=["a", "b"], ci=0.9, by="seg", **KW)
    want = quiet(pre.report, df, nan_policy="omit", **kw)
    got = quiet(pre.report, dd.from_pandas(df, npartitions=4, sort=False), nan_policy="omit", **kw)
    assert_same(got, want)
    assert calls["segment"] == 1
    with pytest.raises(ValueError) as want_err:
        pre.report(df, **kw)
    with pytest.raises(ValueError) as got_err:
        pre.report(dd.from_pandas(df, npartitions=4, sort=False), **kw)
    assert str(got_err.value) == str(want_err.value)


@pytest.mark.parametrize("npartitions", [1, 4])
def test_a_by_that_varies_within_groups_raises_pandas_error(calls, npartitions):
    """Segment mode cannot see a group cut between two partitions by its segments: it flags a
    group key found in two partitions, and the group pass raises pandas' message and counts."""
    df = frame(40, seed=14)
    varied = df["user"].isin(df["user"].unique()[:5]) & (np.arange(len(df)) % 2 == 0)
    df.loc[varied, "seg"] = (df.loc[varied, "seg"] + 1) % 40
    kw = dict(scores=["a", "b"], ci=0.9, by="seg", **KW)
    with pytest.raises(ValueError) as want:
        pre.report(df, **kw)
    assert re.search(r"\b[2-5] of \d+ groups", str(want.value)), str(want.value)
    with pytest.raises(ValueError) as got:
        pre.report(dd.from_pandas(df, npartitions=npartitions, sort=False), **kw)
    assert str(got.value) == str(want.value)
    assert calls["segment"] == 0


# --------------------------------------------------------------------------- #
# The summary layer: shards, reduced replicate sums
# --------------------------------------------------------------------------- #
def _finalized(monkeypatch, func: str, **kw):
    """The pandas call's summed summary, plan and extras, as the dispatcher hands them to finalize."""
    import pandas_rankeval.api.dispatch as dispatch

    seen: dict = {}
    real = dispatch.finalize

    def spy(summary, plan, **extras):
        seen.update(summary=summary, plan=plan, extras=extras)
        return real(summary, plan, **extras)

    monkeypatch.setattr(dispatch, "finalize", spy)
    quiet(getattr(pre, func), frame(30, seed=21), group="user", label="rel", by="seg", n_boot=100, seed=2, **kw)
    return seen["summary"], seen["plan"], seen["extras"]


@pytest.mark.parametrize(
    "func,kw",
    [
        ("report", dict(scores=["a", "b"], ci=0.9, metrics=["gauc", "mrr"])),
        ("report", dict(scores=["a", "b"], ci=0.9, ci_method="studentized", metrics=["gauc", "ndcg@5"])),
        ("compare", dict(scores=["a", "b", "c"], method="randomization", metrics=["gauc", "map"])),
        ("compare", dict(scores=["a", "b"], baseline="a", ci_method="studentized", metrics=["gauc", "mrr"])),
    ],
)
def test_reduced_summary_gives_the_same_table(monkeypatch, func, kw):
    """The table from a summary whose replicate sums were reduced where the segments are whole
    equals the table from the replicate sums themselves (the pandas path)."""
    summary, plan, extras = _finalized(monkeypatch, func, **kw)
    reduced = reduce_replicates(summary, plan)
    assert all(reduced.data[f] is None for f in ("boot", "flip_reps", "boot_gram"))
    assert reduced.data["rep_lo"].shape == (len(summary.keys), len(plan.items) if func == "report" else len(plan.flip_pairs))
    want = quiet(finalize, summary, plan, **extras)
    got = quiet(finalize, reduced, plan, **extras)
    assert_same(got, want)
    assert replicate_results(reduced, plan)["rep_lo"] is reduced.data["rep_lo"]


def test_split_parts_add_up_and_reduced_parts_refuse_to_overlap(monkeypatch):
    summary, plan, _ = _finalized(monkeypatch, "report", scores=["a", "b"], ci=0.9, metrics=["gauc", "mrr"])
    parts = summary.split(4)
    assert sorted(k for p in parts for k in p.keys) == sorted(summary.keys)
    assert sum(p.n_rows for p in parts) == summary.n_rows and parts[0].n_rows == summary.n_rows
    again = S.Summary.sum(parts)
    order = [again.index[k] for k in summary.keys]
    for name, v in summary.data.items():
        if v is not None:
            np.testing.assert_array_equal(again.data[name][order], v)
    # every process cuts a segment into the same part: a stable hash of its value
    np.testing.assert_array_equal(shard_of(list(summary.keys), 4), shard_of([(float(k[0]),) for k in summary.keys], 4))
    reduced = [reduce_replicates(p, plan) for p in parts]
    assert set(RESULT_FIELDS) <= set(reduced[0].data)
    S.Summary.sum(reduced)  # disjoint segments: a concatenation
    with pytest.raises(ValueError, match="cannot be added to another part of the same segment"):
        S.Summary.sum([reduced[0], reduced[0]])


@pytest.mark.parametrize("func", ["report", "compare"])
def test_both_modes_on_a_local_cluster(calls, on_dask_cluster, func):
    """Worker processes: the summaries, extras and key hashes travel between processes."""
    kw = dict(scores=["a", "b"], **KW) | (dict(ci=0.9) if func == "report" else {})
    for n_segments, mode in ((60, "segment"), (3, "sharded")):
        df = frame(n_segments, seed=30 + n_segments)
        got = quiet(getattr(pre, func), dd.from_pandas(df, npartitions=4, sort=False), by="seg", **kw)
        assert_same(got, quiet(getattr(pre, func), df, by="seg", **kw))
        assert calls[mode] == 1


@pytest.mark.parametrize(
    "func,kw",
    [
        ("report", dict(scores=["a", "b"], ci=0.9, ci_method="studentized", metrics=["gauc", "ndcg@5"])),
        ("compare", dict(scores=["a", "b", "c"], method="randomization", metrics=["gauc", "map"])),
    ],
)
def test_replicate_results_in_chunks_of_segments_equal_all_at_once(monkeypatch, func, kw):
    """Chunks of segments change the memory, never a number: 3 segments at a time equal all at once."""
    import pandas_rankeval.summary.replicates as R

    summary, plan, _ = _finalized(monkeypatch, func, **kw)
    whole = R.replicate_results(summary, plan)
    n_boot, n_items = summary.data["boot"].shape[1:3]
    monkeypatch.setattr(R, "RESULT_CHUNK_ROWS", 3 * n_boot * n_items)
    chunked = R.replicate_results(summary, plan)
    assert len(summary.keys) > 6
    for f in RESULT_FIELDS:
        if whole[f] is None:
            assert chunked[f] is None
        else:
            np.testing.assert_array_equal(chunked[f], whole[f])
