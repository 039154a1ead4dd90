"""pandas_rankeval: ranking metrics for pandas, exact under ties and fast at scale.

Importing the package adds a metrics namespace to ``df.rank`` (``df.rank(...)``
itself stays pandas' own ``DataFrame.rank``) and the alias ``df.rankeval``::

    import pandas_rankeval
    df.rank.gauc(group="user_id", label="click", score="model_a")
    df.rank.report(group="user_id", label="click", scores=["model_a", "model_b"],
                   metrics=["auc", "gauc", "mrr", "ndcg@10"])

The same functions take the frame first: ``pandas_rankeval.gauc(df, ...)``.
"""

from typing import TYPE_CHECKING, Any

from . import accessor as _accessor
from . import datasets
from pandas_rankeval.core.metrics.registry import TABLE_FUNCTIONS as _TABLE_FUNCTIONS
from pandas_rankeval.core.metrics.registry import metric_functions as _metric_functions
from pandas_rankeval.core.metrics.registry import valid_names as metric_names
from pandas_rankeval.core.evaluation.result import Coverage, CoverageWarning, MetricResult
from pandas_rankeval.core.inputs.validation import ColumnNotFoundError, InvalidParameterError
from .api.compare import compare as compare
from .api.evaluator import Evaluator as Evaluator
from .api import metrics as _api_metrics
from .api.metrics import *  # noqa: F403 - every metric's function, written from the registry
from .api.per_group import per_group as per_group
from .api.report import report as report
from .api.xauc import xauc_interval as xauc_interval
from .calibration import calibration_by as calibration_by
from .counterfactual import launch_agreement as launch_agreement, propensities as propensities
from .trec import read_trec as read_trec


__version__ = "0.1.0"

from ._keywords import keyword_hints as _keyword_hints

#: Every public function names the parameter that was meant on a misspelled keyword
#: (``report(score=...)``: did you mean scores=?); one wrapper per function (``map`` is
#: still ``average_precision``).
_wrapped: dict[int, object] = {}
for _name in dict.fromkeys([*_metric_functions(), *_TABLE_FUNCTIONS, "map", "propensities", "launch_agreement",
                            "calibration_by", "xauc_interval"]):
    _function = globals()[_name]
    if id(_function) not in _wrapped:
        _wrapped[id(_function)] = _keyword_hints(_function)
    globals()[_name] = _wrapped[id(_function)]
del _name, _function, _wrapped

__all__ = [
    *_metric_functions(),
    *_TABLE_FUNCTIONS,
    "propensities",
    "launch_agreement",
    "read_trec",
    "calibration_by",
    "xauc_interval",
    "datasets",
    "metric_names",
    "MetricResult",
    "Coverage",
    "CoverageWarning",
    "ColumnNotFoundError",
    "InvalidParameterError",
    "Evaluator",
]

_accessor.register()

if not TYPE_CHECKING:  # hidden from type checkers: a misspelt name stays an error there

    def __getattr__(name: str) -> Any:
        """A metric registered after import (a test's throwaway metric): its public function."""
        if name in _metric_functions():
            return getattr(_api_metrics, name)
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


from . import _post_import

# Dask's DataFrames get ddf.rank / ddf.rankeval, polars' DataFrames and LazyFrames df.rankeval:
# now when the library is loaded, else right after it is first imported (never imported here)
_post_import.when_imported("dask.dataframe", _accessor.register_dask)
_post_import.when_imported("polars", _accessor.register_polars)
