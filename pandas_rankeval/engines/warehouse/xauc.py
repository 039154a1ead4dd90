"""Grouped XAUC's sufficient statistics in SQL: per group the pairs of different labels, the tied
ones and the discordant ones, exact, from (group, label, score) cells.

XAUC_g = (T - D - S / 2) / T over the pairs of rows of group g whose labels differ (T of them,
weight ``w_i * w_j`` each), with S those of them whose scores tie and D the discordant ones (the
larger label has the smaller score): the definition of :mod:`pandas_rankeval.core.kernels.xauc`.

1. **Cells** (``GROUP BY group, label, score``): the summed weight ``c`` of each cell (its rows
   without sample weights). Rows of one cell are never a pair that counts, so every sum below is
   over cells, whatever order the rows came in.
2. **T and S** from windows without ORDER BY (the whole partition): with ``W`` the group's weight,
   ``W_l`` a label's and ``W_s`` a score's, ``2T = W^2 - sum_l W_l^2`` and
   ``2S = sum_s W_s^2 - sum_cells c^2``; ``sum_l W_l^2`` is the sum over cells of ``c * W_l``.
3. **D, a weighted inversion count** over the cells numbered ``q = 0, 1, ...`` in (label, score)
   order within their group (``ROW_NUMBER``; the order of cells is total, so ``q`` is unique): a
   pair of cells ``q_a < q_b`` is discordant exactly when ``score_a > score_b``. Every pair of
   positions differs first at one bit: at level ``k`` the positions fall in blocks of ``2^(k+1)``
   (``q DIV 2^(k+1)``) and the pairs split at that level have ``a`` in the block's left half and
   ``b`` in its right half (bit ``k`` of ``q``: ``q DIV 2^k - 2 (q DIV 2^(k+1))``). So, per
   (group, level, block, score), the left-half weight ``L`` and the right-half weight ``R``; a
   cumulative sum of ``L`` by score descending with the explicit frame ``ROWS BETWEEN UNBOUNDED
   PRECEDING AND 1 PRECEDING`` (the scores of a partition are distinct: no tie, no row order)
   gives the left weight of larger score, and ``D = sum R * that``. The levels are the ``k``
   with ``2^k`` below the group's cell count: ``ceil(log2 cells)`` copies of each cell,
   O(n log n) in all, as the pandas kernel's merge. The levels table is the distinct ``q``
   below :data:`LEVELS` (the cells of the largest group number them), and ``2^k`` a CASE of
   integer literals: no power, no bit operator, no array, no VALUES list, so every dialect
   compiles it.

Counts are DOUBLE before any product (a pair count passes 2**63 at about 3e9 rows per group);
doubles are exact for counts below 2**53.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["LEVELS", "xauc_group_sums"]

#: Levels of the inversion count: groups of up to 2**LEVELS distinct (label, score) cells.
LEVELS = 48


def _f(x: Any) -> Any:
    return x.cast("float64")


def _cells(x: Any, group: list[str], label: str, score: str, weight: str | None, P: str) -> Any:
    """One row per (group, label, score) with its weight, the weights of its label and its score
    in the group, its number ``q`` in (label, score) order and the group's number of cells."""
    import ibis

    w = _f(x[weight]).sum() if weight is not None else _f(x.count())
    cells = x.group_by([*group, label, score]).aggregate(**{f"{P}xc": w})
    by = [cells[c] for c in group]
    c = cells[f"{P}xc"]
    return cells.mutate(**{
        f"{P}xwl": c.sum().over(ibis.window(group_by=[*by, cells[label]])),
        f"{P}xws": c.sum().over(ibis.window(group_by=[*by, cells[score]])),
        f"{P}xq": ibis.row_number().over(ibis.window(group_by=by, order_by=[ibis.asc(cells[label]),
                                                                             ibis.asc(cells[score])])).cast("int64"),
        f"{P}xn": cells[score].count().over(ibis.window(group_by=by)).cast("int64"),
    })


def _discordant(cells: Any, group: list[str], score: str, P: str) -> Any:
    """Per group with two cells or more: D, the weight of the discordant pairs (see the module)."""
    import ibis

    q = cells[f"{P}xq"]
    levels = cells.filter(q < LEVELS).select(**{f"{P}xk": q}).distinct()
    k = levels[f"{P}xk"]
    levels = levels.mutate(**{f"{P}xp": ibis.cases(*[(k == i, ibis.literal(2**i, "int64")) for i in range(LEVELS)],
                                                   else_=ibis.literal(0, "int64"))})
    pairs = cells.cross_join(levels)
    pairs = pairs.filter(pairs[f"{P}xp"] < pairs[f"{P}xn"])
    p, qq, c = pairs[f"{P}xp"], pairs[f"{P}xq"], pairs[f"{P}xc"]
    block = qq // (p * 2)
    half = qq // p - block * 2  # the bit k of q, without a modulo (BigQuery's MOD takes no FLOAT64)
    pairs = pairs.mutate(**{f"{P}xb": block, f"{P}xh": half})
    h = pairs[f"{P}xh"]
    zero = ibis.literal(0.0, "float64")
    halves = pairs.group_by([*group, f"{P}xk", f"{P}xb", score]).aggregate(**{
        f"{P}xL": ibis.ifelse(h == 0, c, zero).sum(), f"{P}xR": ibis.ifelse(h == 1, c, zero).sum()})
    part = ibis.window(group_by=[halves[g] for g in [*group, f"{P}xk", f"{P}xb"]],
                       order_by=[ibis.desc(halves[score])], rows=(None, -1))
    above = halves[f"{P}xL"].sum().over(part).fill_null(0.0)
    halves = halves.mutate(**{f"{P}xd": halves[f"{P}xR"] * above})
    return halves.group_by(group).aggregate(**{f"{P}s_xauc_d": halves[f"{P}xd"].sum()})


def xauc_group_sums(x: Any, group: Sequence[str], label: str, score: str, weight: str | None, P: str) -> Any:
    """One row per group of ``x`` (the kept rows, keys as pandas groups them): ``<P>s_xauc_t2``
    (2T), ``<P>s_xauc_s2`` (2S), ``<P>s_xauc_d`` (D) and ``<P>s_xauc_labels`` (distinct labels)."""
    import ibis

    group = list(group)
    cells = _cells(x, group, label, score, weight, P)
    c = cells[f"{P}xc"]
    sums = cells.group_by(group).aggregate(**{
        f"{P}xW": c.sum(), f"{P}xWl": (c * cells[f"{P}xwl"]).sum(), f"{P}xWs": (c * cells[f"{P}xws"]).sum(),
        f"{P}xWc": (c * c).sum(), f"{P}s_xauc_labels": cells[label].nunique().cast("int64")})
    sums = sums.mutate(**{f"{P}s_xauc_t2": sums[f"{P}xW"] * sums[f"{P}xW"] - sums[f"{P}xWl"],
                          f"{P}s_xauc_s2": sums[f"{P}xWs"] - sums[f"{P}xWc"]})
    d = _discordant(cells, group, score, P)
    out = sums.left_join(d, group)
    keep = [*group, f"{P}s_xauc_t2", f"{P}s_xauc_s2", f"{P}s_xauc_labels"]
    return out.select(*[out[k] for k in keep],
                      **{f"{P}s_xauc_d": out[f"{P}s_xauc_d"].fill_null(ibis.literal(0.0, "float64"))})
