"""``pandas_rankeval.spark`` keeps working: every public function, with Spark's keywords
``rows_per_bucket`` and ``buckets``, and :func:`local_session`.

``pandas_rankeval.spark.gauc(sdf, buckets=8, ...)`` is ``pandas_rankeval.gauc(sdf,
engine_options={"buckets": 8}, ...)``: the one public function, which takes any frame. The Spark
engine itself is :mod:`pandas_rankeval.engines.spark`.

Examples
--------
>>> import pandas_rankeval as pre
>>> import pandas_rankeval.spark as prs
>>> spark = prs.local_session()
>>> df = pre.datasets.make_impressions(n_users=100, seed=3)
>>> sdf = spark.createDataFrame(df)
>>> g = prs.gauc(
...     sdf, group="user_id", label="click", score="model_b", buckets=2
... )
>>> abs(
...     g - pre.gauc(df, group="user_id", label="click", score="model_b")
... ) < 1e-12
True
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._alias import FORWARDED, Forwards
from .engines.spark import ROWS_PER_BUCKET, local_session
from .engines.spark.session import LAST_CALL, functions_of  # noqa: F401 - read by benchmarks and tests

__all__ = ["local_session", *FORWARDED]

#: Every public function, resolved from the registry when it is asked for (a metric registered
#: after this import too), with the engine's keywords.
_FORWARDS = Forwards(__name__, "pyspark", {"rows_per_bucket": ROWS_PER_BUCKET, "buckets": None}, "a pyspark.sql.DataFrame")

if TYPE_CHECKING:  # the forwarded functions are made from the registry: typed as callables
    from collections.abc import Callable
    from typing import Any

    def __getattr__(name: str) -> Callable[..., Any]: ...

else:
    __getattr__ = _FORWARDS


def __dir__() -> list[str]:
    return sorted({*globals(), *_FORWARDS.names()})
