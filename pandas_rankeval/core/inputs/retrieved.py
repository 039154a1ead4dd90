"""Rows outside the ranking (``retrieved=``): judged documents a run did not retrieve.

A row whose ``retrieved`` value is False belongs to its group (it counts in the group's relevant
rows, the denominators of recall and AP, and in NDCG's ideal DCG) but takes no rank. The list
metrics read it through two changes made once per evaluation, before any sort:

- for the score column it is outside of, its label level becomes the lowest one (it gains nothing
  and is never a hit) and its score the column's lowest value stepped down once, so that it ranks
  below every retrieved row and ties with none of them: every rank-based term (hits, DCG, RR, AP's
  precisions) is that of the retrieved rows alone;
- the ranking's group totals (relevant rows, rows per level) are those of all the group's rows,
  from the true levels (:func:`~..kernels.ranked.add_unranked`).

``retrieved`` names one column for every score column, or maps score columns to their own (runs
that retrieved different documents, as :func:`pandas_rankeval.read_trec` makes them).

The metrics that read every row's score (AUC, the calibration metrics) refuse the option.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import Any

import numpy as np

from .prepare import Labels, Prepared, raw_key
from .validation import check_column_name

__all__ = ["apply_retrieved", "check_retrieved", "check_retrieved_metrics", "outside_key", "retrieved_columns",
           "score_level"]


def check_retrieved(value: Any, param: str, func: str) -> Any:
    """What ``retrieved=`` accepts: None, a column name, or a mapping of score columns to column names."""
    if value is None:
        return None
    if isinstance(value, Mapping):
        for v in value.values():
            check_column_name(v, param, func)
        return dict(value)
    check_column_name(value, param, func)
    return value


def check_retrieved_metrics(column: Hashable | None, refused: Sequence[str], func: str) -> None:
    """``retrieved=`` with a metric that reads every row's score: the error, before any work."""
    if column is not None and refused:
        raise ValueError(
            f"The 'retrieved' parameter of {func} ({column!r}) applies to the list metrics (mrr, ndcg, "
            f"map, precision, recall, rprec, hit_rate, rbp, err); {list(refused)} read every row's score. "
            f"Evaluate them on the retrieved rows only (df[df[{column!r}]]) in a separate call."
        )


def _below(score: np.ndarray, inside: np.ndarray, column: Hashable, func: str) -> np.ndarray:
    """The score column with the rows outside the ranking set strictly below every other row."""
    out = score.copy()
    if not inside.any():
        out[:] = 0
        return out
    low = score[inside].min()
    if out.dtype.kind == "f":
        if not np.isfinite(low):
            raise ValueError(
                f"Column {column!r} (score) has -inf among the retrieved rows of {func}: rows with "
                "retrieved=False rank below every retrieved row, so no retrieved score can be -inf. "
                "Replace -inf by a finite score."
            )
        step = np.nextafter(low, -np.inf)
        if not np.isfinite(step):  # pragma: no cover - the lowest finite float64
            raise ValueError(f"Column {column!r} (score) has no value below {low!r} for unretrieved rows.")
        out[~inside] = step
    else:
        info = np.iinfo(out.dtype)
        if int(low) == int(info.min):
            raise ValueError(
                f"Column {column!r} (score) reaches {info.min} (the lowest {out.dtype}) among the retrieved "
                f"rows of {func}: rows with retrieved=False need a lower score. Cast the scores to a wider "
                "or signed integer type."
            )
        out[~inside] = low - 1
    return out


def retrieved_columns(retrieved: Any, scores: Sequence[Hashable]) -> dict[Hashable, Hashable]:
    """The retrieved column of each score column: one column for all, or a mapping (one per run)."""
    if retrieved is None:
        return {}
    if isinstance(retrieved, Mapping):
        return {s: retrieved[s] for s in scores if s in retrieved}
    return {s: retrieved for s in scores}


def score_level(prep: Prepared, labels: Labels, score: Hashable) -> np.ndarray:
    """The label level of each row as a score column ranks it: 0 for its rows outside the ranking."""
    level = prep.extra.get(level_key(score))
    return labels.level if level is None else level


def level_key(score: Hashable) -> tuple[str, str, Hashable]:
    """The key of a score column's label levels (rows outside its ranking at 0) in :attr:`Prepared.extra`."""
    return ("__retrieved__", "level", score)


def outside_key(score: Hashable) -> tuple[str, str, Hashable]:
    """The key of a score column's rows outside its ranking (a bool per row) in :attr:`Prepared.extra`."""
    return ("__retrieved__", "outside", score)


def _flags(prep: Prepared, column: Hashable) -> np.ndarray:
    raw = prep.extra[raw_key(column)]
    bad = ~np.isin(raw, (0, 1))
    if bad.any():
        count = int(bad.sum())
        raise ValueError(
            f"Column {column!r} (retrieved) must hold booleans (or 0/1); {count:,} "
            f"row{'s' if count != 1 else ''} hold other values, for example {raw[bad][:3].tolist()!r}."
        )
    return raw.astype(bool)


def _add_zero_level(labels: Labels, threshold: float | None) -> None:
    """A label level below every other, not relevant and gaining nothing, for the rows outside a
    ranking when every label present is relevant (a part of a table whose groups hold relevant rows
    only, or a threshold at or below the lowest label): 0, or below the threshold."""
    low = 0.0 if threshold is None else min(float(labels.values[0]), float(threshold)) - 1.0
    labels.values = np.concatenate([[low], labels.values])
    level = labels.level.astype(np.min_scalar_type(labels.values.shape[0]), copy=True)
    level += 1
    labels.level = level
    labels.rel_level = 1
    labels._rel = None


def apply_retrieved(prep: Prepared, labels: Labels, retrieved: Any, func: str, threshold: float | None = None) -> None:
    """Take each score column's rows whose retrieved column is False out of its ranking (see the
    module's docstring): its label levels (:func:`score_level`) and its scores, in ``prep``."""
    columns = retrieved_columns(retrieved, list(prep.scores))
    flags = {c: _flags(prep, c) for c in dict.fromkeys(columns.values())}
    for c in flags:
        prep.extra.pop(raw_key(c), None)
    for name, column in columns.items():
        inside = flags[column]
        if inside.all():
            continue
        outside = ~inside
        if labels.rel_level == 0:
            _add_zero_level(labels, threshold)
        level = labels.level.copy()
        level[outside] = 0
        prep.extra[level_key(name)] = level
        prep.extra[outside_key(name)] = outside
        prep.scores[name] = _below(prep.scores[name], inside, name, func)
