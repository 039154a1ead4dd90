"""A metric is published one way: from its registry entry.

A throwaway metric (unnormalized DCG@k with NDCG's ``gain`` option), added to the registry for one
test by :func:`pandas_rankeval.core.metrics.registry.registered`, must reach every entry point with its
options: its public function (a real signature with ``k`` and ``gain``), the ``df.rank`` accessor,
the old engine modules ``pandas_rankeval.dask`` and ``pandas_rankeval.spark`` (imported before it
was registered), ``report``, ``compare``, ``per_group``, ``Evaluator``, the command line (``--metrics``, the
``metrics`` listing) and the docs' generated tables. Its numbers are checked against a brute-force
DCG of tie-free lists. For the registered metrics: the functions' signatures come from their
entries (every keyword documented, a runnable example), and the type stub ``api/metrics.pyi`` is
the one the registry writes.
"""

from __future__ import annotations

import doctest
import importlib.util
import inspect
import io
import math
import re
import typing
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import pandas_rankeval as pre
import pandas_rankeval.dask as prd
import pandas_rankeval.spark as prs
from pandas_rankeval.api import publish
from pandas_rankeval.core.kernels.ranked import dcg_per_group
from pandas_rankeval.core.metrics.metric import Cut, Kernel, Metric, NameParam, Reading
from pandas_rankeval.core.inputs.options import OPTIONS
from pandas_rankeval.core.metrics.registry import METRICS, metric_functions, registered
from pandas_rankeval.core.evaluation.result import MetricResult

ROOT = Path(__file__).resolve().parents[1]

_DOC = """Unnormalized DCG@k (a throwaway metric of the publishing test).

    Parameters
    ----------
{list_params}
    k : int or None, default=None
        The cutoff; None: the whole list.
    gain : {{"exp2", "linear"}}, default="exp2"
        ``2**label - 1`` or ``label``.
{common_params}

    Returns
    -------
    dcg_throwaway : MetricResult

    Examples
    --------
    >>> import pandas as pd
    >>> import pandas_rankeval as pre
    >>> df = pd.DataFrame({"q": 1, "rel": [0, 1, 2], "score": [3, 2, 1]})
    >>> round(pre.dcg_throwaway(df, group="q", label="rel", score="score", gain="linear"), 4)
    1.6309
    """

THROWAWAY = Metric(
    name="dcg_throwaway",
    function="dcg_throwaway",
    summary="unnormalized discounted cumulative gain (a test's throwaway metric)",
    doc=_DOC,
    param=NameParam("cutoff", "optional"),
    eligibility="relevant",
    options=("gain", "weight", "ties", "tiebreak", "threshold", "empty", "nan_policy"),
    kernel=Kernel(values=lambda x: dcg_per_group(x.rk, x.k), graded=True),
    cut=Cut(skip_groups=True, top_rows=True),
    reading=Reading(fmt="number", bounds=(0.0, math.inf)),
)


def _frame() -> pd.DataFrame:
    """Graded labels, tie-free scores (so the brute force below is the exact value), and a group
    with no relevant row (it scores 0 under empty="zero")."""
    rng = np.random.default_rng(42)
    n = 400
    return pd.DataFrame({
        "q": rng.integers(0, 40, n),
        "y": np.where(rng.random(n) < 0.4, rng.integers(1, 4, n), 0),
        "a": rng.permutation(n).astype(float),
        "b": rng.normal(size=n),
    })


def _dcg_by_hand(df: pd.DataFrame, score: str, k: int | None, gain: str) -> pd.Series:
    """DCG@k per group from sorting each group's rows: sum of gain / log2(rank + 1) over the top k."""
    out = {}
    for key, g in df.groupby("q"):
        labels = g.sort_values(score, ascending=False)["y"].to_numpy(dtype=float)[:k]
        gains = 2.0**labels - 1.0 if gain == "exp2" else labels
        out[key] = float(sum(v / math.log2(i + 2) for i, v in enumerate(gains)))
    return pd.Series(out)


@pytest.fixture
def throwaway():
    with registered(THROWAWAY):
        yield THROWAWAY
    assert "dcg_throwaway" not in METRICS


