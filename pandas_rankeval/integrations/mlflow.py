"""A report or compare table into an MLflow run, and the ``rankeval`` evaluator of
``mlflow.models.evaluate``.

``pandas_rankeval.mlflow`` re-exports this module. MLflow is imported only when a function
here runs (or when MLflow loads the evaluator through its ``mlflow.model_evaluator`` entry
point); ``import pandas_rankeval`` never imports it. The key rule is in
:mod:`pandas_rankeval.integrations._tracking`.
"""

from __future__ import annotations

import functools
import inspect
import os
import tempfile
import time
from typing import Any, Literal

import numpy as np
import pandas as pd

from ..core.inputs.validation import check_min_count, check_option, invalid_parameter
from ._tracking import (
    Logged,
    metric_dict,
    artifact_dir,
    check_per_group,
    check_prefix,
    metric_values,
    param_values,
    table_kind,
)
from ._training import missing_extra

__all__ = ["log_report", "metric_dict", "register_evaluator", "RankevalEvaluator", "Logged", "MODEL_TYPE"]

_FUNC = "pandas_rankeval.mlflow.log_report"
_EVAL = "the rankeval evaluator of mlflow.models.evaluate"
#: The model type the evaluator takes without a config (MLflow has no ranking type).
MODEL_TYPE = "ranker"
#: MLflow's limits per log_batch call.
_METRICS_PER_BATCH = 1000
_PARAMS_PER_BATCH = 100


def _mlflow() -> Any:
    try:
        import mlflow
    except ImportError:
        raise missing_extra("mlflow", "mlflow", _FUNC) from None
    return mlflow


def _check_step(step: Any, func: str) -> int | None:
    if step is None:
        return None
    return check_min_count(step, "step", func)


def log_report(
    table: pd.DataFrame,
    *,
    prefix: str = "",
    step: int | None = None,
    run_id: str | None = None,
    per_group: pd.DataFrame | None = None,
    table_format: Literal["json", "csv"] = "json",
    artifact_path: str = "rankeval",
) -> Logged:
    """Log a ``report`` or ``compare`` table into an MLflow run.

    Parameters
    ----------
    table : DataFrame
        The table :func:`pandas_rankeval.report` or :func:`pandas_rankeval.compare` returned
        (its ``attrs`` say which; a frame derived from it has lost them).
    prefix : str, default=""
        Put in front of every metric and param key, as given (``"val/"``, ``"test_"``).
    step : int or None, default=None
        The step of the metrics (MLflow's default, 0, when None). The artifacts of a call with
        a step go in their own folder, ``step_<n>``.
    run_id : str or None, default=None
        The run to log into; None: the active run (``with mlflow.start_run(): ...``).
    per_group : DataFrame or None, default=None
        A table of :func:`pandas_rankeval.per_group`, logged as a Parquet artifact.
    table_format : {"json", "csv"}, default="json"
        The file the table is logged as: JSON keeps the attrs and the footer; CSV has the
        footer as ``#`` comment lines (``pd.read_csv(path, comment="#")``).
    artifact_path : str, default="rankeval"
        The artifact folder; the prefix's parts and ``step_<n>`` are added below it.

    Returns
    -------
    logged : Logged
        The run's id, the metrics and params as logged, and the artifact paths.

    Notes
    -----
    Metrics: every number of the table. A report gives ``{prefix}{model}/{column}``
    (``model_a/ndcg_at_10``, ``model_a/ndcg_at_10_low``, ``model_a/ndcg_at_10_high``,
    ``model_a/n_groups``); a comparison ``{prefix}{model}_vs_{baseline}/{metric}_{column}``
    (``model_b_vs_model_a/ndcg_at_10_diff``, ``..._ci_low``, ``..._p_value``,
    ``..._p_holm``, ``..._significant`` as 1 or 0). Segments of ``by=`` come first, one
    ``level.value`` part each. ``@`` is spelled ``_at_`` (MLflow refuses it), and any
    character but ``[A-Za-z0-9_.-]`` becomes ``_``; two cells that would share a key are an
    error. Params: the choices of each metric (``ndcg_at_10/ties``, ``.../weight``,
    ``.../empty``, ``.../gain``) and of the evaluation (``ci/level``, ``ci/n_boot``,
    ``seed``, ``adjust``, ``alpha``, ``test/<metric>``...). Artifacts, in
    ``artifact_path``: ``report.txt`` (or ``compare.txt``: the printed table and every
    footer line), ``report.json`` (or ``.csv``) and ``per_group.parquet``.

    Nothing is written when a check fails: not a report or compare table, keys that
    collide, no active run, a param the run already holds with another value (MLflow params
    cannot change: log under another ``prefix``), or artifacts already in the folder.

    The keys, without logging anything: :func:`metric_dict`. In a script::

        import mlflow
        from pandas_rankeval.mlflow import log_report

        rep = pre.report(df, group="user_id", label="click", scores=["model_a"],
                         metrics=["ndcg@10"], ci=0.95)
        with mlflow.start_run():
            # val/model_a/ndcg_at_10, val/model_a/ndcg_at_10_low, ...
            log_report(rep, prefix="val/")

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
    ... )
    >>> sorted(metric_dict(rep, prefix="val/"))
    ['val/model_a/groups_no_relevant', 'val/model_a/n_groups', 'val/model_a/n_rows',
     'val/model_a/ndcg_at_10']
    """
    return _log(table, prefix=prefix, step=step, run_id=run_id, per_group=per_group,
                table_format=table_format, artifact_path=artifact_path, func=_FUNC)  # fmt: skip


