"""Examination propensities per position from a click log, under the position-based model."""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Callable, Hashable, Sequence
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from pandas_rankeval.api.docs import fill_doc
from pandas_rankeval.core.inputs.validation import (
    as_columns,
    check_column_name,
    check_columns,
    check_frame,
    check_n_boot_for_level,
    check_option,
    check_seed,
    invalid_parameter,
    missing_mask,
)
from pandas_rankeval.core.progress import Progress
from pandas_rankeval.inference.bootstrap import check_level, percentile_interval
from pandas_rankeval.inference.hashing import key_hash, poisson_weights, seed_to_int

from ._estimators import SoftLogit, components, em_features, em_items, harvest, pairs_within, scoring_features
from .tables import PropensityTable, make_table

__all__ = ["propensities", "MIN_GROUPS", "MIN_IMPRESSIONS_PER_ITEM", "PropensityWarning"]

_FUNC = "propensities"
#: Fewer groups than this cannot give a bootstrap interval over groups worth the name.
MIN_GROUPS = 10
#: EM with one relevance per item warns below this many impressions per item (rows / items): one
#: relevance per item is an incidental parameter, and with few impressions each the likelihood and
#: (more so) its bootstrap are biased: at 7.5 impressions per item the 95% interval covered the
#: truth in 22% of positions, at 15 in 94%, at 25 in all (benchmarks/sim_propensities.py --sparse).
MIN_IMPRESSIONS_PER_ITEM = 20
_METHODS = ("auto", "em", "harvest")
#: Regression EM with a logistic model: EM iterations before Fisher scoring takes over (EM brings the
#: estimate into the maximum's basin; scoring converges in 10-20 steps where EM needs hundreds).
_EM_FIRST = 30


class PropensityWarning(UserWarning):
    """The EM did not converge within ``max_iter`` iterations, or EM with one relevance per item
    ran on fewer than :data:`MIN_IMPRESSIONS_PER_ITEM` impressions per item."""


def _factorize(df: pd.DataFrame, cols: list[Hashable]) -> tuple[np.ndarray, pd.Index]:
    """Codes 0..n-1 of the distinct keys of ``cols`` (in key order where the keys sort, so that
    the result does not depend on the order of the rows) and the keys (an Index or MultiIndex)."""
    values: Any = df[cols[0]] if len(cols) == 1 else pd.MultiIndex.from_frame(df[cols])
    try:
        codes, uniques = pd.factorize(values, sort=True)
    except TypeError:  # keys of mixed types that do not sort
        codes, uniques = pd.factorize(values, sort=False)
    # several columns: a MultiIndex (its levels keep their dtypes, so that key_hash folds them as report
    # folds its key columns), not an Index of tuples, which has no stable hash
    keys = uniques if isinstance(uniques, pd.MultiIndex) else pd.Index(uniques)
    return np.asarray(codes, dtype=np.int64), keys


def _check_int(value: Any, param: str, low: int) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral) or value < low:
        raise invalid_parameter(param, _FUNC, f"an int in the range [{low}, inf)", value)
    return int(value)


def _check_input(df: pd.DataFrame, columns: dict[str, list[Hashable]]) -> tuple[np.ndarray, np.ndarray]:
    """Missing values in any column, then positions (integers >= 1) and labels (0 / 1)."""
    for param, cols in columns.items():
        for col in cols:
            bad = int(missing_mask(df[col]).sum())
            if bad:
                raise ValueError(
                    f"Column {col!r} ({param}) has {bad:,} missing value{'s' if bad != 1 else ''} (NaN/None) of "
                    f"{len(df):,} rows. {_FUNC} uses every row: drop or fill them first."
                )
    pcol, lcol = columns["position"][0], columns["label"][0]
    ps = df[pcol]
    if not pd.api.types.is_numeric_dtype(ps.dtype) or pd.api.types.is_bool_dtype(ps.dtype):
        raise TypeError(f"Column {pcol!r} (position) must hold integer display positions (1 = top); it has dtype {ps.dtype}.")
    pos = ps.to_numpy(dtype=np.float64)
    frac = int((~np.isfinite(pos) | (pos != np.round(pos))).sum())
    if frac:
        raise ValueError(
            f"Column {pcol!r} (position) has {frac:,} value{'s' if frac != 1 else ''} that are not whole numbers; "
            "positions are the 1-based display ranks of the log."
        )
    low = int((pos < 1).sum())
    if low:
        raise ValueError(
            f"Column {pcol!r} (position) has {low:,} value{'s' if low != 1 else ''} below 1 (smallest "
            f"{pos.min():g}); positions are 1-based (1 = top). If they start at 0, pass df.assign({pcol}=df[{pcol!r}] + 1)."
        )
    ls = df[lcol]
    if not pd.api.types.is_numeric_dtype(ls.dtype):
        raise TypeError(f"Column {lcol!r} (label) must hold clicks as 0/1 or bool; it has dtype {ls.dtype}.")
    y = ls.to_numpy(dtype=np.float64)
    bad = int(((y != 0) & (y != 1)).sum())
    if bad:
        raise ValueError(
            f"Column {lcol!r} (label) has {bad:,} value{'s' if bad != 1 else ''} other than 0 and 1; propensities "
            f"are estimated from clicks. Binarize first, for example (df[{lcol!r}] > 0).astype(int)."
        )
    return pos.astype(np.int64), y


