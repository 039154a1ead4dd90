"""The decision view: one layout rule, one footer rule, one export rule.

- layout: no rendered HTML table splits a model's column group; text wraps only between
  groups and never exceeds the width it is given;
- footer: two or three lines that matter by default, each view speaking of its own columns;
  the details in every export;
- export: every way out of every kind of table carries the same footer facts.
"""

from __future__ import annotations

import html
import io
import json
import re
import warnings
from html.parser import HTMLParser

import numpy as np
import pandas as pd
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

try:
    from _profiles import examples as profile_examples
except ImportError:  # tests/ imported as a package
    from tests._profiles import examples as profile_examples

import pandas_rankeval as pre
from pandas_rankeval.display.formatting import fmt_p
from pandas_rankeval.display.layout import Shown, column_groups, to_text


@pytest.fixture(scope="module")
def imp() -> pd.DataFrame:
    df = pre.datasets.make_impressions(n_users=500, seed=4)
    df["model_c"] = 0.5 * df["model_a"] + 0.5 * df["model_b"]
    return df


COMMON = {"group": "user_id", "label": "click"}
MODELS = ["model_a", "model_b", "model_c"]


def tables(imp: pd.DataFrame) -> dict[str, pd.DataFrame]:
    rep = pre.report(imp, **COMMON, scores=MODELS, metrics=["auc", "gauc", "mrr", "ndcg@5"])
    seg = pre.report(imp, **COMMON, scores=MODELS, metrics=["auc", "gauc", "mrr"], by="device", ci=0.9, n_boot=50)
    cmp = pre.compare(imp, **COMMON, scores=MODELS, baseline="model_a", metrics=["auc", "gauc", "mrr"],
                      by="device", n_boot=50)
    one = pre.per_group(imp, **COMMON, score="model_b", metrics=["auc", "mrr"])
    many = pre.per_group(imp, **COMMON, scores=MODELS, metrics=["auc", "ndcg@5"])
    return {
        "report": rep, "report_by_ci": seg, "compare": cmp, "per_group": one, "per_group_scores": many,
        "report_compact": seg.compact(baseline="model_a"), "compare_compact": cmp.compact(),
        "compare_summary": cmp.summary(), "per_group_head": many.head(),
    }


@pytest.fixture(scope="module")
def all_tables(imp: pd.DataFrame) -> dict[str, pd.DataFrame]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pre.CoverageWarning)
        return tables(imp)


# --- the export rule ------------------------------------------------------------------------


KINDS = ["report", "report_by_ci", "compare", "per_group", "per_group_scores", "report_compact",
         "compare_compact", "compare_summary", "per_group_head"]


@pytest.mark.parametrize("kind", KINDS)
def test_every_export_carries_the_same_footer_facts(all_tables, kind: str, tmp_path) -> None:
    table = all_tables[kind]
    facts = table.footer()
    assert facts and all(isinstance(f, str) and f for f in facts)
    # csv: every fact as a '# ' line, after the unrounded body (index levels as columns)
    csv = table.to_csv()
    assert [line[2:] for line in csv.splitlines() if line.startswith("# ")] == facts
    assert csv == table.render("csv")
    body = pd.read_csv(io.StringIO(csv), comment="#")
    assert len(body) == len(table)
    path = tmp_path / "t.csv"
    assert table.to_csv(path) is None and path.read_text() == csv
    # json: every fact, the short ones, records with index levels as fields (never a tuple string)
    payload = json.loads(table.to_json())
    assert payload["footer"] == facts and payload["footer_short"] == table.footer("short")
    assert len(payload["results"]) == len(table)
    assert not any(re.match(r"^\(.*,.*\)$", str(k)) for r in payload["results"] for k in r)
    assert json.loads(table.render("json"))["footer"] == facts
    # markdown: the short lines as a list, the details folded
    md = table.to_markdown()
    assert all(f"- {f}" in md for f in facts)
    assert md == table.render("markdown")
    # html: the short lines shown, the details in a closed <details>
    page = table.render("html")  # the whole table (Jupyter's display shows a long one's head and tail)
    assert all(html.escape(f) in page for f in facts) and all(html.escape(f) in table._repr_html_() for f in facts)
    if len(facts) > len(table.footer("short")):
        assert "<details" in page
    # text: the short lines by default, every fact on request
    assert all(f in table.to_text(footer="full", width=0) for f in facts)
    assert all(f in table.to_text(width=0) for f in table.footer("short"))
    # parquet: every fact in the file's metadata
    pytest.importorskip("pyarrow")
    pq = tmp_path / "t.parquet"
    table.to_parquet(pq)
    back = pd.read_parquet(pq)
    assert back.attrs["footer"] == facts and len(back) == len(table)


