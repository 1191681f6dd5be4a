"""Pareto efficiency (Ghodsi et al., NSDI 2011, Section 3): the exact
slack characterisation, cross-checked against the LP definition."""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from analyzer import Instance, check
from analyzer.api import solve
from models import Policy
from models.tolerances import NUMERIC_CONFIRM_ATOL
from tests._policies import EqualSplit, SerialDictatorship
from tests.strategies import random_instance


def _lp_gain(inst: Instance, x: np.ndarray) -> float:
    """The definition: max sum_i (x'_i - x_i) s.t. x' >= x, capacities, caps."""
    from scipy.optimize import linprog

    bounds = [(float(x[i]), None if np.isinf(inst.max_tasks[i]) else float(inst.max_tasks[i])) for i in range(inst.n)]
    res = linprog(-np.ones(inst.n), A_ub=inst.demands.T, b_ub=inst.capacity, bounds=bounds, method="highs")
    assert res.status == 0
    return float(-res.fun - x.sum())


def test_equal_split_is_wasteful_and_the_better_allocation_is_exact() -> None:
    inst = Instance.from_exact([30, 30], [[1, 3], [3, 1]], users=["A", "B"])
    v = check(EqualSplit(), inst, "pareto-efficiency")
    assert v is not None and v.exact
    before = {u: Fraction(t) for u, t in v.before["tasks"].items()}
    after = {u: Fraction(t) for u, t in v.deviation["tasks"].items()}
    assert before == {"A": 5, "B": 5}
    # the better allocation is feasible, dominates, and strictly improves someone
    used = [sum(after[u] * inst.demands_exact[i][j] for i, u in enumerate(inst.users)) for j in range(2)]
    assert all(u <= c for u, c in zip(used, inst.capacity_exact, strict=True))
    assert all(after[u] >= before[u] for u in inst.users) and any(after[u] > before[u] for u in inst.users)


def test_caps_make_leftovers_efficient() -> None:
    inst = Instance.from_exact([30, 30], [[1, 3], [1, 1]], max_tasks=[2, 3])
    for pol in ("drf", "asset", EqualSplit()):
        assert check(pol, inst, "pareto-efficiency") is None


def test_characterisation_agrees_with_the_lp() -> None:
    rng = np.random.default_rng(5)
    seen = {True: 0, False: 0}
    for k in range(40):
        inst = random_instance(rng, n_max=4, m_max=3)
        pol = (EqualSplit(), SerialDictatorship(), "drf")[k % 3]
        v = check(pol, inst, "pareto-efficiency")
        gain = _lp_gain(inst, solve(inst, pol).x)
        assert (v is not None) == (gain > NUMERIC_CONFIRM_ATOL), inst.describe()
        seen[v is not None] += 1
    assert seen[True] and seen[False]


def test_policy_without_exact_solver_is_confirmed_numerically_and_says_so() -> None:
    class FloatSplit(EqualSplit):
        name = "test-float-split"

        def solve(self, instance: Instance):  # type: ignore[no-untyped-def]
            return EqualSplit().solve(instance)

    FloatSplit.solve_exact = Policy.solve_exact  # type: ignore[method-assign]
    pol = FloatSplit()
    assert not pol.has_exact
    v = check(pol, Instance.from_exact([30, 30], [[1, 3], [3, 1]]), "pareto-efficiency")
    assert v is not None and not v.exact and "numerically confirmed only" in v.message
    assert v.to_dict()["exact"] is False


def test_placement_aware_pareto_for_policies_that_place_tasks() -> None:
    """Audit of issue 12: DRFH places tasks on machine types, so pooled slack
    is no Pareto improvement (two_servers: both pooled resources have 2
    left, nobody can be raised). A DRFH that wastes half is caught by the
    placement LP."""
    from models.allocation import Allocation
    from models.policies.drfh import DRFH

    class HalfDRFH(DRFH):
        name = "test-half-drfh"

        def solve(self, instance: Instance) -> Allocation:
            a = super().solve(instance)
            return Allocation(instance=instance, x=a.x / 2, policy=self.label)

    inst = Instance.load("examples/two_servers.toml")
    assert check("drfh", inst, "pareto-efficiency") is None
    v = check(HalfDRFH(), inst, "pareto-efficiency")
    assert v is not None and not v.exact and float(v.after["tasks"][v.user]) > float(v.before["tasks"][v.user])


def test_numeric_room_is_judged_relative_to_the_users_tasks() -> None:
    """Audit of issue 12: for a policy without an exact solver, solver noise
    (here 2e-7 relative) left on a resource is no Pareto improvement; the
    room is confirmed against the user's tasks, not against 0."""
    from models import Allocation, get_policy

    class NoisyDRF(Policy):
        name = "test-noisy-drf"

        def solve(self, instance: Instance) -> Allocation:
            x = get_policy("drf").solve(instance).x * (1 - 2e-7)
            return Allocation(instance=instance, x=x, policy=self.label)

    inst = Instance.from_exact([3, 40], [[1, 0], [0, 1]])
    assert check(NoisyDRF(), inst, "pareto-efficiency") is None
    assert check(EqualSplit(), inst, "pareto-efficiency") is not None
