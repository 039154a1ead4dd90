"""Metric names: one table that parses "ndcg@10" and writes the list of valid names."""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

__all__ = ["MetricSpec", "METRICS", "parse_metric", "parse_metrics", "valid_names"]


@dataclass(frozen=True)
class MetricInfo:
    kind: str
    cutoff: str  # "none": no @k; "optional": name or name@k; "required": name@k only
    grouped: bool  # averaged over groups (False only for global AUC)
    default_weight: str
    graded: bool  # needs graded label levels (NDCG)
    summary: str


METRICS: dict[str, MetricInfo] = {
    "auc": MetricInfo("auc", "none", False, "count", False, "global AUC (Mann-Whitney)"),
    "gauc": MetricInfo("gauc", "none", True, "count", False, "group AUC, weighted mean of per-group AUC"),
    "mrr": MetricInfo("mrr", "optional", True, "uniform", False, "mean reciprocal rank of the first relevant row"),
    "ndcg": MetricInfo("ndcg", "optional", True, "uniform", True, "normalized discounted cumulative gain"),
    "map": MetricInfo("map", "optional", True, "uniform", False, "mean average precision"),
    "precision": MetricInfo("precision", "required", True, "uniform", False, "relevant rows in the top k / k"),
    "recall": MetricInfo("recall", "required", True, "uniform", False, "relevant rows in the top k / relevant rows"),
    "hit_rate": MetricInfo("hit_rate", "required", True, "uniform", False, "share of groups with a relevant row in the top k"),
}


@dataclass(frozen=True)
class MetricSpec:
    """A parsed metric name: its kind and cutoff."""

    kind: str
    k: int | None

    @property
    def info(self) -> MetricInfo:
        return METRICS[self.kind]

    @property
    def name(self) -> str:
        return self.kind if self.k is None else f"{self.kind}@{self.k}"


def valid_names() -> list[str]:
    """Every accepted metric name pattern, for error messages and docs."""
    out = []
    for name, info in METRICS.items():
        if info.cutoff in ("none", "optional"):
            out.append(name)
        if info.cutoff in ("optional", "required"):
            out.append(f"{name}@K")
    return out


_PATTERN = re.compile(r"^\s*([a-z_]+)\s*(?:@\s*(\d+))?\s*$")


def parse_metric(name: str) -> MetricSpec:
    """Parse one metric name such as ``"ndcg@10"``.

    Examples
    --------
    >>> parse_metric("ndcg@10")
    MetricSpec(kind='ndcg', k=10)
    >>> parse_metric("MRR").name
    'mrr'
    """
    if not isinstance(name, str):
        raise TypeError(f"Metric names are strings such as 'ndcg@10'; got {name!r}.")
    m = _PATTERN.match(name.lower())
    kind = m.group(1) if m else None
    info = METRICS.get(kind) if kind else None
    k = int(m.group(2)) if m and m.group(2) is not None else None
    problem = None
    if info is None:
        problem = f"Unknown metric {name!r}."
    elif k is not None and info.cutoff == "none":
        problem = f"Metric {kind!r} takes no cutoff; got {name!r}."
    elif k is None and info.cutoff == "required":
        problem = f"Metric {kind!r} needs a cutoff, such as '{kind}@10'; got {name!r}."
    elif k is not None and k < 1:
        problem = f"The cutoff of {name!r} must be at least 1."
    if problem:
        valid = ", ".join(repr(v) for v in valid_names())
        close = difflib.get_close_matches(name.lower(), [v.replace("@K", "@10") for v in valid_names()], n=1)
        hint = f" Did you mean {close[0]!r}?" if close and info is None else ""
        raise ValueError(f"{problem}{hint} Valid metrics are {valid} (K a positive int).")
    return MetricSpec(str(kind), k)


def parse_metrics(names: str | Sequence[str]) -> list[MetricSpec]:
    """Parse a list of names, keeping order and dropping repeats."""
    if isinstance(names, str):
        names = [names]
    if names is None or isinstance(names, (bytes, dict)) or not isinstance(names, Iterable):
        raise TypeError(
            "The 'metrics' parameter must be a metric name or a list of names, such as "
            f"metrics=['gauc', 'ndcg@10']. Got {names!r} instead."
        )
    specs = [parse_metric(n) for n in names]
    if not specs:
        raise ValueError("Give at least one metric, such as metrics=['gauc', 'ndcg@10'].")
    return list(dict.fromkeys(specs))
