"""Exact CEEI (proofs.ceei_exact): the paper's example, an irrational
optimum, exact KKT certificates, enclosures, and agreement with the numeric
solver on random instances with weights, caps and zero demand entries."""

from fractions import Fraction

import numpy as np
import pytest
import sympy as sp
from strategies import random_instance

from analyzer import Instance, solve
from models import get_policy
from models.tolerances import CROSSCHECK_RTOL, EXACT_AGREEMENT_RTOL
from proofs import EXACT_SOLVERS, CEEIEnclosure, KKTCertificate, solve_ceei_exact
from proofs.ceei_exact import ActiveSet, RealAlgebraic, enclose, guess_active_set

CEEI = get_policy("ceei")


def paper() -> Instance:
    return Instance.load("examples/paper_two_users.toml")


def three_users() -> Instance:
    return Instance.from_dict({"resources": {"r1": 100, "r2": 100},
                               "users": {"A": {"demand": {"r1": 4, "r2": 1}},
                                         "B": {"demand": {"r1": 1, "r2": 16}},
                                         "C": {"demand": {"r1": 16, "r2": 1}}}})


def test_registered_for_api_dispatch() -> None:
    assert EXACT_SOLVERS.get("ceei") is solve_ceei_exact
    assert solve(paper(), "ceei", exact=True).stats["solver"] == "sympy-kkt"


def test_paper_example_rational_with_prices() -> None:
    a = solve(paper(), "ceei", exact=True)
    assert a.exact
    assert a.tasks["A"] == sp.Rational(45, 11) and a.tasks["B"] == sp.Rational(18, 11)
    assert a.tasks["A"] == Fraction(45, 11)
    cert = a.certificate
    assert isinstance(cert, KKTCertificate) and cert.holds
    assert cert.prices == (sp.Rational(1, 5), sp.Rational(1, 90))  # per CPU, per GB; budgets = weights = 1
    assert cert.number_field == "Q" and cert.binding == (0, 1) and cert.capped == ()


def test_json_writes_exact_strings_beside_floats() -> None:
    d = solve(paper(), "ceei", exact=True).to_dict()
    assert d["exact"] is True
    assert d["users"]["A"]["tasks"] == "45/11" and d["users"]["A"]["tasks_float"] == pytest.approx(45 / 11, rel=1e-15)
    assert d["users"]["B"]["dominant_share"] == "6/11"


def test_three_users_irrational_optimum_is_symbolic() -> None:
    a = solve(three_users(), "ceei", exact=True)
    assert a.exact and a.certificate.holds
    # the optimum derived independently: both resources bind, x_i (p . d_i) = 1
    p1, p2 = sp.symbols("p1 p2", positive=True)
    d = [(4, 1), (1, 16), (16, 1)]
    x = [1 / (p1 * u + p2 * v) for u, v in d]
    sols = sp.solve([sum(xi * u for xi, (u, _) in zip(x, d, strict=True)) - 100,
                     sum(xi * v for xi, (_, v) in zip(x, d, strict=True)) - 100], [p1, p2], dict=True)
    sols = [s for s in sols if s[p1].is_positive and s[p2].is_positive]
    assert len(sols) == 1
    expect = [sp.radsimp(xi.subs(sols[0])) for xi in x]
    for name, e in zip("ABC", expect, strict=True):
        got = a.tasks[name]
        assert not got.is_Rational  # irrational, given exactly
        assert sp.simplify(got - e) == 0
        assert sp.minimal_polynomial(got, sp.Symbol("z")) == sp.minimal_polynomial(e, sp.Symbol("z"))
    assert "sqrt" in str(a.tasks["A"])
    assert a.to_dict()["users"]["A"]["tasks"] == str(a.tasks["A"])
    assert "Q(alpha)" in a.certificate.number_field


def test_caps_weights_and_unused_resource() -> None:
    inst = Instance.from_dict({"resources": {"cpu": 10, "mem": 10, "gpu": 4},
                               "users": {"A": {"demand": {"cpu": 1, "mem": 1}, "weight": 3, "max_tasks": 2},
                                         "B": {"demand": {"cpu": 2}},
                                         "C": {"demand": {"mem": 1}, "weight": 2},
                                         "D": {"demand": {"cpu": 1}, "max_tasks": 0}}})
    a = solve(inst, "ceei", exact=True)
    assert a.exact and a.certificate.holds
    # A is held at its cap with a positive multiplier; the gpu is unused and free
    assert a.tasks["A"] == 2 and a.tasks["D"] == 0
    assert a.tasks["B"] == 4 and a.tasks["C"] == 8
    cert = a.certificate
    assert cert.capped == (0,) and cert.multipliers[0] > 0 and cert.prices[2] == 0


def test_wrong_active_set_is_rejected_and_neighbours_found() -> None:
    inst = three_users()
    x = CEEI.solve(inst).x
    first, _ = guess_active_set(inst, x)
    assert first == ActiveSet(binding=(0, 1), capped=())
    from proofs.ceei_exact.active_set import exact_data
    from proofs.ceei_exact.groebner import solve_active_set

    wrong = ActiveSet(binding=(0,), capped=())
    assert solve_active_set(exact_data(inst), wrong, x, (inst.users, inst.resources)) is None


def test_real_algebraic_signs_are_exact() -> None:
    t = sp.Symbol("t")
    a = RealAlgebraic(sp.Poly(t**2 - 2, t, domain="QQ"), Fraction(1), Fraction(2))
    assert a.sign(a.element(t * t - 2)) == 0
    assert a.sign(a.element(t - Fraction(14142135623730951, 10**16))) == -1  # sqrt(2) < 1.4142135623730951
    assert a.sign(a.element(t - Fraction(14142135623730950, 10**16))) == 1
    assert a.to_sympy(a.inverse(a.element(t))) == sp.sqrt(2) / 2


