"""TREC runs and qrels (pre.read_trec) and rows outside the ranking (retrieved=).

Oracles: pytrec_eval (trec_eval's own C code) and ranx for trec_eval's numbers (ties broken by
docno, tiebreak="docno"); brute-force enumeration of every ordering of tied documents for the
expected value under ties (the default), with the non-retrieved relevant documents counted in
the denominators by hand.
"""

from __future__ import annotations

import io
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import pytrec_eval  # the test extra: trec_eval's C code
from _oracles import tie_value
from test_engine_parity import ENGINES, OPTIONS, assert_same, engine_frame  # noqa: F401

import pandas_rankeval as pre

DATA = Path(__file__).parent / "data"

# --------------------------------------------------------------------------- #
# A run and qrels written here: ties, unjudged documents, relevant documents not retrieved, a
# query the run lacks, a query of the run the qrels lack, graded qrels, a query with no relevant
# document, a second run retrieving other documents
# --------------------------------------------------------------------------- #
RUN_A = """\
q1 Q0 d1 1 3.0 A
q1 Q0 d2 2 2.0 A
q1 Q0 d3 3 2.0 A
q1 Q0 d4 4 2.0 A
q1 Q0 d5 5 1.0 A
q2 Q0 e1 1 0.9 A
q2 Q0 e2 2 0.9 A
q2 Q0 e3 3 0.5 A
q2 Q0 e7 4 0.1 A
q3 Q0 f1 1 5.0 A
q3 Q0 f2 2 4.0 A
q5 Q0 g1 1 1.0 A
q6 Q0 h1 1 2.0 A
q6 Q0 h2 2 2.0 A
"""
RUN_B = """\
q1 Q0 d9 1 7.0 B
q1 Q0 d2 2 6.0 B
q1 Q0 d1 3 6.0 B
q2 Q0 e3 1 1.0 B
q2 Q0 e4 2 1.0 B
q2 Q0 e1 3 1.0 B
q3 Q0 f2 1 2.0 B
q4 Q0 k1 1 1.0 B
q6 Q0 h2 1 3.0 B
"""
QRELS = """\
q1 0 d1 0
q1 0 d2 2
q1 0 d3 1
q1 0 d4 0
q1 0 d8 1
q1 0 d9 3
q2 0 e1 1
q2 0 e2 0
q2 0 e4 2
q2 0 e5 1
q3 0 f1 0
q3 0 f2 0
q4 0 k1 1
q4 0 k2 2
q6 0 h1 1
q6 0 h2 1
"""
# trec_eval's measure -> (our metric, options)
MEASURES = {
    "map": ("map", {}),
    "map_cut_3": ("map@3", {}),
    "ndcg": ("ndcg", {"gain": "linear"}),
    "ndcg_cut_2": ("ndcg@2", {"gain": "linear"}),
    "ndcg_cut_10": ("ndcg@10", {"gain": "linear"}),
    "P_2": ("precision@2", {}),
    "P_5": ("precision@5", {}),
    "recall_2": ("recall@2", {}),
    "recall_10": ("recall@10", {}),
    "recip_rank": ("mrr", {}),
    "success_1": ("hit_rate@1", {}),
    "Rprec": ("rprec", {}),
}


def _dicts(run_text: str, qrels_text: str) -> tuple[dict, dict]:
    run: dict = {}
    for line in run_text.splitlines():
        q, _, d, _, s, _ = line.split()
        run.setdefault(q, {})[d] = float(s)
    qrels: dict = {}
    for line in qrels_text.splitlines():
        q, _, d, r = line.split()
        qrels.setdefault(q, {})[d] = int(r)
    return run, qrels


def trec_eval(run_text: str, qrels_text: str, measures, relevance_level: int = 1) -> dict:
    run, qrels = _dicts(run_text, qrels_text)
    ev = pytrec_eval.RelevanceEvaluator(qrels, set(measures), relevance_level=relevance_level)
    return ev.evaluate(run)


def ours_per_query(table: pd.DataFrame, run: str, metric: str, **options) -> pd.Series:
    pg = pre.per_group(table, group="qid", label="relevance", score=run, metrics=[metric],
                       retrieved=table.attrs["retrieved"], **options)
    return pd.DataFrame(pg)[metric]


