"""``python -m pandas_rankeval``: the same program as the ``pandas-rankeval`` console script."""

from __future__ import annotations

from pandas_rankeval.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
