"""The documentation: every public name has an API entry and a docstring example, every link of
README.md and docs/ points to a file (and anchor) that exists, and every example on the pages runs.

The site build itself (``python -m mkdocs build --strict``, the ``docs`` extra) runs in
``.ci/run`` after the tests; these checks need no MkDocs.
"""

from __future__ import annotations

import doctest
import importlib.util
import inspect
import re
import sys
import warnings
from pathlib import Path

import pytest

import pandas_rankeval as pre
from pandas_rankeval import accessor

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
PAGES = sorted(p for p in DOCS.rglob("*.md"))
REFERENCE = DOCS / "reference"


def _hooks():
    spec = importlib.util.spec_from_file_location("docs_hooks", DOCS / "hooks.py")
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(module)
    return module


HOOKS = _hooks()


def _reference_text() -> str:
    """The API pages as MkDocs sees them, generated parts filled in."""
    parts = []
    for page in sorted(REFERENCE.glob("*.md")):
        text = page.read_text(encoding="utf-8")
        parts.append(HOOKS.GENERATED.sub(lambda m: HOOKS._GENERATORS[m.group(1)](), text))
    return "\n".join(parts)


def _documented() -> set[str]:
    return set(re.findall(r"^::: ([\w.]+)", _reference_text(), re.M))


# ----------------------------------------------------------------------------- API pages


def _public_objects() -> list[tuple[str, object]]:
    """Every public name the reference must cover: ``pandas_rankeval.__all__``, the namespaces,
    plotting, the training hooks and the result table."""
    from pandas_rankeval import lightgbm, plotting, sklearn, xgboost
    from pandas_rankeval.display.table import ResultTable

    names = [(f"pandas_rankeval.{n}", getattr(pre, n)) for n in pre.__all__]
    names += [(f"pandas_rankeval.accessor.{n}", getattr(accessor, n))
              for n in ("RankevalNamespace", "DaskRankevalNamespace", "PolarsRankevalNamespace")]
    for module in (plotting, lightgbm, xgboost, sklearn):
        names += [(f"{module.__name__}.{n}", getattr(module, n)) for n in module.__all__]
    names.append(("pandas_rankeval.display.table.ResultTable", ResultTable))
    return names


@pytest.mark.parametrize("name,obj", _public_objects(), ids=[n for n, _ in _public_objects()])
def test_public_name_has_an_api_entry(name: str, obj: object) -> None:
    documented = _documented()
    if inspect.ismodule(obj):
        # A module in __all__ (datasets): each of its public names has an entry.
        missing = [f"{obj.__name__}.{n}" for n in obj.__all__ if f"{obj.__name__}.{n}" not in documented]
        assert not missing, f"no API entry for {missing} (add '::: name' to a page of docs/reference/)"
        return
    if name in documented:
        return
    # An alias (pandas_rankeval.map is average_precision) is covered by the entry of its object.
    aliases = {alias: canonical for canonical, names in HOOKS.public_functions() for alias in names}
    short = name.rsplit(".", 1)[1]
    assert short in aliases and f"pandas_rankeval.{aliases[short]}" in documented, (
        f"{name} has no API entry: add '::: {name}' to a page of docs/reference/"
    )
    assert f"`pandas_rankeval.{short}`" in _reference_text()


def test_every_function_of_all_is_generated_in_order() -> None:
    listed = [name for name, _ in HOOKS.public_functions()]
    functions = [n for n in pre.__all__ if callable(getattr(pre, n)) and not isinstance(getattr(pre, n), type)]
    aliases = [a for _, names in HOOKS.public_functions() for a in names]
    assert sorted(listed + aliases) == sorted(functions)
    assert listed == [n for n in functions if n not in aliases]


def _has_example(obj: object) -> bool:
    doc = inspect.getdoc(obj) or ""
    return ">>>" in doc


