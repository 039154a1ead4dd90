"""One presentation layer: every output format carries the same footer, numbers are
formatted only for display, and coverage warnings follow the reference rule."""

from __future__ import annotations

import html
import io
import json
import re
import sys
import warnings

import numpy as np
import pandas as pd
import pytest

import pandas_rankeval as pre
from pandas_rankeval import cli
from pandas_rankeval.display import render


@pytest.fixture(scope="module")
def imp() -> pd.DataFrame:
    return pre.datasets.make_impressions(n_users=400, seed=5)


def _table(imp: pd.DataFrame, kind: str, by: str | None, ci: float | None) -> pd.DataFrame:
    common = {"group": "user_id", "label": "click"}
    if kind == "report":
        kw = {"ci": ci, "n_boot": 60} if ci is not None else {}
        return pre.report(imp, **common, scores=["model_a", "model_b"], metrics=["auc", "gauc", "mrr"], by=by, **kw)
    if kind == "compare":
        return pre.compare(imp, **common, scores=["model_a", "model_b"], baseline="model_a",
                           metrics=["auc", "gauc", "ndcg@5"], by=by, ci=ci or 0.95, n_boot=60)
    return pre.per_group(imp, **common, score="model_b", metrics=["auc", "mrr"])


CASES = [
    (kind, by, ci)
    for kind in ("report", "compare")
    for by in (None, "activity")
    for ci in (None, 0.9)
] + [("per_group", None, None)]


@pytest.mark.parametrize(("kind", "by", "ci"), CASES)
def test_every_format_carries_the_same_footer(imp, kind, by, ci) -> None:
    table = _table(imp, kind, by, ci)
    lines = table.footer()
    # what each kind of table must state
    assert any(line.startswith("coverage") for line in lines)
    assert any(line.startswith("choices: ") for line in lines)
    if ci is not None and kind == "report":
        assert any(line.startswith("[low, high]: 90% interval") for line in lines)
    if kind == "compare":
        assert any("ci_low, ci_high" in line for line in lines)
        assert any(line.startswith("tests: ") for line in lines)
        assert lines[0].startswith("significant: p_holm < 0.05 (Holm over the ")
    # every line in every export, in the same order; the text shows the short ones
    short = table.footer("short")
    assert short == lines[: len(short)] and 1 <= len(short) <= 3
    text = table.to_text(width=0)
    assert "\n".join(short) in text
    assert table.to_text(footer="full", width=0).rstrip("\n").endswith("\n\n" + "\n".join(lines))
    assert " ".join(" ".join(short).split()) in " ".join(repr(table).split())  # wrapped at the width
    markdown = table.to_markdown()
    assert "\n".join(f"- {line}" for line in short) in markdown
    assert all(f"- {line}" in markdown for line in lines)
    page = table._repr_html_()
    assert "<br>".join(html.escape(line) for line in short) in page
    assert all(html.escape(line) in page for line in lines)
    payload = json.loads(render(table, "json"))
    assert payload["footer"] == lines
    csv = render(table, "csv")
    assert [line[2:] for line in csv.splitlines() if line.startswith("# ")] == lines
    # attrs survive (pandas 3.1 drops them in pd.DataFrame(table)): every format has them
    assert render(table, "table", width=0) == text and render(table, "markdown") == markdown
    # and the CSV body is the unrounded table
    body = pd.read_csv(io.StringIO(csv), comment="#", index_col=list(range(table.index.nlevels)))
    np.testing.assert_allclose(
        body.select_dtypes("number").to_numpy(float),
        pd.DataFrame(table).select_dtypes("number").to_numpy(float),
        rtol=1e-12,
    )


