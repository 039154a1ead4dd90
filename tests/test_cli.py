"""The command line: ``pandas-rankeval eval FILE ...``, ``metrics``, ``demo``.

Most tests call ``main(argv)`` in-process; a few run the real program in a subprocess.
"""

from __future__ import annotations

import io
import json
import re
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import pandas_rankeval as pre
from pandas_rankeval import cli
from pandas_rankeval.cli import main
from pandas_rankeval.cli.reading import read_table

GROUP = ["--group", "user_id", "--label", "click"]
SCORES = ["--score", "model_a", "model_b"]


@pytest.fixture(scope="module")
def frame() -> pd.DataFrame:
    return pre.datasets.make_impressions(300, seed=1)


@pytest.fixture(scope="module")
def csv_path(frame: pd.DataFrame, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("cli") / "impressions.csv"
    frame.to_csv(path, index=False)
    return path


def quiet_report(df: pd.DataFrame, **kwargs) -> pd.DataFrame:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pre.CoverageWarning)
        # the report is a ResultTable (a DataFrame that displays its coverage); compare frames
        rep = pre.report(df, group="user_id", label="click", scores=["model_a", "model_b"], **kwargs)
        return pd.DataFrame(rep).__finalize__(rep)


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def assert_one_error_line(code: int, err: str, *fragments: str) -> None:
    assert code == 2
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("pandas-rankeval: error: "), err
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])


def has_ci_support() -> bool:
    try:
        import pandas_rankeval.inference.bootstrap  # noqa: F401
    except ImportError:
        return False
    return True


needs_compare = pytest.mark.skipif(not hasattr(pre, "compare"), reason="pandas_rankeval.compare not available yet")
needs_ci = pytest.mark.skipif(not has_ci_support(), reason="report(ci=...) not available yet")


# --- eval: values and formats --------------------------------------------------------------


def test_csv_output_equals_report(csv_path: Path, frame: pd.DataFrame, capsys) -> None:
    code, out, err = run(["eval", csv_path, *GROUP, *SCORES, "--format", "csv"], capsys)
    assert code == 0, err
    got = pd.read_csv(io.StringIO(out), comment="#", index_col="model")
    expected = quiet_report(frame)
    pd.testing.assert_frame_equal(got, expected, check_dtype=False, rtol=1e-12)
    assert list(got.columns[:4]) == ["auc", "gauc", "mrr", "ndcg@10"]  # the default metrics


def test_table_output_shows_values_coverage_and_choices(csv_path: Path, frame: pd.DataFrame, capsys) -> None:
    code, out, err = run(["eval", csv_path, *GROUP, *SCORES, "--metrics", "auc", "gauc", "ndcg@10"], capsys)
    assert code == 0, err
    expected = quiet_report(frame, metrics=["auc", "gauc", "ndcg@10"])
    lines = out.splitlines()
    header = lines[0].split()
    assert header == ["model", "auc", "gauc", "ndcg@10"]  # the index name heads its column
    row_a = next(line for line in lines if line.startswith("model_a")).split()
    assert row_a[1:] == [f"{v:.4f}" for v in expected.loc["model_a", ["auc", "gauc", "ndcg@10"]]]
    footer = " ".join(out.split("\n\n")[-1].split())  # the short footer, unwrapped
    assert footer.startswith(f"coverage: {len(frame):,} rows in {frame['user_id'].nunique():,} groups")
    assert f"gauc uses {expected.loc['model_a', 'gauc_groups_used']:,}" in footer
    assert footer.endswith("(details: --footer full)")
    code, full, err = run(["eval", csv_path, *GROUP, *SCORES, "--metrics", "auc", "gauc", "ndcg@10", "--footer",
                           "full", "--width", "0"], capsys)
    lines = full.splitlines()
    gauc = next(line for line in lines if line.startswith("coverage of gauc: "))
    assert f"gauc: {expected.loc['model_a', 'gauc_groups_used']:,} of {frame['user_id'].nunique():,} groups used" in gauc
    choices = next(line for line in lines if line.startswith("choices: "))
    assert choices.startswith("choices: ties=expected; gauc: weight=count; ndcg@10: weight=uniform")
    # coverage is in the output, so the coverage warning is not repeated on stderr
    assert err == ""


@pytest.mark.parametrize("fmt", ["table", "csv", "json", "markdown"])
def test_coverage_warning_once_on_stderr_in_every_format(csv_path: Path, capsys, fmt: str) -> None:
    # single-class users are in the coverage lines, not a warning
    code, out, err = run(["eval", csv_path, *GROUP, *SCORES, "--metrics", "gauc", "--format", fmt], capsys)
    assert code == 0 and err == ""
    # a filter that drops more than 10% of the positives: one warning line, whatever the format
    code, out, err = run(
        ["eval", csv_path, *GROUP, *SCORES, "--metrics", "gauc", "--min-size", "20", "--format", fmt], capsys
    )
    assert code == 0
    warnings_ = err.strip().splitlines()
    assert len(warnings_) == 1, err
    assert warnings_[0].startswith("pandas-rankeval: warning: report: gauc: ") and "the filters drop" in warnings_[0]
    assert "warning" not in out


def test_coverage_warning_for_baseline(csv_path: Path, capsys) -> None:
    code, out, err = run(
        ["eval", csv_path, *GROUP, *SCORES, "--baseline", "model_a", "--metrics", "gauc",
         "--min-size", "20", "--n-boot", "20"], capsys
    )
    assert code == 0
    assert err.count("pandas-rankeval: warning: compare: gauc: ") == 1, err
    assert "coverage: " in out


def test_json_output(csv_path: Path, frame: pd.DataFrame, capsys) -> None:
    code, out, err = run(["eval", csv_path, *GROUP, *SCORES, "-m", "auc,gauc", "-f", "json"], capsys)
    assert code == 0, err
    payload = json.loads(out)
    expected = quiet_report(frame, metrics=["auc", "gauc"])
    assert payload["params"] == expected.attrs["params"]
    assert payload["file"] == str(csv_path)
    assert [r["model"] for r in payload["results"]] == ["model_a", "model_b"]
    for record in payload["results"]:
        for col in ("auc", "gauc", "n_groups", "gauc_groups_used"):
            assert record[col] == pytest.approx(expected.loc[record["model"], col], rel=1e-12)


