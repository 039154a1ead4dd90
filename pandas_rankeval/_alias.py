"""The old engine modules' functions, kept: ``pandas_rankeval.dask.gauc(ddf, npartitions=...)`` and
``pandas_rankeval.spark.gauc(sdf, rows_per_bucket=..., buckets=...)`` forward to the one public
function (:func:`pandas_rankeval.gauc`), with their engine keywords passed as ``engine_options``.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from .core.metrics.registry import metric_functions, namespace_methods
from .engines import frame_kind

__all__ = ["FORWARDED", "forward", "forward_all"]

#: The public functions each old module forwards (from the registry), with the metric names that
#: differ from their function (``map``) and the function's other public names
#: (``mean_average_precision``, ``map_``): every metric name of :mod:`pandas_rankeval`.
FORWARDED: dict[str, str] = {
    **namespace_methods(), **{name: m.function for name, m in metric_functions().items()}
}


def forward_all(
    module: str, kind: str, keywords: dict[str, Any], frame_words: str
) -> dict[str, Callable[..., Any]]:
    """:func:`forward` of every name of :data:`FORWARDED`, by name, for the frames of ``kind``.

    ``kind`` is what :func:`pandas_rankeval.engines.frame_kind` says of the engine's frames
    (``"dask"``, ``"pyspark"``); any other frame raises a ``TypeError`` naming ``frame_words``.
    """

    def is_frame(frame: Any) -> bool:
        return frame_kind(frame) == kind

    made = {target: forward(target, module, keywords, is_frame, frame_words) for target in set(FORWARDED.values())}
    return {name: made[target] for name, target in FORWARDED.items()}


def forward(
    name: str, module: str, keywords: dict[str, Any], is_frame: Callable[[Any], bool], frame_words: str
) -> Callable[..., Any]:
    """``module.name(frame, **kw)``: checks the frame's kind, then calls ``pandas_rankeval.name``.

    ``keywords`` are the engine's own keywords with their defaults; they go into ``engine_options``
    (only those given, so the engine's defaults stay its own). The signature shown is the public
    function's, with ``engine_options`` replaced by those keywords.
    """
    import pandas_rankeval

    target = getattr(pandas_rankeval, name)
    where = f"{module.rsplit('.', 1)[-1]}.{name}"

    def function(df: Any, /, **kwargs: Any) -> Any:
        if not is_frame(df):
            raise TypeError(
                f"{where} expects {frame_words} as its first argument; got {type(df).__name__}. "
                f"pandas_rankeval.{name} takes any supported frame."
            )
        options = dict(kwargs.pop("engine_options", None) or {})
        options.update({k: kwargs.pop(k) for k in keywords if k in kwargs})
        return target(df, engine_options=options, **kwargs)

    sig = inspect.signature(target)
    params = [p for p in sig.parameters.values() if p.name != "engine_options"]
    params += [inspect.Parameter(k, inspect.Parameter.KEYWORD_ONLY, default=v) for k, v in keywords.items()]
    function.__signature__ = sig.replace(parameters=params)  # type: ignore[attr-defined]
    function.__name__ = function.__qualname__ = name
    function.__module__ = module
    extra = ", ".join(f"``{k}``" for k in keywords)
    function.__doc__ = (
        f":func:`pandas_rankeval.{name}` of {frame_words}, with the engine keyword(s) {extra} "
        f"(passed as ``engine_options``).\n\n    Kept for code written before one function took every frame; "
        f"see :func:`pandas_rankeval.{name}` for the parameters and the result.\n"
    )
    return function
