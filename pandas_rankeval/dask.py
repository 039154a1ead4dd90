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

from typing import TYPE_CHECKING

from ._alias import FORWARDED, Forwards
from .accessor import DaskRankevalNamespace, register_dask

__all__ = ["DaskRankevalNamespace", *FORWARDED]

#: Every public function, resolved from the registry when it is asked for (a metric registered
#: after this import too), with the engine's keywords.
_FORWARDS = Forwards(__name__, "dask", {"npartitions": None}, "a Dask DataFrame")

if TYPE_CHECKING:  # the forwarded functions are made from the registry: typed as callables
    from collections.abc import Callable
    from typing import Any

    def __getattr__(name: str) -> Callable[..., Any]: ...

else:
    __getattr__ = _FORWARDS


def __dir__() -> list[str]:
    return sorted({*globals(), *_FORWARDS.names()})


register_dask()