@pytest.mark.parametrize("measure", list(MEASURES))
def test_every_metric_equals_trec_eval_per_query_and_mean(measure):
    metric, options = MEASURES[measure]
    with pytest.warns(UserWarning, match="1 query of the runs have no judgment"):
        table = pre.read_trec(io.StringIO(RUN_A), io.StringIO(QRELS), tiebreak="docno")
    want = trec_eval(RUN_A, QRELS, [measure])
    got = ours_per_query(table, "A", metric, **options)
    assert sorted(got.index) == sorted(want)  # the run's judged queries: q1, q2, q3, q6
    for q, values in want.items():
        assert got[q] == pytest.approx(values[measure], abs=1e-12), (q, measure)
    mean = pre.report(table, group="qid", label="relevance", scores=["A"], metrics=[metric],
                      retrieved=table.attrs["retrieved"], **options)
    assert mean.loc["A", metric] == pytest.approx(np.mean([v[measure] for v in want.values()]), abs=1e-12)


@pytest.mark.parametrize("measure", ["map", "P_2", "recall_10", "recip_rank", "Rprec"])
def test_relevance_level_is_the_threshold(measure):
    metric, options = MEASURES[measure]
    with pytest.warns(UserWarning):
        table = pre.read_trec(io.StringIO(RUN_A), io.StringIO(QRELS), tiebreak="docno")
    want = trec_eval(RUN_A, QRELS, [measure], relevance_level=2)
    got = ours_per_query(table, "A", metric, threshold=2, **options)
    for q, values in want.items():
        assert got[q] == pytest.approx(values[measure], abs=1e-12)


def test_complete_counts_the_missing_queries_as_zero():
    """-c: the qrels' queries the run lacks (q4) score 0, in the mean over every qrels query."""
    with pytest.warns(UserWarning):
        table = pre.read_trec(io.StringIO(RUN_A), io.StringIO(QRELS), tiebreak="docno", complete=True)
    want = trec_eval(RUN_A, QRELS, ["map", "ndcg"])
    queries = sorted({line.split()[0] for line in QRELS.splitlines()})
    assert sorted(table["qid"].unique()) == queries
    for measure, metric, opts in (("map", "map", {}), ("ndcg", "ndcg", {"gain": "linear"})):
        got = pre.report(table, group="qid", label="relevance", scores=["A"], metrics=[metric],
                         retrieved=table.attrs["retrieved"], **opts).loc["A", metric]
        expected = sum(want.get(q, {measure: 0.0})[measure] for q in queries) / len(queries)
        assert got == pytest.approx(expected, abs=1e-12)


def test_complete_counts_a_query_with_no_relevant_document_that_no_run_answered():
    """-c over a query the qrels judge (nothing relevant) and the run lacks: it is in the table,
    outside every ranking, and scores 0 in the mean."""
    qrels = QRELS + "q7 0 z1 0\nq7 0 z2 0\n"
    with pytest.warns(UserWarning):
        table = pre.read_trec(io.StringIO(RUN_A), io.StringIO(qrels), tiebreak="docno", complete=True)
    rows = table[table["qid"] == "q7"]
    assert rows["docno"].tolist() == ["z1", "z2"] and not rows["retrieved"].any()
    want = trec_eval(RUN_A, qrels, ["map"])
    queries = sorted({line.split()[0] for line in qrels.splitlines()})
    got = pre.average_precision(table, group="qid", label="relevance", score="A", retrieved="retrieved")
    assert float(got) == pytest.approx(sum(want.get(q, {"map": 0.0})["map"] for q in queries) / len(queries), abs=1e-12)
    assert len(queries) == 6 and table["qid"].nunique() == 6


def test_depth_and_judged_only_equal_trec_eval_on_the_cut_run():
    """-M 2 keeps the first 2 documents in trec_eval's order; -J the judged ones: trec_eval on the
    run cut by hand gives the same numbers."""
    run, qrels = _dicts(RUN_A, QRELS)
    cut = {}
    for q, docs in run.items():
        order = sorted(docs, key=lambda d: (-docs[d], [-ord(c) for c in d]))
        cut[q] = {d: docs[d] for d in order[:2]}
    judged = {q: {d: s for d, s in docs.items() if d in qrels.get(q, {})} for q, docs in run.items()}
    for kwargs, run_dict in (({"depth": 2}, cut), ({"judged_only": True}, judged)):
        with pytest.warns(UserWarning):
            table = pre.read_trec(io.StringIO(RUN_A), io.StringIO(QRELS), tiebreak="docno", **kwargs)
        run_dict = {q: d for q, d in run_dict.items() if d}
        want = pytrec_eval.RelevanceEvaluator(qrels, {"map", "P_5", "ndcg"}).evaluate(run_dict)
        for measure in ("map", "P_5", "ndcg"):
            metric, options = MEASURES[measure]
            got = ours_per_query(table, "A", metric, **options)
            for q, values in want.items():
                assert got[q] == pytest.approx(values[measure], abs=1e-12), (kwargs, q, measure)


