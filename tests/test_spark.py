"""pandas_rankeval.spark against pandas on one local[2] SparkSession for the whole run
(the ``spark`` and ``connect`` fixtures of conftest.py).

Every check compares with the pandas functions on the same rows (to 1e-12). Spark jobs
cost about a second each on this machine, so each test batches many checks into few
calls (one report over many metrics, several scores per call).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest

import pandas_rankeval as pre
import pandas_rankeval.spark as prs
from pandas_rankeval import CoverageWarning

# pyspark 4.3 on pandas 3.1 (what installs): its version notice, and its own use of a
# deprecated pandas keyword when converting to pandas; nothing else is silenced
pytestmark = [
    pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning"),
    pytest.mark.filterwarnings("ignore:The copy keyword is deprecated:Warning:pyspark"),
]

TOL = 1e-12


def _jobs(spark) -> set[int]:
    return set(spark.sparkContext.statusTracker().getJobIdsForGroup(None))


def make_frame(n_groups: int = 120, seed: int = 0, string_keys: bool = False) -> pd.DataFrame:
    """Long-tailed groups (one-row groups, single-class groups), tie-heavy scores,
    graded labels, a segment column constant per group and a weight column."""
    rng = np.random.default_rng(seed)
    sizes = rng.choice([1, 2, 3, 5, 8, 13, 40], size=n_groups, p=[0.15, 0.15, 0.2, 0.2, 0.15, 0.1, 0.05])
    g = np.repeat(np.arange(n_groups), sizes)
    n = g.shape[0]
    rate = rng.beta(0.8, 3.0, n_groups)[g]
    rel = rng.random(n) < rate
    grade = np.where(rel, rng.integers(1, 4, n), 0)
    df = pd.DataFrame(
        {
            "g": (g * 7919 + 11).astype(np.int64),
            "y": rel.astype(np.int64),
            "grade": grade.astype(np.int64),
            "s_cont": rng.normal(size=n) + rel,
            "s_tie": np.round(rng.random(n) * 4) / 4 + 0.25 * rel,  # 5-6 distinct values
            "s_int": rng.integers(0, 3, n).astype(np.int32),
            "seg": np.array(["de", "fr", "us"])[np.arange(n_groups) % 3][g],
            "w": rng.integers(1, 5, n_groups)[g].astype(np.float64),
            "tb": rng.integers(0, 4, n),
        }
    )
    if string_keys:
        df["g"] = "u" + df["g"].astype(str)
    return df.sample(frac=1.0, random_state=seed).reset_index(drop=True)


@pytest.fixture(scope="session")
def frame() -> pd.DataFrame:
    return make_frame()


@pytest.fixture(scope="session")
def sdf(spark, frame):
    return spark.createDataFrame(frame).cache()


# --------------------------------------------------------------------------- per_group
def test_per_group_is_exact(spark, frame, sdf):
    metrics = ["auc", "mrr@3", "ndcg@5", "map", "precision@2", "recall@4", "hit_rate@1"]
    table = prs.per_group(sdf, group="g", label="grade", score="s_tie", metrics=metrics, weight="w")
    assert table.columns == ["g", "n", "positives", *metrics, "weight"]
    got = table.toPandas().set_index("g").sort_index()
    want = pre.per_group(frame, group="g", label="grade", score="s_tie", metrics=metrics, weight="w").sort_index()
    assert got.index.equals(want.index)
    assert (got[["n", "positives"]].to_numpy() == want[["n", "positives"]].to_numpy()).all()
    np.testing.assert_allclose(got[metrics].to_numpy(), want[metrics].to_numpy(), rtol=0, atol=TOL)
    np.testing.assert_array_equal(got["weight"].to_numpy(), want["weight"].to_numpy())


def test_per_group_is_lazy(spark, sdf, frame):
    """The call runs the scan and, for a weight callable, one aggregation of the group statistics
    (the callable is called once, on the driver, with every group); the per-group metrics run
    when the table is used."""
    calls: list[int] = []

    def weight(stats: pd.DataFrame) -> pd.Series:
        calls.append(len(stats))
        return stats["n"].astype(float)

    tracker = spark.sparkContext.statusTracker()
    spark.sparkContext.setJobGroup("per_group_call", "per_group call")
    table = prs.per_group(sdf, group="g", label="y", score="s_cont", weight=weight)
    at_call = len(tracker.getJobIdsForGroup("per_group_call"))
    spark.sparkContext.setJobGroup("per_group_use", "per_group use")
    rows = table.collect()
    spark.sparkContext.setJobGroup("", "")
    assert at_call <= 2 and len(tracker.getJobIdsForGroup("per_group_use")) >= 1
    assert calls == [frame["g"].nunique()]
    assert len(rows) == frame["g"].nunique()


def test_per_group_string_and_two_column_keys(spark):
    df = make_frame(60, seed=4, string_keys=True)
    df["g2"] = df["seg"]
    sdf = spark.createDataFrame(df)
    got = (
        prs.per_group(sdf, group=["g", "g2"], label="y", score="s_cont", metrics=["auc", "ndcg@3"],
                      ties="pessimistic", buckets=5)
        .toPandas().set_index(["g", "g2"]).sort_index()
    )
    want = pre.per_group(df, group=["g", "g2"], label="y", score="s_cont", metrics=["auc", "ndcg@3"],
                         ties="pessimistic").sort_index()
    assert got.index.equals(want.index)
    np.testing.assert_allclose(got[["auc", "ndcg@3"]].to_numpy(), want[["auc", "ndcg@3"]].to_numpy(), atol=TOL)


# --------------------------------------------------------------------------- bad input
def test_bad_input_raises_the_pandas_errors_before_any_job(spark, frame, sdf):
    before = _jobs(spark)
    cases = [
        (dict(group="g", label="y", score="nope"), KeyError, "nope"),
        (dict(group="gg", label="y", score="s_cont"), KeyError, "Did you mean 'g'"),
        (dict(group="g", label="seg", score="s_cont"), TypeError, "'seg' (label) must be numeric"),
        (dict(group="g", label="y", score="seg"), TypeError, "'seg' (score) must be numeric"),
        (dict(group="g", label="y", score="s_cont", ties="random"), ValueError, "'ties' parameter"),
        (dict(group="g", label="y", score="s_cont", weight="wrong"), KeyError, "'weight' parameter"),
        (dict(group="g", label="y", score="s_cont", min_size=-1), ValueError, "'min_size'"),
        (dict(group="g", label="y", score="s_cont", metrics=["ndcg@0"]), ValueError, "ndcg@0"),
        (dict(group="g", label="y", score="s_cont", buckets=0), ValueError, "'buckets'"),
    ]
    for kwargs, exc, text in cases:
        with pytest.raises(exc, match=None) as info:
            prs.per_group(sdf, **kwargs)
        assert text in str(info.value), (kwargs, str(info.value))
    with pytest.raises(TypeError, match="pyspark.sql.DataFrame"):
        prs.per_group(frame, group="g", label="y", score="s_cont")
    assert _jobs(spark) == before


def _with_missing(spark, frame):
    """The frame with, in Spark, a null and two NaN scores (s_cont) and one null label."""
    df = frame.reset_index().rename(columns={"index": "rid"})
    sdf = spark.createDataFrame(df)
    F = prs.functions_of(sdf)
    s = F.col("s_cont")
    s = F.when(F.col("rid") == 3, F.lit(None)).when(F.col("rid").isin(5, 8), F.lit(float("nan"))).otherwise(s)
    y = F.when(F.col("rid") == 8, F.lit(None)).otherwise(F.col("y"))
    sdf = sdf.withColumn("s_cont", s).withColumn("y", y)
    kept = df[~df["rid"].isin([3, 5, 8])]
    return sdf, kept


def _pandas_with_missing(frame):
    df = frame.copy()
    df.loc[[3, 5, 8], "s_cont"] = np.nan
    df["y"] = df["y"].astype(float)
    df.loc[8, "y"] = np.nan
    return df


def test_missing_values_nulls_and_nan_are_counted(spark, frame):
    sdf, kept = _with_missing(spark, frame)
    F = prs.functions_of(sdf)
    counts = sdf.agg(F.sum(F.col("s_cont").isNull().cast("int")), F.sum(F.isnan("s_cont").cast("int"))).first()
    assert (counts[0], counts[1]) == (1, 2)  # Spark holds both kinds
    with pytest.raises(ValueError, match=r"Column 'y' has 1 missing value \(NULL or NaN\) \(also missing values in \['s_cont'\]\)"):
        prs.per_group(sdf, group="g", label="y", score="s_cont")
    with pytest.raises(ValueError, match=r"Column 's_cont' has 3 missing values \(NULL or NaN\)\. Pass nan_policy='omit'"):
        prs.per_group(sdf, group="g", label="grade", score="s_cont")
    got = prs.per_group(sdf, group="g", label="y", score="s_cont", nan_policy="omit", metrics=["auc", "mrr"])
    got = got.toPandas().set_index("g").sort_index()
    want = pre.per_group(kept, group="g", label="y", score="s_cont", metrics=["auc", "mrr"]).sort_index()
    assert got.index.equals(want.index)
    np.testing.assert_allclose(got[["auc", "mrr"]].to_numpy(), want[["auc", "mrr"]].to_numpy(), atol=TOL)


# --------------------------------------------------------------------------- metrics
ALL_METRICS = ["auc", "gauc", "mrr", "mrr@2", "ndcg", "ndcg@3", "map", "map@4", "precision@2", "recall@3", "hit_rate@1"]


def _same_table(got: pd.DataFrame, want: pd.DataFrame) -> None:
    assert type(got) is type(want)
    assert list(got.columns) == list(want.columns)
    assert got.index.equals(want.index)
    num = [c for c in want.columns if pd.api.types.is_numeric_dtype(want[c]) and not pd.api.types.is_bool_dtype(want[c])]
    np.testing.assert_allclose(got[num].to_numpy(float), want[num].to_numpy(float), rtol=0, atol=TOL)
    other = [c for c in want.columns if c not in num]
    assert got[other].equals(want[other])
    assert got.attrs.get("params") == want.attrs.get("params")


@pytest.mark.parametrize("shuffle_partitions", [1, 7])
def test_report_every_metric_is_exact(spark, frame, sdf, shuffle_partitions):
    """Every metric, four score columns (continuous, tie-heavy, small ints, huge int64),
    graded labels; the tie-heavy scores span many range partitions (buckets=5)."""
    df = frame.assign(s_big=(2**60 + frame["s_int"].astype(np.int64) * 3 + frame["tb"]))
    data = spark.createDataFrame(df)
    spark.conf.set("spark.sql.shuffle.partitions", str(shuffle_partitions))
    try:
        kw = dict(group="g", label="grade", scores=["s_cont", "s_tie", "s_int", "s_big"], metrics=ALL_METRICS)
        _same_table(prs.report(data, buckets=5, **kw), pre.report(df, **kw))
    finally:
        spark.conf.set("spark.sql.shuffle.partitions", "3")


def test_report_options_segments_and_string_keys(spark):
    df = make_frame(90, seed=5, string_keys=True)
    data = spark.createDataFrame(df)
    cases = [
        dict(by="seg", ties="pessimistic", threshold=2, gain="linear", empty="skip"),
        dict(weight="w", min_size=3, min_neg=1, ties="optimistic", denominator="min_k", tiebreak="tb"),
        dict(weight="log1p", min_pos=2, empty="zero", by=["seg"]),
    ]
    for opts in cases:
        kw = dict(group="g", label="grade", scores=["s_tie", "s_cont"], metrics=ALL_METRICS, **opts)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", CoverageWarning)
            got = prs.report(data, rows_per_bucket=100, **kw)
            want = pre.report(df, **kw)
        _same_table(got, want)


def test_single_metric_functions(spark, frame, sdf):
    common = dict(group="g", label="grade", score="s_tie")
    calls = [
        ("gauc", dict(weight="w", min_size=2)),
        ("gauc", dict(implementation="sklearn", ties="expected")),
        ("mrr", dict(k=3, ties="pessimistic")),
        ("ndcg", dict(k=4, gain="linear")),
        ("average_precision", dict(k=5, denominator="min_k")),
        ("precision", dict(k=2, empty="skip")),
        ("recall", dict(k=3, threshold=2)),
        ("hit_rate", dict(k=1, tiebreak="tb")),
    ]
    for name, kw in calls:
        with warnings.catch_warnings(record=True) as got_w:
            warnings.simplefilter("always")
            got = getattr(prs, name)(sdf, **common, **kw)
        with warnings.catch_warnings(record=True) as want_w:
            warnings.simplefilter("always")
            want = getattr(pre, name)(frame, **common, **kw)
        assert type(got) is type(want)
        assert abs(got - want) <= TOL, (name, kw)
        assert got.coverage == want.coverage and got.params == want.params, (name, kw)
        assert [type(w.message) for w in got_w] == [type(w.message) for w in want_w], (name, kw)
        assert [str(w.message).replace("spark.", "") for w in got_w] == [str(w.message) for w in want_w]


def test_auc_ties_tiebreak_sample_weight(spark, frame, sdf):
    for kw in (
        dict(score="s_tie"),
        dict(score="s_tie", ties="pessimistic"),
        dict(score="s_tie", ties="optimistic", threshold=2),
        dict(score="s_int", tiebreak="tb"),
        dict(score="s_tie", sample_weight="w"),
    ):
        got = prs.auc(sdf, label="grade", buckets=4, **kw)
        want = pre.auc(frame, label="grade", **kw)
        assert abs(got - want) <= TOL, kw
        assert got.coverage == want.coverage and got.params == want.params, kw
    with pytest.warns(CoverageWarning, match="NaN"):
        assert math.isnan(prs.auc(sdf.filter("y = 0"), label="y", score="s_cont"))


def test_missing_values_in_report(spark, frame):
    data, kept = _with_missing(spark, frame)
    kw = dict(group="g", label="y", scores=["s_cont", "s_tie"], metrics=["auc", "gauc", "ndcg@3"])
    with pytest.raises(ValueError, match=r"Column 'y' has 1 missing value"):
        prs.report(data, **kw)
    got = prs.report(data, nan_policy="omit", **kw)
    want = pre.report(_pandas_with_missing(frame), nan_policy="omit", **kw)
    assert (got["rows_dropped"] == 3).all()
    _same_table(got, want)


def test_intervals_and_tests_use_the_hashed_replicates(spark, frame, sdf):
    """Same seed, same hashed Poisson replicates and sign flips: the same intervals and
    p-values as pandas, however the groups fall into buckets."""
    kw = dict(group="g", label="grade", scores=["s_cont", "s_tie"], metrics=["gauc", "ndcg@3", "mrr"], n_boot=199, seed=11)
    got = prs.report(sdf, ci=0.9, by="seg", buckets=3, **kw)
    want = pre.report(frame, ci=0.9, by="seg", **kw)
    _same_table(got, want)
    assert got.attrs["ci"] == want.attrs["ci"]
    got = prs.compare(sdf, baseline="s_cont", buckets=5, **kw)
    want = pre.compare(frame, baseline="s_cont", **kw)
    _same_table(got, want)
    assert got.attrs == want.attrs


def test_many_segments_reduce_their_replicates_on_the_executors(spark, frame, sdf):
    """``by=`` of one segment per group (~120) with intervals and a randomization test: each
    bucket's summary is cut into shards of segments, each shard reduced to intervals and
    p-values on an executor; pandas' tables, and the driver collects far less than one
    bucket's replicate sums (segments x replicates x items x 2 floats)."""
    from pandas_rankeval.engines.spark.session import LAST_CALL

    kw = dict(group="g", label="grade", scores=["s_cont", "s_tie"], metrics=["gauc", "mrr"], n_boot=199, seed=5,
              by="g")
    got = prs.report(sdf, ci=0.9, buckets=4, **kw)
    n_segments = frame["g"].nunique()
    one_bucket = (n_segments // 4) * 199 * 4 * 2 * 8  # a quarter of the segments' replicate sums
    assert LAST_CALL["collected_bytes"] < one_bucket / 4, (LAST_CALL["collected_bytes"], one_bucket)
    _same_table(got, pre.report(frame, ci=0.9, **kw))
    got = prs.compare(sdf, baseline="s_cont", method="randomization", buckets=4, **kw)
    want = pre.compare(frame, baseline="s_cont", method="randomization", **kw)
    _same_table(got, want)
    assert got.attrs == want.attrs


def test_signflip_pvalues_all_pairs_and_adjustments(spark, frame, sdf):
    """The default sign-flip p-values (exact below 31 differing groups, the tail approximation
    above) and their adjustments come from sums that the buckets add: pandas' table to 1e-12,
    for all pairs and for a baseline, Holm / BH per table or metric."""
    kw = dict(group="g", label="grade", scores=["s_cont", "s_tie", "s_int"], metrics=["gauc", "mrr", "ndcg@3"],
              n_boot=49, seed=2)
    for extra in ({"baseline": None, "by": "seg"}, {"baseline": "s_tie", "adjust": "bh", "family": "metric"}):
        got = prs.compare(sdf, buckets=4, **kw, **extra)
        want = pre.compare(frame, **kw, **extra)
        _same_table(got, want)
        assert got.attrs == want.attrs
    assert want["p_value"].min() < 1e-3  # not a replicate floor (1/50)


def test_clustered_delong_for_global_auc(spark, frame, sdf):
    """report(ci=) and compare with 'auc': every row gets its global placement from the
    distinct-score pass (a second job over the persisted distinct table, then a join per
    score), the buckets add the clustered-DeLong moments: pandas' interval and z-test."""
    kw = dict(group="g", label="grade", scores=["s_tie", "s_int"], metrics=["auc", "gauc"], n_boot=99, seed=3)
    got = prs.report(sdf, ci=0.9, by="seg", buckets=4, **kw)
    want = pre.report(frame, ci=0.9, by="seg", **kw)
    _same_table(got, want)
    assert got.attrs["ci"] == want.attrs["ci"]
    got = prs.compare(sdf, baseline="s_int", tiebreak="tb", buckets=3, **kw)
    want = pre.compare(frame, baseline="s_int", tiebreak="tb", **kw)
    _same_table(got, want)
    assert got.attrs == want.attrs


def test_options_without_a_distributed_form_are_refused_before_any_job(spark, sdf):
    before = _jobs(spark)
    with pytest.raises(ValueError, match="max_fpr"):
        prs.auc(sdf, label="y", score="s_cont", max_fpr=0.5)
    with pytest.raises(ValueError, match="Spark frame: a bootstrap ci .* of global 'auc'.*auc_method='bootstrap'"):
        prs.report(sdf, group="g", label="y", scores=["s_cont"], metrics=["auc", "gauc"], ci=0.9, auc_method="bootstrap")
    with pytest.raises(ValueError, match="Spark frame: a bootstrap compare of global 'auc'.*ties='pessimistic'"):
        prs.compare(sdf, group="g", label="y", scores=["s_cont", "s_tie"], baseline="s_tie", ties="pessimistic")
    with pytest.raises(KeyError, match="Did you mean 's_cont'"):
        prs.report(sdf, group="g", label="y", scores=["s_cnt"])
    with pytest.raises(TypeError, match="'seg' \\(score\\) must be numeric"):
        prs.gauc(sdf, group="g", label="y", score="seg")
    with pytest.raises(ValueError, match="'k' parameter"):
        prs.precision(sdf, group="g", label="y", score="s_cont", k=0)
    with pytest.raises(ValueError, match="resample='multinomial'"):
        prs.report(sdf, group="g", label="y", scores=["s_cont"], metrics=["gauc"], ci=0.9, resample="multinomial")
    with pytest.raises(ValueError, match="'baseline' parameter"):
        prs.compare(sdf, group="g", label="y", scores=["s_cont", "s_tie"], baseline="nope", metrics=["gauc"])
    assert _jobs(spark) == before


@pytest.mark.slow  # 4-5 s (a Spark Connect server): the slow suite, which .ci/run runs after README's command
def test_spark_connect_session(connect, frame):
    """The same report through a Spark Connect client (served by the test session's JVM)."""
    data = connect.createDataFrame(frame)
    kw = dict(group="g", label="grade", scores=["s_tie", "s_cont"], metrics=["auc", "gauc", "ndcg@3", "mrr"], by="seg")
    _same_table(prs.report(data, **kw), pre.report(frame, **kw))
    got = prs.per_group(data, group="g", label="y", score="s_tie", metrics=["auc", "mrr"]).toPandas()
    want = pre.per_group(frame, group="g", label="y", score="s_tie", metrics=["auc", "mrr"])
    got = got.set_index("g").sort_index()
    np.testing.assert_allclose(got[["auc", "mrr"]].to_numpy(), want.sort_index()[["auc", "mrr"]].to_numpy(), atol=TOL)


# --------------------------------------------------------------------------- label reading
def test_labels_read_as_pandas_reads_them(spark, frame):
    """Spark reads a label's relevance with the shared code (the range pass on the executors,
    ``core.prepare.relevance_rule`` in its aggregates): graded labels under thresholds, bool
    labels, nulls and NaN labels dropped under nan_policy='omit', and global AUC alone (its rows
    and relevant rows from the range pass) equal pandas, coverage included (a wrong count of
    relevant rows would make the AUC NaN or change the coverage's rows)."""
    df = frame.assign(flag=frame["y"].astype(bool), fy=frame["grade"].astype(float))
    df.loc[df.index[::9], "fy"] = np.nan  # NaN labels (missing for pandas)
    sdf = spark.createDataFrame(df)
    sdf = sdf.withColumn("fy", prs.functions_of(sdf).when(sdf["g"] % 5 == 0, None).otherwise(sdf["fy"]))  # and nulls
    pdf = sdf.toPandas()  # the same rows, nulls read back as NaN
    kw = dict(metrics=["auc", "gauc", "mrr", "ndcg@5"], scores=["s_tie", "s_int"])
    graded, flag, omit = (dict(label="grade", threshold=1.5), dict(label="flag", threshold=0.5),
                          dict(label="fy", threshold=2.5, nan_policy="omit"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CoverageWarning)
        for case in [flag, omit]:  # graded labels under a threshold: test_report_options_segments_and_string_keys
            _same_table(prs.report(sdf, group="g", **kw, **case), pre.report(pdf, group="g", **kw, **case))
        for case in [graded, omit]:  # global AUC alone: no group pass, the range pass's counts
            got, want = prs.auc(sdf, score="s_tie", **case), pre.auc(pdf, score="s_tie", **case)
            assert abs(float(got) - float(want)) <= TOL, case
            assert got.coverage == want.coverage, case


def test_label_errors_in_pandas_order_before_any_bucket(monkeypatch, spark, frame):
    """Labels above ERR's top grade are counted by the scan (whole-table count and largest label)
    and a by that varies within a group comes before negative labels, as in pandas; no bucket,
    range or placement job runs."""
    import pandas_rankeval.engines.spark as se

    def never(*args, **kwargs):
        raise AssertionError("a pass ran before the error")

    # the jobs of a call: the range pass of global AUC, the buckets (the driver's sources) and the bucket column
    for where, attr in [(se.SparkSource, "score_ranges"), (se.SparkSource, "reduce_buckets"), (se, "with_bucket")]:
        monkeypatch.setattr(where, attr, never)
    graded = frame.assign(grade=frame["grade"].where(frame.index % 7 != 0, 9))
    sizes = frame.groupby("g").size()
    rows = frame.index[frame["g"] == sizes[sizes >= 3].index[0]]  # a group of 3 rows or more
    mixed = frame.assign(seg=frame["seg"].where(frame.index != rows[0], "zz"),
                         grade=frame["grade"].where(frame.index != rows[1], -1))
    cases = [(graded, dict(metrics=["err@3", "ndcg"]), "rows above grade 4 (labels up to 9)"),
             (mixed, dict(metrics=["gauc", "ndcg"], by="seg"), "must be constant")]
    for df, kw, words in cases:
        with pytest.raises(ValueError) as want:
            pre.report(df, group="g", label="grade", scores=["s_cont"], **kw)
        assert words in str(want.value)
        with pytest.raises(ValueError) as got:
            prs.report(spark.createDataFrame(df), group="g", label="grade", scores=["s_cont"], **kw)
        assert str(got.value) == str(want.value)