def _unconnected_error(what: str, positions: np.ndarray, label: np.ndarray, fix: str) -> ValueError:
    cut = positions[label != 0]
    reach = positions[label == 0]
    prefix = reach[reach < cut.min()].max() if (reach < cut.min()).any() else positions[0]
    return ValueError(
        f"{_FUNC} cannot place {len(cut):,} position{'s' if len(cut) != 1 else ''} ({list(map(int, cut[:8]))}"
        f"{'...' if len(cut) > 8 else ''}) relative to position 1: {what}. {fix} Or estimate the positions that "
        f"are linked to the top only, for example df[df[position] <= {int(prefix)}]."
    )


def propensities(
    df: pd.DataFrame,
    *,
    group: Hashable | Sequence[Hashable],
    position: Hashable,
    label: Hashable,
    item: Hashable | Sequence[Hashable] | None = None,
    ranker: Hashable | None = None,
    method: str = "auto",
    features: Hashable | Sequence[Hashable] | None = None,
    relevance_model: Any = None,
    n_boot: int = 200,
    ci: float = 0.95,
    seed: Any = 0,
    max_iter: int = 500,
    tol: float = 1e-6,
    progress: bool = False,
) -> PropensityTable:
    """Examination propensity per logged position, relative to position 1.

    Under the position-based model a click needs an examination, which depends on the
    position only, and relevance, which depends on the item only:
    P(click | item i at position k) = p_k * r_i. The propensity of position k is p_k / p_1,
    the examination probability relative to the top. Three estimators:

    - ``method="em"`` with ``item``: expectation-maximization over the log with one relevance
      per item (Wang et al. 2018); it needs items that were shown at several positions.
    - ``method="em"`` with ``features``: regression EM (Wang et al. 2018): the relevance of a
      row is a classifier of its features (``relevance_model``, default scikit-learn's
      ``LogisticRegression``), refitted in every M-step on the posterior probability that the
      row is relevant; for logs where items do not repeat.
    - ``method="harvest"`` with ``item`` and ``ranker``: intervention harvesting (Agarwal et
      al. 2019): an item that one ranker showed at k and another at k' is a natural
      experiment; the ratio of its click rates at k and k' estimates p_k / p_k'. Every pair
      of positions with such items gives a log ratio, fitted jointly by weighted least squares.
    - ``"auto"``: harvest with ``ranker``, else EM.

    Parameters
    ----------
    df : DataFrame
        One row per shown item (an impression) of the logging ranker(s).
    group : column or list of columns
        The group (session, query instance): the unit the bootstrap resamples.
    position : column
        The 1-based display position of the row (1 = top). Whole numbers >= 1.
    label : column
        The click, 0/1 (or bool).
    item : column or list of columns, optional
        What identifies a shown item across groups, for example ``["query", "doc"]``.
    ranker : column, optional
        The logging ranker of each row (for ``method="harvest"``).
    method : {{"auto", "em", "harvest"}}, default="auto"
    features : column or list of columns, optional
        Numeric columns of the relevance model (regression EM), when items do not repeat.
    relevance_model : scikit-learn classifier, optional
        Any estimator with ``fit(X, y, sample_weight=...)`` and ``predict_proba``; it is
        cloned once and refitted in every M-step (set ``warm_start=True`` where the model has it: each
        fit then starts from the last). Default: a logistic regression with scikit-learn's default
        L2 penalty (``C=1``). The default, and a ``LogisticRegression`` with an intercept, an L2
        penalty or none and no class weights (any ``C``), are fitted exactly by Newton's method
        from the last coefficients, on the distinct (features, position, click) rows, and after
        at most 30 EM iterations the maximum is reached by Fisher scoring on the examinations and
        coefficients together (EM alone crawls along the weakly identified scale).
    n_boot : int, default=200
        Bootstrap replicates over groups for the interval (Poisson(1) weights hashed from
        (seed, group key, replicate): the same interval whatever the row order). 0: no
        interval (NaN bounds). Item EM fits every replicate at once. Regression EM with a
        logistic model (the default) finds each replicate's maximum by Fisher scoring from the
        whole log's estimate (10-20 passes over the distinct rows): measured in CPU time (5
        positions, 2 features), the default call took 12 s at 1e5 rows and 19 s at 1e6 rows
        with features of the document (repeating), 148 s at 1e6 rows with a distinct feature per
        row. Other relevance models run one EM per replicate, refitting the model three times per
        iteration: minutes to hours (see the guide, "Estimating the propensities").
    ci : float, default=0.95
        Level of the percentile interval.
    seed : int, default=0
    max_iter : int, default=500
        EM iterations (with Fisher scoring steps, for regression EM with a logistic model) at most,
        each replicate started at the estimate on the whole log.
    tol : float, default=1e-6
        EM stops when no propensity p_k / p_1 and no identified relevance r_i p_1 moves by more
        than ``tol`` in an iteration.
{progress}

    Returns
    -------
    table : PropensityTable
        Indexed by ``position`` (the logged positions, ascending), with the columns
        ``propensity`` (1 at position 1), ``propensity_low``, ``propensity_high``,
        ``impressions`` and ``clicks``. ``table.plot()`` draws it.

    Raises
    ------
    ValueError
        Missing values, positions that are not whole numbers >= 1, labels other than 0/1; and
        a log that cannot identify the propensities: one position only, no position 1, no
        click below the top, fewer than 10 groups, no item at two positions (``em`` with
        ``item``, ``harvest``), positions that no item links to the top.

    Warns
    -----
    PropensityWarning
        When the EM of the point estimate or of some bootstrap replicates did not converge in
        ``max_iter`` iterations (the message says which, and how many replicates); and, for
        ``method="em"`` with ``item``, when the log has fewer than ``MIN_IMPRESSIONS_PER_ITEM``
        impressions per item (rows / items): one relevance per item is then an incidental
        parameter, the estimate is biased and the interval covers far less than its level.

    Notes
    -----
    The model identifies the examinations up to a common scale only: EM starts every p_k strictly
    inside (0, 1) and reports p_k / p_1, which may exceed 1 (a grid or carousel whose lower slots
    are seen more than the first). EM maximizes the likelihood of the clicks; in each E-step an
    unclicked impression of item i at k was examined with probability p_k (1 - r_i) / (1 - p_k r_i) and relevant with
    probability (1 - p_k) r_i / (1 - p_k r_i); the M-step averages these (and the clicks) per
    position and per item (or fits the relevance model to them). Propensities that are tiny
    make inverse-propensity weights explode: a counterfactual metric clips them (``clip``).

    ``progress=True`` counts steps. EM with ``item``: up to ``max_iter`` EM iterations on the whole
    log, one weighted count per replicate, then up to ``max_iter`` iterations that fit every
    replicate at once (an EM that converges early jumps to the end of its share). Regression EM and
    harvesting: one step for the whole log and one per replicate.

    References
    ----------
    Wang, Golbandi, Bendersky, Metzler, Najork. Position bias estimation for unbiased
    learning to rank in personal search. WSDM 2018.
    Agarwal, Zaitsev, Wang, Li, Najork, Joachims. Estimating position bias without
    intrusive interventions. WSDM 2019.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> import pandas_rankeval as pre
    >>> rng = np.random.default_rng(0)
    >>> n_groups, depth, n_docs = 1000, 5, 40
    >>> doc = np.array(
    ...     [rng.permutation(n_docs)[:depth] for _ in range(n_groups)]
    ... ).ravel()
    >>> pos = np.tile(np.arange(1, depth + 1), n_groups)
    >>> # examination 1, 1/2, 1/3, ...
    >>> true = 1.0 / pos
    >>> relevance = rng.uniform(0.2, 0.9, n_docs)
    >>> log = pd.DataFrame(
    ...     {
    ...         "session": np.repeat(np.arange(n_groups), depth),
    ...         "doc": doc,
    ...         "position": pos,
    ...         "click": rng.random(pos.size) < true * relevance[doc],
    ...     }
    ... )
    >>> table = pre.propensities(
    ...     log,
    ...     group="session",
    ...     position="position",
    ...     label="click",
    ...     item="doc",
    ...     n_boot=50,
    ... )
    >>> # truth: 1/k
    >>> print(table[["propensity", "propensity_low", "propensity_high"]].round(2))
              propensity  propensity_low  propensity_high
    position
    1               1.00            1.00             1.00
    2               0.46            0.43             0.52
    3               0.34            0.31             0.38
    4               0.28            0.26             0.31
    5               0.20            0.17             0.24
    """
    df = check_frame(df, _FUNC)
    method = check_option(method, "method", _FUNC, _METHODS)
    group_cols = as_columns(group, "group", _FUNC, df)
    pcol = check_column_name(position, "position", _FUNC, df)
    lcol = check_column_name(label, "label", _FUNC, df)
    item_cols = as_columns(item, "item", _FUNC, df) if item is not None else []
    rcol = check_column_name(ranker, "ranker", _FUNC, df) if ranker is not None else None
    feat_cols = as_columns(features, "features", _FUNC, df) if features is not None else []
    check_columns(df, [*group_cols, pcol, lcol, *item_cols, *([rcol] if rcol is not None else []), *feat_cols])
    n_boot = _check_int(n_boot, "n_boot", 0)
    ci = check_level(ci, "ci", _FUNC)
    if n_boot:
        check_n_boot_for_level(n_boot, ci, _FUNC)
    check_seed(seed, _FUNC)
    max_iter = _check_int(max_iter, "max_iter", 1)
    if isinstance(tol, bool) or not isinstance(tol, numbers.Real) or not tol > 0:
        raise invalid_parameter("tol", _FUNC, "a float in the range (0, inf)", tol)
    method = _resolve_method(method, rcol, item_cols, feat_cols)
    columns = {"group": group_cols, "position": [pcol], "label": [lcol], "item": item_cols,
               "ranker": [rcol] if rcol is not None else [], "features": feat_cols}
    pos_raw, y = _check_input(df, columns)
    x = _feature_matrix(df, feat_cols) if feat_cols else None

    # --- what the log can identify ---------------------------------------------------------------
    positions, pos = _check_positions(pos_raw, y, pcol, lcol)
    n_pos = len(positions)
    gcode, gkeys = _factorize(df, group_cols)
    n_groups = len(gkeys)
    if n_groups < MIN_GROUPS:
        raise ValueError(
            f"The 'group' columns {group_cols!r} of {_FUNC} hold {n_groups:,} groups; propensities and their bootstrap "
            f"interval over groups need at least {MIN_GROUPS}. Pass a longer log."
        )
    impressions = np.bincount(pos, minlength=n_pos).astype(float)
    clicks = np.bincount(pos, weights=y, minlength=n_pos)
    weights = poisson_weights(key_hash(gkeys), seed_to_int(seed, _FUNC), n_boot) if n_boot else np.zeros((n_groups, 0))

    converged, n_iter, note = _Convergence(True, 0, n_boot), 0, ""
    bar = Progress(bool(progress), total=_steps(method == "em" and x is None, n_boot, max_iter), desc="propensities",
                   unit="step")
    try:
        if method == "em" and x is not None:
            theta, reps, n_iter, converged = _features_path(x, y, pos, n_pos, gcode, weights, relevance_model, max_iter,
                                                            tol, bar=bar)
            how = f"regression EM (Wang et al. 2018), relevance: {_model_name(relevance_model)} of {feat_cols!r}"
        else:
            icode, _ = _factorize(df, item_cols)
            if method == "em":
                theta, reps, n_iter, converged, note = _items_path(icode, y, pos, positions, gcode, weights, max_iter,
                                                                   tol, bar=bar)
                how = f"EM (Wang et al. 2018), one relevance per item of {item_cols!r}"
            else:
                assert rcol is not None
                rcode, rkeys = _factorize(df, [rcol])
                theta, reps, note = _harvest_path(icode, rcode, y, pos, positions, gcode, weights, bar=bar)
                how = (f"intervention harvesting (Agarwal et al. 2019) over {len(rkeys):,} rankers of {rcol!r}, "
                       "weighted least squares of the log ratios")
    finally:
        bar.close()
    low, high, failed = _replicate_interval(theta, reps, ci, n_boot)
    frame = pd.DataFrame(
        {"propensity": theta, "propensity_low": low, "propensity_high": high,
         "impressions": impressions.astype(np.int64), "clicks": clicks.astype(np.int64)},
        index=pd.Index(positions.astype(np.int64), name="position"),
    )
    if not converged.all:
        warnings.warn(converged.message(max_iter, tol), PropensityWarning, stacklevel=2)
    interval = (f"{ci:.0%} percentile interval of {n_boot:,} Poisson bootstrap replicates over groups (seed {seed})"
                if n_boot else "no interval (n_boot=0)")
    short = [
        f"propensity = examination of the position relative to position 1; {len(df):,} rows, {n_groups:,} groups, "
        f"{n_pos} positions",
        f"method: {how}",
    ]
    details = [
        f"propensity_low, propensity_high: {interval}" + (f"; {failed:,} replicates could not place every position (left out)" if failed else ""),
        f"EM: {n_iter:,} iterations at most, {converged.text()} (tol={tol:g})" if method == "em" else "",
        note,
        "assumes the position-based model: examination depends on the position only, relevance on the item only",
    ]
    return make_table(PropensityTable, frame, "propensities", short, details, method=method, n_groups=n_groups,
                      n_boot=n_boot, ci=ci, seed=seed if isinstance(seed, int) else None, n_iter=n_iter,
                      converged=bool(converged.point), replicates_not_converged=converged.failed_reps)


