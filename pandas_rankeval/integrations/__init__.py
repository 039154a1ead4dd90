"""The library's metrics inside model training.

- :mod:`pandas_rankeval.lightgbm`: ``eval_metric(...)``, a LightGBM ``feval`` /
  ``eval_metric``.
- :mod:`pandas_rankeval.xgboost`: ``eval_metric(...)``, an XGBoost ``custom_metric`` /
  ``eval_metric``.
- :mod:`pandas_rankeval.sklearn`: ``make_scorer(...)``, a scorer for ``GridSearchCV``
  and ``cross_validate`` that receives the groups by metadata routing.

And the experiment trackers:

- :mod:`pandas_rankeval.mlflow`: ``log_report(...)`` into an MLflow run, and the
  ``rankeval`` evaluator of ``mlflow.models.evaluate``.
- :mod:`pandas_rankeval.wandb`: ``log_report(...)`` into a Weights & Biases run.

Nothing here is imported by ``import pandas_rankeval``; LightGBM, XGBoost, MLflow
and wandb are imported only when a hook is built or a function runs.
"""
