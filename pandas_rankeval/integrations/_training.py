"""What every training hook shares (LightGBM, XGBoost): no third-party import here.

A hook is built with metric names and options, checked once. The first time the
training library hands it an evaluation set, the set's labels and group keys go
through the library's own preparation (:func:`~pandas_rankeval.core.evaluation.pipeline.prepare_evaluation`: labels to levels,
keys to integer codes); every round after that only the new scores are sorted and
reduced (:func:`~pandas_rankeval.core.evaluation.pipeline.evaluate_score`), so the value is the one ``pandas_rankeval.<metric>``
gives on a frame of those keys, labels and scores.

Evaluation sets are recognised from round to round by the object that holds them
(a LightGBM ``Dataset``, an XGBoost ``DMatrix``) when the hook receives it, else by
their labels (the same array object, or equal values). The group keys of a new set
come from the ``group`` parameter (see :func:`group_parameter_doc`) or, with
``group=None``, from the set's own query sizes (LightGBM ``group``, XGBoost ``qid``).
"""

from __future__ import annotations

import warnings
import weakref
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..api import metrics as _metrics
from ..core.evaluation.pipeline import evaluate_score, prepare_evaluation
from ..core.evaluation.records import Evaluation, warn_if_needed
from ..core.inputs.options import WEIGHT_NAMES, Options
from ..core.metrics.registry import MetricSpec, parse_metrics, sample_weight_error
from ..core.inputs.validation import invalid_parameter, numeric_values

__all__ = ["NAME_PREFIX", "TrainingMetric", "default_name", "metric_function", "check_metric_options", "missing_extra", "parse_metric_parameter"]

#: Parameters of the metric functions that are not options of a hook, and why.
_NOT_OPTIONS = {
    "df": None,
    "group": None,
    "label": "the training library passes the labels of each evaluation set",
    "score": "the training library passes the predictions of each round",
    "k": "the cutoff goes in the metric name, such as 'ndcg@10'",
    "sample_weight": None,
    "tiebreak": "a tie-break needs a column of the evaluation frame, which a training library does not pass",
    "nan_policy": "the training library's labels and scores have no missing values to omit",
    "progress": "a progress bar per round would flood the training log",
}

#: The prefix of the names a hook logs its metrics under (``rankeval_ndcg@10``): LightGBM and
#: XGBoost name their own metrics ``ndcg@10``, ``map@5``, ``auc``, so the library's would share
#: their names (two values under one name in the log). The same rule for both hooks; the prefix
#: holds neither "-" nor ":" (XGBoost splits its log lines on them) nor a space (xgb.cv splits
#: on whitespace).
NAME_PREFIX = "rankeval_"


def default_name(metric: str) -> str:
    """The name a hook logs ``metric`` under unless told otherwise: ``rankeval_<metric>``."""
    return f"{NAME_PREFIX}{metric}"


#: Evaluation sets remembered at once (cross-validation evaluates many).
_CACHE_SIZE = 32

#: The internal column names of the evaluation frame a hook builds.
_LABEL, _SCORE, _SW = "label", "score", "sample_weight"


def missing_extra(package: str, extra: str, used_by: str) -> ImportError:
    """The error for an optional dependency that is not installed: what, and how to get it."""
    return ImportError(
        f"{used_by} needs {package}, which is not installed. "
        f"Install it with: pip install 'pandas_rankeval[{extra}]' (or pip install {package})."
    )


def parse_metric_parameter(metric: Any, func: str) -> list[MetricSpec]:
    """The ``metric`` parameter of a hook: one or more metric names, parsed."""
    try:
        return parse_metrics(metric)
    except (TypeError, ValueError) as exc:
        raise type(exc)(f"The 'metric' parameter of {func}: {exc}") from None


def metric_function(spec: MetricSpec) -> Callable[..., Any]:
    """The public ``pandas_rankeval`` function that computes ``spec``."""
    function: Callable[..., Any] = getattr(_metrics, spec.info.function)
    return function


def _option_names(spec: MetricSpec) -> list[str]:
    """The options of ``spec``'s entry that a hook takes (all but those of :data:`_NOT_OPTIONS`)."""
    return [p for p in spec.info.options if p not in _NOT_OPTIONS]


