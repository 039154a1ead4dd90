"""The registry is the one definition of every metric and option: every entry point reads it.

For every metric of :data:`pandas_rankeval.core.metrics.registry.METRICS`: its public function, its name
in ``report(metrics=)``, the accessor, the Dask and Spark modules, the training hooks and the CLI
all reach it and agree; it is documented (its function's docstring, the list of names in
``report``'s docstring, the CLI's list). Every option a metric takes is in the options table, and
the public functions' signatures take exactly the options of their metric.
"""

from __future__ import annotations

import inspect
import io
from contextlib import redirect_stdout

import numpy as np
import pandas as pd
import pytest

import pandas_rankeval as pre
from pandas_rankeval.accessor import METHODS
from pandas_rankeval.core.inputs.options import OPTIONS, Options
from pandas_rankeval.core.metrics.registry import METRICS, TABLE_FUNCTIONS, parse_metric, valid_names
from pandas_rankeval.integrations._training import TrainingMetric

#: Parameters of a metric function that are not options of the metric.
_NOT_OPTIONS = {"df", "group", "label", "score", "k", "p", "bins", "engine_options"}


def _name(metric, k=3):
    """A concrete name of the metric: its cutoff (or persistence) where it takes one."""
    if metric.param.presence == "none":
        return metric.name
    value = {"cutoff": k, "persistence": 0.8, "bins": 5}[metric.param.kind]
    return f"{metric.name}@{value}"


def _columns(metric):
    """The label and score columns of a metric: probabilities and clicks for a calibration metric."""
    return ("c", "q", ["q", "q2"]) if not metric.needs_ranking else ("y", "a", ["a", "b"])


@pytest.fixture(scope="module")
def frame():
    rng = np.random.default_rng(7)
    n = 240
    return pd.DataFrame({
        "g": rng.integers(0, 30, n),
        "y": rng.integers(0, 3, n),
        "a": rng.integers(0, 6, n).astype(float),  # ties
        "b": rng.normal(size=n),
        "pos": rng.integers(1, 6, n),
        "c": rng.integers(0, 2, n),  # clicks
        "q": rng.uniform(size=n).round(2),  # probabilities (ties)
        "q2": rng.uniform(size=n),
    })


#: What the counterfactual metrics need besides the columns of every metric.
IPS = {"position": "pos", "propensity": lambda p: 1.0 / p}


def _ips(metric):
    return IPS if "propensity" in metric.options else {}


def _kwargs(metric):
    """The keywords of the metric's function for the test frame: columns, group, cutoff or bins."""
    label, score, _ = _columns(metric)
    kw = {"label": label, "score": score, **_ips(metric)}
    if metric.grouped:
        kw["group"] = "g"
    spec = parse_metric(_name(metric))
    if spec.cutoff is not None:
        kw["k"] = spec.cutoff
    if metric.param.kind == "bins":
        kw["bins"] = spec.k
    return kw


def _call(metric, df, **extra):
    return getattr(pre, metric.function)(df, **_kwargs(metric), **extra)


@pytest.mark.parametrize("name", list(METRICS))
def test_every_metric_is_reachable_and_equal_everywhere(name, frame):
    metric = METRICS[name]
    full = _name(metric)
    one = _call(metric, frame)
    label, score, scores = _columns(metric)
    # report(metrics=[...])
    rep = pre.report(frame, group="g", label=label, scores=scores, metrics=[full], **_ips(metric))
    assert rep.loc[score, full] == pytest.approx(float(one), abs=1e-15)
    # the accessor: the function's method and the metric's name
    assert METHODS[metric.function] == metric.function and METHODS[metric.name] == metric.function
    acc = getattr(frame.rank, metric.name)
    kw = {"label": label, "score": score, **_ips(metric)}
    if metric.grouped:
        kw["group"] = "g"
    spec = parse_metric(full)
    if spec.cutoff is not None:
        kw["k"] = spec.cutoff
    if metric.param.kind == "bins":
        kw["bins"] = spec.k
    assert float(acc(**kw)) == float(one)
    # the public module: the function and every alias
    for alias in (metric.function, *metric.aliases):
        assert getattr(pre, alias) is getattr(pre, metric.function)
        assert alias in pre.__all__
    # the Dask and Spark modules forward every name
    import pandas_rankeval.dask as prd
    import pandas_rankeval.spark as prs

    for module in (prd, prs):
        assert metric.function in module.__all__ and callable(getattr(module, metric.function))
        assert callable(getattr(module, metric.name))
    # the training hooks: the hook computes the same number from labels and scores
    if _ips(metric):  # a click log's positions are not in a training set: refused by name
        with pytest.raises(ValueError, match="needs each row's logged position"):
            TrainingMetric(full, group=None, sample_weight=None, options={}, func="eval_metric", library="LightGBM")
        return
    hook = TrainingMetric(full, group=frame["g"].to_numpy() if metric.grouped else None, sample_weight=None,
                          options={}, func="eval_metric", library="LightGBM")
    ((hname, hvalue),) = hook.evaluate(frame[score].to_numpy(), frame[label].to_numpy())
    assert hname == f"rankeval_{full}"
    assert hvalue == pytest.approx(float(one), abs=1e-12)