fill_doc(propensities)


def _steps(items_em: bool, n_boot: int, max_iter: int) -> int:
    """The steps of propensities' bar (see its Notes): item EM counts its iterations, the other
    estimators the whole log and each replicate."""
    if items_em:
        return max_iter + n_boot + (max_iter if n_boot else 0)
    return 1 + n_boot


def _tick(bar: Progress | None, n: int = 1) -> None:
    """``n`` steps of ``propensities``' bar (none when called without one: the tests' direct calls)."""
    if bar is not None and n > 0:
        bar.update(n)


def _ticker(bar: Progress | None) -> Callable[[], None] | None:
    """One EM iteration's step, for :func:`em_items`."""
    return None if bar is None else (lambda: _tick(bar))


def _resolve_method(method: str, rcol: Hashable | None, item_cols: list[Hashable], feat_cols: list[Hashable]) -> str:
    """``"auto"`` resolved (harvest with a ranker, else EM), and the columns each method needs."""
    if method == "auto":
        method = "harvest" if rcol is not None else "em"
    if method == "harvest" and (rcol is None or not item_cols):
        raise ValueError(
            f"method='harvest' of {_FUNC} needs ranker= (the column of the logging ranker) and item= (the columns "
            "that identify a shown item across groups): the natural experiments are items that two rankers showed "
            "at different positions. Without several rankers, use method='em'."
        )
    if method == "em" and not item_cols and not feat_cols:
        raise ValueError(
            f"method='em' of {_FUNC} needs item= (the columns that identify a shown item across groups, such as "
            "['query', 'doc']) when items repeat across groups, or features= (columns of a relevance model) when "
            "they do not."
        )
    if method == "em" and item_cols and feat_cols:
        raise ValueError(f"method='em' of {_FUNC} takes item= or features=, not both: one relevance per item, or a model of the features.")
    return method


