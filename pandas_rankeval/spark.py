"""``pandas_rankeval.spark`` keeps working: it is :mod:`pandas_rankeval.engines.spark` itself (one module
object, so attributes and monkeypatches are shared)."""

import sys

from pandas_rankeval.engines.spark import __all__  # noqa: F401

sys.modules[__name__] = sys.modules["pandas_rankeval.engines.spark"]
