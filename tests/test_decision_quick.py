"""The quick items of the decision view, each asserted on the rendered output:
text (``print``, ``to_text``, ``compact``) and HTML.

- ``print(table.footer())`` prints the lines; no difference shows as ``-0.0000``; the
  coverage sentence says what is used and what is skipped; one comparison is singular;
- a printed table with intervals says their level next to the numbers;
- polars users get polars' fix; a non-hashable column parameter gets a TypeError that
  names the parameter; a Series is described, not dumped; ``to_polars()``.
"""

from __future__ import annotations

import io
import re
from contextlib import redirect_stdout

import numpy as np
import pandas as pd
import pytest

import pandas_rankeval as pre
from pandas_rankeval.display.table import as_result_table, footer_lines


@pytest.fixture(scope="module")
def imp() -> pd.DataFrame:
    return pre.datasets.make_impressions(n_users=300, seed=4)


@pytest.fixture(scope="module")
def one_cmp(imp: pd.DataFrame) -> pd.DataFrame:
    return pre.compare(imp, group="user_id", label="click", scores=["model_a", "model_b"], baseline="model_a", metrics=["gauc"])


def _printed(obj: object) -> str:
    buf = io.StringIO()
    with redirect_stdout(buf):
        print(obj)
    return buf.getvalue()


# --- the footer, -0.0000 and the coverage sentence ------------------------------------------------


def test_printed_footer_is_its_lines_and_stays_a_list(one_cmp) -> None:
    lines = one_cmp.footer()
    assert isinstance(lines, list) and all(isinstance(line, str) for line in lines)
    assert lines == list(lines) and lines[0].startswith("significant:")
    out = _printed(lines)
    assert out == "\n".join(lines) + "\n"
    assert not out.startswith("[") and "', '" not in out
    short = one_cmp.footer("short")
    assert _printed(short).splitlines() == list(short)
    assert str(footer_lines(one_cmp)) == "\n".join(lines)


def test_coverage_sentence_says_used_and_skipped(one_cmp, imp) -> None:
    text = one_cmp.to_text(width=0)
    html = one_cmp.to_html()
    sentence = "gauc uses 54 groups; 246 with one class only are skipped (10.1% of rows)"
    for out in (text, html, one_cmp.compact().to_text(width=0), one_cmp.compact().to_html()):
        assert sentence in out
        assert "not the" not in out
    rep = pre.report(imp, group="user_id", label="click", scores=["model_a"], metrics=["gauc", "mrr"])
    assert "gauc uses 54 groups; 246 with one class only are skipped" in rep.to_text(width=0)


def test_one_comparison_is_singular(one_cmp, imp) -> None:
    for out in (one_cmp.to_text(width=0), one_cmp.compact().to_text(width=0), one_cmp.summary().to_html()):
        assert "the 1 comparison" in out and "the 1 comparisons" not in out
    two = pre.compare(imp, group="user_id", label="click", scores=["model_a", "model_b"], baseline="model_a", metrics=["gauc", "mrr"])
    assert "the 2 comparisons" in two.compact().to_text(width=0)


def test_a_difference_that_rounds_to_zero_has_no_minus_sign(one_cmp) -> None:
    t = one_cmp.copy()
    t["diff"], t["lift"], t["ci_low"], t["ci_high"] = -1e-17, -1e-16, -0.00004, 0.00002
    t["value"] = t["baseline_value"] - 1e-17
    table = as_result_table(t)
    outs = [table.to_text(width=0), table.to_html(), table.compact().to_text(width=0), table.compact().to_html()]
    for out in outs:
        assert "-0.0000" not in out and "-0.0%" not in out
    assert "+0.0000 [+0.0000, +0.0000]" in outs[2] and "+0.0000 [+0.0000, +0.0000]" in outs[3]
    assert re.search(r"\+0\.0000\s+\+0\.0%", outs[0])
    # a negative difference that does not round to zero keeps its sign
    t["diff"] = -0.00006
    assert "-0.0001" in as_result_table(t).to_text(width=0)


