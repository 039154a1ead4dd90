"""The library's metrics as XGBoost custom metrics (see :func:`eval_metric`).

Needs XGBoost: ``pip install 'pandas_rankeval[xgboost]'``.
"""

from pandas_rankeval.integrations.xgboost import XGBoostMetric, eval_metric

__all__ = ["eval_metric", "XGBoostMetric"]