def check_metric_options(
    specs: Sequence[MetricSpec], options: Mapping[str, Any], func: str, *, allow: Sequence[str] = ()
) -> Options:
    """Check the options of a hook against the metrics it computes; the checked Options."""
    takes: dict[str, list[str]] = {}
    for spec in specs:
        for name in _option_names(spec):
            takes.setdefault(name, []).append(spec.name)
    names = [s.name for s in specs]
    for name in options:
        if name in allow or name in takes:
            continue
        why = _NOT_OPTIONS.get(name)
        if why:
            raise TypeError(f"{func} does not take the option {name!r}: {why}.")
        raise TypeError(
            f"{func} got the option {name!r}, which {' and '.join(map(repr, names))} "
            f"{'does' if len(names) == 1 else 'do'} not take. Their options are "
            f"{', '.join(map(repr, sorted(takes)))}."
        )
    weight = options.get("weight")
    if isinstance(weight, str) and weight not in WEIGHT_NAMES:
        raise invalid_parameter(
            "weight", func, f"one of {', '.join(map(repr, WEIGHT_NAMES))}, a pandas Series indexed by group key, or "
            "a callable", weight, "A column name has no frame to refer to inside training: pass "
            "weight=df.groupby(key)[column].sum().")
    kw = {k: v for k, v in options.items() if k not in allow}
    return Options(func, **kw).check()


def _is_keys(x: Any) -> bool:
    """One evaluation set's keys (an array-like of one or more keys), not one key."""
    if isinstance(x, (pd.Series, pd.Index, pd.DataFrame)):
        return True
    if isinstance(x, (list, tuple, Mapping, str, bytes)) or not hasattr(x, "__array__"):
        return False
    return bool(np.ndim(x) >= 1)  # a numpy scalar is one key


def _length(keys: Any) -> int:
    return len(keys)


@dataclass
class _GroupParameter:
    kind: str  # "data": from the set's queries; "one": one key array; "list"; "dict"
    one: Any = None
    many: list[Any] | None = None
    by_set: list[tuple[Any, Any]] | None = None  # [(weakref to the set, keys)]


def _group_parameter(group: Any, func: str) -> _GroupParameter:
    if group is None:
        return _GroupParameter("data")
    if isinstance(group, Mapping):
        pairs = []
        for dataset, keys in group.items():
            try:
                ref = weakref.ref(dataset)
            except TypeError:
                raise TypeError(
                    f"The 'group' parameter of {func} is a dict; its keys must be the evaluation "
                    f"sets themselves (lightgbm.Dataset / xgboost.DMatrix objects), got {dataset!r}. "
                    "For several sets of the sklearn API, pass a list of key arrays in evaluation order."
                ) from None
            pairs.append((ref, keys))
        return _GroupParameter("dict", by_set=pairs)
    if isinstance(group, (list, tuple)) and group and all(
        _is_keys(g) or isinstance(g, list) for g in group
    ):
        return _GroupParameter("list", many=list(group))
    if isinstance(group, str):
        raise TypeError(
            f"The 'group' parameter of {func} must hold the group keys themselves (an array, a "
            f"Series or a DataFrame of key columns, one value per row of the evaluation set), not a "
            f"column name: pass group=valid_df[{group!r}]."
        )
    return _GroupParameter("one", one=group)


@dataclass
class _EvalSet:
    source: Any  # weakref to the Dataset / DMatrix, or None
    labels: np.ndarray  # the labels as received, to recognise the set next round
    ev: Evaluation
    slot: Any  # which key array of the 'group' parameter it took ("one", an index, "data")
    warned: bool = False


