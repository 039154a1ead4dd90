"""Fuzzing the public functions with random small frames and random options.

Every call must end in a result, or in an error of the documented classes (ValueError,
TypeError, KeyError and its subclass ColumnNotFoundError) whose message names the offending
column or parameter; never an IndexError, ZeroDivisionError or AttributeError, never a
message from numpy's or pandas' internals, never a numpy RuntimeWarning, and never a change
to the caller's frame. Deterministic in the default hypothesis profile ("ci", derandomized) and a
few seconds long; HYPOTHESIS_PROFILE=explore hunts with random seeds (tests/_profiles.py).
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pandas_rankeval as pre

try:
    from _profiles import examples as profile_examples
except ImportError:  # tests/ imported as a package
    from tests._profiles import examples as profile_examples

DOCUMENTED = (ValueError, TypeError, KeyError)
FORBIDDEN = (IndexError, ZeroDivisionError, AttributeError)
#: Fragments of messages written by numpy, pandas or Python for someone else's purpose.
INTERNAL = re.compile(
    r"unhashable type|could not convert|has no attribute|out of bounds|index \d+ is|"
    r"SeedSequence expects|Input contains|ufunc|operands could not|cannot reshape|"
    r"only integer scalar|invalid literal|not supported between|object is not (iterable|callable)|"
    r"numpy\.|truth value of an? (array|Series)"
)

FUNCS = {
    "auc": pre.auc,
    "gauc": pre.gauc,
    "mrr": pre.mrr,
    "ndcg": pre.ndcg,
    "average_precision": pre.average_precision,
    "precision": pre.precision,
    "recall": pre.recall,
    "hit_rate": pre.hit_rate,
    "per_group": pre.per_group,
    "report": pre.report,
    "compare": pre.compare,
}


def _column(draw, kind: str, n: int) -> pd.Series:
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    small = rng.integers(0, 3, n)
    missing = draw(st.integers(0, 11)) == 5  # about one column in twelve has missing values
    if kind == "int64":
        values = pd.array(small, dtype="int64")
    elif kind == "big_int":
        values = pd.array(np.int64(2**60) + small, dtype="int64")
    elif kind == "uint64":
        values = pd.array(np.uint64(2**63) + small.astype(np.uint64), dtype="uint64")
    elif kind == "Int64":
        values = pd.array(small, dtype="Int64")
    elif kind == "float64":
        values = pd.array(rng.normal(size=n).round(1), dtype="float64")
    elif kind == "float32":
        values = pd.array(rng.normal(size=n).round(1).astype(np.float32), dtype="float32")
    elif kind == "Float64":
        values = pd.array(rng.normal(size=n).round(1), dtype="Float64")
    elif kind == "inf":
        values = pd.array(np.where(small == 0, np.inf, np.where(small == 1, -np.inf, 0.5)), dtype="float64")
    elif kind == "bool":
        values = pd.array(small > 0, dtype="bool")
    elif kind == "boolean":
        values = pd.array(small > 0, dtype="boolean")
    elif kind == "negative":
        values = pd.array(small - 1, dtype="int64")
    elif kind == "string":
        values = pd.array([f"k{v}" for v in small], dtype="string")
    elif kind == "object":
        values = pd.array(np.array([f"k{v}" for v in small], dtype=object), dtype=object)
    else:  # pragma: no cover - the strategies draw from the kinds above
        raise AssertionError(kind)
    s = pd.Series(values)
    if missing and n > 1:
        where = rng.random(n) < 0.3
        if s.dtype == "bool":
            s = s.astype(object)
        s = s.mask(where)
    return s


#: Column kinds: (valid for the role, invalid for it).
GROUP_KINDS = (["int64", "Int64", "string", "object", "float64", "bool", "big_int", "uint64"], [])
LABEL_KINDS = (["int64", "bool", "boolean", "Int64", "float64", "Float64", "big_int"], ["negative", "string"])
SCORE_KINDS = (["float64", "float32", "Float64", "int64", "big_int", "uint64", "Int64", "inf", "bool"], ["string"])
WEIGHT_KINDS = (["float64", "int64", "Float64"], ["negative", "string"])


def _pick(draw, valid, invalid):
    """A valid value about 19 times in 20 (hypothesis favours the ends of a range: 7 is neither)."""
    if invalid and draw(st.integers(0, 19)) == 7:
        return draw(st.sampled_from(invalid))
    return draw(st.sampled_from(valid))


@st.composite
def frames(draw) -> pd.DataFrame:
    n = draw(st.integers(1, 9))
    cols = {
        "g": _column(draw, _pick(draw, *GROUP_KINDS), n),
        "y": _column(draw, _pick(draw, *LABEL_KINDS), n),
        "s": _column(draw, _pick(draw, *SCORE_KINDS), n),
        "t": _column(draw, _pick(draw, *SCORE_KINDS), n),
        "w": _column(draw, _pick(draw, *WEIGHT_KINDS), n),
    }
    df = pd.DataFrame(cols)
    df["c"] = np.where(pd.factorize(df["g"])[0] % 2 == 0, "even", "odd")  # a segment, constant per group
    if draw(st.integers(0, 9)) == 5:
        df = df.rename(columns={"w": "count"})  # a column with a weight name
    if draw(st.integers(0, 19)) == 7:
        df = df.set_index("g")  # the group key as an index level
    return df


#: Each option: (valid values, invalid values). An invalid value is drawn one time in twenty, so
#: that most calls get as far as the engine and a few test each check.
OPTIONS = {
    "ties": (["expected", "pessimistic", "optimistic"], ["random"]),
    "tiebreak": ([None, "t", "g"], ["missing", ["t"]]),
    "threshold": ([None, 0, 1, 0.5, -1, 2, 2**60 + 1], ["1", True]),
    "nan_policy": (["raise", "omit"], ["drop"]),
    "weight": ([None, "count", "clicks", "log1p", "uniform", "w", "series", "callable"], ["bogus", 3, "bad_callable"]),
    "empty": (["zero", "skip", "error"], ["none"]),
    "gain": (["exp2", "linear"], ["log"]),
    "k": ([None, 1, 3, np.int64(2), 2**63], [0, -2, True, 2.5, "3"]),
    "sample_weight": ([None, "w"], ["missing"]),
    "implementation": (["numpy", "sklearn"], ["spark"]),
    "max_fpr": ([None, 0.5, 1, np.float32(0.25)], [0, True, 1.5]),
    "min_size": ([None, 0, 2], [-1, 1.5]),
    "min_pos": ([None, 1], [True]),
    "metrics": ([["auc"], ["gauc", "mrr"], ["ndcg", "map@2"], ["precision@2", "hit_rate@1"], "recall@3",
                 ["auc", "gauc", "ndcg@2", "map"]], [["ndcg@0"], ["bogus"], None, []]),
    "ci": ([None, 0.5, np.float32(0.8)], [1.0, "x"]),
    "n_boot": ([10, 20], [0, 1]),
    "seed": ([0, None, np.int64(5)], [-1, "x"]),
    "by": ([None, "c", ["c"]], ["s", "missing"]),
}


def _option(draw, name):
    return _pick(draw, *OPTIONS[name])


#: The options each function takes (besides df, group, label and score(s)).
ACCEPTS = {
    "auc": ["ties", "tiebreak", "threshold", "nan_policy", "sample_weight", "max_fpr"],
    "gauc": ["ties", "tiebreak", "threshold", "nan_policy", "weight", "sample_weight", "implementation", "max_fpr",
             "min_size", "min_pos"],
    "list": ["ties", "tiebreak", "threshold", "nan_policy", "weight", "empty", "k"],
    "ndcg": ["ties", "tiebreak", "threshold", "nan_policy", "weight", "empty", "k", "gain"],
    "per_group": ["ties", "tiebreak", "threshold", "nan_policy", "weight", "empty", "gain", "metrics", "min_size"],
    "report": ["ties", "tiebreak", "threshold", "nan_policy", "weight", "empty", "gain", "metrics", "ci", "n_boot",
               "seed", "min_size", "by"],
    "compare": ["ties", "tiebreak", "threshold", "nan_policy", "weight", "empty", "metrics", "ci", "n_boot", "seed",
                "by"],
}


def _weight_value(name, df):
    if name == "series":
        keys = df.index if "g" not in df.columns else df["g"]
        return pd.Series(1.0, index=pd.Index(pd.unique(keys.dropna() if hasattr(keys, "dropna") else keys)))
    if name == "callable":
        return lambda stats: stats["n"] * 2.0
    if name == "bad_callable":
        return lambda stats: ["heavy"] * len(stats)
    return name


@st.composite
def calls(draw, func_name: str):
    df = draw(frames())
    kind = {"mrr": "list", "average_precision": "list", "precision": "list", "recall": "list",
            "hit_rate": "list"}.get(func_name, func_name)
    kwargs = {}
    for name in ACCEPTS[kind]:
        if draw(st.booleans()):
            kwargs[name] = _option(draw, name)
    if "weight" in kwargs:
        kwargs["weight"] = _weight_value(kwargs["weight"], df)
    if func_name == "compare" and kwargs.get("ci", 0.95) is None:
        del kwargs["ci"]
    if kind in ("list", "ndcg") and func_name in ("precision", "recall", "hit_rate") and kwargs.get("k", 1) is None:
        kwargs["k"] = 2
    label = _pick(draw, ["y"], ["g", "missing", ("y",)])
    score = _pick(draw, ["s", "t"], ["y", "missing", ["s"]])
    call = {"label": label}
    if func_name != "auc":
        call["group"] = _pick(draw, ["g", ["g"]], [["g", "t"], "missing", "s"])
    if func_name == "report":
        call["scores"] = _pick(draw, [score, ["s", "t"]], [["s", "s"]])
    elif func_name == "compare":
        call["scores"] = _pick(draw, [["s", "t"]], [["s"], ["s", "missing"]])
        call["baseline"] = _pick(draw, ["s", "t"], ["x"])
        kwargs.setdefault("n_boot", 20)
        kwargs.setdefault("ci", 0.9)
    else:
        call["score"] = score
    return df, {**call, **kwargs}


def _named(message: str, kwargs: dict, df: pd.DataFrame) -> bool:
    """The message names a parameter of the call, a column, or an option value."""
    names = set(kwargs) | {"group", "label", "score", "scores", "baseline", "by", "metrics", "k"}
    if any(f"'{p}'" in message or f"{p}=" in message for p in names):
        return True
    columns = {*map(str, df.columns), *map(str, [n for n in df.index.names if n is not None]),
               "missing", "x", "bogus"}
    if any(repr(c) in message or f"['{c}']" in message for c in columns):
        return True
    values = [v for v in kwargs.values() if isinstance(v, str)]
    values += [m for v in kwargs.values() if isinstance(v, list) for m in v if isinstance(m, str)]
    return any(repr(v) in message for v in values)  # the offending value, such as 'ndcg@0'


def _check(func_name: str, df: pd.DataFrame, kwargs: dict) -> None:
    before = df.copy(deep=True)
    func = FUNCS[func_name]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            out = func(df, **kwargs)
        except FORBIDDEN as exc:  # pragma: no cover - what the test exists to catch
            raise AssertionError(f"{func_name}({kwargs!r}) raised {type(exc).__name__}: {exc}") from exc
        except DOCUMENTED as exc:
            message = str(exc.args[0]) if isinstance(exc, KeyError) and exc.args else str(exc)
            assert not INTERNAL.search(message), f"{func_name}({kwargs!r}): internal message: {message}"
            assert _named(message, kwargs, df), f"{func_name}({kwargs!r}): names nothing: {message}"
        else:
            if func_name in ("per_group", "report", "compare"):
                assert isinstance(out, pd.DataFrame)
            else:
                assert isinstance(out, float)
    numpy_warnings = [w for w in caught if issubclass(w.category, RuntimeWarning)]
    assert not numpy_warnings, f"{func_name}({kwargs!r}): {[str(w.message) for w in numpy_warnings]}"
    pd.testing.assert_frame_equal(df, before)  # never a mutated input (values, dtypes, index)


def _fuzz(func_name: str, examples: int):
    @settings(max_examples=profile_examples(examples))  # the profile decides the randomness
    @given(st.data())
    def run(data):
        df, kwargs = data.draw(calls(func_name))
        _check(func_name, df, kwargs)

    return run


@pytest.mark.parametrize("func_name", list(FUNCS))
def test_fuzz_public_functions(func_name):
    _fuzz(func_name, 20 if func_name in ("report", "compare") else 30)()
