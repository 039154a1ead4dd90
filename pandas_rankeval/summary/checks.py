"""The checks a plan and a frame's schema can answer, shared by every engine (before any work).

:func:`check_schema` raises pandas' errors for what the column names and dtypes already show
(missing columns, text labels or scores, an ambiguous weight name); :func:`check_partitioned`
refuses, by name, the options whose value is not a sum over partitions when an engine evaluates
the frame in partitions (Dask, Spark, a polars LazyFrame). Values (missing, infinite, negative)
are counted by the engines and raised by :func:`pandas_rankeval.tables.finalize` with whole-table
counts.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import numpy as np
import pandas as pd

from ..core.inputs.options import check_weight_name
from ..core.inputs.prepare import label_levels
from ..core.evaluation.reductions import STATS_GIVEN, as_weights, series_weights
from ..core.inputs.validation import InputProblem, call_user, check_columns, duplicate_column_error, numeric_values, weight_roles
from .plan import Plan

__all__ = ["check_partitioned", "check_schema", "needs_group_stats", "weights_once"]


def check_schema(schema: pd.DataFrame, plan: Plan) -> None:
    """The errors pandas raises before it reads a value, from the column names and dtypes.

    ``schema`` is an empty frame with the columns and the dtypes pandas would give them.

    Examples
    --------
    >>> import pandas as pd
    >>> from pandas_rankeval.summary import make_plan
    >>> schema = pd.DataFrame({"u": pd.Series(dtype=int), "y": pd.Series(dtype=int),
    ...                        "s": pd.Series(dtype=str)})
    >>> plan = make_plan("gauc", kind="metric", group="u", label="y", scores="s", metrics=["gauc"])
    >>> check_schema(schema, plan)
    Traceback (most recent call last):
    ...
    TypeError: Column 's' (score) must be numeric or bool; it has dtype str. Convert it first, for example with pd.to_numeric(df['s']).
    """
    repeated = [s for s in dict.fromkeys(plan.scores) if plan.scores.count(s) > 1]
    if repeated:
        raise ValueError(
            f"The 'scores' parameter of {plan.func} names a column more than once: {repeated!r}. "
            "Name each score column once."
        )
    weight_column = check_weight_name(plan.options.weight, schema.columns, plan.func, plan.group or None)
    source = schema.attrs.get("source")
    check_columns(schema, plan.columns, duplicate_fix=_duckdb_duplicate_fix(schema) if source == "duckdb" else None)
    if source == "duckdb":
        _check_folded_names(schema, plan)
    # polars Decimal columns without fraction digits (DuckDB reads DECIMAL as DOUBLE, as pandas does)
    whole = schema.attrs.get("whole_decimals", ())
    temporal = schema.attrs.get("temporal", {})  # dates, times, durations: their integer, exact

    def fix(c: object) -> str | None:  # a polars or DuckDB user converts there (code that runs as shown)
        if source == "polars":
            to = ".to_physical()" if c in temporal else f".cast({'pl.Int64' if c in whole else 'pl.Float64'})"
            return f"df.with_columns(pl.col({c!r}){to})"
        if source == "duckdb":
            quoted = '"' + str(c).replace('"', '""') + '"'
            if c in temporal:  # DuckDB casts no date, time nor interval to DOUBLE
                value = f"{'epoch_ns' if temporal[c] == 'ns' else 'epoch_us'}({quoted})"
            else:
                value = f"CAST({quoted} AS DOUBLE)"
            return f"rel.select({f'* REPLACE ({value} AS {quoted})'!r})"
        return None

    numeric_values(schema[plan.label], plan.label, "label", keep_int=True, fix=fix(plan.label))
    for s in plan.scores:
        numeric_values(schema[s], s, "score", keep_float32=True, keep_int64=True, fix=fix(s))
    roles = weight_roles(plan.options.sample_weight, weight_column)
    for c in roles:
        numeric_values(schema[c], c, roles[c], fix=fix(c))
    if plan.group and plan.n_replicates and plan.resample == "poisson":
        _check_key_hashing(schema, plan.group)


def _duckdb_duplicate_fix(schema: pd.DataFrame) -> Callable[[object], str]:
    """The fix of a name that several columns of a DuckDB relation share, in DuckDB's SQL: every
    column selected by its position, those after the first of a name renamed (``#4 AS "s_4"``;
    DuckDB itself would rename them ``s_1``... in a subquery, and read ``s`` as the first)."""
    names = [str(n) for n in schema.columns]
    seen: set[str] = set()
    items = []
    for i, n in enumerate(names):
        name = n if n.lower() not in seen else f"{n}_{i + 1}"
        seen.add(n.lower())
        items.append(f"#{i + 1} AS " + '"' + name.replace('"', '""') + '"')
    sql = "rel.select('" + ", ".join(items).replace("'", "\\'") + "')"
    return lambda c: sql


def _check_folded_names(schema: pd.DataFrame, plan: Plan) -> None:
    """DuckDB resolves a column name case-insensitively: a column of the call whose name differs
    only in case from another column's does not name one column (DuckDB would read the first)."""
    folded: dict[str, int] = {}
    for n in schema.columns:
        folded[str(n).lower()] = folded.get(str(n).lower(), 0) + 1
    for c in dict.fromkeys(plan.columns):
        count = folded.get(str(c).lower(), 0)
        if count > 1:
            same = [str(n) for n in schema.columns if str(n).lower() == str(c).lower()]
            raise duplicate_column_error(
                c, count, _duckdb_duplicate_fix(schema)(c),
                note=f" as DuckDB reads names, case-insensitively ({', '.join(map(repr, same))})",
            )