def _log(
    table: pd.DataFrame,
    *,
    prefix: str,
    step: int | None,
    run_id: str | None,
    per_group: Any,
    table_format: str,
    artifact_path: str,
    func: str,
    model_in_key: bool = True,
    params_under: str = "",
) -> Logged:
    # every check before anything is written
    kind = table_kind(table, func)
    check_prefix(prefix, func)
    step = _check_step(step, func)
    pg = check_per_group(per_group, func)
    check_option(table_format, "table_format", func, ("json", "csv"))
    if not isinstance(artifact_path, str) or not artifact_path.strip("/"):
        raise invalid_parameter("artifact_path", func, "a non-empty folder name", artifact_path)
    metrics = metric_values(table, kind, prefix, func, model_in_key=model_in_key)
    params = param_values(table, prefix + params_under)
    folder = artifact_dir(artifact_path.strip("/"), prefix, step)

    mlflow = _mlflow()
    from mlflow.entities import Metric, Param
    from mlflow.tracking import MlflowClient

    if run_id is None:
        active = mlflow.active_run()
        if active is None:
            raise RuntimeError(
                f"{func} found no active MLflow run: call it inside `with mlflow.start_run():`, "
                "or pass run_id= of an existing run."
            )
        run_id = active.info.run_id
    client = MlflowClient()
    run = client.get_run(run_id)
    _check_params(run.data.params, params, func)
    names = [f"{kind}.txt", f"{kind}.{table_format}"] + (["per_group.parquet"] if pg is not None else [])
    existing = {os.path.basename(f.path) for f in client.list_artifacts(run_id, folder)}
    clash = sorted(existing.intersection(names))
    if clash:
        raise FileExistsError(
            f"{func}: the run already has {clash} in the artifact folder {folder!r}. "
            "Log this table under another prefix=, step= or artifact_path=."
        )

    with tempfile.TemporaryDirectory() as tmp:
        # the files first: a file that cannot be written (no pyarrow for Parquet) logs nothing
        with open(os.path.join(tmp, names[0]), "w", encoding="utf-8") as fh:
            result: Any = table  # a ResultTable (table_kind checked footer() and to_text())
            fh.write(result.to_text(footer="full", width=0) + "\n")
        path = os.path.join(tmp, names[1])
        if table_format == "json":
            table.to_json(path)
        else:
            table.to_csv(path)
        if pg is not None:
            pg.to_parquet(os.path.join(tmp, names[2]))
        stamp = int(time.time() * 1000)
        entries = [Metric(key, value, stamp, step or 0) for key, value in metrics.items()]
        for start in range(0, len(entries), _METRICS_PER_BATCH):
            client.log_batch(run_id, metrics=entries[start : start + _METRICS_PER_BATCH])
        new = [Param(key, value) for key, value in params.items() if key not in run.data.params]
        for start in range(0, len(new), _PARAMS_PER_BATCH):
            client.log_batch(run_id, params=new[start : start + _PARAMS_PER_BATCH])
        client.log_artifacts(run_id, tmp, folder)
    return Logged(run_id=run_id, metrics=metrics, params=params, artifacts=[f"{folder}/{n}" for n in names])


