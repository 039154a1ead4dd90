"""How a metric is published: its public function, written from its registry entry alone.

A metric's public function (``pandas_rankeval.ndcg``, in :mod:`.metrics`) is not written by hand:
:func:`function_for` writes it from the metric's :class:`~pandas_rankeval.core.metrics.metric.Metric`
entry, the one way every metric is published.

- Its signature: the frame, then keyword-only ``group`` (not for a number over all rows; optional,
  default None, for a metric that pools rows: ``Metric.needs_group``),
  ``label``, ``score``, the name's parameter (``k``, ``p`` or ``bins``, from ``Metric.param``),
  every option of ``Metric.options`` in that order (type and default from
  ``core.inputs.options.OPTIONS``), and ``engine_options``. It is a real function (its source is
  :func:`function_source`), so ``inspect.signature``, ``help`` and a wrong keyword's
  ``TypeError`` are Python's own.
- Its docstring: the entry's ``doc``, its shared parameter texts filled in by
  :func:`~.docs.fill_doc`.
- Its body: :func:`~.dispatch.evaluate_metric` with every parameter by name.

Type checkers and IDEs read the same signatures and docstrings from ``api/metrics.pyi``, which
:func:`stub` writes from the registry (``python -m pandas_rankeval.api`` rewrites it;
``tests/test_publishing.py`` fails when it is out of date).
"""

from __future__ import annotations

import linecache
from collections.abc import Callable, Hashable, Mapping
from pathlib import Path
from typing import Any, Literal

from pandas_rankeval.core.inputs.options import OPTIONS, WeightLike
from pandas_rankeval.core.metrics.registry import Metric, metric_functions
from pandas_rankeval.core.evaluation.result import MetricResult

from .dispatch import EngineOptions, GroupLike, PropensityLike, evaluate_metric
from .docs import fill_doc

#: The names the signatures' annotations use, as :func:`function_source` writes them (the stub
#: imports the same names).
TYPES: dict[str, Any] = {
    "Any": Any, "Hashable": Hashable, "Mapping": Mapping, "Literal": Literal, "WeightLike": WeightLike, "GroupLike": GroupLike,
    "EngineOptions": EngineOptions, "PropensityLike": PropensityLike, "MetricResult": MetricResult,
}

#: The keyword of a metric name's parameter, by its kind, and its type.
PARAM_KEYWORDS = {"cutoff": ("k", "int"), "persistence": ("p", "float"), "bins": ("bins", "int")}


def _default_source(value: Any) -> str:
    return f'"{value}"' if isinstance(value, str) else repr(value)


def parameters(metric: Metric) -> list[tuple[str, str, str | None]]:
    """``(name, annotation, default)`` of every keyword of the metric's function, as source text
    (``default`` None: a required keyword)."""
    out: list[tuple[str, str, str | None]] = []
    if metric.grouped:  # optional where the metric pools rows (each row its own group without it)
        out.append(("group", "GroupLike | None" if not metric.needs_group else "GroupLike", None if metric.needs_group else "None"))
    out += [("label", "Hashable", None), ("score", "Hashable", None)]
    if metric.param.presence != "none":
        name, annotation = PARAM_KEYWORDS[metric.param.kind]
        if metric.param.default is None:
            annotation += " | None"
        out.append((name, annotation, _default_source(metric.param.default)))
    for option in metric.options:
        opt = OPTIONS[option]
        out.append((option, opt.type_source, _default_source(opt.default)))
    out.append(("engine_options", "EngineOptions", "None"))
    return out


def function_source(metric: Metric, body: bool = True) -> str:
    """The source of the metric's public function (``body=False``: the stub's ``...``)."""
    params = parameters(metric)
    lines = [f"def {metric.function}(", "    df: Any,", "    *,"]
    for name, annotation, default in params:
        lines.append(f"    {name}: {annotation}" + ("," if default is None else f" = {default},"))
    lines.append(") -> MetricResult:")
    if not body:
        return "\n".join(lines) + "\n    ..."
    param = PARAM_KEYWORDS[metric.param.kind][0] if metric.param.presence != "none" else "None"
    passed = [f"{n}={n}" for n, _, _ in params if n not in ("engine_options", PARAM_KEYWORDS[metric.param.kind][0])]
    if not metric.grouped:
        passed.insert(0, "group=None")
    lines.append(f"    return _evaluate_metric({metric.function!r}, df, engine_options, {param}, {', '.join(passed)})")
    return "\n".join(lines) + "\n"


def docstring(metric: Metric) -> str:
    """The metric's numpydoc docstring: its entry's ``doc`` with the shared texts filled in."""

    class _Doc:  # fill_doc fills an object's __doc__
        __doc__ = metric.doc

    return str(fill_doc(_Doc).__doc__)


#: The functions written so far, by function name, with the entry each was written from.
_WRITTEN: dict[str, tuple[Metric, Callable[..., MetricResult]]] = {}


def function_for(metric: Metric) -> Callable[..., MetricResult]:
    """The metric's public function, written from its entry (once per entry)."""
    written = _WRITTEN.get(metric.function)
    if written is not None and written[0] is metric:
        return written[1]
    namespace: dict[str, Any] = {**TYPES, "_evaluate_metric": evaluate_metric}
    source = function_source(metric)
    # a file name inside the package: warnings and errors are attributed to the caller's line (the
    # first frame outside the package), and tracebacks show this source (kept in linecache)
    filename = str(Path(__file__).parent / f"<{metric.function}, written from the registry>")
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    code = compile(source, filename, "exec", dont_inherit=True)
    exec(code, namespace)  # noqa: S102 - the source is written above from the registry's entry
    function: Callable[..., MetricResult] = namespace[metric.function]
    function.__module__ = "pandas_rankeval.api.metrics"
    function.__doc__ = docstring(metric)
    _WRITTEN[metric.function] = (metric, function)
    return function


def published() -> dict[str, Callable[..., MetricResult]]:
    """Every public metric function by its public names (aliases included), from the registry."""
    return {name: function_for(metric) for name, metric in metric_functions().items()}


def stub() -> str:
    """The text of ``metrics.pyi``: every metric function's signature and docstring, for type
    checkers and IDEs (the runtime functions are :func:`function_for`'s)."""
    head = [
        '"""Generated from the metric registry by ``python -m pandas_rankeval.api``: do not edit."""',
        "",
        "from collections.abc import Hashable, Mapping",
        "from typing import Any, Literal",
        "",
        "from pandas_rankeval.api.dispatch import EngineOptions, GroupLike, PropensityLike",
        "from pandas_rankeval.core.inputs.options import WeightLike",
        "from pandas_rankeval.core.evaluation.result import MetricResult",
        "",
        "__all__ = [" + ", ".join(f'"{n}"' for n in metric_functions()) + "]",
    ]
    blocks = []
    for metric in dict.fromkeys(m for m in metric_functions().values()):
        source = function_source(metric, body=False)[: -len("...")]
        doc = docstring(metric).replace("\\", "\\\\")
        blocks.append(f'{source}"""{doc}"""\n')
    aliases = [f"{alias} = {m.function}" for alias, m in metric_functions().items() if alias != m.function]
    return "\n".join(head) + "\n\n\n" + "\n\n".join(blocks) + "\n\n" + "\n".join(aliases) + "\n"


#: The type stub of :mod:`.metrics`, which :func:`stub` writes.
STUB = Path(__file__).with_name("metrics.pyi")
