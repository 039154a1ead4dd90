"""The Summary type: what one partition of whole groups reduces to; summaries add up.

Per segment and per (score, metric): ``sum w v`` and ``sum w`` over the used groups, exact
integer coverage counters, and (when asked) hashed bootstrap and sign-flip sums, studentized Gram
sums and clustered-DeLong moments. Never a per-group row. ``a + b`` merges, ``to_bytes`` /
``from_bytes`` carry it between processes.
"""

from __future__ import annotations

import pickle
from collections.abc import Hashable
from typing import Any

import numpy as np

from ..inference.pvalues import TOP_K, merge_top
from .plan import _FORMAT, COUNTERS, Plan

__all__ = ["Summary", "empty_summary"]


# --------------------------------------------------------------------------- #
# The summary
# --------------------------------------------------------------------------- #
def _seg_zero(n_items: int, n_boot: int, n_pairs: int, flips: bool = True) -> dict[str, Any]:
    return {
        "n_groups": 0,
        "n_rows": 0,
        "n_pos": 0,
        "n_nopos": 0,
        "sw_pos": 0.0,
        "sw_neg": 0.0,
        "counts": np.zeros((n_items, len(COUNTERS)), dtype=np.int64),
        "sums": np.zeros((n_items, 2)),
        "boot": np.zeros((n_boot, n_items, 2)) if n_boot else None,
        "flip_obs": np.zeros(n_pairs),
        "flip_abs": np.zeros(n_pairs),
        "flip_reps": np.zeros((n_boot, n_pairs)) if (n_boot and n_pairs and flips) else None,
        "flip_mismatch": np.zeros(n_pairs, dtype=np.int64),
        # sign-flip sums of a_g = w_g d_g per pair: groups with a_g != 0, [sum a, sum a^2, sum a^4],
        # the TOP_K largest |a| (merged by merge_top) and the smallest nonzero |a| (merged by min)
        "sf_n": np.zeros(n_pairs, dtype=np.int64),
        "sf_s": np.zeros((n_pairs, 3)),
        "sf_top": np.zeros((n_pairs, TOP_K)),
        "sf_min": np.full(n_pairs, np.inf),
        "pair_used": np.zeros(n_pairs, dtype=np.int64),
        "delong": None,  # clustered-DeLong moment matrix over the scores, or None
        "gram": None,  # (targets x q) sums of x x^T (studentized intervals), or None
        "boot_gram": None,  # (n_boot x targets x q), or None
    }


#: Fields that merge otherwise than by addition (still commutative and associative).
_MERGE = {"sf_top": merge_top, "sf_min": np.minimum}