def test_json_nan_is_null(tmp_path: Path, capsys) -> None:
    # No group has both classes: GAUC is NaN, which JSON writes as null.
    df = pd.DataFrame({"g": [1, 1, 2, 2], "y": [1, 1, 0, 0], "s": [0.1, 0.2, 0.3, 0.4]})
    path = tmp_path / "one_class.csv"
    df.to_csv(path, index=False)
    code, out, err = run(["eval", path, "-g", "g", "-l", "y", "-s", "s", "-m", "gauc", "-f", "json"], capsys)
    assert code == 0, err
    assert json.loads(out)["results"][0]["gauc"] is None


def test_markdown_output_without_tabulate(csv_path: Path, frame: pd.DataFrame, capsys, monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "tabulate", None)  # import tabulate -> ImportError
    code, out, err = run(["eval", csv_path, *GROUP, *SCORES, "-m", "auc", "gauc", "-f", "markdown"], capsys)
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].split("|")[1:-1] == [" model   ", "    auc ", "   gauc "]
    assert lines[1] == "| :------ | -----: | -----: |"
    expected = quiet_report(frame, metrics=["auc", "gauc"])
    assert lines[2] == f"| model_a | {expected.loc['model_a', 'auc']:.4f} | {expected.loc['model_a', 'gauc']:.4f} |"
    assert any(line.startswith("- coverage: ") for line in lines)
    assert any(line.startswith("- choices: ties=expected") for line in lines)


def test_to_markdown_escapes_pipes_and_aligns() -> None:
    table = pd.DataFrame({"name": ["a|b", "c"], "n": ["1,000", "NaN"]})
    text = cli.to_markdown(table)
    assert text.splitlines() == [
        "| name |     n |",
        "| :--- | ----: |",
        "| a\\|b | 1,000 |",
        "| c    |   NaN |",
    ]


def test_describe_params_groups_shared_choices() -> None:
    params = {
        "auc": {"ties": "pessimistic"},
        "gauc": {"ties": "pessimistic", "weight": "uniform"},
        "precision@5": {"ties": "pessimistic", "weight": "uniform", "empty": "zero"},
        "recall@5": {"ties": "pessimistic", "weight": "uniform", "empty": "zero"},
    }
    assert cli.describe_params(params) == (
        "ties=pessimistic; gauc: weight=uniform; precision@5, recall@5: weight=uniform, empty=zero"
    )


# --- metric names and --k ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "columns"),
    [
        (["-m", "precision", "recall", "hit_rate"], ["precision@10", "recall@10", "hit_rate@10"]),
        (["-m", "precision", "ndcg", "mrr", "--k", "5"], ["precision@5", "ndcg@5", "mrr@5"]),
        (["-m", "ndcg", "map", "mrr"], ["ndcg", "map", "mrr"]),  # whole list without --k
        (["-m", "ndcg@3", "precision", "--k", "7"], ["ndcg@3", "precision@7"]),  # @K wins
        (["-m", "auc,gauc", "NDCG@10"], ["auc", "gauc", "ndcg@10"]),
        (["-m", "gauc", "gauc"], ["gauc"]),
    ],
)
def test_metric_names_and_default_cutoff(csv_path: Path, argv: list[str], columns: list[str], capsys) -> None:
    code, out, err = run(["eval", csv_path, *GROUP, "-s", "model_a", *argv, "-f", "csv"], capsys)
    assert code == 0, err
    got = pd.read_csv(io.StringIO(out), comment="#", index_col="model")
    assert [c for c in got.columns if c in columns] == columns
    assert not {c for c in got.columns if "@" in c or c in ("mrr", "ndcg", "map")} - set(columns)


def test_cutoff_value_matches_library(csv_path: Path, frame: pd.DataFrame, capsys) -> None:
    code, out, _ = run(["eval", csv_path, *GROUP, "-s", "model_b", "-m", "precision", "--k", "3", "-f", "csv"], capsys)
    assert code == 0
    got = pd.read_csv(io.StringIO(out), comment="#", index_col="model")
    expected = pre.precision(frame, group="user_id", label="click", score="model_b", k=3)
    assert got.loc["model_b", "precision@3"] == pytest.approx(float(expected), rel=1e-12)


def test_metrics_command_lists_every_metric(capsys) -> None:
    code, out, _ = run(["metrics"], capsys)
    assert code == 0
    listing = out.split("\n\n")[0].splitlines()
    firsts = [line.split()[0] for line in listing if not line.startswith(" ")]  # wrapped descriptions are indented
    from pandas_rankeval.cli.common import metric_pattern
    from pandas_rankeval.core.metrics.registry import METRICS

    # every metric of the registry, in its order: the name, then "@K" (or "@P", "@B") as the entry's
    # parameter is required, or "[@K]" when it is optional
    written = {"none": "{}", "optional": "{}[@{}]", "required": "{}@{}"}
    assert firsts == [written[m.param.presence].format(m.name, m.param.placeholder) for m in METRICS.values()]
    assert firsts == [metric_pattern(m) for m in METRICS.values()]


# --- options --------------------------------------------------------------------------------


def test_weight_and_ties_are_passed(csv_path: Path, frame: pd.DataFrame, capsys) -> None:
    argv = ["eval", csv_path, *GROUP, "-s", "model_a", "-m", "gauc", "--weight", "uniform", "--ties", "pessimistic", "-f", "json"]
    code, out, err = run(argv, capsys)
    assert code == 0, err
    payload = json.loads(out)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pre.CoverageWarning)
        expected = pre.gauc(
            frame, group="user_id", label="click", score="model_a", weight="uniform", ties="pessimistic"
        )
    assert payload["results"][0]["gauc"] == pytest.approx(float(expected), rel=1e-12)
    assert payload["params"]["gauc"] == {"ties": "pessimistic", "weight": "uniform"}


