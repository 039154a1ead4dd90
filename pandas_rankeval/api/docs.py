"""The parameter texts that several public functions share, each written once.

A public function's docstring names a shared text by a placeholder, ``{frame}`` or
``{nan_policy}``, which :func:`fill_doc` replaces with its entry of :data:`PARAMS` (a numpydoc
parameter block, indented as in a function's docstring). An option's entry is rendered from its
one definition in ``core.options.OPTIONS`` (name, type, allowed values, default and text). A text that one function words
differently stays in that function's docstring. Braces meant literally in a docstring that
holds placeholders are doubled (``{{"raise", "omit"}}``).
"""

from __future__ import annotations

from typing import Any

from pandas_rankeval.core.inputs.options import OPTIONS

__all__ = ["PARAMS", "fill_doc"]

#: The first parameter of every public function.
_FRAME = """    df : DataFrame
        One row per shown item: a pandas DataFrame, a polars DataFrame or LazyFrame, a Dask
        DataFrame, a Spark DataFrame (classic or Connect), a DuckDB relation or an Ibis table (a
        warehouse table: the warehouse computes one row per group). Each is evaluated by its own
        engine, imported only when its frame arrives, with the same result (to 1e-12)."""

#: The last parameter of every public function.
_ENGINE_OPTIONS = """    engine_options : dict, optional
        Options of the frame's engine, checked against it before any work: a Dask frame takes
        ``npartitions`` (partitions of the shuffle by group, or by segment, and of the score ranges of
        global AUC; default: the frame's); a Spark frame takes ``rows_per_bucket`` (target rows of one bucket of
        whole groups, default 1,000,000) and ``buckets`` (their number instead); a polars LazyFrame
        takes ``memory_budget`` (bytes, default 2 GiB: a LazyFrame whose evaluation is estimated
        within it, from its row count and schema, is collected once and evaluated as a DataFrame;
        above it, bucket by bucket of whole groups that the budget holds) and ``rows_per_bucket``
        and ``buckets`` too (buckets, whatever the budget); a pandas
        or polars frame takes ``threads`` (default: 2 from 200,000 rows, 1 below, on one core,
        on a worker thread or inside a Spark task; the numbers never depend on it); an Ibis table
        that no Ibis connection holds takes ``execute`` (a callable that runs one SQL string and
        returns a pandas frame) with ``dialect`` (the dialect ``ibis.to_sql`` compiles for). An option
        the frame's engine does not take raises (see
        the "Other frames" pages of the documentation)."""

_GROUP = """    group : column or list of columns
        The user, query or session."""

#: report's and compare's group: optional when every metric pools rows or is global.
_GROUP_OPTIONAL = """    group : column or list of columns, optional
        The user, query or session: the unit the bootstrap resamples and the paired test flips.
        Needed by every group metric (GAUC, MRR, NDCG, ...). Without it (only ``"logloss"``,
        ``"ne"``, ``"pcoc"``, ``"ece"``, ``"auc"`` and ``"xauc"``, at least one calibration metric)
        every row is its own group: the same values, and the row is the unit of the intervals and
        tests."""

#: The options' entries, from their one definition (``core.options.OPTIONS``).
_THRESHOLD = OPTIONS["threshold"].param_doc()

_NAN_POLICY = OPTIONS["nan_policy"].param_doc()

#: ``progress=``: one spelling, one meaning, one default, this one text wherever it is taken.
_PROGRESS = OPTIONS["progress"].param_doc()

_LIST_LABEL = """    label : column
        Relevance; a row is relevant when its label is > 0 (or >= ``threshold``)."""

_LIST_SCORE = """    score : column
        The model's score; rank 1 is the highest score in the group."""

_LIST_ORDER = "\n".join(OPTIONS[name].param_doc() for name in ("weight", "ties", "tiebreak"))

_LIST_EMPTY = OPTIONS["empty"].param_doc()

_LIST_RETRIEVED = OPTIONS["retrieved"].param_doc()

