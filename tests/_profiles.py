"""Hypothesis profiles of the test suite (registered and loaded by tests/conftest.py).

- ``"ci"``, the default (README's test command, ``.ci/run``): derandomized, so every run draws
  the same examples (a failure is a change in the code, never a new draw), no example database,
  no deadline (a 2-core machine shared with a JVM has slow moments), and the reproduction blob
  printed with any failure.
- ``"explore"``: random seeds and at least :data:`EXPLORE_EXAMPLES` examples per property test,
  to hunt for cases the fixed draws miss. Select it with ``HYPOTHESIS_PROFILE=explore`` or
  ``--hypothesis-profile=explore``. Every failure it finds is pinned with ``@example`` in the
  test that found it, so the default run checks it from then on.

A test that needs its own number of examples writes ``@settings(max_examples=examples(n))``
(never ``derandomize=...``): ``n`` under ``"ci"``, at least the profile's count under
``"explore"``, and the profile decides the randomness.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

CI = "ci"
EXPLORE = "explore"
EXPLORE_EXAMPLES = 1000
#: Environment variable naming the profile (``--hypothesis-profile`` wins over it).
ENV = "HYPOTHESIS_PROFILE"

_COMMON = dict(deadline=None, print_blob=True,
               suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

settings.register_profile(CI, derandomize=True, database=None, **_COMMON)
settings.register_profile(EXPLORE, max_examples=EXPLORE_EXAMPLES, derandomize=False, **_COMMON)


def load() -> str:
    """Load the profile named by ``$HYPOTHESIS_PROFILE`` (default ``"ci"``); return its name."""
    name = os.environ.get(ENV) or CI
    settings.load_profile(name)
    return name


def examples(n: int) -> int:
    """``max_examples`` for a test that wants ``n`` in the default run: ``n`` under ``"ci"``,
    ``max(n, the profile's max_examples)`` under any other profile."""
    if current() == CI:
        return n
    return max(n, settings.default.max_examples)


def current() -> str:
    """The name of the loaded profile (older hypothesis releases lack the public accessor)."""
    getter = getattr(settings, "get_current_profile_name", None)
    return getter() if getter is not None else settings._current_profile
