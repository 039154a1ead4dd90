"""The warehouse's per-group table -> GroupValues (values, used groups, weights, mean, coverage)
equal to what the pandas pipeline makes from the rows, for every metric family and option that
changes them (weight options, filters, empty rules, sample weights, calibration components)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("ibis")

from pandas_rankeval.core.evaluation.pipeline import evaluate  # noqa: E402
from pandas_rankeval.engines.warehouse.groups import metric_values, read_groups, stat_of  # noqa: E402
from pandas_rankeval.engines.warehouse.stats import group_stats  # noqa: E402
from pandas_rankeval.summary.plan import make_plan  # noqa: E402

try:
    from tests._warehouse import runner
    from tests.test_warehouse_stats import _table
except ImportError:
    from _warehouse import runner
    from test_warehouse_stats import _table


def _check(df: pd.DataFrame, metrics: list[str], backend: str = "duckdb", **kw) -> None:
    plan = make_plan("report", kind="report", group="u", label="y", scores="s", metrics=metrics, df=df.iloc[:0], **kw)
    opts = plan.options
    ev = evaluate(df, group=plan.group, label=plan.label, scores=plan.scores, specs=plan.specs, options=opts)
    r = runner(backend)
    sums = [opts.weight] if isinstance(opts.weight, str) and opts.weight in df.columns else []
    rel = (">=", int(np.ceil(opts.threshold))) if opts.threshold is not None else (">=", 1)
    expr = group_stats(r.table(df), group=["u"], label="y", score="s", stats=[stat_of(s) for s in plan.specs],
                       sample_weight=opts.sample_weight, relevance=rel, gain=opts.gain,
                       graded_gain=opts.threshold is None, ties=opts.ties, sums=sums)
    groups, table = read_groups(r.execute(expr), ["u"], "__rk_", sums=sums)
    assert list(groups.keys) == list(ev.keys)
    np.testing.assert_array_equal(groups.n, ev.group_stats["n"])
    for spec in plan.specs:
        got = metric_values(groups, table, spec, opts, "__rk_")
        ref = ev.scores["s"].metrics[spec.name]
        refs = [ref] + [ev.scores["s"].metrics[n] for n in spec.item_names[1:]] if len(got) > 1 else [ref]
        for g, e in zip(got, refs):
            np.testing.assert_array_equal(g.used, e.used, err_msg=spec.name)
            np.testing.assert_allclose(g.weights, e.weights, rtol=1e-13, err_msg=spec.name)
            np.testing.assert_allclose(g.values, e.values, rtol=0, atol=1e-12, equal_nan=True, err_msg=spec.name)
            if e.numer is not None:
                np.testing.assert_allclose(g.numer, e.numer, rtol=1e-12, atol=1e-12, err_msg=spec.name)
        assert got[0].value == pytest.approx(ref.value, abs=1e-12, nan_ok=True), spec.name
        assert got[0].coverage.as_dict() == pytest.approx(ref.coverage.as_dict(), abs=1e-15), spec.name


def test_group_values_default_options() -> None:
    _check(_table(11), ["gauc", "mrr", "ndcg@3", "map", "precision@2", "recall@2", "hit_rate@2", "rbp@0.5"])


def test_group_values_weights_filters_and_empty() -> None:
    df = _table(12)
    _check(df, ["gauc", "mrr@2", "ndcg"], weight="w", min_size=3, min_pos=1)
    _check(df, ["gauc", "ndcg@3", "map@2"], weight="log1p", empty="skip", backend="sqlite")
    _check(df, ["gauc"], weight="clicks", sample_weight="w", backend="sqlite")
    _check(df, ["mrr", "gauc"], weight=lambda st: st["positives"] + 1.0)


def test_group_values_calibration() -> None:
    df = _table(13)
    _check(df, ["logloss", "ne", "pcoc", "ece@5"], threshold=1, sample_weight="w", backend="postgres")
