"""How results look: tables as text, HTML, Markdown, JSON, CSV and Parquet with their footers, and plots.

The stages, each its own module: cells (:mod:`.formatting`), footers (:mod:`.footer`), the
views of each table (:mod:`.views`), the layout rule and text (:mod:`.layout`), HTML and
Markdown (:mod:`.html`), exports (:mod:`.exports`), and the table type (:mod:`.table`).
Plots, which compute from a frame, are one layer up: :mod:`pandas_rankeval.plotting`.
"""

from __future__ import annotations

import pandas as pd

from .exports import (
    FORMATS,
    csv_text,
    export_frame,
    format_of_path,
    html_document,
    render,
    terminal_width,
    to_json,
    write_parquet,
)
from .footer import coverage_sentence, describe_params
from .formatting import fmt_interval, fmt_metric, fmt_number, fmt_p
from .html import to_markdown as _markdown
from .layout import Shown, column_groups
from .table import ResultTable, as_result_table, footer_lines
from .views import table_kind

__all__ = [
    "FORMATS",
    "ResultTable",
    "as_result_table",
    "coverage_sentence",
    "csv_text",
    "describe_params",
    "export_frame",
    "fmt_interval",
    "fmt_metric",
    "fmt_p",
    "footer_lines",
    "format_of_path",
    "format_table",
    "html_document",
    "render",
    "table_kind",
    "terminal_width",
    "to_json",
    "to_markdown",
    "write_parquet",
]


def to_markdown(df: pd.DataFrame) -> str:
    """Any frame as a GitHub pipe table (no ``tabulate`` needed): named index levels first,
    numbers right-aligned, no footer.

    >>> print(to_markdown(pd.DataFrame({"auc": ["0.5000"]}, index=pd.Index(["a"], name="model"))))
    | model |    auc |
    | :---- | -----: |
    | a     | 0.5000 |
    """
    frame = pd.DataFrame(df).map(lambda v: v if isinstance(v, str) else fmt_number(v))
    return _markdown(Shown(frame, column_groups(frame.columns)), footer="none").rstrip("\n")


def format_table(df: pd.DataFrame, fmt: str = "table") -> str:
    """A result table as text: ``"table"`` (terminal) or ``"markdown"``, with its footer."""
    return render(df, fmt)
