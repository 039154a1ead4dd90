"""Every choice that shapes a number: the options of the public functions, checked once.

:class:`Options` holds the tie rule, weights, filters and the rest; :func:`check_weight_name`
is the one check of a weight name against a frame's columns that every engine uses.
"""

from __future__ import annotations

import math
import numbers
import os
import sys
import warnings
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, Union

import numpy as np
import pandas as pd

from .retrieved import check_retrieved
from .propensity import check_clip, check_propensity, check_snips
from .validation import check_column_name, check_min_count, check_option, invalid_parameter

__all__ = [
    "OPTIONS", "OptionDef", "Options", "WeightLike", "WEIGHT_MEANINGS", "WEIGHT_NAMES", "check_weight_name",
    "check_weight_series", "options_of",
]

TIES = ("expected", "pessimistic", "optimistic")
EMPTY = ("zero", "skip", "error")
GAINS = ("exp2", "linear")
DENOMINATORS = ("relevant", "min_k")
NAN_POLICIES = ("raise", "omit")
#: the values of gauc's ``implementation=`` keyword: which code computes per-group AUC, with the
#: same number (``engine`` is only a frame backend: :data:`pandas_rankeval.engines.ENGINES`)
IMPLEMENTATIONS = ("numpy", "sklearn")
WEIGHT_NAMES = ("count", "clicks", "log1p", "uniform")
#: The weight names as the list metrics' docstrings give them: their default ("uniform") first.
_LIST_WEIGHTS = ("uniform", *(w for w in WEIGHT_NAMES if w != "uniform"))

WeightLike = Union[str, pd.Series, Callable[[pd.DataFrame], Any], None]


# --------------------------------------------------------------------------- #
# The options table: one definition per option
# --------------------------------------------------------------------------- #
def _choice(choices: tuple[str, ...]) -> Callable[[Any, str, str], Any]:
    def check(value: Any, param: str, func: str) -> Any:
        return check_option(value, param, func, choices)

    return check


def _check_threshold(value: Any, param: str, func: str) -> Any:
    if value is not None and not (
        isinstance(value, (int, float, np.integer, np.floating))
        and not isinstance(value, bool)
        and math.isfinite(value)
    ):
        raise invalid_parameter(param, func, "a finite number or None", value)
    return value


def _check_max_fpr(value: Any, param: str, func: str) -> Any:
    if value is None:
        return None
    if not (isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_)) and 0 < float(value) <= 1):
        raise invalid_parameter(param, func, "a float in the range (0, 1] or None", value)
    return float(value)  # sklearn would compute in float32 for np.float32


def _check_column(value: Any, param: str, func: str) -> Any:
    if value is not None:
        check_column_name(value, param, func)
    return value


def _check_weight(value: Any, param: str, func: str) -> Any:
    if isinstance(value, str):
        pass  # a weight name or a column: resolved against the frame's columns
    elif isinstance(value, pd.Series):
        check_weight_series(value, func)
    elif value is not None and not callable(value):
        raise invalid_parameter(
            param, func, f"one of {', '.join(map(repr, WEIGHT_NAMES))}, a column name, a pandas Series indexed "
            "by group key, or a callable", value)
    return value


def _check_flag(value: Any, param: str, func: str) -> Any:
    return value  # a truth value: anything goes, as in pandas


def _check_renamed_engine(value: Any, param: str, func: str) -> Any:
    """``engine=`` of gauc, renamed ``implementation=``: accepted for one release (see
    :meth:`Options.check`, which moves it to ``implementation`` with a FutureWarning)."""
    if value is not None:
        check_option(value, param, func, IMPLEMENTATIONS)
    return value


_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))) + os.sep


