"""Command line, stage 1: reading the input file (CSV, TSV, Parquet or stdin) and checking its values.

:func:`read_table` reads the needed columns (group keys as text, canonical integers as int64:
:func:`canonical_keys`); :func:`check_values` checks that the label, score and weight columns
hold numbers. Every problem is a :class:`~pandas_rankeval.cli.common.CLIError` that names the
file, the column, the line and the option to change.
"""

from __future__ import annotations

import io
import sys
import warnings
from collections.abc import Hashable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from .common import CLIError, _one_line

_PARQUET_SUFFIXES = (".parquet", ".pq", ".parq")

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
    available: Sequence[Hashable],
    wanted: Sequence[Hashable],
    path: str,
    weight: str | None = None,
    flags: Mapping[Hashable, str] | None = None,
) -> None:
    """Every wanted column is in the file; ``--weight`` is a weight name or a column, not both.

    ``flags`` names the option that asked for each column (``--group``, ``--score``...): a
    missing column is reported by its option, with the nearest name of the file."""
    from pandas_rankeval.core.inputs.options import WEIGHT_NAMES, WEIGHT_MEANINGS
    from pandas_rankeval.core.inputs.validation import check_columns, closest_name

    names = list(available)
    if weight is not None and weight in WEIGHT_NAMES and weight in names:
        raise CLIError(
            f"--weight {weight} is ambiguous: it is a weight name ({WEIGHT_MEANINGS[weight][0]}) and "
            f"{path} has a column {weight!r}. To weigh groups by that column's per-group sum, rename "
            f"the column and pass the new name; for {WEIGHT_MEANINGS[weight][0]}, drop or rename the "
            "column (or omit --weight for the defaults: count for gauc, uniform for list metrics)"
        )
    if weight is not None and weight not in WEIGHT_NAMES and weight not in names:
        close = closest_name(weight, [*WEIGHT_NAMES, *map(str, names)])
        hint = f"; did you mean {close!r}?" if close is not None else f"; the columns are {list(map(str, names))!r}"
        raise CLIError(
            f"--weight {weight!r} is neither a weight name ({', '.join(WEIGHT_NAMES)}) nor a column "
            f"of {path}{hint}"
        )
    missing = [c for c in wanted if c not in names]
    if missing and flags and _separator_hint(names, path) is None:
        bits = []
        for col in missing:
            close = closest_name(col, names)
            bits.append(
                f"{flags.get(col, 'column')} {str(col)!r} is not a column of {path}"
                + (f"; did you mean {close!r}?" if close is not None else "")
            )
        if all(closest_name(c, names) is None for c in missing):
            bits.append(f"the columns are {list(map(str, names))!r}")
        raise CLIError("; ".join(bits))
    try:
        check_columns(pd.DataFrame(columns=pd.Index(names)), wanted)
    except (KeyError, ValueError) as exc:
        hint = _separator_hint(names, path)  # type: ignore[assignment]  # stubs narrower than runtime
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
    flags: Mapping[Hashable, str] | None = None,
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
    separated by another character gets an error that says so. ``flags`` maps each column to
    the option that named it (``--group``...), for the error of a missing column.
    """
    kind = _input_format(path, fmt)
    wanted = list(dict.fromkeys(columns))
    shown = "<stdin>" if path == "-" else path
    _check_path(path)
    if kind == "parquet":
        return _read_parquet(path, wanted, shown, weight, flags)
    sep = sep if sep else ("\t" if kind == "tsv" else ",")
    what = "TSV" if kind == "tsv" else "CSV"
    if path != "-" and not path.lower().endswith(_COMPRESSED_SUFFIXES):
        _check_text_head(path, shown, what)
    try:
        return _parse_csv(path, sep, wanted, set(text_columns), shown, what, weight, flags)
    except CLIError:
        raise
    except Exception as exc:
        raise _csv_error(exc, shown, what) from None


def _check_path(path: str) -> None:
    """A path that names a file (``-``: stdin)."""
    if path != "-":
        p = Path(path)
        if not p.exists():
            raise CLIError(f"cannot read {path}: no such file")
        if p.is_dir():
            raise CLIError(f"cannot read {path}: it is a directory")


def _read_parquet(
    path: str, wanted: list[Hashable], shown: str, weight: str | None, flags: Mapping[Hashable, str] | None
) -> pd.DataFrame:
    """The ``wanted`` columns of a Parquet file, its schema checked first."""
    _require_pyarrow()
    import pyarrow.parquet as pq

    try:
        names = pq.read_schema(path).names
    except Exception as exc:  # ArrowInvalid, OSError, ...
        raise CLIError(f"cannot read {shown} as Parquet: {_one_line(exc)}") from None
    _check_columns(names, wanted, shown, weight, flags)
    try:
        return pd.read_parquet(path, columns=wanted)  # type: ignore[arg-type]  # stubs narrower than runtime
    except Exception as exc:
        raise CLIError(f"cannot read {shown} as Parquet: {_one_line(exc)}") from None


def _check_text_head(path: str, shown: str, what: str) -> None:
    """The first 8 KiB of a file read as CSV / TSV: not a Parquet file, not binary."""
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


def _parse_csv(
    path: str, sep: str, wanted: list[Hashable], text: set[Hashable], shown: str, what: str,
    weight: str | None, flags: Mapping[Hashable, str] | None,
) -> pd.DataFrame:
    """The header checked, then every column parsed; the ``wanted`` ones returned."""
    if path == "-":
        data: Any = io.StringIO(sys.stdin.read())
        header = pd.read_csv(data, sep=sep, nrows=0).columns
        data.seek(0)
    else:
        data = path
        header = pd.read_csv(path, sep=sep, nrows=0).columns
    _check_columns(header, wanted, shown, weight, flags)  # type: ignore[arg-type]  # stubs narrower than runtime
    # every column is parsed (usecols would let a row with extra fields through), and
    # index_col=False: a row longer than the header never becomes an index silently
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", pd.errors.ParserWarning)
            frame = pd.read_csv(
                data,
                sep=sep,
                index_col=False,
                dtype={c: str for c in wanted if c in text},
                low_memory=False,
            )
    except pd.errors.ParserWarning:
        raise CLIError(
            f"cannot read {shown} as {what}: its rows have more fields than its header "
            f"({len(header)} names); fix the header or the rows"
        ) from None
    return canonical_keys(frame[wanted], [c for c in wanted if c in text])


def _csv_error(exc: Exception, shown: str, what: str) -> CLIError:
    """The error of a CSV / TSV that pandas could not read, in the reader's words."""
    if isinstance(exc, pd.errors.ParserError):
        text = _one_line(exc)
        if "Expected" in text and "fields" in text:
            text += " (a row has more fields than the header)"
        return CLIError(f"cannot read {shown} as {what}: {text}")
    if isinstance(exc, pd.errors.EmptyDataError):
        return CLIError(f"cannot read {shown}: the file is empty")
    if isinstance(exc, UnicodeDecodeError):
        return CLIError(
            f"cannot read {shown} as {what}: it is not UTF-8 text"
            " (a Parquet file needs a .parquet name or --input-format parquet)"
        )
    if isinstance(exc, PermissionError):
        return CLIError(f"cannot read {shown}: permission denied")
    return CLIError(f"cannot read {shown} as {what}: {_one_line(exc)}")  # ParserError, OSError, ...


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


def read_trec_files(runs: Sequence[str], qrels: str, **options: Any) -> pd.DataFrame:
    """``--trec-run RUN ... --qrels QRELS``: :func:`pandas_rankeval.read_trec` on the files, with
    its options (``depth``, ``complete``, ``judged_only``, ``tiebreak``). Runs are named by their
    tag, else by their file name; runs whose tags are equal (two runs of one system) are named by
    their file names instead. A file that cannot be read is a :class:`CLIError` naming its option."""
    from pandas_rankeval.trec import read_trec

    for flag, path in [*(("--trec-run", r) for r in runs), ("--qrels", qrels)]:
        p = Path(path)
        if not p.is_file():
            raise CLIError(f"{flag}: cannot read {path}: {'it is a directory' if p.is_dir() else 'no such file'}")
    try:
        try:
            return read_trec(list(runs), qrels, **options)
        except ValueError as exc:
            names = {Path(r).name: r for r in runs}
            if "two runs are named" not in str(exc) or len(names) < len(runs):
                raise
            return read_trec(names, qrels, **options)
    except (ValueError, TypeError, OSError, UnicodeDecodeError, pd.errors.ParserError) as exc:
        raise CLIError(f"--trec-run / --qrels: {_one_line(exc)}") from None
