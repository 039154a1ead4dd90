"""Packaging: what pyproject.toml declares, what the wheel ships, and the README's commands."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def pyproject():
    tomllib = pytest.importorskip("tomllib")  # Python >= 3.11
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_pyproject_declarations(pyproject):
    project = pyproject["project"]
    assert project["name"] == "pandas_rankeval"
    assert project["requires-python"] == ">=3.10"
    assert project["dependencies"] == ["pandas>=2.2", "numpy>=1.26", "scikit-learn>=1.4"]
    extras = project["optional-dependencies"]
    # Other extras may join the test set (dask for the dask backend's tests).
    assert {"pytest", "hypothesis", "matplotlib", "pyarrow", "tqdm"} <= set(extras["test"])
    assert extras["plot"] == ["matplotlib"]
    assert extras["progress"] == ["tqdm"]
    assert extras["parquet"] == ["pyarrow"]
    assert extras["bench"] == ["ranx"]
    assert extras["dask"] == ["dask[dataframe]", "distributed"]
    assert {"dask[dataframe]", "distributed"} <= set(extras["test"])  # the Dask tests and their LocalCluster
    assert project["scripts"] == {"pandas-rankeval": "pandas_rankeval.cli:main"}
    pytest_ini = pyproject["tool"]["pytest"]["ini_options"]
    assert pytest_ini["testpaths"] == ["tests", "pandas_rankeval"]
    assert "--doctest-modules" in pytest_ini["addopts"]
    assert any(marker.startswith("slow:") for marker in pytest_ini["markers"])


def test_readme_and_ci_use_the_same_test_command():
    command = 'pip install -e ".[test]" && python -m pytest -q'
    assert command in (ROOT / "README.md").read_text(encoding="utf-8")
    assert command in (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "pip install -e . && python -m pandas_rankeval demo" in (ROOT / "README.md").read_text(
        encoding="utf-8"
    )


def test_readme_demo_command_runs():
    proc = subprocess.run(
        [sys.executable, "-m", "pandas_rankeval", "demo"], capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr
    assert "model_a" in proc.stdout and "model_b" in proc.stdout and "GAUC" in proc.stdout


@pytest.mark.slow
def test_wheel_contents(tmp_path):
    # Built like `pip install` builds it (isolated build environment, as .ci/run does).
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", str(tmp_path), str(ROOT)],
        capture_output=True, text=True,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (wheel,) = tmp_path.glob("pandas_rankeval-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "pandas_rankeval/py.typed" in names
    assert "pandas_rankeval/__init__.py" in names
    for module in ("integrations/__init__.py", "integrations/lightgbm.py", "lightgbm.py", "xgboost.py", "sklearn.py",
                   "integrations/mlflow.py", "integrations/wandb.py", "integrations/_tracking.py", "mlflow.py", "wandb.py"):
        assert f"pandas_rankeval/{module}" in names  # subpackages ship (setuptools packages.find)
    assert not any(name.startswith(("tests/", "benchmarks/")) for name in names)
    (entry_points,) = [name for name in names if name.endswith("entry_points.txt")]
    text = zipfile.ZipFile(wheel).read(entry_points).decode()
    assert "pandas-rankeval = pandas_rankeval.cli:main" in text
    assert "[mlflow.model_evaluator]\nrankeval = pandas_rankeval.integrations.mlflow:RankevalEvaluator" in text


def _root_conftest():
    spec = importlib.util.spec_from_file_location("_root_conftest", ROOT / "conftest.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_doctest_collection_skips_modules_missing_an_optional_dependency(tmp_path, monkeypatch):
    conftest = _root_conftest()
    absent = "pandas_rankeval_absent_dependency"
    monkeypatch.setattr(conftest, "OPTIONAL_DEPENDENCIES", conftest.OPTIONAL_DEPENDENCIES | {absent})
    monkeypatch.setattr(conftest, "PACKAGE_DIR", tmp_path)
    optional = tmp_path / "plotting.py"
    optional.write_text(
        "import numpy as np\n"
        f"import {absent}.pyplot as plt\n"
        "from tqdm.auto import tqdm\n"
        "try:\n    import pyarrow\nexcept ImportError:\n    pyarrow = None\n"
        "def f():\n    import dask\n",
        encoding="utf-8",
    )
    guarded = tmp_path / "progress.py"
    guarded.write_text(f"def f():\n    import {absent}\n", encoding="utf-8")
    assert conftest.unguarded_imports(optional) == {"numpy", absent, "tqdm"}
    assert conftest.missing_optional_dependencies(optional) == {absent}
    assert conftest.pytest_ignore_collect(optional, None) is True
    assert conftest.pytest_ignore_collect(guarded, None) is None
    assert conftest.pytest_ignore_collect(ROOT / "tests" / "test_packaging.py", None) is None
