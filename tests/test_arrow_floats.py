"""pyarrow float columns read as numpy float columns do: -0.0 and 0.0 are one group or segment
key, and a NaN that is not null (what ``pd.read_parquet(dtype_backend="pyarrow")`` returns for a
NaN written by pyarrow) is a missing value, counted, raised or dropped (it was a group of its own,
or a score error with no count)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import pandas_rankeval as pre

pa = pytest.importorskip("pyarrow")


def _arrow(values, kind=pa.float64()) -> pd.api.extensions.ExtensionArray:
    """A pyarrow float array that keeps NaN as NaN (not null)."""
    return pd.array(pa.array(values, type=kind, from_pandas=False), dtype=pd.ArrowDtype(kind))


@pytest.mark.parametrize("kind", [pa.float64(), pa.float32()])
def test_signed_zero_key_and_segment_are_one(kind):
    df = pd.DataFrame({"g": [0.0, 0.0, -0.0, -0.0, 1.5, 1.5], "seg": [0.0, -0.0, 0.0, -0.0, -0.0, 0.0],
                       "y": [1, 0, 1, 0, 0, 1], "s": [0.9, 0.1, 0.2, 0.8, 0.3, 0.4]})
    arrow = df.assign(g=_arrow(df.g.tolist(), kind), seg=_arrow(df.seg.tolist(), kind))
    for kw in (dict(group="g"), dict(group="g", by="seg")):
        want = pd.DataFrame(pre.report(df, label="y", scores=["s"], metrics=["gauc", "mrr"], **kw))
        got = pd.DataFrame(pre.report(arrow, label="y", scores=["s"], metrics=["gauc", "mrr"], **kw))
        assert len(got) == len(want)  # one 0.0 segment, not two
        np.testing.assert_allclose(got[["gauc", "mrr"]].to_numpy(float), want[["gauc", "mrr"]].to_numpy(float),
                                   rtol=0, atol=1e-12)
    per = pre.per_group(arrow, group="g", label="y", score="s")
    assert len(per) == 2 and per["n"].tolist() == [4, 2]  # the oracle: two keys, 0.0 (4 rows) and 1.5


@pytest.mark.parametrize("column", ["g", "y", "s", "w"])
def test_nan_that_is_not_null_is_missing(column):
    base = pd.DataFrame({"g": [1.0, 1, 1, 2, 2, 2], "y": [1.0, 0, 0, 1, 0, 1], "s": [.3, .2, .1, .5, .45, .2],
                         "w": [1.0, 1, 1, 1, 1, 1]})
    values = base[column].tolist()
    values[1] = np.nan
    arrow = base.assign(**{column: _arrow(values)})
    numpy_nan = base.assign(**{column: values})
    kw = dict(group="g", label="y", score="s", sample_weight="w")
    with pytest.raises(ValueError, match=f"Column '{column}' has 1 missing value"):
        pre.gauc(arrow, **kw)
    got, want = pre.gauc(arrow, nan_policy="omit", **kw), pre.gauc(numpy_nan, nan_policy="omit", **kw)
    assert float(got) == pytest.approx(float(want), abs=1e-12) and got.coverage.n_dropped == 1
    assert "1 row with missing values dropped" in str(got.coverage)


def test_dask_partitions_read_them_too():
    dd = pytest.importorskip("dask.dataframe")
    df = pd.DataFrame({"g": _arrow([1.0, 1, np.nan, 2, 2, -0.0, 0.0, 0.0]), "y": [1, 0, 0, 1, 0, 1, 0, 1],
                       "s": [.3, .2, .1, .5, .45, .2, .6, .1]})
    want = pre.gauc(df, group="g", label="y", score="s", nan_policy="omit")
    got = pre.gauc(dd.from_pandas(df, npartitions=3), group="g", label="y", score="s", nan_policy="omit")
    assert float(got) == pytest.approx(float(want), abs=1e-12)
    assert got.coverage.n_dropped == want.coverage.n_dropped == 1 and got.coverage.n_groups == 3