PARAMS: dict[str, str] = {
    "overall": """    overall : bool, default=False
        With ``by``: the whole table's rows too, under the segment ``"(all)"`` (last), exactly
        what the same call without ``by`` gives; a second evaluation of the frame. In a
        comparison they join the family of the adjustment.""",
    "frame": _FRAME,
    "engine_options": _ENGINE_OPTIONS,
    "group": _GROUP,
    "group_optional": _GROUP_OPTIONAL,
    "threshold": _THRESHOLD,
    "nan_policy": _NAN_POLICY,
    "progress": _PROGRESS,
    # gauc's implementation= and its former name engine=
    "implementation": OPTIONS["implementation"].param_doc(),
    "engine": OPTIONS["engine"].param_doc(),
    # report and compare
    "label_click": """    label : column
        Click or graded relevance.""",
    # per_group and report: the options of the metrics, described where each metric is
    "metric_options": """    min_size, min_pos, min_neg, ties, tiebreak, threshold, sample_weight, gain, denominator, empty, nan_policy :
        As in the single-metric functions.
    retrieved : column, optional
        Booleans: rows where it is False (judged documents a run did not retrieve) are never
        ranked but count in the relevant rows and the ideal DCG of the list metrics (see
        :func:`read_trec`). AUC and the calibration metrics refuse it.""",
    # the list metrics (mrr, ndcg, average_precision, precision, recall, hit_rate): before k
    "list_label": _LIST_LABEL,
    "list_score": _LIST_SCORE,
    "list_params": f"""{_FRAME}
{_GROUP}
{_LIST_LABEL}
{_LIST_SCORE}""",
    # the list metrics: after k (and their own options)
    "list_order": _LIST_ORDER,
    "list_empty": _LIST_EMPTY,
    "common_params": f"""{_LIST_ORDER}
{_THRESHOLD}
{_LIST_EMPTY}
{_NAN_POLICY}
{_ENGINE_OPTIONS}""",
    # the counterfactual (inverse-propensity) metrics
    "ips_params": """    position : column
        Each row's display position in the logged ranking (numbers > 0, 1 at the top), by which
        ``propensity`` is looked up. Not needed when ``propensity`` is a column.
    propensity : PropensityTable, Series, column or callable
        The examination propensity of each logged position: the table :func:`propensities`
        returns (its ``propensity`` column), a Series indexed by position, a column of per-row
        propensities, or a callable that takes the array of distinct positions and returns their
        propensities (called once, on the caller's side, whatever the engine). A position the
        table does not give, and a missing, zero or negative position or propensity, raise an
        error that names the column and the count.
    clip : float in [0, 1], default=0.01
        A click weighs 1 / max(propensity, clip): no click weighs more than 1 / clip (100 by
        default); 0 turns clipping off. Clipping trades a downward bias at the positions whose
        propensity is below ``clip`` for a bounded variance.
    snips : bool, default=False
        Self-normalized IPS: divide by the summed IPS weight of the clicks instead of the number
        of groups: a mean per relevant row, not per group (see Notes).""",
    "ips_notes": """    Under the position-based model a click needs an examination, whose probability depends on
    the logged position only (the propensity, relative to position 1), and relevance, which
    depends on the row only. Then E[click / propensity] is the row's relevance (times the
    examination of position 1), whatever position it was shown at, so the metric estimates
    without bias the value the new ranking would have on the true relevance (Joachims et al.,
    WSDM 2017), as long as the propensities are right and at least ``clip``.

    Ties: a tied block spreads its summed IPS gain evenly over the ranks it holds, the exact
    expectation over the orderings of the tie (as DCG). ``ties="optimistic"`` and
    ``"pessimistic"`` order a tie by the rows' IPS weights, the largest first or last (so the
    clicks first or last), not by their labels: the largest and the smallest value over the
    orderings of the tie. Groups with no click score 0 and count
    (``empty="zero"``, the default, which the estimate needs: ``empty="skip"`` conditions on a
    click, a bias the weights do not undo).

    ``snips=True`` divides each group's value by the summed IPS weight W_g of its clicks and
    multiplies its weight by W_g: the result is sum_g w_g v_g / sum_g w_g W_g, a ratio of sums
    over groups (additive over partitions and bootstrap replicates), the IPS-weighted mean over
    clicks of the gain the new ranking gives a clicked row. Its estimand is another one: the
    mean gain per relevant row, sum_i rel_i gain_i / sum_i rel_i, not per group. The denominator
    is the same for every score column of one log, so the ratio of two models' SNIPS values
    estimates the ratio of their IPS estimands, and both rank models alike. It does not depend on
    the scale of the propensities and has a far smaller variance, at the cost of a bias that
    vanishes with many groups. (Times the logged clicks per group it is not the IPS value: that
    factor is biased by how often relevant rows were examined.)""",
    "ips_example": """    One session: the logged ranker showed three rows at positions 1, 2, 3 (propensities 1, 0.5,
    0.25) and the row at position 3 was clicked. The logged order (``old``) and a new score that
    puts the clicked row first:

    >>> import pandas as pd
    >>> import pandas_rankeval as pre
    >>> df = pd.DataFrame({"s": 1, "pos": [1, 2, 3], "click": [0, 0, 1],
    ...                    "old": [3, 2, 1], "new": [2, 1, 3]})
    >>> prop = pd.Series([1.0, 0.5, 0.25], index=[1, 2, 3])""",
    # the list metrics of a ranking (not the IPS ones): rows outside it too
    "list_retrieved": _LIST_RETRIEVED,
    "ranked_params": f"""{_LIST_ORDER}
{_THRESHOLD}
{_LIST_EMPTY}
{_LIST_RETRIEVED}
{_NAN_POLICY}
{_ENGINE_OPTIONS}""",
}


def _metric_names() -> str:
    """The accepted metric names, from the registry, as a docstring phrase."""
    from pandas_rankeval.core.metrics.registry import valid_names

    import textwrap

    text = ", ".join(f'``"{n}"``' for n in valid_names())
    return "\n        ".join(textwrap.wrap(text, 80))


PARAMS["metric_names"] = _metric_names()


def _default_metrics() -> str:
    """The default of ``metrics=`` of report and compare, from the registry: ``("auc", ...)``."""
    from pandas_rankeval.core.metrics.registry import DEFAULT_METRICS

    return "(" + ", ".join(f'"{n}"' for n in DEFAULT_METRICS) + ")"


PARAMS["default_metrics"] = _default_metrics()


def fill_doc(func: Any, **more: str) -> Any:
    """Put the shared parameter texts into ``func``'s docstring, in place of their placeholders.

    ``{name}`` becomes ``PARAMS[name]`` (or ``more[name]``), then ``{{`` and ``}}`` become ``{``
    and ``}``. Returns ``func``, so it also serves as a decorator.
    """
    doc = func.__doc__ or ""
    for key, text in {**PARAMS, **more}.items():
        doc = doc.replace("{" + key + "}", text)
    func.__doc__ = doc.replace("{{", "{").replace("}}", "}")
    return func
