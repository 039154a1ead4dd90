"""The checks of a warehouse call: ONE aggregate query over the table, before any metric query.

Whole-table counts of what pandas refuses or drops: rows, missing values per column (NULL, or NaN
in a float column where the backend has NaN), rows with any missing value, infinite labels,
negative labels and labels above a metric's top grade (graded metrics), the largest label
(``gain="exp2"`` overflow), negative or infinite weights, and the distinct group keys (for
``empty="error"``, the groups with a relevant row). The answer is a
:class:`pandas_rankeval.summary.driver.Scan`, from which the summary layer raises pandas' own
messages (:func:`pandas_rankeval.summary.driver.raise_checked`). Missing columns and text scores
are answered from the schema alone, before this query.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from types import MappingProxyType
from typing import Any

import pandas as pd

from ...core.inputs.options import WEIGHT_NAMES
from ...summary.driver import Scan
from ...summary.problems import label_checks

__all__ = ["has_nan", "keep_expr", "label_examples", "scan_expr", "scan_from_row"]

#: Backends whose floats hold no NaN (SQLite stores NaN as NULL).
_NO_NAN = ("sqlite",)


def has_nan(t: Any) -> bool:
    """Whether the table's backend stores NaN (an unbound table: assume it does)."""
    try:
        return str(t.get_backend().name) not in _NO_NAN
    except Exception:  # an unbound table (compiled with ibis.to_sql)
        return True


def _is_float(dtype: Any) -> bool:
    return bool(pd.api.types.is_float_dtype(dtype))


def _numeric(dtype: Any) -> bool:
    return bool(pd.api.types.is_numeric_dtype(dtype)) and not pd.api.types.is_bool_dtype(dtype)


def _isinf(c: Any, nan: bool) -> Any:
    """``c`` is +-inf (SQLite, which has no NaN, has no ``isinf`` rule either: compared instead)."""
    import ibis

    if nan:
        return c.isinf()
    return (c == ibis.literal(float("inf"), "float64")) | (c == ibis.literal(float("-inf"), "float64"))


def missing_expr(t: Any, column: Hashable, dtype: Any, nan: bool) -> Any:
    """A row's value of ``column`` is missing, as pandas reads it (NULL, or NaN in a float column)."""
    c = t[str(column)]
    return (c.isnull() | c.isnan()) if (nan and _is_float(dtype)) else c.isnull()


def keep_expr(t: Any, plan: Any, schema: pd.DataFrame, nan: bool) -> Any:
    """The rows pandas keeps: no missing value in any column the plan reads."""
    import ibis

    cols = list(dict.fromkeys(plan.columns))
    if not cols:
        return ibis.literal(True)
    out = ~missing_expr(t, cols[0], schema[cols[0]].dtype, nan)
    for c in cols[1:]:
        out = out & ~missing_expr(t, c, schema[c].dtype, nan)
    return out


def _count_if(cond: Any) -> Any:
    """The rows where ``cond`` holds, as an int64 aggregate."""
    import ibis

    return ibis.ifelse(cond, 1, 0).sum().cast("int64")