@pytest.mark.slow  # ranx compiles its numba kernels on first use: ~40-140 s on 2 busy cores, cached after
def test_ranx_agrees_on_a_tie_free_run():
    import ranx

    with pytest.warns(UserWarning):
        table = pre.read_trec(io.StringIO(RUN_A), io.StringIO(QRELS), tiebreak="docno")
    # trec_eval's order as distinct scores (minus the rank): ranx then sees no tie
    ret = table[table["retrieved"]]
    run = {q: dict(zip(rows["docno"], rows["A"].astype(float))) for q, rows in ret.groupby("qid")}
    _, qrels = _dicts(RUN_A, QRELS)
    # the queries with a relevant document (ranx's qrels hold relevant documents only)
    qrels = {q: {d: r for d, r in docs.items() if r > 0} for q, docs in qrels.items() if q in run}
    qrels = {q: docs for q, docs in qrels.items() if docs}
    run = {q: docs for q, docs in run.items() if q in qrels}
    r_qrels, r_run = ranx.Qrels(qrels), ranx.Run(run)
    pairs = {"map": ("map", {}), "ndcg": ("ndcg", {"gain": "linear"}), "ndcg@2": ("ndcg@2", {"gain": "linear"}),
             "precision@2": ("precision@2", {}), "recall@2": ("recall@2", {}), "mrr": ("mrr", {}),
             "hit_rate@1": ("hit_rate@1", {})}
    ranx.evaluate(r_qrels, r_run, list(pairs), return_mean=False)
    sub = table[table["qid"].isin(list(qrels))]
    sub.attrs = table.attrs
    for name, (metric, options) in pairs.items():
        got = ours_per_query(sub, "A", metric, **options)
        for q in qrels:
            assert got[q] == pytest.approx(r_run.scores[name][q], abs=1e-12), (name, q)


# --------------------------------------------------------------------------- #
# The expected value under ties: brute force over every ordering of the retrieved documents
# --------------------------------------------------------------------------- #
def _oracle(metric: str, k, extra: list, gain: str = "linear"):
    """A metric of the retrieved labels in rank order, with the relevant documents the run did not
    retrieve (``extra``) counted in the denominators and the ideal DCG."""

    def g(x):
        return float(x) if gain == "linear" else 2.0 ** x - 1.0

    def f(labels):
        labels = list(labels)
        n_rel = sum(x > 0 for x in labels) + sum(x > 0 for x in extra)
        top = labels if k is None else labels[:k]
        if metric == "precision":
            return sum(x > 0 for x in top) / k
        if metric == "recall":
            return sum(x > 0 for x in top) / n_rel if n_rel else 0.0
        if metric == "mrr":
            return next((1.0 / (i + 1) for i, x in enumerate(top) if x > 0), 0.0)
        if metric == "rprec":  # R counts the relevant documents not retrieved; they never rank
            return sum(x > 0 for x in labels[:n_rel]) / n_rel if n_rel else 0.0
        if metric == "map":
            hits, s = 0, 0.0
            for i, x in enumerate(top):
                if x > 0:
                    hits += 1
                    s += hits / (i + 1)
            return s / n_rel if n_rel else 0.0
        ideal = sorted(labels + list(extra), reverse=True)
        ideal = ideal if k is None else ideal[:k]
        idcg = sum(g(x) / math.log2(i + 2) for i, x in enumerate(ideal))
        dcg = sum(g(x) / math.log2(i + 2) for i, x in enumerate(top))
        return dcg / idcg if idcg > 0 else 0.0

    return f


