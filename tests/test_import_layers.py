"""The import layers (issue 33; docs/architecture.md, "The layers"): the
import-linter contracts of pyproject.toml ``[tool.importlinter]`` hold on
the imports themselves, deferred ones inside functions and those under
``TYPE_CHECKING`` included -- ``analyzer -> proofs -> models`` never back,
no circle between the files or sub-packages of any package, and
``analyzer``'s floors -- and they are not vacuous: an import that closes a
circle or climbs a floor breaks them.

The same check from a shell: ``lint-imports`` (in the repository's root).
import-linter (and grimp, which it builds on) is in the ``dev`` extra: no
skip when it is missing, the layers would go unchecked.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grimp
import importlinter.api as importlinter_api
import pytest
from importlinter.application.use_cases import lint_imports
from importlinter.contracts.acyclic_siblings import AcyclicSiblingsContract
from importlinter.contracts.layers import LayersContract

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = ROOT / "pyproject.toml"
#: The contract types pyproject.toml uses.
TYPES: dict[str, type[Any]] = {"layers": LayersContract, "acyclic_siblings": AcyclicSiblingsContract}
#: At most this many modules at analyzer/'s top level (``__init__`` and
#: ``__main__`` counted), the sub-packages apart (issue 33).
TOP_LEVEL_MAX = 8


def _contracts() -> list[Any]:
    config = importlinter_api.read_configuration(str(PYPROJECT))
    out = []
    for options in config["contracts_options"]:
        options = dict(options)
        kind, name = options.pop("type"), options.pop("name")
        options.pop("id", None)
        out.append(TYPES[kind](name, config["session_options"], options))
    return out


@pytest.fixture(scope="module")
def graph() -> Iterator[Any]:
    """The import graph of the three packages, as the contracts read it."""
    config = importlinter_api.read_configuration(str(PYPROJECT))
    opts = config["session_options"]
    assert opts["exclude_type_checking_imports"] == "False", "a TYPE_CHECKING import counts like any other"
    yield grimp.build_graph(*opts["root_packages"], include_external_packages=False,
                            exclude_type_checking_imports=False, cache_dir=None)


def _broken(graph: Any) -> list[str]:
    return [c.name for c in _contracts() if not c.check(graph, verbose=False).kept]


def test_the_contracts_hold_as_lint_imports_reports_them(capsys: pytest.CaptureFixture[str]) -> None:
    ok = lint_imports(config_filename=str(PYPROJECT), cache_dir=None, no_logo=True)
    report = capsys.readouterr().out
    assert ok, report
    assert "0 broken" in report and f"{len(_contracts())} kept" in report, report


def test_every_contract_of_pyproject_is_checked_here() -> None:
    config = importlinter_api.read_configuration(str(PYPROJECT))
    kinds = {c["type"] for c in config["contracts_options"]}
    assert kinds <= set(TYPES) and {"layers", "acyclic_siblings"} <= kinds
    assert {r for r in config["session_options"]["root_packages"]} == {"analyzer", "proofs", "models"}


@pytest.mark.parametrize(("importer", "imported", "why"), [
    ("analyzer.properties._common", "analyzer.properties.strategy_proofness", "a circle in one package"),
    ("analyzer.render", "analyzer.cli.common", "shared rendering climbs to the command line"),
    ("analyzer.cli.common", "analyzer.cli.main", "what commands share imports the parser"),
    ("analyzer.proving.bounded.digest", "analyzer.proving.smt", "the bounded prover climbs to the front door"),
    ("analyzer.simulation.result", "analyzer.tables.table", "two sibling uses, one climbing to the other"),
    ("proofs.prover.symbolic", "analyzer.api", "proofs imports analyzer"),
    ("models.discrete.state", "models.discrete.engine", "a circle in models (deferred or TYPE_CHECKING alike)"),
])
def test_one_import_that_closes_a_circle_or_climbs_breaks_a_contract(graph: Any, importer: str, imported: str,
                                                                     why: str) -> None:
    assert not graph.direct_import_exists(importer=importer, imported=imported), "already there: pick another"
    assert _broken(graph) == []
    graph.add_import(importer=importer, imported=imported, line_number=1, line_contents=f"import {imported}")
    try:
        broken = _broken(graph)
    finally:
        graph.remove_import(importer=importer, imported=imported)
    assert broken, f"{importer} -> {imported} ({why}) broke no contract"


def test_a_new_top_level_module_needs_a_floor(graph: Any) -> None:
    graph.add_module("analyzer.newcomer")
    graph.add_import(importer="analyzer.newcomer", imported="analyzer.render", line_number=1,
                     line_contents="import analyzer.render")
    try:
        broken = _broken(graph)
    finally:
        graph.remove_module("analyzer.newcomer")
    assert "analyzer's floors: each sub-package imports only those below it" in broken


def test_analyzer_top_level_has_at_most_eight_modules() -> None:
    modules = sorted(p.name for p in (ROOT / "analyzer").glob("*.py"))
    assert len(modules) <= TOP_LEVEL_MAX, modules
    for pkg in (p for p in (ROOT / "analyzer").iterdir() if (p / "__init__.py").is_file()):
        doc = (pkg / "__init__.py").read_text().lstrip()
        assert doc.startswith('"""'), f"{pkg.name}/__init__.py: a docstring saying what the sub-package is for"