def _value_checks(t: Any, plan: Any, schema: pd.DataFrame, kept: Any, nan: bool) -> tuple[dict[str, Any], dict[str, tuple]]:
    """The aggregates of the labels' and weights' checks among the kept rows (infinite labels, bad
    weights, negative labels, labels above the top grade, the largest label, labels other than 0
    and 1), and the problem kind each count reads as."""
    import ibis

    label, o = str(plan.label), plan.options
    ldt = schema[label].dtype
    aggs: dict[str, Any] = {}
    kinds: dict[str, tuple] = {}
    lab = t[label]
    if _is_float(ldt):
        kinds["inf_label"] = ("infinite_label", plan.label)
        aggs["inf_label"] = _count_if(kept & _isinf(lab, nan))
    weights = [o.sample_weight] if o.sample_weight is not None else []
    if isinstance(o.weight, str) and o.weight not in WEIGHT_NAMES:
        weights.append(o.weight)
    for i, w in enumerate(weights):
        if _numeric(schema[str(w)].dtype):
            wc = t[str(w)].cast("float64")
            kinds[f"bad_w{i}"] = ("bad_weight", w)
            bad = (wc < 0) | _isinf(wc, nan) if _is_float(schema[str(w)].dtype) else wc < 0
            aggs[f"bad_w{i}"] = _count_if(kept & bad)
    checks = label_checks(plan, _numeric(ldt))
    if checks.negative:
        kinds["neg_label"] = ("negative_label", plan.label)
        aggs["neg_label"] = _count_if(kept & (lab.cast("float64") < 0))
    if checks.grade is not None:
        kinds["grade"] = ("label_grade", (plan.label, *checks.grade))
        aggs["grade"] = _count_if(kept & (lab.cast("float64") > float(checks.grade[0])))
    if checks.top:
        aggs["label_max"] = ibis.ifelse(kept, lab, ibis.null()).max()
    if checks.binary:  # the calibration metrics' 0/1 labels (the examples: one more query, on error only)
        lf = lab.cast("float64")
        aggs["binary_bad"] = _count_if(kept & (lf != 0) & (lf != 1))
    return aggs, kinds


def _probability_checks(t: Any, probability: list[str], kept: Any) -> dict[str, Any]:
    """Per probability score column: the count outside [0, 1] among the kept rows and the range seen."""
    import ibis

    aggs: dict[str, Any] = {}
    for i, c in enumerate(probability):
        sc = t[c].cast("float64")
        aggs[f"prob_bad{i}"] = _count_if(kept & ~((sc >= 0) & (sc <= 1)))
        aggs[f"prob_min{i}"] = ibis.ifelse(kept, sc, ibis.null()).min()
        aggs[f"prob_max{i}"] = ibis.ifelse(kept, sc, ibis.null()).max()
    return aggs


