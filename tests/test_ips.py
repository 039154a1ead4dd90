"""Counterfactual metrics (ips_dcg@K, ips_precision@K, ips_hit_rate@K): exact under ties against
brute-force enumeration of tie orderings, a hand-worked example, the errors, a small simulation on
a click log with known truth, and every engine equal to pandas."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest

import pandas_rankeval as pre
from pandas_rankeval.datasets import make_click_log

try:
    from tests._engines import on_engine
except ImportError:
    from _engines import on_engine

pytestmark = [
    pytest.mark.filterwarnings("ignore::pandas_rankeval.CoverageWarning"),
    pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning"),
    pytest.mark.filterwarnings("ignore:The copy keyword is deprecated:Warning:pyspark"),
]

PROP = pd.Series([1.0, 0.6, 0.35, 0.2, 0.12, 0.05], index=pd.Index(range(1, 7), name="position"))


# --------------------------------------------------------------------------- #
# Brute force: every ordering of the tied rows, per-row gains click / max(p, clip)
# --------------------------------------------------------------------------- #
def _orderings(keys: list[tuple]) -> list[list[int]]:
    """Every ordering of the rows (indices) that sorts ``keys`` descending, ties in any order."""
    blocks: list[list[int]] = []
    for _, rows in itertools.groupby(sorted(range(len(keys)), key=lambda i: keys[i], reverse=True), key=lambda i: keys[i]):
        blocks.append(list(rows))
    per_block = [list(itertools.permutations(b)) for b in blocks]
    return [[i for part in combo for i in part] for combo in itertools.product(*per_block)]


def _one(metric: str, gains: list[float], order: list[int], k: int | None) -> float:
    top = order if k is None else order[:k]
    if metric == "ips_dcg":
        return math.fsum(gains[i] / math.log2(r + 2) for r, i in enumerate(top))
    hits = math.fsum(gains[i] for i in top)
    return hits / k if metric == "ips_precision" else hits  # type: ignore[operator]


def oracle(df: pd.DataFrame, metric: str, k: int | None, *, ties: str = "expected", tiebreak: str | None = None,
           clip: float = 0.01, snips: bool = False, label: str = "click") -> float:
    """Over every ordering of each group's tied rows (equal score, and tie-break value): their mean
    (``ties="expected"``), their largest value (``"optimistic"``) or their smallest
    (``"pessimistic"``): the bounds of what any order inside the ties can give."""
    pick = {"expected": lambda v: math.fsum(v) / len(v), "optimistic": max, "pessimistic": min}[ties]
    num, den = [], []
    for _, grp in df.groupby("g"):
        click = grp[label].tolist()
        gains = [1.0 / max(PROP[p], clip) if c > 0 else 0.0 for c, p in zip(click, grp["pos"])]
        keys = []
        for j, s in enumerate(grp["s"]):
            key: tuple = (s,)
            if tiebreak is not None:
                key += (-grp[tiebreak].iloc[j],)  # ascending tie-break ranks first
            keys.append(key)
        v = pick([_one(metric, gains, o, k) for o in _orderings(keys)])
        w = math.fsum(gains) if snips else 1.0
        num.append(v)  # w * (v / w)
        den.append(w)
    return math.fsum(num) / math.fsum(den)


def _frame(seed: int, n_groups: int = 30) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 7, n_groups)  # one-row groups too
    g = np.repeat(np.arange(n_groups), sizes)
    pos = np.concatenate([rng.permutation(n) + 1 for n in sizes])
    n = g.shape[0]
    return pd.DataFrame({
        "g": g, "pos": pos,
        "click": (rng.random(n) < 0.35).astype(np.int64),  # groups without a click and all-click ones
        "s": rng.integers(0, 3, n).astype(float),  # heavy ties
        "tb": rng.integers(0, 2, n),
    }).sample(frac=1.0, random_state=seed)  # shuffled rows


KW = {"group": "g", "label": "click", "score": "s", "position": "pos", "propensity": PROP}


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("ties", ["expected", "pessimistic", "optimistic"])
@pytest.mark.parametrize("snips", [False, True])
def test_equals_enumeration(seed, ties, snips):
    df = _frame(seed)
    for metric, ks in (("ips_dcg", (None, 1, 3)), ("ips_precision", (1, 3)), ("ips_hit_rate", (2, 10))):
        for k in ks:
            got = getattr(pre, metric)(df, **KW, k=k, ties=ties, snips=snips, clip=0.1)
            assert got == pytest.approx(oracle(df, metric, k, ties=ties, clip=0.1, snips=snips), abs=1e-12)


def _graded(seed: int, n_groups: int = 25) -> pd.DataFrame:
    """Small groups of graded labels (0, 1, 2) shown at distinct logged positions, so the clicked rows
    of a tie carry different weights, and the label levels that order a tie for NDCG disagree with
    the weights."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 6, n_groups)
    g = np.repeat(np.arange(n_groups), sizes)
    n = g.shape[0]
    return pd.DataFrame({
        "g": g, "pos": np.concatenate([rng.permutation(6)[:m] + 1 for m in sizes]),
        "grade": rng.integers(0, 3, n), "s": rng.integers(0, 2, n).astype(float), "tb": rng.integers(0, 2, n),
    }).sample(frac=1.0, random_state=seed)


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("tiebreak", [None, "tb"])
def test_tie_rules_are_the_bounds_over_tie_orders(seed, tiebreak):
    # "optimistic" is the largest value over every order of the tied rows, "pessimistic" the smallest:
    # inside a tie the largest weights first / last, whatever the labels (the cutoffs cut tie blocks)
    # (with NDCG in the same call, the labels are graded levels: they must not order the tie here)
    df = _graded(seed)
    kw = {"group": "g", "label": "grade", "position": "pos", "propensity": PROP, "tiebreak": tiebreak, "clip": 0.1}
    names = ["ips_dcg", "ips_dcg@1", "ips_dcg@2", "ips_dcg@4", "ips_precision@1", "ips_precision@3",
             "ips_hit_rate@1", "ips_hit_rate@2", "ips_hit_rate@4"]
    for ties in ("expected", "optimistic", "pessimistic"):
        rep = pre.report(df, **kw, scores="s", metrics=[*names, "ndcg@3"], ties=ties)
        for name in names:
            metric, _, k = name.partition("@")
            want = {t: oracle(df, metric, int(k) if k else None, ties=t, tiebreak=tiebreak, clip=0.1, label="grade")
                    for t in ("expected", "optimistic", "pessimistic")}
            assert want["pessimistic"] < want["expected"] < want["optimistic"]  # the data has such ties
            got = getattr(pre, metric)(df, **kw, score="s", k=int(k) if k else None, ties=ties)
            assert float(got) == pytest.approx(want[ties], abs=1e-12), (name, ties)
            assert rep.loc["s", name] == pytest.approx(want[ties], abs=1e-12), (name, ties)


