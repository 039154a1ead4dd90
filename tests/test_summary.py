"""The additive summary layer: partitions of whole groups add up to the one-partition result.

Oracle: the pandas functions on the whole frame. Every test here cuts the frame into random
partitions of whole groups (some empty), summarizes each, adds the summaries in several orders
(and through bytes) and checks that finalize gives the pandas result to 1e-12.
"""

from __future__ import annotations

import math
import pickle
import warnings

import numpy as np
import pandas as pd
import pytest

import pandas_rankeval as pre
from pandas_rankeval import summary as S
from pandas_rankeval.summary.extras import evaluation_extras
from pandas_rankeval.summary.auc_counts import _auc_counts_exact
from pandas_rankeval.summary.finalize import ci_method as ci_words
from pandas_rankeval.tables import finalize

GROUP_METRICS = ["gauc", "mrr", "mrr@3", "ndcg", "ndcg@5", "map", "map@4", "precision@3", "recall@3", "hit_rate@2"]


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pre.CoverageWarning)
        yield


def _frame(n_users: int = 200, seed: int = 5, string_keys: bool = False) -> pd.DataFrame:
    df = pre.datasets.make_impressions(n_users=n_users, seed=seed, max_rows_per_user=40)
    df["a_tied"] = df["model_a"].round(1)  # heavy ties within and across groups
    rng = np.random.default_rng(seed)
    # single-class and one-row groups
    extra = pd.DataFrame({
        "user_id": np.repeat([10_001, 10_002, 10_003, 10_004], [1, 1, 3, 3]),
        "click": [1, 0, 1, 1, 1, 0, 0, 0],
        "relevance": [2, 0, 1, 3, 1, 0, 0, 0],
    })
    donor = rng.integers(0, len(df), 4)[np.repeat(np.arange(4), [1, 1, 3, 3])]  # group-level columns stay constant
    for c in df.columns:
        if c not in extra.columns:
            extra[c] = df[c].iloc[donor].to_numpy()
    extra["model_a"] = rng.random(len(extra))
    df = pd.concat([df, extra], ignore_index=True)
    if string_keys:
        df["user_id"] = "u" + df["user_id"].astype(str)
    return df.sample(frac=1.0, random_state=seed).reset_index(drop=True)


def _parts(df: pd.DataFrame, n_parts: int, seed: int = 0, group: str = "user_id") -> list[pd.DataFrame]:
    """Random partitions of whole groups; some partitions may be empty (one always is)."""
    keys = df[group].unique()
    rng = np.random.default_rng(seed)
    where = pd.Series(rng.integers(0, n_parts, len(keys)), index=keys)
    p = df[group].map(where).to_numpy()
    return [df[p == i] for i in range(n_parts)] + [df.iloc[:0]]


def _summaries(df: pd.DataFrame, plan: S.Plan, n_parts: int, seed: int = 0) -> list[S.Summary]:
    return [S.summarize(part, plan) for part in _parts(df, n_parts, seed)]


def _equal(a: pd.DataFrame, b: pd.DataFrame, atol: float = 1e-12) -> None:
    a, b = pd.DataFrame(a), pd.DataFrame(b)
    assert list(a.columns) == list(b.columns)
    assert a.index.equals(b.index)
    for c in a.columns:
        x, y = a[c].to_numpy(), b[c].to_numpy()
        if x.dtype.kind in "fc" or y.dtype.kind in "fc":
            # relative too: a bootstrap-t end in a degenerate segment can be far from [0, 1]
            np.testing.assert_allclose(x.astype(float), y.astype(float), rtol=atol, atol=atol, err_msg=str(c))
        else:
            assert (x == y).all(), c


def _segment_auc(df: pd.DataFrame, plan: S.Plan) -> dict:
    """Global AUC per (segment, score) from the pandas function: the engines' job, here the oracle's."""
    o = plan.options
    kw = {"ties": o.ties, "threshold": o.threshold, "tiebreak": o.tiebreak, "sample_weight": o.sample_weight}
    out = {}
    if plan.by:
        for key, sub in df.groupby(plan.by, sort=False):
            key = key if isinstance(key, tuple) else (key,)
            for s in plan.scores:
                out[(key, s)] = float(pre.auc(sub, label=plan.label, score=s, **kw))
    else:
        for s in plan.scores:
            out[((), s)] = float(pre.auc(df, label=plan.label, score=s, **kw))
    return out


