"""Solver failures: the fallback chain of :func:`models.solvers.solve_problem`,
the error naming policy and statuses, exit code 3 on the command line, and
solver output reported (``max_violation``) rather than clipped.

Failures are forced through the problem itself (infeasible, unbounded) or
through the solver list handed to ``solve_problem`` (dependency injection),
never by patching cvxpy.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

cp = pytest.importorskip("cvxpy")

from analyzer.cli.main import main  # noqa: E402
from models import Allocation, Instance, Policy, SolverError, get_policy, register  # noqa: E402
from models.policy import POLICIES  # noqa: E402
from models.solvers import solve_problem  # noqa: E402
from models.tolerances import FEASIBILITY_RTOL  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
PAPER = ROOT / "examples" / "paper_two_users.toml"


def infeasible_problem() -> tuple[object, object]:
    x = cp.Variable(2)
    return cp.Problem(cp.Maximize(cp.sum(x)), [x >= 1, cp.sum(x) <= 1]), x


def lp_problem() -> tuple[object, object]:
    x = cp.Variable(2, nonneg=True)
    return cp.Problem(cp.Maximize(cp.sum(x)), [x <= 2]), x


def log_problem() -> tuple[object, object]:
    x = cp.Variable(pos=True)
    return cp.Problem(cp.Maximize(cp.log(x)), [x <= 2]), x


def test_infeasible_names_policy_and_every_status() -> None:
    prob, _ = infeasible_problem()
    with pytest.raises(SolverError) as info:
        solve_problem(prob, "my-policy (stage 1)", ("HIGHS", "CLARABEL"))
    err = info.value
    assert err.policy == "my-policy (stage 1)"
    assert err.status == "infeasible"
    msg = str(err)
    assert "my-policy" in msg and "HIGHS: infeasible" in msg and "CLARABEL: infeasible" in msg
    assert "\n" not in msg


def test_unbounded_status_is_reported() -> None:
    x = cp.Variable()
    prob = cp.Problem(cp.Maximize(x), [x >= 0])
    with pytest.raises(SolverError, match="unbounded") as info:
        solve_problem(prob, "open", ("CLARABEL",))
    assert info.value.status.startswith("unbounded")


def test_a_solver_that_errors_falls_back_to_the_next() -> None:
    # HiGHS cannot take an exponential cone: cvxpy raises, the chain goes on
    prob, x = log_problem()
    attempts: list[str] = []
    used = solve_problem(prob, "ceei-like", ("HIGHS", "SCS"), attempts=attempts)
    assert used == "SCS"
    assert len(attempts) == 1 and attempts[0].startswith("HIGHS: error")
    assert float(x.value) == pytest.approx(2.0, rel=1e-6)


def test_every_solver_erroring_raises_with_each_error() -> None:
    prob, _ = log_problem()
    with pytest.raises(SolverError, match=r"policy 'p': .*HIGHS: error.*OSQP: error"):
        solve_problem(prob, "p", ("HIGHS", "OSQP"))


def test_rejected_optimum_falls_back_then_fails_with_the_reason() -> None:
    prob, _ = lp_problem()
    attempts: list[str] = []
    with pytest.raises(SolverError) as info:
        solve_problem(prob, "strict", ("HIGHS", "CLARABEL"), accept=lambda _p: "optimal but infeasible by 1.00e-03",
                      attempts=attempts)
    assert info.value.status == "optimal but infeasible by 1.00e-03"
    assert attempts == ["HIGHS: optimal but infeasible by 1.00e-03", "CLARABEL: optimal but infeasible by 1.00e-03"]


def test_accept_rejecting_only_the_first_solver() -> None:
    prob, x = lp_problem()
    seen: list[str] = []

    def first_bad(_p: object) -> str | None:
        seen.append("x")
        return "looks wrong" if len(seen) == 1 else None

    attempts: list[str] = []
    assert solve_problem(prob, "p", ("HIGHS", "CLARABEL"), accept=first_bad, attempts=attempts) == "CLARABEL"
    assert attempts == ["HIGHS: looks wrong"]
    np.testing.assert_allclose(x.value, [2.0, 2.0], rtol=1e-8)


def test_no_installed_solver() -> None:
    prob, _ = log_problem()
    with pytest.raises(SolverError, match="no solver installed.*NOT-A-SOLVER"):
        solve_problem(prob, "p", ("NOT-A-SOLVER",))


def test_cvxpy_warnings_are_not_printed(recwarn) -> None:
    prob, _ = infeasible_problem()
    with pytest.raises(SolverError):
        solve_problem(prob, "p", ("CLARABEL", "SCS"))
    assert not [w for w in recwarn if "cvxpy" in str(w.filename)]


class _AlwaysInfeasible(Policy):
    """A policy whose program is infeasible, to drive the CLI's exit 3."""

    name = "test-infeasible"
    description = "test only: an infeasible program"

    def solve(self, instance: Instance) -> Allocation:
        prob, _ = infeasible_problem()
        solve_problem(prob, self.label, ("HIGHS", "CLARABEL"))
        raise AssertionError("unreachable")  # pragma: no cover


@pytest.fixture
def failing_policy():
    register(_AlwaysInfeasible)
    yield _AlwaysInfeasible
    POLICIES.unregister(_AlwaysInfeasible.name)


def test_cli_maps_solver_error_to_exit_3_one_line(failing_policy, capsys) -> None:
    code = main(["solve", str(PAPER), "--policy", "drf,test-infeasible"])
    out, err = capsys.readouterr()
    assert code == 3
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith("fairalloc: error: policy 'test-infeasible': solver returned status 'infeasible'")


def test_cli_plot_maps_solver_error_to_exit_3(failing_policy, capsys, tmp_path) -> None:
    out = tmp_path / "x.png"
    code = main(["plot", str(PAPER), "--policy", "test-infeasible", "-o", str(out)])
    _, err = capsys.readouterr()
    assert code == 3 and err.count("\n") == 1 and "test-infeasible" in err
    assert not out.exists()


@pytest.mark.parametrize("policy", ["drf", "asset"])
def test_lp_sequence_reports_max_violation_and_does_not_clip(policy: str) -> None:
    # user A is capped at 1.5 tasks (binding); the LP values are kept as the
    # solver gave them and their excess is measured, not hidden
    inst = Instance.from_dict({"resources": {"cpu": 9, "mem": 18},
                               "users": {"A": {"demand": {"cpu": 1, "mem": 4}, "max_tasks": 1.5},
                                         "B": {"demand": {"cpu": 3, "mem": 1}}}})
    a = get_policy(policy).solve_program(inst)
    assert a.stats["max_violation"] == a.max_violation()
    assert 0.0 <= a.stats["max_violation"] <= FEASIBILITY_RTOL
    exact = get_policy(policy).solve_exact(inst)
    np.testing.assert_allclose(a.x, [float(v) for v in exact.x_exact], rtol=1e-6)


def test_ceei_reports_max_violation() -> None:
    a = get_policy("ceei").solve(Instance.load(PAPER))
    assert "max_violation" in a.stats and a.stats["max_violation"] <= FEASIBILITY_RTOL

