"""Did the offline lifts predict the online results? Agreement over a table of past launches."""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from statistics import NormalDist
from typing import Any

import numpy as np
import pandas as pd

from pandas_rankeval.api.docs import fill_doc
from pandas_rankeval.core.inputs.validation import (
    check_column_name, check_columns, check_frame, check_option, check_seed, invalid_parameter,
)
from pandas_rankeval.core.progress import Progress
from pandas_rankeval.inference.bootstrap import check_level, check_n_boot, percentile_interval

from .tables import AgreementTable, make_table

__all__ = ["launch_agreement", "kendall_tau_b", "wilson_interval"]

_FUNC = "launch_agreement"
#: Below this many launches the footer says the intervals are wide.
FEW_LAUNCHES = 20
#: Below this many launches a bootstrap over launches says nothing (with 2, each replicate holds
#: one or two distinct launches): no bootstrap interval, and no metric is called clearly best.
MIN_BOOT_LAUNCHES = 5


def wilson_interval(k: float, n: float, ci: float) -> tuple[float, float]:
    """Wilson score interval of a share k / n at level ``ci`` (NaN when n is 0).

    >>> [round(v, 4) for v in wilson_interval(7, 10, 0.95)]
    [0.3968, 0.8922]
    """
    if n <= 0:
        return math.nan, math.nan
    z = NormalDist().inv_cdf(0.5 + ci / 2)
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


def _signs(v: np.ndarray) -> np.ndarray:
    return np.sign(v[:, None] - v[None, :])


