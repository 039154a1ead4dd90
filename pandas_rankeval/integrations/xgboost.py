"""The library's metrics as an XGBoost custom metric (``custom_metric`` / ``eval_metric``).

``pandas_rankeval.xgboost`` re-exports this module. XGBoost is imported only when a
hook is built; ``import pandas_rankeval`` never imports it.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import Any

import numpy as np

from ._training import TrainingMetric, keys_from_sizes, missing_extra

__all__ = ["eval_metric", "XGBoostMetric"]

_FUNC = "pandas_rankeval.xgboost.eval_metric"

#: How far up the stack the hook looks for XGBoost's callback container (see _steer).
_STACK_DEPTH = 8


def _xgboost() -> Any:
    try:
        import xgboost
    except ImportError:
        raise missing_extra("xgboost", "xgboost", _FUNC) from None
    return xgboost


def _query_keys(dmatrix: Any, n: int) -> np.ndarray | None:
    """Group codes from a DMatrix's queries (``qid=`` or ``group=``), or None."""
    ptr = dmatrix.get_uint_info("group_ptr")
    if ptr.size < 2:
        return None
    return keys_from_sizes(np.diff(ptr.astype(np.int64)), n, _FUNC)


def _row_weights(dmatrix: Any) -> np.ndarray | None:
    w = dmatrix.get_weight()
    return w if w.size else None


class XGBoostMetric:
    """An XGBoost custom metric; build it with :func:`eval_metric`.

    XGBoost calls it as ``custom_metric(predt, dmatrix)`` (``xgb.train``, ``xgb.cv``),
    which returns ``(name, value)`` (a list of them for several metrics), or through
    the sklearn API's ``eval_metric`` as ``func(y_true, y_pred[, sample_weight=])``,
    which returns the value (logged under ``__name__``).

    Examples
    --------
    >>> import numpy as np
    >>> import xgboost as xgb
    >>> from pandas_rankeval.xgboost import eval_metric
    >>> y = np.array([1, 0, 0, 0, 0, 1, 0, 1, 1, 0, 0, 0])
    >>> dvalid = xgb.DMatrix(np.zeros((12, 1)), y, qid=np.repeat([0, 1, 2], 4))
    >>> # group=None: the queries of the DMatrix
    >>> metric = eval_metric("gauc")
    >>> type(metric).__name__, metric.names
    ('XGBoostMetric', ['rankeval_gauc'])
    >>> name, value = metric(np.linspace(1, 0, 12), dvalid)
    >>> name, round(value, 4)
    ('rankeval_gauc', 0.75)
    """

    def __init__(self, core: TrainingMetric, xgb: Any) -> None:
        self._core = core
        self._dmatrix = xgb.DMatrix
        self.__name__ = core.names[0]

    @property
    def names(self) -> list[str]:
        """The names the metrics are logged under (``evals_result[set][name]``)."""
        return list(self._core.names)

    def __repr__(self) -> str:
        return f"pandas_rankeval.xgboost.eval_metric({self._core.names!r})"

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state["_dmatrix"] = None  # the class is looked up again after unpickling
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._dmatrix = _xgboost().DMatrix

    def __call__(self, predt: Any, dmatrix: Any, sample_weight: Any = None) -> Any:
        if not self._core._warned_twice:
            self._core.warn_if_logged_twice(_builtin_names(), "its 'eval_metric' parameter or the objective's default")
        if isinstance(dmatrix, self._dmatrix):  # xgb.train / xgb.cv: (predt, DMatrix)
            labels = dmatrix.get_label()
            n = int(labels.shape[0])
            _steer_early_stopping(self._core.names, [sp.info.reading.direction for sp in self._core.specs])
            values = self._core.evaluate(
                predt,
                labels,
                source=dmatrix,
                keys_from_data=lambda: _query_keys(dmatrix, n),
                weights_from_data=lambda: _row_weights(dmatrix),
            )
            return values[0] if len(values) == 1 else values
        # sklearn API: (y_true, y_pred[, sample_weight=])
        caller = sys._getframe(1).f_code
        if "ltr_metric_decorator" in getattr(caller, "co_qualname", "") or (
            caller.co_name == "task" and caller.co_filename.endswith(os.path.join("xgboost", "sklearn.py"))
        ):
            raise TypeError(
                f"{_FUNC}: XGBRanker calls a callable eval_metric once per query with that query's "
                "rows only, so no hook sees the whole evaluation set (nor its query keys). Train "
                "the ranker with xgb.train(params, xgb.DMatrix(X, y, qid=qid), evals=[(dvalid, "
                f"'valid')], custom_metric={_FUNC}(...)) instead, where the queries come from qid."
            )
        if len(self._core.names) > 1:
            raise ValueError(
                f"{_FUNC}: XGBoost's sklearn API logs one value per custom metric; this hook "
                f"computes {self._core.names}. Build it with one metric, or use xgb.train."
            )
        labels, scores = predt, dmatrix
        _steer_early_stopping(self._core.names, [sp.info.reading.direction for sp in self._core.specs])
        values = self._core.evaluate(
            scores,
            labels,
            weights_from_data=lambda: sample_weight,
        )
        return values[0][1]