def _feature_matrix(df: pd.DataFrame, feat_cols: list[Hashable]) -> np.ndarray:
    """The relevance model's features: numeric columns, finite values."""
    for f in feat_cols:
        if not pd.api.types.is_numeric_dtype(df[f].dtype):
            raise TypeError(f"Column {f!r} (features) must be numeric; it has dtype {df[f].dtype}. Encode it first.")
    x = df[feat_cols].to_numpy(dtype=np.float64)
    bad = int((~np.isfinite(x)).any(axis=1).sum())
    if bad:
        raise ValueError(f"The features {feat_cols!r} of {_FUNC} have {bad:,} rows with an infinite value; make them finite.")
    return x


def _check_positions(pos_raw: np.ndarray, y: np.ndarray, pcol: Hashable, lcol: Hashable) -> tuple[np.ndarray, np.ndarray]:
    """The logged positions (ascending) and each row's index among them: at least two, position 1
    among them, and a click below it."""
    positions, pos = np.unique(pos_raw, return_inverse=True)
    if len(positions) == 1:
        raise ValueError(
            f"Column {pcol!r} (position) holds one position only ({int(positions[0])}); propensities relative to "
            "position 1 need a log with at least two positions."
        )
    if positions[0] != 1:
        raise ValueError(
            f"Column {pcol!r} (position) has no row at position 1 (the smallest is {int(positions[0])}); propensities "
            "are relative to the top. If positions start elsewhere, shift them so that the top is 1."
        )
    clicks_below = int(y[pos > 0].sum())
    if clicks_below == 0:
        raise ValueError(
            f"Column {lcol!r} (label) has no click below position 1 ({int((pos > 0).sum()):,} rows at positions "
            f"2..{int(positions[-1])}, 0 clicks): the log cannot tell how much less they are examined. A longer log is needed."
        )
    return positions, pos


