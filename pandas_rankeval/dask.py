"""``pandas_rankeval.dask`` keeps working: it is :mod:`pandas_rankeval.engines.dask` itself (one module
object, so attributes and monkeypatches are shared)."""

import sys

from pandas_rankeval.engines.dask import __all__  # noqa: F401

sys.modules[__name__] = sys.modules["pandas_rankeval.engines.dask"]
