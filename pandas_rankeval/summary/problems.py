"""Stage 4 of the pipeline, bad values of one partition: counted, so that they add up over partitions.

Where pandas raises at once, a partition counts instead (:func:`_count_problems`: infinite or
negative labels, bad weights; :func:`problem_counts`: an :class:`InputProblem` the evaluation
raised), and :func:`~.finalize.raise_input_errors` raises with the whole table's counts.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..core.evaluation.pipeline import exp2_overflow
from ..core.metrics.metric import grade_limit
from ..core.inputs.options import WEIGHT_NAMES
from ..core.inputs.validation import InputProblem
from .plan import Plan


@dataclass(frozen=True)
class LabelChecks:
    """What a scan of the whole table counts of its label column, as :func:`label_problems` counts
    it in a partition (an engine translates each into its own aggregate)."""

    negative: bool  # labels below 0 (the graded metrics)
    grade: tuple[float, tuple[str, ...]] | None  # labels above a metric's top grade: (grade, metric names)
    top: bool  # the largest kept label (gain='exp2' overflow, the top grade's example)
    binary: tuple[str, ...]  # the calibration metrics that need labels 0/1 (empty: no such count)


def label_checks(plan: Plan, numeric: bool) -> LabelChecks:
    """The label checks of the plan for a label column that is ``numeric`` (and not bool: a bool
    label has none of these problems)."""
    graded = any(s.info.graded for s in plan.specs)
    grade = grade_limit(plan.specs) if numeric else None
    cal = tuple(s.name for s in plan.specs if not s.info.needs_ranking)
    return LabelChecks(
        negative=numeric and graded, grade=grade,
        top=numeric and (grade is not None or (plan.options.gain == "exp2" and graded)),
        binary=cal if numeric and plan.options.threshold is None else (),
    )


def problem_counts(p: InputProblem) -> dict[tuple, int]:
    """An :class:`InputProblem` as counts that add up over partitions (``Summary.problems``)."""
    out = {(p.kind, p.where): p.count}
    if p.kind in ("weight_missing", "mixed_by", "unknown_position"):
        out[(p.kind + ":of", p.where)] = p.of  # the groups of the partitions that found it
        for key in p.examples:
            out[(p.kind + ":example", key)] = 1
    return out


def label_problems(lab: pd.Series, plan: Plan, rows: np.ndarray | None = None) -> dict[tuple, int]:
    """The problems of the label column, counted: infinite labels, and for the graded metrics
    negative labels, labels too large for ``gain='exp2'`` and labels above a metric's top grade;
    labels other than 0/1 for the calibration metrics. ``rows``: how many rows each value stands
    for (a table of rows per (group key, label)); one each when None."""
    out: dict[tuple, int] = {}
    numeric = pd.api.types.is_numeric_dtype(lab.dtype) and not pd.api.types.is_bool_dtype(lab.dtype)
    if not numeric or not len(lab):
        return out
    y = lab.to_numpy(dtype=np.float64)
    n = np.ones(y.shape[0], dtype=np.int64) if rows is None else np.asarray(rows, dtype=np.int64)
    if pd.api.types.is_float_dtype(lab.dtype):
        bad = int(n[~np.isfinite(y)].sum())
        if bad:
            out[("infinite_label", plan.label)] = bad
    if any(s.info.graded for s in plan.specs):
        neg = int(n[y < 0].sum())
        if neg:
            out[("negative_label", plan.label)] = neg
        top = lab.max()
        top = top.item() if isinstance(top, np.generic) else top
        if plan.options.gain == "exp2" and exp2_overflow(plan.label, top, plan.options.threshold):
            # the partition's largest label, as a key: finalize names the whole table's largest
            out[("exp2_label", (plan.label, top))] = 1
        limit = grade_limit(plan.specs)
        above = 0 if limit is None else int(n[y > limit[0]].sum())
        if above and limit is not None:  # the count adds up; finalize names the whole table's largest label
            out[("label_grade", (plan.label, *limit))] = above
            out[("label_grade:example", float(y.max()))] = 1
    names = tuple(s.name for s in plan.specs if not s.info.needs_ranking)
    if names and plan.options.threshold is None:
        from ..core.kernels.calibration import check_binary_labels

        other = (y != 0) & (y != 1)
        if check_binary_labels(y) is not None:
            out[("binary_label", (plan.label, names))] = int(n[other].sum())
            for v in np.unique(y[other])[:3].tolist():
                out[("binary_label:example", v)] = 1
    return out


def _count_problems(pdf: pd.DataFrame, plan: Plan) -> dict[tuple, int]:
    """Bad values that pandas raises for, counted (numeric columns only: a text column is the
    same TypeError in every partition, raised by the engine from its dtype)."""
    out = label_problems(pdf[plan.label], plan)
    w = plan.options.weight
    weight_cols = [plan.options.sample_weight] if plan.options.sample_weight is not None else []
    if isinstance(w, str) and w not in WEIGHT_NAMES:
        weight_cols.append(w)
    for c in weight_cols:
        col = pdf[c]
        if pd.api.types.is_numeric_dtype(col.dtype) and not pd.api.types.is_bool_dtype(col.dtype):
            arr = col.to_numpy(dtype=np.float64)
            bad = int((~np.isfinite(arr) | (arr < 0)).sum())
            if bad:
                out[("bad_weight", c)] = bad
    out.update(calibration_problems(pdf, plan))
    return out


def calibration_problems(pdf: pd.DataFrame, plan: Plan) -> dict[tuple, int]:
    """What the calibration metrics refuse in the scores, counted: values outside [0, 1], with the
    range seen (rows with missing values are already dropped; their labels other than 0/1 are
    :func:`label_problems`')."""
    names = tuple(s.name for s in plan.specs if not s.info.needs_ranking)
    out: dict[tuple, int] = {}
    if not names:
        return out
    from ..core.kernels.calibration import check_probabilities

    for c in plan.scores:
        col = pdf[c]
        if pd.api.types.is_numeric_dtype(col.dtype) and not pd.api.types.is_bool_dtype(col.dtype):
            found = check_probabilities(col.to_numpy(dtype=np.float64))
            if found is not None:
                out[("probability", (c, names))] = found[0]
                out[("probability:range", (c, found[1], found[2]))] = 1
    return out


def mixed_by_counts(pairs: pd.DataFrame, plan: Plan) -> dict[tuple, int]:
    """A ``by`` that varies within a group, counted from the distinct (group key, segment key)
    rows of a partition (or of the whole table): the problem and its example, or only the groups
    seen (``mixed_by:of``), so that the message's "of N groups" adds up over every partition."""
    from ..core.inputs.segments import mixed_by_of_pairs

    pairs = pairs[list(dict.fromkeys([*plan.group, *plan.by]))]
    found = mixed_by_of_pairs(pairs, plan.by, plan.group, plan.func)
    if found is not None:
        return problem_counts(found)
    where = (plan.func, tuple(plan.by), tuple(plan.group))
    return {("mixed_by:of", where): len(pairs[list(plan.group)].drop_duplicates())}