def kendall_tau_b(x: np.ndarray, y: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
    """Kendall's tau-b of x and y; with ``weights`` (replicates x launches: bootstrap counts),
    one tau per replicate (a launch drawn twice is a pair tied on both sides, as tau-b counts it).
    NaN where every x, or every y, is tied.

    >>> float(kendall_tau_b(np.array([1.0, 2, 3, 4]), np.array([1.0, 3, 2, 4]))[0])
    0.6666666666666666
    """
    sx, sy = _signs(np.asarray(x, float)), _signs(np.asarray(y, float))
    w = np.ones((1, len(x))) if weights is None else np.asarray(weights, float)
    num = ((w @ (sx * sy)) * w).sum(axis=1)
    den = np.sqrt(((w @ (sx * sx)) * w).sum(axis=1) * ((w @ (sy * sy)) * w).sum(axis=1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)


def _weighted_share(agree: np.ndarray, w: np.ndarray) -> np.ndarray:
    tot = w.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(tot > 0, (w @ agree) / np.where(tot > 0, tot, 1.0), np.nan)


def _slope(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> np.ndarray:
    den = w @ (x * x)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, (w @ (x * y)) / np.where(den > 0, den, 1.0), np.nan)


def _interval_columns(launches: pd.DataFrame, offline: list[Hashable], given: Any, side: str) -> dict[Hashable, Hashable]:
    """Each metric's interval column: a mapping, a list aligned with ``offline``, or None for
    the ``<metric>_low`` / ``<metric>_high`` columns where they exist."""
    if given is None:
        return {m: f"{m}_{side}" for m in offline if f"{m}_{side}" in launches.columns}
    if isinstance(given, Mapping):
        unknown = [k for k in given if k not in offline]
        if unknown:
            raise ValueError(f"The 'offline_{side}' mapping of {_FUNC} names {unknown!r}, which are not in offline={offline!r}.")
        return dict(given)
    if isinstance(given, (list, tuple)) and len(given) == len(offline):
        return {m: c for m, c in zip(offline, given) if c is not None}
    raise invalid_parameter(f"offline_{side}", _FUNC, f"None (use the '<metric>_{side}' columns where they exist), a dict "
                            f"metric -> column, or a list of {len(offline)} columns aligned with offline", given)


def launch_agreement(
    launches: pd.DataFrame,
    *,
    offline: Sequence[Hashable],
    online: Hashable,
    offline_low: Any = None,
    offline_high: Any = None,
    online_se: Hashable | None = None,
    rank_by: str = "sign",
    n_boot: int = 2000,
    ci: float = 0.95,
    seed: Any = 0,
    nan_policy: str = "raise",
    progress: bool = False,
) -> AgreementTable:
    """How well each offline metric's lift agreed with the online lift over past launches.

    ``launches`` has one row per past launch (an A/B test): the offline lift of each metric
    (new model minus production on the evaluation set) and the online lift of the A/B test
    (same sign convention: positive is better). For each offline metric:

    - ``sign_agreement``: the share of launches where the offline and the online lift have
      the same sign (a zero lift on either side counts as a disagreement), with a Wilson
      interval;
    - ``kendall_tau``: Kendall's tau-b between offline and online lifts (do bigger offline
      lifts go with bigger online ones?), with a bootstrap interval over launches;
    - ``slope``: the least-squares slope of online on offline lift through the origin
      (online = slope * offline: no offline lift, no online lift expected), with a bootstrap
      interval; it says how much online lift a unit of offline lift has bought.

    With offline intervals (``offline_low`` / ``offline_high``) or the online standard error
    (``online_se``), ``n_decisive`` and ``decisive_agreement`` repeat the sign agreement on the
    launches where the offline interval excludes 0 and the online lift is more than z * se
    from 0 (z of the level ``ci``).

    Parameters
    ----------
    launches : DataFrame
        One row per launch.
    offline : list of columns
        The offline lift of each metric.
    online : column
        The online lift (the A/B result).
    offline_low, offline_high : dict, list or None, default=None
        Each metric's interval columns; None uses ``<metric>_low`` / ``<metric>_high`` where
        the frame has them (the library's interval names).
    online_se : column, optional
        The standard error of the online lift.
    rank_by : {{"sign", "tau"}}, default="sign"
        What "agrees best" means: the sign agreement, or Kendall's tau.
    n_boot : int, default=2000
        Bootstrap replicates over launches (the same replicates for every metric, so that two
        metrics are compared on the same draws).
    ci : float, default=0.95
    seed : int, default=0
    nan_policy : {{"raise", "omit"}}, default="raise"
        "omit": each metric uses the launches where it and the online lift are known (the
        counts are in ``n_launches``).
{progress}

    Returns
    -------
    table : AgreementTable
        Indexed by ``metric``, with the columns ``n_launches``, ``sign_agreement``,
        ``sign_agreement_low``, ``sign_agreement_high``, ``kendall_tau``, ``kendall_tau_low``,
        ``kendall_tau_high``, ``slope``, ``slope_low``, ``slope_high``, (``n_decisive``,
        ``decisive_agreement``) and ``best``. ``table.best`` names the best metric; the
        footer says how many launches the evidence rests on, and whether the best metric is
        clearly best (the paired bootstrap interval of its lead over the runner-up excludes 0)
        or not. ``table.plot()`` draws online against offline lift per metric.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> import pandas_rankeval as pre
    >>> rng = np.random.default_rng(0)
    >>> ndcg = rng.normal(0.01, 0.01, 12)
    >>> launches = pd.DataFrame({"ndcg@10": ndcg, "auc": rng.normal(0, 0.01, 12),
    ...                          "ctr_lift": 0.5 * ndcg + rng.normal(0, 0.002, 12)})
    >>> table = pre.launch_agreement(
    ...     launches, offline=["ndcg@10", "auc"], online="ctr_lift", n_boot=500
    ... )
    >>> table.best
    'ndcg@10'
    >>> round(float(table.loc["ndcg@10", "slope"]), 1)
    0.5
    >>> table.footer()[0]
    'based on 12 launches; intervals are wide'
    """
    launches = check_frame(launches, _FUNC)
    offline, online, se_col = _check_launch_columns(launches, offline, online, online_se)
    rank_by = check_option(rank_by, "rank_by", _FUNC, ("sign", "tau"))
    nan_policy = check_option(nan_policy, "nan_policy", _FUNC, ("raise", "omit"))
    n_boot = check_n_boot(n_boot, _FUNC)
    ci = check_level(ci, "ci", _FUNC)
    check_seed(seed, _FUNC)
    lows = _interval_columns(launches, offline, offline_low, "low")
    highs = _interval_columns(launches, offline, offline_high, "high")
    one_sided = sorted({str(m) for m in offline if (m in lows) != (m in highs)})
    if one_sided:
        raise ValueError(f"{_FUNC} got only one end of the offline interval of {one_sided}: give both offline_low and offline_high.")
    used = [*offline, online, *lows.values(), *highs.values(), *([se_col] if se_col is not None else [])]
    values = _read_lifts(launches, used, nan_policy)
    n_all = len(launches)
    if n_all < 2:
        raise ValueError(f"{_FUNC} needs at least 2 launches to measure agreement; got {n_all}.")
    z = NormalDist().inv_cdf(0.5 + ci / 2)
    rng = np.random.default_rng(seed)
    boot = rng.multinomial(n_all, np.full(n_all, 1.0 / n_all), size=n_boot).astype(np.float64)
    rows: dict[Hashable, dict[str, Any]] = {}
    reps: dict[Hashable, dict[str, np.ndarray]] = {}
    points: dict[str, list[list[float]]] = {}
    decisive = bool(lows) or se_col is not None
    y = values[online]
    bar = Progress(bool(progress), total=n_boot * len(offline), desc="bootstrap", unit="rep")
    try:
        for m in offline:
            rows[m], reps[m], points[str(m)] = _metric_agreement(m, values[m], y, boot, ci, bar)
            if decisive:
                rows[m].update(_decisive(values, m, y, lows, highs, se_col, z))
    finally:
        bar.close()
    table = pd.DataFrame.from_dict(rows, orient="index")
    table.index.name = "metric"
    key = "sign_agreement" if rank_by == "sign" else "kendall_tau"
    score = table[key].astype(float)
    best = None if score.isna().all() else score.idxmax()
    table["best"] = table.index == best
    short = _short_footer(table, reps, best, key, rank_by, ci, y, online)
    undefined = [str(m) for m in offline if not np.isfinite(rows[m]["kendall_tau"])]
    details = [
        f"kendall_tau undefined (NaN) for {undefined}: every offline or every online lift is the same" if undefined else "",
        f"sign_agreement_low/high: {ci:.0%} Wilson interval; kendall_tau (tau-b) and slope (online on offline, "
        f"through the origin): {ci:.0%} percentile intervals of {n_boot:,} bootstrap replicates over launches (seed {seed})",
        _decisive_words(decisive, bool(lows), se_col, z),
    ]
    return make_table(AgreementTable, table, "launch_agreement", short, details, best=best, rank_by=rank_by,
                      online=str(online), points=points, n_boot=n_boot, ci=ci)


fill_doc(launch_agreement)


def _check_launch_columns(
    launches: pd.DataFrame, offline: Any, online: Hashable, online_se: Hashable | None
) -> tuple[list[Hashable], Hashable, Hashable | None]:
    """offline: a non-empty list of distinct columns; online: another column; online_se: a column or None."""
    if isinstance(offline, (str, bytes)) or not isinstance(offline, Sequence) or not offline:
        raise invalid_parameter("offline", _FUNC, "a non-empty list of columns (one per offline metric)", offline)
    offline = list(offline)
    if len(set(offline)) != len(offline):
        raise ValueError(f"The 'offline' parameter of {_FUNC} names a column more than once: {offline!r}.")
    online = check_column_name(online, "online", _FUNC, launches)
    if online in offline:
        raise ValueError(f"The 'online' column {online!r} of {_FUNC} is also in offline={offline!r}.")
    se_col = check_column_name(online_se, "online_se", _FUNC, launches) if online_se is not None else None
    return offline, online, se_col


def _read_lifts(launches: pd.DataFrame, used: list[Hashable], nan_policy: str) -> dict[Hashable, np.ndarray]:
    """The ``used`` columns as float64: numeric, finite, and without missing values unless nan_policy='omit'."""
    check_columns(launches, used)
    for c in used:
        if not pd.api.types.is_numeric_dtype(launches[c].dtype) or pd.api.types.is_bool_dtype(launches[c].dtype):
            raise TypeError(f"Column {c!r} of {_FUNC} must hold numeric lifts; it has dtype {launches[c].dtype}.")
    values = {c: launches[c].to_numpy(dtype=np.float64) for c in used}
    for c, v in values.items():
        inf = int(np.isinf(v).sum())
        if inf:
            raise ValueError(f"Column {c!r} of {_FUNC} has {inf:,} infinite value{'s' if inf != 1 else ''}; lifts must be finite.")
    missing = {c: int(np.isnan(v).sum()) for c, v in values.items() if np.isnan(v).any()}
    if missing and nan_policy == "raise":
        n_bad = int(np.isnan(np.column_stack(list(values.values()))).any(axis=1).sum())
        raise ValueError(
            f"{_FUNC}: {n_bad:,} of {len(launches):,} launches have missing values (per column: {missing}). Pass "
            "nan_policy='omit' to use, for each metric, the launches where it and the online lift are known, or fill them."
        )
    return values


def _metric_agreement(
    m: Hashable, x: np.ndarray, y: np.ndarray, boot: np.ndarray, ci: float, bar: Progress | None = None
) -> tuple[dict[str, Any], dict[str, np.ndarray], list[list[float]]]:
    """One offline metric against the online lift: sign agreement (Wilson), Kendall's tau and the
    slope (bootstrap intervals over launches); its replicates and its points (``bar``: one step
    per replicate)."""
    n_boot = boot.shape[0]
    ok = ~np.isnan(x) & ~np.isnan(y)
    n = int(ok.sum())
    if n < 2:
        raise ValueError(f"{_FUNC}: metric {m!r} has {n} launch{'es' if n != 1 else ''} with both lifts known; it needs at least 2.")
    xs, ys = np.where(ok, x, 0.0), np.where(ok, y, 0.0)
    agree = ((np.sign(xs) * np.sign(ys)) > 0).astype(np.float64)
    k = float(agree[ok].sum())
    lo, hi = wilson_interval(k, n, ci)
    w = boot * ok
    tau = float(kendall_tau_b(x[ok], y[ok])[0])
    chunks = []
    for i in range(0, n_boot, 256):  # Kendall's tau of 256 replicates at a time
        chunks.append(kendall_tau_b(xs, ys, w[i:i + 256]))
        if bar is not None:
            bar.update(chunks[-1].shape[0])
    tau_reps = np.concatenate(chunks)
    slope_reps = _slope(xs, ys, w)
    t_lo, t_hi = percentile_interval(tau_reps[:, None], ci, bounds=(-1.0, 1.0))
    s_lo, s_hi = percentile_interval(slope_reps[:, None], ci)
    slope = float(_slope(xs, ys, ok[None, :].astype(float))[0])
    if n < MIN_BOOT_LAUNCHES:
        t_lo = t_hi = s_lo = s_hi = np.array([np.nan])
    row: dict[str, Any] = {
        "n_launches": n, "sign_agreement": k / n, "sign_agreement_low": lo, "sign_agreement_high": hi,
        "kendall_tau": tau, "kendall_tau_low": float(t_lo[0]) if np.isfinite(tau) else np.nan,
        "kendall_tau_high": float(t_hi[0]) if np.isfinite(tau) else np.nan,
        "slope": slope, "slope_low": float(s_lo[0]), "slope_high": float(s_hi[0]),
    }
    return row, {"sign": _weighted_share(agree, w), "tau": tau_reps}, [x[ok].tolist(), y[ok].tolist()]


def _decisive(
    values: dict[Hashable, np.ndarray], m: Hashable, y: np.ndarray, lows: dict, highs: dict,
    se_col: Hashable | None, z: float,
) -> dict[str, Any]:
    """The sign agreement on the launches where the offline interval excludes 0 and the online
    lift is more than z * se from 0."""
    x = values[m]
    ok = ~np.isnan(x) & ~np.isnan(y)
    xs, ys = np.where(ok, x, 0.0), np.where(ok, y, 0.0)
    agree = ((np.sign(xs) * np.sign(ys)) > 0).astype(np.float64)
    sure = ok.copy()
    if m in lows:
        lo_m, hi_m = values[lows[m]], values[highs[m]]
        sure &= ~np.isnan(lo_m) & ~np.isnan(hi_m) & ((lo_m > 0) | (hi_m < 0))
    if se_col is not None:
        se = values[se_col]
        sure &= ~np.isnan(se) & (np.abs(ys) > z * np.where(np.isnan(se), np.inf, se))
    return {"n_decisive": int(sure.sum()), "decisive_agreement": float(agree[sure].mean()) if sure.any() else np.nan}


def _short_footer(table: pd.DataFrame, reps: dict[Hashable, dict[str, np.ndarray]], best: Hashable | None, key: str,
                  rank_by: str, ci: float, y: np.ndarray, online: Hashable) -> list[str]:
    """How many launches, which metric is best and how clearly, and a warning when every launch
    moved the online lift the same way."""
    n_min, n_max = int(table["n_launches"].min()), int(table["n_launches"].max())
    count = f"{n_min:,}" if n_min == n_max else f"{n_min:,} to {n_max:,}"
    short = [f"based on {count} launches" + ("; intervals are wide" if n_max < FEW_LAUNCHES else "")]
    if best is not None:
        short.append(_verdict(table, reps, best, key, rank_by, ci))
    same = np.sign(y[~np.isnan(y)])
    if len(np.unique(same)) == 1:
        short.append(
            f"every launch moved {online!r} the same way ({'+' if same[0] > 0 else '-' if same[0] < 0 else '0'}): sign "
            "agreement cannot tell a metric that tracks the online result from one that always moves that way"
        )
    return short


def _decisive_words(decisive: bool, intervals: bool, se_col: Hashable | None, z: float) -> str:
    """The footer's line on what counts as a decisive launch ("" without intervals or se)."""
    if not decisive:
        return ""
    if intervals:
        return ("decisive: launches where the offline interval excludes 0"
                f"{' and |online| > ' + format(z, '.2f') + ' x ' + repr(se_col) if se_col is not None else ''}")
    return f"decisive: launches where |online| > {z:.2f} x {se_col!r}"


def _verdict(table: pd.DataFrame, reps: dict[Hashable, dict[str, np.ndarray]], best: Hashable, key: str,
             rank_by: str, ci: float) -> str:
    name = "sign agreement" if rank_by == "sign" else "Kendall's tau"
    value = float(table[key].to_dict()[best])
    shown = f"{value:.0%}" if rank_by == "sign" else f"{value:.2f}"
    others = table.drop(index=best)[key].astype(float).dropna()
    if others.empty:
        return f"{best} agrees with the online lift in {shown} ({name}); no other metric to compare"
    second = others.idxmax()
    if int(table["n_launches"].min()) < MIN_BOOT_LAUNCHES:
        return (f"best: {best} ({name} {shown}), but with fewer than {MIN_BOOT_LAUNCHES} launches no metric can be "
                "called clearly best (and kendall_tau and slope get no interval)")
    diff = reps[best][rank_by] - reps[second][rank_by]
    lo, _ = percentile_interval(diff[:, None], ci)
    if np.isfinite(lo[0]) and lo[0] > 0:
        return f"best: {best} ({name} {shown}), clearly ahead of {second} (the {ci:.0%} paired bootstrap interval of the lead excludes 0)"
    return (f"best: {best} ({name} {shown}), but not clearly: its lead over {second} is within the {ci:.0%} paired "
            "bootstrap interval (no metric is clearly best on these launches)")
