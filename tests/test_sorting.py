"""``core.sorting.sort_order``: one int64 sort by value in place of an argsort.

Oracle: a stable ``np.argsort``. On float64 / float32 / int64 / uint64 scores with exact ties,
-0.0 and 0.0, +-inf, values that share their high bits and huge integers, the order sorts the
scores, ``new`` marks exactly the changes of value, and rows of one value are a permutation of
the stable order's rows; NaN falls back (None). ``int_sort.pack_and_sort``, the one pack-and-sort of
every packed key: the stable argsort of the fields, whatever the position's dtype.
"""

from __future__ import annotations

import numpy as np
import pytest

from pandas_rankeval.core.ranking.sorting import sort_order


def _cases():
    rng = np.random.default_rng(12)
    n = 5_000
    yield np.round(rng.random(n), 3)  # masses of ties
    yield rng.random(n)  # continuous
    yield np.concatenate([[-0.0, 0.0, np.inf, -np.inf], rng.normal(size=n)])
    yield 1.0 + rng.integers(0, 50, n) * np.finfo(float).eps  # share every high bit
    yield rng.random(n).astype(np.float32)
    yield rng.integers(-(2**62), 2**62, n, dtype=np.int64)
    yield (2**63 + rng.integers(0, 9, n, dtype=np.uint64)).astype(np.uint64)
    yield rng.integers(0, 3, n, dtype=np.int64)
    yield np.zeros(0)
    yield np.array([7.0])


@pytest.mark.parametrize("positions", [np.int64, np.int32, np.uint32])
@pytest.mark.parametrize("shifted", [False, True])
def test_pack_and_sort_is_a_stable_argsort_of_the_fields(positions, shifted):
    """The positions are the stable argsort of the fields (rows of equal fields in ascending
    position), the key is left holding the sorted fields; with ``shifted`` the caller packed the
    fields above the position bits itself."""
    from pandas_rankeval.core.ranking.int_sort import pack_and_sort

    rng = np.random.default_rng(5)
    for n, top in ((0, 1), (1, 1), (2_000, 3), (70_000, 1 << 40)):  # ties, none, one chunk and several
        fields = rng.integers(0, top, n, dtype=np.int64)
        ibits = max((n - 1).bit_length(), 1)
        key = fields << ibits if shifted else fields.copy()
        got = pack_and_sort(key, ibits, positions=positions, shifted=shifted)
        want = np.argsort(fields, kind="stable")
        assert got.dtype == positions
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(key, fields[want])


@pytest.mark.parametrize("how", ["rows", "packed", "out"])
def test_pack_and_sort_of_some_rows_is_their_stable_argsort(how):
    """Positions that are not ``0 .. n - 1`` (a range of codes' rows among all rows), ORed in by the
    call (``rows``) or by the caller (``packed``), or written into the caller's array (``out``):
    the sorted rows are those of a stable argsort of the fields, their positions those rows'."""
    from pandas_rankeval.core.ranking.int_sort import pack_and_sort

    rng = np.random.default_rng(8)
    n_all = 90_000
    rows = np.sort(rng.choice(n_all, 40_000, replace=False)).astype(np.int64)
    fields = rng.integers(0, 50, rows.shape[0], dtype=np.int64)
    ibits = (n_all - 1).bit_length()
    key = fields << ibits
    out = np.full(rows.shape[0], -1, dtype=np.int32) if how == "out" else None
    if how == "packed":
        key |= rows
        got = pack_and_sort(key, ibits, positions=np.int32, packed=True)
    else:
        got = pack_and_sort(key, ibits, positions=np.int32, shifted=True, rows=rows, out=out)
    want = np.argsort(fields, kind="stable")
    np.testing.assert_array_equal(got, rows[want])
    np.testing.assert_array_equal(key, fields[want])
    if out is not None:
        assert got is out


def test_run_helpers_equal_np_repeat():
    """``run_of_rows`` and ``rows_of_runs`` (no GIL held) equal their ``np.repeat`` references, on
    runs of every size from 1, kept or not, adjacent kept runs included."""
    from pandas_rankeval.core.ranking.numeric import rows_of_runs, run_of_rows

    rng = np.random.default_rng(9)
    for k in (0, 1, 2, 7, 500):
        sizes = rng.integers(1, 6, k)
        np.testing.assert_array_equal(run_of_rows(sizes), np.repeat(np.arange(k), sizes))
        np.testing.assert_array_equal(run_of_rows(sizes, np.int32), np.repeat(np.arange(k), sizes))
        for keep in (rng.random(k) < 0.5, np.ones(k, dtype=bool), np.zeros(k, dtype=bool)):
            np.testing.assert_array_equal(rows_of_runs(sizes, keep), np.repeat(keep, sizes))


def test_over_ranges_covers_the_rows_once_on_the_threads():
    from pandas_rankeval.core.threads import limit_threads, over_ranges

    seen = []
    with limit_threads(3):
        parts = over_ranges(lambda lo, hi: (lo, hi), 1_000)
    assert len(parts) == 3 and parts[0][0] == 0 and parts[-1][1] == 1_000
    assert all(a[1] == b[0] for a, b in zip(parts, parts[1:]))
    with limit_threads(1):
        assert over_ranges(lambda lo, hi: (lo, hi), 1_000) == [(0, 1_000)]
    assert over_ranges(lambda lo, hi: seen.append((lo, hi)) or hi - lo, 0) == [0]