def _seg_add(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, va in a.items():
        vb = b[k]
        if va is None or vb is None:
            if (va is None) != (vb is None):
                raise ValueError("these summaries were made with different plans; they cannot be added")
            out[k] = None
        elif isinstance(va, np.ndarray):
            if va.shape != vb.shape:
                raise ValueError("these summaries were made with different plans; they cannot be added")
            out[k] = _MERGE[k](va, vb) if k in _MERGE else va + vb
        elif isinstance(va, float) or isinstance(vb, float):
            out[k] = float(va) + float(vb)
        else:
            out[k] = int(va) + int(vb)
    return out


class Summary:
    """An additive summary of one or more partitions of whole groups.

    Attributes
    ----------
    segments : dict
        Segment key (a tuple of the ``by`` values, ``()`` without ``by``) -> a dict of
        ``n_groups``, ``n_rows``, ``n_pos`` (relevant rows), ``n_nopos`` (groups with
        no relevant row), ``counts`` (items x :data:`COUNTERS`, int64), ``sums``
        (items x 2: ``sum w v``, ``sum w`` over used groups), ``boot`` (replicates x
        items x 2, the same sums with every group weighted by its hashed Poisson(1)
        count, or None), ``flip_obs``, ``flip_abs`` (pairs: ``sum w d``, ``sum |w d|``),
        ``flip_reps`` (replicates x pairs: ``sum b w d`` over groups whose hashed flip
        bit ``b`` is 1, or None; ``method="randomization"`` only), ``flip_mismatch`` (pairs:
        groups whose weight or eligibility differs between the model and the baseline), and
        the sign-flip sums of :mod:`pandas_rankeval.inference.pvalues` per pair: ``sf_n``
        (groups with a nonzero difference), ``sf_s`` (``[sum a, sum a^2, sum a^4]`` of
        ``a_g = w_g d_g``), ``sf_top`` (the largest ``|a_g|``, merged by keeping the largest)
        and ``sf_min`` (the smallest nonzero ``|a_g|``, merged by ``min``).
    missing : dict
        Column -> missing values seen (rows), in the order of the plan's columns.
    n_dropped : int
        Rows dropped for missing values.
    n_rows : int
        Rows evaluated.
    problems : dict
        Bad values counted instead of raised (raised by :func:`finalize` with the whole
        table's counts): ``("infinite_label", column)``, ``("bad_weight", column)``,
        ``("negative_label", column)`` -> rows. A partition with any is not evaluated.
    """

    __slots__ = ("segments", "missing", "n_dropped", "n_rows", "shape", "problems")

    def __init__(
        self,
        segments: dict[tuple, dict[str, Any]],
        missing: dict[Hashable, int],
        n_dropped: int,
        n_rows: int,
        shape: tuple[int, int, int],
        problems: dict[tuple, int] | None = None,
    ) -> None:
        self.segments = segments
        self.missing = missing
        self.n_dropped = int(n_dropped)
        self.n_rows = int(n_rows)
        self.shape = shape  # (items, replicates, flip pairs)
        self.problems = dict(problems or {})

    def __add__(self, other: Summary) -> Summary:
        if not isinstance(other, Summary):
            return NotImplemented
        if self.shape != other.shape:
            raise ValueError("these summaries were made with different plans; they cannot be added")
        segs = dict(self.segments)
        for key, seg in other.segments.items():
            segs[key] = _seg_add(segs[key], seg) if key in segs else seg
        missing = dict(self.missing)
        for c, n in other.missing.items():
            missing[c] = missing.get(c, 0) + int(n)
        problems = dict(self.problems)
        for k, n in other.problems.items():
            problems[k] = problems.get(k, 0) + int(n)
        return Summary(
            segs, missing, self.n_dropped + other.n_dropped, self.n_rows + other.n_rows, self.shape, problems
        )

    def __radd__(self, other: Any) -> Summary:
        if isinstance(other, int) and other == 0:  # sum(summaries)
            return self
        return NotImplemented

    def to_bytes(self) -> bytes:
        """The summary as bytes (a binary column in Spark, a message anywhere).

        Pickle of plain dicts, numpy arrays and the segment keys: for transport between
        the processes of one computation, not for untrusted input.
        """
        state = (_FORMAT, self.segments, self.missing, self.n_dropped, self.n_rows, self.shape, self.problems)
        return pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL)

    @classmethod
    def from_bytes(cls, data: bytes) -> Summary:
        fmt, segments, missing, n_dropped, n_rows, shape, problems = pickle.loads(data)
        if fmt != _FORMAT:
            raise ValueError(f"a Summary written in format {fmt} cannot be read by format {_FORMAT}")
        return cls(segments, missing, n_dropped, n_rows, tuple(shape), problems)

    def __reduce__(self) -> Any:
        return (Summary.from_bytes, (self.to_bytes(),))

    def __repr__(self) -> str:
        return (
            f"Summary({len(self.segments)} segment(s), {self.n_rows:,} rows, "
            f"{sum(s['n_groups'] for s in self.segments.values()):,} groups)"
        )


def _shape(plan: Plan) -> tuple[int, int, int]:
    return (len(plan.items), plan.n_replicates, len(plan.flip_pairs))


def empty_summary(plan: Plan) -> Summary:
    """The summary of a partition with no rows (the identity of ``+``)."""
    return Summary({}, {}, 0, 0, _shape(plan))


def _plain(v: Any) -> Any:
    return v.item() if isinstance(v, np.generic) else v
