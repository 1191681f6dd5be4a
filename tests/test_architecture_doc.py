"""docs/architecture.md names real files: every backticked path in it
exists, and every registry its "Registries" section lists is a
models.registry.Registry."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

from models.registry import Registry

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "architecture.md"
#: A backticked repository path: a name with a slash, or a file name with a
#: known extension (``models/policies/``, ``analyzer/cli.py``).
PATH = re.compile(r"`((?:[\w.-]+/)+[\w.-]*|[\w.-]+\.(?:py|md|toml))`")
#: A backticked registry: ``package.module.NAME`` in capitals.
REGISTRY = re.compile(r"`((?:[a-z_]+\.)+)([A-Z_]+)`")


def test_every_path_named_exists() -> None:
    text = DOC.read_text(encoding="utf-8")
    paths = PATH.findall(text)
    assert len(paths) >= 20, "the doc should name the files it describes"
    missing = [p for p in paths if not (ROOT / p).exists()]
    assert not missing, f"docs/architecture.md names missing paths: {missing}"


def test_every_registry_named_is_a_registry() -> None:
    section = DOC.read_text(encoding="utf-8").split("\n## Registries", 1)[1].split("\n## ", 1)[0]
    found = REGISTRY.findall(section)
    assert len(found) >= 5
    for module, name in found:
        obj = getattr(importlib.import_module(module.rstrip(".")), name)
        assert isinstance(obj, Registry), f"{module}{name} is not a models.registry.Registry"


def test_readme_links_the_doc() -> None:
    assert "docs/architecture.md" in (ROOT / "README.md").read_text(encoding="utf-8")
