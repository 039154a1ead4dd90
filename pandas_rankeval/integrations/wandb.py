"""A report or compare table into a Weights & Biases run.

``pandas_rankeval.wandb`` re-exports this module. wandb is imported only when
:func:`log_report` runs; ``import pandas_rankeval`` never imports it. The key rule is the
one of the MLflow integration (:mod:`pandas_rankeval.integrations._tracking`).
"""

from __future__ import annotations

import os
import tempfile
from typing import Any

import pandas as pd

from ..core.inputs.validation import check_min_count, invalid_parameter
from ._tracking import (
    Logged,
    check_per_group,
    check_prefix,
    flat_frame,
    key_part,
    metric_dict,
    metric_values,
    param_values,
    table_kind,
)
from ._training import missing_extra

__all__ = ["log_report", "metric_dict", "TABLE_ROW_LIMIT"]

_FUNC = "pandas_rankeval.wandb.log_report"
#: The most rows a ``wandb.Table`` holds; a larger per-group table goes in as a Parquet artifact.
TABLE_ROW_LIMIT = 200_000


def _wandb() -> Any:
    try:
        import wandb
    except ImportError:
        raise missing_extra("wandb", "wandb", _FUNC) from None
    return wandb


def log_report(
    table: pd.DataFrame,
    run: Any = None,
    *,
    prefix: str = "",
    step: int | None = None,
    per_group: pd.DataFrame | None = None,
    per_group_artifact: bool | None = None,
    config: bool = True,
) -> Logged:
    """Log a ``report`` or ``compare`` table into a Weights & Biases run.

    Parameters
    ----------
    table : DataFrame
        The table :func:`pandas_rankeval.report` or :func:`pandas_rankeval.compare` returned.
    run : wandb Run or None, default=None
        The run to log into; None: the current run (``wandb.run``, set by ``wandb.init()``).
    prefix : str, default=""
        Put in front of every key, as given (``"val/"``).
    step : int or None, default=None
        None: the numbers go into the run summary. An int: they are logged at that step with
        ``run.log`` (which also sets the summary to the latest values).
    per_group : DataFrame or None, default=None
        A table of :func:`pandas_rankeval.per_group`, logged as a ``wandb.Table`` under
        ``{prefix}per_group``, or as a Parquet artifact (see ``per_group_artifact``).
    per_group_artifact : bool or None, default=None
        True: the per-group table goes in as an artifact (type ``"per_group"``, file
        ``per_group.parquet``) rather than a table; None: when it has more rows than a
        ``wandb.Table`` holds (:data:`TABLE_ROW_LIMIT`, 200,000).
    config : bool, default=True
        Put the evaluation's choices in the run's config (the params of the MLflow
        integration: ``ndcg_at_10/ties``, ``ci/level``, ``seed``...).

    Returns
    -------
    logged : Logged
        The run's id, the numbers and choices as logged, and what else was logged
        (``"table:<key>"``, ``"artifact:<name>"``).

    Notes
    -----
    The keys are those of :func:`pandas_rankeval.mlflow.log_report`
    (``model_a/ndcg_at_10``, ``model_a/ndcg_at_10_low``,
    ``model_b_vs_model_a/ndcg_at_10_p_holm``): see the "Experiment tracking" guide. The
    table itself is logged as a ``wandb.Table`` under ``{prefix}report`` (or
    ``{prefix}compare``), its index levels as the first columns, and its footer (every line)
    as the summary's ``{prefix}report_footer``.

    In a script::

        import wandb
        from pandas_rankeval.wandb import log_report

        with wandb.init(project="ranking") as run:
            log_report(rep, run, prefix="val/", per_group=pre.per_group(df, ...))

    Examples
    --------
    The keys, without logging anything (:func:`metric_dict`):

    >>> import pandas_rankeval as pre
    >>> from pandas_rankeval.wandb import metric_dict
    >>> df = pre.datasets.make_impressions(n_users=200, seed=1)
    >>> rep = pre.report(
    ...     df, group="user_id", label="click", scores=["model_a"], metrics=["mrr"]
    ... )
    >>> sorted(metric_dict(rep))
    ['model_a/groups_no_relevant', 'model_a/mrr', 'model_a/n_groups',
     'model_a/n_rows']
    """
    kind = table_kind(table, _FUNC)
    check_prefix(prefix, _FUNC)
    if step is not None:
        check_min_count(step, "step", _FUNC)
    pg = check_per_group(per_group, _FUNC)
    if per_group_artifact not in (None, True, False):
        raise invalid_parameter("per_group_artifact", _FUNC, "True, False or None", per_group_artifact)
    metrics = metric_values(table, kind, prefix, _FUNC)
    params = param_values(table, prefix) if config else {}
    as_artifact = pg is not None and (per_group_artifact or (per_group_artifact is None and len(pg) > TABLE_ROW_LIMIT))
    if pg is not None and not as_artifact and len(pg) > TABLE_ROW_LIMIT:
        raise ValueError(
            f"{_FUNC}: the per-group table has {len(pg):,} rows, more than a wandb.Table holds "
            f"({TABLE_ROW_LIMIT:,}); leave per_group_artifact=None (or True) to log it as a Parquet artifact."
        )

    wandb = _wandb()
    if run is None:
        run = wandb.run
        if run is None:
            raise RuntimeError(f"{_FUNC} found no W&B run: call wandb.init() first, or pass run=.")
    table_key = f"{prefix}{kind}"
    _check_run(run, metrics, params, (table_key, f"{prefix}per_group"))
    logs: dict[str, Any] = {table_key: wandb.Table(dataframe=flat_frame(table))}
    done = [f"table:{table_key}"]
    if pg is not None and not as_artifact:
        logs[f"{prefix}per_group"] = wandb.Table(dataframe=flat_frame(pg))
        done.append(f"table:{prefix}per_group")
    artifact = None
    if as_artifact and pg is not None:  # built first: a file that cannot be written logs nothing
        name = key_part(f"{prefix}per_group".replace("/", "-"))
        artifact = wandb.Artifact(name, type="per_group")
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "per_group.parquet")
            pg.to_parquet(path)
            artifact.add_file(path, name="per_group.parquet")  # copied to W&B's staging folder
        done.append(f"artifact:{name}")
    if params:
        run.config.update(params)
    if step is None:
        run.summary.update(metrics)
        run.log(logs)
    else:
        run.log({**metrics, **logs}, step=step)
    result: Any = table  # a ResultTable (table_kind checked footer() and to_text())
    run.summary[f"{table_key}_footer"] = "\n".join(result.footer("full"))
    if artifact is not None:
        run.log_artifact(artifact)
    return Logged(run_id=str(run.id), metrics=metrics, params=params, artifacts=done)


def _check_run(run: Any, metrics: dict[str, float], params: dict[str, str], tables: tuple[str, ...]) -> None:
    """Refuse, before anything is logged, a config entry the run holds with another value
    (W&B refuses to change one) and a metric key under a table's key (W&B nests the table's
    fields there)."""
    changed = {k: (run.config[k], v) for k, v in params.items() if k in run.config and str(run.config[k]) != v}
    if changed:
        shown = ", ".join(f"{k!r}: {old!r} -> {new!r}" for k, (old, new) in list(changed.items())[:5])
        raise ValueError(
            f"{_FUNC}: the run's config already holds {len(changed)} of these entries with other values "
            f"({shown}). Log this table under another prefix=, or with config=False."
        )
    nested = sorted(k for k in metrics if any(k.startswith(t + "/") for t in tables))
    if nested:
        raise ValueError(
            f"{_FUNC}: the metric keys {nested[:3]} fall under the key of a logged table "
            f"({', '.join(map(repr, tables))}): rename the model or use a prefix=."
        )
