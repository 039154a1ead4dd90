"""Summary -> numbers: whole-table checks, point values, replicates and coverage (stage 6).

No table formatting here: :mod:`pandas_rankeval.tables` turns these numbers into the
``MetricResult`` and the report and compare tables.
"""

from __future__ import annotations

import math
from collections.abc import Hashable
from typing import Any

import numpy as np

from ..core.evaluation.pipeline import exp2_overflow
from ..core.evaluation.result import Coverage, xauc_coverage
from ..core.inputs.validation import PROBLEM_ORDER, InputProblem, first_keys, missing_values_error, problem_message
from ..inference.delong import delong_from_moments
from .auc_counts import _auc_value
from .plan import COUNTER_INDEX, Plan
from .summary import REPLICATE_FIELDS, RESULT_FIELDS, SegmentFields, Summary, _seg_zero, by_name, field_total


#: Problems of groups (weights, segments), raised by pandas as :class:`InputProblem`; the problems
#: of rows (infinite or negative labels, bad weight values, ...) pandas raises as a plain ValueError.
_GROUP_PROBLEMS = ("group_weight", "weight_missing", "mixed_by")


# --------------------------------------------------------------------------- #
# finalize
# --------------------------------------------------------------------------- #
def raise_input_errors(summary: Summary, plan: Plan) -> None:
    """The whole table's input errors, in pandas' order: missing values, the values pandas
    refuses (the first kind in :data:`PROBLEM_ORDER`), no row left, groups with no relevant row
    under ``empty='error'``."""
    bad = _missing_columns(summary, plan)
    if bad and plan.options.nan_policy == "raise":
        raise missing_values_error(bad)
    if summary.n_rows == 0 and summary.n_dropped and not summary.problems:
        raise ValueError(
            f"{plan.func}: every row has a missing value in {list(bad)!r}; nothing is left to evaluate."
        )
    _raise_first_problem(summary, plan)
    if summary.n_rows == 0:
        if summary.n_dropped:
            raise ValueError(
                f"{plan.func}: every row has a missing value in {list(bad)!r}; nothing is left to evaluate."
            )
        raise ValueError(f"{plan.func} got an empty DataFrame (0 rows); there is nothing to evaluate.")
    if plan.options.empty == "error":
        _raise_empty_groups(summary, plan)


def _missing_columns(summary: Summary, plan: Plan) -> dict[Hashable, int]:
    """Missing values per column: the plan's columns in its order, then any other."""
    bad = {c: int(summary.missing[c]) for c in plan.columns if summary.missing.get(c)}
    for c, k in summary.missing.items():  # columns outside the plan's list, if any
        if k and c not in bad:
            bad[c] = int(k)
    return bad


def _raise_first_problem(summary: Summary, plan: Plan) -> None:
    """The first problem of the values in pandas' order, with its counts and examples from every
    partition (an exp2 overflow from the largest label of every partition)."""
    probs = summary.problems
    found = [(k, w) for k, w in probs if k in PROBLEM_ORDER and k != "exp2_label"]
    tops = [w[1] for k, w in probs if k == "exp2_label"]  # one key per partition: its largest label
    exp2 = exp2_overflow(plan.label, max(tops), plan.options.threshold) if tops else None
    if exp2 is not None:
        found.append(("exp2_label", plan.label))
    if not found:
        return
    kind, where = min(found, key=lambda kw: PROBLEM_ORDER.index(kw[0]))
    if exp2 is not None and kind == "exp2_label":
        raise exp2
    of = 0
    if kind in ("weight_missing", "mixed_by"):  # groups in the partitions that found it, and in the others
        of = int(probs.get((kind + ":of", where), 0)) + summary.total("n_groups")
    examples = _problem_examples(probs, kind, where)
    if kind in _GROUP_PROBLEMS:  # pandas raises these as InputProblem (a ValueError): the same class here
        raise InputProblem(kind, where, int(probs[(kind, where)]), of=of, examples=examples)
    raise ValueError(problem_message(kind, where, int(probs[(kind, where)]), of=of, examples=examples))


