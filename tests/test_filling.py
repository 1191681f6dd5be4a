"""The three implementations of each filling policy agree, and the filling
handles weights, caps, zero demand entries and different bottlenecks."""

from fractions import Fraction

import numpy as np
import pytest
from strategies import random_instance

from analyzer import Instance, get_policy, solve

FILLING = ["drf", "asset"]


@pytest.mark.parametrize("policy", FILLING)
def test_numeric_equals_exact_on_random_instances(policy: str) -> None:
    rng = np.random.default_rng(20261123)
    pol = get_policy(policy)
    for _ in range(400):
        inst = random_instance(rng, n_max=6, m_max=4)
        num = pol.solve(inst).x
        exact = pol.solve_exact(inst)
        assert np.allclose(num, [float(v) for v in exact.x_exact], rtol=1e-9, atol=1e-9), inst.describe()
        assert all(u <= c for u, c in zip(exact.usage_exact, inst.capacity_exact, strict=True))


@pytest.mark.parametrize("policy", FILLING)
def test_lp_sequence_equals_exact_on_random_instances(policy: str) -> None:
    rng = np.random.default_rng(7)
    pol = get_policy(policy)
    for _ in range(100):
        inst = random_instance(rng, n_max=5, m_max=3)
        lp = pol.solve_program(inst).x
        exact = [float(v) for v in pol.solve_exact(inst).x_exact]
        assert np.allclose(lp, exact, rtol=1e-6, atol=1e-6), inst.describe()


def test_program_returns_solved_stage_lps() -> None:
    inst = Instance.load("examples/paper_two_users.toml")
    problems = get_policy("drf").program(inst)
    assert len(problems) >= 1
    assert all(p.status == "optimal" for p in problems)


def test_different_bottlenecks_keep_rising() -> None:
    # cpu saturates first (A and C use it); B uses only memory and must keep
    # rising until memory is full: stopping at the first saturation gives 10.
    inst = Instance.from_dict({
        "resources": {"cpu": 10, "mem": 20},
        "users": {"A": {"demand": {"cpu": 1}}, "B": {"demand": {"mem": 1}}, "C": {"demand": {"cpu": 1, "mem": 1}}},
    })
    for exact in (False, True):
        alloc = solve(inst, "drf", exact=exact)
        assert alloc.tasks["A"] == 5 and alloc.tasks["C"] == 5
        assert alloc.tasks["B"] == pytest.approx(15)


def test_three_resources_weights_and_cap_by_hand() -> None:
    """Worked by hand (shares per task: A 1/12, B 1/4, C 1/4, D 1/4):

    rates x_i = t w_i / c_i: A 24t, B 4t, C 4t, D 4t.
    t = 1/4: B reaches its cap of 1 task (stage 1).
    then mem: 48t + 16t + 1 = 24 at t = 23/64: A = 69/8, C = 23/16 freeze.
    D only uses gpu: 1 + 23/16 + 4t = 4 gives D = 25/16 at t = 25/64.
    """
    inst = Instance.from_dict({
        "resources": {"cpu": 12, "mem": 24, "gpu": 4},
        "users": {
            "A": {"demand": {"cpu": 1, "mem": 2}, "weight": 2},
            "B": {"demand": {"cpu": 1, "mem": 1, "gpu": 1}, "max_tasks": 1},
            "C": {"demand": {"mem": 4, "gpu": 1}},
            "D": {"demand": {"gpu": 1}},
        },
    })
    expected = {"A": Fraction(69, 8), "B": Fraction(1), "C": Fraction(23, 16), "D": Fraction(25, 16)}
    exact = solve(inst, "drf", exact=True)
    assert dict(exact.tasks) == expected
    assert [s.level for s in exact.certificate] == [Fraction(1, 4), Fraction(23, 64), Fraction(25, 64)]
    num = solve(inst, "drf")
    lp = get_policy("drf").solve_program(inst)
    for u, v in expected.items():
        assert num.tasks[u] == pytest.approx(float(v), rel=1e-12)
        assert lp.tasks[u] == pytest.approx(float(v), rel=1e-7)


def test_edge_cases_one_user_one_resource_unused_resource_zero_cap() -> None:
    one = Instance.from_dict({"resources": {"cpu": 5}, "users": {"A": {"demand": {"cpu": 2}}}})
    assert solve(one, "drf", exact=True).tasks["A"] == Fraction(5, 2)
    unused = Instance.from_dict({"resources": {"cpu": 4, "disk": 100},
                                 "users": {"A": {"demand": {"cpu": 1}}, "B": {"demand": {"cpu": 1}, "max_tasks": 0}}})
    for policy in ("drf", "asset", "ceei"):
        a = solve(unused, policy)
        assert a.tasks["A"] == pytest.approx(4, rel=1e-7) and a.tasks["B"] == 0
    # a single task bigger than the cluster: a fraction of a task
    big = Instance.from_dict({"resources": {"cpu": 1}, "users": {"A": {"demand": {"cpu": 4}}}})
    assert solve(big, "asset", exact=True).tasks["A"] == Fraction(1, 4)


def test_weights_scale_dominant_shares() -> None:
    inst = Instance.from_dict({"resources": {"cpu": 9, "mem": 18},
                               "users": {"A": {"demand": {"cpu": 1, "mem": 4}, "weight": 2},
                                         "B": {"demand": {"cpu": 3, "mem": 1}}}})
    a = solve(inst, "drf", exact=True)
    sa, sb = a.dominant_shares_exact
    assert sa == 2 * sb


def test_numeric_filling_survives_rates_far_apart() -> None:
    # rates 1e15 apart: the rate left after the capped user was computed as a
    # difference that cancelled to 0 ("progressive filling is unbounded")
    inst = Instance.from_arrays(capacity=[2.0], demands=np.array([[1e-8], [3e7]]), resources=["r0"],
                                weights=[1.0, 100.0], max_tasks=[np.inf, 1e-8])
    for name in ("leximin-tasks", "drf", "asset"):
        pol = get_policy(name)
        np.testing.assert_allclose(pol.solve(inst).x, [float(v) for v in pol.solve_exact(inst).x_exact], rtol=1e-12)


def test_second_phase_gets_nothing_of_a_resource_saturated_in_the_first() -> None:
    # u0 uses only r1, which the users of r0 saturate: it must get exactly 0, not
    # roundoff (1.1e-16; a case found by the slow fuzz profile)
    inst = Instance.from_arrays(capacity=[1.0, 1.0], demands=np.array(
        [[0.0, 1.0], [5.46416029e-09, 1.0], [4.35375820e5, 2.68905937e7], [8.30699528e1, 1.35187986e4],
         [6.09887660, 6.78115433e7]]), resources=["r0", "r1"])
    pol = get_policy("single-resource")
    x = pol.solve(inst).x
    assert x[0] == 0.0
    np.testing.assert_allclose(x, [float(v) for v in pol.solve_exact(inst).x_exact], rtol=1e-12, atol=0)
