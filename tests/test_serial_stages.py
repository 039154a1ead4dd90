"""The stages of a call that ran on one thread, now on the call's threads or skipped: the group
keys' encoding (integer keys: their bounds and codes range by range), the merge of the group
count's ranges, and the check for missing values (no mask when a float column's minimum is not
NaN). Each must give what one thread / the mask gives, exactly."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import pandas_rankeval as pre
from pandas_rankeval.core.inputs.prepare import encode_groups
from pandas_rankeval.core.skipping.group_count import count_groups
from pandas_rankeval.core.threads import Workers


@pytest.mark.parametrize("kind", ["dense", "sparse", "negative", "int8", "uint64-top"])
def test_integer_keys_encoded_on_threads_equal_one_thread(kind):
    rng = np.random.default_rng(3)
    n = 5_001
    keys = {
        "dense": rng.integers(0, 300, n),
        "sparse": rng.choice(10**12, 400, replace=False)[rng.integers(0, 400, n)],
        "negative": rng.integers(-(10**9), 10**9, n),
        "int8": rng.integers(-128, 128, n).astype(np.int8),
        "uint64-top": (np.uint64(2**64 - 1) - rng.integers(0, 10**6, n).astype(np.uint64)),
    }[kind]
    df = pd.DataFrame({"g": keys})
    one = encode_groups(df, ["g"])
    for threads in (2, 3):
        with Workers(threads) as workers:
            many = encode_groups(df, ["g"], workers)
        assert many.n_codes == one.n_codes
        assert many.codes.dtype == one.codes.dtype
        np.testing.assert_array_equal(many.codes, one.codes)
        # the codes decode to the keys themselves
        np.testing.assert_array_equal(np.asarray(many.decode(many.codes)), keys)


@pytest.mark.parametrize("parts", [2, 3, 5])
def test_group_count_of_code_ranges_equals_numpy(parts):
    rng = np.random.default_rng(parts)
    n = 20_000
    codes = rng.choice(10**9, 3_000, replace=False)[rng.integers(0, 3_000, n)].astype(np.int64)
    rel = rng.random(n) < 0.1
    with Workers(2) as workers:
        counts = count_groups(codes, 10**9, rel, workers, parts)
    assert counts is not None and counts.place is not None
    code, n_of = np.unique(codes, return_counts=True)  # the oracle: numpy's unique and bincount
    np.testing.assert_array_equal(counts.code, code)
    np.testing.assert_array_equal(counts.n, n_of)
    np.testing.assert_array_equal(counts.npos, np.bincount(np.searchsorted(code, codes[rel]), minlength=code.shape[0]))
    assert len(counts.place) == parts  # the sample's quantiles: distinct cuts for 3,000 keys
    seen = []
    for r in counts.place:  # each range's groups follow the previous range's, its rows group after group
        k = r.n.shape[0]
        np.testing.assert_array_equal(r.n, counts.n[r.first : r.first + k])
        np.testing.assert_array_equal(r.npos, counts.npos[r.first : r.first + k])
        np.testing.assert_array_equal(codes[r.rows], np.repeat(counts.code[r.first : r.first + k], r.n))
        # within a group: the other rows, then the relevant rows, each ascending
        order = np.lexsort((r.rows, rel[r.rows], codes[r.rows]))
        np.testing.assert_array_equal(r.rows, r.rows[order])
        seen.append(r.rows)
    assert sum(r.n.shape[0] for r in counts.place) == counts.code.shape[0]
    np.testing.assert_array_equal(np.sort(np.concatenate(seen)), np.arange(n))  # every row once


@pytest.mark.parametrize("where", [0, 7, -1])
def test_a_missing_score_anywhere_is_found(where):
    df = pd.DataFrame({"g": [1, 1, 2, 2, 3, 3, 4, 4], "y": [1, 0, 0, 1, 1, 0, 1, 0],
                       "s": [0.9, 0.1, 0.2, 0.8, 0.7, 0.3, 0.6, 0.5]})
    df.loc[df.index[where], "s"] = np.nan
    with pytest.raises(ValueError, match="'s'"):
        pre.mrr(df, group="g", label="y", score="s")
    kept = df.dropna()
    assert pre.mrr(df, group="g", label="y", score="s", nan_policy="omit") == pre.mrr(kept, group="g", label="y",
                                                                                        score="s")


def test_one_segment_counts_equal_the_masked_sums():
    from pandas_rankeval.summary.partition import _BySegment

    rng = np.random.default_rng(5)
    mask = rng.random(10_000) < 0.3
    ints = rng.integers(0, 2**40, 10_000)
    seg = _BySegment(np.zeros(10_000, dtype=np.int64), 1)
    assert seg.count(mask).tolist() == [sum(bool(m) for m in mask)]
    assert seg.count(mask, ints).tolist() == [sum(int(v) for v, m in zip(ints, mask) if m)]  # exact beyond 2**53
    assert seg.count(mask, mask.astype(np.uint8)).tolist() == [int(mask.sum())]
    assert seg.count(np.zeros(0, dtype=bool), np.zeros(0, dtype=np.int64)).tolist() == [0]


@pytest.mark.parametrize("where", [0, 1_234, 2_999])
def test_missing_scores_and_labels_found_in_any_range_of_rows(where):
    """The check for missing scores and the relevance of the labels run over ranges of rows on
    the call's threads: a NaN in any range is found, and the relevance equals one pass's."""
    from pandas_rankeval.core.inputs.prepare import label_levels
    from pandas_rankeval.core.threads import limit_threads

    rng = np.random.default_rng(where)
    df = pd.DataFrame({"g": rng.integers(0, 300, 3_000), "y": rng.integers(0, 3, 3_000), "s": rng.random(3_000)})
    df.loc[where, "s"] = np.nan
    with limit_threads(3):
        with pytest.raises(ValueError, match="'s'"):
            pre.mrr(df, group="g", label="y", score="s")
        grades, scores = df["y"].to_numpy(), df["s"].fillna(0).to_numpy()
        for y, threshold in ((grades, None), (grades, 2.0), (scores, None), (scores, 0.5)):
            got = label_levels(y, threshold, False).rel
            want = (y > 0) if threshold is None else (y >= threshold)
            np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("keys", ["one key", "two far keys", "one key holds 95%", "all distinct"])
@pytest.mark.parametrize("parts", [2, 5])
def test_code_ranges_of_skewed_keys_equal_one_sort(keys, parts):
    """Keys whose sample quantiles coincide (one key, most rows on one key) cut into fewer ranges,
    never an empty or overlapping one: the counts and the first blocks equal one thread's."""
    from pandas_rankeval.core.skipping.first_block import first_block_groups, select_first_blocks

    rng = np.random.default_rng(len(keys) + parts)
    n = 4_000
    codes = {
        "one key": np.full(n, 123_456_789),
        "two far keys": rng.choice(np.array([0, 2**40 - 1]), n),
        "one key holds 95%": np.where(rng.random(n) < 0.95, 7, rng.integers(0, 2**40, n)),
        "all distinct": rng.choice(2**40, n, replace=False),
    }[keys].astype(np.int64)
    rel = rng.random(n) < 0.2
    score = np.round(rng.random(n), 1)
    with Workers(3) as workers:
        counts = count_groups(codes, 2**40, rel, workers, parts)
        groups = first_block_groups(codes, 2**40, rel, workers, parts)
        selection = select_first_blocks(score, groups, workers)
    one = count_groups(codes, 2**40, rel)
    assert counts is not None and one is not None and counts.place is not None
    np.testing.assert_array_equal(counts.code, one.code)
    np.testing.assert_array_equal(counts.n, one.n)
    np.testing.assert_array_equal(counts.npos, one.npos)
    assert 1 <= len(counts.place) <= parts and all(r.rows.shape[0] for r in counts.place)
    alone = select_first_blocks(score, first_block_groups(codes, 2**40, rel))
    for k in ("m", "t", "p"):
        np.testing.assert_array_equal(getattr(selection, k), getattr(alone, k))
