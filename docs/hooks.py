"""MkDocs hooks: the parts of the site that are generated from the code at build time.

- ``<!-- generated: metrics -->`` becomes the table of metrics, read from the metric registry
  (``<!-- generated: options -->`` the table of their options, from ``core.options.OPTIONS``)
  (:func:`metric_table`, the one place that knows the registry's fields);
- ``<!-- generated: api-<page> -->`` becomes one mkdocstrings entry per public function of
  ``pandas_rankeval.__all__`` that belongs on that reference page (``API_PAGES``; aliases listed
  under the function they name), ``<!-- generated: function-index -->`` the table of them all;
- ``<!-- generated: namespace-methods -->`` becomes the table of ``df.rank`` methods;
- ``<!-- cli: ARGS -->`` becomes ``$ pandas-rankeval ARGS`` and what that run printed;
- ``:func:`x``` and the other reST roles of docstrings become links to the entries;
- a fenced block opened with ```` ```python exec ```` is run when the site is built, like a
  notebook cell: the code is shown, then what its last expression gave (a figure becomes a PNG
  file of the site, a result table its ``to_html()``, anything else its ``repr``). The blocks of
  one page share one namespace. An exception fails the build.

``tests/test_docs.py`` imports this module to check that every public name gets a page.
"""

from __future__ import annotations

import ast
import contextlib
import io
import re
import warnings
from pathlib import Path
from typing import Any

GENERATED = re.compile(r"<!-- generated: ([a-z-]+) -->")
EXEC_BLOCK = re.compile(r"^```python exec\n(.*?)^```\n", re.M | re.S)

#: Pages with executed blocks -> list of rendered outputs (filled in on_files, used on_page_markdown).
_RENDERED: dict[str, list[str]] = {}


# --------------------------------------------------------------------------- generated lists


def metric_rows() -> list[dict[str, str]]:
    """One row per metric of the registry: its names, what it is, how it averages.

    The only function that reads the registry's fields: when an entry carries other fields,
    adapt it here.
    """
    from pandas_rankeval.core.metrics import registry

    rows = []
    for name, info in registry.METRICS.items():
        patterns = getattr(info, "patterns", None) or [name]
        doc = getattr(info, "summary", None) or (getattr(info, "doc", None) or "").split("\n\n")[0]
        grouped = getattr(info, "grouped", True)
        rows.append({
            "names": ", ".join(f"`{n}`" for n in patterns),
            "what": " ".join(doc.split()).replace("|", "\\|"),
            "averaged": ("pooled over the rows of every group" if getattr(info, "eligibility", "") == "pooled"
                         else f"over groups, default weight `\"{info.default_weight}\"`"
                         if grouped else "over all rows (no groups)"),
            "labels": "graded" if getattr(info, "graded", False)
            else "0/1 clicks (or `>= threshold`); scores are probabilities" if getattr(info, "eligibility", "") == "pooled"
            else "binary (relevance rule)",
        })
    return rows


def metric_table() -> str:
    """The registry's metrics as a Markdown table."""
    lines = ["| metric names | what it measures | averaged | labels |", "| --- | --- | --- | --- |"]
    for row in metric_rows():
        lines.append(f"| {row['names']} | {row['what']} | {row['averaged']} | {row['labels']} |")
    return "\n".join(lines)


def option_table() -> str:
    """The options table (``core.options.OPTIONS``): default, allowed values, which metrics take
    each option (from the registry's entries) and what it does."""
    from pandas_rankeval.core.metrics import registry
    from pandas_rankeval.core.inputs.options import OPTIONS

    lines = ["| option | default | values | taken by | what it does |", "| --- | --- | --- | --- | --- |"]
    for name, opt in OPTIONS.items():
        takers = [m for m, info in registry.METRICS.items() if name in info.options]
        others = [m for m in registry.METRICS if m not in takers]
        if not others:
            who = "every metric"
        elif takers and len(others) < len(takers):
            who = "every metric but " + ", ".join(others)
        else:
            who = ", ".join(takers) or "-"
        values = ", ".join(f"`{c!r}`" for c in opt.choices) if opt.choices else "see the text"
        lines.append(
            f"| `{name}` | `{opt.default!r}` | {values} | {who} "
            f"| {' '.join(opt.doc.split()).replace('|', chr(92) + '|')} |"
        )
    return "\n".join(lines)


