"""One coverage rule: which groups a metric uses, and why the others are skipped.

:func:`eligibility` decides it from the per-group counts (rows, relevant rows, and with sample
weights the weight of each class) under a metric's eligibility rule (``Metric.eligibility``):

* ``"pairs"`` (GAUC): a group enters when it has a relevant and a non-relevant row, passes the
  ``min_size`` / ``min_pos`` / ``min_neg`` filters, and (with sample weights) neither class weighs
  0 in total. The others are counted as *only positives*, *only negatives*, *filtered* or *zero
  weight*.
* ``"relevant"`` (the list metrics, NDCG included): a group with no relevant row is *empty*; it
  scores 0 (``empty="zero"``), is left out (``"skip"``) or raises (``"error"``).
* ``"pooled"`` (the calibration metrics): every group is used; it adds its row sums.
* ``"ordered"`` (grouped XAUC, continuous labels): a group enters when two of its rows have
  different labels (``ordered``: per group, two labels at least, and with sample weights such a pair
  of positive weight) and it passes ``min_size``. A group whose labels are all equal is counted as
  *only negatives* (one class: no pair), one whose pairs weigh 0 as *zero weight*.

The metric (:mod:`.reductions`), the per-partition summary (``summary/partition.py``) and
``per_group`` all read this one function.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..inputs.options import Options

__all__ = ["Eligible", "eligibility", "empty_error"]


@dataclass(frozen=True)
class Eligible:
    """Per group (bool arrays): the groups a metric uses, and each reason to skip one."""

    used: np.ndarray
    only_pos: np.ndarray  # relevant rows only ("pairs")
    only_neg: np.ndarray  # no relevant row ("pairs")
    filtered: np.ndarray  # both classes, but fails a min_* filter ("pairs")
    zero_weight: np.ndarray  # both classes and passes, but a class weighs 0 ("pairs")
    empty: np.ndarray  # no relevant row ("relevant")

    @property
    def label_only(self) -> np.ndarray:
        """The groups the labels and filters let in (before sample weights)."""
        return self.used | self.zero_weight


def eligibility(
    rule: str,
    n: np.ndarray,
    npos: np.ndarray,
    opts: Options,
    *,
    wpos: np.ndarray | None = None,
    wneg: np.ndarray | None = None,
    ordered: tuple[np.ndarray, np.ndarray] | None = None,
) -> Eligible:
    """The groups a metric with eligibility ``rule`` uses (see the module docstring).

    ``n`` and ``npos`` are rows and relevant rows per group; ``wpos`` / ``wneg`` the summed sample
    weight of each class (None without sample weights).

    >>> import numpy as np
    >>> from pandas_rankeval.core.inputs.options import Options
    >>> e = eligibility("pairs", np.array([3, 2, 4]), np.array([1, 2, 0]), Options("gauc"))
    >>> e.used.tolist(), e.only_pos.tolist(), e.only_neg.tolist()
    ([True, False, False], [False, True, False], [False, False, True])
    """
    nneg = n - npos
    none = np.zeros(n.shape[0], dtype=bool)
    if rule == "pairs":
        has_both = (npos > 0) & (nneg > 0)
        passes = (n >= opts.min_size) & (npos >= opts.min_pos) & (nneg >= opts.min_neg)
        # with sample weights, a group whose relevant (or non-relevant) rows weigh 0 in total has
        # no weighted pair: its AUC is undefined, so it is skipped (its own reason)
        weighted = (wpos > 0) & (wneg > 0) if wpos is not None and wneg is not None else True
        label_ok = has_both & passes
        used = label_ok & weighted
        return Eligible(
            used=used,
            only_pos=(npos > 0) & (nneg == 0),
            only_neg=npos == 0,
            filtered=has_both & ~passes,
            zero_weight=label_ok & ~used,
            empty=none,
        )
    if rule == "relevant":
        empty = npos == 0
        used = ~empty if opts.empty == "skip" else np.ones(n.shape[0], dtype=bool)
        return Eligible(used=used, only_pos=none, only_neg=none, filtered=none, zero_weight=none, empty=empty)
    if rule == "ordered":
        if ordered is None:  # pragma: no cover - the callers pass the label pairs of the rule
            raise ValueError("the 'ordered' rule needs each group's label pairs")
        two, weighted = ordered
        passes = n >= opts.min_size
        label_ok = two & passes
        used = label_ok & weighted
        return Eligible(used=used, only_pos=none, only_neg=~two, filtered=two & ~passes,
                        zero_weight=label_ok & ~used, empty=none)
    if rule == "pooled":  # the calibration metrics: every group adds its row sums
        return Eligible(used=np.ones(n.shape[0], dtype=bool), only_pos=none, only_neg=none, filtered=none,
                        zero_weight=none, empty=none)
    raise ValueError(f"no per-group eligibility for the rule {rule!r}")  # pragma: no cover


def empty_error(name: str, n_empty: int, n_groups: int) -> ValueError:
    """The error of ``empty="error"`` when groups have no relevant row."""
    return ValueError(
        f"{name}: {n_empty:,} of {n_groups:,} groups have no relevant row. "
        "Pass empty='zero' to score them 0 or empty='skip' to leave them out."
    )