@pytest.mark.parametrize("kind", KINDS)
def test_short_footer_is_two_or_three_lines_that_matter(all_tables, kind: str) -> None:
    table = all_tables[kind]
    short = table.footer("short")
    note = 1 if kind == "per_group_head" else 0  # "rows: 5 of the table's 500"
    assert 1 <= len(short) <= 3 + note
    text = " ".join(short)
    assert "coverage: " in text
    if kind.startswith("compare"):
        assert "significantly better / worse" in text or "significant: p_holm" in text
    if kind not in ("per_group",):  # every table here shows a list metric with users who never click
        assert "no relevant row" in text and "empty=" in text and "ranx" in text


def test_each_view_speaks_of_its_own_columns(all_tables) -> None:
    raw, compact, summary = (all_tables[k].footer() for k in ("compare", "compare_compact", "compare_summary"))
    assert any("ci_low, ci_high" in line for line in raw)
    assert not any("ci_low" in line for line in compact) and any("diff [95% CI]:" in line for line in compact)
    assert not any("ci_low" in line or "diff [" in line for line in summary)
    report = all_tables["report_by_ci"].footer()
    assert any(line.startswith("[low, high]: 90% interval") for line in report)


def test_coverage_warning_is_not_repeated_in_the_footer(imp) -> None:
    with pytest.warns(pre.CoverageWarning) as caught:
        rep = pre.report(imp, **COMMON, scores=MODELS, metrics=["gauc"], min_size=10)
    message = str(caught[0].message)
    assert not any(line in message or message in line for line in rep.footer())


# --- the layout rule ------------------------------------------------------------------------


class _Headers(HTMLParser):
    """The tables of a page, and the header cells of each: (text, colspan)."""

    def __init__(self) -> None:
        super().__init__()
        self.tables = 0
        self.rows: list[list[tuple[str, int]]] = []
        self._in_head = False
        self._cell: list[str] | None = None
        self._span = 1

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table":
            self.tables += 1
        elif tag == "thead":
            self._in_head = True
        elif tag == "tr" and self._in_head:
            self.rows.append([])
        elif tag == "th" and self._in_head:
            self._cell, self._span = [], int(a.get("colspan", 1))

    def handle_endtag(self, tag):
        if tag == "thead":
            self._in_head = False
        elif tag == "th" and self._cell is not None:
            self.rows[-1].append(("".join(self._cell), self._span))
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


def synthetic_compare(n_models: int, metrics: list[str], segments: list[str], name_len: int) -> pd.DataFrame:
    rng = np.random.default_rng(n_models * 31 + len(metrics) + 7 * len(segments) + name_len)
    models = [f"m{i}_" + "x" * name_len for i in range(1, n_models + 1)]
    keys = [(*((s,) if segments else ()), m, k) for s in (segments or [None]) for m in models for k in metrics]
    base = rng.uniform(0.1, 0.9, len(keys))
    diff = rng.normal(0, 0.05, len(keys))
    p = 10 ** -rng.uniform(0, 9, len(keys))
    names = [*(["segment"] if segments else []), "model", "metric"]
    t = pd.DataFrame(
        {"baseline_value": base, "value": base + diff, "diff": diff, "lift": diff / base, "ci_low": diff - 0.02,
         "ci_high": diff + 0.02, "p_value": p, "p_holm": np.minimum(1, p * len(keys)),
         "significant": p * len(keys) < 0.05, "groups_used": rng.integers(10, 10**6, len(keys))},
        index=pd.MultiIndex.from_tuples(keys, names=names),
    )
    from pandas_rankeval.display.table import as_result_table

    t.attrs = {"baseline": "base_model", "alpha": 0.05, "ci": 0.95, "ci_method": "percentile bootstrap",
               "coverage": {k: {"n_rows": 100, "n_groups": 10, "n_used": 10, "grouped": k != "auc"} for k in metrics}}
    return as_result_table(t, "compare")


