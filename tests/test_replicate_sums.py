"""The hashed replicate sums against their one-line reference.

``summary/replicate_sums._hashed_sums`` leaves out the groups every column is 0 in, multiplies the
groups nonzero in the dense columns only by those alone, multiplies a repeated column once, takes
the groups in chunks (matrix products for segments of many groups, one ``np.add.reduceat`` for
many small segments) and adds the chunks in two shares, on threads. Whatever it does, per segment
its sums must be ``poisson_weights(groups).T @ columns`` and ``flip_bits(groups).T @ wd_cols``,
computed here directly over every group of the segment.
"""

from __future__ import annotations

import numpy as np
import pytest

from pandas_rankeval import summary as S
from pandas_rankeval.core.reference import reference_paths
from pandas_rankeval.core.threads import limit_threads
from pandas_rankeval.inference.hashing import flip_bits, poisson_weights
from pandas_rankeval.summary import replicate_sums as R

#: Replicates: 2**20 / 1500 = 699 groups a chunk of a big segment, fewer for the small segments.
N_BOOT = 1500


def _plan(n_boot: int = N_BOOT, seed: int = 7):
    return S.make_plan("report", kind="report", group="g", label="y", scores=["a"], metrics=["gauc"],
                       ci=0.9, n_boot=n_boot, seed=seed)


def _inputs(seg_sizes: list[int], seed: int = 0):
    """Per group: its key hash, its segment, replicate columns (one dense, two sparse, one repeated,
    one zero almost everywhere) and two flip columns (sparse)."""
    rng = np.random.default_rng(seed)
    seg_index = np.repeat(np.arange(len(seg_sizes)), seg_sizes)
    rng.shuffle(seg_index)  # segments interleaved, as the groups arrive
    n = seg_index.shape[0]
    key_hashes = rng.integers(0, 2**63, n, dtype=np.int64).astype(np.uint64) * np.uint64(2) + np.uint64(1)
    counting = rng.random(n) < 0.3  # a relevant row: every column may be nonzero
    weights = np.where(rng.random(n) < 0.9, rng.choice([1.0, 2.0, 5.0], n), 0.0)  # nonzero in most groups
    value = np.where(counting, rng.random(n), 0.0)
    other = np.where(counting & (rng.random(n) < 0.5), rng.random(n), 0.0)
    rare = np.where(rng.random(n) < 0.01, 1.0, 0.0)
    columns = [weights, value * weights, other, value * weights, rare]  # the 4th repeats the 2nd
    wd_cols = [np.where(counting, rng.normal(size=n), 0.0), np.where(counting, rng.normal(size=n), 0.0)]
    return key_hashes, seg_index, columns, wd_cols


def _dense(plan, key_hashes, seg_index, n_seg, columns, wd_cols):
    boot = np.zeros((n_seg, plan.n_boot, len(columns)))
    reps = np.zeros((n_seg, plan.n_boot, len(wd_cols)))
    for s in range(n_seg):
        mine = seg_index == s
        x = np.column_stack([c[mine] for c in columns])
        boot[s] = poisson_weights(key_hashes[mine], plan.seed, plan.n_boot).T @ x
        reps[s] = flip_bits(key_hashes[mine], plan.seed, plan.n_boot).T @ np.column_stack([c[mine] for c in wd_cols])
    return boot, reps


SEGMENTS = {
    "one segment, several chunks": [2000],
    "one segment, one chunk": [300],
    "big segments (>= 64 groups)": [1600, 64, 90],
    "many small segments": [1 + k % 9 for k in range(120)],
    "big and small together": [1500, 70, *[1 + k % 5 for k in range(60)]],
}


@pytest.mark.parametrize("sizes", list(SEGMENTS.values()), ids=list(SEGMENTS))
@pytest.mark.parametrize("threads", [1, 2])
def test_hashed_sums_equal_the_dense_product(sizes, threads):
    plan = _plan()
    key_hashes, seg_index, columns, wd_cols = _inputs(sizes)
    n_seg = len(sizes)
    with limit_threads(threads):
        boot, where, reps = R._hashed_sums(plan, key_hashes, seg_index, n_seg, columns, wd_cols, len(wd_cols))
    want_boot, want_reps = _dense(plan, key_hashes, seg_index, n_seg, columns, wd_cols)
    assert where.tolist() == [0, 1, 2, 1, 3]  # the repeated column multiplied once
    assert boot.shape == (n_seg, N_BOOT, 4)
    scale = np.abs(want_boot).max()
    np.testing.assert_allclose(boot[:, :, where], want_boot, rtol=0, atol=1e-12 * scale)
    np.testing.assert_allclose(reps, want_reps, rtol=0, atol=1e-12 * np.abs(want_reps).max())
    # the reference the switch uses is that product too
    ref_boot, ref_where, ref_reps = R.dense_sums(plan, key_hashes, seg_index, n_seg, columns, wd_cols, len(wd_cols))
    np.testing.assert_allclose(ref_boot[:, :, ref_where], want_boot, rtol=0, atol=1e-12 * scale)
    np.testing.assert_allclose(ref_reps, want_reps, rtol=0, atol=1e-12 * np.abs(want_reps).max())


def test_the_fixtures_reach_every_branch():
    """The inputs above take each trick: groups left out, light groups split off (a dense column,
    a quarter of the groups light at least), several chunks of a big segment (699 groups each)."""
    key_hashes, _, columns, wd_cols = _inputs(SEGMENTS["one segment, several chunks"])
    n = key_hashes.shape[0]
    nonzero = np.column_stack(columns + wd_cols) != 0
    assert 0 < (~nonzero.any(axis=1)).sum() < n  # groups every column is 0 in
    dense = [k for k, c in enumerate(columns) if 2 * np.count_nonzero(c) > n]
    assert dense == [0]
    light = ~np.column_stack([c for k, c in enumerate(columns + wd_cols) if k not in dense]).any(axis=1)
    assert light.sum() >= n / 4
    assert n > 2 * ((1 << 20) // N_BOOT)


def test_no_flip_column_and_no_replicate_column():
    plan = _plan(n_boot=50)
    key_hashes, seg_index, columns, _ = _inputs([120, 3, 4])
    boot, where, reps = R._hashed_sums(plan, key_hashes, seg_index, 3, columns[:1], [], 0)
    want, _ = _dense(plan, key_hashes, seg_index, 3, columns[:1], [np.zeros_like(columns[0])])
    assert reps is None and where.tolist() == [0]
    np.testing.assert_allclose(boot, want, rtol=0, atol=1e-12 * np.abs(want).max())


def test_the_switch_takes_the_dense_sums(monkeypatch):
    """Under the reference switch the bootstrap of a report reads ``dense_sums`` (the same interval
    to rounding is checked in tests/test_reference_parity.py)."""
    import pandas_rankeval as pre

    df = pre.datasets.make_impressions(n_users=80, seed=2)
    calls = []
    real = R.dense_sums
    monkeypatch.setattr(R, "dense_sums", lambda *a: calls.append(1) or real(*a))
    kw = {"group": "user_id", "label": "click", "scores": ["model_a"], "metrics": ["gauc"], "ci": 0.9, "n_boot": 20}
    pre.report(df, **kw)
    assert not calls
    with reference_paths():
        pre.report(df, **kw)
    assert calls
