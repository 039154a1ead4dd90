"""A differential fuzz of the DuckDB engine against pandas.

Each example draws a small frame with masses of tied scores and its call, builds the DuckDB
relation from it (``con.from_df``: a Categorical becomes an ENUM; wide keys are cast to
``HUGEINT`` or ``DECIMAL(38, 0)`` in SQL), and asks the same question of both:

- keys of several kinds: integers, floats with ``-0.0`` beside ``0.0``, strings, a Categorical whose
  categories are in neither lexical nor first-seen order, and integers above 2**53 as HUGEINT or
  DECIMAL (pandas reads those as float64: when two of them become one float64, DuckDB refuses with
  the count of the keys that would merge, computed here from the values);
- a per-row ``sample_weight`` (with global AUC and GAUC), a weight column, ``by`` segments, a tie-break column
  (an integer, an ENUM, or the ENUM group key itself);
- column names drawn from the engines' own names in other cases (``__RK_KEY``, ``__Rk_N``...), and
  a column added under a name one of the call's columns already has, in the same or another case
  (DuckDB resolves names case-insensitively), which must be refused with pandas' message.

The answer must equal pandas' (1e-12, the same coverage) or the same refusal. Deterministic and
a few seconds in the default hypothesis profile ("ci"); ``HYPOTHESIS_PROFILE=explore`` draws at
least 1,000 examples with random seeds (tests/_profiles.py).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pandas_rankeval as pre

try:
    from _profiles import CI, current
    from _profiles import examples as profile_examples
except ImportError:  # tests/ imported as a package
    from tests._profiles import CI, current
    from tests._profiles import examples as profile_examples

duckdb = pytest.importorskip("duckdb")

ATOL = 1e-12
KEYS = ["int", "zero", "str", "category", "wide"]
#: Names for the roles: plain ones, and the engines' own names in other cases.
NAMES = {"g": ["g", "__RK_N", "__Rk_Key"], "y": ["y", "__RK_W"], "s": ["s", "__RK_KEY", "S"],
         "w": ["w", "__rk_SID"], "tb": ["tb", "__RK_BUCKET", "__rk1_n"], "seg": ["seg", "__Rk_Range"]}


def q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


@st.composite
def cases(draw, key: str, force: dict):
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    n_groups = draw(st.integers(1, 8))
    sizes = rng.integers(1, 8, n_groups)
    code = np.repeat(np.arange(n_groups), sizes)
    n = code.shape[0]
    cats = [f"k{j}-fuzz41" for j in rng.permutation(n_groups)]  # neither lexical nor first-seen order
    if key == "int":
        g = pd.Series(code * 7 - 3, dtype="int64")
    elif key == "zero":  # -0.0 and 0.0 are one key
        g = pd.Series(np.where(code == 0, np.where(rng.random(n) < 0.7, -0.0, 0.0), code / 2))
    elif key == "str":
        g = pd.Series([f"u{c}" for c in code], dtype=object)
    elif key == "category":
        g = pd.Series(pd.Categorical(np.array([f"k{c}-fuzz41" for c in code]), categories=sorted(set(cats), key=cats.index)))
    else:  # above 2**53: a spacing of 1 merges as float64, a spacing of 2**12 does not
        g = pd.Series(2**60 + code.astype(np.int64) * int(draw(st.sampled_from([1, 2**12]))), dtype="int64")
    names = {role: draw(st.sampled_from(pool)) for role, pool in NAMES.items()}
    if len({v.lower() for v in names.values()}) < len(names):
        names = {role: role for role in names}
    df = pd.DataFrame({
        names["g"]: g,
        names["y"]: (rng.random(n) < rng.beta(1, 2, n_groups)[code]).astype(np.int64),
        names["s"]: np.round(rng.random(n) * draw(st.sampled_from([1, 2, 4]))) / 4,  # masses of ties
        names["w"]: np.round(rng.random(n) * 3) / 2,  # zeros among them
        names["tb"]: pd.Categorical(np.array(cats)[rng.integers(0, n_groups, n)], categories=cats)
        if draw(st.booleans()) else rng.integers(0, 3, n),
        names["seg"]: np.where(code % 3 == 0, -0.0, np.where(code % 3 == 1, 0.0, 1.0)),  # constant per group
    }).sample(frac=1.0, random_state=int(rng.integers(2**31))).reset_index(drop=True)
    tb = force.get("tiebreak", draw(st.sampled_from([None, "tb", "g"] if key == "category" else [None, "tb"])))
    kw = dict(group=names["g"], label=names["y"], scores=names["s"], tiebreak=None if tb is None else names[tb],
              metrics=draw(st.sampled_from([["auc", "gauc", "mrr"], ["gauc", "ndcg@3"], ["auc", "map"]])),
              by=names["seg"] if draw(st.booleans()) else None)
    if force.get("sample_weight", draw(st.booleans())):  # sample weights apply to global auc and gauc
        kw.update(metrics=draw(st.sampled_from([["auc", "gauc"], ["gauc"]])), sample_weight=names["w"])
    elif draw(st.booleans()):
        kw["weight"] = names["w"]
    if force.get("ci", draw(st.booleans())):
        kw.update(ci=0.9, n_boot=10, seed=int(rng.integers(100)))
    wide = draw(st.sampled_from(["HUGEINT", "DECIMAL(38, 0)"])) if key == "wide" else None
    dup = force.get("dup", draw(st.sampled_from([None, None, None, "same", "case"])))
    return df, kw, names, wide, dup, int(draw(st.integers(1, 4)))


def same(got, want) -> None:
    got, want = pd.DataFrame(got), pd.DataFrame(want)
    assert list(got.columns) == list(want.columns) and got.index.equals(want.index), (got, want)
    for c in want.columns:
        if pd.api.types.is_float_dtype(want[c].dtype):
            np.testing.assert_allclose(got[c].to_numpy(np.float64), want[c].to_numpy(), atol=ATOL, rtol=0, err_msg=c)
        else:
            assert (got[c].to_numpy() == want[c].to_numpy()).all(), c
    assert got.attrs.get("coverage") == want.attrs.get("coverage")


def check(df: pd.DataFrame, kw: dict, names: dict, wide: str | None, dup: str | None, buckets: int) -> None:
    con = duckdb.connect()
    try:
        rel = con.from_df(df)
        g = names["g"]
        if wide is not None:
            rel = rel.select(f"* REPLACE (CAST({q(g)} AS {wide}) AS {q(g)})")
        options = {"buckets": buckets}
        if dup is not None:  # a column under a name the call reads (in the same or another case)
            used = names["s"]
            extra = used if dup == "same" else (used.upper() if used.upper() != used else used.lower())
            rel = rel.select(f"*, {q(used)} AS {q(extra)}")
            with pytest.raises(ValueError) as got:
                pre.report(rel, engine_options=options, **kw)
            assert str(got.value).startswith(f"Column {used!r} appears 2 times in the frame")
            if dup == "same":  # pandas' own refusal, word for word up to the fix
                twice = pd.concat([df, df[[used]]], axis=1)
                with pytest.raises(ValueError) as want:
                    pre.report(twice, **kw)
                assert str(got.value).split(" for example ")[0] == str(want.value).split(" for example ")[0]
            return
        want_df = df
        if wide is not None:
            values = df[g].tolist()
            merged = len(set(values)) - len({float(v) for v in values})
            if merged:
                with pytest.raises(ValueError, match=rf"so {merged:,} keys? would merge"):
                    pre.report(rel, engine_options=options, **kw)
                return
            want_df = df.assign(**{g: df[g].astype(np.float64)})  # as pandas reads HUGEINT / DECIMAL
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", pre.CoverageWarning)
            try:
                want = pre.report(want_df, **kw)
            except ValueError as error:  # pandas refuses (one class everywhere...): so does DuckDB
                with pytest.raises(ValueError) as got:
                    pre.report(rel, engine_options=options, **kw)
                assert str(got.value) == str(error)
                return
            same(pre.report(rel, engine_options=options, **kw), want)
            pg = {k: v for k, v in kw.items() if k in ("group", "label", "tiebreak", "sample_weight", "weight")}
            metrics = ["auc"] if "sample_weight" in pg else ["auc", "mrr"]  # sample weights: auc only
            pg.update(score=kw["scores"], metrics=metrics)
            got_pg = pre.per_group(rel, engine_options=options, **pg).set_index(g).sort_index()
            want_pg = pd.DataFrame(pre.per_group(want_df, **pg)).sort_index()
            # (an ENUM key comes back as rel.df() reads it: a Categorical of the same categories, ordered)
            assert got_pg.index.tolist() == want_pg.index.tolist()
            zero = got_pg.index.to_numpy()[got_pg.index.to_numpy() == 0] if got_pg.index.dtype.kind == "f" else []
            assert not np.signbit(np.asarray(zero, dtype=np.float64)).any()  # a zero key is named 0.0
            for c in ["n", "positives", *metrics]:
                a, b = got_pg[c].to_numpy(np.float64), want_pg[c].to_numpy(np.float64)
                assert all((math.isnan(x) and math.isnan(y)) or abs(x - y) <= ATOL for x, y in zip(a, b)), c
    finally:
        con.close()


#: Per key kind, what every example of the default run has (the rest is drawn), so that a run of a
#: few seconds meets each feature; the explore profile draws those too.
FORCED = {"int": {"dup": "case"}, "zero": {"ci": True, "dup": None, "sample_weight": True}, "str": {"dup": "same"},
          "category": {"tiebreak": "g", "ci": True, "dup": None}, "wide": {"dup": None}}


@pytest.mark.parametrize("key", KEYS)
def test_duckdb_agrees_with_pandas(key):
    force = FORCED[key] if current() == CI else {}

    @settings(max_examples=profile_examples(4))  # the profile decides the randomness
    @given(cases(key, force))
    def run(case):
        check(*case)

    run()