def test_tie_rules_hand_worked():
    # two tied clicks, logged at positions 1 and 3 (weights 1 and 4); one place above the cutoff
    df = pd.DataFrame({"q": 1, "y": [1, 1], "s": [0.5, 0.5], "pos": [1, 3]})
    kw = {"group": "q", "label": "y", "score": "s", "k": 1, "position": "pos",
          "propensity": pd.Series({1: 1.0, 2: 0.5, 3: 0.25})}
    for ties, want in (("expected", 2.5), ("optimistic", 4.0), ("pessimistic", 1.0)):
        for metric in ("ips_dcg", "ips_precision", "ips_hit_rate"):
            assert float(getattr(pre, metric)(df, **kw, ties=ties)) == want, (metric, ties)


def test_tiebreak_and_report_agree():
    df = _frame(3)
    names = ["ips_dcg", "ips_dcg@2", "ips_precision@3", "ips_hit_rate@1"]
    rep = pre.report(df, group="g", label="click", scores="s", metrics=names, position="pos", propensity=PROP,
                     tiebreak="tb")
    for name in names:
        metric, _, k = name.partition("@")
        want = oracle(df, metric, int(k) if k else None, tiebreak="tb")
        assert rep.loc["s", name] == pytest.approx(want, abs=1e-12)


def test_position_as_tiebreak():
    df = _frame(7)
    df["s"] = 0.0  # every row tied: the logged position orders them, as the logging ranker did
    got = pre.ips_dcg(df, **KW, tiebreak="pos")
    assert got == pytest.approx(_logged_dcg(df), abs=1e-12)


def _logged_dcg(df):
    gains = df["click"] / df["pos"].map(PROP).clip(lower=0.01)
    return float((gains / np.log2(df["pos"] + 1.0)).groupby(df["g"]).sum().mean())


