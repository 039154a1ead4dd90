"""The walk-throughs in examples/ run and print what they claim (how long they take is
measured by benchmarks/bench_examples.py, not asserted here)."""

from __future__ import annotations

import importlib.util
import re
import runpy
import sys
import warnings
from pathlib import Path

import pandas as pd
import pytest

import pandas_rankeval as pre

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
AUC_VS_GAUC = EXAMPLES / "auc_vs_gauc.py"
TRAIN_WITH_GAUC = EXAMPLES / "train_with_gauc.py"

pytestmark = pytest.mark.skipif(
    not hasattr(pre, "compare"), reason="the walk-through needs pandas_rankeval.compare"
)


@pytest.fixture(scope="module")
def walkthrough(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path]:
    """Run examples/auc_vs_gauc.py once, as ``python auc_vs_gauc.py --plots DIR`` would."""
    import contextlib
    import io

    plots = tmp_path_factory.mktemp("plots")
    argv = sys.argv
    out = io.StringIO()
    try:
        sys.argv = [str(AUC_VS_GAUC), "--plots", str(plots)]
        with contextlib.redirect_stdout(out), warnings.catch_warnings():
            runpy.run_path(str(AUC_VS_GAUC), run_name="__main__")
    finally:
        sys.argv = argv
    return out.getvalue(), plots


@pytest.fixture(scope="module")
def impressions() -> pd.DataFrame:
    return pre.datasets.make_impressions()


def quiet(func, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pre.CoverageWarning)
        return func(*args, **kwargs)


def test_sections_in_order(walkthrough) -> None:
    text, _ = walkthrough
    titles = re.findall(r"^(\d)\. ", text, flags=re.MULTILINE)
    assert titles == ["1", "2", "3", "4", "5", "6", "7", "8"]
    assert "Traceback" not in text


def test_headline_claim_and_numbers(walkthrough, impressions: pd.DataFrame) -> None:
    text, _ = walkthrough
    assert "=> AUC up, GAUC not: model_a has the higher global AUC but model_b has the higher GAUC." in text
    for model in ("model_a", "model_b"):
        auc = pre.auc(impressions, label="click", score=model)
        gauc = quiet(pre.gauc, impressions, group="user_id", label="click", score=model)
        assert re.search(rf"^{model}\s+{auc:.4f}\s+{gauc:.4f}$", text, flags=re.MULTILINE), model
    assert "GAUC coverage: 366 of 2,000 groups used" in text


def test_user_only_score_claim(walkthrough) -> None:
    text, _ = walkthrough
    assert re.search(r"user_only = the user's mean model_a score: AUC 0\.8\d{3}, GAUC 0\.5000", text)
    assert "=> It ranks nothing within a user (GAUC exactly 0.5) and still beats model_b on global AUC" in text


def test_weights_claim(walkthrough, impressions: pd.DataFrame) -> None:
    text, _ = walkthrough
    assert "=> model_b has the higher GAUC under every weight." in text
    for weight in ("count", "clicks", "log1p", "uniform"):
        a = quiet(pre.gauc, impressions, group="user_id", label="click", score="model_a", weight=weight)
        b = quiet(pre.gauc, impressions, group="user_id", label="click", score="model_b", weight=weight)
        assert re.search(rf"^{weight}\s+{a:.4f}\s+{b:.4f}\s+{b - a:.4f}$", text, flags=re.MULTILINE), weight


def test_segment_claims(walkthrough) -> None:
    text, _ = walkthrough
    assert "=> model_b has the higher GAUC in 3 of 3 activity segments; model_a the higher AUC in 3 of 3." in text
    assert "=> model_b has the higher GAUC in 7 of 7 country segments" in text
    assert re.search(r"^heavy\s+0\.\d{4}", text, flags=re.MULTILINE)


def test_interval_lines(walkthrough) -> None:
    text, _ = walkthrough
    lines = re.findall(r"^\s*(auc|gauc) (model_[ab]): (0\.\d{4})  95% CI \[(0\.\d{4}), (0\.\d{4})\]$", text, flags=re.MULTILINE)
    assert len(lines) == 4
    for _, _, value, low, high in lines:
        assert float(low) <= float(value) <= float(high)


def test_paired_comparison_claims(walkthrough) -> None:
    text, _ = walkthrough
    gauc = re.search(r"=> model_b vs model_a on gauc: \+0\.1560 \[\+(0\.\d{4}), \+(0\.\d{4})\], higher, significant", text)
    assert gauc, text[-2000:]
    assert 0 < float(gauc.group(1)) < 0.1560 < float(gauc.group(2))
    assert re.search(r"=> model_b vs model_a on auc: -0\.1212 \[-0\.\d{4}, -0\.\d{4}\], lower, significant", text)
    assert "=> model_b vs model_a on ndcg@10: +" in text