def public_functions() -> list[tuple[str, list[str]]]:
    """``(name, aliases)`` for every function of ``pandas_rankeval.__all__``, in its order."""
    import pandas_rankeval as pre

    out: list[tuple[str, list[str]]] = []
    seen: dict[int, str] = {}
    for name in pre.__all__:
        obj = getattr(pre, name)
        if not callable(obj) or isinstance(obj, type):
            continue
        if id(obj) in seen:
            next(entry for entry in out if entry[0] == seen[id(obj)])[1].append(name)
            continue
        seen[id(obj)] = name
        out.append((name, []))
    return out


#: The reference's function pages: page stem -> (title, functions in this order). A public
#: function named nowhere here goes to ``metric-functions`` when the registry knows its name (or it is an
#: alias of one), else to ``modules`` (the page of datasets and helpers).
API_PAGES: dict[str, tuple[str, tuple[str, ...]]] = {
    "metric-functions": ("Metric functions", ()),
    "tables": ("Tables", ("report", "compare", "per_group")),
    "counterfactual": ("Counterfactual and offline-online", ("propensities", "launch_agreement")),
    "modules": ("Datasets, utilities and old modules", ("metric_names",)),
}


def function_page(name: str) -> str:
    """The reference page (stem of ``docs/reference/<stem>.md``) that documents a public function."""
    for stem, (_, names) in API_PAGES.items():
        if name in names:
            return stem
    from pandas_rankeval.core.metrics import registry

    names = [name, *next((aliases for n, aliases in public_functions() if n == name), [])]
    return "metric-functions" if any(n.rstrip("_") in registry.METRICS for n in names) else "modules"


def api_functions(page: str | None = None) -> str:
    """One mkdocstrings entry per public function (of one reference page when ``page`` is given)."""
    blocks = []
    entries = public_functions()
    if page is not None:
        # the page's own order first (report, compare, per_group), then __all__'s
        order = API_PAGES[page][1]
        entries = sorted((e for e in entries if function_page(e[0]) == page),
                         key=lambda e: order.index(e[0]) if e[0] in order else len(order))
    for name, aliases in entries:
        block = f"::: pandas_rankeval.{name}\n"
        if aliases:
            names = ", ".join(f"`pandas_rankeval.{a}`" for a in aliases)
            block += f"\nThe same function is also {names}.\n"
        blocks.append(block)
    return "\n".join(blocks)


def function_index() -> str:
    """The table of every public function and the page of its entry. Each row carries the id the
    entry had when all functions were on one page, so old links (``functions/#pandas_rankeval.x``)
    still land on the function."""
    import inspect

    import pandas_rankeval as pre

    lines = ["| function | what it gives | page |", "| --- | --- | --- |"]
    for name, aliases in public_functions():
        stem = function_page(name)
        doc = (inspect.getdoc(getattr(pre, name)) or "").split("\n\n")[0]
        summary = " ".join(doc.split()).replace("|", "\\|")
        ids = "".join(f'<span id="pandas_rankeval.{n}"></span>' for n in [name, *aliases])
        also = f" (also {', '.join(f'`{a}`' for a in aliases)})" if aliases else ""
        lines.append(f"| {ids}[`{name}`]({stem}.md#pandas_rankeval.{name}){also} | {summary} "
                     f"| [{API_PAGES[stem][0]}]({stem}.md) |")
    return "\n".join(lines)


def namespace_methods() -> str:
    from pandas_rankeval import accessor

    lines = ["| method | is the function |", "| --- | --- |"]
    for method, target in accessor.METHODS.items():
        lines.append(f"| `.{method}(...)` | [`pandas_rankeval.{target}`]({function_page(target)}.md#pandas_rankeval.{target}) |")
    return "\n".join(lines)


_GENERATORS = {
    "metrics": metric_table,
    "options": option_table,
    "api-functions": api_functions,
    "function-index": function_index,
    "namespace-methods": namespace_methods,
    **{f"api-{stem}": (lambda stem=stem: api_functions(stem)) for stem in API_PAGES},
}


# --------------------------------------------------------------------------- command-line runs

#: ``<!-- cli: eval impressions.csv --group user_id ... -->``: the command is run when the site is
#: built (``python -m pandas_rankeval``, 80 columns, in one scratch directory per page, so a
#: ``demo --save impressions.csv`` before it makes its file) and the page shows the command and
#: what it printed. A failing command fails the build.
CLI_RUN = re.compile(r"^<!-- cli: (.+?) -->$", re.M)
CLI_WIDTH = 80


