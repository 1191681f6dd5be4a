"""The documentation site (docs/, Sphinx + numpydoc + myst-nb, theme furo)
builds with warnings as errors, its index links the API reference, and
the quick-start notebook (examples/quickstart.ipynb) runs headless.

The build here renders the notebook without executing it
(``-D nb_execution_mode=off``): the notebook is executed once, by the test
below with nbclient; a real build (docs/conf.py) executes it to show its
outputs."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "examples" / "quickstart.ipynb"


def test_the_readme_install_brings_numba_and_the_docs_tools() -> None:
    """``pip install -e ".[dev,dask]"`` (the README's) installs what these tests
    and the compiled kernels need; nothing here is skipped when missing."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert any(d.startswith("numba") for d in project["dependencies"])
    extras = project["optional-dependencies"]
    assert "fairalloc[docs]" in extras["dev"]
    needed = {"sphinx", "numpydoc", "myst-parser", "myst-nb", "furo", "nbclient", "nbformat", "ipykernel"}
    assert needed <= {d.split(">")[0].split("=")[0].split("[")[0] for d in extras["docs"]}


def test_docs_build_with_warnings_as_errors(tmp_path: Path) -> None:
    out = tmp_path / "site" / "html"
    r = subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
                        "-D", "nb_execution_mode=off", "docs", str(out)],
                       cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    # everything the build writes is inside its output folder (myst-nb's jupyter_execute/ in the doctrees)
    assert [p.name for p in (tmp_path / "site").iterdir()] == ["html"]
    assert (out / ".doctrees" / "jupyter_execute").is_dir()
    index = (out / "index.html").read_text()
    assert 'href="api.html"' in index and 'href="quickstart.html"' in index and 'href="guide.html"' in index
    api = (out / "api.html").read_text()
    import analyzer

    for name in analyzer.__all__:  # every public name has its entry
        assert f'id="analyzer.{name}"' in api, f"add analyzer.{name} to docs/api.md"
    assert 'id="analyzer.simulation.result.SimulationResult"' in api
    assert "63/25" in (out / "guide.html").read_text()  # the README's guide, rendered


def test_quickstart_notebook_runs_headless(tmp_path: Path) -> None:
    import nbclient
    import nbformat

    nb = nbformat.read(NOTEBOOK, as_version=4)
    assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code"), "commit the notebook without outputs"
    nbclient.NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
                            ).execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    html = "\n".join(o.get("data", {}).get("text/html", "") for o in outputs)
    assert "<td>63/25</td>" in html and "<td>45/11</td>" in html  # the paper's Sections 4 and 5
    assert "✓ (proved ≤ 2x2)" in html and "mean response time" in html
    images = [o for o in outputs if "image/png" in o.get("data", {})]
    assert len(images) == 3  # the comparison's, the simulation's and the worst case's figures
    assert "efficiency (worst = min)" in html and "(exact)" in html  # the worst case, certified