def test_throwaway_metric_is_published_everywhere_with_its_options(throwaway, tmp_path, capsys):
    df = _frame()
    want = {s: _dcg_by_hand(df, s, 3, "linear") for s in ("a", "b")}
    kw = dict(group="q", label="y", k=3, gain="linear")

    # the public function: a real signature from the entry, its options as keywords
    func = pre.dcg_throwaway
    params = inspect.signature(func).parameters
    assert list(params)[:5] == ["df", "group", "label", "score", "k"]
    assert params["gain"].default == "exp2" and params["k"].default is None
    assert typing.get_type_hints(func)["gain"] == typing.Literal["exp2", "linear"]
    assert typing.get_type_hints(func)["return"] is MetricResult
    got = func(df, score="a", **kw)
    assert float(got) == pytest.approx(want["a"].mean(), rel=1e-12)
    assert float(func(df, group="q", label="y", score="a", k=3)) == pytest.approx(
        _dcg_by_hand(df, "a", 3, "exp2").mean(), rel=1e-12)
    with pytest.raises(TypeError, match="denominator"):  # an option it does not take: Python's own error
        func(df, score="a", denominator="min_k", **kw)
    assert "gain : {\"exp2\", \"linear\"}" in func.__doc__ and "{list_params}" not in func.__doc__
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    for test in doctest.DocTestFinder().find(func, "dcg_throwaway", module=False, globs={}):
        runner.run(test)
    assert runner.tries == 4 and runner.failures == 0  # its example runs

    # every engine, with no engine code: polars (eager and lazy), DuckDB, Dask
    import dask
    import dask.dataframe as dd
    import duckdb
    import polars as pl

    frames = [pl.from_pandas(df), pl.from_pandas(df).lazy(), duckdb.connect().from_df(df),
              dd.from_pandas(df, npartitions=3, sort=False)]
    with dask.config.set({"scheduler": "synchronous"}):
        for frame in frames:
            other = func(frame, score="a", **kw, engine_options={"buckets": 3} if not isinstance(frame, dd.DataFrame) else None)
            assert float(other) == pytest.approx(float(got), abs=1e-12), type(frame)
            assert other.coverage == got.coverage

    # the accessor
    assert float(df.rank.dcg_throwaway(score="a", **kw)) == float(got)
    assert float(df.rankeval.dcg_throwaway(score="a", **kw)) == float(got)

    # the old engine modules (imported with this file, before the metric was registered): their
    # forward, with the engine's keywords beside the metric's options
    forwarded = inspect.signature(prd.dcg_throwaway).parameters
    assert forwarded["gain"].default == "exp2" and forwarded["npartitions"].default is None
    assert "engine_options" not in forwarded and prd.dcg_throwaway.__module__ == "pandas_rankeval.dask"
    with dask.config.set({"scheduler": "synchronous"}):
        ddf = dd.from_pandas(df, npartitions=3, sort=False)
        assert float(prd.dcg_throwaway(ddf, score="a", npartitions=2, **kw)) == pytest.approx(float(got), abs=1e-12)
    spark_params = inspect.signature(prs.dcg_throwaway).parameters
    assert {"gain", "k", "buckets", "rows_per_bucket"} <= set(spark_params)
    with pytest.raises(TypeError, match=r"spark\.dcg_throwaway expects a pyspark\.sql\.DataFrame"):
        prs.dcg_throwaway(df, score="a", **kw)  # the forward's own check: no Spark session started

    # report, compare, per_group, Evaluator: by name, with gain=
    rep = pre.report(df, group="q", label="y", scores=["a", "b"], metrics=["dcg_throwaway@3"], gain="linear")
    assert rep.loc["a", "dcg_throwaway@3"] == pytest.approx(want["a"].mean(), rel=1e-12)
    assert rep.loc["b", "dcg_throwaway@3"] == pytest.approx(want["b"].mean(), rel=1e-12)
    cmp = pre.compare(df, group="q", label="y", scores=["a", "b"], baseline="a", metrics=["dcg_throwaway@3"],
                      gain="linear", n_boot=50)
    assert cmp.loc[("b", "dcg_throwaway@3"), "diff"] == pytest.approx(want["b"].mean() - want["a"].mean(), rel=1e-9)
    per = pre.per_group(df, group="q", label="y", score="b", metrics=["dcg_throwaway@3"], gain="linear")
    np.testing.assert_allclose(per["dcg_throwaway@3"].to_numpy(), want["b"].loc[per.index].to_numpy(), rtol=1e-12)
    ev = pre.Evaluator(group="q", label="y", scores=["a", "b"], metrics=["dcg_throwaway@3"], gain="linear")
    res = ev.update(df[df.q < 20]).update(df[df.q >= 20]).result()
    assert res.loc["b", "dcg_throwaway@3"] == pytest.approx(want["b"].mean(), rel=1e-12)

    # the command line: listed, and evaluated with --metrics and --gain
    from pandas_rankeval.cli import main

    assert main(["metrics"]) == 0
    assert "dcg_throwaway[@K]" in capsys.readouterr().out
    path = tmp_path / "t.csv"
    df.to_csv(path, index=False)
    code = main(["eval", str(path), "--group", "q", "--label", "y", "--score", "a", "b",
                 "--metrics", "dcg_throwaway@3", "--gain", "linear", "-f", "csv"])
    out = capsys.readouterr().out
    assert code == 0, out
    table = pd.read_csv(io.StringIO(out), comment="#", index_col="model")
    assert table.loc["b", "dcg_throwaway@3"] == pytest.approx(want["b"].mean(), rel=1e-9)

    # the docs: the metric table and the options table (it takes gain, as NDCG and ERR do)
    spec = importlib.util.spec_from_file_location("_hooks", ROOT / "docs" / "hooks.py")
    hooks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hooks)  # type: ignore[union-attr]
    assert "`dcg_throwaway`, `dcg_throwaway@K`" in hooks.metric_table()
    gain_row = next(line for line in hooks.option_table().splitlines() if line.startswith("| `gain`"))
    assert "dcg_throwaway" in gain_row


