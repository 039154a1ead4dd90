"""``df.rank`` stays pandas' rank and also becomes the metrics namespace.

DataFrame inherits ``rank`` from ``NDFrame``. Registering an accessor under that name through
``pd.api.extensions.register_dataframe_accessor`` warns and replaces it, which breaks
``df.rank()``, ``pd.DataFrame.rank(df)``, ``df.agg("rank")`` and any library that captured the
function at import. Instead, as geopandas does for ``GeoDataFrame.plot``, a small descriptor is
put in ``DataFrame.__dict__["rank"]``:

* class access (``pd.DataFrame.rank``) returns pandas' own function object, unchanged;
* instance access (``df.rank``) returns a :class:`RankevalNamespace`: calling it is pandas'
  rank with its full signature, and its attributes are the metric functions bound to ``df``.

The same namespace is also registered through the public API under the collision-free name
``df.rankeval``. ``Series.rank`` is not touched. Dask DataFrames (which have no ``rank`` of their
own) get ``ddf.rank`` and ``ddf.rankeval`` through Dask's accessor API (:func:`register_dask`);
polars DataFrames and LazyFrames get ``df.rankeval`` through polars' namespace API
(:func:`register_polars`).

The namespace holds nothing but the frame (pandas 3 builds a new accessor object on every
attribute access, and so does the descriptor), never raises in ``__init__``, and every method
is a one-line forward to the function of the same name in :mod:`pandas_rankeval`, looked up at
call time. Docstrings and signatures of the methods are copied from those functions when the
method is first looked at, minus the frame argument.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import types
from typing import Any, Callable

import pandas as pd

from .core.metrics.registry import namespace_methods

__all__ = [
    "DaskRankevalNamespace", "PANDAS_RANK", "PolarsRankevalNamespace", "RankevalNamespace", "is_registered", "register",
    "register_dask", "register_polars", "unregister",
]

#: The attribute the descriptor lives under, and the public collision-free alias.
NAME = "rank"
ALIAS = "rankeval"

#: Namespace method -> function of :mod:`pandas_rankeval` it forwards to (from the registry).
METHODS: dict[str, str] = namespace_methods()

#: pandas' own ``DataFrame.rank`` function. Class access goes through the descriptor's
#: ``__get__(None, cls)``, which returns this very object, so it is right even when the module
#: is imported (or reloaded) while the descriptor is installed.
PANDAS_RANK: Callable[..., Any] = pd.DataFrame.rank

_MISSING = object()
# What ``DataFrame.__dict__`` held under "rank" before register() (normally nothing: the
# function is inherited from NDFrame), so unregister() can put it back exactly.
_saved_entry: Any = _MISSING


@functools.lru_cache(maxsize=None)
def _signature_without_first(func: Callable[..., Any]) -> inspect.Signature | None:
    """``func``'s signature with its first parameter (self / the frame) dropped."""
    try:
        sig = inspect.signature(func)
    except (TypeError, ValueError):
        return None
    params = list(sig.parameters.values())
    return sig.replace(parameters=params[1:])


class _CallSignature:
    """``__signature__`` of a namespace: pandas' rank signature on instances, None on the class.

    ``inspect`` reads ``obj.__signature__`` first, so ``inspect.signature(df.rank)`` and
    ``inspect.getfullargspec(df.rank)`` (which ``df.transform("rank", axis=1)`` uses to check
    that the method takes ``axis``) see pandas' parameters instead of ``*args, **kwargs``.
    On the class it must be None, not a property object, or ``inspect.signature`` of the class
    itself would raise.
    """

    def __get__(self, ns: object, owner: type | None = None) -> inspect.Signature | None:
        if ns is None:
            return None
        return _signature_without_first(PANDAS_RANK)


def _forward_function(name: str, target: str, module: str = "pandas_rankeval") -> Callable[..., Any]:
    def forward(self: Any, /, *args: Any, **kwargs: Any) -> Any:
        package = importlib.import_module(module)
        return getattr(package, target)(self._obj, *args, **kwargs)

    forward.__name__ = name
    forward.__qualname__ = f"{RankevalNamespace.__name__}.{name}"
    forward.__module__ = __name__
    forward.__doc__ = _generic_doc(target, module)
    return forward


