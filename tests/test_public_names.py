"""Public functions and modules never share a name (issue 17).

Importing a submodule binds it as an attribute of its package: a module
``analyzer/check.py`` made ``analyzer.check(...)`` raise ``TypeError:
'module' object is not callable`` once anything had imported it. The
functions ``check`` and ``search`` now live in ``analyzer.checking`` and
``analyzer.searching``; these tests pin that down in fresh interpreters (the
import order is what matters) and for every package of ``analyzer``.
"""

from __future__ import annotations

import importlib
import pkgutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

import analyzer

ROOT = Path(__file__).resolve().parents[1]


def run_fresh(code: str) -> str:
    """stdout of ``code`` run in a new interpreter from the project root."""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    return r.stdout.strip()


def test_check_works_after_its_module_is_imported() -> None:
    out = run_fresh(
        "import analyzer.checking, analyzer\n"
        "from analyzer import Instance\n"
        "inst = Instance.from_exact([30, 30], [[1, 3], [1, 1]])\n"
        "print(analyzer.check('asset', inst, 'sharing-incentive').message)\n"
        "print(analyzer.check('drf', inst, 'sharing-incentive'))\n"
    )
    assert out.splitlines() == ["u1 gets 12 tasks; 1/2 of every resource would give it 15", "None"]


def test_search_works_after_its_engine_is_imported() -> None:
    out = run_fresh(
        "import analyzer.searching.engine, analyzer\n"
        "r = analyzer.search('asset', 'sharing-incentive', budget=200, seed=0, workers=1)\n"
        "print(callable(analyzer.search), r.holds, r.counterexample.property)\n"
    )
    assert out == "True False sharing-incentive"


def test_public_name_is_the_function_whatever_the_import_order() -> None:
    import analyzer.checking  # noqa: F401
    import analyzer.searching.engine  # noqa: F401
    import analyzer.tables.table  # noqa: F401  (imports the searching subpackage)

    assert callable(analyzer.check) and analyzer.check.__name__ == "check"
    assert callable(analyzer.search) and analyzer.search.__name__ == "search"
    assert not isinstance(analyzer.__dict__.get("check", analyzer.check), ModuleType)


def packages(root: ModuleType) -> list[ModuleType]:
    """``root`` and its subpackages, recursively (modules are not imported)."""
    found = [root]
    for info in pkgutil.iter_modules(root.__path__):
        if info.ispkg:
            found += packages(importlib.import_module(f"{root.__name__}.{info.name}"))
    return found


@pytest.mark.parametrize("package", packages(analyzer), ids=lambda p: p.__name__)
def test_no_public_name_is_also_a_submodule(package: ModuleType) -> None:
    submodules = {info.name for info in pkgutil.iter_modules(package.__path__)}
    assert set(getattr(package, "__all__", ())) & submodules == set()


def test_analyzer_is_a_plain_module() -> None:
    """No ``__class__`` swap hides a subpackage behind a property any more."""
    assert type(analyzer) is ModuleType
