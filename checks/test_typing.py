"""mypy (with pandas-stubs) passes on the package (pyproject.toml's [tool.mypy]), and the public
functions have precise types: one cold mypy run for both checks.

A static check, not a behaviour test: a cold mypy run takes 20-30 s of one core, an eighth of the
test run's 4-minute budget, so it lives outside ``tests/`` and ``.ci/run`` runs it as its own step
after the test command (``python -m pytest -q -n 0 checks``)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]  # the repository


@pytest.fixture(scope="module")
def mypy_run(tmp_path_factory):
    pytest.importorskip("mypy")
    tmp = tmp_path_factory.mktemp("mypy")
    probe = tmp / "probe.py"
    probe.write_text(
        "import pandas_rankeval as pre\n"
        "reveal_type(pre.precision)\n"
        "reveal_type(pre.ndcg)\n"
        "reveal_type(pre.gauc)\n"
        "reveal_type(pre.report)\n"
        "import pandas_rankeval.dask as prd\n"
        "reveal_type(prd.gauc)\n"
    )
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--cache-dir", str(tmp / "cache"), "pandas_rankeval", str(probe)],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
    )


def test_mypy_is_clean_and_public_functions_have_precise_return_types(mypy_run):
    """One test, so that a parallel run makes one cold mypy run, not one per worker."""
    errors = [line for line in mypy_run.stdout.splitlines() if ": error:" in line]
    assert mypy_run.returncode == 0 and not errors, mypy_run.stdout + mypy_run.stderr
    notes = [line for line in mypy_run.stdout.splitlines() if "Revealed type" in line]
    assert len(notes) == 5, mypy_run.stdout
    # the metric functions' signatures, written from the registry (api/metrics.pyi): every keyword typed
    assert "k: int =" in notes[0] and "-> pandas_rankeval.core.evaluation.result.MetricResult" in notes[0], notes
    assert "gain: Literal['exp2'] | Literal['linear'] =" in notes[1] and "k: int | None =" in notes[1], notes
    assert "MetricResult" in notes[2] and "ResultTable" in notes[3], notes
    assert "def (*Any, **Any) -> Any" in notes[4], notes  # the old module's forwards: visible, callable
