"""What crosses a folder of the package has a public name: no module imports a private name (one
leading underscore) from a module of another folder (``tables/`` from ``summary/``,
``engines/duckdb/`` from ``engines/polars/``), so renaming a private never breaks another folder. Checked on
the source with ``ast``; imports inside functions count. And no test patches a private name (a
fast path is tested through a public seam), so renaming a private never breaks a test either.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "pandas_rankeval"


def _folder(module: str) -> str:
    """The folder of a dotted module name: ``pandas_rankeval.engines.duckdb.sql`` ->
    ``pandas_rankeval/engines/duckdb``; a package is its own folder."""
    parts = module.split(".")
    return "/".join(parts if PACKAGE.parent.joinpath(*parts).is_dir() else parts[:-1])


def _is_module(dotted: str) -> bool:
    path = PACKAGE.parent.joinpath(*dotted.split("."))
    return path.is_dir() or path.with_suffix(".py").exists()


def module_of(path: Path) -> tuple[str, bool]:
    """The dotted name of a file of the package, and whether it is a package's ``__init__``."""
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    return ".".join(rel.parts[:-1] if rel.name == "__init__" else rel.parts), rel.name == "__init__"


def private_imports(source: str, me: str, is_package: bool = False) -> list[tuple[int, str, str]]:
    """``(line, module, name)`` of every private name the source of module ``me`` imports from a
    module of another folder."""
    package = me if is_package else me.rpartition(".")[0]
    out = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.ImportFrom):
            continue
        if node.level:
            base = package.split(".")[: len(package.split(".")) - node.level + 1]
            module = ".".join([*base, *([node.module] if node.module else [])])
        else:
            module = node.module or ""
        if not module.startswith("pandas_rankeval"):
            continue
        for alias in node.names:
            name = alias.name
            private = name.startswith("_") and not name.startswith("__")
            # from a package import _module: the module's folder is the package
            target = f"{module}.{name}" if _is_module(f"{module}.{name}") else module
            if private and _folder(target) != _folder(me):
                out.append((node.lineno, module, name))
    return sorted(out)


def test_the_checker_finds_a_private_import():
    """The checker itself: a module of tables/ importing a private of summary/ (relative or
    absolute, inside a function too) is found; a public name and a private of its own folder are
    not."""
    source = (
        "from ..summary.finalize import _ratio, item_values\n"
        "from .report import _private\n"
        "def f():\n    from pandas_rankeval.engines.polars import convert, _x\n"
        "from ..engines.polars import _lazy\n"  # not a module: a name of the package
    )
    assert private_imports(source, "pandas_rankeval.tables.probe") == [
        (1, "pandas_rankeval.summary.finalize", "_ratio"), (4, "pandas_rankeval.engines.polars", "_x"),
        (5, "pandas_rankeval.engines.polars", "_lazy"),
    ]
    assert private_imports("from ..polars.convert import _base\n", "pandas_rankeval.engines.duckdb.sql") == [
        (1, "pandas_rankeval.engines.polars.convert", "_base"),
    ]
    assert private_imports("from .lazy import _x\nfrom . import _y\n", "pandas_rankeval.engines.polars.auc") == []


def test_no_private_name_crosses_a_folder():
    found = [
        f"{path.relative_to(PACKAGE.parent)}:{line}: {module}.{name}"
        for path in sorted(PACKAGE.rglob("*.py"))
        for line, module, name in private_imports(path.read_text(encoding="utf-8"), *module_of(path))
    ]
    assert not found, "\n".join(found)


TESTS = Path(__file__).resolve().parent


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def private_patches(source: str) -> list[tuple[int, str]]:
    """``(line, name)`` of every private name a test source patches: ``setattr(x, "_name", ...)``
    (``monkeypatch.setattr``, ``mock.patch.object``...), a dotted target whose last part is private
    (``setattr("pkg.mod._name", ...)``, ``mock.patch("pkg.mod._name")``), and an attribute taken
    from a loop (``for attr in ["_a", "b"]: setattr(x, attr, ...)``)."""
    tree = ast.parse(source)
    loops: dict[str, list[ast.expr]] = {}  # a loop variable -> the iterables it runs over
    for node in ast.walk(tree):
        if isinstance(node, ast.For):
            for target in ast.walk(node.target):
                if isinstance(target, ast.Name):
                    loops.setdefault(target.id, []).append(node.iter)
    out = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not node.args:
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        if name not in ("setattr", "object", "patch", "delattr"):
            continue
        first, second = node.args[0], node.args[1] if len(node.args) > 1 else None
        if isinstance(first, ast.Constant) and isinstance(first.value, str) and "." in first.value:
            names = [first.value.rsplit(".", 1)[1]]  # a dotted target
        elif isinstance(second, ast.Constant) and isinstance(second.value, str):
            names = [second.value]
        elif isinstance(second, ast.Name):
            names = [c.value for it in loops.get(second.id, []) for c in ast.walk(it)
                     if isinstance(c, ast.Constant) and isinstance(c.value, str)]
        else:
            continue
        out += [(node.lineno, n) for n in names if _private(n)]
    return sorted(out)


def test_the_checker_finds_a_patched_private_name():
    source = (
        "def test(monkeypatch, m):\n"
        "    monkeypatch.setattr(mod, '_CHUNK', 3)\n"
        "    monkeypatch.setattr('pandas_rankeval.x._y', None)\n"
        "    for where, attr in [(a, 'public'), (b, '_private')]:\n"
        "        monkeypatch.setattr(where, attr, None)\n"
        "    mock.patch.object(mod, '_z')\n"
        "    m.setattr(mod, 'CHUNK', 3)\n"
        "    monkeypatch.setattr(mod, '__doc__', 'x')\n"
        "    monkeypatch.setenv('_X', '1')\n"
    )
    assert private_patches(source) == [(2, "_CHUNK"), (3, "_y"), (5, "_private"), (6, "_z")]


def test_no_test_patches_a_private_name():
    """A test of a fast path goes through a public seam (an option, the reference switch
    :mod:`pandas_rankeval.core.reference`, a public name), never a patched private name, so that
    renaming a private breaks no test."""
    found = [
        f"{path.name}:{line}: {name}"
        for path in sorted(TESTS.glob("*.py"))
        for line, name in private_patches(path.read_text(encoding="utf-8"))
    ]
    assert not found, "\n".join(found)


def test_tests_say_what_they_pin_not_which_issue_asked() -> None:
    """A test's name, docstring and comments say what it pins; an issue number says nothing to a
    reader who has not got the tracker open (and the tracker may move). Another project's issue is
    cited as ``project issue #N``, which stays allowed."""
    import re

    cites = re.compile(r"\bissues? \d+", re.IGNORECASE)
    found = [f"{path.name}:{n}: {line.strip()}" for path in sorted(Path(__file__).parent.rglob("*.py"))
             for n, line in enumerate(path.read_text().splitlines(), 1)
             if cites.search(line)]
    assert not found, "tests that cite an issue number:\n" + "\n".join(found)