def test_cli_formats_share_the_footer(imp, tmp_path, capsys) -> None:
    path = tmp_path / "imp.csv"
    imp.to_csv(path, index=False)
    base = ["eval", str(path), "--group", "user_id", "--label", "click", "--score", "model_a", "model_b",
            "--metrics", "auc", "gauc", "--by", "activity"]
    outputs = {}
    for fmt in ("table", "markdown", "json", "csv"):
        assert cli.main([*base, "--format", fmt]) == 0
        outputs[fmt], err = capsys.readouterr()
        assert err == ""
    lines = json.loads(outputs["json"])["footer"]
    short = json.loads(outputs["json"])["footer_short"]
    assert lines and short == lines[: len(short)]
    assert outputs["table"].rstrip("\n").endswith("(details: --footer full)")
    assert all(line.split(";")[0] in outputs["table"] for line in short)
    assert all(f"- {line}" in outputs["markdown"] for line in lines)
    assert [line[2:] for line in outputs["csv"].splitlines() if line.startswith("# ")] == lines


# --- formatting ------------------------------------------------------------------------------


def test_html_formats_values_and_keeps_data_unrounded(imp) -> None:
    rep = pre.report(imp, group="user_id", label="click", scores=["model_a", "model_b"], metrics=["auc", "gauc"])
    page = rep._repr_html_()
    gauc = float(rep.loc["model_a", "gauc"])
    assert f">{gauc:.4f}<" in page and f"{gauc:.6f}" not in page  # 4 decimals, not pandas' 6
    n_rows = int(rep.loc["model_a", "n_rows"])
    assert f"{n_rows:,} rows" in page  # counts with separators, in the footer (coverage columns)
    share = float(rep.loc["model_a", "gauc_rows_skipped"])
    assert f"{share:.1%} of rows" in page
    assert ">n_rows<" not in page  # constant coverage columns are not repeated in the body
    assert rep.loc["model_a", "gauc"] == gauc and not float(gauc * 1e4).is_integer()  # data unrounded
    with pd.option_context("display.precision", 2):
        assert f">{gauc:.2f}<" in rep._repr_html_() and f"{gauc:.2f}" in repr(rep)


def test_html_escapes_odd_names(imp) -> None:
    odd = imp.rename(columns={"model_a": "<b>a&b</b>", "user_id": "user <id>"})
    rep = pre.report(odd, group="user <id>", label="click", scores=["<b>a&b</b>"], metrics=["gauc"])
    page = rep._repr_html_()
    assert "<b>a&b</b>" not in page and "&lt;b&gt;a&amp;b&lt;/b&gt;" in page


def test_by_and_ci_report_fits_a_notebook(imp) -> None:
    rep = pre.report(imp, group="user_id", label="click", scores=["model_a", "model_b"], by="activity", ci=0.95,
                     n_boot=50, metrics=["auc", "gauc", "mrr", "ndcg@10", "map", "precision@5", "recall@5", "hit_rate@5"])
    page = rep._repr_html_()
    # one cell per estimate and interval; one table that scrolls, never parts of columns
    assert re.search(r">\d\.\d{4} \[\d\.\d{4}, \d\.\d{4}\]<", page)
    assert ">gauc_low<" not in page and ">n_groups<" not in page
    assert page.count("<table") == 1 and "overflow-x:auto" in page
    view = rep.compact()
    assert list(view.columns) == ["model_a", "model_b"]
    assert view.index.names == ["activity", "metric"] and len(view) == 3 * 8
    lines = view.to_text(width=120).splitlines()
    assert max(len(line) for line in lines) <= 120


