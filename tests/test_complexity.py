"""No function of the package above cyclomatic complexity 25 (radon's count, ``radon cc``).

Every function, method and nested function is measured with :func:`radon.complexity.cc_visit`;
the test names each one above the limit (``path::Class.name (complexity)``). A function split
for this rule is split along the stages it runs (check, read, compute, write...).

``PENDING`` lists the functions still above the limit, with their complexity today: one of them
may not grow, a new one may not join, and an entry that is now within the limit must leave the
list (so it only shrinks).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

radon_complexity = pytest.importorskip("radon.complexity")

PACKAGE = Path(__file__).resolve().parent.parent / "pandas_rankeval"
LIMIT = 25

PENDING: dict[str, int] = {}


def _blocks(blocks: list, prefix: str = "") -> Iterator[tuple[str, int]]:
    """(qualified name, complexity) of every function, method and nested function."""
    for block in blocks:
        name = f"{prefix}{block.name}"
        if hasattr(block, "methods"):  # a class
            yield from _blocks(block.methods, f"{name}.")
            yield from _blocks(getattr(block, "inner_classes", []), f"{name}.")
            continue
        yield name, block.complexity
        yield from _blocks(block.closures, f"{name}.")


def measure() -> dict[str, int]:
    """``path::name`` -> complexity of every function of the package."""
    out: dict[str, int] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        for name, complexity in _blocks(radon_complexity.cc_visit(path.read_text(encoding="utf-8"))):
            key = f"{rel}::{name}"
            out[key] = max(complexity, out.get(key, 0))
    return out


def test_no_function_above_the_limit() -> None:
    measured = measure()
    too_complex = [
        f"{key} ({value})"
        for key, value in sorted(measured.items())
        if value > LIMIT and value > PENDING.get(key, LIMIT)
    ]
    assert not too_complex, (
        f"cyclomatic complexity above {LIMIT} (split along the stages the function runs): "
        + ", ".join(too_complex)
    )


def test_pending_list_only_shrinks() -> None:
    measured = measure()
    done = [key for key in PENDING if measured.get(key, 0) <= LIMIT]
    assert not done, f"within the limit now, remove from PENDING: {', '.join(done)}"


def test_the_measure_sees_a_complex_function() -> None:
    # the oracle: a function of 30 independent ifs has complexity 31 by definition
    source = "def f(x):\n" + "".join(f"    if x == {i}:\n        return {i}\n" for i in range(30)) + "    return -1\n"
    assert dict(_blocks(radon_complexity.cc_visit(source))) == {"f": 31}


if __name__ == "__main__":  # python tests/test_complexity.py: the worst functions first
    for key, value in sorted(measure().items(), key=lambda kv: -kv[1])[:40]:
        print(f"{value:4d}  {key}")