def test_propensity_forms_agree():
    df = _frame(4)
    ref = pre.ips_dcg(df, **KW, k=3)
    table = pd.DataFrame({"propensity": PROP})
    col = df.assign(p=df["pos"].map(PROP))
    fn = {p: v for p, v in PROP.items()}
    assert pre.ips_dcg(df, **{**KW, "propensity": table}, k=3) == pytest.approx(ref, abs=1e-15)
    assert pre.ips_dcg(col, **{**KW, "propensity": "p", "position": None}, k=3) == pytest.approx(ref, abs=1e-15)
    calls = []

    def curve(p):
        calls.append(len(p))
        return np.array([fn[int(x)] for x in p])

    assert pre.ips_dcg(df, **{**KW, "propensity": curve}, k=3) == pytest.approx(ref, abs=1e-15)
    assert calls == [df["pos"].nunique()]  # once, on the distinct positions


def test_hand_worked():
    # positions 1, 2, 3 with propensities 1, 0.5, 0.25; the row at position 3 is clicked (weight 4)
    df = pd.DataFrame({"s": 1, "pos": [1, 2, 3], "click": [0, 0, 1], "old": [3, 2, 1], "new": [2, 1, 3]})
    prop = pd.Series([1.0, 0.5, 0.25], index=[1, 2, 3])
    kw = {"group": "s", "label": "click", "position": "pos", "propensity": prop}
    assert float(pre.ips_dcg(df, **kw, score="old")) == pytest.approx(4.0 / 2.0, abs=1e-14)  # log2(3 + 1) = 2
    assert float(pre.ips_dcg(df, **kw, score="new")) == pytest.approx(4.0, abs=1e-14)
    assert float(pre.ips_dcg(df, **kw, score="new", clip=0.5)) == pytest.approx(2.0, abs=1e-14)  # 1 / max(0.25, 0.5)
    assert float(pre.ips_precision(df, **kw, score="new", k=2)) == pytest.approx(2.0, abs=1e-14)
    assert float(pre.ips_hit_rate(df, **kw, score="old", k=2)) == pytest.approx(0.0, abs=1e-14)
    # all three tied: the clicked row is at each rank with chance 1/3
    df["tie"] = 0
    want = 4.0 / 3.0 * (1 + 1 / math.log2(3) + 0.5)
    assert float(pre.ips_dcg(df, **kw, score="tie")) == pytest.approx(want, abs=1e-15)
    assert float(pre.ips_hit_rate(df, **kw, score="tie", k=1)) == pytest.approx(4.0 / 3.0, abs=1e-15)
    # a second session without a click counts 0 (empty="zero"); snips leaves it out by its weight 0
    two = pd.concat([df, df.assign(s=2, click=0)])
    assert float(pre.ips_dcg(two, **kw, score="new")) == pytest.approx(2.0, abs=1e-14)
    assert float(pre.ips_dcg(two, **kw, score="new", snips=True)) == pytest.approx(1.0, abs=1e-14)  # 4 / 4: the clicked row is first


def test_errors():
    df = _frame(0)
    with pytest.raises(ValueError, match="need propensity="):
        pre.ips_dcg(df, group="g", label="click", score="s", position="pos")
    with pytest.raises(ValueError, match="pass position="):
        pre.ips_dcg(df, group="g", label="click", score="s", propensity=PROP)
    with pytest.raises(ValueError, match="'propensity' parameter of report applies to the counterfactual"):
        pre.report(df, group="g", label="click", scores="s", metrics=["ndcg@3"], propensity=PROP)
    with pytest.raises(ValueError, match=r"'clip' parameter of ips_dcg must be a float in the range \[0, 1\]"):
        pre.ips_dcg(df, **KW, clip=2)
    bad = df.copy()
    bad.loc[bad.index[:3], "pos"] = 0
    with pytest.raises(ValueError, match=r"Column 'pos' \(position\) has 3 infinite, zero or negative values"):
        pre.ips_dcg(bad, **KW)
    bad["pos"] = df["pos"].astype(float)
    bad.loc[bad.index[:2], "pos"] = np.nan
    with pytest.raises(ValueError, match="Column 'pos' has 2 missing values"):
        pre.ips_dcg(bad, **KW)
    with pytest.raises(ValueError, match=r"Column 'pos' \(position\) has .* at a position the propensity table"):
        pre.ips_dcg(df, **{**KW, "propensity": PROP.iloc[:3]})
    col = df.assign(p=-1.0)
    with pytest.raises(ValueError, match=r"Column 'p' \(propensity\) has .* infinite, zero or negative"):
        pre.ips_dcg(col, **{**KW, "propensity": "p"})
    with pytest.raises(ValueError, match="non-positive propensit"):
        pre.ips_dcg(df, **{**KW, "propensity": PROP * 0})
    with pytest.raises(ValueError, match="returned 1 values for 6 positions"):
        pre.ips_dcg(df, **{**KW, "propensity": lambda p: [1.0]})


