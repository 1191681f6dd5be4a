"""Allocation.require_feasible: the one bound on LP policies' answers
(filling LP sequence, utilitarian, DRFH), reported as they are, never clipped."""

from __future__ import annotations

import numpy as np
import pytest

from models import Allocation, Instance, SolverError, get_policy
from models.tolerances import FEASIBILITY_RTOL

PAPER = {"resources": {"cpu": 9, "mem": 18},
         "users": {"A": {"demand": {"cpu": 1, "mem": 4}}, "B": {"demand": {"cpu": 3, "mem": 1}}}}


def test_within_tolerance_is_returned_with_its_violation_recorded() -> None:
    inst = Instance.from_dict(PAPER)
    a = Allocation(instance=inst, x=np.array([3.0, 2.0 * (1 + FEASIBILITY_RTOL / 10)]), policy="drf")
    assert a.require_feasible() is a
    assert 0 < a.stats["max_violation"] <= FEASIBILITY_RTOL


def test_excess_over_tolerance_raises_naming_the_policy() -> None:
    inst = Instance.from_dict(PAPER)
    # memory 4*3 + 1*2.1 = 14.1 <= 18, cpu 3 + 3*2.1 = 9.3 > 9
    a = Allocation(instance=inst, x=np.array([3.0, 2.1]), policy="drf")
    with pytest.raises(SolverError, match=r"'drf'.*infeasible by 3\.33e-02.*the LP sequence"):
        a.require_feasible("the LP sequence")
    assert a.stats["max_violation"] == pytest.approx(0.3 / 9)


def test_drfh_bounds_its_lp_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    inst = Instance.load("examples/two_servers.toml")
    pol = get_policy("drfh")
    x, placement, problems = pol._run(inst)
    assert pol.solve(inst).stats["max_violation"] <= FEASIBILITY_RTOL
    over = x * 1.5  # the aggregate is used to 6/7 here (placement): 1.5x exceeds it
    monkeypatch.setattr(pol, "_run", lambda instance, tight=False: (over, placement, problems))
    with pytest.raises(SolverError, match="infeasible by"):
        pol.solve(inst)