def _problem_examples(probs: dict[tuple, int], kind: str, where: Any) -> list[Any]:
    """A problem's examples gathered from every partition."""
    if kind in ("weight_missing", "mixed_by", "unknown_position"):
        return first_keys([k for (name, k) in probs if name == kind + ":example"])
    if kind == "binary_label":  # the labels seen, from every partition
        return sorted({k for (name, k) in probs if name == kind + ":example"})
    if kind == "label_grade":  # the largest label, from every partition
        return [max(k for (name, k) in probs if name == kind + ":example")]
    if kind == "probability":  # the range seen, from every partition
        seen = [k for (name, k) in probs if name == kind + ":range" and k[0] == where[0]]
        return [min(k[1] for k in seen), max(k[2] for k in seen)]
    return []


def _raise_empty_groups(summary: Summary, plan: Plan) -> None:
    """empty='error': the first metric (of the first score) with groups that have no relevant row."""
    tot = table_totals(summary, plan)
    n_groups = summary.total("n_groups")
    for j, (score, name) in enumerate(plan.items):
        if score != plan.scores[0]:
            break
        n_empty = int(tot["counts"][j, COUNTER_INDEX["n_empty"]])
        if n_empty:
            raise ValueError(
                f"{name}: {n_empty:,} of {n_groups:,} groups have no relevant row. "
                "Pass empty='zero' to score them 0 or empty='skip' to leave them out."
            )


def table_totals(summary: Summary, plan: Plan) -> dict[str, Any]:
    """The sum of every segment (the whole table), without the replicate sums (never needed)."""
    n_items, n_boot, n_pairs = summary.shape
    tot = _seg_zero(n_items, n_boot, n_pairs, plan.monte_carlo)
    for name, v in by_name(summary.data).items():
        if name in REPLICATE_FIELDS or name in RESULT_FIELDS:
            tot[name] = None
        elif v is not None and summary.keys and v.size:  # an empty field (no pair): its zero is its total
            total = field_total(name, v)
            tot[name] = total.item() if total.ndim == 0 else total
    return tot


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """``num / den`` where ``den > 0``, else NaN (one pass over the arrays)."""
    num, den = np.asarray(num, dtype=np.float64), np.asarray(den, dtype=np.float64)
    out = np.full(np.broadcast_shapes(num.shape, den.shape), np.nan)
    np.divide(num, den, out=out, where=den > 0)
    return out


def item_values(plan: Plan, sums: np.ndarray) -> np.ndarray:
    """Every item's value from its sums (..., items, 2): the ratio ``sum w v / sum w``, except a
    calibration metric with several components, whose first item gets the metric's ``combine``
    of its components' sums (NE, ECE). Whole table, segments and bootstrap replicates alike."""
    out = _ratio(sums[..., 0], sums[..., 1])
    combined = [(s, s.info.pooled.combine) for s in plan.specs if s.info.pooled is not None and s.info.pooled.combine]
    if not combined:
        return out
    col = {item: j for j, item in enumerate(plan.items)}
    for spec, combine in combined:
        for score in plan.scores:
            js = [col[(score, name)] for name in spec.item_names]
            with np.errstate(invalid="ignore", divide="ignore"):
                out[..., js[0]] = combine(sums[..., js, :])
    return out