LAYOUTS = {
    "n_models": st.integers(1, 5),
    "metrics": st.lists(st.sampled_from(["auc", "gauc", "mrr", "ndcg@10", "map", "precision@5", "recall@10",
                                         "hit_rate@10", "mrr@5", "ndcg@5"]), min_size=1, max_size=10, unique=True),
    "segments": st.lists(st.sampled_from(["desktop", "mobile", "tablet", "tv"]), max_size=4, unique=True),
    "name_len": st.integers(0, 12),
}


@settings(max_examples=profile_examples(40))
@given(**LAYOUTS)
def test_no_html_table_splits_a_models_column_group(n_models, metrics, segments, name_len) -> None:
    cmp = synthetic_compare(n_models, metrics, segments, name_len)
    for view in (cmp.compact(), cmp.summary(), cmp):
        parser = _Headers()
        parser.feed(view._repr_html_())
        groups = []
        if isinstance(view.columns, pd.MultiIndex):
            groups = [(str(k), sum(1 for c in view.columns if c[0] == k)) for k in dict.fromkeys(view.columns.get_level_values(0))]
        if not view.attrs.get("stack"):
            assert parser.tables == 1  # one table: the browser scrolls, nothing is cut into parts
            if groups:
                top = [(text, span) for text, span in parser.rows[0] if text]
                assert top == groups  # each model's columns under one spanning header, in one piece
            continue
        # three models or more: one table per model, the baseline's column in each
        lead, blocks = groups[: view.attrs.get("repeat", 0)], groups[view.attrs.get("repeat", 0):]
        assert len(blocks) >= 3 and parser.tables == len(blocks)
        tops = [[(text, span) for text, span in row if text] for row in parser.rows[::2]]
        assert tops == [[*lead, block] for block in blocks]  # each model's columns in one piece


@settings(max_examples=profile_examples(40))
@given(**LAYOUTS, width=st.sampled_from([80, 120, 200]))
def test_text_wraps_between_groups_within_the_width(n_models, metrics, segments, name_len, width) -> None:
    cmp = synthetic_compare(n_models, metrics, segments, name_len)
    compact = cmp.compact()
    for view in (compact, cmp.summary(), cmp):
        text = view.to_text(width=width, footer="full")
        assert max(len(line) for line in text.splitlines()) <= width
    # every part of the compact text holds whole model groups: a model's name heads a part
    # whose second header line has all of that model's columns
    text = compact.to_text(width=width, footer="none")
    subs = list(dict.fromkeys(compact.columns.get_level_values(1)))[1:]  # the models' columns
    for part in text.split("\n\n"):
        top, second = part.splitlines()[:2]
        n_models_here = len(re.findall(r"m\d+_x*", top))
        for sub in subs:
            assert second.count(sub) == n_models_here