def test_compare_columns_lift_coverage_and_p_values(imp) -> None:
    res = pre.compare(imp, group="user_id", label="click", scores=["model_a", "model_b"], baseline="model_a",
                      metrics=["auc", "gauc", "mrr"], n_boot=99)
    assert "baseline" not in res.columns and "baseline_value" in res.columns
    np.testing.assert_allclose(res["lift"], res["diff"] / res["baseline_value"], rtol=1e-12)
    gauc_used = pre.gauc(imp, group="user_id", label="click", score="model_a").coverage.n_used
    assert res.loc[("model_b", "gauc"), "groups_used"] == gauc_used
    assert res.loc[("model_b", "mrr"), "groups_used"] == imp["user_id"].nunique()
    from pandas_rankeval.display.formatting import fmt_p

    text = res.to_text(width=0, footer="none")
    rows = {line.split()[1] if line.split()[0] == "model_b" else line.split()[0]: line
            for line in text.splitlines()[1:]}
    for metric, (p, q) in res.xs("model_b", level="model")[["p_value", "p_holm"]].iterrows():
        assert f" {fmt_p(p)} " in rows[metric] and f" {fmt_p(q)} " in rows[metric], rows[metric]
    # global AUC pools every row: its groups_used says "all"
    assert f"all {res.loc[('model_b', 'auc'), 'groups_used']:,}" in rows["auc"]
    assert any(line.startswith("coverage of gauc: ") for line in res.footer())
    assert re.search(r"[+-]\d+\.\d%", text)  # lift in %


def test_compare_compact_and_summary(imp) -> None:
    res = pre.compare(imp, group="user_id", label="click", scores=["model_a", "model_b"], baseline="model_a",
                      metrics=["auc", "gauc"], n_boot=60, by="device")
    view = res.compact()
    assert list(view.columns[:2]) == [("model_a", "baseline"), ("model_b", "value")]
    assert ("model_b", "diff [95% CI]") in view.columns
    cell = view.iloc[0][("model_b", "diff [95% CI]")]
    assert re.fullmatch(r"[+-]\d\.\d{4} \[[+-]\d\.\d{4}, [+-]\d\.\d{4}\]", cell)
    summary = res.summary()
    assert list(summary.columns) == ["auc", "gauc"]
    assert summary.index.names == ["device", "model"]
    assert list(summary.index.get_level_values("model")[:2]) == ["model_a (baseline)", "model_b"]
    sig = res["significant"].to_numpy()
    marks = [("▲" in c or "▼" in c) for c in summary.xs("model_b", level="model").to_numpy().ravel()]
    assert marks == list(sig)
    assert summary.footer()[0].startswith("▲ / ▼: significantly better / worse than model_a: Holm-adjusted p < 0.05")


def test_global_auc_coverage_is_rows_not_one_group(imp) -> None:
    text = str(pre.auc(imp, label="click", score="model_a").coverage)
    assert "1 of 1" not in text and f"{len(imp):,} rows" in text


# --- warnings --------------------------------------------------------------------------------


def test_default_report_does_not_warn() -> None:
    df = pre.datasets.make_impressions()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pre.report(df, group="user_id", label="click", scores=["model_a", "model_b"])
        pre.gauc(df, group="user_id", label="click", score="model_a")


def _one_warning(record) -> warnings.WarningMessage:
    ours = [w for w in record if issubclass(w.category, pre.CoverageWarning)]
    assert len(ours) == 1, [str(w.message) for w in ours]
    return ours[0]


def test_filters_that_drop_more_than_ten_percent_warn_once_at_the_callers_line(imp) -> None:
    kw = {"group": "user_id", "label": "click", "min_size": 20}
    calls = {
        "gauc": lambda: pre.gauc(imp, score="model_a", **kw),
        "pipe": lambda: imp.pipe(pre.gauc, score="model_a", **kw),
        "accessor": lambda: imp.rank.gauc(score="model_a", **kw),
        "report": lambda: pre.report(imp, scores=["model_a", "model_b"], metrics=["gauc", "mrr"], **kw),
        "compare": lambda: pre.compare(imp, scores=["model_a", "model_b"], baseline="model_a",
                                       metrics=["gauc"], n_boot=20, **kw),
    }
    for name, call in calls.items():
        with warnings.catch_warnings(record=True) as record:
            warnings.simplefilter("always")
            call()
        w = _one_warning(record)
        assert (w.filename, w.lineno) == (__file__, call.__code__.co_firstlineno), (name, w.filename, w.lineno)
        message = str(w.message)
        assert "gauc: gauc:" not in message and "the filters drop" in message, message
    # a filter that drops little: no warning
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pre.gauc(imp, group="user_id", label="click", score="model_a", min_size=3)