@pytest.mark.parametrize("i", range(10))
def test_sort_order_equals_a_stable_argsort(i):
    score = list(_cases())[i]
    got = sort_order(score)
    if got is None:  # a kind it does not handle: the caller argsorts (allowed, never wrong)
        return
    order, new, buffer = got
    ref = np.argsort(score, kind="stable")
    assert order.dtype == np.int64 and buffer.shape[0] >= score.shape[0] - 0
    s = score[order]
    np.testing.assert_array_equal(s, score[ref])  # the same sorted values
    assert (new == (s[1:] != s[:-1])).all()
    # within each value, the same rows as the stable order
    starts = np.r_[0, np.flatnonzero(new) + 1]
    for a, b in zip(starts, np.r_[starts[1:], s.shape[0]]):
        assert set(order[a:b].tolist()) == set(ref[a:b].tolist())


def test_nan_falls_back_to_argsort():
    assert sort_order(np.array([0.5, np.nan, 0.1])) is None


# --------------------------------------------------------------------------------------------
# core.int_sort: numpy's sort, or polars' when asked for (PANDAS_RANKEVAL_SORT=polars; for AMD
# Zen 4, where numpy's AVX-512 sort is slow)


@pytest.fixture
def backend(monkeypatch):
    """Choose the sort backend (and sort every array of 2 or more values with it)."""
    from pandas_rankeval.core.ranking import int_sort

    def use(name: str) -> None:
        monkeypatch.setenv("PANDAS_RANKEVAL_SORT", name)
        monkeypatch.setattr(int_sort, "POLARS_FROM", 2)
        int_sort.sort_backend.cache_clear()
        assert int_sort.sort_backend() == name

    yield use
    int_sort.sort_backend.cache_clear()


@pytest.mark.parametrize("name", ["numpy", "polars"])
def test_sort_values_equals_numpys_sort(backend, name):
    pytest.importorskip("polars")
    from pandas_rankeval.core.ranking.int_sort import sort_values
    from pandas_rankeval.core.ranking.sorting import sortable

    backend(name)
    for x in _cases():
        if x.dtype.kind in "iu" and x.dtype.itemsize == 8:
            got = x.astype(np.int64)
            sort_values(got)
            np.testing.assert_array_equal(got, np.sort(x.astype(np.int64)))
        # float columns through their int64 keys: the same order and the same ties
        key = sortable(x)
        if key is not x:
            assert name == "polars"
            sort_values(key)
            s = np.sort(x)
            assert bool(((key[1:] == key[:-1]) == (s[1:] == s[:-1])).all())
    # a view into another array (the packed keys are views of a uint64 buffer) is sorted in place
    buf = np.random.default_rng(3).integers(0, 2**40, 100_000).astype(np.uint64)
    v = buf.view(np.int64)
    sort_values(v)
    assert bool((np.diff(buf.astype(np.int64)) >= 0).all())


def test_every_number_is_the_same_with_either_backend(backend):
    """The same calls with numpy's and with polars' sorts: equal to the last bit (a sorted array of
    integers has one value; global AUC and the tie check compare int64 keys of the same order)."""
    pytest.importorskip("polars")
    import warnings

    import pandas as pd

    import pandas_rankeval as pre

    rng = np.random.default_rng(5)
    n = 6_000
    df = pd.DataFrame({
        "g": rng.integers(0, 2**40, 800)[rng.integers(0, 800, n)],  # sparse keys: the sorted group count
        "y": rng.integers(0, 3, n) * (rng.random(n) < 0.3),
        "a": np.round(rng.normal(size=n), 2),  # ties inside and across groups
        "b": np.where(rng.random(n) < 0.01, -0.0, rng.random(n)),  # -0.0 and 0.0
    })
    kw = dict(group="g", label="y", scores=["a", "b"], metrics=["auc", "gauc", "mrr", "ndcg@5", "map", "precision@3"])
    out = {}
    for name in ("numpy", "polars"):
        backend(name)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out[name] = (pd.DataFrame(pre.report(df, ci=0.9, n_boot=40, seed=1, **kw)),
                         pd.DataFrame(pre.compare(df, baseline="a", **kw)),
                         pre.gauc(df, group="g", label="y", score="a", ties="pessimistic"))
    pd.testing.assert_frame_equal(out["numpy"][0], out["polars"][0], check_exact=True)
    pd.testing.assert_frame_equal(out["numpy"][1], out["polars"][1], check_exact=True)
    assert out["numpy"][2] == out["polars"][2]


def test_the_sort_setting_is_checked(backend, monkeypatch):
    from pandas_rankeval.core.ranking import int_sort

    monkeypatch.setenv("PANDAS_RANKEVAL_SORT", "quick")
    int_sort.sort_backend.cache_clear()
    with pytest.raises(ValueError, match="PANDAS_RANKEVAL_SORT must be 'numpy' or 'polars'.*got 'quick'"):
        int_sort.sort_backend()
    monkeypatch.delenv("PANDAS_RANKEVAL_SORT")
    int_sort.sort_backend.cache_clear()
    assert int_sort.sort_backend() == "numpy"  # unset: numpy, whatever the CPU
