"""Symbolic derivations (proofs.symbolic): the paper's two-user programs and
the closed form of two-user, two-resource DRF."""


import numpy as np
import pytest
import sympy as sp

from analyzer import Instance, solve
from models import get_policy
from proofs.symbolic import drf_two_by_two, paper_programs


@pytest.fixture(scope="module")
def derivations() -> dict:
    return paper_programs()


def test_paper_programs_symbolic(derivations: dict) -> None:
    assert derivations["drf"].solution == {"A": 3, "B": 2}
    assert derivations["drf"].extra["share"] == sp.Rational(2, 3)
    assert derivations["asset"].solution == {"A": sp.Rational(63, 25), "B": sp.Rational(54, 25)}
    assert derivations["ceei"].solution == {"A": sp.Rational(45, 11), "B": sp.Rational(18, 11)}
    assert derivations["ceei"].extra["prices"] == {"cpu": sp.Rational(1, 5), "mem": sp.Rational(1, 90)}
    assert derivations["ceei"].binding == ("cpu", "mem") and derivations["drf"].binding == ("cpu",)


@pytest.mark.parametrize("policy", ["drf", "asset", "ceei"])
def test_symbolic_equals_exact_solvers(derivations: dict, policy: str) -> None:
    inst = Instance.load("examples/paper_two_users.toml")
    a = solve(inst, policy, exact=True)
    assert a.exact
    assert sp.nsimplify(a.tasks["A"]) == derivations[policy].solution["A"]
    assert sp.nsimplify(a.tasks["B"]) == derivations[policy].solution["B"]


@pytest.fixture(scope="module")
def closed_form():
    return drf_two_by_two()


def test_closed_form_branches_agree_with_min_max_form(closed_form) -> None:
    s = closed_form.symbols
    vals = {s["R1"]: 9, s["R2"]: 18, s["a1"]: 1, s["a2"]: 4, s["b1"]: 3, s["b2"]: 1}
    assert closed_form.x_a.subs(vals) == 3 and closed_form.x_b.subs(vals) == 2
    # the case where both users are memory-heavy and memory saturates
    case = next(c for c in closed_form.cases if (c.dominant_a, c.dominant_b, c.saturates) == (2, 2, 2))
    assert sp.simplify(case.x_a - s["R2"] / (2 * s["a2"])) == 0


def test_closed_form_matches_numeric_and_exact_solver(closed_form) -> None:
    rng = np.random.default_rng(2011)
    drf = get_policy("drf")
    f_a = sp.lambdify(list(closed_form.symbols.values()), closed_form.x_a)
    f_b = sp.lambdify(list(closed_form.symbols.values()), closed_form.x_b)
    for _ in range(200):
        R = rng.integers(1, 50, size=2)
        D = rng.integers(1, 12, size=(2, 2))
        inst = Instance.from_exact([int(v) for v in R], [[int(v) for v in row] for row in D])
        num = drf.solve(inst).x
        exact = drf.solve_exact(inst).x_exact
        xa, xb = closed_form.evaluate(tuple(R.tolist()), tuple(D[0].tolist()), tuple(D[1].tolist()))
        assert (xa, xb) == exact, inst.describe()
        params = [*R.tolist(), *D[0].tolist(), *D[1].tolist()]
        assert np.allclose([f_a(*params), f_b(*params)], num, rtol=1e-9, atol=0), inst.describe()
    # real-valued parameters too
    for _ in range(100):
        R = rng.uniform(0.5, 100, size=2)
        D = rng.uniform(0.01, 10, size=(2, 2))
        inst = Instance.from_arrays(R, D)
        params = [*R.tolist(), *D[0].tolist(), *D[1].tolist()]
        assert np.allclose([f_a(*params), f_b(*params)], drf.solve(inst).x, rtol=1e-9, atol=0)
