"""An optional tqdm progress bar for the slow paths (bootstrap, the sklearn engine)."""

from __future__ import annotations

from typing import Any

__all__ = ["Progress"]


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
            try:
                from tqdm.auto import tqdm
            except ImportError as exc:
                raise ImportError(
                    "progress=True needs the tqdm package: pip install tqdm "
                    "(or pip install pandas_rankeval[progress])."
                ) from exc
            self.bar = tqdm(total=total, desc=desc, unit=unit)

    def update(self, n: int = 1) -> None:
        if self.bar is not None:
            self.bar.update(n)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
