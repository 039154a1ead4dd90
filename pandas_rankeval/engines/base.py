"""The adapter protocol: the few questions an engine answers, and nothing else.

A public function (:mod:`pandas_rankeval.api`) is written once. For any frame it

1. picks the adapter by the frame's type (:func:`pandas_rankeval.engines.engine_for`, which
   imports the engine only when its frame arrives);
2. asks the adapter for the frame's **schema** (an empty pandas frame with the columns and their
   dtypes) and checks the adapter's **engine options**;
3. builds the :class:`~pandas_rankeval.summary.Plan` once from the schema and raises every error
   that the schema or the options can answer (missing columns, text scores, bad options, an option
   with no form over partitions) before the adapter does any work;
4. hands the frame and the plan to the adapter's **run**, which gets whole groups into partitions,
   runs the shared per-partition summary (:func:`pandas_rankeval.summary.summarize`) on each, adds the
   summaries up and, for global AUC, gives the exact distinct-score counts;
5. finalizes the summed summary into the result (:func:`pandas_rankeval.tables.finalize`), the same
   code for every engine.

An adapter owns no metric, option or table logic: adding an engine is one module that defines the
names of :class:`Engine` and is listed in :data:`pandas_rankeval.engines.ENGINES`.
"""

from __future__ import annotations

import numbers
from collections.abc import Hashable, Iterable, Mapping
from typing import Any, Protocol, runtime_checkable

import numpy as np
import pandas as pd

from ..core.inputs.validation import invalid_parameter
from ..summary.plan import Plan
from ..summary.summary import Summary

__all__ = ["Engine", "check_engine_options", "internal_prefix", "option_count", "unordered_rows_error"]


@runtime_checkable
class Engine(Protocol):
    """What an engine module defines (a module satisfies the protocol with module-level names).

    Attributes
    ----------
    NAME : str
        The engine's name in messages: ``"pandas"``, ``"polars"``, ``"Dask"``, ``"Spark"``.
    OPTIONS : tuple of str
        The keys its ``engine_options`` take (``()`` when it takes none).
    """

    NAME: str
    OPTIONS: tuple[str, ...]

    def schema(self, frame: Any) -> pd.DataFrame:
        """An empty pandas frame with the frame's columns and the dtypes pandas would give them.

        Reads no data (a LazyFrame's or a Dask frame's schema, a Spark frame's ``schema``). The plan
        is made from it and the checks that need only names and dtypes run on it.
        """

    def partitioned(self, frame: Any) -> bool:
        """True when the frame is evaluated in several partitions of whole groups.

        Options whose value is not a sum over partitions (``resample="multinomial"``, ``max_fpr``
        or a bootstrap interval of global AUC) are then refused, by name, before any work.
        False when the whole frame is one partition (pandas, a polars DataFrame): every option works.
        """

    def check_options(self, options: dict[str, Any], func: str) -> dict[str, Any]:
        """The engine options, checked (keys already restricted to ``OPTIONS``), defaults filled in."""

    def run(self, frame: Any, plan: Plan, options: dict[str, Any]) -> tuple[Summary, dict[str, Any]]:
        """Summarize the frame under the plan: the summed :class:`Summary` and the extras of
        :func:`pandas_rankeval.tables.finalize` (``auc``: ``{(segment key, score): AucCounts or
        float}`` when the plan has global AUC; ``auc_boot`` / ``delong`` where the engine computes
        them outside the summary)."""

    def distinct(self, frame: Any, column: Any, options: dict[str, Any] | None = None) -> list[Any]:
        """The distinct non-missing values of one column (a small pass on a distributed frame):
        what a callable of a column's values (IPS propensities of the positions) is called on,
        once, on the caller's side. ``options``: the call's checked engine options (the warehouse
        engine's ``execute`` and ``dialect`` run the query of a table no Ibis connection holds)."""

    def with_row_number(self, frame: Any, name: str, resampled: bool = True) -> Any:
        """The frame with one more int64 column ``name``: each row's number, distinct per row (a
        lazy column where the frame is lazy; the input is not modified). A call of pooled metrics
        without ``group`` (:func:`pandas_rankeval.api.dispatch.evaluate_frame`) takes it as the
        group key: every row its own group, the unit of the bootstrap and of the paired test.
        ``resampled=False`` (no interval, no test): only the values are read, which any key gives;
        an engine may then give every row one key (the warehouse: one row back, not one per row)."""

    def per_group(self, frame: Any, plan: Plan, options: dict[str, Any]) -> Any:
        """Every group's metrics, as the engine's own kind of frame (pandas: the ResultTable).

        Each partition of whole groups goes through
        :func:`pandas_rankeval.tables.per_group.per_group_table`.
        """