def test_weight_column(tmp_path: Path, capsys) -> None:
    df = pd.DataFrame(
        {
            "g": [1, 1, 1, 2, 2, 2],
            "y": [1, 0, 0, 1, 0, 1],
            "s": [0.9, 0.8, 0.1, 0.1, 0.5, 0.2],
            "gmv": [1.0, 2.0, 3.0, 0.5, 0.5, 0.0],
        }
    )
    path = tmp_path / "w.csv"
    df.to_csv(path, index=False)
    code, out, err = run(["eval", path, "-g", "g", "-l", "y", "-s", "s", "-m", "gauc", "-w", "gmv", "-f", "csv"], capsys)
    assert code == 0, err
    got = pd.read_csv(io.StringIO(out), comment="#", index_col="model")
    # group 1: AUC 1.0, weight 6; group 2: AUC 0.0, weight 1
    assert got.loc["s", "gauc"] == pytest.approx(6 / 7)


def test_by_segments(csv_path: Path, frame: pd.DataFrame, capsys) -> None:
    code, out, err = run(["eval", csv_path, *GROUP, *SCORES, "-m", "auc", "gauc", "--by", "activity", "-f", "csv"], capsys)
    assert code == 0, err
    got = pd.read_csv(io.StringIO(out), comment="#", index_col=["activity", "model"])
    expected = quiet_report(frame, metrics=["auc", "gauc"], by="activity")
    pd.testing.assert_frame_equal(got, expected, check_dtype=False, rtol=1e-12)


def test_by_segments_coverage_once_per_segment(csv_path: Path, capsys) -> None:
    code, out, err = run(["eval", csv_path, *GROUP, *SCORES, "-m", "gauc", "--by", "activity", "--footer", "full",
                          "--width", "0"], capsys)
    assert code == 0, err
    header = out.splitlines()[0].split()
    assert header == ["activity", "model", "gauc"]  # no segment column repeated on every model row
    by = next(line for line in out.splitlines() if line.startswith("by activity: "))
    assert "heavy: " in by and "% of rows" in by  # each segment's coverage once, the skipped share in %


def test_nan_policy_omit(tmp_path: Path, frame: pd.DataFrame, capsys) -> None:
    df = frame.copy()
    df.loc[[3, 10, 20], "model_a"] = np.nan
    path = tmp_path / "nan.csv"
    df.to_csv(path, index=False)
    code, out, err = run(["eval", path, *GROUP, "-s", "model_a", "-m", "auc", "--nan-policy", "omit", "-f", "csv"], capsys)
    assert code == 0, err
    got = pd.read_csv(io.StringIO(out), comment="#", index_col="model")
    assert got.loc["model_a", "rows_dropped"] == 3
    assert got.loc["model_a", "auc"] == pytest.approx(
        float(pre.auc(df.dropna(subset=["model_a"]), label="click", score="model_a")), rel=1e-12
    )


def test_output_file_and_format_from_suffix(csv_path: Path, tmp_path: Path, capsys) -> None:
    target = tmp_path / "out.json"
    code, out, err = run(["eval", csv_path, *GROUP, *SCORES, "-m", "gauc", "-o", target], capsys)
    assert code == 0, err
    assert out == ""
    assert [r["model"] for r in json.loads(target.read_text())["results"]] == ["model_a", "model_b"]
    target = tmp_path / "out.md"
    assert main(["eval", str(csv_path), *GROUP, "-s", "model_a", "-m", "gauc", "-o", str(target)]) == 0
    assert target.read_text().startswith("| model ")
    target = tmp_path / "out.txt"
    assert main(["eval", str(csv_path), *GROUP, "-s", "model_a", "-m", "gauc", "-o", str(target), "-f", "csv"]) == 0
    assert target.read_text().startswith("model,gauc,")


def test_bare_file_form(csv_path: Path, capsys) -> None:
    code, out, _ = run([csv_path, *GROUP, *SCORES, "-m", "gauc", "-f", "csv"], capsys)
    assert code == 0
    code2, out2, _ = run(["eval", csv_path, *GROUP, *SCORES, "-m", "gauc", "-f", "csv"], capsys)
    assert (code2, out2) == (code, out)


def test_parquet_input(frame: pd.DataFrame, csv_path: Path, tmp_path: Path, capsys) -> None:
    pytest.importorskip("pyarrow")
    path = tmp_path / "impressions.parquet"
    frame.to_parquet(path, index=False)
    code, out, err = run(["eval", path, *GROUP, *SCORES, "-f", "csv"], capsys)
    assert code == 0, err
    code, from_csv, _ = run(["eval", csv_path, *GROUP, *SCORES, "-f", "csv"], capsys)
    pd.testing.assert_frame_equal(pd.read_csv(io.StringIO(out), comment="#"), pd.read_csv(io.StringIO(from_csv), comment="#"))


def test_parquet_without_pyarrow(frame: pd.DataFrame, tmp_path: Path, capsys, monkeypatch) -> None:
    path = tmp_path / "impressions.parquet"
    path.write_bytes(b"PAR1 not really")
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    code, _, err = run(["eval", path, *GROUP, "-s", "model_a"], capsys)
    assert_one_error_line(code, err, "needs pyarrow", "pip install 'pandas_rankeval[parquet]'")


def test_tsv_and_stdin(frame: pd.DataFrame, csv_path: Path, tmp_path: Path, capsys, monkeypatch) -> None:
    tsv = tmp_path / "impressions.tsv"
    frame.to_csv(tsv, index=False, sep="\t")
    code, from_tsv, err = run(["eval", tsv, *GROUP, *SCORES, "-f", "csv"], capsys)
    assert code == 0, err
    monkeypatch.setattr(sys, "stdin", io.StringIO(csv_path.read_text()))
    code, from_stdin, err = run(["eval", "-", *GROUP, *SCORES, "-f", "csv"], capsys)
    assert code == 0, err
    code, from_csv, _ = run(["eval", csv_path, *GROUP, *SCORES, "-f", "csv"], capsys)
    assert from_tsv == from_csv == from_stdin


