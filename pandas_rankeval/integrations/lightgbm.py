"""The library's metrics as a LightGBM evaluation function (``feval`` / ``eval_metric``).

``pandas_rankeval.lightgbm`` re-exports this module. LightGBM is imported only when a
hook is built; ``import pandas_rankeval`` never imports it.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

import numpy as np

from ._training import TrainingMetric, keys_from_sizes, missing_extra

__all__ = ["eval_metric", "LightGBMMetric"]

_FUNC = "pandas_rankeval.lightgbm.eval_metric"


def _lightgbm() -> Any:
    try:
        import lightgbm
    except ImportError:
        raise missing_extra("lightgbm", "lightgbm", _FUNC) from None
    return lightgbm


#: How far up the stack the hook looks for the Booster that calls it (lgb.train: 1 frame;
#: the sklearn API adds its wrapper).
_STACK_DEPTH = 4


def _builtin_names() -> list[str]:
    """The names of the calling Booster's own metrics (``ndcg@10`` for ``metric="ndcg",
    eval_at=[10]``), read from the Booster evaluating this round; [] outside one."""
    lgb = sys.modules.get("lightgbm")
    booster_type = getattr(lgb, "Booster", None)
    frame = sys._getframe(2)
    for _ in range(_STACK_DEPTH):
        if frame is None or booster_type is None:
            return []
        booster = frame.f_locals.get("self")
        if isinstance(booster, booster_type):
            return [str(n) for n in getattr(booster, "_Booster__name_inner_eval", None) or []]
        frame = frame.f_back  # type: ignore[assignment]  # stubs narrower than runtime
    return []


class LightGBMMetric:
    """A LightGBM evaluation function; build it with :func:`eval_metric`.

    LightGBM calls it as ``feval(preds, dataset)`` (``lgb.train``, ``lgb.cv``) or, through
    the sklearn API, as ``eval_metric(y_true, y_pred, weight, group)``. Each call returns
    ``(name, value, is_higher_better)``, or a list of them when several metrics were asked
    for: True for the ranking metrics, False for ``logloss``, ``ne`` and ``ece`` (lower is
    better) and for ``pcoc`` (whose best value is 1: do not early-stop on it).

    Examples
    --------
    >>> import numpy as np
    >>> import lightgbm as lgb
    >>> from pandas_rankeval.lightgbm import eval_metric
    >>> users = np.repeat([0, 1, 2], 4)
    >>> y = np.array([1, 0, 0, 0, 0, 1, 0, 1, 1, 0, 0, 0])
    >>> feval = eval_metric("gauc", group=users)
    >>> type(feval).__name__, feval.names
    ('LightGBMMetric', ['rankeval_gauc'])
    >>> data = lgb.Dataset(np.zeros((12, 1)), y, params={"verbose": -1}).construct()
    >>> name, value, higher_is_better = feval(np.linspace(1, 0, 12), data)
    >>> name, round(value, 4), higher_is_better
    ('rankeval_gauc', 0.75, True)
    """

    def __init__(self, core: TrainingMetric, dataset_type: type) -> None:
        self._core = core
        self._dataset_type = dataset_type

    @property
    def names(self) -> list[str]:
        """The names the metrics are logged under (``evals_result[set][name]``)."""
        return list(self._core.names)

    def __repr__(self) -> str:
        return f"pandas_rankeval.lightgbm.eval_metric({self._core.names!r})"

    def __call__(
        self, preds: Any, eval_data: Any, weight: Any = None, group: Any = None
    ) -> tuple[str, float, bool] | list[tuple[str, float, bool]]:
        # four parameters: LightGBM's sklearn API then passes (y_true, y_pred, weight, group)
        if not self._core._warned_twice:
            self._core.warn_if_logged_twice(_builtin_names(), "its 'metric' parameter, with 'eval_at' for @k")
        if isinstance(eval_data, self._dataset_type):  # lgb.train / lgb.cv: (preds, Dataset)
            data = eval_data
            labels = data.get_label()  # type: ignore[attr-defined]  # stubs narrower than runtime
            n = int(np.shape(labels)[0])
            values = self._core.evaluate(
                preds,
                labels,
                source=data,
                keys_from_data=lambda: keys_from_sizes(data.get_group(), n, _FUNC),  # type: ignore[attr-defined]  # stubs narrower than runtime
                weights_from_data=data.get_weight,  # type: ignore[attr-defined]  # stubs narrower than runtime
            )
        else:  # sklearn API: (y_true, y_pred, weight, group)
            labels, scores = preds, eval_data
            n = int(np.shape(labels)[0])
            values = self._core.evaluate(
                scores,
                labels,
                keys_from_data=lambda: keys_from_sizes(group, n, _FUNC),
                weights_from_data=lambda: weight,
            )
        higher = [sp.info.reading.direction == "higher" for sp in self._core.specs]
        out = [(name, value, h) for (name, value), h in zip(values, higher)]
        return out[0] if len(out) == 1 else out


def eval_metric(
    metric: str | Sequence[str],
    *,
    group: Any = None,
    sample_weight: str | None = None,
    name: str | Sequence[str] | None = None,
    **options: Any,
) -> LightGBMMetric:
    """A LightGBM evaluation function that reports a metric of this library.

    The value LightGBM logs each round is the value ``pandas_rankeval.<metric>`` gives on
    a frame of the evaluation set's group keys, labels and that round's predictions, with
    the same options (ties, single-class groups, weights as in the metric contract). It is
    flagged higher-is-better (lower-is-better for ``logloss``, ``ne`` and ``ece``), so
    ``lgb.early_stopping`` and ``lgb.record_evaluation`` work on it; ``pcoc`` (best at 1)
    is for the log, not for early stopping.

    Parameters
    ----------
    metric : str or list of str
        A metric name of the library: ``"gauc"``, ``"auc"``, ``"mrr"``, ``"mrr@10"``,
        ``"ndcg"``, ``"ndcg@10"``, ``"map@5"``, ``"precision@5"``, ``"recall@20"``,
        ``"hit_rate@10"``. Several names share one sort of the scores per round.
    group : array-like, DataFrame, list of them, dict or None, default=None
        The group (user, query, session) of every row of each evaluation set:

        - None: the set's own queries (``lgb.Dataset(group=...)``, ``LGBMRanker``'s
          ``group`` / ``eval_group``), each query one group, keyed 0, 1, 2, ... in query
          order. A binary objective may carry query sizes too (rows sorted by user):
          ``lgb.cv`` then keeps users whole in its folds and the hook evaluates each
          fold by its queries.
        - an array, Series or DataFrame of key columns: the keys of the one evaluation
          set (one per row, in its order). A set of another length is an error.
        - a list of those: one per evaluation set, matched to the sets in the order
          LightGBM first evaluates them (the training set first when it is listed,
          then ``valid_sets`` / ``eval_set`` in order), a set taking the first unused
          array of its length.
        - a dict ``{lgb.Dataset: keys}`` (``lgb.train`` / ``lgb.cv``): unambiguous
          whatever the order.

        Only ``"auc"`` (global AUC) needs no groups.
    sample_weight : {None, "dataset"}, default=None
        "dataset": the evaluation set's own weights (``Dataset(weight=...)``,
        ``eval_sample_weight=``) weigh the row pairs of AUC and GAUC, as
        ``sample_weight=`` of :func:`pandas_rankeval.gauc`. None ignores them.
    name : str or list of str, optional
        The names to log the values under; default ``"rankeval_<metric>"``
        (``"rankeval_gauc"``, ``"rankeval_ndcg@10"``), which no LightGBM metric is named:
        LightGBM's own ``ndcg@10`` (``metric="ndcg", eval_at=[10]``) scores queries without
        a click 1, this library's 0, and one name would hold both. A name that a metric of
        the booster also logs warns once.
    **options
        The options of the metric's function: ``weight``, ``ties``, ``threshold``,
        ``min_size``, ``min_pos``, ``min_neg``, ``engine``, ``max_fpr`` (AUC, GAUC),
        ``gain`` (NDCG), ``denominator`` (MAP), ``empty`` (list metrics). A per-group
        ``weight`` is a name (``"count"``, ``"clicks"``, ``"log1p"``, ``"uniform"``), a
        Series indexed by group key, or a callable.

    Returns
    -------
    feval : LightGBMMetric
        Pass it as ``feval=`` to ``lgb.train`` / ``lgb.cv``, or as ``eval_metric=`` to
        the ``fit`` of ``LGBMClassifier``, ``LGBMRegressor`` or ``LGBMRanker``.

    Notes
    -----
    The first round on an evaluation set encodes its labels and group keys once, through
    the library's own preparation; every later round only sorts the new scores, so a
    round costs about one call of the metric function on the set. Sets are recognised
    by their ``Dataset`` (native API) or their labels (sklearn API). Coverage warnings
    (for example no eligible group) are given once per set, not every round.

    With ``metric="None"`` in the parameters LightGBM logs only this hook's values;
    otherwise ``early_stopping`` watches every logged metric (or only the first one, the
    built-in one, with ``first_metric_only=True``).

    Examples
    --------
    GAUC by user on a validation set, with early stopping:

    >>> import lightgbm as lgb, numpy as np
    >>> import pandas_rankeval as pre
    >>> from pandas_rankeval.lightgbm import eval_metric
    >>> df = pre.datasets.make_impressions(n_users=400, seed=1)
    >>> X = df[["model_a", "model_b", "position"]]
    >>> train, valid = df.user_id % 4 != 0, df.user_id % 4 == 0
    >>> dtrain = lgb.Dataset(X[train], df.click[train])
    >>> dvalid = lgb.Dataset(X[valid], df.click[valid], reference=dtrain)
    >>> log = {}
    >>> booster = lgb.train(
    ...     {
    ...         "objective": "binary",
    ...         "metric": "None",
    ...         "verbosity": -1,
    ...         "num_leaves": 7,
    ...     },
    ...     dtrain,
    ...     num_boost_round=30,
    ...     valid_sets=[dvalid],
    ...     valid_names=["valid"],
    ...     feval=eval_metric("gauc", group=df.user_id[valid]),
    ...     callbacks=[
    ...         lgb.early_stopping(5, verbose=False),
    ...         lgb.record_evaluation(log),
    ...     ],
    ... )
    >>> curve = log["valid"]["rankeval_gauc"]
    >>> booster.best_iteration == int(np.argmax(curve)) + 1
    True
    >>> frame = df[valid].assign(
    ...     score=booster.predict(X[valid], num_iteration=booster.best_iteration)
    ... )
    >>> abs(
    ...     pre.gauc(frame, group="user_id", label="click", score="score")
    ...     - max(curve)
    ... ) < 1e-12
    True
    """
    lgb = _lightgbm()
    core = TrainingMetric(
        metric, group=group, sample_weight=sample_weight, options=options, func=_FUNC,
        library="LightGBM", name=name,
    )
    return LightGBMMetric(core, lgb.Dataset)
