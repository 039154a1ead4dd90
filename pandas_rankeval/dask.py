"""The same metrics on a Dask DataFrame, for tables that do not fit one machine.

Group metrics (GAUC, MRR, NDCG, MAP, precision / recall / hit rate) are computed
by shuffling the rows so that every group sits in one partition, running the
single-machine engine on each partition, and averaging the per-group values on
the client (one row per group). Global AUC needs every pair of rows: the score
column is sorted across partitions (``sort_values``), each partition reports its
own Mann-Whitney count, and the counts are chained in score order, with the ties
that straddle a partition boundary given exactly their share. Both are exact: the
result equals :func:`pandas_rankeval.report` on the collected frame.

Requires the optional ``dask[dataframe]`` extra.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any, Literal

import numpy as np
import pandas as pd

from . import _engine as E
from ._evaluate import Options, WeightLike, evaluate
from ._frame import label_levels
from ._registry import MetricSpec, parse_metrics
from ._validation import as_columns, check_columns, missing_values_error

__all__ = ["report", "auc", "gauc"]

_SEP = "\x1f"


def _require_dask() -> Any:
    try:
        import dask.dataframe as dd
    except ImportError as exc:  # pragma: no cover - exercised only without dask
        raise ImportError(
            "pandas_rankeval.dask needs dask: pip install 'pandas_rankeval[dask]'"
        ) from exc
    return dd


def _check_nan(ddf: Any, cols: list[Hashable], nan_policy: str, func: str) -> tuple[Any, int]:
    counts = ddf[cols].isna().sum().compute()
    bad = {c: int(v) for c, v in counts.items() if v}
    if not bad:
        return ddf, 0
    if nan_policy == "raise":
        raise missing_values_error(bad)
    before = int(ddf.shape[0].compute())
    ddf = ddf.dropna(subset=cols)
    return ddf, before - int(ddf.shape[0].compute())


def _partition_groups(
    pdf: pd.DataFrame,
    *,
    group: list[Hashable],
    label: Hashable,
    scores: list[Hashable],
    specs: list[MetricSpec],
    options: Options,
    empty_frame: pd.DataFrame,
) -> pd.DataFrame:
    """Per-group values, weights and eligibility of every metric, for one partition."""
    if len(pdf) == 0:
        return empty_frame
    ev = evaluate(pdf, group=group, label=label, scores=scores, specs=specs, options=options)
    keys = ev.keys
    out = keys.to_frame(index=False) if isinstance(keys, pd.MultiIndex) else pd.DataFrame({group[0]: keys})
    out["n"] = ev.group_stats["n"]
    out["positives"] = ev.group_stats["positives"]
    for s in scores:
        for spec in specs:
            gv = ev.scores[s].metrics[spec.name]
            out[f"{s}{_SEP}{spec.name}{_SEP}value"] = gv.values
            out[f"{s}{_SEP}{spec.name}{_SEP}used"] = gv.used
            out[f"{s}{_SEP}{spec.name}{_SEP}weight"] = gv.weights
    return out.astype(empty_frame.dtypes.to_dict())


def _partition_auc(
    pdf: pd.DataFrame, *, label: Hashable, score: Hashable, threshold: float | None, ties: str
) -> pd.DataFrame:
    """One partition's Mann-Whitney count and the classes at its lowest and highest score."""
    if len(pdf) == 0:
        return pd.DataFrame({c: [] for c in _AUC_META}).astype(float)
    s = pdf[score].to_numpy(dtype=np.float64)
    y = pdf[label].to_numpy(dtype=np.float64)
    labels = label_levels(y, threshold, graded=False)
    rel = labels.rel
    order, rank = E.score_rank(s, ties=ties, level=labels.level)  # type: ignore[arg-type]
    u, p, _ = E.global_auc(order, rank, rel)
    lo, hi = s.min(), s.max()
    at_lo, at_hi = s == lo, s == hi
    return pd.DataFrame(
        {
            "n": [float(len(pdf))],
            "pos": [p],
            "u": [u],
            "lo": [lo],
            "pos_at_lo": [float(rel[at_lo].sum())],
            "neg_at_lo": [float((~rel[at_lo]).sum())],
            "hi": [hi],
            "pos_at_hi": [float(rel[at_hi].sum())],
            "neg_at_hi": [float((~rel[at_hi]).sum())],
        }
    )


