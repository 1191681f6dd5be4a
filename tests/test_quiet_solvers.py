"""No third-party banner or warning reaches the user (issue 28): HiGHS's
copyright banner, numpy/scipy RuntimeWarnings and cvxpy's UserWarnings are
silenced at each call, never by a global filter or monkeypatch."""

from __future__ import annotations

import os
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from models.solvers import _c_stdout_silenced

ROOT = Path(__file__).resolve().parents[1]
PAPER = ROOT / "examples" / "paper_two_users.toml"


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "analyzer", *args], check=False, capture_output=True, text=True,
                          cwd=ROOT, timeout=600)


def test_c_stdout_is_silenced_for_the_call_only(capfd: pytest.CaptureFixture[str]) -> None:
    with _c_stdout_silenced():
        os.write(1, b"Running HiGHS 9.9.9: Copyright (c) banner\n")
    os.write(1, b"after\n")
    out, err = capfd.readouterr()
    assert out == "after\n" and err == ""


@pytest.mark.parametrize("args", [
    ["search", "--policy", "utilitarian", "--property", "sharing-incentive", "--budget", "20", "--workers", "1",
     "--quiet"],
    ["solve", str(PAPER), "--policy", "utilitarian,drf"],
])
def test_no_highs_banner_on_either_stream(args: list[str]) -> None:
    # a fresh interpreter: HiGHS prints its banner for the first Highs object of a process
    r = run_cli(*args)
    assert r.returncode in (0, 1), r.stderr
    assert "HiGHS" not in r.stdout and "HiGHS" not in r.stderr and "Copyright" not in r.stderr
    assert r.stderr == ""


def test_api_calls_raise_no_warning() -> None:
    # the Python entry points, as a notebook calls them, with every warning shown
    from analyzer import check, property_table, solve
    from models import Instance

    inst = Instance.load(PAPER)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        solve(inst, ["utilitarian", "ceei", "fds:beta=8", "gfj"])
        check("utilitarian", inst, "envy-freeness")
        property_table(["utilitarian", "fds"], ["sharing-incentive", "pareto-efficiency"], budget=40, seed=0,
                       workers=1)
    assert [f"{w.category.__name__}: {w.message}" for w in seen] == []
