"""Per-group sufficient statistics as Ibis expressions: one row per group, exact under ties.

The warehouse engine sends these expressions to the table's own backend (DuckDB, Postgres,
BigQuery, Snowflake, ClickHouse, Trino, ...) and receives one row per group; the per-group metric
values, the averages over groups, the intervals and the tests then run on the client from that
table (:func:`group_values`), so the client holds memory proportional to the groups, never to
the rows.

How the SQL stays exact and portable
------------------------------------
Rows of a group are ranked by score, highest first. A *block* is the rows of one group that
share a score (the tie block of the metric contract). Every expected value of the contract is a
function of each block's start ``m`` (rows above it), size ``t``, relevant rows ``p`` and sums
over the positions it occupies:

1. **Rows** (one select over the kept rows): ``pos = ROW_NUMBER() OVER (PARTITION BY group ORDER BY
   score DESC)``. Inside a block the numbers are dealt in an order the backend chooses, but a
   block always occupies the positions ``m+1 .. m+t``, so every sum over a block of a function of
   ``pos`` (discounts, ``1/pos``, "within the cutoff") does not depend on it. ``m`` is
   ``MIN(pos)`` over the block and ``j = pos - m`` numbers the block's rows ``1..t`` (the
   expansion of the expected reciprocal rank and of the hit probability): the terms use ``j``,
   ``m``, ``t`` and ``p``, never the row's own label. ``RANK()`` is not used: ClickHouse ranks
   peers as rows under the explicit ``ROWS`` frame Ibis writes.
2. **Blocks** (``GROUP BY group, score``): counts, relevant rows, summed gains and weights, and
   the position sums of step 1.
3. **Cumulative sums over blocks** (``ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW``,
   partition by group, ordered by score descending): blocks have distinct scores within a group,
   so the order is total and the sum does not depend on row order. No ``RANGE`` frame, no default
   frame, no reliance on where NULLs sort (missing values are removed or refused before).
4. **Groups** (``GROUP BY group``): the sums the metrics need.

Integers are cast to DOUBLE before any product or division (a pair count ``P * N`` passes 2**63 at
about 6e9 rows per class); doubles are exact for counts below 2**53.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .calibration_sql import ece_bin, row_loss
from .xauc import xauc_group_sums

__all__ = ["CALIBRATION", "IPS", "SUPPORTED", "Stat", "group_stats", "group_values", "score_counts"]

#: Metrics the builder computes, by the registry's name.
SUPPORTED = ("auc", "gauc", "uauc", "wuauc", "mrr", "ndcg", "dcg", "map", "precision", "recall", "rprec", "hit_rate",
             "rbp", "gxauc", "ips_dcg", "ips_precision", "ips_hit_rate", "logloss", "ne", "pcoc", "ece")
#: Other names of GAUC's per-group AUC (TorchRec's uauc and wuauc: the same values, their own weights).
GAUC_NAMES = ("gauc", "uauc", "wuauc")
#: The calibration metrics: row sums per group, no sort.
CALIBRATION = ("logloss", "ne", "pcoc", "ece")
#: The counterfactual metrics: a click weighs 1 / max(propensity, clip), spread over its tie block as DCG's gain.
IPS = ("ips_dcg", "ips_precision", "ips_hit_rate")

_LN2 = math.log(2.0)
_LOG_FACT = [math.lgamma(i + 1.0) for i in range(16)]


@dataclass(frozen=True)
class Stat:
    """One metric of a call: the registry's name and its parameter (a cutoff k, None for the whole
    list, or RBP's persistence)."""

    name: str
    k: Any = None

    @property
    def label(self) -> str:
        return self.name if self.k is None else f"{self.name}@{self.k}"


def _f(x: Any) -> Any:
    """An Ibis value as DOUBLE."""
    return x.cast("float64")


def _lit(v: float) -> Any:
    import ibis

    return ibis.literal(float(v), type="float64")


def _log_factorial(x: Any) -> Any:
    """log(x!) of a non-negative integer expression, in SQL: exact constants below 16, Stirling's
    series to z**-9 above (z = x + 1 >= 17: the first omitted term is below 1e-16)."""
    import ibis

    z = _f(x) + 1
    zi = 1.0 / z
    zi2 = zi * zi
    series = ((z - 0.5) * z.ln() - z + 0.5 * math.log(2.0 * math.pi)
              + zi * (1.0 / 12 - zi2 * (1.0 / 360 - zi2 * (1.0 / 1260 - zi2 * (1.0 / 1680 - zi2 / 1188)))))
    cases = ibis.cases(*[(x == i, _lit(v)) for i, v in enumerate(_LOG_FACT)], else_=series)
    return cases