def _chain_auc(parts: pd.DataFrame, ties: str) -> float:
    """Combine per-partition counts in ascending score order, exact across boundaries.

    A (relevant, non-relevant) pair split by a partition boundary is counted as a
    win when the relevant row is in the later partition and a loss otherwise; when
    the two rows share a score it is corrected to the tie rule's value.
    """
    tie_value = {"expected": 0.5, "pessimistic": 0.0, "optimistic": 1.0}[ties]
    col = {c: parts[c].to_numpy(dtype=np.float64) for c in _AUC_META}
    u = 0.0
    neg_before = 0.0
    pos_total = 0.0
    last: float | None = None
    pos_at_last = neg_at_last = 0.0
    for i in range(len(parts)):  # one row per partition, not per group
        n, pos = col["n"][i], col["pos"][i]
        if n == 0:
            continue
        lo, hi = col["lo"][i], col["hi"][i]
        u += col["u"][i] + pos * neg_before
        if last is not None and lo == last:
            u += (tie_value - 1.0) * col["pos_at_lo"][i] * neg_at_last
            u += tie_value * col["neg_at_lo"][i] * pos_at_last
        if last is not None and hi == last:  # the whole partition is one tied score
            pos_at_last += col["pos_at_hi"][i]
            neg_at_last += col["neg_at_hi"][i]
        else:
            last, pos_at_last, neg_at_last = float(hi), col["pos_at_hi"][i], col["neg_at_hi"][i]
        neg_before += n - pos
        pos_total += pos
    if pos_total == 0 or neg_before == 0:
        return float("nan")
    return float(u / (pos_total * neg_before))


_AUC_META = {
    c: float for c in ("n", "pos", "u", "lo", "pos_at_lo", "neg_at_lo", "hi", "pos_at_hi", "neg_at_hi")
}


def _sorted_auc(
    ddf: Any, label: Hashable, score: Hashable, threshold: float | None, ties: str, npartitions: int | None
) -> float:
    """Global AUC: sort the scores across partitions, count per partition, chain in order."""
    ordered = ddf[[score, label]].sort_values(score, npartitions=npartitions)
    parts = ordered.map_partitions(
        _partition_auc, label=label, score=score, threshold=threshold, ties=ties, meta=_AUC_META
    ).compute()
    return _chain_auc(parts, ties)


def report(
    ddf: Any,
    *,
    group: Hashable | Sequence[Hashable],
    label: Hashable,
    scores: Hashable | Sequence[Hashable],
    metrics: str | Sequence[str] = ("auc", "gauc", "mrr", "ndcg@10"),
    weight: WeightLike = None,
    min_size: int | None = None,
    min_pos: int | None = None,
    min_neg: int | None = None,
    ties: Literal["expected", "pessimistic", "optimistic"] = "expected",
    threshold: float | None = None,
    gain: Literal["exp2", "linear"] = "exp2",
    denominator: Literal["relevant", "min_k"] = "relevant",
    empty: Literal["zero", "skip", "error"] = "zero",
    nan_policy: Literal["raise", "omit"] = "raise",
    npartitions: int | None = None,
) -> pd.DataFrame:
    """:func:`pandas_rankeval.report` for a Dask DataFrame, exact.

    Parameters
    ----------
    ddf : dask.dataframe.DataFrame
        One row per shown item.
    group, label, scores, metrics, weight, min_size, min_pos, min_neg, ties, threshold, gain, denominator, empty, nan_policy :
        As in :func:`pandas_rankeval.report`. A weight callable must compute each
        group's weight from that group's own statistics (it runs per partition).
    npartitions : int, optional
        Partitions of the shuffle by group and of the sort by score.

    Returns
    -------
    report : DataFrame
        The same table as :func:`pandas_rankeval.report` (no ``by`` or ``ci`` here).

    Examples
    --------
    >>> import dask.dataframe as dd
    >>> import pandas_rankeval as pre
    >>> import pandas_rankeval.dask as prd
    >>> df = pre.datasets.make_impressions(n_users=200, seed=3)
    >>> ddf = dd.from_pandas(df, npartitions=4)
    >>> dist = prd.report(ddf, group="user_id", label="click", scores=["model_a", "model_b"],
    ...                   metrics=["auc", "gauc", "ndcg@10"])
    >>> local = pre.report(df, group="user_id", label="click", scores=["model_a", "model_b"],
    ...                    metrics=["auc", "gauc", "ndcg@10"])
    >>> bool(((dist[["auc", "gauc", "ndcg@10"]] - local[["auc", "gauc", "ndcg@10"]]).abs() < 1e-12).all().all())
    True
    """
    _require_dask()
    func = "dask.report"
    specs = parse_metrics(metrics if not isinstance(metrics, str) else [metrics])
    gcols = as_columns(group, "group", func)
    score_cols = as_columns(scores, "scores", func)
    opts = Options(
        func, ties=ties, threshold=threshold, weight=weight,
        min_size=min_size, min_pos=min_pos, min_neg=min_neg,  # type: ignore[arg-type]
        gain=gain, denominator=denominator, empty=empty, nan_policy=nan_policy,
    ).check()
    extra = [weight] if isinstance(weight, str) and weight not in ("count", "clicks", "log1p", "uniform") else []
    cols = [*gcols, label, *score_cols, *extra]
    check_columns(ddf._meta, cols)
    ddf, n_dropped = _check_nan(ddf[list(dict.fromkeys(cols))], cols, nan_policy, func)
    opts.nan_policy = "raise"  # missing values are gone by now

    group_specs = [s for s in specs if s.info.grouped]
    out: dict[Hashable, dict[str, Any]] = {s: {} for s in score_cols}
    if group_specs:
        meta = pd.DataFrame({c: pd.Series(dtype=ddf._meta[c].dtype) for c in gcols})
        meta["n"] = pd.Series(dtype=np.int64)
        meta["positives"] = pd.Series(dtype=np.int64)
        for s in score_cols:
            for spec in group_specs:
                meta[f"{s}{_SEP}{spec.name}{_SEP}value"] = pd.Series(dtype=np.float64)
                meta[f"{s}{_SEP}{spec.name}{_SEP}used"] = pd.Series(dtype=bool)
                meta[f"{s}{_SEP}{spec.name}{_SEP}weight"] = pd.Series(dtype=np.float64)
        shuffled = ddf.shuffle(on=gcols if len(gcols) > 1 else gcols[0], npartitions=npartitions)
        table = shuffled.map_partitions(
            _partition_groups, group=gcols, label=label, scores=score_cols, specs=group_specs,
            options=opts, empty_frame=meta, meta=meta,
        ).compute()
        n = table["n"].to_numpy()
        pos = table["positives"].to_numpy()
        for s in score_cols:
            row = out[s]
            for spec in group_specs:
                v = table[f"{s}{_SEP}{spec.name}{_SEP}value"].to_numpy()
                used = table[f"{s}{_SEP}{spec.name}{_SEP}used"].to_numpy()
                w = table[f"{s}{_SEP}{spec.name}{_SEP}weight"].to_numpy()[used]
                total = w.sum()
                row[spec.name] = float(np.dot(w, v[used]) / total) if total > 0 else float("nan")
            row["n_groups"] = len(table)
            row["n_rows"] = int(n.sum())
            gauc_specs = [sp for sp in group_specs if sp.kind == "gauc"]
            if gauc_specs:
                used = table[f"{s}{_SEP}{gauc_specs[0].name}{_SEP}used"].to_numpy()
                row["gauc_groups_used"] = int(used.sum())
                row["gauc_rows_skipped"] = float(n[~used].sum() / max(n.sum(), 1))
            if any(sp.kind != "gauc" for sp in group_specs):
                row["groups_no_relevant"] = int((pos == 0).sum())
    if any(s.kind == "auc" for s in specs):
        for s in score_cols:
            out[s]["auc"] = _sorted_auc(ddf, label, s, threshold, ties, npartitions)
    names = [sp.name for sp in specs]
    frame = pd.DataFrame([out[s] for s in score_cols], index=pd.Index(score_cols, name="model"))
    coverage_cols = [c for c in frame.columns if c not in names]
    frame = frame[[*names, *coverage_cols]]
    if n_dropped:
        frame["rows_dropped"] = n_dropped
    frame.attrs["params"] = {sp.name: opts.params(sp) for sp in specs}
    return frame


