"""The layering rule: a module never imports a higher layer, and no module imports itself back
through others (checked on the source, with ast).

Layers, lowest first: ``core`` < ``inference`` < ``summary`` < ``display`` < ``tables`` <
``engines`` < ``api`` < the entry points (the package ``__init__``, ``accessor``, ``dask``,
``spark``, ``_alias``, ``plotting``, ``datasets``, ``integrations``, ``cli`` and the short hook
modules). For climbs, an import inside a function counts too (it is still a climb);
``TYPE_CHECKING`` imports do not (they never run). For circles every import counts: at module
level, inside a function or under ``if TYPE_CHECKING:`` (a circle held by a deferred import is
still a circle to a reader), relative imports resolved, ``from package import module`` read as an
import of the module. ``docs/development/architecture.md`` describes the layers.

``python tests/test_layers.py`` lists the climbs and the circles.
"""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap
from collections.abc import Mapping
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "pandas_rankeval"
LAYERS = ["core", "inference", "summary", "display", "tables", "engines", "api"]
TOP = len(LAYERS)  # everything else in the package


def layer_of(module: str) -> int:
    """Layer index of a dotted module name inside the package (``pandas_rankeval.core.x``)."""
    parts = module.split(".")
    if len(parts) < 2:
        return TOP  # the package itself
    return LAYERS.index(parts[1]) if parts[1] in LAYERS else TOP


def module_name(path: Path) -> str:
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _type_checking_lines(tree: ast.AST) -> set[int]:
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.body:
                lines.update(range(child.lineno, (child.end_lineno or child.lineno) + 1))
    return lines


