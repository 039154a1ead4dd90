"""Labels shortened to fit the text width stay told apart.

At 80 columns two models ``lightgbm_lambdarank_ndcg_v17`` and ``lightgbm_lambdarank_ndcg_v18``
both printed as ``lightgbm_lambdarank_ndcg_v…``, and segment values too: the table could not be
read. A shortened label keeps the part that tells it apart; labels that no cut tells apart are
not cut that far (the table goes into more parts). A comparison's baseline column goes into
every part (its group label shortened first) rather than alone into a part of its own.
"""

from __future__ import annotations

import itertools
import re

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
from pandas_rankeval.display.layout import Shown, column_groups, cut_labels, to_text

ELLIPSIS = "…"


def reads_as(shown: str, label: str) -> bool:
    """Whether a reader could take ``shown`` for ``label``: the label itself, or a label that
    starts with the part before the ellipsis, ends with the part after it, and is longer."""
    if ELLIPSIS not in shown:
        return shown == label
    head, tail = shown.split(ELLIPSIS, 1)
    return len(label) > len(head) + len(tail) and label.startswith(head) and label.endswith(tail)


def any_cut_tells_apart(label: str, others: list[str], width: int) -> bool:
    """Brute force: some split of ``width - 1`` characters into a start and an end of ``label``
    reads as none of ``others``."""
    for head in range(width):
        shown = label[:head] + ELLIPSIS + label[len(label) - (width - 1 - head):][: width - 1 - head]
        if not any(reads_as(shown, o) for o in others):
            return True
    return False


def check_cuts(labels: list[str], width: int) -> list[str] | None:
    """cut_labels against the rule, label by label; returns its answer."""
    out = cut_labels(labels, width)
    distinct = list(dict.fromkeys(labels))
    if out is None:
        # some label is longer than the width and no cut of it reads as itself alone
        assert any(len(t) > width and not any_cut_tells_apart(t, [o for o in distinct if o != t], width)
                   for t in distinct)
        return None
    assert len(out) == len(labels)
    shown = dict(zip(labels, out))
    assert all(len(s) <= width for s in out)
    assert len(set(shown.values())) == len(distinct)  # different labels never print the same
    for label, s in shown.items():
        assert s == label if len(label) <= width else s.count(ELLIPSIS) == 1
        # the shortened label reads as its own label and as no other
        assert [o for o in distinct if reads_as(s, o)] == [label]
    return out


# names as models and segments are named: a shared start, a few varying characters, a shared end
PARTS = st.sampled_from(["", "lightgbm_lambdarank_", "organic_search_", "two_tower_v3_", "exp_2024_"])
ENDS = st.sampled_from(["", "_v17", "_v18", "_calibrated", "_feed", "_food", "_prod", "@10"])


@st.composite
def label_sets(draw):
    prefix, suffix = draw(PARTS), draw(PARTS)
    middles = draw(st.lists(st.text("abv0178_", min_size=0, max_size=6), min_size=1, max_size=8))
    return [prefix + m + suffix + draw(ENDS) for m in middles]


@settings(max_examples=profile_examples(300))
@given(labels=label_sets(), width=st.integers(1, 40))
@example(labels=["lightgbm_lambdarank_ndcg_v17", "lightgbm_lambdarank_ndcg_v18"], width=27)
@example(labels=["organic_search_homepage_feed", "organic_search_homepage_food", "email"], width=7)
@example(labels=["ab_x_cd", "ab_y_cd"], width=4)
@example(labels=["model_ab", "model_a_long"], width=8)  # a whole label the cut would read as
def test_shortened_labels_stay_told_apart(labels, width) -> None:
    check_cuts(labels, width)


def test_the_reported_names_keep_their_ends() -> None:
    assert check_cuts(["lightgbm_lambdarank_ndcg_v17", "lightgbm_lambdarank_ndcg_v18"], 27) == [
        "lightgbm_lambdarank_nd…_v17", "lightgbm_lambdarank_nd…_v18"]
    assert check_cuts(["organic_search_homepage_feed", "push_notification_reengagement", "email"], 26) == [
        "organic_search_homepage_f…", "push_notification_reengag…", "email"]  # end cuts when they tell apart
    assert check_cuts(["ab_x_cd", "ab_y_cd"], 4) is None


# --- the printed table ----------------------------------------------------------------------


