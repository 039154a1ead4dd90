"""An optional tqdm progress bar for the slow paths (bootstrap, sklearn's per-group AUC: gauc(engine="sklearn"))."""

from __future__ import annotations

from typing import Any

__all__ = ["Progress"]


def _tqdm() -> Any:
    """tqdm's notebook widget when ipywidgets is there, else the text bar (which Jupyter shows
    as it is: ``tqdm.auto`` would warn "IProgress not found" there instead)."""
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
        if enabled:
            self.bar = _tqdm()(total=total, desc=desc, unit=unit)

    def update(self, n: int = 1) -> None:
        if self.bar is not None:
            self.bar.update(n)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