def test_no_usable_group_warns_once() -> None:
    df = pd.DataFrame({"g": [1, 1, 2, 2], "y": [1, 1, 0, 0], "s": [0.1, 0.2, 0.3, 0.4]})
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        value = pre.report(df, group="g", label="y", scores="s", metrics=["auc", "gauc"])
    w = _one_warning(record)
    assert str(w.message).startswith("report: gauc is NaN because no group is eligible (0 of 2 groups used")
    assert np.isnan(value.loc["s", "gauc"])


def test_the_warning_can_be_silenced_with_the_standard_filter(imp) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.filterwarnings("ignore", category=pre.CoverageWarning)
        pre.gauc(imp, group="user_id", label="click", score="model_a", min_size=20)


# --- command line ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def imp_csv(imp, tmp_path_factory) -> str:
    path = tmp_path_factory.mktemp("display") / "imp.csv"
    imp.to_csv(path, index=False)
    return str(path)


@pytest.mark.parametrize(("flag", "bar"), [([], False), (["--progress"], True), (["--no-progress"], False)])
def test_cli_progress_bar(imp, imp_csv, capsys, flag, bar) -> None:
    pytest.importorskip("tqdm")
    argv = ["eval", imp_csv, "--group", "user_id", "--label", "click", "--score", "model_a", "model_b",
            "--baseline", "model_a", "--metrics", "gauc", "--n-boot", "50", *flag]
    assert cli.main(argv) == 0
    out, err = capsys.readouterr()
    # stderr is not a terminal under pytest: no bar unless asked for
    assert ("compare" in err and "50/" not in out) if bar else err == ""
    if bar:
        assert err.startswith(f"pandas-rankeval: read {len(imp):,} rows from ")
    assert "coverage: " in out and "gauc uses " in out


def test_cli_metrics_lists_no_weight_for_global_auc(capsys) -> None:
    assert cli.main(["metrics"]) == 0
    out = capsys.readouterr().out
    # each entry with its wrapped continuation lines (the name column's width follows the longest name)
    entries = re.sub(r"\n +", " ", out).splitlines()
    auc = next(line for line in entries if line.startswith("auc "))
    assert "weight" not in auc.replace("no group weight", "") and "pooled over all rows" in auc
    gauc = next(line for line in entries if line.startswith("gauc "))
    assert "default weight: count" in gauc


# --- property: random small tables, every format carries the same footer ------------------------

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

try:
    from _profiles import examples as profile_examples  # noqa: E402
except ImportError:  # tests/ imported as a package
    from tests._profiles import examples as profile_examples  # noqa: E402


@st.composite
def _frames(draw):
    n_groups = draw(st.integers(2, 12))
    sizes = draw(st.lists(st.integers(1, 6), min_size=n_groups, max_size=n_groups))
    g = np.repeat(np.arange(n_groups), sizes)
    n = int(g.shape[0])
    y = np.array(draw(st.lists(st.integers(0, 2), min_size=n, max_size=n)))
    a = np.array(draw(st.lists(st.sampled_from([0.1, 0.2, 0.5, 0.7, 0.9]), min_size=n, max_size=n)))
    b = np.array(draw(st.lists(st.floats(0, 1, allow_nan=False), min_size=n, max_size=n)))
    seg = np.array(["x", "y"])[np.arange(n_groups) % 2][g]
    return pd.DataFrame({"g": g, "y": y, "a": a, "b": b, "seg": seg})