# --------------------------------------------------------------------------- #
# report
# --------------------------------------------------------------------------- #
@pytest.mark.parametrize("n_parts", [1, 7, 32])
@pytest.mark.parametrize("string_keys", [False, True])
def test_report_partitions_add_up_to_pandas(n_parts, string_keys):
    df = _frame(string_keys=string_keys)
    kw = dict(group="user_id", label="relevance", scores=["model_a", "a_tied"], metrics=GROUP_METRICS)
    plan = S.make_plan("report", kind="report", **kw)
    sums = _summaries(df, plan, n_parts, seed=n_parts)
    expected = pre.report(df, **kw)
    _equal(finalize(sum(sums), plan), expected)
    # merge order is irrelevant, and so is a trip through bytes
    rng = np.random.default_rng(1)
    shuffled = [sums[i] for i in rng.permutation(len(sums))]
    tree = shuffled[0]
    for s in shuffled[1:]:
        tree = S.Summary.from_bytes((S.Summary.from_bytes(s.to_bytes()) + tree).to_bytes())
    _equal(finalize(tree, plan), expected)


@pytest.mark.parametrize(
    "label, options",
    [
        ("click", {}),
        ("click", {"ties": "pessimistic", "by": "device"}),
        ("click", {"ties": "optimistic", "weight": "uniform", "by": ["device", "country"]}),
        ("relevance", {"weight": "log1p", "empty": "skip"}),
        ("relevance", {"threshold": 2, "gain": "linear", "denominator": "min_k"}),
        ("click", {"weight": "clicks", "min_size": 3, "min_neg": 2, "tiebreak": "position"}),
        ("click", {"weight": "position"}),  # a column: per-group sums
    ],
)
def test_report_options_and_segments(label, options):
    df = _frame()
    kw = dict(group="user_id", label=label, scores=["model_b", "a_tied"], metrics=["auc", *GROUP_METRICS], **options)
    plan = S.make_plan("report", kind="report", **kw)
    sums = _summaries(df, plan, 7)
    _equal(finalize(sum(sums), plan, auc=_segment_auc(df, plan)), pre.report(df, **kw))


def test_report_multi_column_keys_and_auc_only():
    df = _frame()
    df["half"] = df["user_id"] % 2
    kw = dict(group=["user_id", "half"], label="click", scores=["model_a"], metrics=["auc"])
    plan = S.make_plan("report", kind="report", **kw)
    _equal(finalize(sum(_summaries(df, plan, 5)), plan, auc=_segment_auc(df, plan)), pre.report(df, **kw))
    kw["by"] = "device"
    plan = S.make_plan("report", kind="report", **kw)
    _equal(finalize(sum(_summaries(df, plan, 5)), plan, auc=_segment_auc(df, plan)), pre.report(df, **kw))


# --------------------------------------------------------------------------- #
# single metrics: value and coverage
# --------------------------------------------------------------------------- #
@pytest.mark.parametrize(
    "func, metric, kw",
    [
        (pre.gauc, "gauc", {"min_size": 4}),
        (pre.gauc, "gauc", {"weight": "uniform", "ties": "pessimistic"}),
        (pre.mrr, "mrr@5", {"k": 5}),
        (pre.ndcg, "ndcg@3", {"k": 3, "empty": "skip"}),
        (pre.precision, "precision@2", {"k": 2}),
    ],
)
def test_single_metric_value_and_coverage(func, metric, kw):
    df = _frame()
    plan_kw = {k: v for k, v in kw.items() if k != "k"}
    plan = S.make_plan(func.__name__, kind="metric", group="user_id", label="relevance", scores="model_a",
                       metrics=[metric], **plan_kw)
    got = finalize(sum(_summaries(df, plan, 7)), plan)
    want = func(df, group="user_id", label="relevance", score="model_a", **kw)
    assert isinstance(got, pre.MetricResult)
    assert float(got) == pytest.approx(float(want), abs=1e-12)
    assert got.metric == want.metric and got.params == want.params
    a, b = got.coverage.as_dict(), want.coverage.as_dict()
    for k in a:
        assert a[k] == pytest.approx(b[k], abs=1e-12), k


def test_single_metric_warnings_match_pandas():
    df = pd.DataFrame({"u": [1, 1, 2, 2], "y": [1, 1, 0, 0], "s": [0.1, 0.2, 0.3, 0.4]})
    plan = S.make_plan("gauc", kind="metric", group="u", label="y", scores="s", metrics=["gauc"])
    with pytest.warns(pre.CoverageWarning) as want:
        pre.gauc(df, group="u", label="y", score="s")
    with pytest.warns(pre.CoverageWarning) as got:
        res = finalize(S.summarize(df[df.u == 1], plan) + S.summarize(df[df.u == 2], plan), plan)
    assert [str(w.message) for w in got] == [str(w.message) for w in want]
    assert "NaN" in str(got[0].message)
    assert math.isnan(res) and res.coverage.n_only_pos == 1 and res.coverage.n_only_neg == 1