def test_group_keys_are_text(tmp_path: Path, capsys) -> None:
    # "007" and "7" are two users; read as numbers they would merge into one.
    path = tmp_path / "keys.csv"
    path.write_text("user,click,score\n007,1,0.9\n007,0,0.1\n7,1,0.1\n7,0,0.9\n")
    code, out, err = run(["eval", path, "-g", "user", "-l", "click", "-s", "score", "-m", "gauc", "-f", "csv"], capsys)
    assert code == 0, err
    got = pd.read_csv(io.StringIO(out), comment="#", index_col="model")
    assert got.loc["score", "n_groups"] == 2
    assert got.loc["score", "gauc"] == pytest.approx(0.5)


@needs_compare
def test_cli_equals_python_on_the_same_csv_and_seed(tmp_path: Path, frame: pd.DataFrame, capsys) -> None:
    """Same file, same seed, same numbers (to 1e-12): integer keys of the file are integers in
    both, whatever reads the file; all pairs, segments and BH per metric included."""
    path = tmp_path / "log.csv"
    frame.assign(model_c=frame["model_b"] * 0.5 + frame["model_a"]).to_csv(path, index=False)
    argv = ["eval", path, *GROUP, "-s", "model_a", "model_b", "model_c", "--all-pairs", "-m", "gauc", "mrr",
            "ndcg@10", "--by", "device", "--n-boot", "300", "--seed", "9", "--adjust", "bh", "--family", "metric",
            "-f", "csv"]
    code, out, err = run(argv, capsys)
    assert code == 0, err
    got = pd.read_csv(io.StringIO(out), comment="#", index_col=["device", "model", "baseline", "metric"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pre.CoverageWarning)
        want = pre.compare(pd.read_csv(path), group="user_id", label="click", scores=["model_a", "model_b", "model_c"],
                           metrics=["gauc", "mrr", "ndcg@10"], by="device", n_boot=300, seed=9, adjust="bh",
                           family="metric")
    assert list(got.index) == list(want.index) and len(got) == 3 * 3 * 3
    for col in ("ci_low", "ci_high", "p_value", "p_bh", "diff"):
        np.testing.assert_allclose(got[col].to_numpy(float), want[col].to_numpy(float), rtol=1e-12, atol=1e-15)
    assert "significant: p_bh < 0.05 (Benjamini-Hochberg over each metric's comparisons)" in out


def test_integer_keys_are_read_as_integers_text_keys_stay_text(tmp_path: Path) -> None:
    path = tmp_path / "keys.csv"
    path.write_text("u,v,w,click\n7,007,a,1\n-12,7,b,0\n0,8,c,1\n")
    got = read_table(str(path), ["u", "v", "w", "click"], text_columns=["u", "v", "w"])
    assert got["u"].dtype == np.int64 and got["u"].tolist() == [7, -12, 0]
    assert got["v"].tolist() == ["007", "7", "8"]  # one non-canonical value: the column stays text


def test_all_pairs_option_errors(csv_path: Path, capsys) -> None:
    code, _, err = run(["eval", csv_path, *GROUP, *SCORES, "--all-pairs", "--baseline", "model_a"], capsys)
    assert_one_error_line(code, err, "--baseline and --all-pairs exclude each other")
    code, _, err = run(["eval", csv_path, *GROUP, "-s", "model_a", "--all-pairs"], capsys)
    assert_one_error_line(code, err, "--all-pairs needs at least two --score columns; got 1")
    code, _, err = run(["eval", csv_path, *GROUP, *SCORES, "--adjust", "bh"], capsys)
    assert_one_error_line(code, err, "--adjust applies to --baseline / --all-pairs comparisons only")
    # an option error comes before the table is read: a file that does not exist is not opened
    missing = str(Path(csv_path).with_name("no_such_table.csv"))
    code, _, err = run(["eval", missing, *GROUP, *SCORES, "--method", "bootstrap"], capsys)
    assert_one_error_line(code, err, "--method applies to --baseline / --all-pairs comparisons only")


def test_help_and_version(capsys) -> None:
    code, out, _ = run(["--help"], capsys)
    assert code == 0 and "eval" in out and "demo" in out
    code, out, _ = run(["eval", "--help"], capsys)
    assert code == 0 and "--baseline" in out and "--format" in out
    code, out, _ = run(["--version"], capsys)
    assert code == 0 and out.strip() == f"pandas-rankeval {pre.__version__}"


# --- bad input: exit 2, one line on stderr --------------------------------------------------


def test_missing_file(tmp_path: Path, capsys) -> None:
    code, out, err = run(["eval", tmp_path / "nope.csv", *GROUP, "-s", "model_a"], capsys)
    assert_one_error_line(code, err, "cannot read", "nope.csv", "no such file")
    assert out == ""


def test_directory(tmp_path: Path, capsys) -> None:
    code, _, err = run(["eval", tmp_path, *GROUP, "-s", "model_a"], capsys)
    assert_one_error_line(code, err, "is a directory")


def test_empty_file(tmp_path: Path, capsys) -> None:
    path = tmp_path / "empty.csv"
    path.write_text("")
    code, _, err = run(["eval", path, *GROUP, "-s", "model_a"], capsys)
    assert_one_error_line(code, err, "empty")


def test_binary_file(tmp_path: Path, capsys) -> None:
    path = tmp_path / "garbage.csv"
    path.write_bytes(bytes(range(256)) * 8)
    code, _, err = run(["eval", path, *GROUP, "-s", "model_a"], capsys)
    assert_one_error_line(code, err, "cannot read", "garbage.csv")


def test_parquet_named_csv(frame: pd.DataFrame, tmp_path: Path, capsys) -> None:
    pytest.importorskip("pyarrow")
    path = tmp_path / "impressions.csv"
    frame.to_parquet(path, index=False)
    code, _, err = run(["eval", path, *GROUP, "-s", "model_a"], capsys)
    assert_one_error_line(code, err, "it is a Parquet file", "--input-format parquet")
    code, _, err = run(["eval", path, *GROUP, "-s", "model_a", "-m", "gauc", "--input-format", "parquet"], capsys)
    assert code == 0, err


def test_not_parquet(tmp_path: Path, capsys) -> None:
    pytest.importorskip("pyarrow")
    path = tmp_path / "fake.parquet"
    path.write_text("user_id,click\n1,0\n")
    code, _, err = run(["eval", path, *GROUP, "-s", "model_a"], capsys)
    assert_one_error_line(code, err, "cannot read", "as Parquet")


def test_missing_column(csv_path: Path, capsys) -> None:
    code, _, err = run(["eval", csv_path, "-g", "uid", "-l", "click", "-s", "model_a"], capsys)
    assert_one_error_line(code, err, f"--group 'uid' is not a column of {csv_path}", "did you mean 'user_id'?")


def test_missing_column_parquet(frame: pd.DataFrame, tmp_path: Path, capsys) -> None:
    pytest.importorskip("pyarrow")
    path = tmp_path / "impressions.parquet"
    frame.to_parquet(path, index=False)
    code, _, err = run(["eval", path, *GROUP, "-s", "model_c"], capsys)
    assert_one_error_line(code, err, f"--score 'model_c' is not a column of {path}")


def test_nan_in_a_column(tmp_path: Path, frame: pd.DataFrame, capsys) -> None:
    df = frame.copy()
    df.loc[[1, 2, 3], "model_b"] = np.nan
    path = tmp_path / "nan.csv"
    df.to_csv(path, index=False)
    code, _, err = run(["eval", path, *GROUP, *SCORES], capsys)
    assert_one_error_line(code, err, "column 'model_b' (--score) has 3 missing values, the first on line 3 of",
                          "--nan-policy omit")


def test_non_numeric_score(tmp_path: Path, capsys) -> None:
    path = tmp_path / "text.csv"
    path.write_text("g,y,s\n1,1,high\n1,0,low\n")
    code, _, err = run(["eval", path, "-g", "g", "-l", "y", "-s", "s", "-m", "gauc"], capsys)
    assert_one_error_line(code, err, "'s'", "numeric")


@pytest.mark.parametrize(
    ("metrics", "fragment"),
    [
        (["ndgc"], "Unknown metric 'ndgc'. Did you mean 'ndcg'?"),
        (["auc@5"], "takes no cutoff"),
        (["ndcg@0"], "at least 1"),
        (["", ","], "give at least one metric"),
    ],
)
def test_bad_metric(csv_path: Path, metrics: list[str], fragment: str, capsys) -> None:
    code, _, err = run(["eval", csv_path, *GROUP, "-s", "model_a", "-m", *metrics], capsys)
    assert_one_error_line(code, err, fragment)
    if metrics != ["", ","]:  # a bad name: the list of metrics is one command away
        assert "Valid metrics are" not in err and "'pandas-rankeval metrics' lists the metrics." in err


def test_errors_in_the_words_of_the_command_line(tmp_path: Path, capsys) -> None:
    """An empty file is 'no data row' (not 'report got an empty DataFrame'); a column's role is
    its option (--score, not (score))."""
    empty = tmp_path / "empty.csv"
    empty.write_text("g,y,s\n")
    code, _, err = run(["eval", empty, "-g", "g", "-l", "y", "-s", "s", "-m", "gauc"], capsys)
    assert_one_error_line(code, err, "the file has no data row")
    assert "DataFrame" not in err
    probs = tmp_path / "probs.csv"
    probs.write_text("g,y,s\n1,1,1.7\n1,0,0.2\n")
    code, _, err = run(["eval", probs, "-g", "g", "-l", "y", "-s", "s", "-m", "logloss"], capsys)
    assert_one_error_line(code, err, "Column 's' (--score) has 1 value outside [0, 1]")


@pytest.mark.parametrize(
    ("extra", "fragment"),
    [
        (["--ci", "1.5"], "--ci"),
        (["--ci", "abc"], "--ci"),
        (["--k", "0"], "--k"),
        (["--n-boot", "-3"], "--n-boot"),
        (["--ties", "random"], "--ties"),
        (["--format", "xml"], "--format"),
        (["--weight", "clickz"], "'clickz'"),
        (["--alpha", "0.01"], "--alpha applies to --baseline / --all-pairs comparisons only"),
        (["--baseline", "model_a"], "--baseline needs at least one other --score column"),
        (["--baseline", "model_b", "--ci", "0.9", "--method", "randomization", "-m", "auc",
          "--auc-method", "bootstrap"], "use --auc-method delong"),
    ],
)
def test_bad_options(csv_path: Path, extra: list[str], fragment: str, capsys) -> None:
    code, _, err = run(["eval", csv_path, *GROUP, "-s", "model_a", *extra], capsys)
    assert_one_error_line(code, err, fragment)


def test_missing_required_option(csv_path: Path, capsys) -> None:
    code, _, err = run(["eval", csv_path, "-g", "user_id", "-s", "model_a"], capsys)
    assert_one_error_line(code, err, "required", "--label", "--help")


def test_no_command(capsys) -> None:
    code, _, err = run([], capsys)
    assert_one_error_line(code, err, "give a command")


def test_unwritable_output(csv_path: Path, tmp_path: Path, capsys) -> None:
    code, _, err = run(["eval", csv_path, *GROUP, "-s", "model_a", "-o", tmp_path / "no" / "dir" / "x.csv"], capsys)
    assert_one_error_line(code, err, "cannot write")


def test_mixed_segment_is_an_error(tmp_path: Path, capsys) -> None:
    path = tmp_path / "mixed.csv"
    path.write_text("g,y,s,seg\n1,1,0.9,a\n1,0,0.1,b\n")
    code, _, err = run(["eval", path, "-g", "g", "-l", "y", "-s", "s", "-m", "gauc", "--by", "seg"], capsys)
    assert_one_error_line(code, err, "must be constant within each group")


# --- compare and confidence intervals -------------------------------------------------------


@needs_compare
def test_baseline_prints_compare_table(csv_path: Path, frame: pd.DataFrame, capsys) -> None:
    argv = ["eval", csv_path, *GROUP, *SCORES, "--baseline", "model_a", "-m", "auc", "gauc",
            "--n-boot", "200", "--seed", "3", "-f", "csv"]
    code, out, err = run(argv, capsys)
    assert code == 0, err
    got = pd.read_csv(io.StringIO(out), comment="#", index_col=["model", "metric"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pre.CoverageWarning)
        # the same file read by pandas: integer keys in both (the CLI reads a key column of
        # canonical integers as int64), so the hashed bootstrap draws the same replicates
        expected = pre.compare(
            pd.read_csv(csv_path), group="user_id", label="click",
            scores=["model_a", "model_b"], baseline="model_a", metrics=["auc", "gauc"], n_boot=200, seed=3,
        )
    for col in ("baseline_value", "value", "diff", "lift", "ci_low", "ci_high", "p_value", "p_holm", "groups_used"):
        np.testing.assert_allclose(got[col].to_numpy(float), expected[col].to_numpy(float), rtol=1e-12, atol=1e-15)
    assert ("model_b", "gauc") in got.index
    # the story: model_b loses global AUC and wins GAUC
    assert got.loc[("model_b", "auc"), "diff"] < 0 < got.loc[("model_b", "gauc"), "diff"]


@needs_compare
def test_baseline_table_format(csv_path: Path, capsys) -> None:
    argv = ["eval", csv_path, *GROUP, "-s", "model_b", "--baseline", "model_a", "-m", "gauc", "--n-boot", "100",
            "--width", "0"]
    code, out, err = run(argv, capsys)
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].split() == ["model", "metric", "baseline_value", "value", "diff", "lift", "ci_low", "ci_high",
                                "p_value", "p_holm", "significant", "groups_used"]
    row = lines[1].split()
    assert row[:2] == ["model_b", "gauc"] and (row[-2] == "no" or row[-3:-1] in (["▲", "better"], ["▼", "worse"]))
    assert any(line.startswith("significant: p_holm < 0.05") for line in lines)
    code, out, err = run([*argv, "--footer", "full"], capsys)
    lines = out.splitlines()
    assert any("ci_low, ci_high: 95% interval of diff, percentile paired bootstrap" in line for line in lines)
    assert any(line.startswith("coverage of gauc: ") for line in lines)
    assert any(line.startswith("tests: gauc: paired sign-flip test") for line in lines)
    assert any(line.startswith("significant: p_holm < 0.05") for line in lines)
    assert any(line.startswith("choices: ties=expected") for line in lines)


@needs_compare
def test_baseline_by_segment_and_options(csv_path: Path, frame: pd.DataFrame, capsys) -> None:
    argv = ["eval", csv_path, *GROUP, "-s", "model_b", "--baseline", "model_a", "-m", "gauc", "--by", "activity",
            "--n-boot", "100", "--alpha", "0.1", "--weight", "uniform", "-f", "json"]
    code, out, err = run(argv, capsys)
    assert code == 0, err
    payload = json.loads(out)
    assert payload["alpha"] == 0.1 and payload["baseline"] == "model_a"
    assert payload["params"]["gauc"]["weight"] == "uniform"
    rows = payload["results"]
    assert [(r["activity"], r["model"], r["metric"]) for r in rows] == [  # segments in key order
        ("heavy", "model_b", "gauc"), ("light", "model_b", "gauc"), ("medium", "model_b", "gauc")
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pre.CoverageWarning)
        expected = pre.compare(
            frame, group="user_id", label="click", scores=["model_a", "model_b"], baseline="model_a",
            metrics=["gauc"], by="activity", n_boot=100, alpha=0.1, weight="uniform",
        )
    assert [r["diff"] for r in rows] == pytest.approx(expected["diff"].tolist(), rel=1e-12)
    assert [r["significant"] for r in rows] == expected["significant"].tolist()


@needs_ci
def test_ci_columns(csv_path: Path, capsys) -> None:
    argv = ["eval", csv_path, *GROUP, *SCORES, "-m", "gauc", "--ci", "0.9", "--n-boot", "100", "-f", "csv"]
    code, out, err = run(argv, capsys)
    assert code == 0, err
    got = pd.read_csv(io.StringIO(out), comment="#", index_col="model")
    assert {"gauc_low", "gauc_high"} <= set(got.columns)
    assert (got["gauc_low"] <= got["gauc"]).all() and (got["gauc"] <= got["gauc_high"]).all()
    code, table, err = run(argv[:-2], capsys)
    assert code == 0, err
    # the table shows each interval in its estimate's cell: gauc  0.6897 [0.6402, 0.7320]
    assert table.splitlines()[0].split() == ["model", "gauc"] and "gauc_low" not in table
    row = next(line for line in table.splitlines() if line.startswith("model_b"))
    value, low, high = (float(x) for x in re.findall(r"\d\.\d{4}", row)[:3])
    assert (low, value, high) == tuple(round(got.loc["model_b", c], 4) for c in ("gauc_low", "gauc", "gauc_high"))
    code, table, err = run([*argv[:-2], "--footer", "full", "--width", "0"], capsys)
    assert "[low, high]: 90% interval, percentile bootstrap over groups" in table


# --- demo -----------------------------------------------------------------------------------


def test_demo(capsys) -> None:
    code, out, err = run(["demo"], capsys)
    assert code == 0, err
    assert out.startswith("make_impressions(): 26,228 impressions of 2,000 users")
    assert "GAUC coverage: 366 of 2,000 groups used" in out
    assert max(map(len, out.splitlines())) <= 80  # a terminal's width
    words = " ".join(out.split())
    assert "AUC up, GAUC not: model_a has the higher global AUC (0.823 vs 0.701) but the lower GAUC (0.534 vs 0.690)" in words
    table = out.split("\n\n")[1].splitlines()
    assert table[0].split() == ["AUC", "GAUC", "GAUC", "(uniform)"]
    assert table[2].split()[0] == "model_a"


def test_demo_save_then_eval(tmp_path: Path, capsys) -> None:
    path = tmp_path / "demo.csv"
    code, out, _ = run(["demo", "--n-users", "200", "--seed", "2", "--save", path], capsys)
    assert code == 0
    assert f"pandas-rankeval eval {path} --group user_id" in " ".join(out.replace(" \\\n", " ").split())
    saved = pd.read_csv(path)
    pd.testing.assert_frame_equal(saved, pre.datasets.make_impressions(200, seed=2), check_dtype=False)
    code, _, err = run(["eval", path, *GROUP, *SCORES, "-m", "gauc"], capsys)
    assert code == 0, err


# --- the real program -----------------------------------------------------------------------


def _python_m(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pandas_rankeval", *args], capture_output=True, text=True, timeout=120
    )


def test_subprocess_python_m(csv_path: Path) -> None:
    done = _python_m("eval", str(csv_path), *GROUP, *SCORES, "-m", "auc", "gauc")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0].split() == ["model", "auc", "gauc"]
    bad = _python_m("eval", str(csv_path) + ".missing", *GROUP, "-s", "model_a")
    assert bad.returncode == 2
    assert bad.stdout == ""
    assert bad.stderr.count("\n") == 1 and bad.stderr.startswith("pandas-rankeval: error: cannot read")


