"""The library's metrics as scikit-learn scorers (``GridSearchCV``, ``cross_validate``).

``pandas_rankeval.sklearn`` re-exports this module. scikit-learn is a dependency of
the library; it is imported here only when a scorer is built or called.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..core.inputs.validation import invalid_parameter
from ..core.metrics.registry import sample_weight_error
from ._training import check_metric_options, metric_function, parse_metric_parameter

__all__ = ["make_scorer", "GroupScorer"]

_FUNC = "pandas_rankeval.sklearn.make_scorer"
_RESPONSES = ("decision_function", "predict_proba", "predict")


class GroupScorer:
    """A scorer ``scorer(estimator, X, y, groups=...)``; build it with :func:`make_scorer`.

    It requests ``groups`` (and, when asked, ``sample_weight``) for scoring through
    scikit-learn's metadata routing, so that with
    ``sklearn.set_config(enable_metadata_routing=True)`` the ``groups`` given to
    ``GridSearchCV.fit`` (or ``cross_validate(params=...)``) reach both the splitter and
    the scorer, cut to each test fold.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import LogisticRegression
    >>> from pandas_rankeval.sklearn import make_scorer
    >>> X = np.linspace(0, 1, 12).reshape(-1, 1)
    >>> y = np.array([0, 0, 1, 0, 1, 0, 0, 1, 0, 1, 1, 1])
    >>> users = np.repeat([0, 1, 2], 4)
    >>> scorer = make_scorer("gauc")
    >>> type(scorer).__name__
    'GroupScorer'
    >>> model = LogisticRegression().fit(X, y)
    >>> round(scorer(model, X, y, groups=users), 4)
    0.7222
    """

    def __init__(
        self,
        metric: str,
        *,
        group: Hashable | Sequence[Hashable] | None,
        response_method: str | Sequence[str],
        sample_weight: bool,
        options: dict[str, Any],
    ) -> None:
        if not isinstance(metric, str):
            raise invalid_parameter("metric", _FUNC, "one metric name, such as 'gauc'", metric)
        (self.spec,) = parse_metric_parameter(metric, _FUNC)
        check_metric_options([self.spec], options, _FUNC)  # errors now, not at the first fold
        methods = [response_method] if isinstance(response_method, str) else list(response_method)
        unknown = [m for m in methods if m not in _RESPONSES]
        if unknown or not methods:
            raise invalid_parameter("response_method", _FUNC, f"one or more of {', '.join(map(repr, _RESPONSES))}",
                                    response_method)
        if sample_weight and "sample_weight" not in self.spec.info.options:
            raise ValueError(sample_weight_error(_FUNC))
        if self.spec.info.reading.direction == "closer to 1":
            raise ValueError(
                f"{_FUNC}: {self.spec.name!r} is best at 1 (neither higher nor lower is better), so it "
                "cannot rank candidates as a score; use 'logloss' or 'ece', or report it with pre.report."
            )
        if not self.spec.info.needs_ranking and response_method == _RESPONSES:
            methods = ["predict_proba"]  # a calibration metric reads probabilities
        self.group = group
        self.response_method = methods
        self.sample_weight = bool(sample_weight)
        self.options = dict(options)

    def __repr__(self) -> str:
        extra = "".join(f", {k}={v!r}" for k, v in self.options.items())
        return f"make_scorer({self.spec.name!r}{extra})"

    def get_metadata_routing(self) -> Any:
        """The metadata this scorer asks for: ``groups`` (and ``sample_weight``)."""
        from sklearn.utils.metadata_routing import MetadataRequest

        request = MetadataRequest(owner=type(self).__name__)
        request.score.add_request(param="groups", alias=True)
        if self.sample_weight:
            request.score.add_request(param="sample_weight", alias=True)
        return request

    def _scores(self, estimator: Any, X: Any) -> np.ndarray:
        for method in self.response_method:
            predict = getattr(estimator, method, None)
            if predict is None:
                continue
            out = np.asarray(predict(X))
            if out.ndim == 2 and out.shape[1] == 2 and method != "predict":
                return out[:, 1]  # the score of the positive class (classes_[1])
            if out.ndim == 2 and out.shape[1] == 1:
                return out[:, 0]
            if out.ndim != 1:
                raise ValueError(
                    f"{self!r}: {type(estimator).__name__}.{method} gives {out.shape[1]} scores per "
                    "row (a multi-class model); ranking metrics need one score per row."
                )
            return out
        raise TypeError(
            f"{self!r}: {type(estimator).__name__} has none of {self.response_method}; pass "
            f"response_method= to {_FUNC}."
        )

    def _keys(self, X: Any, groups: Any, n: int) -> Any:
        if groups is not None:
            keys = groups
        elif self.group is not None:
            cols = list(self.group) if isinstance(self.group, (list, tuple)) else [self.group]
            if not isinstance(X, pd.DataFrame) or any(c not in X.columns for c in cols):
                missing = cols if not isinstance(X, pd.DataFrame) else [c for c in cols if c not in X.columns]
                raise ValueError(
                    f"{self!r}: group={self.group!r} names columns of X, but X "
                    f"{'is not a DataFrame' if not isinstance(X, pd.DataFrame) else f'has no column {missing!r}'}. "
                    "Pass the groups through metadata routing instead (fit(X, y, groups=...))."
                )
            keys = X[cols[0]] if len(cols) == 1 else X[cols]
        else:
            raise ValueError(
                f"{self!r} received no groups, and {self.spec.name!r} is averaged over groups. Enable "
                "metadata routing, sklearn.set_config(enable_metadata_routing=True), and pass the "
                "groups to fit: GridSearchCV(...).fit(X, y, groups=groups), or "
                "cross_validate(..., params={'groups': groups}). Or name the group column of X: "
                f"{_FUNC}({self.spec.name!r}, group='user_id')."
            )
        if len(keys) != n:
            raise ValueError(
                f"{self!r}: the 'groups' hold {len(keys):,} keys for the {n:,} rows being scored. "
                "Pass one group key per row of X."
            )
        return keys

    def __call__(self, estimator: Any, X: Any, y_true: Any, groups: Any = None, sample_weight: Any = None, **kwargs: Any) -> float:
        """The metric of ``estimator``'s scores on ``X`` against ``y_true``."""
        score = self._scores(estimator, X)
        y = np.asarray(y_true)
        n = y.shape[0]
        cols: dict[Hashable, Any] = {"label": y, "score": score}
        group_cols: list[Hashable] | None = None
        if self.spec.info.grouped:
            keys = self._keys(X, groups, n)
            if isinstance(keys, pd.DataFrame):
                group_cols = [f"group_{i}" for i in range(keys.shape[1])]
                cols.update({g: keys.iloc[:, i].array for i, g in enumerate(group_cols)})
            else:
                group_cols = ["group"]
                cols["group"] = keys.array if isinstance(keys, (pd.Series, pd.Index)) else np.asarray(keys)
        opts = dict(self.options)
        if self.sample_weight:
            if sample_weight is None:
                raise ValueError(
                    f"{self!r} was built with sample_weight=True but received no sample_weight; "
                    "pass fit(X, y, groups=..., sample_weight=...) with metadata routing enabled."
                )
            cols["sample_weight"] = np.asarray(sample_weight)
            opts["sample_weight"] = "sample_weight"
        frame = pd.DataFrame(cols, copy=False)
        func = metric_function(self.spec)
        if self.spec.k is not None:
            opts["bins" if self.spec.info.param.kind == "bins" else "k"] = self.spec.k
        if group_cols is not None:
            opts["group"] = group_cols[0] if len(group_cols) == 1 else group_cols
        value = float(func(frame, label="label", score="score", **opts))
        # scikit-learn maximizes a score: a loss is negated, as its own "neg_log_loss"
        return -value if self.spec.info.reading.direction == "lower" else value