def _builtin_names() -> list[str]:
    """The names of XGBoost's own metrics on the evaluation set being evaluated (``ndcg@10``),
    read from the log line ``Booster.eval_set`` is writing; [] outside one."""
    xgb = sys.modules.get("xgboost")
    booster_type = getattr(xgb, "Booster", None)
    frame = sys._getframe(2)
    for _ in range(_STACK_DEPTH):
        if frame is None or booster_type is None:
            return []
        local = frame.f_locals
        res, evname = local.get("res"), local.get("evname")
        if isinstance(local.get("self"), booster_type) and isinstance(res, str) and isinstance(evname, str):
            head = f"{evname}-"
            return [t[len(head):].rpartition(":")[0] for t in res.split("\t") if t.startswith(head)]
        frame = frame.f_back  # type: ignore[assignment]  # stubs narrower than runtime
    return []


def _steer_early_stopping(names: list[str], directions: Sequence[str] | None = None) -> None:
    """Tell XGBoost's EarlyStopping which side is better when it would guess.

    Left to itself (``early_stopping_rounds=``, ``maximize=None``) XGBoost guesses the
    direction from the metric's name and takes ``"gauc"``, ``"mrr"``, ``"recall@k"`` or
    ``"hit_rate@k"`` for losses. The metric is evaluated before the callbacks run, so
    setting ``maximize`` now is in time for the first round. An explicit
    ``maximize=False`` on a metric of this hook is an error. The calibration metrics are the
    other way round: log loss, NE and ECE are minimized (``maximize=True`` is the error), and
    PCOC, whose best value is 1, cannot steer early stopping. Outside ``xgb.train`` /
    ``xgb.cv`` (no callback container on the stack) nothing happens.
    """
    side = dict(zip(names, directions or ["higher"] * len(names)))
    xgb = sys.modules.get("xgboost")
    callback = getattr(xgb, "callback", None)
    container_type = getattr(callback, "CallbackContainer", None)
    stopping_type = getattr(callback, "EarlyStopping", None)
    if container_type is None or stopping_type is None:
        return
    frame = sys._getframe(2)
    for _ in range(_STACK_DEPTH):
        if frame is None:
            return
        container = frame.f_locals.get("self")
        if isinstance(container, container_type):
            break
        frame = frame.f_back  # type: ignore[assignment]  # stubs narrower than runtime
    else:
        return
    for cb in getattr(container, "callbacks", []):
        if not isinstance(cb, stopping_type):
            continue
        # metric_name=None watches the last metric logged: custom metrics come after the
        # built-in ones, and this hook's last name is the last of all
        watched = cb.metric_name or names[-1]
        if watched not in names:
            continue  # it watches another metric
        better = side[watched]
        if better == "closer to 1":
            raise ValueError(
                f"{_FUNC}: XGBoost's EarlyStopping watches {watched!r}, whose best value is 1 (neither "
                "higher nor lower is better), so it cannot pick a round. Watch another metric "
                "(metric_name=, for example 'logloss') or leave it out of early stopping."
            )
        want = better == "higher"
        if cb.maximize is None:
            cb.maximize = want
        elif bool(cb.maximize) != want:
            raise ValueError(
                f"{_FUNC}: XGBoost's EarlyStopping watches {watched!r} with "
                f"maximize={bool(cb.maximize)}, so it would keep the worst round; {watched!r} is "
                f"{better}-is-better. Pass maximize={want} (or leave it unset)."
            )


