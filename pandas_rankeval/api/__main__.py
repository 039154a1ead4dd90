"""``python -m pandas_rankeval.api``: rewrite ``api/metrics.pyi``, the metric functions' signatures and
docstrings for type checkers and IDEs, from the registry (after adding or changing a metric)."""

import sys

from pandas_rankeval.core.metrics.registry import METRICS

from .publish import STUB, stub

STUB.write_text(stub())
print(f"wrote {STUB} ({len(METRICS)} metrics)", file=sys.stderr)
