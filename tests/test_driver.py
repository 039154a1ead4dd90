"""Issue 26: the passes of a partitioned evaluation are defined once, in ``summary/driver.py``.

Cheap: reads the engine modules' source (AST only, nothing imported). No engine module defines a
function named like one of the driver's passes, nor imports (or calls through a module) the checks
that raise pandas' errors from whole-table counts; the adapters on the driver (polars LazyFrame,
DuckDB) hold primitives only. What is not on the driver yet is listed by name in ``NOT_YET``: the
test fails when such a pass is removed without the list shrinking, so the list stays true.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1] / "pandas_rankeval"
ENGINES = sorted(p for p in (ROOT / "engines").rglob("*.py"))

#: The driver's passes (and its checks): defined in summary/driver.py only.
PASSES = {"evaluate", "checked", "raise_early", "raise_from_counts", "raise_scan_errors", "needs_counts", "group_pass",
          "per_group_parts", "bucket_count"}
#: The checks that raise pandas' errors from whole-table counts: the driver calls them, no engine does.
CHECKS = {"raise_input_errors", "mixed_by_of_pairs", "exp2_overflow", "empty_error", "weights_once",
          "missing_values_error", "problem_message"}
#: Engine modules whose own passes are not on the driver yet (issue 26), and the names they still define
#: or call: Dask's group pass (a tree of summaries on the workers).
NOT_YET: dict[str, set[str]] = {
    "engines/dask/groups.py": {"group_pass"},
}


def _names(path: Path) -> tuple[set[str], set[str]]:
    """Functions and classes defined at any depth; names imported or read as ``module.name``."""
    tree = ast.parse(path.read_text())
    defined = {n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
    used = {a.asname or a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) for a in n.names}
    used |= {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    return defined, used


@pytest.mark.parametrize("path", ENGINES, ids=[str(p.relative_to(ROOT)) for p in ENGINES])
def test_no_engine_module_defines_a_pass_or_calls_the_checks(path: Path) -> None:
    rel = str(path.relative_to(ROOT))
    defined, used = _names(path)
    found = (defined & PASSES) | (used & CHECKS)
    assert found == NOT_YET.get(rel, set()), (rel, found)


def test_the_driver_defines_every_pass() -> None:
    defined, used = _names(ROOT / "summary" / "driver.py")
    assert PASSES <= defined
    assert CHECKS - {"missing_values_error", "problem_message"} <= used  # those two: inside raise_input_errors


def test_the_adapters_on_the_driver_run_its_passes() -> None:
    """polars LazyFrame and DuckDB: ``run`` and ``per_group`` go through the driver."""
    for rel in ["engines/polars/__init__.py", "engines/duckdb/__init__.py"]:
        _, used = _names(ROOT / rel)
        assert {"evaluate", "per_group_parts"} <= used, rel