def _replicate_interval(theta: np.ndarray, reps: np.ndarray, ci: float,
                        n_boot: int) -> tuple[np.ndarray, np.ndarray, int]:
    """The percentile interval of the replicates (NaN where the estimate is not finite, or
    without replicates), and how many replicates could not place every position."""
    n_pos = len(theta)
    if not n_boot:
        return np.full(n_pos, np.nan), np.full(n_pos, np.nan), 0
    failed = int((~np.isfinite(reps[1:])).any(axis=0).sum())
    low, high = percentile_interval(reps.T, ci)
    return np.where(np.isfinite(theta), low, np.nan), np.where(np.isfinite(theta), high, np.nan), failed


class _Convergence(NamedTuple):
    """Whether the EM of the whole log converged, and how many of its bootstrap replicates did not."""

    point: bool
    failed_reps: int
    n_reps: int

    @property
    def all(self) -> bool:
        return self.point and not self.failed_reps

    def message(self, max_iter: int, tol: float) -> str:
        """The warning: which EM did not converge (the point estimate, replicates, or both)."""
        reps = f"{self.failed_reps:,} of {self.n_reps:,} bootstrap replicates"
        if not self.point:
            also = f"; so did {reps} (the interval uses their last iterates)" if self.failed_reps else ""
            return (f"{_FUNC}: the EM of the point estimate did not converge in max_iter={max_iter} iterations "
                    f"(tol={tol:g}){also}; raise max_iter.")
        return (f"{_FUNC}: the point estimate converged, but the EM of {reps} did not converge in "
                f"max_iter={max_iter} iterations (tol={tol:g}): the interval uses their last iterates; raise max_iter.")

    def text(self) -> str:
        """The footer's word on it."""
        point = "converged" if self.point else "not converged"
        if not self.n_reps:
            return point
        return f"{point}; {self.n_reps - self.failed_reps:,} of {self.n_reps:,} bootstrap replicates converged"