# --------------------------------------------------------------------------- #
# errors with whole-table counts
# --------------------------------------------------------------------------- #
def test_missing_values_counted_then_raised_or_dropped():
    df = _frame()
    df.loc[df.index[::50], "model_a"] = np.nan
    df.loc[df.index[3::70], "click"] = np.nan
    kw = dict(group="user_id", label="click", scores=["model_a"], metrics=["gauc", "mrr"])
    plan = S.make_plan("report", kind="report", **kw)
    total = sum(_summaries(df, plan, 7))  # no error on the partitions
    with pytest.raises(ValueError) as want:
        pre.report(df, **kw)
    with pytest.raises(ValueError) as got:
        finalize(total, plan)
    assert str(got.value) == str(want.value)
    assert str(int(df["click"].isna().sum())) in str(got.value)
    plan = S.make_plan("report", kind="report", nan_policy="omit", **kw)
    out = finalize(sum(_summaries(df, plan, 7)), plan)
    _equal(out, pre.report(df, nan_policy="omit", **kw))
    assert out["rows_dropped"].iloc[0] == int((df["model_a"].isna() | df["click"].isna()).sum())


def test_every_row_missing_and_empty_frame():
    df = pd.DataFrame({"u": [1, 2], "y": [1, 0], "s": [np.nan, np.nan]})
    plan = S.make_plan("report", kind="report", group="u", label="y", scores="s", metrics=["mrr"],
                       nan_policy="omit")
    with pytest.raises(ValueError, match="every row has a missing value in \\['s'\\]"):
        finalize(S.summarize(df.iloc[:1], plan) + S.summarize(df.iloc[1:], plan), plan)
    with pytest.raises(ValueError, match="report got an empty DataFrame \\(0 rows\\)"):
        finalize(S.empty_summary(plan) + S.summarize(df.iloc[:0], plan), plan)


def test_empty_error_raised_with_whole_table_counts():
    df = _frame()
    kw = dict(group="user_id", label="click", scores=["model_a"], metrics=["mrr", "ndcg@5"], empty="error")
    plan = S.make_plan("report", kind="report", **kw)
    total = sum(_summaries(df, plan, 7))
    with pytest.raises(ValueError) as want:
        pre.report(df, **kw)
    with pytest.raises(ValueError) as got:
        finalize(total, plan)
    assert str(got.value) == str(want.value)
    assert f"of {df['user_id'].nunique():,} groups have no relevant row" in str(got.value)


def test_summaries_of_different_plans_do_not_add():
    df = _frame(n_users=20)
    a = S.summarize(df, S.make_plan("report", kind="report", group="user_id", label="click",
                                    scores=["model_a"], metrics=["gauc"]))
    b = S.summarize(df, S.make_plan("report", kind="report", group="user_id", label="click",
                                    scores=["model_a"], metrics=["gauc", "mrr"]))
    with pytest.raises(ValueError, match="different plans"):
        a + b


def test_summary_is_small_and_picklable():
    df = _frame(n_users=400)
    plan = S.make_plan("report", kind="report", group="user_id", label="click", scores=["model_a", "model_b"],
                       metrics=["gauc", "mrr", "ndcg@10"], by="device")
    s = S.summarize(df, plan)
    assert len(s.to_bytes()) < 10_000  # no per-group rows
    again = pickle.loads(pickle.dumps(s))
    _equal(finalize(again, plan), finalize(s, plan), atol=0)
    assert sum([s]) is s


# --------------------------------------------------------------------------- #
# global AUC counts
# --------------------------------------------------------------------------- #
def _brute_auc_counts(scores, labels):
    pos = scores[labels == 1]
    neg = scores[labels == 0]
    greater = int((pos[:, None] > neg[None, :]).sum())
    tied = int((pos[:, None] == neg[None, :]).sum())
    return len(pos), len(neg), greater, tied


@pytest.mark.parametrize("seed", range(5))
def test_auc_counts_chained_over_range_partitions(seed):
    rng = np.random.default_rng(seed)
    s = rng.integers(0, 30, 400).astype(float)  # many ties
    y = (rng.random(400) < 0.3).astype(int)
    d = pd.DataFrame({"s": s, "y": y}).groupby("s")["y"].agg(pos="sum", n="count").sort_index()
    pos = d["pos"].to_numpy()
    neg = (d["n"] - d["pos"]).to_numpy()
    cuts = np.sort(rng.choice(np.arange(1, len(d)), size=4, replace=False))
    parts = [S.auc_counts_sorted(p, q) for p, q in zip(np.split(pos, cuts), np.split(neg, cuts))]
    c = S.chain_auc(parts)
    assert (c.pos, c.neg, c.greater, c.tied) == _brute_auc_counts(s, y)
    df = pd.DataFrame({"s": s, "y": y})
    for ties in ("expected", "pessimistic", "optimistic"):
        assert c.value(ties) == pytest.approx(float(pre.auc(df, label="y", score="s", ties=ties)), abs=1e-15)