def _first_block_terms(x: Any, P: str, ks: list[Any], names: set[str]) -> Any:
    """Row terms of the expected reciprocal rank and of the hit probability of a block (``t``
    rows, ``p`` relevant, ``m`` above it), each row numbered ``j = 1..t`` in the block.

    RR: the first relevant row is the block's j-th with probability C(t-j, p-1) / C(t, p),
    j <= t - p + 1, in logs: lf(t-j) - lf(t-j-p+1) - lf(t) + lf(t-p) + log(p). Hit@k: the block
    cut after r = clip(k - m, 0, t) rows misses all p relevant rows with probability
    C(t-p, r) / C(t, r) = prod_{i < min(r, p)} (t - i - max(r, p)) / (t - i): row j holds the
    factor i = j - 1. Intermediate columns keep the SQL short (each is written once).
    """
    import ibis

    x = x.mutate(**{f"{P}j": x[f"{P}pos"] - x[f"{P}m"]})
    t, p, j, m = x[f"{P}t"], x[f"{P}p"], x[f"{P}j"], x[f"{P}m"]
    cols: dict[str, Any] = {}
    if "mrr" in names:
        ok = (p > 0) & (j <= t - p + 1)
        cols[f"{P}ok"] = ok
        cols[f"{P}a"] = ibis.ifelse(ok, t - j, 0)
        cols[f"{P}b"] = ibis.ifelse(ok, t - j - p + 1, 0)
        cols[f"{P}c"] = ibis.ifelse(ok, t - p, 0)
    for k in ks:
        if "hit_rate" in names and k is not None:
            r = ibis.greatest(ibis.least(k - m, t), 0)
            big = ibis.greatest(r, p)
            ok = (p > 0) & (t - p >= r) & (j <= ibis.least(r, p))
            num = ibis.ifelse(ok, t - j + 1 - big, 1)
            den = ibis.ifelse(ok, t - j + 1, 1)
            cols[f"{P}hitlog@{k}"] = ibis.ifelse(ok, _f(num).ln() - _f(den).ln(), _lit(0.0))
            cols[f"{P}hitsure@{k}"] = ibis.ifelse((p > 0) & (t - p < r), 1, 0)
    x = x.mutate(**cols)
    if "mrr" in names:
        # evaluated only where needed (a CASE's branch runs on its rows): one relevant row in the
        # block (the usual click) has the first relevant row at each of its t places with chance 1/t
        tt, pp = x[f"{P}t"], x[f"{P}p"]
        logc = (_log_factorial(x[f"{P}a"]) - _log_factorial(x[f"{P}b"]) - _log_factorial(tt)
                + _log_factorial(x[f"{P}c"]) + _f(ibis.greatest(pp, 1)).ln())
        chance = ibis.ifelse(pp == 1, 1.0 / _f(tt), logc.exp())
        x = x.mutate(**{f"{P}rr": ibis.ifelse(x[f"{P}ok"], chance / _f(x[f"{P}m"] + x[f"{P}j"]), _lit(0.0))})
    return x


def _calibration_sums(x: Any, P: str, score: str, weighted: bool, stats: Sequence[Stat]) -> dict[str, Any]:
    """Row sums of the calibration metrics per block (added per group later): sum w, sum w y,
    sum w p, sum w l (l: the log loss of the row, p clipped to [EPS, 1 - EPS]) and, per ECE bin
    b of B, sum w (p - y) and sum w over the rows of the bin (bins as
    :func:`pandas_rankeval.core.calibration.ece_bins`: an edge belongs to the bin below it)."""
    import ibis

    p = _f(x[score])
    y = x[f"{P}rel"] == 1
    w = x[f"{P}w"] if weighted else _f(x[f"{P}rel"] * 0 + 1)  # a column of ones: sums count the rows
    loss = row_loss(p, y)
    yf = ibis.ifelse(y, _lit(1.0), _lit(0.0))
    out = {f"{P}b_cal_w": w.sum(), f"{P}b_cal_wy": (w * yf).sum(), f"{P}b_cal_wp": (w * p).sum(),
           f"{P}b_cal_wl": (w * loss).sum()}
    for bins in sorted({int(s.k or 10) for s in stats if s.name == "ece"}):
        index = ece_bin(p, bins)
        for b in range(bins):
            inside = index == b
            out[f"{P}b_cal_ece{bins}_d{b}"] = ibis.ifelse(inside, w * (p - yf), _lit(0.0)).sum()
            out[f"{P}b_cal_ece{bins}_w{b}"] = ibis.ifelse(inside, w, _lit(0.0)).sum()
    return out