def _model_name(model: Any) -> str:
    return "LogisticRegression" if model is None else type(model).__name__


def _items_path(icode: np.ndarray, y: np.ndarray, pos: np.ndarray, positions: np.ndarray, gcode: np.ndarray,
                weights: np.ndarray, max_iter: int, tol: float,
                bar: Progress | None = None) -> tuple[np.ndarray, np.ndarray, int, _Convergence, str]:
    n_pos = len(positions)
    n_items = int(icode.max()) + 1
    cell, inverse = np.unique(pos * n_items + icode, return_inverse=True)  # sorted by position, then item
    cell_pos, cell_item = cell // n_items, cell % n_items
    n_cells = len(cell)
    multi = np.bincount(cell_item, minlength=n_items) > 1
    if not multi.any():
        raise ValueError(
            f"No item of the 'item' columns was shown at two positions ({n_items:,} items, each at one position "
            "only): EM cannot tell an item's relevance from its position's examination. Pass features= (a "
            "relevance model) or a log where items move between positions (several rankers: method='harvest')."
        )
    if len(y) < MIN_IMPRESSIONS_PER_ITEM * n_items:  # said before the EM, which is slow on many items
        warnings.warn(_sparse_message(len(y), n_items, bool(weights.shape[1])), PropensityWarning, stacklevel=3)
    by_item = np.argsort(cell_item, kind="stable")
    a, b = pairs_within(cell_item[by_item])
    label = components(n_pos, cell_pos[by_item][a], cell_pos[by_item][b])
    if (label != 0).any():
        raise _unconnected_error("no item links them to it through the positions it was shown at", positions, label,
                                 "Log items at more positions (several rankers, or randomized top-k).")
    n0 = np.bincount(inverse, minlength=n_cells).astype(float)[:, None]
    c0 = np.bincount(inverse, weights=y, minlength=n_cells)[:, None]
    theta, gamma, it, done = em_items(n0, c0, cell_pos, cell_item, n_pos, n_items, max_iter=max_iter, tol=tol,
                                      tick=_ticker(bar))
    _tick(bar, max_iter - it)  # converged early: the rest of its share
    point = theta[:, 0] / theta[0, 0]
    conv = _Convergence(bool(done[0]), 0, weights.shape[1])
    reps = np.zeros((n_pos, 0))
    if weights.shape[1]:
        nb = np.empty((n_cells, weights.shape[1]))
        cb = np.empty_like(nb)
        for r in range(weights.shape[1]):  # one weighted count per replicate (not per group)
            w = weights[gcode, r]
            nb[:, r] = np.bincount(inverse, weights=w, minlength=n_cells)
            cb[:, r] = np.bincount(inverse, weights=w * y, minlength=n_cells)
            _tick(bar)
        tb, _, it_b, done_b = em_items(nb, cb, cell_pos, cell_item, n_pos, n_items, max_iter=max_iter, tol=tol,
                                       theta0=theta[:, :1], gamma0=gamma[:, :1], tick=_ticker(bar))
        _tick(bar, max_iter - it_b)
        with np.errstate(invalid="ignore", divide="ignore"):
            reps = tb / tb[:1]
        conv = _Convergence(conv.point, int((~done_b).sum()), weights.shape[1])
        it = max(it, it_b)
    note = f"{int(multi.sum()):,} of {n_items:,} items were shown at two or more positions"
    if len(y) < MIN_IMPRESSIONS_PER_ITEM * n_items:
        note += f" ({len(y) / n_items:.3g} impressions per item, fewer than {MIN_IMPRESSIONS_PER_ITEM}: see the warning)"
    return point, reps, it, conv, note


