"""mypy checks every engine module against :class:`~pandas_rankeval.engines.base.Engine` here.

Nothing runs at import (the assignments are for the type checker only): a module that lacks a
primitive, or defines one with another signature, is a mypy error in CI
(checks/test_typing.py, run by .ci/run), not a failure the first time a frame of that kind arrives.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from . import dask, duckdb, pandas, polars, spark, warehouse
    from .base import Engine

    _pandas: Engine = pandas
    _polars: Engine = polars
    _dask: Engine = dask
    _spark: Engine = spark
    _duckdb: Engine = duckdb
    _warehouse: Engine = warehouse
