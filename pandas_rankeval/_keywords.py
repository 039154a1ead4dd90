"""One error for a misspelled keyword argument of a public function, with the right name.

Python's own message (``report() got an unexpected keyword argument 'score'``) names the
mistake but not the fix. :func:`keyword_hints` wraps a public function so that an unknown
keyword is reported with the parameter that was meant: ``scores=`` for ``score=`` on the
table functions (several score columns), ``score=`` for ``scores=`` on the metric functions
(one column), else the closest parameter name. Known keywords cost one set difference.
"""

from __future__ import annotations

import difflib
import functools
import inspect
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

__all__ = ["keyword_hints", "unknown_keyword_error"]

F = TypeVar("F", bound=Callable[..., Any])

#: A keyword people type for another one, whatever the spelling distance.
_MEANT = {
    "score": ("scores", "takes one or more score columns: scores=['model_a', 'model_b']"),
    "scores": ("score", "evaluates one score column; for several, use pandas_rankeval.report(..., scores=[...])"),
    "metric": ("metrics", "takes a list of metric names: metrics=['gauc', 'ndcg@10']"),
    "metrics": ("metric", "takes one metric name"),
    "labels": ("label", "takes the label column: label='click'"),
    "groups": ("group", "takes the group column(s): group='user_id'"),
    "k": ("metrics", "takes the cutoff in the metric name: metrics=['ndcg@10']"),
    "K": ("k", "takes the cutoff as k: k=10"),
    "topk": ("k", "takes the cutoff as k: k=10"),
    "top_k": ("k", "takes the cutoff as k: k=10"),
    "by": ("field", "splits the table by a column that may vary within a group: field='hour'"),
    "segment": ("by", "takes the segment column(s) as by: by='device'"),
    "segments": ("by", "takes the segment column(s) as by: by='device'"),
    "random_state": ("seed", "takes the random seed as seed: seed=0"),
    "n_bootstrap": ("n_boot", "takes the number of bootstrap replicates as n_boot: n_boot=1000"),
    "level": ("ci", "takes the interval's level as ci: ci=0.95"),
    "confidence": ("ci", "takes the interval's level as ci: ci=0.95"),
}


def unknown_keyword_error(func: str, unknown: Iterable[str], accepted: Iterable[str]) -> TypeError:
    """The TypeError for keywords ``unknown`` that ``func`` does not take, each with a hint."""
    accepted = list(accepted)
    parts = []
    for name in sorted(unknown):
        meant = _MEANT.get(name)
        if meant is not None and meant[0] not in accepted:  # K= on report: k=, which report spells metrics=
            meant = _MEANT.get(meant[0], meant)
        if meant is not None and meant[0] in accepted:
            parts.append(f"{func}() got an unexpected keyword argument {name!r}: did you mean {meant[0]}=? "
                         f"{func}() {meant[1]}.")
            continue
        close = difflib.get_close_matches(name, accepted, n=1, cutoff=0.6)
        hint = f" Did you mean {close[0]}=?" if close else ""
        parts.append(f"{func}() got an unexpected keyword argument {name!r}.{hint}")
    shown = ", ".join(accepted)
    return TypeError(" ".join(parts) + f" Its parameters are: {shown}.")


def keyword_hints(func: F) -> F:
    """``func``, raising :func:`unknown_keyword_error` on an unknown keyword before any work."""
    try:
        params = inspect.signature(func).parameters
    except (TypeError, ValueError):  # pragma: no cover - a builtin without a signature
        return func
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        return func  # it takes any keyword
    names = frozenset(n for n, p in params.items() if p.kind is not inspect.Parameter.POSITIONAL_ONLY)
    shown = [n for n, p in params.items() if p.kind is inspect.Parameter.KEYWORD_ONLY] or list(names)
    name = getattr(func, "__name__", "function")

    @functools.wraps(func)
    def checked(*args: Any, **kwargs: Any) -> Any:
        if not names.issuperset(kwargs):
            raise unknown_keyword_error(name, set(kwargs) - names, shown) from None
        return func(*args, **kwargs)

    return checked  # type: ignore[return-value]  # same signature, by functools.wraps