def _warn_renamed(old: str, new: str, value: Any, func: str) -> None:
    """A FutureWarning for a renamed keyword, attributed to the caller's line (the first frame
    outside this package)."""
    frame, level = sys._getframe(0), 1
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE_DIR):
        frame = frame.f_back  # type: ignore[assignment]
        level += 1
    warnings.warn(
        f"The '{old}' parameter of {func} is renamed '{new}' ('engine' now means only the frame's backend); "
        f"pass {new}={value!r}. '{old}' will be removed in the next release.", FutureWarning, stacklevel=level,
    )


@dataclass(frozen=True)
class OptionDef:
    """One option of the metrics: its default, its check (and message), when it is shown with
    a number (``shown``: ``"always"``, ``"when_set"`` or ``"never"``) and its documentation: ``doc``
    the sentence of the options table; ``text`` the lines of its entry in the public functions'
    docstrings where they differ from it (shared there: :mod:`pandas_rankeval.api.docs`), under
    the type ``kind`` (for a choice: its values and default, from ``choices`` and ``default``)."""

    name: str
    default: Any
    check: Callable[[Any, str, str], Any]
    doc: str
    shown: str = "never"
    choices: tuple[str, ...] = ()
    kind: str = ""
    text: str = ""
    #: its type in the public functions' signatures, as source text (a choice: the Literal of its
    #: values, from ``choices``); the names it uses are those of ``pandas_rankeval.api.publish.TYPES``
    annotation: str = ""

    @property
    def type_source(self) -> str:
        """Its annotation in a public function's signature."""
        if self.annotation:
            return self.annotation
        return "Literal[" + ", ".join(f'"{c}"' for c in self.choices) + "]"

    def param_doc(self) -> str:
        """Its numpydoc parameter entry, indented as in a function's docstring."""
        kind = self.kind or "{" + ", ".join(f'"{c}"' for c in self.choices) + "}" + f', default="{self.default}"'
        lines = "".join(f"\n        {line}" for line in (self.text or self.doc).split("\n"))
        return f"    {self.name} : {kind}{lines}"


def _opt(name: str, default: Any, check: Callable[[Any, str, str], Any] | tuple[str, ...], doc: str,
         shown: str = "never", *, kind: str = "", text: str = "", annotation: str = "") -> OptionDef:
    if isinstance(check, tuple):
        return OptionDef(name, default, _choice(check), doc, shown, check, kind, text)
    return OptionDef(name, default, check, doc, shown, kind=kind, text=text, annotation=annotation)


