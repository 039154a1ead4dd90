"""Names and parameters: a weight name that is also a column, duplicate names, MultiIndex and tuple
column names, messages that name the parameter (seeds, metric lists, values given for column names,
non-numeric weights), parameter types (numpy levels, ``max_fpr``), repeated score columns, too few
replicates for a level, a group that is an index level, and the command line's reading of rows and
columns (extra fields, a column in two roles, weight names). Each error is pinned by the message a
person reads.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import pandas_rankeval as pre
from pandas_rankeval import ColumnNotFoundError

pytestmark = pytest.mark.filterwarnings("ignore::pandas_rankeval.CoverageWarning")


# --------------------------------------------------------------------------------------------
# a weight name that is also a column
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["count", "clicks", "log1p", "uniform"])
@pytest.mark.parametrize("func", [pre.gauc, pre.mrr])
def test_weight_name_that_is_also_a_column_is_an_error(name, func):
    df = pd.DataFrame({"g": [1, 1, 2, 2], "y": [1, 0, 1, 0], "s": [0.9, 0.1, 0.2, 0.8], name: [5, 5, 1, 1]})
    with pytest.raises(ValueError, match=rf"The 'weight' parameter of {func.__name__} is '{name}', which is both a "
                       rf"weight name .* and a column of the frame.*df\.groupby\('g'\)\['{name}'\]\.sum\(\).*lambda stats"):
        func(df, group="g", label="y", score="s", weight=name)
    with pytest.raises(ValueError, match="both a weight name"):
        pre.report(df, group="g", label="y", scores="s", metrics=["gauc"], weight=name)
    func(df, group="g", label="y", score="s")  # the default is not ambiguous: nobody named it


def test_the_fixes_in_the_weight_message_work():
    df = pd.DataFrame({"g": [1, 1, 2, 2, 2], "y": [1, 0, 1, 0, 0], "s": [0.9, 0.1, 0.2, 0.8, 0.1], "count": [5, 5, 1, 1, 1]})
    by_column = pre.gauc(df, group="g", label="y", score="s", weight=df.groupby("g")["count"].sum())
    by_rows = pre.gauc(df, group="g", label="y", score="s", weight=lambda stats: stats["n"])
    assert by_column == pytest.approx((10 * 1.0 + 3 * 0.5) / 13)
    assert by_rows == pytest.approx((2 * 1.0 + 3 * 0.5) / 5)
    assert by_rows == pre.gauc(df.drop(columns="count"), group="g", label="y", score="s", weight="count")


# --------------------------------------------------------------------------------------------
# duplicate names, MultiIndex columns, tuple names
# --------------------------------------------------------------------------------------------
def test_duplicate_column_names():
    df = pd.DataFrame([[1, 1, 0.5, 0.1], [1, 0, 0.2, 0.3]], columns=["g", "y", "s", "s"])
    with pytest.raises(ValueError, match=r"Column 's' appears 2 times in the frame.*df\.loc\[:, ~df\.columns\.duplicated\(\)\]"):
        pre.auc(df, label="y", score="s")
    with pytest.raises(ValueError, match=r"Column 's' appears 2 times"):
        pre.report(df, group="g", label="y", scores=["s"], metrics=["gauc"])


@pytest.fixture
def multi() -> pd.DataFrame:
    df = pd.DataFrame({"g": [1, 1, 1, 2, 2], "y": [1, 0, 0, 0, 1], "s": [0.9, 0.5, 0.1, 0.3, 0.2]})
    out = df.copy()
    out.columns = pd.MultiIndex.from_tuples([("k", "g"), ("k", "y"), ("m", "s")])
    return out


def test_multiindex_columns_are_named_by_full_tuples(multi):
    flat = pd.DataFrame({"g": [1, 1, 1, 2, 2], "y": [1, 0, 0, 0, 1], "s": [0.9, 0.5, 0.1, 0.3, 0.2]})
    kw = dict(group=("k", "g"), label=("k", "y"))
    assert pre.gauc(multi, score=("m", "s"), **kw) == pre.gauc(flat, group="g", label="y", score="s")
    assert pre.mrr(multi, score=("m", "s"), **kw) == pre.mrr(flat, group="g", label="y", score="s")
    rep = pre.report(multi, scores=[("m", "s")], metrics=["gauc", "ndcg"], **kw)
    assert rep.iloc[0]["gauc"] == pre.gauc(flat, group="g", label="y", score="s")
    rep2 = pre.report(multi, scores=("m", "s"), metrics=["gauc"], **kw)  # a tuple that is a column
    assert rep2.iloc[0]["gauc"] == rep.iloc[0]["gauc"]
    per = pre.per_group(multi, score=("m", "s"), metrics=["auc"], **kw)
    assert per.index.name == ("k", "g")


def test_partial_multiindex_key_is_a_clear_error(multi):
    with pytest.raises(ColumnNotFoundError, match=r"Column 'k' names 2 columns of the MultiIndex columns, not one.*\('k', 'g'\)"):
        pre.gauc(multi, group="k", label=("k", "y"), score=("m", "s"))


def test_tuple_column_name_in_flat_columns_is_one_column():
    df = pd.DataFrame({("k", "g"): [1, 1, 2, 2], "y": [1, 0, 1, 0], "s": [0.9, 0.1, 0.8, 0.2]})
    assert pre.gauc(df, group=("k", "g"), label="y", score="s") == 1.0
    # a tuple that is not a column is a list of columns, as before
    two = pd.DataFrame({"a": [1, 1, 2, 2], "b": [1, 1, 1, 1], "y": [1, 0, 1, 0], "s": [0.9, 0.1, 0.2, 0.8]})
    assert pre.per_group(two, group=("a", "b"), label="y", score="s").index.names == ["a", "b"]


# --------------------------------------------------------------------------------------------
# messages that name the parameter
# --------------------------------------------------------------------------------------------
@pytest.fixture
def small() -> pd.DataFrame:
    return pd.DataFrame({"g": [1, 1, 2, 2, 3, 3], "y": [1, 0, 1, 0, 1, 0], "s": [0.9, 0.1, 0.2, 0.8, 0.5, 0.4]})


@pytest.mark.parametrize("seed", ["x", -1, 1.5, True])
def test_bad_seed_names_the_parameter(small, seed):
    with pytest.raises(ValueError, match=r"The 'seed' parameter of report must be an int in the range \[0, inf\)"):
        pre.report(small, group="g", label="y", scores="s", metrics=["gauc"], ci=0.9, seed=seed)
    with pytest.raises(ValueError, match=r"The 'seed' parameter of compare"):
        pre.compare(small.assign(t=small["s"]), group="g", label="y", scores=["s", "t"], baseline="s", metrics=["gauc"], seed=seed)


def test_good_seeds_are_accepted(small):
    for seed in (None, 0, np.int64(3), np.random.default_rng(1), np.random.SeedSequence(2)):
        pre.report(small, group="g", label="y", scores="s", metrics=["gauc"], ci=0.9, n_boot=20, seed=seed)


@pytest.mark.parametrize("metrics", [None, 5, {"gauc": 1}])
def test_bad_metrics_names_the_parameter(small, metrics):
    with pytest.raises(TypeError, match=r"The 'metrics' parameter must be a metric name or a list of names"):
        pre.report(small, group="g", label="y", scores="s", metrics=metrics)
    with pytest.raises(TypeError, match=r"The 'metrics' parameter"):
        pre.per_group(small, group="g", label="y", score="s", metrics=metrics)


def test_values_instead_of_column_names(small):
    with pytest.raises(TypeError, match=r"The 'label' parameter of auc must be a column name\. Got a pandas Series \(named 'y', 6 values\) instead\. Pass the column's name: label='y'"):
        pre.auc(small, label=small["y"], score="s")
    with pytest.raises(TypeError, match=r"The 'score' parameter of auc must be one column name\. Got \['s'\] instead\. Pass score='s', or use report"):
        pre.auc(small, label="y", score=["s"])
    with pytest.raises(TypeError, match=r"The 'score' parameter of gauc must be a column name\. Got a ndarray"):
        pre.gauc(small, group="g", label="y", score=small["s"].to_numpy())
    with pytest.raises(TypeError, match=r"The 'group' parameter of mrr must be a column name or a list of column names.*pandas Series"):
        pre.mrr(small, group=small["g"], label="y", score="s")
    with pytest.raises(TypeError, match=r"The 'label' parameter of auc must be a column name\. Got None instead\.$"):
        pre.auc(small, label=None, score="s")
    with pytest.raises(TypeError, match=r"The 'sample_weight' parameter of auc must be a column name"):
        pre.auc(small, label="y", score="s", sample_weight=np.ones(6))
    with pytest.raises(TypeError, match=r"The 'tiebreak' parameter of ndcg must be one column name\. Got \[1, 2\] instead\. Name one column\."):
        pre.ndcg(small, group="g", label="y", score="s", tiebreak=[1, 2])


def test_non_numeric_weights_name_the_weight(small):
    with pytest.raises(TypeError, match=r"The 'weight' Series of gauc must give numbers .*\['a', 'b', 'c'\]"):
        pre.gauc(small, group="g", label="y", score="s", weight=pd.Series(["a", "b", "c"], index=[1, 2, 3]))
    with pytest.raises(TypeError, match=r"The 'weight' callable of mrr must give numbers .*'x'"):
        pre.mrr(small, group="g", label="y", score="s", weight=lambda stats: ["x"] * len(stats))


# --------------------------------------------------------------------------------------------
# parameter types, repeated scores, too few replicates, index levels
# --------------------------------------------------------------------------------------------
def test_numpy_float_levels_are_accepted(small):
    a = pre.report(small, group="g", label="y", scores="s", metrics=["gauc"], ci=np.float32(0.5), n_boot=20)
    b = pre.report(small, group="g", label="y", scores="s", metrics=["gauc"], ci=float(np.float32(0.5)), n_boot=20)
    pd.testing.assert_frame_equal(pd.DataFrame(a), pd.DataFrame(b))
    assert pre.gauc(small, group="g", label="y", score="s", max_fpr=np.float32(0.5)) == pre.gauc(
        small, group="g", label="y", score="s", max_fpr=0.5
    )


@pytest.mark.parametrize("value", [True, np.bool_(True), "0.5", 0, 1.5])
def test_max_fpr_rejects_bools_and_non_numbers(small, value):
    with pytest.raises(ValueError, match=r"The 'max_fpr' parameter of gauc must be a float in the range \(0, 1\]"):
        pre.gauc(small, group="g", label="y", score="s", max_fpr=value)


def test_repeated_score_columns_are_an_error(small):
    with pytest.raises(ValueError, match=r"The 'scores' parameter of report names a column more than once: \['s'\]"):
        pre.report(small, group="g", label="y", scores=["s", "s"], metrics=["gauc"])


@pytest.mark.parametrize("n_boot, ci", [(1, 0.95), (19, 0.95), (9, 0.9)])
def test_too_few_replicates_for_the_level(small, n_boot, ci):
    needed = 20 if ci == 0.95 else 10
    with pytest.raises(ValueError, match=rf"The 'n_boot' parameter of report is {n_boot}, too few for a {ci:.0%} interval.* = {needed} "):
        pre.report(small, group="g", label="y", scores="s", metrics=["gauc"], ci=ci, n_boot=n_boot)
    with pytest.raises(ValueError, match=r"The 'n_boot' parameter of compare"):
        pre.compare(small.assign(t=small["s"]), group="g", label="y", scores=["s", "t"], baseline="s",
                    metrics=["gauc"], ci=ci, n_boot=n_boot)
    pre.report(small, group="g", label="y", scores="s", metrics=["gauc"], ci=ci, n_boot=needed)


def test_group_may_be_an_index_level(small):
    expected = pre.gauc(small, group="g", label="y", score="s")
    indexed = small.set_index("g")
    before = indexed.copy()
    assert pre.gauc(indexed, group="g", label="y", score="s") == expected
    per = pre.per_group(indexed, group="g", label="y", score="s", metrics=["auc", "mrr"])
    pd.testing.assert_frame_equal(per, pre.per_group(small, group="g", label="y", score="s", metrics=["auc", "mrr"]))
    seg = small.assign(c=["a", "a", "b", "b", "b", "b"]).set_index(["g", "c"])
    rep = pre.report(seg, group="g", label="y", scores="s", metrics=["gauc"], by="c")
    assert list(rep.index.get_level_values("c")) == ["a", "b"]
    pd.testing.assert_frame_equal(indexed, before)  # the caller's frame is untouched
    with pytest.raises(ColumnNotFoundError, match=r"not found: \['h'\]"):
        pre.gauc(indexed, group="h", label="y", score="s")


# --------------------------------------------------------------------------------------------
# the command line
# --------------------------------------------------------------------------------------------
def _cli(argv, capsys):
    from pandas_rankeval.cli import main

    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def _one_error(code: int, err: str, pattern: str) -> None:
    import re

    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    assert re.search(pattern, lines[0]), lines[0]


@pytest.mark.parametrize(
    "body, pattern",
    [
        ("g,y,s\n1,1,0.5\n1,0,0.2,9\n2,1,0.3\n2,0,0.1\n",
         r"cannot read .*extra\.csv as CSV: .*Expected 3 fields in line 3, saw 4 \(a row has more fields than the header\)"),
        ("g,y,s\n1,1,0.5,7\n1,0,0.2,9\n2,1,0.3,1\n2,0,0.1,1\n",
         r"cannot read .*extra\.csv as CSV: its rows have more fields than its header \(3 names\)"),
    ],
    ids=["one-row", "every-row"],
)
def test_cli_rejects_rows_with_more_fields_than_the_header(tmp_path, capsys, body, pattern):
    path = tmp_path / "extra.csv"
    path.write_text(body)
    # plain pd.read_csv rejects the first file and shifts the second (its first column becomes
    # the index); reading only the needed columns used to accept both silently
    code, out, err = _cli([path, "--group", "g", "--label", "y", "--score", "s", "--metrics", "gauc"], capsys)
    _one_error(code, err, pattern)
    assert out == ""


def test_cli_reads_extra_columns_it_does_not_need(tmp_path, capsys):
    path = tmp_path / "wide.csv"
    pd.DataFrame({"g": [1, 1, 2, 2], "note": ["a", "b,c", "d", "e"], "y": [1, 0, 1, 0],
                  "s": [0.9, 0.1, 0.2, 0.8]}).to_csv(path, index=False)
    code, out, err = _cli([path, "--group", "g", "--label", "y", "--score", "s", "--metrics", "gauc", "--format", "csv"], capsys)
    assert code == 0, err
    assert pd.read_csv(__import__("io").StringIO(out), index_col=0, comment="#").loc["s", "gauc"] == 0.5


@pytest.fixture
def roles_csv(tmp_path):
    path = tmp_path / "roles.csv"
    pd.DataFrame({"user": ["007", "007", "7", "7", "8", "8"], "click": [1, 0, 1, 0, 1, 0],
                  "score": [0.9, 0.5, 0.2, 0.8, 0.7, 0.1], "seg": [3, 3, 1, 1, 1, 1],
                  "count": [5, 5, 1, 1, 1, 1]}).to_csv(path, index=False)
    return path


def test_cli_column_in_two_roles_is_read_as_numbers(roles_csv, capsys):
    # --weight seg --by seg: the segment column is also the weight, which must be numeric
    code, out, err = _cli([roles_csv, "--group", "user", "--label", "click", "--score", "score", "--weight", "seg",
                           "--by", "seg", "--metrics", "gauc", "--format", "csv"], capsys)
    assert code == 0, err
    table = pd.read_csv(__import__("io").StringIO(out), index_col=[0, 1], comment="#")
    assert table.loc[(3, "score"), "gauc"] == 1.0
    assert table.loc[(1, "score"), "gauc"] == 0.5
    # --label click --by click: the label is read as numbers; the error is the real problem
    code, out, err = _cli([roles_csv, "--group", "user", "--label", "click", "--score", "score", "--by", "click"], capsys)
    _one_error(code, err, r"The 'by' column 'click' of report must be constant within each group")
    # keys used only as keys are still text: "007" and "7" are two users
    code, out, err = _cli([roles_csv, "--group", "user", "--label", "click", "--score", "score", "--metrics", "gauc",
                           "--format", "json"], capsys)
    assert code == 0, err
    assert __import__("json").loads(out)["results"][0]["n_groups"] == 3


def test_cli_unknown_weight_names_the_option(roles_csv, capsys):
    code, _, err = _cli([roles_csv, "--group", "user", "--label", "click", "--score", "score", "--weight", "bogus"], capsys)
    _one_error(code, err, r"--weight 'bogus' is neither a weight name \(count, clicks, log1p, uniform\) nor a column of "
                          r".*roles\.csv; the columns are \['user', 'click', 'score', 'seg', 'count'\]")
    code, _, err = _cli([roles_csv, "--group", "user", "--label", "click", "--score", "score", "--weight", "clcks"], capsys)
    _one_error(code, err, r"--weight 'clcks' is neither a weight name .*; did you mean 'clicks'\?")


def test_cli_weight_name_that_is_also_a_column(roles_csv, capsys):
    code, _, err = _cli([roles_csv, "--group", "user", "--label", "click", "--score", "score", "--weight", "count"], capsys)
    _one_error(code, err, r"--weight count is ambiguous: it is a weight name \(the rows of each group\) and .* has a "
                          r"column 'count'\. .*rename the column")
    code, _, err = _cli([roles_csv, "--group", "user", "--label", "click", "--score", "score", "--weight", "clicks"], capsys)
    assert code == 0, err