def item_bounds(plan: Plan, jm: np.ndarray, jb: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """The range of every target (items, or model - baseline differences) that intervals are
    clipped to: a ranking metric's [0, 1] (differences [-1, 1]); log loss, NE, PCOC and the IPS
    metrics [0, inf)."""
    metric_of = {j: spec.info for j, (_, name) in enumerate(plan.items) for spec in plan.specs if name in spec.item_names}
    # a number of another range than [0, 1] (``fmt != "ratio"``, the IPS metrics) is at least 0
    rng = [metric_of[int(j)].reading.bounds if metric_of[int(j)].reading.fmt == "ratio" else (0.0, np.inf) for j in jm]
    lo = np.array([r[0] for r in rng], dtype=np.float64)
    hi = np.array([r[1] for r in rng], dtype=np.float64)
    if jb is None:
        return lo, hi
    return lo - hi, hi - lo


def _coverage(seg: dict[str, Any], j: int, n_dropped: int, grouped: bool = True) -> Coverage:
    c = seg["counts"][j]
    n_rows = seg["n_rows"]
    total_pos = seg["n_pos"]
    return Coverage(
        n_rows=n_rows,
        n_groups=seg["n_groups"],
        n_used=int(c[COUNTER_INDEX["n_used"]]),
        n_only_pos=int(c[COUNTER_INDEX["n_only_pos"]]),
        n_only_neg=int(c[COUNTER_INDEX["n_only_neg"]]),
        n_filtered=int(c[COUNTER_INDEX["n_filtered"]]),
        n_empty=int(c[COUNTER_INDEX["n_empty"]]),
        rows_skipped_share=float(int(c[COUNTER_INDEX["rows_skipped"]]) / max(n_rows, 1)),
        positives_skipped_share=float(int(c[COUNTER_INDEX["pos_skipped"]]) / total_pos) if total_pos else 0.0,
        n_dropped=n_dropped,
        n_zero_weight=int(c[COUNTER_INDEX["n_zero_weight"]]),
        rows_filtered_share=float(int(c[COUNTER_INDEX["rows_filtered"]]) / max(n_rows, 1)) if c[COUNTER_INDEX["n_filtered"]] else 0.0,
        positives_filtered_share=(
            float(int(c[COUNTER_INDEX["pos_filtered"]]) / total_pos) if (total_pos and c[COUNTER_INDEX["n_filtered"]]) else 0.0
        ),
        grouped=grouped,
    )


def auc_coverage(summary: Summary, plan: Plan) -> Coverage:
    """Coverage of global AUC over the whole table (every row pooled)."""
    n_rows = summary.n_rows
    npos = summary.total("n_pos")
    both = 0 < npos < n_rows
    zero_weight = (
        both and plan.options.sample_weight is not None
        and not (summary.total("sw_pos") > 0 and summary.total("sw_neg") > 0)
    )
    ok = both and not zero_weight
    return Coverage(
        n_rows=n_rows,
        n_groups=1,
        n_used=int(ok),
        n_only_pos=int(npos == n_rows),
        n_only_neg=int(npos == 0),
        n_zero_weight=int(zero_weight),
        rows_skipped_share=0.0 if ok else 1.0,
        positives_skipped_share=0.0 if ok or not npos else 1.0,
        n_dropped=summary.n_dropped,
        grouped=False,
    )


def _whole_table(summary: Summary, plan: Plan) -> dict[str, Any]:
    """The sum of every segment, with the table's totals."""
    tot = table_totals(summary, plan)
    tot["n_groups"] = summary.total("n_groups")
    tot["n_rows"] = summary.n_rows
    tot["n_pos"] = summary.total("n_pos")
    return tot


def metric_coverage(
    summary: Summary, plan: Plan, score: Hashable, xauc: dict | None = None
) -> dict[str, tuple[float, Coverage]]:
    """Whole-table (value, coverage) of every metric of one score column, for footers and warnings.

    Global AUC's and global XAUC's values are only used to decide the warning: NaN exactly when
    they have no pair (in any segment). ``xauc``: the engine's ``{segment key: XaucRows}``.
    """
    tot = _whole_table(summary, plan)
    out: dict[str, tuple[float, Coverage]] = {}
    for name in plan.metrics:
        if name == "auc":
            cov = auc_coverage(summary, plan)
            out[name] = (1.0 if cov.n_used else math.nan, cov)
            continue
        if name == "xauc":
            used = any(r.used for r in (xauc or {}).values())
            out[name] = (1.0 if used else math.nan, xauc_coverage(summary.n_rows, float(used), summary.n_dropped))
            continue
        j = plan.items.index((score, name))
        value = float(item_values(plan, tot["sums"])[j])
        # without a group column (plan.row_groups) a pooled metric's rows are pooled: no groups to count
        out[name] = (value, _coverage(tot, j, summary.n_dropped, grouped=not plan.row_groups))
    return out


def dropped_segments(summary: Summary, plan: Plan) -> dict[str, Any] | None:
    """Where a ``by=`` table's dropped rows were (``attrs["dropped"]``, read by the footer): the
    ``by`` columns, the rows with a missing segment value (``no_segment``: they belong to no
    segment), and the segments whose every row was dropped (``gone``: each key as a list of its
    values, with its rows; such a segment has no row in the table). None without ``by`` or
    dropped rows.

    >>> from pandas_rankeval.summary import make_plan
    >>> from pandas_rankeval.summary.summary import Summary
    >>> plan = make_plan("report", kind="report", group="u", label="y", scores="s", metrics=["gauc"], by="d")
    >>> s = Summary({}, {"d": 5}, 12, 100, (1, 0, 0), dropped_by={("tv",): 4, ("a",): 3})
    >>> dropped_segments(s, plan)  # a summary with no segment: every segment's rows were dropped
    {'by': ['d'], 'total': 12, 'no_segment': 5, 'gone': [[['a'], 3], [['tv'], 4]]}
    """
    if not plan.by or not summary.n_dropped:
        return None
    own = summary.dropped_by
    gone = [[list(k), own[k]] for k in segment_order([k for k in own if k not in summary.index])]
    return {"by": [str(b) for b in plan.by], "total": summary.n_dropped,
            "no_segment": summary.n_dropped - sum(own.values()), "gone": gone}


def segment_order(keys: list[tuple]) -> list[tuple]:
    """Segments in key order (country "de" before "fr"); keys that do not compare keep their order."""
    try:
        return sorted(keys)
    except TypeError:
        return list(keys)


def auc_lookup(auc: dict | None, key: tuple, score: Hashable, plan: Plan) -> float:
    if auc is None:
        raise ValueError(f"{plan.func}: global AUC was asked for, but no AUC counts were given to finalize")
    for k in ((key, score), (key[0] if len(key) == 1 else key, score)):
        if k in auc:
            return _auc_value(auc[k], plan.options.ties)
    if not key and score in auc:
        return _auc_value(auc[score], plan.options.ties)
    raise ValueError(f"{plan.func}: no global AUC counts for segment {key!r} and score {score!r}")


def xauc_of(xauc: dict | None, key: tuple, plan: Plan) -> Any:
    """Global XAUC of the plan's scores in one segment (an ``XaucRows``), from the engine."""
    if xauc is not None:
        for k in (key, key[0] if len(key) == 1 else key):
            if k in xauc:
                return xauc[k]
    raise ValueError(
        f"{plan.func}: global XAUC ('xauc') was asked for, but the engine gave none for segment {key!r}; "
        "it is computed on a pandas or polars DataFrame"
    )


def auc_replicates(auc_boot: dict | None, key: tuple, score: Hashable, plan: Plan) -> np.ndarray:
    if auc_boot is not None:
        for k in ((key, score), (key[0] if len(key) == 1 else key, score)):
            if k in auc_boot:
                return np.asarray(auc_boot[k], dtype=np.float64)
        if not key and score in auc_boot:
            return np.asarray(auc_boot[score], dtype=np.float64)
    raise ValueError(
        f"{plan.func}: an interval for global AUC needs its bootstrap replicates; "
        "this engine gave none (leave 'auc' out of the metrics, or drop ci=)"
    )


def ci_method(plan: Plan, paired: bool = False) -> str:
    """The words for the bootstrap interval (``attrs``, footers)."""
    stud = plan.ci_method == "studentized"
    if paired:
        base = ("studentized (bootstrap-t)" if stud else "percentile") + " paired bootstrap over groups"
    else:
        base = ("studentized bootstrap (bootstrap-t)" if stud else "percentile bootstrap") + " over groups"
    if plan.resample == "poisson":
        base += " (hashed Poisson(1) weights)"
    return base


def fallback_note(names: list[str]) -> str:
    """The words for intervals that fell back from the bootstrap-t to the percentile one."""
    return (
        f"; percentile for {', '.join(names)} (a bootstrap replicate's standard error is 0: it drew "
        "groups of one value only)"
    )


def delong_of(
    delong: dict | None, key: tuple, plan: Plan, seg: SegmentFields | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """AUCs of the plan's scores and their clustered-DeLong covariance in one segment."""
    moments = seg.get("delong") if seg is not None else None
    if (delong is None or key not in delong) and moments is not None:
        return delong_from_moments(moments)
    if delong is None or key not in delong:
        raise ValueError(
            f"{plan.func}: the clustered DeLong interval of global AUC needs its moment matrix "
            f"for segment {key!r}; this engine gave none (pass auc_method='bootstrap', or leave 'auc' out)"
        )
    return delong_from_moments(np.asarray(delong[key], dtype=np.float64))