def test_enclosure_contains_exact_optimum() -> None:
    inst = three_users()
    exact = solve(inst, "ceei", exact=True)
    enc = enclose(inst, ActiveSet(binding=(0, 1), capped=()), CEEI.solve(inst).x)
    assert isinstance(enc, CEEIEnclosure) and enc.holds
    for v, (lo, hi) in zip(exact.x_exact, enc.bounds(), strict=True):
        assert bool(sp.Rational(lo.numerator, lo.denominator) <= v <= sp.Rational(hi.numerator, hi.denominator))
    assert enc.max_width < 1e-30


def test_out_of_reach_returns_enclosure_and_says_so() -> None:
    a = solve_ceei_exact(CEEI, three_users(), max_unknowns=2)
    assert not a.exact and a.x_exact is None
    assert isinstance(a.certificate, CEEIEnclosure) and a.certificate.holds
    assert "not exact" in a.message and "enclosed" in a.message
    exact = solve(three_users(), "ceei", exact=True)
    assert np.allclose(a.x, exact.x, rtol=1e-14, atol=0)


def _agree(n_instances: int, seed: int, n_max: int, m_max: int) -> None:
    rng = np.random.default_rng(seed)
    exact_count = 0
    for _ in range(n_instances):
        inst = random_instance(rng, n_max=n_max, m_max=m_max)
        num = CEEI.solve(inst) if (inst.max_tasks > 0).any() else None
        a = solve_ceei_exact(CEEI, inst, numeric=num)
        assert a.exact and a.certificate.holds, inst.describe()
        exact_count += 1
        ex = np.array([float(v) for v in a.x_exact])
        assert np.allclose(a.x, ex, rtol=1e-15, atol=0)
        # the float view of the exact optimum is feasible ...
        assert a.max_violation() <= 1e-15 * max(1.0, float(np.max(ex, initial=0.0))), inst.describe()
        if num is None:
            assert not ex.any()
            continue
        # ... and the numeric solver (the Newton method) agrees to EXACT_AGREEMENT_RTOL; its
        # objective never beats the certified optimum
        assert np.allclose(num.x, ex, rtol=EXACT_AGREEMENT_RTOL, atol=EXACT_AGREEMENT_RTOL), inst.describe()
        live = inst.max_tasks > 0
        w = inst.weights[live]
        obj_exact = float(w @ np.log(ex[live]))
        obj_num = float(w @ np.log(np.maximum(num.x[live], np.finfo(float).tiny)))
        assert obj_num <= obj_exact + EXACT_AGREEMENT_RTOL * max(1.0, abs(obj_exact)), inst.describe()
        # an independent method, interval Newton from the same prices, agrees as closely
        if a.certificate.binding and len(a.certificate.binding) + inst.n <= 6:
            enc = enclose(inst, ActiveSet(a.certificate.binding, a.certificate.capped), num.x)
            if enc is not None:
                mids = enc.midpoints()
                assert np.allclose(mids, ex, rtol=EXACT_AGREEMENT_RTOL, atol=EXACT_AGREEMENT_RTOL), inst.describe()
    assert exact_count == n_instances


def test_exact_agrees_with_numeric_on_random_instances() -> None:
    _agree(100, seed=20261123, n_max=4, m_max=3)


@pytest.mark.slow
def test_exact_agrees_with_numeric_on_many_random_instances() -> None:
    _agree(1000, seed=5, n_max=6, m_max=4)


def test_beyond_reach_by_default_returns_enclosure() -> None:
    rng = np.random.default_rng(3)
    demands = rng.integers(1, 10, size=(30, 2))
    inst = Instance.from_exact([int(v) for v in demands.sum(axis=0) * 3], demands.tolist())
    num = CEEI.solve(inst)
    a = solve_ceei_exact(CEEI, inst, numeric=num)
    assert len(a.certificate.binding) == 2  # 30 uncapped users, two priced resources: beyond EXACT_REACH
    assert not a.exact and "out of reach" in a.message and a.certificate.holds
    assert np.allclose(a.x, num.x, rtol=CROSSCHECK_RTOL)
    assert a.certificate.explain()[0].startswith("not exact")


def test_one_priced_resource_is_rational_at_any_size() -> None:
    rng = np.random.default_rng(4)
    n = 300
    demands = rng.integers(1, 10, size=(n, 1))
    weights = [Fraction(int(v), 2) for v in rng.integers(1, 6, size=n)]
    inst = Instance.from_exact([1000], demands.tolist(), weights=weights)
    a = solve(inst, "ceei", exact=True)
    assert a.exact and a.certificate.number_field == "Q"
    W = sum(weights)
    # one resource: p = sum of weights / capacity, x_i = w_i / (p d_i)
    assert a.certificate.prices[0] == sp.Rational(W.numerator, W.denominator) / 1000
    assert all(a.x_exact[i] == sp.Rational(weights[i].numerator, weights[i].denominator) * 1000 / W
               / int(demands[i, 0]) for i in range(n))


def test_neighbour_search_recovers_from_a_poor_numeric_guess() -> None:
    from models import Allocation

    inst = paper()
    # 1e-5 below the optimum: no resource looks exhausted, so the first guess prices nothing
    rough = Allocation(instance=inst, x=np.array([45 / 11, 18 / 11]) * (1 - 1e-5), policy="ceei")
    a = solve_ceei_exact(CEEI, inst, numeric=rough)
    assert a.exact and a.certificate.holds and a.stats["active_sets_tried"] > 1
    assert a.x_exact == (sp.Rational(45, 11), sp.Rational(18, 11))