def _check_key_hashing(schema: pd.DataFrame, group: list) -> None:
    """Group keys whose dtype the stable key hash of the hashed bootstrap refuses (a ``Duration``
    or timedelta key) raise pandas' TypeError from the dtype, before any work (the hash of one
    value of that dtype raises it). Other dtypes are decided by their values, as in pandas."""
    from ..inference.hashing import key_hash

    for c in group:
        dtype = schema[c].dtype
        if pd.api.types.is_timedelta64_dtype(dtype):
            key_hash(pd.Series(np.zeros(1, dtype=dtype)))


def check_partitioned(plan: Plan, engine: str) -> None:
    """Options whose exact value is not a sum over partitions of whole groups raise here.

    Examples
    --------
    >>> from pandas_rankeval.summary import make_plan
    >>> plan = make_plan("auc", kind="metric", group=None, label="y", scores="s", metrics=["auc"],
    ...                  max_fpr=0.1)
    >>> check_partitioned(plan, "Dask")
    Traceback (most recent call last):
    ...
    ValueError: auc on a Dask frame: max_fpr (the partial AUC of global AUC) has no exact distributed form: it needs the ROC curve of every row in one place. Compute it on a pandas sample with pandas_rankeval.auc(df, ..., max_fpr=...), or drop max_fpr.
    """
    f = f"{plan.func} on a {engine} frame"
    if plan.resample != "poisson" and plan.interval:
        raise ValueError(
            f"{f}: resample='multinomial' has no distributed form: it draws exactly as many "
            "groups as there are, from all of them in one place. Use the default resample='poisson' "
            "(hashed per group: the same interval as pandas for the same seed)."
        )
    if plan.has_xauc and plan.kind in ("report", "compare"):
        raise ValueError(
            f"{f}: 'xauc' (global XAUC) in {plan.kind} needs every row in one place: its value per "
            "segment and its clustered DeLong interval and test read every row's credit against every "
            "other row (its placement), which ranges of scores do not give. Collect the columns it "
            "reads into a pandas or polars DataFrame first, or compute its value alone with "
            "pandas_rankeval.xauc (every engine); 'gxauc' (grouped XAUC) runs on this frame."
        )
    if not plan.has_auc:
        return
    if plan.options.max_fpr is not None:
        raise ValueError(
            f"{f}: max_fpr (the partial AUC of global AUC) has no exact distributed form: "
            "it needs the ROC curve of every row in one place. Compute it on a pandas sample with "
            "pandas_rankeval.auc(df, ..., max_fpr=...), or drop max_fpr."
        )
    if plan.interval and not plan.auc_delong:
        what = "compare" if plan.kind == "compare" else "ci (an interval)"
        ties = "" if plan.options.ties == "expected" else f", ties={plan.options.ties!r}"
        raise ValueError(
            f"{f}: a bootstrap {what} of global 'auc' (auc_method={plan.auc_method!r}{ties}) has no "
            "distributed form: it needs a resampled count per distinct score. Use "
            "auc_method='delong' with ties='expected' (the clustered DeLong interval and test, the "
            "default), or leave 'auc' out of metrics (GAUC and the list metrics are resampled exactly)."
        )


