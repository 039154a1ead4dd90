"""The one export rule: every way out of a table keeps its footer.

=============  ===========================================================================
format         the footer
=============  ===========================================================================
``table``      the lines that matter, wrapped at the width; the details on request
``markdown``   the lines that matter as a list, the details in a ``<details>`` block
``html``       the lines that matter, the details in a closed ``<details>`` element
``json``       ``"footer"`` (every line) and ``"footer_short"``, next to the records
``csv``        every line as a trailing ``# `` comment: ``pd.read_csv(path, comment="#")``
``parquet``    every line in the file's metadata (``pd.read_parquet(path).attrs["footer"]``)
=============  ===========================================================================

The numbers of ``json``, ``csv`` and ``parquet`` are unrounded; index levels become columns
(never a tuple written as a string).
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from pandas_rankeval.core.inputs.validation import check_option

from .footer import Footer
from .formatting import DOWN, UP, direction
from .html import to_html, to_markdown
from .layout import DEFAULT_WIDTH, to_text
from .views import footer_of, shown_of

__all__ = ["FOOTERS", "FORMATS", "csv_text", "export_frame", "format_of_path", "html_document", "render", "terminal_width",
           "to_json", "write_parquet"]

FORMATS = ("table", "markdown", "html", "json", "csv")
FOOTERS = ("short", "full", "none")
#: Output formats by file suffix (the command line's ``-o`` and :meth:`ResultTable.export`).
SUFFIXES = {
    ".html": "html", ".htm": "html", ".csv": "csv", ".json": "json", ".md": "markdown",
    ".markdown": "markdown", ".txt": "table", ".parquet": "parquet", ".pq": "parquet",
}


def format_of_path(path: str | os.PathLike[str]) -> str:
    """The output format for a file name, or a ValueError that lists the known suffixes.

    >>> format_of_path("out.html"), format_of_path("report.MD")
    ('html', 'markdown')
    """
    suffix = Path(path).suffix.lower()
    if suffix not in SUFFIXES:
        known = ", ".join(sorted({s for s in SUFFIXES if s not in (".htm", ".markdown", ".pq")}))
        got = f"'{suffix}'" if suffix else "no suffix"
        raise ValueError(f"cannot tell the output format of {os.fspath(path)} ({got}); name it {known}")
    return SUFFIXES[suffix]


def terminal_width() -> int:
    """The width text wraps at: the terminal's when printing to one (``COLUMNS`` first), else
    pandas' ``display.width`` (80 by default)."""
    if os.environ.get("COLUMNS", "").isdigit():
        return int(os.environ["COLUMNS"])
    isatty = getattr(sys.stdout, "isatty", None)
    if callable(isatty) and isatty():
        return shutil.get_terminal_size((DEFAULT_WIDTH, 24)).columns
    width = pd.get_option("display.width")
    return int(width) if width else DEFAULT_WIDTH


def _json_default(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, (set, tuple)):
        return list(value)
    return str(value)


def with_direction(df: pd.DataFrame) -> pd.DataFrame:
    """A comparison with a ``direction`` column after ``significant``: ``"better"`` or ``"worse"``
    where the difference is significant (the side of ``▲`` / ``▼``, each metric's better side:
    higher, lower for log loss, closer to 1 for PCOC), empty elsewhere. The exports carry it, so
    that a file says which way a significant model went, not only the sign of ``diff``. Any
    other table is returned as it is."""
    if "significant" not in df.columns or "diff" not in df.columns or "direction" in df.columns:
        return df
    sides = df.attrs.get("direction", {})
    names = [str(m) for m in df.index.get_level_values("metric")] if "metric" in (df.index.names or []) else (
        [str(m) for m in df["metric"]] if "metric" in df.columns else [""] * len(df))
    base = df["baseline_value"] if "baseline_value" in df.columns else [None] * len(df)
    value = df["value"] if "value" in df.columns else [None] * len(df)
    words = {UP: "better", DOWN: "worse"}
    side = [words.get(direction(d, s, sides.get(n, "higher"), v, b))
            for d, s, n, v, b in zip(df["diff"], df["significant"], names, value, base)]
    frame = pd.DataFrame(df).copy(deep=False)
    frame.insert(list(frame.columns).index("significant") + 1, "direction", pd.array(side, dtype=object))
    frame.attrs = dict(df.attrs)
    return frame


