"""The command line's decision view: views, the terminal's width, outputs by suffix with
their footer, and errors worded for a shell."""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import pandas_rankeval as pre
from pandas_rankeval import cli


@pytest.fixture(scope="module")
def data(tmp_path_factory) -> Path:
    df = pre.datasets.make_impressions(n_users=400, seed=6)
    df["twotower_v2_long_name"] = 0.5 * df["model_a"] + 0.5 * df["model_b"]
    path = tmp_path_factory.mktemp("cli") / "clicks.csv"
    df.to_csv(path, index=False)
    return path


BASE = ["--group", "user_id", "--label", "click", "--score", "model_a", "model_b", "twotower_v2_long_name",
        "--metrics", "auc", "gauc", "mrr", "ndcg@10", "map", "precision@5", "recall@10", "--no-progress"]


def run(argv, capsys) -> tuple[int, str, str]:
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


VIEWS = {
    "report": ["--by", "device"],
    "report_ci": ["--by", "device", "--ci", "0.9", "--n-boot", "30"],
    "report_compact": ["--by", "device", "--view", "compact"],
    "compare": ["--baseline", "model_a", "--by", "device", "--n-boot", "30"],
    "compare_compact": ["--baseline", "model_a", "--by", "device", "--n-boot", "30", "--view", "compact"],
    "compare_summary": ["--baseline", "model_a", "--by", "device", "--n-boot", "30", "--view", "summary"],
    "per_group": ["--view", "groups"],
}


@pytest.mark.parametrize("width", [80, 120, 200])
@pytest.mark.parametrize("view", list(VIEWS))
def test_text_never_exceeds_the_terminal_width(data, capsys, monkeypatch, view: str, width: int) -> None:
    monkeypatch.setenv("COLUMNS", str(width))  # what a terminal of that width tells a program
    code, out, err = run(["eval", data, *BASE, *VIEWS[view], "--footer", "full"], capsys)
    assert code == 0, err
    lines = out.splitlines()
    assert max(len(line) for line in lines) <= width
    assert any("coverage: " in line for line in lines)
    # the same with --width, whatever COLUMNS says
    monkeypatch.setenv("COLUMNS", "400")
    code, out2, _ = run(["eval", data, *BASE, *VIEWS[view], "--footer", "full", "--width", width], capsys)
    assert out2 == out


def test_default_footer_is_short_and_points_to_the_details(data, capsys) -> None:
    _, short, _ = run(["eval", data, *BASE, "--baseline", "model_a", "--n-boot", "30", "--width", "0"], capsys)
    _, full, _ = run(["eval", data, *BASE, "--baseline", "model_a", "--n-boot", "30", "--width", "0",
                      "--footer", "full"], capsys)
    tail = short.split("\n\n")[-1].splitlines()
    assert len(tail) <= 4 and tail[-1] == "(details: --footer full)"
    assert tail[0].startswith("significant: p_holm < 0.05")
    assert len(full.split("\n\n")[-1].splitlines()) > len(tail)
    assert any(line.startswith("tests: ") for line in full.splitlines())


@pytest.mark.parametrize("suffix", [".html", ".csv", ".json", ".md", ".parquet", ".txt"])
def test_output_by_suffix_keeps_the_footer(data, capsys, tmp_path, suffix: str) -> None:
    if suffix == ".parquet":
        pytest.importorskip("pyarrow")
    target = tmp_path / f"out{suffix}"
    code, out, err = run(["eval", data, *BASE, "--baseline", "model_a", "--n-boot", "30", "-o", target], capsys)
    assert code == 0 and out == "", err
    assert err.startswith(f"pandas-rankeval: wrote {target}: 14 rows x ") and err.count("\n") == 1, err
    code, js, _ = run(["eval", data, *BASE, "--baseline", "model_a", "--n-boot", "30", "--format", "json"], capsys)
    facts = json.loads(js)["footer"]
    if suffix == ".parquet":
        back = pd.read_parquet(target)
        assert back.attrs["footer"] == facts and {"model", "metric", "diff", "p_holm"} <= set(back.columns)
        return
    text = target.read_text(encoding="utf-8")
    if suffix == ".html":
        assert text.startswith("<!DOCTYPE html>") and '<meta charset="utf-8">' in text and "<table" in text
        import html

        assert all(html.escape(f) in text for f in facts)
    elif suffix == ".csv":
        assert [line[2:] for line in text.splitlines() if line.startswith("# ")] == facts
        assert len(pd.read_csv(io.StringIO(text), comment="#")) == 2 * 7
    elif suffix == ".json":
        assert json.loads(text)["footer"] == facts
    elif suffix == ".md":
        assert text.startswith("| model") and all(f"- {f}" in text for f in facts)
    else:  # .txt: the table, unwrapped, with every footer line
        assert all(f in text for f in facts[:1]) and "p_holm" in text


