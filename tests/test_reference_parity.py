"""The reference switch: every public function gives the same numbers with every fast path off.

``PANDAS_RANKEVAL_REFERENCE=1`` (here :func:`~pandas_rankeval.core.reference.reference_paths`)
ranks every group and every row with two sorts, reads global AUC off the sort by score, sums the
bootstrap replicates as dense products and runs one thread. Each call below runs both ways, on
tie-heavy frames (ties inside and across groups, one-class, one-row and all-negative groups,
graded labels, sample weights, ``by=`` segments), and every number must agree to 1e-12.
"""

from __future__ import annotations

import inspect
import math
import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import pandas_rankeval as pre
from pandas_rankeval.core.metrics.registry import METRICS
from pandas_rankeval.core.reference import ENV_VAR, reference_mode, reference_paths

TOL = 1e-12
THREADS = {"threads": 2}  # the default path on two threads even for a small frame


def _frame(seed: int = 0, n_groups: int = 60) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    sizes = rng.choice([1, 1, 2, 3, 5, 8, 13], size=n_groups)
    g = np.repeat(np.arange(n_groups), sizes)
    n = g.shape[0]
    # relevant rows in a third of the groups only: the others cannot count for most metrics
    live = rng.random(n_groups) < 0.35
    y = (rng.random(n) < 0.4) & live[g]
    y[np.flatnonzero(sizes[g] > 2)[:3]] = True  # a few all-relevant-ish groups
    grade = np.where(y, rng.integers(1, 4, n), 0)
    return pd.DataFrame({
        "g": g,
        "y": y.astype(int),
        "grade": grade,
        # few distinct scores: ties inside groups and across them
        "a": rng.integers(0, 5, n) / 4.0,
        "b": np.round(rng.random(n), 1),
        "c": rng.integers(0, 3, n) / 2.0,
        "w": rng.choice([0.5, 1.0, 2.0], n),
        "seg": rng.choice(["x", "y", "z"], n_groups)[g],  # an attribute of the group
        "pos": (np.arange(n) - np.searchsorted(g, g)) + 1,
        "tb": rng.integers(0, 3, n),
    })


def _numbers(obj: object) -> list[float]:
    """Every number of a result: a MetricResult's value and coverage, a table's numeric cells."""
    if isinstance(obj, pd.DataFrame):
        out: list[float] = []
        for col in obj.columns:
            s = obj[col]
            if pd.api.types.is_bool_dtype(s) or pd.api.types.is_numeric_dtype(s):
                out += s.astype(float).tolist()
            else:
                out += [float(v) if isinstance(v, (int, float, np.number)) else math.nan for v in s]
        return out
    if isinstance(obj, float):
        out = [float(obj)]
        for value in vars(obj).values():
            if isinstance(value, (int, float, np.number)):
                out.append(float(value))
            elif hasattr(value, "__dict__"):
                out += [float(v) for v in vars(value).values() if isinstance(v, (int, float, np.number))]
        return out
    raise TypeError(type(obj))


def _both(call):
    with reference_paths(False):
        fast = call()
    with reference_paths(True):
        slow = call()
    return fast, slow


def _same(fast: object, slow: object) -> None:
    if isinstance(fast, pd.DataFrame):
        assert list(fast.columns) == list(slow.columns)
        assert fast.shape == slow.shape
        for col in fast.columns:
            if not (pd.api.types.is_numeric_dtype(fast[col]) or pd.api.types.is_bool_dtype(fast[col])):
                assert fast[col].astype(str).tolist() == slow[col].astype(str).tolist(), col
    a, b = np.array(_numbers(fast)), np.array(_numbers(slow))
    assert a.shape == b.shape
    assert a.size > 0
    np.testing.assert_allclose(a, b, rtol=TOL, atol=TOL, equal_nan=True)


def _kwargs(fn, extra: dict) -> dict:
    params = inspect.signature(fn).parameters
    kw = {"label": "y", "score": "a", "engine_options": THREADS}
    if "group" in params:
        kw["group"] = "g"
    if "position" in params:
        kw["position"] = "pos"
        kw["propensity"] = lambda p: 1.0 / p
    return kw | {k: v for k, v in extra.items() if k in params}


