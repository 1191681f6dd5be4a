"""Sphinx configuration of fairalloc's documentation site.

Build: ``python -m sphinx -W -b html docs OUT`` (tests/test_docs_site.py
builds it into a temporary directory, warnings as errors). The pages are
Markdown (MyST); the API reference is rendered from the numpydoc
docstrings; the quick-start notebook (``examples/quickstart.ipynb``,
linked here as ``quickstart.ipynb``) is executed during the build by
myst-nb, so the site shows its tables and figures (the test builds with
``-D nb_execution_mode=off`` and executes the notebook itself with
nbclient, once). The build writes nothing outside its output folder:
myst-nb's executed notebooks and their images go to the doctree folder
(``OUT/.doctrees`` by default) instead of ``jupyter_execute/`` beside
``OUT`` (:func:`setup`).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

project = "fairalloc"
author = "fairalloc developers"
try:
    from importlib.metadata import version as _version

    release = _version("fairalloc")
except Exception:  # a source tree that was never installed
    release = "unknown"

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.mathjax",
    "numpydoc",
    "myst_nb",
]
source_suffix = {".md": "myst-nb", ".ipynb": "myst-nb", ".rst": "restructuredtext"}
exclude_patterns = ["_build", "**.ipynb_checkpoints"]
myst_enable_extensions = ["colon_fence", "dollarmath"]
myst_heading_anchors = 3
# README and pages link to source files of the repository (examples/*.toml, models/...): plain links, not documents
suppress_warnings: list[str] = []

html_theme = "furo"
html_title = "fairalloc"

autodoc_default_options = {"members": True, "undoc-members": False, "show-inheritance": False}
autodoc_typehints = "none"  # the numpydoc sections give the types
autodoc_member_order = "bysource"
numpydoc_show_class_members = False
numpydoc_xref_param_type = False
numpydoc_class_members_toctree = False

nb_execution_mode = "force"
nb_execution_timeout = 600
nb_execution_raise_on_error = True
nb_execution_show_tb = True
nb_merge_streams = True


def _keep_outputs_inside(app: Any) -> None:
    """myst-nb puts the executed notebooks and the files they write (images)
    in ``jupyter_execute/`` beside the output folder, whatever the
    configuration (``myst_nb.sphinx_ext.create_mystnb_config``, on
    ``builder-inited``): move them into the doctree folder, inside the
    output folder unless ``-d`` names another place."""
    app.env.mystnb_config = app.env.mystnb_config.copy(
        output_folder=str(Path(app.doctreedir).joinpath("jupyter_execute").resolve()),
        execution_cache_path=str(Path(app.doctreedir).joinpath(".jupyter_cache").resolve()))


def setup(app: Any) -> None:
    app.connect("builder-inited", _keep_outputs_inside, priority=900)  # after myst-nb's handler (priority 500)