def _shell_lines(args: list[str], width: int = CLI_WIDTH) -> str:
    """``$ pandas-rankeval ...`` broken with backslashes between options (an option with its
    values stays on one line) to fit ``width``."""
    chunks: list[str] = []
    for arg in args:
        if arg.startswith("--") or not chunks:
            chunks.append(arg)
        else:
            chunks[-1] += " " + arg
    lines, current = [], "$ pandas-rankeval"
    for chunk in chunks:
        if len(current) + 1 + len(chunk) > width - 2 and current.strip() != "$ pandas-rankeval":
            lines.append(current + " \\")
            current = "    " + chunk
        else:
            current += " " + chunk
    return "\n".join([*lines, current])


def cli_runs(markdown: str) -> str:
    """Replace every ``<!-- cli: ... -->`` line of a page by the command and its output."""
    if not CLI_RUN.search(markdown):
        return markdown
    import os
    import shlex
    import subprocess
    import sys
    import tempfile

    with tempfile.TemporaryDirectory() as scratch:
        env = {**os.environ, "COLUMNS": str(CLI_WIDTH), "NO_COLOR": "1"}

        def run(match: re.Match[str]) -> str:
            args = shlex.split(match.group(1))
            done = subprocess.run([sys.executable, "-m", "pandas_rankeval", *args], cwd=scratch, env=env,
                                  capture_output=True, text=True)
            if done.returncode != 0:
                raise RuntimeError(f"pandas-rankeval {match.group(1)} failed:\n{done.stderr}")
            return f"```console\n{_shell_lines(args)}\n{done.stdout.rstrip()}\n```"

        return CLI_RUN.sub(run, markdown)


# --------------------------------------------------------------------------- reST roles

#: ``:func:`name``` as mkdocstrings renders it (the role's text stays, the name becomes code).
ROLE = re.compile(r":(?:py:)?(func|class|meth|mod|attr|data|obj|exc):<code>(~?)([\w.]+)(\(\))?</code>")
#: The heading of an entry (its id is the object's path): the context a short name is read in.
_ENTRY = re.compile(r'<h\d id="(pandas_rankeval[\w.]*)" class="doc doc-heading')
#: Names outside the package that docstrings mention: where their documentation is.
EXTERNAL = {
    "numpy.random.default_rng":
        "https://numpy.org/doc/stable/reference/random/generator.html#numpy.random.default_rng",
    "pandas.DataFrame.rank": "https://pandas.pydata.org/docs/reference/api/pandas.DataFrame.rank.html",
    "sys.executable": "https://docs.python.org/3/library/sys.html#sys.executable",
}


def _lookup(path: str) -> object | None:
    """The object a dotted path names (a module, then attributes), or None."""
    import importlib

    parts = path.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj: object = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        try:
            for part in parts[cut:]:
                obj = getattr(obj, part)
        except AttributeError:
            return None
        return obj
    return None


def resolve_role(name: str, context: str) -> str | None:
    """The identifier of the entry a role's name points to, read like Sphinx does: the name as
    written, then under each enclosing scope of the entry it appears in (``eval_metric`` in
    ``pandas_rankeval.lightgbm.LightGBMMetric`` is ``pandas_rankeval.lightgbm.eval_metric``).
    An alias of a public function is its function's entry; None when nothing of the package has
    that name."""
    scopes = context.split(".")
    candidates = [".".join([*scopes[:cut], name]) for cut in range(len(scopes), 0, -1)]
    for path in [name, *candidates] if "." in name else candidates:
        if path.startswith("pandas_rankeval") and _lookup(path) is not None:
            aliases = {a: canonical for canonical, names in public_functions() for a in names}
            short = path.removeprefix("pandas_rankeval.")
            return f"pandas_rankeval.{aliases[short]}" if short in aliases else path
    return None


def link_roles(html: str) -> str:
    """Turn the reST roles docstrings use (``:func:`report```, ``:meth:`~x.y```) into links to the
    entries, resolved by mkdocs-autorefs wherever the entry is; names outside the package link to
    their documentation (``EXTERNAL``) or stay code. Docstrings keep Sphinx's syntax, which
    ``help()`` shows as it is."""
    contexts = [(m.start(), m.group(1)) for m in _ENTRY.finditer(html)]

    def replace(match: re.Match[str]) -> str:
        _, tilde, name, call = match.groups()
        shown = f"<code>{name.rsplit('.', 1)[-1] if tilde else name}{call or ''}</code>"
        context = next((c for start, c in reversed(contexts) if start < match.start()), "pandas_rankeval")
        identifier = resolve_role(name, context)
        if identifier is not None:
            return f'<autoref identifier="{identifier}" optional>{shown}</autoref>'
        if name in EXTERNAL:
            return f'<a href="{EXTERNAL[name]}">{shown}</a>'
        return shown

    return ROLE.sub(replace, html)


