"""Start-up cost of the command line: what ``fairalloc solve --policy drf``
imports (the speed itself is measured by benchmarks/bench_cold_start.py;
no timing assertions here)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from analyzer.formats import render_tables
from analyzer.render import Table

ROOT = Path(__file__).resolve().parents[1]
PAPER = ROOT / "examples" / "paper_two_users.toml"

#: Modules that a DRF solve must not load: cvxpy, scipy and sympy are only
#: for programs, cross-checks and exact answers; matplotlib only for
#: ``plot``; tabulate is replaced by analyzer.render's own grids; proofs (exact answers), the search, table
#: and discrete machinery load on first use (lazy names in analyzer, one
#: subcommand module registered when the command is named). pandas (``to_pandas``),
#: numba (compiled kernels), dask/distributed (``--scheduler``) and highspy
#: (LPs) are for other commands too.
HEAVY = (
    "cvxpy",
    "scipy",
    "sympy",
    "tabulate",
    "clarabel",
    "matplotlib",
    "z3",
    "pandas",
    "numba",
    "dask",
    "distributed",
    "highspy",
    "proofs",
    "analyzer.searching.engine",
    "analyzer.table",
    "models.discrete",
    "analyzer.commands.table",
)


@pytest.mark.parametrize(("policy", "fmt"), [
    (["--policy", "drf"], "text"), (["--policy", "drf"], "md"), (["--policy", "drf"], "json"),
    ([], "text"),  # the README's quick start: drf, asset and CEEI (Newton's method, no cvxpy)
])
def test_solve_drf_imports_no_heavy_module(policy: list[str], fmt: str) -> None:
    code = (
        "import sys, io, contextlib; from analyzer.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    rc = main(['solve', {str(PAPER)!r}, *{policy!r}, '--format', {fmt!r}])\n"
        f"print(rc, sorted(m for m in {HEAVY!r} if m in sys.modules))"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["0", "[]"], r.stdout


@pytest.mark.parametrize("command", [
    ["discrete", "examples/paper_section_7_1.toml"], ["variants", "examples/variants_tie.toml"],
    ["simulate", "examples/sim_section_7_1.toml", "--quiet"],
])
def test_small_runs_of_the_kernel_commands_import_no_numba(command: list[str]) -> None:
    # the first commands a new user runs are too small for compiled kernels to pay off (models/kernels.py):
    # they run as Python, with no numba import and no compilation, whatever the cache holds
    code = (
        "import sys, io, contextlib; from analyzer.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    rc = main({command!r})\n"
        "print(rc, 'numba' in sys.modules, 'llvmlite' in sys.modules)"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["0", "False", "False"], r.stdout
    assert r.stderr == ""  # no compilation notice


def test_grids_match_tabulate_layout() -> None:
    tabulate = pytest.importorskip("tabulate").tabulate
    headers = ["user", "drf", "asset", "c"]
    rows = [["A", "3", "63/25 (2.52)", "✓"], ["Bob", "2", " x ", "✗ no"], ["", "", "", ""]]
    text = render_tables([Table("T", headers, rows)], "text")
    md = render_tables([Table("T", headers, rows)], "md")
    # render_tables strips trailing blank lines (the empty last row)
    assert text == "T\n" + tabulate(rows, headers=headers, tablefmt="simple", disable_numparse=True).rstrip() + "\n"
    assert md == "### T\n\n" + tabulate(rows, headers=headers, tablefmt="github", disable_numparse=True).rstrip() + "\n"


def test_lazy_public_names_and_full_help() -> None:
    import analyzer
    import analyzer.table  # noqa: F401  (imports the analyzer.searching subpackage)
    from analyzer import PropertyTable, check, progressive_filling, property_table, search  # noqa: F401
    from analyzer.cli import build_parser

    assert callable(analyzer.search) and analyzer.search.__name__ == "search"
    def commands(parser: object) -> set[str]:
        return {name for action in parser._actions if action.dest == "command"  # type: ignore[attr-defined]
                for name in action.choices}

    assert commands(build_parser()) >= {"solve", "search", "table", "policies"}
    assert commands(build_parser("solve")) == {"solve"}
    assert commands(build_parser("no-such-command")) == commands(build_parser())


def test_import_analyzer_and_notebook_objects_load_no_heavy_module() -> None:
    """``import analyzer``, ``solve`` with several policies (CEEI by Newton's
    method) and the notebook views (repr, HTML) load neither cvxpy, numba,
    matplotlib nor pandas: those wait for ``plot``, ``to_pandas`` and programs."""
    code = (
        "import sys, analyzer\n"
        f"c = analyzer.solve({str(PAPER)!r}, ['drf', 'asset', 'ceei'])\n"
        "repr(c); c._repr_html_(); repr(c['drf']); c['drf']._repr_html_()\n"
        "print(sorted(m for m in ('cvxpy', 'numba', 'matplotlib', 'pandas') if m in sys.modules))"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["[]"], r.stdout