# --- the level of the intervals -------------------------------------------------------------------


@pytest.mark.parametrize("level", [0.9, 0.95])
def test_printed_report_says_the_interval_level_with_the_numbers(imp, level: float) -> None:
    rep = pre.report(imp, group="user_id", label="click", scores=["model_a", "model_b"], metrics=["auc", "gauc"], ci=level)
    line = f"[low, high]: {level:.0%} confidence intervals"
    for table in (rep, rep.compact()):
        short = table.footer("short")
        assert short[0] == line and len(short) <= 3
        text = table.to_text(width=0)
        numbers, footer = text.split("\n\n", 1)
        assert "[" in numbers and footer.splitlines()[0] == line  # right under the numbers
        assert line in _printed(table)
        assert line in table.to_html().split("<details")[0]  # shown, not folded
        assert line in table.to_markdown().split("<details")[0]
    # the numbers are unchanged: the table keeps its columns and values
    plain = pre.report(imp, group="user_id", label="click", scores=["model_a", "model_b"], metrics=["auc", "gauc"])
    assert np.array_equal(rep[["auc", "gauc"]].to_numpy(), plain[["auc", "gauc"]].to_numpy())
    assert not any("confidence intervals" in s for s in plain.footer("short"))
    assert not any("confidence intervals" in s for s in plain.compact().footer("short"))


# --- the compact view at a terminal's width -------------------------------------------------------


@pytest.mark.parametrize("width", [80, 100, 120])
def test_compact_text_never_shows_the_baseline_alone(imp, width: int) -> None:
    df = imp.copy()
    df["model_c"] = 0.5 * df["model_a"] + 0.5 * df["model_b"]
    cmp = pre.compare(df, group="user_id", label="click", scores=["model_a", "model_b", "model_c"],
                      baseline="model_a", metrics=["auc", "gauc", "mrr", "ndcg@10"], by="device")
    compact = cmp.compact()
    text = compact.to_text(width=width)
    blocks = text.split("\n\n")[:-1]  # the parts, then the footer
    tables = [b for b in blocks if "metric" in b]
    assert tables and all(max(map(len, b.splitlines())) <= width for b in tables)
    for block in tables:
        head = block.splitlines()[1]
        assert "baseline" in head and "value" in head  # the baseline goes with a model, in every part
    challengers = [b for b in tables if "model_b" in b.splitlines()[0] or "model_c" in b.splitlines()[0]]
    assert len(challengers) == len(tables)
    # the numbers are the table's: the baseline's value next to each model's
    first = tables[0].splitlines()[2].split()
    assert f"{cmp['baseline_value'].iloc[0]:.4f}" in first
    # HTML is one table: the baseline column once
    html = compact.to_html()
    assert html.count(">baseline<") == 1
    assert compact.to_text(width=0).split("\n\n")[0].splitlines()[1].count("baseline") == 1


def test_compact_without_room_for_the_baseline_falls_back_to_blocks(imp) -> None:
    cmp = pre.compare(imp, group="user_id", label="click", scores=["model_a", "model_b"], baseline="model_a",
                      metrics=["gauc"], by="device")
    # too narrow for the baseline next to a model's block: the groups wrap as any others
    text = cmp.compact().to_text(width=70, footer="none")
    assert all(len(line) <= 70 for line in text.splitlines())
    blocks = text.strip("\n").split("\n\n")
    assert len(blocks) == 2 and "baseline" in blocks[0] and "value" not in blocks[0]
    for b, v in zip(cmp["baseline_value"], cmp["value"]):
        assert f"{b:.4f}" in blocks[0] and f"{v:.4f}" in blocks[1]


# --- polars users ---------------------------------------------------------------------------------

pl = pytest.importorskip("polars")


