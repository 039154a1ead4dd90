"""The reference switch: every fast path off, for tests and for checking a result.

Under ``PANDAS_RANKEVAL_REFERENCE=1`` in the environment (or inside :func:`reference_paths`),
a call takes the plain path at each place where the library has a faster one:

- every group is ranked, the groups that cannot count too (no :mod:`.skipping`), with every row,
  those below a group's last relevant row too (no kept rows, ``Cut.top_rows`` unused);
- each score column is ranked with two sorts (by score, then by group and rank:
  :func:`~.ranking.tie_blocks.build_ranking`), not with the one packed sort of
  :mod:`.ranking.group_rank`;
- global AUC is read off that sort by score (:func:`~.ranking.global_auc.global_auc`), not
  searched in the sorted classes on threads;
- the hashed bootstrap's replicate sums are one dense product per segment,
  ``poisson_weights(groups).T @ columns`` (no group left out, no chunk, no repeated column
  multiplied once);
- one thread.

The numbers agree with the default path's to 1e-12 (most to the bit); ``tests/
test_reference_parity.py`` checks every public function both ways. :func:`reference_mode` is
the one place that reads the switch.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

__all__ = ["ENV_VAR", "reference_mode", "reference_paths"]

#: The environment variable of the switch: ``1`` (or ``true``, ``yes``, ``on``) turns it on.
ENV_VAR = "PANDAS_RANKEVAL_REFERENCE"

_ON = frozenset({"1", "true", "yes", "on"})
_FORCED: ContextVar[bool | None] = ContextVar("pandas_rankeval_reference", default=None)


def reference_mode() -> bool:
    """Whether the fast paths are off: :func:`reference_paths` if a block set it, else the
    environment variable.

    Examples
    --------
    >>> from pandas_rankeval.core.reference import reference_mode, reference_paths
    >>> with reference_paths():
    ...     reference_mode()
    True
    >>> with reference_paths(False):
    ...     reference_mode()
    False
    """
    forced = _FORCED.get()
    if forced is not None:
        return forced
    return os.environ.get(ENV_VAR, "").strip().lower() in _ON


@contextmanager
def reference_paths(on: bool = True) -> Iterator[None]:
    """Within the block, the fast paths are off (``on=False``: on, whatever the environment says)."""
    token = _FORCED.set(on)
    try:
        yield
    finally:
        _FORCED.reset(token)