def export_frame(df: pd.DataFrame) -> pd.DataFrame:
    """The rows and columns a JSON, CSV or Parquet file of ``df`` holds: the data with index levels
    as columns and one-level string column names (a comparison with its ``direction``:
    :func:`with_direction`)."""
    frame = pd.DataFrame(with_direction(df))
    if isinstance(frame.columns, pd.MultiIndex):
        frame.columns = [" ".join(str(x) for x in c if str(x)) for c in frame.columns]
    named = any(n is not None for n in frame.index.names)
    return frame.reset_index() if named or isinstance(frame.index, pd.MultiIndex) else frame.reset_index(drop=True)


def _footer(df: pd.DataFrame) -> Footer:
    return footer_of(df)


def to_json(df: pd.DataFrame, *, indent: int | None = 2, **meta: Any) -> str:
    """Records (index levels as fields, NaN as null, unrounded), the attrs and the footer."""
    shown = _footer(df)
    records = json.loads(export_frame(df).to_json(orient="records", double_precision=15, date_format="iso"))
    payload: dict[str, Any] = dict(meta)
    for key, value in df.attrs.items():
        if key not in ("footer", "footer_short"):
            payload[key] = value  # type: ignore[index]  # stubs narrower than runtime
    payload["footer"] = shown.lines
    payload["footer_short"] = shown.short
    payload["results"] = records
    return json.dumps(payload, indent=indent, default=_json_default, ensure_ascii=False) + "\n"


def csv_text(df: pd.DataFrame, **kwargs: Any) -> str:
    """The unrounded table as CSV (pandas' ``to_csv`` keywords), then every footer line as a
    ``# `` comment."""
    frame = pd.DataFrame(with_direction(df))
    if isinstance(frame.columns, pd.MultiIndex):
        frame.columns = [" ".join(str(x) for x in c if str(x)) for c in frame.columns]
    body = frame.to_csv(None, **kwargs)
    return body + "".join(f"# {line}\n" for line in _footer(df).lines)


def write_parquet(df: pd.DataFrame, path: Any, *, spell: Callable[[str], str] | None = None, **kwargs: Any) -> None:
    """The unrounded table (index levels as columns) with its attrs and every footer line in the
    file's metadata: ``pd.read_parquet(path).attrs["footer"]`` (each line through ``spell``
    when given: the command line's flags)."""
    frame = export_frame(df)
    frame.columns = [str(c) for c in frame.columns]
    attrs = json.loads(json.dumps(dict(df.attrs), default=_json_default))
    shown = _footer(df)
    attrs["footer"], attrs["footer_short"] = shown.lines, shown.short
    if spell is not None:
        attrs["footer"] = [spell(line) for line in shown.lines]
        attrs["footer_short"] = [spell(line) for line in shown.short]
    frame.attrs = attrs
    try:
        frame.to_parquet(path, index=False, **kwargs)
    except ImportError as exc:
        raise ImportError(
            "writing Parquet needs pyarrow: pip install 'pandas_rankeval[parquet]' (or pip install pyarrow)"
        ) from exc


def html_document(fragment: str, title: str = "pandas_rankeval") -> str:
    """A table's HTML as a page of its own (UTF-8, so that ▲ / ▼ show in any browser)."""
    import html as _html

    return (
        '<!DOCTYPE html>\n<html><head><meta charset="utf-8">'
        f"<title>{_html.escape(title)}</title></head>\n"
        '<body style="font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;font-size:14px;margin:1.5em">\n'
        f"{fragment}\n</body></html>\n"
    )


def render(
    df: pd.DataFrame,
    fmt: str = "table",
    *,
    footer: str | None = None,
    width: int | None = None,
    hint: str | None = None,
    **meta: Any,
) -> str:
    """A table in one format: ``"table"`` (terminal text), ``"markdown"``, ``"html"``,
    ``"json"`` or ``"csv"``; every format keeps the footer (see the module docstring).

    ``footer`` (``"short"``, ``"full"`` or ``"none"``) picks the footer lines of ``"table"``
    (default ``"short"``) and ``"markdown"`` (default ``"full"``: the details folded);
    ``width`` is the text width (default: :func:`terminal_width`; 0: no wrapping), ``hint``
    the line under a short text footer that says how to see the details; ``meta`` goes into
    the JSON (the input file's name, for example).
    """
    check_option(fmt, "fmt", "render", FORMATS)
    if footer is not None:
        check_option(footer, "footer", "render", FOOTERS)
    if fmt == "json":
        return to_json(df, **meta)
    if fmt == "csv":
        return csv_text(df)
    shown = shown_of(df)
    if fmt == "html":
        return to_html(shown)
    if fmt == "markdown":
        return to_markdown(shown, footer or "full")
    width = terminal_width() if width is None else int(width)
    n = len(shown.details)
    hint = hint or f"(+{n} line{'' if n == 1 else 's'} of details: .to_text(footer='full'))"
    return to_text(shown, width or None, footer or "short", hint=hint)