#: Every option of the metrics, in the order a number's choices are shown. Which metrics take an
#: option is said by each metric's entry (``Metric.options``); the check and its message are here.
OPTIONS: dict[str, OptionDef] = {o.name: o for o in (
    _opt("ties", "expected", TIES, "A tied (relevant, non-relevant) pair counts 1/2, 0 or 1; in a list, "
         "the exact mean over every ordering of tied rows, or relevant rows last / first.", "always",
         text='"expected" is the exact mean over every ordering of tied rows;\n'
         '"pessimistic" / "optimistic" put relevant rows last / first inside a tie.'),
    _opt("weight", None, _check_weight, "How groups are averaged: 'count', 'clicks', 'log1p', 'uniform', a "
         "column (its per-group sums), a Series indexed by group key or a callable of the per-group "
         "statistics; None is the metric's default.", "always", annotation="WeightLike",
         kind="{" + ", ".join(f'"{w}"' for w in _LIST_WEIGHTS) + "}, column, Series or callable, optional",
         text=f'How groups are averaged (as in :func:`gauc`); None (the default) is "{_LIST_WEIGHTS[0]}".'),
    _opt("tiebreak", None, _check_column, "A column that orders rows with equal scores (ascending) before "
         "the ties rule.", "when_set", kind="column, optional", annotation="Hashable | None",
         text="Orders rows with equal scores (ascending) before the ``ties`` rule."),
    _opt("gain", "exp2", GAINS, "NDCG's gain of a label: 2**label - 1 ('exp2') or the label ('linear').",
         "always"),
    _opt("denominator", "relevant", DENOMINATORS, "AP's divisor: the group's relevant rows ('relevant') or "
         "min(relevant rows, k) ('min_k').", "always"),
    _opt("empty", "zero", EMPTY, "Groups with no relevant row score 0, are left out, or raise.", "always",
         text="Groups with no relevant row score 0, are left out, or raise. Their\n"
         "count is in ``.coverage.n_empty`` either way. One rule for every list\n"
         "metric, NDCG included: a group is empty when no row is relevant by the\n"
         "rule above (with ``threshold <= 0`` label-0 rows are relevant, so such a\n"
         "group is not empty; its NDCG is 1 when no row gains anything)."),
    _opt("threshold", None, _check_threshold, "A row is relevant when its label is >= threshold (default: "
         "> 0).", "when_set", kind="float, optional", annotation="float | None",
         text="Relevant when ``label >= threshold`` instead of ``label > 0``."),
    _opt("retrieved", None, check_retrieved, "A column of booleans (or a mapping of score columns to such columns): rows where it is False (judged documents "
         "a run did not retrieve) are never ranked, but count in the group's relevant rows (recall's and AP's "
         "denominators, R-precision's R) and in NDCG's ideal DCG.", "when_set", kind="column or dict, optional", annotation="Hashable | Mapping[Hashable, Hashable] | None",
         text="Booleans: rows where it is False (say, relevant documents a run did not\n"
         "retrieve) are never ranked and never count in precision, MRR or hit rate, but\n"
         "count in the group's relevant rows (recall, AP, R-precision's R) and in NDCG's\n"
         "ideal DCG. A dict gives each score column its own column (runs that retrieved\n"
         "different rows)."),
    _opt("min_size", None, check_min_count, "GAUC leaves out groups with fewer rows.", "when_set",
         annotation="int | None"),
    _opt("min_pos", None, check_min_count, "GAUC leaves out groups with fewer relevant rows.", "when_set",
         annotation="int | None"),
    _opt("min_neg", None, check_min_count, "GAUC leaves out groups with fewer non-relevant rows.", "when_set",
         annotation="int | None"),
    _opt("sample_weight", None, _check_column, "A column of per-row weights; a pair weighs w_i * w_j.", "when_set",
         annotation="Hashable | None"),
    _opt("implementation", "numpy", IMPLEMENTATIONS, "'numpy' computes every group at once; 'sklearn' calls "
         "roc_auc_score per group (a slow cross-check, the same number).",
         text='"numpy" computes every group at once from one sort; "sklearn" calls\n'
         '``roc_auc_score`` per group (slow; a cross-check, the same number to\n'
         '1e-12). ``max_fpr`` always uses sklearn.'),
    _opt("engine", None, _check_renamed_engine, "Deprecated: renamed implementation= (engine means a frame backend).",
         kind='{"numpy", "sklearn"}, optional', annotation='Literal["numpy", "sklearn"] | None',
         text="Deprecated: the former name of ``implementation`` (``engine`` means only\n"
         "the frame's backend), accepted with a FutureWarning until the next release."),
    _opt("max_fpr", None, _check_max_fpr, "Standardized partial AUC up to this false-positive rate (McClish).",
         annotation="float | None"),
    _opt("nan_policy", "raise", NAN_POLICIES, "Missing values raise, or their rows are dropped and counted."),
    _opt("progress", False, _check_flag, "Show a progress bar (needs tqdm) over the call's long loops: bootstrap "
         "replicates, sklearn's per-group AUC, EM iterations, files read.", annotation="bool", kind="bool, default=False",
         text="Show a progress bar on stderr (needs tqdm) over the loops of the call\n"
         "that can take long: bootstrap replicates (``ci=``, compare's intervals and\n"
         "tests, calibration_by's and launch_agreement's intervals), sklearn's\n"
         'per-group AUC (``implementation="sklearn"``, ``max_fpr``), the EM\n'
         "iterations and replicates of propensities, the files read_trec reads and\n"
         "joins. pandas and polars frames (other engines compute on their workers); a\n"
         "call without such a loop draws none. No number depends on it."),
    # counterfactual (inverse-propensity) metrics: the checks are in core/metrics/ips.py
    _opt("position", None, _check_column, "The column of each row's logged display position (IPS metrics).",
         "when_set", annotation="Hashable | None"),
    _opt("propensity", None, check_propensity, "Examination propensity "
         "of a logged position: a PropensityTable (or Series indexed by position), a column, or a callable "
         "of the array of positions.", "when_set", annotation="PropensityLike"),
    _opt("clip", 0.01, check_clip, "IPS metrics weigh a click 1 / "
         "max(propensity, clip).", "always", annotation="float"),
    _opt("snips", False, check_snips, "Self-normalized IPS: divide by the IPS weight of the clicks instead "
         "of the number of groups.", "always", annotation="bool"),
)}


