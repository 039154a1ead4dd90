"""Report and compare tables into Weights & Biases runs (:func:`log_report`).

Needs wandb: ``pip install 'pandas_rankeval[wandb]'``. wandb is imported when
:func:`log_report` runs, not by ``import pandas_rankeval.wandb``.
"""

from pandas_rankeval.integrations.wandb import TABLE_ROW_LIMIT, log_report, metric_dict

__all__ = ["log_report", "metric_dict", "TABLE_ROW_LIMIT"]
