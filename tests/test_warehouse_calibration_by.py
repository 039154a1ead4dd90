"""calibration_by on an Ibis table, computed in SQL on DuckDB, SQLite, Postgres, DataFusion and
ClickHouse (chdb): the same table as pandas to 1e-12 (point values, intervals for the same seed,
field-level RCE, footers) with weights, two fields, no group, a threshold and NULLs omitted; the
ECE bin of every probability on and beside the edges (0 and 1 too) against the rule written out;
each row's log loss against numpy's; pandas' errors from the checks' one query; the queries a call
sends."""

from __future__ import annotations


import numpy as np
import pandas as pd
import pytest

pytest.importorskip("ibis")

import pandas_rankeval as pre  # noqa: E402
from pandas_rankeval.core.kernels.calibration import EPS, ece_bins, row_loss  # noqa: E402
from pandas_rankeval.engines.warehouse.cells import cell_bins  # noqa: E402

try:
    from tests._warehouse import BACKENDS, runner, sent
except ImportError:
    from _warehouse import BACKENDS, runner, sent

pytestmark = pytest.mark.filterwarnings("ignore::pandas_rankeval.CoverageWarning")

#: Every inner edge of 10, 4 and 7 bins, with 0 and 1 (np.linspace's doubles: 0.30000000000000004 too).
EDGES = np.unique(np.concatenate([np.linspace(0.0, 1.0, b + 1) for b in (10, 4, 7)]))


def _clicks(seed: int, nulls: bool = False, n: int = 160) -> pd.DataFrame:
    """Tied probabilities (two decimals, 0 and 1 among them) and every bin edge exactly; users of
    several rows; a field that varies within a user; weights; a graded label."""
    rng = np.random.default_rng(seed)
    p = np.round(rng.random(n), 2)
    p[: EDGES.shape[0]] = EDGES
    grade = rng.integers(0, 4, n).astype(np.float64)
    df = pd.DataFrame({
        "user": "u" + pd.Series(rng.integers(0, 40, n)).astype(str),
        "device": rng.choice(["ios", "web", "android"], n),
        "slot": rng.integers(1, 4, n),
        "click": (rng.random(n) < p * 0.8).astype(np.int64),
        "grade": grade,
        "p": p,
        "w": rng.random(n) + 0.2,
    })
    if nulls:
        df["p"] = df["p"].where(rng.random(n) > 0.05)
        df["device"] = df["device"].where(rng.random(n) > 0.05)
    return df.sample(frac=1.0, random_state=seed).reset_index(drop=True)


CASES = [
    ("ci", {"field": "device", "group": "user", "n_boot": 40, "seed": 3}),
    ("weights", {"field": ["device", "slot"], "group": "user", "sample_weight": "w", "n_boot": 30, "bins": 4}),
    ("no-group", {"field": "slot", "ci": None, "overall": False, "bins": 7}),
    ("nulls-omit", {"field": "device", "group": "user", "nan_policy": "omit", "n_boot": 20}),
    ("threshold", {"field": "slot", "group": ["user", "device"], "label": "grade", "threshold": 2.0, "n_boot": 20}),
]


def _same(got: pd.DataFrame, want: pd.DataFrame) -> None:
    assert list(got.columns) == list(want.columns)
    assert [tuple(map(str, k)) if isinstance(k, tuple) else str(k) for k in got.index] == \
        [tuple(map(str, k)) if isinstance(k, tuple) else str(k) for k in want.index]
    for c in want.columns:
        np.testing.assert_allclose(got[c].to_numpy(np.float64), want[c].to_numpy(np.float64), rtol=0, atol=1e-12,
                                   err_msg=str(c))
    assert got.field_rce == pytest.approx(want.field_rce, abs=1e-12)
    np.testing.assert_allclose(got.field_rce_interval, want.field_rce_interval, rtol=0, atol=1e-12)
    assert got.attrs["footer"] == want.attrs["footer"]


@pytest.mark.parametrize("case,options", CASES, ids=[c for c, _ in CASES])
@pytest.mark.parametrize("backend", BACKENDS)
def test_calibration_by_equals_pandas(backend: str, case: str, options: dict) -> None:
    r = runner(backend)
    df = _clicks(len(case), nulls=case.startswith("nulls"))
    kw = {"label": "click", "score": "p"} | options
    want = pre.calibration_by(df, **kw)
    n_sent, got = sent(lambda: pre.calibration_by(r.table(df), **kw, engine_options=r.engine_options()))
    assert not isinstance(got, Exception), got
    assert n_sent == 2  # the checks, then the cells' one GROUP BY
    _same(got, want)  # type: ignore[arg-type]