def make_scorer(
    metric: str,
    *,
    group: Hashable | Sequence[Hashable] | None = None,
    response_method: str | Sequence[str] = _RESPONSES,
    sample_weight: bool = False,
    **options: Any,
) -> GroupScorer:
    """A scikit-learn scorer that reports a metric of this library.

    The score of a fitted estimator on a test fold is ``pandas_rankeval.<metric>`` of a
    frame of the fold's group keys, labels and the estimator's scores, with the same
    options. Higher is better, as scikit-learn expects of a score: ``logloss``, ``ne`` and
    ``ece`` are negated (as scikit-learn's ``"neg_log_loss"``) and read probabilities
    (``predict_proba`` by default); ``pcoc``, best at 1, is refused.

    Parameters
    ----------
    metric : str
        A metric name of the library: ``"gauc"``, ``"auc"``, ``"mrr"``, ``"ndcg@10"``,
        ``"map@5"``, ``"precision@5"``, ``"recall@20"``, ``"hit_rate@10"``, ...
    group : column or list of columns, optional
        Where the group keys come from when none are routed: columns of ``X`` (a
        DataFrame). By default they come from metadata routing (below).
    response_method : str or list of str, default=("decision_function", "predict_proba", "predict")
        The first of these methods the estimator has gives the scores (for
        ``predict_proba``, the positive class's column).
    sample_weight : bool, default=False
        Also request ``sample_weight`` through routing; it weighs the row pairs of AUC
        and GAUC, as ``sample_weight=`` of :func:`pandas_rankeval.gauc`.
    **options
        The options of the metric's function: ``weight``, ``ties``, ``threshold``,
        ``min_size``, ``min_pos``, ``min_neg``, ``engine``, ``max_fpr`` (AUC, GAUC),
        ``gain`` (NDCG), ``denominator`` (MAP), ``empty`` (list metrics).

    Returns
    -------
    scorer : GroupScorer
        Pass it as ``scoring=`` (alone or in a dict of scorers).

    Notes
    -----
    The scorer requests ``groups`` for scoring through scikit-learn's metadata routing.
    With ``sklearn.set_config(enable_metadata_routing=True)`` (or inside
    ``sklearn.config_context(enable_metadata_routing=True)``), ``GridSearchCV.fit(X, y,
    groups=groups)`` and ``cross_validate(..., params={"groups": groups})`` hand the
    groups to the splitter (use a group-aware one such as ``GroupKFold``, so that no
    group is split between train and test) and to this scorer, cut to the test fold.
    Without routing, the scorer needs ``group=`` columns of ``X``, or it raises an error
    that says how to enable routing.

    Examples
    --------
    Tune the regularization of a logistic regression by GAUC, with user-grouped folds:

    >>> import sklearn
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.model_selection import GridSearchCV, GroupKFold
    >>> import pandas_rankeval as pre
    >>> from pandas_rankeval.sklearn import make_scorer
    >>> df = pre.datasets.make_impressions(n_users=300, seed=2)
    >>> X, y = df[["model_a", "model_b", "position"]], df["click"]
    >>> with sklearn.config_context(enable_metadata_routing=True):
    ...     search = GridSearchCV(
    ...         LogisticRegression(),
    ...         {"C": [0.001, 1.0]},
    ...         cv=GroupKFold(n_splits=3),
    ...         scoring=make_scorer("gauc"),
    ...     ).fit(X, y, groups=df["user_id"])
    >>> search.best_params_
    {'C': 1.0}
    >>> # the mean GAUC over the three test folds
    >>> print(f"{search.best_score_:.2f}")
    0.72
    """
    return GroupScorer(
        metric, group=group, response_method=response_method, sample_weight=sample_weight, options=options
    )
