"""Stable key hashes and the hashed resampling draws (Poisson(1) weights, sign flips).

The claims: the same key gives the same hash in every process (whatever PYTHONHASHSEED), on every
platform (pinned values below: plain 64-bit integer arithmetic and SipHash on UTF-8 bytes), and for
every dtype that can hold it; draws depend on (seed, key, replicate) only; the Poisson draws have
the Poisson(1) distribution and the flips are fair coins, independent of each other.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from pandas_rankeval.inference import hashing as H

INTS = [0, 1, -1, 7, 127, -128]


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64", "Int8", "Int64", "float64", "object",
                                   "Float64"])
def test_integer_keys_hash_alike_in_every_dtype(dtype):
    ref = H.key_hash(pd.Series(INTS, dtype="int64"))
    assert (H.key_hash(pd.Series(INTS, dtype=dtype)) == ref).all()
    assert (H.key_hash(pd.Index(INTS, dtype="int64")) == ref).all()


def test_unsigned_and_big_integers():
    u = [0, 1, 2**63, 2**64 - 1]
    a = H.key_hash(pd.Series(u, dtype="uint64"))
    b = H.key_hash(pd.Series(u, dtype=object))
    assert (a == b).all()
    assert (H.key_hash(pd.Series([3, 250], dtype="uint8")) == H.key_hash(pd.Series([3, 250]))).all()
    assert (H.key_hash(pd.Series([True, False])) == H.key_hash(pd.Series([1, 0]))).all()


@pytest.mark.parametrize("dtype", ["object", "string", "str", "category"])
def test_string_keys_hash_alike_in_every_dtype(dtype):
    keys = ["u1", "", "äöü", "a much longer key with spaces", "12"]
    ref = H.key_hash(pd.Series(keys, dtype=object))
    assert (H.key_hash(pd.Series(keys, dtype=dtype)) == ref).all()
    # a string that reads as a number is not that number
    assert H.key_hash(pd.Series(["12"]))[0] != H.key_hash(pd.Series([12]))[0]


def test_string_pyarrow_dtype():
    pytest.importorskip("pyarrow")
    keys = ["u1", "u2", "x"]
    assert (H.key_hash(pd.Series(keys, dtype="string[pyarrow]")) == H.key_hash(pd.Series(keys))).all()


def test_multi_column_keys():
    df = pd.DataFrame({"a": [1, 1, 2], "b": ["x", "y", "x"]})
    h = H.key_hash(df)
    assert len(set(h.tolist())) == 3
    df2 = pd.DataFrame({"a": pd.Series([1, 1, 2], dtype="Int32"), "b": pd.Series(["x", "y", "x"], dtype="string")})
    assert (H.key_hash(df2) == h).all()
    assert (H.key_hash(pd.MultiIndex.from_frame(df)) == h).all()
    # order matters: (a, b) is not (b, a); a pair is not its first element
    assert not (H.key_hash(df[["b", "a"]]) == h).any()
    assert not (H.key_hash(df["a"]) == h).any()


def test_floats_datetimes_and_bad_keys():
    assert H.key_hash(pd.Series([-0.0]))[0] == H.key_hash(pd.Series([0.0]))[0] == H.key_hash(pd.Series([0]))[0]
    assert H.key_hash(pd.Series([0.5]))[0] != H.key_hash(pd.Series([0]))[0]
    t = pd.Series(pd.to_datetime(["2024-01-01", "2024-06-30"]))
    assert (H.key_hash(t) == H.key_hash(t.astype("datetime64[s]"))).all()
    with pytest.raises(ValueError, match="must not be missing"):
        H.key_hash(pd.Series([1, None], dtype="Int64"))
    with pytest.raises(TypeError, match="cannot be hashed stably"):
        H.key_hash(pd.Series([object(), object()]))


# Pinned values: any change to the hash changes every interval users have seen, and would break
# the agreement between engines running different versions. Computed once by this module.
PINNED_INT = {0: 16294208416658607535, 1: 10451216379200822465, -1: 16490336266968443936}


def test_pinned_values():
    h = H.key_hash(pd.Series(list(PINNED_INT)))
    assert dict(zip(PINNED_INT, h.tolist())) == PINNED_INT


_CHILD = """
import json, sys
import pandas as pd
from pandas_rankeval.inference import hashing as H
keys = pd.Series(["alpha", "beta", "gamma", "äöü"])
ints = pd.Series([5, -5, 2**40], dtype="int64")
out = {
    "str": H.key_hash(keys).tolist(),
    "int": H.key_hash(ints).tolist(),
    "multi": H.key_hash(pd.DataFrame({"a": ints[:3], "b": keys[:3]})).tolist(),
    "poisson": H.poisson_weights(H.key_hash(keys), 11, 8).astype(int).tolist(),
    "flips": H.flip_bits(H.key_hash(keys), 11, 8).astype(int).tolist(),
}
print(json.dumps(out))
"""


def _child(hashseed: str) -> dict:
    env = dict(os.environ, PYTHONHASHSEED=hashseed)
    res = subprocess.run([sys.executable, "-c", _CHILD], env=env, capture_output=True, text=True, check=True)
    return json.loads(res.stdout)


def test_same_hashes_in_other_processes_whatever_pythonhashseed():
    a, b = _child("0"), _child("12345")
    assert a == b
    keys = pd.Series(["alpha", "beta", "gamma", "äöü"])
    assert a["str"] == H.key_hash(keys).tolist()  # this process too (its own hash seed)
    assert a["poisson"] == H.poisson_weights(H.key_hash(keys), 11, 8).astype(int).tolist()


def test_poisson_weights_are_poisson_1():
    h = H.key_hash(pd.Series(np.arange(20_000)))
    w = H.poisson_weights(h, 0, 50)
    assert w.shape == (20_000, 50)
    counts = np.bincount(w.astype(int).ravel(), minlength=8)[:8]
    expected = stats.poisson.pmf(np.arange(8), 1.0) * w.size
    tail = w.size - counts.sum()
    chi2 = ((counts - expected) ** 2 / expected).sum()
    assert chi2 < stats.chi2.ppf(0.999, df=7), (counts, expected, tail)
    assert abs(w.mean() - 1.0) < 0.01 and abs(w.var() - 1.0) < 0.02
    # replicates and groups are uncorrelated
    c = np.corrcoef(w[:, :10].T)
    assert np.abs(c[np.triu_indices(10, 1)]).max() < 0.03
    assert H.MAX_POISSON >= 12  # P(K > 12) < 2**-32


def test_poisson_draws_follow_their_definition_on_any_byte_order():
    """Replicate b's count is the number of thresholds reached by half b % 2 (high 32 bits, then
    low) of hash b // 2 of (seed, key): computed here with explicit shifts and masks, which do not
    depend on how the machine lays out the halves of a uint64 (poisson_weights reads them through
    a uint32 view, swapping them first on a little-endian machine); pinned values too."""
    h = H.key_hash(pd.Series(np.arange(500)))
    for start, n in ((0, 64), (1, 63), (7, 2), (3, 1)):
        got = H.poisson_weights(h, 11, n, start=start)
        first = start // 2
        stream = H._stream(11, H._TAG_BOOT, (start + n + 1) // 2 - first, first)
        x = H.mix64(h[:, None] ^ stream[None, :])
        halves = np.stack([x >> np.uint64(32), x & np.uint64(0xFFFFFFFF)], axis=2).reshape(h.shape[0], -1)
        u = halves[:, start - 2 * first : start - 2 * first + n].astype(np.uint32)
        want = np.searchsorted(H._POISSON_T32, u.ravel(), side="right").reshape(u.shape)
        assert (got == want).all(), (start, n)
    assert H.poisson_weights(H.key_hash(pd.Series([1, 2, 3])), 11, 9, start=1).astype(int).tolist() == [
        [1, 1, 3, 1, 1, 1, 1, 3, 0], [0, 2, 0, 0, 0, 1, 1, 2, 1], [1, 1, 2, 0, 1, 1, 1, 0, 1]]


def test_draws_depend_on_seed_key_replicate_only():
    h = H.key_hash(pd.Series([f"k{i}" for i in range(300)]))
    w = H.poisson_weights(h, 7, 40)
    # any subset of groups, in any order, and any slice of replicates: the same draws
    perm = np.random.default_rng(0).permutation(300)
    assert (H.poisson_weights(h[perm], 7, 40) == w[perm]).all()
    assert (H.poisson_weights(h, 7, 15, start=25) == w[:, 25:]).all()
    assert not (H.poisson_weights(h, 8, 40) == w).all()
    work: dict = {}  # scratch buffers reused across calls (the summary's chunks) change nothing
    for lo, hi, start, n in ((0, 100, 0, 40), (50, 300, 3, 31), (0, 100, 0, 40)):
        got = H.poisson_weights(h[lo:hi], 7, n, start=start, work=work)
        assert (got == w[lo:hi, start : start + n]).all()
    f = H.flip_bits(h, 7, 40)
    assert (H.flip_bits(h[perm], 7, 40) == f[perm]).all()
    assert (H.flip_bits(h, 7, 10, start=30) == f[:, 30:]).all()
    # flips are fair, and independent of the bootstrap draws of the same seed
    big = H.key_hash(pd.Series(np.arange(10_000)))
    fb = H.flip_bits(big, 3, 20)
    assert abs(fb.mean() - 0.5) < 0.01
    assert abs(np.corrcoef(fb.ravel(), H.poisson_weights(big, 3, 20).ravel())[0, 1]) < 0.01
    assert set(np.unique(H.flip_signs(big[:50], 3, 4))) == {-1.0, 1.0}


def test_seed_to_int():
    assert H.seed_to_int(5, "report") == 5
    assert isinstance(H.seed_to_int(None, "report"), int)
    ss = np.random.SeedSequence(42)
    assert H.seed_to_int(ss, "report") == H.seed_to_int(np.random.SeedSequence(42), "report")
    for bad in (-1, 1.5, "3", True):
        with pytest.raises(ValueError, match="The 'seed' parameter of report must be an int in the range"):
            H.seed_to_int(bad, "report")
