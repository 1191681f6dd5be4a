"""CEEI by projected Newton on the dual (models/ceei_newton.py) against the
paper, closed forms, an independent KKT check and cvxpy."""

from __future__ import annotations

import ast
import warnings
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from models import Instance, get_policy, tolerances
from models.ceei_newton import NewtonBatch, solve_eisenberg_gale
from models.tolerances import CEEI_CERTIFICATE_RTOL, CROSSCHECK_RTOL, FEASIBILITY_RTOL
from tests.strategies import random_instance

#: How close the Newton answer must be to a closed form (float64 answers of
#: a well-conditioned problem: the goal stated for the paper's example).
CLOSED_FORM_RTOL = 1e-10


def kkt_violation(inst: Instance, x: np.ndarray, prices: np.ndarray) -> float:
    """Largest violation of the Eisenberg-Gale KKT conditions, computed here
    independently of the solver: ``p >= 0``; capacities; ``p_j R_j`` times
    the relative slack of ``j`` (per unit of total weight);
    ``x_i = min(k_i, w_i / (p . d_i))``."""
    D, R, w, k = inst.demands, inst.capacity, inst.weights, inst.max_tasks
    live = k > 0
    slack = 1.0 - (x @ D) / R
    scale = float(w[live].sum()) or 1.0  # the objective's scale: sum_j p_j R_j = sum_i w_i without caps
    q = D[live] @ prices
    with np.errstate(divide="ignore"):
        best = np.minimum(k[live], w[live] / q)
    return max(
        float(np.max(-prices, initial=0.0)),
        float(np.max(-slack, initial=0.0)),
        float(np.max(np.abs(prices * R * slack), initial=0.0) / scale),
        float(np.max(np.abs(x[live] - best) / best, initial=0.0)),
        float(np.max(np.abs(x[~live]), initial=0.0)),
    )


def test_paper_example_to_1e10() -> None:
    inst = Instance.load("examples/paper_two_users.toml")
    a = get_policy("ceei").solve(inst)
    assert a.stats["solver"] == "newton"
    assert a.tasks["A"] == pytest.approx(45 / 11, rel=CLOSED_FORM_RTOL)
    assert a.tasks["B"] == pytest.approx(18 / 11, rel=CLOSED_FORM_RTOL)
    # both resources are saturated, so both carry a positive price
    assert np.all(a.certificate.prices > 0)


def test_one_resource_closed_form_with_weights_and_a_cap() -> None:
    # one resource: x_i d_i = share of R proportional to w_i, except the
    # capped user whose cap binds; the rest is split among the others.
    inst = Instance.from_arrays([12.0], np.array([[1.0], [2.0], [3.0]]), weights=[1, 2, 3],
                                max_tasks=[1.0, np.inf, np.inf])
    r = solve_eisenberg_gale(inst.capacity, inst.demands, inst.weights, inst.max_tasks)
    assert r.failure() is None
    # user 0 would get 12 * 1/6 = 2 > cap 1: capped, uses 1; 11 left split 2:3
    expected = [1.0, 11 * 2 / 5 / 2, 11 * 3 / 5 / 3]
    np.testing.assert_allclose(r.x, expected, rtol=CLOSED_FORM_RTOL)


def test_one_user_degenerate_dual() -> None:
    # one user, two resources equally binding: the prices are not unique
    # (singular Hessian) but x is: 1 / max_j(d_j / R_j)
    r = solve_eisenberg_gale([4.0, 8.0, 5.0], np.array([[2.0, 4.0, 1.0]]))
    assert r.failure() is None
    assert r.x[0] == pytest.approx(2.0, rel=CLOSED_FORM_RTOL)
    assert r.prices[2] == 0.0  # not saturated