def test_every_metric_is_documented_and_in_the_cli():
    from pandas_rankeval.cli import main

    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["metrics"]) == 0
    listing = out.getvalue()
    report_doc = pre.report.__doc__
    for metric in METRICS.values():
        # the listing wraps a description under its column (80 characters)
        assert metric.summary and " ".join(metric.summary.split()) in " ".join(listing.split())
        for pattern in metric.patterns:
            assert f'``"{pattern}"``' in report_doc, pattern
        doc = getattr(pre, metric.function).__doc__
        assert doc and "Examples" in doc and ">>>" in doc, metric.function
    assert valid_names() == [p for m in METRICS.values() for p in m.patterns]


def test_public_names_come_from_the_registry():
    functions = [m.function for m in METRICS.values()]
    aliases = [a for m in METRICS.values() for a in m.aliases]
    assert [n for n in pre.__all__ if n in functions or n in aliases or n in TABLE_FUNCTIONS] == list(
        dict.fromkeys([*functions, *aliases, *TABLE_FUNCTIONS])
    )
    assert set(METHODS) == {*functions, *(m.name for m in METRICS.values()), *TABLE_FUNCTIONS}


@pytest.mark.parametrize("name", list(METRICS))
def test_signatures_take_exactly_the_metrics_options(name):
    metric = METRICS[name]
    params = inspect.signature(getattr(pre, metric.function)).parameters
    takes = [p for p in params if p not in _NOT_OPTIONS]
    assert set(takes) == set(metric.options), (metric.function, set(takes) ^ set(metric.options))
    for option in metric.options:
        assert option in OPTIONS
        default = params[option].default
        expected = OPTIONS[option].default
        # the min_* filters are None in the signature (no filter), 0 once checked
        assert default == expected or (default is None and Options("f").check().__dict__[option] == expected)


def test_the_options_table_checks_and_names_the_function_called(frame):
    with pytest.raises(ValueError, match="The 'k' parameter of average_precision must be"):
        pre.average_precision(frame, group="g", label="y", score="a", k=0)
    with pytest.raises(ValueError, match="The 'k' parameter of average_precision must be"):
        pre.map(frame, group="g", label="y", score="a", k=0)
    for option in OPTIONS.values():
        if option.choices:
            with pytest.raises(ValueError, match=f"The '{option.name}' parameter of ndcg must be one of"):
                Options("ndcg", **{option.name: "nonsense"}).check()


def test_unknown_names_and_bad_parameters_say_what_is_valid():
    with pytest.raises(ValueError, match="Did you mean 'ndcg@10'"):
        parse_metric("ndgc@10")
    with pytest.raises(ValueError, match="cutoff of 'ndcg@1.5' must be a positive int"):
        parse_metric("ndcg@1.5")
    with pytest.raises(ValueError, match="takes no cutoff"):
        parse_metric("gauc@3")