@pytest.fixture(scope="module")
def compared(data) -> pd.DataFrame:
    """The library's comparison of the file (the CLI's seed and replicates): what its files hold."""
    return pre.compare(pd.read_csv(data), group="user_id", label="click",
                       scores=["model_a", "model_b", "twotower_v2_long_name"], baseline="model_a",
                       metrics=["auc", "gauc", "mrr", "ndcg@10", "map", "precision@5", "recall@10"], by="device",
                       n_boot=30)


@pytest.mark.parametrize("view", ["full", "compact", "summary"])
@pytest.mark.parametrize("suffix", [".csv", ".json", ".parquet"])
def test_data_files_hold_the_numbers_whatever_the_view(data, compared, capsys, tmp_path, suffix: str,
                                                       view: str) -> None:
    """--view compact / summary lay out text; a CSV, JSON or Parquet file holds the table's numbers
    (values, bounds, p-values, the direction in its own column), and --output says what it wrote."""
    if suffix == ".parquet":
        pytest.importorskip("pyarrow")
    target = tmp_path / f"x{suffix}"
    code, out, err = run(["eval", data, *BASE, "--baseline", "model_a", "--by", "device", "--n-boot", "30",
                          "--view", view, "-o", target], capsys)
    assert code == 0 and out == "", err
    if suffix == ".csv":
        got = pd.read_csv(target, comment="#")
    elif suffix == ".json":
        got = pd.DataFrame(json.loads(target.read_text(encoding="utf-8"))["results"])
    else:
        got = pd.read_parquet(target)
    cells = [str(c) for c in got.select_dtypes(exclude="number").to_numpy().ravel()]
    assert not [c for c in cells if "▲" in c or "▼" in c or "[" in c]  # no display string in a cell
    want = pd.DataFrame(compared).reset_index()
    assert len(got) == len(want) == 3 * 2 * 7
    assert list(got[["device", "model", "metric"]].astype(str).itertuples(index=False)) == \
        list(want[["device", "model", "metric"]].astype(str).itertuples(index=False))
    for col in ("baseline_value", "value", "diff", "ci_low", "ci_high", "lift", "p_value", "p_holm"):
        assert pd.api.types.is_float_dtype(got[col].dtype), col
        np.testing.assert_allclose(got[col].to_numpy(), want[col].to_numpy(), rtol=1e-12, atol=1e-15, equal_nan=True)
    assert got["significant"].astype(bool).tolist() == want["significant"].astype(bool).tolist()
    direction = got["direction"].fillna("").replace({None: ""}).tolist()
    assert direction == np.where(~want["significant"], "", np.where(want["diff"] > 0, "better", "worse")).tolist()
    # one line on stderr: the path, the rows and columns of the file
    note = f"; --view {view} applies to the text outputs: terminal, .txt, .md, .html" if view != "full" else ""
    where = {".csv": "footer as # lines", ".json": 'footer in "footer"', ".parquet": "footer in the metadata"}[suffix]
    assert err == f"pandas-rankeval: wrote {target}: {len(got)} rows x {got.shape[1]} columns (numbers, {where}{note})\n"


