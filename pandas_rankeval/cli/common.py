"""Pieces every stage of the command line shares: the program's name and choices, the error.

A :class:`CLIError` is bad input: :func:`pandas_rankeval.cli.main` prints it as one
``pandas-rankeval: error: ...`` line and exits with status 2. :func:`_one_line` makes any
message one line.
"""

from __future__ import annotations

from typing import Any

PROG = "pandas-rankeval"
COMMANDS = ("eval", "demo", "metrics")
FORMATS = ("table", "csv", "json", "markdown", "html")
VIEWS = ("full", "compact", "summary", "groups")
DEFAULT_METRICS = ("auc", "gauc", "mrr", "ndcg@10")
DEFAULT_K = 10
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
