"""What an experiment tracker receives from a report or compare table: keys, values, choices.

Shared by :mod:`pandas_rankeval.integrations.mlflow` and
:mod:`pandas_rankeval.integrations.wandb`; it imports neither tracker. It reads the tables
through their public face only: the index levels (``model``, ``baseline``, ``metric`` and
the segments of ``by=``), the numeric columns, ``attrs["table"]``, ``attrs["params"]`` and
the other scalar ``attrs``.

The key spelling (the one rule, documented in ``docs/guide/tracking.md``):

- every name is cut to the characters both trackers accept everywhere: ASCII letters,
  digits, ``_``, ``-`` and ``.``; ``@`` becomes ``_at_`` (``ndcg@10`` -> ``ndcg_at_10``),
  anything else ``_``;
- ``/`` joins the parts: ``[prefix]model/column`` for a report
  (``model_a/ndcg_at_10``, ``model_a/ndcg_at_10_low``, ``model_a/n_groups``),
  ``[prefix]model_vs_baseline/metric_column`` for a comparison
  (``model_b_vs_model_a/ndcg_at_10_diff``, ``..._p_value``, ``..._p_holm``), with one
  ``level.value`` part per segment of ``by=`` in front (``country.FR/model_a/gauc``).
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ..core.inputs.validation import invalid_parameter

__all__ = ["Logged", "metric_dict", "key_part", "table_kind", "metric_values", "param_values", "check_per_group"]

#: The tables a tracker takes (``attrs["table"]`` of the library's results).
TRACKED = ("report", "compare")
#: The index levels that are not segments.
_ROW_LEVELS = ("model", "baseline", "metric")
_BAD_CHARS = re.compile(r"[^A-Za-z0-9_.\-]")
#: The longest key MLflow stores (its MAX_ENTITY_KEY_LENGTH).
MAX_KEY_LENGTH = 250


@dataclass(frozen=True)
class Logged:
    """What one ``log_report`` call wrote: the metrics (key -> value), the params
    (key -> text), the artifact paths inside the run, and the run's id."""

    run_id: str
    metrics: dict[str, float] = field(default_factory=dict)
    params: dict[str, str] = field(default_factory=dict)
    artifacts: list[str] = field(default_factory=list)


def key_part(name: Hashable) -> str:
    """One part of a key: ``@`` -> ``_at_``, any character but ``[A-Za-z0-9_.-]`` -> ``_``.

    Examples
    --------
    >>> key_part("ndcg@10"), key_part("model a/b"), key_part("..")
    ('ndcg_at_10', 'model_a_b', '__')
    """
    text = _BAD_CHARS.sub("_", str(name).replace("@", "_at_"))
    if not text.strip("."):  # "", "." and ".." would be read as paths
        text = "_" * max(len(text), 1)
    return text


def check_prefix(prefix: str, func: str) -> str:
    """``prefix`` as given, checked: text of the accepted characters (``/`` included)."""
    if not isinstance(prefix, str):
        raise invalid_parameter("prefix", func, "a str", prefix)
    bad = sorted(set(re.sub(r"[A-Za-z0-9_.\-/]", "", prefix)))
    if bad or prefix.startswith("/") or "//" in prefix:
        raise ValueError(
            f"The 'prefix' parameter of {func} may hold ASCII letters, digits, '_', '-', '.' and '/' "
            f"(not first, not doubled). Got {prefix!r} instead (bad characters: {bad})."
        )
    return prefix


def table_kind(table: Any, func: str) -> str:
    """``"report"`` or ``"compare"``: what ``attrs["table"]`` says, else a TypeError."""
    if not isinstance(table, pd.DataFrame):
        raise TypeError(
            f"The 'table' parameter of {func} must be the table of pandas_rankeval.report or "
            f"pandas_rankeval.compare. Got {type(table).__name__} instead."
        )
    kind = table.attrs.get("table")
    if kind not in TRACKED:
        got = f"a {kind} table" if kind else "a DataFrame without attrs['table']"
        raise TypeError(
            f"The 'table' parameter of {func} must be the table of pandas_rankeval.report or "
            f"pandas_rankeval.compare (attrs['table'] 'report' or 'compare'). Got {got} instead "
            "(a derived frame loses the attrs: log the table the function returned; a per-group "
            "table goes in per_group=)."
        )
    if not (callable(getattr(table, "to_text", None)) and callable(getattr(table, "footer", None))):
        raise TypeError(
            f"The 'table' parameter of {func} must be the table pandas_rankeval.{kind} returned "
            "(a ResultTable, with to_text() and footer()). Got a plain DataFrame instead."
        )
    if table.empty:
        raise ValueError(f"The table given to {func} has no rows: nothing to log.")
    return str(kind)