def _check_params(existing: dict[str, str], params: dict[str, str], func: str) -> None:
    changed = {k: (existing[k], v) for k, v in params.items() if k in existing and existing[k] != v}
    if changed:
        shown = ", ".join(f"{k!r}: {old!r} -> {new!r}" for k, (old, new) in list(changed.items())[:5])
        raise ValueError(
            f"{func}: the run already holds {len(changed)} of these params with other values "
            f"({shown}); MLflow params cannot change. Log this table under another prefix=."
        )


# --------------------------------------------------------------------- the evaluator plugin

#: evaluator_config keys the evaluator reads itself; every other key goes to report() (and, with a
#: baseline, to compare()).
_OWN_KEYS = ("group", "label", "metrics", "per_group", "features", "score_name", "prefix", "table_format", "baseline",
             "baseline_name")
#: Where the params of the comparison go, below the prefix: the report's own params (its ``table``,
#: its ``ci``) keep their keys, and MLflow params cannot change.
_COMPARE_PARAMS = "compare/"


def _keywords(func: Any) -> set[str]:
    skip = {"df", "group", "label", "scores", "metrics", "baseline"}
    return {n for n in inspect.signature(func).parameters if n not in skip}


def _report_keywords() -> set[str]:
    from pandas_rankeval import report

    return _keywords(report)


def _compare_keywords() -> set[str]:
    from pandas_rankeval import compare

    return _keywords(compare)


def _scores(model: Any, frame: pd.DataFrame, model_input: pd.DataFrame, predictions: str | None) -> np.ndarray:
    """One score per row from the model's output (an array, a Series or a frame)."""
    out = model.predict(model_input)
    if isinstance(out, pd.DataFrame):
        if predictions is not None and predictions in out.columns:
            out = out[predictions]
        elif out.shape[1] == 1:
            out = out.iloc[:, 0]
        else:
            raise ValueError(
                f"{_EVAL}: the model returned {out.shape[1]} columns ({list(out.columns)}); "
                "name the score column with mlflow.models.evaluate(..., predictions='<column>')."
            )
    values = np.asarray(out)
    if values.ndim == 2 and values.shape[1] == 1:
        values = values[:, 0]
    if values.ndim != 1 or len(values) != len(frame):
        raise ValueError(
            f"{_EVAL}: the model must return one score per row: {len(frame)} rows in, "
            f"an output of shape {values.shape} out."
        )
    return values


