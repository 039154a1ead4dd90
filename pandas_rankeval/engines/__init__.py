"""Engines: adapters that get whole groups into partitions and add the summaries up.

:func:`engine_for` picks the adapter of a frame from its type's module (``pandas``, ``polars``,
``dask``, ``pyspark``, ``duckdb``) and imports that adapter only then: evaluating a pandas frame never imports
Dask, Spark or polars. Every adapter follows the protocol of :mod:`pandas_rankeval.engines.base`.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from .base import Engine

__all__ = ["ENGINES", "engine_for", "frame_kind"]

#: Root module of a frame's type -> (adapter module, the frame types it takes, in words).
ENGINES: dict[str, tuple[str, str]] = {
    "pandas": ("pandas_rankeval.engines.pandas", "a pandas DataFrame"),
    "polars": ("pandas_rankeval.engines.polars", "a polars DataFrame or LazyFrame"),
    "dask": ("pandas_rankeval.engines.dask", "a Dask DataFrame"),
    "pyspark": ("pandas_rankeval.engines.spark", "a Spark DataFrame (classic or Connect)"),
    "duckdb": ("pandas_rankeval.engines.duckdb", "a DuckDB relation"),
    "ibis": ("pandas_rankeval.engines.warehouse", "an Ibis table"),
}

#: Class names that are frames (a Series or an Index of any library is not).
_FRAMES = ("DataFrame", "LazyFrame", "DuckDBPyRelation", "Table")

#: Module roots that are another name of an engine's library (Dask 2024-2025 ships its
#: DataFrame from the separate ``dask_expr`` package).
_SAME_AS = {"dask_expr": "dask"}


def _root(cls: type) -> str:
    root = (cls.__module__ or "").split(".", 1)[0]
    return _SAME_AS.get(root, root)


def frame_kind(frame: Any) -> str | None:
    """The key of :data:`ENGINES` for ``frame``'s type (``"pandas"``, ``"polars"``, ``"dask"``,
    ``"pyspark"``), or None; imports nothing.

    The type and its base classes are looked at by module and class name, so a subclass of a
    supported frame (a GeoDataFrame is a pandas DataFrame) has its kind.
    """
    for cls in type(frame).__mro__:
        root = _root(cls)
        if root in ENGINES and cls.__name__ in _FRAMES:
            return root
    return None


def engine_for(frame: Any, func: str) -> Engine:
    """The adapter module of ``frame`` (see :class:`pandas_rankeval.engines.base.Engine`), imported
    now; a ``TypeError`` that names the supported frames for anything else.

    Examples
    --------
    >>> import pandas as pd
    >>> from pandas_rankeval.engines import engine_for
    >>> engine_for(pd.DataFrame({"a": [1]}), "gauc").NAME
    'pandas'
    >>> engine_for([1, 2], "gauc")
    Traceback (most recent call last):
    ...
    TypeError: gauc expects a pandas DataFrame (or a polars DataFrame or LazyFrame, a Dask DataFrame, a Spark DataFrame (classic or Connect), a DuckDB relation, an Ibis table) as its first argument; got list.
    """
    kind = frame_kind(frame)
    if kind is not None:
        # each adapter module is checked against the protocol by mypy (engines/_protocol_check.py)
        return cast("Engine", importlib.import_module(ENGINES[kind][0]))
    kinds = [words for _, words in ENGINES.values()]
    hint = ""
    if type(frame).__name__ == "Series" or _root(type(frame)) in ENGINES:
        hint = " Pass the whole frame and name its columns (group=, label=, score=)."
    raise TypeError(
        f"{func} expects {kinds[0]} (or {', '.join(kinds[1:])}) as its first argument; "
        f"got {type(frame).__name__}.{hint}"
    )
