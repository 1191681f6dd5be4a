"""The project's habits, checked with the tests: ruff (rules E, F, I, B;
configuration in pyproject.toml) on every package, tests and benchmarks,
and mypy on ``models/``."""

from __future__ import annotations

import shutil
import subprocess
import sys
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


def test_mypy_is_clean_on_models():
    out = subprocess.run([*_tool("mypy")], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stdout + out.stderr