#: Inline code up to this many characters never breaks inside (class ``unbroken``, see
#: ``docs/stylesheets/extra.css``); a longer one may wrap rather than overflow the column.
UNBROKEN_CHARS = 40
_INLINE_CODE = re.compile(r"<code>([^<]{1,%d})</code>" % UNBROKEN_CHARS)
_PRE = re.compile(r"(<pre\b.*?</pre>)", re.S)


def unbroken_code(html: str) -> str:
    """Mark short inline code (``--baseline``, ``sample_weight``) so that a line never breaks
    inside it; code blocks (``<pre>``) are left alone."""
    parts = _PRE.split(html)
    return "".join(part if i % 2 else _INLINE_CODE.sub(r'<code class="unbroken">\1</code>', part)
                   for i, part in enumerate(parts))


def on_page_content(html: str, page: Any, config: Any, files: Any) -> str:
    return unbroken_code(link_roles(html))


# --------------------------------------------------------------------------- executed blocks


def run_blocks(markdown: str, page: str) -> list[tuple[str, Any]]:
    """Run every ```` ```python exec ```` block of a page in one namespace; each block's
    ``(code, value of its last expression or None)``."""
    import matplotlib

    matplotlib.use("Agg")
    namespace: dict[str, Any] = {"__name__": f"docs.{page}"}
    results = []
    for match in EXEC_BLOCK.finditer(markdown):
        code = match.group(1)
        tree = ast.parse(code, filename=page)
        last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
        with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
            warnings.simplefilter("ignore")
            exec(compile(tree, page, "exec"), namespace)  # noqa: S102 - our own pages
            value = eval(compile(ast.Expression(last.value), page, "eval"), namespace) if last else None
        results.append((code, value))
    return results


def _render(value: Any, page: str, stem: str, files: Any, config: Any) -> str:
    if value is None:
        return ""
    if type(value).__name__ == "ndarray" and value.size and hasattr(value.flat[0], "figure"):
        value = value.flat[0]  # an array of Axes (one panel per metric): their figure
    figure = getattr(value, "figure", None) or (value if hasattr(value, "savefig") else None)
    if figure is not None and hasattr(figure, "savefig"):
        from mkdocs.structure.files import File
        import matplotlib.pyplot as plt

        buf = io.BytesIO()
        figure.savefig(buf, format="png", dpi=110, metadata={"Software": None})
        plt.close(figure)
        uri = f"img/{stem}.png"
        files.append(File.generated(config, uri, content=buf.getvalue()))
        depth = page.count("/")
        return f"![{stem}]({'../' * depth}{uri})\n"
    if hasattr(value, "to_html"):
        html = value.to_html()
        html = "\n".join(line for line in html.splitlines() if line.strip())
        return f'<div class="rendered-table" markdown="0">\n{html}\n</div>\n'
    return "```text\n" + (value if isinstance(value, str) else repr(value)) + "\n```\n"


def on_files(files: Any, config: Any) -> Any:
    docs = Path(config["docs_dir"])
    for file in list(files):
        if not file.src_uri.endswith(".md"):
            continue
        text = (docs / file.src_uri).read_text(encoding="utf-8")
        if "```python exec" not in text:
            continue
        page = file.src_uri
        stem = Path(page).with_suffix("").as_posix().replace("/", "-")
        rendered = []
        for i, (code, value) in enumerate(run_blocks(text, page)):
            shown = f"```python\n{code}```\n\n" + _render(value, page, f"{stem}-{i + 1}", files, config)
            rendered.append(shown)
        _RENDERED[page] = rendered
    return files


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    def generated(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in _GENERATORS:
            raise ValueError(f"{page.file.src_uri}: no generator {name!r}; known: {sorted(_GENERATORS)}")
        return _GENERATORS[name]()

    markdown = GENERATED.sub(generated, markdown)
    markdown = cli_runs(markdown)
    # doctest's marker of an empty output line reads as an empty line on the page
    markdown = re.sub(r"^```pycon\n.*?^```", lambda m: m.group(0).replace("<BLANKLINE>", ""), markdown, flags=re.M | re.S)
    rendered = iter(_RENDERED.get(page.file.src_uri, []))
    return EXEC_BLOCK.sub(lambda m: next(rendered), markdown)


__all__ = ["metric_rows", "metric_table", "option_table", "public_functions", "api_functions", "function_page",
           "function_index", "namespace_methods", "cli_runs", "unbroken_code", "link_roles", "resolve_role", "run_blocks"]