def _row_parts(names: list[Hashable | None], values: tuple[Any, ...], kind: str, baseline: Any) -> tuple[list[str], str | None]:
    """The key parts of one row (segments, then the model or the pair) and its metric (compare).
    ``baseline``: the comparison's one baseline (``attrs["baseline"]``) when the index has no
    ``baseline`` level."""
    row = dict(zip(names, values))
    parts = [f"{key_part(n)}.{key_part(v)}" for n, v in row.items() if n not in _ROW_LEVELS]
    model = key_part(row.get("model", "model"))
    if kind == "compare":
        baseline = row.get("baseline", baseline)
        parts.append(model if baseline is None else f"{model}_vs_{key_part(baseline)}")
        return parts, key_part(row["metric"])
    parts.append(model)
    return parts, None


def _number(value: Any) -> float | None:
    """A cell as a float, or None for a cell that is not a number (text, missing)."""
    if isinstance(value, (bool, np.bool_)):
        return float(value)
    try:
        out = float(value)
    except (TypeError, ValueError):
        return None
    return out


def metric_values(table: pd.DataFrame, kind: str, prefix: str, func: str, *, model_in_key: bool = True) -> dict[str, float]:
    """Every numeric cell of ``table`` under its key (the module's key rule).

    ``model_in_key=False`` drops the model part (a table of one model, as the evaluator
    plugin logs it). Two cells that land on one key are an error naming both.
    """
    names = list(table.index.names)
    if kind == "compare" and "metric" not in names:
        raise TypeError(f"The compare table given to {func} has no 'metric' index level (index: {names}).")
    columns = [c for c in table.columns if pd.api.types.is_numeric_dtype(table[c]) or pd.api.types.is_bool_dtype(table[c])]
    out: dict[str, float] = {}
    origin: dict[str, tuple[Any, Any]] = {}
    rows = table.index if isinstance(table.index, pd.MultiIndex) else [(v,) for v in table.index]
    for position, values in enumerate(rows):
        parts, metric = _row_parts(names, tuple(values), kind, table.attrs.get("baseline"))
        if not model_in_key:
            parts = parts[:-1]
        for column in columns:
            value = _number(table[column].iloc[position])
            if value is None:
                continue
            last = key_part(column) if metric is None else f"{metric}_{key_part(column)}"
            key = prefix + "/".join([*parts, last])
            if key in out:
                raise ValueError(
                    f"{func}: two cells of the table map to the metric key {key!r} "
                    f"(row {origin[key][0]!r} column {origin[key][1]!r}, and row {tuple(values)!r} "
                    f"column {column!r}): names that differ only in characters outside "
                    "[A-Za-z0-9_.-] read the same once cut. Rename the models or segments."
                )
            if len(key) > MAX_KEY_LENGTH:
                raise ValueError(f"{func}: the metric key {key!r} is {len(key)} characters long; trackers take {MAX_KEY_LENGTH} at most. Use a shorter prefix or shorter names.")
            out[key] = value
            origin[key] = (tuple(values), column)
    return out