@pytest.mark.parametrize("name,metric,k", [("map", "map", None), ("map@3", "map", 3), ("ndcg", "ndcg", None),
                                           ("ndcg@2", "ndcg", 2), ("precision@3", "precision", 3),
                                           ("recall@2", "recall", 2), ("mrr", "mrr", None),
                                           ("rprec", "rprec", None)])
def test_expected_value_under_ties_equals_brute_force(name, metric, k):
    with pytest.warns(UserWarning):
        table = pre.read_trec(io.StringIO(RUN_A), io.StringIO(QRELS))
    got = ours_per_query(table, "A", name, **({"gain": "linear"} if metric == "ndcg" else {}))
    for q, rows in table.groupby("qid"):
        ret = rows[rows["retrieved"]]
        extra = rows.loc[~rows["retrieved"], "relevance"].tolist()
        want = tie_value(_oracle(metric, k, extra), ret["relevance"].tolist(), ret["A"].tolist())
        assert got[q] == pytest.approx(want, abs=1e-12), (q, name)


def test_the_expected_value_differs_from_trec_eval_only_through_ties():
    """q1 holds a three-way tie: the default (expected) and tiebreak='docno' differ there, agree elsewhere."""
    with pytest.warns(UserWarning):
        expected = pre.read_trec(io.StringIO(RUN_A), io.StringIO(QRELS))
    with pytest.warns(UserWarning):
        docno = pre.read_trec(io.StringIO(RUN_A), io.StringIO(QRELS), tiebreak="docno")
    a = ours_per_query(expected, "A", "map")
    b = ours_per_query(docno, "A", "map")
    assert a["q3"] == b["q3"] and a["q1"] != pytest.approx(b["q1"])


# --------------------------------------------------------------------------- #
# Several runs: one table, one retrieved column each
# --------------------------------------------------------------------------- #
def test_many_runs_in_one_table_equal_each_run_read_alone():
    with pytest.warns(UserWarning):
        both = pre.read_trec({"A": io.StringIO(RUN_A), "B": io.StringIO(RUN_B)}, io.StringIO(QRELS), tiebreak="docno",
                             complete=True)
    assert both.attrs["retrieved"] == {"A": "retrieved_A", "B": "retrieved_B"}
    metrics = ["map", "ndcg@10", "recall@10", "precision@2", "mrr", "rprec"]
    table = pre.report(both, group="qid", label="relevance", scores=["A", "B"], metrics=metrics,
                       retrieved=both.attrs["retrieved"])
    _, qrels = _dicts(RUN_A, QRELS)
    queries = sorted(qrels)
    for name, text in (("A", RUN_A), ("B", RUN_B)):
        want = trec_eval(text, QRELS, ["map", "ndcg_cut_10", "recall_10", "P_2", "recip_rank", "Rprec"])
        for metric, measure in zip(metrics, ["map", "ndcg_cut_10", "recall_10", "P_2", "recip_rank", "Rprec"]):
            if metric.startswith("ndcg"):
                continue  # exp2 gain by default: checked with gain="linear" below
            mean = sum(want.get(q, {measure: 0.0})[measure] for q in queries) / len(queries)
            assert table.loc[name, metric] == pytest.approx(mean, abs=1e-12), (name, metric)
    cmp = pre.compare(both, group="qid", label="relevance", scores=["A", "B"], metrics=["ndcg"], gain="linear",
                      retrieved=both.attrs["retrieved"], adjust="holm")
    want_a = trec_eval(RUN_A, QRELS, ["ndcg"])
    want_b = trec_eval(RUN_B, QRELS, ["ndcg"])
    diff = np.mean([want_b.get(q, {"ndcg": 0})["ndcg"] - want_a.get(q, {"ndcg": 0})["ndcg"] for q in queries])
    assert float(pd.DataFrame(cmp)["diff"].iloc[0]) == pytest.approx(diff, abs=1e-12)


