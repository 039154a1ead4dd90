"""The metric registry: every metric's entry (:mod:`.definitions`), and the parsing of names.

``parse_metric("ndcg@10")`` gives a :class:`MetricSpec`; :data:`METRICS` maps a metric's name to
its :class:`Metric` entry. Everything that lists metrics (the public functions, the accessor, the
Dask and Spark modules, the training hooks, the CLI, the docs, error messages) reads them here.
"""

from __future__ import annotations

import contextlib
import difflib
import math
import re
from collections.abc import Iterable, Iterator, Sequence

from ..inputs.validation import InvalidParameterError
from .definitions import DEFINITIONS
from .metric import Metric, MetricSpec

__all__ = [
    "Metric", "MetricSpec", "METRICS", "DEFAULT_METRICS", "TABLE_FUNCTIONS", "metric_functions", "metric_of_function",
    "namespace_methods", "public_functions", "parse_metric",
    "check_sample_weight", "parse_metrics", "registered", "sample_weight_error", "valid_names",
]

#: Metric name -> its entry, in the order of the definitions.
METRICS: dict[str, Metric] = {m.name: m for m in DEFINITIONS}

@contextlib.contextmanager
def registered(*metrics: Metric) -> Iterator[None]:
    """Add ``metrics`` to the registry for the duration of a ``with`` block, then remove them: a
    test's throwaway metric, published everywhere the registered ones are (its function, the
    accessors, the tables, the command line, the docs' lists) while the block runs."""
    taken = {n for m in METRICS.values() for n in (m.name, m.function, *m.aliases)}
    for metric in metrics:
        clash = taken & {metric.name, metric.function, *metric.aliases}
        if clash:
            raise ValueError(f"Metric {metric.name!r}: the name(s) {sorted(clash)} are taken by the registry.")
        taken |= {metric.name, metric.function, *metric.aliases}
    for metric in metrics:
        METRICS[metric.name] = metric
    try:
        yield
    finally:
        for metric in metrics:
            METRICS.pop(metric.name, None)


def valid_names() -> list[str]:
    """Every accepted metric name pattern, for error messages and docs.

    Examples
    --------
    >>> valid_names()[:4]
    ['auc', 'gauc', 'mrr', 'mrr@K']
    """
    return [p for m in METRICS.values() for p in m.patterns]


def metric_functions() -> dict[str, Metric]:
    """Public function name -> the metric it computes, aliases included (``map`` ->
    ``average_precision``'s entry), in the order of the definitions."""
    out: dict[str, Metric] = {}
    for m in METRICS.values():
        out[m.function] = m
    for m in METRICS.values():
        for alias in m.aliases:
            out.setdefault(alias, m)
    return out


#: The public functions that take a list of metrics (``metrics=``), after the metric functions.
TABLE_FUNCTIONS = ("per_group", "report", "compare")

#: The metrics ``report``, ``compare`` and the command line's ``eval`` compute when none are named.
DEFAULT_METRICS = ("auc", "gauc", "mrr", "ndcg@10")


def namespace_methods() -> dict[str, str]:
    """Method of the ``df.rank`` namespace -> the public function it forwards to: every metric's
    function, its name where that differs (``map`` -> ``average_precision``), and the tables.

    >>> namespace_methods()["map"]
    'average_precision'
    """
    out: dict[str, str] = {}
    for m in METRICS.values():
        out[m.function] = m.function
        out.setdefault(m.name, m.function)
    out.update({t: t for t in TABLE_FUNCTIONS})
    return out


def public_functions() -> list[str]:
    """Every public function that evaluates a frame, aliases excluded, in a stable order."""
    return [*dict.fromkeys(m.function for m in METRICS.values()), *TABLE_FUNCTIONS]


def metric_of_function(function: str) -> Metric:
    """The entry of the metric a public function computes (``"average_precision"`` -> map)."""
    return metric_functions()[function]


_PATTERN = re.compile(r"^\s*([a-z_]+)\s*(?:@\s*([0-9]*\.?[0-9]+(?:e-?[0-9]+)?))?\s*$")


def sample_weight_error(func: str | None = None) -> str:
    """The message for ``sample_weight`` with a metric that does not take it."""
    names = [repr(m.name) for m in METRICS.values() if "sample_weight" in m.options]
    takes = " and ".join(names) if len(names) <= 2 else f"{', '.join(names[:-1])} and {names[-1]}"
    if func is None:
        return f"sample_weight applies to {takes} only; weigh groups with weight= instead."
    return f"The 'sample_weight' parameter of {func} applies to {takes} only; weigh groups with weight= instead."


def check_sample_weight(sample_weight: object, specs: Sequence[MetricSpec], func: str | None = None) -> None:
    """Refuse ``sample_weight`` with a metric that does not take it (an option error: raised before
    any column is read, on every engine)."""
    if sample_weight is not None and any("sample_weight" not in s.info.options for s in specs):
        raise ValueError(sample_weight_error(func))


#: The most equal-width bins of ``ece@B`` (each is a component of its summary).
_MAX_BINS = 1000


#: Short names users type for a metric kind (suggested, never accepted silently).
_ALIASES = {"hr": "hit_rate", "hit": "hit_rate", "hits": "hit_rate", "hitrate": "hit_rate", "prec": "precision",
            "rec": "recall", "rr": "mrr", "recip_rank": "mrr", "ap": "map", "roc_auc": "auc"}


