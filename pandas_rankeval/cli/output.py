"""Command line, stage 3: the output: its format, the rendered text, warnings on stderr.

The result is rendered by :mod:`pandas_rankeval.display` (every format carries the same
footer lines); the format comes from ``--format`` or the ``--output`` suffix. Warnings of the
library become one ``pandas-rankeval: warning: ...`` line each.
"""

from __future__ import annotations

import argparse
import contextlib
import re
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd

from .. import display as _display
from .common import PROG, CLIError, _one_line


def to_json(df: pd.DataFrame, **meta: Any) -> str:
    """Records (index levels as fields, NaN as null), the choices of ``df.attrs`` and the
    footer lines."""
    return _display.to_json(df, **meta)


def render(df: pd.DataFrame, fmt: str, **meta: Any) -> str:
    """The result in one output format; every format carries the same footer lines
    (CSV: as trailing ``# `` lines, read back with ``pd.read_csv(path, comment="#")``)."""
    return _display.render(df, fmt, **meta)


#: The library's options that ``eval`` takes as a flag of the same name (``ci_adjust``:
#: ``--ci-adjust``); tests/test_first_use.py checks each against the parser.
FLAG_OPTIONS = (
    "adjust", "alpha", "auc_method", "ci", "ci_adjust", "ci_method", "clip", "empty", "family", "gain",
    "lift", "method", "min_neg", "min_pos", "min_size", "n_boot", "nan_policy", "seed", "threshold", "tiebreak",
    "ties", "weight",
)
_PYTHON_OPTION = re.compile(r"\b(" + "|".join(FLAG_OPTIONS) + r")=('|\"|&#x27;|&#39;|&quot;)([^'\"\s&<]+)\2")


def as_flags(text: str) -> str:
    """The library's advice in the command line's words: ``ci_adjust='bonferroni'`` becomes
    ``--ci-adjust bonferroni`` (same length, so wrapped lines stay wrapped as they were), in
    HTML too (where the quotes are escaped).

    >>> as_flags("intervals: 95% each (ci_adjust='bonferroni': simultaneous); ties=expected")
    'intervals: 95% each (--ci-adjust bonferroni: simultaneous); ties=expected'
    """
    return _PYTHON_OPTION.sub(lambda m: f"--{m.group(1).replace('_', '-')} {m.group(3)}", text)


@contextlib.contextmanager
def _warnings_to_stderr() -> Iterator[None]:
    """Show each distinct warning once, as one ``pandas-rankeval: warning: ...`` line.

    The library issues at most one coverage warning per call (filters that drop more than
    10% of rows or positives, or nothing usable); it is shown whatever the format, since
    the command line is the caller here.
    """
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            yield
        finally:
            seen: set[str] = set()
            for w in caught:
                text = as_flags(_one_line(str(w.message)))
                if text not in seen:
                    seen.add(text)
                    print(f"{PROG}: warning: {text}", file=sys.stderr)


def _output_format(args: argparse.Namespace) -> str:
    """--format, else the format of the --output suffix, else a table; an unknown suffix is an
    error (never plain text in a file named .html or .xlsx)."""
    if args.format:
        if args.output and args.format != "table" and Path(args.output).suffix.lower() in (".parquet", ".pq"):
            raise CLIError(f"--format {args.format} and --output {args.output} disagree; drop one")
        return str(args.format)
    if not args.output:
        return "table"
    try:
        return _display.format_of_path(args.output)
    except ValueError as exc:
        raise CLIError(f"{_one_line(exc)} (or give --format)") from None
