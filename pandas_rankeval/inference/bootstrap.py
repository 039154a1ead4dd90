"""Bootstrap confidence intervals and paired tests, resampling groups.

Every group metric is a ratio of two sums over groups, ``sum_g w_g v_g / sum_g w_g``
over the used groups, so a bootstrap replicate that draws groups with replacement
is a *reweighting* of the groups by their multinomial counts ``c_g``:
``sum_g c_g w_g v_g / sum_g c_g w_g``. A chunk of replicates is then one count
matrix (replicates x groups) times one matrix of per-group numerators and
denominators: no loop over groups and no ranking recomputed per replicate.

Global AUC is not a sum over groups, but a replicate of it is still exact and
linear in the data: every row of group ``g`` weighs ``c_g``, and the weighted
Mann-Whitney statistic is read from the score sort that the evaluation already
made. Rows are cut into tie blocks of that sort; for the blocks that hold a
relevant row, sparse (block x group) count matrices give the weighted relevant
rows of each such block and the weighted non-relevant rows below it and tied
with it, so a replicate costs one sparse-dense product over the rows.

The same resampled groups serve every score column and every metric of a
replicate, so intervals are paired and differences of models are bootstrapped
with their correlation. With segments (``by``) groups are resampled within each
segment (a stratified bootstrap): each replicate keeps every segment's number of
groups. Random streams are spawned per segment from the seed, so a seed gives
the same intervals however the replicates are chunked.
"""

from __future__ import annotations

import numbers
from collections.abc import Hashable, Iterator, Sequence
from typing import Any

import numpy as np
import pandas as pd

from pandas_rankeval.core.evaluation.records import Evaluation, GroupValues
from pandas_rankeval.core.progress import Progress as _Progress
from pandas_rankeval.core.inputs.validation import internal_error, invalid_parameter
from pandas_rankeval.inference.pvalues import holm  # noqa: F401  (one Holm, re-exported: bootstrap's public name)
from pandas_rankeval.inference.pvalues import zero_difference

__all__ = [
    "CHUNK_ELEMENTS",
    "Stratum",
    "boot_rngs",
    "count_chunks",
    "flip_chunks",
    "flip_rngs",
    "groups_by_segment",
    "holm",
    "percentile_interval",
    "replicates",
    "resample_counts",
    "sign_flip_pvalues",
    "strata_of",
    "stratum_rng",
]

#: Elements of one chunk of the (replicates x groups) count matrix.
CHUNK_ELEMENTS = 1 << 21


# --------------------------------------------------------------------------- #
# Parameters
# --------------------------------------------------------------------------- #
def check_n_boot(n_boot: Any, func: str) -> int:
    if isinstance(n_boot, (bool, np.bool_)) or not isinstance(n_boot, numbers.Integral) or n_boot < 1:
        raise invalid_parameter("n_boot", func, "an int in the range [1, inf)", n_boot)
    return int(n_boot)


def check_level(value: Any, param: str, func: str) -> float:
    """A probability strictly between 0 and 1 (``ci``, ``alpha``)."""
    if (
        isinstance(value, (bool, np.bool_))
        or not isinstance(value, numbers.Real)
        or not (0.0 < float(value) < 1.0)
    ):
        percent = (not isinstance(value, (bool, np.bool_)) and isinstance(value, numbers.Real)
                   and float(value) in range(1, 100))  # a level written in percent (95, 5)
        hint = f"Did you mean {param}={float(value) / 100:g}?" if percent else ""
        raise invalid_parameter(param, func, "a float in the range (0, 1)", value, hint)
    return float(value)


# --------------------------------------------------------------------------- #
# Random streams
# --------------------------------------------------------------------------- #
def _root_streams(seed: Any) -> list[np.random.Generator]:
    # [bootstrap, sign flips]: report(ci=..., seed=s) and compare(seed=s) share the
    # bootstrap replicates, so their intervals agree.
    return np.random.default_rng(seed).spawn(2)


def boot_rngs(seed: Any, n_strata: int) -> list[np.random.Generator]:
    """One bootstrap stream per stratum (segment), derived from ``seed``."""
    return _root_streams(seed)[0].spawn(n_strata)