@settings(max_examples=profile_examples(25))  # the hypothesis profile decides the randomness
@given(
    df=_frames(),
    kind=st.sampled_from(["report", "compare", "per_group"]),
    by=st.sampled_from([None, "seg"]),
    ci=st.sampled_from([None, 0.9]),
    metrics=st.lists(st.sampled_from(["auc", "gauc", "mrr", "ndcg@3", "map", "hit_rate@2"]), min_size=1,
                     max_size=3, unique=True),
)
def test_footer_is_the_same_in_every_format_on_random_tables(df, kind, by, ci, metrics) -> None:
    common = {"group": "g", "label": "y", "metrics": metrics}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pre.CoverageWarning)
        if kind == "report":
            extra = {"ci": ci, "n_boot": 200} if ci is not None else {}
            table = pre.report(df, **common, scores=["a", "b"], by=by, **extra)
        elif kind == "compare":
            table = pre.compare(df, **common, scores=["a", "b"], baseline="a", by=by, ci=ci or 0.95, n_boot=200)
        else:
            table = pre.per_group(df, **common, score="b")
    lines = table.footer()
    assert lines and any(line.startswith("coverage") for line in lines)
    assert any(line.startswith("choices: ") for line in lines)
    assert table.to_text(footer="full", width=0).rstrip("\n").endswith("\n\n" + "\n".join(lines))
    assert all(f"- {line}" in table.to_markdown() for line in lines)
    page = table._repr_html_()
    assert all(html.escape(line) in page for line in lines)
    assert json.loads(render(table, "json"))["footer"] == lines
    assert [line[2:] for line in render(table, "csv").splitlines() if line.startswith("# ")] == lines


def test_progress_bar_without_ipywidgets_is_the_text_bar(monkeypatch) -> None:
    pytest.importorskip("tqdm")
    import tqdm.std

    from pandas_rankeval.core.progress import Progress

    monkeypatch.setitem(sys.modules, "ipywidgets", None)  # import ipywidgets -> ImportError
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "IProgress not found" TqdmWarning
        bar = Progress(True, total=3, desc="bootstrap")
        bar.update(3)
        bar.close()
    assert type(bar.bar) is tqdm.std.tqdm


def test_text_parts_are_even_never_one_narrow_group_left_over() -> None:
    """At 120 columns the full comparison by segment put ``groups_used`` alone
    into a second block of every row. Parts are as few as fit the width, and as even as they can
    be: two parts of two groups each here, every part within the width."""
    from pandas_rankeval.display.layout import Shown, to_text

    index = pd.MultiIndex.from_product([["desktop", "mobile"], ["model_b", "model_c"], ["gauc", "ndcg@10"]],
                                       names=["device", "model", "metric"])
    cols = ["baseline_value", "value", "diff", "lift", "ci_low", "ci_high", "p_value", "p_holm", "significant",
            "groups_used"]
    frame = pd.DataFrame([["0.6576", "0.7700", "+0.1123", "+17.1%", "+0.0719", "+0.1637", "8.80e-6", "1.14e-4",
                           "▲ better", "1,781"]] * len(index), index=index, columns=cols)
    shown = Shown(frame, [[0, 1], [2, 3, 4, 5], [6, 7, 8], [9]])
    text = to_text(shown, width=120)
    blocks = text.strip().split("\n\n")
    heads = [b.splitlines()[0].split()[3:] for b in blocks]
    assert heads == [cols[:6], cols[6:]]
    assert max(len(line) for line in text.splitlines()) <= 120
    # what fits in one part stays one part; at 60 columns every group needs a part of its own
    assert len(to_text(shown, width=200).strip().split("\n\n")) == 1
    narrow = to_text(shown, width=60)
    assert len(narrow.strip().split("\n\n")) == 4 and max(len(line) for line in narrow.splitlines()) <= 60