def row_labels(text: str, nlevels: int) -> list[list[str]]:
    """Each table row's labels as printed, level by level, from every part of ``text`` (printed
    without footer); a label left blank under the same one above is ''. The columns start where
    the part's line of index names (the first line that does not start blank) has its names."""
    rows: list[list[str]] = []
    for part in text.strip("\n").split("\n\n"):
        lines = part.splitlines()
        at = next(i for i, line in enumerate(lines) if not line.startswith(" "))
        starts = [m.start() for m in re.finditer(r"\S+", lines[at])][:nlevels]
        for line in lines[at + 1:]:
            row = [line[a:b].strip() for a, b in itertools.pairwise(starts)]
            rows.append([*row, line[starts[-1]:].split("  ")[0].strip()])
    return rows


def as_printed(v: object) -> str:
    """A label's text before any cut: a text that would print blank, with edge spaces or a
    control character, quoted (repr)."""
    text = str(v)
    return repr(text) if isinstance(v, str) and (not text or text != text.strip() or not text.isprintable()) else text


def assert_labels_told_apart(text: str, index: pd.Index, width: int) -> None:
    """Every line within ``width``; every part's rows carry the index's labels in order, each
    level's shortened labels one per label, reading as that label only."""
    assert max(len(line) for line in text.splitlines()) <= width
    keys = [k if isinstance(k, tuple) else (k,) for k in index]
    rows = row_labels(text, index.nlevels)
    assert len(rows) % len(keys) == 0
    for level in range(index.nlevels):
        labels = [as_printed(v) for v in dict.fromkeys(k[level] for k in keys)]
        seen: dict[str, str] = {}
        for r, row in enumerate(rows):
            shown, label = row[level], as_printed(keys[r % len(keys)][level])
            if not shown:
                continue  # blank under the same label above
            assert seen.setdefault(label, shown) == shown
            assert [o for o in labels if reads_as(shown, o)] == [label], (shown, label)


@settings(max_examples=profile_examples(60))
@given(labels=label_sets(), width=st.integers(30, 120),
       widths=st.lists(st.lists(st.integers(1, 14), min_size=1, max_size=4), min_size=1, max_size=5))
def test_printed_row_labels_stay_told_apart(labels, widths, width) -> None:
    """Any row labels next to any column groups: the printed labels read as their own label
    only; a line is wider than the width only when the row labels one character narrower could
    not be told apart (or would be narrower than 6)."""
    labels = list(dict.fromkeys(labels))
    cols = [(f"G{g}", f"c{j}") for g, ws in enumerate(widths) for j in range(len(ws))]
    cells = ["9" * w for ws in widths for w in ws]
    frame = pd.DataFrame([cells] * len(labels), index=pd.Index(labels, name="model"),
                         columns=pd.MultiIndex.from_tuples(cols))
    text = to_text(Shown(frame, column_groups(frame.columns)), width=width)
    table = text.strip("\n")
    assert_labels_told_apart(table, frame.index, max(width, max(len(line) for line in table.splitlines())))
    if max(len(line) for line in table.splitlines()) > width:
        shown = max(len(r[0]) for r in row_labels(table, 1))
        narrower = max(shown, len("model")) - 1
        assert narrower < 6 or any(
            len(t) > narrower and not any_cut_tells_apart(t, [o for o in labels if o != t], narrower) for t in labels)


MODELS = ["lightgbm_lambdarank_ndcg_v17", "lightgbm_lambdarank_ndcg_v18", "lightgbm_lambdarank_ndcg_v18_calibrated"]


@pytest.fixture(scope="module")
def long_names() -> pd.DataFrame:
    df = pre.datasets.make_impressions(n_users=300, seed=3)
    df["model_c"] = df["model_b"] + np.random.default_rng(1).normal(0, 0.3, len(df))
    df = df.rename(columns=dict(zip(["model_a", "model_b", "model_c"], MODELS)))
    df["traffic_source"] = df["device"].map({"desktop": "organic_search_homepage_feed",
                                             "mobile": "organic_search_homepage_food", "tablet": "email"})
    df["user_activity_bucket"] = df["activity"] + "_activity_users_last_28_days"
    return df


@pytest.mark.parametrize("width", [80, 120])
def test_report_with_long_similar_names_prints_them_told_apart(long_names, width) -> None:
    """The tester's table: three models named alike, two segment levels of long values."""
    common = {"group": "user_id", "label": "click", "scores": MODELS, "metrics": ["gauc", "ndcg@10"],
              "by": ["traffic_source", "user_activity_bucket"]}
    rep = pre.report(long_names, **common, ci=0.95, n_boot=20)
    cmp = pre.compare(long_names, **common, baseline=MODELS[0], n_boot=20)
    for table in (rep, rep.compact(), cmp, cmp.compact(), cmp.summary()):
        text = table.to_text(width=width, footer="none")
        assert_labels_told_apart(text, table.index, width)
    # the report at 80 columns had every model as "lightgbm_lambdar…"
    if width == 80:
        text = rep.to_text(width=80, footer="none")
        assert "lightgbm_lam…_v17" in text and "lightgbm_lam…_v18" in text and "organic_sea…_feed" in text


