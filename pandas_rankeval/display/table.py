"""The table type of ``report()``, ``compare()`` and ``per_group()``: a DataFrame with a footer.

It prints (terminal) and renders (Jupyter) under the one layout rule, with the two or three
footer lines that matter; every export (``to_csv``, ``to_json``, ``to_markdown``,
``to_html``, ``to_parquet``, ``render``) keeps the whole footer. The numbers are never rounded.

Row selections (``head``, ``tail``, ``sort_values``, ``nlargest``, ``nsmallest``, ``sample``,
``query``, a boolean mask) stay tables that print formatted and say which rows they are;
everything else derived from a table (arithmetic, new columns, joins) is a plain DataFrame.
"""

from __future__ import annotations

import os
from collections.abc import Hashable
from typing import Any

import numpy as np
import pandas as pd

from pandas_rankeval.core.inputs.validation import check_option, invalid_parameter

from .exports import (
    FOOTERS,
    csv_text,
    html_document,
    render,
    terminal_width,
    to_json,
    write_parquet,
)
from .footer import FooterLines
from .html import to_html
from .layout import to_text
from .views import (
    compact_compare,
    compact_report,
    footer_of,
    shown_of,
    summary_of,
    table_kind,
)

__all__ = ["ResultTable", "as_result_table"]


def _write(text: str, buf: Any, encoding: str = "utf-8") -> str | None:
    if buf is None:
        return text
    if hasattr(buf, "write"):
        buf.write(text)
        return None
    with open(os.fspath(buf), "w", encoding=encoding, newline="") as fh:
        fh.write(text)
    return None