@pytest.mark.parametrize("engine", ["pandas", "polars-lazy"])
def test_report_of_global_auc_by_segment_with_overall_prints(engine) -> None:
    """``report(metrics=["auc"], by=..., overall=True)`` could not be printed on
    any engine (``int(nan)``: the overall rows pool their rows and count no groups). Every view
    prints; the segments' line counts each segment's rows and groups (counted here with pandas)
    and the overall one its rows only."""
    df = pre.datasets.make_impressions(n_users=120, seed=7)
    frame: object = df
    if engine == "polars-lazy":
        pl = pytest.importorskip("polars")
        frame = pl.from_pandas(df).lazy()
    kw = dict(group="user_id", label="click", scores=["model_a", "model_b"], metrics=["auc"], by="device")
    table = pre.report(frame, overall=True, ci=0.9, n_boot=50, **kw)
    assert pd.isna(table.xs("(all)", level="device")["n_groups"]).all()
    sizes = df.groupby("device", sort=False).agg(n=("click", "size"), g=("user_id", "nunique"))
    want = "; ".join(f"{d}: {r.n:,} rows, {r.g:,} groups" for d, r in sizes.iterrows())
    lines = table.footer()
    assert f"by device: {want}; (all): {len(df):,} rows" in lines, lines
    assert "coverage: " + f"{len(df):,} rows, pooled (no groups)" in lines
    for shown in (repr(table), table.to_text(footer="full"), table.to_markdown(), table._repr_html_(),
                  repr(table.compact()), repr(pre.report(frame, overall=True, **kw))):
        assert "(all)" in shown


def test_tuple_names_and_a_by_column_named_like_a_level():
    """Tuple column names (a MultiIndex frame's) print in every view (compact and summary raised
    on a tuple baseline, the footer on a tuple segment); a by column named 'model' (a level of the
    result) is refused by name (compact printed an empty table)."""
    import warnings

    base = pre.datasets.make_impressions(n_users=300, seed=0)
    d = base.copy()
    scores = [("ranker", "v17"), ("ranker", "v18")]
    d[scores[0]], d[scores[1]] = d.model_a, d.model_b
    d[("seg", "dev")] = d.device
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pre.CoverageWarning)
        c = pre.compare(d, group="user_id", label="click", scores=scores, metrics=["gauc"], baseline=scores[0],
                        n_boot=20)
        r = pre.report(d, group="user_id", label="click", scores=["model_a", "model_b"], metrics=["gauc"],
                       by=[("seg", "dev")], ci=0.95, n_boot=20)
    assert "('ranker', 'v18')" in c.compact().to_text(width=120)
    assert "('ranker', 'v18')" in c.summary().to_text(width=120)
    text = r.to_text(width=80, footer="full")
    assert "desktop" in text and "(('seg', 'dev'): desktop" in " ".join(text.split())
    assert "desktop" in r.compact().to_text(width=80)
    d["model"] = d["country"]
    with pytest.raises(ValueError, match=r"The 'by' column 'model' of report has the name of a level of the "
                                         r"result's index .* df\.rename\(columns=\{'model': 'model_segment'\}\)"):
        pre.report(d, group="user_id", label="click", scores=["model_a"], metrics=["gauc"], by="model")


def test_a_segments_nan_is_named_with_its_reason():
    """A segment of one class: AUC, NE and PCOC are NaN there; the full footer names the segment
    and the reason (the whole table's NaN warns; a segment's was not explained anywhere)."""
    import warnings

    df = pre.datasets.make_impressions(n_users=300, seed=0)
    df.loc[df["device"] == "tablet", "click"] = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pre.CoverageWarning)
        r = pre.report(df, group="user_id", label="click", scores=["model_a"], metrics=["auc", "ne", "pcoc"],
                       by="device")
    assert r.loc[("tablet", "model_a"), ["auc", "ne", "pcoc"]].isna().all()
    full = " ".join(r.to_text(footer="full").split())
    assert ("NaN: auc in tablet: one class only: no (relevant, non-relevant) pair; ne in tablet: every row is a "
            "click or none is") in full
    assert "pcoc in tablet: the clicks weigh 0 in total, or there is none" in full
    assert "NaN:" not in pre.report(df[df["device"] != "tablet"], group="user_id", label="click",
                                    scores=["model_a"], metrics=["auc"], by="device").to_text(footer="full")