# --------------------------------------------------------------------------- #
# Simulation: the naive click DCG of a new ranker is biased, IPS is not
# --------------------------------------------------------------------------- #
def test_simulation_ips_unbiased_naive_biased():
    naive, ips, truth = [], [], []
    for seed in range(4):
        log = make_click_log(3000, n_queries=40, depth=5, seed=seed)
        rng = np.random.default_rng(100 + seed)
        log["new"] = log["relevance"] + rng.normal(0.0, 0.15, len(log))  # a better ranker
        prop = pd.Series(log.attrs["examination"], index=range(1, 6))
        kw = {"group": "session", "label": "click", "score": "new"}
        naive.append(float(pre.ips_dcg(log, **kw, position="position", propensity=lambda p: np.ones(len(p)))))
        ips.append(float(pre.ips_dcg(log, **kw, position="position", propensity=prop)))
        # the truth: DCG of the new ranking on the true relevance (examination 1 everywhere)
        truth.append(_true_dcg(log))
    t = np.mean(truth)
    assert abs(np.mean(ips) - t) < 0.03 * t  # within Monte Carlo error (about 1% here)
    assert np.mean(naive) < 0.8 * t  # clicks below the top were rarely examined


def _true_dcg(log: pd.DataFrame) -> float:
    """Mean over sessions of sum_i relevance_i / log2(new rank_i + 1) (no ties in ``new``)."""
    rank = log.groupby("session")["new"].rank(ascending=False, method="first")
    return float((log["relevance"] / np.log2(rank + 1.0)).groupby(log["session"]).sum().mean())


# --------------------------------------------------------------------------- #
# Engines
# --------------------------------------------------------------------------- #
ENGINES = ["polars", "polars-lazy", "dask", "duckdb", "spark"]


@pytest.mark.parametrize("engine", ENGINES)
def test_engines_equal_pandas(engine, request):
    df = _frame(5, n_groups=60).reset_index(drop=True)
    df["s2"] = df["s"] + 0.1 * (df["pos"] % 2)
    df["p"] = df["pos"].map(PROP)
    names = ["ips_dcg@3", "ips_precision@2", "ips_hit_rate@1"]
    frame = on_engine(engine, df, request)
    calls = []

    def curve(p):
        calls.append(len(p))
        return PROP.reindex(np.asarray(p).astype(int)).to_numpy()

    for kw in ({"position": "pos", "propensity": curve}, {"propensity": "p", "snips": True, "clip": 0.3}):
        ref = pre.compare(df, group="g", label="click", scores=["s", "s2"], metrics=names, n_boot=50, **kw)
        got = pre.compare(frame, group="g", label="click", scores=["s", "s2"], metrics=names, n_boot=50, **kw)
        num = ref.select_dtypes("number").columns
        np.testing.assert_allclose(got[num].to_numpy(float), ref[num].to_numpy(float), atol=1e-12, rtol=0)
    assert calls == [6, 6]  # pandas, then the engine: once each, on the distinct positions
    bad = df.assign(pos=np.where(df.index < 4, -1, df["pos"]))
    with pytest.raises(ValueError, match=r"Column 'pos' \(position\) has 4 infinite, zero or negative values"):
        pre.ips_dcg(on_engine(engine, bad, request), group="g", label="click", score="s", position="pos",
                    propensity=PROP)


@pytest.mark.parametrize("engine", ENGINES)
def test_tie_rules_engines_equal_pandas(engine, request):
    # the IPS weights order the tied rows under "optimistic" / "pessimistic" on every engine, with
    # graded labels (NDCG asked for too) and a tie-break; pandas is checked against enumeration above
    df = _graded(2, n_groups=40).reset_index(drop=True)
    df["s2"] = df["s"] + 0.5 * (df["pos"] % 2)
    names = ["ips_dcg", "ips_dcg@2", "ips_precision@3", "ips_hit_rate@1", "ndcg@2"]
    frame = on_engine(engine, df, request)
    for ties, extra in (("optimistic", {}), ("pessimistic", {"tiebreak": "tb", "snips": True})):
        kw = dict(group="g", label="grade", scores=["s", "s2"], metrics=names, position="pos", propensity=PROP,
                  ties=ties, **extra)
        ref, got = pre.report(df, **kw), pre.report(frame, **kw)
        num = ref.select_dtypes("number").columns
        np.testing.assert_allclose(got[num].to_numpy(float), ref[num].to_numpy(float), atol=1e-12, rtol=0)
        one = dict(group="g", label="grade", score="s", position="pos", propensity=PROP, k=2, ties=ties, **extra)
        want = oracle(df, "ips_dcg", 2, ties=ties, tiebreak=extra.get("tiebreak"), label="grade",
                      snips=bool(extra.get("snips")))
        assert float(pre.ips_dcg(frame, **one)) == pytest.approx(want, abs=1e-12)