class _MetricEntry(Protocol):
    """What the options read of a metric's registry entry (:class:`~..metrics.metric.Metric`)."""

    @property
    def options(self) -> tuple[str, ...]: ...

    @property
    def default_weight(self) -> str: ...


class MetricName(Protocol):
    """What the options read of a parsed metric name (:class:`~..metrics.metric.MetricSpec`, a
    layer above: passed in, not imported): its registry entry."""

    @property
    def info(self) -> _MetricEntry: ...


@dataclass
class Options:
    """Every choice that shapes a number, checked once (each by its entry of :data:`OPTIONS`)."""

    func: str
    ties: str = "expected"
    tiebreak: Hashable | None = None
    threshold: float | None = None
    weight: WeightLike = None  # None: each metric's default
    empty: str = "zero"
    gain: str = "exp2"
    denominator: str = "relevant"
    min_size: int = 0
    min_pos: int = 0
    min_neg: int = 0
    sample_weight: Hashable | None = None
    implementation: str = "numpy"
    engine: str | None = None  # implementation's former name: moved there by check()
    max_fpr: float | None = None
    nan_policy: str = "raise"
    progress: bool = False
    position: Hashable | None = None
    propensity: Any = None  # after check: None, a column name, a PropensityLookup or a callable
    clip: float = 0.01
    snips: bool = False
    retrieved: Any = None  # None, a column, or {score column: column}

    def check(self) -> Options:
        if self.engine is not None:  # renamed implementation=: one release with a FutureWarning
            engine = _check_renamed_engine(self.engine, "engine", self.func)
            if self.implementation not in (engine, OPTIONS["implementation"].default):
                raise invalid_parameter("engine", self.func, "left out when implementation= is given (it is "
                                        "implementation's former name)", engine,
                                        f"Pass implementation={self.implementation!r} only.")
            _warn_renamed("engine", "implementation", engine, self.func)
            self.implementation, self.engine = engine, None
        for name in _CHECK_ORDER:
            setattr(self, name, OPTIONS[name].check(getattr(self, name), name, self.func))
        return self

    def params(self, spec: MetricName) -> dict[str, Any]:
        """The choices that matter for one metric, for display: the options it takes that are
        shown always, or when set (see :data:`OPTIONS`)."""
        out: dict[str, Any] = {}
        for name, opt in OPTIONS.items():
            if name not in spec.info.options or opt.shown == "never":
                continue
            value = getattr(self, name)
            if name == "weight":
                value = self.weight_for(spec) if isinstance(self.weight_for(spec), str) else "custom"
            elif opt.shown == "when_set" and (value is None or value == opt.check(opt.default, name, self.func)):
                continue
            elif name == "propensity" and callable(getattr(value, "lookup", None)):
                value = repr(value)  # a propensity table: its words ("table of 5 positions")
            out[name] = value
        return out

    def weight_for(self, spec: MetricName) -> WeightLike:
        return spec.info.default_weight if self.weight is None else self.weight