def gauc(ddf: Any, *, group: Hashable | Sequence[Hashable], label: Hashable, score: Hashable, **kwargs: Any) -> float:
    """GAUC of a Dask DataFrame (see :func:`report` for the options).

    Examples
    --------
    >>> import dask.dataframe as dd
    >>> import pandas_rankeval as pre
    >>> import pandas_rankeval.dask as prd
    >>> df = pre.datasets.make_impressions(n_users=200, seed=3)
    >>> g = prd.gauc(dd.from_pandas(df, npartitions=3), group="user_id", label="click", score="model_b")
    >>> abs(g - pre.gauc(df, group="user_id", label="click", score="model_b")) < 1e-12
    True
    """
    rep = report(ddf, group=group, label=label, scores=[score], metrics=["gauc"], **kwargs)
    return float(rep.iloc[0]["gauc"])


def auc(ddf: Any, *, label: Hashable, score: Hashable, **kwargs: Any) -> float:
    """Global AUC of a Dask DataFrame, exact (a distributed sort of the scores).

    Examples
    --------
    >>> import dask.dataframe as dd
    >>> import pandas_rankeval as pre
    >>> import pandas_rankeval.dask as prd
    >>> df = pre.datasets.make_impressions(n_users=200, seed=3)
    >>> a = prd.auc(dd.from_pandas(df, npartitions=3), label="click", score="model_a")
    >>> abs(a - pre.auc(df, label="click", score="model_a")) < 1e-12
    True
    """
    _require_dask()
    ties = kwargs.pop("ties", "expected")
    threshold = kwargs.pop("threshold", None)
    nan_policy = kwargs.pop("nan_policy", "raise")
    npartitions = kwargs.pop("npartitions", None)
    if kwargs:
        raise TypeError(f"dask.auc got unexpected arguments {sorted(kwargs)!r}.")
    Options("dask.auc", ties=ties, threshold=threshold, nan_policy=nan_policy).check()
    check_columns(ddf._meta, [label, score])
    ddf, _ = _check_nan(ddf[[score, label]], [label, score], nan_policy, "dask.auc")
    return _sorted_auc(ddf, label, score, threshold, ties, npartitions)