def check_engine_options(engine: Any, options: Mapping[str, Any] | None, func: str) -> dict[str, Any]:
    """``engine_options`` of a public call: a mapping whose keys the frame's engine takes."""
    if options is None:
        options = {}
    if not isinstance(options, Mapping):
        raise invalid_parameter("engine_options", func, "a dict (or None)", options)
    unknown = [k for k in options if k not in engine.OPTIONS]
    if unknown:
        takes = f"takes only {', '.join(map(repr, engine.OPTIONS))}" if engine.OPTIONS else "takes none"
        raise ValueError(
            f"The 'engine_options' parameter of {func} has {unknown!r}, which a {engine.NAME} frame does "
            f"not take; the {engine.NAME} engine {takes}."
        )
    return engine.check_options(dict(options), func)



def option_count(options: Mapping[str, Any], name: str, func: str, default: int | None = None) -> int | None:
    """An engine option that counts something (``buckets``, ``rows_per_bucket``, ``npartitions``,
    ...): an int >= 1; None (its default ``None``) where the engine picks the number itself.
    The one message of every engine for a bad value.

    Examples
    --------
    >>> (
    ...     option_count({"buckets": 4}, "buckets", "gauc"),
    ...     option_count({}, "rows_per_bucket", "gauc", 10),
    ... )
    (4, 10)
    >>> option_count({"buckets": 0}, "buckets", "gauc")
    Traceback (most recent call last):
    ...
    pandas_rankeval.core.inputs.validation.InvalidParameterError: The 'buckets'
    engine option of gauc must be an int in the range [1, inf) or None (the engine's
    own choice). Got 0 instead.
    """
    value = options.get(name, default)
    if value is None and default is None:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral) or value < 1:
        also = " or None (the engine's own choice)" if default is None else ""
        raise invalid_parameter(name, func, f"an int in the range [1, inf){also}", value, what="engine option")
    return int(value)


def unordered_rows_error(what: str) -> ValueError:
    """An interval or a test without ``group`` on a frame whose rows have no order (every row is its
    own group there, numbered in the frame's order: a relation or a Spark frame has none)."""
    return ValueError(
        f"An interval or a test of the calibration metrics without 'group' resamples rows, numbered in "
        f"the frame's order; {what} has no row order, so the interval would change from run to run. Pass "
        "group= (the user or request, or a row id column), or leave out ci= (the values need no group)."
    )


def internal_prefix(columns: Iterable[Hashable], stem: str = "__rk") -> str:
    """The prefix of an engine's own columns for one call: ``__rk_``, or ``__rk1_``, ``__rk2_``...,
    the first that no column's name starts with, in any case (DuckDB and Spark resolve names
    case-insensitively: ``__RK_KEY`` is ``__rk_key`` there), so that no user column can collide with them.

    Examples
    --------
    >>> internal_prefix(["u", "y", "s"])
    '__rk_'
    >>> internal_prefix(["__rk_key", "__RK1_N", "y"])
    '__rk2_'
    """
    names = [str(c).lower() for c in columns]
    prefix, i = f"{stem}_", 0
    while any(n.startswith(prefix.lower()) for n in names):
        i += 1
        prefix = f"{stem}{i}_"
    return prefix