@pytest.mark.parametrize("backend", BACKENDS)
def test_bin_of_every_probability_on_and_beside_the_edges(backend: str) -> None:
    """The SQL's ECE bin of p on every edge of 10, 4 and 7 bins, one ulp below and above (0 and 1
    included), against the rule written out: the number of inner edges strictly below p (an edge
    belongs to the bin below it, 0 to the first bin, 1 to the last)."""
    near = np.concatenate([EDGES, np.nextafter(EDGES, -np.inf), np.nextafter(EDGES, np.inf)])
    p = np.unique(np.clip(near, 0.0, 1.0))
    df = pd.DataFrame({"i": np.arange(p.shape[0]), "click": np.zeros(p.shape[0], dtype=np.int64), "p": p})
    r = runner(backend)
    t = r.table(df)
    opts = r.engine_options() or {}
    for bins in (10, 4, 7):
        frame, prefix = cell_bins(t, keys=["i"], label="click", score="p", sample_weight=None, threshold=None,
                                  bins=bins, columns=["i", "click", "p"], omit=False, options=opts)
        got = frame.sort_values("i")[f"{prefix}bin"].to_numpy(dtype=np.int64)
        inner = [float(e) for e in np.linspace(0.0, 1.0, bins + 1)[1:-1]]
        rule = np.array([sum(e < v for e in inner) for v in p.tolist()])
        np.testing.assert_array_equal(got, rule, err_msg=f"bins={bins}")
        np.testing.assert_array_equal(got, ece_bins(p, bins))
        assert got[0] == 0 and got[-1] == bins - 1  # p = 0 and p = 1


@pytest.mark.parametrize("backend", BACKENDS)
def test_row_log_loss_equals_numpy(backend: str) -> None:
    """Each row's log loss in SQL (p clipped to [EPS, 1 - EPS]; -log1p(-q) as ln(u) q / (1 - u))
    against numpy's ``log`` and ``log1p`` to 1e-12 relative: p = 0, EPS, 1 - EPS, 1, tiny, near
    one half and near 1, and random, each with a click and without."""
    rng = np.random.default_rng(0)
    special = [0.0, 1e-300, EPS, 2 * EPS, 1e-12, 1e-6, 1e-3, 0.1, 0.5, np.nextafter(0.5, 0), np.nextafter(0.5, 1),
               0.9, 1 - 1e-6, 1 - 1e-12, 1 - EPS, np.nextafter(1.0, 0), 1.0]
    p = np.concatenate([special, rng.random(200), 10.0 ** -rng.uniform(0, 15, 100)])
    n = p.shape[0]
    df = pd.DataFrame({"i": np.arange(2 * n), "click": np.repeat([0, 1], n), "p": np.tile(p, 2)})
    r = runner(backend)
    frame, prefix = cell_bins(r.table(df), keys=["i"], label="click", score="p", sample_weight=None, threshold=None,
                              bins=10, columns=["i", "click", "p"], omit=False, options=r.engine_options() or {})
    got = frame.sort_values("i")[f"{prefix}wl"].to_numpy(dtype=np.float64)
    want = row_loss(df["p"].to_numpy(), df["click"].to_numpy() == 1)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=0)


@pytest.mark.parametrize("backend", ["duckdb", "sqlite"])
def test_per_group_log_loss_is_the_same_row_term(backend: str) -> None:
    """The per-group ``logloss`` of the warehouse engine reads the same row term (one group per
    row here): numpy's to 1e-12 relative where ``ln(1 - q)`` was 5e-2 off at q = 1e-15."""
    p = np.array([EPS, 2 * EPS, 1e-14, 1e-12, 1e-9, 1e-6, 0.3])
    df = pd.DataFrame({"i": np.arange(p.shape[0]), "click": 0, "p": p})
    r = runner(backend)
    got = pre.per_group(r.table(df), group="i", label="click", scores="p", metrics=["logloss"],
                        **({"engine_options": r.engine_options()} if r.engine_options() else {}))
    got = pd.DataFrame(got).sort_values("i")
    column = next(c for c in got.columns if "logloss" in str(c))
    np.testing.assert_allclose(got[column].to_numpy(dtype=np.float64), row_loss(p, np.zeros(p.shape[0], bool)),
                               rtol=1e-12, atol=0)