@pytest.mark.parametrize("name,obj", _public_objects(), ids=[n for n, _ in _public_objects()])
def test_public_name_has_a_docstring_example(name: str, obj: object) -> None:
    if inspect.ismodule(obj):
        objs = [getattr(obj, n) for n in obj.__all__]
    else:
        objs = [obj]
    for item in objs:
        if isinstance(item, type) and issubclass(item, Warning | Exception):
            assert inspect.getdoc(item), f"{name} has no docstring"
            continue
        assert _has_example(item), f"{name}: its docstring has no example (an Examples section with >>>)"


def test_namespace_methods_are_the_functions() -> None:
    table = HOOKS.namespace_methods()
    for method, target in accessor.METHODS.items():
        assert f"`.{method}(...)`" in table and f"pandas_rankeval.{target}" in table
        assert target in pre.__all__


def test_metric_list_is_generated_from_the_registry() -> None:
    from pandas_rankeval.core.metrics import registry

    table = HOOKS.metric_table()
    for name in registry.METRICS:
        assert f"`{name}" in table
    assert len(HOOKS.metric_rows()) == len(registry.METRICS)
    for pattern in pre.metric_names():
        assert f"`{pattern}`" in table
    assert "<!-- generated: metrics -->" in (DOCS / "guide" / "metric-contract.md").read_text(encoding="utf-8")


def test_option_table_is_generated_from_the_options_table() -> None:
    """Every option of core.options.OPTIONS, its default and its text; who takes it from the registry."""
    from pandas_rankeval.core.metrics import registry
    from pandas_rankeval.core.inputs.options import OPTIONS

    table = HOOKS.option_table()
    rows = table.splitlines()[2:]
    assert [r.split("|")[1].strip().strip("`") for r in rows] == list(OPTIONS)
    for row, (name, opt) in zip(rows, OPTIONS.items()):
        assert f"`{opt.default!r}`" in row and " ".join(opt.doc.split())[:40] in row
        takers = [m for m, info in registry.METRICS.items() if name in info.options]
        others = [m for m in registry.METRICS if m not in takers]
        who = row.split("|")[4]
        if not others:
            assert "every metric" in who
        elif "every metric but" in who:
            assert who.split("but", 1)[1].split(",") and all(m in who for m in others)
        else:
            assert all(t in who for t in takers)
    assert "<!-- generated: options -->" in (DOCS / "guide" / "metric-contract.md").read_text(encoding="utf-8")


# ----------------------------------------------------------------------------- links

_LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)|!\[[^\]]*\]\(([^)\s]+)\)")
_FENCE = re.compile(r"^(```|~~~).*?^\1", re.M | re.S)


def _anchors(page: Path) -> set[str]:
    """The heading ids MkDocs' toc extension gives a page (lowercase, punctuation dropped,
    spaces to '-'), and the ids mkdocstrings gives its entries."""
    text = _FENCE.sub("", page.read_text(encoding="utf-8"))
    out = set()
    for heading in re.findall(r"^#{1,6} (.+?)\s*$", text, re.M):
        plain = re.sub(r"[`*]", "", heading)
        slug = re.sub(r"[^\w\- ]", "", plain).strip().lower()
        out.add(re.sub(r"[\s]+", "-", slug))
    if page.parent == REFERENCE:
        generated = HOOKS.GENERATED.sub(lambda m: HOOKS._GENERATORS[m.group(1)](), text)
        for name in re.findall(r"^::: ([\w.]+)", generated, re.M):
            out.add(name)
        out |= {f"pandas_rankeval.{n}" for n in pre.__all__}
    return out


def _links(path: Path) -> list[str]:
    text = _FENCE.sub("", path.read_text(encoding="utf-8"))
    text = re.sub(r"`[^`\n]*`", "", text)
    return [a or b for a, b in _LINK.findall(text)]


LINKED = [ROOT / "README.md", ROOT / "CHANGELOG.md", ROOT / "CONTRIBUTING.md", *PAGES]


