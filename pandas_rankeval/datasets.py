"""Synthetic data sets for examples, tests and benchmarks."""

from __future__ import annotations

from typing import cast

import numpy as np
import pandas as pd

from pandas_rankeval.core.inputs.validation import check_k, invalid_parameter

__all__ = ["make_impressions", "make_click_log"]

_COUNTRIES = np.array(["US", "GB", "DE", "FR", "BR", "IN", "JP"])
_COUNTRY_P = np.array([0.30, 0.10, 0.12, 0.10, 0.13, 0.15, 0.10])
_COUNTRY_EFFECT = np.array([0.2, 0.1, 0.0, -0.1, 0.3, -0.2, -0.3])
_DEVICES = np.array(["mobile", "desktop", "tablet"])
_DEVICE_P = np.array([0.6, 0.3, 0.1])
_DEVICE_EFFECT = np.array([0.1, 0.0, -0.2])
# Users with at most this many rows are "light", up to the second "medium", above it "heavy".
_ACTIVITY_BOUNDS = (5, 100)


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x))


def make_impressions(
    n_users: int = 2000,
    *,
    seed: int | None = 0,
    max_rows_per_user: int = 3000,
    n_items: int = 5000,
) -> pd.DataFrame:
    """Make a synthetic impressions table where global AUC and GAUC disagree.

    One row per item shown to a user. List lengths are long-tailed: most users see a handful
    of items, a few see thousands (Zipf with exponent 1.8, capped). Users differ a lot in how
    often they click, so a score can look good globally by learning *which users* click
    without ranking anything well *within* a user. The two score columns tell that story:

    - ``model_a`` mostly learns the user's click propensity, plus a weak item-popularity
      signal: the better global AUC, the worse GAUC.
    - ``model_b`` personalizes: a strong signal of how well the item suits this user and no
      user-level term: the better GAUC, a lower global AUC.

    Parameters
    ----------
    n_users : int, default=2000
        Number of users (groups).
    seed : int or None, default=0
        Seed of :func:`numpy.random.default_rng`. The same seed (with the same numpy)
        gives the same frame; None gives a fresh random one.
    max_rows_per_user : int, default=3000
        Cap on the number of rows of one user.
    n_items : int, default=5000
        Size of the item catalog; items are drawn with Zipf-like popularity, so an item can
        be shown to many users and, rarely, twice to the same user.

    Returns
    -------
    impressions : pandas.DataFrame
        Sorted by ``user_id`` then ``position``, with a fresh ``RangeIndex`` and columns:

        - ``user_id`` (int64): the group key.
        - ``item_id`` (int64).
        - ``position`` (int64): 1-based display position within the user's list.
        - ``country`` (str), ``device`` (str): constant within a user.
        - ``activity`` (str): ``"light"`` (at most 5 rows), ``"medium"`` (6 to 100) or
          ``"heavy"`` (more than 100), from the user's row count.
        - ``click`` (int64, 0/1): about 5-10% positive overall.
        - ``relevance`` (int64, 0-3): graded label; every clicked row has relevance >= 1, and a
          few unclicked rows of well-matching items have relevance 1.
        - ``model_a``, ``model_b`` (float64 in (0, 1)): the two models' scores.

    Notes
    -----
    The click of a row is Bernoulli with
    ``logit = -2.9 + u_user + match - 0.1 * log(position)``, where ``u_user`` is
    normal with standard deviation 1.6 (clipped at +-3.2), plus small country and device
    effects and a drift towards fewer clicks per impression for heavy users, and ``match`` is standard normal
    (half of its variance from the item's quality, half from the user-item pair).
    ``model_a = sigmoid(noisy u_user + 0.4 * item quality + noise)`` and
    ``model_b = sigmoid(match + noise)``.

    Examples
    --------
    >>> from sklearn.metrics import roc_auc_score
    >>> from pandas_rankeval.datasets import make_impressions
    >>> df = make_impressions(200, seed=1)
    >>> df.columns.tolist()
    ['user_id', 'item_id', 'position', 'country', 'device', 'activity', 'click',
     'relevance', 'model_a', 'model_b']
    >>> # a segment of the user
    >>> int(df.groupby("user_id")["country"].nunique().max())
    1
    >>> df["activity"].value_counts().index.tolist()
    ['heavy', 'medium', 'light']
    >>> bool(
    ...     roc_auc_score(df["click"], df["model_a"])
    ...     > roc_auc_score(df["click"], df["model_b"])
    ... )
    True
    """
    n_users = int(check_k(n_users, "make_impressions", allow_none=False, param="n_users"))  # type: ignore[arg-type]
    max_rows_per_user = int(check_k(  # type: ignore[arg-type]
        max_rows_per_user, "make_impressions", allow_none=False, param="max_rows_per_user"
    ))
    n_items = int(check_k(n_items, "make_impressions", allow_none=False, param="n_items"))  # type: ignore[arg-type]
    rng = np.random.default_rng(seed)

    # Users: list length, segments, click propensity.
    sizes = np.minimum(rng.zipf(1.8, n_users), max_rows_per_user).astype(np.int64)
    country = rng.choice(len(_COUNTRIES), size=n_users, p=_COUNTRY_P)
    device = rng.choice(len(_DEVICES), size=n_users, p=_DEVICE_P)
    propensity = (
        np.clip(rng.normal(0.0, 1.6, n_users), -3.2, 3.2)
        + _COUNTRY_EFFECT[country]
        + _DEVICE_EFFECT[device]
        - 0.1 * np.log(sizes)
    )
    propensity_seen_by_a = propensity + rng.normal(0.0, 0.3, n_users)
    activity = np.where(
        sizes <= _ACTIVITY_BOUNDS[0],
        "light",
        np.where(sizes <= _ACTIVITY_BOUNDS[1], "medium", "heavy"),
    )

    # Items: Zipf-like popularity and a latent quality.
    popularity = 1.0 / (np.arange(n_items) + 10.0) ** 1.1
    popularity /= popularity.sum()
    quality = rng.normal(0.0, 1.0, n_items)

    # Rows.
    n = int(sizes.sum())
    user = np.repeat(np.arange(n_users), sizes)
    starts = np.cumsum(sizes) - sizes
    position = np.arange(n, dtype=np.int64) - np.repeat(starts, sizes) + 1
    item = rng.choice(n_items, size=n, p=popularity)
    match = np.sqrt(0.5) * quality[item] + np.sqrt(0.5) * rng.normal(0.0, 1.0, n)
    logit = -2.9 + propensity[user] + match - 0.1 * np.log(position)
    click = (rng.random(n) < _sigmoid(logit)).astype(np.int64)

    relevance = np.where(
        click == 1,
        1 + (match > 0.5).astype(np.int64) + (match > 1.3).astype(np.int64),
        (match > 1.8).astype(np.int64),
    )
    model_a = _sigmoid(
        -3.0 + propensity_seen_by_a[user] + 0.4 * quality[item] + rng.normal(0.0, 0.6, n)
    )
    model_b = _sigmoid(-2.0 + match + rng.normal(0.0, 0.5, n))

    return pd.DataFrame(
        {
            "user_id": user.astype(np.int64),
            "item_id": item.astype(np.int64),
            "position": position,
            "country": pd.Series(_COUNTRIES[country][user], dtype="str"),
            "device": pd.Series(_DEVICES[device][user], dtype="str"),
            "activity": pd.Series(activity[user], dtype="str"),
            "click": click,
            "relevance": relevance.astype(np.int64),
            "model_a": model_a,
            "model_b": model_b,
        }
    )