def test_read_trec_inputs_and_errors(tmp_path):
    run_path = tmp_path / "myrun.txt"
    run_path.write_text(RUN_A.replace(" A\n", " A\n"))
    qrels_path = tmp_path / "qrels.txt"
    qrels_path.write_text(QRELS)
    with pytest.warns(UserWarning):
        from_path = pre.read_trec(run_path, qrels_path)
    frame = pd.DataFrame([line.split() for line in RUN_A.splitlines()],
                         columns=["query_id", "q0", "doc_id", "rank", "score", "tag"])
    qrels = pd.DataFrame([line.split() for line in QRELS.splitlines()], columns=["qid", "iter", "docno", "rel"])
    with pytest.warns(UserWarning):
        from_frames = pre.read_trec(frame, qrels)
    pd.testing.assert_frame_equal(from_path, from_frames)
    assert list(from_path.columns) == ["qid", "docno", "relevance", "judged", "A", "retrieved"]
    # one row per retrieved document of a judged query, plus the relevant ones not retrieved
    assert int(from_path["retrieved"].sum()) == 13 and int((~from_path["retrieved"]).sum()) == 4
    with pytest.raises(ValueError, match="more than once"):
        pre.read_trec(io.StringIO(RUN_A + "q1 Q0 d1 9 0.0 A\n"), io.StringIO(QRELS))
    with pytest.raises(ValueError, match="fields per line"):
        pre.read_trec(io.StringIO("q1 d1 1.0\n"), io.StringIO(QRELS))
    with pytest.raises(ValueError, match="'tiebreak' parameter of read_trec"):
        pre.read_trec(io.StringIO(RUN_A), io.StringIO(QRELS), tiebreak="random")
    with pytest.raises(ValueError, match="'depth' parameter"):
        pre.read_trec(io.StringIO(RUN_A), io.StringIO(QRELS), depth=0)


def test_progress_counts_the_files_and_changes_nothing(capsys):
    pytest.importorskip("tqdm")

    def read(**kw):
        return pre.read_trec({"A": io.StringIO(RUN_A), "B": io.StringIO(RUN_B)}, io.StringIO(QRELS), **kw)

    with pytest.warns(UserWarning) as plain_warnings:
        plain = read()
    assert capsys.readouterr().err == ""
    with pytest.warns(UserWarning) as shown_warnings:
        shown = read(progress=True)
    pd.testing.assert_frame_equal(shown, plain)
    assert shown.attrs == plain.attrs
    err = capsys.readouterr().err
    assert "read_trec" in err and "5/5" in err  # the qrels, then each of the 2 runs read and joined
    # the warnings still point at the caller's line
    assert [str(w.message) for w in shown_warnings] == [str(w.message) for w in plain_warnings]
    assert {w.filename for w in shown_warnings} == {__file__}


# --------------------------------------------------------------------------- #
# retrieved= itself
# --------------------------------------------------------------------------- #
def test_retrieved_errors_are_clear_and_the_frame_is_untouched():
    df = pd.DataFrame({"q": [1, 1, 1, 2, 2], "y": [1, 0, 1, 1, 0], "s": [0.3, 0.2, -np.inf, 0.5, 0.1],
                       "r": [True, True, False, True, True]})
    before = df.copy()
    with pytest.raises(ValueError, match=r"\['gauc'\] read every row's score"):
        pre.report(df, group="q", label="y", scores=["s"], metrics=["gauc", "ndcg"], retrieved="r")
    with pytest.raises(ValueError, match=r"Column 'r2' \(retrieved\) must hold booleans"):
        pre.ndcg(df.assign(r2=[1, 2, 0, 1, 1]), group="q", label="y", score="s", retrieved="r2")
    with pytest.raises(ValueError, match="not score columns"):
        pre.report(df, group="q", label="y", scores=["s"], metrics=["ndcg"], retrieved={"t": "r"})
    with pytest.raises(ValueError, match="-inf among the retrieved rows"):
        pre.ndcg(df.assign(s=[0.3, -np.inf, 0.0, 0.5, 0.1]), group="q", label="y", score="s", retrieved="r")
    # q1: one relevant row of two outside the ranking: recall@1 = 1/2, AP = 1/2
    assert pre.recall(df, group="q", label="y", score="s", k=1, retrieved="r") == pytest.approx((0.5 + 1) / 2)
    assert pre.average_precision(df, group="q", label="y", score="s", retrieved="r") == pytest.approx(0.75)
    pd.testing.assert_frame_equal(df, before)