def _generic_doc(target: str, module: str = "pandas_rankeval") -> str:
    return f"Call ``{module}.{target}`` with this DataFrame as its first argument."


class _Forward:
    """Class attribute that turns ``ns.<name>(**kw)`` into ``pandas_rankeval.<target>(df, **kw)``.

    Returns a plain function on the class and a bound method on an instance, so the methods
    look and introspect like ordinary ones. The target's docstring and signature (minus the
    frame) are copied onto the function the first time it is looked at after the target
    exists, and again if the target is replaced; the call itself always looks the target up
    afresh.
    """

    __slots__ = ("name", "target", "module", "function", "copied_from")

    def __init__(self, name: str, target: str, module: str = "pandas_rankeval") -> None:
        self.name = name
        self.target = target
        self.module = module  # pandas_rankeval.dask for the Dask namespace
        self.function = _forward_function(name, target, module)
        self.copied_from: object = None

    def _refresh_metadata(self) -> None:
        package = importlib.import_module(self.module)
        target = getattr(package, self.target, None)
        if target is None or target is self.copied_from or not callable(target):
            return
        sig = _signature_without_first(target)
        if sig is not None:
            self_param = inspect.Parameter("self", inspect.Parameter.POSITIONAL_ONLY)
            sig = sig.replace(parameters=[self_param, *sig.parameters.values()])
        self.function.__signature__ = sig  # type: ignore[attr-defined]
        self.function.__doc__ = target.__doc__ or _generic_doc(self.target, self.module)
        self.copied_from = target

    def __get__(self, ns: object, owner: type | None = None) -> Callable[..., Any]:
        try:
            self._refresh_metadata()
        except ImportError:  # pandas_rankeval still initialising: keep the generic docstring
            pass
        if ns is None:
            return self.function
        return types.MethodType(self.function, ns)


def _registered_later(ns: Any, name: str) -> Callable[..., Any] | None:
    """The method of a metric registered after import (a test's throwaway metric), or None: the
    methods of the metrics registered at import are the namespaces' class attributes."""
    target = namespace_methods().get(name)
    return None if target is None else _Forward(name, target).__get__(ns, type(ns))


class RankevalNamespace:
    """Metrics of :mod:`pandas_rankeval` bound to a DataFrame, and pandas' rank when called.

    Reached as ``df.rank`` (callable: ``df.rank(...)`` is exactly pandas'
    :meth:`pandas.DataFrame.rank`) or as ``df.rankeval``. Each metric method forwards to the
    function of the same name with the frame as first argument: ``df.rank.gauc(group=...,
    label=..., score=...)`` is ``pandas_rankeval.gauc(df, group=..., label=..., score=...)``,
    and ``df.rank.map`` is ``pandas_rankeval.average_precision``.

    Type checkers see ``df.rank`` as pandas' method (pandas-stubs), so typed code should call
    the functions, ``pandas_rankeval.gauc(df, ...)``, directly.

    Examples
    --------
    >>> import pandas as pd
    >>> import pandas_rankeval
    >>> df = pd.DataFrame({"a": [3.0, 1.0, 3.0], "b": [1, 2, 3]})
    >>> df.rank(method="min")
         a    b
    0  2.0  1.0
    1  1.0  2.0
    2  2.0  3.0
    >>> pd.DataFrame.rank(df).equals(df.rank())
    True
    >>> "gauc" in dir(df.rank) and "ndcg" in dir(df.rankeval)
    True
    """

    __slots__ = ("_obj",)

    def __init__(self, obj: pd.DataFrame) -> None:
        # pandas builds one of these on every attribute access: keep it to one assignment.
        self._obj = obj

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """pandas' own :meth:`pandas.DataFrame.rank` of the frame, same arguments and result."""
        return PANDAS_RANK(self._obj, *args, **kwargs)

    __signature__ = _CallSignature()

    # Look like the bound method ``df.rank`` where code asks for its name. (``__qualname__``
    # cannot be a property: ``type()`` insists on a str in the class body.)
    @property
    def __name__(self) -> str:
        return NAME

    def __eq__(self, other: object) -> bool:
        # Like bound methods: equal when they wrap the same frame.
        if type(other) is not type(self):
            return NotImplemented
        return self._obj is other._obj  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((type(self), id(self._obj)))

    def __repr__(self) -> str:
        shape = getattr(self._obj, "shape", None)
        methods = ", ".join(METHODS)
        return (
            f"<pandas_rankeval namespace of a {type(self._obj).__name__} with shape {shape}; "
            f"call it for pandas' DataFrame.rank, or use one of: {methods}>"
        )

    def __getattr__(self, name: str) -> Any:
        # Only reached when normal lookup failed.
        if name.startswith("__"):
            raise AttributeError(name)
        late = _registered_later(self, name)
        if late is not None:
            return late
        raise AttributeError(
            f"{type(self).__name__!r} object has no attribute {name!r}. "
            f"The metrics are: {', '.join(METHODS)}; call the namespace itself for pandas' rank."
        )


