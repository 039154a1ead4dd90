"""The library's metrics as LightGBM evaluation functions (see :func:`eval_metric`).

Needs LightGBM: ``pip install 'pandas_rankeval[lightgbm]'``.
"""

from pandas_rankeval.integrations.lightgbm import LightGBMMetric, eval_metric

__all__ = ["eval_metric", "LightGBMMetric"]
