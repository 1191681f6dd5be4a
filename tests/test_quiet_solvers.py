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


def test_cvxpy_inaccurate_warning_stays_inside_the_call(capfd: pytest.CaptureFixture[str]) -> None:
    """SCS stopped after 2 iterations: cvxpy warns "Solution may be
    inaccurate" when called directly; through fairalloc the warning stays
    inside the solver call and the outcome is a named SolverFailure (exit 3,
    one line), not a warning and not a silently accepted solution."""
    from analyzer import solve
    from analyzer.cli.main import main
    from models import Instance, SolverFailure, get_policy
    from models.solvers import solver_choice

    inst = Instance.load(PAPER)
    program = get_policy("utilitarian").program(inst)
    problem = program[0] if isinstance(program, (list, tuple)) else program
    with warnings.catch_warnings(record=True) as direct:
        warnings.simplefilter("always")
        problem.solve(solver="SCS", max_iters=2)
    assert any("inaccurate" in str(w.message) for w in direct)  # what a user would see without the silencing

    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        with solver_choice("SCS", {"max_iters": 2}), pytest.raises(SolverFailure, match="optimal_inaccurate"):
            solve(inst, "utilitarian")
    assert [str(w.message) for w in seen] == []

    capfd.readouterr()
    assert main(["solve", str(PAPER), "--policy", "utilitarian", "--solver", "SCS", "--solver-option",
                 "max_iters=2"]) == 3
    err = capfd.readouterr().err
    assert err.count("\n") == 1 and err.startswith("fairalloc: error: policy 'utilitarian") and "inaccurate" in err


TABLE_SCRIPT = ("from analyzer import property_table\n"
                "t = property_table({policies}, {props}, budget={budget}, seed=0)\n"
                "print(len(t.to_dict()['cells']))\n")


def _table_in_fresh_interpreter(policies: list[str], props: list[str] | None, budget: int) -> None:
    """property_table with the default workers (a process pool: a worker's
    warning goes straight to the terminal, where no catch_warnings of the
    parent sees it) in a fresh interpreter with Python's default filters:
    nothing on stderr."""
    script = TABLE_SCRIPT.format(policies=policies, props=props, budget=budget)
    r = subprocess.run([sys.executable, "-c", script], check=False, capture_output=True, text=True, cwd=ROOT,
                       timeout=1800, env={k: v for k, v in os.environ.items() if k != "PYTHONWARNINGS"})
    assert r.returncode == 0, r.stderr[-3000:]
    assert r.stderr == "", r.stderr[-3000:]
    if props is not None:
        assert int(r.stdout) == len(policies) * len(props)


def test_property_table_with_default_workers_is_silent() -> None:
    _table_in_fresh_interpreter(["ceei", "utilitarian"], ["sharing-incentive", "pareto-efficiency"], 20)


@pytest.mark.slow
def test_property_table_of_the_solver_policies_with_default_workers_is_silent() -> None:
    # every property, the policies solved by Newton's method, cvxpy and HiGHS (about 70 CPU s)
    _table_in_fresh_interpreter(["ceei", "bbf", "fds", "gfj", "utilitarian"], None, 300)
