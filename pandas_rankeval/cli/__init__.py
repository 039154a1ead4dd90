"""Command line: evaluate a CSV or Parquet file, list the metrics, or run the demo.

::

    pandas-rankeval eval FILE --group COL [COL ...] --label COL --score COL [COL ...]
                    [--metrics auc gauc mrr ndcg@10] [--k 10] [--weight count] [--by COL ...]
                    [--ci 0.95] [--n-boot 1000] [--seed 0] [--baseline COL]
                    [--view full|compact|summary|groups] [--footer short|full] [--width N]
                    [--format table|csv|json|markdown|html] [--output PATH.{txt,csv,json,md,html,parquet}]
    pandas-rankeval eval --trec-run RUN [RUN ...] --qrels QRELS [--depth M] [--complete] [--judged-only]
                    [--trec-ties expected|docno] [--metrics map ndcg@10 rprec] ...
    pandas-rankeval FILE ...          (the same as ``eval FILE ...``)
    pandas-rankeval metrics           (the metric names)
    pandas-rankeval demo              (global AUC vs GAUC on a synthetic impressions table)

``python -m pandas_rankeval`` is the same program. Text output fits the terminal: it wraps
between models, never inside one. Bad input (a missing or unreadable file, a missing column, a
value that is not a number, missing values, an unknown metric) exits with status 2 and one line
on stderr, ``pandas-rankeval: error: ...``, that names the value, its line and the option to
change.

The stages, one module each: :mod:`.parser` (the options), :mod:`.reading` (the input file and
its values), :mod:`.commands` (``eval``, ``metrics``, ``demo``), :mod:`.output` (format, text,
warnings); :mod:`.common` holds what they share. This module is the entry point, :func:`main`.
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
from collections.abc import Sequence

from ..display import describe_params, format_table, to_markdown
from .common import COMMANDS, DEBUG_ENV, PROG, CLIError, _one_line
from .parser import build_parser

__all__ = ["main", "format_table", "to_markdown", "describe_params"]


def _error(message: str) -> None:
    # the metric list is one command away: 'pandas-rankeval metrics' (not 600 characters here)
    message = re.sub(r" Valid metrics are .*$", f" '{PROG} metrics' lists the metrics.", message)
    print(f"{PROG}: error: {message}", file=sys.stderr)


#: Keyword arguments of the library that are command-line options here.
_OPTION_NAMES = (
    "nan_policy", "method", "auc_method", "ci_method", "weight", "ties", "empty", "gain", "threshold", "tiebreak",
    "min_size", "min_pos", "min_neg", "alpha", "n_boot", "ci", "seed", "adjust", "family",
    "ci_adjust", "lift", "position", "clip", "snips", "retrieved",
)
_KWARG = re.compile(r"\b(" + "|".join(_OPTION_NAMES) + r")=(?:'([^']*)'|([\w.+-]+))")


_LIST_KWARG = re.compile(r"\b(group|by|scores)=\[([^\]]*)\]")
_OPTION_OF = {"group": "--group", "by": "--by", "scores": "--score"}


def _cli_message(exc: BaseException) -> str:
    """The library's message, naming command-line options (``--nan-policy omit``,
    ``--group user_id device``) where it names keyword arguments (``nan_policy='omit'``,
    ``group=['user_id', 'device']``)."""
    text = _one_line(exc)
    text = re.sub(r"\b(?:report|compare) got an empty DataFrame \(0 rows\)", "the file has no data row", text)
    text = re.sub(r"Column '([^']*)' \((score|label|group|sample_weight|weight)\)",
                  lambda m: f"Column {m.group(1)!r} (--{m.group(2).replace('_', '-')})", text)
    text = _LIST_KWARG.sub(
        lambda m: f"{_OPTION_OF[m.group(1)]} " + " ".join(x.strip().strip("'\"") for x in m.group(2).split(",")), text
    )
    return _KWARG.sub(lambda m: f"--{m.group(1).replace('_', '-')} {m.group(2) if m.group(2) is not None else m.group(3)}", text)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``pandas-rankeval`` console script and ``python -m pandas_rankeval``.

    Returns the exit status: 0 on success, 2 on bad input (one ``pandas-rankeval: error:``
    line on stderr), 1 on an unexpected error.
    """
    args_list = [str(a) for a in (sys.argv[1:] if argv is None else argv)]
    first = args_list[0] if args_list else None
    if first is not None and first not in COMMANDS and (not first.startswith("-") or first in ("--trec-run", "--qrels")):
        args_list.insert(0, "eval")  # pandas-rankeval FILE ... (or --trec-run RUN ... --qrels QRELS)
    parser = build_parser()
    try:
        args = parser.parse_args(args_list)
        if args.command is None:
            raise CLIError(f"give a command: eval FILE ..., metrics or demo (see '{PROG} --help')")
        return int(args.handler(args))
    except SystemExit as exc:  # --help, --version
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    except CLIError as exc:
        _error(_one_line(exc))
        return 2
    except BrokenPipeError:  # pandas-rankeval ... | head
        with contextlib.suppress(Exception):
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115
        return 0
    except (KeyError, ValueError, TypeError, ImportError, OSError) as exc:
        if os.environ.get(DEBUG_ENV):
            raise
        _error(_cli_message(exc))
        return 2
    except Exception as exc:  # a bug: still one line, the traceback on request
        if os.environ.get(DEBUG_ENV):
            raise
        _error(f"unexpected {type(exc).__name__}: {_one_line(exc)} (set {DEBUG_ENV}=1 for the traceback)")
        return 1
