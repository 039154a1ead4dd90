"""The CTR sheet on every engine: global XAUC over ranges of distinct scores (exact, ties across
range and partition boundaries), its clustered DeLong interval, and calibration_by read in chunks.

Oracles: every pair of rows (``_oracles.xauc_pairs``), O(n^2) placements written out, and pandas
on the same frame (engine parity to 1e-12).
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
import pandas as pd
import pytest

import pandas_rankeval as pre
from _oracles import xauc_pairs
from pandas_rankeval.calibration import by_field
from pandas_rankeval.core.kernels.xauc import xauc_placements
from pandas_rankeval.inference.xauc_delong import xauc_delong
from pandas_rankeval.summary import ranges as ranges_module
from pandas_rankeval.summary.ranges import RangeColumns
from pandas_rankeval.summary.xauc_counts import chain_xauc, xauc_range_sums
from test_engine_parity import ATOL, ENGINES, OPTIONS, call, engine_frame  # noqa: F401 - the fixture

pytestmark = [
    pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning"),
    pytest.mark.filterwarnings("ignore:The copy keyword is deprecated:Warning:pyspark"),
]


def _watch(seed: int, n: int = 90, nulls: bool = False) -> pd.DataFrame:
    """Tie-heavy continuous labels (watch seconds, 6 levels) and scores (7 distinct floats, an
    int64 column), weights with zeros, users of 1 to 6 rows; shuffled, so that tied scores and
    users straddle every partition and range."""
    rng = np.random.default_rng(seed)
    watch = rng.choice([0.0, 1.5, 3.0, 7.0, 7.5, 30.0], n)
    df = pd.DataFrame({
        "u": rng.integers(0, n // 3, n),
        "y": watch,
        "s": np.round(rng.random(n) * 6) / 6 + 0.05 * (watch > 5),
        "i": rng.integers(-3, 4, n).astype(np.int64) * (2**60 // 3),
        "w": np.where(rng.random(n) < 0.1, 0.0, rng.random(n) * 2),
    })
    if nulls:
        df["s"] = df["s"].where(rng.random(n) > 0.06)
        df["y"] = df["y"].where(rng.random(n) > 0.04)
    return df


def _oracle(df: pd.DataFrame, score: str, weight: str | None = None) -> float:
    df = df.dropna(subset=["y", score])
    num, den = xauc_pairs(df["y"].tolist(), df[score].tolist(), None if weight is None else df[weight].tolist())
    return num / den if den else math.nan


# ----------------------------------------------------------------------------- the chaining


def _range_table(df: pd.DataFrame, cuts: list[float], weighted: bool) -> list[pd.DataFrame]:
    """The range tables an engine would give: rows (and weights) per distinct (score, label), cut
    at ``cuts`` into ranges of ascending score, split again into tables of a few ranges."""
    t = df.groupby(["s", "y"], as_index=False).agg(n=("w", "size"), w=("w", "sum"))
    t["r"] = np.searchsorted(np.asarray(cuts), t["s"].to_numpy(), side="right")
    t["sid"] = 0
    if not weighted:
        t = t.drop(columns="w")
    t = t.sample(frac=1.0, random_state=0)  # a range table is in no particular order
    return [part for _, part in t.groupby(t["r"] % 2)]  # two tables, each of several whole ranges


@pytest.mark.parametrize("seed", range(12))
def test_chained_ranges_equal_every_pair(seed):
    df = _watch(seed, n=70)
    rng = np.random.default_rng(seed)
    cuts = sorted(rng.choice(np.unique(df["s"]), size=int(rng.integers(1, 5)), replace=False).tolist())
    for weighted in (False, True):
        cols = RangeColumns("sid", "r", (), "s", None, "y", "n", "w" if weighted else None)
        parts = [xauc_range_sums(t, cols, "y") for t in _range_table(df, cuts, weighted)]
        got = chain_xauc(parts)
        assert got.value() == pytest.approx(_oracle(df, "s", "w" if weighted else None), abs=1e-12)


def test_chained_ranges_of_one_label_have_no_pair():
    df = pd.DataFrame({"s": [0.1, 0.5, 0.9], "y": [2.0, 2.0, 2.0], "w": [1.0, 1.0, 1.0]})
    cols = RangeColumns("sid", "r", (), "s", None, "y", "n")
    got = chain_xauc([xauc_range_sums(t, cols, "y") for t in _range_table(df, [0.3, 0.7], False)])
    assert got.den == 0 and math.isnan(got.value())


# ----------------------------------------------------------------------------- every engine

XAUC_CASES = [
    ("float", {}),
    ("weights", {"sample_weight": "w"}),
    ("int-scores", {"score": "i"}),
    ("nulls-omit", {"nan_policy": "omit", "sample_weight": "w"}),
]


#: Spark jobs cost about a second each: the cases that stress the most there (ties across ranges,
#: weights, dropped rows); every case on the other engines.
SPARK_CASES = ("weights", "nulls-omit")


def _params(cases: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    # Spark's weights case takes 12 s: it runs in the slow suite (.ci/run runs it after README's command)
    return [pytest.param(e, c, o, id=f"{e}-{c}", marks=[pytest.mark.slow] if (e, c) == ("spark", "weights") else [])
            for e in ENGINES for c, o in cases if e != "spark" or c in SPARK_CASES]


@pytest.mark.parametrize("engine,case,options", _params(XAUC_CASES))
def test_global_xauc_on_every_engine(engine, engine_frame, case, options, monkeypatch):
    df = _watch(len(case), nulls=case.startswith("nulls"))
    kw = {"label": "y", "score": "s"} | options
    n_ranges = []
    chain = ranges_module.chain_xauc
    monkeypatch.setattr(ranges_module, "chain_xauc", lambda parts: n_ranges.append(
        sum(len(p.ranges) for p in parts)) or chain(parts))
    want = pre.xauc(df, **kw)
    assert float(want) == pytest.approx(_oracle(df, kw["score"], kw.get("sample_weight")), abs=1e-12)
    options = {"polars-lazy": {"rows_per_bucket": 4}}.get(engine, OPTIONS.get(engine))  # ranges of 4 scores
    got = pre.xauc(engine_frame(df), engine_options=options, **kw)
    assert abs(got - want) <= ATOL, (float(got), float(want))
    assert got.coverage == want.coverage and got.params == want.params and got.metric == "xauc"
    if engine not in ("pandas", "polars"):  # read in ranges of distinct scores, chained on the client
        assert n_ranges and n_ranges[0] > 1, n_ranges


@pytest.mark.parametrize("engine", ENGINES)
def test_global_xauc_errors_and_the_empty_rule_on_every_engine(engine, engine_frame):
    kw = {"label": "y", "score": "s", "sample_weight": "w"}
    word = {"polars": "null or NaN", "polars-lazy": "null or NaN", "duckdb": "NULL or NaN",
            "spark": "NULL or NaN"}.get(engine, "NaN/None")
    bad_frames = [_watch(3, nulls=True), _watch(3).assign(w=lambda d: d["w"] - 1.0),
                  _watch(3).assign(y=lambda d: d["y"].replace(30.0, np.inf))]
    for bad in bad_frames:  # the same error, with the whole table's count
        with pytest.raises(ValueError) as want:
            pre.xauc(bad, **kw)
        with pytest.raises(ValueError) as got:
            call(engine, "xauc", engine_frame(bad), **kw)
        assert str(got.value) == str(want.value).replace("(NaN/None)", f"({word})")
    kw.pop("sample_weight")
    constant = _watch(4).assign(y=5.0)  # one label: no pair, NaN with a warning (the contract's empty rule)
    with pytest.warns(pre.CoverageWarning, match="no pair of rows has different labels"):
        res = call(engine, "xauc", engine_frame(constant), **kw)
    assert math.isnan(res) and res.coverage.n_used == 0 and res.coverage.n_rows == len(constant)


def test_global_xauc_on_an_ibis_table():
    from _warehouse import Runner

    df = _watch(5)
    t = Runner("duckdb").table(df)
    for kw in ({}, {"sample_weight": "w"}, {"score": "i"}):
        args = {"label": "y", "score": "s"} | kw
        assert float(pre.xauc(t, **args)) == pytest.approx(float(pre.xauc(df, **args)), abs=ATOL)


# ----------------------------------------------------------------------------- the interval


def _brute_placements(y, s, w):
    n = len(y)
    wa, wb = np.zeros(n), np.zeros(n)
    for i in range(n):
        for j in range(n):
            if y[i] == y[j]:
                continue
            wb[i] += w[i] * w[j]
            credit = 0.5 if s[i] == s[j] else float((y[i] > y[j]) == (s[i] > s[j]))
            wa[i] += w[i] * w[j] * credit
    return wa, wb


@pytest.mark.parametrize("seed", range(6))
def test_placements_equal_every_pair(seed):
    df = _watch(seed, n=60 + seed * 7)
    y, s, w = df["y"].to_numpy(), df["s"].to_numpy(), df["w"].to_numpy()
    for weights in (None, w):
        wa, wb = xauc_placements(y, s, weights)
        ba, bb = _brute_placements(y, s, np.ones(len(y)) if weights is None else weights)
        np.testing.assert_allclose(wa, ba, atol=1e-12)
        np.testing.assert_allclose(wb, bb, atol=1e-12)


def test_delong_variance_equals_its_formula_written_out():
    df = _watch(9, n=80)
    y, s, t, w = df["y"].to_numpy(), df["s"].to_numpy(), df["i"].to_numpy(), df["w"].to_numpy()
    cluster = pd.factorize(df["u"])[0]
    k = int(cluster.max()) + 1
    values, cov = xauc_delong(y, [s, t], w, cluster, k)
    psi = []
    for score in (s, t):
        wa, wb = _brute_placements(y, score, w)
        theta = wa.sum() / wb.sum()
        psi.append(np.array([np.sum((wa - theta * wb)[cluster == g]) for g in range(k)]))
        assert values[len(psi) - 1] == pytest.approx(_oracle(df.assign(z=score), "z", "w"), abs=1e-12)
    den = _brute_placements(y, s, w)[1].sum() / 2
    want = k / (k - 1) * np.array([[a @ b for b in psi] for a in psi]) / den**2
    np.testing.assert_allclose(cov, want, rtol=1e-10, atol=0)


def test_xauc_interval_table_and_paired_difference():
    df = _watch(2, n=300)
    t = pre.xauc_interval(df, label="y", scores=["s", "i"], group="u", sample_weight="w", baseline="s", ci=0.9)
    for col in ("s", "i"):
        assert t.loc[col, "xauc"] == pytest.approx(float(pre.xauc(df, label="y", score=col, sample_weight="w")),
                                                   abs=1e-12)
        assert t.loc[col, "xauc_low"] < t.loc[col, "xauc"] < t.loc[col, "xauc_high"]
    assert t.loc["i", "diff"] == pytest.approx(t.loc["i", "xauc"] - t.loc["s", "xauc"], abs=1e-15)
    assert 0 <= t.loc["i", "p_value"] <= 1 and math.isnan(t.loc["s", "p_value"])
    assert any("clustered DeLong" in line for line in t.attrs["footer"])
    one = pre.xauc_interval(df.assign(y=2.0), label="y", scores="s", group="u")  # no pair: the empty rule
    assert one[["xauc", "xauc_low", "xauc_high"]].isna().all(axis=None)
    assert any("no pair of rows has different labels" in line for line in one.attrs["footer"])


def test_xauc_interval_refuses_a_partitioned_frame_by_name_before_any_work():
    pl = pytest.importorskip("polars")
    lf = pl.from_pandas(_watch(1)).lazy()
    with pytest.raises(TypeError, match="xauc_interval on a polars LazyFrame: its clustered DeLong interval"):
        pre.xauc_interval(lf, label="y", scores="s", group="u")
    with pytest.raises(ValueError, match="'baseline' parameter of xauc_interval must be one of"):
        pre.xauc_interval(_watch(1), label="y", scores=["s"], baseline="i")


# ----------------------------------------------------------------------------- calibration_by


def _clicks(seed: int, nulls: bool = False) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    n = 150
    p = np.round(rng.random(n), 2)  # ties, a few exact 0 and 1 possible
    df = pd.DataFrame({
        "user": "u" + pd.Series(rng.integers(0, 40, n)).astype(str),
        "device": rng.choice(["ios", "web", "android"], n),
        "slot": rng.integers(1, 4, n),
        "click": (rng.random(n) < p * 0.8).astype(np.int64),
        "p": p,
        "w": rng.random(n) + 0.2,
    })
    if nulls:
        df["p"] = df["p"].where(rng.random(n) > 0.05)
    return df


CAL_CASES = [
    ("ci", {"field": "device", "group": "user", "n_boot": 40, "seed": 3}),
    ("weights", {"field": ["device", "slot"], "group": "user", "sample_weight": "w", "n_boot": 30, "bins": 4}),
    ("no-group", {"field": "slot", "ci": None, "overall": False}),
    ("nulls-omit", {"field": "device", "group": "user", "nan_policy": "omit", "n_boot": 20}),
]


@pytest.mark.parametrize("engine,case,options", _params(CAL_CASES))
def test_calibration_by_on_every_engine(engine, engine_frame, case, options, monkeypatch):
    monkeypatch.setattr("pandas_rankeval.engines.chunks.CHUNK_ROWS", 16)  # LazyFrame, DuckDB: many chunks
    calls = []
    merge = by_field.merge_chunks
    monkeypatch.setattr(by_field, "merge_chunks", lambda chunks, spec: calls.append(len(chunks)) or merge(chunks, spec))
    df = _clicks(len(case), nulls=case.startswith("nulls"))
    kw = {"label": "click", "score": "p"} | options
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pre.CoverageWarning)
        want = pre.calibration_by(df, **kw)
        got = pre.calibration_by(engine_frame(df), **kw)
    assert list(got.columns) == list(want.columns)
    assert [tuple(map(str, k)) if isinstance(k, tuple) else str(k) for k in got.index] == \
        [tuple(map(str, k)) if isinstance(k, tuple) else str(k) for k in want.index]
    for c in want.columns:
        np.testing.assert_allclose(got[c].to_numpy(np.float64), want[c].to_numpy(np.float64), atol=ATOL, rtol=0,
                                   err_msg=str(c))
    assert got.field_rce == pytest.approx(want.field_rce, abs=ATOL)
    np.testing.assert_allclose(got.field_rce_interval, want.field_rce_interval, atol=ATOL)
    assert got.attrs["footer"] == want.attrs["footer"]
    if engine in ("polars-lazy", "duckdb"):  # the chunks were added as they came
        assert len(calls) > 3, calls


@pytest.mark.parametrize("engine", ENGINES)
def test_calibration_by_errors_on_every_engine(engine, engine_frame):
    kw = {"label": "click", "score": "p", "field": "device", "group": "user"}
    word = {"polars": "null or NaN", "polars-lazy": "null or NaN", "duckdb": "NULL or NaN",
            "spark": "NULL or NaN"}.get(engine, "NaN/None")
    bad_frames = [_clicks(1, nulls=True), _clicks(1).assign(click=lambda d: d["click"] * 2),
                  _clicks(1).assign(p=lambda d: d["p"] * 1.5), _clicks(1).assign(w=-1.0)]
    for bad in bad_frames:
        args = kw | ({"sample_weight": "w"} if (bad["w"] < 0).any() else {})
        with pytest.raises(ValueError) as want:
            pre.calibration_by(bad, **args)
        with pytest.raises(ValueError) as got:
            pre.calibration_by(engine_frame(bad), **args)
        assert str(got.value) == str(want.value).replace("(NaN/None)", f"({word})")
    with pytest.raises(TypeError, match="'device'"):  # a text score: from the schema, before any row is read
        pre.calibration_by(engine_frame(_clicks(1)), **(kw | {"score": "device"}))


# calibration_by on an Ibis table (computed in SQL): tests/test_warehouse_calibration_by.py