def eval_metric(
    metric: str | Sequence[str],
    *,
    group: Any = None,
    sample_weight: str | None = None,
    name: str | Sequence[str] | None = None,
    **options: Any,
) -> XGBoostMetric:
    """An XGBoost custom metric that reports a metric of this library.

    The value XGBoost logs each round is the value ``pandas_rankeval.<metric>`` gives on
    a frame of the evaluation set's group keys, labels and that round's predictions, with
    the same options (ties, single-class groups, weights as in the metric contract).

    Parameters
    ----------
    metric : str or list of str
        A metric name of the library: ``"gauc"``, ``"auc"``, ``"mrr"``, ``"ndcg@10"``,
        ``"map@5"``, ``"precision@5"``, ``"recall@20"``, ``"hit_rate@10"``, ... Several
        names (``xgb.train`` only) share one sort of the scores per round.
    group : array-like, DataFrame, list of them, dict or None, default=None
        The group (user, query, session) of every row of each evaluation set:

        - None: the set's own queries (``xgb.DMatrix(qid=...)`` or ``group=``), each
          query one group, keyed 0, 1, 2, ... in query order; ``xgb.cv`` on such a
          DMatrix evaluates each fold by its queries.
        - an array, Series or DataFrame of key columns: the keys of the one evaluation
          set (one per row, in its order). A set of another length is an error.
        - a list of those: one per evaluation set, matched to the sets in the order
          of ``evals`` / ``eval_set``, a set taking the first unused array of its
          length.
        - a dict ``{xgb.DMatrix: keys}`` (``xgb.train``): unambiguous whatever the order.

        Only ``"auc"`` (global AUC) needs no groups.
    sample_weight : {None, "dataset"}, default=None
        "dataset": the evaluation set's own per-row weights (``DMatrix(weight=...)``,
        ``sample_weight_eval_set=``) weigh the row pairs of AUC and GAUC, as
        ``sample_weight=`` of :func:`pandas_rankeval.gauc`. None ignores them.
    name : str or list of str, optional
        The names to log the values under; default ``"rankeval_<metric>"``
        (``"rankeval_gauc"``, ``"rankeval_ndcg@10"``), which no XGBoost metric is named
        (XGBoost's own ``ndcg@10`` scores queries without a relevant row 1, this library's
        0). A name that a metric of the booster also logs warns once. Names may not
        contain ``"-"``, ``":"`` or a space.
    **options
        The options of the metric's function: ``weight``, ``ties``, ``threshold``,
        ``min_size``, ``min_pos``, ``min_neg``, ``engine``, ``max_fpr`` (AUC, GAUC),
        ``gain`` (NDCG), ``denominator`` (MAP), ``empty`` (list metrics).

    Returns
    -------
    custom_metric : XGBoostMetric
        Pass it as ``custom_metric=`` to ``xgb.train`` / ``xgb.cv``, or as
        ``eval_metric=`` to ``XGBClassifier`` / ``XGBRegressor``.

    Notes
    -----
    Early stopping: XGBoost guesses from a metric's name whether higher is better and
    would take ``"gauc"``, ``"mrr"``, ``"recall@k"`` and ``"hit_rate@k"`` for losses.
    When the ``EarlyStopping`` callback was left to guess (``early_stopping_rounds=``
    without ``maximize``), the hook tells it that higher is better (lower for ``logloss``,
    ``ne`` and ``ece``; ``pcoc``, best at 1, cannot be watched); pass ``maximize=True``
    to ``xgb.train`` to say it yourself. Set
    ``"disable_default_eval_metric": 1`` so that only this metric is logged.

    Rankers: XGBoost's ``XGBRanker`` calls a callable ``eval_metric`` once per query,
    so no hook can see a whole evaluation set there (an error says so); train rankers
    with ``xgb.train`` on a ``DMatrix(qid=...)``, whose queries the hook then uses.

    The first round on an evaluation set encodes its labels and group keys once; every
    later round only sorts the new scores. Sets are recognised by their ``DMatrix``
    (native API) or their labels (sklearn API).

    Examples
    --------
    >>> import numpy as np, xgboost as xgb
    >>> import pandas_rankeval as pre
    >>> from pandas_rankeval.xgboost import eval_metric
    >>> df = pre.datasets.make_impressions(n_users=400, seed=1)
    >>> X = df[["model_a", "model_b", "position"]]
    >>> train, valid = df.user_id % 4 != 0, df.user_id % 4 == 0
    >>> dtrain = xgb.DMatrix(X[train], df.click[train])
    >>> dvalid = xgb.DMatrix(X[valid], df.click[valid], qid=df.user_id[valid])
    >>> log = {}
    >>> booster = xgb.train(
    ...     {
    ...         "objective": "binary:logistic",
    ...         "disable_default_eval_metric": 1,
    ...         "nthread": 1,
    ...         "max_depth": 3,
    ...     },
    ...     dtrain,
    ...     num_boost_round=30,
    ...     evals=[(dvalid, "valid")],
    ...     evals_result=log,
    ...     custom_metric=eval_metric("gauc"),
    ...     early_stopping_rounds=5,
    ...     verbose_eval=False,
    ... )
    >>> booster.best_iteration == int(np.argmax(log["valid"]["rankeval_gauc"]))
    True
    """
    xgb = _xgboost()
    core = TrainingMetric(
        metric, group=group, sample_weight=sample_weight, options=options, func=_FUNC,
        library="XGBoost", name=name,
    )
    for n in core.names:
        if "-" in n or ":" in n or any(c.isspace() for c in n):
            raise ValueError(
                f"The 'name' parameter of {_FUNC}: XGBoost splits its log lines on '-' and ':' (and "
                f"xgb.cv on spaces), so a metric name cannot hold them; got {n!r}."
            )
    return XGBoostMetric(core, xgb)