@settings(max_examples=profile_examples(60))
@given(
    widths=st.lists(st.lists(st.integers(1, 30), min_size=1, max_size=4), min_size=1, max_size=8),
    index_width=st.integers(1, 20),
    width=st.integers(40, 200),
)
# found by the explore profile: the column labels "c0".."c2" are wider than their
# one-character cells and the index name "row" than its label, so this group needs 41 columns;
# the test's fit estimate counted the cells only and said it fits in 40
@example(widths=[[1, 1, 1, 24]], index_width=1, width=40)
def test_text_parts_never_split_a_group(widths, index_width, width) -> None:
    cols, labels = [], []
    for g, ws in enumerate(widths):
        for j, w in enumerate(ws):
            cols.append((f"G{g}", f"c{j}"))
            labels.append("9" * w)
    frame = pd.DataFrame([labels], index=pd.Index(["r" * index_width], name="row"),
                         columns=pd.MultiIndex.from_tuples(cols))
    shown = Shown(frame, column_groups(frame.columns), ["a footer line " * 10])
    text = to_text(shown, width)
    # a column is as wide as its widest text (header "c<j>" or cell), the row labels as the
    # index name "row" or the label, a group as its columns with two spaces between them (or
    # its label "G<g>" when wider); the row labels may still shrink to make a group fit
    spans = [max(sum(max(w, len(f"c{j}")) for j, w in enumerate(ws)) + 2 * (len(ws) - 1), len(f"G{g}"))
             for g, ws in enumerate(widths)]
    fits = all(max(index_width, len("row")) + 2 + span <= width for span in spans)
    for part in text.split("\n\n")[:-1]:
        top = part.splitlines()[0]
        for g in re.findall(r"G\d+", top):
            # all the group's columns sit in this part
            assert part.splitlines()[1].count("c") >= len(widths[int(g[1:])]) or not fits
        if fits:
            assert max(len(line) for line in part.splitlines()) <= width
    assert max(len(line) for line in text.split("\n\n")[-1].splitlines()) <= width  # the footer wraps


# --- cells ----------------------------------------------------------------------------------


def test_one_rule_for_p_values() -> None:
    assert [fmt_p(p) for p in (0.5, 0.0499, 0.00123, 0.000123, 1e-7, 0.0)] == [
        "0.500", "0.0499", "0.00123", "1.23e-4", "< 1e-6", "< 1e-6"
    ]


def test_significance_has_a_direction_and_pooled_rows_say_so(all_tables) -> None:
    cmp = all_tables["compare"]
    shown = cmp.to_text(width=0, footer="none")
    worse = cmp[(cmp["significant"]) & (cmp["diff"] < 0)]
    better = cmp[(cmp["significant"]) & (cmp["diff"] > 0)]
    assert ("▼ worse" in shown) == (len(worse) > 0) and ("▲ better" in shown) == (len(better) > 0)
    assert " yes" not in shown
    auc_groups = cmp.xs("auc", level="metric")["groups_used"]
    assert all(f"all {n:,}" in shown for n in auc_groups)
    page = cmp.summary()._repr_html_()
    assert 'color:#cf222e">▼' in page or 'color:#1a7f37">▲' in page or not cmp["significant"].any()


def test_report_by_segment_does_not_repeat_segment_columns(all_tables) -> None:
    seg = all_tables["report_by_ci"]
    text = seg.to_text(width=0)
    assert "n_groups" not in text and "gauc_groups_used" not in text
    sizes = seg["n_groups"].groupby(level="device").first()
    line = next(s for s in seg.footer("short") if s.startswith("coverage: "))
    assert all(f"{dev} {n:,}" in line for dev, n in sizes.items())
    assert any(line.startswith("by device: ") for line in seg.footer())


def test_selections_keep_the_format(all_tables) -> None:
    pg = all_tables["per_group_scores"]
    head = pg.head()
    assert type(head).__name__ == "ResultTable"
    assert "rows: 5 of the table's" in head.to_text()
    assert ".0 " not in head.to_text(footer="none") and "14.0" not in repr(head)
    top = pg.sort_values("model_b_auc", ascending=False).head(3)
    assert "rows: 3 of the table's" in repr(top)
    masked = pg[pg["n"] > 10]
    assert type(masked).__name__ == "ResultTable"
    assert type(pg["n"] * 2).__name__ == "Series" and type(pg + 1).__name__ == "DataFrame"