def flip_rngs(seed: Any, n_strata: int) -> list[np.random.Generator]:
    """One sign-flip stream per stratum, independent of the bootstrap streams."""
    return _root_streams(seed)[1].spawn(n_strata)


def stratum_rng(parent: np.random.Generator, i: int) -> np.random.Generator:
    """Child ``i`` of ``parent.spawn(n)`` for a parent that has spawned nothing yet, made without
    spawning: the same child every time it is asked for (the group sums and the replicates of
    global AUC draw the same counts from it).

    Examples
    --------
    >>> import numpy as np
    >>> a = stratum_rng(np.random.default_rng(3).spawn(2)[0], 1).integers(0, 100, 3)
    >>> b = boot_rngs(3, 2)[1].integers(0, 100, 3)
    >>> bool((a == b).all())
    True
    """
    ss = parent.bit_generator.seed_seq
    child = np.random.SeedSequence(ss.entropy, spawn_key=(*ss.spawn_key, i), pool_size=ss.pool_size)  # type: ignore[attr-defined]  # stubs narrower than runtime
    return np.random.Generator(type(parent.bit_generator)(child))


def count_chunks(rng: np.random.Generator, n: int, n_boot: int, chunk: int) -> Iterator[tuple[int, np.ndarray]]:
    """``(first replicate, counts)`` for ``n_boot`` multinomial replicates of ``n`` groups, ``chunk``
    replicates at a time (one reused buffer; the counts do not depend on ``chunk``)."""
    buf = np.empty((min(chunk, n_boot), n))
    lo = 0
    for b in _chunks(n_boot, chunk):
        yield lo, resample_counts(rng, n, b, out=buf)
        lo += b