def _sparse_message(n_rows: int, n_items: int, interval: bool) -> str:
    what = ("its estimate is biased and its bootstrap interval covers far less than its level (in "
            "simulations, 95% intervals at 7.5 impressions per item held the truth in 22% of positions)"
            if interval else "its estimate is biased")
    return (
        f"{_FUNC}: {n_rows:,} rows over {n_items:,} items of the 'item' columns, {n_rows / n_items:.3g} impressions "
        f"per item, fewer than {MIN_IMPRESSIONS_PER_ITEM}: EM with one relevance per item fits one parameter per "
        f"item, and with so few impressions each {what}. Use method='harvest' (with ranker=, the logging ranker), "
        "or features= (regression EM: a relevance model shared by all rows), or coarser item= columns (items "
        f"aggregated so that each has {MIN_IMPRESSIONS_PER_ITEM} impressions or more)."
    )


def _harvest_path(icode: np.ndarray, rcode: np.ndarray, y: np.ndarray, pos: np.ndarray, positions: np.ndarray,
                  gcode: np.ndarray, weights: np.ndarray,
                  bar: Progress | None = None) -> tuple[np.ndarray, np.ndarray, str]:
    n_pos = len(positions)
    n_items = int(icode.max()) + 1
    cell, inverse = np.unique(icode * n_pos + pos, return_inverse=True)  # sorted by item, then position
    cell_item, cell_pos = cell // n_pos, cell % n_pos
    n_cells = len(cell)
    # rankers per cell: how many distinct, and the smallest (enough to tell "one and the same ranker")
    cr = np.unique(inverse.astype(np.int64) * (int(rcode.max()) + 1) + rcode)
    cr_cell = cr // (int(rcode.max()) + 1)
    cr_rank = cr % (int(rcode.max()) + 1)
    n_rankers = np.bincount(cr_cell, minlength=n_cells)
    min_ranker = np.full(n_cells, np.iinfo(np.int64).max)
    np.minimum.at(min_ranker, cr_cell, cr_rank)
    a, b = pairs_within(cell_item)
    same = (n_rankers[a] == 1) & (n_rankers[b] == 1) & (min_ranker[a] == min_ranker[b])
    a, b = a[~same], b[~same]
    if a.size == 0:
        raise ValueError(
            f"No item of the 'item' columns was shown at two positions by two different rankers ({n_items:,} items): "
            "intervention harvesting needs items that one ranker showed at k and another at k'. Log several "
            "rankers on the same queries, or use method='em'."
        )
    n0 = np.bincount(inverse, minlength=n_cells).astype(float)[:, None]
    c0 = np.bincount(inverse, weights=y, minlength=n_cells)[:, None]
    est, kinds, w = harvest(n0, c0, a, b, cell_pos[a], cell_pos[b], n_pos)
    if not np.isfinite(est[:, 0]).all():
        used = w > 0
        label = components(n_pos, kinds[used] // n_pos, kinds[used] % n_pos)
        raise _unconnected_error("no interventional pair with clicks on both sides links them to it", positions,
                                 label, "Log more rankers or longer, so that items that moved also got clicks at both positions.")
    _tick(bar)
    reps = np.zeros((n_pos, 0))
    if weights.shape[1]:
        nb = np.empty((n_cells, weights.shape[1]))
        cb = np.empty_like(nb)
        for r in range(weights.shape[1]):
            wr = weights[gcode, r]
            nb[:, r] = np.bincount(inverse, weights=wr, minlength=n_cells)
            cb[:, r] = np.bincount(inverse, weights=wr * y, minlength=n_cells)
            _tick(bar)
        reps, _, _ = harvest(nb, cb, a, b, cell_pos[a], cell_pos[b], n_pos)
    n_set = len(np.unique(cell_item[a]))
    note = (f"{n_set:,} of {n_items:,} items were shown at two positions by different rankers "
            f"({len(a):,} interventional pairs over {int((w > 0).sum()):,} pairs of positions)")
    return est[:, 0], reps, note


def _soft_logit_c(model: Any) -> float | None:
    """The C of a relevance model that :class:`SoftLogit` fits exactly (the default, or a
    scikit-learn ``LogisticRegression`` with an intercept, an L2 penalty or none, no class
    weights); None for any other model (refitted as given)."""
    if model is None:
        return 1.0
    from sklearn.linear_model import LogisticRegression  # type: ignore[import-untyped]

    if type(model) is not LogisticRegression:
        return None
    params = model.get_params()
    if not params.get("fit_intercept") or params.get("class_weight") is not None:
        return None
    if params.get("penalty") is None or params.get("penalty") == "none":  # no penalty (older scikit-learn)
        return float("inf")
    c = params.get("C")
    l2 = params.get("penalty") in ("deprecated", "l2") and params.get("l1_ratio") in (None, 0, 0.0)
    return float(c) if l2 and isinstance(c, numbers.Real) and float(c) > 0 else None


def _features_path(x: np.ndarray, y: np.ndarray, pos: np.ndarray, n_pos: int, gcode: np.ndarray, weights: np.ndarray,
                   relevance_model: Any, max_iter: int, tol: float, cold_replicates: bool = False,
                   bar: Progress | None = None) -> tuple[np.ndarray, np.ndarray, int, _Convergence]:
    """Regression EM on the whole log, and the same maximum for every bootstrap replicate.

    A logistic relevance model (the default) is fitted by :class:`SoftLogit` on the distinct
    (features, position, click) rows, each weighted by its count (the likelihood is the same), and
    each replicate's maximum is found by Fisher scoring started at the whole log's estimate
    (:func:`scoring_features`); a replicate where it does not converge gets a cold EM
    (``cold_replicates``: every replicate gets a cold EM, from the point estimate's start; for
    tests). Any other model is refitted as given on every row, and each replicate runs EM from the
    whole log's estimate and model."""
    c = _soft_logit_c(relevance_model)
    if c is None:
        for attr in ("fit", "predict_proba"):
            if not hasattr(relevance_model, attr):
                raise invalid_parameter("relevance_model", _FUNC, "a classifier with fit(X, y, sample_weight=...) and "
                                        "predict_proba", relevance_model, f"{type(relevance_model).__name__} has no {attr}().")
        return _features_generic(x, y, pos, n_pos, gcode, weights, relevance_model, max_iter, tol, cold_replicates,
                                 bar)
    rows = np.c_[x, pos, y]
    cells, inverse = np.unique(rows, axis=0, return_inverse=True)
    inverse = inverse.reshape(-1)
    xc, pc, yc = cells[:, :-2], cells[:, -2].astype(np.int64), cells[:, -1]
    counts = np.bincount(inverse, minlength=len(cells)).astype(float)
    model = SoftLogit(xc, c)
    # EM into the maximum's basin (at most _EM_FIRST iterations), then Fisher scoring to it; EM again from
    # there if scoring does not converge (EM crawls along the weakly identified scale of p: hundreds of
    # iterations, more than max_iter=500 on some logs of 12,500 rows)
    theta, gamma, it, conv_point = em_features(xc, yc, pc, n_pos, counts, model, max_iter=min(max_iter, _EM_FIRST), tol=tol)
    if not conv_point and it < max_iter:
        polished, beta, it_s, conv_point = scoring_features(model, yc, pc, n_pos, counts, theta, max_iter=max_iter - it,
                                                            tol=tol)
        if conv_point:
            theta, model.beta, it = polished, beta, it + it_s
        else:
            theta, gamma, it_e, conv_point = em_features(xc, yc, pc, n_pos, counts, model, max_iter=max_iter - it,
                                                         tol=tol, theta0=theta, gamma0=gamma)
            it += it_e
    point = theta / theta[0]
    _tick(bar)
    reps = np.full((n_pos, weights.shape[1]), np.nan)
    failed = 0
    for r in range(weights.shape[1]):  # each replicate: scoring from the whole log's estimate, else EM
        wc = np.bincount(inverse, weights=weights[gcode, r], minlength=len(cells))
        conv_b = False
        if not cold_replicates:
            tb, _, it_b, conv_b = scoring_features(model, yc, pc, n_pos, wc, theta, max_iter=max_iter, tol=tol)
        if not conv_b:
            tb, _, it_b, conv_b = em_features(xc, yc, pc, n_pos, wc, SoftLogit(xc, c), max_iter=max_iter, tol=tol)
        reps[:, r] = tb / tb[0]
        failed, it = failed + (not conv_b), max(it, it_b)
        _tick(bar)
    return point, reps, it, _Convergence(conv_point, failed, weights.shape[1])


def _features_generic(x: np.ndarray, y: np.ndarray, pos: np.ndarray, n_pos: int, gcode: np.ndarray,
                      weights: np.ndarray, relevance_model: Any, max_iter: int, tol: float,
                      cold_replicates: bool, bar: Progress | None = None) -> tuple[np.ndarray, np.ndarray, int, _Convergence]:
    import copy

    from sklearn.base import clone  # type: ignore[import-untyped]

    model = clone(relevance_model)
    theta, gamma, it, conv_point = em_features(x, y, pos, n_pos, np.ones(len(y)), model, max_iter=max_iter, tol=tol)
    point = theta / theta[0]
    _tick(bar)
    reps = np.full((n_pos, weights.shape[1]), np.nan)
    failed = 0
    for r in range(weights.shape[1]):  # one EM per replicate, started at the whole log's estimate and model
        start = {} if cold_replicates else {"theta0": theta, "gamma0": gamma}
        tb, _, it_b, conv_b = em_features(x, y, pos, n_pos, weights[gcode, r],
                                          clone(relevance_model) if cold_replicates else copy.deepcopy(model),
                                          max_iter=max_iter, tol=tol, **start)
        reps[:, r] = tb / tb[0]
        failed, it = failed + (not conv_b), max(it, it_b)
        _tick(bar)
    return point, reps, it, _Convergence(conv_point, failed, weights.shape[1])