def _propensity(t: Any, propensity: tuple[Any, ...] | None) -> Any:
    """A row's propensity as DOUBLE: its column, or its position looked up (one CASE; a position
    the lookup lacks is NULL, refused by the checks query before this one runs)."""
    import ibis

    if propensity is None:  # pragma: no cover - the caller passes it with an IPS metric
        raise ValueError("the IPS metrics need a propensity")
    if propensity[0] == "column":
        return _f(t[str(propensity[1])])
    _, position, positions, values = propensity
    pos = _f(t[str(position)])
    return ibis.cases(*[(pos == _lit(p), _lit(v)) for p, v in zip(positions, values)],
                      else_=ibis.null("float64"))


def _relevant(t: Any, label: str, relevance: tuple[str, Any]) -> Any:
    import ibis

    op, bound = relevance
    col = t[label]
    if op == "bool":  # a bool label is its own relevance
        return col
    if op in ("never", "always"):  # (a bool label under a threshold above 1, or at most 0)
        return ibis.literal(op == "always")
    if isinstance(bound, bool) or not isinstance(bound, (int, np.integer)):
        col, bound = _f(col), _lit(bound)
    return col > bound if op == ">" else col >= bound


def group_stats(
    t: Any,
    *,
    group: Sequence[Hashable],
    label: Hashable,
    score: Hashable,
    stats: Sequence[Stat],
    sample_weight: Hashable | None = None,
    relevance: tuple[str, Any] = (">", 0.0),
    gain: str = "exp2",
    graded_gain: bool = True,
    ties: str = "expected",
    tiebreak: Hashable | None = None,
    sums: Sequence[Hashable] = (),
    graded_rows: bool = False,
    propensity: tuple[Any, ...] | None = None,
    clip: float = 0.0,
    prefix: str = "__rk_",
) -> Any:
    """One row per group of ``t`` (an ``ibis.Table`` of the kept rows) with the sufficient
    statistics of ``stats`` (see :func:`stat_columns`).

    Parameters
    ----------
    t : ibis.Table
        The rows to evaluate, missing values already removed.
    group : list of column names
    label, score : column names
    stats : list of Stat
    sample_weight : column name, optional
        Per-row weights of AUC's pairs (``w_i * w_j``).
    relevance : (op, bound)
        A row is relevant when ``label op bound`` (:func:`pandas_rankeval.core.prepare.relevance_rule`).
    gain : {"exp2", "linear"}
        NDCG's gain of a label; rows that are not relevant gain 0 when ``graded_gain`` is False
        (a relevance threshold was given).
    ties : {"expected", "pessimistic", "optimistic"}
        Inside a tie, the expected value over its orderings; or the rows sorted by label
        ascending (pessimistic) or descending (optimistic), as the pandas engine sorts them. The
        IPS metrics sort a tie by the IPS weight instead (their own ``ROW_NUMBER``:
        :meth:`_Build.ips_order`).
    tiebreak : column name, optional
        Rows of equal score ordered by this column, ascending (ties that remain: by ``ties``).
    sums : list of column names
        Columns summed per group (``<prefix>s_sum<i>``: a weight option that names a column).
    graded_rows : bool
        Count the rows whose label is neither 0 nor 1 per group (``<prefix>s_graded``).
    propensity : tuple, optional
        The IPS metrics' propensity of a row: ``("column", name)``, or ``("lookup", position column,
        positions, propensities)`` (a :class:`~pandas_rankeval.core.inputs.propensity.PropensityLookup`,
        compiled to one CASE). A relevant row gains ``1 / max(propensity, clip)``.
    clip : float
        The smallest propensity used.

    The blocks are the rows of equal (score[, tiebreak][, label]): the order of the blocks of a
    group is total, and inside a block every row has the same label where ``ties`` sorts by it.
    """
    keyed = {str(c) for c in group}
    copies = {f"{prefix}c_{role}": t[str(c)] for role, c in (("score", score), ("tiebreak", tiebreak), ("label", label))
              if c is not None and str(c) in keyed}
    if copies:  # a column that is also a group key (a score = the group, say): a copy of its own name,
        t = t.mutate(**copies)  # as the blocks group by both
        score, tiebreak, label = (f"{prefix}c_{r}" if f"{prefix}c_{r}" in copies else c
                                  for r, c in (("score", score), ("tiebreak", tiebreak), ("label", label)))
    b = _Build(group=[str(c) for c in group], label=str(label), score=str(score), stats=list(stats),
               sample_weight=sample_weight, ties=ties, tiebreak=None if tiebreak is None else str(tiebreak),
               P=prefix, propensity=propensity, clip=clip)
    x = b.rows(t, relevance, gain, graded_gain)
    blocks = b.cumulative(x.group_by([*b.group, *b.keys]).aggregate(**b.block_sums(x, sums, graded_rows)))
    g = blocks.group_by(b.group).aggregate(**b.group_sums(blocks))
    P = prefix
    if "gxauc" in b.names:  # its pairs: (group, label, score) cells of the same rows, joined by group
        lab = x[b.label]
        cells = x.mutate(**{f"{P}xy": lab + 0.0}) if lab.type().is_floating() else x.mutate(**{f"{P}xy": lab})
        weight = f"{P}w" if sample_weight is not None else None
        g = g.join(xauc_group_sums(cells, b.group, f"{P}xy", b.score, weight, P), b.group)
    ints = (f"{P}s_n", f"{P}s_positives", f"{P}s_graded", f"{P}s_xauc_labels")
    return g.mutate(**{c: _f(g[c]) if c not in ints else g[c].cast("int64") for c in g.columns if c.startswith(f"{P}s_")})