def flip_chunks(rng: np.random.Generator, n: int, n_flips: int) -> Iterator[tuple[int, np.ndarray]]:
    """``(first flip, bits)`` for ``n_flips`` random sign patterns of ``n`` groups (a 1 flips the
    group), in chunks of rows of one reused float buffer; the bits do not depend on the chunks."""
    n_bytes = (n + 7) // 8
    chunk = max(1, min(n_flips, CHUNK_ELEMENTS // max(n, 1)))
    buf = np.empty((chunk, n))
    lo = 0
    for b in _chunks(n_flips, chunk):
        raw = rng.integers(0, 256, size=(b, n_bytes), dtype=np.uint8)
        bits = buf[:b]
        bits[...] = np.unpackbits(raw, axis=1, count=n)
        yield lo, bits
        lo += b


def resample_counts(
    rng: np.random.Generator, n: int, size: int, out: np.ndarray | None = None
) -> np.ndarray:
    """``size`` multinomial draws of ``n`` items out of ``n`` with equal probabilities.

    Returns a float64 matrix (size x n) of counts, written into ``out[:size]`` when
    given (reusing one buffer avoids page faults on every chunk); each row sums to
    ``n``. Drawing the same total number of rows in several calls gives the same
    counts as one call.
    """
    counts = np.empty((size, n)) if out is None else out[:size]
    dtype = np.int32 if n < 2**31 - CHUNK_ELEMENTS else np.int64
    if n >= 2048:
        # one replicate at a time: its draws and counts stay in cache
        for r in range(size):
            counts[r] = np.bincount(rng.integers(0, n, size=n, dtype=dtype), minlength=n)
        return counts
    idx = rng.integers(0, n, size=(size, n), dtype=dtype)
    if size > 1:
        idx += (np.arange(size, dtype=np.int64) * n).astype(dtype)[:, None]
    counts[...] = np.bincount(idx.reshape(-1), minlength=size * n).reshape(size, n)
    return counts


def _chunks(total: int, size: int) -> Iterator[int]:
    done = 0
    while done < total:
        step = min(size, total - done)
        yield step
        done += step


# --------------------------------------------------------------------------- #
# Global AUC as a function of group counts
# --------------------------------------------------------------------------- #
class AucDesign:
    """Weighted Mann-Whitney U of one score column over the rows of some groups.

    With ``c`` a vector of group weights (bootstrap counts), every row of group g
    weighs ``c[g]`` (times its sample weight, if any) and

        U(c) = sum_k Pos_k(c) * (Below_k(c) + Tied_k(c) / 2)

    over the tie blocks k that hold a relevant row, where Pos_k is the weighted
    relevant rows of block k, Below_k the weighted non-relevant rows of the blocks
    ranked below it, Tied_k those in block k itself (a tied pair counts 1/2; under
    pessimistic/optimistic ties the sort already separated the labels, so no block
    mixes them). Pos, Below and Tied are linear in ``c``: sparse count matrices
    (block x group) times ``c``. AUC(c) = U / (W_pos W_neg).
    """

    def __init__(
        self,
        order: np.ndarray,
        rank: np.ndarray,
        rel: np.ndarray,
        row_group: np.ndarray,
        n_groups: int,
        sample_weight: np.ndarray | None = None,
    ) -> None:
        from scipy import sparse

        g_sorted = row_group[order]
        keep = g_sorted >= 0
        o = order[keep]
        g = g_sorted[keep]
        r = rank[keep]
        rel_o = rel[o]
        w = np.ones(o.shape[0]) if sample_weight is None else sample_weight[o].astype(np.float64)
        block = np.zeros(o.shape[0], dtype=np.int64)
        if o.shape[0] > 1:
            np.cumsum(r[1:] != r[:-1], out=block[1:])
        pos_blocks = np.unique(block[rel_o])
        m = pos_blocks.shape[0]
        self.m = m
        # relevant rows: their block's index among the blocks with a relevant row
        k_pos = np.searchsorted(pos_blocks, block[rel_o])
        a_pos = sparse.csr_matrix((w[rel_o], (k_pos, g[rel_o])), shape=(m, n_groups))
        # non-relevant rows: segment 2k before relevant block k, 2k+1 inside it;
        # rows above the last relevant block beat no relevant row and are left out
        neg = ~rel_o
        b_neg = block[neg]
        k = np.searchsorted(pos_blocks, b_neg)
        inside = np.zeros(k.shape[0], dtype=bool)
        ok = k < m
        inside[ok] = pos_blocks[k[ok]] == b_neg[ok]
        seg = 2 * k + inside
        below_top = seg < 2 * m
        a_neg = sparse.csr_matrix(
            (w[neg][below_top], (seg[below_top], g[neg][below_top])), shape=(2 * m, n_groups)
        )
        # one product per chunk: rows 0..2m-1 the segments, 2m..3m-1 the relevant blocks
        self.a = sparse.vstack([a_neg, a_pos], format="csr")
        # W_pos, W_neg: per-group sums, a (groups x 2) matrix for a dense product
        self.w = np.column_stack([
            np.bincount(g[rel_o], weights=w[rel_o], minlength=n_groups),
            np.bincount(g[neg], weights=w[neg], minlength=n_groups),
        ])

    @property
    def rows(self) -> int:
        """Rows of the per-chunk work arrays (for chunk sizing)."""
        return 3 * self.m + 1

    def replicates(self, counts: np.ndarray, ct: np.ndarray) -> np.ndarray:
        """AUC for every row of ``counts`` (replicates x groups); ``ct`` is its transpose."""
        b = counts.shape[0]
        m = self.m
        if m:
            # (b, 3m), each replicate contiguous: a row-wise cumsum is several times faster
            sums = np.ascontiguousarray((self.a @ ct).T)
            cum = np.cumsum(sums[:, : 2 * m], axis=1)
            # Below_k + Tied_k / 2 = (cum[2k] + cum[2k + 1]) / 2
            mid = cum[:, 0::2]
            mid += cum[:, 1::2]
            u = 0.5 * np.einsum("bk,bk->b", sums[:, 2 * m :], mid)
        else:
            u = np.zeros(b)
        wp, wn = (counts @ self.w).T
        with np.errstate(invalid="ignore", divide="ignore"):
            out = u / (wp * wn)
        out[(wp <= 0) | (wn <= 0)] = np.nan
        return out


# --------------------------------------------------------------------------- #
# Strata and their replicate statistics
# --------------------------------------------------------------------------- #
class Stratum:
    """The groups of one segment (or all groups) and every (score, metric) to bootstrap.

    ``items`` lists (score, metric name) pairs; :meth:`values` maps a count matrix
    (replicates x groups of the stratum) to a matrix (replicates x items).
    """

    def __init__(
        self,
        ev: Evaluation,
        items: Sequence[tuple[Hashable, str]],
        groups: np.ndarray,
        row_group: np.ndarray | None,
    ) -> None:
        self.groups = groups
        self.n = int(groups.shape[0])
        self.items = list(items)
        lin: list[int] = []
        num: list[np.ndarray] = []
        den: list[np.ndarray] = []
        self.auc: list[tuple[int, AucDesign]] = []
        designs: dict[Hashable, AucDesign] = {}
        for j, (score, name) in enumerate(self.items):
            gv: GroupValues = ev.scores[score].metrics[name]
            if not gv.spec.info.grouped:
                if score not in designs:
                    designs[score] = self._auc_design(ev, score, row_group)
                self.auc.append((j, designs[score]))
                continue
            used = gv.used[groups]
            w = np.where(used, gv.weights[groups], 0.0)
            v = np.where(used, gv.values[groups], 0.0)
            lin.append(j)
            num.append(w * v)
            den.append(w)
        self.lin = np.array(lin, dtype=np.int64)
        # distinct columns only (models share the weights of a metric, metrics often too)
        cols: list[np.ndarray] = []
        where: list[int] = []
        for c in num + den:
            for i, u in enumerate(cols):
                if np.array_equal(u, c):
                    where.append(i)
                    break
            else:
                where.append(len(cols))
                cols.append(c)
        self.design = np.column_stack(cols) if cols else np.zeros((self.n, 0))  # (groups, distinct)
        self.where = np.array(where, dtype=np.int64)  # numerators then denominators

    def _auc_design(self, ev: Evaluation, score: Hashable, row_group: np.ndarray | None) -> AucDesign:
        se = ev.scores[score]
        if se.order is None or se.rank is None:  # pragma: no cover - report asks keep_order
            raise RuntimeError("the bootstrap of global AUC needs evaluate(..., keep_order=True)")
        if row_group is None:
            raise internal_error("the AUC bootstrap needs the group of every row")
        local = np.full(_group_codes(ev).shape[0], -1, dtype=np.int64)
        local[self.groups] = np.arange(self.n)
        opts = ev.options
        sw = ev.prepared.extra.get(opts.sample_weight) if opts.sample_weight is not None else None
        return AucDesign(se.order, se.rank, ev.labels.rel, local[row_group], self.n, sw)

    @property
    def work_rows(self) -> int:
        return max([self.n, *(d.rows for _, d in self.auc)])

    def chunk_size(self, n_boot: int) -> int:
        return max(1, min(n_boot, CHUNK_ELEMENTS // max(self.work_rows, 1)))

    def values(self, counts: np.ndarray) -> np.ndarray:
        """Statistics (replicates x items) for a count matrix (replicates x groups)."""
        b = counts.shape[0]
        out = np.empty((b, len(self.items)))
        L = self.lin.size
        if L:
            sums = (counts @ self.design)[:, self.where]
            nums, dens = sums[:, :L], sums[:, L:]
            with np.errstate(invalid="ignore", divide="ignore"):
                ratio = nums / dens
            ratio[dens <= 0] = np.nan
            out[:, self.lin] = ratio
        if self.auc:
            ct = np.ascontiguousarray(counts.T)
            done: dict[int, np.ndarray] = {}
            for j, design in self.auc:
                key = id(design)
                if key not in done:
                    done[key] = design.replicates(counts, ct)
                out[:, j] = done[key]
        return out

    def point(self) -> np.ndarray:
        """The statistics with every group counted once (the point estimates)."""
        return self.values(np.ones((1, self.n)))[0]


def _groups(ev: Evaluation) -> Any:
    groups = ev.prepared.groups
    if groups is None and hasattr(ev.prepared, "encode_groups"):
        groups = ev.prepared.encode_groups()  # deferred when only global AUC was asked for
    if groups is None:  # pragma: no cover - report and compare always pass group=
        raise ValueError("the bootstrap resamples groups; pass group=")
    return groups


def row_groups(ev: Evaluation) -> np.ndarray:
    """The index (into every per-group array) of each row's group."""
    present = _group_codes(ev)
    codes = np.asarray(_groups(ev).codes)
    n = present.shape[0]
    if n and present[0] == 0 and present[-1] == n - 1:  # sorted distinct 0 .. n-1: the codes themselves
        return codes.astype(np.int64, copy=False)
    if n and int(present[-1]) < 4 * codes.shape[0] + 1024:  # codes of a moderate range: a lookup table
        lut = np.zeros(int(present[-1]) + 1, dtype=np.int64)
        lut[present] = np.arange(n)
        return lut[codes]
    return pd.Index(present).get_indexer(codes).astype(np.int64, copy=False)  # a hash lookup: 6x a binary search at 1e6 rows


def _group_codes(ev: Evaluation) -> np.ndarray:
    """The codes of the groups present, ascending: the order of every per-group array."""
    return np.asarray(ev.group_stats["code"])


def strata_of(
    ev: Evaluation, items: Sequence[tuple[Hashable, str]], by_cols: list[Hashable], func: str
) -> tuple[list[Stratum], np.ndarray | None]:
    """One stratum per segment present (ascending segment code), or one of all groups.

    Returns the strata and the segment codes present (None without ``by``).
    """
    n_groups = _group_codes(ev).shape[0]
    need_rows = any(not ev.scores[s].metrics[n].spec.info.grouped for s, n in items)
    rg = row_groups(ev) if need_rows else None
    if not by_cols:
        return [Stratum(ev, items, np.arange(n_groups), rg)], None
    present, members = groups_by_segment(ev, by_cols, func)
    return [Stratum(ev, items, gi, rg) for gi in members], present


def groups_by_segment(
    ev: Evaluation, by_cols: list[Hashable], func: str
) -> tuple[np.ndarray, list[np.ndarray]]:
    """The segment codes present (ascending) and, for each, the indices of its groups."""
    from pandas_rankeval.core.evaluation.records import segment_of_groups

    seg = segment_of_groups(ev, by_cols, func)
    present = np.unique(seg)
    by_seg = np.argsort(seg, kind="stable")
    cuts = np.searchsorted(seg[by_seg], present[1:])
    return present, np.split(by_seg, cuts)


def replicates(
    strata: Sequence[Stratum],
    *,
    n_boot: int,
    seed: Any,
    progress: _Progress | None = None,
) -> list[np.ndarray]:
    """Bootstrap statistics, one (n_boot x items) matrix per stratum."""
    rngs = boot_rngs(seed, len(strata))
    out = []
    for stratum, rng in zip(strata, rngs):
        parts = []
        for _, counts in count_chunks(rng, stratum.n, n_boot, stratum.chunk_size(n_boot)):
            parts.append(stratum.values(counts))
            if progress is not None:
                progress.update(counts.shape[0])
        out.append(np.concatenate(parts, axis=0))
    return out


def nan_quantiles(a: np.ndarray, qs: Sequence[float]) -> np.ndarray:
    """``np.nanquantile(a, qs, axis=0)`` (linear interpolation), vectorized over the columns.

    numpy computes a column with a NaN on its own, in a Python loop over the columns; here one
    sort puts the NaNs last and every column interpolates between its order statistics at once,
    with numpy's formulas (the same numbers). An all-NaN column gives NaN.
    """
    a = np.asarray(a, dtype=np.float64)
    # sorted along the last axis of a view with the replicates last: each column's values are
    # then read together (sorting along axis 0 jumps a whole row between values: 5x slower)
    s = np.sort(np.moveaxis(a, 0, -1), axis=-1)  # NaN last
    n = np.count_nonzero(~np.isnan(a), axis=0)
    out = np.full((len(qs), *a.shape[1:]), np.nan)
    if not a.shape[0]:  # no replicate: every quantile is undefined
        return out
    last = np.maximum(n - 1, 0)
    with np.errstate(invalid="ignore"):
        for i, q in enumerate(qs):
            virtual = (n - 1) * np.float64(q)
            prev = np.clip(np.floor(virtual), 0, None).astype(np.int64)
            prev = np.minimum(prev, last)
            nxt = np.minimum(prev + 1, last)
            gamma = virtual - np.floor(virtual)
            lo = np.take_along_axis(s, prev[..., None], axis=-1)[..., 0]
            hi = np.take_along_axis(s, nxt[..., None], axis=-1)[..., 0]
            diff = hi - lo
            val = np.where(gamma >= 0.5, hi - diff * (1 - gamma), lo + diff * gamma)
            out[i] = np.where(n > 0, val, np.nan)
    return out


def percentile_interval(
    reps: np.ndarray, ci: float, bounds: tuple[Any, Any] | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Percentile interval per column of ``reps``, ignoring undefined (NaN) replicates.

    ``bounds``: the statistic's range (``(0, 1)`` for a metric, ``(-1, 1)`` for a difference of
    two), to which the interval is clipped: a replicate's ratio of sums of ones can round to
    1.0000000000000002.

    >>> lo, hi = percentile_interval(np.array([[1.0000000000000002], [1.0000000000000002]]), 0.9, bounds=(0.0, 1.0))
    >>> float(hi[0])
    1.0
    """
    lo, hi = nan_quantiles(reps, [(1.0 - ci) / 2.0, (1.0 + ci) / 2.0])
    if bounds is not None:
        lo, hi = np.clip(lo, *bounds), np.clip(hi, *bounds)
    return lo, hi


# --------------------------------------------------------------------------- #
# Tests
# --------------------------------------------------------------------------- #
def sign_flip_pvalues(
    wd: np.ndarray,
    rng: np.random.Generator,
    n_flips: int,
    progress: _Progress | None = None,
) -> np.ndarray:
    """Two-sided randomization p-values of ``T = sum_g wd[g, j]`` under random sign flips.

    ``wd`` is (groups x tests): each group's weighted difference. Every flip draws
    one sign per group, shared by all tests. p = (1 + #{|T*| >= |T|}) / (1 + n_flips).
    """
    n, k = wd.shape
    t = np.abs(wd.sum(axis=0))
    total = wd.sum(axis=0)
    tol = 1e-10 * np.abs(wd).sum(axis=0)
    hits = np.zeros(k, dtype=np.int64)
    if n == 0:
        return np.ones(k)
    for _, bits in flip_chunks(rng, n, n_flips):
        # a flipped group (bit 1) contributes -wd: T* = T - 2 * bits @ wd
        t_star = total - 2.0 * (bits @ wd)
        hits += (np.abs(t_star) >= t - tol).sum(axis=0)
        if progress is not None:
            progress.update(bits.shape[0])
    return (1.0 + hits) / (1.0 + n_flips)


def bootstrap_pvalues(
    diff: np.ndarray, diff_reps: np.ndarray, value: Any = 0.0, baseline_value: Any = 0.0
) -> np.ndarray:
    """Two-sided paired-bootstrap p-values: p = (1 + #{|D* - D| >= |D|}) / (1 + B).

    A difference ``D`` that is zero up to float rounding (:func:`~.pvalues.zero_difference`
    of ``D``, ``value`` and ``baseline_value``: the rule the sign-flip test applies to each
    group) has ``p = 1``, whatever the replicates' rounding noise.

    >>> reps = np.array([[3e-16], [-1e-16], [2e-16], [0.0]])
    >>> bootstrap_pvalues(np.array([-2.2e-16]), reps, [1.0 - 2.2e-16], [1.0]).tolist()
    [1.0]
    """
    ok = np.isfinite(diff_reps)
    scale = np.abs(diff)
    tol = 1e-12 * np.maximum(scale, 1e-300)
    with np.errstate(invalid="ignore"):
        hits = (np.abs(diff_reps - diff) >= scale - tol) & ok
    n = ok.sum(axis=0)
    p = (1.0 + hits.sum(axis=0)) / (1.0 + n)
    p = np.where(zero_difference(diff, value, baseline_value) & np.isfinite(diff), 1.0, p)
    return np.where(np.isfinite(diff) & (n > 0), p, np.nan)