BAD = [
    ("nulls", lambda d: d.assign(p=d["p"].where(d.index % 9 != 0)), {}, 1),
    ("labels", lambda d: d.assign(click=d["click"] * 2 + (d.index % 7 == 0) * 0.5), {}, 2),  # + the examples
    ("probabilities", lambda d: d.assign(p=d["p"] * 1.5 - 0.1), {}, 1),
    ("weights", lambda d: d.assign(w=np.where(d.index % 5 == 0, -1.0, d["w"])), {"sample_weight": "w"}, 1),
    ("infinite-label", lambda d: d.assign(grade=np.where(d.index % 11 == 0, np.inf, d["grade"])),
     {"label": "grade", "threshold": 2.0}, 1),
    ("all-dropped", lambda d: d.assign(p=np.nan), {"nan_policy": "omit"}, 1),
]


@pytest.mark.parametrize("backend", BACKENDS)
def test_errors_are_pandas_from_the_checks_query(backend: str) -> None:
    """pandas' message, with whole-table counts, from the checks' one aggregate (the labels' error:
    one more query for its examples), and no metric query after it."""
    r = runner(backend)
    kw = {"label": "click", "score": "p", "field": "device", "group": "user"}
    base = _clicks(1)
    for name, bad, more, queries in BAD:
        df = bad(base)
        with pytest.raises(ValueError) as want:
            pre.calibration_by(df, **(kw | more))
        n_sent, got = sent(lambda: pre.calibration_by(r.table(df), **(kw | more), engine_options=r.engine_options()))
        assert isinstance(got, ValueError), (name, got)
        assert str(got) == str(want.value), name
        assert n_sent == queries, name
    for wrong, error in (({"score": "device"}, TypeError), ({"field": "devise"}, pre.ColumnNotFoundError)):
        n_sent, got = sent(lambda: pre.calibration_by(r.table(base), **(kw | wrong), engine_options=r.engine_options()))
        assert isinstance(got, error) and n_sent == 0, got  # from the schema: no query


def test_engine_options_are_checked_and_read_for_an_ibis_table_only() -> None:
    df = _clicks(2)
    kw = {"label": "click", "score": "p", "field": "device", "ci": None}
    with pytest.raises(ValueError, match="'engine_options' parameter of calibration_by has \\['threads'\\]"):
        pre.calibration_by(df, **kw, engine_options={"threads": 2})
    t = runner("duckdb").table(df)
    with pytest.raises(ValueError, match="'execute' and 'dialect' engine options of calibration_by go together"):
        pre.calibration_by(t, **kw, engine_options={"dialect": "duckdb"})
    with pytest.raises(ValueError, match="which a Ibis frame does not take"):
        pre.calibration_by(t, **kw, engine_options={"buckets": 2})


def test_a_table_no_connection_holds_runs_through_execute() -> None:
    """An unbound table (``ibis.table(schema, name=...)``) and ``execute``: the SQL strings that
    DuckDB runs, two of them, give pandas' table."""
    import duckdb
    import ibis

    df = _clicks(3)
    con = duckdb.connect()
    con.register("imp", df)
    t = ibis.table(ibis.schema({"user": "string", "device": "string", "slot": "int64", "click": "int64",
                                "grade": "float64", "p": "float64", "w": "float64"}), name="imp")
    seen: list[str] = []
    kw = {"label": "click", "score": "p", "field": "device", "group": "user", "n_boot": 30}
    got = pre.calibration_by(t, **kw, engine_options={"execute": lambda sql: seen.append(sql) or con.sql(sql).df(),
                                                       "dialect": "duckdb"})
    _same(got, pre.calibration_by(df, **kw))
    assert len(seen) == 2 and "GROUP BY" in seen[1].upper()


@pytest.mark.parametrize("backend", BACKENDS)
def test_bool_labels_int_labels_with_a_threshold_bool_and_negative_zero_keys(backend: str) -> None:
    """A bool label; an integer label read with ``threshold``; a bool field; a float field whose
    -0.0 and 0.0 are one value, as pandas groups them."""
    rng = np.random.default_rng(5)
    n = 120
    df = pd.DataFrame({"u": rng.integers(0, 20, n), "f": rng.choice([-0.0, 0.0, 0.5], n), "b": rng.random(n) < 0.5,
                       "yb": rng.random(n) < 0.3, "yi": rng.integers(0, 3, n), "p": rng.random(n)})
    r = runner(backend)
    t = r.table(df)
    for kw in ({"field": "f", "label": "yb", "group": "u", "n_boot": 20},
               {"field": "b", "label": "yi", "threshold": 1, "group": "u", "n_boot": 20},
               {"field": ["b", "f"], "label": "yb", "ci": None, "sample_weight": "p"}):
        want = pre.calibration_by(df, score="p", **kw)
        assert len(want) == (5 if isinstance(kw["field"], list) else 3)  # -0.0 and 0.0: one value
        _same(pre.calibration_by(t, score="p", **kw, engine_options=r.engine_options()), want)