def imports_of(path: Path) -> list[tuple[int, str]]:
    """``(line, imported module)`` for every import of the package in one file."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    skip = _type_checking_lines(tree)
    me = module_name(path)
    package = me if path.name == "__init__.py" else me.rpartition(".")[0]
    out = []
    for node in ast.walk(tree):
        if getattr(node, "lineno", None) in skip:
            continue
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names if a.name.startswith("pandas_rankeval")]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if not target.startswith("pandas_rankeval"):
                continue
            if node.module is None or target.count(".") < 1:  # from . import x: x is the module
                out += [(node.lineno, f"{target}.{a.name}") for a in node.names]
            else:
                out.append((node.lineno, target))
    return out


def climbs() -> list[str]:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        me = module_name(path)
        mine = layer_of(me)
        for line, target in imports_of(path):
            if layer_of(target) > mine:
                found.append(f"{path.relative_to(PACKAGE.parent)}:{line}: {me} ({LAYERS[mine] if mine < TOP else 'top'})"
                             f" imports {target} ({LAYERS[layer_of(target)] if layer_of(target) < TOP else 'top'})")
    return found


def test_no_module_imports_a_higher_layer() -> None:
    found = climbs()
    assert not found, "imports that climb a layer:\n" + "\n".join(found)


def test_the_check_sees_a_climb(tmp_path: Path) -> None:
    # The checker itself: a core module importing the api is a climb, a TYPE_CHECKING import is not.
    assert layer_of("pandas_rankeval.core.ranking.tie_blocks") < layer_of("pandas_rankeval.api.report")
    assert layer_of("pandas_rankeval.accessor") == TOP
    fake = PACKAGE / "core" / "_layer_probe.py"
    source = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ..api import report\nfrom ..summary import plan\n"
    tree_imports = _imports_from_source(source, fake)
    assert tree_imports == [(4, "pandas_rankeval.summary")]
    assert layer_of(tree_imports[0][1]) > layer_of("pandas_rankeval.core._layer_probe")


def _imports_from_source(source: str, path: Path) -> list[tuple[int, str]]:
    probe = path.parent / path.name
    original = Path.read_text

    def read_text(self: Path, *args: object, **kwargs: object) -> str:
        return source if self == probe else original(self, *args, **kwargs)  # type: ignore[arg-type]

    mp = pytest.MonkeyPatch()
    mp.setattr(Path, "read_text", read_text)
    try:
        return imports_of(probe)
    finally:
        mp.undo()


# --------------------------------------------------------------------------- #
# Circles: every import counts
# --------------------------------------------------------------------------- #
def all_modules() -> dict[str, Path]:
    """Every module of the package by dotted name."""
    return {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def module_imports(path: Path, source: str | None = None, known: set[str] | None = None) -> set[str]:
    """The package's modules that one file imports, anywhere in it (functions and ``TYPE_CHECKING``
    blocks included): ``from a.b import c`` is an import of ``a.b.c`` when that is a module, else
    of ``a.b``; a name below a module resolves to the module."""
    known = set(all_modules()) if known is None else known
    tree = ast.parse(path.read_text(encoding="utf-8") if source is None else source, str(path))
    me = module_name(path)
    package = me if path.name == "__init__.py" else me.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            targets = [f"{target}.{a.name}" if f"{target}.{a.name}" in known else target for a in node.names]
        for t in targets:
            while t not in known and "." in t:
                t = t.rpartition(".")[0]
            if t in known and t != me:
                found.add(t)
    return found


def import_graph() -> dict[str, set[str]]:
    known = set(all_modules())
    return {m: module_imports(p, known=known) for m, p in all_modules().items()}


def circles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """One circle per strongly connected group of modules (Tarjan), each as a path that comes
    back to its start: ``[a, b, a]``."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[set[str]] = []
    counter = [0]

    def visit(v: str) -> None:  # recursion depth: the longest import chain (a few dozen)
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.add(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(group)

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return [_one_circle(graph, g) for g in groups]


def _one_circle(graph: Mapping[str, set[str]], group: set[str]) -> list[str]:
    """A shortest way from the group's first module back to itself, inside the group (BFS)."""
    start = min(group)
    parents: dict[str, str] = {}
    frontier = [start]
    while frontier:
        nxt = []
        for v in frontier:
            for w in sorted(graph.get(v, ())):
                if w not in group:
                    continue
                if w == start:
                    chain = [v]
                    while chain[-1] != start:
                        chain.append(parents[chain[-1]])
                    return [*reversed(chain), start]
                if w not in parents:
                    parents[w] = v
                    nxt.append(w)
        frontier = nxt
    raise AssertionError(f"no circle in {sorted(group)}")  # pragma: no cover - Tarjan's groups have one


def test_no_import_circle() -> None:
    found = circles(import_graph())
    assert not found, "import circles (deferred and TYPE_CHECKING imports count):\n" + "\n".join(
        " -> ".join(c) for c in found
    )


def test_the_circle_check_sees_deferred_and_type_checking_imports(tmp_path: Path) -> None:
    # the finder on a hand-made graph: a three-module circle, named as a path, and a tail outside it
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set()}
    assert circles(graph) == [["a", "b", "c", "a"]]
    assert circles({"a": {"b"}, "b": set()}) == []
    # the parser: an import inside a function and one under TYPE_CHECKING both count
    fake = PACKAGE / "core" / "metrics" / "_probe.py"
    known = set(all_modules()) | {"pandas_rankeval.core.metrics._probe"}
    source = textwrap.dedent("""
        from typing import TYPE_CHECKING
        if TYPE_CHECKING:
            from ..evaluation.records import Evaluation
        def f():
            from . import registry
            from ...core.inputs import options
    """)
    assert module_imports(fake, source, known) == {
        "pandas_rankeval.core.evaluation.records",
        "pandas_rankeval.core.metrics.registry",
        "pandas_rankeval.core.inputs.options",
    }


_IMPORT_EACH = r"""
import importlib, importlib.util, sys, warnings
warnings.simplefilter("ignore")
import pandas_rankeval
base = set(sys.modules)
failed = []
for name in sys.argv[1:]:
    for key in [k for k in sys.modules if k not in base]:
        del sys.modules[key]
    try:
        importlib.import_module(name)
    except ModuleNotFoundError as exc:  # an optional dependency that is not installed: fine
        root = (exc.name or "").split(".")[0]
        if root == "pandas_rankeval" or importlib.util.find_spec(root) is not None:
            failed.append(f"{name}: {exc!r}")
    except Exception as exc:
        failed.append(f"{name}: {exc!r}")
print("\n".join(failed))
"""


def test_every_module_imports_first() -> None:
    """``python -c "import pandas_rankeval.X"`` works for every module X. One fresh interpreter:
    the package itself first (what importing any of its modules runs first), then each module
    with everything the package did not load dropped again, so that each starts as it would in
    its own interpreter."""
    names = sorted(all_modules())
    out = subprocess.run([sys.executable, "-c", _IMPORT_EACH, *names], capture_output=True, text=True,
                         cwd=str(PACKAGE.parent), timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.strip() == "", "modules that fail to import first:\n" + out.stdout


if __name__ == "__main__":  # python tests/test_layers.py lists the climbs and the circles
    print("\n".join(climbs()) or "no import climbs a layer")
    print("\n".join(" -> ".join(c) for c in circles(import_graph())) or "no import circle")
