"""The per-group table: every requested metric of every group of one partition of whole groups.

pandas builds it from the whole frame; Dask, Spark and a polars LazyFrame build it once per
partition of whole groups (so their result is a frame of the engine's own kind, assembled there).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..core.evaluation.pipeline import evaluate
from ..core.evaluation.records import Evaluation
from ..core.evaluation.reductions import row_groups
from ..display.table import ResultTable, as_result_table
from ..summary.plan import Plan

__all__ = ["check_flat_names", "display_names", "output_names", "per_group_of_values", "per_group_table"]


def _metric_names(plan: Plan) -> list[str]:
    """``"auc"`` for the per-group AUC (the terms of GAUC), else the metric's name."""
    return [s.info.group_column or s.name for s in plan.specs]


def _columns(plan: Plan) -> dict[str, dict[str, str]]:
    """Per model, metric name -> its column: the metric's name, or ``"<model>_<metric>"`` for
    several models (``per_group(scores=[...])``)."""
    names = _metric_names(plan)
    return {
        str(model): {n: (f"{model}_{n}" if plan.per_model_columns else n) for n in names} for model in plan.scores
    }


def display_names(plan: Plan) -> list[str]:
    """The table's metric columns, in order (every model's, model by model)."""
    return [c for named in _columns(plan).values() for c in named.values()]


def _row_weights(ev: Evaluation, plan: Plan) -> np.ndarray:
    """Per group, its rows' summed sample weight (its rows without sample weights)."""
    if plan.options.sample_weight is None:
        return np.asarray(ev.group_stats["n"], dtype=np.float64)
    gi = row_groups(ev)
    sw = ev.prepared.extra[plan.options.sample_weight]
    return np.bincount(gi, weights=sw, minlength=ev.group_stats["n"].shape[0])


def output_names(plan: Plan) -> list[str]:
    """The table's columns besides the key(s): ``n``, ``positives``, the metrics, ``weight``."""
    return ["n", "positives", *dict.fromkeys(display_names(plan)), "weight"]


def check_flat_names(plan: Plan, engine: str) -> None:
    """An engine whose per-group table is a flat frame (the key columns beside the others: polars,
    DuckDB, Spark, Dask with several key columns) cannot hold a key column named like a column of
    the table, as pandas' table can (the key is its index there): raised before any work.

    Examples
    --------
    >>> from pandas_rankeval.summary import make_plan
    >>> plan = make_plan("per_group", kind="per_group", group="n", label="y", scores="s", metrics=["mrr"])
    >>> check_flat_names(plan, "polars")
    Traceback (most recent call last):
    ...
    ValueError: per_group on a polars frame: the group column 'n' has the name of a column of the per-group table (n, positives, mrr, weight); the polars table holds its keys as columns, and two columns of one name cannot be told apart (pandas' table can: the key is its index). Rename the key first, for example df.rename({'n': 'n_key'}).
    """
    taken = set(output_names(plan))
    clash = [k for k in plan.group if str(k) in taken]
    if not clash:
        return
    k = clash[0]
    if engine == "polars":
        fix = f"df.rename({{{k!r}: {str(k) + '_key'!r}}})"
    elif engine == "Spark":
        fix = f"sdf.withColumnRenamed({k!r}, {str(k) + '_key'!r})"
    elif engine == "DuckDB":
        quoted = '"' + str(k).replace('"', '""') + '"'
        fix = f"rel.select('* RENAME ({quoted} AS {str(k) + '_key'})')"
    else:
        fix = f"ddf.rename(columns={{{k!r}: {str(k) + '_key'!r}}})"
    more = f" (also {clash[1:]!r})" if len(clash) > 1 else ""
    raise ValueError(
        f"{plan.func} on a {engine} frame: the group column {k!r}{more} has the name of a column of the "
        f"per-group table ({', '.join(output_names(plan))}); the {engine} table holds its keys as columns, "
        f"and two columns of one name cannot be told apart (pandas' table can: the key is its index). Rename the key first, for example {fix}."
    )


def per_group_table(df: pd.DataFrame, plan: Plan) -> ResultTable:
    """``n``, ``positives``, one column per metric and ``weight``, indexed by the group key(s).

    Parameters
    ----------
    df : DataFrame
        Whole groups (every row of each group it holds).
    plan : Plan
        A plan of kind ``"per_group"`` (:func:`pandas_rankeval.summary.make_plan`).

    Returns
    -------
    table : ResultTable
        With each metric's choices and coverage in ``table.attrs``.

    Examples
    --------
    >>> import pandas as pd
    >>> from pandas_rankeval.summary import make_plan
    >>> df = pd.DataFrame({"q": [1, 1, 2, 2], "y": [1, 0, 0, 1], "s": [0.3, 0.2, 0.9, 0.1]})
    >>> plan = make_plan("per_group", kind="per_group", group="q", label="y", scores="s", metrics=["gauc"])
    >>> per_group_table(df, plan)["auc"].tolist()
    [1.0, 0.0]
    """
    opts = plan.options
    ev = evaluate(df, group=plan.group, label=plan.label, scores=plan.scores, specs=plan.specs, options=opts)
    ranked = any(spec.info.needs_ranking for spec in plan.specs)
    return per_group_of_values(ev.keys, ev.group_stats["n"], ev.group_stats["positives"],
                               {s: ev.scores[s].metrics for s in plan.scores}, plan,
                               row_weights=None if ranked else _row_weights(ev, plan))


def per_group_of_values(
    keys: pd.Index,
    n: np.ndarray,
    positives: np.ndarray,
    values: dict,
    plan: Plan,
    *,
    row_weights: np.ndarray | None = None,
) -> ResultTable:
    """The per-group table from every group's values, however they were computed (the pandas
    pipeline's evaluation, or the warehouse's SQL): ``values`` maps each score column to its
    metrics' :class:`~pandas_rankeval.core.evaluation.GroupValues` by name; ``row_weights`` (each
    group's rows, or summed sample weights) is the ``weight`` column of a table of calibration
    metrics only."""
    opts = plan.options
    first = values[plan.scores[0]]
    out = pd.DataFrame({"n": n, "positives": positives}, index=keys)
    names = _metric_names(plan)
    columns = _columns(plan)
    for model, named in zip(plan.scores, columns.values()):
        for spec, name in zip(plan.specs, names):
            out[named[name]] = values[model][spec.name].values
    ranked = [spec for spec in plan.specs if spec.info.needs_ranking]
    if ranked:
        out["weight"] = first[ranked[0].name].weights  # depends on the labels only: one column
    else:  # calibration metrics only: a group weighs its rows (their sample weights) in the pooled value
        out["weight"] = row_weights
    out.attrs["params"] = {name: opts.params(spec) for spec, name in zip(plan.specs, names)}
    out.attrs["coverage"] = {name: first[spec.name].coverage.as_dict() for spec, name in zip(plan.specs, names)}
    if plan.per_model_columns:
        out.attrs["models"] = columns
    return as_result_table(out, "per_group")
