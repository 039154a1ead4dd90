"""The Summary type: what one partition of whole groups reduces to; summaries add up.

Per segment and per (score, metric): ``sum w v`` and ``sum w`` over the used groups, exact
integer coverage counters, and (when asked) hashed bootstrap and sign-flip sums, studentized Gram
sums and clustered-DeLong moments. Never a per-group row. ``a + b`` merges, ``to_bytes`` /
``from_bytes`` carry it between processes.

The segments are stacked: every field is one array whose first axis is the segment (``keys``),
so adding two summaries, summing the table and pickling cost a few array operations whatever
the number of segments (``by=`` with thousands of values). ``summary.segments[key]`` still
gives one segment as a dict of views, for code that reads one segment at a time.
"""

from __future__ import annotations

import pickle
from collections.abc import Callable, Hashable, Iterator, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any, TypedDict, cast

import numpy as np
import pandas as pd

from ..inference.hashing import partition_hash
from ..inference.pvalues import TOP_K, merge_top
from ..inference.signflip_lattice import HIST_K, hist_total, merge_hist
from .plan import _FORMAT, COUNTERS, Plan

__all__ = [
    "FIELDS", "Field", "REPLICATE_FIELDS", "RESULT_FIELDS", "SegmentFields", "Summary", "SummaryData", "empty_summary",
    "field_total", "shard_of",
]

