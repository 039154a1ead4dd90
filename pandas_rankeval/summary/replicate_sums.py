"""Stage 4 of the pipeline, the replicate sums of one partition: bootstrap and sign-flip replicates.

Per segment, the (replicates x columns) sums of each group's weight and weight-times-value
columns under the bootstrap's counts, and the (replicates x pairs) sums of the paired
differences under random sign flips (``method="randomization"``). ``resample="poisson"``
draws both from the hashed group keys (:func:`_hashed_sums`: any partitioning gives the same
sums); ``"multinomial"`` (one partition) from the plan's streams (:func:`_stream_sums`).
:func:`~.partition.summarize_evaluation` calls :func:`_replicate_sums`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.reference import reference_mode
from ..core.threads import Workers, one_blas_thread, threads_for
from ..core.inputs.validation import internal_error
from ..inference.hashing import flip_bits, poisson_weights
from .plan import Plan

#: Elements of one chunk of the (groups x replicates) draw matrix (the sums do not depend on it:
#: tests set it small to take many chunks).
CHUNK_ELEMENTS = 1 << 20


def _distinct(columns: list[np.ndarray]) -> tuple[list[np.ndarray], list[int]]:
    """Distinct columns (models share a metric's weights) and where each input column went."""
    out: list[np.ndarray] = []
    where: list[int] = []
    for c in columns:
        for k, u in enumerate(out):
            if u is c or np.array_equal(u, c):
                where.append(k)
                break
        else:
            where.append(len(out))
            out.append(c)
    return out, where


def _counting_groups(columns: list[np.ndarray], n: int) -> np.ndarray | None:
    """Indices of the groups with a nonzero (or NaN) value in some column; None when that is every
    group (nothing to take out)."""
    if not columns:
        return None
    nonzero = np.zeros(n, dtype=bool)
    for c in columns:
        nonzero |= c != 0
    return None if nonzero.all() else np.flatnonzero(nonzero)


def _light_groups(cols: list[np.ndarray], wd_cols: list[np.ndarray], n: int) -> tuple[list[int], np.ndarray] | None:
    """The columns nonzero in most groups (``dense``: a metric's weights when the groups without a
    relevant row count as 0, ``empty="zero"``) and the groups whose every other column, flip
    columns included, is 0 (``light``): their draws need multiplying by the dense columns only.
    None when the split saves little (no dense column, or few light groups)."""
    dense = [k for k, c in enumerate(cols) if 2 * int(np.count_nonzero(c)) > n]
    if not dense or len(dense) == len(cols):
        return None
    light = np.ones(n, dtype=bool)
    for k, c in enumerate(cols):
        if k not in dense:
            light &= c == 0
    for c in wd_cols:
        light &= c == 0
    if 4 * int(np.count_nonzero(light)) < n:
        return None
    return dense, light


#: The chunks of the replicate sums are added in this many shares (chunk k in share k % _SHARES),
#: whatever the number of threads: the default threads of a call, each running one.
_SHARES = 2

#: Segments with at least this many groups get matrix products per chunk of their groups;
#: smaller ones are reduced together, many segments per chunk (no loop over segments).
_BIG_SEGMENT = 64


def _hashed_sums(
    plan: Plan,
    key_hashes: np.ndarray,
    seg_index: np.ndarray,
    n_seg: int,
    columns: list[np.ndarray],
    wd_cols: list[np.ndarray],
    n_flip: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Per segment: (n_boot x distinct columns) sums of k_gb * column_g, where each of ``columns``
    went among the distinct ones, and (n_boot x pairs) flip sums.

    Replicate b weighs group g by its hashed Poisson(1) count k_gb (and flips it when its
    hashed bit is 1); groups are taken in chunks so that the draws of a chunk stay small.
    Repeated columns (models share a metric's weights) are multiplied once, and the groups nonzero
    in the dense columns only (:func:`_light_groups`) by those alone. A large segment is
    matrix products, chunk by chunk; the groups of the small segments (``by=`` with thousands
    of values) are taken together, sorted by segment, and their products added per segment with
    one ``np.add.reduceat`` per chunk (no loop over segments). The chunks are shared between
    threads by a fixed rule, so the sums do not depend on timing.
    """
    n_boot = plan.n_boot
    seed = int(plan.seed)  # type: ignore[arg-type]
    cols, where = _distinct(columns)
    # A group whose every column is 0 (used by no metric: a click log's many groups without a
    # click, for GAUC) adds 0 to every replicate: its draws are skipped. A group's draws come from
    # its own key hash, so the others' draws are the same either way.
    live = _counting_groups([*cols, *wd_cols], key_hashes.shape[0])
    if live is not None:
        key_hashes, seg_index = key_hashes[live], seg_index[live]
        cols, wd_cols = [c[live] for c in cols], [c[live] for c in wd_cols]
    # The groups with no relevant row, under empty="zero", are usually most of them and nonzero in
    # the weight columns only: put after the others, their chunks multiply their draws by those
    # columns alone (a group's draws come from its own key hash, wherever it stands)
    split = _light_groups(cols, wd_cols, key_hashes.shape[0])
    dense: list[int] = []
    n_heavy = key_hashes.shape[0]
    if split is not None:
        dense, light = split
        perm = np.concatenate([np.flatnonzero(~light), np.flatnonzero(light)])
        n_heavy = int(key_hashes.shape[0] - np.count_nonzero(light))
        key_hashes, seg_index = key_hashes[perm], seg_index[perm]
        cols, wd_cols = [c[perm] for c in cols], [c[perm] for c in wd_cols]
        del perm, light
    n_all = key_hashes.shape[0]
    boot = np.zeros((n_seg, n_boot, len(cols)))
    reps = np.zeros((n_seg, n_boot, n_flip)) if n_flip else None
    step = max(1, CHUNK_ELEMENTS // max(n_boot, 1))
    bar = _bar(plan, n_all)
    # chunks: (segment, groups, size, light) for big segments (light: groups after n_heavy), (-1,
    # groups sorted by segment, size, False) for small ones
    chunks: list[tuple[int, Any, int, bool]] = []
    if n_seg == 1:
        for lt, (a, b) in ((False, (0, n_heavy)), (True, (n_heavy, n_all))):
            chunks += [(0, slice(lo, min(lo + step, b)), min(lo + step, b) - lo, lt) for lo in range(a, b, step)]
    else:
        order = np.argsort(seg_index, kind="stable")  # stable: within a segment, the light groups last
        sizes = np.bincount(seg_index, minlength=n_seg)
        starts = np.concatenate([[0], np.cumsum(sizes)])
        for si in np.flatnonzero(sizes >= _BIG_SEGMENT).tolist():  # few: each holds many groups
            gi = order[starts[si] : starts[si + 1]]
            cut = int(np.searchsorted(gi, n_heavy))
            for g, lt in ((gi[:cut], False), (gi[cut:], True)):
                chunks += [(si, g[lo : lo + step], g[lo : lo + step].shape[0], lt) for lo in range(0, g.shape[0], step)]
        small = order[sizes[seg_index[order]] < _BIG_SEGMENT]
        width = max(len(cols), n_flip, 1)
        m = max(1, (CHUNK_ELEMENTS // 4) // (max(n_boot, 1) * width))  # a product that stays in cache
        chunks += [(-1, small[lo : lo + m], small[lo : lo + m].shape[0], False) for lo in range(0, small.shape[0], m)]

    def run(part: list[tuple[int, Any, int, bool]]) -> tuple[np.ndarray, np.ndarray | None]:
        """Sums of a fixed share of the chunks (numpy releases the GIL in the draws and products)."""
        work: dict[str, np.ndarray] = {}  # draw buffers reused chunk after chunk
        acc = np.zeros_like(boot)
        acc_f = np.zeros_like(reps) if reps is not None else None
        for si, idx, n, lt in part:
            kh = key_hashes[idx]
            if lt:  # light groups: only the dense columns are nonzero, no flip column
                into = acc[si]
                into[:, dense] += poisson_weights(kh, seed, n_boot, work=work).T @ np.column_stack(
                    [cols[k][idx] for k in dense])
            elif si >= 0:  # one big segment: matrix products
                if cols:
                    acc[si] += poisson_weights(kh, seed, n_boot, work=work).T @ np.column_stack([c[idx] for c in cols])
                if acc_f is not None:
                    acc_f[si] += flip_bits(kh, seed, n_boot).T @ np.column_stack([c[idx] for c in wd_cols])
            else:  # many small segments: products added per segment
                seg = seg_index[idx]
                first = np.flatnonzero(np.r_[True, seg[1:] != seg[:-1]])
                if cols:
                    x = np.column_stack([c[idx] for c in cols])
                    _add_by_segment(acc, seg[first], first, poisson_weights(kh, seed, n_boot, work=work), x, work)
                if acc_f is not None:
                    wd = np.column_stack([c[idx] for c in wd_cols])
                    _add_by_segment(acc_f, seg[first], first, flip_bits(kh, seed, n_boot), wd, work)
            bar.update(n)
        return acc, acc_f

    # chunk k goes to share k % _SHARES, each share summed in chunk order, the shares added in
    # their order: a split fixed by the chunks alone, so the sums depend neither on timing nor on
    # how many threads run the shares (one thread runs both, in turn: the same numbers to the bit
    # in the main thread, on a worker thread or beside other calls). The products are small
    # (replicates x chunk x columns): BLAS threads on top of ours only contend (3x the CPU time on
    # a busy 2-core machine), so BLAS runs one thread meanwhile.
    shares = [chunks[w::_SHARES] for w in range(min(_SHARES, len(chunks)))] or [chunks]
    workers = max(1, min(threads_for(), len(shares)))
    with one_blas_thread():
        if workers == 1:
            results = [run(share) for share in shares]
        else:
            with Workers(workers) as threads:
                results = threads.map(run, shares)
    boot = results[0][0]
    for r in results[1:]:
        boot += r[0]
    if reps is not None:
        reps = results[0][1]
        for r in results[1:]:
            reps += r[1]  # type: ignore[operator]
    bar.close()
    return boot, np.array(where, dtype=np.int64), reps


def dense_sums(
    plan: Plan,
    key_hashes: np.ndarray,
    seg_index: np.ndarray,
    n_seg: int,
    columns: list[np.ndarray],
    wd_cols: list[np.ndarray],
    n_flip: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """The reference of :func:`_hashed_sums`: per segment, one dense product
    ``poisson_weights(groups).T @ columns`` (and ``flip_bits(groups).T @ wd_cols``) over every
    group of the segment, every column on its own (``where`` is the identity). No group left out,
    no chunk, no thread; the sums agree with :func:`_hashed_sums`' to rounding (the products add
    the groups in another order).
    """
    n_boot = plan.n_boot
    seed = int(plan.seed)  # type: ignore[arg-type]
    boot = np.zeros((n_seg, n_boot, len(columns)))
    reps = np.zeros((n_seg, n_boot, n_flip)) if n_flip else None
    for si, gi in enumerate(_groups_of_segments(seg_index, n_seg)):
        idx = slice(None) if gi is None else gi
        kh = key_hashes[idx]
        if columns:
            boot[si] = poisson_weights(kh, seed, n_boot).T @ np.column_stack([c[idx] for c in columns])
        if reps is not None:
            reps[si] = flip_bits(kh, seed, n_boot).T @ np.column_stack([c[idx] for c in wd_cols])
    return boot, np.arange(len(columns), dtype=np.int64), reps


def _add_by_segment(
    into: np.ndarray, segs: np.ndarray, first: np.ndarray, draws: np.ndarray, x: np.ndarray, work: dict
) -> None:
    """``into[s] += sum_g draws_gb x_gc`` over the groups of each segment s of a chunk (groups
    sorted by segment; ``first``: where each segment's groups begin, ``segs``: those segments)."""
    size = draws.shape[0] * draws.shape[1] * x.shape[1]
    buf = work.get("prod")
    if buf is None or buf.size < size:
        buf = work["prod"] = np.empty(size)
    prod = buf[:size].reshape(draws.shape[0], draws.shape[1], x.shape[1])
    np.multiply(draws[:, :, None], x[:, None, :], out=prod)
    into[segs] += np.add.reduceat(prod, first, axis=0)


def _stream_sums(
    plan: Plan,
    seg_index: np.ndarray,
    n_seg: int,
    columns: list[np.ndarray],
    wd_cols: list[np.ndarray],
    n_flip: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """The sums of :func:`_hashed_sums` under ``resample="multinomial"`` (one partition): each
    segment draws its counts and flip bits from its own stream of the plan, replicates in chunks.
    Repeated columns (models share a metric's weights) are multiplied once.
    """
    from pandas_rankeval.inference.bootstrap import (
        count_chunks,
        flip_chunks,
        stratum_rng,
    )

    n_boot = plan.n_boot
    cols, where = _distinct(columns)
    boot = np.zeros((n_seg, n_boot, len(cols)))
    reps = np.zeros((n_seg, n_boot, n_flip)) if n_flip else None
    n_all = seg_index.shape[0]
    bar = _bar(plan, n_all)
    where_arr = np.array(where, dtype=np.int64)
    boot_gen, flip_gen = plan.streams
    for si, gi in enumerate(_groups_of_segments(seg_index, n_seg)):
        size = n_all if gi is None else gi.shape[0]
        idx = slice(None) if gi is None else gi
        if cols:
            acc = np.zeros((n_boot, len(cols)))
            design = np.column_stack([c[idx] for c in cols])
            chunk = max(1, min(n_boot, CHUNK_ELEMENTS // max(size, 1)))
            for lo, counts in count_chunks(stratum_rng(boot_gen, si), size, n_boot, chunk):
                acc[lo : lo + counts.shape[0]] = counts @ design
            boot[si] = acc
        if reps is not None:
            wd = np.column_stack([c[idx] for c in wd_cols])
            for lo, bits in flip_chunks(stratum_rng(flip_gen, si), size, n_boot):
                reps[si, lo : lo + bits.shape[0]] = bits @ wd
        bar.update(size)
    bar.close()
    return boot, where_arr, reps


def _groups_of_segments(seg_index: np.ndarray, n_seg: int) -> list[Any]:
    """Per segment, the indices of its groups (``None``: every group, when there is one segment)."""
    if n_seg == 1:
        return [None]
    order = np.argsort(seg_index, kind="stable")
    cuts = np.searchsorted(seg_index[order], np.arange(1, n_seg))
    return np.split(order, cuts)


def _bar(plan: Plan, n_groups: int) -> Any:
    from pandas_rankeval.core.progress import Progress

    return Progress(plan.options.progress, total=n_groups, desc="bootstrap" if plan.kind == "report" else plan.func,
                    unit="group")


def _replicate_sums(
    plan: Plan,
    key_hashes: np.ndarray | None,
    seg_index: np.ndarray,
    n_seg: int,
    columns: list[np.ndarray],
    wd_cols: list[np.ndarray],
    n_flip: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Per segment: (n_boot x distinct columns) replicate sums, where each column went among the
    distinct ones, and (n_boot x pairs) flip sums.

    ``resample="poisson"``: hashed draws (:func:`_hashed_sums`, any partitioning gives the same
    sums, both cores used; :func:`dense_sums` under the reference switch); ``"multinomial"`` (one
    partition): the plan's streams (:func:`_stream_sums`).
    """
    if plan.resample == "poisson":
        if key_hashes is None:
            raise internal_error("the hashed bootstrap needs the group keys' hashes")
        if reference_mode():  # the reference switch: the dense products
            return dense_sums(plan, key_hashes, seg_index, n_seg, columns, wd_cols, n_flip)
        return _hashed_sums(plan, key_hashes, seg_index, n_seg, columns, wd_cols, n_flip)
    return _stream_sums(plan, seg_index, n_seg, columns, wd_cols, n_flip)
