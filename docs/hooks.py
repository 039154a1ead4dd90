"""MkDocs hooks: the parts of the site that are generated from the code at build time.

- ``<!-- generated: metrics -->`` becomes the table of metrics, read from the metric registry
  (``<!-- generated: options -->`` the table of their options, from ``core.options.OPTIONS``)
  (:func:`metric_table`, the one place that knows the registry's fields);
- ``<!-- generated: api-functions -->`` becomes one mkdocstrings entry per public function of
  ``pandas_rankeval.__all__`` (aliases listed under the function they name);
- ``<!-- generated: namespace-methods -->`` becomes the table of ``df.rank`` methods;
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


def api_functions() -> str:
    blocks = []
    for name, aliases in public_functions():
        block = f"::: pandas_rankeval.{name}\n"
        if aliases:
            names = ", ".join(f"`pandas_rankeval.{a}`" for a in aliases)
            block += f"\nThe same function is also {names}.\n"
        blocks.append(block)
    return "\n".join(blocks)


def namespace_methods() -> str:
    from pandas_rankeval import accessor

    lines = ["| method | is the function |", "| --- | --- |"]
    for method, target in accessor.METHODS.items():
        lines.append(f"| `.{method}(...)` | [`pandas_rankeval.{target}`](functions.md#pandas_rankeval.{target}) |")
    return "\n".join(lines)


_GENERATORS = {"metrics": metric_table, "options": option_table, "api-functions": api_functions, "namespace-methods": namespace_methods}


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
    # doctest's marker of an empty output line reads as an empty line on the page
    markdown = re.sub(r"^```pycon\n.*?^```", lambda m: m.group(0).replace("<BLANKLINE>", ""), markdown, flags=re.M | re.S)
    rendered = iter(_RENDERED.get(page.file.src_uri, []))
    return EXEC_BLOCK.sub(lambda m: next(rendered), markdown)


__all__ = ["metric_rows", "metric_table", "option_table", "public_functions", "api_functions", "namespace_methods", "run_blocks"]