# --------------------------------------------------------------------------- #
# The fields: one definition each (dtype, layout, merge rule, meaning)
# --------------------------------------------------------------------------- #
def _final(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    raise ValueError(
        "a summary whose replicate sums were reduced to intervals cannot be added to another part "
        "of the same segment"
    )


def _top_total(v: np.ndarray) -> np.ndarray:
    """The largest of every segment's largest ``|a|`` (``sf_top`` over the whole table)."""
    k = v.shape[-1]
    pooled = np.moveaxis(v, 0, -2).reshape(*v.shape[1:-1], v.shape[0] * k)
    return merge_top(np.zeros((*pooled.shape[:-1], k)), pooled)


#: (items, replicates, flip pairs, Monte Carlo flips kept): what a field's layout depends on.
Layout = tuple[int, int, int, bool]


@dataclass(frozen=True)
class Field:
    """One field of a segment: its dtype, its shape (None: the plan has no such field), the
    rule that merges two partitions' values (commutative and associative), the rule that totals
    it over segments, and what it holds."""

    name: str
    dtype: Any
    shape: Callable[[Layout], tuple[int, ...] | None]
    doc: str
    fill: float = 0.0
    merge: Callable[[np.ndarray, np.ndarray], np.ndarray] = np.add
    total: Callable[[np.ndarray], np.ndarray] = partial(np.sum, axis=0)
    kind: str = "sum"  # "sum", "replicate" (one value per bootstrap draw), "result" (reduced)

    @property
    def scalar(self) -> bool:
        return self.shape((1, 1, 1, True)) == ()

    def zero(self, layout: Layout) -> Any:
        shape = self.shape(layout)
        if shape is None:
            return None
        if shape == ():
            return self.dtype(self.fill).item()
        return np.full(shape, self.fill, dtype=self.dtype)


def _scalar(_: Layout) -> tuple[int, ...]:
    return ()


def _absent(_: Layout) -> None:
    return None


#: Every field of a segment, in the order of the layout. The merge rule is addition unless given.
FIELDS: tuple[Field, ...] = (
    Field("n_groups", np.int64, _scalar, "groups"),
    Field("n_rows", np.int64, _scalar, "rows"),
    Field("n_pos", np.int64, _scalar, "relevant rows"),
    Field("n_nopos", np.int64, _scalar, "groups with no relevant row"),
    Field("n_graded", np.int64, _scalar, "rows whose label is neither 0 nor 1 (a graded metric's plan only)"),
    Field("sw_pos", np.float64, _scalar, "summed sample weight of the relevant rows"),
    Field("sw_neg", np.float64, _scalar, "summed sample weight of the other rows"),
    Field("counts", np.int64, lambda s: (s[0], len(COUNTERS)), "per item: the COUNTERS of its groups"),
    Field("sums", np.float64, lambda s: (s[0], 2), "per item: sum w v and sum w over the used groups"),
    Field("boot", np.float64, lambda s: (s[1], s[0], 2) if s[1] else None,
          "the sums with every group weighted by its hashed Poisson(1) count, per replicate", kind="replicate"),
    Field("flip_obs", np.float64, lambda s: (s[2],), "per pair: sum w d"),
    Field("flip_abs", np.float64, lambda s: (s[2],), "per pair: sum |w d|"),
    Field("flip_reps", np.float64, lambda s: (s[1], s[2]) if (s[1] and s[2] and s[3]) else None,
          "per replicate and pair: sum w d over the groups whose hashed flip bit is 1 (randomization)",
          kind="replicate"),
    Field("flip_mismatch", np.int64, lambda s: (s[2],), "per pair: groups whose weight or eligibility differs"),
    Field("sf_n", np.int64, lambda s: (s[2],), "per pair: groups with a nonzero a_g = w_g d_g"),
    Field("sf_s", np.float64, lambda s: (s[2], 3), "per pair: [sum a, sum a^2, sum a^4]"),
    Field("sf_top", np.float64, lambda s: (s[2], TOP_K), "per pair: the TOP_K largest |a|",
          merge=merge_top, total=_top_total),
    Field("sf_min", np.float64, lambda s: (s[2],), "per pair: the smallest nonzero |a|", fill=np.inf,
          merge=np.minimum, total=partial(np.min, axis=0)),
    Field("sf_hist", np.float64, lambda s: (s[2], 2, HIST_K),
          "per pair: the distinct nonzero |a| (12 significant digits) and their counts (at most HIST_K; count -1: more)",
          merge=merge_hist, total=hist_total),
    Field("pair_used", np.int64, lambda s: (s[2],), "per pair: groups both models use"),
    Field("delong", np.float64, _absent, "clustered-DeLong moment matrix over the scores, or None"),
    Field("gram", np.float64, _absent, "(targets x q) sums of x x^T (studentized intervals), or None"),
    Field("boot_gram", np.float64, _absent, "(replicates x targets x q) the same per replicate, or None",
          kind="replicate"),
    *(Field(name, np.float64, _absent, doc, merge=_final, kind="result") for name, doc in (
        ("rep_lo", "per target: the interval's low end"), ("rep_hi", "per target: the interval's high end"),
        ("rep_fell", "per target: the studentized interval fell back to percentile"),
        ("rep_pboot", "per pair: the paired bootstrap p-value"), ("rep_prand", "per pair: the randomization p-value"),
        ("rep_llo", "per pair (lift='relaimpr'): the lift's interval, low end"),
        ("rep_lhi", "per pair (lift='relaimpr'): the lift's interval, high end"),
    )),
)
FIELD = {f.name: f for f in FIELDS}

#: Scalar fields per segment and their dtypes (exact integers, or float sums).
_SCALARS = {f.name: f.dtype for f in FIELDS if f.scalar}
#: Fields that hold one replicate sum per bootstrap draw: large, never needed for the whole table.
REPLICATE_FIELDS = tuple(f.name for f in FIELDS if f.kind == "replicate")
#: Fields that hold the final intervals and p-values of a segment, in place of its replicate sums
#: (:func:`pandas_rankeval.summary.replicates.reduce_replicates`): never added to another part.
RESULT_FIELDS = tuple(f.name for f in FIELDS if f.kind == "result")


class SummaryData(TypedDict, total=False):
    """``Summary.data``, typed: each field of :data:`FIELDS` by name, stacked over the segments
    (the first axis is the segment, in the order of ``Summary.keys``).

    Empty when the summary has no segment. A field typed ``... | None`` is None when the plan has
    no such field (no bootstrap, no DeLong moments, ...); the result fields are present only in a
    summary whose replicate sums were reduced. The names, their order and which may be None are
    checked against :data:`FIELDS` (``tests/test_summary.py``): a field is declared once, there,
    with its merge rule, and typed here.
    """

    n_groups: np.ndarray
    n_rows: np.ndarray
    n_pos: np.ndarray
    n_nopos: np.ndarray
    n_graded: np.ndarray
    sw_pos: np.ndarray
    sw_neg: np.ndarray
    counts: np.ndarray
    sums: np.ndarray
    boot: np.ndarray | None
    flip_obs: np.ndarray
    flip_abs: np.ndarray
    flip_reps: np.ndarray | None
    flip_mismatch: np.ndarray
    sf_n: np.ndarray
    sf_s: np.ndarray
    sf_top: np.ndarray
    sf_min: np.ndarray
    sf_hist: np.ndarray
    pair_used: np.ndarray
    delong: np.ndarray | None
    gram: np.ndarray | None
    boot_gram: np.ndarray | None
    rep_lo: np.ndarray | None
    rep_hi: np.ndarray | None
    rep_fell: np.ndarray | None
    rep_pboot: np.ndarray | None
    rep_prand: np.ndarray | None
    rep_llo: np.ndarray | None
    rep_lhi: np.ndarray | None


class SegmentFields(TypedDict, total=False):
    """One segment's fields (``summary.segments[key]``): the scalar fields as Python numbers, the
    others as views of the stacked arrays (see :class:`SummaryData`)."""

    n_groups: int
    n_rows: int
    n_pos: int
    n_nopos: int
    n_graded: int
    sw_pos: float
    sw_neg: float
    counts: np.ndarray
    sums: np.ndarray
    boot: np.ndarray | None
    flip_obs: np.ndarray
    flip_abs: np.ndarray
    flip_reps: np.ndarray | None
    flip_mismatch: np.ndarray
    sf_n: np.ndarray
    sf_s: np.ndarray
    sf_top: np.ndarray
    sf_min: np.ndarray
    sf_hist: np.ndarray
    pair_used: np.ndarray
    delong: np.ndarray | None
    gram: np.ndarray | None
    boot_gram: np.ndarray | None
    rep_lo: np.ndarray | None
    rep_hi: np.ndarray | None
    rep_fell: np.ndarray | None
    rep_pboot: np.ndarray | None
    rep_prand: np.ndarray | None
    rep_llo: np.ndarray | None
    rep_lhi: np.ndarray | None


def as_data(fields: Mapping[str, Any]) -> SummaryData:
    """Fields by name as :class:`SummaryData`; a name :data:`FIELDS` does not declare is an
    internal error (a misspelt field would otherwise travel silently between processes)."""
    unknown = fields.keys() - FIELD.keys()
    if unknown:
        raise ValueError(f"internal error: summary fields {sorted(unknown)} are not declared in FIELDS")
    return cast(SummaryData, dict(fields))


def by_name(data: SummaryData | SegmentFields) -> dict[str, Any]:
    """The fields as a plain mapping, for code that walks every field by its name."""
    return cast(dict[str, Any], data)


# --------------------------------------------------------------------------- #
# One segment (the layout of a segment's fields)
# --------------------------------------------------------------------------- #
def _seg_zero(n_items: int, n_boot: int, n_pairs: int, flips: bool = True) -> dict[str, Any]:
    """A segment's fields at zero (each its :data:`FIELDS` entry's fill), the result fields left out."""
    layout = (n_items, n_boot, n_pairs, flips)
    return {f.name: f.zero(layout) for f in FIELDS if f.kind != "result"}


def _merge_field(name: str, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Two stacked fields (the same segments, in the same order) merged by the field's rule."""
    field = FIELD.get(name)
    return field.merge(a, b) if field is not None else a + b


def field_total(name: str, v: np.ndarray) -> np.ndarray:
    """A stacked field reduced over its segments by the field's rule (the whole table)."""
    field = FIELD.get(name)
    return field.total(v) if field is not None else v.sum(axis=0)


def stack_segments(segments: Mapping[tuple, dict[str, Any]]) -> tuple[list[tuple], dict[str, np.ndarray | None]]:
    """Per-segment dicts (the layout of :func:`_seg_zero`) -> keys and stacked fields."""
    keys = list(segments)
    if not keys:
        return [], {}
    first = segments[keys[0]]
    data: dict[str, np.ndarray | None] = {}
    for name, v in first.items():
        if v is None:
            if any(segments[k][name] is not None for k in keys):
                raise ValueError("these segments were made with different plans; they cannot be stacked")
            data[name] = None
        elif name in _SCALARS:
            data[name] = np.array([segments[k][name] for k in keys], dtype=_SCALARS[name])
        else:
            data[name] = np.stack([np.asarray(segments[k][name]) for k in keys])
    return keys, data


class _Segments(Mapping):
    """``summary.segments``: segment key -> a dict of that segment's fields (views, plain scalars)."""

    __slots__ = ("_s",)

    def __init__(self, summary: Summary) -> None:
        self._s = summary

    def __getitem__(self, key: tuple) -> SegmentFields:
        s = self._s
        i = s.index[key]
        out: dict[str, Any] = {}
        for name, v in by_name(s.data).items():
            if v is None:
                out[name] = None
            elif name in _SCALARS:
                out[name] = v[i].item()
            else:
                out[name] = v[i]
        return cast(SegmentFields, out)

    def __iter__(self) -> Iterator[tuple]:
        return iter(self._s.keys)

    def __len__(self) -> int:
        return len(self._s.keys)

    def __contains__(self, key: object) -> bool:
        return key in self._s.index


class Summary:
    """An additive summary of one or more partitions of whole groups.

    Attributes
    ----------
    keys : list of tuple
        The segment keys (the ``by`` values; ``()`` without ``by``), in the order of the first
        axis of every field.
    data : dict
        Field -> array over the segments, its first axis the segment (or None when the plan has
        no such field). Each field's dtype, layout, merge rule and meaning is its entry of
        :data:`FIELDS` (``n_groups``, ``n_rows``, ``counts``, ``sums``, the bootstrap replicate
        sums ``boot``, the sign-flip sums ``sf_*``, ...).
    segments : Mapping
        Segment key -> dict of its fields (read one segment at a time).
    missing : dict
        Column -> missing values seen (rows), in the order of the plan's columns.
    n_dropped : int
        Rows dropped for missing values.
    dropped_by : dict
        With ``by=``: segment key -> rows of that segment dropped for missing values (segments
        with none left out). Rows whose segment value is itself missing belong to no segment:
        they are ``n_dropped`` minus the sum of these. A segment may be here and not in
        ``keys`` (every row of it dropped). Added key by key, like ``missing``.
    n_rows : int
        Rows evaluated.
    problems : dict
        Bad values counted instead of raised (raised by :func:`finalize` with the whole
        table's counts): ``(kind, where)`` -> count (see
        :class:`pandas_rankeval.core.inputs.validation.InputProblem`). A partition with any is not
        evaluated.
    """

    __slots__ = ("keys", "data", "index", "missing", "n_dropped", "n_rows", "shape", "problems", "dropped_by")

    def __init__(
        self,
        segments: Mapping[tuple, dict[str, Any]] | None,
        missing: dict[Hashable, int],
        n_dropped: int,
        n_rows: int,
        shape: tuple[int, int, int],
        problems: dict[tuple, int] | None = None,
        *,
        keys: list[tuple] | None = None,
        data: Mapping[str, Any] | None = None,
        dropped_by: Mapping[tuple, int] | None = None,
    ) -> None:
        if segments is not None:
            keys, data = stack_segments(segments)
        self.keys: list[tuple] = list(keys or [])
        self.data: SummaryData = as_data(data or {})
        self.index = {k: i for i, k in enumerate(self.keys)}
        self.missing = missing
        self.n_dropped = int(n_dropped)
        self.n_rows = int(n_rows)
        self.shape = shape  # (items, replicates, flip pairs)
        self.problems = dict(problems or {})
        self.dropped_by = {k: int(n) for k, n in (dropped_by or {}).items() if n}

    @property
    def segments(self) -> _Segments:
        return _Segments(self)

    def total(self, name: str) -> Any:
        """A scalar field summed over every segment (a Python int or float)."""
        v = by_name(self.data).get(name)
        if v is None or not len(self.keys):
            return 0.0 if _SCALARS.get(name) is np.float64 else 0
        return v.sum().item()

    def __add__(self, other: Summary) -> Summary:
        if not isinstance(other, Summary):
            return NotImplemented
        if self.shape != other.shape:
            raise ValueError("these summaries were made with different plans; they cannot be added")
        if not other.keys:
            keys, data = self.keys, by_name(self.data)
        elif not self.keys:
            keys, data = other.keys, by_name(other.data)
        else:
            keys, data = _merge(self, other)
        missing = dict(self.missing)
        for c, n in other.missing.items():
            missing[c] = missing.get(c, 0) + int(n)
        problems = dict(self.problems)
        for k, n in other.problems.items():
            problems[k] = problems.get(k, 0) + int(n)
        return Summary(
            None, missing, self.n_dropped + other.n_dropped, self.n_rows + other.n_rows, self.shape, problems,
            keys=keys, data=data, dropped_by=add_counts([self.dropped_by, other.dropped_by]),
        )

    @staticmethod
    def sum(summaries: list[Summary]) -> Summary:
        """Many summaries added at once: their segments' union allocated once, each added in."""
        parts = [s for s in summaries if s.keys]
        first = summaries[0]
        for s in summaries[1:]:
            if s.shape != first.shape:
                raise ValueError("these summaries were made with different plans; they cannot be added")
        missing: dict[Hashable, int] = {}
        problems: dict[tuple, int] = {}
        for s in summaries:
            for c, n in s.missing.items():
                missing[c] = missing.get(c, 0) + int(n)
            for k, n in s.problems.items():
                problems[k] = problems.get(k, 0) + int(n)
        n_dropped = sum(s.n_dropped for s in summaries)
        n_rows = sum(s.n_rows for s in summaries)
        if len(parts) <= 1:
            keys, data = (parts[0].keys, by_name(parts[0].data)) if parts else ([], {})
        else:
            keys, data = _merge_many(parts)
        return Summary(None, missing, n_dropped, n_rows, first.shape, problems, keys=keys, data=data,
                       dropped_by=add_counts([s.dropped_by for s in summaries]))

    def split(self, n: int) -> list[Summary]:
        """``n`` summaries of disjoint segments that add up to this one.

        A segment goes to the part :func:`shard_of` its key, so that every partition sends a
        segment to the same part. The parts are copies: the whole summary is freed once cut. The counts of the whole partition (missing values, rows,
        problems, rows dropped per segment) go with the first part.
        """
        shard = shard_of(self.keys, n)
        out = []
        for j in range(n):
            idx = np.flatnonzero(shard == j)
            keys = [self.keys[i] for i in idx.tolist()]
            data = {k: (None if v is None else v[idx]) for k, v in by_name(self.data).items()}
            if j == 0:
                out.append(Summary(None, self.missing, self.n_dropped, self.n_rows, self.shape, self.problems,
                                   keys=keys, data=data, dropped_by=self.dropped_by))
            else:
                out.append(Summary(None, {}, 0, 0, self.shape, {}, keys=keys, data=data))
        return out

    def __radd__(self, other: Any) -> Summary:
        if isinstance(other, int) and other == 0:  # sum(summaries)
            return self
        return NotImplemented

    def to_bytes(self) -> bytes:
        """The summary as bytes (a binary column in Spark, a message anywhere).

        Pickle of the keys, a few stacked arrays and plain dicts: for transport between the
        processes of one computation, not for untrusted input.
        """
        state = (_FORMAT, self.keys, self.data, self.missing, self.n_dropped, self.n_rows, self.shape, self.problems,
                 self.dropped_by)
        return pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL)

    @classmethod
    def from_bytes(cls, data: bytes) -> Summary:
        fmt, *state = pickle.loads(data)
        if fmt != _FORMAT:
            raise ValueError(f"a Summary written in format {fmt} cannot be read by format {_FORMAT}")
        keys, fields, missing, n_dropped, n_rows, shape, problems, dropped_by = state
        return cls(None, missing, n_dropped, n_rows, tuple(shape), problems, keys=keys, data=fields,
                   dropped_by=dropped_by)

    def __getstate__(self) -> tuple:
        # the arrays as they are: pickle protocol 5 (Dask's transport) sends them without a copy
        return (_FORMAT, self.keys, self.data, self.missing, self.n_dropped, self.n_rows, self.shape, self.problems,
                self.dropped_by)

    def __setstate__(self, state: tuple) -> None:
        fmt, keys, data, missing, n_dropped, n_rows, shape, problems, dropped_by = state
        if fmt != _FORMAT:
            raise ValueError(f"a Summary written in format {fmt} cannot be read by format {_FORMAT}")
        self.keys, self.data = list(keys), as_data(data)
        self.index = {k: i for i, k in enumerate(self.keys)}
        self.missing, self.n_dropped, self.n_rows = missing, int(n_dropped), int(n_rows)
        self.shape, self.problems = tuple(shape), dict(problems)
        self.dropped_by = dict(dropped_by)

    def __repr__(self) -> str:
        return f"Summary({len(self.keys)} segment(s), {self.n_rows:,} rows, {self.total('n_groups'):,} groups)"


def add_counts(parts: list[Mapping[tuple, int]]) -> dict[tuple, int]:
    """Counts per segment key added key by key (``Summary.dropped_by``)."""
    out: dict[tuple, int] = {}
    for part in parts:
        for k, n in part.items():
            out[k] = out.get(k, 0) + int(n)
    return out


def _merge(a: Summary, b: Summary) -> tuple[list[tuple], dict[str, np.ndarray | None]]:
    """The union of two summaries' segments; the fields of a segment in both added."""
    keys = list(a.keys)
    index = dict(a.index)
    where = np.empty(len(b.keys), dtype=np.int64)
    for j, k in enumerate(b.keys):  # one dict lookup per segment of b: the keys' union
        i = index.get(k)
        if i is None:
            i = index[k] = len(keys)
            keys.append(k)
        where[j] = i
    n_a = len(a.keys)
    both = where < n_a  # segments of b that a has too: added; the others: appended in order
    old_b, new_b = np.flatnonzero(both), np.flatnonzero(~both)
    data: dict[str, np.ndarray | None] = {}
    for name, va in by_name(a.data).items():
        vb = by_name(b.data).get(name)
        if va is None or vb is None:
            if (va is None) != (vb is None):
                raise ValueError("these summaries were made with different plans; they cannot be added")
            data[name] = None
            continue
        if va.shape[1:] != vb.shape[1:]:
            raise ValueError("these summaries were made with different plans; they cannot be added")
        dtype = np.result_type(va, vb)
        if not old_b.shape[0]:  # disjoint segments (a partition per segment): one concatenation
            data[name] = np.concatenate([va, vb]).astype(dtype, copy=False)
            continue
        appended = vb[new_b] if new_b.shape[0] < vb.shape[0] else vb
        out = np.concatenate([va.astype(dtype, copy=False), appended.astype(dtype, copy=False)])
        old_idx = where[old_b]
        if old_b.shape[0] == n_a and (old_idx == np.arange(n_a)).all() and old_b[-1] == n_a - 1:
            out[:n_a] = _merge_field(name, out[:n_a], vb[:n_a])  # b starts with a's segments: slices
        else:
            out[old_idx] = _merge_field(name, out[old_idx], vb[old_b])  # each segment of b once
        data[name] = out
    return keys, data


def _merge_many(parts: list[Summary]) -> tuple[list[tuple], dict[str, np.ndarray | None]]:
    """The union of many summaries' segments, each field allocated once and every part added in."""
    index: dict[tuple, int] = {}
    keys: list[tuple] = []
    wheres = []
    known = []  # per part: how many union keys came before it (its keys at or above are new)
    for p in parts:  # one dict lookup per segment of each part: the keys' union
        known.append(len(keys))
        w = np.empty(len(p.keys), dtype=np.int64)
        for j, k in enumerate(p.keys):
            i = index.get(k)
            if i is None:
                i = index[k] = len(keys)
                keys.append(k)
            w[j] = i
        wheres.append(w)
    disjoint = len(keys) == sum(len(p.keys) for p in parts)  # a partition per segment: concatenations
    data: dict[str, np.ndarray | None] = {}
    for name, v0 in by_name(parts[0].data).items():
        vs = [by_name(p.data).get(name) for p in parts]
        if any(v is None for v in vs):
            if not all(v is None for v in vs):
                raise ValueError("these summaries were made with different plans; they cannot be added")
            data[name] = None
            continue
        if any(v.shape[1:] != v0.shape[1:] for v in vs):  # type: ignore[union-attr]
            raise ValueError("these summaries were made with different plans; they cannot be added")
        if disjoint:  # the union is the parts one after the other, in the order of ``keys``
            data[name] = np.concatenate(vs).astype(np.result_type(*vs), copy=False)  # type: ignore[arg-type]
            continue
        out = np.empty((len(keys), *v0.shape[1:]), dtype=np.result_type(*vs))  # type: ignore[union-attr]  # stubs narrower than runtime
        for w, v, k in zip(wheres, vs, known):  # type: ignore[assignment]  # stubs narrower than runtime
            new = w >= k  # first seen in this part: written; seen before: merged in
            out[w[new]] = v[new]  # type: ignore[index]
            if not new.all():  # each segment of a part once: no repeated index
                out[w[~new]] = _merge_field(name, out[w[~new]], v[~new])  # type: ignore[index]
        data[name] = out
    return keys, data


def shard_of(keys: list[tuple], n: int) -> np.ndarray:
    """The part (of ``n``) of every segment key: a stable hash of the key's values, the same in
    every process and for equal keys of different types (``1``, ``1.0``: one segment)."""
    if n <= 1 or not keys:
        return np.zeros(len(keys), dtype=np.int64)
    width = len(keys[0])
    if not width:
        return np.zeros(len(keys), dtype=np.int64)
    frame = pd.DataFrame({i: pd.Series([k[i] for k in keys], dtype=object) for i in range(width)})
    return (partition_hash(frame) % np.uint64(n)).astype(np.int64)


def _shape(plan: Plan) -> tuple[int, int, int]:
    return (len(plan.items), plan.n_replicates, len(plan.flip_pairs))


def empty_summary(plan: Plan) -> Summary:
    """The summary of a partition with no rows (the identity of ``+``)."""
    return Summary(None, {}, 0, 0, _shape(plan))


def _plain(v: Any) -> Any:
    return v.item() if isinstance(v, np.generic) else v