def _config(evaluator_config: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    config = dict(evaluator_config or {})
    if "group" not in config:
        raise ValueError(
            f"{_EVAL} needs the query/user column: evaluator_config={{'group': '<column>', "
            "'label': '<column>', 'metrics': [...]}}."
        )
    own = {k: config.pop(k) for k in _OWN_KEYS if k in config}
    report_kw, compare_kw = _report_keywords(), _compare_keywords()
    unknown = sorted(set(config) - report_kw - compare_kw - {"col_mapping"})
    if unknown:
        raise ValueError(
            f"{_EVAL}: unknown evaluator_config keys {unknown}. It takes {sorted(_OWN_KEYS)} "
            f"and the keywords of pandas_rankeval.report ({sorted(report_kw)}), and with a 'baseline' "
            f"those of pandas_rankeval.compare ({sorted(compare_kw - report_kw)})."
        )
    if own.get("baseline") is None:
        only = sorted(set(config) - report_kw - {"col_mapping"})
        if only or "baseline_name" in own:
            raise ValueError(
                f"{_EVAL}: evaluator_config keys {sorted([*only, *(['baseline_name'] if 'baseline_name' in own else [])])} "
                "apply to a comparison: add evaluator_config['baseline'] (a column of the data with the "
                "baseline's scores, a model URI, or a model)."
            )
    config.pop("col_mapping", None)
    return own, config


def _baseline_column(frame: pd.DataFrame, own: dict[str, Any]) -> str | None:
    """evaluator_config['baseline'] when it names a column of the data (the baseline's scores)."""
    base = own.get("baseline")
    return base if isinstance(base, str) and base in frame.columns else None


def _evaluation_frame(dataset: Any, own: dict[str, Any], model: Any, predictions: str | None) -> tuple[pd.DataFrame, str, str, Any]:
    """The rows, the label column and the score column of one evaluation, and the model's input
    (None without a model)."""
    frame = dataset.features_data
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"{_EVAL} needs data= as a pandas DataFrame (the group column is read from it). Got {type(frame).__name__}.")
    groups = own["group"] if isinstance(own["group"], (list, tuple)) else [own["group"]]
    missing = [g for g in groups if g not in frame.columns]
    if missing:
        raise ValueError(
            f"{_EVAL}: the group column(s) {missing} are not in the data's columns {list(frame.columns)} "
            "(feature_names= of mlflow.models.evaluate keeps only the columns it names)."
        )
    label = own.get("label", dataset.targets_name)
    if label is None:
        raise ValueError(f"{_EVAL} needs the label column: evaluator_config={{'label': ...}} or targets=.")
    columns: dict[str, Any] = {}
    if label not in frame.columns:
        if label != dataset.targets_name:
            raise ValueError(f"{_EVAL}: the label column {label!r} is neither in the data nor targets= ({dataset.targets_name!r}).")
        columns[label] = dataset.labels_data
    model_input = None
    if model is None:
        if dataset.predictions_data is None:
            raise ValueError(f"{_EVAL} needs scores: a model, or predictions='<column>' with model=None.")
        scores = np.asarray(dataset.predictions_data)
        name = own.get("score_name", dataset.predictions_name or "prediction")
    else:
        features = own.get("features")
        # neither the group, the label nor the baseline's scores reach the model
        drop = [c for c in [*groups, label, _baseline_column(frame, own)] if c is not None and c in frame.columns]
        model_input = frame[list(features)] if features is not None else frame.drop(columns=drop)
        scores = _scores(model, frame, model_input, predictions)
        name = own.get("score_name", predictions or "prediction")
    if name in frame.columns or name in columns:
        raise ValueError(f"{_EVAL}: the score name {name!r} is already a column of the data; set evaluator_config['score_name'].")
    columns[name] = scores
    return frame.assign(**columns), str(label), str(name), model_input


def _with_baseline(data: pd.DataFrame, own: dict[str, Any], score: str, model_input: Any,
                   predictions: str | None) -> tuple[pd.DataFrame, str]:
    """The data with the baseline's scores, and their column: evaluator_config['baseline'] is a
    column of the data, a model URI (``runs:/...``, ``models:/...``: loaded with
    ``mlflow.pyfunc.load_model``) or a model (anything with ``predict``, or a function of the
    model's input), scored on the input the evaluated model gets."""
    base = own["baseline"]
    column = base if isinstance(base, str) and base in data.columns and base != score else None
    if column is not None:
        if "baseline_name" in own:
            raise ValueError(f"{_EVAL}: evaluator_config['baseline'] names the column {column!r}, whose name it keeps; "
                             "'baseline_name' names a baseline model's scores.")
        return data, column
    if isinstance(base, str):
        if ":/" not in base:
            raise ValueError(
                f"{_EVAL}: evaluator_config['baseline'] is {base!r}, neither a column of the data "
                f"({list(data.columns)}) nor a model URI such as 'runs:/<run_id>/model' or 'models:/<name>/<version>'."
            )
        base = _mlflow().pyfunc.load_model(base)
    elif not (hasattr(base, "predict") or callable(base)):
        raise TypeError(
            f"{_EVAL}: evaluator_config['baseline'] must be a column of the data, a model URI or a model "
            f"(with predict, or a function of the model's input). Got {type(base).__name__}."
        )
    if model_input is None:
        raise ValueError(
            f"{_EVAL}: a baseline model needs the model's input, which predictions= (no model) does not "
            "give: put the baseline's scores in a column of the data and name it in evaluator_config['baseline']."
        )
    name = str(own.get("baseline_name", "baseline"))
    if name in data.columns:
        raise ValueError(f"{_EVAL}: the baseline name {name!r} is already a column of the data; set evaluator_config['baseline_name'].")
    model = base if hasattr(base, "predict") else _Predict(base)
    return data.assign(**{name: _scores(model, data, model_input, predictions)}), name