def _distinct_keys(t: Any, plan: Any, kept: Any, relevant: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """The distinct group keys (with a relevant row; with their segments) among the kept rows, only
    where a check compares them: aggregates for one column, scalar subqueries of the same
    statement for several."""
    import ibis

    aggs: dict[str, Any] = {}
    scalars: dict[str, Any] = {}
    if not (plan.group and (relevant is not None or plan.by)):
        return aggs, scalars

    def key(c: str) -> Any:
        """A key column as pandas groups it (a float's -0.0 with 0.0)."""
        return t[c] + 0.0 if t[c].type().is_floating() else t[c]

    def distinct(columns: list[str], where: Any, name: str) -> None:
        if len(columns) == 1:
            aggs[name] = ibis.ifelse(where, key(columns[0]), ibis.null()).nunique().cast("int64")
        else:
            scalars[name] = t.filter(where).select(**{c: key(c) for c in columns}).distinct().count().as_scalar()

    group = [str(c) for c in plan.group]
    distinct(group, kept, "groups")
    if relevant is not None:
        distinct(group, kept & relevant, "with_relevant")
    # a segment column that is part of the group key is constant within every group: nothing to
    # check (and two equal scalar subqueries in one statement came back with mismatched names)
    if plan.by and not {str(c) for c in plan.by} <= set(group):
        distinct(list(dict.fromkeys([*group, *(str(c) for c in plan.by)])), kept, "pairs")
    return aggs, scalars


def scan_expr(t: Any, plan: Any, schema: pd.DataFrame, *, nan: bool = True,
              relevant: Any = None, extra: Mapping[str, Any] = MappingProxyType({})) -> tuple[Any, dict[str, Any]]:
    """The one aggregate expression of the checks, and how to read its row (for :func:`scan_from_row`).

    ``relevant`` (an Ibis boolean of ``t``) is needed only for ``empty="error"``; ``extra``: more
    aggregates of the same query (the IPS checks, :func:`.ips.ips_checks`), read by their caller.
    Its columns, in this order: the rows, the extra aggregates, the rows dropped and the missing values per column; the labels' and
    weights' checks (:func:`_value_checks`); the probabilities' (:func:`_probability_checks`); the
    distinct group keys (:func:`_distinct_keys`).
    """
    cols = [str(c) for c in dict.fromkeys(plan.columns)]
    kept = keep_expr(t, plan, schema, nan)
    aggs: dict[str, Any] = {"rows": t.count().cast("int64"), **extra, "dropped": _count_if(~kept)}
    for i, c in enumerate(cols):
        aggs[f"miss{i}"] = _count_if(missing_expr(t, c, schema[c].dtype, nan))
    values, kinds = _value_checks(t, plan, schema, kept, nan)
    aggs.update(values)
    cal = tuple(s.name for s in plan.specs if not s.info.needs_ranking)
    probability = [str(c) for c in plan.scores if cal and _numeric(schema[str(c)].dtype)]
    aggs.update(_probability_checks(t, probability, kept))
    keys, scalars = _distinct_keys(t, plan, kept, relevant)
    aggs.update(keys)
    out = t.aggregate(**aggs)
    if scalars:
        out = out.mutate(**scalars)
    return out, {"columns": cols, "kinds": kinds, "calibration": cal, "probability": probability}


def label_examples(t: Any, plan: Any, schema: pd.DataFrame, nan: bool) -> Any:
    """The three smallest kept labels other than 0 and 1 (the calibration metrics' error names them).

    A GROUP BY, not a SELECT DISTINCT: ibis 12 compiles ``filter(...).select(v).distinct()`` for
    Postgres as a DISTINCT over v and the filter's columns, which repeats a value."""
    lab = t[str(plan.label)].cast("float64")
    rows = t.filter(keep_expr(t, plan, schema, nan) & (lab != 0) & (lab != 1))
    rows = rows.mutate(v=rows[str(plan.label)].cast("float64"))
    return rows.group_by("v").aggregate(n=rows.count()).select("v").order_by("v").limit(3)


def _count(value: Any) -> int:
    """A count of the aggregate's row: a SQL ``SUM`` over no row is NULL, that is 0 rows."""
    return 0 if value is None or pd.isna(value) else int(value)


def scan_from_row(row: pd.Series, how: dict[str, Any], plan: Any, examples: list[float] | None = None) -> Scan:
    """The :class:`Scan` of the aggregate's one row (``examples``: :func:`label_examples`, read
    only when the row counts labels other than 0 and 1)."""
    cols = how["columns"]
    missing = {plan_col: _count(row[f"miss{i}"]) for i, plan_col in enumerate(dict.fromkeys(plan.columns))
               if _count(row[f"miss{i}"])}
    problems = {kind: _count(row[k]) for k, kind in how["kinds"].items() if _count(row[k])}
    cal = how.get("calibration", ())
    if "binary_bad" in row and _count(row["binary_bad"]):
        problems[("binary_label", (plan.label, cal))] = _count(row["binary_bad"])
        problems.update({("binary_label:example", float(v)): 1 for v in examples or []})
    for i, c in enumerate(how.get("probability", [])):
        if _count(row[f"prob_bad{i}"]):
            score = next(s for s in plan.scores if str(s) == c)
            problems[("probability", (score, cal))] = _count(row[f"prob_bad{i}"])
            problems[("probability:range", (score, float(row[f"prob_min{i}"]), float(row[f"prob_max{i}"])))] = 1
    top = row.get("label_max")
    if top is not None and pd.isna(top):
        top = None
    out = Scan(_count(row["rows"]), missing, _count(row["dropped"]) if missing else 0, problems, label_max=top)
    if "groups" in row:
        out.n_groups = _count(row["groups"])
    if "with_relevant" in row:
        out.n_with_relevant = _count(row["with_relevant"])
    if "pairs" in row:
        out.n_pairs = _count(row["pairs"])
    del cols
    return out