def test_switch_reads_the_environment_and_the_block(monkeypatch):
    monkeypatch.delenv(ENV_VAR, raising=False)
    assert not reference_mode()
    monkeypatch.setenv(ENV_VAR, "1")
    assert reference_mode()
    with reference_paths(False):
        assert not reference_mode()
    monkeypatch.setenv(ENV_VAR, "0")
    assert not reference_mode()
    with reference_paths():
        assert reference_mode()
    assert not reference_mode()


VARIANTS = [
    {},
    {"k": 3},
    {"weight": "uniform", "empty": "skip"},
    {"ties": "pessimistic", "k": 5},
    {"sample_weight": "w"},
    {"tiebreak": "tb"},
]


@pytest.mark.parametrize("name", list(METRICS))
def test_every_metric_function_both_ways(name):
    df = _frame()
    fn = getattr(pre, name)
    for extra in VARIANTS:
        kw = _kwargs(fn, extra)
        if name in ("logloss", "ne", "pcoc", "ece"):
            kw["score"] = "b"  # probabilities
        if name in ("ndcg", "err", "ips_dcg") and not extra:
            kw["label"] = "grade"
        fast, slow = _both(lambda kw=kw: fn(df, **kw))
        _same(fast, slow)


ALL = ["auc", "gauc", "mrr", "ndcg@3", "ndcg", "map", "precision@2", "recall@3", "hit_rate@2", "rbp@0.8", "err@3"]


@pytest.mark.parametrize("extra", [
    {},
    {"by": "seg", "overall": True},
    {"ties": "optimistic", "tiebreak": "tb"},
    {"empty": "skip", "weight": "uniform"},
    {"sample_weight": "w", "metrics": ["auc", "gauc"]},
])
def test_report_both_ways(extra):
    df = _frame(1)
    kw = {"metrics": ALL} | extra
    fast, slow = _both(lambda: pre.report(df, group="g", label="y", scores=["a", "b"], engine_options=THREADS, **kw))
    _same(fast, slow)


@pytest.mark.parametrize("auc_method", ["delong", "bootstrap"])
@pytest.mark.parametrize("by", [None, "seg"])
def test_report_with_intervals_both_ways(auc_method, by):
    df = _frame(2, n_groups=120)
    fast, slow = _both(lambda: pre.report(df, group="g", label="y", scores=["a", "c"], metrics=ALL, ci=0.9,
                                          n_boot=40, auc_method=auc_method, by=by, engine_options=THREADS))
    _same(fast, slow)


@pytest.mark.parametrize("method", ["randomization", "bootstrap"])
@pytest.mark.parametrize("by", [None, "seg"])
def test_compare_both_ways(method, by):
    df = _frame(3, n_groups=120)
    fast, slow = _both(lambda: pre.compare(df, group="g", label="y", scores=["a", "b", "c"], metrics=ALL,
                                           n_boot=40, method=method, by=by, engine_options=THREADS))
    _same(fast, slow)


def test_per_group_both_ways():
    df = _frame(4)
    metrics = ["auc", "mrr", "ndcg@3", "map", "hit_rate@2", "precision@2"]
    for extra in ({"metrics": metrics}, {"metrics": metrics, "ties": "pessimistic"},
                  {"metrics": ["auc", "gauc"], "sample_weight": "w"}):
        fast, slow = _both(lambda extra=extra: pre.per_group(df, group="g", label="y", scores=["a", "b"],
                                                 engine_options=THREADS, **extra))
        _same(fast, slow)


def test_environment_variable_turns_the_switch_on():
    """The variable itself, in a fresh process: the same numbers as the block."""
    code = (
        "import pandas_rankeval as pre, tests.test_reference_parity as t;"
        "from pandas_rankeval.core.reference import reference_mode;"
        "assert reference_mode();"
        "print(repr(float(pre.gauc(t._frame(), group='g', label='y', score='a'))))"
    )
    env = dict(os.environ, **{ENV_VAR: "1"})
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    with reference_paths(True):
        want = float(pre.gauc(_frame(), group="g", label="y", score="a"))
    assert float(out.stdout.strip()) == want
