"""Run a function right after a module is first imported (the polars and Dask namespaces).

``import pandas_rankeval`` registers ``df.rankeval`` on polars and ``ddf.rank`` on Dask when those
libraries are already loaded; :func:`when_imported` covers the other order (``import
pandas_rankeval`` first, ``import polars`` later) without importing either library itself: a
finder on ``sys.meta_path`` waits for the module's name, lets the usual finders find it, and runs
the function once the module has finished executing. It then removes itself.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import sys
from collections.abc import Callable
from types import ModuleType
from typing import Any

__all__ = ["when_imported"]


class _Loader(importlib.abc.Loader):
    """The module's own loader, then the callback."""

    def __init__(self, loader: Any, callback: Callable[[], None]) -> None:
        self._loader = loader
        self._callback = callback

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        create = getattr(self._loader, "create_module", None)
        return create(spec) if create is not None else None

    def exec_module(self, module: ModuleType) -> None:
        self._loader.exec_module(module)
        try:
            self._callback()
        except Exception:  # noqa: BLE001 - a failed registration must never break the user's import
            pass

    def __getattr__(self, name: str) -> Any:  # get_resource_reader, is_package, ...
        return getattr(self._loader, name)


class _Finder(importlib.abc.MetaPathFinder):
    def __init__(self, name: str, callback: Callable[[], None]) -> None:
        self.name = name
        self.callback = callback
        self._busy = False

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> importlib.machinery.ModuleSpec | None:
        if fullname != self.name or self._busy:
            return None
        self._busy = True
        try:
            spec = importlib.util.find_spec(fullname)
        finally:
            self._busy = False
        if self in sys.meta_path:
            sys.meta_path.remove(self)
        if spec is None or spec.loader is None:
            return spec
        spec.loader = _Loader(spec.loader, self.callback)
        return spec


def when_imported(name: str, callback: Callable[[], None]) -> None:
    """Call ``callback()`` now if ``name`` is imported, else right after its first import.

    Examples
    --------
    >>> from pandas_rankeval._post_import import when_imported
    >>> seen = []
    >>> when_imported("json", lambda: seen.append("json"))  # already imported: at once
    >>> seen
    ['json']
    """
    if name in sys.modules:
        callback()
        return
    if not any(isinstance(f, _Finder) and f.name == name for f in sys.meta_path):
        sys.meta_path.insert(0, _Finder(name, callback))
