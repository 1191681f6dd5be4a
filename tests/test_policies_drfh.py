"""DRFH (Wang, Liang, Li, INFOCOM 2014) against hand-computed examples."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from analyzer import Instance, PolicyError, get_policy, solve
from models.errors import SolverError
from models.policies.drfh import DRFH, placement_violation
from models.tolerances import FEASIBILITY_RTOL

TWO_SERVERS = {"resources": {"cpu": 14, "mem": 14},
               "users": {"A": {"demand": {"cpu": 0.2, "mem": 1}}, "B": {"demand": {"cpu": 1, "mem": 0.2}}},
               "machines": [{"cpu": 2, "mem": 12}, {"cpu": 12, "mem": 2}]}


def test_two_complementary_servers_by_hand() -> None:
    # one task of each user is 1/14 of the pool's dominant resource, so DRFH equalises tasks.
    # A alone on server 1 runs 10 tasks (cpu 2 full), B alone on server 2 runs 10 (mem 2 full);
    # by symmetry a = b', b = a' and 0.2 a + b <= 2 makes a + b largest at a = 10, b = 0.
    alloc = solve(TWO_SERVERS, "drfh")
    assert np.allclose(alloc.x, [10, 10], rtol=1e-7)
    assert np.allclose(alloc.certificate["placement"], [[10, 0], [0, 10]], atol=1e-6)
    assert alloc.is_feasible()


def test_weighted_by_hand() -> None:
    # A weight 2: xA = 2 xB. A fills server 1's cpu with 10 tasks, then A and B share server 2's
    # 2 GB: a' + 0.2 b' = 2 with 10 + a' = 2 b' gives b' = 60/11, xA = 120/11.
    d = {**TWO_SERVERS, "users": {**TWO_SERVERS["users"], "A": {"demand": {"cpu": 0.2, "mem": 1}, "weight": 2}}}
    assert np.allclose(solve(d, "drfh").x, [120 / 11, 60 / 11], rtol=1e-7)


def test_task_that_fits_nowhere_gets_nothing_and_caps_hold() -> None:
    d = {**TWO_SERVERS, "users": {**TWO_SERVERS["users"], "C": {"demand": {"cpu": 13}},
                                  "A": {"demand": {"cpu": 0.2, "mem": 1}, "max_tasks": 4}}}
    x = solve(d, "drfh").x
    assert x[2] == pytest.approx(0, abs=1e-9) and x[0] == pytest.approx(4, rel=1e-7)
    # B then also takes what A leaves on server 1 (cpu 2 - 0.8): 10 + 1.2 tasks
    assert x[1] == pytest.approx(11.2, rel=1e-7)


def test_needs_machines() -> None:
    inst = Instance.from_dict({k: v for k, v in TWO_SERVERS.items() if k != "machines"})
    assert "needs machines" in get_policy("drfh").supports(inst)
    with pytest.raises(PolicyError, match="needs machines"):
        solve(inst, "drfh")


def test_example_file_through_the_cli(capsys) -> None:
    from analyzer.cli.main import main

    assert main(["solve", "examples/two_servers.toml", "--policy", "drfh", "--format", "json"]) == 0
    import json

    users = json.loads(capsys.readouterr().out)["allocations"][0]["users"]
    assert users["A"]["tasks"] == pytest.approx(10, rel=1e-7)
    assert users["B"]["tasks"] == pytest.approx(10, rel=1e-7)


def test_price_blocking_freezes_a_user_with_a_tiny_use_of_a_full_resource() -> None:
    """B uses 1e-9 cpu per task: its level's dual (1e-9 times the cpu
    price) is below DUAL_TOL, but cpu is priced, so B freezes with A (the
    leximin's price-blocking rule, models.leximin). Without it the
    next stage let B rise to 2 tasks through the LP_LEVEL_RTOL slack of A.
    One machine holding the pool: DRFH is DRF, whose exact answer is 1, 1."""
    d = {"resources": {"cpu": 1, "mem": 2},
         "users": {"A": {"demand": {"cpu": 1}}, "B": {"demand": {"cpu": 1e-9, "mem": 1}, "weight": 0.5}},
         "machines": [{"cpu": 1, "mem": 2}]}
    pool = {k: v for k, v in d.items() if k != "machines"}
    exact = [float(v) for v in solve(pool, "drf", exact=True).x_exact]
    assert np.allclose(solve(d, "drfh").x, exact, rtol=1e-7)


def test_placement_holds_each_users_allocation() -> None:
    """The price-blocking instance above: B is frozen at 1 task, but the
    last LP stage placed it 2 (free memory nobody else can use); the
    placement attached to the answer must be a placement of that answer."""
    d = {"resources": {"cpu": 1, "mem": 2},
         "users": {"A": {"demand": {"cpu": 1}}, "B": {"demand": {"cpu": 1e-9, "mem": 1}, "weight": 0.5}},
         "machines": [{"cpu": 1, "mem": 2}]}
    alloc = solve(d, "drfh")
    assert np.allclose(alloc.certificate["placement"].sum(axis=1), alloc.x, rtol=1e-12)
    assert alloc.stats["placement_violation"] <= FEASIBILITY_RTOL


def test_placement_is_checked_per_machine_type_exactly(monkeypatch: pytest.MonkeyPatch) -> None:
    # the pooled use of [[0, 10], [10, 0]] is that of the right placement (both users at 10 tasks,
    # feasible on the pool), but A's 10 tasks need 10 mem on the 2-mem server: exactly 4 over
    inst = Instance.from_dict(TWO_SERVERS)
    swapped = np.array([[0.0, 10.0], [10.0, 0.0]])
    viol, where = placement_violation(inst, np.array([10.0, 10.0]), swapped)
    assert viol == Fraction(4) and "on machine type" in where
    assert placement_violation(inst, np.array([10.0, 10.0]), swapped[::-1])[0] == 0

    def bad_run(self: DRFH, instance: Instance, tight: bool = False) -> tuple:
        return np.array([10.0, 10.0]), swapped, []

    monkeypatch.setattr(DRFH, "_run", bad_run)
    with pytest.raises(SolverError, match="placement infeasible by 4.00e"):
        solve(TWO_SERVERS, "drfh")
    with pytest.raises(SolverError, match="placement infeasible"):
        DRFH().solve_tight(inst)
