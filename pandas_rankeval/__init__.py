"""pandas_rankeval: ranking metrics for pandas, exact under ties and fast at scale.

Importing the package adds a metrics namespace to ``df.rank`` (``df.rank(...)``
itself stays pandas' own ``DataFrame.rank``) and the alias ``df.rankeval``::

    import pandas_rankeval
    df.rank.gauc(group="user_id", label="click", score="model_a")
    df.rank.report(group="user_id", label="click", scores=["model_a", "model_b"],
                   metrics=["auc", "gauc", "mrr", "ndcg@10"])

The same functions take the frame first: ``pandas_rankeval.gauc(df, ...)``.
"""

from . import accessor as _accessor
from . import datasets
from pandas_rankeval.core.registry import valid_names as metric_names
from pandas_rankeval.core.result import Coverage, CoverageWarning, MetricResult
from pandas_rankeval.core.validation import ColumnNotFoundError
from .api.compare import compare
from .api.metrics import auc, average_precision, gauc, hit_rate, mrr, ndcg, precision, recall
from .api.per_group import per_group
from .api.report import report
from .counterfactual import launch_agreement, propensities

#: ``map`` is the usual name of mean average precision.
map = average_precision  # noqa: A001 - deliberate: pandas_rankeval.map(df, ...)
mean_average_precision = average_precision
map_ = average_precision

__version__ = "0.1.0"

__all__ = [
    "auc",
    "gauc",
    "mrr",
    "ndcg",
    "average_precision",
    "map",
    "mean_average_precision",
    "map_",
    "precision",
    "recall",
    "hit_rate",
    "per_group",
    "report",
    "compare",
    "propensities",
    "launch_agreement",

    "datasets",
    "metric_names",
    "MetricResult",
    "Coverage",
    "CoverageWarning",
    "ColumnNotFoundError",
]

_accessor.register()

import sys as _sys

if "dask.dataframe" in _sys.modules:  # Dask is loaded: its DataFrames get ddf.rank / ddf.rankeval too
    _accessor.register_dask()
if "polars" in _sys.modules:  # polars is loaded: its DataFrames and LazyFrames get df.rankeval
    _accessor.register_polars()
