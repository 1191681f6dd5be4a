"""Batches never fail as a whole (issue 28): a member with a singular
Newton system takes a regularised step or falls back to its own solver,
comes out as it would alone, and a member no solver answers is the
:class:`~models.errors.SolverFailure` of that instance (exit code 3)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from analyzer import solve
from analyzer.cli.common import EXIT_SOLVER
from analyzer.cli.main import main
from analyzer.properties import get_property
from analyzer.properties._batch import numeric_batch
from models import Instance, SolverError, SolverFailure, get_policy, register
from models.batching import run_batch, solve_systems
from models.ceei_newton import NewtonResult, solve_batch, solve_eisenberg_gale
from models.policies.ceei import CEEI
from models.policy import POLICIES
from models.tolerances import CROSSCHECK_RTOL

#: Found by ``fairalloc table --budget 30000 --policy ceei --property
#: sharing-incentive`` (the grid, then a random draw): r1 and r2 are used in
#: the same proportions by every user, so the Hessian of CEEI's dual is
#: singular along ``pi_1 - pi_2`` and the Marquardt term vanishes with the
#: residual. The batched Newton step failed the whole batch (LinAlgError).
SINGULAR = Instance.from_exact([1, 1, 2], [[1, 1, 1], [2, 2, 1], [3, 3, 1]])


def random_batch(K: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return rng.integers(1, 10, size=(K, 3, 3)).astype(float), rng.integers(1, 20, size=(K, 3)).astype(float)


def test_singular_member_does_not_fail_the_stack() -> None:
    A = np.array([[[2.0, 1.0], [1.0, 3.0]], [[1.0, 1.0], [1.0, 1.0]], [[4.0, 0.0], [0.0, 5.0]],
                  [[np.nan, 0.0], [0.0, 1.0]]])
    b = np.array([[1.0, 2.0], [1.0, -1.0], [8.0, 5.0], [1.0, 1.0]])
    x, failed = solve_systems(A, b)
    assert failed.tolist() == [False, False, False, True]
    for k in (0, 2):  # the regular members: what LAPACK gives each alone
        np.testing.assert_array_equal(x[k], np.linalg.solve(A[k], b[k]))
    assert np.all(np.isfinite(x[1])) and np.all(x[3] == 0)
    with pytest.raises(np.linalg.LinAlgError):  # what the batch met before
        np.linalg.solve(A[:3], b[:3, :, None])


def test_ceei_singular_instance_alone_is_certified_and_exact() -> None:
    r = solve_eisenberg_gale(SINGULAR.capacity, SINGULAR.demands)
    assert r.failure() is None
    exact = solve(SINGULAR, "ceei", exact=True)
    assert exact.exact
    np.testing.assert_allclose(r.x, [float(v) for v in exact.x_exact], rtol=CROSSCHECK_RTOL)


def test_ceei_batch_members_equal_their_solve_alone() -> None:
    D, R = random_batch(40, 1)
    D[7], R[7] = SINGULAR.demands, SINGULAR.capacity
    D[20, :, 1], R[20, 1] = 2 * D[20, :, 0], 2 * R[20, 0]  # another pair of proportional resources
    out = solve_batch(R, D)
    assert out.certified().all()
    for k in range(len(D)):
        alone = solve_eisenberg_gale(R[k], D[k])
        np.testing.assert_array_equal(out.x[k], alone.x)
        assert out.iterations[k] == alone.iterations


def test_run_batch_answers_no_member_when_the_batch_raises() -> None:
    def broken(D, R, w, k):
        raise np.linalg.LinAlgError("Singular matrix")

    D, R = random_batch(3, 2)
    x, ok = run_batch(broken, D, R, np.ones(3), np.full((3, 3), np.inf))
    assert x.shape == (3, 3) and not ok.any()

    def half_nan(D, R, w, k):
        x = np.ones(D.shape[:2])
        x[0, 1] = np.nan
        return x, np.ones(len(D), dtype=bool)

    _, ok = run_batch(half_nan, D, R, np.ones(3), np.full((3, 3), np.inf))
    assert ok.tolist() == [False, True, True]


def test_screen_answers_every_member_when_the_batch_solver_raises(monkeypatch: pytest.MonkeyPatch) -> None:
    # a batch solver that fails as a whole (as CEEI's did): each member is
    # solved alone by the policy, with the same answer as without the batch
    ceei = CEEI()
    insts = [SINGULAR, Instance.from_exact([9, 18], [[1, 4], [3, 1]]), Instance.from_exact([1, 1, 2],
                                                                                         [[1, 2, 1], [2, 1, 1]])]
    want = [ceei.solve(i).x for i in insts]

    def raising(D, R, w, k):
        raise np.linalg.LinAlgError("Singular matrix")

    monkeypatch.setattr(ceei, "batch_solver", lambda: raising)
    got = numeric_batch(ceei, insts, "continuous")
    assert got == [None, None, None]  # not answered: the screen's full check solves them
    prop = get_property("sharing-incentive")
    assert prop.screen_many(ceei, insts, "continuous").tolist() == [True, True, True]
    for inst, x in zip(insts, want, strict=True):
        assert prop.check(ceei, inst) is None
        np.testing.assert_allclose(ceei.solve(inst).x, x, rtol=CROSSCHECK_RTOL)


class _NoSolver(CEEI):
    """CEEI whose two solvers both fail (Newton never converges, the conic
    program reports a failure): registered for the tests below."""

    name = "test-ceei-no-solver"

    def solve_program(self, instance: Instance):
        raise SolverError(self.label, "numerical error", "tried CLARABEL: numerical error")

    def batch_solver(self):
        return None  # every solve goes through solve()


@pytest.fixture
def no_solver(monkeypatch: pytest.MonkeyPatch):
    import models.policies.ceei as ceei_module

    def unconverged(capacity, demands, weights=None, max_tasks=None):
        r = solve_eisenberg_gale(capacity, demands, weights, max_tasks)
        return NewtonResult(**{**r.__dict__, "converged": False, "iterations": 200})

    monkeypatch.setattr(ceei_module, "solve_eisenberg_gale", unconverged)  # this module's name only
    register(_NoSolver)
    yield _NoSolver.name
    POLICIES.unregister(_NoSolver.name)


def test_no_solver_succeeds_is_a_solver_failure_naming_policy_and_instance(no_solver: str) -> None:
    with pytest.raises(SolverFailure) as info:
        get_policy(no_solver).solve(SINGULAR)
    exc = info.value
    assert exc.policy == no_solver and exc.instance is SINGULAR
    assert "R=<1, 1, 2>; u0: <1, 1, 1>" in str(exc) and "no convergence" in str(exc) and "\n" not in str(exc)


@pytest.mark.parametrize("command", [["solve"], ["check", "--property", "sharing-incentive"]])
def test_cli_exit_3_one_line_for_a_solver_failure(no_solver: str, command: list[str], tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "singular.toml"
    path.write_text(SINGULAR.to_toml())
    code = main([command[0], str(path), "--policy", no_solver, *command[1:]])
    _, err = capsys.readouterr()
    assert code == EXIT_SOLVER, err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith(f"fairalloc: error: policy '{no_solver}': ") and "on the instance R=<1, 1, 2>" in err


@pytest.mark.parametrize("policy", ["ceei", "bbf"])
@pytest.mark.parametrize("prop", ["sharing-incentive", "envy-freeness"])
def test_cli_check_on_the_singular_instance(policy: str, prop: str, tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "singular.toml"
    path.write_text(SINGULAR.to_toml())
    code = main(["check", str(path), "--policy", policy, "--property", prop])
    out, err = capsys.readouterr()
    assert code == 0 and "Traceback" not in err and "holds on this instance" in out