def test_per_group_evaluator_and_cli(tmp_path, capsys):
    from pandas_rankeval.cli import main

    df = _frame(6, n_groups=40).reset_index(drop=True)
    names = ["ips_dcg@3", "ips_hit_rate@1"]
    ref = pre.report(df, group="g", label="click", scores="s", metrics=names, position="pos", propensity=PROP)
    # per_group: each group's value, whose uniform mean is the report's
    table = pre.per_group(df, group="g", label="click", score="s", metrics=names, position="pos", propensity=PROP)
    assert table["ips_dcg@3"].mean() == pytest.approx(ref.loc["s", "ips_dcg@3"], abs=1e-12)
    # the chunked Evaluator: groups split over two chunks add up to the same numbers
    ev = pre.Evaluator(group="g", label="click", scores="s", metrics=names, position="pos", propensity=PROP)
    ev.update(df[df["g"] < 20]).update(df[df["g"] >= 20])
    assert ev.result().loc["s", names].to_numpy() == pytest.approx(ref.loc["s", names].to_numpy(), abs=1e-12)
    # the command line: a column of propensities, or the CSV of a propensity table
    df.assign(p=df["pos"].map(PROP)).to_csv(tmp_path / "log.csv", index=False)
    PROP.rename("propensity").to_frame().to_csv(tmp_path / "prop.csv")
    for extra in (["--propensity", "p"], ["--position", "pos", "--propensity", str(tmp_path / "prop.csv")]):
        assert main([str(tmp_path / "log.csv"), "-g", "g", "-l", "click", "-s", "s", "-m", *names, "--format", "csv",
                     *extra]) == 0
        out = pd.read_csv(__import__("io").StringIO(capsys.readouterr().out), index_col=0, comment="#")
        assert out.loc["s", names].to_numpy(float) == pytest.approx(ref.loc["s", names].to_numpy(float), abs=1e-9)


def test_snips_and_clip_as_documented():
    df = _frame(8)
    kw = {**KW, "k": 3, "clip": 0.0}
    # SNIPS does not depend on the scale of the propensities; IPS scales with 1 / that scale
    assert float(pre.ips_dcg(df, **{**kw, "propensity": PROP * 0.5}, snips=True)) == pytest.approx(
        float(pre.ips_dcg(df, **kw, snips=True)), abs=1e-12)
    assert float(pre.ips_dcg(df, **{**kw, "propensity": PROP * 0.5})) == pytest.approx(
        2 * float(pre.ips_dcg(df, **kw)), abs=1e-12)
    # SNIPS hit rate@k is the IPS-weighted share of the clicks in the top k: 1 when k holds every row
    assert float(pre.ips_hit_rate(df, **{**kw, "k": 6}, snips=True)) == pytest.approx(1.0, abs=1e-12)
    # clipping only lowers the weights of the positions below clip: the value never grows with clip
    values = [float(pre.ips_dcg(df, **{**kw, "clip": c})) for c in (0.0, 0.05, 0.2, 0.5, 1.0)]
    assert values == sorted(values, reverse=True) and values[0] > values[-1]
    # clip=1: every click weighs 1, the naive click DCG
    naive = float(pre.ips_dcg(df, **{**kw, "propensity": lambda p: np.ones(len(p))}))
    assert values[-1] == pytest.approx(naive, abs=1e-12)


def test_snips_is_a_bool_only():
    # snips="no" used to turn SNIPS on (any truthy object was taken)
    df = _frame(8)
    for bad in ("no", "False", 1, 0, None, [True]):
        with pytest.raises(ValueError, match=r"The 'snips' parameter of ips_dcg must be a bool .* Got "):
            pre.ips_dcg(df, **KW, snips=bad)
        with pytest.raises(ValueError, match=r"The 'snips' parameter of report must be a bool"):
            pre.report(df, group="g", label="click", scores="s", metrics=["ips_dcg@3"], position="pos",
                       propensity=PROP, snips=bad)
    # numpy's bool is a bool; the two values differ (a real check, not a no-op)
    on, off = (float(pre.ips_dcg(df, **KW, snips=v)) for v in (np.True_, np.False_))
    assert on == float(pre.ips_dcg(df, **KW, snips=True)) and off == float(pre.ips_dcg(df, **KW, snips=False))
    assert on != off