class _Predict:
    """A function of the model's input, as a model (``predict``)."""

    def __init__(self, fn: Any) -> None:
        self.fn = fn

    def predict(self, model_input: Any) -> Any:
        return self.fn(model_input)


def _evaluate(*, dataset: Any, run_id: str, evaluator_config: Any, model: Any = None, predictions: str | None = None) -> Any:
    """The work of ``RankevalEvaluator.evaluate``: report (and per_group), and with a baseline the
    comparison, logged, returned."""
    from mlflow.models.evaluation import EvaluationResult
    from mlflow.models.evaluation.artifacts import JsonEvaluationArtifact, ParquetEvaluationArtifact, TextEvaluationArtifact

    import pandas_rankeval as pre

    own, options = _config(evaluator_config)
    data, label, score, model_input = _evaluation_frame(dataset, own, model, predictions)
    scores = [score]
    if own.get("baseline") is not None:
        data, base = _with_baseline(data, own, score, model_input, predictions)
        scores = [score, base]
    metrics = own.get("metrics", ("auc", "gauc", "mrr", "ndcg@10"))
    report_kw = _report_keywords()
    table = pre.report(data, group=own["group"], label=label, scores=[score], metrics=metrics,
                       **{k: v for k, v in options.items() if k in report_kw})
    cmp = None
    if len(scores) == 2:
        compare_kw = _compare_keywords()
        cmp = pre.compare(data, group=own["group"], label=label, scores=scores[::-1], baseline=scores[1],
                          metrics=metrics, **{k: v for k, v in options.items() if k in compare_kw})
    pg = None
    if own.get("per_group"):
        accepted = set(inspect.signature(pre.per_group).parameters)
        shared = {k: v for k, v in options.items() if k in accepted}
        pg = pre.per_group(data, group=own["group"], label=label, scores=scores, metrics=metrics, **shared)
    prefix, table_format = own.get("prefix", ""), own.get("table_format", "json")
    logged = _log(table, prefix=prefix, step=None, run_id=run_id, per_group=pg, table_format=table_format,
                  artifact_path="rankeval", func=_EVAL, model_in_key=False)
    found = [logged]
    if cmp is not None:  # the keys of log_report(compare): <model>_vs_<baseline>/<metric>_<column>
        found.append(_log(cmp, prefix=prefix, step=None, run_id=run_id, per_group=None, table_format=table_format,
                          artifact_path="rankeval", func=_EVAL, params_under=_COMPARE_PARAMS))
    from mlflow.tracking import MlflowClient

    root = MlflowClient().get_run(run_id).info.artifact_uri.rstrip("/")
    kinds = {".txt": TextEvaluationArtifact, ".json": JsonEvaluationArtifact, ".parquet": ParquetEvaluationArtifact}
    artifacts, metric_values = {}, {}
    for one in found:
        metric_values.update(one.metrics)
        for path in one.artifacts:
            stem, ext = os.path.splitext(os.path.basename(path))
            if ext in kinds:
                artifacts[f"rankeval_{stem}" + ("_text" if ext == ".txt" else "")] = kinds[ext](uri=f"{root}/{path}")
    return EvaluationResult(metrics=metric_values, artifacts=artifacts, run_id=run_id)


