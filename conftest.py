"""Root conftest: doctest collection (``--doctest-modules``) imports every module of the
package, so skip the modules whose optional dependency is not installed."""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

#: Extras of pyproject.toml a module may import at top level.
OPTIONAL_DEPENDENCIES = frozenset({"matplotlib", "tqdm", "pyarrow", "dask", "ranx"})

PACKAGE_DIR = Path(__file__).parent / "pandas_rankeval"

def unguarded_imports(path: Path) -> set[str]:
    """Top-level package names imported by the module body itself, outside ``try`` blocks
    (an ``import`` inside ``try: ... except ImportError`` or inside a function is optional
    by construction)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.Import):
            names.update(alias.name.partition(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.partition(".")[0])
    return names


def missing_optional_dependencies(path: Path) -> set[str]:
    return {
        name
        for name in unguarded_imports(path) & OPTIONAL_DEPENDENCIES
        if importlib.util.find_spec(name) is None
    }


def pytest_ignore_collect(collection_path: Path, config):  # noqa: ANN001, ANN201
    path = Path(collection_path)
    if path.suffix == ".py" and PACKAGE_DIR in path.parents:
        if missing_optional_dependencies(path):
            return True
    return None