@pytest.mark.parametrize("path", LINKED, ids=[str(p.relative_to(ROOT)) for p in LINKED])
def test_links_point_to_files_and_anchors_that_exist(path: Path) -> None:
    assert path.exists(), f"{path.relative_to(ROOT)} is missing"
    bad = []
    for link in _links(path):
        if re.match(r"^[a-z]+:", link):  # http:, https:, mailto:
            continue
        target, _, anchor = link.partition("#")
        file = (path.parent / target).resolve() if target else path
        generated_image = target.startswith(("img/", "../img/")) and file.suffix == ".png"
        if generated_image:
            continue
        if not file.exists():
            bad.append(f"{link}: no file {file.relative_to(ROOT) if file.is_relative_to(ROOT) else file}")
            continue
        if anchor and file.suffix == ".md" and anchor not in _anchors(file):
            bad.append(f"{link}: no heading #{anchor} in {file.relative_to(ROOT)}")
        if path.is_relative_to(DOCS) and not file.is_relative_to(DOCS):
            bad.append(f"{link}: a page links out of docs/ (the site would not have it)")
    assert not bad, f"{path.relative_to(ROOT)}: broken links:\n" + "\n".join(bad)


def test_every_page_is_in_the_nav() -> None:
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    for page in PAGES:
        assert str(page.relative_to(DOCS)) in nav, f"{page.relative_to(DOCS)} is not in mkdocs.yml's nav"


def test_no_pointer_to_files_outside_the_repository() -> None:
    for path in [ROOT / "README.md", *PAGES, *sorted((ROOT / "pandas_rankeval").rglob("*.py")),
                 *sorted((ROOT / "tests").glob("*.py"))]:
        if path == Path(__file__):
            continue
        text = path.read_text(encoding="utf-8")
        for needle in ("metrics.md", "/work/", "shared/design", "import_graph.py"):
            assert needle not in text, f"{path.relative_to(ROOT)} mentions {needle!r}"


# ----------------------------------------------------------------------------- page examples

_PYCON = re.compile(r"^```pycon\n(.*?)^```", re.M | re.S)


def _examples(page: Path) -> str:
    return "\n".join(block for block in _PYCON.findall(page.read_text(encoding="utf-8")))


EXAMPLE_PAGES = [p for p in [ROOT / "README.md", *PAGES] if _examples(p)]


@pytest.mark.parametrize("page", EXAMPLE_PAGES, ids=[str(p.relative_to(ROOT)) for p in EXAMPLE_PAGES])
def test_page_examples_run(page: Path, request: pytest.FixtureRequest) -> None:
    """Each page's ```pycon blocks, as one doctest (the blocks share their names). A page that
    starts Spark (``prs.local_session()``) gets the session of the ``spark`` fixture, started
    first with the tests' settings and the Connect server, never a second one with defaults."""
    text = _examples(page)
    if "local_session(" in text:
        request.getfixturevalue("spark")
    test = doctest.DocTestParser().get_doctest(text, {"__name__": "docs"}, str(page.relative_to(ROOT)), str(page), 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    out: list[str] = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        runner.run(test, out=out.append)
    assert runner.failures == 0, "".join(out)
    assert runner.tries > 0


def test_python_blocks_on_pages_are_executed() -> None:
    """A page shows Python as ```pycon (run above) or ```python exec (run by the build): no
    example that nothing runs."""
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        plain = re.findall(r"^```python(?! exec)\s*$", text, re.M)
        assert not plain, f"{page.relative_to(ROOT)}: a ```python block that nothing runs; use ```pycon"


def test_readme_size_and_no_session_notes() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.encode()) <= 12_500
    assert not re.search(r"\b\d{1,2}:\d{2}\b", text), "a clock time in README.md"
    assert "lock" not in text.lower() and not re.search(r"issue \d+", text, re.I)
    assert sys.version_info >= (3, 10)


# ----------------------------------------------------------------------------- the built site


def _check_site():
    spec = importlib.util.spec_from_file_location("check_site", ROOT / ".ci" / "check_site.py")
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(module)
    return module


