"""``pandas_rankeval.dask`` keeps working: every public function, with Dask's keyword ``npartitions``.

``pandas_rankeval.dask.gauc(ddf, npartitions=8, ...)`` is ``pandas_rankeval.gauc(ddf,
engine_options={"npartitions": 8}, ...)``: the one public function, which takes any frame. The Dask
engine itself is :mod:`pandas_rankeval.engines.dask`. Importing this module registers ``ddf.rank``
and ``ddf.rankeval``.

Examples
--------
>>> import dask.dataframe as dd
>>> import pandas_rankeval as pre
>>> import pandas_rankeval.dask as prd
>>> df = pre.datasets.make_impressions(n_users=200, seed=3)
>>> ddf = dd.from_pandas(df, npartitions=4)
>>> g = prd.gauc(ddf, group="user_id", label="click", score="model_b", npartitions=2)
>>> g == pre.gauc(ddf, group="user_id", label="click", score="model_b", engine_options={"npartitions": 2})
True
"""

from __future__ import annotations

from typing import Any

from ._alias import forward
from .accessor import DaskRankevalNamespace, register_dask
from .engines import frame_kind

__all__ = [
    "DaskRankevalNamespace",
    "auc",
    "average_precision",
    "compare",
    "gauc",
    "hit_rate",
    "map",
    "mrr",
    "ndcg",
    "per_group",
    "precision",
    "recall",
    "report",
]


def _is_dask(frame: Any) -> bool:
    return frame_kind(frame) == "dask"


def _forward(name: str) -> Any:
    return forward(name, __name__, {"npartitions": None}, _is_dask, "a Dask DataFrame")


auc = _forward("auc")
gauc = _forward("gauc")
mrr = _forward("mrr")
ndcg = _forward("ndcg")
average_precision = _forward("average_precision")
map = average_precision
precision = _forward("precision")
recall = _forward("recall")
hit_rate = _forward("hit_rate")
per_group = _forward("per_group")
report = _forward("report")
compare = _forward("compare")

register_dask()