def needs_group_stats(plan: Plan) -> bool:
    """A weight callable: it may look at every group at once (``n / n.sum()``, a rank), so an
    engine that evaluates in partitions calls it once, on the whole table (:func:`weights_once`)."""
    return callable(plan.options.weight) and not isinstance(plan.options.weight, (str, pd.Series))


def weights_once(plan: Plan, counts: pd.DataFrame, count: str) -> Plan:
    """The plan with its weight callable called once on the whole table's group statistics,
    its result a weight Series indexed by group key (what every partition then reads).

    ``counts`` holds, for the rows the evaluation keeps, one row per distinct (group key, label)
    with the number of rows in column ``count`` (a small aggregate any engine computes in one
    pass). The callable sees what it sees on pandas: a frame indexed by group key (sorted) with
    columns ``n``, ``positives`` and ``negatives``, and its result is checked with pandas' messages
    and whole-table counts. The frame has one row per group, in the caller's memory, as it has
    on pandas.

    A weight Series is checked the same way (pandas' errors: keys it has no value for, values
    that are negative or not finite) and the plan returned unchanged: an engine that evaluates in
    partitions asks for it (:func:`pandas_rankeval.summary.driver.raise_early`) to raise
    before it reads any partition.

    Examples
    --------
    >>> import pandas as pd
    >>> from pandas_rankeval.summary import make_plan
    >>> plan = make_plan("gauc", kind="metric", group="u", label="y", scores="s", metrics=["gauc"],
    ...                  weight=lambda st: st["n"] / st["n"].sum())
    >>> counts = pd.DataFrame({"u": ["a", "a", "b"], "y": [0, 1, 1], "rows": [2, 1, 5]})
    >>> weights_once(plan, counts, "rows").options.weight.round(3).to_dict()
    {'a': 0.375, 'b': 0.625}
    """
    func = plan.func
    y = numeric_values(counts[plan.label], plan.label, "label", keep_int=True)
    rel = np.asarray(label_levels(y, plan.options.threshold, graded=False).rel, dtype=bool)
    n = counts[count].to_numpy(dtype=np.int64)
    keys = list(plan.group)
    table = pd.DataFrame({**{k: counts[k] for k in keys}, "n": n, "positives": np.where(rel, n, 0)})
    stats = table.groupby(keys if len(keys) > 1 else keys[0], sort=True, observed=True)[["n", "positives"]].sum()
    stats["negatives"] = stats["n"] - stats["positives"]
    if isinstance(plan.options.weight, pd.Series):  # checked as pandas checks it, on every group key
        w = series_weights(plan.options.weight, stats.index, func)
        bad = ~np.isfinite(w) | (w < 0)
        if bad.any():
            raise InputProblem("group_weight", func, int(bad.sum()))
        return plan
    out = call_user(plan.options.weight, stats, "weight", func, STATS_GIVEN)  # type: ignore[arg-type]
    if isinstance(out, pd.Series):
        out = out.reindex(stats.index)
    w = as_weights(out, f"The 'weight' callable of {func}").reshape(-1)
    if w.shape[0] != stats.shape[0]:
        raise ValueError(
            f"The 'weight' callable of {func} returned {w.shape[0]:,} values for "
            f"{stats.shape[0]:,} groups; return one weight per row of the statistics frame."
        )
    bad = ~np.isfinite(w) | (w < 0)
    if bad.any():
        raise InputProblem("group_weight", func, int(bad.sum()))
    series = pd.Series(w, index=stats.index)
    return dataclasses.replace(plan, options=dataclasses.replace(plan.options, weight=series))