for _method, _target in METHODS.items():
    setattr(RankevalNamespace, _method, _Forward(_method, _target))
del _method, _target


class _RankDescriptor:
    """Lives in ``DataFrame.__dict__["rank"]``.

    A non-data descriptor, like the function it stands in for: class access returns pandas'
    function, instance access a fresh :class:`RankevalNamespace` (no caching, so no reference
    from the frame to its namespace and no cycle).
    """

    installed_by_pandas_rankeval = True

    def __get__(self, obj: object, owner: type | None = None) -> Any:
        if obj is None:
            return PANDAS_RANK
        return RankevalNamespace(obj)  # type: ignore[arg-type]


def _is_ours(entry: object) -> bool:
    return getattr(type(entry), "installed_by_pandas_rankeval", False) is True


def is_registered() -> bool:
    """Whether ``DataFrame.rank`` is the pandas_rankeval descriptor and ``df.rankeval`` exists.

    Returns
    -------
    registered : bool
    """
    return _is_ours(pd.DataFrame.__dict__.get(NAME)) and (
        getattr(pd.DataFrame, ALIAS, None) is RankevalNamespace
    )


def register() -> None:
    """Install ``df.rank`` (callable namespace) and ``df.rankeval`` on DataFrame.

    Idempotent: calling it again changes nothing and warns nothing. ``import pandas_rankeval``
    calls it.

    See Also
    --------
    unregister : Put pandas' own ``DataFrame.rank`` back.
    """
    global _saved_entry
    entry = pd.DataFrame.__dict__.get(NAME, _MISSING)
    if not _is_ours(entry):
        _saved_entry = entry
        setattr(pd.DataFrame, NAME, _RankDescriptor())
    if getattr(pd.DataFrame, ALIAS, None) is not RankevalNamespace:
        pd.api.extensions.register_dataframe_accessor(ALIAS)(RankevalNamespace)


def unregister() -> None:
    """Restore pandas' own ``DataFrame.rank`` and remove ``df.rankeval``.

    Meant for tests; idempotent.

    See Also
    --------
    register : Install them again.
    """
    global _saved_entry
    if _is_ours(pd.DataFrame.__dict__.get(NAME)):
        if _saved_entry is _MISSING:
            delattr(pd.DataFrame, NAME)
        else:
            setattr(pd.DataFrame, NAME, _saved_entry)
        _saved_entry = _MISSING
    if getattr(pd.DataFrame, ALIAS, None) is RankevalNamespace:
        delattr(pd.DataFrame, ALIAS)
        pd.DataFrame._accessors.discard(ALIAS)  # type: ignore[attr-defined]  # stubs narrower than runtime


class _FrameNamespace:
    """What the Dask and polars namespaces share: the frame, one forward per metric, and an
    error that lists the metrics. Never raises in ``__init__`` (the libraries build a namespace
    on every attribute access)."""

    __slots__ = ("_obj",)

    def __init__(self, obj: Any) -> None:
        self._obj = obj

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        late = _registered_later(self, name)
        if late is not None:
            return late
        raise AttributeError(
            f"{type(self).__name__!r} object has no attribute {name!r}. The metrics are: {', '.join(METHODS)}."
        )


for _method, _target in METHODS.items():
    setattr(_FrameNamespace, _method, _Forward(_method, _target))