def _ks(stats: Sequence[Stat], names: tuple[str, ...]) -> list[Any]:
    """The distinct parameters of the metrics ``names``, None (the whole list) last."""
    return sorted({s.k for s in stats if s.name in names}, key=lambda k: (k is None, k or 0))


@dataclass
class _Build:
    """The stages of :func:`group_stats`: rows, blocks, cumulative sums over blocks, groups."""

    group: list[str]
    label: str
    score: str
    stats: list[Stat]
    sample_weight: Hashable | None
    ties: str
    tiebreak: str | None
    P: str
    propensity: tuple[Any, ...] | None = None
    clip: float = 0.0

    def __post_init__(self) -> None:
        self.names = {s.name for s in self.stats}
        self.ks_pos = _ks(self.stats, ("ndcg", "dcg", "map", "precision", "recall", *IPS))
        self.ks_ips_dcg = _ks(self.stats, ("ips_dcg",))
        self.ks_ips_hits = _ks(self.stats, ("ips_precision", "ips_hit_rate"))
        self.ips = bool(set(IPS) & self.names)
        #: a tie rule orders a tie's clicks by their IPS weight (their own place ``ipspos``), not by label
        self.ips_rule = self.ips and self.ties != "expected"
        self.ks_first = _ks(self.stats, ("mrr", "hit_rate"))
        self.ks_ideal = _ks(self.stats, ("ndcg",))
        self.persist = sorted({float(s.k) for s in self.stats if s.name == "rbp"})
        self.gains = bool(self.ks_pos) and bool({"ndcg", "dcg"} & self.names)
        self.need_rows = bool(self.ks_pos or self.ks_first or self.ks_ideal)
        self.keys = list(dict.fromkeys([self.score, *([self.tiebreak] if self.tiebreak is not None else []),
                                        *([self.label] if self.ties != "expected" else [])]))

    def order(self, tab: Any) -> list[Any]:
        """Score descending, then the tie-break ascending, then (a tie rule) the label."""
        import ibis

        out = [ibis.desc(tab[self.score])]
        if self.tiebreak is not None and self.tiebreak != self.score:
            out.append(ibis.asc(tab[self.tiebreak]))
        if self.ties != "expected" and self.label not in (self.score, self.tiebreak):
            out.append(ibis.asc(tab[self.label]) if self.ties == "pessimistic" else ibis.desc(tab[self.label]))
        return out

    def ips_order(self, tab: Any) -> list[Any]:
        """Under a tie rule, the IPS metrics' order: score descending, then the tie-break ascending,
        then the IPS weight, largest first (optimistic) or last (pessimistic): the largest and the
        smallest value over the orders of a tie. Rows left tied share a weight."""
        import ibis

        out = [ibis.desc(tab[self.score])]
        if self.tiebreak is not None and self.tiebreak != self.score:
            out.append(ibis.asc(tab[self.tiebreak]))
        ips = tab[f"{self.P}ips"]
        return [*out, ibis.desc(ips) if self.ties == "optimistic" else ibis.asc(ips)]

    def rows(self, t: Any, relevance: tuple[str, Any], gain: str, graded_gain: bool) -> Any:
        """The kept rows with relevance, weight, gain, and (list metrics) each row's position
        ``pos``, its ideal position ``ipos`` and its block's start ``m``."""
        import ibis

        P, label = self.P, self.label
        # float keys and scores as pandas groups and ties them: -0.0 with 0.0 (-0.0 + 0.0 is 0.0)
        floats = {c: t[c] + 0.0 for c in dict.fromkeys([*self.group, *self.keys])
                  if c != label and t[c].type().is_floating()}
        t = t.mutate(**floats) if floats else t
        rel = _relevant(t, label, relevance)
        cols: dict[str, Any] = {f"{P}rel": ibis.ifelse(rel, 1, 0)}
        if self.sample_weight is not None:
            cols[f"{P}w"] = _f(t[str(self.sample_weight)])
        if self.gains:
            lab = ibis.ifelse(t[label], _lit(1.0), _lit(0.0)) if t[label].type().is_boolean() else _f(t[label])
            g = (_lit(2.0) ** lab - 1.0) if gain == "exp2" else lab
            cols[f"{P}gain"] = g if graded_gain else ibis.ifelse(rel, g, _lit(0.0))
        if self.ips:  # a click's inverse-propensity weight (checked finite and > 0 by the checks query)
            cols[f"{P}ips"] = ibis.ifelse(rel, 1.0 / ibis.greatest(_propensity(t, self.propensity), _lit(self.clip)),
                                          _lit(0.0))
        x = t.mutate(**cols)
        if not self.need_rows:
            return x
        by = [x[c] for c in self.group]
        row_cols: dict[str, Any] = {
            f"{P}pos": (ibis.row_number().over(ibis.window(group_by=by, order_by=self.order(x))) + 1).cast("int64")}
        if self.ips_rule:
            w_ips = ibis.window(group_by=by, order_by=self.ips_order(x))
            row_cols[f"{P}ipspos"] = (ibis.row_number().over(w_ips) + 1).cast("int64")
        if self.ks_ideal:
            w_ideal = ibis.window(group_by=by, order_by=[ibis.desc(x[label])])
            row_cols[f"{P}ipos"] = (ibis.row_number().over(w_ideal) + 1).cast("int64")
        x = x.mutate(**row_cols)
        if self.ks_first:  # each row's block: its start m, rows t, relevant rows p (MRR and hit@K's terms)
            w_block = ibis.window(group_by=[x[c] for c in [*self.group, *self.keys]])
            x = x.mutate(**{f"{P}m": x[f"{P}pos"].min().over(w_block) - 1,
                            f"{P}t": x[f"{P}pos"].count().over(w_block).cast("int64"),
                            f"{P}p": x[f"{P}rel"].sum().over(w_block).cast("int64")})
            x = _first_block_terms(x, P, self.ks_first, self.names)
        return x

    def block_sums(self, x: Any, sums: Sequence[Hashable], graded_rows: bool) -> dict[str, Any]:
        """Per block: rows, relevant rows, class weights, the position sums, the row sums."""
        import ibis

        P = self.P
        aggs: dict[str, Any] = {f"{P}b_t": x.count(), f"{P}b_p": x[f"{P}rel"].sum()}
        if self.sample_weight is not None:
            aggs[f"{P}b_wp"] = ibis.ifelse(x[f"{P}rel"] == 1, x[f"{P}w"], _lit(0.0)).sum()
            aggs[f"{P}b_wn"] = ibis.ifelse(x[f"{P}rel"] == 1, _lit(0.0), x[f"{P}w"]).sum()
        if self.need_rows:
            aggs.update(self._position_sums(x))
        if self.gains:
            aggs[f"{P}b_gain"] = x[f"{P}gain"].sum()
        if self.ips:
            aggs[f"{P}b_ips"] = x[f"{P}ips"].sum()
        for i, c in enumerate(sums):
            aggs[f"{P}b_sum{i}"] = _f(x[str(c)]).sum()
        if graded_rows and not x[self.label].type().is_boolean():
            lab = _f(x[self.label])
            aggs[f"{P}b_graded"] = ibis.ifelse((lab != 0) & (lab != 1), 1, 0).sum()
        if set(CALIBRATION) & self.names:
            aggs.update(_calibration_sums(x, P, self.score, self.sample_weight is not None, self.stats))
        return aggs

    def _position_sums(self, x: Any) -> dict[str, Any]:
        """Sums over a block's positions (they do not depend on the order ROW_NUMBER deals them in)."""
        import ibis

        P = self.P
        pos = x[f"{P}pos"]
        aggs: dict[str, Any] = {f"{P}b_m": pos.min() - 1}  # the block's start: rows above it
        for k in self.ks_pos:
            within = pos <= k if k is not None else pos > 0
            tag = _tag(k)
            aggs[f"{P}b_s{tag}"] = ibis.ifelse(within, 1, 0).sum()
            aggs[f"{P}b_inv{tag}"] = ibis.ifelse(within, 1.0 / _f(pos), _lit(0.0)).sum()
            aggs[f"{P}b_disc{tag}"] = ibis.ifelse(within, _LN2 / _f(pos + 1).ln(), _lit(0.0)).sum()
        if self.ips_rule:  # each click at its own place: the rows of a block are in no one order here
            aggs.update(self._ips_row_sums(x))
        for k in self.ks_ideal:
            ipos = x[f"{P}ipos"]
            within = ipos <= k if k is not None else ipos > 0
            aggs[f"{P}b_idcg{_tag(k)}"] = ibis.ifelse(within, x[f"{P}gain"] * (_LN2 / _f(ipos + 1).ln()), _lit(0.0)).sum()
        for k in self.ks_first:
            tag = _tag(k)
            if "mrr" in self.names:
                term, at = x[f"{P}rr"], x[f"{P}m"] + x[f"{P}j"]
                aggs[f"{P}b_rr{tag}"] = (term if k is None else ibis.ifelse(at <= k, term, _lit(0.0))).sum()
            if "hit_rate" in self.names and k is not None:
                aggs[f"{P}b_hitlog{tag}"] = x[f"{P}hitlog{tag}"].sum()
                aggs[f"{P}b_hitsure{tag}"] = x[f"{P}hitsure{tag}"].max()
        return aggs

    def _ips_row_sums(self, x: Any) -> dict[str, Any]:
        """Under a tie rule: per block, the IPS DCG and the IPS-weighted hits of its rows at the
        places of :meth:`ips_order`."""
        import ibis

        P = self.P
        pos, ips = x[f"{P}ipspos"], x[f"{P}ips"]
        aggs: dict[str, Any] = {}
        for k in self.ks_ips_dcg:
            within = pos <= k if k is not None else pos > 0
            aggs[f"{P}b_ipsdcg{_tag(k)}"] = ibis.ifelse(within, ips * (_LN2 / _f(pos + 1).ln()), _lit(0.0)).sum()
        for k in self.ks_ips_hits:
            within = pos <= k if k is not None else pos > 0
            aggs[f"{P}b_ipshits{_tag(k)}"] = ibis.ifelse(within, ips, _lit(0.0)).sum()
        return aggs

    def cumulative(self, b: Any) -> Any:
        """Relevant rows, rows and non-relevant weight at or above each block, by an explicit
        ``ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW`` frame over the blocks in rank order."""
        import ibis

        P = self.P
        w_cum = ibis.window(group_by=[b[c] for c in self.group], order_by=self.order(b), rows=(None, 0))
        cum: dict[str, Any] = {f"{P}b_cum_p": _f(b[f"{P}b_p"]).sum().over(w_cum)}
        if self.persist or "rprec" in self.names:
            cum[f"{P}b_cum_t"] = _f(b[f"{P}b_t"]).sum().over(w_cum)
        if "rprec" in self.names:  # R-precision's cutoff: the group's relevant rows, on each of its blocks
            cum[f"{P}b_group_p"] = _f(b[f"{P}b_p"]).sum().over(ibis.window(group_by=[b[c] for c in self.group]))
        if self.sample_weight is not None:
            cum[f"{P}b_cum_wn"] = b[f"{P}b_wn"].sum().over(w_cum)
        else:
            cum[f"{P}b_cum_wn"] = _f(b[f"{P}b_t"] - b[f"{P}b_p"]).sum().over(w_cum)
        return b.mutate(**cum)

    def group_sums(self, b: Any) -> dict[str, Any]:
        """Per group: the sums every requested metric is finished from (:func:`group_values`)."""
        import ibis

        P = self.P
        tf, pf = _f(b[f"{P}b_t"]), _f(b[f"{P}b_p"])
        out: dict[str, Any] = {f"{P}s_n": b[f"{P}b_t"].sum(), f"{P}s_positives": b[f"{P}b_p"].sum()}
        if self.sample_weight is not None:
            out[f"{P}s_wpos"] = b[f"{P}b_wp"].sum()
            out[f"{P}s_wneg"] = b[f"{P}b_wn"].sum()
        if {"auc", "gauc"} & self.names:
            wp = b[f"{P}b_wp"] if self.sample_weight is not None else pf
            wn = b[f"{P}b_wn"] if self.sample_weight is not None else tf - pf
            out[f"{P}s_auc_below"] = (wp * b[f"{P}b_cum_wn"]).sum()
            out[f"{P}s_auc_tied"] = (wp * wn).sum()
        out.update(self._list_sums(b, tf, pf))
        for c in [c for c in b.columns if c.startswith((f"{P}b_cal_", f"{P}b_sum", f"{P}b_graded"))]:
            out[f"{P}s_{c[len(P) + 2:]}"] = b[c].sum()
        if "rprec" in self.names:  # the block cut by rank R after r = clip(R - m, 0, t) rows: r p / t relevant
            r = b[f"{P}b_group_p"] - (b[f"{P}b_cum_t"] - tf)
            r = ibis.ifelse(r <= 0.0, _lit(0.0), ibis.ifelse(r >= tf, tf, r))
            out[f"{P}s_rprec_hits"] = (pf * r / tf).sum()
        for q in self.persist:  # RBP: the block's share of (1 - p) p^(i - 1) over its positions, closed form
            out[f"{P}s_rbp{_tag(q)}"] = (pf / tf * _lit(q) ** (b[f"{P}b_cum_t"] - tf) * (1.0 - _lit(q) ** tf)).sum()
        return out

    def _list_sums(self, b: Any, tf: Any, pf: Any) -> dict[str, Any]:
        """DCG, AP and hits at each cutoff, IDCG, the first relevant block's RR and hit probability."""
        import ibis

        P, names, out = self.P, self.names, {}
        above = b[f"{P}b_cum_p"] - pf
        first = (b[f"{P}b_p"] > 0) & (above == 0)
        for k in self.ks_pos:
            tag = _tag(k)
            s = _f(b[f"{P}b_s{tag}"])
            if self.gains:
                out[f"{P}s_dcg{tag}"] = (b[f"{P}b_gain"] / tf * b[f"{P}b_disc{tag}"]).sum()
            if "map" in names:  # McSherry & Najork: sum_{s<=S} (p/t)(R + 1 + (s-1)(p-1)/(t-1))/(m + s)
                h = b[f"{P}b_inv{tag}"]
                a = pf / tf * (above + 1.0)
                c = ibis.ifelse(b[f"{P}b_t"] > 1, pf / tf * (pf - 1.0) / ibis.greatest(tf - 1.0, _lit(1.0)), _lit(0.0))
                out[f"{P}s_ap{tag}"] = (a * h + c * (s - (_f(b[f"{P}b_m"]) + 1.0) * h)).sum()
            if {"precision", "recall"} & names:
                out[f"{P}s_hits{tag}"] = (pf * s / tf).sum()
        if self.ips:
            out.update(self._ips_sums(b, tf))
        for k in self.ks_ideal:
            out[f"{P}s_idcg{_tag(k)}"] = b[f"{P}b_idcg{_tag(k)}"].sum()
        for k in self.ks_first:
            tag = _tag(k)
            if "mrr" in names:
                out[f"{P}s_rr{tag}"] = ibis.ifelse(first, b[f"{P}b_rr{tag}"], _lit(0.0)).sum()
            if "hit_rate" in names and k is not None:
                miss = ibis.ifelse(b[f"{P}b_hitsure{tag}"] == 1, _lit(0.0), b[f"{P}b_hitlog{tag}"].exp())
                out[f"{P}s_hit{tag}"] = ibis.ifelse(first, 1.0 - miss, _lit(0.0)).sum()
        return out

    def _ips_sums(self, b: Any, tf: Any) -> dict[str, Any]:
        """The IPS metrics: a block's summed click weight spread over its positions, as DCG's gain
        (``ties="expected"``), or the sums of its rows at their own places (a tie rule)."""
        P = self.P
        out = {f"{P}s_ips": b[f"{P}b_ips"].sum()}
        for k in self.ks_ips_dcg:
            tag = _tag(k)
            out[f"{P}s_ipsdcg{tag}"] = (b[f"{P}b_ipsdcg{tag}"].sum() if self.ips_rule
                                        else (b[f"{P}b_ips"] / tf * b[f"{P}b_disc{tag}"]).sum())
        for k in self.ks_ips_hits:
            tag = _tag(k)
            out[f"{P}s_ipshits{tag}"] = (b[f"{P}b_ipshits{tag}"].sum() if self.ips_rule
                                         else (b[f"{P}b_ips"] * (_f(b[f"{P}b_s{tag}"]) / tf)).sum())
        return out