@functools.cache
def _evaluator_class() -> Any:
    """The evaluator, a subclass of MLflow's ``ModelEvaluator``, built when first asked for
    (MLflow is imported then, not when this module is)."""
    from mlflow.models.evaluation.base import ModelEvaluator

    class RankevalEvaluator(ModelEvaluator):  # type: ignore[misc, valid-type]
        """Ranking metrics within groups for ``mlflow.models.evaluate(..., evaluators=["rankeval"])``.

        ``evaluator_config`` takes ``group`` (required), ``label`` (default: ``targets=``),
        ``metrics``, ``per_group`` (True: the per-group table as a Parquet artifact),
        ``features`` (the model's input columns; default: every column but the group and the
        label), ``score_name``, ``prefix``, ``table_format``, and any keyword of
        :func:`pandas_rankeval.report` (``by``, ``weight``, ``ci``, ``n_boot``, ``seed``,
        ``ties``, ``empty``...). The metrics are logged without the model part of the key
        (``ndcg_at_10``, ``ndcg_at_10_low``, ``n_groups``): one evaluation is one model.

        ``baseline`` (MLflow 3 has no ``baseline_model`` argument) adds the comparison of
        :func:`pandas_rankeval.compare` against it: a column of the data holding the baseline's
        scores (not given to the model), a model URI (``runs:/...``, ``models:/...``) or a model
        (with ``predict``, or a function of the model's input), scored on the evaluated model's
        input and named ``baseline_name`` (default ``"baseline"``). Its table is logged as
        :func:`log_report` logs a comparison (``prediction_vs_baseline/ndcg_at_10_diff``,
        ``..._ci_low``, ``..._p_value``, ``..._p_holm``, ``..._significant``; its params under
        ``compare/``; ``compare.txt`` and ``compare.json``), and the keywords of
        :func:`pandas_rankeval.compare` (``adjust``, ``alpha``, ``method``...) are taken too.
        """

        name = "rankeval"

        @classmethod
        def can_evaluate(cls, *, model_type: Any, evaluator_config: Any, **kwargs: Any) -> bool:
            # mlflow.models.evaluate(evaluators=None) asks every registered evaluator: take
            # model_type="ranker", or any model type whose config names the group column
            # (a classifier's evaluation without one is left to MLflow's own evaluators)
            return model_type == MODEL_TYPE or (isinstance(evaluator_config, dict) and "group" in evaluator_config)

        def evaluate(
            self,
            *,
            model_type: Any,
            dataset: Any,
            run_id: str,
            evaluator_config: Any,
            model: Any = None,
            extra_metrics: Any = None,
            custom_artifacts: Any = None,
            predictions: Any = None,
            **kwargs: Any,
        ) -> Any:
            if extra_metrics or custom_artifacts:
                raise ValueError(f"{_EVAL} takes no extra_metrics or custom_artifacts: name the metrics in evaluator_config['metrics'].")
            return _evaluate(dataset=dataset, run_id=run_id, evaluator_config=evaluator_config, model=model, predictions=predictions)

    RankevalEvaluator.__module__ = __name__
    RankevalEvaluator.__qualname__ = "RankevalEvaluator"
    return RankevalEvaluator


def register_evaluator() -> bool:
    """Register the ``rankeval`` evaluator with MLflow by hand.

    ``pip install pandas_rankeval`` declares it under MLflow's ``mlflow.model_evaluator``
    entry point, which MLflow reads when it is imported: nothing to do then. Where entry
    points are not installed (the package on ``PYTHONPATH``, an editable install made before
    this version), call this once before ``mlflow.models.evaluate(..., evaluators="rankeval")``.

    Returns
    -------
    registered : bool
        True if this call registered it, False if MLflow already had it.
    """
    _mlflow()
    from mlflow.models.evaluation.evaluator_registry import _model_evaluation_registry

    cls = _evaluator_class()
    if _model_evaluation_registry._registry.get(cls.name) is cls:
        return False
    _model_evaluation_registry.register(cls.name, cls)
    return True


def __getattr__(name: str) -> Any:
    if name == "RankevalEvaluator":
        _mlflow()
        return _evaluator_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