def test_no_lexsort_warning_on_segment_model_lookup(all_tables) -> None:
    cmp = all_tables["compare"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        part = cmp.loc[("mobile", "model_b")]
    assert list(part.index) == ["auc", "gauc", "mrr"]


def test_metric_result_in_a_dict_reads_as_a_metric(imp) -> None:
    g = pre.gauc(imp, **COMMON, score="model_b")
    shown = repr({"gauc": g})
    assert shown == f"{{'gauc': {round(float(g), 4)}}}"
    assert float(g) != round(float(g), 4)  # the value itself is unrounded
    assert str(g) == repr(float(g))


# --- per_group(scores=[...]) ------------------------------------------------------------------


def test_per_group_of_several_models_is_join_ready(imp, all_tables) -> None:
    many = all_tables["per_group_scores"]
    assert list(many.columns) == ["n", "positives", "model_a_auc", "model_a_ndcg@5", "model_b_auc", "model_b_ndcg@5",
                                  "model_c_auc", "model_c_ndcg@5", "weight"]
    for model in MODELS:
        one = pre.per_group(imp, **COMMON, score=model, metrics=["auc", "ndcg@5"])
        np.testing.assert_array_equal(many[f"{model}_auc"].to_numpy(), one["auc"].to_numpy())
        np.testing.assert_array_equal(many[f"{model}_ndcg@5"].to_numpy(), one["ndcg@5"].to_numpy())
    users = imp.groupby("user_id")[["country", "device"]].first()
    joined = users.join(many)
    assert len(joined) == len(users) and joined["model_b_auc"].notna().sum() == many["model_b_auc"].notna().sum()
    header = many.to_text(width=0).splitlines()[0]
    assert all(m in header for m in MODELS)  # each model's columns under its name


def test_per_group_needs_score_or_scores(imp) -> None:
    with pytest.raises(ValueError, match="one of 'score'.*'scores'.*Got both"):
        pre.per_group(imp, **COMMON, score="model_a", scores=["model_b"])
    with pytest.raises(ValueError, match="Got neither"):
        pre.per_group(imp, **COMMON)


def test_by_that_varies_within_a_group_fails_before_any_work(imp, monkeypatch) -> None:
    """The segments are checked before any score is sorted: under the reference switch every score
    column is sorted by ``tie_blocks.score_rank`` (no skipped groups, no packed sort), which raises
    here; the valid frame reaches it, the mixed one raises the segments' error first."""
    from pandas_rankeval.core.ranking import tie_blocks
    from pandas_rankeval.core.reference import reference_paths

    def no_sort(*args, **kwargs):
        raise AssertionError("a score was sorted before the segments were checked")

    monkeypatch.setattr(tie_blocks, "score_rank", no_sort)
    mixed = imp.assign(device=imp["device"].where(imp.index % 7 != 3, "smart_tv"))
    with reference_paths():
        with pytest.raises(AssertionError, match="a score was sorted"):  # the seam is on the path
            pre.report(imp, **COMMON, scores=MODELS, by="device")
        for call in (
            lambda: pre.report(mixed, **COMMON, scores=MODELS, by="device"),
            lambda: pre.compare(mixed, **COMMON, scores=MODELS, baseline="model_a", by="device", n_boot=20),
        ):
            with pytest.raises(ValueError, match=r"groups have more than one value, for example the group user_id=\d+ has "
                                                 r"'\w+' and 'smart_tv'.*group=\['user_id', 'device'\]"):
                call()


def test_dask_per_group_of_several_models_equals_pandas(imp) -> None:
    dd = pytest.importorskip("dask.dataframe")
    import pandas_rankeval.dask as prd

    got = prd.per_group(dd.from_pandas(imp, npartitions=3), **COMMON, scores=MODELS, metrics=["auc", "mrr"])
    want = pre.per_group(imp, **COMMON, scores=MODELS, metrics=["auc", "mrr"])
    pd.testing.assert_frame_equal(got.compute().sort_index(), pd.DataFrame(want).sort_index(), check_exact=False,
                                  rtol=1e-12)


def test_all_pairs_compact_stacks_one_block_per_pair_and_shows_one_pair(imp) -> None:
    """An all-pairs compact() was one table wider than a 1400 px page;
    its HTML is now one table per pair, stacked, each with the row labels; compact(pair=...)
    shows one pair, its p-values adjusted over the whole table's family."""
    df = imp.assign(model_c=imp["model_a"] * 0.5 + imp["model_b"], model_d=imp["model_b"] + 0.01 * imp["position"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pre.CoverageWarning)
        cmp = pre.compare(df, group="user_id", label="click", scores=["model_a", "model_b", "model_c", "model_d"],
                          metrics=["gauc", "mrr"], by="device", n_boot=100)
    parser = _Headers()
    parser.feed(cmp.compact()._repr_html_())
    assert parser.tables == 6  # one per pair
    pairs = [text for row in parser.rows for text, span in row if " vs " in text]
    assert pairs == ["model_b vs model_a", "model_c vs model_a", "model_d vs model_a", "model_c vs model_b",
                     "model_d vs model_b", "model_d vs model_c"]
    one = cmp.compact(pair=("model_d", "model_b"))
    assert list(one.columns.get_level_values(0).unique()) == ["model_b", "model_d"]
    want = cmp.xs(("model_d", "model_b"), level=("model", "baseline"))["p_holm"]
    shown = one[("model_d", "p (Holm)")].str.replace("[▲▼] ", "", regex=True)
    assert [float(s) for s in shown] == pytest.approx([float(f"{p:.3g}") for p in want], rel=1e-12)
    assert f"over the {len(cmp)} comparisons" in " ".join(str(one).split())
    with pytest.raises(ValueError, match="no such pair"):
        cmp.compact(pair=("model_a", "model_d"))
    with pytest.raises(ValueError, match="compare"):
        pre.report(df, group="user_id", label="click", scores=["model_a"], metrics=["mrr"]).compact(pair=("a", "b"))


def test_compact_of_three_models_flows_one_block_per_model(imp) -> None:
    """The compact view of three models against a baseline was one table of
    about 1,400 px, the third model behind a sideways scroll in a 1,280 px notebook. From three
    models on its HTML is one table per model, each with the row labels and the baseline's value
    (as text repeats it in every part), side by side while they fit and wrapped when not; two
    models stay one table."""
    df = imp.assign(model_d=imp["model_b"] + 0.01 * imp["position"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pre.CoverageWarning)
        three = pre.compare(df, group="user_id", label="click", scores=["model_a", "model_b", "model_c", "model_d"],
                            baseline="model_a", metrics=["gauc", "mrr"], by="device", n_boot=100)
        two = pre.compare(df, group="user_id", label="click", scores=["model_a", "model_b", "model_c"],
                          baseline="model_a", metrics=["gauc", "mrr"], n_boot=100)
    html = three.compact()._repr_html_()
    parser = _Headers()
    parser.feed(html)
    assert parser.tables == 3
    assert "display:flex;flex-wrap:wrap" in html
    tops = [[text for text, _ in row] for row in parser.rows[::2]]  # each table's first header row
    assert tops == [["", "model_a", model] for model in ("model_b", "model_c", "model_d")], tops
    for row in parser.rows[1::2]:
        assert [text for text, _ in row][:4] == ["device", "metric", "baseline", "value"]
    # every cell of the one-table view is in the blocks: the same numbers, once per model block
    compact = three.compact()
    for model in ("model_b", "model_c", "model_d"):
        for cell in compact[(model, "diff [95% CI]")]:
            assert cell in html
    # the text view is unchanged: parts with the baseline repeated
    assert str(compact).count("baseline") == 3
    parser = _Headers()
    parser.feed(two.compact()._repr_html_())
    assert parser.tables == 1