def test_text_score_on_polars_suggests_polars_cast(imp) -> None:
    frame = pl.from_pandas(imp).with_columns(pl.col("model_a").cast(pl.Utf8))
    for source in (frame, frame.lazy()):
        with pytest.raises(TypeError, match=re.escape("pl.col('model_a').cast(pl.Float64)")) as err:
            pre.gauc(source, group="user_id", label="click", score="model_a")
        assert "pd.to_numeric" not in str(err.value)
    # pandas keeps pandas' fix
    with pytest.raises(TypeError, match=re.escape("pd.to_numeric(df['model_a'])")):
        pre.gauc(imp.astype({"model_a": str}), group="user_id", label="click", score="model_a")


def test_polars_expression_as_a_column_names_the_parameter(imp) -> None:
    frame = pl.from_pandas(imp)
    with pytest.raises(TypeError, match=r"The 'score' parameter of gauc must be a column name\. Got a polars "
                                        r"expression \(col\(\"model_a\"\)\) instead\. Pass the column's name: score='model_a'"):
        pre.gauc(frame, group="user_id", label="click", score=pl.col("model_a"))
    with pytest.raises(TypeError, match=r"'score' parameter.*Add the expression to the frame as a column"):
        pre.gauc(frame, group="user_id", label="click", score=pl.col("model_a") * 2)
    with pytest.raises(TypeError, match=r"The 'group' parameter of gauc .*group='user_id'"):
        pre.gauc(frame, group=pl.col("user_id"), label="click", score="model_a")
    with pytest.raises(TypeError, match=r"The 'scores' parameter of report .*one item is a polars expression"):
        pre.report(frame, group="user_id", label="click", scores=["model_b", pl.col("model_a")])
    with pytest.raises(TypeError, match=r"'label' parameter"):
        pre.gauc(frame.lazy(), group="user_id", label=pl.col("click"), score="model_a")


@pytest.mark.parametrize("series", ["pandas", "polars", "unnamed"])
def test_series_as_a_score_is_described_not_dumped(imp, series: str) -> None:
    s = {"pandas": imp["model_a"], "polars": pl.from_pandas(imp)["model_a"], "unnamed": imp["model_a"].rename(None)}[series]
    with pytest.raises(TypeError) as err:
        pre.gauc(imp, group="user_id", label="click", score=s)
    msg = str(err.value)
    assert f"Series ({'' if series == 'unnamed' else chr(39).join(['named ', 'model_a', ', '])}{len(imp):,} values)" in msg
    assert f"{imp['model_a'].iloc[0]:.4f}"[:6] not in msg and len(msg) < 250


def test_result_table_to_polars(imp) -> None:
    cmp = pre.compare(imp, group="user_id", label="click", scores=["model_a", "model_b"], baseline="model_a",
                      metrics=["gauc", "mrr"], by="device")
    out = cmp.to_polars()
    assert isinstance(out, pl.DataFrame) and out.height == len(cmp)
    assert out.columns[:3] == ["device", "model", "metric"] and "diff" in out.columns
    flat = pd.DataFrame(cmp).reset_index()
    for col in ("value", "diff", "p_holm"):
        assert np.array_equal(out[col].to_numpy(), flat[col].to_numpy())  # unrounded, unchanged
    assert out["metric"].to_list() == flat["metric"].tolist()
    rep = pre.report(imp, group="user_id", label="click", scores=["model_a"], metrics=["gauc"])
    assert rep.to_polars()["gauc"].item() == rep["gauc"].iloc[0]


# ---------------------------------------------------------------- graded labels and the gain
def _graded() -> pd.DataFrame:
    return pd.DataFrame({"u": [1, 1, 1, 1, 2, 2, 2], "rel": [3, 0, 1, 2, 0, 1, 2],
                         "s": [0.1, 0.2, 0.3, 0.4, 0.5, 0.2, 0.1], "t": [0.3, 0.1, 0.2, 0.4, 0.1, 0.2, 0.3]})


