"""The layering rule: a module never imports a higher layer (checked on the source, with ast).

Layers, lowest first: ``core`` < ``inference`` < ``summary`` < ``display`` < ``tables`` <
``engines`` < ``api`` < the entry points (the package ``__init__``, ``accessor``, ``dask``,
``spark``, ``_alias``, ``plotting``, ``datasets``, ``integrations``, ``cli`` and the short hook
modules). An import inside a function counts too (it is still a climb); ``TYPE_CHECKING`` imports
do not (they never run). ``docs/development/architecture.md`` describes the layers.
"""

from __future__ import annotations

import ast
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


if __name__ == "__main__":  # python tests/test_layers.py lists the climbs
    print("\n".join(climbs()) or "no import climbs a layer")