del _method, _target


class DaskRankevalNamespace(_FrameNamespace):
    """The functions of :mod:`pandas_rankeval` bound to a Dask DataFrame.

    Reached as ``ddf.rank`` or ``ddf.rankeval`` (Dask DataFrames have no ``rank`` method of their
    own, so nothing is shadowed). ``ddf.rank.gauc(group=..., label=..., score=...)`` is
    ``pandas_rankeval.gauc(ddf, group=..., label=..., score=...)``, and ``ddf.rank.map`` is
    :func:`pandas_rankeval.average_precision`.

    Examples
    --------
    >>> import dask.dataframe as dd
    >>> import pandas_rankeval as pre
    >>> df = pre.datasets.make_impressions(n_users=200, seed=3)
    >>> ddf = dd.from_pandas(df, npartitions=3)
    >>> g = ddf.rank.gauc(group="user_id", label="click", score="model_b")
    >>> abs(
    ...     g - pre.gauc(df, group="user_id", label="click", score="model_b")
    ... ) < 1e-12
    True
    >>> "ndcg" in dir(ddf.rankeval)
    True
    """

    __slots__ = ()

    def __repr__(self) -> str:
        return (
            f"<pandas_rankeval namespace of a Dask DataFrame with {self._obj.npartitions} partitions; "
            f"use one of: {', '.join(METHODS)}>"
        )


def register_dask() -> None:
    """Install ``ddf.rank`` and ``ddf.rankeval`` on Dask DataFrames (idempotent).

    ``import pandas_rankeval`` calls it when Dask is already loaded, else right after
    ``dask.dataframe`` is first imported; ``import pandas_rankeval.dask`` always does.
    """
    try:
        import dask.dataframe as dd
        from dask.dataframe.extensions import register_dataframe_accessor
    except ImportError as exc:  # pragma: no cover - exercised only without dask
        raise ImportError("ddf.rank needs dask: pip install 'pandas_rankeval[dask]'") from exc
    for name in (NAME, ALIAS):
        if getattr(dd.DataFrame, name, None) is not DaskRankevalNamespace:
            register_dataframe_accessor(name)(DaskRankevalNamespace)


class PolarsRankevalNamespace(_FrameNamespace):
    """The functions of :mod:`pandas_rankeval` bound to a polars DataFrame or LazyFrame.

    Reached as ``df.rankeval`` (polars frames keep their own names: no ``rank`` here).
    ``df.rankeval.gauc(group=..., label=..., score=...)`` is
    ``pandas_rankeval.gauc(df, group=..., label=..., score=...)``, on a LazyFrame too, and
    ``df.rankeval.map`` is :func:`pandas_rankeval.average_precision`. Registered by
    ``import pandas_rankeval`` when polars is already imported, else right after polars is first
    imported (in either order), by :func:`register_polars`.

    Examples
    --------
    >>> import polars as pl
    >>> import pandas_rankeval  # before or after polars
    >>> df = pl.DataFrame(
    ...     {"u": [1, 1, 2, 2], "y": [1, 0, 0, 1], "s": [0.9, 0.2, 0.4, 0.3]}
    ... )
    >>> float(df.rankeval.gauc(group="u", label="y", score="s"))
    0.5
    >>> float(df.lazy().rankeval.gauc(group="u", label="y", score="s"))
    0.5
    """

    __slots__ = ()

    def __repr__(self) -> str:
        return f"<pandas_rankeval namespace of a polars {type(self._obj).__name__}; use one of: {', '.join(METHODS)}>"



def register_polars() -> None:
    """Install ``df.rankeval`` on polars DataFrames and LazyFrames (idempotent, no warning).

    ``import pandas_rankeval`` calls it when polars is already loaded, else right after polars is
    first imported; the polars engine does when a polars frame first arrives.
    """
    import polars as pl

    for cls, reg in ((pl.DataFrame, pl.api.register_dataframe_namespace),
                     (pl.LazyFrame, pl.api.register_lazyframe_namespace)):
        if getattr(cls, ALIAS, None) is not PolarsRankevalNamespace:
            reg(ALIAS)(PolarsRankevalNamespace)
