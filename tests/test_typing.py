"""mypy (with pandas-stubs) passes on the package (pyproject.toml's [tool.mypy]), and the public
functions have precise types: one cold mypy run for both checks."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


PROBE = (
    "import pandas_rankeval as pre\n"
    "reveal_type(pre.precision)\n"
    "reveal_type(pre.gauc)\n"
    "reveal_type(pre.report)\n"
    "import pandas_rankeval.dask as prd\n"
    "reveal_type(prd.gauc)\n"
)


def mypy_command(tmp: str | Path) -> list[str]:
    """The cold mypy run of the package and of the probe of revealed types, its cache in ``tmp``."""
    probe = Path(tmp) / "probe.py"
    probe.write_text(PROBE)
    return [sys.executable, "-m", "mypy", "--cache-dir", str(Path(tmp) / "cache"), "pandas_rankeval", str(probe)]


@pytest.fixture(scope="module")
def mypy_run(tmp_path_factory):
    """The run conftest.py started with the session (so it overlaps the other tests), else one now."""
    pytest.importorskip("mypy")
    started = os.environ.get("PANDAS_RANKEVAL_MYPY_RUN")
    if started:
        done = Path(started) / "returncode"
        deadline = time.monotonic() + 600
        while not done.exists() and time.monotonic() < deadline:
            time.sleep(0.2)
        if done.exists():
            out = (Path(started) / "stdout").read_text()
            return subprocess.CompletedProcess([], int(done.read_text()), stdout=out, stderr="")
    tmp = tmp_path_factory.mktemp("mypy")
    return subprocess.run(mypy_command(tmp), cwd=ROOT, capture_output=True, text=True, timeout=600)


def test_mypy_is_clean_and_public_functions_have_precise_return_types(mypy_run):
    """One test, so that a parallel run makes one cold mypy run, not one per worker."""
    errors = [line for line in mypy_run.stdout.splitlines() if ": error:" in line]
    assert mypy_run.returncode == 0 and not errors, mypy_run.stdout + mypy_run.stderr
    notes = [line for line in mypy_run.stdout.splitlines() if "Revealed type" in line]
    assert len(notes) == 4, mypy_run.stdout
    assert "CutoffMetric" in notes[0] and "MetricResult" in notes[1] and "ResultTable" in notes[2], notes
    assert "def (*Any, **Any) -> Any" in notes[3], notes  # the old module's forwards: visible, callable