def test_auc_counts_near_2_63_are_exact():
    """Counts of 1e11 rows, products far beyond 2**63: exact Python integers, checked by hand."""
    big = 2**62 + 12345
    pos = np.array([big, 3, 2**40], dtype=np.int64)
    neg = np.array([2**62 + 7, big, 5], dtype=np.int64)
    p, n, g, t = S.auc_counts_sorted(pos, neg)
    P = big + 3 + 2**40
    N = 2**62 + 7 + big + 5
    assert (p, n) == (P, N) and N > 2**63  # the total itself overflows int64
    assert g == 3 * (2**62 + 7) + 2**40 * (2**62 + 7 + big)
    assert t == big * (2**62 + 7) + 3 * big + 2**40 * 5
    assert S.chain_auc([(p, n, g, t)]).value() == pytest.approx((2 * g + t) / (2 * P * N), rel=1e-15)
    # 1e11 rows split over 4 range partitions, 2.5e10 rows each, chained on the client
    rows = 25_000_000_000
    parts = [S.auc_counts_sorted(np.array([rows // 2, 0]), np.array([0, rows // 2])) for _ in range(4)]
    c = S.chain_auc(parts)
    half = rows // 2
    assert c.pos == c.neg == 4 * half
    assert c.greater == sum(half * (k * half) for k in range(4))  # all earlier negatives, no local pair
    assert c.tied == 0
    assert c.value() == pytest.approx(c.greater / (c.pos * c.neg), rel=1e-15)
    # the int64 fast path and the exact path agree where both apply
    rng = np.random.default_rng(0)
    a, b = rng.integers(0, 1000, 50), rng.integers(0, 1000, 50)
    assert S.auc_counts_sorted(a, b) == _auc_counts_exact(a, b)


def test_auc_counts_float_weights_and_bad_input():
    p, n, g, t = S.auc_counts_sorted(np.array([0.5, 1.5]), np.array([2.0, 0.0]))
    assert (p, n, g, t) == (2.0, 2.0, 3.0, 1.0)
    with pytest.raises(ValueError, match="counts must be >= 0"):
        S.auc_counts_sorted(np.array([1, -1]), np.array([0, 1]))
    assert math.isnan(S.AucCounts(0, 5, 0, 0).value())


# --------------------------------------------------------------------------- #
# hashed bootstrap and sign flips: independent of the partitioning, equal to pandas
# --------------------------------------------------------------------------- #
def _engine_auc(df: pd.DataFrame, plan: S.Plan) -> dict:
    """The global-AUC pieces an engine computes in its own score pass (here: from pandas' sort)."""
    from pandas_rankeval.core.evaluation.pipeline import evaluate

    ev = evaluate(df, group=plan.group, label=plan.label, scores=plan.scores, specs=plan.all_specs,
                  options=plan.options, keep_order=True, by=plan.by)
    return evaluation_extras(ev, plan)


@pytest.mark.parametrize("string_keys", [False, True])
@pytest.mark.parametrize("ci_method", ["percentile", "studentized"])
def test_hashed_report_interval_does_not_depend_on_partitions(string_keys, ci_method):
    df = _frame(string_keys=string_keys)
    kw = dict(group="user_id", label="click", scores=["model_a", "a_tied"], metrics=["auc", "gauc", "mrr", "ndcg@5"],
              ci=0.9, n_boot=64, seed=3, ci_method=ci_method)
    plan = S.make_plan("report", kind="report", **kw)
    extras = _engine_auc(df, plan)
    expected = pre.report(df, **kw)
    for n_parts in (1, 7, 32):
        _equal(finalize(sum(_summaries(df, plan, n_parts, seed=n_parts)), plan, **extras), expected)
    assert (expected["gauc_high"] > expected["gauc_low"]).all()
    assert expected.attrs["ci"]["method"].startswith(ci_words(plan))
    assert "(hashed Poisson(1) weights)" in expected.attrs["ci"]["method"]
    other = pre.report(df, **{**kw, "seed": 4})
    assert not np.allclose(other["gauc_low"], expected["gauc_low"])


@pytest.mark.parametrize(
    "auc_method, ci_method, method",
    [("delong", "percentile", "auto"), ("bootstrap", "studentized", "auto"), ("delong", "percentile", "randomization")],
)
def test_hashed_compare_does_not_depend_on_partitions(auc_method, ci_method, method):
    df = _frame()
    kw = dict(group="user_id", label="click", scores=["model_a", "model_b", "a_tied"], baseline="model_a",
              metrics=["auc", "gauc", "mrr", "ndcg@5"], by="device", n_boot=99, seed=1, auc_method=auc_method,
              ci_method=ci_method, method=method)
    plan = S.make_plan("compare", kind="compare", **kw)
    assert len(plan.flip_pairs) == 6
    extras = _engine_auc(df, plan)
    expected = pre.compare(df, **kw)
    for n_parts in (1, 7, 32):
        _equal(finalize(sum(_summaries(df, plan, n_parts, seed=2)), plan, **extras), expected)
    tests = expected.attrs["test"]
    gauc = expected.xs("gauc", level="metric")["p_value"].to_numpy() * 100
    if method == "randomization":
        assert tests["gauc"] == "paired randomization test (Monte Carlo: random sign flips of the per-group differences)"
        # p-values of the Monte Carlo test are multiples of 1 / (n_boot + 1)
        np.testing.assert_allclose(gauc, np.round(gauc), rtol=0, atol=1e-9)
    else:
        assert tests["gauc"].startswith("paired sign-flip test of the per-group differences: exact")
        assert seg_field(plan, df, "sf_top").shape == (6, 30)


def seg_field(plan, df, name):
    """One field of the first segment of a one-partition summary (its shape per segment)."""
    summary = sum(_summaries(df, plan, 1, seed=0))
    return next(iter(summary.segments.values()))[name]


def test_same_seed_same_interval_whatever_the_row_order_and_key_dtype():
    df = _frame(string_keys=True)
    kw = dict(group="user_id", label="click", scores=["model_a"], metrics=["gauc", "mrr"], ci=0.95, n_boot=200,
              seed=7)
    a = pre.report(df, **kw)
    shuffled = df.sample(frac=1.0, random_state=1)
    _equal(pre.report(shuffled, **kw), a)
    _equal(pre.report(shuffled.astype({"user_id": "category"}), **kw), a)
    # the multinomial bootstrap draws groups by position: another order, another interval
    m1 = pre.report(df, resample="multinomial", **kw)
    m2 = pre.report(shuffled, resample="multinomial", **kw)
    assert not np.allclose(m1["gauc_low"], m2["gauc_low"])
    ints = _frame()
    _equal(pre.report(ints.astype({"user_id": "Int32"}), **kw), pre.report(ints, **kw))


# --------------------------------------------------------------------------- #
# clustered DeLong at scale: placements from range partitions of distinct scores
# --------------------------------------------------------------------------- #
def _placement_columns(df: pd.DataFrame, plan: S.Plan, n_ranges: int, seed: int = 0) -> pd.DataFrame:
    """What an engine does: per (segment, score), count (pos, neg) per distinct score, cut the
    distinct scores into range partitions, chain their offsets, and give every row its placement."""
    rng = np.random.default_rng(seed)
    out = df.copy()
    rel = (df[plan.label] > 0).to_numpy()
    seg = df[plan.by].apply(tuple, axis=1) if plan.by else pd.Series([()] * len(df), index=df.index)
    for k, s in enumerate(plan.scores):
        col = f"__place_{k}"
        out[col] = np.nan
        for key in seg.unique():
            rows = (seg == key).to_numpy()
            d = pd.DataFrame({"s": df.loc[rows, s].to_numpy(), "rel": rel[rows]})
            t = d.groupby("s")["rel"].agg(pos="sum", n="count").sort_index()
            pos, neg = t["pos"].to_numpy(), (t["n"] - t["pos"]).to_numpy()
            cuts = np.sort(rng.choice(np.arange(1, len(t)), size=min(n_ranges - 1, len(t) - 1), replace=False))
            parts = [(p, q) for p, q in zip(np.split(pos, cuts), np.split(neg, cuts))]
            offs = S.chain_offsets([S.auc_counts_sorted(p, q) for p, q in parts])
            a = np.concatenate([S.placements_sorted(p, q, nb, pa)[0] for (p, q), (nb, pa) in zip(parts, offs)])
            b = np.concatenate([S.placements_sorted(p, q, nb, pa)[1] for (p, q), (nb, pa) in zip(parts, offs)])
            at = np.searchsorted(t.index.to_numpy(), d["s"].to_numpy())
            out.loc[rows, col] = np.where(d["rel"].to_numpy(), a[at], b[at])
    return out


@pytest.mark.parametrize("by", [None, "device"])
def test_delong_from_placement_columns_equals_pandas(by):
    df = _frame()
    kw = dict(group="user_id", label="click", scores=["a_tied", "model_b"], metrics=["auc", "gauc"], by=by)
    plan = S.make_plan("report", kind="report", ci=0.9, n_boot=50, seed=1,
                       placement_columns=["__place_0", "__place_1"], **kw)
    placed = _placement_columns(df, plan, n_ranges=5)
    auc = _segment_auc(df, plan)
    got = finalize(sum(_summaries(placed, plan, 7)), plan, auc=auc)  # no delong=: it is in the summary
    _equal(got, pre.report(df, ci=0.9, n_boot=50, seed=1, **kw))
    assert "clustered DeLong" in got.attrs["ci"]["method"]
    cplan = S.make_plan("compare", kind="compare", baseline="a_tied", n_boot=50, seed=1,
                        placement_columns=["__place_0", "__place_1"], **kw)
    got = finalize(sum(_summaries(placed, cplan, 7)), cplan, auc=auc)
    _equal(got, pre.compare(df, baseline="a_tied", n_boot=50, seed=1, **kw))


def test_chain_offsets_and_placements_match_the_sort():
    from pandas_rankeval.inference.delong import row_placements
    from pandas_rankeval.core.ranking.tie_blocks import score_rank

    rng = np.random.default_rng(3)
    s = rng.integers(0, 12, 300).astype(float)
    y = rng.random(300) < 0.4
    order, rank = score_rank(s, ties="expected", level=y.astype(np.uint8))
    rows, place = row_placements(order, rank, y)
    want = np.empty(300)
    want[rows] = place
    t = pd.DataFrame({"s": s, "y": y}).groupby("s")["y"].agg(pos="sum", n="count")
    pos, neg = t["pos"].to_numpy(), (t["n"] - t["pos"]).to_numpy()
    parts = [(pos[:4], neg[:4]), (pos[4:9], neg[4:9]), (pos[9:], neg[9:])]
    offs = S.chain_offsets([S.auc_counts_sorted(p, q) for p, q in parts])
    a = np.concatenate([S.placements_sorted(p, q, *o)[0] for (p, q), o in zip(parts, offs)])
    b = np.concatenate([S.placements_sorted(p, q, *o)[1] for (p, q), o in zip(parts, offs)])
    at = np.searchsorted(t.index.to_numpy(), s)
    np.testing.assert_array_equal(np.where(y, a[at], b[at]), want)


@pytest.mark.parametrize("sample_weight", [None, "position"])
def test_global_auc_alone_needs_no_groups(sample_weight):
    """Global AUC by itself: any partition of the rows (not whole groups), coverage as pandas."""
    df = _frame()
    df.loc[df.index[::40], "model_a"] = np.nan
    plan = S.make_plan("auc", kind="metric", group=None, label="click", scores="model_a", metrics=["auc"],
                       sample_weight=sample_weight, nan_policy="omit")
    assert plan.group == [] and not plan.specs
    chunks = np.array_split(np.arange(len(df)), 9)
    total = sum(S.summarize(df.iloc[c], plan) for c in chunks)
    want = pre.auc(df, label="click", score="model_a", sample_weight=sample_weight, nan_policy="omit")
    got = finalize(total, plan, auc={((), "model_a"): float(want)})
    assert float(got) == float(want) and got.coverage == want.coverage and got.params == want.params
    strict = S.make_plan("auc", kind="metric", group=None, label="click", scores="model_a", metrics=["auc"])
    with pytest.raises(ValueError, match=r"Column 'model_a' has \d+ missing values"):
        finalize(sum(S.summarize(df.iloc[c], strict) for c in chunks), strict, auc={})


@pytest.mark.parametrize(
    "column, value, kw",
    [
        ("relevance", -1, {"metrics": ["ndcg@5"]}),
        ("relevance", np.inf, {"metrics": ["mrr"]}),
        ("position", -2.0, {"metrics": ["gauc"], "weight": "position"}),
    ],
)
def test_bad_values_raised_with_whole_table_counts(column, value, kw):
    df = _frame()
    df[column] = df[column].astype(float)
    df.loc[df.index[::30], column] = value
    args = dict(group="user_id", label="relevance", scores=["model_a"], **kw)
    plan = S.make_plan("report", kind="report", **args)
    total = sum(_summaries(df, plan, 7))  # the partitions count, none raises
    with pytest.raises(ValueError) as want:
        pre.report(df, **args)
    with pytest.raises(ValueError) as got:
        finalize(S.Summary.from_bytes(total.to_bytes()), plan)
    assert str(got.value) == str(want.value)
    assert f"{len(df.index[::30]):,}" in str(got.value)


def test_summary_of_counts_equals_the_row_pass():
    df = _frame()
    df.loc[df.index[::40], "model_a"] = np.nan
    plan = S.make_plan("auc", kind="metric", group=None, label="click", scores="model_a", metrics=["auc"],
                       sample_weight="position", nan_policy="omit")
    scanned = S.summarize(df, plan)
    kept = df.dropna(subset=["model_a"])
    rel = kept["click"] > 0
    counted = S.summary_of_counts(
        plan, n_rows=len(kept), n_pos=int(rel.sum()), missing={"model_a": int(df["model_a"].isna().sum())},
        n_dropped=len(df) - len(kept), sw_pos=float(kept.loc[rel, "position"].sum()),
        sw_neg=float(kept.loc[~rel, "position"].sum()),
    )
    auc = {((), "model_a"): 0.7}
    a, b = finalize(scanned, plan, auc=auc), finalize(counted, plan, auc=auc)
    assert float(a) == float(b) and a.coverage == b.coverage
    with pytest.raises(ValueError, match="global AUC alone"):
        S.summary_of_counts(S.make_plan("gauc", kind="metric", group="user_id", label="click", scores="model_a",
                                        metrics=["gauc"]), n_rows=1, n_pos=1)


def test_replicate_sums_do_not_depend_on_threads(monkeypatch):
    """The hashed replicate sums run on two threads by a fixed split of the group chunks: two
    runs give identical intervals, and so do one thread and three (the chunks
    were split by the number of threads, and a call on a worker thread, which takes one, differed
    from the same call in the main thread in the last bit)."""
    from pandas_rankeval.summary import replicate_sums

    df = _frame()
    kw = dict(group="user_id", label="click", scores=["model_a", "model_b"], metrics=["gauc", "mrr", "ndcg@5"],
              ci=0.9, n_boot=300, seed=5, by="device")
    monkeypatch.setattr(replicate_sums, "CHUNK_ELEMENTS", 3000)  # many chunks of groups
    from pandas_rankeval.core.threads import limit_threads

    with limit_threads(2):
        two = pre.report(df, **kw)
        pd.testing.assert_frame_equal(pre.report(df, **kw), two, check_exact=True)
    for n in (1, 3):
        with limit_threads(n):
            pd.testing.assert_frame_equal(pre.report(df, **kw), two, check_exact=True)


def test_every_field_is_one_entry_of_the_fields_table():
    """A Summary's fields are named, typed records of FIELDS (dtype, layout, merge rule,
    meaning): every field a partition writes has an entry, the zero segment is the table's fills,
    and two summaries merge by each entry's rule (sf_top keeps the largest, sf_min the smallest)."""
    from pandas_rankeval.summary.summary import FIELDS, RESULT_FIELDS, _seg_zero

    names = [f.name for f in FIELDS]
    assert len(names) == len(set(names)) and all(f.doc for f in FIELDS)
    zero = _seg_zero(3, 4, 2)
    assert list(zero) == [n for n in names if n not in RESULT_FIELDS]
    assert zero["sf_min"].tolist() == [np.inf, np.inf] and zero["boot"].shape == (4, 3, 2)
    df = pre.datasets.make_impressions(n_users=60, seed=5)
    plan = S.make_plan("compare", kind="compare", group="user_id", label="click", scores=["model_a", "model_b"],
                     metrics=["gauc", "mrr"], n_boot=20, baseline="model_a")
    a, b = S.summarize(df[df.user_id % 2 == 0], plan), S.summarize(df[df.user_id % 2 == 1], plan)
    assert set(a.data) <= set(names)
    both = a + b
    np.testing.assert_array_equal(both.data["sf_min"], np.minimum(a.data["sf_min"], b.data["sf_min"]))
    np.testing.assert_array_equal(both.data["n_rows"], a.data["n_rows"] + b.data["n_rows"])
    np.testing.assert_array_equal(both.data["sf_top"].max(axis=-1), np.maximum(a.data["sf_top"].max(axis=-1), b.data["sf_top"].max(axis=-1)))


def test_summary_data_is_a_typed_record_of_the_fields_table():
    """``Summary.data`` and one segment's fields are TypedDicts whose keys are FIELDS'
    names in its order; a field typed ``| None`` is exactly one the plan may leave out (its layout
    can be None); a scalar field of a segment is a Python number; an undeclared name is refused."""
    import typing

    from pandas_rankeval.summary.summary import FIELDS, SegmentFields, Summary, SummaryData, as_data

    names = [f.name for f in FIELDS]
    hints, seg_hints = typing.get_type_hints(SummaryData), typing.get_type_hints(SegmentFields)
    assert list(hints) == names and list(seg_hints) == names
    layouts = [(i, b, p, fl) for i in (0, 2) for b in (0, 3) for p in (0, 1) for fl in (False, True)]
    for f in FIELDS:
        may_be_none = f.kind == "result" or any(f.shape(s) is None for s in layouts)
        assert (type(None) in typing.get_args(hints[f.name])) == may_be_none, f.name
        assert seg_hints[f.name] == ({np.int64: int, np.float64: float}[f.dtype] if f.scalar else hints[f.name]), f.name
    df = pre.datasets.make_impressions(n_users=20, seed=5)
    plan = S.make_plan("report", kind="report", group="user_id", label="click", scores=["model_a"], metrics=["gauc"])
    s = S.summarize(df, plan)
    seg = s.segments[()]
    assert isinstance(seg["n_groups"], int) and isinstance(seg["sw_pos"], float) and seg["sums"].shape == (1, 2)
    with pytest.raises(ValueError, match=r"\['n_grups'\] are not declared"):
        Summary(None, {}, 0, 0, s.shape, keys=s.keys, data={**s.data, "n_grups": s.data["n_groups"]})
    assert as_data({}) == {}


def test_bootstrap_draws_skip_groups_that_count_nowhere():
    """Groups whose every replicate column is 0 (no metric uses them) are left out of the
    hashed draws; every group's draws come from its own key hash, so the intervals and p-values
    equal the computation over every group (the reference switch: one dense product of every
    group's draws), to rounding of the chunked sums."""
    from pandas_rankeval.core.reference import reference_paths

    df = pre.datasets.make_impressions(n_users=300, seed=11)
    kw = dict(group="user_id", label="click", scores=["model_a", "model_b"], metrics=["gauc"], ci=0.9, n_boot=50, seed=3)
    classes = df.groupby("user_id")["click"].nunique()
    assert 0 < (classes < 2).sum() < classes.shape[0]  # some groups have one class only: 0 in GAUC's columns
    fast = pre.report(df, **kw), pre.compare(df, baseline="model_a", method="bootstrap", **kw)
    with reference_paths():
        full = pre.report(df, **kw), pre.compare(df, baseline="model_a", method="bootstrap", **kw)
    for a, b in zip(fast, full):
        num = a.select_dtypes("number").columns
        np.testing.assert_allclose(a[num].to_numpy(float), b[num].to_numpy(float), rtol=0, atol=1e-12)


@pytest.mark.parametrize("by", [None, "device"])
def test_groups_nonzero_in_the_weights_only_multiply_those_alone(by):
    """Under empty="zero" the groups with no relevant row are nonzero in the weight
    columns only; their draws are multiplied by those columns alone (after the other groups), and
    every interval and p-value (bootstrap and sign flips, one segment or big ones) equals the
    full-width product (the reference switch: one dense product of every group's draws) to
    rounding. The chunks, the light groups and the segments' branches of the sums are checked
    one by one against the dense product in tests/test_replicate_sums.py."""
    from pandas_rankeval.core.reference import reference_paths

    df = pre.datasets.make_impressions(n_users=600, seed=11)
    df["device"] = np.where(df["user_id"] % 3 == 0, "phone", "desktop")  # two segments of >= 64 groups
    kw = dict(group="user_id", label="click", scores=["model_a", "model_b"], metrics=["mrr", "ndcg@5", "gauc"],
              n_boot=40, seed=3, by=by)
    no_click = df.groupby("user_id")["click"].max() == 0
    assert 0.25 <= no_click.mean() < 1  # groups with no relevant row: nonzero in MRR's weights only

    def calls():
        return (pre.report(df, ci=0.9, **kw), pre.compare(df, baseline="model_a", method="bootstrap", **kw),
                pre.compare(df, baseline="model_a", method="randomization", **kw))

    fast = calls()
    with reference_paths():
        full = calls()
    for a, b in zip(fast, full):
        num = a.select_dtypes("number").columns
        assert a[num].notna().to_numpy().sum() > 0
        np.testing.assert_allclose(a[num].to_numpy(float), b[num].to_numpy(float), rtol=0, atol=1e-12)


@pytest.mark.parametrize("weight, empty", [("uniform", "zero"), ("uniform", "skip"), ("count", "zero"), ("clicks", "skip")])
def test_report_items_sharing_masks_and_weights_are_their_own_means(weight, empty):
    """summarize_evaluation works out each distinct (used mask, weight array) once for all the
    items of a report, and skips w * v when every group is used with weight 1: every value is
    still its own weighted mean of per_group's values over the groups it uses (ties, a one-row
    group, groups with no relevant row or one class, rows shuffled)."""
    rng = np.random.default_rng(11)
    n = 3000
    df = pd.DataFrame({"g": rng.integers(0, 400, n), "y": (rng.random(n) < 0.15).astype(int),
                       "a": rng.random(n), "b": np.round(rng.random(n), 1)})
    df = pd.concat([df, pd.DataFrame({"g": [999], "y": [1], "a": [0.5], "b": [0.5]})], ignore_index=True)
    df = df.sample(frac=1.0, random_state=3).reset_index(drop=True)
    metrics = ["gauc", "mrr", "ndcg@5", "recall@3", "hit_rate@3"]
    kw = dict(group="g", label="y", scores=["a", "b"], metrics=metrics, weight=weight, empty=empty)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rep = pd.DataFrame(pre.report(df, **kw))
        pg = pd.DataFrame(pre.per_group(df, **kw))
    w = {"uniform": np.ones(len(pg)), "count": pg["n"].to_numpy(float), "clicks": pg["positives"].to_numpy(float)}[weight]
    for s in ("a", "b"):
        for m in metrics:
            v = pg[f"{s}_{'auc' if m == 'gauc' else m}"].to_numpy(float)
            used = ~np.isnan(v) & (w > 0)
            want = float(np.sum(w[used] * v[used]) / np.sum(w[used]))
            assert math.isclose(float(rep.loc[s, m]), want, rel_tol=1e-13, abs_tol=1e-15), (s, m)