def test_documented_option_values_are_the_options_tables():
    """Every ``name : {choices}, default=...`` line of a public function's docstring shows the
    allowed values and the default of that option's one definition (``OPTIONS``)."""
    import re

    seen = 0
    for name in pre.__all__:
        func = getattr(pre, name)
        if not inspect.isfunction(func) or not func.__doc__:
            continue
        params = inspect.signature(func).parameters
        for option, opt in OPTIONS.items():
            line = re.search(rf"^    {option} : (.*)$", func.__doc__, re.MULTILINE) if option in params else None
            if line is None:
                continue
            seen += 1
            head, _, default = line.group(1).partition("default=")
            if opt.choices:
                assert set(re.findall(r'"([^"]+)"', head)) == set(opt.choices), (name, option)
            if default:
                assert default.strip('"') == str(opt.default), (name, option, default)
    assert seen >= 40


def test_the_defaults_of_metrics_are_one_definition():
    """``report``, ``compare`` and the command line compute the same metrics when none are named:
    one tuple of the registry (it was written three times), rendered into both docstrings."""
    from pandas_rankeval.cli.parser import build_parser
    from pandas_rankeval.core.metrics.registry import DEFAULT_METRICS

    for func in (pre.report, pre.compare):
        assert inspect.signature(func).parameters["metrics"].default is DEFAULT_METRICS
        assert "default=(" + ", ".join(f'"{n}"' for n in DEFAULT_METRICS) + ")" in func.__doc__
    args = build_parser().parse_args(["eval", "x.csv", "-g", "g", "-l", "y", "-s", "a"])
    assert args.metrics == list(DEFAULT_METRICS)
    for name in DEFAULT_METRICS:
        parse_metric(name)


def _metric_groups():
    """The registry's metrics in three CLI calls: ranking, calibration and counterfactual ones."""
    out: dict[str, list] = {"ranking": [], "calibration": [], "ips": []}
    for metric in METRICS.values():
        kind = "ips" if _ips(metric) else ("ranking" if metric.needs_ranking else "calibration")
        out[kind].append(metric)
    return out


def test_every_metric_from_the_command_line(frame, tmp_path, capsys):
    """The CLI's ``eval`` reaches every metric of the registry and prints the number ``report``
    gives (its CSV carries the unrounded values)."""
    from pandas_rankeval.cli import main

    path = tmp_path / "log.csv"
    frame.assign(prop=1.0 / frame["pos"]).to_csv(path, index=False)
    for kind, metrics in _metric_groups().items():
        names = [_name(m) for m in metrics]
        label, score, _ = _columns(metrics[0])
        extra = ["--position", "pos", "--propensity", "prop"] if kind == "ips" else []
        assert main([str(path), "-g", "g", "-l", label, "-s", score, "-m", *names, "--format", "csv", *extra]) == 0
        got = pd.read_csv(io.StringIO(capsys.readouterr().out), index_col=0, comment="#")
        kw = {"position": "pos", "propensity": "prop"} if kind == "ips" else {}
        want = pre.report(frame.assign(prop=1.0 / frame["pos"]), group="g", label=label, scores=score, metrics=names, **kw)
        assert list(got.loc[score, names].index) == names
        np.testing.assert_allclose(got.loc[score, names].to_numpy(float), want.loc[score, names].to_numpy(float),
                                   rtol=0, atol=1e-15, err_msg=kind)


@pytest.mark.parametrize("module", ["dask", "spark"])
def test_the_dask_and_spark_modules_forward_every_metric_to_its_function(module, frame, monkeypatch):
    """``pandas_rankeval.dask.<f>`` and ``.spark.<f>`` (and their metric names, ``map``) call
    ``pandas_rankeval.<f>`` with the engine's keywords as ``engine_options``: the frame-kind check
    is told a pandas frame is the engine's, so every forward is called and compared with its
    function without starting an engine (the engines themselves: tests/test_engine_parity.py)."""
    import importlib

    import pandas_rankeval._alias as alias

    mod = importlib.import_module(f"pandas_rankeval.{module}")
    kind = {"dask": "dask", "spark": "pyspark"}[module]
    monkeypatch.setattr(alias, "frame_kind", lambda frame: kind)
    for metric in METRICS.values():
        kw = _kwargs(metric)
        want = float(_call(metric, frame))
        for name in (metric.function, metric.name, *metric.aliases):
            forwarded = getattr(mod, name)
            assert forwarded.__module__ == mod.__name__, name
            assert float(forwarded(frame, **kw)) == want, (module, name)
