"""``pandas_rankeval.plotting`` keeps working: it is :mod:`pandas_rankeval.display.plotting` itself (one module
object, so attributes and monkeypatches are shared)."""

import sys

from pandas_rankeval.display.plotting import __all__  # noqa: F401

sys.modules[__name__] = sys.modules["pandas_rankeval.display.plotting"]