def test_unused_resource_caps_at_zero_and_all_capped() -> None:
    D = np.array([[1.0, 0.0, 2.0], [0.0, 0.0, 1.0], [3.0, 0.0, 0.0]])
    r = solve_eisenberg_gale([10.0, 5.0, 10.0], D, max_tasks=[0.0, np.inf, np.inf])
    assert r.failure() is None
    assert r.x[0] == 0.0 and r.prices[1] == 0.0  # capped at 0; nobody uses resource 1
    np.testing.assert_allclose(r.x[1:], [10.0, 10 / 3], rtol=CLOSED_FORM_RTOL)
    # everybody capped below what fits: prices 0, x = caps exactly
    r2 = solve_eisenberg_gale([10.0, 5.0, 10.0], D, max_tasks=[1.0, 2.0, 3.0])
    assert r2.failure() is None
    np.testing.assert_array_equal(r2.x, [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(r2.prices, 0.0)
    # everybody capped at 0
    r3 = solve_eisenberg_gale([10.0, 5.0, 10.0], D, max_tasks=[0.0, 0.0, 0.0])
    assert r3.failure() is None and not r3.x.any()


def test_caps_binding_exactly_at_capacity() -> None:
    # the caps use the capacity exactly: a kink of the dual at the optimum
    inst = Instance.from_arrays([6.0, 6.0], np.array([[1.0, 2.0], [2.0, 1.0]]), max_tasks=[2.0, 2.0])
    a = get_policy("ceei").solve(inst)
    np.testing.assert_allclose(a.x, [2.0, 2.0], rtol=CLOSED_FORM_RTOL)
    assert a.is_feasible()


@pytest.mark.parametrize("seed", range(3))
def test_random_instances_kkt_and_cvxpy(seed: int) -> None:
    rng = np.random.default_rng(seed)
    pol = get_policy("ceei")
    for _ in range(15):
        inst = random_instance(rng, n_max=6, m_max=4)
        a = pol.solve(inst)
        assert a.stats["solver"] == "newton", a.stats
        assert a.max_violation() <= FEASIBILITY_RTOL
        assert kkt_violation(inst, a.x, a.certificate.prices) <= CROSSCHECK_RTOL
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # Clarabel's "may be inaccurate" on degenerate duals
            assert pol.crosscheck(inst) <= CROSSCHECK_RTOL


def test_exact_rational_instance_matches_fractions() -> None:
    # two users with disjoint resources plus a shared one; optimum by hand:
    # A: <1,0,1>, B: <0,1,1>, R = <3, 10, 4>. Without the shared resource B
    # would take 10; shared: x_A + x_B <= 4, x_A <= 3 -> x_A = x_B = 2.
    inst = Instance.from_exact([3, 10, 4], [[1, 0, 1], [0, 1, 1]])
    x = get_policy("ceei").solve(inst).x
    assert [Fraction(v).limit_denominator(1000) for v in x] == [2, 2]
    np.testing.assert_allclose(x, [2.0, 2.0], rtol=CLOSED_FORM_RTOL)


def test_fallback_to_cvxpy_when_not_certified(monkeypatch: pytest.MonkeyPatch) -> None:
    import models.ceei_dual as newton

    monkeypatch.setattr(newton, "CEEI_MAX_ITERATIONS", 0)  # the starting prices certify nothing
    inst = Instance.load("examples/paper_two_users.toml")
    a = get_policy("ceei").solve(inst)
    assert a.stats["solver"].startswith("cvxpy-")
    assert "newton rejected" in a.stats["fallback"]
    assert a.tasks["A"] == pytest.approx(45 / 11, rel=CROSSCHECK_RTOL)


def test_zero_curvature_price_on_wide_data() -> None:
    # resource 0 is used only by a capped user: the dual is linear in its
    # price up to a kink near 1e-12, reached only after ~75 step halvings
    inst = Instance.from_arrays([1.0, 1.0], np.array([[2.432e10, 9.591e-9], [0.0, 130.3]]), weights=[0.009, 2.706],
                                max_tasks=[0.766, np.inf])
    a = get_policy("ceei").solve(inst)
    assert a.stats["solver"] == "newton", a.stats
    assert kkt_violation(inst, a.x, a.certificate.prices) <= CROSSCHECK_RTOL


def test_data_spread_over_eighteen_orders_of_magnitude() -> None:
    rng = np.random.default_rng(7)
    for _ in range(200):
        n, m = int(rng.integers(1, 7)), int(rng.integers(1, 5))
        D = 10 ** rng.uniform(-9, 9, (n, m)) * (rng.random((n, m)) > 0.3)
        D[np.arange(n), rng.integers(0, m, n)] = 10 ** rng.uniform(-9, 9, n)
        k = np.where(rng.random(n) < 0.4, 10 ** rng.uniform(-9, 9, n), np.inf)
        inst = Instance.from_arrays(10 ** rng.uniform(-9, 9, m), D, weights=10 ** rng.uniform(-3, 3, n), max_tasks=k)
        r = solve_eisenberg_gale(inst.capacity, inst.demands, inst.weights, inst.max_tasks)
        assert r.failure() is None, (inst.describe(), r)
        assert kkt_violation(inst, r.x, r.prices) <= CROSSCHECK_RTOL


def _batch(**over: np.ndarray) -> NewtonBatch:
    K = len(next(iter(over.values())))
    fields = {"x": np.ones((K, 2)), "prices": np.ones((K, 2)), "iterations": np.full(K, 5), "residual": np.zeros(K),
              "gap": np.zeros(K), "complementary_slackness": np.zeros(K), "excess": np.zeros(K),
              "converged": np.ones(K, dtype=bool)}
    return NewtonBatch(**{**fields, **over})


@pytest.mark.parametrize("field, values", [
    ("gap", [0.0, CEEI_CERTIFICATE_RTOL, -CEEI_CERTIFICATE_RTOL, 2 * CEEI_CERTIFICATE_RTOL, np.nan]),
    ("complementary_slackness", [0.0, CEEI_CERTIFICATE_RTOL, 2 * CEEI_CERTIFICATE_RTOL, np.nan, np.inf]),
    ("excess", [0.0, FEASIBILITY_RTOL, 2 * FEASIBILITY_RTOL, np.nan, -1.0]),
    ("residual", [0.0, 1.0, np.nan, 0.0, 0.0]),
])
def test_failure_and_certified_share_one_acceptance_test(field: str, values: list[float]) -> None:
    # one predicate: a NaN gap, slackness or excess used to pass failure() (NaN > tol is False) while
    # certified() (NaN <= tol is False) rejected it
    b = _batch(**{field: np.array(values)})
    cert = b.certified()
    for k in range(len(values)):
        assert cert[k] == (b.result(k).failure() is None), (field, values[k], b.result(k).failure())
    on_bound = {"gap": [True, True, True, False, False], "complementary_slackness": [True, True, False, False, False],
                "excess": [True, True, False, False, True], "residual": [True] * 5}[field]
    assert cert.tolist() == on_bound


def test_not_converged_and_non_finite_are_rejected_by_both() -> None:
    b = _batch(converged=np.array([True, False]), x=np.array([[1.0, np.inf], [1.0, 1.0]]))
    assert b.certified().tolist() == [False, False]
    assert b.result(0).failure() == "non-finite task counts"
    assert "no convergence in 5 iterations" in (b.result(1).failure() or "")


#: Tolerances of the CEEI solvers (models/tolerances.py): tests name them, never repeat their values.
_CEEI_TOLERANCES = ("CEEI_NEWTON_TOL", "CEEI_VALUE_RTOL", "CEEI_CERTIFICATE_RTOL", "CEEI_ARMIJO",
                    "CEEI_REGULARIZATION", "ENCLOSURE_START_RADIUS", "EXACT_AGREEMENT_RTOL")


def test_ceei_tests_use_the_named_tolerances() -> None:
    values = {getattr(tolerances, name): name for name in _CEEI_TOLERANCES}
    here = Path(__file__).resolve().parent
    found = []
    for path in [here / "test_ceei_newton.py", *sorted(here.glob("test_proofs_ceei*.py"))]:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Constant) and isinstance(node.value, float) and node.value in values:
                found.append(f"{path.name}:{node.lineno}: {node.value!r} is {values[node.value]}")
    assert not found, "\n".join(found)
