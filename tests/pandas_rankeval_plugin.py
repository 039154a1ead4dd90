"""pytest plugin (``-p pandas_rankeval_plugin``) that imports pandas_rankeval before any test.

tests/test_accessor.py runs pandas' own test modules with it, so those tests exercise
``DataFrame.rank`` with the pandas_rankeval descriptor installed. It refuses to run if the
descriptor is not in place, and says at the end that it still was.
"""

from __future__ import annotations

import pytest

import pandas_rankeval  # noqa: F401  (installs df.rank and df.rankeval)
from pandas_rankeval import accessor as _accessor

MARKER = "pandas_rankeval_plugin: DataFrame.rank descriptor installed"


def pytest_sessionstart(session: pytest.Session) -> None:
    if not _accessor.is_registered():
        raise pytest.UsageError("pandas_rankeval did not install its DataFrame.rank descriptor")


def pytest_terminal_summary(terminalreporter) -> None:  # noqa: ANN001
    terminalreporter.write_line(f"{MARKER}: {_accessor.is_registered()}")
