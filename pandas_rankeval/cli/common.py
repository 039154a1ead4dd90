"""Pieces every stage of the command line shares: the program's name and choices, the error.

A :class:`CLIError` is bad input: :func:`pandas_rankeval.cli.main` prints it as one
``pandas-rankeval: error: ...`` line and exits with status 2. :func:`_one_line` makes any
message one line.
"""

from __future__ import annotations

import textwrap
from typing import Any

PROG = "pandas-rankeval"
COMMANDS = ("eval", "demo", "metrics")
FORMATS = ("table", "csv", "json", "markdown", "html")
VIEWS = ("full", "compact", "summary", "groups")
DEFAULT_K = 10
#: The widest line of the program's own texts (help, metrics, demo): a terminal's 80 columns.
LINE_WIDTH = 80
#: Set this environment variable to get the traceback of an unexpected error.
DEBUG_ENV = "PANDAS_RANKEVAL_DEBUG"


class CLIError(Exception):
    """Bad input: printed as one ``pandas-rankeval: error: ...`` line, exit status 2."""


def _one_line(exc: BaseException | str) -> str:
    if isinstance(exc, KeyError) and len(exc.args) == 1 and isinstance(exc.args[0], str):
        text = exc.args[0]
    else:
        text = str(exc)
    text = " ".join(text.split())
    return text or type(exc).__name__


def metric_pattern(info: Any) -> str:
    """How a metric's name is written in help texts: ``gauc``, ``ndcg[@K]``, ``recall@K``."""
    at = f"@{info.param.placeholder}"
    return {"none": info.name, "optional": f"{info.name}[{at}]", "required": f"{info.name}{at}"}[info.param.presence]


def wrap(text: str, indent: str = "", hang: str = "  ", width: int = LINE_WIDTH) -> str:
    """``text`` in lines of at most ``width`` characters: the first after ``indent``, the
    others after ``hang`` (words are never broken: a path stays whole).

    >>> print(wrap("global AUC pooled over all rows, no group weight", indent="auc  ", hang="     ", width=30))
    auc  global AUC pooled over
         all rows, no group weight
    """
    return textwrap.fill(
        " ".join(text.split()), width=width, initial_indent=indent, subsequent_indent=hang,
        break_long_words=False, break_on_hyphens=False,
    )


def command_lines(command: str, indent: str = "  ", width: int = LINE_WIDTH) -> str:
    """A shell command in lines of at most ``width`` characters, broken before an option
    with a trailing backslash (the lines paste into a shell as they are).

    >>> print(command_lines("pandas-rankeval eval data.csv --group user_id --label click --score a b", width=44))
      pandas-rankeval eval data.csv \\
          --group user_id --label click \\
          --score a b
    """
    head, *options = command.split(" --")
    lines, line = [], indent + head
    for option in options:
        piece = " --" + option
        if len(line) + len(piece) + 2 > width:  # room for " \\"
            lines.append(line + " \\")
            line = indent + "    --" + option
        else:
            line += piece
    return "\n".join([*lines, line])