def test_graded_labels_say_the_gain_under_the_table() -> None:
    """One user with rel [3, 0, 1, 2]: sklearn's ndcg_score is NDCG with gain='linear'; the short
    footer of a graded report says the default gain differs, and a binary one says nothing."""
    from sklearn.metrics import ndcg_score

    df = _graded()
    one = df[df["u"] == 1]
    assert abs(pre.ndcg(one, group="u", label="rel", score="s", gain="linear") - ndcg_score([one["rel"]], [one["s"]])) < 1e-12
    rep = pre.report(df, group="u", label="rel", scores="s", metrics=["ndcg@10", "mrr"])
    short = _printed(rep)
    assert "ndcg@10: graded labels gain 2^label - 1 (gain='exp2')" in short and "gain='linear'" in short
    cmp = pre.compare(df, group="u", label="rel", scores=["s", "t"], metrics=["ndcg"], n_boot=50)
    assert "ndcg: graded labels gain 2^label - 1" in _printed(cmp)
    assert "graded" not in _printed(pre.report(df, group="u", label="rel", scores="s", metrics=["ndcg"], gain="linear"))
    binary = df.assign(rel=(df["rel"] > 1).astype(int))
    assert "graded" not in _printed(pre.report(binary, group="u", label="rel", scores="s", metrics=["ndcg"]))
    assert "graded" not in _printed(pre.report(df, group="u", label="rel", scores="s", metrics=["mrr"]))


# ---------------------------------------------------------------- errors from the public frame
def test_an_input_error_is_raised_from_the_public_function(imp: pd.DataFrame, monkeypatch) -> None:
    """A by= that varies within a group (found deep in the evaluation) is raised one frame below
    the public function, not through the internal frames; PANDAS_RANKEVAL_TRACEBACK=full keeps
    them, and an error of another library keeps its frames."""
    import traceback

    df = imp.assign(seg=np.arange(len(imp)))

    def frames(**kw: object) -> list[str]:
        with pytest.raises(pre.InputProblem if hasattr(pre, "InputProblem") else ValueError) as info:
            pre.report(df, group="user_id", label="click", scores="model_a", by="seg", **kw)
        return [f.filename for f in traceback.extract_tb(info.value.__traceback__) if "pandas_rankeval" in f.filename]

    # the first frame is the keyword hints every public function wears (a wrong keyword names the
    # right one: _keywords.keyword_hints), its one line the call of the function itself
    hints = ["pandas_rankeval", "_keywords.py"]
    ours = frames()
    assert [p.rsplit("/", 2)[-2:] for p in ours] == [hints, ["api", "report.py"], ["api", "dispatch.py"]]
    # overall=True runs two evaluations: raised one frame below the public function all the same
    assert [p.rsplit("/", 2)[-2:] for p in frames(overall=True)] == [hints, ["api", "report.py"], ["api", "overall.py"]]
    monkeypatch.setenv("PANDAS_RANKEVAL_TRACEBACK", "full")
    assert len(frames()) > 3


# ---------------------------------------------------------------- all-pairs summary values
def test_all_pairs_summary_shows_each_models_value_then_the_differences(imp: pd.DataFrame) -> None:
    df = imp.assign(model_c=imp["model_a"] * 0.5 + imp["model_b"])
    cmp = pre.compare(df, group="user_id", label="click", scores=["model_a", "model_b", "model_c"],
                      metrics=["gauc", "mrr"], n_boot=100)
    view = cmp.summary()
    assert list(view.index) == ["model_a", "model_b", "model_c", "model_b vs model_a", "model_c vs model_a",
                                "model_c vs model_b"]
    value = cmp.xs(("model_c", "model_b"), level=("model", "baseline"))["value"]
    assert view.loc["model_c", "gauc"] == f"{value['gauc']:.4f}"
    assert view.loc["model_c vs model_b", "mrr"].lstrip("▲▼ ").startswith(("+", "-"))