@pytest.mark.skipif(importlib.util.find_spec("matplotlib") is None, reason="matplotlib not installed")
def test_plots_saved(walkthrough) -> None:
    text, plots = walkthrough
    for name in ("group_auc_by_size.png", "comparison.png"):
        data = (plots / name).read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000
    assert f"saved {plots / 'group_auc_by_size.png'}" in text


def test_no_plots_flag(capsys, monkeypatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    module = runpy.run_path(str(AUC_VS_GAUC))  # not __main__: defines main() without running it
    with warnings.catch_warnings():
        module["main"](["--no-plots"])
    out = capsys.readouterr().out
    assert "skipped (--no-plots)" in out
    assert list(tmp_path.iterdir()) == []


@pytest.fixture(scope="module")
def training_walkthrough() -> str:
    """Run examples/train_with_gauc.py once, as ``python train_with_gauc.py`` would."""
    import contextlib
    import io

    pytest.importorskip("lightgbm")
    out = io.StringIO()
    with contextlib.redirect_stdout(out), warnings.catch_warnings():
        runpy.run_path(str(TRAIN_WITH_GAUC), run_name="__main__")
    return out.getvalue()


def test_training_example_runs_in_order(training_walkthrough) -> None:
    # its wall time (target < 20 s) is measured by benchmarks/bench_examples.py, not asserted here
    text = training_walkthrough
    assert re.findall(r"^(\d)\. ", text, flags=re.MULTILINE) == ["1", "2", "3", "4", "5"]
    assert "Traceback" not in text


def test_training_example_stops_at_the_gauc_peak(training_walkthrough) -> None:
    text = training_walkthrough
    best = int(re.search(r"best iteration: (\d+); validation GAUC there: (0\.\d{4})", text).group(1))
    assert f"=> Training kept round {best}, where the logged GAUC peaks." in text
    stop = re.search(r"best iteration by log loss: (\d+); validation GAUC there: (0\.\d{4})", text)
    assert stop and int(stop.group(1)) != best
    assert f"=> Stopping on log loss keeps round {stop.group(1)}, whose validation GAUC is" in text


def test_training_example_logged_equals_offline(training_walkthrough) -> None:
    text = training_walkthrough
    logged = re.search(r"^logged in training: (0\.\d{10})$", text, flags=re.MULTILINE).group(1)
    offline = re.search(r"^pre\.gauc offline:   (0\.\d{10})", text, flags=re.MULTILINE).group(1)
    assert logged == offline
    assert "=> The same number: same ties, same skipped users, same weights." in text


def test_training_example_comparison_lines_match_the_table(training_walkthrough) -> None:
    text = training_walkthrough
    lines = re.findall(
        r"^=> (gbm_\w+) vs model_b on gauc: ([+-]0\.\d{4}) \[([+-]0\.\d{4}), ([+-]0\.\d{4})\], (higher|lower), "
        r"(significant|not significant)", text, flags=re.MULTILINE,
    )
    assert [m for m, *_ in lines] == ["gbm_gauc_stop", "gbm_logloss_stop"]
    for model, diff, low, high, direction, _ in lines:
        assert float(low) <= float(diff) <= float(high)
        assert direction == ("higher" if float(diff) > 0 else "lower")
        row = re.search(rf"^{model}\s+gauc\s+(0\.\d{{4}})\s+(0\.\d{{4}})\s+(-?0\.\d{{4}})", text, flags=re.MULTILINE)
        assert row and abs(float(row.group(3)) - float(diff)) < 1e-4


OFFLINE_ONLINE = EXAMPLES / "offline_online.py"


@pytest.mark.slow  # a simulation: run by .ci/run after the default suite (pytest -m slow)
def test_offline_online_walkthrough(tmp_path: Path) -> None:
    """examples/offline_online.py: both estimators hold the true curve, and the launch table
    names its best metric and how few launches it rests on."""
    import contextlib
    import io

    argv, out = sys.argv, io.StringIO()
    try:
        sys.argv = [str(OFFLINE_ONLINE), "--plots", str(tmp_path)]
        with contextlib.redirect_stdout(out):
            runpy.run_path(str(OFFLINE_ONLINE), run_name="__main__")
    finally:
        sys.argv = argv
    text = out.getvalue()
    assert re.findall(r"^(\d)\. ", text, flags=re.MULTILINE) == ["1", "2", "3", "4", "5", "6"]
    assert text.count("=> the truth is inside the 95% interval at 5 of 5 positions.") == 2
    assert "based on 12 launches; intervals are wide" in text
    assert "=> best: ips_dcg@10." in text
    # the counterfactual metrics: the naive click DCG of the better new ranker says it loses, IPS says it wins
    assert re.search(r"new 1\.\d+ \(\+\d+\.\d%\)\. The naive click DCG says -\d", text)
    assert re.search(r"^new +ips_dcg@5 .* \+1\d\.\d%", text, flags=re.MULTILINE)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["launch_agreement.png", "propensities.png"]