def test_subprocess_console_script() -> None:
    script = Path(sys.executable).with_name("pandas-rankeval")
    if not script.exists():
        found = shutil.which("pandas-rankeval")
        if found is None:
            pytest.skip("the pandas-rankeval console script is not installed")
        script = Path(found)
    done = subprocess.run([str(script), "demo", "--n-users", "300"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "GAUC coverage:" in done.stdout
    done = subprocess.run([str(script), "eval", "x.csv", "--group"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert len(done.stderr.splitlines()) == 1 and "Traceback" not in done.stderr


# --- widths and flags ----------------------------------------------------


@pytest.mark.parametrize("columns", ["80", "200"])
@pytest.mark.parametrize("argv", [["--help"], ["eval", "--help"], ["metrics", "--help"], ["demo", "--help"], ["metrics"]])
def test_help_and_metrics_fit_80_columns(argv: list[str], columns: str, capsys, monkeypatch) -> None:
    monkeypatch.setenv("COLUMNS", columns)
    code, out, _ = run(argv, capsys)
    assert code == 0 and out.strip()
    assert max(map(len, out.splitlines())) <= 80, max(out.splitlines(), key=len)
    if argv == ["metrics"]:  # a wrapped description continues under the description column
        lines = out.split("\n\n")[0].splitlines()
        start = lines[0].index("global")
        assert all(line[:start].strip() == "" and line[start] != " " for line in lines if line.startswith(" "))
    if argv == ["eval", "--help"]:  # examples broken before an option, pasteable as they are
        assert "--score model_a model_b" in out and " \\\n      --" in out


@pytest.mark.parametrize(
    ("option", "bad", "hint"),
    [("--group", "usr", "user_id"), ("--label", "clik", "click"), ("--score", "mdl_b", "model_b"), ("--by", "devce", "device")],
)
def test_missing_column_names_its_option(csv_path: Path, option: str, bad: str, hint: str, capsys) -> None:
    argv = {"--group": "user_id", "--label": "click", "--score": "model_a"}
    argv[option] = bad
    flat = ["eval", csv_path, *[x for k, v in argv.items() for x in (k, v)]]
    if option == "--score":
        flat += ["model_a"]
    code, _, err = run(flat, capsys)
    assert_one_error_line(code, err, f"{option} {bad!r} is not a column of {csv_path}", f"did you mean '{hint}'")
    assert "following columns" not in err


def test_missing_column_without_a_near_name_lists_the_columns(csv_path: Path, capsys) -> None:
    code, _, err = run(["eval", csv_path, *GROUP, "-s", "model_a", "--tiebreak", "qqqqqq"], capsys)
    assert_one_error_line(code, err, "--tiebreak 'qqqqqq' is not a column of", "the columns are [")


# --- retrieved rows and TREC files -------------------------------------------------------------

DATA = Path(__file__).parent / "data"


def test_retrieved_option_equals_library(tmp_path: Path, capsys) -> None:
    """--retrieved COL: rows where it is false count in R, recall's and AP's denominators, never ranked."""
    df = pd.DataFrame({"q": [1, 1, 1, 1, 2, 2, 2], "y": [1, 0, 1, 1, 1, 0, 1],
                       "s": [0.9, 0.8, 0.7, 0.0, 0.5, 0.5, 0.0], "r": [True, True, True, False, True, True, False]})
    path = tmp_path / "ret.csv"
    df.to_csv(path, index=False)
    metrics = ["recall@2", "map", "rprec"]
    code, out, err = run(["eval", path, "-g", "q", "-l", "y", "-s", "s", "-m", *metrics, "--retrieved", "r",
                          "-f", "csv"], capsys)
    assert code == 0, err
    got = pd.read_csv(io.StringIO(out), comment="#", index_col="model")
    want = pre.report(df, group="q", label="y", scores="s", metrics=metrics, retrieved="r")
    for m in metrics:
        assert got.loc["s", m] == pytest.approx(float(want.loc["s", m]), abs=1e-12), m
    # by hand: q1 R = 3 (one not retrieved), 2 of its top 3 relevant; q2 R = 2, the tie of 0.5 on top
    # holds 1 relevant row of 2 within rank 2: 1 / 2
    assert got.loc["s", "rprec"] == pytest.approx((2 / 3 + 1 / 2) / 2, abs=1e-12)
    code, _, err = run(["eval", path, "-g", "q", "-l", "y", "-s", "s", "-m", "gauc", "--retrieved", "r"], capsys)
    assert_one_error_line(code, err, "read every row's score")
    code, _, err = run(["eval", path, "-g", "q", "-l", "y", "-s", "s", "--retrieved", "rr"], capsys)
    assert_one_error_line(code, err, "--retrieved 'rr' is not a column")


def _trec_eval_means(run_text: str, qrels_text: str, measures: list[str]) -> dict[str, float]:
    import pytrec_eval

    run: dict = {}
    for line in run_text.splitlines():
        q, _, d, _, s, _ = line.split()
        run.setdefault(q, {})[d] = float(s)
    qrels: dict = {}
    for line in qrels_text.splitlines():
        q, _, d, r = line.split()
        qrels.setdefault(q, {})[d] = int(r)
    per_query = pytrec_eval.RelevanceEvaluator(qrels, set(measures)).evaluate(run)
    return {m: float(np.mean([v[m] for v in per_query.values()])) for m in measures}


def test_trec_run_and_qrels_equal_trec_eval(capsys) -> None:
    """--trec-run RUN --qrels QRELS --trec-ties docno: trec_eval's published numbers (pytrec_eval)."""
    run_path, qrels_path = DATA / "trec_run.txt", DATA / "trec_qrels.txt"
    argv = ["eval", "--trec-run", run_path, "--qrels", qrels_path, "--trec-ties", "docno", "--gain", "linear",
            "-m", "map", "ndcg@10", "rprec", "recall@10", "-f", "csv"]
    code, out, err = run(argv, capsys)
    assert code == 0, err
    got = pd.read_csv(io.StringIO(out), comment="#", index_col="model")
    want = _trec_eval_means(run_path.read_text(), qrels_path.read_text(), ["map", "ndcg_cut_10", "Rprec", "recall_10"])
    for metric, measure in (("map", "map"), ("ndcg@10", "ndcg_cut_10"), ("rprec", "Rprec"), ("recall@10", "recall_10")):
        assert got.loc["bm25", metric] == pytest.approx(want[measure], abs=1e-12), metric
    # without 'eval', and the default ties: the library's expected value on the same table
    code, out, err = run(["--trec-run", run_path, "--qrels", qrels_path, "-m", "map", "rprec", "-f", "csv"], capsys)
    assert code == 0, err
    got = pd.read_csv(io.StringIO(out), comment="#", index_col="model")
    table = pre.read_trec(run_path, qrels_path)
    lib = pre.report(table, group="qid", label="relevance", scores=["bm25"], metrics=["map", "rprec"],
                     retrieved=table.attrs["retrieved"])
    assert got.loc["bm25", "map"] == pytest.approx(float(lib.loc["bm25", "map"]), abs=1e-12)
    assert got.loc["bm25", "map"] != pytest.approx(want["map"], abs=1e-6)  # the tie of 302 counts



def test_trec_progress_bar_counts_the_files_and_changes_nothing(capsys) -> None:
    """--progress with --trec-run: a bar for reading the runs and qrels too (one step for the
    qrels, two for the run), the same numbers as without."""
    pytest.importorskip("tqdm")
    argv = ["eval", "--trec-run", DATA / "trec_run.txt", "--qrels", DATA / "trec_qrels.txt", "-m", "map", "-f", "csv"]
    code, plain, err = run(argv, capsys)
    assert code == 0, err
    assert "read_trec" not in err
    code, shown, err = run([*argv, "--progress"], capsys)
    assert code == 0, err
    assert "read_trec" in err and "3/3" in err
    assert shown == plain

def test_trec_runs_compared(tmp_path: Path, capsys) -> None:
    """Two runs (named by their tags), --baseline one of them: compare's table on read_trec's."""
    from test_trec import QRELS, RUN_A, RUN_B

    paths = []
    for name, text in (("a.run", RUN_A), ("b.run", RUN_B)):
        paths.append(tmp_path / name)
        paths[-1].write_text(text)
    qrels = tmp_path / "qrels.txt"
    qrels.write_text(QRELS)
    argv = ["eval", "--trec-run", *paths, "--qrels", qrels, "--baseline", "A", "-m", "map", "rprec", "--complete",
            "--n-boot", "200", "--seed", "2", "-f", "csv"]
    code, out, err = run(argv, capsys)
    assert code == 0, err
    assert "pandas-rankeval: warning: read_trec: 1 query of the runs have no judgment" in err  # q5: one line
    got = pd.read_csv(io.StringIO(out), comment="#", index_col=["model", "metric"])
    with pytest.warns(UserWarning, match="no judgment"):
        table = pre.read_trec(paths, qrels, complete=True)
    want = pre.compare(table, group="qid", label="relevance", scores=["A", "B"], baseline="A",
                       metrics=["map", "rprec"], retrieved=table.attrs["retrieved"], n_boot=200, seed=2)
    for col in ("baseline_value", "value", "diff", "ci_low", "ci_high", "p_value", "p_holm"):
        np.testing.assert_allclose(got[col].to_numpy(float), want[col].to_numpy(float), rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("extra,fragment", [
    ([], "--trec-run needs --qrels"),
    (["--qrels", "Q", "-g", "qid"], "--group do not apply to --trec-run"),
    (["--qrels", "Q", "--tiebreak", "docno"], "pass --trec-ties docno"),
    (["--qrels", DATA / "trec_qrels.txt", "-s", "dense"], "--score 'dense' is not a run of --trec-run; the runs are ['bm25']"),
    (["--qrels", DATA / "no_such_qrels.txt"], "--qrels: cannot read"),
])
def test_trec_option_errors(extra: list, fragment: str, capsys) -> None:
    code, _, err = run(["eval", "--trec-run", DATA / "trec_run.txt", *extra], capsys)
    assert_one_error_line(code, err, fragment)


def test_trec_only_options_and_required_columns(csv_path: Path, capsys) -> None:
    code, _, err = run(["eval", csv_path, *GROUP, *SCORES, "--qrels", "q.txt", "--depth", "5"], capsys)
    assert_one_error_line(code, err, "--qrels, --depth apply to --trec-run only")
    code, _, err = run(["eval", "-g", "user_id", "-l", "click", "-s", "model_a"], capsys)
    assert_one_error_line(code, err, "required: FILE", "--trec-run")
    code, out, _ = run(["eval", "--help"], capsys)
    assert code == 0 and "--trec-run" in out and "--retrieved" in out and "trec_eval's -M" in out
