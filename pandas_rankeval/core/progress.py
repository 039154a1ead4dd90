"""An optional tqdm progress bar for the slow paths (bootstrap replicates, sklearn's per-group AUC:
gauc(implementation="sklearn"), the EM of propensities, the files of read_trec): ``progress=``."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar
from typing import Any

__all__ = ["Progress", "bar_class", "one_bar"]

#: The bar every Progress of the current call extends (see :func:`one_bar`), once one is drawn.
_SHARED: ContextVar[list[Any] | None] = ContextVar("pandas_rankeval_progress", default=None)


@contextlib.contextmanager
def one_bar() -> Iterator[None]:
    """Every :class:`Progress` opened inside draws on one bar: the first one's, its total
    extended by the next ones' (``overall=True`` evaluates the frame twice, by segment and
    whole, and shows one bar for both). The bar is closed on leaving."""
    holder: list[Any] = []
    token = _SHARED.set(holder)
    try:
        yield
    finally:
        _SHARED.reset(token)
        for bar in holder:
            bar.close()


def bar_class() -> Any:
    """The bar class a :class:`Progress` draws with, called ``(total=, desc=, unit=)``: tqdm's
    notebook widget when ipywidgets is there, else the text bar (which Jupyter shows as it is:
    ``tqdm.auto`` would warn "IProgress not found" there instead). Read at every new bar (a test
    puts a recording bar in its place)."""
    try:
        import tqdm  # noqa: F401
    except ImportError as exc:
        raise ImportError(
            "progress=True needs the tqdm package: pip install tqdm "
            "(or pip install pandas_rankeval[progress])."
        ) from exc
    try:
        import ipywidgets  # noqa: F401
    except ImportError:
        from tqdm.std import tqdm as text_bar

        return text_bar
    from tqdm.auto import tqdm as auto_bar

    return auto_bar


class Progress:
    """A tqdm bar when asked for; tqdm is imported only then.

    Examples
    --------
    >>> bar = Progress(False, total=10, desc="bootstrap")  # disabled: does nothing
    >>> bar.update(3)
    >>> bar.close()
    """

    def __init__(self, enabled: bool, total: int, desc: str, unit: str = "rep") -> None:
        self.bar: Any = None
        self.shared = False
        if not enabled:
            return
        holder = _SHARED.get()
        if holder is None:
            self.bar = bar_class()(total=total, desc=desc, unit=unit)
        elif holder:  # a bar of this call is drawn already: extend it
            self.bar, self.shared = holder[0], True
            self.bar.total += total
            self.bar.refresh()
        else:
            self.bar, self.shared = bar_class()(total=total, desc=desc, unit=unit), True
            holder.append(self.bar)

    def update(self, n: int = 1) -> None:
        if self.bar is not None:
            self.bar.update(n)

    def close(self) -> None:
        if self.bar is not None and not self.shared:  # a shared bar closes with its one_bar()
            self.bar.close()