class TrainingMetric:
    """Metric names and options checked once, one prepared evaluation per evaluation set.

    Parameters
    ----------
    metric : str or list of str
        Metric names of the library (``"gauc"``, ``"ndcg@10"``, ...).
    group : see the hooks' docstrings
    sample_weight : {None, "dataset"}
        "dataset": the evaluation set's own per-row weights weigh the row pairs of
        AUC and GAUC (as ``sample_weight=`` of :func:`pandas_rankeval.gauc`).
    options : dict
        The metric options (``weight``, ``ties``, ``threshold``, ...).
    func : str
        The public name of the hook, for messages.
    library : str
        "LightGBM" or "XGBoost", for messages.
    """

    def __init__(
        self,
        metric: str | Sequence[str],
        *,
        group: Any,
        sample_weight: str | None,
        options: Mapping[str, Any],
        func: str,
        library: str,
        name: str | Sequence[str] | None = None,
    ) -> None:
        self.func = func
        self.library = library
        self.specs = parse_metric_parameter(metric, func)
        ips = [s.name for s in self.specs if "propensity" in s.info.options]
        if ips:
            raise ValueError(
                f"{func}: {ips[0]!r} is a counterfactual metric of a click log: it needs each row's logged "
                "position and its propensity, which a training hook does not get. Evaluate it on the log "
                "after training, with pre.report(..., position=..., propensity=...)."
            )
        self.options = check_metric_options(self.specs, options, func)
        if sample_weight not in (None, "dataset"):
            raise invalid_parameter(
                "sample_weight", func, "None or 'dataset' (the evaluation set's own weights: LightGBM "
                "Dataset(weight=...), XGBoost DMatrix(weight=...), eval_sample_weight / sample_weight_eval_set of "
                "the sklearn API)", sample_weight)
        if sample_weight is not None and any("sample_weight" not in s.info.options for s in self.specs):
            raise ValueError(sample_weight_error(func))
        self.sample_weight = sample_weight
        self.names = self._names(name)
        self.group = _group_parameter(group, func)
        if self.group.kind == "one":
            self._check_keys(self.group.one, "'group'")
        for i, keys in enumerate(self.group.many or []):
            self._check_keys(keys, f"'group[{i}]'")
        self._sets: list[_EvalSet] = []
        self._claimed: set[Any] = set()
        self._warned_twice = False

    # -- construction -------------------------------------------------------------------
    def _names(self, name: str | Sequence[str] | None) -> list[str]:
        if name is None:
            return [default_name(s.name) for s in self.specs]
        names = [name] if isinstance(name, str) else list(name)
        if len(names) != len(self.specs) or not all(isinstance(n, str) and n for n in names):
            raise invalid_parameter("name", self.func, f"one non-empty name per metric ({len(self.specs)})", name)
        return names

    def _check_keys(self, keys: Any, what: str) -> None:
        if isinstance(keys, (str, bytes)) or not hasattr(keys, "__len__"):
            raise TypeError(
                f"The {what} parameter of {self.func} must be an array, a Series or a DataFrame of "
                f"group keys (one per row of the evaluation set); got {type(keys).__name__}."
            )

    def warn_if_logged_twice(self, builtin: Sequence[str], how: str) -> None:
        """Warn (once per hook) when the training library logs one of this hook's names itself.

        ``builtin`` are the names of the library's own metrics on the evaluation set; ``how``
        says how they are set (for the message). Two metrics under one name share one list in
        ``record_evaluation`` / ``evals_result`` and early stopping may watch either.
        """
        if self._warned_twice:
            return
        both = [n for n in self.names if n in set(builtin)]
        if not both:
            return
        self._warned_twice = True
        warnings.warn(
            f"{self.func}: {self.library} evaluates its own {', '.join(map(repr, both))} too ({how}), so its "
            f"log holds two different values under one name: record_evaluation interleaves them in "
            f"one list and early stopping can watch either. Leave out name= (this hook's "
            f"metrics are named '{NAME_PREFIX}<metric>', which no built-in metric is) or pick "
            f"another name.",
            UserWarning,
            stacklevel=4,
        )

    @property
    def needs_groups(self) -> bool:
        return any(s.info.grouped for s in self.specs)

    def __getstate__(self) -> dict[str, Any]:
        # pickling or deep-copying a model that holds the hook (XGBoost keeps it as a
        # parameter; sklearn's clone deep-copies it) leaves the prepared sets behind
        state = self.__dict__.copy()
        state["_sets"] = []
        state["_claimed"] = set()
        if self.group.by_set is not None:
            state["group"] = _GroupParameter("dict", by_set=[])
        return state

    # -- finding the evaluation set -------------------------------------------------------
    def _find(self, labels: np.ndarray, source: Any) -> _EvalSet | None:
        for s in self._sets:
            if source is not None and s.source is not None and s.source() is source:
                return s
        for s in self._sets:
            other = s.source() if s.source is not None else None
            if source is not None and other is not None and other is not source:
                continue  # another live set that happens to hold the same labels
            if s.labels is labels or (
                s.labels.shape == labels.shape and np.array_equal(s.labels, labels)
            ):
                return s
        return None

    def _keys_of_data(self, n: int, keys_from_data: Callable[[], np.ndarray | None]) -> np.ndarray | None:
        """The set's own query keys (LightGBM ``group``, XGBoost ``qid``); without them, every row its
        own group when every metric pools rows (the calibration metrics, global AUC), else the error."""
        if not self.needs_groups:
            return None
        keys = keys_from_data()
        if keys is not None:
            return keys
        if not any(s.info.needs_group for s in self.specs):
            return np.arange(n, dtype=np.int64)  # pooled over rows: the grouping does not change them
        raise ValueError(
            f"{self.func}: {[s.name for s in self.specs if s.info.needs_group]} need group keys, and "
            f"this {self.library} evaluation set of {n:,} rows has no query information. Pass "
            f"group=<the user/query key of each row> to {self.func} (one array per set as a "
            f"list when several sets are evaluated), or give the set its queries "
            f"({'Dataset(group=...)' if self.library == 'LightGBM' else 'DMatrix(qid=...)'})."
        )

    def _keys_for(self, n: int, source: Any, keys_from_data: Callable[[], np.ndarray | None]) -> tuple[Any, Any]:
        """The group keys of a new evaluation set of ``n`` rows, and the slot they came from."""
        g = self.group
        lib = self.library
        if g.kind == "data" or not self.needs_groups:
            return self._keys_of_data(n, keys_from_data), "data"
        if g.kind == "dict":
            for ref, keys in g.by_set or []:
                if source is not None and ref() is source:
                    self._check_length(keys, n, "'group' (dict)")
                    return keys, id(source)
            where = "the sklearn API hides its evaluation sets" if source is None else "it is not one of the dict's keys"
            raise ValueError(
                f"The 'group' parameter of {self.func} is a dict of evaluation sets, but {lib} is evaluating "
                f"a set of {n:,} rows and {where}. Key the dict by every set listed for evaluation (the "
                "training set too when it is listed), or pass a list of key arrays in evaluation order."
            )
        if g.kind == "one":
            self._check_length(g.one, n, "'group'")
            if "one" in self._claimed:
                raise ValueError(
                    f"The 'group' parameter of {self.func} holds the keys of one evaluation set of {n:,} "
                    f"rows, but {lib} is evaluating a second, different set of {n:,} rows. Pass one key "
                    f"array per evaluation set, group=[keys_of_set_1, keys_of_set_2], or build a new hook "
                    "for each training run."
                )
            return g.one, "one"
        many = g.many or []
        for i, keys in enumerate(many):
            if i not in self._claimed and _length(keys) == n:
                return keys, i
        lengths = [_length(k) for k in many]
        taken = sorted(i for i in self._claimed if isinstance(i, int))
        raise ValueError(
            f"The 'group' parameter of {self.func} gives key arrays of {lengths} rows "
            f"(already matched: {taken}), but {lib} is evaluating a set of {n:,} rows with none left "
            f"to match. Give one key array per evaluation set that {lib} evaluates, in the order it "
            f"evaluates them ({'the training set first when listed, then valid_sets / eval_set' if lib == 'LightGBM' else 'evals / eval_set order'})."
        )

    def _check_length(self, keys: Any, n: int, what: str) -> None:
        if _length(keys) != n:
            raise ValueError(
                f"The {what} parameter of {self.func} has {_length(keys):,} keys, but {self.library} is "
                f"evaluating a set of {n:,} rows. Pass the keys of that evaluation set, one per row in "
                "the same order (for several sets, a list with one key array per set)."
            )

    def _frame(self, keys: Any, labels: np.ndarray, score: np.ndarray, weights: np.ndarray | None) -> tuple[pd.DataFrame, list[Hashable] | None]:
        cols: dict[Hashable, Any] = {}
        gcols: list[Hashable] | None = None
        if keys is not None:
            if isinstance(keys, pd.DataFrame):
                parts = [(c, keys[c]) for c in keys.columns]
            elif isinstance(keys, (pd.Series, pd.Index)):
                parts = [(keys.name, keys)]  # type: ignore[list-item]  # stubs narrower than runtime
            else:
                arr = np.asarray(keys)
                if arr.ndim != 1:
                    raise ValueError(
                        f"The 'group' parameter of {self.func} must be one key per row; got an array of "
                        f"shape {arr.shape}. Pass several key columns as a DataFrame."
                    )
                parts = [(None, arr)]  # type: ignore[list-item]  # stubs narrower than runtime
            gcols = []
            for i, (name, values) in enumerate(parts):
                if name is None or name in (_LABEL, _SCORE, _SW) or name in cols:
                    name = "group" if len(parts) == 1 else f"group_{i}"
                cols[name] = values.array if isinstance(values, (pd.Series, pd.Index)) else values
                gcols.append(name)
        cols[_LABEL] = labels
        cols[_SCORE] = score
        if weights is not None:
            cols[_SW] = weights
        return pd.DataFrame(cols, copy=False), gcols

    def _new(
        self,
        score: np.ndarray,
        labels: np.ndarray,
        source: Any,
        keys_from_data: Callable[[], np.ndarray | None],
        weights_from_data: Callable[[], np.ndarray | None],
    ) -> _EvalSet:
        n = labels.shape[0]
        keys, slot = self._keys_for(n, source, keys_from_data)
        weights = None
        if self.sample_weight == "dataset":
            weights = weights_from_data()
            if weights is None or np.size(weights) == 0:
                raise ValueError(
                    f"{self.func}(sample_weight='dataset'): this {self.library} evaluation set of {n:,} "
                    "rows has no weights. Give it weights, or pass sample_weight=None."
                )
            weights = np.asarray(weights)
            if weights.shape != (n,):
                raise ValueError(
                    f"{self.func}(sample_weight='dataset'): the evaluation set holds {weights.size:,} "
                    f"weights for {n:,} rows (XGBoost ranking data weighs queries, not rows). For "
                    "weights per group pass weight=pd.Series(weights, index=query keys) instead."
                )
        frame, gcols = self._frame(keys, labels, score, weights)
        opts = Options(**{**self.options.__dict__, "sample_weight": _SW if weights is not None else None})
        ev = prepare_evaluation(
            frame, group=gcols, label=_LABEL, scores=[_SCORE], specs=self.specs, options=opts
        )
        ev.prepared.encode_groups()
        ev.prepared.scores.clear()  # the rounds bring their own
        entry = _EvalSet(weakref.ref(source) if source is not None else None, labels, ev, slot)
        self._claimed.add(slot)
        self._sets.append(entry)
        if len(self._sets) > _CACHE_SIZE:
            old = self._sets.pop(0)
            self._claimed.discard(old.slot)
        return entry

    # -- one round ---------------------------------------------------------------------
    def _score(self, preds: Any, n: int) -> np.ndarray:
        arr = np.asarray(preds)
        if arr.ndim == 2 and arr.shape[1] == 1:
            arr = arr[:, 0]
        if arr.ndim != 1:
            raise ValueError(
                f"{self.func}: {self.library} passed predictions of shape {arr.shape} (several scores "
                "per row, as a multi-class model gives); ranking metrics need one score per row. Train "
                "a binary, regression or ranking objective, or evaluate one class's score offline."
            )
        if arr.shape[0] != n:
            raise ValueError(
                f"{self.func}: {self.library} passed {arr.shape[0]:,} predictions for an evaluation set "
                f"of {n:,} labels."
            )
        score = numeric_values(pd.Series(arr, copy=False), _SCORE, "score", keep_float32=True, keep_int64=True)
        if score.dtype.kind == "f" and np.isnan(score).any():
            raise ValueError(
                f"{self.func}: {int(np.isnan(score).sum()):,} of the model's {n:,} predictions on this "
                "evaluation set are NaN (did the training diverge?); no metric can rank them."
            )
        return score

    def evaluate(
        self,
        preds: Any,
        labels: Any,
        *,
        source: Any = None,
        keys_from_data: Callable[[], np.ndarray | None] = lambda: None,
        weights_from_data: Callable[[], np.ndarray | None] = lambda: None,
    ) -> list[tuple[str, float]]:
        """The metrics of one round's predictions on one evaluation set, as (name, value)."""
        labels = np.asarray(labels)
        if labels.ndim != 1:
            raise ValueError(f"{self.func}: the labels have shape {labels.shape}; one label per row is needed.")
        score = self._score(preds, labels.shape[0])
        entry = self._find(labels, source)
        if entry is None:
            entry = self._new(score, labels, source, keys_from_data, weights_from_data)
        se = evaluate_score(entry.ev, _SCORE, score)
        values = [se.metrics[s.name] for s in self.specs]
        entry.ev.prepared.scores.clear()
        entry.ev.scores.clear()
        if not entry.warned:  # coverage depends on the labels only: say it once per set
            entry.warned = True
            for gv in values:
                warn_if_needed(gv, self.func)
        return [(name, float(gv.value)) for name, gv in zip(self.names, values)]


def keys_from_sizes(sizes: Any, n: int, what: str) -> np.ndarray | None:
    """Group codes 0, 0, 1, 1, 1, ... from query sizes (None when there are none)."""
    if sizes is None:
        return None
    sizes = np.asarray(sizes, dtype=np.int64).reshape(-1)
    if sizes.size == 0:
        return None
    if int(sizes.sum()) != n or (sizes < 0).any():
        raise ValueError(f"{what}: the query sizes add up to {int(sizes.sum()):,}, not to the {n:,} rows of the set.")
    return np.repeat(np.arange(sizes.shape[0], dtype=np.int64), sizes)
