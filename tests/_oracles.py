"""Reference implementations of every pandas_rankeval metric, for the tests.

Written from the metric contract (docs/guide/metric-contract.md) only, for clarity and not for speed:
plain Python loops over plain lists, no numpy kernels, no shared code with the library.

Ties are handled by brute force. For one group we enumerate every ordering of its rows that is
consistent with (score descending, tiebreak ascending) -- every permutation inside each tied
block -- evaluate the metric on each ordering and take

- the mean over all orderings ("expected"; each ordering equally likely),
- the minimum ("pessimistic"),
- the maximum ("optimistic").

The contract defines "pessimistic"/"optimistic" as "relevant items sort last/first inside a
tie". For the binary list metrics (MRR, AP, precision, recall, hit rate) moving a relevant item
one place down never increases the metric, so that rule gives exactly the minimum/maximum. For
NDCG with graded labels the rule must read "lower labels first" (pessimistic) / "higher labels
first" (optimistic) inside a tie; by the rearrangement inequality (gains paired with the
non-increasing discounts 1/log2(i+1), 0 past the cutoff) that ordering is again exactly the
minimum/maximum DCG, and IDCG does not depend on the ordering. Both facts are checked in
tests/test_oracles_selfcheck.py against the enumeration, so min/max is the oracle for both.

AUC is computed by counting (positive, negative) pairs directly: a pair where the positive is
ordered above counts 1, below counts 0, tied counts 1/2, 0 or 1 by mode; a pair weighs
w_pos * w_neg with sample weights.

Empty groups (no relevant row) of the list metrics score 0 under empty="zero", are left out of
numerator and denominator under "skip", and raise under "error".

Relevance is one rule everywhere: label > 0, or label >= threshold when a threshold is given
(threshold <= 0 makes every row of non-negative labels relevant). The group weights follow it
too: "clicks" is P_g, the group's relevant rows under that rule (for NDCG as for every other
metric), and a callable weight sees the same P_g in its "positives" column.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections import Counter
from typing import Callable, Sequence

import pandas as pd

TIES = ("expected", "pessimistic", "optimistic")
LIST_METRICS = ("mrr", "ndcg", "map", "precision", "recall", "hit_rate")
MAX_ORDERINGS = 2_000_000


# ----------------------------------------------------------------------------------------------
# relevance and gains
# ----------------------------------------------------------------------------------------------
def is_relevant(label, threshold=None) -> bool:
    """Relevance rule: label > 0, or label >= threshold when a threshold is given."""
    if threshold is None:
        return label > 0
    return label >= threshold


def gain(label, kind="exp2") -> float:
    if kind == "exp2":
        return 2.0 ** label - 1.0
    if kind == "linear":
        return float(label)
    raise ValueError(f"unknown gain {kind!r}")


def discount(rank: int) -> float:
    """Discount of 1-based rank i: 1 / log2(i + 1)."""
    return 1.0 / math.log2(rank + 1)


# ----------------------------------------------------------------------------------------------
# per-list metrics: `labels` is one group's labels in ranked order (rank 1 first)
# ----------------------------------------------------------------------------------------------
def _top(labels: Sequence, k):
    return list(labels) if k is None else list(labels)[:k]


def reciprocal_rank(labels, k=None, threshold=None) -> float:
    for rank, lab in enumerate(_top(labels, k), start=1):
        if is_relevant(lab, threshold):
            return 1.0 / rank
    return 0.0


def dcg(labels, k=None, gain_kind="exp2") -> float:
    return math.fsum(
        gain(lab, gain_kind) * discount(rank) for rank, lab in enumerate(_top(labels, k), start=1)
    )


def ideal_dcg(labels, k=None, gain_kind="exp2") -> float:
    return dcg(sorted(labels, reverse=True), k, gain_kind)


def gained_labels(labels, threshold=None) -> list:
    """Labels as NDCG sees them: a label below the relevance threshold gains nothing."""
    return [lab if is_relevant(lab, threshold) else 0 for lab in labels]


def ndcg(labels, k=None, gain_kind="exp2", threshold=None) -> float:
    """DCG@k / IDCG@k; 0.0 when the group has no relevant row; 1.0 when it has relevant rows
    that all gain nothing (threshold <= 0 with label-0 rows: every ordering is ideal)."""
    eff = gained_labels(labels, threshold)
    idcg = ideal_dcg(eff, k, gain_kind)
    if idcg == 0:
        return 0.0 if is_empty_group(labels, "ndcg", threshold) else 1.0
    return dcg(eff, k, gain_kind) / idcg


def average_precision(labels, k=None, denominator="relevant", threshold=None) -> float:
    """AP@k = (1/D) sum_{relevant i <= k} precision@i; D = P_g or min(P_g, k)."""
    n_rel = sum(1 for lab in labels if is_relevant(lab, threshold))
    if n_rel == 0:
        return 0.0
    if denominator == "relevant":
        d = n_rel
    elif denominator == "min_k":
        d = n_rel if k is None else min(n_rel, k)
    else:
        raise ValueError(f"unknown denominator {denominator!r}")
    hits = 0
    total = []
    for rank, lab in enumerate(_top(labels, k), start=1):
        if is_relevant(lab, threshold):
            hits += 1
            total.append(hits / rank)
    return math.fsum(total) / d


def hits_at_k(labels, k, threshold=None) -> int:
    return sum(1 for lab in _top(labels, k) if is_relevant(lab, threshold))


def precision_at_k(labels, k, threshold=None) -> float:
    """Relevant rows in the top k divided by k, also when the list is shorter than k."""
    return hits_at_k(labels, k, threshold) / k


def recall_at_k(labels, k, threshold=None) -> float:
    n_rel = sum(1 for lab in labels if is_relevant(lab, threshold))
    if n_rel == 0:
        return 0.0
    return hits_at_k(labels, k, threshold) / n_rel


def hit_at_k(labels, k, threshold=None) -> float:
    return 1.0 if hits_at_k(labels, k, threshold) > 0 else 0.0


def list_metric_fn(metric: str, *, k=None, gain_kind="exp2", denominator="relevant",
                   threshold=None) -> Callable[[Sequence], float]:
    """A function of one ranked label list for the named metric."""
    if metric == "mrr":
        return lambda labels: reciprocal_rank(labels, k, threshold)
    if metric == "ndcg":
        return lambda labels: ndcg(labels, k, gain_kind, threshold)
    if metric == "map":
        return lambda labels: average_precision(labels, k, denominator, threshold)
    if metric == "precision":
        return lambda labels: precision_at_k(labels, k, threshold)
    if metric == "recall":
        return lambda labels: recall_at_k(labels, k, threshold)
    if metric == "hit_rate":
        return lambda labels: hit_at_k(labels, k, threshold)
    raise ValueError(f"unknown metric {metric!r}")


def is_empty_group(labels, metric: str, threshold=None) -> bool:
    """A group with no relevant row: one rule for every list metric, NDCG included."""
    return not any(is_relevant(lab, threshold) for lab in labels)


# ----------------------------------------------------------------------------------------------
# ties by enumeration
# ----------------------------------------------------------------------------------------------
def tie_blocks(scores, tiebreak=None) -> list[list[int]]:
    """Row positions grouped into blocks of equal (score, tiebreak), best block first."""
    n = len(scores)
    tb = [0] * n if tiebreak is None else list(tiebreak)
    keys = sorted(set((s, t) for s, t in zip(scores, tb)), key=lambda st: (-st[0], st[1]))
    return [[i for i in range(n) if (scores[i], tb[i]) == key] for key in keys]


def all_orderings(labels, scores, tiebreak=None) -> Counter:
    """Every ordering of the labels consistent with (score desc, tiebreak asc).

    Each ordering of the rows is one element; orderings that give the same label sequence are
    counted together (the Counter maps label tuple -> number of row orderings giving it), so
    a mean weighted by these counts is the mean over all row orderings.
    """
    return Counter(dict(_orderings(tuple(labels), tuple(scores),
                                   None if tiebreak is None else tuple(tiebreak))))


@functools.lru_cache(maxsize=4096)
def _orderings(labels: tuple, scores: tuple, tiebreak) -> tuple:
    """all_orderings as a tuple of (label tuple, count), remembered: the test matrices ask for
    the same small groups under many metrics and tie modes (a pure function of its arguments,
    so remembering it changes no result)."""
    blocks = tie_blocks(scores, tiebreak)
    n_orderings = math.prod(math.factorial(len(b)) for b in blocks)
    if n_orderings > MAX_ORDERINGS:
        raise ValueError(f"{n_orderings} orderings is too many to enumerate")
    per_block = [list(itertools.permutations(block)) for block in blocks]
    out: Counter = Counter()
    for combo in itertools.product(*per_block):
        out[tuple(labels[i] for block in combo for i in block)] += 1
    return tuple(out.items())


def tie_summary(metric: Callable[[Sequence], float], labels, scores, tiebreak=None) -> dict:
    """{"expected": mean, "pessimistic": min, "optimistic": max} of metric over all orderings."""
    orders = all_orderings(list(labels), list(scores), tiebreak)
    values = {order: metric(order) for order in orders}
    total = sum(orders.values())
    return {
        "expected": math.fsum(values[o] * c for o, c in orders.items()) / total,
        "pessimistic": min(values.values()),
        "optimistic": max(values.values()),
    }


def tie_value(metric, labels, scores, tiebreak=None, ties="expected") -> float:
    if ties not in TIES:
        raise ValueError(f"unknown ties {ties!r}")
    return tie_summary(metric, labels, scores, tiebreak)[ties]


def mean_over_groups(df: pd.DataFrame, metric: Callable[[Sequence], float], ties="expected", empty="zero",
                     tiebreak=None, threshold=None, group="g", label="y", score="s") -> float:
    """The unweighted mean over groups of ``metric`` (of one ordering's labels) under the tie rule,
    each group's value from :func:`tie_value`; a group with no relevant row scores 0 (``empty='zero'``)
    or is left out (``'skip'``)."""
    vals = []
    for _, grp in df.groupby(group):
        labels, scores = grp[label].tolist(), grp[score].tolist()
        tb = grp[tiebreak].tolist() if tiebreak else None
        if not any(is_relevant(y, threshold) for y in labels):
            if empty == "skip":
                continue
            vals.append(0.0)
            continue
        vals.append(tie_value(metric, labels, scores, tb, ties))
    return math.fsum(vals) / len(vals)


def contract_order(labels, scores, tiebreak=None, ties="pessimistic", threshold=None,
                   graded=False) -> list:
    """The ordering named by the contract's rule (not used as the oracle, only self-checked).

    Inside each tied block relevant items go last (pessimistic) or first (optimistic); with
    graded=True the block is sorted by label ascending (pessimistic) or descending.
    """
    out = []
    for block in tie_blocks(list(scores), tiebreak):
        labs = [labels[i] for i in block]
        if graded:
            key = lambda lab: lab  # noqa: E731
        else:
            key = lambda lab: is_relevant(lab, threshold)  # noqa: E731
        out.extend(sorted(labs, key=key, reverse=(ties == "optimistic")))
    return out


# ----------------------------------------------------------------------------------------------
# AUC by pairs
# ----------------------------------------------------------------------------------------------
def pair_value(i, j, scores, tiebreak, ties) -> float:
    """Credit of the pair (positive row i, negative row j)."""
    if scores[i] != scores[j]:
        return 1.0 if scores[i] > scores[j] else 0.0
    if tiebreak is not None and tiebreak[i] != tiebreak[j]:
        return 1.0 if tiebreak[i] < tiebreak[j] else 0.0
    return {"expected": 0.5, "pessimistic": 0.0, "optimistic": 1.0}[ties]


def auc(labels, scores, sample_weight=None, ties="expected", tiebreak=None,
        threshold=None) -> float:
    """Mann-Whitney AUC by counting pairs; NaN when one class is missing or when the positives
    or the negatives have total sample weight 0 (no pair has weight: the contract's
    "zero weights" skip)."""
    n = len(labels)
    w = [1.0] * n if sample_weight is None else [float(x) for x in sample_weight]
    pos = [i for i in range(n) if is_relevant(labels[i], threshold)]
    neg = [i for i in range(n) if not is_relevant(labels[i], threshold)]
    if not pos or not neg:
        return math.nan
    num = math.fsum(w[i] * w[j] * pair_value(i, j, scores, tiebreak, ties)
                    for i in pos for j in neg)
    den = math.fsum(w[i] * w[j] for i in pos for j in neg)
    if den == 0:
        return math.nan
    return num / den


# ----------------------------------------------------------------------------------------------
# groups, weights, aggregation
# ----------------------------------------------------------------------------------------------
def _as_list(df: pd.DataFrame, col):
    return None if col is None else df[col].tolist()


def split_groups(df: pd.DataFrame, group) -> dict:
    """{group key: [row positions]} in first-seen order; a list of columns gives tuple keys."""
    cols = [group] if isinstance(group, str) else list(group)
    columns = [df[c].tolist() for c in cols]
    out: dict = {}
    for pos in range(len(df)):
        values = tuple(col[pos] for col in columns)
        key = values[0] if isinstance(group, str) else values
        out.setdefault(key, []).append(pos)
    return out


def group_stats(df, group, label, threshold=None) -> dict:
    """{key: {"n": rows, "positives": P_g, "negatives": N_g}}."""
    labels = df[label].tolist()
    out = {}
    for key, rows in split_groups(df, group).items():
        p = sum(1 for i in rows if is_relevant(labels[i], threshold))
        out[key] = {"n": len(rows), "positives": p, "negatives": len(rows) - p}
    return out


def stats_frame(stats: dict, group) -> pd.DataFrame:
    keys = list(stats)
    if isinstance(group, str):
        index = pd.Index(keys, name=group)
    else:
        index = pd.MultiIndex.from_tuples(keys, names=list(group))
    return pd.DataFrame(
        {c: [stats[k][c] for k in keys] for c in ("n", "positives", "negatives")}, index=index
    )


def group_weights(df, group, weight, stats: dict) -> dict:
    """{key: w_g} for every weight option of the contract."""
    keys = list(stats)
    if isinstance(weight, str) and weight == "count":
        return {k: float(stats[k]["n"]) for k in keys}
    if isinstance(weight, str) and weight == "clicks":
        return {k: float(stats[k]["positives"]) for k in keys}
    if isinstance(weight, str) and weight == "log1p":
        return {k: math.log1p(stats[k]["n"]) for k in keys}
    if isinstance(weight, str) and weight == "uniform":
        return {k: 1.0 for k in keys}
    if isinstance(weight, str):  # a column: per-group sum
        col = df[weight].tolist()
        groups = split_groups(df, group)
        return {k: math.fsum(float(col[i]) for i in groups[k]) for k in keys}
    if isinstance(weight, pd.Series):
        return {k: float(weight.loc[k]) for k in keys}
    if callable(weight):
        frame = stats_frame(stats, group)
        result = weight(frame)
        if isinstance(result, pd.Series):
            return {k: float(result.loc[k]) for k in keys}
        values = list(result)
        return {k: float(values[pos]) for pos, k in enumerate(keys)}
    raise ValueError(f"unknown weight {weight!r}")


def weighted_mean(values: dict, weights: dict) -> float:
    keys = list(values)
    den = math.fsum(weights[k] for k in keys)
    if not keys or den == 0:
        return math.nan
    return math.fsum(weights[k] * values[k] for k in keys) / den


# ----------------------------------------------------------------------------------------------
# GAUC
# ----------------------------------------------------------------------------------------------
def eligible(st: dict, min_size=None, min_pos=None, min_neg=None) -> bool:
    if st["positives"] == 0 or st["negatives"] == 0:
        return False
    if min_size is not None and st["n"] < min_size:
        return False
    if min_pos is not None and st["positives"] < min_pos:
        return False
    if min_neg is not None and st["negatives"] < min_neg:
        return False
    return True


def gauc_per_group(df, *, group, label, score, sample_weight=None, ties="expected",
                   tiebreak=None, threshold=None, min_size=None, min_pos=None,
                   min_neg=None) -> dict:
    """{key: AUC_g} for every group; NaN for groups outside G*."""
    labels, scores = df[label].tolist(), df[score].tolist()
    sw, tb = _as_list(df, sample_weight), _as_list(df, tiebreak)
    stats = group_stats(df, group, label, threshold)
    out = {}
    for key, rows in split_groups(df, group).items():
        if not eligible(stats[key], min_size, min_pos, min_neg):
            out[key] = math.nan
            continue
        out[key] = auc(
            [labels[i] for i in rows], [scores[i] for i in rows],
            None if sw is None else [sw[i] for i in rows], ties,
            None if tb is None else [tb[i] for i in rows], threshold,
        )
    return out


def gauc(df, *, group, label, score, weight="count", sample_weight=None, ties="expected",
         tiebreak=None, threshold=None, min_size=None, min_pos=None, min_neg=None) -> float:
    """sum_g w_g AUC_g / sum_g w_g over eligible groups; NaN when none is eligible."""
    per = gauc_per_group(df, group=group, label=label, score=score,
                         sample_weight=sample_weight, ties=ties, tiebreak=tiebreak,
                         threshold=threshold, min_size=min_size, min_pos=min_pos,
                         min_neg=min_neg)
    stats = group_stats(df, group, label, threshold)
    weights = group_weights(df, group, weight, stats)
    used = {k: v for k, v in per.items() if not math.isnan(v)}
    return weighted_mean(used, weights)


def global_auc(df, *, label, score, sample_weight=None, ties="expected", tiebreak=None,
               threshold=None) -> float:
    return auc(df[label].tolist(), df[score].tolist(), _as_list(df, sample_weight), ties,
               _as_list(df, tiebreak), threshold)


# ----------------------------------------------------------------------------------------------
# list metrics over groups
# ----------------------------------------------------------------------------------------------
def list_metric_per_group(df, *, metric, group, label, score, k=None, gain="exp2",
                          denominator="relevant", ties="expected", tiebreak=None,
                          threshold=None) -> dict:
    """{key: value} for every group; None for a group with no relevant row."""
    if ties not in TIES:
        raise ValueError(f"unknown ties {ties!r}")
    labels, scores, tb = df[label].tolist(), df[score].tolist(), _as_list(df, tiebreak)
    out = {}
    for key, rows in split_groups(df, group).items():
        labs = [labels[i] for i in rows]
        if is_empty_group(labs, metric, threshold):
            out[key] = None
            continue
        summary = _group_tie_summary(metric, k, gain, denominator, threshold, tuple(labs),
                                     tuple(scores[i] for i in rows),
                                     None if tb is None else tuple(tb[i] for i in rows))
        out[key] = summary[TIES.index(ties)]
    return out


@functools.lru_cache(maxsize=65536)
def _group_tie_summary(metric, k, gain, denominator, threshold, labels, scores, tiebreak):
    """(expected, pessimistic, optimistic) of one group's list metric by enumeration,
    remembered across the tie modes and tests that ask for the same group (pure function)."""
    fn = list_metric_fn(metric, k=k, gain_kind=gain, denominator=denominator,
                        threshold=threshold)
    summary = tie_summary(fn, labels, scores, tiebreak)
    return tuple(summary[t] for t in TIES)


def list_metric(df, *, metric, group, label, score, k=None, gain="exp2",
                denominator="relevant", weight="uniform", ties="expected", tiebreak=None,
                threshold=None, empty="zero") -> float:
    """Weighted mean over groups of one list metric, with the empty-group policy."""
    per = list_metric_per_group(df, metric=metric, group=group, label=label, score=score, k=k,
                                gain=gain, denominator=denominator, ties=ties,
                                tiebreak=tiebreak, threshold=threshold)
    if empty == "error" and any(v is None for v in per.values()):
        raise ValueError("a group has no relevant row")
    if empty == "zero":
        values = {key: 0.0 if v is None else v for key, v in per.items()}
    elif empty in ("skip", "error"):
        values = {key: v for key, v in per.items() if v is not None}
    else:
        raise ValueError(f"unknown empty {empty!r}")
    # P_g ("clicks", the callable's "positives") under the one relevance rule, NDCG included
    stats = group_stats(df, group, label, threshold)
    return weighted_mean(values, group_weights(df, group, weight, stats))


# ----------------------------------------------------------------------------------------------
# the contract's closed forms (checked against enumeration in the self-check tests)
# ----------------------------------------------------------------------------------------------
def expected_rr_closed_form(m: int, t: int, p: int, k=None) -> float:
    """m items strictly above the block holding the first relevant item, t in it, p relevant."""
    return math.fsum(
        math.comb(t - j, p - 1) / math.comb(t, p) / (m + j)
        for j in range(1, t - p + 2)
        if k is None or m + j <= k
    )


def expected_hits_in_block(r: int, t: int, p: int) -> float:
    """A block of t (p relevant) fills r slots before the cutoff: expected relevant in them."""
    return r * p / t


def hit_probability_in_block(r: int, t: int, p: int) -> float:
    return 1.0 - math.comb(t - p, r) / math.comb(t, r)


def expected_closed_form(metric, labels, scores, tiebreak=None, *, k=None, gain_kind="exp2",
                         denominator="relevant", threshold=None) -> float:
    """ties="expected" of one group without enumeration, for groups too large to enumerate.

    Each formula is the contract's (or follows from linearity of expectation) and is checked
    against the enumeration in the self-check tests:
    - NDCG: every item of a tied block gets the block's mean gain.
    - MRR: the contract's sum over the block holding the first relevant item.
    - precision/recall: a block filling r of the slots left before the cutoff holds r*p/t
      relevant items on average; hit: no relevant item in the top k has probability
      prod over blocks of C(t-p, r) / C(t, r).
    - AP: a relevant item of a block of t rows (p relevant) after m rows holding R relevant sits
      at each place j of the block with probability 1/t, and then has on average
      (j-1)(p-1)/(t-1) relevant block-mates before it, so its expected precision is
      (R + 1 + (j-1)(p-1)/(t-1)) / (m + j).
    """
    labels, scores = list(labels), list(scores)
    rel_labels = labels
    blocks = tie_blocks(scores, tiebreak)
    if metric == "ndcg":
        labels = gained_labels(labels, threshold)
        idcg = ideal_dcg(labels, k, gain_kind)
        if idcg == 0:
            return 0.0 if is_empty_group(rel_labels, "ndcg", threshold) else 1.0
        parts, pos = [], 0
        for block in blocks:
            mean_gain = math.fsum(gain(labels[i], gain_kind) for i in block) / len(block)
            ranks = range(pos + 1, pos + len(block) + 1)
            parts.append(mean_gain * math.fsum(discount(r) for r in ranks if k is None or r <= k))
            pos += len(block)
        return math.fsum(parts) / idcg

    rel = [is_relevant(lab, threshold) for lab in labels]
    n_rel = sum(rel)
    if n_rel == 0:
        return 0.0
    cutoff = len(labels) if k is None else k
    if metric == "mrr":
        pos = 0
        for block in blocks:
            p = sum(rel[i] for i in block)
            if p:
                return expected_rr_closed_form(pos, len(block), p, k)
            pos += len(block)
    if metric in ("precision", "recall", "hit_rate"):
        hits, p_miss, pos = [], 1.0, 0
        for block in blocks:
            t, p = len(block), sum(rel[i] for i in block)
            r = max(0, min(t, cutoff - pos))
            hits.append(expected_hits_in_block(r, t, p))
            p_miss *= math.comb(t - p, r) / math.comb(t, r)
            pos += t
        if metric == "precision":
            return math.fsum(hits) / cutoff
        if metric == "recall":
            return math.fsum(hits) / n_rel
        return 1.0 - p_miss
    if metric == "map":
        d = n_rel if denominator == "relevant" or k is None else min(n_rel, k)
        parts, pos, above = [], 0, 0
        for block in blocks:
            t, p = len(block), sum(rel[i] for i in block)
            for j in range(1, t + 1):
                if pos + j > cutoff:
                    break
                mates = 0.0 if t == 1 else (j - 1) * (p - 1) / (t - 1)
                parts.append(p / t * (above + 1 + mates) / (pos + j))
            pos += t
            above += p
        return math.fsum(parts) / d
    raise ValueError(f"unknown metric {metric!r}")


def list_metric_large(df, *, metric, group, label, score, k=None, gain="exp2",
                      denominator="relevant", weight="uniform", ties="expected", tiebreak=None,
                      threshold=None, empty="zero") -> float:
    """list_metric for groups too large to enumerate: closed forms for "expected", the
    contract's ordering rule for "pessimistic"/"optimistic" (both checked against enumeration
    in the self-check tests)."""
    labels, scores, tb = df[label].tolist(), df[score].tolist(), _as_list(df, tiebreak)
    fn = list_metric_fn(metric, k=k, gain_kind=gain, denominator=denominator,
                        threshold=threshold)
    values = {}
    for key, rows in split_groups(df, group).items():
        labs, scs = [labels[i] for i in rows], [scores[i] for i in rows]
        tbs = None if tb is None else [tb[i] for i in rows]
        if is_empty_group(labs, metric, threshold):
            if empty == "error":
                raise ValueError("a group has no relevant row")
            if empty == "zero":
                values[key] = 0.0
            continue
        if ties == "expected":
            values[key] = expected_closed_form(metric, labs, scs, tbs, k=k, gain_kind=gain,
                                               denominator=denominator, threshold=threshold)
        else:
            order = contract_order(labs, scs, tbs, ties, threshold, graded=(metric == "ndcg"))
            values[key] = fn(order)
    # P_g ("clicks", the callable's "positives") under the one relevance rule, NDCG included
    stats = group_stats(df, group, label, threshold)
    return weighted_mean(values, group_weights(df, group, weight, stats))


# ----------------------------------------------------------------------------------------------
# XAUC (continuous labels): every pair of rows
# ----------------------------------------------------------------------------------------------
def xauc_pairs(labels, scores, weights=None) -> tuple[float, float]:
    """(credit, weight) over every unordered pair of rows with different labels: a pair weighs
    w_i * w_j and earns its weight when the larger label has the larger score, half when the
    scores tie, nothing otherwise. XAUC = credit / weight (undefined when weight is 0)."""
    n = len(labels)
    w = [1.0] * n if weights is None else list(weights)
    credit = total = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            if labels[i] == labels[j]:
                continue
            pw = w[i] * w[j]
            total += pw
            if scores[i] == scores[j]:
                credit += pw / 2
            elif (labels[i] > labels[j]) == (scores[i] > scores[j]):
                credit += pw
    return credit, total
