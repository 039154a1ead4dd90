"""``df.rankeval`` on polars DataFrames and LazyFrames: the public functions bound to the frame.

Registered through polars' own extension API (``pl.api.register_dataframe_namespace`` and
``register_lazyframe_namespace``). Every method forwards to the function of the same name in
:mod:`pandas_rankeval`, looked up at call time, with the frame as its first argument:
``df.rankeval.gauc(group=..., label=..., score=...)`` is
``pandas_rankeval.gauc(df, group=..., label=..., score=...)``.
"""

from __future__ import annotations

from typing import Any

import polars as pl

from ...accessor import METHODS, _Forward

__all__ = ["PolarsRankevalNamespace", "register"]

NAME = "rankeval"


class PolarsRankevalNamespace:
    """The functions of :mod:`pandas_rankeval` bound to a polars DataFrame or LazyFrame.

    ``df.rankeval.map`` is :func:`pandas_rankeval.average_precision`.

    Examples
    --------
    >>> import polars as pl
    >>> import pandas_rankeval.engines.polars
    >>> df = pl.DataFrame({"u": [1, 1, 2, 2], "y": [1, 0, 0, 1], "s": [0.9, 0.2, 0.4, 0.3]})
    >>> "gauc" in dir(df.rankeval) and "report" in dir(df.lazy().rankeval)
    True
    """

    __slots__ = ("_obj",)

    def __init__(self, obj: Any) -> None:
        self._obj = obj  # never raises: polars builds a namespace on every attribute access

    def __repr__(self) -> str:
        return f"<pandas_rankeval namespace of a polars {type(self._obj).__name__}; use one of: {', '.join(METHODS)}>"

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        raise AttributeError(
            f"{type(self).__name__!r} object has no attribute {name!r}. The metrics are: {', '.join(METHODS)}."
        )


for _method, _target in METHODS.items():
    setattr(PolarsRankevalNamespace, _method, _Forward(_method, _target))
del _method, _target


def register() -> None:
    """Install ``df.rankeval`` on polars DataFrame and LazyFrame (idempotent, no warning)."""
    for cls, reg in ((pl.DataFrame, pl.api.register_dataframe_namespace),
                     (pl.LazyFrame, pl.api.register_lazyframe_namespace)):
        if getattr(cls, NAME, None) is not PolarsRankevalNamespace:
            reg(NAME)(PolarsRankevalNamespace)