def test_roles_become_links_to_the_entries() -> None:
    """mkdocstrings prints ``:func:`x``` as ``:func:<code>x</code>``: the hook makes it a link
    to x's entry, short names read in the entry they appear in, aliases to their function."""
    heading = '<h3 id="pandas_rankeval.lightgbm.LightGBMMetric" class="doc doc-heading">'
    html = (f"<p>see :func:<code>report</code></p>{heading}<p>:func:<code>eval_metric</code>, "
            ":func:<code>~pandas_rankeval.compare</code>, :func:<code>pandas_rankeval.map</code>, "
            ":func:<code>numpy.random.default_rng</code>, :data:<code>no_such_name</code></p>")
    out = HOOKS.link_roles(html)
    assert ":func:" not in out and ":data:" not in out
    assert '<autoref identifier="pandas_rankeval.report" optional><code>report</code></autoref>' in out
    assert 'identifier="pandas_rankeval.lightgbm.eval_metric"' in out
    assert '<autoref identifier="pandas_rankeval.compare" optional><code>compare</code></autoref>' in out
    assert 'identifier="pandas_rankeval.average_precision" optional><code>pandas_rankeval.map</code>' in out
    assert '<a href="https://numpy.org/doc/stable/reference/random/generator.html' in out
    assert "<code>no_such_name</code>" in out


def test_every_function_is_on_a_reference_page_of_its_topic() -> None:
    for name, _ in HOOKS.public_functions():
        page = REFERENCE / f"{HOOKS.function_page(name)}.md"
        assert f"<!-- generated: api-{page.stem} -->" in page.read_text(encoding="utf-8"), name
    assert HOOKS.function_page("gauc") == "metric-functions"
    assert HOOKS.function_page("average_precision") == "metric-functions"  # registered as "map"
    assert HOOKS.function_page("compare") == "tables"
    index = HOOKS.function_index()
    assert all(f'<span id="pandas_rankeval.{n}"></span>' in index for n, _ in HOOKS.public_functions())


def test_site_check_finds_raw_roles_and_wide_code(tmp_path: Path) -> None:
    check = _check_site()
    (tmp_path / "a").mkdir()
    width = check.COLUMN_CHARS
    (tmp_path / "a" / "index.html").write_text(
        f"<p>:func:<code>report</code></p><pre><code><span>{'x' * (width + 1)}</span>\n"
        f"{'y' * width}</code></pre>", encoding="utf-8")
    (tmp_path / "index.html").write_text(f"<pre>{'&lt;' * width}\n</pre><p>:func:`x`</p>", encoding="utf-8")
    found = check.problems(tmp_path)
    assert len(found) == 3, found
    assert sum("raw reST role" in p for p in found) == 2
    assert any(f"code line of {width + 1} >" in p for p in found)
    (tmp_path / "a" / "index.html").write_text(f"<pre>{'x' * width}</pre>", encoding="utf-8")
    (tmp_path / "index.html").write_text("<p>fine</p>", encoding="utf-8")
    assert check.problems(tmp_path) == []


def test_cli_runs_show_the_command_and_its_output() -> None:
    """``<!-- cli: ... -->`` on a page becomes the command, wrapped to the code column, and what
    the installed program printed (the metric names here, from the registry)."""
    from pandas_rankeval.core.metrics import registry

    out = HOOKS.cli_runs("before\n<!-- cli: metrics -->\nafter\n")
    assert out.startswith("before\n```console\n$ pandas-rankeval metrics\n") and out.endswith("```\nafter\n")
    assert all(name in out for name in registry.METRICS)
    long = HOOKS._shell_lines("eval x.csv --group user_id --label click --score model_a model_b "
                              "--metrics auc gauc mrr ndcg@10 --by device --baseline model_a".split())
    assert all(len(line) <= HOOKS.CLI_WIDTH for line in long.splitlines())
    assert "--score model_a model_b" in long and long.count(" \\\n") == long.count("\n")


def test_short_inline_code_is_marked_unbroken_and_blocks_are_not() -> None:
    html = ('<p>use <code>--baseline</code> or <code>' + "x" * (HOOKS.UNBROKEN_CHARS + 1) + '</code></p>'
            '<pre><code>--baseline</code></pre><td><code>sample_weight</code></td>')
    out = HOOKS.unbroken_code(html)
    assert out.count('<code class="unbroken">') == 2
    assert '<pre><code>--baseline</code></pre>' in out and '<code class="unbroken">--baseline</code>' in out
