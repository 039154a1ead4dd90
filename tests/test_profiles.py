"""The test run draws the same hypothesis examples every time.

The default profile is derandomized; no test overrides that (a per-test ``derandomize=`` or
``database=`` would bring random draws back under "explore" or "ci"), and per-test example counts
go through ``_profiles.examples`` so the "explore" profile can raise them.
"""

from __future__ import annotations

import ast
from pathlib import Path

from hypothesis import settings

try:
    import _profiles
except ImportError:  # tests/ imported as a package
    from tests import _profiles

TESTS = Path(__file__).resolve().parent
#: settings(...) keywords that belong to the profiles, not to a test
PROFILE_ONLY = {"derandomize", "database", "deadline", "print_blob", "phases", "suppress_health_check"}


def _settings_calls(path: Path):
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
            if name == "settings":
                yield node


def test_ci_profile_is_derandomized_and_explore_is_not():
    ci, explore = settings.get_profile(_profiles.CI), settings.get_profile(_profiles.EXPLORE)
    assert ci.derandomize is True and ci.database is None and ci.deadline is None and ci.print_blob
    assert explore.derandomize is False and explore.max_examples >= _profiles.EXPLORE_EXAMPLES


def test_examples_keeps_the_count_under_ci_and_raises_it_otherwise():
    name = _profiles.current()
    try:
        settings.load_profile(_profiles.CI)
        assert _profiles.examples(25) == 25
        settings.load_profile(_profiles.EXPLORE)
        assert _profiles.examples(25) == _profiles.EXPLORE_EXAMPLES
        assert _profiles.examples(5000) == 5000
    finally:
        settings.load_profile(name)


def test_no_test_sets_what_the_profiles_decide():
    found = []
    for path in sorted(TESTS.glob("*.py")):
        if path.name == "_profiles.py":
            continue
        for call in _settings_calls(path):
            for kw in call.keywords:
                if kw.arg in PROFILE_ONLY:
                    found.append(f"{path.name}:{call.lineno} {kw.arg}=")
                elif kw.arg == "max_examples" and isinstance(kw.value, ast.Constant):
                    found.append(f"{path.name}:{call.lineno} max_examples={kw.value.value} (use examples(n))")
    assert not found, "set in tests/_profiles.py instead: " + ", ".join(found)
