"""The old engine modules' functions, kept: ``pandas_rankeval.dask.gauc(ddf, npartitions=...)`` and
``pandas_rankeval.spark.gauc(sdf, rows_per_bucket=..., buckets=...)`` forward to the one public
function (:func:`pandas_rankeval.gauc`), with their engine keywords passed as ``engine_options``.

Each function is resolved from the registry when it is asked for (:class:`Forwards`, the modules'
``__getattr__``): a metric registered after the module was imported (a test's throwaway metric) is
forwarded too.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from .core.metrics.registry import metric_functions, namespace_methods
from .engines import frame_kind

__all__ = ["FORWARDED", "Forwards", "forward", "forwarded"]


def forwarded() -> dict[str, str]:
    """Name -> public function of every name an old module forwards, from the registry now: the
    public functions, the metric names that differ from their function (``map``) and the
    functions' other public names (``mean_average_precision``, ``map_``)."""
    return {**namespace_methods(), **{name: m.function for name, m in metric_functions().items()}}


#: :func:`forwarded` when the package was imported (the modules' ``__all__``).
FORWARDED: dict[str, str] = forwarded()


class Forwards:
    """The forwarded functions of one old module (its ``__getattr__``): each name of
    :func:`forwarded` resolved from the registry when it is asked for, so a metric registered
    after the module was imported is there too, and one removed is gone. A forward is made once
    per public function and kept while that function is the same object.

    ``kind`` is what :func:`pandas_rankeval.engines.frame_kind` says of the engine's frames
    (``"dask"``, ``"pyspark"``); any other frame raises a ``TypeError`` naming ``frame_words``;
    ``keywords`` are the engine's own keywords with their defaults (see :func:`forward`).
    """

    def __init__(self, module: str, kind: str, keywords: dict[str, Any], frame_words: str) -> None:
        self.module, self.kind, self.keywords, self.frame_words = module, kind, keywords, frame_words
        self._made: dict[str, tuple[Any, Callable[..., Any]]] = {}  # public function -> (its target, forward)

    def is_frame(self, frame: Any) -> bool:
        return frame_kind(frame) == self.kind

    def __call__(self, name: str) -> Callable[..., Any]:
        import pandas_rankeval

        function = forwarded().get(name)
        if function is None:
            raise AttributeError(f"module {self.module!r} has no attribute {name!r}")
        target = getattr(pandas_rankeval, function)
        made = self._made.get(function)
        if made is None or made[0] is not target:
            made = self._made[function] = (target, forward(function, self.module, self.keywords, self.is_frame,
                                                           self.frame_words))
        return made[1]

    def names(self) -> list[str]:
        """Every name forwarded now (the module's ``__dir__``)."""
        return list(forwarded())


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
