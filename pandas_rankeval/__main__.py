"""``python -m pandas_rankeval demo``."""

from __future__ import annotations

import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args == ["demo"]:
        from pandas_rankeval.cli import _demo

        return _demo()
    from pandas_rankeval.cli import main as cli_main  # usage and errors

    return cli_main(args)


if __name__ == "__main__":
    raise SystemExit(main())
