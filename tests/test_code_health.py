"""The project's habits, checked with the tests: ruff (rules E, F, I, B;
configuration in pyproject.toml) on every package, tests and benchmarks,
and mypy on ``models/``, ``proofs/`` and ``analyzer/`` (the packages listed in
pyproject.toml's ``[tool.mypy] files``)."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _tool(name: str) -> list[str]:
    exe = Path(sys.executable).with_name(name)
    if exe.exists():
        return [str(exe)]
    found = shutil.which(name)
    assert found is not None, f"{name} is not installed: pip install -e '.[dev]'"
    return [found]


def test_ruff_is_clean():
    out = subprocess.run([*_tool("ruff"), "check", "analyzer", "models", "proofs", "tests", "benchmarks"], cwd=ROOT,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr


#: The packages mypy must find clean (issue 24: all three, not only models).
TYPED_PACKAGES: tuple[str, ...] = ("models", "proofs", "analyzer")


def test_mypy_is_clean_on_every_package():
    with open(ROOT / "pyproject.toml", "rb") as f:
        files = tomllib.load(f)["tool"]["mypy"]["files"]
    assert sorted(files) == sorted(TYPED_PACKAGES), f"[tool.mypy] files = {files}, expected {list(TYPED_PACKAGES)}"
    out = subprocess.run([*_tool("mypy")], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stdout + out.stderr


#: Longest module and function in analyzer/, models/ and proofs/ (issue 17's
#: habits); a longer one says why in its docstring with a line starting
#: "One piece:".
MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 60
_EXEMPT = "One piece:"


def _sources() -> list[Path]:
    return sorted(p for pkg in ("analyzer", "models", "proofs") for p in (ROOT / pkg).rglob("*.py"))


def _says_why(node: ast.AST) -> bool:
    doc = ast.get_docstring(node) if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef)) else None
    return doc is not None and any(line.strip().startswith(_EXEMPT) for line in doc.splitlines())


def test_no_module_over_the_line_limit():
    long = [f"{p.relative_to(ROOT)}: {n} lines" for p in _sources()
            if (n := len(p.read_text().splitlines())) > MAX_MODULE_LINES and not _says_why(ast.parse(p.read_text()))]
    assert not long, "modules over the limit:\n" + "\n".join(long)


def test_no_function_over_the_line_limit():
    long = []
    for p in _sources():
        for node in ast.walk(ast.parse(p.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.end_lineno is not None:
                n = node.end_lineno - node.lineno + 1
                if n > MAX_FUNCTION_LINES and not _says_why(node):
                    long.append(f"{p.relative_to(ROOT)}:{node.lineno} {node.name}: {n} lines")
    assert not long, "functions over the limit:\n" + "\n".join(long)