def make_click_log(
    n_sessions: int = 2000,
    *,
    n_queries: int = 50,
    n_docs: int = 10,
    depth: int = 5,
    n_rankers: int = 1,
    shuffle: float = 1.0,
    examination: np.ndarray | None = None,
    seed: int | None = 0,
) -> pd.DataFrame:
    """Make a click log that follows the position-based model, with known truth.

    Each session issues one of ``n_queries`` queries; its ranker (one of ``n_rankers``) shows
    ``depth`` of the query's ``n_docs`` documents. A click needs an examination, with the
    probability ``examination[k - 1]`` at position k (default ``1 / k``), and relevance, with
    the probability ``sigmoid(-1 + 1.2 * x1 - 0.8 * x2)`` of the document's features.

    A ranker orders by its own noisy view of relevance (fixed per ranker, query and document:
    the same query gets the same list from the same ranker), plus, with ``shuffle > 0``, noise
    of that standard deviation drawn anew in each session (personalization): with
    ``shuffle=0`` documents move between positions only when different rankers show them.

    Parameters
    ----------
    n_sessions : int, default=2000
    n_queries, n_docs, depth : int, default=50, 10, 5
    n_rankers : int, default=1
    shuffle : float, default=1.0
        Standard deviation of the per-session ranking noise (0: deterministic rankers).
    examination : array of floats, optional
        The examination probability of positions 1..depth (default ``1 / k``).
    seed : int or None, default=0

    Returns
    -------
    log : pandas.DataFrame
        One row per impression: ``session``, ``query``, ``doc``, ``ranker``, ``position``
        (1..depth), ``x1``, ``x2`` (the document's features), ``relevance`` (its true click
        probability when examined), ``click`` (0/1). ``log.attrs["examination"]`` holds the
        true examination curve.

    Examples
    --------
    >>> from pandas_rankeval.datasets import make_click_log
    >>> log = make_click_log(100, seed=1)
    >>> log.shape
    (500, 9)
    >>> log.attrs["examination"][:3]
    [1.0, 0.5, 0.3333333333333333]
    """
    n_sessions = cast(int, check_k(n_sessions, "make_click_log", allow_none=False, param="n_sessions"))
    n_docs = cast(int, check_k(n_docs, "make_click_log", allow_none=False, param="n_docs"))
    depth = cast(int, check_k(depth, "make_click_log", allow_none=False, param="depth"))
    if depth > n_docs:
        raise ValueError(f"The 'depth' parameter of make_click_log ({depth}) must be at most n_docs ({n_docs}).")
    exam = 1.0 / np.arange(1, depth + 1) if examination is None else np.asarray(examination, dtype=float)
    if exam.shape != (depth,) or not ((exam > 0) & (exam <= 1)).all():
        raise invalid_parameter("examination", "make_click_log", f"None or {depth} probabilities in (0, 1] (one per "
                                "position down to depth)", examination)
    rng = np.random.default_rng(seed)
    x1 = rng.normal(0.0, 1.0, (n_queries, n_docs))
    x2 = rng.normal(0.0, 1.0, (n_queries, n_docs))
    rel = _sigmoid(-1.0 + 1.2 * x1 - 0.8 * x2)
    view = rel[None] + rng.normal(0.0, 0.3, (n_rankers, n_queries, n_docs))  # each ranker's own view
    query = rng.integers(0, n_queries, n_sessions)
    ranker = rng.integers(0, n_rankers, n_sessions)
    score = view[ranker, query] + shuffle * rng.normal(0.0, 1.0, (n_sessions, n_docs))
    shown = np.argsort(-score, axis=1, kind="stable")[:, :depth]
    q = np.repeat(query, depth)
    doc = shown.ravel()
    position = np.tile(np.arange(1, depth + 1), n_sessions)
    r = rel[q, doc]
    click = (rng.random(q.size) < exam[position - 1] * r).astype(np.int64)
    out = pd.DataFrame({
        "session": np.repeat(np.arange(n_sessions), depth), "query": q, "doc": doc,
        "ranker": np.repeat(ranker, depth), "position": position, "x1": x1[q, doc], "x2": x2[q, doc],
        "relevance": r, "click": click,
    })
    out.attrs["examination"] = exam.tolist()
    return out
