"""Command line: evaluate a CSV or Parquet file, list the metrics, or run the demo.

::

    pandas-rankeval eval FILE --group COL [COL ...] --label COL --score COL [COL ...]
                    [--metrics auc gauc mrr ndcg@10] [--k 10] [--weight count] [--by COL ...]
                    [--ci 0.95] [--n-boot 1000] [--seed 0] [--baseline COL]
                    [--view full|compact|summary|groups] [--footer short|full] [--width N]
                    [--format table|csv|json|markdown|html] [--output PATH.{txt,csv,json,md,html,parquet}]
    pandas-rankeval FILE ...          (the same as ``eval FILE ...``)
    pandas-rankeval metrics           (the metric names)
    pandas-rankeval demo              (global AUC vs GAUC on a synthetic impressions table)

``python -m pandas_rankeval`` is the same program. Text output fits the terminal: it wraps
between models, never inside one. Bad input (a missing or unreadable file, a missing column, a
value that is not a number, missing values, an unknown metric) exits with status 2 and one line
on stderr, ``pandas-rankeval: error: ...``, that names the value, its line and the option to
change.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import re
import sys
import time
import warnings
from collections.abc import Callable, Hashable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from . import display as _display
from .display import describe_params, format_table, to_markdown

__all__ = ["main", "format_table", "to_markdown", "describe_params"]

PROG = "pandas-rankeval"
COMMANDS = ("eval", "demo", "metrics")
FORMATS = ("table", "csv", "json", "markdown", "html")
VIEWS = ("full", "compact", "summary", "groups")
DEFAULT_METRICS = ("auc", "gauc", "mrr", "ndcg@10")
DEFAULT_K = 10
_PARQUET_SUFFIXES = (".parquet", ".pq", ".parq")
#: Set this environment variable to get the traceback of an unexpected error.
DEBUG_ENV = "PANDAS_RANKEVAL_DEBUG"


class CLIError(Exception):
    """Bad input: printed as one ``pandas-rankeval: error: ...`` line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line (raised, so that ``main`` returns 2)."""

    def error(self, message: str) -> Any:  # type: ignore[override]
        raise CLIError(f"{message} (see '{self.prog} --help')")


# ---------------------------------------------------------------------------------------------
# reading the input


_COMPRESSED_SUFFIXES = (".gz", ".bz2", ".xz", ".zst", ".zip", ".tar")


def _input_format(path: str, fmt: str) -> str:
    if fmt != "auto":
        return fmt
    name = path.lower()
    for suffix in _COMPRESSED_SUFFIXES:
        if name.endswith(suffix):
            name = name[: -len(suffix)]
    if name.endswith(_PARQUET_SUFFIXES):
        return "parquet"
    if name.endswith(".tsv") or name.endswith(".tab"):
        return "tsv"
    return "csv"


def _require_pyarrow() -> None:
    try:
        import pyarrow  # noqa: F401
        import pyarrow.parquet  # noqa: F401
    except ImportError:
        raise CLIError(
            "reading Parquet needs pyarrow, which is not installed: "
            "pip install 'pandas_rankeval[parquet]' (or pip install pyarrow)"
        ) from None


def _check_columns(
    available: Sequence[Hashable], wanted: Sequence[Hashable], path: str, weight: str | None = None
) -> None:
    """Every wanted column is in the file; ``--weight`` is a weight name or a column, not both."""
    from pandas_rankeval.core.options import WEIGHT_NAMES, _WEIGHT_MEANINGS
    from pandas_rankeval.core.validation import check_columns

    names = list(available)
    if weight is not None and weight in WEIGHT_NAMES and weight in names:
        raise CLIError(
            f"--weight {weight} is ambiguous: it is a weight name ({_WEIGHT_MEANINGS[weight][0]}) and "
            f"{path} has a column {weight!r}. To weigh groups by that column's per-group sum, rename "
            f"the column and pass the new name; for {_WEIGHT_MEANINGS[weight][0]}, drop or rename the "
            "column (or omit --weight for the defaults: count for gauc, uniform for list metrics)"
        )
    if weight is not None and weight not in WEIGHT_NAMES and weight not in names:
        import difflib

        close = difflib.get_close_matches(weight, [*WEIGHT_NAMES, *map(str, names)], n=1, cutoff=0.5)
        hint = f"; did you mean {close[0]!r}?" if close else f"; the columns are {list(map(str, names))!r}"
        raise CLIError(
            f"--weight {weight!r} is neither a weight name ({', '.join(WEIGHT_NAMES)}) nor a column "
            f"of {path}{hint}"
        )
    try:
        check_columns(pd.DataFrame(columns=pd.Index(names)), wanted)
    except (KeyError, ValueError) as exc:
        hint = _separator_hint(names, path)
        raise CLIError(hint or f"{path}: {_one_line(exc)}") from None


_SEPARATORS = {";": "semicolon", "\t": "tab", "|": "pipe"}


def _separator_hint(names: Sequence[Hashable], path: str) -> str | None:
    """A header read as one field that holds another separator: say which, and the option."""
    if len(names) != 1:
        return None
    head = str(names[0])
    for sep, name in _SEPARATORS.items():
        if head.count(sep) >= 1:
            shown = "'\\t'" if sep == "\t" else f"'{sep}'"
            return (
                f"{path} looks {name}-separated: its header is one field, {head[:60]!r}"
                f"{'...' if len(head) > 60 else ''}; pass --sep {shown}"
            )
    return None


def read_table(
    path: str,
    columns: Sequence[Hashable],
    *,
    fmt: str = "auto",
    text_columns: Sequence[Hashable] = (),
    weight: str | None = None,
    sep: str | None = None,
) -> pd.DataFrame:
    """Read the needed ``columns`` of a CSV, TSV or Parquet file (``-``: CSV on stdin).

    ``text_columns`` (group keys, segments) are read as strings from CSV, so that ``"007"``
    and ``"7"`` stay two groups; a text column whose every value is an integer written the one
    canonical way (optional ``-``, no leading zero, at most 18 digits) then becomes int64, the
    column ``pd.read_csv`` gives: keys hash the same way in the CLI and in Python, so the
    hashed bootstrap and the tests give the same numbers for the same file and seed (see
    :func:`canonical_keys`). ``weight`` (the ``--weight`` value) is checked against the
    file's columns: a name, or a column, never both. Every CSV row must have as many fields as
    the header (pandas' own rule; reading only some columns must not hide a malformed row).
    ``sep`` is the CSV field separator (default ``,``, a tab for ``.tsv``); a file that looks
    separated by another character gets an error that says so.
    """
    kind = _input_format(path, fmt)
    wanted = list(dict.fromkeys(columns))
    shown = "<stdin>" if path == "-" else path
    if path != "-":
        p = Path(path)
        if not p.exists():
            raise CLIError(f"cannot read {path}: no such file")
        if p.is_dir():
            raise CLIError(f"cannot read {path}: it is a directory")
    if kind == "parquet":
        _require_pyarrow()
        import pyarrow.parquet as pq

        try:
            names = pq.read_schema(path).names
        except Exception as exc:  # ArrowInvalid, OSError, ...
            raise CLIError(f"cannot read {shown} as Parquet: {_one_line(exc)}") from None
        _check_columns(names, wanted, shown, weight)
        try:
            return pd.read_parquet(path, columns=wanted)
        except Exception as exc:
            raise CLIError(f"cannot read {shown} as Parquet: {_one_line(exc)}") from None

    sep = sep if sep else ("\t" if kind == "tsv" else ",")
    what = "TSV" if kind == "tsv" else "CSV"
    if path != "-" and not path.lower().endswith(_COMPRESSED_SUFFIXES):
        try:
            with open(path, "rb") as fh:
                head = fh.read(8192)
        except OSError as exc:
            raise CLIError(f"cannot read {shown}: {exc.strerror or _one_line(exc)}") from None
        if head.startswith(b"PAR1"):
            raise CLIError(
                f"cannot read {shown} as {what}: it is a Parquet file; "
                "name it .parquet or pass --input-format parquet"
            )
        if b"\x00" in head:
            raise CLIError(f"cannot read {shown} as {what}: it is a binary file, not text")
    text = set(text_columns)
    try:
        if path == "-":
            data: Any = io.StringIO(sys.stdin.read())
            header = pd.read_csv(data, sep=sep, nrows=0).columns
            data.seek(0)
        else:
            data = path
            header = pd.read_csv(path, sep=sep, nrows=0).columns
        _check_columns(header, wanted, shown, weight)
        # every column is parsed (usecols would let a row with extra fields through), and
        # index_col=False: a row longer than the header never becomes an index silently
        with warnings.catch_warnings():
            warnings.simplefilter("error", pd.errors.ParserWarning)
            frame = pd.read_csv(
                data,
                sep=sep,
                index_col=False,
                dtype={c: str for c in wanted if c in text},
                low_memory=False,
            )
        return canonical_keys(frame[wanted], [c for c in wanted if c in text])
    except CLIError:
        raise
    except pd.errors.ParserWarning:
        raise CLIError(
            f"cannot read {shown} as {what}: its rows have more fields than its header "
            f"({len(header)} names); fix the header or the rows"
        ) from None
    except pd.errors.ParserError as exc:
        text = _one_line(exc)
        if "Expected" in text and "fields" in text:
            text += " (a row has more fields than the header)"
        raise CLIError(f"cannot read {shown} as {what}: {text}") from None
    except pd.errors.EmptyDataError:
        raise CLIError(f"cannot read {shown}: the file is empty") from None
    except UnicodeDecodeError:
        raise CLIError(
            f"cannot read {shown} as {what}: it is not UTF-8 text"
            " (a Parquet file needs a .parquet name or --input-format parquet)"
        ) from None
    except PermissionError:
        raise CLIError(f"cannot read {shown}: permission denied") from None
    except Exception as exc:  # ParserError, OSError, ...
        raise CLIError(f"cannot read {shown} as {what}: {_one_line(exc)}") from None


_CANONICAL_INT = r"-?(?:0|[1-9][0-9]{0,17})"


def canonical_keys(frame: pd.DataFrame, columns: Sequence[Hashable]) -> pd.DataFrame:
    """Key columns read as text that hold only canonical integers, as int64 (a copy if any).

    ``pd.read_csv`` reads such a column as integers and the CLI must hash its keys the same
    way (the hashed bootstrap and sign flips draw from the key). A column with any other value
    (``"007"``, ``"u1"``, ``"1.0"``, a missing key) stays text, so ``"007"`` and ``"7"`` are
    never merged. The check runs on the distinct values, vectorized.

    >>> df = pd.DataFrame({"u": ["7", "-12", "0"], "v": ["007", "7", "8"], "w": ["a", "b", "c"]}, dtype=str)
    >>> canonical_keys(df, ["u", "v", "w"]).dtypes.astype(str).tolist()
    ['int64', 'str', 'str']
    """
    out = frame
    for c in columns:
        col = frame[c]
        if col.isna().any():
            continue
        values = pd.Series(pd.unique(col.to_numpy(dtype=object)), dtype="string")
        if len(values) and bool(values.str.fullmatch(_CANONICAL_INT).all()):
            if out is frame:
                out = frame.copy()
            out[c] = col.astype("int64")
    return out


def _where(position: int, path: str, kind: str) -> str:
    """A row of the input as a person finds it: the line of a CSV (the header is line 1), the
    row of a Parquet file."""
    if kind == "parquet":
        return f"row {position + 1:,} of {path}"
    return f"line {position + 2:,} of {path}"


def check_values(
    df: pd.DataFrame, roles: dict[Hashable, str], path: str, kind: str, nan_policy: str | None
) -> pd.DataFrame:
    """The columns that must hold numbers do: else an error that names the column, its option,
    the first bad value and its line, and how many there are. Missing values are reported the
    same way unless ``--nan-policy omit``. Returns the frame with those columns numeric."""
    shown = "<stdin>" if path == "-" else path
    out = df
    for col, role in roles.items():
        s = df[col]
        if pd.api.types.is_bool_dtype(s.dtype) or pd.api.types.is_numeric_dtype(s.dtype):
            numbers = s
        else:
            numbers = pd.to_numeric(s, errors="coerce")
            bad = numbers.isna().to_numpy() & s.notna().to_numpy()
            if bad.any():
                first = int(bad.argmax())
                want = "numbers (0/1 or true/false for clicks, grades for relevance)" if role == "--label" else "numbers"
                raise CLIError(
                    f"column {col!r} ({role}) must hold {want}: {_where(first, shown, kind)} has "
                    f"{s.iloc[first]!r}" + (f" ({int(bad.sum()):,} such values)" if bad.sum() > 1 else "")
                    + "; fix or drop those rows"
                )
            if out is df:
                out = df.copy()
            out[col] = numbers
        missing = numbers.isna().to_numpy()
        if missing.any() and nan_policy != "omit":
            first = int(missing.argmax())
            raise CLIError(
                f"column {col!r} ({role}) has {int(missing.sum()):,} missing value{'s' if missing.sum() > 1 else ''}, "
                f"the first on {_where(first, shown, kind)}; pass --nan-policy omit to drop those rows"
            )
    return out


# ---------------------------------------------------------------------------------------------
# metric names


def resolve_metrics(names: Sequence[str], k: int | None) -> list[str]:
    """Split comma-separated names and give a cutoff to the names written without ``@K``.

    ``precision``, ``recall`` and ``hit_rate`` need a cutoff: they get ``k`` (default 10).
    ``mrr``, ``ndcg`` and ``map`` take the whole list unless ``k`` is given explicitly.
    """
    from pandas_rankeval.core.registry import METRICS, parse_metric

    out: list[str] = []
    for item in names:
        for raw in item.split(","):
            name = raw.strip()
            if not name:
                continue
            base = name.lower()
            info = METRICS.get(base)
            if info is not None and "@" not in base:
                if info.cutoff == "required":
                    name = f"{base}@{DEFAULT_K if k is None else k}"
                elif info.cutoff == "optional" and k is not None:
                    name = f"{base}@{k}"
            try:
                out.append(parse_metric(name).name)
            except ValueError as exc:
                raise CLIError(str(exc)) from None
    if not out:
        raise CLIError("give at least one metric, such as --metrics auc gauc ndcg@10")
    return list(dict.fromkeys(out))


# ---------------------------------------------------------------------------------------------
# formatting


def _one_line(exc: BaseException | str) -> str:
    if isinstance(exc, KeyError) and len(exc.args) == 1 and isinstance(exc.args[0], str):
        text = exc.args[0]
    else:
        text = str(exc)
    text = " ".join(text.split())
    return text or type(exc).__name__


def to_json(df: pd.DataFrame, **meta: Any) -> str:
    """Records (index levels as fields, NaN as null), the choices of ``df.attrs`` and the
    footer lines."""
    return _display.to_json(df, **meta)


def render(df: pd.DataFrame, fmt: str, **meta: Any) -> str:
    """The result in one output format; every format carries the same footer lines
    (CSV: as trailing ``# `` lines, read back with ``pd.read_csv(path, comment="#")``)."""
    return _display.render(df, fmt, **meta)


# ---------------------------------------------------------------------------------------------
# commands


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
                text = _one_line(str(w.message))
                if text not in seen:
                    seen.add(text)
                    print(f"{PROG}: warning: {text}", file=sys.stderr)


def _int_at_least(low: int, wording: str) -> Callable[[str], int]:
    """An argparse type: an int >= ``low``, with a one-line error otherwise."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = low - 1
        if value < low:
            raise argparse.ArgumentTypeError(f"expected {wording}, got {text!r}")
        return value

    return parse


_positive_int = _int_at_least(1, "a positive integer")
_non_negative_int = _int_at_least(0, "an integer >= 0")


def _level(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a level in (0, 1) such as 0.95, got {text!r}") from None
    if 50 <= value < 100:  # --ci 95 means 0.95
        value /= 100
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"expected a level in (0, 1) such as 0.95, got {text!r}")
    return value


def _want_progress(flag: bool | None) -> bool:
    """--progress / --no-progress, else a bar only when stderr is a terminal (and tqdm is there)."""
    if flag is False:
        return False
    try:
        import tqdm  # noqa: F401
    except ImportError:
        if flag:
            raise CLIError(
                "--progress needs the tqdm package: pip install tqdm (or pip install 'pandas_rankeval[progress]')"
            ) from None
        return False
    return True if flag else bool(getattr(sys.stderr, "isatty", lambda: False)())


def _eval(args: argparse.Namespace) -> int:
    import pandas_rankeval as pre

    metrics = resolve_metrics(args.metrics, args.k)
    group = list(args.group)
    scores = list(dict.fromkeys(args.score))
    by = list(args.by or [])
    weight = args.weight
    from pandas_rankeval.core.options import WEIGHT_NAMES

    if args.baseline is not None and args.all_pairs:
        raise CLIError("--baseline and --all-pairs exclude each other: pick one baseline, or compare every pair")
    if args.baseline is not None:
        if args.baseline not in scores:
            scores = [args.baseline, *scores]
        if len(scores) < 2:
            raise CLIError("--baseline needs at least one other --score column to compare with it")
    if args.all_pairs and len(scores) < 2:
        raise CLIError(f"--all-pairs needs at least two --score columns; got {len(scores)}")
    comparing = args.baseline is not None or args.all_pairs
    columns: list[Hashable] = [*group, args.label, *scores, *by]
    if weight is not None and weight not in WEIGHT_NAMES:
        columns.append(weight)  # a column of per-row amounts summed per group
    if args.tiebreak is not None:
        columns.append(args.tiebreak)
    fmt = _output_format(args)
    if args.view == "summary" and not comparing:
        raise CLIError(
            "--view summary needs --baseline or --all-pairs (a comparison); for a report use --view compact or full"
        )
    if args.view == "groups":
        used = [opt for opt, value in (("--baseline", args.baseline), ("--all-pairs", args.all_pairs), ("--by", args.by),
                                       ("--ci", args.ci)) if value]
        if used:
            raise CLIError(f"--view groups shows one row per group; {', '.join(used)} do not apply to it")

    if args.output:
        parent = Path(args.output).resolve().parent
        if not parent.is_dir():
            raise CLIError(f"cannot write {args.output}: the directory {parent} does not exist")
    # keys are read as text ("007" and "7" are two users) unless a column also plays a numeric
    # role (--label click --by click): then it is read as numbers, as that role needs
    numeric_roles = {args.label, *scores, *([weight] if weight is not None and weight not in WEIGHT_NAMES else [])}
    text_columns = [c for c in [*group, *by] if c not in numeric_roles]
    started = time.perf_counter()
    sep = {"\\t": "\t", "tab": "\t"}.get(args.sep, args.sep) if args.sep else None
    df = read_table(args.file, columns, fmt=args.input_format, text_columns=text_columns, weight=weight, sep=sep)
    roles: dict[Hashable, str] = {args.label: "--label", **{s: "--score" for s in scores}}
    if weight is not None and weight not in WEIGHT_NAMES:
        roles[weight] = "--weight"
    df = check_values(df, roles, args.file, _input_format(args.file, args.input_format), args.nan_policy)
    common: dict[str, Any] = dict(group=group if len(group) > 1 else group[0], label=args.label, metrics=metrics)
    options: dict[str, Any] = {}
    if weight is not None:
        options["weight"] = weight
    for name in ("ties", "tiebreak", "threshold", "nan_policy", "empty", "gain", "min_size", "min_pos", "min_neg",
                 "auc_method", "ci_method"):
        value = getattr(args, name)
        if value is not None:
            options[name] = value

    progress = _want_progress(args.progress)
    if progress:  # long inputs: say what happened so far before the bar starts
        print(
            f"{PROG}: read {len(df):,} rows from {args.file} in {time.perf_counter() - started:.1f} s; evaluating",
            file=sys.stderr,
        )
    with _warnings_to_stderr():
        if args.view == "groups":
            grouped = {k: v for k, v in options.items() if k not in ("auc_method", "ci_method")}
            result = pre.per_group(df, **common, scores=scores, **grouped)
        elif comparing:
            compare = getattr(pre, "compare", None)
            if compare is None:
                raise CLIError("--baseline needs pandas_rankeval.compare, which this version does not have")
            kwargs: dict[str, Any] = dict(
                common, scores=scores, baseline=args.baseline, n_boot=args.n_boot, seed=args.seed, progress=progress
            )
            if args.ci is not None:
                kwargs["ci"] = args.ci
            for name in ("method", "alpha", "adjust", "family"):
                if getattr(args, name) is not None:
                    options[name] = getattr(args, name)
            if by:
                options["by"] = by if len(by) > 1 else by[0]
            kwargs.update(_supported(compare, options, "--baseline"))
            result = compare(df, **kwargs)
        else:
            for name in ("method", "alpha", "adjust", "family"):
                if getattr(args, name) is not None:
                    raise CLIError(f"--{name} applies to --baseline / --all-pairs comparisons only")
            kwargs = dict(common, scores=scores, **options)
            if by:
                kwargs["by"] = by if len(by) > 1 else by[0]
            if args.ci is not None:
                kwargs.update(ci=args.ci, n_boot=args.n_boot, seed=args.seed, progress=progress)
            result = pre.report(df, **kwargs)

    if args.view == "compact":
        result = result.compact()
    elif args.view == "summary":
        result = result.summary()
    try:
        if fmt == "parquet":
            _display.write_parquet(result, args.output)
            return 0
        width = args.width if args.width is not None else (0 if args.output else _display.terminal_width())
        # the terminal gets the lines that matter (--footer full: all); a file gets every line
        footer = ("full" if args.output else args.footer) if fmt == "table" else None
        text = _display.render(result, fmt, footer=footer, width=width, hint="(details: --footer full)",
                               file=args.file)
        if args.output:
            if fmt == "html":
                text = _display.html_document(text, title=f"{PROG}: {args.file}")
            Path(args.output).write_text(text, encoding="utf-8")
        else:
            sys.stdout.write(text)
    except OSError as exc:
        raise CLIError(f"cannot write {args.output}: {exc.strerror or _one_line(exc)}") from None
    return 0


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


def _supported(func: Callable[..., Any], options: dict[str, Any], context: str) -> dict[str, Any]:
    """The options ``func`` accepts; an error naming the first option it does not."""
    import inspect

    try:
        params = inspect.signature(func).parameters
    except (TypeError, ValueError):  # pragma: no cover - builtins
        return options
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        return options
    for name in options:
        if name not in params:
            raise CLIError(f"--{name.replace('_', '-')} is not supported with {context}")
    return options


def _metrics_command(args: argparse.Namespace) -> int:
    from pandas_rankeval.core.registry import METRICS

    width = max(len(f"{name}@K") for name in METRICS)
    for name, info in METRICS.items():
        shown = {"none": name, "optional": f"{name}[@K]", "required": f"{name}@K"}[info.cutoff]
        how = f"default weight: {info.default_weight}" if info.grouped else "pooled over all rows, no group weight"
        print(f"{shown:<{width + 2}} {info.summary} ({how})")
    print()
    print(
        f"With --k K, precision/recall/hit_rate written without @K get K (default {DEFAULT_K}); "
        "mrr, ndcg and map get K only when --k is given, else the whole list."
    )
    return 0


def _demo(args: argparse.Namespace | None = None) -> int:
    """Global AUC and GAUC of the two models of :func:`make_impressions`: the better AUC is
    the worse GAUC."""
    import pandas_rankeval
    from pandas_rankeval.datasets import make_impressions

    n_users = getattr(args, "n_users", 2000) or 2000
    seed = getattr(args, "seed", 0)
    df = make_impressions(n_users, seed=seed)
    save = getattr(args, "save", None)
    if save:
        try:
            if _input_format(save, "auto") == "parquet":
                _require_pyarrow()
                df.to_parquet(save, index=False)
            else:
                df.to_csv(save, index=False, sep="\t" if _input_format(save, "auto") == "tsv" else ",")
        except OSError as exc:
            raise CLIError(f"cannot write {save}: {exc.strerror or _one_line(exc)}") from None
    print(
        f"make_impressions(): {len(df):,} impressions of {df['user_id'].nunique():,} users, "
        f"click rate {df['click'].mean():.1%}"
    )
    rows = {}
    with warnings.catch_warnings():
        # The coverage is printed below; no need to warn about it as well.
        warnings.simplefilter("ignore", pandas_rankeval.CoverageWarning)
        for model in ("model_a", "model_b"):
            auc = pandas_rankeval.auc(df, label="click", score=model)
            gauc = pandas_rankeval.gauc(df, group="user_id", label="click", score=model)
            uniform = pandas_rankeval.gauc(df, group="user_id", label="click", score=model, weight="uniform")
            rows[model] = {"AUC": float(auc), "GAUC": float(gauc), "GAUC (uniform)": float(uniform)}
    table = pd.DataFrame.from_dict(rows, orient="index")
    table.index.name = "model"
    print()
    print(table.round(4).to_string())
    print()
    # Which groups GAUC can use depends on the labels only, so it is the same for both models.
    print(f"GAUC coverage: {gauc.coverage}")
    print()
    a, b = rows["model_a"], rows["model_b"]
    if a["AUC"] > b["AUC"] and a["GAUC"] < b["GAUC"]:
        print(
            f"AUC up, GAUC not: model_a has the higher global AUC ({a['AUC']:.3f} vs {b['AUC']:.3f}) "
            f"but the lower GAUC ({a['GAUC']:.3f} vs {b['GAUC']:.3f}).\n"
            "Global AUC pools every user's rows, so ranking heavy clickers above light ones counts;\n"
            "model_a learned which users click, model_b which items each user clicks. GAUC compares\n"
            "items within a user only, which is what a ranking shown to that user needs."
        )
    else:
        better = "model_a" if a["GAUC"] > b["GAUC"] else "model_b"
        print(f"Here global AUC and GAUC agree: {better} has the higher GAUC.")
    print()
    if save:
        print(f"Saved the table to {save}. Evaluate it with:")
        target = save
    else:
        print("Save the table with 'pandas-rankeval demo --save impressions.csv', then:")
        target = "impressions.csv"
    print(
        f"  {PROG} eval {target} --group user_id --label click --score model_a model_b "
        "--metrics auc gauc ndcg@10 --by activity"
    )
    return 0


# ---------------------------------------------------------------------------------------------
# parser and entry point


def build_parser() -> argparse.ArgumentParser:
    from . import __version__

    parser = _Parser(
        prog=PROG,
        description="Ranking metrics for pandas DataFrames: AUC, GAUC, MRR, NDCG, MAP, "
        "precision/recall/hit rate at k, exact under ties.",
        epilog=f"'{PROG} FILE ...' is short for '{PROG} eval FILE ...'.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="{eval,metrics,demo}", parser_class=_Parser)

    ev = commands.add_parser(
        "eval",
        help="evaluate score columns of a CSV or Parquet file",
        description="Evaluate score columns of a CSV, TSV or Parquet file (one row per shown item). "
        "Give FILE first: --group, --score, --metrics and --by take several values.",
        epilog="Examples:\n"
        f"  {PROG} eval data.csv --group user_id --label click --score model_a model_b\n"
        f"  {PROG} eval data.parquet --group query --label rel --score bm25 --metrics ndcg@10 map precision --k 5\n"
        f"  {PROG} eval data.csv --group user_id --label click --score new --baseline old --metrics gauc ndcg@10",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ev.add_argument("file", metavar="FILE", help="CSV (also .tsv, compressed), Parquet (.parquet, .pq; needs pyarrow), or - for CSV on stdin")
    ev.add_argument("--group", "-g", nargs="+", required=True, metavar="COL", help="group column(s): user, query or session")
    ev.add_argument("--label", "-l", required=True, metavar="COL", help="label column: click (0/1, bool) or graded relevance")
    ev.add_argument("--score", "--scores", "-s", nargs="+", required=True, metavar="COL", help="score column(s), one per model; higher ranks first")
    ev.add_argument(
        "--metrics", "-m", nargs="+", default=list(DEFAULT_METRICS), metavar="NAME",
        help="metric names (space or comma separated): auc gauc mrr[@K] ndcg[@K] map[@K] precision[@K] "
        "recall[@K] hit_rate[@K]; default: %(default)s",
    )
    ev.add_argument(
        "--k", "-k", type=_positive_int, default=None, metavar="K",
        help=f"cutoff of the metrics named without @K: precision/recall/hit_rate always (default {DEFAULT_K}); "
        "mrr/ndcg/map only when --k is given (else the whole list)",
    )
    ev.add_argument("--weight", "-w", metavar="W", help="group weight: count, clicks, log1p, uniform or a column (summed per group); default: count for gauc, uniform for list metrics")
    ev.add_argument("--by", nargs="+", metavar="COL", help="segment column(s), constant within a group: one row per segment and model")
    ev.add_argument("--ci", type=_level, metavar="LEVEL", help="add bootstrap confidence intervals at this level (e.g. 0.95); with --baseline the default is 0.95")
    ev.add_argument("--n-boot", type=_positive_int, default=1000, metavar="N", help="bootstrap replicates (default %(default)s)")
    ev.add_argument("--seed", type=int, default=0, help="bootstrap seed (default %(default)s)")
    ev.add_argument("--baseline", metavar="COL", help="compare every other --score column with this one: differences, CIs, p-values")
    ev.add_argument("--all-pairs", action="store_true", help="compare every pair of --score columns (each later one against each earlier one), one family of tests")
    ev.add_argument("--method", choices=("auto", "randomization", "bootstrap"), help="with --baseline: the paired test (default auto: exact / analytic sign-flip p-values; randomization: Monte Carlo sign flips)")
    ev.add_argument("--adjust", choices=("holm", "bh", "none"), help="with --baseline: multiple-testing adjustment (default holm; bh: false discovery rate)")
    ev.add_argument("--family", choices=("table", "metric"), help="with --baseline: the family of the adjustment, the whole table (default) or each metric")
    ev.add_argument("--auc-method", choices=("delong", "bootstrap"), help="interval and test of global auc: clustered DeLong (default) or the group bootstrap")
    ev.add_argument("--ci-method", choices=("percentile", "studentized"), help="bootstrap interval of the group metrics (default percentile)")
    ev.add_argument("--alpha", type=_level, metavar="A", help="with --baseline: level of the 'significant' column (default 0.05)")
    ev.add_argument("--ties", choices=("expected", "pessimistic", "optimistic"), help="how tied scores count (default expected)")
    ev.add_argument("--tiebreak", metavar="COL", help="column ordering rows with equal scores (ascending)")
    ev.add_argument("--threshold", type=float, help="a row is relevant when label >= THRESHOLD (default: label > 0)")
    ev.add_argument("--empty", choices=("zero", "skip", "error"), help="list metrics: groups with no relevant row (default zero)")
    ev.add_argument("--gain", choices=("exp2", "linear"), help="NDCG gain (default exp2)")
    ev.add_argument("--min-size", type=_non_negative_int, metavar="N", help="gauc: skip groups with fewer rows")
    ev.add_argument("--min-pos", type=_non_negative_int, metavar="N", help="gauc: skip groups with fewer positives")
    ev.add_argument("--min-neg", type=_non_negative_int, metavar="N", help="gauc: skip groups with fewer negatives")
    ev.add_argument("--nan-policy", choices=("raise", "omit"), help="missing values: raise (default) or omit their rows")
    ev.add_argument(
        "--progress", action=argparse.BooleanOptionalAction, default=None,
        help="a progress bar on stderr for the bootstrap and the tests of --ci / --baseline "
        "(default: when stderr is a terminal and tqdm is installed)",
    )
    ev.add_argument(
        "--view", choices=VIEWS, default="full",
        help="full: the table (one row per model, or per model and metric with --baseline); compact: metrics "
        "as rows, models side by side; summary (with --baseline): models x metrics, ▲/▼ where significantly "
        "better/worse; groups: one row per group with each model's metrics, to join with your data "
        "(default %(default)s)",
    )
    ev.add_argument(
        "--format", "-f", choices=FORMATS,
        help="output format (default table, or from the --output suffix); every format keeps the footer "
        "(coverage, significance, choices); csv writes it as '# ' lines: pd.read_csv(path, comment='#')",
    )
    ev.add_argument(
        "--footer", choices=("short", "full"), default="short",
        help="table format: the footer lines that matter (short, default) or every line (full); "
        "files always get every line",
    )
    ev.add_argument(
        "--width", type=_non_negative_int, metavar="N",
        help="table format: wrap at N columns, between models, never inside one "
        "(default: the terminal's width, COLUMNS, or 80; 0: no wrapping; files: no wrapping)",
    )
    ev.add_argument(
        "--output", "-o", metavar="PATH",
        help="write the result to PATH instead of stdout, in the format of its suffix: .txt, .csv, .json, "
        ".md, .html or .parquet (needs pyarrow)",
    )
    ev.add_argument("--sep", metavar="CHAR", help="CSV field separator (default ',', a tab for .tsv; '\\t' or tab for a tab)")
    ev.add_argument("--input-format", choices=("auto", "csv", "tsv", "parquet"), default="auto", help="input format (default: from the file name)")
    ev.set_defaults(handler=_eval)

    mt = commands.add_parser("metrics", help="list the metric names", description="List the metric names.")
    mt.set_defaults(handler=_metrics_command)

    dm = commands.add_parser(
        "demo",
        help="global AUC vs GAUC on a synthetic impressions table",
        description="Global AUC vs GAUC of two models on make_impressions(): the better AUC is the worse GAUC.",
    )
    dm.add_argument("--save", metavar="PATH", help="also write the table (CSV, or Parquet for .parquet)")
    dm.add_argument("--n-users", type=_positive_int, default=2000, metavar="N", help="users (default %(default)s)")
    dm.add_argument("--seed", type=int, default=0, help="data seed (default %(default)s)")
    dm.set_defaults(handler=_demo)
    return parser


def _error(message: str) -> None:
    print(f"{PROG}: error: {message}", file=sys.stderr)


#: Keyword arguments of the library that are command-line options here.
_OPTION_NAMES = (
    "nan_policy", "method", "auc_method", "ci_method", "weight", "ties", "empty", "gain", "threshold", "tiebreak",
    "min_size", "min_pos", "min_neg", "alpha", "n_boot", "ci", "seed", "adjust", "family",
)
_KWARG = re.compile(r"\b(" + "|".join(_OPTION_NAMES) + r")=(?:'([^']*)'|([\w.+-]+))")


_LIST_KWARG = re.compile(r"\b(group|by|scores)=\[([^\]]*)\]")
_OPTION_OF = {"group": "--group", "by": "--by", "scores": "--score"}


def _cli_message(exc: BaseException) -> str:
    """The library's message, naming command-line options (``--nan-policy omit``,
    ``--group user_id device``) where it names keyword arguments (``nan_policy='omit'``,
    ``group=['user_id', 'device']``)."""
    text = _one_line(exc)
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
    if args_list and args_list[0] not in COMMANDS and not args_list[0].startswith("-"):
        args_list.insert(0, "eval")  # pandas-rankeval FILE ...
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
