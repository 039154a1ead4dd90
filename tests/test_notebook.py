"""examples/quickstart.ipynb executes, in this interpreter, without errors or warnings, and
its stored outputs are what the code prints today.

Refresh the stored outputs after a change with ``python tests/test_notebook.py --write``.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest

NOTEBOOK = Path(__file__).resolve().parents[1] / "examples" / "quickstart.ipynb"

nbformat = pytest.importorskip("nbformat") if __name__ != "__main__" else __import__("nbformat")
nbclient = pytest.importorskip("nbclient") if __name__ != "__main__" else __import__("nbclient")
if __name__ != "__main__":
    pytest.importorskip("ipykernel")

#: Run first in the kernel (not stored): any warning is an error; say which interpreter runs.
_STRICT = "import sys, warnings\nwarnings.simplefilter('error')\nprint(sys.executable)\n"


def _kernel_dir() -> str:
    """A Jupyter data dir whose kernel 'python3' is this interpreter (the test venv's)."""
    root = tempfile.mkdtemp(prefix="rankeval-kernel-")
    spec = Path(root) / "kernels" / "python3"
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(
        json.dumps(
            {
                "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
                "display_name": "Python 3 (test)",
                "language": "python",
            }
        )
    )
    return root


def execute(nb: Any, strict: bool) -> Any:
    old = os.environ.get("JUPYTER_PATH")
    os.environ["JUPYTER_PATH"] = _kernel_dir() + (os.pathsep + old if old else "")
    columns = os.environ.pop("COLUMNS", None)  # text reprs wrap at display.width, not at this shell's width
    try:
        if strict:
            nb.cells.insert(0, nbformat.v4.new_code_cell(_STRICT))
            # the kernel's own shutdown may warn (ipykernel deprecations): not the notebook's
            nb.cells.append(nbformat.v4.new_code_cell("warnings.resetwarnings()"))
        client = nbclient.NotebookClient(
            nb, kernel_name="python3", timeout=300, resources={"metadata": {"path": str(NOTEBOOK.parent)}}
        )
        client.execute()
        if strict:
            nb.cells.pop()
            first = nb.cells.pop(0)
            nb.metadata["kernel_executable"] = "".join(o.get("text", "") for o in first.outputs).strip()
        return nb
    finally:
        if columns is not None:
            os.environ["COLUMNS"] = columns
        if old is None:
            os.environ.pop("JUPYTER_PATH", None)
        else:
            os.environ["JUPYTER_PATH"] = old


def _footer_outputs(nb: Any) -> list[str]:
    """The text of every output that carries a table footer (the parts that must not rot)."""
    out = []
    for cell in nb.cells:
        for o in cell.get("outputs", []):
            text = o.get("data", {}).get("text/plain", "") if o.get("output_type") == "execute_result" else o.get("text", "")
            if "coverage" in text:
                out.append(text)
    return out


@pytest.fixture(scope="module")
def executed() -> Any:
    return execute(nbformat.read(NOTEBOOK, as_version=4), strict=True)


def test_notebook_executes_without_errors_or_warnings(executed) -> None:
    assert executed.metadata["kernel_executable"] == sys.executable  # the test venv's python
    for cell in executed.cells:
        for o in cell.get("outputs", []):
            assert o["output_type"] != "error", "".join(o.get("traceback", []))
            assert not (o["output_type"] == "stream" and o.get("name") == "stderr"), o.get("text")


def test_notebook_shows_tables_footers_and_plots(executed) -> None:
    html = [o["data"]["text/html"] for c in executed.cells for o in c.get("outputs", [])
            if "text/html" in o.get("data", {})]
    footers = [h for h in html if "rankeval-footer" in h]
    assert len(footers) >= 5  # report, its compact view, summary, compact, per-group rows
    assert all("coverage: " in h for h in footers)  # the line that matters, shown
    assert all("<details" in h and "choices: " in h for h in footers)  # the details, folded
    assert any("significantly better / worse" in h for h in footers)
    assert any("empty=" in h and "ranx" in h for h in footers)
    images = [o for c in executed.cells for o in c.get("outputs", []) if "image/png" in o.get("data", {})]
    assert len(images) == 2


def test_stored_outputs_are_current(executed) -> None:
    stored = nbformat.read(NOTEBOOK, as_version=4)
    assert _footer_outputs(stored), "the stored notebook has no outputs: run python tests/test_notebook.py --write"
    assert _footer_outputs(executed) == _footer_outputs(stored)


if __name__ == "__main__":  # python tests/test_notebook.py --write
    if "--write" not in sys.argv:
        sys.exit("usage: python tests/test_notebook.py --write")
    nb = execute(nbformat.read(NOTEBOOK, as_version=4), strict=False)
    nbformat.write(nb, NOTEBOOK)
    print(f"wrote {NOTEBOOK}")
