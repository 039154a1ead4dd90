"""The one scan of a partitioned engine, defined once: what it counts and how the counts read.

Every engine that reads the input in partitions (DuckDB, a polars LazyFrame, Spark) starts with
one aggregation over the whole table: rows, missing values per column, and the values pandas
refuses (infinite labels, negative labels or labels above a metric's top grade, labels other than
0/1 and probabilities outside [0, 1] for the calibration metrics, negative or infinite weights).
:func:`scan_counts` lists those aggregates as :class:`ScanCount` records, each a name, an
operation (:data:`OPS`) and its column; an engine translates each operation into its own
aggregate (SQL, a polars expression, a Spark column) and names the result by ``name``;
:func:`read_counts` turns the row back into the missing values and the problems, in pandas'
order. The distinct-key counts (groups, segments) stay with the engines: how exact they must be
differs.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .problems import LabelChecks

__all__ = ["OPS", "ScanCount", "ScanCounts", "read_counts", "scan_counts"]

#: What each aggregate counts. "kept" is a row with no missing value in any column of the call;
#: "as double": the column cast to float64.
OPS = {
    "rows": "every row",
    "dropped": "rows with a missing value (null, or NaN in a float column) in any column",
    "missing": "rows whose column is missing",
    "infinite": "kept rows whose column is infinite",
    "bad_weight": "kept rows whose column, as double, is infinite or negative",
    "negative": "kept rows whose column, as double, is below 0",
    "above": "kept rows whose column, as double, is above ``bound``",
    "max": "the largest kept value of the column, in its own type",
    "not_binary": "kept rows whose column, as double, is neither 0 nor 1",
    "not_binary_examples": "the first three distinct such values (as double), sorted",
    "outside_unit": "kept rows whose column, as double, is outside [0, 1]",
    "min_double": "the smallest kept value of the column, as double",
    "max_double": "the largest kept value of the column, as double",
}


@dataclass(frozen=True)
class ScanCount:
    """One aggregate of the scan: its result's ``name``, the operation (a key of :data:`OPS`),
    the column it reads and, for ``"above"``, the bound."""

    name: str
    op: str
    column: Hashable = None
    bound: float | None = None


@dataclass(frozen=True)
class ScanCounts:
    """The scan's aggregates, and what :func:`read_counts` needs to read them back."""

    counts: tuple[ScanCount, ...]
    columns: tuple[Hashable, ...]
    label: Hashable
    weights: tuple[Hashable, ...]
    checks: LabelChecks
    calibration: tuple[str, ...]
    scores: tuple[Hashable, ...]


def scan_counts(
    columns: Sequence[Hashable],
    label: Hashable,
    *,
    label_float: bool,
    checks: LabelChecks,
    weights: Sequence[Hashable] = (),
    calibration: tuple[str, ...] = (),
    scores: Sequence[Hashable] = (),
) -> ScanCounts:
    """The aggregates of the scan. ``columns``: every column of the call (each once, in order);
    ``label_float``: the label column is a float column (infinite labels are possible);
    ``weights``: the numeric weight columns to check; ``calibration``: the calibration metrics
    asked for, whose numeric ``scores`` must be probabilities."""
    cols = tuple(dict.fromkeys(columns))
    counts = [ScanCount("rows", "rows"), ScanCount("dropped", "dropped")]
    counts += [ScanCount(f"m{i}", "missing", c) for i, c in enumerate(cols)]
    if label_float:
        counts.append(ScanCount("inf_label", "infinite", label))
    counts += [ScanCount(f"bad_w{j}", "bad_weight", w) for j, w in enumerate(weights)]
    if checks.negative:
        counts.append(ScanCount("neg_label", "negative", label))
    if checks.grade is not None:
        counts.append(ScanCount("grade", "above", label, checks.grade[0]))
    if checks.top:
        counts.append(ScanCount("top", "max", label))
    if checks.binary:  # the calibration metrics' 0/1 labels: the count and the first three others
        counts += [ScanCount("cal_bl", "not_binary", label), ScanCount("cal_blx", "not_binary_examples", label)]
    cal_scores = tuple(scores) if calibration else ()
    for j, c in enumerate(cal_scores):  # probabilities: the count outside [0, 1] and the range seen
        counts += [ScanCount(f"cal_pb{j}", "outside_unit", c), ScanCount(f"cal_plo{j}", "min_double", c),
                   ScanCount(f"cal_phi{j}", "max_double", c)]
    return ScanCounts(tuple(counts), cols, label, tuple(weights), checks, calibration, cal_scores)


def read_counts(spec: ScanCounts, row: Mapping[str, Any]) -> tuple[dict[Hashable, int], dict[tuple, int]]:
    """The scan's row (result name -> value) as the missing values per column (every column,
    zeros included) and the problems of the values, in pandas' order."""
    missing = {c: int(row[f"m{i}"] or 0) for i, c in enumerate(spec.columns)}
    label, checks = spec.label, spec.checks
    problems: dict[tuple, int] = {}
    if row.get("inf_label"):
        problems[("infinite_label", label)] = int(row["inf_label"])
    for j, w in enumerate(spec.weights):
        if row[f"bad_w{j}"]:
            problems.setdefault(("bad_weight", w), int(row[f"bad_w{j}"]))
    if row.get("neg_label"):
        problems[("negative_label", label)] = int(row["neg_label"])
    if checks.grade is not None and row["grade"]:
        problems[("label_grade", (label, *checks.grade))] = int(row["grade"])
    if checks.binary and row["cal_bl"]:
        problems[("binary_label", (label, checks.binary))] = int(row["cal_bl"])
        problems.update({("binary_label:example", float(v)): 1 for v in row["cal_blx"] or []})
    for j, c in enumerate(spec.scores):
        if row[f"cal_pb{j}"]:
            problems[("probability", (c, spec.calibration))] = int(row[f"cal_pb{j}"])
            problems[("probability:range", (c, float(row[f"cal_plo{j}"]), float(row[f"cal_phi{j}"])))] = 1
    return missing, problems