def _tag(k: Any) -> str:
    return "" if k is None else f"@{k}"


def group_values(
    table: pd.DataFrame,
    stats: Sequence[Stat],
    *,
    ties: str = "expected",
    denominator: str = "relevant",
    empty: str = "zero",
    weighted: bool = False,
    prefix: str = "__rk_",
) -> pd.DataFrame:
    """Every group's metric values from the rows of :func:`group_stats` (vectorized, on the client).

    ``auc`` is NaN where the group has one class only (or a class of total weight 0); the list
    metrics of a group with no relevant row are 0 (``empty="zero"``) or NaN (``"skip"``).
    """
    table = table.rename(columns=lambda c: c[len(prefix) + 2:] if str(c).startswith(prefix + "s_") else c)
    n = table["n"].to_numpy(dtype=np.float64)
    pos = table["positives"].to_numpy(dtype=np.float64)
    if weighted:
        wp, wn = table["wpos"].to_numpy(dtype=np.float64), table["wneg"].to_numpy(dtype=np.float64)
    else:
        wp, wn = pos, n - pos
    out = {}
    has = pos > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        for s in stats:
            tag = _tag(s.k)
            if s.name in ("auc", "gauc"):
                credit = {"expected": 0.5, "pessimistic": 0.0, "optimistic": 1.0}[ties]
                below = table["auc_below"].to_numpy(dtype=np.float64)
                tied = table["auc_tied"].to_numpy(dtype=np.float64)
                u = wp * wn - below + credit * tied
                v = np.where((wp > 0) & (wn > 0), u / (wp * wn), np.nan)
                out["auc"] = v
                continue
            if s.name in CALIBRATION:
                out[s.label] = _calibration_value(table, s)
                continue
            if s.name == "gxauc":  # (T - D - S / 2) / T, as the pandas kernel: (2 (2T) - 4D - 2S) / 4 over (2T) / 2
                t2 = table["xauc_t2"].to_numpy(dtype=np.float64)
                d, s2 = table["xauc_d"].to_numpy(dtype=np.float64), table["xauc_s2"].to_numpy(dtype=np.float64)
                num4 = 2.0 * t2 - 4.0 * d - s2
                out["gxauc"] = np.where(t2 > 0, (num4 / 4.0) / (t2 / 2.0), np.nan)
                continue
            if s.name == "mrr":
                v = table[f"rr{tag}"].to_numpy(dtype=np.float64)
            elif s.name == "ndcg":
                dcg = table[f"dcg{tag}"].to_numpy(dtype=np.float64)
                ideal = table[f"idcg{tag}"].to_numpy(dtype=np.float64)
                v = np.where(ideal > 0, dcg / ideal, 1.0)
            elif s.name == "dcg":
                v = table[f"dcg{tag}"].to_numpy(dtype=np.float64)
            elif s.name == "map":
                d = pos if (denominator == "relevant" or s.k is None) else np.minimum(pos, s.k)
                v = table[f"ap{tag}"].to_numpy(dtype=np.float64) / d
            elif s.name == "precision":
                v = table[f"hits{tag}"].to_numpy(dtype=np.float64) / float(s.k)
            elif s.name == "recall":
                v = table[f"hits{tag}"].to_numpy(dtype=np.float64) / pos
            elif s.name == "rprec":
                v = table["rprec_hits"].to_numpy(dtype=np.float64) / pos
            elif s.name == "hit_rate":
                v = table[f"hit{tag}"].to_numpy(dtype=np.float64)
            elif s.name == "rbp":
                v = table[f"rbp{tag}"].to_numpy(dtype=np.float64)
            elif s.name == "ips_dcg":
                v = table[f"ipsdcg{tag}"].to_numpy(dtype=np.float64)
            elif s.name == "ips_precision":
                v = table[f"ipshits{tag}"].to_numpy(dtype=np.float64) / float(s.k)
            elif s.name == "ips_hit_rate":
                v = table[f"ipshits{tag}"].to_numpy(dtype=np.float64)
            else:  # pragma: no cover - the caller checks the names
                raise ValueError(s.name)
            if s.name != "dcg":
                v = np.where(has, v, 0.0 if empty == "zero" else np.nan)
            out[s.label] = v
    return pd.DataFrame(out, index=table.index)


