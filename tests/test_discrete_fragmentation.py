"""Fragmentation and stranded machines of a discrete run (free space no
pending task fits; Ghodsi et al., NSDI 2011, Section 6.2's machines),
worked by hand."""

from __future__ import annotations

from fractions import Fraction

from analyzer import Instance, progressive_filling


def test_stranded_machines_by_hand() -> None:
    # machines <3,3>, <3,3>, <2,2>; A <2,2> unlimited, B <1,3> capped at 1. Both start at share 0; B's
    # task is the larger (3/8 vs 2/8): B on machine 1 (free <2,0>); A on machine 2 (<1,1>), A on machine 3
    # (<0,0>); A's third fits nowhere, B is at its cap. Pending: A only, and <2,2> fits on no machine
    inst = Instance.from_dict({
        "resources": {"cpu": 8, "mem": 8},
        "machines": [{"count": 2, "cpu": 3, "mem": 3}, {"count": 1, "cpu": 2, "mem": 2}],
        "users": {"A": {"demand": {"cpu": 2, "mem": 2}}, "B": {"demand": {"cpu": 1, "mem": 3}, "max_tasks": 1}}})
    r = progressive_filling(inst, "drf", on_full="skip")
    assert dict(r.tasks.items()) == {"A": 2, "B": 1}
    assert r.placement == {"m0-0": {"B": 1}, "m0-1": {"A": 1}, "m1-0": {"A": 1}}
    assert r.fragmentation == (Fraction(3), Fraction(1))
    assert r.stranded_machines == 2  # the full <2,2> machine has no free space: not stranded


def test_nothing_is_stranded_when_nobody_is_pending() -> None:
    inst = Instance.from_dict({
        "resources": {"cpu": 6, "mem": 6}, "machines": [{"count": 2, "cpu": 3, "mem": 3}],
        "users": {"A": {"demand": {"cpu": 2, "mem": 2}, "max_tasks": 1}}})
    r = progressive_filling(inst, "drf", on_full="skip")
    assert r.pending == [] and r.stranded_machines == 0 and r.fragmentation == (0, 0)
