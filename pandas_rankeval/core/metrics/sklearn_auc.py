"""Per-group AUC by sklearn's ``roc_auc_score`` (``gauc(implementation="sklearn")``, and ``max_fpr=``): the
cross-check of the closed form, one call per eligible group, on the scores as sklearn should see
them (:func:`sklearn_scores`: the tie rule and the tie-break applied as a rank)."""

from __future__ import annotations

import numpy as np

from ..inputs.validation import internal_error
from ..progress import Progress
from .metric import EvaluationView, ScoreView

__all__ = ["sklearn_group_auc", "sklearn_scores"]


def sklearn_scores(score: np.ndarray, order: np.ndarray, rank: np.ndarray, *, plain: bool) -> np.ndarray:
    """The scores to hand to sklearn's ``roc_auc_score``.

    The scores themselves when ``plain`` and float64 holds them exactly and finite
    (sklearn rejects infinities and would round integers above 2**53); otherwise
    minus the dense rank of the ranking (exact for integer scores, finite for
    infinite ones, and carrying a tie-break or the label order inside ties): the
    same order and the same ties, hence the same AUC.
    """
    if plain and score.dtype.kind == "f" and np.isfinite(score).all():
        return score
    s = np.empty(score.shape[0], dtype=np.float64)
    s[order] = -rank
    return s


def sklearn_group_auc(
    ev: EvaluationView, score_eval: ScoreView, eligible: np.ndarray, score: np.ndarray
) -> np.ndarray:
    """Per-group AUC from sklearn's roc_auc_score, one call per eligible group."""
    from sklearn.metrics import roc_auc_score

    opts = ev.options
    groups = ev.prepared.groups
    if groups is None or score_eval.order is None or score_eval.rank is None:
        raise internal_error("sklearn's per-group AUC (implementation=\"sklearn\") needs group codes and the score order")
    s = sklearn_scores(
        score, score_eval.order, score_eval.rank, plain=opts.ties == "expected" and opts.tiebreak is None
    )
    codes = groups.codes
    by_group = np.argsort(codes, kind="stable")
    sorted_codes = codes[by_group]
    bounds = np.flatnonzero(sorted_codes[1:] != sorted_codes[:-1]) + 1
    starts = np.concatenate(([0], bounds))
    ends = np.append(bounds, codes.shape[0])
    rel = ev.labels.rel
    sw = ev.prepared.extra.get(opts.sample_weight) if opts.sample_weight is not None else None
    out = np.full(starts.shape[0], np.nan)
    todo = np.flatnonzero(eligible)
    bar = Progress(opts.progress, total=int(todo.shape[0]), desc="roc_auc_score per group", unit="group")
    try:
        for i, g in enumerate(todo):
            rows = by_group[starts[g] : ends[g]]
            out[g] = roc_auc_score(
                rel[rows],
                s[rows],
                sample_weight=None if sw is None else sw[rows],
                max_fpr=opts.max_fpr,
            )
            if i % 1000 == 999:
                bar.update(1000)
        bar.update(int(todo.shape[0]) % 1000)
    finally:
        bar.close()
    return out
