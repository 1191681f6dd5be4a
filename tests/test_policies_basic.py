"""Hand-computed examples for the policies beyond DRF/asset/CEEI, and the
agreement of their solvers.

Paper instance (Ghodsi et al., NSDI 2011, Section 4): R = <9, 18>,
A = <1, 4>, B = <3, 1>; DRF gives (3, 2), CEEI (45/11, 18/11).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from strategies import random_instance

from analyzer import Instance, PolicyError, get_policy, solve

PAPER = {"resources": {"cpu": 9, "mem": 18},
         "users": {"A": {"demand": {"cpu": 1, "mem": 4}}, "B": {"demand": {"cpu": 3, "mem": 1}}}}


def paper(**user_extra: dict) -> Instance:
    d = {"resources": dict(PAPER["resources"]), "users": {u: dict(s) for u, s in PAPER["users"].items()}}
    for u, extra in user_extra.items():
        d["users"][u].update(extra)
    return Instance.from_dict(d)


# ----------------------------------------------------------------- static
def test_static_partition_by_hand() -> None:
    # each user gets <4.5, 9>: A min(4.5/1, 9/4) = 9/4, B min(4.5/3, 9/1) = 3/2
    assert solve(paper(), "static", exact=True).x_exact == (Fraction(9, 4), Fraction(3, 2))
    # weights 2:1: A gets <6, 12> -> 3 tasks, B <3, 6> -> 1 task; a cap of 1/2 on A
    assert solve(paper(A={"weight": 2}), "static", exact=True).x_exact == (3, 1)
    assert solve(paper(A={"weight": 2, "max_tasks": "1/2"}), "static", exact=True).x_exact == (Fraction(1, 2), 1)
    assert solve(paper(A={"weight": 2}), "static").x.tolist() == [3.0, 1.0]


# ---------------------------------------------------------- leximin-tasks
def test_leximin_tasks_by_hand() -> None:
    # equal tasks: cpu 4x = 9 fills before mem 5x = 18
    assert solve(paper(), "leximin-tasks", exact=True).x_exact == (Fraction(9, 4), Fraction(9, 4))
    # weight 2 on A: xA = 2 xB; cpu 5 xB = 9 before mem 9 xB = 18
    assert solve(paper(A={"weight": 2}), "leximin-tasks", exact=True).x_exact == (Fraction(18, 5), Fraction(9, 5))


# -------------------------------------------------------- single-resource
def test_cpu_only_fair_sharing_by_hand() -> None:
    # cpu shares equal: xA = 3 xB; mem 13 xB = 18 fills before cpu 6 xB = 9
    assert solve(paper(), "single-resource:resource=cpu", exact=True).x_exact == (Fraction(54, 13), Fraction(18, 13))
    # memory-only: 4 xA = xB; cpu 13 xA = 9 fills first
    assert solve(paper(), "single-resource:resource=mem", exact=True).x_exact == (Fraction(9, 13), Fraction(36, 13))


def test_cpu_only_with_a_user_without_cpu_demand() -> None:
    # B needs no cpu: its cpu share is 0 whatever it gets. A (the cpu user) is
    # filled first: cpu saturates at A = 10 (using 10 mem); B then gets the
    # 10 mem left: 5 tasks.
    inst = Instance.from_dict({"resources": {"cpu": 10, "mem": 20},
                               "users": {"A": {"demand": {"cpu": 1, "mem": 1}}, "B": {"demand": {"mem": 2}}}})
    pol = get_policy("single-resource:resource=cpu")
    assert pol.solve_exact(inst).x_exact == (10, 5)
    assert pol.solve(inst).x.tolist() == [10.0, 5.0]
    assert np.allclose(pol.solve_program(inst).x, [10, 5], rtol=1e-6)


def test_single_resource_needs_the_resource() -> None:
    pol = get_policy("single-resource:resource=gpu")
    assert "no resource 'gpu'" in pol.supports(paper())
    assert "no column 2" in get_policy("single-resource:resource=2").supports(paper())
    assert solve(paper(), "single-resource", exact=True).x_exact == (Fraction(54, 13), Fraction(18, 13))
    with pytest.raises(PolicyError, match="does not apply"):
        solve(paper(), pol)


# ------------------------------------------------------------------ slots
def test_slots_by_hand() -> None:
    # 9 slots of <1, 2>: a task of A takes 2 slots, of B 3: 2 xA = 3 xB, cpu fills at (3, 2)
    assert solve(paper(), "slots:slots=9", exact=True).x_exact == (3, 2)
    # 2 slots of <4.5, 9>: one slot per task, equal tasks, cpu fills at 9/4
    assert solve(paper(), "slots:slots=2", exact=True).x_exact == (Fraction(9, 4), Fraction(9, 4))


def test_slots_count_machines() -> None:
    d = {**PAPER, "machines": [{"count": 3, "cpu": 3, "mem": 6}]}
    inst = Instance.from_dict(d)
    # 3 machines x 3 slots = 9 slots of <1, 2>, as above; 1 slot per machine = 3 slots of <3, 6>
    assert solve(inst, "slots:slots=3", exact=True).x_exact == (3, 2)
    assert solve(inst, "slots:slots=1", exact=True).x_exact == (Fraction(9, 4), Fraction(9, 4))


# ------------------------------------------------------------ utilitarian
def test_utilitarian_by_hand() -> None:
    # both resources full: xA + 3 xB = 9, 4 xA + xB = 18 -> (45/11, 18/11), total 63/11
    assert np.allclose(solve(paper(), "utilitarian").x, [45 / 11, 18 / 11], rtol=1e-7)


def test_utilitarian_tie_break_is_weighted_leximin() -> None:
    # any split of 2 cpus gives 2 tasks: leximin on x/w picks (1, 1), (3/2, 1/2) with w = (3, 1)
    d = {"resources": {"cpu": 2}, "users": {"A": {"demand": {"cpu": 1}}, "B": {"demand": {"cpu": 1}}}}
    assert np.allclose(solve(d, "utilitarian").x, [1, 1], rtol=1e-7)
    d["users"]["A"]["weight"] = 3
    assert np.allclose(solve(d, "utilitarian").x, [1.5, 0.5], rtol=1e-7)
    d["users"]["A"]["max_tasks"] = 0.2
    assert np.allclose(solve(d, "utilitarian").x, [0.2, 1.8], rtol=1e-7)


# -------------------------------------------------------------- FDS / GFJ
def test_fds_beta_2_by_hand() -> None:
    # dominant shares yA = 2 xA / 9, yB = xB / 3; min 1/yA + 1/yB on the cpu line
    # yA / 2 + yB = 1 gives yA = 2 (sqrt 2 - 1): xA = 9 (sqrt 2 - 1), xB = 3 (2 - sqrt 2)
    x = solve(paper(), "fds:beta=2").x
    assert np.allclose(x, [9 * (math.sqrt(2) - 1), 3 * (2 - math.sqrt(2))], rtol=1e-6)


def test_gfj_beta_2_by_hand() -> None:
    # min 1/xA + 1/xB on the cpu line xA + 3 xB = 9: xB = 3 (3 - sqrt 3) / 2, xA = 9 (sqrt 3 - 1) / 2
    x = solve(paper(), "gfj:beta=2").x
    assert np.allclose(x, [4.5 * (math.sqrt(3) - 1), 1.5 * (3 - math.sqrt(3))], rtol=1e-6)


@pytest.mark.parametrize("policy", ["fds", "gfj"])
def test_beta_1_is_ceei(policy: str) -> None:
    rng = np.random.default_rng(11)
    for _ in range(15):
        inst = random_instance(rng, n_max=5, m_max=3)
        a = solve(inst, f"{policy}:beta=1").x
        b = solve(inst, "ceei").x
        assert np.allclose(a, b, rtol=1e-5, atol=1e-6), inst.describe()


@pytest.mark.parametrize(("policy", "limit", "unit"), [("fds", "drf", "dominant"), ("gfj", "leximin-tasks", "task")])
def test_large_beta_approaches_the_max_min_limit(policy: str, limit: str, unit: str) -> None:
    """The smallest weighted level tends to the max-min level as beta grows
    (users above the minimum converge more slowly, so they are not compared)."""
    rng = np.random.default_rng(5)

    def levels(alloc) -> np.ndarray:
        u = alloc.dominant_shares if unit == "dominant" else alloc.x
        return u / alloc.instance.weights

    for _ in range(6):
        inst = random_instance(rng, n_max=4, m_max=3, caps=False, zeros=False)
        target = levels(solve(inst, limit)).min()
        gaps = [(target - levels(solve(inst, f"{policy}:beta={b}")).min()) / target for b in (2, 4, 8, 16)]
        # the gap shrinks like 1/beta: beta 2 -> 16 divides it by at least 4
        assert gaps[-1] <= 0.05 and gaps[-1] <= max(gaps[0] / 4, 1e-6), (inst.describe(), gaps)
        assert all(g2 <= g1 + 1e-6 for g1, g2 in zip(gaps, gaps[1:], strict=False)), (inst.describe(), gaps)
        exact = solve(inst, f"{policy}:beta=inf", exact=True)
        assert exact.exact and exact.x_exact == solve(inst, limit, exact=True).x_exact


@pytest.mark.parametrize("spec", ["fds:beta=0", "fds:beta=-1", "gfj:beta=abc", "slots:slots=0", "slots:slots=2.5",
                                  "slots:slots=inf", "single-resource:resource=-1", "fds:gamma=1"])
def test_bad_parameters_name_the_parameter(spec: str) -> None:
    with pytest.raises(PolicyError, match="parameter"):
        get_policy(spec)


# ------------------------------------------- filling policies: 3 solvers agree
@pytest.mark.parametrize("policy", ["leximin-tasks", "single-resource:resource=r0", "slots:slots=3"])
def test_filling_solvers_agree(policy: str) -> None:
    rng = np.random.default_rng(3)
    pol = get_policy(policy)
    for _ in range(25):
        inst = random_instance(rng, n_max=5, m_max=3)
        exact = [float(v) for v in pol.solve_exact(inst).x_exact]
        assert np.allclose(pol.solve(inst).x, exact, rtol=1e-9, atol=1e-9), inst.describe()
        assert np.allclose(pol.solve_program(inst).x, exact, rtol=1e-6, atol=1e-6), inst.describe()
        assert pol.solve(inst).is_feasible()


@pytest.mark.parametrize("policy", ["static", "utilitarian", "fds:beta=3", "gfj:beta=0.5"])
def test_feasible_on_random_instances(policy: str) -> None:
    rng = np.random.default_rng(9)
    for _ in range(10):
        inst = random_instance(rng, n_max=5, m_max=3)
        assert solve(inst, policy).is_feasible(), inst.describe()