def test_row_labels_that_no_cut_tells_apart_are_not_cut_that_far() -> None:
    """Labels alike but in their middle: the row labels stop narrowing where they would read
    alike, and a group wider than what is left goes column by column, within the width."""
    index = pd.Index([f"experiment_2024_ranking_arm_{a}_ctr_model_final_run" for a in "abc"], name="model")
    cols = pd.MultiIndex.from_product([["block"], [f"col{j}" for j in range(6)]])
    frame = pd.DataFrame([["0.123456"] * 6] * 3, index=index, columns=cols)
    text = to_text(Shown(frame, column_groups(frame.columns)), width=80)
    assert_labels_told_apart(text, frame.index, 80)
    assert len(text.strip().split("\n\n")) >= 2  # the block went into parts, not the labels into one


def test_a_comparisons_baseline_column_is_never_a_part_alone() -> None:
    """compact() with long names at 80 columns printed the baseline's one column as the whole first
    part. Its group label gives way (told apart from the models'), then the row labels, so that
    it goes next to each model's block."""
    df = pre.datasets.make_impressions(n_users=300, seed=2)
    names = {"model_a": "two_tower_v3_2024_09_lr1e-3", "model_b": "dcn_v2_ctr_baseline_prod",
             "model_c": "lightgbm_lambdarank_ndcg_v17"}
    df["model_c"] = df["model_b"] + np.random.default_rng(2).normal(0, 0.3, len(df))
    df = df.rename(columns=names)
    df["traffic_source"] = df["device"].map({"desktop": "organic_search_homepage_feed",
                                             "mobile": "push_notification_reengagement", "tablet": "email"})
    cmp = pre.compare(df, group="user_id", label="click", scores=list(names.values()),
                      baseline="dcn_v2_ctr_baseline_prod", metrics=["gauc", "ndcg@10"], by="traffic_source", n_boot=20)
    compact = cmp.compact()
    text = compact.to_text(width=80, footer="none")
    parts = text.strip().split("\n\n")
    assert len(parts) == 2
    for part in parts:
        second = part.splitlines()[1]
        assert "baseline" in second and "value" in second  # the baseline next to a model's block
    tops = [part.splitlines()[0].split() for part in parts]
    assert [t[1] for t in tops] == ["two_tower_v3_2024_09_lr1e-3", "lightgbm_lambdarank_ndcg_v17"]
    assert reads_as(tops[0][0], "dcn_v2_ctr_baseline_prod") and tops[0][0] == tops[1][0]
    assert_labels_told_apart(text, compact.index, 80)


def test_cli_prints_the_testers_two_models_told_apart(tmp_path, monkeypatch, capsys) -> None:
    """The tester's repro: ``pandas-rankeval eval`` at 80 columns printed both models as
    ``lightgbm_lambdarank_ndcg_v…`` and the long segment values cut alike."""
    from pandas_rankeval import cli

    df = pre.datasets.make_impressions(n_users=300, seed=1).rename(columns=dict(zip(["model_a", "model_b"], MODELS)))
    df["traffic_source"] = df["device"].map({"desktop": "organic_search_homepage_feed",
                                             "mobile": "push_notification_reengagement", "tablet": "email"})
    path = tmp_path / "longnames.csv"
    df.to_csv(path, index=False)
    monkeypatch.setenv("COLUMNS", "80")
    code = cli.main(["eval", str(path), "--group", "user_id", "--label", "click", "--score", *MODELS[:2],
                     "--metrics", "gauc", "--by", "traffic_source", "--ci", "0.95", "--n-boot", "20", "--no-progress"])
    out = capsys.readouterr().out
    assert code == 0
    table = "\n\n".join(p for p in out.split("\n\n") if p.startswith("traffic_source"))
    index = pd.MultiIndex.from_product([["email", "organic_search_homepage_feed", "push_notification_reengagement"],
                                        MODELS[:2]])
    assert_labels_told_apart(table, index, 80)
    assert "lightgbm_lambdarank_nd…_v17" in table and "lightgbm_lambdarank_nd…_v18" in table