def _calibration_value(table: pd.DataFrame, s: Stat) -> np.ndarray:
    """A group's own calibration value from its row sums (NaN where it is undefined)."""
    from ...core.kernels.calibration import binary_entropy

    def col(c: str) -> np.ndarray:
        return table[f"cal_{c}"].to_numpy(dtype=np.float64)

    def ratio(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        out = np.full(a.shape, np.nan)
        np.divide(a, b, out=out, where=b > 0)
        return out

    w = col("w")
    if s.name == "logloss":
        return ratio(col("wl"), w)
    if s.name == "ne":
        return ratio(col("wl"), w) / binary_entropy(ratio(col("wy"), w))
    if s.name == "pcoc":
        return ratio(col("wp"), col("wy"))
    bins = int(s.k or 10)
    d = sum(np.abs(col(f"ece{bins}_d{b}")) for b in range(bins))
    total = sum(col(f"ece{bins}_w{b}") for b in range(bins))
    return ratio(np.asarray(d, dtype=np.float64), np.asarray(total, dtype=np.float64))


def score_counts(t: Any, *, keys: Sequence[Hashable], sample_weight: Hashable | None = None,
                 n: str = "n", w: str = "w") -> Any:
    """Rows (and summed sample weights) per distinct ``keys`` (segments, the score, a tie-break,
    the label): the table global AUC is chained from, exactly, on the client
    (:func:`pandas_rankeval.summary.ranges.auc_ranges`). One row per distinct score and label."""
    aggs: dict[str, Any] = {n: t.count()}
    if sample_weight is not None:
        aggs[w] = _f(t[str(sample_weight)]).sum()
    return t.group_by([str(c) for c in keys]).aggregate(**aggs)
