"""Report and compare tables into MLflow runs (:func:`log_report`), and the ``rankeval``
evaluator of ``mlflow.models.evaluate`` (:class:`RankevalEvaluator`).

Needs MLflow: ``pip install 'pandas_rankeval[mlflow]'``. MLflow is imported when a function
runs or the evaluator is looked up, not by ``import pandas_rankeval.mlflow``.
"""

from typing import Any

from pandas_rankeval.integrations.mlflow import MODEL_TYPE, Logged, log_report, metric_dict, register_evaluator

__all__ = ["log_report", "metric_dict", "register_evaluator", "RankevalEvaluator", "Logged", "MODEL_TYPE"]


def __getattr__(name: str) -> Any:
    if name == "RankevalEvaluator":  # built on first use: it subclasses MLflow's ModelEvaluator
        from pandas_rankeval.integrations import mlflow as _impl

        return _impl.RankevalEvaluator
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
