"""Regressions from the slow fuzz suite (tests/test_fuzz.py, ``-m slow``):
LPs whose data met HiGHS' tolerances (small-matrix value 1e-9, primal
feasibility 1e-7) because they were built in badly scaled units. Each test
is the failing instance hypothesis found, shrunk by hand."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from models import Instance, get_policy
from models.tolerances import CROSSCHECK_RTOL, FEASIBILITY_RTOL


@pytest.mark.parametrize("policy", ["drf", "asset", "slots"])
@pytest.mark.parametrize("capacity, demand, cap", [(1.0, 1.0, 1e-16), (1e9, 1e-9, 1.0)])
def test_lp_sequence_user_with_a_tiny_cap_beside_a_user_with_cap_zero(policy: str, capacity: float, demand: float,
                                                                        cap: float) -> None:
    # the cap-0 user made the stage scale 0, hence 1: the other user's cap
    # row read "y <= 1e-16" (in level units), HiGHS' feasibility tolerance
    # took it for 0 and the level dual froze the user at -0
    inst = Instance.from_arrays([capacity], [[demand], [demand]], max_tasks=[cap, 0.0])
    pol = get_policy(policy)
    a = pol.solve_program(inst)
    np.testing.assert_allclose(a.x, [cap, 0.0], rtol=CROSSCHECK_RTOL, atol=0)
    np.testing.assert_allclose(a.x, pol.solve(inst).x, rtol=CROSSCHECK_RTOL, atol=0)


def test_slots_lp_sequence_one_tiny_task_on_a_huge_capacity() -> None:
    # a task of 1e-9 on a capacity of 1e9 takes one whole slot: the capacity
    # row read 4e-18 y <= 4e-18 in level units, HiGHS dropped the entry and
    # every solver reported "unbounded"; the rows are now divided by their
    # largest entry
    inst = Instance.from_arrays([1e9], [[1e-9]])
    pol = get_policy("slots")
    a = pol.solve_program(inst)
    np.testing.assert_allclose(a.x, [1e18], rtol=CROSSCHECK_RTOL)
    np.testing.assert_allclose(a.x, pol.solve(inst).x, rtol=CROSSCHECK_RTOL)


def test_utilitarian_keeps_a_tiny_use_of_a_full_resource() -> None:
    # in one common task unit user A's use of resource 2 was a 2e-10 entry
    # (dropped by HiGHS) on a variable of ~500: resource 2 was over-used by
    # 1.0000000006e-7 of its capacity. The optimum, by hand: A fills
    # resource 1 (1e-3 tasks), B takes the rest of resource 2.
    inst = Instance.from_arrays([1.0, 1.0], [[1000.0, 1e-4], [0.0, 1e6]])
    a = get_policy("utilitarian").solve(inst)
    assert a.max_violation() <= FEASIBILITY_RTOL
    x_b = (1 - Fraction(1, 1000) * Fraction(1, 10**4)) / 10**6
    np.testing.assert_allclose(a.x, [1e-3, float(x_b)], rtol=CROSSCHECK_RTOL, atol=0)


@pytest.mark.parametrize("policy", ["drf", "asset"])
def test_lp_sequence_keeps_the_share_of_a_user_frozen_at_a_tiny_level(policy: str) -> None:
    # B (weight 10, cap 100 tasks of 1e-9) freezes at level 1e-8 and holds
    # 1e-7 of the resource; as a variable at 2e-8 of the next stage's scale
    # it sat below HiGHS' feasibility tolerance, A took the whole resource
    # and the LP sequence was infeasible by 1.00e-07. Frozen users are now
    # constants on the right-hand side.
    inst = Instance.from_arrays([1.0], [[1.0], [1e-9]], weights=[1.0, 10.0], max_tasks=[None, 100.0])
    pol = get_policy(policy)
    a = pol.solve_program(inst)
    assert a.stats["max_violation"] <= FEASIBILITY_RTOL
    np.testing.assert_allclose(a.x, [1 - 1e-7, 100.0], rtol=CROSSCHECK_RTOL, atol=0)
    np.testing.assert_allclose(a.x, pol.solve(inst).x, rtol=CROSSCHECK_RTOL, atol=0)


def test_utilitarian_tie_break_with_levels_far_apart() -> None:
    # in per-user units the tie-break level of B had a coefficient of 3e16
    # (its weight over its dominant share): HiGHS returned 2.06 times B's
    # tasks (resource 2 over-used by 106%). The levels are now divided by a
    # common factor, and an answer over capacity is a SolverError, never
    # returned.
    inst = Instance.from_arrays([1.0, 69.0], [[1e-9, 6.9e7], [0.0, 1e-9]])
    a = get_policy("utilitarian").solve(inst)
    assert a.max_violation() <= FEASIBILITY_RTOL
    np.testing.assert_allclose(a.x, [0.0, 6.9e10], rtol=CROSSCHECK_RTOL, atol=0)
