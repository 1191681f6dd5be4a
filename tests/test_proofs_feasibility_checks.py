"""proofs.checks.feasibility_checks: the exact capacity and cap checks that
the filling and utilitarian certificates share (paper example, Ghodsi et
al., NSDI 2011, Section 4: 9 CPU, 18 GB, <1,4> and <3,1>)."""

from __future__ import annotations

from fractions import Fraction as F

from models import Instance, get_policy
from proofs.checks import all_hold, feasibility_checks
from proofs.filling_certificate import certify_filling
from proofs.utilitarian_exact import solve_utilitarian_exact

PAPER = {"resources": {"cpu": 9, "mem": 18},
         "users": {"A": {"demand": {"cpu": 1, "mem": 4}, "max_tasks": 5}, "B": {"demand": {"cpu": 3, "mem": 1}}}}


def test_drf_answer_is_feasible_exactly() -> None:
    inst = Instance.from_dict(PAPER)
    checks = feasibility_checks(inst, [F(3), F(2)])
    assert all_hold(checks)
    assert str(checks[0]) == "capacity of cpu: ok (uses 9 of 9)"
    assert str(checks[1]) == "capacity of mem: ok (uses 14 of 18)"


def test_each_violation_is_named() -> None:
    inst = Instance.from_dict(PAPER)
    over_cpu = feasibility_checks(inst, [F(3), F(2) + F(1, 10**12)])
    assert [c.name for c in over_cpu if not c.holds] == ["capacity of cpu"]
    over_cap = feasibility_checks(inst, [F(5) + F(1, 10**12), F(0)])
    # 5 tasks of <1,4> also need 20 GB of 18
    assert [c.name for c in over_cap if not c.holds] == ["capacity of mem", "0 <= tasks of A <= cap"]
    negative = feasibility_checks(inst, [F(-1, 10**12), F(0)])
    assert [c.name for c in negative if not c.holds] == ["0 <= tasks of A <= cap"]


def test_certificates_use_them() -> None:
    inst = Instance.from_dict(PAPER)
    drf = certify_filling(get_policy("drf"), inst)
    assert drf.holds and "capacity of cpu" in {c.name for c in drf.checks}
    util = solve_utilitarian_exact(get_policy("utilitarian"), inst)
    assert util.x_exact == (F(45, 11), F(18, 11)) and util.certificate.holds
    assert {"capacity of mem", "0 <= tasks of A <= cap", "the total is the maximum"} <= {
        c.name for c in util.certificate.checks}