def test_shipped_example_matches_trec_eval():
    """The run and qrels of the TREC guide (docs/guide/trec.md): trec_eval's numbers."""
    run_text = (DATA / "trec_run.txt").read_text()
    qrels_text = (DATA / "trec_qrels.txt").read_text()
    table = pre.read_trec(DATA / "trec_run.txt", DATA / "trec_qrels.txt", tiebreak="docno")
    want = trec_eval(run_text, qrels_text, ["map", "ndcg_cut_10", "P_5", "recall_10", "recip_rank", "Rprec"])
    got = pre.report(table, group="qid", label="relevance", scores=table.attrs["runs"],
                     metrics=["map", "ndcg@10", "precision@5", "recall@10", "mrr", "rprec"], gain="linear",
                     retrieved=table.attrs["retrieved"])
    name = table.attrs["runs"][0]
    for metric, measure in zip(["map", "ndcg@10", "precision@5", "recall@10", "mrr", "rprec"],
                               ["map", "ndcg_cut_10", "P_5", "recall_10", "recip_rank", "Rprec"]):
        mean = np.mean([v[measure] for v in want.values()])
        assert got.loc[name, metric] == pytest.approx(mean, abs=1e-12)


# --------------------------------------------------------------------------- #
# Every engine: the same numbers as pandas
# --------------------------------------------------------------------------- #
@pytest.mark.parametrize("engine", ENGINES)
def test_engines_agree_with_pandas(engine, engine_frame):
    with pytest.warns(UserWarning):
        both = pre.read_trec({"A": io.StringIO(RUN_A), "B": io.StringIO(RUN_B)}, io.StringIO(QRELS), complete=True)
    df = pd.DataFrame(both)  # attrs dropped: the columns as an engine receives them
    metrics = ["map", "ndcg@3", "recall@2", "mrr", "rprec"] if engine == "spark" else [
        "map", "ndcg", "ndcg@3", "recall@2", "precision@3", "mrr", "hit_rate@2", "err@3", "rprec"]
    kw = dict(group="qid", label="relevance", scores=["A", "B"], retrieved=dict(both.attrs["retrieved"]),
              metrics=metrics)
    got = pre.report(engine_frame(df), engine_options=OPTIONS.get(engine), **kw)
    assert_same(got, pre.report(df, **kw))


def test_rows_outside_the_ranking_when_every_label_is_relevant():
    """No label level gains nothing (every label is relevant, as in a partition of an engine holding
    such groups only): the rows outside the ranking get one below the others. Brute force."""
    df = pd.DataFrame({"q": [1, 1, 1, 1, 2, 2], "y": [1, 2, 2, 1, 3, 1], "s": [0.5, 0.5, 0.1, 0.0, 0.2, 0.0],
                       "r": [True, True, True, False, True, False]})
    for name, metric, k in (("ndcg", "ndcg", None), ("map", "map", None), ("recall@1", "recall", 1)):
        got = pre.per_group(df, group="q", label="y", score="s", metrics=[name], gain="linear", retrieved="r")
        for q, rows in df.groupby("q"):
            ret = rows[rows["r"]]
            want = tie_value(_oracle(metric, k, rows.loc[~rows["r"], "y"].tolist()), ret["y"].tolist(), ret["s"].tolist())
            assert pd.DataFrame(got).loc[q, name] == pytest.approx(want, abs=1e-12)
    # threshold at or below every label: the same rule
    got = pre.average_precision(df, group="q", label="y", score="s", threshold=1, retrieved="r")
    assert float(got) == pytest.approx(np.mean([(1 + 1 + 1) / 4 * 1.0, 1 / 2]))


def test_metrics_without_a_denominator_read_the_retrieved_rows_only():
    """RBP, ERR, precision@k, MRR and hit rate have no per-group denominator: with rows outside the
    ranking they equal the same metric on the retrieved rows alone, under every tie rule."""
    with pytest.warns(UserWarning):
        table = pre.read_trec(io.StringIO(RUN_A), io.StringIO(QRELS))
    alone = table[table["retrieved"]]
    for ties in ("expected", "pessimistic", "optimistic"):
        for metric in ("rbp@0.8", "err@3", "precision@5", "mrr", "hit_rate@2"):
            kw = dict(group="qid", label="relevance", score="A", metrics=[metric], ties=ties)
            got = pd.DataFrame(pre.per_group(table, retrieved="retrieved", **kw))[metric]
            want = pd.DataFrame(pre.per_group(alone, **kw))[metric]
            np.testing.assert_allclose(got.to_numpy(), want.reindex(got.index).to_numpy(), rtol=0, atol=1e-15)