def test_text_files_keep_the_view(data, capsys, tmp_path) -> None:
    target = tmp_path / "x.md"
    code, out, err = run(["eval", data, *BASE, "--baseline", "model_a", "--n-boot", "30", "--view", "summary",
                          "-o", target], capsys)
    assert code == 0 and out == "", err
    text = target.read_text(encoding="utf-8")
    assert text.startswith("| model") and "model_a (baseline)" in text and ("▲" in text or "▼" in text)
    assert err == f"pandas-rankeval: wrote {target}: 3 rows x 8 columns (Markdown, the summary view)\n"


@pytest.mark.parametrize("name", ["out.xlsx", "out", "report.pdf"])
def test_unknown_output_suffix_is_an_error(data, capsys, tmp_path, name: str) -> None:
    code, out, err = run(["eval", data, *BASE, "-o", tmp_path / name], capsys)
    assert code == 2 and out == ""
    assert "cannot tell the output format" in err and ".html" in err and ".parquet" in err
    assert not (tmp_path / name).exists()


def test_summary_view_needs_a_baseline(data, capsys) -> None:
    code, _, err = run(["eval", data, *BASE, "--view", "summary"], capsys)
    assert code == 2 and "--view summary needs --baseline" in err


def test_groups_view_is_one_row_per_group(data, capsys, tmp_path) -> None:
    target = tmp_path / "groups.csv"
    code, _, err = run(["eval", data, *BASE, "--view", "groups", "-o", target], capsys)
    assert code == 0, err
    got = pd.read_csv(target, comment="#", index_col="user_id")
    df = pd.read_csv(data)
    want = pre.per_group(df, group="user_id", label="click", score="model_b", metrics=["gauc", "mrr"])
    np.testing.assert_allclose(got["model_b_auc"].to_numpy(), want["auc"].to_numpy(), equal_nan=True)
    code, _, err = run(["eval", data, *BASE, "--view", "groups", "--by", "device"], capsys)
    assert code == 2 and "--view groups shows one row per group; --by" in err


# --- errors a shell user can act on -------------------------------------------------------------


def test_non_numeric_value_names_the_value_and_line(data, tmp_path, capsys) -> None:
    df = pd.read_csv(data)
    df["click"] = df["click"].astype(object)
    df.loc[17, "click"] = "yes"
    df.loc[30, "click"] = "no"
    path = tmp_path / "bad.csv"
    df.to_csv(path, index=False)
    code, out, err = run(["eval", path, *BASE], capsys)
    assert code == 2 and out == ""
    assert err.count("\n") == 1
    assert "column 'click' (--label) must hold numbers" in err
    assert f"line 19 of {path} has 'yes' (2 such values)" in err
    assert "pd." not in err and "df[" not in err  # no Python advice in a shell


def test_missing_values_name_the_first_line(data, tmp_path, capsys) -> None:
    df = pd.read_csv(data)
    df.loc[[4, 9], "model_b"] = np.nan
    path = tmp_path / "nan.csv"
    df.to_csv(path, index=False)
    code, _, err = run(["eval", path, *BASE], capsys)
    assert code == 2
    assert "column 'model_b' (--score) has 2 missing values, the first on line 6" in err
    assert "--nan-policy omit" in err


def test_semicolon_file_gets_a_delimiter_hint(data, tmp_path, capsys) -> None:
    path = tmp_path / "semi.csv"
    pd.read_csv(data).to_csv(path, index=False, sep=";")
    code, _, err = run(["eval", path, *BASE], capsys)
    assert code == 2 and "looks semicolon-separated" in err and "--sep ';'" in err
    code, _, err = run(["eval", path, *BASE, "--sep", ";"], capsys)
    assert code == 0, err


def test_by_that_varies_within_a_group_suggests_the_compound_group(tmp_path, capsys) -> None:
    path = tmp_path / "mixed.csv"
    path.write_text("user,y,s,device\n1,1,0.9,phone\n1,0,0.1,tablet\n2,1,0.3,phone\n2,0,0.2,phone\n")
    code, _, err = run(["eval", path, "-g", "user", "-l", "y", "-s", "s", "-m", "gauc", "--by", "device"], capsys)
    assert code == 2 and err.count("\n") == 1
    assert "--group user device" in err and "group=[" not in err
    assert "'phone'" in err and "'tablet'" in err
