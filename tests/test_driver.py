"""The passes of a partitioned evaluation are defined once, in ``summary/driver.py`` and
``summary/ranges.py``.

Cheap: reads the engine modules' source (AST only, nothing imported). No engine module defines a
function named like one of the driver's passes, nor imports (or calls through a module) the checks
that raise pandas' errors from whole-table counts, nor the steps of the global-AUC range pass
(chaining ranges in order, their offsets and DeLong placements: ``summary/auc_counts.py``, called by
``summary/ranges.py`` only), nor defines one of the engines' former range cuts or placement joins;
the adapters on the driver (polars LazyFrame, DuckDB) hold primitives only. What is not on the
driver yet is listed by name in ``NOT_YET``: the test fails when such a pass is removed without the
list shrinking, so the list stays true.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1] / "pandas_rankeval"
ENGINES = sorted(p for p in (ROOT / "engines").rglob("*.py"))

#: The driver's passes (and its checks): defined in summary/driver.py only.
PASSES = {"evaluate", "checked", "raise_early", "raise_from_counts", "raise_scan_errors", "needs_counts", "group_pass",
          "per_group_parts", "bucket_count", "evaluate_summed", "summed_group_pass", "split_summary", "raise_from_tables",
          "segment_pass", "evaluate_segmented", "segment_mode", "raise_summed_early"}
#: The global-AUC range pass (per-range counts, chaining, placements): defined in summary/ranges.py only.
RANGES = {"auc_ranges", "range_counts", "range_placements"}
#: The checks that raise pandas' errors from whole-table counts: the driver calls them, no engine does.
CHECKS = {"raise_input_errors", "mixed_by_of_pairs", "exp2_overflow", "empty_error", "weights_once",
          "missing_values_error", "problem_message"}
#: The steps of the range pass (summary/auc_counts.py): summary/ranges.py calls them, no engine does.
AUC_STEPS = {"chain_auc", "chain_offsets", "placements_sorted", "placements_blocks", "auc_counts_sorted",
             "auc_counts_blocks"}
#: The engines' own range cuts and placement joins as they were before the range pass, and
#: Dask's own segment mode: no engine module may define one again.
OWN = {"add_sorted_counts", "_placement_table", "range_pass", "ranged_counts", "_range_counts", "_placement_part",
       "with_placements", "_with_placements", "_auc_partition", "_placement_partition", "_segment_part",
       "_add_segments", "fits"}
#: What runs on a partition of whole segments and computes global AUC from an evaluation (segment
#: AUC, DeLong moments, bootstrap AUC replicates): the summary layer's, called by no engine module
#: but the pandas engine's one-partition case (``evaluation_extras``).
SEGMENT_STEPS = {"segment_part", "add_segments", "finish_segments", "pandas_extras", "segment_moments",
                 "global_auc_by"}
#: Engine modules whose own passes are not on the driver yet, and the names they still define
#: or call. Empty: every pass is the driver's (the test fails if a name is added back without the list).
NOT_YET: dict[str, set[str]] = {}


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
    found = (defined & (PASSES | RANGES | OWN | AUC_STEPS | SEGMENT_STEPS)) | (used & (CHECKS | AUC_STEPS | SEGMENT_STEPS))
    if rel != "engines/pandas.py":  # the one-partition case reads its one evaluation's global AUC
        found |= used & {"evaluation_extras"}
    assert found == NOT_YET.get(rel, set()), (rel, found)


def test_the_driver_defines_every_pass() -> None:
    defined, used = _names(ROOT / "summary" / "driver.py")
    assert PASSES <= defined
    assert {"segment_part", "add_segments", "finish_segments", "fits"} <= used  # segment mode's steps
    assert CHECKS - {"missing_values_error", "problem_message"} <= used  # those two: inside raise_input_errors
    assert "auc_ranges" in used  # the global-AUC pass
    ranges, steps = _names(ROOT / "summary" / "ranges.py")
    assert RANGES <= ranges
    assert AUC_STEPS - {"placements_sorted", "auc_counts_sorted"} <= steps  # those two: inside the block forms


def test_the_adapters_on_the_driver_run_its_passes() -> None:
    """polars LazyFrame and DuckDB: ``run`` and ``per_group`` go through the driver."""
    for rel in ["engines/polars/__init__.py", "engines/duckdb/__init__.py"]:
        _, used = _names(ROOT / rel)
        assert {"evaluate", "per_group_parts"} <= used, rel
    # Dask: every pass through the driver's summed form (buckets and ranges reduced on the workers),
    # segment mode included (buckets of whole segments: its one primitive more)
    defined, used = _names(ROOT / "engines" / "dask" / "__init__.py")
    assert {"evaluate_segmented", "raise_summed_early"} <= used
    assert {"segment_rows", "reduce_segments"} <= defined
    # their sources give the range pass its primitives (no pass of their own)
    # Spark: the range pass and the summed group pass of the driver, after its own scan
    _, used = _names(ROOT / "engines" / "spark" / "__init__.py")
    assert {"auc_ranges", "summed_group_pass", "raise_checked"} <= used
    for rel in ["engines/polars/lazy.py", "engines/duckdb/__init__.py", "engines/dask/__init__.py",
                "engines/spark/__init__.py"]:
        defined, _ = _names(ROOT / rel)
        assert {"score_ranges", "map_ranges", "place_ranges", "join"} <= defined, rel


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64", "uint8", "uint64", "bool", "float32", "float64",
                                   "Int64", "Float64"])
def test_the_shared_relevance_rule_reads_labels_as_pandas(dtype: str) -> None:
    """``core.prepare.relevance_rule`` (what the Spark, LazyFrame and DuckDB aggregates translate)
    marks the rows that ``label_levels`` marks relevant, for every label dtype and threshold,
    integer bounds past the dtype's range included."""
    import numpy as np
    import pandas as pd

    from pandas_rankeval.core.inputs.prepare import label_levels, relevance_rule
    from pandas_rankeval.core.inputs.validation import numeric_values

    raw = {"bool": [True, False, True], "uint8": [0, 1, 255], "uint64": [0, 1, 2**64 - 1]}.get(dtype, [-3, 0, 1, 2, 7])
    values = pd.Series(raw).astype(dtype)
    y = numeric_values(values, "y", "label", keep_int=True)
    for threshold in [None, -1e20, -3.0, -0.5, 0.0, 0.5, 1, 1.5, 2, 7.0, 200.0, 2.0**63, 1e20]:
        want = np.asarray(label_levels(y, threshold, graded=False).rel, dtype=bool)
        op, bound = relevance_rule(values.dtype, threshold)
        if op == "never":
            got = np.zeros(len(values), dtype=bool)
        else:
            x = y.astype(object) if isinstance(bound, int) else y.astype(np.float64)  # exact ints, as the engines
            got = np.array([(v >= bound) if op == ">=" else (v > bound) for v in x], dtype=bool)
        assert got.tolist() == want.tolist(), (dtype, threshold, op, bound)
