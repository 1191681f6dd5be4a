"""The conic solvers accept fairalloc's options, including the time limit."""

import pytest

from models.solvers import CONIC_SOLVERS, solve_problem
from models.tolerances import CONIC_SOLVER_TIME_LIMIT, conic_solver_options


@pytest.mark.parametrize("solver", CONIC_SOLVERS)
def test_each_conic_solver_accepts_the_options(solver: str) -> None:
    cp = pytest.importorskip("cvxpy")
    if solver not in cp.installed_solvers():
        pytest.skip(f"{solver} not installed")
    opts = conic_solver_options(solver)
    assert CONIC_SOLVER_TIME_LIMIT in opts.values()  # every call is bounded in time
    x = cp.Variable(3, pos=True)
    prob = cp.Problem(cp.Maximize(cp.sum(cp.log(x))), [cp.sum(x) <= 3])
    prob.solve(solver=solver, **opts)  # an unknown option would raise here
    # Clarabel at CONIC_SOLVER_TOL may call this tiny problem "inaccurate";
    # the fallback chain then moves on (checked below)
    assert prob.status in (cp.OPTIMAL, cp.OPTIMAL_INACCURATE)
    assert x.value == pytest.approx([1, 1, 1], rel=1e-6)


def test_fallback_chain_reaches_an_optimal_status() -> None:
    cp = pytest.importorskip("cvxpy")
    x = cp.Variable(3, pos=True)
    prob = cp.Problem(cp.Maximize(cp.sum(cp.log(x))), [cp.sum(x) <= 3])
    assert solve_problem(prob, "test", CONIC_SOLVERS) in CONIC_SOLVERS
    assert prob.status == cp.OPTIMAL and x.value == pytest.approx([1, 1, 1], rel=1e-6)