#: The order of the checks (and so of the first error a call with several bad options meets).
_CHECK_ORDER = (
    "ties", "empty", "gain", "denominator", "implementation", "nan_policy", "min_size", "min_pos", "min_neg",
    "threshold", "max_fpr", "sample_weight", "tiebreak", "retrieved", "weight", "progress",
    "position", "propensity", "clip", "snips",
)


def options_of(metric_options: Sequence[str]) -> list[OptionDef]:
    """The entries of :data:`OPTIONS` of a metric, in the table's order."""
    return [OPTIONS[n] for n in OPTIONS if n in metric_options]


def check_weight_series(weight: pd.Series, func: str) -> None:
    """What a weight Series says by itself, before any data is read (every engine).

    One value per group key (a repeated key cannot be aligned) and numbers. Which groups it
    lacks, and whether the weights of the groups present are finite and >= 0, depend on the
    data: they are counted over the whole table when the groups are evaluated.
    """
    if weight.index.has_duplicates:
        dup = weight.index[weight.index.duplicated()].unique()
        raise ValueError(
            f"The 'weight' Series of {func} could not be aligned to the group keys: its index repeats "
            f"{len(dup):,} key{'s' if len(dup) != 1 else ''} (for example {list(dup[:3])!r}). Index it by "
            "group key, one value per group (for example weight.groupby(level=0).sum())."
        )
    try:
        np.asarray(weight, dtype=np.float64)
    except (TypeError, ValueError):
        bad = [v for v in weight.to_numpy(dtype=object) if not isinstance(v, (numbers.Real, np.bool_))][:3]
        raise TypeError(
            f"The 'weight' Series of {func} must give numbers (one weight per group); got non-numeric "
            f"values such as {bad!r}. Convert them first, for example with pd.to_numeric."
        ) from None


#: What each weight name means, and a callable that asks for it without the name.
WEIGHT_MEANINGS = {
    "count": ("the rows of each group", "weight=lambda stats: stats['n']"),
    "clicks": ("the relevant rows of each group", "weight=lambda stats: stats['positives']"),
    "log1p": ("log(1 + rows) of each group", "weight=lambda stats: np.log1p(stats['n'])"),
    "uniform": ("1 for every group", "weight=lambda stats: np.ones(len(stats))"),
}


def _ambiguous_weight(name: str, func: str, gcols: Sequence[Hashable] | None) -> str:
    meaning, ask = WEIGHT_MEANINGS[name]
    key = (gcols[0] if len(gcols) == 1 else list(gcols)) if gcols else "group"
    return (
        f"The 'weight' parameter of {func} is {name!r}, which is both a weight name ({meaning}) "
        f"and a column of the frame. For the column, pass its per-group sums, "
        f"weight=df.groupby({key!r})[{name!r}].sum(), or rename the column; for {meaning}, "
        f"pass {ask}."
    )


def check_weight_name(
    weight: WeightLike, columns: pd.Index, func: str, gcols: Sequence[Hashable] | None
) -> Hashable | None:
    """A weight given by name: a weight name, or a column of the frame (returned), never both.

    Needs only the column names, so the Dask and Spark engines check it from metadata.
    """
    w = weight
    if isinstance(w, str) and w in WEIGHT_NAMES and w in columns:
        raise ValueError(_ambiguous_weight(w, func, gcols))
    if isinstance(w, str) and w not in WEIGHT_NAMES:
        if w not in columns:
            from .validation import ColumnNotFoundError, closest_name

            close = closest_name(w, [*WEIGHT_NAMES, *map(str, columns)], cutoff=0.6)
            hint = f" Did you mean {close!r}?" if close is not None else ""
            raise ColumnNotFoundError(
                f"The 'weight' parameter of {func} must be one of "
                f"{', '.join(map(repr, WEIGHT_NAMES))} or a column name. Got {w!r}, which is "
                f"neither.{hint}"
            )
        return w
    return None
