"""``df.rank``: pandas' rank when called, the metrics namespace as attributes; ``df.rankeval``.

Parity with pandas is checked against pandas itself: the expected values are computed with
the descriptor removed (``unregister()``), i.e. by pandas without this package, and pandas' own
DataFrame.rank test module is run in a subprocess with the package imported first.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import inspect
import os
import pickle
import re
import subprocess
import tempfile
import sys
import warnings
import weakref
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import pandas_rankeval
from pandas_rankeval import accessor as _accessor
from pandas_rankeval.accessor import METHODS, PANDAS_RANK, RankevalNamespace

TESTS_DIR = Path(__file__).parent
NAMES = ("rank", "rankeval")
# pandas < 3 registers accessors with CachedAccessor, which stores the accessor object in the
# frame's __dict__ on first access (one object per frame, and a frame <-> accessor cycle that
# only the garbage collector frees: pandas GH 41357, fixed in 3.0 by building a new accessor
# on every access). That applies to df.rankeval, which goes through pandas' public API; the
# df.rank descriptor never caches.
PANDAS_CACHES_ACCESSORS = int(pd.__version__.split(".")[0]) < 3


def _cached(name: str) -> bool:
    return name == "rankeval" and PANDAS_CACHES_ACCESSORS


@contextlib.contextmanager
def without_pandas_rankeval():
    """pandas as it is without this package; registration restored afterwards."""
    _accessor.unregister()
    try:
        yield
    finally:
        _accessor.register()


@pytest.fixture
def ensure_registered():
    """Whatever a test does to the registration, leave it installed (cf. pandas'
    ``ensure_removed`` in pandas/tests/test_register_accessor.py)."""
    try:
        yield
    finally:
        _accessor.register()
        assert _accessor.is_registered()


@pytest.fixture
def frame():
    return pd.DataFrame(
        {
            "a": [3.0, 1.0, np.nan, 3.0, 2.0, -1.0],
            "b": [1, 1, 2, 5, 5, 0],
            "c": [0.5, 0.25, 0.25, 0.5, 1.0, 0.0],
        }
    )


@pytest.fixture
def mixed_frame():
    return pd.DataFrame(
        {
            "x": [2.0, 1.0, 2.0, np.nan],
            "s": ["b", "a", "c", "a"],
            "t": pd.to_datetime(["2024-01-02", "2024-01-01", "2024-01-02", None]),
        }
    )


@pytest.fixture
def impressions():
    return pandas_rankeval.datasets.make_impressions(300, seed=3)


RANK_CALLS = [
    ((), {}),
    ((1,), {}),
    ((), {"axis": 1}),
    ((), {"axis": "columns"}),
    ((), {"method": "min"}),
    ((), {"method": "max", "ascending": False}),
    ((), {"method": "first"}),
    ((), {"method": "dense", "pct": True}),
    ((), {"axis": 1, "method": "min", "pct": True}),
    ((), {"na_option": "top"}),
    ((), {"na_option": "bottom", "ascending": False}),
    ((0, "average", False, "keep", True, True), {}),
]


# --------------------------------------------------------------------------------------------
# The class attribute is pandas' own function


def test_class_access_is_pandas_function():
    with without_pandas_rankeval():
        vanilla = pd.DataFrame.rank
    assert pd.DataFrame.rank is vanilla
    assert pd.DataFrame.rank is PANDAS_RANK
    # DataFrame and Series both inherit NDFrame.rank.
    assert pd.DataFrame.rank is pd.Series.rank
    assert inspect.isfunction(pd.DataFrame.rank)
    assert pd.DataFrame.rank.__qualname__ == "NDFrame.rank"


def test_subclass_class_access_is_pandas_function(frame):
    class SubFrame(pd.DataFrame):
        pass

    assert SubFrame.rank is PANDAS_RANK
    sub = SubFrame(frame)
    assert isinstance(sub.rank, RankevalNamespace)
    np.testing.assert_array_equal(sub.rank(method="min").to_numpy(), PANDAS_RANK(frame, method="min").to_numpy())


def test_series_rank_untouched():
    assert "rank" not in pd.Series.__dict__
    assert not hasattr(pd.Series, "rankeval")
    s = pd.Series([2.0, 1.0, 2.0])
    assert inspect.ismethod(s.rank)
    assert s.rank.__func__ is PANDAS_RANK
    pd.testing.assert_series_equal(s.rank(method="min"), pd.Series([2.0, 1.0, 2.0]))


# --------------------------------------------------------------------------------------------
# Calling df.rank is pandas' rank


@pytest.mark.parametrize(("args", "kwargs"), RANK_CALLS)
def test_call_matches_pandas(frame, args, kwargs):
    with without_pandas_rankeval():
        expected = frame.rank(*args, **kwargs)
    for name in NAMES:
        pd.testing.assert_frame_equal(getattr(frame, name)(*args, **kwargs), expected)
    pd.testing.assert_frame_equal(pd.DataFrame.rank(frame, *args, **kwargs), expected)
    pd.testing.assert_frame_equal(functools.partial(pd.DataFrame.rank, **kwargs)(frame, *args), expected)


@pytest.mark.parametrize("kwargs", [{}, {"numeric_only": True}, {"method": "dense", "numeric_only": False}])
def test_call_matches_pandas_mixed_dtypes(mixed_frame, kwargs):
    with without_pandas_rankeval():
        expected = mixed_frame.rank(**kwargs)
    pd.testing.assert_frame_equal(mixed_frame.rank(**kwargs), expected)


@pytest.mark.parametrize(
    "kwargs",
    [{"method": "bogus"}, {"na_option": "middle"}, {"axis": 2}, {"not_a_param": 1}],
    ids=["method", "na_option", "axis", "unknown-kwarg"],
)
def test_call_errors_match_pandas(frame, kwargs):
    with without_pandas_rankeval():
        with pytest.raises(Exception) as vanilla:
            frame.rank(**kwargs)
    with pytest.raises(type(vanilla.value)) as ours:
        frame.rank(**kwargs)
    message = str(vanilla.value)
    # A TypeError names the function: pandas' own, also through the namespace.
    assert str(ours.value) == message


@pytest.mark.parametrize(
    "operation",
    [
        lambda df: df.agg("rank"),
        lambda df: df.aggregate("rank", axis=1),
        lambda df: df.transform("rank"),
        lambda df: df.transform("rank", axis=1),
        lambda df: df.transform("rank", method="dense"),
        lambda df: df.apply("rank"),
        lambda df: df.agg(["rank"]),
        lambda df: df.agg({"a": "rank", "c": ["rank"]}),
        lambda df: df.pipe(pd.DataFrame.rank, pct=True),
        lambda df: df.groupby("b").rank(),
        lambda df: df.rolling(2).rank(),
    ],
    ids=[
        "agg",
        "aggregate-axis1",
        "transform",
        "transform-axis1",
        "transform-kwargs",
        "apply",
        "agg-list",
        "agg-dict",
        "pipe",
        "groupby",
        "rolling",
    ],
)
def test_string_dispatch_matches_pandas(frame, operation):
    with without_pandas_rankeval():
        expected = operation(frame)
    pd.testing.assert_frame_equal(operation(frame), expected)


def test_signature_is_pandas(frame):
    with without_pandas_rankeval():
        expected = inspect.signature(frame.rank)
        expected_args = inspect.getfullargspec(frame.rank)
    for name in NAMES:
        assert inspect.signature(getattr(frame, name)) == expected
        ours = inspect.getfullargspec(getattr(frame, name))
        # getfullargspec of a bound method lists "self" too; the parameters after it agree.
        assert ours.args == expected_args.args[1:]
        assert "axis" in ours.args  # what df.transform("rank", axis=1) checks
    assert "pandas.DataFrame.rank" in frame.rank.__call__.__doc__
    assert frame.rank.__name__ == "rank"
    # inspect on the class itself still works (a __signature__ property would break it).
    inspect.signature(RankevalNamespace)
    inspect.signature(pd.DataFrame.rankeval)


def test_pickle_roundtrip(frame):
    ns = pickle.loads(pickle.dumps(frame.rank))
    assert isinstance(ns, RankevalNamespace)
    pd.testing.assert_frame_equal(ns(method="min"), frame.rank(method="min"))


def test_column_named_rank_or_rankeval():
    df = pd.DataFrame({"rank": [2, 1], "rankeval": [1, 2]})
    assert isinstance(df.rank, RankevalNamespace)
    assert isinstance(df.rankeval, RankevalNamespace)
    pd.testing.assert_series_equal(df["rank"], pd.Series([2, 1], name="rank"))
    pd.testing.assert_frame_equal(df.rank(), PANDAS_RANK(df))


# --------------------------------------------------------------------------------------------
# The namespace: no state, never raises in __init__, no reference cycle


@pytest.mark.parametrize("name", NAMES)
def test_namespace_type_and_frame(frame, name):
    ns = getattr(frame, name)
    assert type(ns) is RankevalNamespace
    assert ns._obj is frame
    assert callable(ns)
    # A new namespace on every access (pandas >= 3 and the rank descriptor), equal like two
    # bound methods of one object.
    assert (getattr(frame, name) is ns) is _cached(name)
    assert getattr(frame, name) == ns
    assert hash(getattr(frame, name)) == hash(ns)
    assert getattr(frame.copy(), name) != ns


def test_namespace_has_no_state(frame):
    assert RankevalNamespace.__slots__ == ("_obj",)
    ns = frame.rank
    assert not hasattr(ns, "__dict__")
    with pytest.raises(AttributeError):
        ns.cache = {}
    before = set(vars(frame))
    frame.rank, frame.rankeval  # noqa: B018
    frame.rank.auc, frame.rankeval.auc  # noqa: B018
    assert set(vars(frame)) - before == ({"rankeval"} if _cached("rankeval") else set())


@pytest.mark.parametrize("obj", [None, object(), 1, pd.DataFrame(), pd.Series([1.0])])
def test_namespace_init_never_raises(obj):
    ns = RankevalNamespace(obj)
    assert ns._obj is obj
    repr(ns)


@pytest.mark.parametrize("name", NAMES)
def test_no_circular_reference(name):
    # As pandas' test_no_circular_reference (GH 41357): the frame must not keep its
    # namespace alive, or it would only be freed by the cyclic garbage collector.
    df = pd.DataFrame({"g": [1, 1], "y": [0, 1], "s": [0.2, 0.7]})
    ref = weakref.ref(df)
    assert getattr(df, name)._obj is df
    method = getattr(df, name).gauc
    assert method.__self__._obj is df
    del method
    del df
    if _cached(name):
        gc.collect()
    assert ref() is None


def test_unknown_attribute_lists_metrics(frame):
    with pytest.raises(AttributeError, match=r"'gaucc'.*gauc, mrr, ndcg"):
        frame.rank.gaucc  # noqa: B018
    assert not hasattr(frame.rank, "__array__")


def test_repr(frame):
    text = repr(frame.rank)
    assert "pandas_rankeval" in text and "(6, 3)" in text and "gauc" in text


# --------------------------------------------------------------------------------------------
# Metric methods: thin forwards, looked up at call time


@pytest.mark.parametrize("name", NAMES)
def test_dir_lists_metrics(frame, name):
    listing = dir(getattr(frame, name))
    for method in METHODS:
        assert method in listing
    assert "rank" in dir(frame) and "rankeval" in dir(frame)


def test_method_table():
    assert set(METHODS) >= {
        "auc", "gauc", "mrr", "ndcg", "average_precision", "map",
        "precision", "recall", "hit_rate", "per_group", "report", "compare",
    }  # fmt: skip
    from pandas_rankeval.core.metrics.registry import METRICS, TABLE_FUNCTIONS

    assert set(METHODS) == {*(m.function for m in METRICS.values()), *METRICS, *TABLE_FUNCTIONS}
    assert METHODS["map"] == "average_precision" and METHODS["rprec"] == "r_precision"
    # a metric's name forwards to its function where the two differ (map, rprec); the rest to themselves
    assert all(target == name or METRICS[name].function == target for name, target in METHODS.items())


@pytest.mark.parametrize("name", list(METHODS))
@pytest.mark.parametrize("accessor", NAMES)
def test_forwarding_looks_up_target_at_call_time(monkeypatch, frame, accessor, name):
    calls = []

    def fake(df, /, *args, **kwargs):
        """Fake metric."""
        calls.append((df, args, kwargs))
        return "result"

    target = METHODS[name]
    monkeypatch.setattr(pandas_rankeval, target, fake, raising=False)
    method = getattr(getattr(frame, accessor), name)
    assert method(group="g", label="y", score="s") == "result"
    (df, args, kwargs), = calls
    assert df is frame
    assert args == ()
    assert kwargs == {"group": "g", "label": "y", "score": "s"}


def test_method_docs_and_signature_follow_target(monkeypatch, frame):
    def first(df, *, group, label, score, k=10):
        """First docstring."""

    def second(df, *, label, score):
        """Second docstring."""

    monkeypatch.setattr(pandas_rankeval, "ndcg", first)
    assert frame.rank.ndcg.__doc__ == "First docstring."
    assert str(inspect.signature(frame.rank.ndcg)) == "(*, group, label, score, k=10)"
    assert str(inspect.signature(RankevalNamespace.ndcg)) == "(self, /, *, group, label, score, k=10)"
    monkeypatch.setattr(pandas_rankeval, "ndcg", second)
    assert frame.rankeval.ndcg.__doc__ == "Second docstring."
    assert str(inspect.signature(frame.rankeval.ndcg)) == "(*, label, score)"
    assert frame.rank.ndcg.__name__ == "ndcg"
    monkeypatch.setattr(pandas_rankeval, "ndcg", lambda df, **kwargs: None)
    assert frame.rank.ndcg.__doc__ == "Call ``pandas_rankeval.ndcg`` with this DataFrame as its first argument."
    assert str(inspect.signature(frame.rank.ndcg)) == "(**kwargs)"


@pytest.mark.parametrize("name", [n for n in METHODS if n != "map"] + ["map"])
def test_method_docs_are_the_functions(name):
    target = getattr(pandas_rankeval, METHODS[name])
    method = getattr(pd.DataFrame({"a": [1]}).rank, name)
    assert method.__doc__ == target.__doc__
    params = list(inspect.signature(target).parameters.values())
    assert list(inspect.signature(method).parameters.values()) == params[1:]


# Forwarding against the real functions: the method returns exactly what the function does.

SCALAR_METRICS = [
    ("auc", {"label": "click", "score": "model_a"}),
    ("gauc", {"group": "user_id", "label": "click", "score": "model_b", "weight": "uniform"}),
    ("mrr", {"group": "user_id", "label": "click", "score": "model_a"}),
    ("ndcg", {"group": "user_id", "label": "relevance", "score": "model_b", "k": 5}),
    ("average_precision", {"group": "user_id", "label": "click", "score": "model_b"}),
    ("map", {"group": "user_id", "label": "click", "score": "model_b"}),
    ("precision", {"group": "user_id", "label": "click", "score": "model_a", "k": 3}),
    ("recall", {"group": "user_id", "label": "click", "score": "model_a", "k": 3}),
    ("hit_rate", {"group": "user_id", "label": "click", "score": "model_b", "k": 3}),
]


@pytest.mark.filterwarnings("ignore::pandas_rankeval.CoverageWarning")
@pytest.mark.parametrize(("name", "kwargs"), SCALAR_METRICS, ids=[m for m, _ in SCALAR_METRICS])
@pytest.mark.parametrize("accessor", NAMES)
def test_scalar_metric_methods_equal_functions(impressions, accessor, name, kwargs):
    expected = getattr(pandas_rankeval, METHODS[name])(impressions, **kwargs)
    result = getattr(getattr(impressions, accessor), name)(**kwargs)
    assert type(result) is type(expected)
    assert float(result) == float(expected)
    assert result.metric == expected.metric
    assert result.coverage == expected.coverage


FRAME_METHODS = [
    ("per_group", {"score": "model_a", "metrics": ("auc", "mrr")}),
    ("report", {"scores": ["model_a", "model_b"]}),
    ("compare", {"scores": ["model_a", "model_b"], "baseline": "model_a", "n_boot": 50, "seed": 0}),
]


@pytest.mark.filterwarnings("ignore::pandas_rankeval.CoverageWarning")
@pytest.mark.parametrize(("name", "kwargs"), FRAME_METHODS, ids=[m for m, _ in FRAME_METHODS])
@pytest.mark.parametrize("accessor", NAMES)
def test_frame_methods_equal_functions(impressions, accessor, name, kwargs):
    common = {"group": "user_id", "label": "click"}
    expected = getattr(pandas_rankeval, name)(impressions, **common, **kwargs)
    result = getattr(getattr(impressions, accessor), name)(**common, **kwargs)
    pd.testing.assert_frame_equal(result, expected)


def test_method_errors_come_from_the_function(impressions):
    with pytest.raises(KeyError, match=r"The following columns were not found: \['uid'\]"):
        impressions.rank.gauc(group="uid", label="click", score="model_a")
    with pytest.raises(TypeError, match="positional"):
        impressions.rank.gauc("user_id", label="click", score="model_a")


# --------------------------------------------------------------------------------------------
# register / unregister


def test_register_is_idempotent_and_silent(ensure_registered, frame):
    assert _accessor.is_registered()
    descriptor = pd.DataFrame.__dict__["rank"]
    accessors = set(pd.DataFrame._accessors)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _accessor.register()
        _accessor.register()
    assert pd.DataFrame.__dict__["rank"] is descriptor
    assert pd.DataFrame._accessors == accessors
    assert "rankeval" in pd.DataFrame._accessors
    assert "rank" not in pd.DataFrame._accessors


def test_unregister_restores_pandas(ensure_registered, frame):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _accessor.unregister()
        _accessor.unregister()
    assert not _accessor.is_registered()
    assert "rank" not in pd.DataFrame.__dict__
    assert not hasattr(pd.DataFrame, "rankeval")
    assert "rankeval" not in pd.DataFrame._accessors
    assert inspect.ismethod(frame.rank)
    assert frame.rank.__func__ is PANDAS_RANK
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _accessor.register()
    assert _accessor.is_registered()
    assert isinstance(frame.rank, RankevalNamespace)


def test_unregister_restores_a_previous_class_entry(ensure_registered, frame):
    def someone_elses_rank(self, *args, **kwargs):
        return "patched"

    _accessor.unregister()
    pd.DataFrame.rank = someone_elses_rank
    try:
        _accessor.register()
        assert isinstance(frame.rank, RankevalNamespace)
        _accessor.unregister()
        assert pd.DataFrame.__dict__["rank"] is someone_elses_rank
        assert frame.rank() == "patched"
    finally:
        with contextlib.suppress(AttributeError):
            del pd.DataFrame.rank


def test_import_is_silent_under_W_error():
    code = (
        "import pandas as pd, pandas_rankeval\n"
        "df = pd.DataFrame({'a': [2.0, 1.0]})\n"
        "assert df.rank().a.tolist() == [2.0, 1.0]\n"
        "assert isinstance(df.rankeval, pandas_rankeval.accessor.RankevalNamespace)\n"
    )
    for command in ("import pandas_rankeval", code):
        proc = subprocess.run(
            [sys.executable, "-W", "error", "-c", command], capture_output=True, text=True
        )
        assert proc.returncode == 0, proc.stderr
        assert proc.stderr == ""


# --------------------------------------------------------------------------------------------
# pandas' own tests, with pandas_rankeval imported first


_PANDAS_TESTS = Path(pd.__file__).parent / "tests"
#: pandas' test modules run with pandas_rankeval imported first: all of test_rank.py and of
#: test_register_accessor.py, and from the others the tests that dispatch "rank".
_PANDAS_TEST_FILES = {
    "rank": [_PANDAS_TESTS / "frame" / "methods" / "test_rank.py"],
    "accessor": [_PANDAS_TESTS / "test_register_accessor.py"],
    "dispatch": [
        _PANDAS_TESTS / "apply" / "test_str.py",
        _PANDAS_TESTS / "apply" / "test_frame_transform.py",
        _PANDAS_TESTS / "generic" / "test_finalize.py",
    ],
}


def _run_pandas_tests(paths: list[Path], *extra: str) -> str:
    pandas_dir = Path(pd.__file__).parent
    # the child is a pytest session of its own, not an xdist worker (plugins such as
    # pytest-benchmark read PYTEST_XDIST_WORKER and would warn, an error under pandas' config)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_XDIST_")}
    env["PYTHONPATH"] = os.pathsep.join(
        [str(TESTS_DIR), *filter(None, [env.get("PYTHONPATH")])]
    )
    cmd = [
        sys.executable, "-m", "pytest", *map(str, paths),
        "-p", "pandas_rankeval_plugin", "-p", "no:cacheprovider",
        "--rootdir", str(pandas_dir), *extra,
    ]  # fmt: skip
    # pandas' own pytest options write a junit file into the working directory: use a temporary one
    with tempfile.TemporaryDirectory() as workdir:
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=workdir)
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, output[-5000:]
    assert "pandas_rankeval_plugin: DataFrame.rank descriptor installed: True" in output
    return output


def _outcomes(output: str, path: Path) -> dict[str, int]:
    """Outcome counts (``-rA``'s short summary lines) of the tests of one module."""
    counts: dict[str, int] = {}
    for outcome, node in re.findall(r"^(PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS) (\S+?)::", output, re.M):
        if Path(node).name == path.name and Path(node).parent.name == path.parent.name:
            counts[outcome.lower()] = counts.get(outcome.lower(), 0) + 1
    return counts


@pytest.fixture(scope="module")
def pandas_own_tests() -> dict[str, list[dict[str, int]]]:
    """One pytest session (one start-up of pandas' test configuration) over every module of
    :data:`_PANDAS_TEST_FILES`; the outcome counts of each module, by set."""
    paths = [p for ps in _PANDAS_TEST_FILES.values() for p in ps]
    if not all(p.exists() for p in paths):
        pytest.skip(f"this pandas install does not ship its tests ({_PANDAS_TESTS} is incomplete)")
    # "not single_cpu": as pandas' own parallel CI job; the one such test here ranks a 2**24-row
    # frame through the same call as the others (~5 s, a third of this fixture)
    output = _run_pandas_tests(paths, "-k", "rank or test_register_accessor", "-m", "not single_cpu", "-rA")
    return {name: [_outcomes(output, p) for p in ps] for name, ps in _PANDAS_TEST_FILES.items()}


def test_pandas_own_frame_rank_tests_pass(pandas_own_tests):
    (counts,) = pandas_own_tests["rank"]
    assert counts.get("passed", 0) > 100  # 124 with pandas 3.1.1 (one single_cpu test deselected)
    assert counts.get("failed", 0) == counts.get("error", 0) == 0


def test_pandas_own_accessor_and_apply_tests_pass(pandas_own_tests):
    (counts_accessor,) = pandas_own_tests["accessor"]
    assert counts_accessor.get("passed", 0) > 0  # all 11 with pandas 3.1.1
    assert sum(c.get("passed", 0) for c in pandas_own_tests["dispatch"]) > 0  # 8 with pandas 3.1.1
    for counts in (counts_accessor, *pandas_own_tests["dispatch"]):
        assert counts.get("failed", 0) == counts.get("error", 0) == 0