def test_labels_holding_the_ellipsis_never_print_alike():
    """A label may hold "…" itself: its text can then equal another label's cut ("news…sports…"
    for two different labels). Such cuts are refused (None: the table keeps them wider)."""
    import random

    from pandas_rankeval.display.layout import cut_labels

    assert cut_labels(["news…sports_weekly", "news_daily_sports…", "news_daily_xports…"], 12) is None
    rng = random.Random(3)
    for _ in range(3000):
        labels = list(dict.fromkeys("".join(rng.choice("ab…_") for _ in range(rng.randint(1, 9)))
                                    for _ in range(rng.randint(2, 6))))
        width = rng.randint(2, 8)
        out = cut_labels(labels, width)
        if out is not None:
            assert len(set(out)) == len(labels), (labels, width, out)
            assert all(len(o) <= width or o == t for o, t in zip(out, labels))


def test_a_long_group_label_gives_way_before_its_block_is_split():
    """A model's name over its block (compact() of a comparison) is cut, told apart from the other
    models' names, before the block goes column by column: at 40 columns the baseline's block
    fits with its name cut (it printed the 56-character name whole: lines of 66 columns)."""
    import warnings

    df = pre.datasets.make_impressions(n_users=200, seed=0)
    models = [f"experiment_2024_ranking_{x}_ctr_model_final_run_calibrated" for x in ("a", "b")]
    df[models[0]], df[models[1]] = df.model_a, df.model_b
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pre.CoverageWarning)
        c = pre.compare(df, group="user_id", label="click", scores=models, metrics=["gauc"], baseline=models[0],
                        n_boot=20)
    first = c.compact().to_text(width=40, footer="none").split("\n\n")[0].splitlines()
    assert max(map(len, first)) <= 40, first
    assert first[0].strip().startswith("experiment_2024_ranking_a") and first[0].strip().endswith("…")


def test_blank_spaced_control_and_mixed_type_labels_print_apart():
    """Segment values that printed alike or broke the grid: "" and " " (blank, read as the row
    above's), "mobile" and "mobile ", a line break or tab, 1 and "1" (merged as one segment)."""
    import warnings

    df = pre.datasets.make_impressions(n_users=300, seed=0)
    cases = [["", "x", " "], ["mobile", "mobile ", "Mobile"], ["line1\nline2", "tab\there", "plain"]]
    for values in cases:
        d = df.assign(seg=(df["user_id"] % 3).map(dict(enumerate(values))))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", pre.CoverageWarning)
            text = pre.report(d, group="user_id", label="click", scores=["model_a"], metrics=["gauc"],
                              by="seg").to_text(width=80, footer="none")
        lines = text.splitlines()
        assert len(lines) == 1 + len(values)  # no line split by a label
        firsts = [line.split("  ")[0] for line in lines[1:]]
        assert sorted(firsts) == sorted(as_printed(v) for v in values)  # each segment once, told apart
    d = df.assign(seg=[1 if u % 2 else "1" for u in df["user_id"]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pre.CoverageWarning)
        text = pre.report(d, group="user_id", label="click", scores=["model_a", "model_b"], metrics=["gauc"],
                          by="seg").to_text(width=80, footer="none")
    assert sorted(line[:4].strip() for line in text.splitlines()[1:]) == ["", "", "'1'", "1"]


def test_wide_and_combining_characters_take_their_terminal_columns():
    """CJK characters take two columns, combining accents none: the table is measured, padded
    and cut in columns (lines were 40 characters but 43-48 columns, rows out of line), and cut
    labels stay told apart."""
    import warnings

    from pandas_rankeval.display.layout import cell_width

    df = pre.datasets.make_impressions(n_users=300, seed=0)
    models = ["推荐模型_排序_第一版_v17", "推荐模型_排序_第一版_v18"]
    df[models[0]], df[models[1]] = df.model_a, df.model_b
    df["device"] = df["device"].map({"mobile": "移动设备用户_有效", "desktop": "桌面电脑用户_有效",
                                     "tablet": "cafe\u0301"})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pre.CoverageWarning)
        r = pre.report(df, group="user_id", label="click", scores=models, metrics=["gauc"], by="device",
                       ci=0.95, n_boot=20)
    for width in (40, 60, 80):
        lines = r.to_text(width=width, footer="none").splitlines()
        assert max(cell_width(line) for line in lines) <= width
        rows = [line for line in lines[1:] if line.strip()]
        assert len({cell_width(line) for line in rows if line.rstrip().endswith("]")}) == 1  # aligned right edges
        shown = {line.split()[-4] if line.rstrip().endswith("]") else line.split()[-2] for line in rows}
        assert len(shown) == 2, shown  # the two models' labels told apart