class ResultTable(pd.DataFrame):
    """A report, comparison or per-group table that shows its coverage and choices.

    It is a DataFrame in every other respect (the numbers are unrounded). ``footer()`` gives
    the lines under the table, ``to_text()`` / ``to_markdown()`` / ``render(fmt)`` the whole
    display, ``compact()`` a view with metrics as rows and models side by side, and
    ``summary()`` (of a comparison) models x metrics with the significant differences marked.

    Examples
    --------
    >>> import pandas_rankeval as pre
    >>> df = pre.datasets.make_impressions(n_users=300, seed=1)
    >>> rep = pre.report(
    ...     df,
    ...     group="user_id",
    ...     label="click",
    ...     scores=["model_a", "model_b"],
    ...     metrics=["gauc", "mrr"],
    ... )
    >>> type(rep).__name__, list(rep.index)
    ('ResultTable', ['model_a', 'model_b'])
    >>> any("groups" in line for line in rep.footer())
    True
    >>> rep.compact().shape[1]
    2
    """

    @property
    def _constructor(self) -> type[pd.DataFrame]:  # derived frames are plain DataFrames
        return pd.DataFrame

    # --- footer and text ----------------------------------------------------------------------

    def footer(self, level: str = "full") -> list[str]:
        """The footer lines: ``"full"`` (every fact, as every export carries them) or
        ``"short"`` (the two or three shown under the table). A list of strings that
        prints as the lines: ``print(table.footer())``."""
        check_option(level, "level", "footer()", ("full", "short"))
        footer = footer_of(self)
        return FooterLines(footer.lines if level == "full" else footer.short)

    def to_text(self, footer: str = "short", width: int | None = None) -> str:
        """The table as printed in a terminal: parts of whole column groups that fit ``width``
        (default: the terminal's, or ``display.width``; 0: no wrapping), then the footer:
        ``"short"`` (the lines that matter), ``"full"`` or ``"none"``. A label shortened to fit
        keeps what tells it apart from the others (``"lightgbm_…_v17"``, ``"lightgbm_…_v18"``);
        labels no cut tells apart stay longer and the table takes more parts."""
        return render(self, "table", footer=footer, width=width)

    def render(self, fmt: str = "table", footer: str | None = None, width: int | None = None) -> str:
        """The table and its footer as ``"table"``, ``"markdown"``, ``"html"``, ``"json"`` or
        ``"csv"``."""
        return render(self, fmt, footer=footer, width=width)

    # --- exports: each keeps the footer -------------------------------------------------------

    def to_polars(self) -> Any:
        """The table as a polars DataFrame: the index levels (model, metric, segments) become
        the first columns, the numbers stay unrounded. Polars frames carry no footer: take it
        from ``footer()``.

        Examples
        --------
        >>> import pandas_rankeval as pre
        >>> df = pre.datasets.make_impressions(n_users=100, seed=0)
        >>> rep = pre.report(
        ...     df,
        ...     group="user_id",
        ...     label="click",
        ...     scores=["model_a", "model_b"],
        ...     metrics=["gauc"],
        ... )
        >>> pl_rep = rep.to_polars()
        >>> pl_rep.columns[:2], pl_rep.height
        (['model', 'gauc'], 2)
        """
        try:
            import polars as pl
        except ImportError:
            raise ImportError("to_polars() needs polars: pip install polars") from None
        flat = pd.DataFrame(self)
        if any(n is not None for n in flat.index.names):
            flat = flat.reset_index()
        else:
            flat = flat.reset_index(drop=True)
        flat.columns = ["_".join(map(str, c)) if isinstance(c, tuple) else str(c) for c in flat.columns]
        flat.attrs = {}
        return pl.from_pandas(flat)

    def to_markdown(self, buf: Any = None, *, footer: str = "full", **kwargs: Any) -> str | None:  # type: ignore[override]
        """The table as a GitHub pipe table (no ``tabulate`` needed) and its footer: the lines that
        matter as a list, the details folded in ``<details>``."""
        _no_pandas_kwargs("to_markdown", kwargs)
        return _write(render(self, "markdown", footer=footer), buf)

    def to_html(self, buf: Any = None, **kwargs: Any) -> str | None:  # type: ignore[override]
        """The table as one scrolling HTML table with inline styles (for pages and e-mails),
        then its footer (the details in a closed ``<details>``); written to a path, a whole
        page."""
        _no_pandas_kwargs("to_html", kwargs)
        fragment = render(self, "html")
        return _write(fragment if buf is None or hasattr(buf, "write") else html_document(fragment), buf)

    def to_csv(self, path_or_buf: Any = None, **kwargs: Any) -> str | None:  # type: ignore[override]
        """pandas' CSV of the unrounded table (its keywords apply), then every footer line as a
        ``# `` comment: read it back with ``pd.read_csv(path, comment="#")``."""
        encoding = kwargs.pop("encoding", None) or "utf-8"
        return _write(csv_text(self, **kwargs), path_or_buf, encoding)

    def to_json(self, path_or_buf: Any = None, *, indent: int | None = 2, **kwargs: Any) -> str | None:  # type: ignore[override]
        """Records (index levels as fields, NaN as null, unrounded), the attrs and the footer
        (``"footer"``: every line; ``"footer_short"``). For pandas' own layouts, use
        ``pd.DataFrame(table).to_json(...)``."""
        _no_pandas_kwargs("to_json", kwargs)
        return _write(to_json(self, indent=indent), path_or_buf)

    def to_parquet(self, path: Any = None, **kwargs: Any) -> Any:  # type: ignore[override]
        """The unrounded table (index levels as columns) with its attrs and footer in the file's
        metadata: ``pd.read_parquet(path).attrs["footer"]``."""
        if path is None:
            raise ValueError("to_parquet() of a result table needs a path (the footer goes in the file's metadata).")
        write_parquet(self, path, **kwargs)
        return None

    # --- views --------------------------------------------------------------------------------

    def compact(
        self, baseline: Hashable | None = None, pair: tuple[Hashable, Hashable] | None = None
    ) -> ResultTable:
        """A view for reading: metrics as rows, models side by side (within each segment), an
        interval in its estimate's cell (``0.6900 [0.6160, 0.7440]``).

        For a :func:`~pandas_rankeval.report`, ``baseline`` adds each model's difference and
        relative lift to that model. For a :func:`~pandas_rankeval.compare` table: the
        baseline's value, then per model its value, the difference with its interval, the lift
        and the adjusted p-value (▲ / ▼ where significantly better / worse). The cells are
        strings; the numbers stay in the table itself. An all-pairs comparison shows one block
        per pair (stacked in HTML); ``pair=("model_c", "model_b")`` shows that pair alone (its
        p-values still adjusted over the whole table's family, as the footer says).

        Examples
        --------
        >>> import pandas_rankeval as pre
        >>> df = pre.datasets.make_impressions(n_users=300, seed=1)
        >>> df["model_c"] = df["model_b"] * 0.5 + df["model_a"]
        >>> cmp = pre.compare(
        ...     df,
        ...     group="user_id",
        ...     label="click",
        ...     scores=["model_a", "model_b", "model_c"],
        ...     metrics=["gauc", "mrr"],
        ...     n_boot=200,
        ... )
        >>> list(
        ...     cmp.compact(pair=("model_c", "model_b"))
        ...     .columns.get_level_values(0)
        ...     .unique()
        ... )
        ['model_b', 'model_c']
        """
        kind = table_kind(self)
        if pair is not None and kind != "compare":
            raise ValueError(f"compact(pair=...) applies to compare() tables, not to a {kind} table.")
        if kind == "compare":
            if baseline is not None and baseline != self.attrs.get("baseline"):
                raise ValueError("compact() of a compare() table uses its own baseline; leave 'baseline' out.")
            table: pd.DataFrame = self if pair is None else self._pair(pair)
            return _wrap(compact_compare(table))
        if kind != "report":
            raise ValueError(f"compact() applies to report() and compare() tables, not to a {kind} table.")
        return _wrap(compact_report(self, baseline))

    def _pair(self, pair: tuple[Hashable, Hashable]) -> ResultTable:
        """The rows of one (model, other model) pair, the whole table's attrs kept."""
        if not isinstance(pair, tuple) or len(pair) != 2:
            raise TypeError(f"pair must be a (model, other model) tuple, such as ('model_b', 'model_a'); got {pair!r}.")
        names = list(self.index.names)
        model = self.index.get_level_values("model")
        other = self.index.get_level_values("baseline") if "baseline" in names else pd.Index(
            [self.attrs.get("baseline")] * len(self), dtype=object)
        keep = np.asarray((model == pair[0]) & (other == pair[1]))
        if not keep.any():
            pairs = list(dict.fromkeys(zip(model, other)))
            raise ValueError(f"compact(pair={pair!r}): no such pair in this comparison; its pairs are {pairs!r}.")
        return self._selection(pd.DataFrame(self)[keep])

    def summary(self) -> ResultTable:
        """A compare() table as models x metrics, the baseline first, with ▲ / ▼ where a model
        is significantly better / worse than the baseline."""
        if table_kind(self) != "compare":
            raise ValueError("summary() applies to compare() tables; for a report, use compact().")
        return _wrap(summary_of(self))

    def worst(self, metric: str | None = None, *, overall: bool = True) -> ResultTable:
        """A compare() table's rows from the largest loss to the largest gain: who a model hurts.

        Each row keeps its difference, interval, p-value and mark; the order is by the gain on the
        metric's better side (``diff`` for most metrics, ``-diff`` where lower is better, the move
        towards 1 for PCOC), so with ``by=`` the first rows are the segments the model hurts most.
        ``metric`` keeps that metric's rows only.

        The rows of ``compare(..., by=..., overall=True)``'s segment ``"(all)"`` (the whole table)
        are no segment: they are left out of the ranking and come after it, as the reference the
        segments are read against (``worst().head(3)`` is the three segments hurt most);
        ``overall=False`` leaves them out. The printed table's footer says both (``order: the
        largest loss on auc first; (all): the whole table, after the ranked segments``); a
        reordering (``sort_values``, ``sample``, ``nlargest``) drops that line.

        Examples
        --------
        >>> import pandas_rankeval as pre
        >>> df = pre.datasets.make_impressions(n_users=400, seed=1)
        >>> cmp = pre.compare(
        ...     df,
        ...     group="user_id",
        ...     label="click",
        ...     scores=["model_a", "model_b"],
        ...     baseline="model_a",
        ...     metrics=["auc", "gauc"],
        ...     by="device",
        ...     overall=True,
        ...     n_boot=200,
        ... )
        >>> w = cmp.worst("auc")
        >>> segments = w.index.get_level_values("device").tolist()
        >>> segments[-1]  # the whole table, after the ranked segments
        '(all)'
        >>> segments[:-1] == list(
        ...     cmp.xs("auc", level="metric")
        ...     .drop("(all)", level="device")
        ...     .sort_values("diff")
        ...     .index.get_level_values("device")
        ... )
        True
        >>> "(all)" in cmp.worst("auc", overall=False).index.get_level_values("device")
        False
        """
        if table_kind(self) != "compare":
            raise ValueError("worst() applies to compare() tables; compare(..., by=...) ranks segments.")
        if not isinstance(overall, (bool, np.bool_)):
            raise invalid_parameter("overall", "worst()", "True or False", overall)
        frame = pd.DataFrame(self)
        names = [str(m) for m in frame.index.get_level_values("metric")]
        if metric is not None:
            if metric not in names:
                raise ValueError(f"worst(metric={metric!r}): the table's metrics are {list(dict.fromkeys(names))!r}.")
            keep = np.array([n == metric for n in names])
            frame, names = frame[keep], [n for n in names if n == metric]
        sides = self.attrs.get("direction", {})
        diff = frame["diff"].to_numpy(dtype=float)
        value, base = frame["value"].to_numpy(dtype=float), frame["baseline_value"].to_numpy(dtype=float)
        side = np.array([sides.get(n, "higher") for n in names], dtype=object)
        gain = np.where(side == "lower", -diff, np.where(side == "closer to 1", np.abs(base - 1) - np.abs(value - 1), diff))
        whole = self._overall_rows(frame)
        # the segments by gain (NaN last), then the whole table's rows: lexsort's last key sorts first
        order = np.lexsort((np.where(np.isnan(gain), np.inf, gain), whole))
        ranked = frame.iloc[order]
        out = self._selection(ranked[~whole[order]] if not overall else ranked)
        out.attrs["ranked"] = metric or ""  # the footer says the order (every metric: "")
        return out

    def _overall_rows(self, frame: pd.DataFrame) -> np.ndarray:
        """Which rows of ``frame`` (rows of this comparison) are the whole table's, the segment
        ``attrs["overall"]`` (``"(all)"``) in every ``by`` level of ``compare(..., overall=True)``."""
        label = self.attrs.get("overall")
        segments = [i for i, n in enumerate(frame.index.names) if n not in ("model", "metric", "baseline")]
        whole = np.zeros(len(frame), dtype=bool)
        if label is None or not segments or not isinstance(frame.index, pd.MultiIndex):
            return whole
        whole[:] = True
        for level in segments:
            whole &= frame.index.get_level_values(level).to_numpy(dtype=object) == label
        return whole

    def by_model(self) -> pd.DataFrame:
        """A per_group() table of several models with two-level columns, as it prints: (model,
        metric) for each model's metrics and ("", column) for the shared ``n``, ``positives`` and
        ``weight``. ``t.by_model()["model_b"]`` is model_b's metrics, named by metric;
        ``t.by_model().xs("auc", axis=1, level=1)`` is every model's AUC. The table itself keeps
        its flat columns (``model_b_auc``; ``attrs["models"]`` maps model and metric to them).

        Examples
        --------
        >>> import pandas as pd, pandas_rankeval as pre
        >>> df = pd.DataFrame(
        ...     {
        ...         "u": [1, 1, 2, 2],
        ...         "y": [1, 0, 0, 1],
        ...         "a": [0.9, 0.2, 0.4, 0.3],
        ...         "b": [0.1, 0.2, 0.4, 0.5],
        ...     }
        ... )
        >>> t = pre.per_group(
        ...     df, group="u", label="y", scores=["a", "b"], metrics=["auc", "mrr"]
        ... )
        >>> t.by_model()["b"]  # doctest: +NORMALIZE_WHITESPACE
        metric  auc  mrr
        u
        1       0.0  0.5
        2       1.0  1.0
        """
        models = self.attrs.get("models")
        if table_kind(self) != "per_group" or not isinstance(models, dict) or not models:
            raise ValueError("by_model() applies to per_group(..., scores=[...]) tables (several models).")
        owner = {col: (str(m), str(metric)) for m, cols in models.items() for metric, col in cols.items()}
        frame = pd.DataFrame(self).copy()
        frame.columns = pd.MultiIndex.from_tuples([owner.get(c, ("", str(c))) for c in frame.columns],
                                                  names=["model", "metric"])
        frame.attrs = {}
        return frame

    # --- row selections keep the display --------------------------------------------------------

    def _selection(self, out: pd.DataFrame, *, same_order: bool = True) -> ResultTable:
        """Rows of this table, its attrs kept; ``same_order=False``: rows in another order, so the
        ranking :meth:`worst` noted no longer holds."""
        table = ResultTable(out)
        table.attrs = dict(self.attrs)
        table.attrs.setdefault("n_rows_table", len(self))
        if not same_order:
            table.attrs.pop("ranked", None)
        return table

    def head(self, n: int = 5) -> ResultTable:  # type: ignore[misc]  # stubs narrower than runtime
        return self._selection(pd.DataFrame(self).head(n))

    def tail(self, n: int = 5) -> ResultTable:  # type: ignore[misc]  # stubs narrower than runtime
        return self._selection(pd.DataFrame(self).tail(n))

    def sort_values(self, *args: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        out = pd.DataFrame(self).sort_values(*args, **kwargs)
        return None if out is None else self._selection(out, same_order=False)

    def nlargest(self, *args: Any, **kwargs: Any) -> ResultTable:  # type: ignore[override]
        return self._selection(pd.DataFrame(self).nlargest(*args, **kwargs), same_order=False)

    def nsmallest(self, *args: Any, **kwargs: Any) -> ResultTable:  # type: ignore[override]
        return self._selection(pd.DataFrame(self).nsmallest(*args, **kwargs), same_order=False)

    def sample(self, *args: Any, **kwargs: Any) -> ResultTable:  # type: ignore[misc, override]
        return self._selection(pd.DataFrame(self).sample(*args, **kwargs), same_order=False)

    def query(self, expr: str, **kwargs: Any) -> Any:  # type: ignore[override]
        kwargs.setdefault("level", 1)  # the caller's variables, for @name
        kwargs["level"] += 1
        out = pd.DataFrame(self).query(expr, **kwargs)
        return None if out is None else self._selection(out)

    def __getitem__(self, key: Any) -> Any:
        out = super().__getitem__(key)
        mask = isinstance(key, (pd.Series, np.ndarray, list)) and len(key) == len(self) and len(key) > 0
        if mask and pd.api.types.is_bool_dtype(np.asarray(key).dtype) and isinstance(out, pd.DataFrame):
            return self._selection(out)
        return out

    # --- display ------------------------------------------------------------------------------

    def _shown(self) -> Any:
        max_rows = pd.get_option("display.max_rows")
        return shown_of(self, max_rows=max_rows, min_rows=pd.get_option("display.min_rows") or 10)

    def __repr__(self) -> str:
        shown = self._shown()
        n = len(shown.details)
        hint = f"(+{n} line{'' if n == 1 else 's'} of details: .to_text(footer='full'))"
        return to_text(shown, terminal_width(), "short", hint=hint).rstrip("\n")

    def _repr_html_(self) -> str | None:
        return to_html(self._shown())


def _no_pandas_kwargs(name: str, kwargs: dict[str, Any]) -> None:
    if kwargs:
        raise TypeError(
            f"{name}() of a result table takes no {', '.join(map(repr, kwargs))}: it writes the table with its "
            f"footer; for pandas' own {name}(), call it on pd.DataFrame(table)."
        )


def _appearance_levels(index: pd.Index) -> pd.Index:
    """The same MultiIndex with each level's values in order of appearance, so that rows laid
    out segment by segment are lexsorted (``.loc[(segment, model)]`` without a
    PerformanceWarning)."""
    if not isinstance(index, pd.MultiIndex) or len(index) == 0:
        return index
    levels, codes = [], []
    for i in range(index.nlevels):
        values = index.get_level_values(i)
        uniq = pd.Index(pd.unique(values))
        code = uniq.get_indexer(values)
        if (code < 0).any() or not uniq.is_unique:
            return index
        levels.append(uniq)
        codes.append(code)
    return pd.MultiIndex(levels=levels, codes=codes, names=index.names, verify_integrity=False)


def _wrap(view: pd.DataFrame) -> ResultTable:
    out = ResultTable(view)
    out.attrs = dict(view.attrs)
    return out


def as_result_table(df: pd.DataFrame, kind: str | None = None) -> ResultTable:
    """Wrap a finished table (its attrs included) for display."""
    out = ResultTable(df)
    out.index = _appearance_levels(out.index)
    out.attrs.update(df.attrs)
    if kind is not None:
        out.attrs["table"] = kind
    return out


# the footer of every table, for callers that only need the lines
def footer_lines(df: pd.DataFrame, level: str = "full") -> list[str]:
    """The footer lines of any table (``"full"`` or ``"short"``)."""
    check_option(level, "level", "footer_lines", FOOTERS[:2])
    footer = footer_of(df)
    return FooterLines(footer.lines if level == "full" else footer.short)