def test_registered_refuses_a_taken_name_and_cleans_up():
    with pytest.raises(ValueError, match="taken"):
        with registered(Metric(**{**THROWAWAY.__dict__, "name": "ndcg"})):
            pass
    with pytest.raises(RuntimeError):
        with registered(THROWAWAY):
            raise RuntimeError("boom")
    assert "dcg_throwaway" not in METRICS
    with pytest.raises(AttributeError):
        pre.dcg_throwaway  # noqa: B018 - gone with its entry
    with pytest.raises(AttributeError):
        prd.dcg_throwaway  # noqa: B018 - gone from the old engine module too


def _documented(doc: str) -> set[str]:
    """The parameter names of a numpydoc Parameters section (``a, b : type`` lines)."""
    section = doc.split("Parameters\n    ----------\n", 1)[1].split("\n    Returns\n", 1)[0]
    names: set[str] = set()
    for line in section.splitlines():
        m = re.match(r"^    ([A-Za-z_][\w, ]*?) :", line)
        if m:
            names |= {n.strip() for n in m.group(1).split(",")}
    return names


@pytest.mark.parametrize("name", list(METRICS))
def test_signature_and_docstring_come_from_the_entry(name):
    metric = METRICS[name]
    func = getattr(pre, metric.function)
    params = inspect.signature(func).parameters
    expected = ["df", *(["group"] if metric.grouped else []), "label", "score"]
    if metric.param.presence != "none":
        expected.append({"cutoff": "k", "persistence": "p", "bins": "bins"}[metric.param.kind])
    assert list(params) == [*expected, *metric.options, "engine_options"]
    for option in metric.options:
        assert params[option].default == OPTIONS[option].default
        assert params[option].kind is inspect.Parameter.KEYWORD_ONLY
    hints = typing.get_type_hints(func)
    assert hints["return"] is MetricResult and set(hints) == {*params, "return"}
    doc = func.__doc__
    assert _documented(doc) == set(params), f"{name}: documented {_documented(doc) ^ set(params)}"
    assert "\n    Examples\n    --------\n" in doc and ">>> " in doc and "{" + "list_params}" not in doc


def test_no_metric_function_is_written_by_hand():
    """Every metric function is the one its entry writes (under the package's keyword hints, which
    every public function wears); the aliases are the same object."""
    for alias, metric in metric_functions().items():
        assert inspect.unwrap(getattr(pre, alias)) is publish.function_for(metric)
    for path in (ROOT / "pandas_rankeval").rglob("*.py"):
        source = path.read_text()
        assert not any(re.search(rf"^def {m.function}\(", source, re.M) for m in METRICS.values()), path


def test_type_stub_is_written_from_the_registry():
    """``api/metrics.pyi`` is what the registry writes: rewrite it with ``python -m pandas_rankeval.api``."""
    assert publish.STUB.read_text() == publish.stub(), "run: python -m pandas_rankeval.api"


def test_progress_is_one_keyword_with_one_text():
    """progress=: the same spelling, default and documentation wherever it is taken: the functions
    whose calls can loop a long time (bootstrap replicates, sklearn's per-group AUC, the EM of
    propensities, the files of read_trec)."""
    text = OPTIONS["progress"].param_doc()
    takes = [pre.report, pre.compare, pre.gauc, pre.calibration_by, pre.Evaluator, pre.read_trec, pre.propensities,
             pre.launch_agreement]
    for func in takes:
        param = inspect.signature(func).parameters["progress"]
        assert (param.kind, param.default) == (inspect.Parameter.KEYWORD_ONLY, False), func
        assert text in func.__doc__, func
    assert {n for n, f in metric_functions().items() if "progress" in inspect.signature(getattr(pre, n)).parameters} \
        == {n for n, m in metric_functions().items() if "progress" in m.options}
