"""Stage 4 of the pipeline, bad values of one partition: counted, so that they add up over partitions.

Where pandas raises at once, a partition counts instead (:func:`_count_problems`: infinite or
negative labels, bad weights; :func:`problem_counts`: an :class:`InputProblem` the evaluation
raised), and :func:`~.finalize.raise_input_errors` raises with the whole table's counts.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..core.evaluate import exp2_overflow
from ..core.options import WEIGHT_NAMES
from ..core.validation import InputProblem
from .plan import Plan


def problem_counts(p: InputProblem) -> dict[tuple, int]:
    """An :class:`InputProblem` as counts that add up over partitions (``Summary.problems``)."""
    out = {(p.kind, p.where): p.count}
    if p.kind in ("weight_missing", "mixed_by", "unknown_position"):
        out[(p.kind + ":of", p.where)] = p.of  # the groups of the partitions that found it
        for key in p.examples:
            out[(p.kind + ":example", key)] = 1
    return out


def _count_problems(pdf: pd.DataFrame, plan: Plan) -> dict[tuple, int]:
    """Bad values that pandas raises for, counted (numeric columns only: a text column is the
    same TypeError in every partition, raised by the engine from its dtype)."""
    out: dict[tuple, int] = {}
    lab = pdf[plan.label]
    numeric = pd.api.types.is_numeric_dtype(lab.dtype) and not pd.api.types.is_bool_dtype(lab.dtype)
    if numeric and pd.api.types.is_float_dtype(lab.dtype):
        bad = int((~np.isfinite(lab.to_numpy(dtype=np.float64))).sum())
        if bad:
            out[("infinite_label", plan.label)] = bad
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
    if numeric and any(s.info.graded for s in plan.specs):
        neg = int((lab.to_numpy(dtype=np.float64) < 0).sum())
        if neg:
            out[("negative_label", plan.label)] = neg
        if plan.options.gain == "exp2" and len(lab) and exp2_overflow(plan.label, lab.max(), plan.options.threshold):
            # the partition's largest label, as a key: finalize names the whole table's largest
            out[("exp2_label", (plan.label, lab.max().item() if isinstance(lab.max(), np.generic) else lab.max()))] = 1
    out.update(calibration_problems(pdf, plan))
    return out


def calibration_problems(pdf: pd.DataFrame, plan: Plan) -> dict[tuple, int]:
    """What the calibration metrics refuse, counted: labels other than 0/1 (without a threshold)
    and scores outside [0, 1], with the labels and the range seen (rows with missing values are
    already dropped)."""
    names = tuple(s.name for s in plan.specs if not s.info.needs_ranking)
    out: dict[tuple, int] = {}
    if not names:
        return out
    from ..core.calibration import check_binary_labels, check_probabilities

    lab = pdf[plan.label]
    if plan.options.threshold is None and pd.api.types.is_numeric_dtype(lab.dtype) and not pd.api.types.is_bool_dtype(lab.dtype):
        y = lab.to_numpy(dtype=np.float64)
        bad = check_binary_labels(y)
        if bad is not None:
            out[("binary_label", (plan.label, names))] = bad[0]
            for v in np.unique(y[(y != 0) & (y != 1)])[:3].tolist():
                out[("binary_label:example", v)] = 1
    for c in plan.scores:
        col = pdf[c]
        if pd.api.types.is_numeric_dtype(col.dtype) and not pd.api.types.is_bool_dtype(col.dtype):
            found = check_probabilities(col.to_numpy(dtype=np.float64))
            if found is not None:
                out[("probability", (c, names))] = found[0]
                out[("probability:range", (c, found[1], found[2]))] = 1
    return out