def _bad_parameter(name: str) -> str | None:
    """A known metric whose part after ``@`` is no number (``ndcg@-3``, ``mrr@``, ``map@k``)."""
    kind, at, param = name.strip().lower().partition("@")
    info = METRICS.get(kind.strip())
    if not at or info is None:
        return None
    if info.param.presence == "none":
        return f"Metric {kind.strip()!r} takes no cutoff; got {name!r}."
    what = {"cutoff": "a cutoff of at least 1", "persistence": "a persistence between 0 and 1",
            "bins": "a number of bins of at least 1"}[info.param.kind]
    return f"After '@', {name!r} needs {what}, such as '{kind.strip()}@{info.param.example}'."


def _unknown_hint(name: str) -> str:
    """The hint for an unknown metric name: several names in one string, or the closest kind with
    the user's own parameter kept (``hitrate@5`` -> ``hit_rate@5``, ``HR@10`` -> ``hit_rate@10``)."""
    if "," in name or ";" in name:
        parts = [p.strip() for p in re.split(r"[,;]", name) if p.strip()]
        return f" Several metrics go in a list: metrics={parts!r}."
    kind, at, param = name.strip().lower().partition("@")
    kind = kind.strip().replace("-", "_").replace(" ", "_")
    close = _ALIASES.get(kind) or next(iter(difflib.get_close_matches(kind, list(METRICS), n=1, cutoff=0.6)), None)
    if close is None:
        return ""
    info = METRICS[close]
    if at and info.param.presence != "none":
        return f" Did you mean {close + '@' + param.strip()!r}?"
    if info.param.presence == "required":
        return f" Did you mean '{close}@{info.param.example}'?"
    return f" Did you mean {close!r}?"


def _examples() -> list[str]:
    return [p.replace("@K", "@10").replace("@P", "@0.8").replace("@B", "@10") for p in valid_names()]


def _param_problem(name: str, kind: str, info: Metric, raw: str | None) -> tuple[str | None, int | float | None]:
    """The parameter after ``@`` of a known metric read by its kind (a cutoff, a number of bins, a
    persistence): ``(problem, value)``, the problem None when the name is valid, the value None
    when the name gives none."""
    presence, param_kind = info.param.presence, info.param.kind
    if raw is not None and presence == "none":
        return f"Metric {kind!r} takes no cutoff; got {name!r}.", None
    if raw is None:
        if presence != "required":
            return None, None
        what = {"cutoff": "a cutoff", "persistence": "a persistence", "bins": "a number of bins"}[param_kind]
        return f"Metric {kind!r} needs {what}, such as '{kind}@{info.param.example}'; got {name!r}.", None
    if param_kind in ("cutoff", "bins"):
        what = "cutoff" if param_kind == "cutoff" else "number of bins"
        if not raw.isdigit():
            return f"The {what} of {name!r} must be a positive int.", None
        count = int(raw)
        if count < 1:
            return f"The {what} of {name!r} must be at least 1.", count
        if param_kind == "bins" and count > _MAX_BINS:
            return f"The number of bins of {name!r} must be at most {_MAX_BINS:,}.", count
        return None, count
    persistence = float(raw)
    if not (0.0 < persistence < 1.0 and math.isfinite(persistence)):
        return f"The persistence of {name!r} must be in the range (0, 1).", persistence
    return None, persistence


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
        raise InvalidParameterError(f"Metric names are strings such as 'ndcg@10'; got {name!r}.")
    m = _PATTERN.match(name.lower())
    kind = m.group(1) if m else None
    info = METRICS.get(kind) if kind else None
    if info is None:
        problem: str | None = _bad_parameter(name) or f"Unknown metric {name!r}."
        param: int | float | None = None
    else:
        problem, param = _param_problem(name, str(kind), info, m.group(2) if m else None)
    if problem:
        valid = ", ".join(repr(v) for v in valid_names())
        hint = "" if info is not None or _bad_parameter(name) else _unknown_hint(name)
        raise InvalidParameterError(f"{problem}{hint} Valid metrics are {valid} ({_placeholders()}).")
    if param is None and info is not None and info.param.kind == "persistence":
        param = float(info.param.default)  # type: ignore[arg-type]
    if param is None and info is not None and info.param.kind == "bins":
        param = int(info.param.default)  # type: ignore[arg-type]
    return MetricSpec(str(kind), param, METRICS[str(kind)])


def nan_reason(name: str) -> str:
    """A metric's own reason for a NaN value, by the name a table shows (``"ne"``, ``"ece@10"``,
    ``"where: ne"``); "" when its NaN has the coverage's reasons."""
    metric = METRICS.get(name.rsplit(": ", 1)[-1].split("@")[0])
    return metric.reading.nan_reason if metric is not None else ""


def _placeholders() -> str:
    kinds = {m.param.kind for m in METRICS.values() if m.param.presence != "none"}
    out = []
    if "cutoff" in kinds:
        out.append("K a positive int")
    if "persistence" in kinds:
        out.append("P a persistence in (0, 1)")
    if "bins" in kinds:
        out.append("B a number of bins")
    return "; ".join(out)


def parse_metrics(names: str | Sequence[str]) -> list[MetricSpec]:
    """Parse a list of names, keeping order and dropping repeats."""
    if isinstance(names, str):
        names = [names]
    if names is None or isinstance(names, (bytes, dict)) or not isinstance(names, Iterable):
        raise InvalidParameterError(
            "The 'metrics' parameter must be a metric name or a list of names, such as "
            f"metrics=['gauc', 'ndcg@10']. Got {names!r} instead."
        )
    specs = [parse_metric(n) for n in names]
    if not specs:
        raise InvalidParameterError("Give at least one metric, such as metrics=['gauc', 'ndcg@10'].")
    return list(dict.fromkeys(specs))
