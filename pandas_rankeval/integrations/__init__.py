"""The library's metrics inside model training.

- :mod:`pandas_rankeval.lightgbm`: ``eval_metric(...)``, a LightGBM ``feval`` /
  ``eval_metric``.
- :mod:`pandas_rankeval.xgboost`: ``eval_metric(...)``, an XGBoost ``custom_metric`` /
  ``eval_metric``.
- :mod:`pandas_rankeval.sklearn`: ``make_scorer(...)``, a scorer for ``GridSearchCV``
  and ``cross_validate`` that receives the groups by metadata routing.

Nothing here is imported by ``import pandas_rankeval``; LightGBM and XGBoost are
imported only when a hook is built.
"""