def metric_dict(table: pd.DataFrame, *, prefix: str = "") -> dict[str, float]:
    """The metrics ``log_report`` would log for ``table``: key -> value, nothing logged.

    Parameters
    ----------
    table : DataFrame
        The table :func:`pandas_rankeval.report` or :func:`pandas_rankeval.compare` returned.
    prefix : str, default=""
        Put in front of every key, as given.

    Returns
    -------
    metrics : dict of str to float
        One entry per number of the table, under the key the trackers receive (see the
        "Experiment tracking" guide for the rule).

    Examples
    --------
    >>> import pandas_rankeval as pre
    >>> from pandas_rankeval.mlflow import metric_dict
    >>> df = pre.datasets.make_impressions(n_users=200, seed=1)
    >>> rep = pre.report(
    ...     df,
    ...     group="user_id",
    ...     label="click",
    ...     scores=["model_a"],
    ...     metrics=["ndcg@10"],
    ...     ci=0.9,
    ... )
    >>> sorted(metric_dict(rep, prefix="val/"))
    ['val/model_a/groups_no_relevant', 'val/model_a/n_groups', 'val/model_a/n_rows',
     'val/model_a/ndcg_at_10', 'val/model_a/ndcg_at_10_high',
     'val/model_a/ndcg_at_10_low']
    >>> cmp = pre.compare(
    ...     df,
    ...     group="user_id",
    ...     label="click",
    ...     scores=["model_a", "model_b"],
    ...     metrics=["ndcg@10"],
    ... )
    >>> [k for k in metric_dict(cmp) if k.endswith(("_diff", "_p_holm"))]
    ['model_b_vs_model_a/ndcg_at_10_diff', 'model_b_vs_model_a/ndcg_at_10_p_holm']
    """
    func = "metric_dict"
    kind = table_kind(table, func)
    return metric_values(table, kind, check_prefix(prefix, func), func)


def _flatten(prefix: str, value: Any, out: dict[str, str]) -> None:
    if isinstance(value, Mapping):
        for key, inner in value.items():
            _flatten(f"{prefix}/{key_part(key)}" if prefix else key_part(key), inner, out)
    elif isinstance(value, (list, tuple)):
        out[prefix] = ", ".join(map(str, value))
    else:
        out[prefix] = str(value)


def param_values(table: pd.DataFrame, prefix: str, skip: Iterable[str] = ("coverage", "graded_rows")) -> dict[str, str]:
    """The evaluation's choices from ``table.attrs`` as text: ``attrs["params"]`` per metric
    (``ndcg_at_10/ties``, ``ndcg_at_10/weight``, ``ndcg_at_10/empty``, ...), a dict attr per
    entry (``ci/level``, ``ci/n_boot``, ``test/gauc``), every other attr under its name
    (``seed``, ``n_boot``, ``adjust``, ``table``). Coverage stays in the table and its artifacts."""
    out: dict[str, str] = {}
    skipped = set(skip)
    for name, value in table.attrs.items():
        if name in skipped:
            continue
        flat: dict[str, str] = {}
        _flatten("" if name == "params" else key_part(name), value, flat)
        out.update({prefix + key: text for key, text in flat.items()})
    return out


def check_per_group(per_group: Any, func: str) -> Any:
    """``per_group``: None, or a pandas per-group table (``pandas_rankeval.per_group``),
    returned as given (a ResultTable writes its footer into the Parquet file's metadata)."""
    if per_group is None or per_group is False:
        return None
    if per_group is True:
        raise TypeError(
            f"The 'per_group' parameter of {func} takes the table itself: "
            "per_group=pre.per_group(df, group=..., label=..., scores=[...], metrics=[...]) "
            "(a report does not hold the rows to compute it from)."
        )
    if not isinstance(per_group, pd.DataFrame):
        raise TypeError(
            f"The 'per_group' parameter of {func} must be a pandas DataFrame from "
            f"pandas_rankeval.per_group. Got {type(per_group).__name__} instead "
            "(a Dask or Spark per-group table: .compute() / .toPandas() it first; polars: .to_pandas())."
        )
    if per_group.attrs.get("table") not in (None, "per_group"):
        raise TypeError(
            f"The 'per_group' parameter of {func} must be a per-group table. "
            f"Got a {per_group.attrs['table']} table instead."
        )
    return per_group


def flat_frame(table: pd.DataFrame) -> pd.DataFrame:
    """The table with its index levels as the first columns and text column names
    (``("model_a", "auc")`` -> ``"model_a_auc"``), without attrs: what a tracker's table takes."""
    flat = pd.DataFrame(table)
    flat = flat.reset_index() if any(n is not None for n in flat.index.names) else flat.reset_index(drop=True)
    flat.columns = ["_".join(map(str, c)) if isinstance(c, tuple) else str(c) for c in flat.columns]
    flat.attrs = {}
    return flat


def artifact_dir(base: str, prefix: str, step: int | None) -> str:
    """The artifact folder of one call: ``base``, then the prefix's parts, then ``step_<n>``."""
    parts = [base, *(p for p in prefix.split("/") if p)]
    if step is not None:
        parts.append(f"step_{int(step)}")
    return "/".join(parts)
